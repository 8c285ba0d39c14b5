//! Verification policy ("Shield") and the typed verification report.
//!
//! [`verify_container`](super::verify_container) /
//! [`decrypt`](super::decrypt) / [`decrypt_with_sink`](super::decrypt_with_sink)
//! run the same pipeline:
//!
//! 1. parse the header (always fatal on error);
//! 2. verify any signature (an invalid signature is always fatal; a missing one
//!    is fatal under [`SignatureRequirement::Required`] or a pin; a signer
//!    other than [`VerificationPolicy::expected_signer`] is fatal, and a pin
//!    with an ML-DSA-65 key requires a hybrid signature by that key);
//! 3. a sealed container: decrypting fails with `SEALED`, verifying reports it;
//! 4. group unlock with a manifest (required when the policy pins an epoch or
//!    a founder): verify the chain, the pin, the anchor, and the group key
//!    against the manifest's commitment;
//! 5. check the container length and the leaf table against the Merkle root;
//! 6. unlock the DEK (always fatal on error; checks the DEK commitment);
//! 7. every envelope: its leaf recomputed from its bytes against the table,
//!    then (unlocked) stored index, derived IV and AEAD tag;
//! 8. release plaintext according to [`ReleaseMode`] and [`TamperAction`].
//!
//! Size: the policy, its checks and the report they fill are one decision table (FORMAT.md §policy); split apart, each check would sit away from its report field.

use zeroize::Zeroizing;

use super::chunk::{self, Dek};
use super::error::{ContainerError, Result};
use super::header::{MetadataKind, SealMode};
use super::manifest::GroupManifest;
use super::signature::SignatureStatus;
use super::stream::ContainerReader;
use super::wrap::{KdfBudget, Unlock};

/// When plaintext is released.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ReleaseMode {
    /// Authenticate everything (every chunk, the Merkle root, the length)
    /// before releasing any plaintext.
    #[default]
    Verified,
    /// Check the leaf table against the (signed) Merkle root first, then
    /// release each chunk as soon as its recomputed leaf matches its table
    /// entry and its AEAD tag verifies; fail at the first bad chunk. Output is
    /// complete only when the whole run succeeds (truncation at a chunk
    /// boundary is known only at the end).
    Streaming,
}

/// Whether a signature is required.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SignatureRequirement {
    /// Unsigned (v4) containers are rejected with `SIGNATURE_MISSING`.
    Required,
    /// Unsigned containers are accepted; a present signature must still verify.
    #[default]
    Optional,
}

/// What to do when chunks are bad.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TamperAction {
    /// Fail with the first error.
    #[default]
    Abort,
    /// Check everything, list bad chunks, release no plaintext if anything is bad
    /// (in streaming mode: nothing after the first bad chunk).
    Report,
    /// Check everything, list bad chunks, release the good chunks. When the
    /// leaf table does not match the root, nothing is released under a
    /// signature policy (`Required` or a pin); without one, chunks whose tag
    /// verifies are released and the report's `merkle_valid = false` says they
    /// are not bound to the header.
    Recover,
}

/// A pinned signer: the Ed25519 key and, when the signer has one, the
/// ML-DSA-65 key. Whether a hybrid signature is required comes from the pin,
/// never from the signed object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpectedSigner {
    /// Ed25519 public key.
    pub ed25519: [u8; 32],
    /// ML-DSA-65 public key (1952 bytes): with it, a header without an
    /// ML-DSA-65 signature fails with `HYBRID_REQUIRED` and another ML-DSA-65
    /// key with `SIGNER_MISMATCH`.
    pub mldsa65: Option<Vec<u8>>,
}

impl ExpectedSigner {
    /// A pin of an Ed25519 key alone.
    #[must_use]
    pub const fn ed25519(key: [u8; 32]) -> Self {
        Self {
            ed25519: key,
            mldsa65: None,
        }
    }
}

/// Verification policy. `Default` = verified release, signature optional, abort.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct VerificationPolicy {
    /// Release mode.
    pub release_mode: ReleaseMode,
    /// Signature requirement.
    pub signature: SignatureRequirement,
    /// Minimum group-manifest epoch (rollback protection; group unlock only).
    pub rollback_pin: Option<u32>,
    /// Founder Ed25519 key the manifest's genesis must carry (group unlock only).
    pub founder_anchor: Option<[u8; 32]>,
    /// Signer the container must be signed by (implies a signature).
    pub expected_signer: Option<ExpectedSigner>,
    /// Tamper handling.
    pub on_tamper: TamperAction,
    /// KDF budget of password unlocks.
    pub kdf_budget: KdfBudget,
}

impl VerificationPolicy {
    /// The strictest policy: verified release, signature required, abort.
    #[must_use]
    pub fn strict() -> Self {
        Self {
            signature: SignatureRequirement::Required,
            ..Self::default()
        }
    }
}

/// The sealed marker of a sealed container.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SealInfo {
    /// Seal or purge.
    pub mode: SealMode,
    /// Reason.
    pub reason: String,
    /// Timestamp recorded by the sealer.
    pub timestamp: u64,
    /// Sealer's Ed25519 key.
    pub sealer: [u8; 32],
}

/// Typed verification report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerificationReport {
    /// Format version.
    pub version: u8,
    /// Signature outcome.
    pub signature: SignatureStatus,
    /// Signer's Ed25519 key (v5/v6).
    pub signer: Option<[u8; 32]>,
    /// Signer's ML-DSA-65 key (v6).
    pub signer_mldsa65: Option<Vec<u8>>,
    /// Signer's key-log id (v5/v6).
    pub key_log_id: Option<[u8; 32]>,
    /// Signed timestamp (v5/v6).
    pub timestamp: Option<u64>,
    /// Sealed marker, if sealed.
    pub sealed: Option<SealInfo>,
    /// Chunk count from the header.
    pub chunk_count: u64,
    /// Whether chunk AEAD tags were checked (the DEK was available).
    pub chunks_authenticated: bool,
    /// Indices of present envelopes that are bad (misplaced, spliced, failing
    /// authentication).
    pub bad_chunks: Vec<u64>,
    /// First chunk whose envelope is cut off by the end of the input; every
    /// later chunk is missing too.
    pub missing_from: Option<u64>,
    /// Whether the container length matched the header.
    pub length_valid: bool,
    /// Whether the leaf table matched the header's Merkle root (so every
    /// chunk checked against it is bound to the header and its signature).
    pub merkle_valid: bool,
    /// Head epoch of the verified group manifest, if one was checked.
    pub manifest_epoch: Option<u32>,
}

impl VerificationReport {
    /// No tampering found and not sealed.
    #[must_use]
    pub fn is_intact(&self) -> bool {
        self.sealed.is_none()
            && self.length_valid
            && self.merkle_valid
            && self.bad_chunks.is_empty()
            && self.missing_from.is_none()
    }
}

/// Result of [`decrypt`](super::decrypt).
pub struct Decrypted {
    /// The whole plaintext, present only when the container is intact.
    pub plaintext: Option<Zeroizing<Vec<u8>>>,
    /// Good chunks `(index, plaintext)` when tampering was found under
    /// [`TamperAction::Recover`].
    pub recovered: Vec<(u64, Zeroizing<Vec<u8>>)>,
    /// The report.
    pub report: VerificationReport,
}

fn under_signature_policy(policy: &VerificationPolicy) -> bool {
    policy.signature == SignatureRequirement::Required || policy.expected_signer.is_some()
}

/// Step 2: signature status under `policy`.
///
/// # Errors
/// [`ContainerError::SignatureInvalid`], [`ContainerError::SignatureMissing`],
/// [`ContainerError::SignerMismatch`], [`ContainerError::HybridRequired`].
pub fn check_signature(
    reader: &ContainerReader,
    policy: &VerificationPolicy,
) -> Result<SignatureStatus> {
    let status = reader.verify_signature()?;
    if status == SignatureStatus::Unsigned && under_signature_policy(policy) {
        return Err(ContainerError::SignatureMissing);
    }
    if let (Some(want), Some(signed)) = (&policy.expected_signer, &reader.header().signed) {
        if signed.metadata.ed25519_public != want.ed25519 {
            return Err(ContainerError::SignerMismatch);
        }
        if let Some(pq) = &want.mldsa65 {
            match &signed.metadata.mldsa_public {
                None => return Err(ContainerError::HybridRequired),
                Some(have) if have != pq => return Err(ContainerError::SignerMismatch),
                Some(_) => {}
            }
        }
    }
    Ok(status)
}

fn check_manifest(unlock: Option<&Unlock<'_>>, policy: &VerificationPolicy) -> Result<Option<u32>> {
    let Some(Unlock::Group(g)) = unlock else {
        return Ok(None);
    };
    let needs = policy.rollback_pin.is_some() || policy.founder_anchor.is_some();
    let Some(bytes) = g.manifest else {
        return if needs {
            Err(ContainerError::ManifestRequired)
        } else {
            Ok(None)
        };
    };
    let state =
        GroupManifest::parse(bytes)?.verify(policy.rollback_pin, policy.founder_anchor.as_ref())?;
    if state.group_id != g.group_id {
        return Err(ContainerError::InvalidManifest(
            "manifest belongs to another group",
        ));
    }
    state.check_group_key(g.key_version, g.group_key)?;
    Ok(Some(state.head_epoch))
}

/// Receiver of released plaintext chunks `(index, plaintext)`.
pub type ChunkSink<'a> = dyn FnMut(u64, &[u8]) + 'a;

fn truncated_at(needed: u64, got: usize) -> ContainerError {
    ContainerError::Truncated {
        needed,
        got: got as u64,
    }
}

/// The shared pipeline. `sink` = `None` verifies only (no plaintext).
#[allow(clippy::too_many_lines)]
pub(crate) fn process(
    bytes: &[u8],
    policy: &VerificationPolicy,
    unlock: Option<&Unlock<'_>>,
    mut sink: Option<&mut ChunkSink<'_>>,
) -> Result<VerificationReport> {
    let mut reader = ContainerReader::new(bytes)?;
    let signature = check_signature(&reader, policy)?;
    let header = reader.header();
    let meta = header.signed.as_ref().map(|s| &s.metadata);
    let mut report = VerificationReport {
        version: header.version(),
        signature,
        signer: meta.map(|m| m.ed25519_public),
        signer_mldsa65: meta.and_then(|m| m.mldsa_public.clone()),
        key_log_id: meta.map(|m| m.key_log_id),
        timestamp: meta.map(|m| m.timestamp),
        sealed: None,
        chunk_count: reader.chunk_count(),
        chunks_authenticated: false,
        bad_chunks: Vec::new(),
        missing_from: None,
        length_valid: false,
        merkle_valid: false,
        manifest_epoch: None,
    };
    let abort = policy.on_tamper == TamperAction::Abort;
    let expected_len = reader.container_len();
    let actual_len = bytes.len() as u64;
    report.length_valid = expected_len == actual_len;
    let length_error = || {
        if actual_len < expected_len {
            ContainerError::Truncated {
                needed: expected_len,
                got: actual_len,
            }
        } else {
            ContainerError::TrailingBytes
        }
    };
    if let Some(m) = meta
        && let MetadataKind::Sealed { mode, reason } = &m.kind
    {
        if sink.is_some() {
            return Err(ContainerError::Sealed);
        }
        report.sealed = Some(SealInfo {
            mode: *mode,
            reason: reason.clone(),
            timestamp: m.timestamp,
            sealer: m.ed25519_public,
        });
        if abort && !report.length_valid {
            return Err(length_error());
        }
        if *mode == SealMode::Purge {
            // Nothing but the header is left: there is no body to bind.
            return Ok(report);
        }
    } else {
        report.manifest_epoch = check_manifest(unlock, policy)?;
    }
    if abort && !report.length_valid {
        return Err(length_error());
    }

    // Step 5: the leaf table against the (signed) root, before any key work.
    let header_len = reader.header_len();
    let table_len = usize::try_from(reader.leaf_table_len()).unwrap_or(usize::MAX);
    let table_end = header_len.saturating_add(table_len);
    let table_valid = match bytes.get(header_len..table_end) {
        Some(table) => match reader.set_leaf_table(table) {
            Ok(()) => true,
            Err(ContainerError::AuthenticationFailed) if !abort => false,
            Err(e) => return Err(e),
        },
        None if abort => return Err(truncated_at(table_end as u64, bytes.len())),
        None => false,
    };
    report.merkle_valid = table_valid;
    if abort && !table_valid {
        return Err(ContainerError::AuthenticationFailed);
    }

    // Step 6: the DEK (every unlock path checks the DEK commitment).
    if report.sealed.is_none() {
        if let Some(u) = unlock {
            reader.unlock_with_budget(u, &policy.kdf_budget)?;
            report.chunks_authenticated = true;
        } else if sink.is_some() {
            return Err(ContainerError::InvalidState(
                "decrypting needs an unlock method",
            ));
        }
    }
    // A table that does not match the (signed) root releases nothing under a
    // signature policy: the chunks could be anyone's.
    let may_release = table_valid || !under_signature_policy(policy);
    let streaming = policy.release_mode == ReleaseMode::Streaming;

    let ctx = *reader.context();
    let dek: Option<&Dek> = if report.chunks_authenticated {
        Some(reader.dek()?)
    } else {
        None
    };
    let mut held: Vec<(u64, Zeroizing<Vec<u8>>)> = Vec::new();
    let body = bytes.get(header_len..).unwrap_or_default();
    for index in 0..ctx.chunk_count() {
        let start = usize::try_from(ctx.envelope_offset(index)).unwrap_or(usize::MAX);
        let len = ctx.envelope_len(index)?;
        let Some(envelope) = start.checked_add(len).and_then(|end| body.get(start..end)) else {
            let needed = (header_len as u64)
                .saturating_add(start as u64)
                .saturating_add(len as u64);
            if abort {
                return Err(truncated_at(needed, bytes.len()));
            }
            // Offsets only grow: every later envelope is missing as well.
            report.missing_from = Some(index);
            break;
        };
        // The leaf is always recomputed from these exact bytes; with a table
        // that matched the root it must equal the entry, otherwise (recover
        // and report modes only) the recomputed leaf stands in and the chunk
        // is checked by its tag alone.
        let outcome = chunk::envelope_leaf(&ctx, index, envelope).and_then(|leaf| {
            let want = if table_valid {
                *reader.table_leaf(index)?
            } else {
                leaf
            };
            if !bool::from(subtle::ConstantTimeEq::ct_eq(&leaf[..], &want[..])) {
                return Err(ContainerError::AuthenticationFailed);
            }
            match &dek {
                Some(k) => chunk::open_chunk(k, &ctx, index, envelope, &want).map(Some),
                None => Ok(None),
            }
        });
        match outcome {
            Ok(pt) => {
                let Some(pt) = pt else { continue };
                if !may_release {
                    continue;
                }
                // Report mode releases nothing once anything is known bad: a bad
                // chunk so far, or a table that does not match the root.
                let release_now = streaming
                    && (policy.on_tamper != TamperAction::Report
                        || (report.bad_chunks.is_empty() && table_valid));
                match sink.as_mut() {
                    Some(s) if release_now => s(index, &pt),
                    Some(_) if !streaming => held.push((index, pt)),
                    _ => {}
                }
            }
            Err(e) => {
                if abort {
                    return Err(e);
                }
                report.bad_chunks.push(index);
            }
        }
    }
    if let Some(s) = sink {
        let release = match policy.on_tamper {
            TamperAction::Abort | TamperAction::Recover => true,
            TamperAction::Report => report.is_intact(),
        };
        if release {
            for (index, pt) in &held {
                s(*index, pt);
            }
        }
    }
    Ok(report)
}
