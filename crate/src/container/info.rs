//! The public description of a parsed container header ([`HeaderInfo`]):
//! what a reader may show or act on before any key is involved.
//!
//! It is the header's fields ([`Header`]) plus what the reader derives from
//! them (version, mode, header hash, lengths, chunk count), with the wrap
//! table flattened into [`WrapInfo`] (the X-Wing ciphertext in one piece, in
//! X-Wing order) and the signed metadata split into the signer
//! ([`SignerInfo`]) and, for a sealed marker, the seal ([`SealedInfo`]).
//! Everything in it is public data: wraps hold only wrapped DEKs.
//!
//! The wasm bindings hand it to JS as a plain object
//! (`ContainerReaderHandle.info()`), which the TypeScript facade turns into
//! its `ContainerHeader`.
use super::chunk::HEADER_HASH_PREIMAGE_LEN;
use super::header::{HashAlg, Header, MetadataKind, Mode, SealMode};
use super::stream::ContainerReader;
use super::wrap::WrapEntry;

/// A parsed container header, as [`ContainerReader::info`] describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderInfo {
    /// Format version: 4 unsigned, 5 Ed25519, 6 Ed25519 + ML-DSA-65.
    pub version: u8,
    /// The mode the wrap table implies.
    pub mode: Mode,
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
    /// The header's DEK commitment (FORMAT.md §3.1).
    pub dek_commitment: [u8; 32],
    /// `header_hash` (FORMAT.md §6.2), bound into every chunk.
    pub header_hash: [u8; 32],
    /// The header-hash preimage (FORMAT.md §6.2): `header_hash` is its
    /// SHA-256 and the DEK commitment its HMAC (FORMAT.md §3.1).
    pub header_hash_preimage: [u8; HEADER_HASH_PREIMAGE_LEN],
    /// Header length: the leaf table starts here.
    pub header_len: u64,
    /// Leaf table length, `32 · chunk_count`: the leaf table follows the header.
    pub leaf_table_len: u64,
    /// Exact length of the whole container (the header alone after a purge).
    pub container_len: u64,
    /// Number of chunks.
    pub chunk_count: u64,
    /// The wrap table, in order.
    pub wraps: Vec<WrapInfo>,
    /// The signer of a v5/v6 header, `None` for v4.
    pub signer: Option<SignerInfo>,
    /// The seal of a sealed marker, `None` otherwise.
    pub sealed: Option<SealedInfo>,
}

/// One wrap entry (public data only: the DEK is wrapped).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WrapInfo {
    /// Type 0: a PBKDF2-HMAC-SHA-256 password wrap.
    Pbkdf2 {
        /// Iterations.
        iterations: u32,
        /// Salt.
        salt: [u8; 16],
        /// AES-256-KW(KEK, DEK).
        wrapped: [u8; 40],
    },
    /// Type 1: an Argon2id password wrap.
    Argon2id {
        /// Memory in KiB.
        memory_kib: u32,
        /// Passes.
        iterations: u32,
        /// Lanes.
        parallelism: u32,
        /// Salt.
        salt: [u8; 16],
        /// AES-256-KW(KEK, DEK).
        wrapped: [u8; 40],
    },
    /// Type 3: a group wrap.
    Group {
        /// Group id.
        group_id: [u8; 16],
        /// Group key version.
        key_version: u32,
        /// AES-256-KW(KEK, DEK).
        wrapped: [u8; 40],
    },
    /// Type 4: a hybrid-KEM (X-Wing) recipient wrap.
    Recipient {
        /// Recipient id.
        recipient_id: [u8; 16],
        /// Recipient key version.
        key_version: u32,
        /// The X-Wing ciphertext, `ct_ML-KEM ‖ ct_X25519` (FORMAT.md §4.1; 1120 bytes).
        ciphertext: Vec<u8>,
        /// AES-256-KW(KEK, DEK).
        wrapped: [u8; 40],
    },
    /// Type 5: a threshold wrap.
    Threshold {
        /// Threshold `t`.
        threshold: u8,
        /// Share count `n`.
        shares: u8,
        /// Share set id.
        share_set_id: [u8; 16],
        /// AES-256-KW(KEK, DEK).
        wrapped: [u8; 40],
    },
}

/// The signer of a v5/v6 header (as its signed metadata names it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignerInfo {
    /// Ed25519 public key.
    pub ed25519: [u8; 32],
    /// ML-DSA-65 public key (v6 only).
    pub mldsa65: Option<Vec<u8>>,
    /// Key-log id of the signer key.
    pub key_log_id: [u8; 32],
    /// Signer-supplied timestamp (seconds since the Unix epoch by convention).
    pub timestamp: u64,
}

/// The seal of a sealed marker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SealedInfo {
    /// Seal (ciphertext kept) or purge (ciphertext discarded).
    pub mode: SealMode,
    /// Free-text reason.
    pub reason: String,
    /// The sealer's timestamp.
    pub timestamp: u64,
    /// The sealer's Ed25519 public key (the header's signer).
    pub sealer: [u8; 32],
}

impl WrapInfo {
    /// Name of the wrap type in the JS API: `pbkdf2`, `argon2id`, `group`,
    /// `recipient` or `threshold`.
    #[must_use]
    pub const fn type_name(&self) -> &'static str {
        match self {
            Self::Pbkdf2 { .. } => "pbkdf2",
            Self::Argon2id { .. } => "argon2id",
            Self::Group { .. } => "group",
            Self::Recipient { .. } => "recipient",
            Self::Threshold { .. } => "threshold",
        }
    }
}

impl From<&WrapEntry> for WrapInfo {
    fn from(w: &WrapEntry) -> Self {
        match w {
            WrapEntry::Pbkdf2 {
                iterations,
                salt,
                wrapped,
            } => Self::Pbkdf2 {
                iterations: *iterations,
                salt: *salt,
                wrapped: *wrapped,
            },
            WrapEntry::Argon2id {
                cost,
                salt,
                wrapped,
            } => Self::Argon2id {
                memory_kib: cost.memory_kib,
                iterations: cost.iterations,
                parallelism: cost.parallelism,
                salt: *salt,
                wrapped: *wrapped,
            },
            WrapEntry::Group {
                group_id,
                key_version,
                wrapped,
            } => Self::Group {
                group_id: *group_id,
                key_version: *key_version,
                wrapped: *wrapped,
            },
            WrapEntry::HybridKem {
                recipient_id,
                key_version,
                ct_x25519,
                ct_mlkem,
                wrapped,
            } => {
                // X-Wing order: ct_ML-KEM ‖ ct_X25519 (FORMAT.md §4.1).
                let mut ciphertext = Vec::with_capacity(ct_mlkem.len() + ct_x25519.len());
                ciphertext.extend_from_slice(ct_mlkem);
                ciphertext.extend_from_slice(ct_x25519);
                Self::Recipient {
                    recipient_id: *recipient_id,
                    key_version: *key_version,
                    ciphertext,
                    wrapped: *wrapped,
                }
            }
            WrapEntry::Threshold {
                threshold,
                shares,
                share_set_id,
                wrapped,
            } => Self::Threshold {
                threshold: *threshold,
                shares: *shares,
                share_set_id: *share_set_id,
                wrapped: *wrapped,
            },
        }
    }
}

impl HeaderInfo {
    /// The signer and the seal of a header's signed part.
    fn signed_parts(h: &Header) -> (Option<SignerInfo>, Option<SealedInfo>) {
        let Some(s) = h.signed.as_ref() else {
            return (None, None);
        };
        let m = &s.metadata;
        let signer = SignerInfo {
            ed25519: m.ed25519_public,
            mldsa65: m.mldsa_public.clone(),
            key_log_id: m.key_log_id,
            timestamp: m.timestamp,
        };
        let sealed = match &m.kind {
            MetadataKind::Plain => None,
            MetadataKind::Sealed { mode, reason } => Some(SealedInfo {
                mode: *mode,
                reason: reason.clone(),
                timestamp: m.timestamp,
                sealer: m.ed25519_public,
            }),
        };
        (Some(signer), sealed)
    }
}

impl ContainerReader {
    /// The public description of the parsed header ([`HeaderInfo`]).
    #[must_use]
    pub fn info(&self) -> HeaderInfo {
        let h = self.header();
        let (signer, sealed) = HeaderInfo::signed_parts(h);
        HeaderInfo {
            version: h.version(),
            mode: h.mode(),
            file_id: h.file_id,
            chunk_size: h.chunk_size,
            plaintext_size: h.plaintext_size,
            merkle_root: h.merkle_root,
            hash_alg: h.hash_alg,
            dek_commitment: h.dek_commitment,
            header_hash: self.context().header_hash,
            header_hash_preimage: self.context().header_hash_preimage(),
            header_len: self.header_len() as u64,
            leaf_table_len: self.leaf_table_len(),
            container_len: self.container_len(),
            chunk_count: self.chunk_count(),
            wraps: h.wraps.iter().map(WrapInfo::from).collect(),
            signer,
            sealed,
        }
    }
}

#[cfg(test)]
mod tests;
