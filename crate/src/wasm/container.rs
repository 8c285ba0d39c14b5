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
//! - [`ContainerEncryptorHandle`] is the core's `ExternalEncryptor`
//!   (`crate::container::external`): fed each chunk's leaf (hashed over the
//!   whole envelope by the chunk layer) instead of its plaintext, it returns
//!   the header followed by the leaf table. The DEK leaves exactly once,
//!   through `takeDek`, and is wiped there at that moment.
//! - [`ContainerReaderHandle`] wraps `ContainerReader`: parse, check the
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
use super::header_info::{header_info, JsHeaderInfo};
use super::{scrubbed, secret_in, secret_out, JsResult, StackUse};
use crate::container::external::{ExternalEncryptor, Finished};
use crate::container::header::{self, Header};
use crate::container::{merkle, signature};
use crate::container::policy::{self, ExpectedSigner, SignatureRequirement, VerificationPolicy};
use crate::container::wrap::{self, Argon2idCost, ThresholdShare, WrapSpec};
use crate::container::{chunk, ContainerError, ContainerReader, FileContext, HashAlg, KdfBudget, SignatureStatus, SigningKeys};
#[cfg(feature = "testing")]
use crate::container::Dek;
use js_sys::{Array, JsString, Uint8Array};
use wasm_bindgen::prelude::*;
use zeroize::Zeroizing;

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

// ---------------------------------------------------------------- writing

/// Streaming encryptor whose chunks are encrypted outside wasm (WebCrypto).
///
/// 1. `new` draws the DEK and the file id; `add*` build the wraps (the
///    password KDF runs here); `setSigner` / `setExternalSigner` optionally;
/// 2. `prefixLength()` (header and leaf table) is then final: reserve that many bytes;
/// 3. `takeDek()` hands the DEK out once and wipes it here;
/// 4. `pushChunkLeaves` the leaf of every chunk, in order;
/// 5. `finish()` (or `signedMessage()` + `finishSigned(…)`) returns the header
///    followed by the leaf table.
#[wasm_bindgen(js_name = "ContainerEncryptorHandle")]
pub struct ContainerEncryptorHandle {
    /// Keeps its DEK boxed: moving the handle copies a pointer, never the key.
    inner: ExternalEncryptor,
}

impl ContainerEncryptorHandle {
    /// The plaintext size (a safe integer) and the hash algorithm of a new
    /// container, checked in the order the JS API reports them: sizes first
    /// (the core checks them again), then the hash algorithm.
    fn sizes(plaintext_size: f64, chunk_size: u32, hash_alg: u8) -> CResult<(u64, HashAlg)> {
        let size = safe_u64("plaintextSize must be a safe non-negative integer", plaintext_size)?;
        header::check_chunk_size(chunk_size)?;
        header::check_plaintext_size(size, chunk_size)?;
        Ok((size, HashAlg::from_id(hash_alg)?))
    }

}

#[wasm_bindgen(js_class = "ContainerEncryptorHandle")]
impl ContainerEncryptorHandle {
    /// A new container of `plaintextSize` bytes (fresh random DEK and file id).
    #[wasm_bindgen(constructor)]
    pub fn new(plaintext_size: f64, chunk_size: u32, hash_alg: u8) -> JsResult<ContainerEncryptorHandle> {
        scrubbed(StackUse::Small, || {
            let (size, alg) = Self::sizes(plaintext_size, chunk_size, hash_alg)?;
            Ok(Self { inner: ExternalEncryptor::new(size, chunk_size, alg)? })
        })
    }

    /// **Tests only** (feature `testing`, not in the shipped module): a
    /// container with a given DEK and file id, so that its chunks can be
    /// compared byte for byte with the Rust engine's. A DEK or file id must
    /// never be reused for real data.
    #[cfg(feature = "testing")]
    #[wasm_bindgen(js_name = "withFixedKeysForTesting")]
    pub fn with_fixed_keys_for_testing(
        plaintext_size: f64,
        chunk_size: u32,
        hash_alg: u8,
        dek: Vec<u8>,
        file_id: &[u8],
    ) -> JsResult<ContainerEncryptorHandle> {
        scrubbed(StackUse::Small, || {
            let dek = Dek::from_bytes(&secret_in(dek))?;
            let file_id = array16("fileId", file_id)?;
            let (size, alg) = Self::sizes(plaintext_size, chunk_size, hash_alg)?;
            Ok(Self { inner: ExternalEncryptor::with_fixed_keys_for_testing(size, chunk_size, alg, dek, file_id)? })
        })
    }

    /// Adds a PBKDF2-HMAC-SHA-256 password wrap (type 0).
    #[wasm_bindgen(js_name = "addPbkdf2")]
    pub fn add_pbkdf2(&mut self, password: Vec<u8>, iterations: u32) -> JsResult<()> {
        scrubbed(StackUse::Small, || {
            self.inner.add_wrap(&WrapSpec::Pbkdf2 { password: secret_in(password), iterations })?;
            Ok(())
        })
    }

    /// Adds an Argon2id password wrap (type 1).
    #[wasm_bindgen(js_name = "addArgon2id")]
    pub fn add_argon2id(&mut self, password: Vec<u8>, memory_kib: u32, iterations: u32, parallelism: u32) -> JsResult<()> {
        scrubbed(StackUse::Small, || {
            let cost = Argon2idCost { memory_kib, iterations, parallelism };
            self.inner.add_wrap(&WrapSpec::Argon2id { password: secret_in(password), cost })?;
            Ok(())
        })
    }

    /// Adds a group wrap (type 3) under a 32-byte group key.
    #[wasm_bindgen(js_name = "addGroup")]
    pub fn add_group(&mut self, group_id: &[u8], key_version: u32, group_key: Vec<u8>) -> JsResult<()> {
        scrubbed(StackUse::Small, || {
            let group_key = secret_in(group_key);
            let group_id = array16("groupId", group_id)?;
            let group_key = Zeroizing::new(array32("groupKey", &group_key)?);
            self.inner.add_wrap(&WrapSpec::Group { group_id, key_version, group_key })?;
            Ok(())
        })
    }

    /// Adds an X-Wing recipient wrap (type 4); returns the recipient id used
    /// (`recipientId`, or the default derived from the public key).
    #[wasm_bindgen(js_name = "addRecipient")]
    pub fn add_recipient(&mut self, public_key: &[u8], key_version: u32, recipient_id: Option<Vec<u8>>) -> JsResult<Vec<u8>> {
        scrubbed(StackUse::Kem, || {
            let rid = match recipient_id {
                Some(r) => array16("recipientId", &r)?,
                None => wrap::recipient_id_for(public_key),
            };
            self.inner.add_wrap(&WrapSpec::Recipient { public_key: public_key.to_vec(), key_version, recipient_id: Some(rid) })?;
            Ok(rid.to_vec())
        })
    }

    /// Adds a threshold wrap (type 5); returns its `n` `vcs_` shares, one per line.
    ///
    /// The shares are secrets: the text is built in one zeroizing buffer sized
    /// up front (growing it would leave the old buffers unwiped in the freed
    /// heap) and handed to JS as a `JsString` decoded straight from it (a
    /// returned `String` would be freed by the glue without a wipe).
    #[wasm_bindgen(js_name = "addThreshold")]
    pub fn add_threshold(&mut self, threshold: u8, shares: u8) -> JsResult<JsString> {
        scrubbed(StackUse::Small, || {
            let out = self.inner.add_wrap(&WrapSpec::Threshold { threshold, shares })?;
            let mut text = Zeroizing::new(String::with_capacity(out.len() * (wrap::SHARE_STRING_LEN + 1)));
            for (i, s) in out.iter().enumerate() {
                if i > 0 {
                    text.push('\n');
                }
                text.push_str(&s.to_vcs());
            }
            Ok(JsString::from(text.as_str()))
        })
    }

    /// Signs the header with keys held here: Ed25519 (v5) or Ed25519 + ML-DSA-65 (v6).
    #[wasm_bindgen(js_name = "setSigner")]
    pub fn set_signer(&mut self, ed25519_seed: Vec<u8>, mldsa_seed: Option<Vec<u8>>, key_log_id: &[u8], timestamp: f64) -> JsResult<()> {
        scrubbed(StackUse::MlDsa, || {
            let ed = secret_in(ed25519_seed);
            let ml = mldsa_seed.map(secret_in);
            self.inner.check_header_open()?;
            let log = array32("keyLogId", key_log_id)?;
            let ts = safe_u64("timestamp must be a safe non-negative integer", timestamp)?;
            let keys = match &ml {
                Some(m) => SigningKeys::hybrid(&ed, m, log, ts)?,
                None => SigningKeys::ed25519(&ed, log, ts)?,
            };
            self.inner.set_signer(keys)?;
            Ok(())
        })
    }

    /// Prepares a header signed elsewhere (e.g. by a keystore identity): the
    /// signer's Ed25519 and optional ML-DSA-65 public keys are recorded now;
    /// the signatures over `signedMessage()` are supplied to `finishSigned`.
    #[wasm_bindgen(js_name = "setExternalSigner")]
    pub fn set_external_signer(&mut self, ed25519_public: &[u8], mldsa_public: Option<Vec<u8>>, key_log_id: &[u8], timestamp: f64) -> JsResult<()> {
        self.inner.check_header_open()?;
        let ed25519_public = array32("ed25519Public", ed25519_public)?;
        if let Some(pk) = &mldsa_public {
            signature::check_mldsa_public("mlDsaPublic", pk)?;
        }
        let timestamp = safe_u64("timestamp must be a safe non-negative integer", timestamp)?;
        let key_log_id = array32("keyLogId", key_log_id)?;
        self.inner.set_external_signer(ed25519_public, mldsa_public, key_log_id, timestamp)?;
        Ok(())
    }

    /// Length of the final header alone (fixed once the wraps and signer are set).
    #[wasm_bindgen(js_name = "headerLength")]
    pub fn header_length(&self) -> JsResult<f64> {
        Ok(self.inner.header_len()? as f64)
    }

    /// Length of the header and the leaf table: the first envelope starts here.
    #[wasm_bindgen(js_name = "prefixLength")]
    pub fn prefix_length(&self) -> JsResult<f64> {
        Ok(self.inner.prefix_len()? as f64)
    }

    /// The file id.
    #[wasm_bindgen(js_name = "fileId")]
    #[must_use]
    pub fn file_id(&self) -> Vec<u8> {
        self.inner.file_id().to_vec()
    }

    /// `header_hash` (FORMAT.md §6.2), part of every chunk's AAD.
    #[wasm_bindgen(js_name = "headerHash")]
    #[must_use]
    pub fn header_hash(&self) -> Vec<u8> {
        self.inner.context().header_hash.to_vec()
    }

    /// Number of chunks.
    #[wasm_bindgen(js_name = "chunkCount")]
    #[must_use]
    pub fn chunk_count(&self) -> f64 {
        self.inner.chunk_count() as f64
    }

    /// Hands the DEK out (once) and wipes it here. Needs at least one wrap;
    /// afterwards no wrap or signer can be added.
    #[wasm_bindgen(js_name = "takeDek")]
    pub fn take_dek(&mut self) -> JsResult<Uint8Array> {
        scrubbed(StackUse::Small, || Ok(self.inner.take_dek(|dek| secret_out(dek))?))
    }

    /// Feeds the leaves (32 bytes each, FORMAT.md §7) of consecutive chunks,
    /// starting at `firstIndex`, which must be the next chunk in order.
    #[wasm_bindgen(js_name = "pushChunkLeaves")]
    pub fn push_chunk_leaves(&mut self, first_index: f64, leaves: &[u8]) -> JsResult<()> {
        let first = safe_u64("firstIndex must be a safe non-negative integer", first_index)?;
        Ok(self.inner.push_leaves(first, leaves)?)
    }

    /// The final header (unsigned, or signed with the keys of `setSigner`)
    /// followed by the leaf table: exactly `prefixLength()` bytes.
    pub fn finish(&mut self) -> JsResult<Vec<u8>> {
        scrubbed(StackUse::MlDsa, || match self.inner.finish()? {
            Finished::Prefix(bytes) => Ok(bytes),
            Finished::NeedsSignatures(_) => {
                Err(ContainerError::InvalidState("an external signer needs signedMessage and finishSigned").into())
            }
        })
    }

    /// External signing: the message both signatures cover (FORMAT.md §8.1):
    /// Ed25519 over it, and ML-DSA-65 with context `vollcrypt-file-header-v3`.
    #[wasm_bindgen(js_name = "signedMessage")]
    pub fn signed_message(&mut self) -> JsResult<Vec<u8>> {
        Ok(self.inner.signed_message()?)
    }

    /// External signing: inserts the signatures, checks them and returns the
    /// final header followed by the leaf table (`INVALID_SIGNATURE` if they do
    /// not verify).
    #[wasm_bindgen(js_name = "finishSigned")]
    pub fn finish_signed(&mut self, ed25519_signature: &[u8], mldsa_signature: Option<Vec<u8>>) -> JsResult<Vec<u8>> {
        Ok(self.inner.finish_signed(ed25519_signature, mldsa_signature)?)
    }
}

// ---------------------------------------------------------------- reading

/// A parsed header: inspection, signature policy, the leaf-table check,
/// unlocking (the DEK is handed out once and forgotten).
#[wasm_bindgen(js_name = "ContainerReaderHandle")]
pub struct ContainerReaderHandle {
    inner: ContainerReader,
    budget: KdfBudget,
}

impl ContainerReaderHandle {
    fn unlock_with(&mut self, unlock: &wrap::Unlock<'_>) -> JsResult<()> {
        Ok(self.inner.unlock_with_budget(unlock, &self.budget)?)
    }
}

#[wasm_bindgen(js_class = "ContainerReaderHandle")]
impl ContainerReaderHandle {
    /// Parses the header at the start of `prefix` (which may extend into the body).
    /// Sizes cross as JS numbers: a header whose full container length (header
    /// plus every envelope, even after a purge) is not a safe integer is refused
    /// with `INVALID_PLAINTEXT_SIZE` rather than reported rounded (the format
    /// itself allows up to 2^32 chunks of 16 MiB).
    #[wasm_bindgen(constructor)]
    pub fn new(prefix: &[u8]) -> JsResult<ContainerReaderHandle> {
        let inner = ContainerReader::new(prefix)?;
        if (inner.header_len() as u64).saturating_add(inner.context().body_len()) > MAX_SAFE_INTEGER {
            return Err(ContainerError::InvalidPlaintextSize.into());
        }
        Ok(Self { inner, budget: KdfBudget::default() })
    }

    /// The KDF budget of the next unlock (`KdfBudget`; the default until set): password
    /// wraps over the caps are skipped without work, at most `password_attempts` are tried.
    #[wasm_bindgen(js_name = "setKdfBudget")]
    pub fn set_kdf_budget(&mut self, argon2_memory_kib: u32, argon2_iterations: u32, pbkdf2_iterations: u32, password_attempts: u32) {
        self.budget = KdfBudget { argon2_memory_kib, argon2_iterations, pbkdf2_iterations, password_attempts };
    }

    /// Header length: the leaf table starts here.
    #[wasm_bindgen(js_name = "headerLength")]
    #[must_use]
    pub fn header_length(&self) -> f64 {
        self.inner.header_len() as f64
    }

    /// The exact container length the header implies (header alone after a purge).
    #[wasm_bindgen(js_name = "containerLength")]
    #[must_use]
    pub fn container_length(&self) -> f64 {
        self.inner.container_len() as f64
    }

    /// `header_hash` (FORMAT.md §6.2).
    #[wasm_bindgen(js_name = "headerHash")]
    #[must_use]
    pub fn header_hash(&self) -> Vec<u8> {
        self.inner.context().header_hash.to_vec()
    }

    /// The parsed header (`container::HeaderInfo`) as a plain object, typed
    /// `HeaderInfo` in the glue (`super::header_info`).
    pub fn info(&self) -> JsHeaderInfo {
        header_info(&self.inner.info())
    }

    /// Checks the signature table and the policy (`policy::check_signature`):
    /// an invalid signature is always `INVALID_SIGNATURE`; unsigned with
    /// `required` or a pin is `SIGNATURE_MISSING`; another Ed25519 key than
    /// `expectedEd25519`, or another ML-DSA-65 key than `expectedMlDsa65`, is
    /// `SIGNER_MISMATCH`; a pin with an ML-DSA-65 key and no ML-DSA-65
    /// signature is `HYBRID_REQUIRED`. Returns `unsigned`, `ed25519` or `hybrid`.
    #[wasm_bindgen(js_name = "checkSignature")]
    pub fn check_signature(&self, required: bool, expected_ed25519: Option<Vec<u8>>, expected_mldsa65: Option<Vec<u8>>) -> JsResult<String> {
        let expected_signer = match (expected_ed25519, expected_mldsa65) {
            (Some(ed), pq) => {
                if let Some(pk) = &pq {
                    signature::check_mldsa_public("expectedSigner.mlDsa65", pk)?;
                }
                Some(ExpectedSigner { ed25519: array32("expectedSigner.ed25519", &ed)?, mldsa65: pq })
            }
            (None, Some(_)) => return Err(ContainerError::InvalidOption("an ML-DSA-65 pin needs the Ed25519 key too").into()),
            (None, None) => None,
        };
        let pol = VerificationPolicy {
            signature: if required { SignatureRequirement::Required } else { SignatureRequirement::Optional },
            expected_signer,
            ..VerificationPolicy::default()
        };
        Ok(match policy::check_signature(&self.inner, &pol)? {
            SignatureStatus::Unsigned => "unsigned",
            SignatureStatus::Ed25519 => "ed25519",
            SignatureStatus::Hybrid => "hybrid",
        }
        .to_owned())
    }

    /// Unlocks with a password (every PBKDF2 / Argon2id wrap in table order).
    #[wasm_bindgen(js_name = "unlockPassword")]
    pub fn unlock_password(&mut self, password: Vec<u8>) -> JsResult<()> {
        scrubbed(StackUse::Small, || {
            let password = secret_in(password);
            self.unlock_with(&wrap::Unlock::Password(&password))
        })
    }

    /// Unlocks with a group key (the wrap with this group id and key version).
    #[wasm_bindgen(js_name = "unlockGroup")]
    pub fn unlock_group(&mut self, group_id: &[u8], key_version: u32, group_key: Vec<u8>) -> JsResult<()> {
        scrubbed(StackUse::Small, || {
            let group_key = secret_in(group_key);
            let group_id = array16("groupId", group_id)?;
            self.unlock_with(&wrap::Unlock::Group(wrap::GroupUnlock { group_id, key_version, group_key: &group_key, manifest: None }))
        })
    }

    /// Unlocks with an X-Wing secret key (32-byte seed); with `recipientId`
    /// only wraps carrying it are tried.
    #[wasm_bindgen(js_name = "unlockRecipient")]
    pub fn unlock_recipient(&mut self, secret_key: Vec<u8>, recipient_id: Option<Vec<u8>>) -> JsResult<()> {
        scrubbed(StackUse::Kem, || {
            let secret_key = secret_in(secret_key);
            let recipient_id = recipient_id.map(|r| array16("recipientId", &r)).transpose()?;
            self.unlock_with(&wrap::Unlock::Recipient { secret_key: &secret_key, recipient_id })
        })
    }

    /// Unlocks with `vcs_` threshold shares, one per line.
    #[wasm_bindgen(js_name = "unlockShares")]
    pub fn unlock_shares(&mut self, shares: String) -> JsResult<()> {
        scrubbed(StackUse::Small, || {
            let text = Zeroizing::new(shares);
            // Sized up front: a growing Vec would leave moved shares unwiped in the freed heap.
            let mut parsed = Vec::with_capacity(text.lines().count());
            for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
                parsed.push(ThresholdShare::parse(line)?);
            }
            self.unlock_with(&wrap::Unlock::Shares(&parsed))
        })
    }

    /// Unlocks with the DEK itself (interoperability and tests).
    #[wasm_bindgen(js_name = "unlockDek")]
    pub fn unlock_dek(&mut self, dek: Vec<u8>) -> JsResult<()> {
        scrubbed(StackUse::Small, || {
            let dek = secret_in(dek);
            Ok(self.inner.unlock_dek(&dek)?)
        })
    }

    /// Hands the DEK out (once; it passed the header's DEK commitment at
    /// unlock) and wipes it here.
    #[wasm_bindgen(js_name = "takeDek")]
    pub fn take_dek(&mut self) -> JsResult<Uint8Array> {
        scrubbed(StackUse::Small, || {
            let dek = self.inner.export_dek()?;
            self.inner.forget_dek();
            Ok(secret_out(dek.as_slice()))
        })
    }

    /// Checks the leaf table (the `leafTableLength` bytes after the header)
    /// against the header's Merkle root: `AUTHENTICATION_FAILED` on a
    /// mismatch, `TRUNCATED` / `TRAILING_BYTES` for a wrong length.
    #[wasm_bindgen(js_name = "setLeafTable")]
    pub fn set_leaf_table(&mut self, table: &[u8]) -> JsResult<()> {
        Ok(self.inner.set_leaf_table(table)?)
    }
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
