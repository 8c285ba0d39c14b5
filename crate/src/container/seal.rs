//! Sealing and crypto-shredding.
//!
//! `seal` removes every wrap entry and records a signed sealed marker
//! (metadata kind 1: mode, reason, timestamp, sealer key); the ciphertext is
//! kept but no DEK can be recovered from the container any more. `purge` does
//! the same and also discards the ciphertext: the container becomes its
//! header alone. A sealed container still parses (for inspection and for
//! verifying the marker's signature); every decrypt path fails with `SEALED`.
//!
//! Crypto-shredding only holds if no copy of the DEK, of an unsealed copy of
//! the container, or of a wrap's secret survives elsewhere.

use super::error::{ContainerError, Result};
use super::header::{Header, MAX_SEAL_REASON_LEN, MetadataKind, SealMode};
use super::signature::{SigningKeys, sign_header};
use super::stream::ContainerReader;

/// Builds the sealed header for the container whose header starts
/// `header_prefix`. Returns `(new_header, old_header_len)`: the sealed
/// container is `new_header ‖ old[old_header_len..]` for [`SealMode::Seal`]
/// and `new_header` alone for [`SealMode::Purge`].
///
/// # Errors
/// Header errors, [`ContainerError::Sealed`] if already sealed,
/// [`ContainerError::InvalidOption`] for a reason over 1024 bytes.
pub fn seal_header(
    header_prefix: &[u8],
    mode: SealMode,
    reason: &str,
    signer: &SigningKeys,
) -> Result<(Vec<u8>, usize)> {
    if reason.len() > MAX_SEAL_REASON_LEN {
        return Err(ContainerError::InvalidOption(
            "seal reason longer than 1024 bytes",
        ));
    }
    let (old, old_len) = Header::parse(header_prefix)?;
    if old.is_sealed() {
        return Err(ContainerError::Sealed);
    }
    let mut header = Header {
        wraps: Vec::new(),
        signed: None,
        ..old
    };
    sign_header(
        &mut header,
        signer,
        MetadataKind::Sealed {
            mode,
            reason: reason.to_owned(),
        },
    )?;
    Ok((header.to_bytes()?, old_len))
}

/// Seals (or purges) a whole container. The input must be structurally
/// complete (exact length) and verify key-lessly first — any present
/// signature, the leaf table against the root and every chunk's leaf — so a
/// sealer never signs a marker over a tampered body.
///
/// # Errors
/// As [`seal_header`]; [`ContainerError::Truncated`] / [`ContainerError::TrailingBytes`];
/// [`ContainerError::SignatureInvalid`] / [`ContainerError::AuthenticationFailed`] for a
/// container that does not verify.
pub fn seal(
    container: &[u8],
    mode: SealMode,
    reason: &str,
    signer: &SigningKeys,
) -> Result<Vec<u8>> {
    let reader = ContainerReader::new(container)?;
    let expected = reader.container_len();
    let got = container.len() as u64;
    if got < expected {
        return Err(ContainerError::Truncated {
            needed: expected,
            got,
        });
    }
    if got > expected {
        return Err(ContainerError::TrailingBytes);
    }
    super::verify_container(container, &super::VerificationPolicy::default(), None)?;
    let (mut out, old_len) = seal_header(container, mode, reason, signer)?;
    if mode == SealMode::Seal {
        out.extend_from_slice(container.get(old_len..).unwrap_or_default());
    }
    Ok(out)
}

/// [`seal`] in [`SealMode::Purge`].
///
/// # Errors
/// As [`seal`].
pub fn purge(container: &[u8], reason: &str, signer: &SigningKeys) -> Result<Vec<u8>> {
    seal(container, SealMode::Purge, reason, signer)
}
