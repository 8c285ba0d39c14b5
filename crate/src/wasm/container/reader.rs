//! The reader binding ([`ContainerReaderHandle`]): inspection, signature
//! policy, the leaf-table check and unlocking.

use super::{array16, array32, MAX_SAFE_INTEGER};
use crate::wasm::header_info::{header_info, JsHeaderInfo};
use crate::wasm::{scrubbed, secret_in, secret_out, JsResult, StackUse};
use crate::container::signature;
use crate::container::policy::{self, ExpectedSigner, SignatureRequirement, VerificationPolicy};
use crate::container::wrap::{self, ThresholdShare};
use crate::container::{ContainerError, ContainerReader, KdfBudget, SignatureStatus};
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use zeroize::Zeroizing;

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
