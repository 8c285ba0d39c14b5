//! Supported-version lists (docs/SESSIONS.md §3, §4): `u8 count ‖ count
//! version bytes`, 1 to [`MAX_VERSIONS`] entries, strictly increasing, none 0.

use super::error::{Result, SessionError};
use super::{VERSION_1, VERSION_2};
use crate::bytes::ByteReader;

/// Most entries a supported-version list may have.
pub const MAX_VERSIONS: usize = 16;

/// The versions this implementation can run (the default list a device
/// advertises).
pub const SUPPORTED_VERSIONS: &[u8] = &[VERSION_1, VERSION_2];

/// Checks that `list` is a canonical version list.
///
/// # Errors
/// `MALFORMED_INPUT`.
pub fn check_versions(list: &[u8]) -> Result<()> {
    if list.is_empty() || list.len() > MAX_VERSIONS {
        return Err(SessionError::Malformed("version list: 1 to 16 entries"));
    }
    if list.first() == Some(&0) {
        return Err(SessionError::Malformed("version list: version 0"));
    }
    if list.windows(2).any(|w| matches!(w, [a, b] if a >= b)) {
        return Err(SessionError::Malformed(
            "version list: not strictly increasing",
        ));
    }
    Ok(())
}

/// The highest version in both lists.
#[must_use]
pub fn highest_common(a: &[u8], b: &[u8]) -> Option<u8> {
    a.iter().rev().copied().find(|v| b.contains(v))
}

/// Appends `u8 count ‖ versions` (the list must be canonical).
pub(crate) fn write_versions(out: &mut Vec<u8>, list: &[u8]) -> Result<()> {
    check_versions(list)?;
    out.push(u8::try_from(list.len()).map_err(|_| SessionError::Malformed("version list"))?);
    out.extend_from_slice(list);
    Ok(())
}

/// Reads a canonical version list.
pub(crate) fn read_versions(r: &mut ByteReader<'_>) -> Result<Vec<u8>> {
    let n = r
        .u8()
        .ok_or(SessionError::Malformed("version list truncated"))?;
    let n = usize::from(n);
    if n == 0 || n > MAX_VERSIONS {
        return Err(SessionError::Malformed("version list: 1 to 16 entries"));
    }
    let list = r
        .take(n)
        .ok_or(SessionError::Malformed("version list truncated"))?;
    check_versions(list)?;
    Ok(list.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_lists() {
        assert!(check_versions(&[1]).is_ok());
        assert!(check_versions(&[1, 2, 9]).is_ok());
        assert!(check_versions(&[]).is_err());
        assert!(check_versions(&[0, 1]).is_err());
        assert!(check_versions(&[2, 1]).is_err());
        assert!(check_versions(&[1, 1]).is_err());
        assert!(check_versions(&[1; 17]).is_err());
        assert_eq!(highest_common(&[1, 2, 3], &[1, 3]), Some(3));
        assert_eq!(highest_common(&[1, 2], &[3]), None);
    }
}
