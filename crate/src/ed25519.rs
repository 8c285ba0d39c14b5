//! Ed25519 signatures (RFC 8032, pure Ed25519), over `ed25519-dalek`.
//!
//! Verification is *strict*:
//! - `S` must be canonical (`S < L`), otherwise the signature is malleable;
//! - the public key `A` must be the canonical encoding of a curve point that is
//!   not of small order;
//! - `R` must not be of small order and must be canonically encoded (the
//!   recomputed `R` is compared byte-for-byte with the signature's `R`);
//! - the cofactorless equation `[S]B = R + [k]A` is used (`verify_strict`).
//!
//! Every verification failure is the opaque [`CryptoError::InvalidSignature`].

use core::fmt;

use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use crate::error::{CryptoError, Result, exact};
use crate::rng;

/// Length of an Ed25519 seed (the RFC 8032 private key).
pub const SEED_LEN: usize = 32;
/// Length of the expanded secret form `seed ‖ public`.
pub const SECRET_LEN: usize = 64;
/// Length of a public key.
pub const PUBLIC_LEN: usize = 32;
/// Length of a signature.
pub const SIGNATURE_LEN: usize = 64;

/// An Ed25519 key pair. The secret is wiped on drop; `Debug` shows only the public key.
pub struct Ed25519Keypair {
    /// `seed ‖ public` (64 bytes), the common "secret key" layout.
    pub secret: Zeroizing<[u8; 64]>,
    /// The 32-byte public key.
    pub public: [u8; 32],
}

impl fmt::Debug for Ed25519Keypair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ed25519Keypair")
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

/// Generates a fresh Ed25519 key pair from the platform CSPRNG.
///
/// # Errors
/// [`CryptoError::RandomnessUnavailable`] if the random generator fails.
#[must_use = "the generated key pair is the only copy of the secret"]
pub fn ed25519_generate() -> Result<Ed25519Keypair> {
    let seed = rng::array::<SEED_LEN>()?;
    ed25519_from_seed(seed.as_slice())
}

/// Derives the key pair of a 32-byte seed (RFC 8032 §5.1.5).
///
/// # Errors
/// [`CryptoError::InvalidLength`] (`seed`) unless `seed` is 32 bytes.
#[must_use = "this returns the key pair and has no side effect"]
pub fn ed25519_from_seed(seed: &[u8]) -> Result<Ed25519Keypair> {
    let seed = exact::<SEED_LEN>("seed", "32 bytes", seed)?;
    let signing = SigningKey::from_bytes(seed);
    let public = signing.verifying_key().to_bytes();
    let secret = Zeroizing::new(signing.to_keypair_bytes());
    Ok(Ed25519Keypair { secret, public })
}

/// Signs `msg` (RFC 8032 §5.1.6, deterministic).
///
/// `secret` is the 32-byte seed or the 64-byte `seed ‖ public` form; in the
/// latter the public half must be the one derived from the seed (checked in
/// constant time), which prevents the key-substitution fault attack where a
/// wrong public key leaks the secret scalar.
///
/// # Errors
/// - [`CryptoError::InvalidLength`] (`secretKey`, "32 or 64 bytes") for other lengths.
/// - [`CryptoError::InvalidKey`] if a 64-byte key's public half does not match its seed.
#[must_use = "this returns the signature and has no side effect"]
pub fn ed25519_sign(secret: &[u8], msg: &[u8]) -> Result<[u8; 64]> {
    let signing = signing_key(secret)?;
    let signature = signing
        .try_sign(msg)
        .map_err(|_| CryptoError::InvalidKey("Ed25519 signing failed"))?;
    Ok(signature.to_bytes())
}

fn signing_key(secret: &[u8]) -> Result<SigningKey> {
    let invalid_length = || CryptoError::length("secretKey", "32 or 64 bytes", secret.len());
    match secret.len() {
        SEED_LEN => {
            let seed = exact::<SEED_LEN>("secretKey", "32 or 64 bytes", secret)?;
            Ok(SigningKey::from_bytes(seed))
        }
        SECRET_LEN => {
            let (seed, public) = secret
                .split_first_chunk::<SEED_LEN>()
                .ok_or_else(invalid_length)?;
            let signing = SigningKey::from_bytes(seed);
            let derived = signing.verifying_key().to_bytes();
            if bool::from(derived.as_slice().ct_eq(public)) {
                Ok(signing)
            } else {
                Err(CryptoError::InvalidKey(
                    "Ed25519 secret key: public half does not match the seed",
                ))
            }
        }
        _ => Err(invalid_length()),
    }
}

/// Verifies an Ed25519 signature strictly (see the module documentation).
///
/// # Errors
/// - [`CryptoError::InvalidLength`] (`publicKey` 32 bytes, `signature` 64 bytes).
/// - [`CryptoError::InvalidSignature`] if the signature does not verify, `S` is
///   not canonical, `A` or `R` is non-canonical or of small order, or `A` is not
///   a curve point.
#[must_use = "the signature is only checked if the result is inspected"]
pub fn ed25519_verify(public: &[u8], msg: &[u8], sig: &[u8]) -> Result<()> {
    let public = exact::<PUBLIC_LEN>("publicKey", "32 bytes", public)?;
    let sig = exact::<SIGNATURE_LEN>("signature", "64 bytes", sig)?;
    // RFC 8032 §5.1.3: the encoding of A must be canonical (y < p, no "negative zero").
    // Checked on the bytes: re-compressing the decoded point costs a field inversion.
    if !canonical_point_encoding(public) {
        return Err(CryptoError::InvalidSignature);
    }
    let key = VerifyingKey::from_bytes(public).map_err(|_| CryptoError::InvalidSignature)?;
    // verify_strict: rejects S >= L, small-order A and R, and compares the
    // canonical recomputed R with the signature's R bytes (non-canonical R fails).
    key.verify_strict(msg, &Signature::from_bytes(sig))
        .map_err(|_| CryptoError::InvalidSignature)
}

/// Whether `b` is the canonical encoding of an Edwards point's y and x sign (RFC 8032
/// §5.1.3): y (the low 255 bits, little-endian) below p = 2^255 − 19, and the sign bit clear
/// when x = 0, which happens exactly when y = ±1. Public data: not constant time.
fn canonical_point_encoding(b: &[u8; PUBLIC_LEN]) -> bool {
    let [b0, mid @ .., b31] = *b;
    let top = b31 & 0x7f;
    let sign = b31 & 0x80 != 0;
    let mid_all = |v: u8| mid.iter().all(|&x| x == v);
    // y ≥ p ⇔ y ∈ [2^255 − 19, 2^255 − 1]: bytes ed..ff, ff × 30, 7f.
    if top == 0x7f && mid_all(0xff) && b0 >= 0xed {
        return false;
    }
    // x = 0 ⇔ y = 1 or y = p − 1 (= ec, ff × 30, 7f); with the sign bit set: "negative zero".
    let y_is_one = top == 0 && mid_all(0) && b0 == 1;
    let y_is_minus_one = top == 0x7f && mid_all(0xff) && b0 == 0xec;
    !(sign && (y_is_one || y_is_minus_one))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte check agrees with decode-then-recompress on every edge encoding around p and ±1.
    #[test]
    fn canonical_encoding_check_matches_recompression() {
        let mut cases: Vec<[u8; 32]> = Vec::new();
        for low in [0u8, 1, 2, 0x12, 0x13, 0xeb, 0xec, 0xed, 0xee, 0xfe, 0xff] {
            for (mid, top) in [(0u8, 0u8), (0xff, 0x7f), (0xff, 0x7e), (0x00, 0x7f)] {
                for sign in [0u8, 0x80] {
                    let mut b = [mid; 32];
                    b[0] = low;
                    b[31] = top | sign;
                    cases.push(b);
                }
            }
        }
        let mut decodable = 0;
        for b in &cases {
            if let Ok(key) = VerifyingKey::from_bytes(b) {
                decodable += 1;
                assert_eq!(
                    canonical_point_encoding(b),
                    key.to_edwards().compress().as_bytes() == b,
                    "{b:02x?}"
                );
            }
        }
        assert!(decodable > 10, "{decodable}");
    }

    #[test]
    fn round_trip_seed_and_expanded() {
        let kp = ed25519_generate().unwrap();
        let again = ed25519_from_seed(&kp.secret[..32]).unwrap();
        assert_eq!(*again.secret, *kp.secret);
        assert_eq!(&kp.secret[32..], &kp.public);
        let s1 = ed25519_sign(&kp.secret[..32], b"hello").unwrap();
        let s2 = ed25519_sign(kp.secret.as_slice(), b"hello").unwrap();
        assert_eq!(s1, s2);
        ed25519_verify(&kp.public, b"hello", &s1).unwrap();
        assert!(!format!("{kp:?}").contains("secret"));
    }

    #[test]
    fn tamper() {
        let kp = ed25519_generate().unwrap();
        let sig = ed25519_sign(kp.secret.as_slice(), b"msg").unwrap();
        assert_eq!(
            ed25519_verify(&kp.public, b"msh", &sig),
            Err(CryptoError::InvalidSignature)
        );
        for i in [0, 31, 32, 63] {
            let mut bad = sig;
            bad[i] ^= 0x01;
            assert_eq!(
                ed25519_verify(&kp.public, b"msg", &bad),
                Err(CryptoError::InvalidSignature)
            );
        }
        let other = ed25519_generate().unwrap();
        assert_eq!(
            ed25519_verify(&other.public, b"msg", &sig),
            Err(CryptoError::InvalidSignature)
        );
    }

    #[test]
    fn mismatched_public_half_rejected() {
        let kp = ed25519_generate().unwrap();
        let other = ed25519_generate().unwrap();
        let mut secret = *kp.secret;
        secret[32..].copy_from_slice(&other.public);
        assert!(matches!(
            ed25519_sign(&secret, b"m"),
            Err(CryptoError::InvalidKey(_))
        ));
    }

    #[test]
    fn wrong_lengths() {
        let kp = ed25519_generate().unwrap();
        assert!(matches!(
            ed25519_from_seed(&[0; 31]),
            Err(CryptoError::InvalidLength { .. })
        ));
        for n in [0, 31, 33, 63, 65] {
            assert!(matches!(
                ed25519_sign(&vec![0; n], b"m"),
                Err(CryptoError::InvalidLength {
                    what: "secretKey",
                    expected: "32 or 64 bytes",
                    ..
                })
            ));
        }
        let sig = ed25519_sign(kp.secret.as_slice(), b"m").unwrap();
        assert!(matches!(
            ed25519_verify(&kp.public[..31], b"m", &sig),
            Err(CryptoError::InvalidLength {
                what: "publicKey",
                ..
            })
        ));
        assert!(matches!(
            ed25519_verify(&kp.public, b"m", &sig[..63]),
            Err(CryptoError::InvalidLength {
                what: "signature",
                ..
            })
        ));
    }

    #[test]
    fn non_canonical_s_rejected() {
        // S + L is a non-canonical S for the same signature.
        const L: [u8; 32] = [
            0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9,
            0xde, 0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
        ];
        let kp = ed25519_generate().unwrap();
        let mut sig = ed25519_sign(kp.secret.as_slice(), b"m").unwrap();
        let mut carry = 0u16;
        for (s, l) in sig[32..].iter_mut().zip(L) {
            let v = u16::from(*s) + u16::from(l) + carry;
            *s = v as u8;
            carry = v >> 8;
        }
        if carry == 0 && sig[63] < 0x20 {
            assert_eq!(
                ed25519_verify(&kp.public, b"m", &sig),
                Err(CryptoError::InvalidSignature)
            );
        }
    }

    #[test]
    fn small_order_public_key_rejected() {
        // The identity point (y = 1) and a forged signature R = identity, S = 0
        // verifies under the plain cofactorless equation; strict verify rejects it.
        let mut identity = [0u8; 32];
        identity[0] = 1;
        let mut sig = [0u8; 64];
        sig[0] = 1;
        assert_eq!(
            ed25519_verify(&identity, b"anything", &sig),
            Err(CryptoError::InvalidSignature)
        );
    }
}
