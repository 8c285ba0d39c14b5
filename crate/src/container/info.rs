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
mod tests {
    use super::*;
    use crate::container::chunk::{header_hash, header_hash_preimage};
    use crate::container::header::{Metadata, SignedPart};
    use crate::container::wrap::Argon2idCost;

    /// One wrap entry of each type, with distinct byte patterns.
    fn all_wraps() -> Vec<WrapEntry> {
        vec![
            WrapEntry::Pbkdf2 {
                iterations: 600_000,
                salt: [1; 16],
                wrapped: [2; 40],
            },
            WrapEntry::Argon2id {
                cost: Argon2idCost {
                    memory_kib: 19_456,
                    iterations: 2,
                    parallelism: 1,
                },
                salt: [3; 16],
                wrapped: [4; 40],
            },
            WrapEntry::Group {
                group_id: [5; 16],
                key_version: 7,
                wrapped: [6; 40],
            },
            WrapEntry::HybridKem {
                recipient_id: [7; 16],
                key_version: 9,
                ct_x25519: [0xee; 32],
                ct_mlkem: vec![0x11; 1088],
                wrapped: [8; 40],
            },
            WrapEntry::Threshold {
                threshold: 2,
                shares: 3,
                share_set_id: [9; 16],
                wrapped: [10; 40],
            },
        ]
    }

    fn header(wraps: Vec<WrapEntry>, signed: Option<SignedPart>) -> Header {
        Header {
            file_id: [0xf1; 16],
            chunk_size: 4096,
            plaintext_size: 3 * 4096 + 5,
            merkle_root: [0xaa; 32],
            hash_alg: HashAlg::Blake3,
            dek_commitment: [0xcc; 32],
            wraps,
            signed,
        }
    }

    fn signed(kind: MetadataKind, mldsa: bool) -> SignedPart {
        SignedPart {
            metadata: Metadata {
                kind,
                timestamp: 1_700_000_000,
                ed25519_public: [0xed; 32],
                mldsa_public: mldsa.then(|| vec![0x65; crate::mldsa::PK_LEN]),
                key_log_id: [0x1d; 32],
            },
            ed25519_signature: [0x5e; 64],
            mldsa_signature: mldsa.then(|| vec![0x5d; crate::mldsa::SIG_LEN]),
        }
    }

    /// Serialises `h`, parses it back and describes it.
    fn info_of(h: &Header) -> (HeaderInfo, usize) {
        let bytes = h.to_bytes().unwrap();
        (ContainerReader::new(&bytes).unwrap().info(), bytes.len())
    }

    #[test]
    fn unsigned_header_with_every_wrap_type() {
        let (info, len) = info_of(&header(all_wraps(), None));
        assert_eq!(info.version, 4);
        assert_eq!(info.mode, Mode::Mixed);
        assert_eq!(
            (info.file_id, info.merkle_root, info.dek_commitment),
            ([0xf1; 16], [0xaa; 32], [0xcc; 32])
        );
        assert_eq!(
            (info.chunk_size, info.plaintext_size, info.hash_alg),
            (4096, 3 * 4096 + 5, HashAlg::Blake3)
        );
        assert_eq!(
            info.header_hash,
            header_hash(&[0xf1; 16], 4096, 3 * 4096 + 5, HashAlg::Blake3)
        );
        assert_eq!(
            info.header_hash_preimage,
            header_hash_preimage(&[0xf1; 16], 4096, 3 * 4096 + 5, HashAlg::Blake3)
        );
        assert_eq!(
            crate::hash::sha256(&info.header_hash_preimage),
            info.header_hash
        );
        assert_eq!(info.chunk_count, 4);
        assert_eq!(info.header_len, len as u64);
        assert_eq!(info.leaf_table_len, 4 * 32);
        // Header, leaf table, four envelopes (plaintext + 32 bytes each).
        assert_eq!(
            info.container_len,
            len as u64 + 4 * 32 + 3 * 4096 + 5 + 4 * 32
        );
        assert_eq!((info.signer, info.sealed), (None, None));
        assert_eq!(
            info.wraps
                .iter()
                .map(WrapInfo::type_name)
                .collect::<Vec<_>>(),
            ["pbkdf2", "argon2id", "group", "recipient", "threshold"]
        );
        assert_eq!(
            info.wraps[0],
            WrapInfo::Pbkdf2 {
                iterations: 600_000,
                salt: [1; 16],
                wrapped: [2; 40]
            }
        );
        assert_eq!(
            info.wraps[1],
            WrapInfo::Argon2id {
                memory_kib: 19_456,
                iterations: 2,
                parallelism: 1,
                salt: [3; 16],
                wrapped: [4; 40]
            }
        );
        assert_eq!(
            info.wraps[2],
            WrapInfo::Group {
                group_id: [5; 16],
                key_version: 7,
                wrapped: [6; 40]
            }
        );
        assert_eq!(
            info.wraps[4],
            WrapInfo::Threshold {
                threshold: 2,
                shares: 3,
                share_set_id: [9; 16],
                wrapped: [10; 40]
            }
        );
        let WrapInfo::Recipient {
            recipient_id,
            key_version,
            ciphertext,
            wrapped,
        } = &info.wraps[3]
        else {
            panic!("wrap 3 is not a recipient wrap");
        };
        assert_eq!(
            (recipient_id, *key_version, wrapped),
            (&[7; 16], 9, &[8; 40])
        );
        // X-Wing order: the ML-KEM part first, the X25519 part last.
        assert_eq!(ciphertext.len(), 1120);
        assert!(
            ciphertext[..1088].iter().all(|&b| b == 0x11)
                && ciphertext[1088..].iter().all(|&b| b == 0xee)
        );
    }

    #[test]
    fn mode_follows_the_wrap_table() {
        for (wraps, mode) in [
            (
                vec![all_wraps().remove(0), all_wraps().remove(1)],
                Mode::Password,
            ),
            (vec![all_wraps().remove(2)], Mode::Group),
            (vec![all_wraps().remove(3)], Mode::Recipient),
            (vec![all_wraps().remove(4)], Mode::Threshold),
        ] {
            let (info, _) = info_of(&header(wraps, None));
            assert_eq!((info.mode, info.mode.name()), (mode, mode.name()));
        }
    }

    #[test]
    fn signed_headers_name_their_signer() {
        let (ed, _) = info_of(&header(
            vec![all_wraps().remove(2)],
            Some(signed(MetadataKind::Plain, false)),
        ));
        assert_eq!(ed.version, 5);
        assert_eq!(
            ed.signer,
            Some(SignerInfo {
                ed25519: [0xed; 32],
                mldsa65: None,
                key_log_id: [0x1d; 32],
                timestamp: 1_700_000_000
            })
        );
        assert_eq!(ed.sealed, None);
        let (hybrid, _) = info_of(&header(
            vec![all_wraps().remove(2)],
            Some(signed(MetadataKind::Plain, true)),
        ));
        assert_eq!(hybrid.version, 6);
        assert_eq!(
            hybrid.signer.and_then(|s| s.mldsa65),
            Some(vec![0x65; crate::mldsa::PK_LEN])
        );
    }

    #[test]
    fn sealed_markers_describe_the_seal() {
        for (mode, purged) in [(SealMode::Seal, false), (SealMode::Purge, true)] {
            let kind = MetadataKind::Sealed {
                mode,
                reason: "retention".to_owned(),
            };
            let (info, len) = info_of(&header(Vec::new(), Some(signed(kind, false))));
            assert_eq!((info.mode, info.wraps.len()), (Mode::None, 0));
            assert_eq!(
                info.sealed,
                Some(SealedInfo {
                    mode,
                    reason: "retention".to_owned(),
                    timestamp: 1_700_000_000,
                    sealer: [0xed; 32]
                })
            );
            assert!(info.signer.is_some());
            // A purged container is the header alone; a sealed one keeps its body.
            assert_eq!(info.container_len == len as u64, purged, "{mode:?}");
        }
    }

    #[test]
    fn api_names() {
        assert_eq!(
            (HashAlg::Sha256.name(), HashAlg::Blake3.name()),
            ("sha256", "blake3")
        );
        assert_eq!(
            (SealMode::Seal.name(), SealMode::Purge.name()),
            ("seal", "purge")
        );
        let modes = [
            Mode::Password,
            Mode::Recipient,
            Mode::Group,
            Mode::Threshold,
            Mode::Mixed,
            Mode::None,
        ];
        assert_eq!(
            modes.map(Mode::name),
            [
                "password",
                "recipient",
                "group",
                "threshold",
                "mixed",
                "none"
            ]
        );
    }
}
