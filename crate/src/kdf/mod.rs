//! Key derivation: HKDF-SHA-256 (RFC 5869), PBKDF2-HMAC-SHA-256 (RFC 8018)
//! and Argon2id v1.3 (RFC 9106).
//!
//! Every output is returned in a [`Zeroizing`] buffer. All parameters are
//! range-checked before any work or allocation; a parameter outside its range
//! is a [`CryptoError::InvalidParameter`] whose message names it.

mod argon;
mod bounds;

pub use argon::{
    ARGON2_MAX_AD_LEN, ARGON2_MAX_MEMORY_KIB, ARGON2_MAX_OUTPUT_LEN, ARGON2_MAX_PARALLELISM,
    ARGON2_MAX_SECRET_LEN, ARGON2_MIN_OUTPUT_LEN, ARGON2_MIN_SALT_LEN, Argon2Params, argon2id,
};
pub use bounds::{
    Argon2CostBounds, Argon2Limits, BudgetDefaults, CostBounds, KDF_BOUNDS, KdfBounds,
};

use hkdf::Hkdf;
use hmac::Hmac;
use sha2::Sha256;
use zeroize::Zeroizing;

use crate::error::{CryptoError, Result};

// ---------------------------------------------------------------- HKDF

/// Largest HKDF-SHA-256 output: 255 blocks of 32 bytes (RFC 5869 §2.3).
pub const HKDF_MAX_LEN: usize = 255 * 32;

/// HKDF-SHA-256 (RFC 5869): extract with `salt`, expand with `info` to `len` bytes.
///
/// An empty `salt` is the RFC's "not provided" case and behaves exactly as a
/// salt of 32 zero bytes.
///
/// # Errors
/// [`CryptoError::InvalidParameter`] if `len` is 0 or greater than
/// [`HKDF_MAX_LEN`] (8160).
#[must_use = "the derived key is the only output"]
pub fn hkdf_sha256(ikm: &[u8], salt: &[u8], info: &[u8], len: usize) -> Result<Zeroizing<Vec<u8>>> {
    if len == 0 || len > HKDF_MAX_LEN {
        return Err(CryptoError::InvalidParameter(
            "hkdf: output length must be 1..=8160 bytes",
        ));
    }
    let salt = if salt.is_empty() { None } else { Some(salt) };
    let hk = Hkdf::<Sha256>::new(salt, ikm);
    let mut okm = Zeroizing::new(vec![0u8; len]);
    hk.expand(info, &mut okm)
        .map_err(|_| CryptoError::InvalidParameter("hkdf: output length must be 1..=8160 bytes"))?;
    Ok(okm)
}

// ---------------------------------------------------------------- PBKDF2

/// Largest PBKDF2 output accepted, in bytes.
///
/// PBKDF2 can produce up to (2^32 − 1) · 32 bytes, but every block beyond the
/// first costs a full `iterations` run while adding no strength against an
/// attacker (who needs only the first block to test a guess). 1024 bytes
/// covers every real use (BIP-39 seeds are 64 bytes) and bounds the work.
pub const PBKDF2_MAX_LEN: usize = 1024;

/// PBKDF2-HMAC-SHA-256 (RFC 8018 §5.2).
///
/// # Errors
/// [`CryptoError::InvalidParameter`] if `iterations` is 0 or `len` is not in
/// `1..=`[`PBKDF2_MAX_LEN`].
#[must_use = "the derived key is the only output"]
pub fn pbkdf2_sha256(
    password: &[u8],
    salt: &[u8],
    iterations: u32,
    len: usize,
) -> Result<Zeroizing<Vec<u8>>> {
    if iterations == 0 {
        return Err(CryptoError::InvalidParameter(
            "pbkdf2: iterations must be at least 1",
        ));
    }
    if len == 0 || len > PBKDF2_MAX_LEN {
        return Err(CryptoError::InvalidParameter(
            "pbkdf2: output length must be 1..=1024 bytes",
        ));
    }
    let mut out = Zeroizing::new(vec![0u8; len]);
    pbkdf2::pbkdf2::<Hmac<Sha256>>(password, salt, iterations, &mut out)
        // HMAC accepts keys (passwords) of any length; this cannot happen.
        .map_err(|_| CryptoError::InvalidParameter("pbkdf2: password rejected by HMAC"))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(m: u32, t: u32, par: u32, len: usize) -> Argon2Params {
        Argon2Params {
            memory_kib: m,
            iterations: t,
            parallelism: par,
            output_len: len,
        }
    }

    #[test]
    fn hkdf_rfc5869_a3_and_ranges() {
        let okm = hkdf_sha256(&[0x0b; 22], b"", b"", 42).unwrap();
        assert_eq!(okm[..4], [0x8d, 0xa4, 0xe7, 0x75]);
        // Empty salt == 32 zero bytes.
        assert_eq!(
            hkdf_sha256(b"ikm", b"", b"i", 80).unwrap(),
            hkdf_sha256(b"ikm", &[0; 32], b"i", 80).unwrap()
        );
        assert_eq!(
            hkdf_sha256(b"ikm", b"s", b"i", HKDF_MAX_LEN).unwrap().len(),
            HKDF_MAX_LEN
        );
        for bad in [0, HKDF_MAX_LEN + 1] {
            assert!(matches!(
                hkdf_sha256(b"ikm", b"s", b"i", bad),
                Err(CryptoError::InvalidParameter(_))
            ));
        }
    }

    #[test]
    fn pbkdf2_rfc7914_and_ranges() {
        let dk = pbkdf2_sha256(b"passwd", b"salt", 1, 64).unwrap();
        assert_eq!(dk[..4], [0x55, 0xac, 0x04, 0x6e]);
        assert_eq!(
            pbkdf2_sha256(b"p", b"s", 1, PBKDF2_MAX_LEN).unwrap().len(),
            PBKDF2_MAX_LEN
        );
        assert!(matches!(
            pbkdf2_sha256(b"p", b"s", 0, 32),
            Err(CryptoError::InvalidParameter(_))
        ));
        assert!(matches!(
            pbkdf2_sha256(b"p", b"s", 1, 0),
            Err(CryptoError::InvalidParameter(_))
        ));
        assert!(matches!(
            pbkdf2_sha256(b"p", b"s", 1, 1025),
            Err(CryptoError::InvalidParameter(_))
        ));
    }

    #[test]
    fn argon2id_small_and_validation() {
        // pyca COUNT 5: argon2 -id -t 1 -k 8 -p 1 -l 4, password "password", salt "pycasalt"
        let out = argon2id(b"password", b"pycasalt", b"", b"", &p(8, 1, 1, 4)).unwrap();
        assert_eq!(out.as_slice(), [0x00, 0x9c, 0x78, 0x09]);

        let bad = [
            (p(64, 1, 0, 32), "parallelism"),
            (p(1024, 1, 17, 32), "parallelism"),
            (p(15, 1, 2, 32), "memory_kib"),
            (p(ARGON2_MAX_MEMORY_KIB + 1, 1, 1, 32), "memory_kib"),
            (p(64, 0, 1, 32), "iterations"),
            (p(64, 1, 1, 3), "output_len"),
            (p(64, 1, 1, 1025), "output_len"),
        ];
        for (params, what) in bad {
            match argon2id(b"pw", b"saltsalt", b"", b"", &params) {
                Err(CryptoError::InvalidParameter(m)) => assert!(m.contains(what), "{m} / {what}"),
                other => panic!("{params:?}: {other:?}"),
            }
            assert!(params.validate().is_err());
        }
        let ok = p(8, 1, 1, 32);
        for (salt, secret, ad, what) in [
            (&b"short"[..], &b""[..], &b""[..], "salt"),
            (&b"saltsalt"[..], &[0u8; 33][..], &b""[..], "secret"),
            (
                &b"saltsalt"[..],
                &b""[..],
                &[0u8; 33][..],
                "associated_data",
            ),
        ] {
            match argon2id(b"pw", salt, secret, ad, &ok) {
                Err(CryptoError::InvalidParameter(m)) => assert!(m.contains(what), "{m} / {what}"),
                other => panic!("{what}: {other:?}"),
            }
        }
        // Secret and AD change the result.
        let a = argon2id(b"pw", b"saltsalt", b"", b"", &ok).unwrap();
        let b = argon2id(b"pw", b"saltsalt", b"k", b"", &ok).unwrap();
        let c = argon2id(b"pw", b"saltsalt", b"", b"d", &ok).unwrap();
        assert_ne!(a, b);
        assert_ne!(a, c);
        assert_ne!(b, c);
    }

    #[test]
    fn bounds_table_is_consistent() {
        let b = KDF_BOUNDS;
        for c in [b.wrap_argon2id, b.passphrase_argon2id] {
            for r in [c.memory_kib, c.iterations, c.parallelism] {
                assert!(r.min <= r.default && r.default <= r.max, "{r:?}");
                assert!(r.contains(r.min) && r.contains(r.max) && !r.contains(r.max + 1));
            }
            assert!(c.memory_kib.max <= b.argon2id.max_memory_kib);
            assert!(c.parallelism.max <= b.argon2id.max_parallelism);
            // Every accepted cost is a valid primitive call (m ≥ 8 · p).
            assert!(c.memory_kib.min >= 8 * c.parallelism.max);
            assert!(c.iterations.min >= 1 && c.parallelism.min >= 1);
        }
        let p = b.wrap_pbkdf2_iterations;
        assert!(p.min <= p.default && p.default <= p.max);
        // The default budget admits the writers' defaults and stays within the format.
        let d = b.default_budget;
        assert!(d.argon2_memory_kib >= b.wrap_argon2id.memory_kib.default);
        assert!(d.argon2_memory_kib <= b.wrap_argon2id.memory_kib.max);
        assert!(d.argon2_iterations >= b.wrap_argon2id.iterations.default);
        assert!(d.argon2_iterations >= b.passphrase_argon2id.iterations.default);
        assert!(d.pbkdf2_iterations >= p.default && d.pbkdf2_iterations <= p.max);
        assert!(d.password_attempts >= 1);
    }
}
