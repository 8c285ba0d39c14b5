//! Header edits that never touch chunks (rewrap) and full re-encryption —
//! the tools of strict revocation.
//!
//! Because `header_hash` covers only the immutable header fields, replacing,
//! adding or removing wrap entries changes no chunk: the DEK, its commitment,
//! file id, Merkle root, leaf table and envelopes stay as they are. A rewrap does not help against a
//! removed member who cached the DEK; [`reencrypt`] (new DEK, new file id)
//! does.

use super::error::{ContainerError, Result};
use super::header::{Header, MetadataKind};
use super::policy::VerificationPolicy;
use super::signature::{SigningKeys, sign_header};
use super::wrap::{self, GroupUnlock, ThresholdShare, Unlock, WrapEntry, WrapSpec};
use super::{EncryptOptions, Encrypted, decrypt, encrypt, verify_container};

/// Builds a rewrapped header: unlocks the DEK with `unlock`, drops the wraps
/// for which `remove` returns true, appends the wraps of `add`, and re-signs
/// with `signer`. Returns `(new_header, old_header_len, new_threshold_shares)`;
/// the new container is `new_header ‖ old[old_header_len..]`.
///
/// The caller must have authenticated the container (use [`rewrap`] for
/// whole buffers, which does).
///
/// # Errors
/// Header / unlock errors; [`ContainerError::Sealed`]; [`ContainerError::InvalidOption`]
/// if no wrap would remain, more than 255 would, or a signed container is
/// rewrapped without a signer; existing invalid signature → `INVALID_SIGNATURE`;
/// [`ContainerError::KdfBudgetExceeded`] if an added password wrap is over the
/// default reader budget or the new table would hold more password wraps than
/// a default reader tries.
pub fn rewrap_header(
    header_prefix: &[u8],
    unlock: &Unlock<'_>,
    remove: &dyn Fn(&WrapEntry) -> bool,
    add: &[WrapSpec],
    signer: Option<&SigningKeys>,
) -> Result<(Vec<u8>, usize, Vec<Vec<ThresholdShare>>)> {
    let (old, old_len) = Header::parse(header_prefix)?;
    if old.is_sealed() {
        return Err(ContainerError::Sealed);
    }
    super::signature::verify_header(&old)?;
    if old.signed.is_some() && signer.is_none() {
        return Err(ContainerError::InvalidOption(
            "a signed container must be re-signed: pass a signer",
        ));
    }
    // A writer: the added wraps must fit the default reader budget, and so
    // must the number of password wraps the new table holds (kept + added),
    // or an honest reader would stop before trying the last ones.
    let budget = wrap::KdfBudget::default();
    let kept_passwords = old
        .wraps
        .iter()
        .filter(|w| w.kind() == wrap::WrapKind::Password && !remove(w))
        .count();
    wrap::check_writer_budget(add, kept_passwords, &budget)?;
    let ctx = super::chunk::FileContext::of(&old);
    let dek = wrap::unlock_dek(&old.wraps, &ctx, &old.dek_commitment, unlock, &budget)?;
    let mut wraps: Vec<WrapEntry> = old.wraps.iter().filter(|w| !remove(w)).cloned().collect();
    let mut shares = Vec::new();
    for spec in add {
        let (entry, s) = wrap::create_wrap(spec, &dek, &old.file_id)?;
        if matches!(spec, WrapSpec::Threshold { .. }) {
            shares.push(s);
        }
        wraps.push(entry);
    }
    if wraps.is_empty() {
        return Err(ContainerError::InvalidOption(
            "no wrap would remain (use seal to shred)",
        ));
    }
    if wraps.len() > super::header::MAX_WRAPS {
        return Err(ContainerError::InvalidOption("at most 255 wraps"));
    }
    let mut header = Header {
        wraps,
        signed: None,
        ..old
    };
    if let Some(keys) = signer {
        sign_header(&mut header, keys, MetadataKind::Plain)?;
    }
    Ok((header.to_bytes()?, old_len, shares))
}

/// Whole-buffer rewrap: authenticates the whole container first (default
/// policy, through `unlock`), then [`rewrap_header`].
///
/// # Errors
/// As [`verify_container`] and [`rewrap_header`].
pub fn rewrap(
    container: &[u8],
    unlock: &Unlock<'_>,
    remove: &dyn Fn(&WrapEntry) -> bool,
    add: &[WrapSpec],
    signer: Option<&SigningKeys>,
) -> Result<Encrypted> {
    verify_container(container, &VerificationPolicy::default(), Some(unlock))?;
    let (mut out, old_len, shares) = rewrap_header(container, unlock, remove, add, signer)?;
    out.extend_from_slice(container.get(old_len..).unwrap_or_default());
    Ok(Encrypted {
        container: out,
        shares,
    })
}

/// Strict revocation by rewrap: replaces every group wrap of `old.group_id`
/// by one under `new_group_key` at `new_key_version`; chunks untouched.
///
/// # Errors
/// As [`rewrap`].
pub fn rewrap_group(
    container: &[u8],
    old: &GroupUnlock<'_>,
    new_key_version: u32,
    new_group_key: &[u8; 32],
    signer: Option<&SigningKeys>,
) -> Result<Vec<u8>> {
    let group_id = old.group_id;
    let unlock = Unlock::Group(GroupUnlock {
        group_id: old.group_id,
        key_version: old.key_version,
        group_key: old.group_key,
        manifest: old.manifest,
    });
    let remove =
        move |w: &WrapEntry| matches!(w, WrapEntry::Group { group_id: g, .. } if *g == group_id);
    let add = [WrapSpec::group(group_id, new_key_version, new_group_key)];
    Ok(rewrap(container, &unlock, &remove, &add, signer)?.container)
}

/// Strict revocation by re-encryption: decrypts under `policy` and encrypts
/// again with a fresh DEK and file id (`options.plaintext_size` is set from
/// the plaintext).
///
/// # Errors
/// As [`decrypt`] and [`encrypt`]; [`ContainerError::AuthenticationFailed`]
/// if the container is not intact.
pub fn reencrypt(
    container: &[u8],
    unlock: &Unlock<'_>,
    policy: &VerificationPolicy,
    options: EncryptOptions,
) -> Result<Encrypted> {
    let d = decrypt(container, unlock, policy)?;
    let plaintext = d.plaintext.ok_or(ContainerError::AuthenticationFailed)?;
    encrypt(&plaintext, options)
}
