//! The header's types: hash algorithm, mode, seal mode, signed metadata,
//! the parsed [`Header`] and the outcome of a prefix parse.

use super::{VERSION_ED25519, VERSION_HYBRID, VERSION_UNSIGNED};
use crate::container::error::{ContainerError, Result};
use crate::container::wrap::{WrapEntry, WrapKind};

/// Merkle hash algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum HashAlg {
    /// 0: SHA-256.
    #[default]
    Sha256,
    /// 1: BLAKE3 (32-byte output).
    Blake3,
}

impl HashAlg {
    /// Wire id.
    #[must_use]
    pub const fn id(self) -> u8 {
        match self {
            Self::Sha256 => 0,
            Self::Blake3 => 1,
        }
    }

    /// Parses a wire id.
    ///
    /// # Errors
    /// [`ContainerError::UnsupportedHashAlgorithm`].
    pub const fn from_id(id: u8) -> Result<Self> {
        match id {
            0 => Ok(Self::Sha256),
            1 => Ok(Self::Blake3),
            other => Err(ContainerError::UnsupportedHashAlgorithm(other)),
        }
    }

    /// Name in the JS API: `sha256` or `blake3`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Sha256 => "sha256",
            Self::Blake3 => "blake3",
        }
    }
}

/// Container mode byte. Advisory in the seed format; here it is a function of
/// the wrap table (so a parser can reject any other value): the wrap kinds
/// present decide it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// 0: every wrap is a password wrap (PBKDF2 / Argon2id).
    Password,
    /// 1: every wrap is a hybrid-KEM recipient wrap.
    Recipient,
    /// 2: every wrap is a group wrap.
    Group,
    /// 3: every wrap is a threshold wrap.
    Threshold,
    /// 4: wraps of more than one of the kinds above.
    Mixed,
    /// 5: no wraps (sealed or key-shredded).
    None,
}

impl Mode {
    /// Wire id.
    #[must_use]
    pub const fn id(self) -> u8 {
        match self {
            Self::Password => 0,
            Self::Recipient => 1,
            Self::Group => 2,
            Self::Threshold => 3,
            Self::Mixed => 4,
            Self::None => 5,
        }
    }

    /// Name in the JS API: `password`, `recipient`, `group`, `threshold`, `mixed` or `none`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Password => "password",
            Self::Recipient => "recipient",
            Self::Group => "group",
            Self::Threshold => "threshold",
            Self::Mixed => "mixed",
            Self::None => "none",
        }
    }

    /// The mode a wrap table implies.
    #[must_use]
    pub fn of(wraps: &[WrapEntry]) -> Self {
        let mut kind: Option<WrapKind> = None;
        for w in wraps {
            match kind {
                None => kind = Some(w.kind()),
                Some(k) if k != w.kind() => return Self::Mixed,
                Some(_) => {}
            }
        }
        match kind {
            None => Self::None,
            Some(WrapKind::Password) => Self::Password,
            Some(WrapKind::Recipient) => Self::Recipient,
            Some(WrapKind::Group) => Self::Group,
            Some(WrapKind::Threshold) => Self::Threshold,
        }
    }
}

/// How a sealed container was sealed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SealMode {
    /// 0: wraps removed, ciphertext kept.
    Seal,
    /// 1: wraps removed and ciphertext discarded (the container is the header alone).
    Purge,
}

impl SealMode {
    /// Wire id.
    #[must_use]
    pub const fn id(self) -> u8 {
        match self {
            Self::Seal => 0,
            Self::Purge => 1,
        }
    }

    /// Name in the JS API: `seal` or `purge`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Seal => "seal",
            Self::Purge => "purge",
        }
    }
}

/// Kind of the signed metadata.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MetadataKind {
    /// 0: an ordinary signed container.
    Plain,
    /// 1: a sealed marker.
    Sealed {
        /// Seal or purge.
        mode: SealMode,
        /// Free-text reason (UTF-8, ≤ 1024 bytes).
        reason: String,
    },
}

/// Signed metadata of a v5/v6 header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Metadata {
    /// Plain or sealed marker.
    pub kind: MetadataKind,
    /// Signer-supplied timestamp (seconds since the Unix epoch by convention).
    pub timestamp: u64,
    /// Signer's Ed25519 public key.
    pub ed25519_public: [u8; 32],
    /// Signer's ML-DSA-65 public key (v6 only).
    pub mldsa_public: Option<Vec<u8>>,
    /// Key-log id: opaque reference to the signer key's transparency-log entry.
    pub key_log_id: [u8; 32],
}

/// The signed part of a v5/v6 header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedPart {
    /// Metadata (covered by the signatures).
    pub metadata: Metadata,
    /// Ed25519 signature.
    pub ed25519_signature: [u8; 64],
    /// ML-DSA-65 signature (v6 only; present iff `metadata.mldsa_public` is).
    pub mldsa_signature: Option<Vec<u8>>,
}

impl SignedPart {
    /// Whether this is a sealed marker.
    #[must_use]
    pub const fn is_sealed(&self) -> bool {
        matches!(self.metadata.kind, MetadataKind::Sealed { .. })
    }
}

/// A parsed container header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Random per-container file id.
    pub file_id: [u8; 16],
    /// Chunk size `C`.
    pub chunk_size: u32,
    /// Plaintext size `P`.
    pub plaintext_size: u64,
    /// Merkle root over the leaf table.
    pub merkle_root: [u8; 32],
    /// Merkle hash algorithm.
    pub hash_alg: HashAlg,
    /// `HMAC-SHA-256(K_c, header-hash preimage)`: commits the header to the DEK
    /// (`chunk::dek_commitment`). Copied verbatim by seal and rewrap.
    pub dek_commitment: [u8; 32],
    /// Wrap table (at most 255 entries).
    pub wraps: Vec<WrapEntry>,
    /// Metadata and signatures (v5/v6), `None` for v4.
    pub signed: Option<SignedPart>,
}

/// Outcome of [`Header::parse_prefix`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeaderPrefix {
    /// More bytes are needed: the prefix must be at least `needed` bytes long.
    /// `needed` is an upper bound of what is still missing only once the
    /// fixed part (and, for v5/v6, the metadata length) is present.
    NeedMore {
        /// Total prefix length to supply next.
        needed: usize,
    },
    /// The header is complete.
    Complete {
        /// The header.
        header: Box<Header>,
        /// Its serialised length: chunk envelopes start here.
        header_len: usize,
    },
}

impl Header {
    /// Format version this header serialises as (4, 5 or 6).
    #[must_use]
    pub fn version(&self) -> u8 {
        match &self.signed {
            None => VERSION_UNSIGNED,
            Some(s) if s.metadata.mldsa_public.is_some() => VERSION_HYBRID,
            Some(_) => VERSION_ED25519,
        }
    }

    /// The mode byte (a function of the wrap table).
    #[must_use]
    pub fn mode(&self) -> Mode {
        Mode::of(&self.wraps)
    }

    /// Whether the header carries a sealed marker.
    #[must_use]
    pub fn is_sealed(&self) -> bool {
        self.signed.as_ref().is_some_and(SignedPart::is_sealed)
    }
}
