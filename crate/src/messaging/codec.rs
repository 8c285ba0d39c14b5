//! Shared encoding helpers: big-endian length prefixes, a total (never
//! panicking) reader, base64url (unpadded, canonical) and HKDF to 32 bytes.
//! The reader and the base64url codec are the crate's ([`crate::bytes`]);
//! this module maps their failures to [`MessagingError::Malformed`].

use zeroize::Zeroizing;

use super::error::{MessagingError, Result};
use crate::error::CryptoError;
use crate::{bytes, kdf};

/// Largest integer JSON forms accept (`Number.MAX_SAFE_INTEGER`), so that
/// JavaScript reads every value exactly.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Appends `u16(len) ‖ data`.
pub(crate) fn put_u16_prefixed(out: &mut Vec<u8>, what: &'static str, data: &[u8]) -> Result<()> {
    let len = u16::try_from(data.len())
        .map_err(|_| CryptoError::length(what, "at most 65535 bytes", data.len()))?;
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(data);
    Ok(())
}

/// Appends `u32(len) ‖ data`.
pub(crate) fn put_u32_prefixed(out: &mut Vec<u8>, what: &'static str, data: &[u8]) -> Result<()> {
    let len = u32::try_from(data.len())
        .map_err(|_| CryptoError::length(what, "at most 2^32 - 1 bytes", data.len()))?;
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(data);
    Ok(())
}

/// Total reader over a byte slice: every read is bounds-checked and returns
/// `None` past the end (the crate's one byte cursor).
pub(crate) use crate::bytes::ByteReader as Reader;

/// Unpadded base64url (RFC 4648 §5) of `bytes`.
pub(crate) fn b64_encode(bytes: &[u8]) -> String {
    bytes::b64url_encode(bytes)
}

/// Decodes canonical unpadded base64url; anything else is `Malformed(what)`.
pub(crate) fn b64_decode(what: &'static str, s: &str) -> Result<Vec<u8>> {
    bytes::b64url_decode(s).ok_or(MessagingError::Malformed(what))
}

/// Decodes canonical unpadded base64url of exactly `N` bytes.
pub(crate) fn b64_decode_array<const N: usize>(what: &'static str, s: &str) -> Result<[u8; N]> {
    bytes::b64url_decode_array(s).ok_or(MessagingError::Malformed(what))
}

/// HKDF-SHA-256 to exactly 32 bytes.
pub(crate) fn hkdf32(ikm: &[u8], salt: &[u8], info: &[u8]) -> Result<Zeroizing<[u8; 32]>> {
    let okm = kdf::hkdf_sha256(ikm, salt, info, 32)?;
    let mut out = Zeroizing::new([0u8; 32]);
    let src =
        okm.first_chunk::<32>()
            .ok_or(MessagingError::Crypto(CryptoError::InvalidParameter(
                "hkdf output",
            )))?;
    out.copy_from_slice(src);
    Ok(out)
}
