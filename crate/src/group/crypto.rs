//! veilkit's OpenMLS crypto provider: OpenMLS's [`OpenMlsCrypto`] and
//! [`OpenMlsRand`] on the core's own primitives.
//!
//! OpenMLS's two providers both run HPKE through `hpke-rs`, which is MPL-2.0 (a
//! copyleft licence the dependency policy does not admit), and the libcrux one
//! pins a second libcrux line (0.0.10) next to the core's 0.0.11. This provider
//! uses what the core already has and tests against vectors: SHA-2 (`sha2`),
//! HKDF / HMAC (`hkdf`, `hmac`), AES-GCM (`aes-gcm`), ChaCha20-Poly1305
//! (`chacha20poly1305`, same `aead` line), Ed25519 (`ed25519-dalek`, strict
//! verification), and RFC 9180 HPKE from [`crate::hpke`]'s key schedule with two
//! KEMs: DHKEM(X25519, HKDF-SHA256) (`0x0020`, [`crate::x25519`]) and X-Wing
//! draft-06 (`0x647a`, [`crate::xwing`]). Randomness is [`crate::rng`]
//! (`getrandom`); a failing generator is an error.
//!
//! Supported: the suites veilkit creates and joins, `0x0001`
//! (`MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519`) and `0x004D`
//! (`MLS_256_XWING_CHACHA20POLY1305_SHA256_Ed25519`), plus `0x0003` (X25519,
//! ChaCha20-Poly1305), which needs nothing more. Byte agreement with OpenMLS's
//! libcrux provider is pinned by `vectors/mls/hpke-openmls-libcrux-kat.json`
//! (`crate/tests/group.rs`), and suite `0x0001` is exercised live against ts-mls.

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes128Gcm, Aes256Gcm};
use chacha20poly1305::ChaCha20Poly1305;
use curve25519_dalek::EdwardsPoint;
use ed25519_dalek::{Signer as _, SigningKey, VerifyingKey};
use hkdf::Hkdf;
use hmac::{Hmac, Mac};
use openmls_traits::crypto::OpenMlsCrypto;
use openmls_traits::random::OpenMlsRand;
use openmls_traits::types::{
    AeadType, Ciphersuite, CryptoError, ExporterSecret, HashType, HpkeAeadType, HpkeCiphertext,
    HpkeConfig, HpkeKdfType, HpkeKemType, HpkeKeyPair, KemOutput, SignatureScheme,
};
use sha2::{Digest, Sha256, Sha384, Sha512};
use tls_codec::SecretVLBytes;
use zeroize::Zeroizing;

use crate::ed25519::{self, PreparedVerifyingKey};
use crate::{hpke, rng, x25519, xwing};

/// The provider (stateless: every call draws fresh randomness from `getrandom`).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct VeilCrypto;

/// Verifying keys kept by the last signature checks, most recent last.
const KEPT_VERIFYING_KEYS: usize = 16;
/// A kept key's check number at which its table is built ([`PreparedVerifyingKey`], ~1.5 checks'
/// work, 40 KiB): from the third check of the same key on. Not the second: the key of a key package
/// an add commit brings is checked twice (the key package, its leaf node), often never again here.
const PREPARE_AT_CHECK: u32 = 3;

/// A verifying key kept between checks.
struct KeptKey {
    /// The key's bytes as OpenMLS gave them (hashed into every check).
    encoded: [u8; 32],
    /// Its decompressed point.
    point: EdwardsPoint,
    /// Checks it served while kept.
    checks: u32,
    /// Its table, from the [`PREPARE_AT_CHECK`]-th check on.
    prepared: Option<PreparedVerifyingKey>,
}

thread_local! {
    /// A group checks the same few members' signature keys over and over (every application
    /// message, every commit). Decompressing a key is a square root, about a tenth of a check; a
    /// prepared key checks about 1.75x faster. Public data only, and both are pure functions of the
    /// key's bytes: a hit gives exactly the answer a fresh check would (tested on every vector,
    /// `crate/tests/asym_ed25519_prepared.rs`). At most 16 tables: 640 KiB.
    static VERIFYING_KEYS: core::cell::RefCell<Vec<KeptKey>> =
        const { core::cell::RefCell::new(Vec::new()) };
}

/// Inputs of at least this many bytes go through [`DIGESTS`].
const MEMO_MIN_INPUT: usize = 256;
/// Bytes of inputs [`DIGESTS`] keeps before it starts over (a 1,000-member X-Wing tree is ~3 MiB).
const MEMO_MAX_BYTES: usize = 8 << 20;
/// Inputs kept per (hash, length, last 32 bytes): more are hashed, not kept.
const MEMO_MAX_SAME_KEY: usize = 4;

/// (hash algorithm, input length, the input's last 32 bytes).
type MemoKey = (u8, usize, [u8; 32]);
/// (input, digest).
type MemoEntry = (Vec<u8>, Vec<u8>);

/// Digests of the large inputs [`OpenMlsCrypto::hash`] has seen, by their whole content.
///
/// OpenMLS computes the tree hash from scratch on every commit: each leaf and parent node of the
/// ratchet tree (an X-Wing node carries a 1,216-byte key) is serialized and hashed again, although
/// a commit changes only the nodes on one path. At 100 members that was 58% of processing a commit.
/// Kept here, an unchanged node costs a lookup and a comparison instead of a hash. Exact: an entry
/// is used only when its whole input equals the new one (the key, length and last 32 bytes, only
/// finds the candidates), so the answer is always the digest of the bytes given. Everything OpenMLS
/// hashes through `hash` is public (tree hash inputs, key package and proposal refs, an exporter's
/// context); secrets go through HKDF and HMAC, which are not kept.
#[derive(Default)]
struct Memo {
    entries: std::collections::HashMap<MemoKey, Vec<MemoEntry>>,
    bytes: usize,
}

impl Memo {
    fn digest(&mut self, hash: u8, data: &[u8], compute: impl FnOnce(&[u8]) -> Vec<u8>) -> Vec<u8> {
        let mut tail = [0u8; 32];
        if let Some(last) = data.last_chunk::<32>() {
            tail = *last;
        }
        let key = (hash, data.len(), tail);
        if let Some(found) = self
            .entries
            .get(&key)
            .and_then(|same| same.iter().find(|(input, _)| input.as_slice() == data))
        {
            return found.1.clone();
        }
        let out = compute(data);
        let full = self
            .entries
            .get(&key)
            .is_some_and(|same| same.len() >= MEMO_MAX_SAME_KEY);
        if full || data.len() > MEMO_MAX_BYTES {
            return out;
        }
        if self.bytes + data.len() > MEMO_MAX_BYTES {
            self.entries.clear();
            self.bytes = 0;
        }
        self.entries
            .entry(key)
            .or_default()
            .push((data.to_vec(), out.clone()));
        self.bytes += data.len();
        out
    }
}

thread_local! {
    static DIGESTS: core::cell::RefCell<Memo> = core::cell::RefCell::new(Memo::default());
}

/// `VerifyingKey::from_bytes(pk)?.verify_strict(data, sig)`, through [`VERIFYING_KEYS`].
fn check_signature(pk: &[u8; 32], data: &[u8], sig: &[u8; 64]) -> Result<(), CryptoError> {
    let decode = || {
        VerifyingKey::from_bytes(pk)
            .map(|key| key.to_edwards())
            .map_err(|_| CryptoError::InvalidPublicKey)
    };
    let verdict = VERIFYING_KEYS.with(|kept| -> Result<bool, CryptoError> {
        let Ok(mut kept) = kept.try_borrow_mut() else {
            return Ok(ed25519::verify_strict(pk, &decode()?, data, sig));
        };
        let mut entry = match kept.iter().position(|k| &k.encoded == pk) {
            Some(at) => kept.remove(at),
            None => KeptKey {
                encoded: *pk,
                point: decode()?,
                checks: 0,
                prepared: None,
            },
        };
        entry.checks = entry.checks.saturating_add(1);
        if entry.prepared.is_none() && entry.checks >= PREPARE_AT_CHECK {
            entry.prepared = PreparedVerifyingKey::new(entry.encoded, &entry.point);
        }
        let verdict = match &entry.prepared {
            Some(prepared) => prepared.verify_strict(data, sig),
            None => ed25519::verify_strict(&entry.encoded, &entry.point, data, sig),
        };
        if kept.len() >= KEPT_VERIFYING_KEYS {
            kept.remove(0);
        }
        kept.push(entry);
        Ok(verdict)
    })?;
    if verdict {
        Ok(())
    } else {
        Err(CryptoError::InvalidSignature)
    }
}

/// The suites this provider can run.
const SUITES: [Ciphersuite; 3] = [
    Ciphersuite::MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519,
    Ciphersuite::MLS_128_DHKEMX25519_CHACHA20POLY1305_SHA256_Ed25519,
    Ciphersuite::MLS_256_XWING_CHACHA20POLY1305_SHA256_Ed25519,
];

/// RFC 9180 KEM identifiers (`suite_id` bytes).
const KEM_X25519: u16 = 0x0020;

/// The randomness source failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RandomnessUnavailable;

impl core::fmt::Display for RandomnessUnavailable {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("the platform random generator failed")
    }
}

impl std::error::Error for RandomnessUnavailable {}

impl OpenMlsRand for VeilCrypto {
    type Error = RandomnessUnavailable;

    fn random_array<const N: usize>(&self) -> Result<[u8; N], Self::Error> {
        let mut out = [0u8; N];
        rng::fill(&mut out).map_err(|_| RandomnessUnavailable)?;
        Ok(out)
    }

    fn random_vec(&self, len: usize) -> Result<Vec<u8>, Self::Error> {
        let mut out = vec![0u8; len];
        rng::fill(&mut out).map_err(|_| RandomnessUnavailable)?;
        Ok(out)
    }
}

/// A KEM of the supported HPKE configurations.
#[derive(Clone, Copy)]
enum Kem {
    X25519,
    XWing,
}

/// An HPKE configuration this provider runs: KEM, HKDF-SHA256, an AEAD.
#[derive(Clone, Copy)]
struct Suite {
    kem: Kem,
    aead: AeadType,
    suite_id: [u8; 10],
}

impl Suite {
    fn from_config(config: &HpkeConfig) -> Result<Self, CryptoError> {
        let HpkeConfig(kem, kdf, aead) = config;
        if *kdf != HpkeKdfType::HkdfSha256 {
            return Err(CryptoError::UnsupportedKdf);
        }
        let (kem, kem_id) = match kem {
            HpkeKemType::DhKem25519 => (Kem::X25519, KEM_X25519),
            HpkeKemType::XWingKemDraft6 => (Kem::XWing, hpke::KEM_ID),
            _ => return Err(CryptoError::UnsupportedCiphersuite),
        };
        let aead = match aead {
            HpkeAeadType::AesGcm128 => AeadType::Aes128Gcm,
            HpkeAeadType::AesGcm256 => AeadType::Aes256Gcm,
            HpkeAeadType::ChaCha20Poly1305 => AeadType::ChaCha20Poly1305,
            HpkeAeadType::Export => return Err(CryptoError::UnsupportedAeadAlgorithm),
        };
        Ok(Self {
            kem,
            aead,
            suite_id: hpke::suite_id_for(kem_id, config.2 as u16),
        })
    }

    /// `Encap(pkR)`: `(enc, shared_secret)`.
    fn encap(&self, pk_r: &[u8]) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>), CryptoError> {
        match self.kem {
            Kem::X25519 => {
                let ephemeral = x25519::x25519_generate().map_err(randomness_or_key)?;
                let dh = x25519::x25519_dh(ephemeral.secret.as_slice(), pk_r)
                    .map_err(|_| CryptoError::InvalidPublicKey)?;
                let enc = ephemeral.public.to_vec();
                let ss = dhkem_shared_secret(&dh, &enc, pk_r)?;
                Ok((enc, ss))
            }
            Kem::XWing => xwing::xwing_encapsulate(pk_r).map_err(randomness_or_key),
        }
    }

    /// `Decap(enc, skR)`.
    fn decap(&self, enc: &[u8], sk_r: &[u8]) -> Result<Zeroizing<[u8; 32]>, CryptoError> {
        match self.kem {
            Kem::X25519 => {
                let pk_r = x25519::x25519_public(sk_r).map_err(|_| CryptoError::InvalidLength)?;
                let dh = x25519::x25519_dh(sk_r, enc).map_err(|_| CryptoError::InvalidPublicKey)?;
                dhkem_shared_secret(&dh, enc, &pk_r)
            }
            Kem::XWing => {
                xwing::xwing_decapsulate(sk_r, enc).map_err(|_| CryptoError::InvalidLength)
            }
        }
    }

    fn key_len(&self) -> usize {
        match self.aead {
            AeadType::Aes128Gcm => 16,
            AeadType::Aes256Gcm | AeadType::ChaCha20Poly1305 => 32,
        }
    }

    fn context(&self, ss: &[u8; 32], info: &[u8]) -> Result<hpke::Context, CryptoError> {
        hpke::key_schedule_with(self.suite_id, ss, info, self.key_len())
            .map_err(|_| CryptoError::InvalidLength)
    }
}

/// `RandomnessUnavailable` stays that; any other failure is a bad public key.
fn randomness_or_key(e: crate::error::CryptoError) -> CryptoError {
    match e {
        crate::error::CryptoError::RandomnessUnavailable => CryptoError::InsufficientRandomness,
        _ => CryptoError::InvalidPublicKey,
    }
}

/// The DHKEM `suite_id`: `"KEM" ‖ I2OSP(0x0020, 2)`.
const DHKEM_SUITE: [u8; 5] = [b'K', b'E', b'M', 0x00, 0x20];

/// RFC 9180 §4.1 `ExtractAndExpand(dh, enc ‖ pkR)` of DHKEM(X25519, HKDF-SHA256).
fn dhkem_shared_secret(
    dh: &[u8; 32],
    enc: &[u8],
    pk_r: &[u8],
) -> Result<Zeroizing<[u8; 32]>, CryptoError> {
    let (_, eae_prk) = hpke::labeled_extract(&DHKEM_SUITE, b"", b"eae_prk", dh);
    let mut kem_context = Vec::with_capacity(enc.len() + pk_r.len());
    kem_context.extend_from_slice(enc);
    kem_context.extend_from_slice(pk_r);
    let mut ss = Zeroizing::new([0u8; 32]);
    hpke::labeled_expand(
        &DHKEM_SUITE,
        &eae_prk,
        b"shared_secret",
        &kem_context,
        ss.as_mut_slice(),
    )
    .map_err(|_| CryptoError::CryptoLibraryError)?;
    Ok(ss)
}

/// Seal or open.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Seal,
    Open,
}

/// One AEAD call with the 12-byte `nonce` (the HPKE base nonce for sequence number 0, or
/// OpenMLS's own nonces).
fn aead_with<C: KeyInit + Aead>(
    key: &[u8],
    nonce: &[u8],
    aad: &[u8],
    msg: &[u8],
    direction: Direction,
) -> Result<Vec<u8>, CryptoError> {
    let cipher = C::new_from_slice(key).map_err(|_| CryptoError::InvalidLength)?;
    let nonce =
        aes_gcm::aead::Nonce::<C>::try_from(nonce).map_err(|_| CryptoError::InvalidLength)?;
    let payload = Payload { msg, aad };
    match direction {
        Direction::Seal => cipher
            .encrypt(&nonce, payload)
            .map_err(|_| CryptoError::TooMuchData),
        Direction::Open => cipher
            .decrypt(&nonce, payload)
            .map_err(|_| CryptoError::AeadDecryptionError),
    }
}

fn aead(
    alg: AeadType,
    key: &[u8],
    nonce: &[u8],
    aad: &[u8],
    msg: &[u8],
    direction: Direction,
) -> Result<Vec<u8>, CryptoError> {
    match alg {
        AeadType::Aes128Gcm => aead_with::<Aes128Gcm>(key, nonce, aad, msg, direction),
        AeadType::Aes256Gcm => aead_with::<Aes256Gcm>(key, nonce, aad, msg, direction),
        AeadType::ChaCha20Poly1305 => {
            aead_with::<ChaCha20Poly1305>(key, nonce, aad, msg, direction)
        }
    }
}

fn hmac_with<D>(key: &[u8], message: &[u8]) -> Result<SecretVLBytes, CryptoError>
where
    D: hmac::EagerHash,
    Hmac<D>: Mac + hmac::KeyInit,
{
    let mut mac =
        <Hmac<D> as hmac::KeyInit>::new_from_slice(key).map_err(|_| CryptoError::InvalidLength)?;
    mac.update(message);
    Ok(mac.finalize().into_bytes().to_vec().into())
}

impl OpenMlsCrypto for VeilCrypto {
    fn supports(&self, ciphersuite: Ciphersuite) -> Result<(), CryptoError> {
        if SUITES.contains(&ciphersuite) {
            Ok(())
        } else {
            Err(CryptoError::UnsupportedCiphersuite)
        }
    }

    fn supported_ciphersuites(&self) -> Vec<Ciphersuite> {
        SUITES.to_vec()
    }

    fn hkdf_extract(
        &self,
        hash_type: HashType,
        salt: &[u8],
        ikm: &[u8],
    ) -> Result<SecretVLBytes, CryptoError> {
        let prk = match hash_type {
            HashType::Sha2_256 => Hkdf::<Sha256>::extract(Some(salt), ikm).0.to_vec(),
            HashType::Sha2_384 => Hkdf::<Sha384>::extract(Some(salt), ikm).0.to_vec(),
            HashType::Sha2_512 => Hkdf::<Sha512>::extract(Some(salt), ikm).0.to_vec(),
        };
        Ok(prk.into())
    }

    fn hmac(
        &self,
        hash_type: HashType,
        key: &[u8],
        message: &[u8],
    ) -> Result<SecretVLBytes, CryptoError> {
        match hash_type {
            HashType::Sha2_256 => hmac_with::<Sha256>(key, message),
            HashType::Sha2_384 => hmac_with::<Sha384>(key, message),
            HashType::Sha2_512 => hmac_with::<Sha512>(key, message),
        }
    }

    fn hkdf_expand(
        &self,
        hash_type: HashType,
        prk: &[u8],
        info: &[u8],
        okm_len: usize,
    ) -> Result<SecretVLBytes, CryptoError> {
        let mut okm = vec![0u8; okm_len];
        let done = match hash_type {
            HashType::Sha2_256 => Hkdf::<Sha256>::from_prk(prk)
                .map_err(|_| CryptoError::InvalidLength)?
                .expand(info, &mut okm),
            HashType::Sha2_384 => Hkdf::<Sha384>::from_prk(prk)
                .map_err(|_| CryptoError::InvalidLength)?
                .expand(info, &mut okm),
            HashType::Sha2_512 => Hkdf::<Sha512>::from_prk(prk)
                .map_err(|_| CryptoError::InvalidLength)?
                .expand(info, &mut okm),
        };
        done.map_err(|_| CryptoError::HkdfOutputLengthInvalid)?;
        Ok(okm.into())
    }

    fn hash(&self, hash_type: HashType, data: &[u8]) -> Result<Vec<u8>, CryptoError> {
        let digest = |data: &[u8]| match hash_type {
            HashType::Sha2_256 => Sha256::digest(data).to_vec(),
            HashType::Sha2_384 => Sha384::digest(data).to_vec(),
            HashType::Sha2_512 => Sha512::digest(data).to_vec(),
        };
        if data.len() < MEMO_MIN_INPUT {
            return Ok(digest(data));
        }
        Ok(DIGESTS.with(|memo| match memo.try_borrow_mut() {
            Ok(mut memo) => memo.digest(hash_type as u8, data, digest),
            Err(_) => digest(data),
        }))
    }

    fn aead_encrypt(
        &self,
        alg: AeadType,
        key: &[u8],
        data: &[u8],
        nonce: &[u8],
        aad: &[u8],
    ) -> Result<Vec<u8>, CryptoError> {
        aead(alg, key, nonce, aad, data, Direction::Seal)
    }

    fn aead_decrypt(
        &self,
        alg: AeadType,
        key: &[u8],
        ct_tag: &[u8],
        nonce: &[u8],
        aad: &[u8],
    ) -> Result<Vec<u8>, CryptoError> {
        aead(alg, key, nonce, aad, ct_tag, Direction::Open)
    }

    fn signature_key_gen(&self, alg: SignatureScheme) -> Result<(Vec<u8>, Vec<u8>), CryptoError> {
        if alg != SignatureScheme::ED25519 {
            return Err(CryptoError::UnsupportedSignatureScheme);
        }
        let seed = rng::array::<32>().map_err(|_| CryptoError::InsufficientRandomness)?;
        let key = SigningKey::from_bytes(&seed);
        Ok((seed.to_vec(), key.verifying_key().to_bytes().to_vec()))
    }

    fn verify_signature(
        &self,
        alg: SignatureScheme,
        data: &[u8],
        pk: &[u8],
        signature: &[u8],
    ) -> Result<(), CryptoError> {
        if alg != SignatureScheme::ED25519 {
            return Err(CryptoError::UnsupportedSignatureScheme);
        }
        let pk: &[u8; 32] = pk.try_into().map_err(|_| CryptoError::InvalidLength)?;
        let signature: &[u8; 64] = signature
            .try_into()
            .map_err(|_| CryptoError::InvalidSignature)?;
        check_signature(pk, data, signature)
    }

    fn sign(&self, alg: SignatureScheme, data: &[u8], key: &[u8]) -> Result<Vec<u8>, CryptoError> {
        if alg != SignatureScheme::ED25519 {
            return Err(CryptoError::UnsupportedSignatureScheme);
        }
        let seed: &[u8; 32] = key.try_into().map_err(|_| CryptoError::InvalidLength)?;
        Ok(SigningKey::from_bytes(seed).sign(data).to_bytes().to_vec())
    }

    fn hpke_seal(
        &self,
        config: HpkeConfig,
        pk_r: &[u8],
        info: &[u8],
        aad: &[u8],
        ptxt: &[u8],
    ) -> Result<HpkeCiphertext, CryptoError> {
        let suite = Suite::from_config(&config)?;
        let (enc, ss) = suite.encap(pk_r)?;
        let ctx = suite.context(&ss, info)?;
        let ciphertext = aead(
            suite.aead,
            ctx.key(),
            &ctx.base_nonce,
            aad,
            ptxt,
            Direction::Seal,
        )
        .map_err(|_| CryptoError::HpkeEncryptionError)?;
        Ok(HpkeCiphertext {
            kem_output: enc.into(),
            ciphertext: ciphertext.into(),
        })
    }

    fn hpke_open(
        &self,
        config: HpkeConfig,
        input: &HpkeCiphertext,
        sk_r: &[u8],
        info: &[u8],
        aad: &[u8],
    ) -> Result<Vec<u8>, CryptoError> {
        let suite = Suite::from_config(&config)?;
        let ss = suite
            .decap(input.kem_output.as_slice(), sk_r)
            .map_err(|_| CryptoError::HpkeDecryptionError)?;
        let ctx = suite
            .context(&ss, info)
            .map_err(|_| CryptoError::HpkeDecryptionError)?;
        aead(
            suite.aead,
            ctx.key(),
            &ctx.base_nonce,
            aad,
            input.ciphertext.as_slice(),
            Direction::Open,
        )
        .map_err(|_| CryptoError::HpkeDecryptionError)
    }

    fn hpke_setup_sender_and_export(
        &self,
        config: HpkeConfig,
        pk_r: &[u8],
        info: &[u8],
        exporter_context: &[u8],
        exporter_length: usize,
    ) -> Result<(KemOutput, ExporterSecret), CryptoError> {
        let suite = Suite::from_config(&config)?;
        let (enc, ss) = suite.encap(pk_r).map_err(|e| match e {
            CryptoError::InsufficientRandomness => e,
            _ => CryptoError::SenderSetupError,
        })?;
        let secret = suite
            .context(&ss, info)?
            .export(exporter_context, exporter_length)
            .map_err(|_| CryptoError::ExporterError)?;
        Ok((enc, secret.to_vec().into()))
    }

    fn hpke_setup_receiver_and_export(
        &self,
        config: HpkeConfig,
        enc: &[u8],
        sk_r: &[u8],
        info: &[u8],
        exporter_context: &[u8],
        exporter_length: usize,
    ) -> Result<ExporterSecret, CryptoError> {
        let suite = Suite::from_config(&config)?;
        let ss = suite
            .decap(enc, sk_r)
            .map_err(|_| CryptoError::ReceiverSetupError)?;
        let secret = suite
            .context(&ss, info)?
            .export(exporter_context, exporter_length)
            .map_err(|_| CryptoError::ExporterError)?;
        Ok(secret.to_vec().into())
    }

    fn derive_hpke_keypair(
        &self,
        config: HpkeConfig,
        ikm: &[u8],
    ) -> Result<HpkeKeyPair, CryptoError> {
        let suite = Suite::from_config(&config)?;
        match suite.kem {
            // RFC 9180 §7.1.3 DeriveKeyPair for X25519: `sk = LabeledExpand(
            // LabeledExtract("", "dkp_prk", ikm), "sk", "", 32)` (no clamping here:
            // X25519 clamps when it uses the key).
            Kem::X25519 => {
                let (_, dkp_prk) = hpke::labeled_extract(&DHKEM_SUITE, b"", b"dkp_prk", ikm);
                let mut sk = Zeroizing::new([0u8; 32]);
                hpke::labeled_expand(&DHKEM_SUITE, &dkp_prk, b"sk", b"", sk.as_mut_slice())
                    .map_err(|_| CryptoError::CryptoLibraryError)?;
                let pk =
                    x25519::x25519_public(sk.as_slice()).map_err(|_| CryptoError::InvalidLength)?;
                Ok(HpkeKeyPair {
                    private: sk.to_vec().into(),
                    public: pk.to_vec(),
                })
            }
            // X-Wing draft-06 §HPKE: the seed is `SHAKE256(ikm, 32)`.
            Kem::XWing => {
                let seed = Zeroizing::new(libcrux_sha3::shake256::<32>(ikm));
                let pair = xwing::xwing_from_seed(seed.as_slice())
                    .map_err(|_| CryptoError::CryptoLibraryError)?;
                Ok(HpkeKeyPair {
                    private: pair.secret.to_vec().into(),
                    public: pair.public,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn h(v: &Value) -> Vec<u8> {
        hex::decode(v.as_str().unwrap_or_default()).unwrap_or_default()
    }

    fn config(case: &Value) -> HpkeConfig {
        match case["kem_id"].as_u64() {
            Some(0x0020) => HpkeConfig(
                HpkeKemType::DhKem25519,
                HpkeKdfType::HkdfSha256,
                HpkeAeadType::AesGcm128,
            ),
            _ => HpkeConfig(
                HpkeKemType::XWingKemDraft6,
                HpkeKdfType::HkdfSha256,
                HpkeAeadType::ChaCha20Poly1305,
            ),
        }
    }

    /// Known answers of OpenMLS's libcrux provider (`vectors/mls/`): the same
    /// derived key pairs, its sealed messages open, its exports are reproduced.
    #[test]
    fn agrees_with_openmls_libcrux_provider() {
        let file: Value = serde_json::from_str(include_str!(
            "../../../vectors/mls/hpke-openmls-libcrux-kat.json"
        ))
        .unwrap();
        let cases = file["cases"].as_array().unwrap();
        assert_eq!(cases.len(), 6);
        let p = VeilCrypto;
        for case in cases {
            let pair = p
                .derive_hpke_keypair(config(case), &h(&case["ikm"]))
                .unwrap();
            assert_eq!(pair.public, h(&case["pk"]), "{}", case["config"]);
            assert_eq!(pair.private.to_vec(), h(&case["sk"]), "{}", case["config"]);
            let sealed = HpkeCiphertext {
                kem_output: h(&case["kem_output"]).into(),
                ciphertext: h(&case["ciphertext"]).into(),
            };
            let pt = p
                .hpke_open(
                    config(case),
                    &sealed,
                    &pair.private,
                    &h(&case["info"]),
                    &h(&case["aad"]),
                )
                .unwrap();
            assert_eq!(pt, h(&case["pt"]));
            let exported = p
                .hpke_setup_receiver_and_export(
                    config(case),
                    &h(&case["export_enc"]),
                    &pair.private,
                    &h(&case["info"]),
                    &h(&case["exporter_context"]),
                    32,
                )
                .unwrap();
            assert_eq!(exported.to_vec(), h(&case["exported"]));
            // A flipped ciphertext bit or the wrong aad fails.
            let mut ct = h(&case["ciphertext"]);
            ct[0] ^= 1;
            let bad = HpkeCiphertext {
                kem_output: h(&case["kem_output"]).into(),
                ciphertext: ct.into(),
            };
            assert_eq!(
                p.hpke_open(
                    config(case),
                    &bad,
                    &pair.private,
                    &h(&case["info"]),
                    &h(&case["aad"])
                ),
                Err(CryptoError::HpkeDecryptionError)
            );
            assert_eq!(
                p.hpke_open(
                    config(case),
                    &sealed,
                    &pair.private,
                    &h(&case["info"]),
                    b"other"
                ),
                Err(CryptoError::HpkeDecryptionError)
            );
            // Our own seal opens with our own open.
            let ours = p
                .hpke_seal(config(case), &pair.public, b"i", b"a", b"message")
                .unwrap();
            assert_eq!(
                p.hpke_open(config(case), &ours, &pair.private, b"i", b"a")
                    .unwrap(),
                b"message"
            );
        }
    }

    #[test]
    fn refuses_what_it_does_not_run() {
        let p = VeilCrypto;
        assert!(
            p.supports(Ciphersuite::MLS_256_XWING_CHACHA20POLY1305_SHA256_Ed25519)
                .is_ok()
        );
        assert_eq!(
            p.supports(Ciphersuite::MLS_128_DHKEMP256_AES128GCM_SHA256_P256),
            Err(CryptoError::UnsupportedCiphersuite)
        );
        let p256 = HpkeConfig(
            HpkeKemType::DhKemP256,
            HpkeKdfType::HkdfSha256,
            HpkeAeadType::AesGcm128,
        );
        assert!(p.derive_hpke_keypair(p256, &[0; 32]).is_err());
        assert_eq!(
            p.sign(SignatureScheme::ECDSA_SECP256R1_SHA256, b"x", &[0; 32]),
            Err(CryptoError::UnsupportedSignatureScheme)
        );
        // Ed25519 round trip; a changed message or a non-canonical signature fails.
        let (sk, pk) = p.signature_key_gen(SignatureScheme::ED25519).unwrap();
        let sig = p.sign(SignatureScheme::ED25519, b"data", &sk).unwrap();
        assert!(
            p.verify_signature(SignatureScheme::ED25519, b"data", &pk, &sig)
                .is_ok()
        );
        assert_eq!(
            p.verify_signature(SignatureScheme::ED25519, b"dato", &pk, &sig),
            Err(CryptoError::InvalidSignature)
        );
        let mut high_s = sig.clone();
        high_s[63] |= 0xf0;
        assert!(
            p.verify_signature(SignatureScheme::ED25519, b"data", &pk, &high_s)
                .is_err()
        );
        // X25519 to a small-order point is refused, not an all-zero secret.
        let x = HpkeConfig(
            HpkeKemType::DhKem25519,
            HpkeKdfType::HkdfSha256,
            HpkeAeadType::AesGcm128,
        );
        assert!(p.hpke_seal(x, &[0; 32], b"", b"", b"m").is_err());
    }

    #[test]
    fn kept_digests_are_the_digests_of_the_bytes_given() {
        let p = VeilCrypto;
        let direct = |t: HashType, d: &[u8]| match t {
            HashType::Sha2_256 => Sha256::digest(d).to_vec(),
            HashType::Sha2_384 => Sha384::digest(d).to_vec(),
            HashType::Sha2_512 => Sha512::digest(d).to_vec(),
        };
        // Inputs that share length and last 32 bytes (the memo's key), more of them than it keeps
        // per key, and each hashed twice, under every hash; small inputs bypass it.
        let mut inputs: Vec<Vec<u8>> = (0..MEMO_MAX_SAME_KEY + 3)
            .map(|i| {
                let mut d = vec![0x5a; 1400];
                d[0] = u8::try_from(i).unwrap();
                d
            })
            .collect();
        inputs.push(vec![7; MEMO_MIN_INPUT - 1]);
        inputs.push(vec![7; MEMO_MIN_INPUT]);
        for _ in 0..2 {
            for t in [HashType::Sha2_256, HashType::Sha2_384, HashType::Sha2_512] {
                for d in &inputs {
                    assert_eq!(p.hash(t, d).unwrap(), direct(t, d));
                }
            }
        }
        // One byte changed anywhere is another digest, kept or not.
        let mut changed = inputs[1].clone();
        changed[700] ^= 1;
        assert_eq!(
            p.hash(HashType::Sha2_256, &changed).unwrap(),
            direct(HashType::Sha2_256, &changed)
        );
        // Past its byte budget the memo starts over, and stays exact.
        let big = vec![1u8; MEMO_MAX_BYTES / 2 + 1];
        let big2 = vec![2u8; MEMO_MAX_BYTES / 2 + 1];
        for d in [&big, &big2, &big, &inputs[0]] {
            assert_eq!(
                p.hash(HashType::Sha2_256, d).unwrap(),
                direct(HashType::Sha2_256, d)
            );
        }
        assert!(DIGESTS.with(|m| m.borrow().bytes) <= MEMO_MAX_BYTES);
        // An input larger than the whole budget is hashed, never kept.
        let huge = vec![3u8; MEMO_MAX_BYTES + 1];
        assert_eq!(
            p.hash(HashType::Sha2_256, &huge).unwrap(),
            direct(HashType::Sha2_256, &huge)
        );
        assert!(DIGESTS.with(|m| m.borrow().bytes) <= MEMO_MAX_BYTES);
    }

    #[test]
    fn kept_verifying_keys_give_the_answers_of_a_fresh_decompression() {
        let p = VeilCrypto;
        let ed = SignatureScheme::ED25519;
        // More signers than the cache keeps, each checked twice in a row and again after eviction.
        let signers: Vec<(Vec<u8>, Vec<u8>)> = (0..KEPT_VERIFYING_KEYS + 4)
            .map(|_| p.signature_key_gen(ed).unwrap())
            .collect();
        for round in 0..2 {
            for (i, (sk, pk)) in signers.iter().enumerate() {
                let msg = [round, u8::try_from(i).unwrap()];
                let sig = p.sign(ed, &msg, sk).unwrap();
                for _ in 0..2 {
                    assert!(p.verify_signature(ed, &msg, pk, &sig).is_ok());
                    // A cached key still refuses another message and another key's signature.
                    assert_eq!(
                        p.verify_signature(ed, &[9, 9], pk, &sig),
                        Err(CryptoError::InvalidSignature)
                    );
                    let other = &signers[(i + 1) % signers.len()].1;
                    assert!(p.verify_signature(ed, &msg, other, &sig).is_err());
                }
            }
        }
        let kept = VERIFYING_KEYS.with(|k| k.borrow().len());
        assert_eq!(kept, KEPT_VERIFYING_KEYS);
        // A kept key has its table from its third check on; all but the last key checked (the
        // first signer's, as the last one's "other key", twice) served that many, so most answers
        // above from the second round on came from tables (the valid signature accepted, the other
        // message and key refused).
        let (prepared, fresh) = VERIFYING_KEYS.with(|k| {
            let k = k.borrow();
            assert!(
                k.iter()
                    .all(|e| e.prepared.is_some() == (e.checks >= PREPARE_AT_CHECK))
            );
            let prepared = k.iter().filter(|e| e.prepared.is_some()).count();
            (prepared, k.len() - prepared)
        });
        assert_eq!((prepared, fresh), (KEPT_VERIFYING_KEYS - 1, 1));
        // A key that does not decompress is refused every time and never kept.
        // The first small y that is no curve point's.
        let bad = (2u8..=255)
            .map(|y| {
                let mut b = [0u8; 32];
                b[0] = y;
                b
            })
            .find(|b| VerifyingKey::from_bytes(b).is_err())
            .unwrap();
        let before =
            VERIFYING_KEYS.with(|k| k.borrow().iter().map(|e| e.encoded).collect::<Vec<_>>());
        for _ in 0..2 {
            assert!(p.verify_signature(ed, b"m", &bad, &[0; 64]).is_err());
        }
        let after =
            VERIFYING_KEYS.with(|k| k.borrow().iter().map(|e| e.encoded).collect::<Vec<_>>());
        assert_eq!(before, after);
    }
}
