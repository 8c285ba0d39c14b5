//! Chunk layer: the data-encryption key, the per-chunk key / IV schedule,
//! the chunk AAD, chunk geometry and the chunk envelope
//! `u32 index ‖ iv12 ‖ ciphertext ‖ tag16`.
//!
//! # Per-chunk key schedule (byte-identical in WebCrypto)
//!
//! ```text
//! chunk_key_i = HKDF-SHA-256(ikm = DEK, salt = file_id,
//!                            info = "vollcrypt-file-chunk-key-v1" ‖ u32be(i), L = 32)
//! chunk_iv_i  = HKDF-SHA-256(ikm = DEK, salt = file_id,
//!                            info = "vollcrypt-file-chunk-iv-v1"  ‖ u32be(i), L = 12)
//! ```
//!
//! A browser holding the DEK derives the same bytes with
//! `crypto.subtle.importKey("raw", dek, "HKDF", false, ["deriveBits"])` and
//! `deriveBits({ name: "HKDF", hash: "SHA-256", salt: fileId, info }, 256 | 96)`
//! where `info` is [`chunk_key_info`] / [`chunk_iv_info`]; the AES-GCM call
//! then uses `iv = chunk_iv_i`, `additionalData =` [`chunk_aad`] and
//! `tagLength = 128`. Test vectors: `vectors/container/README.md`.
//!
//! Size: the chunk layer's key / IV schedule, AAD, geometry and envelope are one format section (FORMAT.md chunk layer), each used by the others' checks.

use subtle::ConstantTimeEq;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use super::error::{ContainerError, Result};
use super::header::{CIPHER_SUITE_AES_256_GCM, HashAlg, Header, MAGIC};
use super::merkle;
use crate::aead::{aes_gcm_decrypt_with_iv, aes_gcm_encrypt_with_iv};
use crate::hash::{Sha256, hmac_sha256};
use crate::kdf::hkdf_sha256;
use crate::rng;

/// HKDF info label of the chunk key.
pub const CHUNK_KEY_LABEL: &[u8] = b"vollcrypt-file-chunk-key-v1";
/// HKDF info label of the chunk IV.
pub const CHUNK_IV_LABEL: &[u8] = b"vollcrypt-file-chunk-iv-v1";
/// First bytes of the chunk AAD.
pub const CHUNK_AAD_LABEL: &[u8] = b"vollcrypt-file-chunk-aad-v1";
/// Domain label of the header hash.
pub const HEADER_HASH_LABEL: &[u8] = b"vollcrypt-file-header-v1";
/// HKDF info label of the DEK-commitment key `K_c`.
pub const KEY_COMMITMENT_LABEL: &[u8] = b"vollcrypt-file-key-commitment-v1";
/// Length of the header-hash preimage (label 24 ‖ magic 8 ‖ suite 1 ‖ file id 16 ‖ C 4 ‖ P 8 ‖ hash 1).
pub const HEADER_HASH_PREIMAGE_LEN: usize = 62;
/// Length of one leaf-table entry.
pub const LEAF_LEN: usize = 32;

/// DEK length in bytes.
pub const DEK_LEN: usize = 32;
/// Length of the stored per-chunk IV.
pub const IV_LEN: usize = 12;
/// Length of the AES-GCM tag.
pub const TAG_LEN: usize = 16;
/// Envelope bytes besides the ciphertext: `u32 index ‖ iv12 ‖ … ‖ tag16`.
pub const ENVELOPE_OVERHEAD: usize = 4 + IV_LEN + TAG_LEN;
/// Length of [`chunk_aad`].
pub const CHUNK_AAD_LEN: usize = 27 + 32 + 16 + 4 + 4 + 8 + 4;
/// Largest number of chunks in a container (u32 indices).
pub const MAX_CHUNKS: u64 = 1 << 32;

/// The 32-byte data-encryption key of one container. Wiped on drop; no `Debug`.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct Dek([u8; DEK_LEN]);

impl Dek {
    /// A fresh random DEK.
    ///
    /// # Errors
    /// [`ContainerError::Crypto`] (`RANDOMNESS_UNAVAILABLE`).
    pub fn generate() -> Result<Self> {
        let k = rng::array::<DEK_LEN>()?;
        Ok(Self(*k))
    }

    /// A fresh random DEK on the heap, filled in place. A struct that holds
    /// the box can be moved (returned, boxed by wasm-bindgen) without leaving
    /// copies of the key behind: only the pointer moves.
    ///
    /// # Errors
    /// [`ContainerError::Crypto`] (`RANDOMNESS_UNAVAILABLE`).
    pub fn generate_boxed() -> Result<Box<Self>> {
        let mut dek = Box::new(Self([0; DEK_LEN]));
        rng::fill(&mut dek.0)?;
        Ok(dek)
    }

    /// Takes a DEK from its 32 bytes (the documented export path is
    /// [`ContainerReader::export_dek`](super::ContainerReader::export_dek)).
    ///
    /// # Errors
    /// [`ContainerError::Crypto`] (`INVALID_LENGTH`) unless 32 bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let k = crate::error::exact::<DEK_LEN>("dek", "32 bytes", bytes)?;
        Ok(Self(*k))
    }

    /// The key bytes.
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8; DEK_LEN] {
        &self.0
    }
}

/// The header fields every chunk is bound to (the immutable part of the header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileContext {
    /// File id.
    pub file_id: [u8; 16],
    /// Chunk size `C`.
    pub chunk_size: u32,
    /// Plaintext size `P`.
    pub plaintext_size: u64,
    /// Merkle hash algorithm.
    pub hash_alg: HashAlg,
    /// `header_hash` (see [`header_hash`]).
    pub header_hash: [u8; 32],
}

impl FileContext {
    /// The context of a header with these immutable fields.
    ///
    /// # Errors
    /// [`ContainerError::InvalidChunkSize`].
    pub fn new(
        file_id: [u8; 16],
        chunk_size: u32,
        plaintext_size: u64,
        hash_alg: HashAlg,
    ) -> Result<Self> {
        super::header::check_chunk_size(chunk_size)?;
        Ok(Self {
            file_id,
            chunk_size,
            plaintext_size,
            hash_alg,
            header_hash: header_hash(&file_id, chunk_size, plaintext_size, hash_alg),
        })
    }

    /// The context of a parsed header.
    #[must_use]
    pub fn of(header: &Header) -> Self {
        Self {
            file_id: header.file_id,
            chunk_size: header.chunk_size,
            plaintext_size: header.plaintext_size,
            hash_alg: header.hash_alg,
            header_hash: header_hash(
                &header.file_id,
                header.chunk_size,
                header.plaintext_size,
                header.hash_alg,
            ),
        }
    }

    /// Number of chunks: `ceil(P / C)` (0 for an empty file).
    #[must_use]
    pub fn chunk_count(&self) -> u64 {
        chunk_count(self.plaintext_size, self.chunk_size)
    }

    /// Plaintext length of chunk `index`.
    ///
    /// # Errors
    /// [`ContainerError::InvalidChunk`] if `index ≥ chunk_count`.
    pub fn chunk_len(&self, index: u64) -> Result<u32> {
        let count = self.chunk_count();
        if index >= count {
            return Err(ContainerError::InvalidChunk("chunk index out of range"));
        }
        let c = u64::from(self.chunk_size);
        let len = if index + 1 == count {
            self.plaintext_size - index * c
        } else {
            c
        };
        u32::try_from(len).map_err(|_| ContainerError::InvalidChunk("chunk length"))
    }

    /// Envelope length of chunk `index`: `32 + chunk_len`.
    ///
    /// # Errors
    /// As [`FileContext::chunk_len`].
    pub fn envelope_len(&self, index: u64) -> Result<usize> {
        let len = usize::try_from(self.chunk_len(index)?)
            .map_err(|_| ContainerError::InvalidChunk("chunk length"))?;
        len.checked_add(ENVELOPE_OVERHEAD)
            .ok_or(ContainerError::InvalidChunk("chunk length"))
    }

    /// Length of the leaf table: `32 · n`.
    #[must_use]
    pub fn leaf_table_len(&self) -> u64 {
        self.chunk_count().saturating_mul(LEAF_LEN as u64)
    }

    /// Offset of envelope `index` after the header (the leaf table comes
    /// first): `32 · n + index · (C + 32)`.
    #[must_use]
    pub fn envelope_offset(&self, index: u64) -> u64 {
        self.leaf_table_len().saturating_add(
            index.saturating_mul(u64::from(self.chunk_size) + ENVELOPE_OVERHEAD as u64),
        )
    }

    /// Everything after the header: the leaf table and all envelopes,
    /// `32 · n + P + 32 · n`.
    #[must_use]
    pub fn body_len(&self) -> u64 {
        self.plaintext_size
            .saturating_add(self.chunk_count().saturating_mul(ENVELOPE_OVERHEAD as u64))
            .saturating_add(self.leaf_table_len())
    }

    /// The header-hash preimage of this file ([`header_hash_preimage`]).
    #[must_use]
    pub fn header_hash_preimage(&self) -> [u8; HEADER_HASH_PREIMAGE_LEN] {
        header_hash_preimage(&self.file_id, self.chunk_size, self.plaintext_size, self.hash_alg)
    }

    /// Whether `dek` opens the commitment `commitment` of this file
    /// (constant time). See [`dek_commitment`].
    ///
    /// # Errors
    /// Only if HKDF fails (it cannot for these lengths).
    pub fn dek_matches(&self, dek: &Dek, commitment: &[u8; 32]) -> Result<bool> {
        let c = dek_commitment(dek, &self.file_id, &self.header_hash_preimage())?;
        Ok(bool::from(c.ct_eq(commitment)))
    }
}

/// `ceil(P / C)`; 0 for `P = 0` (and for the invalid `C = 0`).
#[must_use]
pub fn chunk_count(plaintext_size: u64, chunk_size: u32) -> u64 {
    if chunk_size == 0 {
        return 0;
    }
    plaintext_size.div_ceil(u64::from(chunk_size))
}

/// The header-hash preimage `"vollcrypt-file-header-v1" ‖ "VOLLVALT" ‖ u8
/// cipher_suite ‖ file_id16 ‖ u32be chunk_size ‖ u64be plaintext_size ‖ u8
/// hash_alg` (62 bytes) — the immutable header fields. Version, mode, Merkle
/// root, wraps, metadata and signatures are excluded, so they can change
/// without re-encrypting chunks.
#[must_use]
pub fn header_hash_preimage(
    file_id: &[u8; 16],
    chunk_size: u32,
    plaintext_size: u64,
    hash_alg: HashAlg,
) -> [u8; HEADER_HASH_PREIMAGE_LEN] {
    let mut out = [0u8; HEADER_HASH_PREIMAGE_LEN];
    let parts: [&[u8]; 7] = [
        HEADER_HASH_LABEL,
        MAGIC,
        &[CIPHER_SUITE_AES_256_GCM],
        file_id,
        &chunk_size.to_be_bytes(),
        &plaintext_size.to_be_bytes(),
        &[hash_alg.id()],
    ];
    let mut at = 0;
    for part in parts {
        if let Some(dst) = out.get_mut(at..at + part.len()) {
            dst.copy_from_slice(part);
        }
        at += part.len();
    }
    out
}

/// `header_hash = SHA-256(header_hash_preimage)`.
#[must_use]
pub fn header_hash(
    file_id: &[u8; 16],
    chunk_size: u32,
    plaintext_size: u64,
    hash_alg: HashAlg,
) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(&header_hash_preimage(file_id, chunk_size, plaintext_size, hash_alg));
    h.finalize()
}

/// The DEK commitment stored in the header:
///
/// ```text
/// K_c            = HKDF-SHA-256(ikm = DEK, salt = file_id, info = "vollcrypt-file-key-commitment-v1", L = 32)
/// dek_commitment = HMAC-SHA-256(K_c, header_hash_preimage)
/// ```
///
/// Every unlock path checks it before a DEK is accepted, so one header opens
/// under one DEK only (no multi-key files, no wrong-DEK acceptance) and the
/// immutable fields of even an empty file are bound to the key.
///
/// # Errors
/// Only if HKDF fails (it cannot for these lengths).
pub fn dek_commitment(
    dek: &Dek,
    file_id: &[u8; 16],
    preimage: &[u8; HEADER_HASH_PREIMAGE_LEN],
) -> Result<[u8; 32]> {
    let kc = hkdf_sha256(dek.as_bytes(), file_id, KEY_COMMITMENT_LABEL, 32)?;
    Ok(hmac_sha256(&kc, preimage))
}

/// HKDF `info` of chunk key `index`: `"vollcrypt-file-chunk-key-v1" ‖ u32be(index)` (31 bytes).
#[must_use]
pub fn chunk_key_info(index: u32) -> [u8; 31] {
    let mut out = [0u8; 31];
    let (label, idx) = out.split_at_mut(27);
    label.copy_from_slice(CHUNK_KEY_LABEL);
    idx.copy_from_slice(&index.to_be_bytes());
    out
}

/// HKDF `info` of chunk IV `index`: `"vollcrypt-file-chunk-iv-v1" ‖ u32be(index)` (30 bytes).
#[must_use]
pub fn chunk_iv_info(index: u32) -> [u8; 30] {
    let mut out = [0u8; 30];
    let (label, idx) = out.split_at_mut(26);
    label.copy_from_slice(CHUNK_IV_LABEL);
    idx.copy_from_slice(&index.to_be_bytes());
    out
}

/// The 32-byte AES-256-GCM key of chunk `index`.
///
/// # Errors
/// Only if HKDF fails (it cannot for these lengths).
pub fn chunk_key(dek: &Dek, file_id: &[u8; 16], index: u32) -> Result<Zeroizing<[u8; 32]>> {
    let okm = hkdf_sha256(dek.as_bytes(), file_id, &chunk_key_info(index), 32)?;
    let mut out = Zeroizing::new([0u8; 32]);
    out.copy_from_slice(&okm);
    Ok(out)
}

/// The 12-byte AES-GCM IV of chunk `index`.
///
/// # Errors
/// Only if HKDF fails (it cannot for these lengths).
pub fn chunk_iv(dek: &Dek, file_id: &[u8; 16], index: u32) -> Result<[u8; 12]> {
    let okm = hkdf_sha256(dek.as_bytes(), file_id, &chunk_iv_info(index), IV_LEN)?;
    let mut out = [0u8; IV_LEN];
    out.copy_from_slice(&okm);
    Ok(out)
}

/// `AAD_FileChunk_V1 = "vollcrypt-file-chunk-aad-v1" ‖ header_hash32 ‖ file_id16 ‖
/// u32be index ‖ u32be chunk_size ‖ u64be plaintext_size ‖ u32be chunk_plaintext_len`
/// ([`CHUNK_AAD_LEN`] = 95 bytes).
#[must_use]
pub fn chunk_aad(ctx: &FileContext, index: u32, chunk_len: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(CHUNK_AAD_LEN);
    out.extend_from_slice(CHUNK_AAD_LABEL);
    out.extend_from_slice(&ctx.header_hash);
    out.extend_from_slice(&ctx.file_id);
    out.extend_from_slice(&index.to_be_bytes());
    out.extend_from_slice(&ctx.chunk_size.to_be_bytes());
    out.extend_from_slice(&ctx.plaintext_size.to_be_bytes());
    out.extend_from_slice(&chunk_len.to_be_bytes());
    out
}

fn index_u32(index: u64) -> Result<u32> {
    u32::try_from(index).map_err(|_| ContainerError::InvalidChunk("chunk index out of range"))
}

/// Encrypts chunk `index` (whose plaintext must have exactly the length the
/// geometry prescribes) into its envelope.
///
/// # Errors
/// [`ContainerError::InvalidChunk`] for an index out of range or a wrong length.
pub fn seal_chunk(dek: &Dek, ctx: &FileContext, index: u64, plaintext: &[u8]) -> Result<Vec<u8>> {
    let expected = ctx.chunk_len(index)?;
    if u32::try_from(plaintext.len()).ok() != Some(expected) {
        return Err(ContainerError::InvalidChunk(
            "chunk plaintext has the wrong length",
        ));
    }
    let i = index_u32(index)?;
    let key = chunk_key(dek, &ctx.file_id, i)?;
    let iv = chunk_iv(dek, &ctx.file_id, i)?;
    let aad = chunk_aad(ctx, i, expected);
    let ct = aes_gcm_encrypt_with_iv(key.as_slice(), &iv, plaintext, &aad)?;
    let mut env = Vec::with_capacity(ENVELOPE_OVERHEAD + plaintext.len());
    env.extend_from_slice(&i.to_be_bytes());
    env.extend_from_slice(&iv);
    env.extend_from_slice(&ct);
    Ok(env)
}

/// The public parts of an envelope: stored index, IV and tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnvelopeParts {
    /// Stored index.
    pub index: u32,
    /// Stored IV.
    pub iv: [u8; IV_LEN],
    /// Stored tag.
    pub tag: [u8; TAG_LEN],
}

/// Checks the envelope of chunk `index` structurally (length, stored index)
/// and returns its public parts. Needs no key.
///
/// # Errors
/// [`ContainerError::InvalidChunk`] for an out-of-range index,
/// [`ContainerError::Truncated`] / [`ContainerError::TrailingBytes`] for a
/// wrong envelope length, [`ContainerError::AuthenticationFailed`] if the
/// stored index is not `index` (swapped or spliced chunk).
pub fn envelope_parts(ctx: &FileContext, index: u64, envelope: &[u8]) -> Result<EnvelopeParts> {
    let expected = ctx.envelope_len(index)?;
    if envelope.len() < expected {
        return Err(ContainerError::truncated(expected, envelope.len()));
    }
    if envelope.len() > expected {
        return Err(ContainerError::TrailingBytes);
    }
    let (idx, rest) = envelope
        .split_first_chunk::<4>()
        .ok_or_else(|| ContainerError::truncated(expected, envelope.len()))?;
    let (iv, rest) = rest
        .split_first_chunk::<IV_LEN>()
        .ok_or_else(|| ContainerError::truncated(expected, envelope.len()))?;
    let (_, tag) = rest
        .split_last_chunk::<TAG_LEN>()
        .ok_or_else(|| ContainerError::truncated(expected, envelope.len()))?;
    let stored = u32::from_be_bytes(*idx);
    if u64::from(stored) != index {
        return Err(ContainerError::AuthenticationFailed);
    }
    Ok(EnvelopeParts {
        index: stored,
        iv: *iv,
        tag: *tag,
    })
}

/// The Merkle leaf of the envelope of chunk `index`, hashed over the exact
/// envelope bytes (ciphertext included; structural checks as
/// [`envelope_parts`]; needs no key).
///
/// # Errors
/// As [`envelope_parts`].
pub fn envelope_leaf(ctx: &FileContext, index: u64, envelope: &[u8]) -> Result<[u8; 32]> {
    let parts = envelope_parts(ctx, index, envelope)?;
    let len = ctx.chunk_len(index)?;
    let ct_tag = envelope
        .get(4 + IV_LEN..)
        .ok_or_else(|| ContainerError::truncated(4 + IV_LEN, envelope.len()))?;
    Ok(merkle::leaf_hash(
        ctx.hash_alg,
        &ctx.file_id,
        parts.index,
        len,
        &parts.iv,
        ct_tag,
    ))
}

/// Authenticates and decrypts the envelope of chunk `index`. The leaf is
/// recomputed from these exact envelope bytes and must equal `expected_leaf`
/// (entry `index` of a leaf table that matched the header's root); the stored
/// index and IV must equal the expected index and the derived IV. Any mismatch
/// and any tag failure is [`ContainerError::AuthenticationFailed`] with no
/// plaintext released. This is the only function that releases chunk
/// plaintext, so no release path can skip the leaf check.
///
/// # Errors
/// As [`envelope_parts`], plus [`ContainerError::AuthenticationFailed`].
pub fn open_chunk(
    dek: &Dek,
    ctx: &FileContext,
    index: u64,
    envelope: &[u8],
    expected_leaf: &[u8; 32],
) -> Result<Zeroizing<Vec<u8>>> {
    let leaf = envelope_leaf(ctx, index, envelope)?;
    if !bool::from(leaf.ct_eq(expected_leaf)) {
        return Err(ContainerError::AuthenticationFailed);
    }
    let parts = envelope_parts(ctx, index, envelope)?;
    let len = ctx.chunk_len(index)?;
    let iv = chunk_iv(dek, &ctx.file_id, parts.index)?;
    if !bool::from(iv.ct_eq(&parts.iv)) {
        return Err(ContainerError::AuthenticationFailed);
    }
    let key = chunk_key(dek, &ctx.file_id, parts.index)?;
    let aad = chunk_aad(ctx, parts.index, len);
    let ct_tag = envelope
        .get(4 + IV_LEN..)
        .ok_or(ContainerError::AuthenticationFailed)?;
    let pt = aes_gcm_decrypt_with_iv(key.as_slice(), &iv, ct_tag, &aad)?;
    Ok(Zeroizing::new(pt))
}
