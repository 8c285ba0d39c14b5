//! Container bindings (`crate::container`, byte-exact in `docs/FORMAT.md`)
//! for the browser file layer (`ts/files.ts`, `worker/files.ts`).
//!
//! In the browser the chunk layer runs in WebCrypto: the DEK becomes a
//! non-extractable HKDF `CryptoKey` and every chunk key / IV is derived from
//! it there (FORMAT.md §6.3). Everything else stays in the core: DEK
//! generation and wrapping (Argon2id, PBKDF2, X-Wing, group, threshold),
//! header serialisation and signing, the Merkle tree, header parsing and
//! unlocking. This file validates JS arguments, calls the core and converts.
//!
//! - [`ContainerEncryptorHandle`](encryptor::ContainerEncryptorHandle) is the core's `ExternalEncryptor`
//!   (`crate::container::external`): fed each chunk's leaf (hashed over the
//!   whole envelope by the chunk layer) instead of its plaintext, it returns
//!   the header followed by the leaf table. The DEK leaves exactly once,
//!   through `takeDek`, and is wiped there at that moment.
//! - [`ContainerReaderHandle`](reader::ContainerReaderHandle) wraps `ContainerReader`: parse, check the
//!   signature against a policy, check the leaf table against the root,
//!   unlock (DEK commitment checked), hand the DEK out once (`takeDek`, after
//!   which the reader holds no key).
//! - Stateless helpers: header length from a prefix, the leaf of an envelope
//!   (hashed over its exact bytes) and the check of a leaf table against a root.
//!
//! Errors: `ContainerError` crosses as every core error does
//! (`super::error`: a `VeilError` with its `code`; `TRUNCATED` also carries
//! `needed` and `got`). Sizes and indices cross as JS numbers and must be
//! safe integers.
mod encryptor;
mod reader;

use crate::wasm::JsResult;
#[cfg(feature = "testing")]
use crate::wasm::{scrubbed, secret_in, StackUse};
use crate::container::header::Header;
use crate::container::merkle;
use crate::container::{chunk, ContainerError, FileContext, HashAlg};
#[cfg(feature = "testing")]
use crate::container::Dek;
use js_sys::Array;
use wasm_bindgen::prelude::*;

type CResult<T> = Result<T, ContainerError>;

/// Largest integer a JS number holds exactly.
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

#[allow(
    clippy::cast_possible_truncation,
    reason = "`v as u64` only runs on a whole number in 0 ..= 2^53 - 1 (checked first): exact"
)]
fn safe_u64(what: &'static str, v: f64) -> CResult<u64> {
    if v.is_finite() && v.fract() == 0.0 && v >= 0.0 && v <= MAX_SAFE_INTEGER as f64 {
        Ok(v as u64)
    } else {
        Err(ContainerError::InvalidOption(what))
    }
}

fn array16(what: &'static str, bytes: &[u8]) -> CResult<[u8; 16]> {
    Ok(*crate::error::exact::<16>(what, "16 bytes", bytes)?)
}

fn array32(what: &'static str, bytes: &[u8]) -> CResult<[u8; 32]> {
    Ok(*crate::error::exact::<32>(what, "32 bytes", bytes)?)
}

// ---------------------------------------------------------------- stateless helpers

/// The header length a container prefix implies: the total header length
/// when the prefix determines it (the prefix may still be shorter), else
/// `-(prefix length to supply next)`. Header errors are thrown.
#[wasm_bindgen(js_name = "containerHeaderLength")]
pub fn container_header_length(prefix: &[u8]) -> JsResult<f64> {
    match Header::required_len(prefix)? {
        Ok(len) => Ok(len as f64),
        Err(needed) => Ok(-(needed as f64)),
    }
}

/// The leaf of the envelope of chunk `index` (FORMAT.md §7), hashed over its
/// exact bytes, with the structural checks of the core (length, stored index:
/// `AUTHENTICATION_FAILED` for a misplaced envelope).
#[wasm_bindgen(js_name = "containerEnvelopeLeaf")]
pub fn container_envelope_leaf(hash_alg: u8, file_id: &[u8], chunk_size: u32, plaintext_size: f64, index: f64, envelope: &[u8]) -> JsResult<Vec<u8>> {
    let ctx = context(file_id, chunk_size, plaintext_size, hash_alg)?;
    let index = safe_u64("index must be a safe non-negative integer", index)?;
    Ok(chunk::envelope_leaf(&ctx, index, envelope)?.to_vec())
}

/// Whether a leaf table (32 bytes per chunk) has Merkle root `root`.
#[wasm_bindgen(js_name = "containerCheckLeafTable")]
pub fn container_check_leaf_table(hash_alg: u8, table: &[u8], root: &[u8]) -> JsResult<bool> {
    let alg = HashAlg::from_id(hash_alg)?;
    let root = array32("root", root)?;
    let got = merkle::table_root(alg, table)?;
    Ok(bool::from(subtle::ConstantTimeEq::ct_eq(&got[..], &root[..])))
}

/// The chunk context of a header with these immutable fields.
fn context(file_id: &[u8], chunk_size: u32, plaintext_size: f64, hash_alg: u8) -> CResult<FileContext> {
    let file_id = array16("fileId", file_id)?;
    let plaintext_size = safe_u64("plaintextSize must be a safe non-negative integer", plaintext_size)?;
    FileContext::new(file_id, chunk_size, plaintext_size, HashAlg::from_id(hash_alg)?)
}

/// **Tests only** (feature `testing`, not in the shipped module): the Rust
/// engine's envelope of chunk `index` (`crate::container::chunk::seal_chunk`),
/// to compare the WebCrypto chunk layer with byte for byte.
#[cfg(feature = "testing")]
#[wasm_bindgen(js_name = "containerSealChunkForTesting")]
pub fn container_seal_chunk_for_testing(
    dek: Vec<u8>,
    file_id: &[u8],
    chunk_size: u32,
    plaintext_size: f64,
    hash_alg: u8,
    index: f64,
    plaintext: &[u8],
) -> JsResult<Vec<u8>> {
    scrubbed(StackUse::Small, || {
        let dek = secret_in(dek);
        let dek = Dek::from_bytes(&dek)?;
        let ctx = context(file_id, chunk_size, plaintext_size, hash_alg)?;
        let index = safe_u64("index must be a safe non-negative integer", index)?;
        Ok(chunk::seal_chunk(&dek, &ctx, index, plaintext)?)
    })
}

/// Every code `ContainerError` has besides the primitives' (for the TS code list test).
#[wasm_bindgen(js_name = "containerErrorCodes")]
#[must_use]
pub fn container_error_codes() -> Array {
    ContainerError::CODES.iter().map(|c| JsValue::from_str(c)).collect()
}
