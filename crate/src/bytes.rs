//! Byte-level helpers shared by the container and messaging formats: one
//! total (never panicking) big-endian reader and one canonical, unpadded
//! base64url codec (RFC 4648 §5, constant-time `base64ct`).
//!
//! Both are domain-free: reads return `None` and decodes `None`; each caller
//! maps that to its own error type (`container::encoding::Cursor` adds
//! absolute offsets to [`crate::container::ContainerError::Truncated`],
//! `messaging::codec` reports `MessagingError::Malformed`).

use base64ct::{Base64UrlUnpadded, Encoding};

/// A forward-only, bounds-checked reader over a byte slice. Every read that
/// would run past the end returns `None` and leaves the position unchanged.
pub(crate) struct ByteReader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> ByteReader<'a> {
    pub(crate) const fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, pos: 0 }
    }

    /// Bytes read so far.
    pub(crate) const fn position(&self) -> usize {
        self.pos
    }

    /// Length of the whole input.
    pub(crate) const fn len(&self) -> usize {
        self.bytes.len()
    }

    /// The unread bytes.
    pub(crate) fn rest(&self) -> &'a [u8] {
        self.bytes.get(self.pos..).unwrap_or_default()
    }

    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let out = self.bytes.get(self.pos..end)?;
        self.pos = end;
        Some(out)
    }

    pub(crate) fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, _) = self.rest().split_first_chunk::<N>()?;
        let out = *head;
        self.pos = self.pos.checked_add(N)?;
        Some(out)
    }

    pub(crate) fn u8(&mut self) -> Option<u8> {
        self.array::<1>().map(|[b]| b)
    }

    pub(crate) fn u16(&mut self) -> Option<u16> {
        self.array::<2>().map(u16::from_be_bytes)
    }

    pub(crate) fn u32(&mut self) -> Option<u32> {
        self.array::<4>().map(u32::from_be_bytes)
    }

    pub(crate) fn u64(&mut self) -> Option<u64> {
        self.array::<8>().map(u64::from_be_bytes)
    }
}

/// Unpadded base64url of `bytes`.
pub(crate) fn b64url_encode(bytes: &[u8]) -> String {
    Base64UrlUnpadded::encode_string(bytes)
}

/// Unpadded base64url of `bytes` into `out` (no allocation; for secrets).
/// `None` if `out` is too short.
pub(crate) fn b64url_encode_into<'o>(bytes: &[u8], out: &'o mut [u8]) -> Option<&'o str> {
    Base64UrlUnpadded::encode(bytes, out).ok()
}

/// Decodes canonical unpadded base64url: only the 64 URL-safe symbols, no
/// `=`, no whitespace, a length that is not 1 mod 4, and zero unused low
/// bits in the last symbol (so every byte string has exactly one encoding).
pub(crate) fn b64url_decode(text: &str) -> Option<Vec<u8>> {
    Base64UrlUnpadded::decode_vec(text).ok()
}

/// As [`b64url_decode`], into `out` (no allocation; for secrets and
/// fixed-size values). Returns the decoded prefix of `out`; input that
/// decodes to more than `out.len()` bytes is `None`.
pub(crate) fn b64url_decode_into<'o>(text: &str, out: &'o mut [u8]) -> Option<&'o [u8]> {
    Base64UrlUnpadded::decode(text, out).ok()
}

/// Decodes canonical unpadded base64url of exactly `N` bytes. The encoded
/// length is checked first, so oversized input costs no work.
pub(crate) fn b64url_decode_array<const N: usize>(text: &str) -> Option<[u8; N]> {
    if text.len() != Base64UrlUnpadded::encoded_len(&[0u8; N]) {
        return None;
    }
    let mut out = [0u8; N];
    let decoded = b64url_decode_into(text, &mut out)?.len();
    (decoded == N).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b64url_round_trip_and_canonical() {
        for len in 0..70 {
            let data: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            let enc = b64url_encode(&data);
            assert!(!enc.contains('='));
            assert_eq!(b64url_decode(&enc).unwrap(), data);
            let mut text = [0u8; 96];
            assert_eq!(b64url_encode_into(&data, &mut text).unwrap(), enc);
            let mut buf = [0u8; 70];
            assert_eq!(b64url_decode_into(&enc, &mut buf).unwrap(), &data[..]);
        }
        assert_eq!(b64url_encode(b"\xfb\xff"), "-_8");
        assert!(b64url_encode_into(b"\xfb\xff", &mut [0u8; 2]).is_none());
        assert!(b64url_decode("-_9").is_none()); // non-zero unused bits
        assert!(b64url_decode("A").is_none());
        assert!(b64url_decode("AA==").is_none());
        assert!(b64url_decode("AA+/").is_none());
        assert!(b64url_decode("AA A").is_none());
        assert!(b64url_decode_into("AAAA", &mut [0u8; 2]).is_none());
        assert_eq!(b64url_decode_array::<2>("-_8"), Some(*b"\xfb\xff"));
        assert_eq!(b64url_decode_array::<2>("-_9"), None);
        assert_eq!(b64url_decode_array::<3>("-_8"), None);
        assert_eq!(b64url_decode_array::<1>("-_8"), None);
    }

    #[test]
    fn reader_is_total() {
        let mut r = ByteReader::new(&[1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(r.u8(), Some(1));
        assert_eq!(r.u16(), Some(0x0203));
        assert_eq!(r.u64(), None);
        assert_eq!(r.position(), 3);
        assert_eq!(r.take(usize::MAX), None);
        assert_eq!(r.rest(), &[4, 5, 6, 7]);
        assert_eq!(r.u32(), Some(0x0405_0607));
        assert_eq!(r.array::<1>(), None);
        assert_eq!(r.take(0), Some(&[][..]));
        assert_eq!(r.len(), 7);
    }
}
