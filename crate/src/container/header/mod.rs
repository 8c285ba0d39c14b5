//! The container header: fixed 112-byte part, wrap table, and (v5/v6) the
//! signed metadata and signature table. Parsing is canonical and total:
//! every accepted byte string re-serialises to itself
//! (`to_bytes(parse(x)) == x`), every length is bounded before anything is
//! allocated, and nothing is skipped.
//!
//! Fixed part (big-endian):
//!
//! | off | len | field |
//! |---|---|---|
//! | 0 | 8 | magic `VOLLVALT` |
//! | 8 | 1 | version: 4 unsigned, 5 Ed25519, 6 Ed25519 + ML-DSA-65 (1–3: refused) |
//! | 9 | 1 | mode (derived from the wrap table, see [`Mode`]) |
//! | 10 | 1 | cipher suite: 0 = AES-256-GCM |
//! | 11 | 16 | file id |
//! | 27 | 4 | chunk size, 4096 ..= 16 777 216 |
//! | 31 | 8 | plaintext size |
//! | 39 | 32 | Merkle root |
//! | 71 | 1 | wrap count |
//! | 72 | 1 | hash algorithm: 0 SHA-256, 1 BLAKE3 |
//! | 73 | 3 | reserved, zero |
//! | 76 | 4 | variable length (bytes of the wrap table) |
//! | 80 | 32 | DEK commitment (`chunk::dek_commitment`) |
//! | 112 | var | wrap table |
//! | 112+var | 4 | metadata length (v5/v6) |
//! | 116+var | mlen | signed metadata (v5/v6) |
//! | 116+var+mlen | 64 / 64+3309 | signature table (v5 / v6) |
//!
//! The leaf table (`32 · n` bytes, `merkle::leaf_hash` of every envelope)
//! follows the header; the chunk envelopes follow the table.

mod encode;
mod parse;
mod types;

pub use types::{
    HashAlg, Header, HeaderPrefix, Metadata, MetadataKind, Mode, SealMode, SignedPart,
};

use super::error::{ContainerError, Result};
use super::wrap::MAX_WRAP_ENTRY_LEN;
use crate::{ed25519, mldsa};

/// Magic bytes.
pub const MAGIC: &[u8; 8] = b"VOLLVALT";
/// Length of the fixed header part (the DEK commitment included).
pub const FIXED_HEADER_LEN: usize = 112;
/// Offset of the DEK commitment in the fixed part.
pub const DEK_COMMITMENT_OFFSET: usize = 80;
/// Version byte of an unsigned header.
pub const VERSION_UNSIGNED: u8 = 4;
/// Version byte of an Ed25519-signed header.
pub const VERSION_ED25519: u8 = 5;
/// Version byte of an Ed25519 + ML-DSA-65 signed header.
pub const VERSION_HYBRID: u8 = 6;
/// Cipher suite 0: AES-256-GCM.
pub const CIPHER_SUITE_AES_256_GCM: u8 = 0;
/// Smallest chunk size (4 KiB).
pub const MIN_CHUNK_SIZE: u32 = 4096;
/// Largest chunk size (16 MiB).
pub const MAX_CHUNK_SIZE: u32 = 16 * 1024 * 1024;
/// Default chunk size (1 MiB).
pub const DEFAULT_CHUNK_SIZE: u32 = 1024 * 1024;
/// Largest wrap count (u8).
pub const MAX_WRAPS: usize = 255;
/// Longest seal reason, in bytes of UTF-8.
pub const MAX_SEAL_REASON_LEN: usize = 1024;
/// Length of v5 plain metadata: kind ‖ u64 ts ‖ ed25519 pk ‖ key_log_id.
pub const METADATA_V2_LEN: usize = 1 + 8 + 32 + 32;
/// Length of v6 plain metadata: v5 fields plus the ML-DSA-65 public key.
pub const METADATA_V3_LEN: usize = METADATA_V2_LEN + mldsa::PK_LEN;
/// Extra metadata bytes of a sealed marker besides the reason: mode ‖ u16 reason_len.
pub const SEAL_FIELDS_LEN: usize = 3;
/// Largest metadata length of any version.
pub const MAX_METADATA_LEN: usize = METADATA_V3_LEN + SEAL_FIELDS_LEN + MAX_SEAL_REASON_LEN;
/// Signature table length of a v5 header.
pub const SIG_TABLE_V2_LEN: usize = ed25519::SIGNATURE_LEN;
/// Signature table length of a v6 header.
pub const SIG_TABLE_V3_LEN: usize = ed25519::SIGNATURE_LEN + mldsa::SIG_LEN;
/// Largest header of any version.
pub const MAX_HEADER_LEN: usize =
    FIXED_HEADER_LEN + MAX_WRAPS * MAX_WRAP_ENTRY_LEN + 4 + MAX_METADATA_LEN + SIG_TABLE_V3_LEN;

pub(crate) fn check_chunk_size(chunk_size: u32) -> Result<()> {
    if (MIN_CHUNK_SIZE..=MAX_CHUNK_SIZE).contains(&chunk_size) {
        Ok(())
    } else {
        Err(ContainerError::InvalidChunkSize(chunk_size))
    }
}

/// Largest container length any reader handles: `2^53 − 1`, the largest
/// integer a JavaScript number holds exactly, so the Rust and browser readers
/// accept exactly the same headers.
pub const MAX_CONTAINER_LEN: u64 = (1 << 53) - 1;

/// `⌈P / C⌉ ≤ 2^32` and `P + 64 · ⌈P / C⌉ + MAX_HEADER_LEN ≤ 2^53 − 1` (the
/// largest header, its leaf table and every envelope fit [`MAX_CONTAINER_LEN`]).
pub(crate) fn check_plaintext_size(plaintext_size: u64, chunk_size: u32) -> Result<()> {
    let n = super::chunk::chunk_count(plaintext_size, chunk_size);
    let per_chunk = (super::chunk::ENVELOPE_OVERHEAD + super::chunk::LEAF_LEN) as u64;
    let total = plaintext_size
        .checked_add(n.saturating_mul(per_chunk))
        .and_then(|b| b.checked_add(MAX_HEADER_LEN as u64));
    if n > super::chunk::MAX_CHUNKS || total.is_none_or(|t| t > MAX_CONTAINER_LEN) {
        Err(ContainerError::InvalidPlaintextSize)
    } else {
        Ok(())
    }
}
