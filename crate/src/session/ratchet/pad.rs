//! Padding inside the AEAD, per protocol version (docs/SESSIONS.md §5.2).
//!
//! ```text
//! P = u32(len) ‖ plaintext ‖ 0x00 …     L = len + 4
//! version 1: |P| = crate::messaging::padding::padded_len (64, powers of two to 64 KiB, then Padmé)
//! version 2: |P| = 256 if L ≤ 256, else Padmé(L):
//!            E = ⌊log2 L⌋, S = ⌊log2 E⌋ + 1, z = E − S, |P| = (L + 2^z − 1) & ¬(2^z − 1)
//! ```
//! Unpadding is strict (the size must be exactly the padded size of the
//! length field, the fill zero); any failure is one error.

use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use crate::error::CryptoError;
use crate::messaging::padding;
use crate::session::{Result, SessionError, VERSION_1};

/// Smallest padded plaintext of version 2.
pub const V2_MIN_PADDED: usize = 256;
const LEN_PREFIX: usize = 4;

/// Padmé (Nikitin et al., PETS 2019) of `l > 0`.
fn padme(l: u64) -> u64 {
    let e = u64::from(63u32.saturating_sub(l.max(1).leading_zeros()));
    let s = u64::from(63u32.saturating_sub(e.max(1).leading_zeros())).saturating_add(1);
    let z = e.saturating_sub(s);
    let mask = (1u64 << z.min(63)).saturating_sub(1);
    l.saturating_add(mask) & !mask
}

fn too_long(len: usize) -> SessionError {
    SessionError::Crypto(CryptoError::length(
        "plaintext",
        "at most 2^32 - 5 bytes",
        len,
    ))
}

/// The padded size of `len` plaintext bytes under `version`.
///
/// # Errors
/// `INVALID_LENGTH` above 2^32 − 5 bytes.
pub fn padded_len(version: u8, len: usize) -> Result<usize> {
    if version == VERSION_1 {
        return padding::padded_len(len).map_err(|_| too_long(len));
    }
    if len > padding::MAX_CONTENT_LEN {
        return Err(too_long(len));
    }
    let l = len.saturating_add(LEN_PREFIX);
    if l <= V2_MIN_PADDED {
        return Ok(V2_MIN_PADDED);
    }
    usize::try_from(padme(u64::try_from(l).map_err(|_| too_long(len))?)).map_err(|_| too_long(len))
}

/// `u32(len) ‖ plaintext ‖ zeros` of [`padded_len`] bytes.
///
/// # Errors
/// `INVALID_LENGTH` above 2^32 − 5 bytes.
pub fn pad(version: u8, plaintext: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    let total = padded_len(version, plaintext.len())?;
    let len = u32::try_from(plaintext.len()).map_err(|_| too_long(plaintext.len()))?;
    let mut out = Zeroizing::new(Vec::with_capacity(total));
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(plaintext);
    out.resize(total, 0);
    Ok(out)
}

/// Removes the padding of `version`.
///
/// # Errors
/// [`SessionError::AuthenticationFailed`] for any malformed padding (the
/// caller's one opaque error after a valid tag).
pub fn unpad(version: u8, padded: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    if version == VERSION_1 {
        return padding::unpad_message(padded).map_err(|_| SessionError::AuthenticationFailed);
    }
    let (head, rest) = padded
        .split_first_chunk::<LEN_PREFIX>()
        .ok_or(SessionError::AuthenticationFailed)?;
    let len = usize::try_from(u32::from_be_bytes(*head))
        .map_err(|_| SessionError::AuthenticationFailed)?;
    let content = rest.get(..len).ok_or(SessionError::AuthenticationFailed)?;
    let fill = rest.get(len..).ok_or(SessionError::AuthenticationFailed)?;
    if padded_len(version, len).map_err(|_| SessionError::AuthenticationFailed)? != padded.len() {
        return Err(SessionError::AuthenticationFailed);
    }
    let zero = fill.iter().fold(0u8, |acc, b| acc | b).ct_eq(&0u8);
    if !bool::from(zero) {
        return Err(SessionError::AuthenticationFailed);
    }
    Ok(Zeroizing::new(content.to_vec()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::session::VERSION_2;

    #[test]
    fn version_2_sizes() {
        assert_eq!(padded_len(VERSION_2, 0).unwrap(), 256);
        assert_eq!(padded_len(VERSION_2, 252).unwrap(), 256);
        assert_eq!(padded_len(VERSION_2, 253).unwrap(), 272);
        assert_eq!(padded_len(VERSION_2, 1024).unwrap(), 1088);
        assert_eq!(padded_len(VERSION_2, 1020).unwrap(), 1024);
        assert_eq!(padded_len(VERSION_2, 65533).unwrap(), 67584);
        assert_eq!(padded_len(VERSION_1, 1024).unwrap(), 2048);
        for n in [0usize, 1, 252, 253, 300, 1024, 5000, 70000] {
            let p = pad(VERSION_2, &vec![0xA5; n]).unwrap();
            assert_eq!(p.len(), padded_len(VERSION_2, n).unwrap());
            assert_eq!(unpad(VERSION_2, &p).unwrap().len(), n);
            let mut bad = p.to_vec();
            if let Some(last) = bad.last_mut() {
                *last ^= 1;
            }
            if padded_len(VERSION_2, n).unwrap() > n + 4 {
                assert!(unpad(VERSION_2, &bad).is_err());
            }
            let mut short = p.to_vec();
            short.pop();
            assert!(unpad(VERSION_2, &short).is_err());
        }
    }
}
