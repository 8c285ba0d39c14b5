//! The encryptor binding ([`ContainerEncryptorHandle`]): wraps, signer,
//! the DEK hand-off and the leaf table.

use super::{array16, array32, safe_u64, CResult};
use crate::wasm::{scrubbed, secret_in, secret_out, JsResult, StackUse};
use crate::container::external::{ExternalEncryptor, Finished};
use crate::container::header;
use crate::container::signature;
use crate::container::wrap::{self, Argon2idCost, WrapSpec};
use crate::container::{ContainerError, HashAlg, SigningKeys};
#[cfg(feature = "testing")]
use crate::container::Dek;
use js_sys::{JsString, Uint8Array};
use wasm_bindgen::prelude::*;
use zeroize::Zeroizing;

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
