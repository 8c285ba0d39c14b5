//! AES-256-GCM (NIST SP 800-38D) with a 96-bit IV and a 128-bit tag.
//!
//! Two shapes:
//! - [`aes_gcm_encrypt`] / [`aes_gcm_decrypt`]: the IV is drawn from the OS CSPRNG
//!   and carried in front of the ciphertext: `iv(12) ‖ ct ‖ tag(16)`.
//! - [`aes_gcm_encrypt_with_iv`] / [`aes_gcm_decrypt_with_iv`]: the caller supplies
//!   a 12-byte IV (known-answer tests, deterministic chunk IVs of a file format)
//!   and the output is `ct ‖ tag`. The caller is responsible for never reusing
//!   an IV under the same key.
//!
//! Only 96-bit IVs are accepted: other IV sizes (allowed by GCM through GHASH
//! of the IV) are rejected with [`CryptoError::InvalidLength`].
//!
//! Decryption verifies the tag (constant time) *before* decrypting; on any
//! mismatch the single opaque [`CryptoError::AuthenticationFailed`] is returned
//! and no plaintext is released.

use aes_gcm::Aes256Gcm;
use aes_gcm::aead::{AeadInOut, KeyInit, Nonce, Tag};

use crate::error::{CryptoError, Result, exact};

/// AES-256 key length in bytes.
pub const KEY_LEN: usize = 32;
/// GCM IV (nonce) length in bytes (96 bits).
pub const IV_LEN: usize = 12;
/// GCM authentication tag length in bytes (128 bits).
pub const TAG_LEN: usize = 16;

const KEY_EXPECTED: &str = "32 bytes";
const IV_EXPECTED: &str = "12 bytes";

/// Builds the cipher after checking the key length.
fn cipher(key: &[u8]) -> Result<Aes256Gcm> {
    let key = exact::<KEY_LEN>("key", KEY_EXPECTED, key)?;
    Aes256Gcm::new_from_slice(key).map_err(|_| CryptoError::length("key", KEY_EXPECTED, KEY_LEN))
}

/// Checks the IV length and views it as a GCM nonce.
fn nonce(iv: &[u8]) -> Result<&Nonce<Aes256Gcm>> {
    <&Nonce<Aes256Gcm>>::try_from(iv).map_err(|_| CryptoError::length("iv", IV_EXPECTED, iv.len()))
}

/// Encrypts `plaintext` into `out` (which already holds `prefix` bytes that are
/// left untouched) and appends the tag.
fn seal_into(
    cipher: &Aes256Gcm,
    nonce: &Nonce<Aes256Gcm>,
    plaintext: &[u8],
    aad: &[u8],
    mut out: Vec<u8>,
) -> Result<Vec<u8>> {
    let prefix = out.len();
    out.extend_from_slice(plaintext);
    let body = out.get_mut(prefix..).ok_or(CryptoError::length(
        "plaintext",
        "a valid buffer",
        plaintext.len(),
    ))?;
    let tag = cipher
        .encrypt_inout_detached(nonce, aad, body.into())
        // The only failure is the GCM length limit (P_MAX = 2^36 - 32 bytes, A_MAX = 2^61 - 1).
        .map_err(|_| {
            CryptoError::length("plaintext", "at most 2^36 - 32 bytes", plaintext.len())
        })?;
    out.extend_from_slice(tag.as_slice());
    Ok(out)
}

/// Verifies and decrypts `ct_and_tag` (already length-checked to hold a tag).
fn open(
    cipher: &Aes256Gcm,
    nonce: &Nonce<Aes256Gcm>,
    ct_and_tag: &[u8],
    aad: &[u8],
) -> Result<Vec<u8>> {
    let ct_len = ct_and_tag
        .len()
        .checked_sub(TAG_LEN)
        .ok_or(CryptoError::length(
            "ciphertext",
            "at least 16 bytes",
            ct_and_tag.len(),
        ))?;
    let (ct, tag) = ct_and_tag
        .split_at_checked(ct_len)
        .ok_or(CryptoError::length(
            "ciphertext",
            "at least 16 bytes",
            ct_and_tag.len(),
        ))?;
    let tag = <&Tag<Aes256Gcm>>::try_from(tag).map_err(|_| CryptoError::AuthenticationFailed)?;
    let mut buf = ct.to_vec();
    // aes-gcm checks the tag before applying the keystream: on failure `buf`
    // still holds the ciphertext, which is simply dropped.
    cipher
        .decrypt_inout_detached(nonce, aad, buf.as_mut_slice().into(), tag)
        .map_err(|_| CryptoError::AuthenticationFailed)?;
    Ok(buf)
}

/// AES-256-GCM encryption with a fresh random 96-bit IV.
///
/// Returns `iv(12) ‖ ciphertext ‖ tag(16)`, i.e. `plaintext.len() + 28` bytes.
///
/// # Errors
/// - [`CryptoError::InvalidLength`] (`what: "key"`) if `key` is not 32 bytes;
///   (`what: "plaintext"`) beyond the GCM limit of 2^36 − 32 bytes.
/// - [`CryptoError::RandomnessUnavailable`] if the IV cannot be drawn.
#[must_use = "the sealed message is the only output"]
pub fn aes_gcm_encrypt(key: &[u8], plaintext: &[u8], aad: &[u8]) -> Result<Vec<u8>> {
    let cipher = cipher(key)?;
    let mut iv = [0u8; IV_LEN];
    crate::rng::fill(&mut iv)?;
    let mut out = Vec::with_capacity(
        IV_LEN
            .saturating_add(plaintext.len())
            .saturating_add(TAG_LEN),
    );
    out.extend_from_slice(&iv);
    seal_into(&cipher, nonce(&iv)?, plaintext, aad, out)
}

/// AES-256-GCM decryption of `iv(12) ‖ ciphertext ‖ tag(16)` as produced by
/// [`aes_gcm_encrypt`].
///
/// # Errors
/// - [`CryptoError::InvalidLength`] (`what: "key"`) if `key` is not 32 bytes,
///   (`what: "sealed"`) if `sealed` is shorter than 28 bytes.
/// - [`CryptoError::AuthenticationFailed`] if the tag does not verify (wrong key,
///   IV, AAD or any modified byte); no plaintext is returned.
#[must_use = "the plaintext is the only output"]
pub fn aes_gcm_decrypt(key: &[u8], sealed: &[u8], aad: &[u8]) -> Result<Vec<u8>> {
    let cipher = cipher(key)?;
    if sealed.len() < IV_LEN + TAG_LEN {
        return Err(CryptoError::length(
            "sealed",
            "at least 28 bytes",
            sealed.len(),
        ));
    }
    let (iv, ct_and_tag) = sealed.split_at_checked(IV_LEN).ok_or(CryptoError::length(
        "sealed",
        "at least 28 bytes",
        sealed.len(),
    ))?;
    open(&cipher, nonce(iv)?, ct_and_tag, aad)
}

/// AES-256-GCM encryption under a caller-supplied 96-bit IV.
///
/// Returns `ciphertext ‖ tag(16)`. The IV must never repeat under one key.
///
/// # Errors
/// [`CryptoError::InvalidLength`] if `key` is not 32 bytes, if `iv` is not
/// exactly 12 bytes (other GCM IV sizes are deliberately unsupported), or if
/// `plaintext` exceeds the GCM limit of 2^36 − 32 bytes.
#[must_use = "the ciphertext is the only output"]
pub fn aes_gcm_encrypt_with_iv(
    key: &[u8],
    iv: &[u8],
    plaintext: &[u8],
    aad: &[u8],
) -> Result<Vec<u8>> {
    let cipher = cipher(key)?;
    let nonce = nonce(iv)?;
    let out = Vec::with_capacity(plaintext.len().saturating_add(TAG_LEN));
    seal_into(&cipher, nonce, plaintext, aad, out)
}

/// AES-256-GCM decryption of `ciphertext ‖ tag(16)` under a caller-supplied 96-bit IV.
///
/// # Errors
/// - [`CryptoError::InvalidLength`] if `key` is not 32 bytes, `iv` is not 12
///   bytes, or `ct_and_tag` is shorter than 16 bytes.
/// - [`CryptoError::AuthenticationFailed`] if the tag does not verify; no
///   plaintext is returned.
#[must_use = "the plaintext is the only output"]
pub fn aes_gcm_decrypt_with_iv(
    key: &[u8],
    iv: &[u8],
    ct_and_tag: &[u8],
    aad: &[u8],
) -> Result<Vec<u8>> {
    let cipher = cipher(key)?;
    let nonce = nonce(iv)?;
    if ct_and_tag.len() < TAG_LEN {
        return Err(CryptoError::length(
            "ciphertext",
            "at least 16 bytes",
            ct_and_tag.len(),
        ));
    }
    open(&cipher, nonce, ct_and_tag, aad)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: [u8; 32] = [7u8; 32];

    #[test]
    fn round_trip_random_iv() {
        for len in [0usize, 1, 15, 16, 17, 64, 1000] {
            let pt: Vec<u8> = (0..len).map(|i| i as u8).collect();
            let sealed = aes_gcm_encrypt(&KEY, &pt, b"aad").unwrap();
            assert_eq!(sealed.len(), len + IV_LEN + TAG_LEN);
            assert_eq!(aes_gcm_decrypt(&KEY, &sealed, b"aad").unwrap(), pt);
        }
        // Fresh IVs: two encryptions differ.
        let a = aes_gcm_encrypt(&KEY, b"x", b"").unwrap();
        let b = aes_gcm_encrypt(&KEY, b"x", b"").unwrap();
        assert_ne!(a[..IV_LEN], b[..IV_LEN]);
    }

    #[test]
    fn round_trip_with_iv() {
        let iv = [1u8; 12];
        let ct = aes_gcm_encrypt_with_iv(&KEY, &iv, b"hello", b"ad").unwrap();
        assert_eq!(ct.len(), 5 + TAG_LEN);
        assert_eq!(
            aes_gcm_decrypt_with_iv(&KEY, &iv, &ct, b"ad").unwrap(),
            b"hello"
        );
    }

    #[test]
    fn every_bit_flip_fails() {
        let sealed = aes_gcm_encrypt(&KEY, b"attack at dawn", b"hdr").unwrap();
        for i in 0..sealed.len() * 8 {
            let mut bad = sealed.clone();
            bad[i / 8] ^= 1 << (i % 8);
            assert_eq!(
                aes_gcm_decrypt(&KEY, &bad, b"hdr"),
                Err(CryptoError::AuthenticationFailed)
            );
        }
        assert_eq!(
            aes_gcm_decrypt(&KEY, &sealed, b"hdR"),
            Err(CryptoError::AuthenticationFailed)
        );
        let mut key2 = KEY;
        key2[31] ^= 0x80;
        assert_eq!(
            aes_gcm_decrypt(&key2, &sealed, b"hdr"),
            Err(CryptoError::AuthenticationFailed)
        );
    }

    #[test]
    fn wrong_lengths() {
        let e = aes_gcm_encrypt(&[0u8; 16], b"", b"").unwrap_err();
        assert!(matches!(
            e,
            CryptoError::InvalidLength {
                what: "key",
                got: 16,
                ..
            }
        ));
        let e = aes_gcm_decrypt(&[0u8; 33], &[0u8; 40], b"").unwrap_err();
        assert!(matches!(e, CryptoError::InvalidLength { what: "key", .. }));
        let e = aes_gcm_decrypt(&KEY, &[0u8; 27], b"").unwrap_err();
        assert!(matches!(
            e,
            CryptoError::InvalidLength {
                what: "sealed",
                got: 27,
                ..
            }
        ));
        for iv_len in [0usize, 8, 11, 13, 16] {
            let iv = vec![0u8; iv_len];
            let e = aes_gcm_encrypt_with_iv(&KEY, &iv, b"", b"").unwrap_err();
            assert!(matches!(e, CryptoError::InvalidLength { what: "iv", .. }));
            let e = aes_gcm_decrypt_with_iv(&KEY, &iv, &[0u8; 16], b"").unwrap_err();
            assert!(matches!(e, CryptoError::InvalidLength { what: "iv", .. }));
        }
        let e = aes_gcm_decrypt_with_iv(&KEY, &[0u8; 12], &[0u8; 15], b"").unwrap_err();
        assert!(matches!(
            e,
            CryptoError::InvalidLength {
                what: "ciphertext",
                got: 15,
                ..
            }
        ));
        // Minimum sizes are accepted syntactically (and fail authentication).
        assert_eq!(
            aes_gcm_decrypt(&KEY, &[0u8; 28], b""),
            Err(CryptoError::AuthenticationFailed)
        );
    }
}
