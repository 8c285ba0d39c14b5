//! Length-hiding padding and padded AES-256-GCM.
//!
//! ```text
//! P = u32(len) ‖ content ‖ 0x00 … 0x00          |P| = padded_len(len)
//! padded_len(n): L = n + 4
//!   L ≤ 64               → 64
//!   64 < L ≤ 65536       → the next power of two ≥ L
//!   L > 65536            → Padmé(L)
//! Padmé(L): E = ⌊log2 L⌋, S = ⌊log2 E⌋ + 1, z = E − S, mask = 2^z − 1,
//!           (L + mask) & ¬mask
//! ```
//!
//! Not PKCS#7 (which hides at most 15 bytes): buckets hide the length up to a
//! power of two, and Padmé leaks O(log log L) bits above 64 KiB. Unpadding is
//! strict: the length field must fit in `P`, `|P|` must be exactly
//! `padded_len(len)` and the fill must be zero; anything else is
//! `INVALID_PADDING`.

use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use super::codec::Reader;
use super::error::{MessagingError, Result};
use crate::aead;
use crate::error::CryptoError;

/// Smallest padded size.
pub const MIN_BUCKET: usize = 64;
/// Largest power-of-two bucket; above it, Padmé.
pub const MAX_BUCKET: usize = 65536;
/// Length of the `u32` length field.
pub const LEN_PREFIX: usize = 4;
/// Largest content [`pad_message`] accepts (the length field is a `u32`).
pub const MAX_CONTENT_LEN: usize = (u32::MAX as usize) - LEN_PREFIX;

/// Padmé (Nikitin et al., PETS 2019) of `l > 0`.
fn padme(l: u64) -> u64 {
    let e = u64::from(63 - l.leading_zeros());
    let s = u64::from(63 - e.max(1).leading_zeros()) + 1;
    let z = e.saturating_sub(s);
    let mask = (1u64 << z) - 1;
    (l + mask) & !mask
}

/// Size of the padded form of `content_len` bytes.
///
/// # Errors
/// `INVALID_LENGTH` above [`MAX_CONTENT_LEN`].
pub fn padded_len(content_len: usize) -> Result<usize> {
    if content_len > MAX_CONTENT_LEN {
        return Err(CryptoError::length("content", "at most 2^32 - 5 bytes", content_len).into());
    }
    let l = content_len + LEN_PREFIX;
    if l <= MIN_BUCKET {
        return Ok(MIN_BUCKET);
    }
    if l <= MAX_BUCKET {
        return Ok(l.next_power_of_two());
    }
    let padded = padme(l as u64);
    usize::try_from(padded).map_err(|_| {
        CryptoError::length("content", "a padded size that fits in memory", content_len).into()
    })
}

/// Pads `content` to `u32(len) ‖ content ‖ zeros` of [`padded_len`] bytes.
///
/// # Errors
/// `INVALID_LENGTH` above [`MAX_CONTENT_LEN`].
#[must_use = "the padded message is the only output"]
pub fn pad_message(content: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    let total = padded_len(content.len())?;
    let len = u32::try_from(content.len())
        .map_err(|_| CryptoError::length("content", "at most 2^32 - 5 bytes", content.len()))?;
    let mut out = Zeroizing::new(Vec::with_capacity(total));
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(content);
    out.resize(total, 0);
    Ok(out)
}

/// Removes veilkit padding.
///
/// # Errors
/// `INVALID_PADDING` if `padded` is shorter than 4 bytes, its length field
/// points beyond it, its size is not `padded_len(len)` or the fill is not zero.
#[must_use = "the content is the only output"]
pub fn unpad_message(padded: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    let mut r = Reader::new(padded);
    let len = r.u32().ok_or(MessagingError::InvalidPadding)?;
    let len = usize::try_from(len).map_err(|_| MessagingError::InvalidPadding)?;
    let content = r.take(len).ok_or(MessagingError::InvalidPadding)?;
    if padded_len(len).map_err(|_| MessagingError::InvalidPadding)? != padded.len() {
        return Err(MessagingError::InvalidPadding);
    }
    // OR of every fill byte, then one constant-time comparison: no
    // data-dependent branch, and no per-byte optimisation barrier.
    let zero_fill = r.rest().iter().fold(0u8, |acc, b| acc | b).ct_eq(&0u8);
    if !bool::from(zero_fill) {
        return Err(MessagingError::InvalidPadding);
    }
    Ok(Zeroizing::new(content.to_vec()))
}

/// Pads, then encrypts with AES-256-GCM under a fresh random IV:
/// `iv(12) ‖ ct ‖ tag(16)`.
///
/// # Errors
/// `INVALID_LENGTH` (key, content), `RANDOMNESS_UNAVAILABLE`.
#[must_use = "the ciphertext is the only output"]
pub fn encrypt_aes_gcm_padded(key: &[u8], plaintext: &[u8], aad: &[u8]) -> Result<Vec<u8>> {
    let padded = pad_message(plaintext)?;
    Ok(aead::aes_gcm_encrypt(key, &padded, aad)?)
}

/// [`encrypt_aes_gcm_padded`] under a caller-chosen 12-byte IV (known-answer
/// tests only: an IV must never repeat under one key).
///
/// # Errors
/// `INVALID_LENGTH` (key, iv, content).
#[must_use = "the ciphertext is the only output"]
pub fn encrypt_aes_gcm_padded_with_iv(
    key: &[u8],
    iv: &[u8],
    plaintext: &[u8],
    aad: &[u8],
) -> Result<Vec<u8>> {
    let padded = pad_message(plaintext)?;
    let ct = aead::aes_gcm_encrypt_with_iv(key, iv, &padded, aad)?;
    let mut out = Vec::with_capacity(iv.len() + ct.len());
    out.extend_from_slice(iv);
    out.extend_from_slice(&ct);
    Ok(out)
}

/// Decrypts `iv ‖ ct ‖ tag` and removes the padding.
///
/// # Errors
/// `INVALID_LENGTH` (key, ciphertext shorter than 28 bytes),
/// `AUTHENTICATION_FAILED`, `INVALID_PADDING`.
#[must_use = "the plaintext is the only output"]
pub fn decrypt_aes_gcm_padded(
    key: &[u8],
    ciphertext: &[u8],
    aad: &[u8],
) -> Result<Zeroizing<Vec<u8>>> {
    let padded = Zeroizing::new(aead::aes_gcm_decrypt(key, ciphertext, aad)?);
    unpad_message(&padded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_and_padme() {
        assert_eq!(padded_len(0).unwrap(), 64);
        assert_eq!(padded_len(60).unwrap(), 64);
        assert_eq!(padded_len(61).unwrap(), 128);
        assert_eq!(padded_len(65532).unwrap(), 65536);
        assert_eq!(padded_len(65533).unwrap(), 67584);
        assert_eq!(padme(65537), 67584);
        assert_eq!(padme(1_000_000), 1_015_808);
    }

    #[test]
    fn round_trip() {
        for n in [0usize, 1, 59, 60, 61, 100, 65532, 65533, 70000] {
            let c = vec![0xA5u8; n];
            let p = pad_message(&c).unwrap();
            assert_eq!(p.len(), padded_len(n).unwrap());
            assert_eq!(unpad_message(&p).unwrap().as_slice(), c.as_slice());
        }
    }
}
