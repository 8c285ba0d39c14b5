//! Errors of the file-container domain.
//!
//! One enum, [`ContainerError`], for every container operation. Each variant
//! has a stable SCREAMING_SNAKE [`ContainerError::code`] that the wasm layer
//! maps (exhaustively) to the TypeScript `VeilError.code`.
//!
//! Every cryptographic integrity failure (AEAD tag, AES-KW integrity block, a
//! stored chunk IV or index that differs from the derived one, a Merkle root or
//! proof mismatch, a wrong password / key / share set) is the single opaque
//! [`ContainerError::AuthenticationFailed`]: nothing about *why* leaks.
//! Structural errors (bad magic, non-canonical header, truncation, …) are
//! reported precisely: they concern public bytes only.

use core::fmt;

use crate::error::CryptoError;

/// Error of a container operation.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ContainerError {
    /// The input ends before a structure is complete (`needed` bytes in total, `got` present).
    Truncated {
        /// Total bytes the structure needs.
        needed: u64,
        /// Bytes present.
        got: u64,
    },
    /// Bytes follow the last structure (header, last chunk, manifest block).
    TrailingBytes,
    /// The first 8 bytes are not `VOLLVALT`.
    BadMagic,
    /// The format version byte is not 4, 5 or 6 (versions 1–3, the
    /// non-committing format, are refused too).
    UnsupportedVersion(u8),
    /// The cipher suite byte is not 0 (AES-256-GCM).
    UnsupportedCipherSuite(u8),
    /// The hash algorithm byte is not 0 (SHA-256) or 1 (BLAKE3).
    UnsupportedHashAlgorithm(u8),
    /// The chunk size is outside 4096 ..= 16 777 216.
    InvalidChunkSize(u32),
    /// The plaintext size needs more than 2^32 chunks.
    InvalidPlaintextSize,
    /// A header field violates a canonical-encoding rule (reserved bytes,
    /// mode byte, wrap count / variable length, metadata length …).
    NonCanonical(&'static str),
    /// A wrap entry is malformed (payload length, parameter out of range).
    InvalidWrap(&'static str),
    /// A wrap entry has an unknown or unsupported type (2 and ≥ 6).
    UnsupportedWrapType(u8),
    /// The signed metadata is malformed.
    InvalidMetadata(&'static str),
    /// The container has no wrap entry (key-shredded): it cannot be decrypted.
    NoWraps,
    /// No wrap entry matches the unlock method (no password wrap, no group
    /// wrap with that id and version, no recipient wrap with that id …).
    NoMatchingWrap,
    /// Opaque integrity failure: see the module documentation.
    AuthenticationFailed,
    /// The policy requires a signature and the container is unsigned.
    SignatureMissing,
    /// A signature (Ed25519 or ML-DSA-65) does not verify.
    SignatureInvalid,
    /// The container is signed by another key than the policy expects.
    SignerMismatch,
    /// The policy pins an ML-DSA-65 key and the container carries no ML-DSA-65
    /// signature (an Ed25519-only header, version 5).
    HybridRequired,
    /// A password wrap's KDF cost is over the reader's budget, or the budget's
    /// number of password attempts ran out before a wrap opened.
    KdfBudgetExceeded,
    /// The container is sealed (crypto-shredded): every decrypt path fails.
    Sealed,
    /// A `vcs_` threshold share is malformed (prefix, encoding, checksum, x, t, n)
    /// or a share set is inconsistent (different sets, duplicate x).
    InvalidShare(&'static str),
    /// Fewer shares than the threshold.
    InsufficientShares {
        /// Shares supplied.
        have: usize,
        /// Threshold `t`.
        need: u8,
    },
    /// A chunk pushed to the encryptor has the wrong length, or an index is out of range.
    InvalidChunk(&'static str),
    /// An operation was called in the wrong state (push after finish, finish too early …).
    InvalidState(&'static str),
    /// An option passed to a writer is invalid (no wraps, bad KDF cost, bad threshold …).
    InvalidOption(&'static str),
    /// A group manifest is malformed or breaks a chain rule (link, epoch, authority).
    InvalidManifest(&'static str),
    /// The manifest's head epoch is below the pinned minimum (rollback).
    ManifestRollback {
        /// Pinned minimum epoch.
        pinned: u32,
        /// Head epoch of the manifest presented.
        head: u32,
    },
    /// The manifest's genesis founder is not the anchored key.
    FounderMismatch,
    /// The policy needs a group manifest (rollback pin, founder anchor) and none was given.
    ManifestRequired,
    /// A primitive failed; the code is the primitive's own code.
    Crypto(CryptoError),
}

crate::error::error_codes! {
    ContainerError, wraps Self::Crypto(inner) => inner.code();
    Self::Truncated { .. } => "TRUNCATED",
    Self::TrailingBytes => "TRAILING_BYTES",
    Self::BadMagic => "BAD_MAGIC",
    Self::UnsupportedVersion(_) => "UNSUPPORTED_VERSION",
    Self::UnsupportedCipherSuite(_) => "UNSUPPORTED_CIPHER_SUITE",
    Self::UnsupportedHashAlgorithm(_) => "UNSUPPORTED_HASH_ALGORITHM",
    Self::InvalidChunkSize(_) => "INVALID_CHUNK_SIZE",
    Self::InvalidPlaintextSize => "INVALID_PLAINTEXT_SIZE",
    Self::NonCanonical(_) => "NON_CANONICAL",
    Self::InvalidWrap(_) => "INVALID_WRAP",
    Self::UnsupportedWrapType(_) => "UNSUPPORTED_WRAP_TYPE",
    Self::InvalidMetadata(_) => "INVALID_METADATA",
    Self::NoWraps => "NO_WRAPS",
    Self::NoMatchingWrap => "NO_MATCHING_WRAP",
    Self::AuthenticationFailed => "AUTHENTICATION_FAILED",
    Self::SignatureMissing => "SIGNATURE_MISSING",
    Self::SignatureInvalid => "INVALID_SIGNATURE",
    Self::SignerMismatch => "SIGNER_MISMATCH",
    Self::HybridRequired => "HYBRID_REQUIRED",
    Self::KdfBudgetExceeded => "KDF_BUDGET_EXCEEDED",
    Self::Sealed => "SEALED",
    Self::InvalidShare(_) => "INVALID_SHARE",
    Self::InsufficientShares { .. } => "INSUFFICIENT_SHARES",
    Self::InvalidChunk(_) => "INVALID_CHUNK",
    Self::InvalidState(_) => "INVALID_STATE",
    Self::InvalidOption(_) => "INVALID_OPTION",
    Self::InvalidManifest(_) => "INVALID_MANIFEST",
    Self::ManifestRollback { .. } => "MANIFEST_ROLLBACK",
    Self::FounderMismatch => "FOUNDER_MISMATCH",
    Self::ManifestRequired => "MANIFEST_REQUIRED",
}

impl ContainerError {
    /// Shorthand for [`ContainerError::Truncated`].
    #[must_use]
    pub fn truncated(needed: usize, got: usize) -> Self {
        Self::Truncated {
            needed: u64::try_from(needed).unwrap_or(u64::MAX),
            got: u64::try_from(got).unwrap_or(u64::MAX),
        }
    }
}

impl From<CryptoError> for ContainerError {
    /// Authentication failures of primitives become the container's one
    /// opaque [`ContainerError::AuthenticationFailed`]; everything else is wrapped.
    fn from(e: CryptoError) -> Self {
        match e {
            CryptoError::AuthenticationFailed => Self::AuthenticationFailed,
            CryptoError::InvalidSignature => Self::SignatureInvalid,
            other => Self::Crypto(other),
        }
    }
}

impl fmt::Display for ContainerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Truncated { needed, got } => {
                write!(f, "truncated: need {needed} bytes, got {got}")
            }
            Self::TrailingBytes => f.write_str("trailing bytes after the last structure"),
            Self::BadMagic => f.write_str("not a VOLLVALT container (bad magic)"),
            Self::UnsupportedVersion(v) => write!(f, "unsupported format version {v}"),
            Self::UnsupportedCipherSuite(c) => write!(f, "unsupported cipher suite {c}"),
            Self::UnsupportedHashAlgorithm(h) => write!(f, "unsupported hash algorithm {h}"),
            Self::InvalidChunkSize(c) => {
                write!(f, "chunk size {c} outside 4096..=16777216")
            }
            Self::InvalidPlaintextSize => f.write_str("plaintext size needs more than 2^32 chunks"),
            Self::NonCanonical(m) => write!(f, "non-canonical header: {m}"),
            Self::InvalidWrap(m) => write!(f, "invalid wrap entry: {m}"),
            Self::UnsupportedWrapType(t) => write!(f, "unsupported wrap type {t}"),
            Self::InvalidMetadata(m) => write!(f, "invalid signed metadata: {m}"),
            Self::NoWraps => f.write_str("the container has no wrap entry"),
            Self::NoMatchingWrap => f.write_str("no wrap entry matches the unlock method"),
            Self::AuthenticationFailed => f.write_str("authentication failed"),
            Self::SignatureMissing => {
                f.write_str("the policy requires a signature; the container is unsigned")
            }
            Self::SignatureInvalid => f.write_str("invalid signature"),
            Self::SignerMismatch => f.write_str("signed by an unexpected key"),
            Self::HybridRequired => f.write_str(
                "the pinned signer has an ML-DSA-65 key; the container is not hybrid-signed",
            ),
            Self::KdfBudgetExceeded => {
                f.write_str("a password wrap's KDF cost exceeds the unlock budget")
            }
            Self::Sealed => f.write_str("the container is sealed"),
            Self::InvalidShare(m) => write!(f, "invalid share: {m}"),
            Self::InsufficientShares { have, need } => {
                write!(f, "{have} shares given, {need} needed")
            }
            Self::InvalidChunk(m) => write!(f, "invalid chunk: {m}"),
            Self::InvalidState(m) => write!(f, "invalid state: {m}"),
            Self::InvalidOption(m) => write!(f, "invalid option: {m}"),
            Self::InvalidManifest(m) => write!(f, "invalid group manifest: {m}"),
            Self::ManifestRollback { pinned, head } => {
                write!(
                    f,
                    "manifest rollback: head epoch {head} below pinned {pinned}"
                )
            }
            Self::FounderMismatch => f.write_str("manifest founder does not match the anchor"),
            Self::ManifestRequired => f.write_str("the policy requires a group manifest"),
            Self::Crypto(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ContainerError {}

/// Result alias of the container domain.
pub type Result<T> = core::result::Result<T, ContainerError>;
