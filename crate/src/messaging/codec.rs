//! Shared encoding helpers: big-endian length prefixes, a total (never
//! panicking) reader, base64url (unpadded, canonical) and HKDF to 32 bytes.

use base64ct::{Base64UrlUnpadded, Encoding};
use zeroize::Zeroizing;

use super::error::{MessagingError, Result};
use crate::error::CryptoError;
use crate::kdf;

/// Largest integer JSON forms accept (`Number.MAX_SAFE_INTEGER`), so that
/// JavaScript reads every value exactly.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Appends `u16(len) ‖ data`.
pub(crate) fn put_u16_prefixed(
    out: &mut Vec<u8>,
    what: &'static str,
    data: &[u8],
) -> Result<()> {
    let len = u16::try_from(data.len())
        .map_err(|_| CryptoError::length(what, "at most 65535 bytes", data.len()))?;
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(data);
    Ok(())
}

/// Appends `u32(len) ‖ data`.
pub(crate) fn put_u32_prefixed(
    out: &mut Vec<u8>,
    what: &'static str,
    data: &[u8],
) -> Result<()> {
    let len = u32::try_from(data.len())
        .map_err(|_| CryptoError::length(what, "at most 2^32 - 1 bytes", data.len()))?;
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(data);
    Ok(())
}

/// Total reader over a byte slice: every read is bounds-checked and returns
/// `None` past the end.
pub(crate) struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) const fn new(buf: &'a [u8]) -> Self {
        Self { rest: buf }
    }

    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, tail) = self.rest.split_at_checked(n)?;
        self.rest = tail;
        Some(head)
    }

    pub(crate) fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, tail) = self.rest.split_first_chunk::<N>()?;
        self.rest = tail;
        Some(*head)
    }

    pub(crate) fn u16(&mut self) -> Option<u16> {
        self.array::<2>().map(u16::from_be_bytes)
    }

    pub(crate) fn u32(&mut self) -> Option<u32> {
        self.array::<4>().map(u32::from_be_bytes)
    }

    pub(crate) const fn rest(&self) -> &'a [u8] {
        self.rest
    }
}

/// Unpadded base64url (RFC 4648 §5) of `bytes`.
pub(crate) fn b64_encode(bytes: &[u8]) -> String {
    Base64UrlUnpadded::encode_string(bytes)
}

/// Decodes canonical unpadded base64url; anything else is `Malformed(what)`.
pub(crate) fn b64_decode(what: &'static str, s: &str) -> Result<Vec<u8>> {
    Base64UrlUnpadded::decode_vec(s).map_err(|_| MessagingError::Malformed(what))
}

/// Decodes canonical unpadded base64url of exactly `N` bytes.
pub(crate) fn b64_decode_array<const N: usize>(what: &'static str, s: &str) -> Result<[u8; N]> {
    // Check the encoded length first: no allocation for oversized input.
    if s.len() != Base64UrlUnpadded::encoded_len(&[0u8; N]) {
        return Err(MessagingError::Malformed(what));
    }
    let mut out = [0u8; N];
    let decoded = Base64UrlUnpadded::decode(s, &mut out).map_err(|_| MessagingError::Malformed(what))?;
    if decoded.len() != N {
        return Err(MessagingError::Malformed(what));
    }
    Ok(out)
}

/// HKDF-SHA-256 to exactly 32 bytes.
pub(crate) fn hkdf32(ikm: &[u8], salt: &[u8], info: &[u8]) -> Result<Zeroizing<[u8; 32]>> {
    let okm = kdf::hkdf_sha256(ikm, salt, info, 32)?;
    let mut out = Zeroizing::new([0u8; 32]);
    let src = okm
        .first_chunk::<32>()
        .ok_or(MessagingError::Crypto(CryptoError::InvalidParameter("hkdf output")))?;
    out.copy_from_slice(src);
    Ok(out)
}
