//! X-Wing hybrid KEM (ML-KEM-768 + X25519, draft-connolly-cfrg-xwing-kem),
//! over RustCrypto `x-wing`.
//!
//! - The secret key is the 32-byte seed; it is expanded with SHAKE256 into the
//!   ML-KEM-768 seed `d ‖ z` and the X25519 secret on every use.
//! - Encapsulation uses an explicit 64-byte `eseed` (ML-KEM `m` ‖ X25519
//!   ephemeral secret) drawn from [`crate::rng`]; no RNG object is handed to the crate.
//! - Shared secret: `SHA3-256(ss_M ‖ ss_X ‖ ct_X ‖ pk_X ‖ "\.//^\")`.
//! - The ML-KEM part of a public key must pass the FIPS 203 modulus check.
//! - As in the draft and its test vectors, an all-zero X25519 component is not
//!   rejected: it is hashed into the combiner with the ML-KEM secret, which
//!   alone keeps the result secret.

use core::fmt;

use x_wing::{
    Decapsulate, DecapsulationKey, Decapsulator, EncapsulationKey, KeyExport, TryKeyInit,
};
use zeroize::{Zeroize, Zeroizing};

use crate::error::{CryptoError, Result, exact};
use crate::rng;

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

/// Derives the X-Wing key pair of a 32-byte seed (the seed is the secret key).
///
/// # Errors
/// [`CryptoError::InvalidLength`] (`seed`) unless `seed` is 32 bytes.
#[must_use = "this returns the key pair and has no side effect"]
pub fn xwing_from_seed(seed: &[u8]) -> Result<XWingKeypair> {
    let seed = exact::<SK_LEN>("seed", "32 bytes", seed)?;
    let dk = DecapsulationKey::from(*seed);
    let public = dk.encapsulation_key().to_bytes().to_vec();
    Ok(XWingKeypair {
        secret: Zeroizing::new(*seed),
        public,
    })
}

fn encapsulation_key(pk: &[u8]) -> Result<EncapsulationKey> {
    let pk = exact::<PK_LEN>("publicKey", "1216 bytes", pk)?;
    EncapsulationKey::new(pk.into()).map_err(|_| {
        CryptoError::InvalidKey("X-Wing public key: ML-KEM part fails the modulus check")
    })
}

/// Encapsulates a fresh shared secret to `pk` (random `eseed` from the platform CSPRNG).
///
/// Returns `(ciphertext, shared_secret)`.
///
/// # Errors
/// - [`CryptoError::InvalidLength`] (`publicKey`) unless `pk` is 1216 bytes.
/// - [`CryptoError::InvalidKey`] if the ML-KEM part fails the modulus check.
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
#[must_use = "the shared secret is lost if the result is dropped"]
pub fn xwing_encapsulate_derand(pk: &[u8], eseed: &[u8]) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>)> {
    let key = encapsulation_key(pk)?;
    let eseed = exact::<ESEED_LEN>("eseed", "64 bytes", eseed)?;
    Ok(encapsulate_with(&key, eseed))
}

fn encapsulate_with(
    key: &EncapsulationKey,
    eseed: &[u8; ESEED_LEN],
) -> (Vec<u8>, Zeroizing<[u8; 32]>) {
    let (ct, mut ss) = key.encapsulate_deterministic(eseed.into());
    let out = Zeroizing::new(ss.0);
    ss.zeroize();
    (ct.to_vec(), out)
}

/// Decapsulates `ct` with the 32-byte secret key `sk`.
///
/// # Errors
/// [`CryptoError::InvalidLength`] (`secretKey` 32 bytes, `ciphertext` 1120 bytes).
#[must_use = "this returns the shared secret and has no side effect"]
pub fn xwing_decapsulate(sk: &[u8], ct: &[u8]) -> Result<Zeroizing<[u8; 32]>> {
    let sk = exact::<SK_LEN>("secretKey", "32 bytes", sk)?;
    let ct = exact::<CT_LEN>("ciphertext", "1120 bytes", ct)?;
    let dk = DecapsulationKey::from(*sk);
    let mut ss = dk.decapsulate(ct.into());
    let out = Zeroizing::new(ss.0);
    ss.zeroize();
    Ok(out)
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
