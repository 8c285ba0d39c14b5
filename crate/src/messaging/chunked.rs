//! Chunked AES-256-GCM: a long payload as independently authenticated chunks
//! whose order, number and completeness are all authenticated.
//!
//! ```text
//! out   = u32(chunk_size) ‖ u32(chunk_count) ‖ chunk_0 ‖ … ‖ chunk_{n-1}
//! chunk = iv_i(12) ‖ AES-256-GCM(key, iv_i, pt_i, aad ‖ u32(i) ‖ u32(n)) ‖ tag_i(16)
//! ```
//!
//! Every chunk but the last holds exactly `chunk_size` plaintext bytes, the
//! last holds 1..=`chunk_size` (an empty payload is one empty chunk). Because
//! each chunk's AAD names its index and the total count, reordering,
//! duplicating, dropping or truncating chunks all fail: either the lengths no
//! longer match the header (`MALFORMED_INPUT`) or a tag fails
//! (`AUTHENTICATION_FAILED`). Decryption returns nothing unless every chunk
//! verifies.

use zeroize::Zeroizing;

use super::codec::Reader;
use super::error::{MessagingError, Result};
use crate::aead::{self, IV_LEN, TAG_LEN};
use crate::error::CryptoError;
use crate::rng;

/// Header length: `u32 chunk_size ‖ u32 chunk_count`.
pub const HEADER_LEN: usize = 8;
/// Per-chunk overhead: IV and tag.
pub const CHUNK_OVERHEAD: usize = IV_LEN + TAG_LEN;

const MALFORMED: MessagingError =
    MessagingError::Malformed("chunked ciphertext: lengths do not match the header");

/// Number of chunks for `plaintext_len` bytes in chunks of `chunk_size`.
///
/// # Errors
/// `INVALID_PARAMETER` if `chunk_size` is 0 or the count exceeds `u32::MAX`.
pub fn chunk_count(plaintext_len: usize, chunk_size: u32) -> Result<u32> {
    if chunk_size == 0 {
        return Err(CryptoError::InvalidParameter("chunkSize must be at least 1").into());
    }
    let size = u64::from(chunk_size);
    let n = (plaintext_len as u64).div_ceil(size).max(1);
    u32::try_from(n)
        .map_err(|_| CryptoError::InvalidParameter("chunked: more than 2^32 - 1 chunks").into())
}

/// Length of the chunked ciphertext of `plaintext_len` bytes.
///
/// # Errors
/// As [`chunk_count`], or `INVALID_LENGTH` if the result does not fit in memory.
pub fn ciphertext_len(plaintext_len: usize, chunk_size: u32) -> Result<usize> {
    let n = chunk_count(plaintext_len, chunk_size)?;
    usize::try_from(n)
        .ok()
        .and_then(|n| n.checked_mul(CHUNK_OVERHEAD))
        .and_then(|o| o.checked_add(HEADER_LEN))
        .and_then(|o| o.checked_add(plaintext_len))
        .ok_or_else(|| {
            CryptoError::length(
                "plaintext",
                "a chunked size that fits in memory",
                plaintext_len,
            )
            .into()
        })
}

/// Encrypts in chunks of `chunk_size` bytes, each under a fresh random IV.
///
/// # Errors
/// `INVALID_LENGTH` (key), `INVALID_PARAMETER` (chunk size), `RANDOMNESS_UNAVAILABLE`.
#[must_use = "the ciphertext is the only output"]
pub fn encrypt_aes_gcm_chunked(
    key: &[u8],
    plaintext: &[u8],
    aad: &[u8],
    chunk_size: u32,
) -> Result<Vec<u8>> {
    encrypt_inner(key, plaintext, aad, chunk_size, |_, iv| Ok(rng::fill(iv)?))
}

/// [`encrypt_aes_gcm_chunked`] with caller-chosen IVs, `12 · chunk_count`
/// bytes (known-answer tests only: an IV must never repeat under one key).
///
/// # Errors
/// As [`encrypt_aes_gcm_chunked`], plus `INVALID_LENGTH` (`ivs`).
#[must_use = "the ciphertext is the only output"]
pub fn encrypt_aes_gcm_chunked_with_ivs(
    key: &[u8],
    plaintext: &[u8],
    aad: &[u8],
    chunk_size: u32,
    ivs: &[u8],
) -> Result<Vec<u8>> {
    let n = chunk_count(plaintext.len(), chunk_size)?;
    if Some(ivs.len()) != usize::try_from(n).ok().and_then(|n| n.checked_mul(IV_LEN)) {
        return Err(CryptoError::length("ivs", "12 bytes per chunk", ivs.len()).into());
    }
    encrypt_inner(key, plaintext, aad, chunk_size, |i, iv| {
        let start = i.checked_mul(IV_LEN).ok_or(MALFORMED)?;
        let src = ivs
            .get(start..)
            .and_then(|t| t.get(..IV_LEN))
            .ok_or(MALFORMED)?;
        iv.copy_from_slice(src);
        Ok(())
    })
}

/// Per-chunk AAD: `aad ‖ u32(index) ‖ u32(count) ‖ u32(chunk_size)`. The chunk
/// size is bound too, so the header has exactly one valid value (without it a
/// single-chunk message would decrypt under any `chunk_size ≥ |pt|`).
fn chunk_aad(aad: &[u8], index: u32, count: u32, chunk_size: u32) -> Vec<u8> {
    let mut a = Vec::with_capacity(aad.len() + 12);
    a.extend_from_slice(aad);
    a.extend_from_slice(&index.to_be_bytes());
    a.extend_from_slice(&count.to_be_bytes());
    a.extend_from_slice(&chunk_size.to_be_bytes());
    a
}

fn encrypt_inner(
    key: &[u8],
    plaintext: &[u8],
    aad: &[u8],
    chunk_size: u32,
    mut next_iv: impl FnMut(usize, &mut [u8; IV_LEN]) -> Result<()>,
) -> Result<Vec<u8>> {
    if key.len() != aead::KEY_LEN {
        return Err(CryptoError::length("key", "32 bytes", key.len()).into());
    }
    let count = chunk_count(plaintext.len(), chunk_size)?;
    let total = ciphertext_len(plaintext.len(), chunk_size)?;
    let size =
        usize::try_from(chunk_size).map_err(|_| CryptoError::InvalidParameter("chunkSize"))?;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&chunk_size.to_be_bytes());
    out.extend_from_slice(&count.to_be_bytes());
    // `chunks` yields nothing for an empty payload: that is the one empty chunk.
    let empty: [&[u8]; 1] = [&[]];
    let chunks: Box<dyn Iterator<Item = &[u8]>> = if plaintext.is_empty() {
        Box::new(empty.into_iter())
    } else {
        Box::new(plaintext.chunks(size))
    };
    for (i, (chunk, index)) in chunks.zip(0u32..).enumerate() {
        let mut iv = [0u8; IV_LEN];
        next_iv(i, &mut iv)?;
        let ct = aead::aes_gcm_encrypt_with_iv(
            key,
            &iv,
            chunk,
            &chunk_aad(aad, index, count, chunk_size),
        )?;
        out.extend_from_slice(&iv);
        out.extend_from_slice(&ct);
    }
    Ok(out)
}

/// Decrypts a chunked ciphertext; returns nothing unless every chunk verifies.
///
/// # Errors
/// - `INVALID_LENGTH` (key; ciphertext shorter than the header).
/// - `MALFORMED_INPUT` if the header is invalid (zero chunk size or count) or
///   the length does not match it (chunks dropped, added or truncated).
/// - `AUTHENTICATION_FAILED` if any chunk fails (modified, reordered, duplicated,
///   header count changed, wrong key or AAD).
#[must_use = "the plaintext is the only output"]
pub fn decrypt_aes_gcm_chunked(
    key: &[u8],
    ciphertext: &[u8],
    aad: &[u8],
) -> Result<Zeroizing<Vec<u8>>> {
    if key.len() != aead::KEY_LEN {
        return Err(CryptoError::length("key", "32 bytes", key.len()).into());
    }
    let mut r = Reader::new(ciphertext);
    let (Some(chunk_size), Some(count)) = (r.u32(), r.u32()) else {
        return Err(CryptoError::length("ciphertext", "at least 8 bytes", ciphertext.len()).into());
    };
    if chunk_size == 0 || count == 0 {
        return Err(MALFORMED);
    }
    // Bounds before allocation: the plaintext length implied by the header
    // must be consistent with the bytes actually present.
    let body = r.rest();
    let overhead = (count as usize)
        .checked_mul(CHUNK_OVERHEAD)
        .ok_or(MALFORMED)?;
    let pt_len = body.len().checked_sub(overhead).ok_or(MALFORMED)?;
    let size = chunk_size as usize;
    let full = (count as usize - 1).checked_mul(size).ok_or(MALFORMED)?;
    let last = pt_len.checked_sub(full).ok_or(MALFORMED)?;
    if last > size || (last == 0 && count > 1) {
        return Err(MALFORMED);
    }
    let mut out = Zeroizing::new(Vec::with_capacity(pt_len));
    let mut rest = body;
    for index in 0..count {
        let n = if index + 1 == count { last } else { size };
        let (iv, tail) = rest.split_at_checked(IV_LEN).ok_or(MALFORMED)?;
        let (ct, tail) = n
            .checked_add(TAG_LEN)
            .and_then(|l| tail.split_at_checked(l))
            .ok_or(MALFORMED)?;
        rest = tail;
        let pt = Zeroizing::new(aead::aes_gcm_decrypt_with_iv(
            key,
            iv,
            ct,
            &chunk_aad(aad, index, count, chunk_size),
        )?);
        out.extend_from_slice(&pt);
    }
    if !rest.is_empty() {
        return Err(MALFORMED);
    }
    Ok(out)
}
