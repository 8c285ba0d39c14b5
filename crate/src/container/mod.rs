//! The VOLLVALT chunked file container (byte-exact specification:
//! `docs/FORMAT.md`).
//!
//! A container is `header ‖ envelope_0 ‖ … ‖ envelope_{n−1}`. Each chunk of
//! `chunk_size` plaintext bytes (the last one shorter) is encrypted with
//! AES-256-GCM under a key and IV derived from the per-container DEK
//! ([`chunk`]); the DEK is wrapped in one or more wrap entries ([`wrap`]);
//! every chunk's leaf hashes its whole ciphertext, the leaves are stored in a
//! leaf table after the header and their Merkle root ([`merkle`]) is committed
//! in the header, which also commits to the DEK ([`chunk::dek_commitment`])
//! and may be signed ([`signature`]), sealed ([`seal`]) or rewrapped
//! ([`revoke`]). Groups keep a signed membership chain ([`manifest`]).
//! Reading is governed by a [`VerificationPolicy`] ([`policy`]).
//!
//! Entry points:
//! - streaming: [`ContainerEncryptor`] (`new` → `push_chunk`… → `finish`),
//!   [`ExternalEncryptor`] (chunks sealed elsewhere with the exported DEK:
//!   `add_wrap`… → `take_dek` → `push_leaves`… → `finish`),
//!   [`ContainerReader`] (`parse_header` → `set_leaf_table` → `unlock_*` →
//!   `decrypt_chunk(index, envelope)` or `begin_sequential` / `next_chunk` /
//!   `end_sequential`);
//! - whole buffers: [`encrypt`], [`decrypt`], [`decrypt_with_sink`], [`verify_container`].

pub mod chunk;
mod encoding;
pub mod error;
pub mod external;
#[doc(hidden)]
pub mod fuzzing;
pub mod header;
pub mod info;
pub mod manifest;
pub mod merkle;
pub mod policy;
pub mod revoke;
pub mod seal;
mod share;
pub mod signature;
pub mod stream;
pub mod wrap;

use zeroize::Zeroizing;

pub use chunk::{
    Dek, FileContext, chunk_aad, chunk_iv, chunk_iv_info, chunk_key, chunk_key_info, header_hash,
};
pub use error::{ContainerError, Result};
pub use external::{ExternalEncryptor, Finished};
pub use header::{HashAlg, Header, HeaderPrefix, MetadataKind, Mode, SealMode};
pub use info::{HeaderInfo, SealedInfo, SignerInfo, WrapInfo};
pub use manifest::{GroupManifest, GroupState, ManifestOp, RevocationMode, revoke_member};
pub use merkle::{inclusion_proof, merkle_root, verify_merkle_proof};
pub use policy::{
    Decrypted, ExpectedSigner, ReleaseMode, SealInfo, SignatureRequirement, TamperAction,
    VerificationPolicy, VerificationReport,
};
pub use revoke::{reencrypt, rewrap, rewrap_group, rewrap_header};
pub use seal::{purge, seal, seal_header};
pub use signature::{SignatureStatus, SigningKeys};
pub use stream::{ContainerEncryptor, ContainerReader, EncryptOptions, ReaderPrefix};
pub use wrap::{
    Argon2idCost, GroupUnlock, KdfBudget, ThresholdShare, Unlock, WrapEntry, WrapSpec,
};

/// A new container and the shares of its threshold wraps (one list per
/// threshold wrap spec, in order). No `Debug` (shares are secret).
pub struct Encrypted {
    /// The container bytes.
    pub container: Vec<u8>,
    /// Threshold shares.
    pub shares: Vec<Vec<ThresholdShare>>,
}

/// Encrypts a whole buffer (`options.plaintext_size` is set to its length).
///
/// # Errors
/// As [`ContainerEncryptor::new`].
pub fn encrypt(plaintext: &[u8], mut options: EncryptOptions) -> Result<Encrypted> {
    options.plaintext_size = plaintext.len() as u64;
    let chunk_size = usize::try_from(options.chunk_size)
        .map_err(|_| ContainerError::InvalidChunkSize(options.chunk_size))?;
    let mut enc = ContainerEncryptor::new(options)?;
    // At most `plaintext.len()` chunks, so the count fits in a `usize`; it only sizes the
    // allocation, so 0 on the impossible failed conversion is harmless.
    let chunks = usize::try_from(enc.chunk_count()).unwrap_or(0);
    let mut body = Vec::with_capacity(
        plaintext
            .len()
            .saturating_add(chunks.saturating_mul(chunk::ENVELOPE_OVERHEAD)),
    );
    for piece in plaintext.chunks(chunk_size.max(1)) {
        body.extend_from_slice(&enc.push_chunk(piece)?);
    }
    let mut container = enc.finish()?;
    container.extend_from_slice(&body);
    let shares = enc.threshold_shares().to_vec();
    Ok(Encrypted { container, shares })
}

/// Decrypts a whole container under `policy`, releasing plaintext chunk by
/// chunk to `sink(index, plaintext)` as the policy allows; returns the report.
/// In [`ReleaseMode::Verified`] nothing reaches `sink` before every check passed.
///
/// # Errors
/// Header, signature, seal, manifest and unlock errors always; chunk, length
/// and Merkle errors under [`TamperAction::Abort`].
pub fn decrypt_with_sink(
    container: &[u8],
    unlock: &Unlock<'_>,
    policy: &VerificationPolicy,
    sink: &mut dyn FnMut(u64, &[u8]),
) -> Result<VerificationReport> {
    policy::process(container, policy, Some(unlock), Some(sink))
}

/// Decrypts a whole container under `policy`.
///
/// `plaintext` is present only for an intact container; under
/// [`TamperAction::Recover`] the good chunks of a damaged one are in `recovered`.
///
/// # Errors
/// As [`decrypt_with_sink`].
pub fn decrypt(
    container: &[u8],
    unlock: &Unlock<'_>,
    policy: &VerificationPolicy,
) -> Result<Decrypted> {
    let mut chunks: Vec<(u64, Zeroizing<Vec<u8>>)> = Vec::new();
    let report = decrypt_with_sink(container, unlock, policy, &mut |i, pt| {
        chunks.push((i, Zeroizing::new(pt.to_vec())));
    })?;
    if report.is_intact() {
        let total: usize = chunks.iter().map(|(_, c)| c.len()).sum();
        let mut plaintext = Zeroizing::new(Vec::with_capacity(total));
        for (_, c) in &chunks {
            plaintext.extend_from_slice(c);
        }
        return Ok(Decrypted {
            plaintext: Some(plaintext),
            recovered: Vec::new(),
            report,
        });
    }
    let recovered = if policy.on_tamper == TamperAction::Recover {
        chunks
    } else {
        Vec::new()
    };
    Ok(Decrypted {
        plaintext: None,
        recovered,
        report,
    })
}

/// Verifies a container under `policy` without releasing plaintext: header,
/// signature, seal marker, manifest, length, envelope structure and Merkle
/// root; with `unlock`, also the DEK and every chunk's AEAD tag.
///
/// # Errors
/// As [`decrypt_with_sink`], except that a sealed container yields a report
/// (with `sealed` set) instead of an error.
pub fn verify_container(
    container: &[u8],
    policy: &VerificationPolicy,
    unlock: Option<&Unlock<'_>>,
) -> Result<VerificationReport> {
    policy::process(container, policy, unlock, None)
}
