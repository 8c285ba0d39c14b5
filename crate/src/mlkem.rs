//! ML-KEM-768 (FIPS 203), over Cryspen's formally verified `libcrux-ml-kem`
//! (portable implementation; the same bytes as the FIPS 203 pseudo-code, checked
//! against the NIST ACVP, Wycheproof and CCTV vectors in `tests/asym_mlkem.rs`).
//!
//! Keys are generated from a 64-byte seed `d ‖ z` (FIPS 203 `ML-KEM.KeyGen_internal`)
//! drawn from [`crate::rng`], and encapsulation uses an explicit 32-byte `m`
//! (`ML-KEM.Encaps_internal`), so no RNG object is ever handed to the crate.
//!
//! The decapsulation key is the 2400-byte expanded form
//! `dk_PKE ‖ ek ‖ H(ek) ‖ z`. The FIPS 203 §7.2/§7.3 input checks are applied:
//! the encapsulation key modulus check before encapsulating, and before
//! decapsulating both the hash check `H(ek) = h` and the modulus check on the
//! embedded `ek`. An invalid ciphertext of the right length is *not* an
//! error: implicit rejection returns the pseudo-random key `J(z ‖ c)`.
//! Two crate-private entry points skip a check that has already been made
//! (the triple ratchet: a peer `ek` checked when accepted, an own `dk`
//! expanded here from its seed): `encapsulate_prechecked_derand`, `decapsulate_own`.
//!
//! The protocols built on ML-KEM (X-Wing and the sealed box, session
//! prekeys, the messaging KEMs) also refuse a *degenerate* key, whose `t̂`
//! (`ByteEncode12`, the first 1,152 bytes) is all zero, with
//! [`CryptoError::WeakKey`]: then `v = e2 + ⌈q/2⌋·m` and anyone reads `m`, so
//! the shared secret, off the ciphertext. The primitive itself
//! ([`mlkem_encapsulate`]) stays FIPS 203 and accepts it (Wycheproof tcId 234,
//! "Zero secret and error", is a valid key; so is it for WebCrypto).
//!
//! The crate's key types do not wipe themselves: decapsulation keys are held
//! in [`PrivateKey`], which zeroizes them in place on drop.

use core::fmt;

use libcrux_ml_kem::mlkem768::{MlKem768Ciphertext, MlKem768PrivateKey, MlKem768PublicKey};
use zeroize::{Zeroize, Zeroizing};

use crate::error::{CryptoError, Result, exact};
use crate::rng;

/// Calls into `libcrux-ml-kem` through opaque function pointers.
///
/// The release profile builds veilkit for size (`opt-level = "s"`, for the
/// wasm download) and libcrux for speed (2 for ML-KEM, 3 for ML-DSA and
/// SHA-3). Under LTO a dependency function called from one place is inlined
/// into its caller and then optimized with the *caller's* settings, which made
/// ML-KEM 25–50% slower in wasm; calling through a `black_box`ed pointer keeps
/// each entry point a function of its own, built at its crate's level. Costs
/// one indirect call per operation.
pub(crate) mod lc {
    use core::hint::black_box;

    use libcrux_ml_kem::MlKemSharedSecret;
    use libcrux_ml_kem::mlkem768::{
        self, MlKem768Ciphertext, MlKem768KeyPair, MlKem768PrivateKey, MlKem768PublicKey,
    };

    pub(crate) fn generate_key_pair(seed: [u8; 64]) -> MlKem768KeyPair {
        black_box(mlkem768::generate_key_pair as fn([u8; 64]) -> MlKem768KeyPair)(seed)
    }

    pub(crate) fn validate_public_key(ek: &MlKem768PublicKey) -> bool {
        black_box(mlkem768::validate_public_key as fn(&MlKem768PublicKey) -> bool)(ek)
    }

    pub(crate) fn validate_private_key(dk: &MlKem768PrivateKey, ct: &MlKem768Ciphertext) -> bool {
        black_box(
            mlkem768::validate_private_key as fn(&MlKem768PrivateKey, &MlKem768Ciphertext) -> bool,
        )(dk, ct)
    }

    pub(crate) fn encapsulate(
        ek: &MlKem768PublicKey,
        m: [u8; 32],
    ) -> (MlKem768Ciphertext, MlKemSharedSecret) {
        black_box(
            mlkem768::encapsulate
                as fn(&MlKem768PublicKey, [u8; 32]) -> (MlKem768Ciphertext, MlKemSharedSecret),
        )(ek, m)
    }

    pub(crate) fn decapsulate(
        dk: &MlKem768PrivateKey,
        ct: &MlKem768Ciphertext,
    ) -> MlKemSharedSecret {
        black_box(
            mlkem768::decapsulate
                as fn(&MlKem768PrivateKey, &MlKem768Ciphertext) -> MlKemSharedSecret,
        )(dk, ct)
    }
}

use lc as mlkem768;

/// A libcrux decapsulation key that is wiped in place when dropped (the
/// crate's own type is not; its `IndexMut` is the only mutable access it offers).
pub(crate) struct PrivateKey(pub(crate) MlKem768PrivateKey);

impl Drop for PrivateKey {
    #[allow(clippy::indexing_slicing)] // `0..` of a fixed-size key cannot panic
    fn drop(&mut self) {
        self.0[0..].zeroize();
    }
}

/// Copies a 32-byte shared secret into a zeroizing buffer and wipes the original.
pub(crate) fn shared_secret(k: &mut [u8; SS_LEN]) -> Zeroizing<[u8; SS_LEN]> {
    let out = Zeroizing::new(*k);
    k.zeroize();
    out
}

/// Length of an encapsulation (public) key.
pub const EK_LEN: usize = 1184;
/// Length of an expanded decapsulation (secret) key.
pub const DK_LEN: usize = 2400;
/// Length of a ciphertext.
pub const CT_LEN: usize = 1088;
/// Length of the shared secret.
pub const SS_LEN: usize = 32;
/// Length of a key-generation seed `d ‖ z`.
pub const SEED_LEN: usize = 64;
/// Length of the encapsulation randomness `m`.
pub const M_LEN: usize = 32;

/// Offset of the embedded `ek` in the expanded decapsulation key (after `dk_PKE`).
const DK_EK_OFFSET: usize = 1152;

/// An ML-KEM-768 key pair. The decapsulation key is wiped on drop; `Debug`
/// shows only the encapsulation key length.
pub struct MlKemKeypair {
    /// Expanded decapsulation key (2400 bytes).
    pub decapsulation_key: Zeroizing<Vec<u8>>,
    /// Encapsulation key (1184 bytes).
    pub encapsulation_key: Vec<u8>,
}

impl fmt::Debug for MlKemKeypair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MlKemKeypair")
            .field("encapsulation_key_len", &self.encapsulation_key.len())
            .finish_non_exhaustive()
    }
}

/// Generates a fresh ML-KEM-768 key pair (seed from the platform CSPRNG).
///
/// # Errors
/// [`CryptoError::RandomnessUnavailable`] if the random generator fails.
#[must_use = "the generated key pair is the only copy of the secret"]
pub fn mlkem_generate() -> Result<MlKemKeypair> {
    let seed = rng::array::<SEED_LEN>()?;
    mlkem_from_seed(seed.as_slice())
}

/// Derives the ML-KEM-768 key pair of a 64-byte seed `d ‖ z` (FIPS 203 Algorithm 16).
///
/// # Errors
/// [`CryptoError::InvalidLength`] (`seed`) unless `seed` is 64 bytes.
#[must_use = "this returns the key pair and has no side effect"]
pub fn mlkem_from_seed(seed: &[u8]) -> Result<MlKemKeypair> {
    let seed = Zeroizing::new(*exact::<SEED_LEN>("seed", "64 bytes", seed)?);
    let (sk, pk) = mlkem768::generate_key_pair(*seed).into_parts();
    let sk = PrivateKey(sk);
    let decapsulation_key = Zeroizing::new(sk.0.as_slice().to_vec());
    Ok(MlKemKeypair {
        decapsulation_key,
        encapsulation_key: pk.as_slice().to_vec(),
    })
}

/// The FIPS 203 §7.2 modulus check: every 12-bit coefficient of `ek` is below q.
fn encapsulation_key(ek: &[u8]) -> Result<MlKem768PublicKey> {
    let ek = exact::<EK_LEN>("encapsulationKey", "1184 bytes", ek)?;
    let key = MlKem768PublicKey::from(ek);
    if mlkem768::validate_public_key(&key) {
        Ok(key)
    } else {
        Err(CryptoError::InvalidKey(
            "ML-KEM encapsulation key fails the modulus check",
        ))
    }
}

/// Length of `ByteEncode12(t̂)` at the front of an encapsulation key (3 × 384 bytes).
const T_HAT_LEN: usize = 1152;

/// Refuses a degenerate encapsulation key: `t̂` all zero (see the module
/// documentation). With the modulus check, all-zero bytes are the only
/// encoding of `t = 0`.
///
/// # Errors
/// [`CryptoError::WeakKey`] for such a key.
pub(crate) fn refuse_degenerate(ek: &[u8; EK_LEN]) -> Result<()> {
    if ek.iter().take(T_HAT_LEN).all(|&b| b == 0) {
        return Err(CryptoError::WeakKey);
    }
    Ok(())
}

/// The checks of an encapsulation key a protocol receives: its length, the
/// FIPS 203 modulus check and [`refuse_degenerate`].
///
/// # Errors
/// [`CryptoError::InvalidLength`], [`CryptoError::InvalidKey`] (modulus),
/// [`CryptoError::WeakKey`].
pub(crate) fn check_peer_key(ek: &[u8]) -> Result<MlKem768PublicKey> {
    let key = encapsulation_key(ek)?;
    refuse_degenerate(key.as_slice())?;
    Ok(key)
}

/// Encapsulation with randomness `m` to a key a protocol received, after
/// [`check_peer_key`] (session handshake, messaging KEMs).
///
/// # Errors
/// As [`check_peer_key`]; [`CryptoError::InvalidLength`] (`m` 32 bytes).
pub(crate) fn encapsulate_to_peer_derand(
    ek: &[u8],
    m: &[u8],
) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>)> {
    let key = check_peer_key(ek)?;
    let m = exact::<M_LEN>("m", "32 bytes", m)?;
    Ok(encapsulate_with(&key, m))
}

/// Encapsulates a fresh shared secret to `ek` (random `m` from the platform CSPRNG).
///
/// Returns `(ciphertext, shared_secret)`.
///
/// # Errors
/// - [`CryptoError::InvalidLength`] (`encapsulationKey`) unless `ek` is 1184 bytes.
/// - [`CryptoError::InvalidKey`] if `ek` fails the FIPS 203 modulus check.
/// - [`CryptoError::RandomnessUnavailable`] if the random generator fails.
#[must_use = "the shared secret is lost if the result is dropped"]
pub fn mlkem_encapsulate(ek: &[u8]) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>)> {
    let key = encapsulation_key(ek)?;
    let m = rng::array::<M_LEN>()?;
    Ok(encapsulate_with(&key, &m))
}

/// Encapsulates with caller-provided randomness `m` (FIPS 203 `ML-KEM.Encaps_internal`).
///
/// For known-answer tests only: `m` must be 32 fresh uniformly random bytes,
/// never reused.
///
/// # Errors
/// - [`CryptoError::InvalidLength`] (`encapsulationKey` 1184 bytes, `m` 32 bytes).
/// - [`CryptoError::InvalidKey`] if `ek` fails the FIPS 203 modulus check.
#[must_use = "the shared secret is lost if the result is dropped"]
pub fn mlkem_encapsulate_derand(ek: &[u8], m: &[u8]) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>)> {
    let key = encapsulation_key(ek)?;
    let m = exact::<M_LEN>("m", "32 bytes", m)?;
    Ok(encapsulate_with(&key, m))
}

fn encapsulate_with(key: &MlKem768PublicKey, m: &[u8; 32]) -> (Vec<u8>, Zeroizing<[u8; 32]>) {
    let (ct, mut k) = mlkem768::encapsulate(key, *m);
    (ct.as_slice().to_vec(), shared_secret(&mut k))
}

/// Decapsulates `ct` with the 2400-byte expanded decapsulation key `dk`.
///
/// A ciphertext that does not re-encrypt identically yields the implicit
/// rejection key (FIPS 203 Algorithm 18), not an error.
///
/// # Errors
/// - [`CryptoError::InvalidLength`] (`decapsulationKey` 2400 bytes, `ciphertext` 1088 bytes).
/// - [`CryptoError::InvalidKey`] if the embedded `H(ek)` does not match the
///   embedded `ek`, or that `ek` fails the modulus check.
#[must_use = "this returns the shared secret and has no side effect"]
pub fn mlkem_decapsulate(dk: &[u8], ct: &[u8]) -> Result<Zeroizing<[u8; 32]>> {
    let dk = exact::<DK_LEN>("decapsulationKey", "2400 bytes", dk)?;
    let ct = MlKem768Ciphertext::from(exact::<CT_LEN>("ciphertext", "1088 bytes", ct)?);
    let embedded_ek = embedded_ek(dk)?;
    let key = PrivateKey(MlKem768PrivateKey::from(dk));
    if mlkem768::validate_private_key(&key.0, &ct)
        && mlkem768::validate_public_key(&MlKem768PublicKey::from(embedded_ek))
    {
        Ok(shared_secret(&mut mlkem768::decapsulate(&key.0, &ct)))
    } else {
        Err(CryptoError::InvalidKey(
            "ML-KEM decapsulation key: embedded H(ek) mismatch or ek fails the modulus check",
        ))
    }
}

/// The encapsulation key embedded in an expanded decapsulation key (FIPS 203
/// `dk = dk_PKE ‖ ek ‖ H(ek) ‖ z`, `ek` at byte 1152), unchecked.
///
/// # Errors
/// [`CryptoError::InvalidKey`] if `dk` is too short to hold it.
pub(crate) fn embedded_ek(dk: &[u8]) -> Result<&[u8; EK_LEN]> {
    dk.get(DK_EK_OFFSET..DK_EK_OFFSET + EK_LEN)
        .and_then(|ek| <&[u8; EK_LEN]>::try_from(ek).ok())
        .ok_or(CryptoError::InvalidKey(
            "ML-KEM decapsulation key too short",
        ))
}

/// Encapsulation with randomness `m` to an `ek` the caller has already
/// checked with the FIPS 203 §7.2 modulus check (the ratchet checks a peer
/// `ek` when it accepts it and again when a state is loaded), so the check
/// is not run a second time.
///
/// # Errors
/// [`CryptoError::InvalidLength`] (`encapsulationKey` 1184 bytes, `m` 32 bytes).
pub(crate) fn encapsulate_prechecked_derand(
    ek: &[u8],
    m: &[u8],
) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>)> {
    let key = MlKem768PublicKey::from(exact::<EK_LEN>("encapsulationKey", "1184 bytes", ek)?);
    let m = exact::<M_LEN>("m", "32 bytes", m)?;
    Ok(encapsulate_with(&key, m))
}

/// The FIPS 203 §7.3 input checks of an expanded decapsulation key, made
/// once when the key is loaded rather than at each decapsulation: the hash
/// check `H(ek) = h` and the modulus check of the embedded `ek`, which it
/// returns (the ratchet's own epoch key, stored expanded in a serialized state).
///
/// # Errors
/// [`CryptoError::InvalidLength`] (`decapsulationKey` 2400 bytes),
/// [`CryptoError::InvalidKey`] if either check fails.
pub(crate) fn check_decapsulation_key(dk: &[u8]) -> Result<&[u8]> {
    let arr = exact::<DK_LEN>("decapsulationKey", "2400 bytes", dk)?;
    let embedded_ek = embedded_ek(dk)?;
    let key = PrivateKey(MlKem768PrivateKey::from(arr));
    // libcrux's private-key check is the hash check alone; the ciphertext
    // argument only fixes the parameter set (its bytes are not read).
    let no_ct = MlKem768Ciphertext::from([0u8; CT_LEN]);
    if mlkem768::validate_private_key(&key.0, &no_ct)
        && mlkem768::validate_public_key(&MlKem768PublicKey::from(embedded_ek))
    {
        Ok(embedded_ek)
    } else {
        Err(CryptoError::InvalidKey(
            "ML-KEM decapsulation key: embedded H(ek) mismatch or ek fails the modulus check",
        ))
    }
}

/// Decapsulation with a key this crate derived itself with
/// [`mlkem_from_seed`], or loaded and checked once with
/// [`check_decapsulation_key`] (the ratchet's own epoch keys): the FIPS 203
/// §7.3 input checks guard against a malformed or substituted `dk` from
/// outside; such a key has passed them already, so they are skipped.
/// Implicit rejection is unchanged.
///
/// # Errors
/// [`CryptoError::InvalidLength`] (`decapsulationKey` 2400 bytes, `ciphertext` 1088 bytes).
pub(crate) fn decapsulate_own(dk: &[u8], ct: &[u8]) -> Result<Zeroizing<[u8; 32]>> {
    let dk = exact::<DK_LEN>("decapsulationKey", "2400 bytes", dk)?;
    let ct = MlKem768Ciphertext::from(exact::<CT_LEN>("ciphertext", "1088 bytes", ct)?);
    let key = PrivateKey(MlKem768PrivateKey::from(dk));
    Ok(shared_secret(&mut mlkem768::decapsulate(&key.0, &ct)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let kp = mlkem_generate().unwrap();
        assert_eq!(kp.decapsulation_key.len(), DK_LEN);
        assert_eq!(kp.encapsulation_key.len(), EK_LEN);
        let (ct, k1) = mlkem_encapsulate(&kp.encapsulation_key).unwrap();
        assert_eq!(ct.len(), CT_LEN);
        let k2 = mlkem_decapsulate(&kp.decapsulation_key, &ct).unwrap();
        assert_eq!(*k1, *k2);
        // Derived key pairs are deterministic.
        let seed = [7u8; 64];
        let a = mlkem_from_seed(&seed).unwrap();
        let b = mlkem_from_seed(&seed).unwrap();
        assert_eq!(*a.decapsulation_key, *b.decapsulation_key);
        let (c1, s1) = mlkem_encapsulate_derand(&a.encapsulation_key, &[1; 32]).unwrap();
        let (c2, s2) = mlkem_encapsulate_derand(&a.encapsulation_key, &[1; 32]).unwrap();
        assert_eq!((c1, *s1), (c2, *s2));
        assert!(!format!("{a:?}").contains("decapsulation_key:"));
    }

    #[test]
    fn tampered_ciphertext_implicit_rejection() {
        let kp = mlkem_from_seed(&[3u8; 64]).unwrap();
        let (mut ct, k) = mlkem_encapsulate_derand(&kp.encapsulation_key, &[9; 32]).unwrap();
        ct[10] ^= 1;
        let k_bad = mlkem_decapsulate(&kp.decapsulation_key, &ct).unwrap();
        assert_ne!(*k, *k_bad);
        // Implicit rejection is deterministic.
        assert_eq!(
            *k_bad,
            *mlkem_decapsulate(&kp.decapsulation_key, &ct).unwrap()
        );
    }

    #[test]
    fn invalid_keys() {
        let kp = mlkem_from_seed(&[5u8; 64]).unwrap();
        // Coefficient 0xFFF >= q: the modulus check fails.
        let mut ek = kp.encapsulation_key.clone();
        ek[0] = 0xff;
        ek[1] |= 0x0f;
        assert!(matches!(
            mlkem_encapsulate(&ek),
            Err(CryptoError::InvalidKey(_))
        ));
        assert!(matches!(
            mlkem_encapsulate_derand(&ek, &[0; 32]),
            Err(CryptoError::InvalidKey(_))
        ));
        let (ct, _) = mlkem_encapsulate_derand(&kp.encapsulation_key, &[0; 32]).unwrap();
        // Corrupt the embedded hash H(ek).
        let mut dk = kp.decapsulation_key.to_vec();
        dk[DK_LEN - 64] ^= 1;
        assert!(matches!(
            mlkem_decapsulate(&dk, &ct),
            Err(CryptoError::InvalidKey(_))
        ));
        // Corrupt the embedded ek (so H(ek) no longer matches).
        let mut dk = kp.decapsulation_key.to_vec();
        dk[1152 + 5] ^= 1;
        assert!(matches!(
            mlkem_decapsulate(&dk, &ct),
            Err(CryptoError::InvalidKey(_))
        ));
    }

    #[test]
    fn wrong_lengths() {
        let kp = mlkem_from_seed(&[1u8; 64]).unwrap();
        let (ct, _) = mlkem_encapsulate(&kp.encapsulation_key).unwrap();
        let len_err = |r: Result<_>, w: &str| {
            assert!(matches!(r, Err(CryptoError::InvalidLength { what, .. }) if what == w));
        };
        len_err(mlkem_from_seed(&[0; 63]).map(|_| ()), "seed");
        len_err(
            mlkem_encapsulate(&kp.encapsulation_key[1..]).map(|_| ()),
            "encapsulationKey",
        );
        len_err(
            mlkem_encapsulate_derand(&kp.encapsulation_key, &[0; 31]).map(|_| ()),
            "m",
        );
        len_err(
            mlkem_decapsulate(&kp.decapsulation_key[1..], &ct).map(|_| ()),
            "decapsulationKey",
        );
        len_err(
            mlkem_decapsulate(&kp.decapsulation_key, &ct[1..]).map(|_| ()),
            "ciphertext",
        );
    }
}
