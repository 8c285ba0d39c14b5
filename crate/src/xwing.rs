//! X-Wing hybrid KEM (ML-KEM-768 + X25519, draft-connolly-cfrg-xwing-kem),
//! composed here from `libcrux-ml-kem` (ML-KEM-768), `x25519-dalek` and
//! `libcrux-sha3` (SHAKE256 key expansion, SHA3-256 combiner), and checked
//! against the draft's test vectors (`tests/asym_xwing.rs`).
//!
//! - The secret key is the 32-byte seed; it is expanded with SHAKE256 into the
//!   ML-KEM-768 seed `d ‖ z` and the X25519 secret on every use.
//! - Encapsulation uses an explicit 64-byte `eseed` (ML-KEM `m` ‖ X25519
//!   ephemeral secret) drawn from [`crate::rng`]; no RNG object is handed to the crate.
//! - Shared secret: `SHA3-256(ss_M ‖ ss_X ‖ ct_X ‖ pk_X ‖ "\.//^\")`.
//! - The ML-KEM part of a public key must pass the FIPS 203 modulus check
//!   ([`CryptoError::InvalidKey`]).
//! - Stricter than the draft, a degenerate half is refused
//!   ([`CryptoError::WeakKey`]): an ML-KEM part whose `t̂` is all zero (its
//!   encapsulation is readable from the ciphertext, [`crate::mlkem`]) or a
//!   small-order X25519 part (its key agreement is all zero,
//!   [`crate::x25519::x25519_check_public`]). Either voids one half of the
//!   hybrid, both (the all-zero key) the whole; no honest key has one, and no
//!   draft test vector does.

use core::fmt;

use libcrux_ml_kem::mlkem768::{MlKem768Ciphertext, MlKem768PublicKey};
use x25519_dalek::{PublicKey, StaticSecret};
use zeroize::{Zeroize, Zeroizing};

use crate::error::{CryptoError, Result, exact};
use crate::mlkem::{PrivateKey, lc as mlkem768};
use crate::rng;
use crate::x25519::ops;

/// Length of a public (encapsulation) key: ML-KEM-768 ek ‖ X25519 public key.
pub const PK_LEN: usize = 1216;
/// Length of a secret key (the seed).
pub const SK_LEN: usize = 32;
/// Length of a ciphertext: ML-KEM-768 ciphertext ‖ X25519 ephemeral public key.
pub const CT_LEN: usize = 1120;
/// Length of the shared secret.
pub const SS_LEN: usize = 32;
/// Length of the encapsulation randomness `eseed`.
pub const ESEED_LEN: usize = 64;

/// An X-Wing key pair. The secret is wiped on drop; `Debug` shows only the public key length.
pub struct XWingKeypair {
    /// The 32-byte secret key (seed).
    pub secret: Zeroizing<[u8; 32]>,
    /// The 1216-byte public key.
    pub public: Vec<u8>,
}

impl fmt::Debug for XWingKeypair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("XWingKeypair")
            .field("public_len", &self.public.len())
            .finish_non_exhaustive()
    }
}

/// Generates a fresh X-Wing key pair (seed from the platform CSPRNG).
///
/// # Errors
/// [`CryptoError::RandomnessUnavailable`] if the random generator fails.
#[must_use = "the generated key pair is the only copy of the secret"]
pub fn xwing_generate() -> Result<XWingKeypair> {
    let seed = rng::array::<SK_LEN>()?;
    xwing_from_seed(seed.as_slice())
}

/// ML-KEM-768 ek ‖ X25519 public key: where the X25519 part starts.
const PK_X_OFFSET: usize = 1184;
/// ML-KEM-768 ciphertext ‖ X25519 ephemeral public key: where the X25519 part starts.
const CT_X_OFFSET: usize = 1088;
/// The combiner's label `\.//^\`.
const LABEL: [u8; 6] = *b"\\.//^\\";

/// The expanded secret key: `SHAKE256(sk, 96)` = ML-KEM `d ‖ z` ‖ X25519 secret.
struct Expanded {
    /// The ML-KEM-768 expanded decapsulation key (wiped on drop).
    sk_m: PrivateKey,
    pk_m: MlKem768PublicKey,
    sk_x: StaticSecret,
    pk_x: [u8; 32],
}

fn expand(seed: &[u8; SK_LEN]) -> Expanded {
    let mut expanded = Zeroizing::new(libcrux_sha3::shake256::<96>(seed));
    let mut d_z = Zeroizing::new([0u8; 64]);
    let mut x = [0u8; 32];
    let (a, b) = expanded.split_at(64);
    d_z.copy_from_slice(a);
    x.copy_from_slice(b);
    expanded.zeroize();
    let (sk, pk_m) = mlkem768::generate_key_pair(*d_z).into_parts();
    let sk_m = PrivateKey(sk);
    let sk_x = StaticSecret::from(x);
    x.zeroize();
    let pk_x = PublicKey::from(&sk_x).to_bytes();
    Expanded {
        sk_m,
        pk_m,
        sk_x,
        pk_x,
    }
}

/// `SHA3-256(ss_M ‖ ss_X ‖ ct_X ‖ pk_X ‖ label)`.
fn combine(
    ss_m: &[u8; 32],
    ss_x: &[u8; 32],
    ct_x: &[u8; 32],
    pk_x: &[u8; 32],
) -> Zeroizing<[u8; 32]> {
    let mut input = Zeroizing::new([0u8; 134]);
    for (i, part) in [ss_m, ss_x, ct_x, pk_x].into_iter().enumerate() {
        if let Some(dst) = input.get_mut(32 * i..32 * (i + 1)) {
            dst.copy_from_slice(part);
        }
    }
    if let Some(dst) = input.get_mut(128..) {
        dst.copy_from_slice(&LABEL);
    }
    Zeroizing::new(libcrux_sha3::sha256(input.as_slice()))
}

/// Derives the X-Wing key pair of a 32-byte seed (the seed is the secret key).
///
/// # Errors
/// [`CryptoError::InvalidLength`] (`seed`) unless `seed` is 32 bytes.
#[must_use = "this returns the key pair and has no side effect"]
pub fn xwing_from_seed(seed: &[u8]) -> Result<XWingKeypair> {
    let seed = exact::<SK_LEN>("seed", "32 bytes", seed)?;
    let e = expand(seed);
    let mut public = Vec::with_capacity(PK_LEN);
    public.extend_from_slice(e.pk_m.as_slice());
    public.extend_from_slice(&e.pk_x);
    Ok(XWingKeypair {
        secret: Zeroizing::new(*seed),
        public,
    })
}

/// `bytes`, exactly `A + B` long, as its first `A` bytes and the `B` after them.
fn split<'a, const A: usize, const B: usize>(
    bytes: &'a [u8],
    what: &'static str,
    expected: &'static str,
) -> Result<(&'a [u8; A], [u8; B])> {
    let wrong = || CryptoError::length(what, expected, bytes.len());
    let (a, b) = bytes.split_first_chunk::<A>().ok_or_else(wrong)?;
    Ok((a, <[u8; B]>::try_from(b).map_err(|_| wrong())?))
}

/// A checked public key: the ML-KEM part passes the FIPS 203 modulus check,
/// neither half is degenerate.
struct Recipient {
    pk_m: MlKem768PublicKey,
    pk_x: [u8; 32],
}

fn encapsulation_key(pk: &[u8]) -> Result<Recipient> {
    let (m, x) = split::<PK_X_OFFSET, 32>(pk, "publicKey", "1216 bytes")?;
    let pk_m = MlKem768PublicKey::from(m);
    if !mlkem768::validate_public_key(&pk_m) {
        return Err(CryptoError::InvalidKey(
            "X-Wing public key: ML-KEM part fails the modulus check",
        ));
    }
    crate::mlkem::refuse_degenerate(m)?;
    crate::x25519::x25519_check_public(&x)?;
    Ok(Recipient { pk_m, pk_x: x })
}

/// Encapsulates a fresh shared secret to `pk` (random `eseed` from the platform CSPRNG).
///
/// Returns `(ciphertext, shared_secret)`.
///
/// # Errors
/// - [`CryptoError::InvalidLength`] (`publicKey`) unless `pk` is 1216 bytes.
/// - [`CryptoError::InvalidKey`] if the ML-KEM part fails the modulus check.
/// - [`CryptoError::WeakKey`] if either half is degenerate (module documentation).
/// - [`CryptoError::RandomnessUnavailable`] if the random generator fails.
#[must_use = "the shared secret is lost if the result is dropped"]
pub fn xwing_encapsulate(pk: &[u8]) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>)> {
    let key = encapsulation_key(pk)?;
    let eseed = rng::array::<ESEED_LEN>()?;
    Ok(encapsulate_with(&key, &eseed))
}

/// Encapsulates with caller-provided randomness `eseed` (64 bytes: ML-KEM `m` ‖
/// X25519 ephemeral secret), as in the draft's test vectors.
///
/// For known-answer tests only: `eseed` must be fresh uniformly random bytes, never reused.
///
/// # Errors
/// - [`CryptoError::InvalidLength`] (`publicKey` 1216 bytes, `eseed` 64 bytes).
/// - [`CryptoError::InvalidKey`] if the ML-KEM part fails the modulus check.
/// - [`CryptoError::WeakKey`] if either half is degenerate.
#[must_use = "the shared secret is lost if the result is dropped"]
pub fn xwing_encapsulate_derand(pk: &[u8], eseed: &[u8]) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>)> {
    let key = encapsulation_key(pk)?;
    let eseed = exact::<ESEED_LEN>("eseed", "64 bytes", eseed)?;
    Ok(encapsulate_with(&key, eseed))
}

fn encapsulate_with(key: &Recipient, eseed: &[u8; ESEED_LEN]) -> (Vec<u8>, Zeroizing<[u8; 32]>) {
    let mut m = Zeroizing::new([0u8; 32]);
    let mut ek_x = [0u8; 32];
    let (a, b) = eseed.split_at(32);
    m.copy_from_slice(a);
    ek_x.copy_from_slice(b);
    let ek_x = StaticSecret::from(ek_x);
    let ct_x = PublicKey::from(&ek_x).to_bytes();
    let ss_x = ops::dh(&ek_x, &PublicKey::from(key.pk_x));
    let (ct_m, mut ss_m) = mlkem768::encapsulate(&key.pk_m, *m);
    let ss = combine(&ss_m, ss_x.as_bytes(), &ct_x, &key.pk_x);
    ss_m.zeroize();
    let mut ct = Vec::with_capacity(CT_LEN);
    ct.extend_from_slice(ct_m.as_slice());
    ct.extend_from_slice(&ct_x);
    (ct, ss)
}

/// Decapsulates `ct` with the 32-byte secret key `sk`.
///
/// # Errors
/// [`CryptoError::InvalidLength`] (`secretKey` 32 bytes, `ciphertext` 1120 bytes).
#[must_use = "this returns the shared secret and has no side effect"]
pub fn xwing_decapsulate(sk: &[u8], ct: &[u8]) -> Result<Zeroizing<[u8; 32]>> {
    let sk = exact::<SK_LEN>("secretKey", "32 bytes", sk)?;
    let (ct_m, ct_x) = split::<CT_X_OFFSET, 32>(ct, "ciphertext", "1120 bytes")?;
    let e = expand(sk);
    let mut ss_m = mlkem768::decapsulate(&e.sk_m.0, &MlKem768Ciphertext::from(ct_m));
    let ss_x = ops::dh(&e.sk_x, &PublicKey::from(ct_x));
    let ss = combine(&ss_m, ss_x.as_bytes(), &ct_x, &e.pk_x);
    ss_m.zeroize();
    Ok(ss)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let kp = xwing_generate().unwrap();
        assert_eq!(kp.public.len(), PK_LEN);
        let (ct, k1) = xwing_encapsulate(&kp.public).unwrap();
        assert_eq!(ct.len(), CT_LEN);
        let k2 = xwing_decapsulate(kp.secret.as_slice(), &ct).unwrap();
        assert_eq!(*k1, *k2);
        let again = xwing_from_seed(kp.secret.as_slice()).unwrap();
        assert_eq!(again.public, kp.public);
        assert!(!format!("{kp:?}").contains("secret"));
    }

    #[test]
    fn tamper() {
        let kp = xwing_from_seed(&[4; 32]).unwrap();
        let (ct, k) = xwing_encapsulate_derand(&kp.public, &[8; 64]).unwrap();
        for i in [0, 1087, 1088, 1119] {
            let mut bad = ct.clone();
            bad[i] ^= 1;
            let k_bad = xwing_decapsulate(kp.secret.as_slice(), &bad).unwrap();
            assert_ne!(*k, *k_bad, "byte {i}");
        }
        let mut pk = kp.public.clone();
        pk[0] = 0xff;
        pk[1] |= 0x0f;
        assert!(matches!(
            xwing_encapsulate(&pk),
            Err(CryptoError::InvalidKey(_))
        ));
    }

    #[test]
    fn wrong_lengths() {
        let kp = xwing_from_seed(&[4; 32]).unwrap();
        let (ct, _) = xwing_encapsulate(&kp.public).unwrap();
        assert!(matches!(
            xwing_from_seed(&[0; 31]),
            Err(CryptoError::InvalidLength { what: "seed", .. })
        ));
        assert!(matches!(
            xwing_encapsulate(&kp.public[1..]),
            Err(CryptoError::InvalidLength {
                what: "publicKey",
                ..
            })
        ));
        assert!(matches!(
            xwing_encapsulate_derand(&kp.public, &[0; 63]),
            Err(CryptoError::InvalidLength { what: "eseed", .. })
        ));
        assert!(matches!(
            xwing_decapsulate(&[0; 33], &ct),
            Err(CryptoError::InvalidLength {
                what: "secretKey",
                ..
            })
        ));
        assert!(matches!(
            xwing_decapsulate(kp.secret.as_slice(), &ct[1..]),
            Err(CryptoError::InvalidLength {
                what: "ciphertext",
                ..
            })
        ));
    }
}
