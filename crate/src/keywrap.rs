//! AES-256 Key Wrap (RFC 3394 / NIST SP 800-38F KW, default IV `A6A6A6A6A6A6A6A6`).
//!
//! Only the unpadded variant (KW) is offered: the wrapped key must be at least
//! 16 bytes and a multiple of 8. RFC 3394 itself allows 8-byte (single
//! semiblock) inputs, but SP 800-38F requires at least two semiblocks and a
//! single-semiblock "wrap" is just one AES block encryption, so it is rejected.
//! An integrity-check failure on unwrap is the opaque
//! [`CryptoError::AuthenticationFailed`]; the partially unwrapped buffer is
//! zeroed before returning.

use aes_kw::{Error as KwError, KeyInit, KwAes256};
use zeroize::Zeroizing;

use crate::error::{CryptoError, Result, exact};

/// Key-encryption-key length in bytes (AES-256).
pub const KEK_LEN: usize = 32;
/// Length of the integrity block (the RFC 3394 IV) added by wrapping.
pub const KW_OVERHEAD: usize = 8;
/// Smallest key that can be wrapped, in bytes.
pub const KW_MIN_KEY_LEN: usize = 16;

const KEK_EXPECTED: &str = "32 bytes";
const KEY_EXPECTED: &str = "at least 16 bytes, a multiple of 8";
const WRAPPED_EXPECTED: &str = "at least 24 bytes, a multiple of 8";

fn kek_cipher(kek: &[u8]) -> Result<KwAes256> {
    let kek = exact::<KEK_LEN>("kek", KEK_EXPECTED, kek)?;
    KwAes256::new_from_slice(kek).map_err(|_| CryptoError::length("kek", KEK_EXPECTED, KEK_LEN))
}

/// Wraps `key` under the 32-byte `kek` (AES-256-KW, RFC 3394).
///
/// Returns `key.len() + 8` bytes.
///
/// # Errors
/// [`CryptoError::InvalidLength`] if `kek` is not 32 bytes (`what: "kek"`) or
/// `key` is shorter than 16 bytes or not a multiple of 8 (`what: "key"`).
#[must_use = "the wrapped key is the only output"]
pub fn aes_kw_wrap(kek: &[u8], key: &[u8]) -> Result<Vec<u8>> {
    let cipher = kek_cipher(kek)?;
    if key.len() < KW_MIN_KEY_LEN || !key.len().is_multiple_of(8) {
        return Err(CryptoError::length("key", KEY_EXPECTED, key.len()));
    }
    let out_len = key
        .len()
        .checked_add(KW_OVERHEAD)
        .ok_or(CryptoError::length("key", KEY_EXPECTED, key.len()))?;
    let mut out = vec![0u8; out_len];
    cipher
        .wrap_key(key, &mut out)
        .map_err(|_| CryptoError::length("key", KEY_EXPECTED, key.len()))?;
    Ok(out)
}

/// Unwraps `wrapped` under the 32-byte `kek` (AES-256-KW, RFC 3394) and checks
/// its integrity block.
///
/// Returns `wrapped.len() - 8` bytes in a zeroizing buffer.
///
/// # Errors
/// - [`CryptoError::InvalidLength`] if `kek` is not 32 bytes (`what: "kek"`) or
///   `wrapped` is shorter than 24 bytes or not a multiple of 8 (`what: "wrapped"`).
/// - [`CryptoError::AuthenticationFailed`] if the integrity check fails (wrong
///   KEK or modified data).
#[must_use = "the unwrapped key is the only output"]
pub fn aes_kw_unwrap(kek: &[u8], wrapped: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    let cipher = kek_cipher(kek)?;
    if wrapped.len() < KW_MIN_KEY_LEN + KW_OVERHEAD || !wrapped.len().is_multiple_of(8) {
        return Err(CryptoError::length(
            "wrapped",
            WRAPPED_EXPECTED,
            wrapped.len(),
        ));
    }
    let out_len = wrapped
        .len()
        .checked_sub(KW_OVERHEAD)
        .ok_or(CryptoError::length(
            "wrapped",
            WRAPPED_EXPECTED,
            wrapped.len(),
        ))?;
    let mut out = Zeroizing::new(vec![0u8; out_len]);
    cipher.unwrap_key(wrapped, &mut out).map_err(|e| match e {
        KwError::IntegrityCheckFailed => CryptoError::AuthenticationFailed,
        KwError::InvalidDataSize | KwError::InvalidOutputSize { .. } => {
            CryptoError::length("wrapped", WRAPPED_EXPECTED, wrapped.len())
        }
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEK: [u8; 32] = [0x42; 32];

    #[test]
    fn round_trip() {
        for n in [16usize, 24, 32, 40, 64, 400] {
            let key: Vec<u8> = (0..n).map(|i| (i * 7) as u8).collect();
            let w = aes_kw_wrap(&KEK, &key).unwrap();
            assert_eq!(w.len(), n + 8);
            assert_eq!(aes_kw_unwrap(&KEK, &w).unwrap().as_slice(), key.as_slice());
        }
    }

    #[test]
    fn rfc3394_4_6() {
        let kek: Vec<u8> = (0u8..32).collect();
        let key = [
            0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd,
            0xee, 0xff, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b,
            0x0c, 0x0d, 0x0e, 0x0f,
        ];
        let w = aes_kw_wrap(&kek, &key).unwrap();
        assert_eq!(w[..8], [0x28, 0xc9, 0xf4, 0x04, 0xc4, 0xb8, 0x10, 0xf4]);
    }

    #[test]
    fn bit_flips_fail() {
        let w = aes_kw_wrap(&KEK, &[9u8; 32]).unwrap();
        for i in 0..w.len() * 8 {
            let mut bad = w.clone();
            bad[i / 8] ^= 1 << (i % 8);
            assert_eq!(
                aes_kw_unwrap(&KEK, &bad).unwrap_err(),
                CryptoError::AuthenticationFailed
            );
        }
        let mut kek2 = KEK;
        kek2[0] ^= 1;
        assert_eq!(
            aes_kw_unwrap(&kek2, &w).unwrap_err(),
            CryptoError::AuthenticationFailed
        );
    }

    #[test]
    fn wrong_lengths() {
        let e = aes_kw_wrap(&[0u8; 16], &[0u8; 16]).unwrap_err();
        assert!(matches!(
            e,
            CryptoError::InvalidLength {
                what: "kek",
                got: 16,
                ..
            }
        ));
        for n in [0usize, 8, 15, 17, 20, 31] {
            let e = aes_kw_wrap(&KEK, &vec![0u8; n]).unwrap_err();
            assert!(
                matches!(e, CryptoError::InvalidLength { what: "key", .. }),
                "{n}"
            );
        }
        for n in [0usize, 8, 16, 23, 25, 33] {
            let e = aes_kw_unwrap(&KEK, &vec![0u8; n]).unwrap_err();
            assert!(
                matches!(
                    e,
                    CryptoError::InvalidLength {
                        what: "wrapped",
                        ..
                    }
                ),
                "{n}"
            );
        }
        let e = aes_kw_unwrap(&[0u8; 31], &[0u8; 24]).unwrap_err();
        assert!(matches!(e, CryptoError::InvalidLength { what: "kek", .. }));
    }
}
