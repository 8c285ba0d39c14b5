//! Verification policy ("Shield") and the typed verification report.
//!
//! [`verify_container`](super::verify_container) /
//! [`decrypt`](super::decrypt) / [`decrypt_with_sink`](super::decrypt_with_sink)
//! run the same pipeline:
//!
//! 1. parse the header (always fatal on error);
//! 2. verify any signature (an invalid signature is always fatal; a missing one
//!    is fatal under [`SignatureRequirement::Required`]; a signer other than
//!    [`VerificationPolicy::expected_signer`] is fatal);
//! 3. a sealed container: decrypting fails with `SEALED`, verifying reports it;
//! 4. group unlock with a manifest (required when the policy pins an epoch or
//!    a founder): verify the chain, the pin, the anchor, and the group key
//!    against the manifest's commitment;
//! 5. unlock the DEK (always fatal on error);
//! 6. check the container length, every envelope (index, derived IV, AEAD
//!    tag when unlocked) and the Merkle root;
//! 7. release plaintext according to [`ReleaseMode`] and [`TamperAction`].

use zeroize::Zeroizing;

use super::chunk::{self, Dek};
use super::error::{ContainerError, Result};
use super::header::{MetadataKind, SealMode};
use super::manifest::GroupManifest;
use super::merkle::MerkleAccumulator;
use super::signature::SignatureStatus;
use super::stream::ContainerReader;
use super::wrap::Unlock;

/// When plaintext is released.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ReleaseMode {
    /// Authenticate everything (every chunk, the Merkle root, the length)
    /// before releasing any plaintext.
    #[default]
    Verified,
    /// Release each chunk as soon as its AEAD tag verifies; fail at the first
    /// bad chunk. The Merkle root is checked after the last chunk.
    Streaming,
}

/// Whether a signature is required.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SignatureRequirement {
    /// Unsigned (v1) containers are rejected with `SIGNATURE_MISSING`.
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
    /// Check everything, list bad chunks, release the good chunks.
    Recover,
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
    /// Ed25519 key the container must be signed with (implies a signature).
    pub expected_signer: Option<[u8; 32]>,
    /// Tamper handling.
    pub on_tamper: TamperAction,
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
    /// Signer's Ed25519 key (v2/v3).
    pub signer: Option<[u8; 32]>,
    /// Signer's key-log id (v2/v3).
    pub key_log_id: Option<[u8; 32]>,
    /// Signed timestamp (v2/v3).
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
    /// Whether the Merkle root matched.
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

fn check_signature(
    reader: &ContainerReader,
    policy: &VerificationPolicy,
) -> Result<SignatureStatus> {
    let status = reader.verify_signature()?;
    if status == SignatureStatus::Unsigned
        && (policy.signature == SignatureRequirement::Required || policy.expected_signer.is_some())
    {
        return Err(ContainerError::SignatureMissing);
    }
    if let (Some(want), Some(signed)) = (&policy.expected_signer, &reader.header().signed)
        && &signed.metadata.ed25519_public != want
    {
        return Err(ContainerError::SignerMismatch);
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

/// The shared pipeline. `sink` = `None` verifies only (no plaintext).
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
        report.length_valid = bytes.len() as u64 == reader.container_len();
        return Ok(report);
    }
    report.manifest_epoch = check_manifest(unlock, policy)?;
    if let Some(u) = unlock {
        reader.unlock(u)?;
        report.chunks_authenticated = true;
    } else if sink.is_some() {
        return Err(ContainerError::InvalidState(
            "decrypting needs an unlock method",
        ));
    }

    let abort = policy.on_tamper == TamperAction::Abort;
    let streaming = policy.release_mode == ReleaseMode::Streaming;
    let expected_len = reader.container_len();
    let actual_len = bytes.len() as u64;
    report.length_valid = expected_len == actual_len;
    if abort && !report.length_valid {
        return Err(if actual_len < expected_len {
            ContainerError::Truncated {
                needed: expected_len,
                got: actual_len,
            }
        } else {
            ContainerError::TrailingBytes
        });
    }

    let ctx = *reader.context();
    let dek: Option<&Dek> = if report.chunks_authenticated {
        Some(reader.dek()?)
    } else {
        None
    };
    let mut merkle = MerkleAccumulator::new(ctx.hash_alg);
    let mut held: Vec<(u64, Zeroizing<Vec<u8>>)> = Vec::new();
    let body = bytes.get(reader.header_len()..).unwrap_or_default();
    for index in 0..ctx.chunk_count() {
        let start = usize::try_from(ctx.envelope_offset(index)).unwrap_or(usize::MAX);
        let len = ctx.envelope_len(index)?;
        let Some(envelope) = start.checked_add(len).and_then(|end| body.get(start..end)) else {
            let err = ContainerError::truncated(
                reader
                    .header_len()
                    .saturating_add(start)
                    .saturating_add(len),
                bytes.len(),
            );
            if abort {
                return Err(err);
            }
            // Offsets only grow: every later envelope is missing as well.
            report.missing_from = Some(index);
            break;
        };
        let outcome = chunk::envelope_leaf(&ctx, index, envelope).and_then(|leaf| {
            merkle.push(leaf);
            match &dek {
                Some(k) => chunk::open_chunk(k, &ctx, index, envelope).map(Some),
                None => Ok(None),
            }
        });
        match outcome {
            Ok(pt) => {
                let Some(pt) = pt else { continue };
                let release_now = streaming
                    && (policy.on_tamper != TamperAction::Report || report.bad_chunks.is_empty());
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
    // A chunk whose envelope could not be read pushed no leaf: the root cannot match.
    let all_leaves = merkle.len() == ctx.chunk_count();
    report.merkle_valid = all_leaves
        && bool::from(subtle::ConstantTimeEq::ct_eq(
            &merkle.root()[..],
            &reader.header().merkle_root[..],
        ));
    if abort && !report.merkle_valid {
        return Err(ContainerError::AuthenticationFailed);
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
