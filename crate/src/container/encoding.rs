//! Byte-level helpers: a bounds-checked big-endian cursor and an unpadded,
//! canonical base64url codec (RFC 4648 §5) for `vcs_` shares.

use super::error::{ContainerError, Result};

/// A forward-only, bounds-checked reader over a byte slice. Every read that
/// would run past the end is [`ContainerError::Truncated`] (with offsets
/// relative to `base`, so errors name absolute positions).
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    base: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) const fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            pos: 0,
            base: 0,
        }
    }

    pub(crate) const fn with_base(bytes: &'a [u8], base: usize) -> Self {
        Self {
            bytes,
            pos: 0,
            base,
        }
    }

    pub(crate) const fn position(&self) -> usize {
        self.pos
    }

    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }

    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .ok_or_else(|| ContainerError::truncated(usize::MAX, self.bytes.len()))?;
        let out = self.bytes.get(self.pos..end).ok_or_else(|| {
            ContainerError::truncated(
                self.base.saturating_add(end),
                self.base.saturating_add(self.bytes.len()),
            )
        })?;
        self.pos = end;
        Ok(out)
    }

    pub(crate) fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let s = self.take(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(s);
        Ok(out)
    }

    pub(crate) fn u8(&mut self) -> Result<u8> {
        let [b] = self.array::<1>()?;
        Ok(b)
    }

    pub(crate) fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_be_bytes(self.array::<2>()?))
    }

    pub(crate) fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_be_bytes(self.array::<4>()?))
    }

    pub(crate) fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_be_bytes(self.array::<8>()?))
    }
}

const B64URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// base64url without padding.
pub(crate) fn b64url_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3).saturating_mul(4));
    let sym = |v: u32| -> char {
        // v is masked to 6 bits; the table has 64 entries.
        B64URL
            .get((v & 63) as usize)
            .map_or('A', |&c| char::from(c))
    };
    for group in bytes.chunks(3) {
        let (b0, b1, b2) = match *group {
            [a] => (a, 0, 0),
            [a, b] => (a, b, 0),
            [a, b, c] => (a, b, c),
            _ => continue,
        };
        let n = (u32::from(b0) << 16) | (u32::from(b1) << 8) | u32::from(b2);
        out.push(sym(n >> 18));
        out.push(sym(n >> 12));
        if group.len() > 1 {
            out.push(sym(n >> 6));
        }
        if group.len() > 2 {
            out.push(sym(n));
        }
    }
    out
}

fn b64url_value(c: u8) -> Option<u32> {
    match c {
        b'A'..=b'Z' => Some(u32::from(c - b'A')),
        b'a'..=b'z' => Some(u32::from(c - b'a') + 26),
        b'0'..=b'9' => Some(u32::from(c - b'0') + 52),
        b'-' => Some(62),
        b'_' => Some(63),
        _ => None,
    }
}

/// Decodes canonical unpadded base64url: only the 64 URL-safe symbols, no
/// `=`, no whitespace, a length that is not 1 mod 4, and zero unused low
/// bits in the last symbol (so every byte string has exactly one encoding).
pub(crate) fn b64url_decode(text: &[u8]) -> Option<Vec<u8>> {
    if text.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 2);
    for group in text.chunks(4) {
        let mut n = 0u32;
        for &c in group {
            n = (n << 6) | b64url_value(c)?;
        }
        match group.len() {
            4 => {
                out.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8]);
            }
            3 => {
                // 18 bits: 16 data bits, 2 unused.
                if n & 0b11 != 0 {
                    return None;
                }
                out.extend_from_slice(&[(n >> 10) as u8, (n >> 2) as u8]);
            }
            2 => {
                // 12 bits: 8 data bits, 4 unused.
                if n & 0b1111 != 0 {
                    return None;
                }
                out.push((n >> 4) as u8);
            }
            _ => return None,
        }
    }
    Some(out)
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
            assert_eq!(b64url_decode(enc.as_bytes()).unwrap(), data);
        }
        assert_eq!(b64url_encode(b"\xfb\xff"), "-_8");
        assert!(b64url_decode(b"-_9").is_none()); // non-zero unused bits
        assert!(b64url_decode(b"A").is_none());
        assert!(b64url_decode(b"AA==").is_none());
        assert!(b64url_decode(b"AA+/").is_none());
    }
}
