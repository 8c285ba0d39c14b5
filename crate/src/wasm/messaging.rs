//! Messaging bindings (`crate::messaging`): validate, call, convert.
//!
//! Several outputs are concatenated in a documented order and split by
//! `ts/messaging.ts`; structured results (verification codes, key-log entries,
//! registries, reports) cross as JSON text in the forms of `docs/PROTOCOL.md`.
//! Integers arrive as JS numbers and must be safe integers (0 … 2^53 − 1).
//!
//! Size: one thin binding (validate → call → convert) per messaging function, a few lines each, read as a list.
use super::{JsResult, StackUse, concat_out, scrubbed, secret_in, secret_out};
use crate::error::CryptoError;
use crate::messaging::keylog::{self, KeyLogAction};
use crate::messaging::replay::ReplayStore;
use crate::messaging::verification::{SasRole, SasVerification};
use crate::messaging::{
    MAX_SAFE_INTEGER, MessagingError, akem, chunked, hybrid_kem, padding, registry, sealed,
    session, transcript, verification,
};
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;

/// A JS number that must be a safe non-negative integer.
#[allow(
    clippy::cast_possible_truncation,
    reason = "`v as u64` only runs on a whole number in 0 ..= 2^53 - 1 (checked first): exact"
)]
pub(super) fn safe_u64(what: &'static str, v: f64) -> JsResult<u64> {
    if v.is_finite() && v.fract() == 0.0 && v >= 0.0 && v <= MAX_SAFE_INTEGER as f64 {
        Ok(v as u64)
    } else {
        Err(CryptoError::InvalidParameter(what).into())
    }
}

fn safe_f64(v: u64) -> f64 {
    v as f64
}

// ---------------------------------------------------------------- KEMs

/// Hybrid encapsulation, as `mlKemCiphertext(1088) ‖ sharedKey(32)`.
#[wasm_bindgen(js_name = "hybridKemEncapsulate")]
pub fn hybrid_kem_encapsulate(
    our_secret: Vec<u8>,
    their_public: &[u8],
    mlkem_ek: &[u8],
) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Kem, || {
        let our_secret = secret_in(our_secret);
        let r = hybrid_kem::hybrid_kem_encapsulate(&our_secret, their_public, mlkem_ek)?;
        Ok(concat_out(&[&r.mlkem_ciphertext, r.shared_key.as_slice()]))
    })
}

/// Hybrid decapsulation: the 32-byte shared key.
#[wasm_bindgen(js_name = "hybridKemDecapsulate")]
pub fn hybrid_kem_decapsulate(
    our_secret: Vec<u8>,
    their_public: &[u8],
    mlkem_dk: Vec<u8>,
    mlkem_ct: &[u8],
) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Kem, || {
        let (our_secret, mlkem_dk) = (secret_in(our_secret), secret_in(mlkem_dk));
        let k = hybrid_kem::hybrid_kem_decapsulate(&our_secret, their_public, &mlkem_dk, mlkem_ct)?;
        Ok(secret_out(k.as_slice()))
    })
}

/// Authenticated encapsulation, as `ciphertext(1154) ‖ sharedSecret(32)`.
#[wasm_bindgen(js_name = "authenticatedKemEncapsulate")]
pub fn authenticated_kem_encapsulate(
    our_secret: Vec<u8>,
    recipient_public: &[u8],
    recipient_mlkem_ek: &[u8],
    sender_identity_secret: Vec<u8>,
) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Kem, || {
        let (our_secret, identity) = (secret_in(our_secret), secret_in(sender_identity_secret));
        let (ct, ss) = akem::authenticated_kem_encapsulate(
            &our_secret,
            recipient_public,
            recipient_mlkem_ek,
            &identity,
        )?;
        Ok(concat_out(&[&ct, ss.as_slice()]))
    })
}

/// Authenticated decapsulation (signature verified first): the 32-byte shared secret.
#[wasm_bindgen(js_name = "authenticatedKemDecapsulate")]
pub fn authenticated_kem_decapsulate(
    our_secret: Vec<u8>,
    sender_public: &[u8],
    our_mlkem_dk: Vec<u8>,
    authenticated_ciphertext: &[u8],
    sender_identity_public: &[u8],
) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Kem, || {
        let (our_secret, dk) = (secret_in(our_secret), secret_in(our_mlkem_dk));
        let ss = akem::authenticated_kem_decapsulate(
            &our_secret,
            sender_public,
            &dk,
            authenticated_ciphertext,
            sender_identity_public,
        )?;
        Ok(secret_out(ss.as_slice()))
    })
}

// ---------------------------------------------------------------- padding, padded and chunked AEAD

/// `u32(len) ‖ content ‖ zeros` to the padded size.
#[wasm_bindgen(js_name = "padMessage")]
pub fn pad_message(content: Vec<u8>) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Small, || {
        let content = secret_in(content);
        let p = padding::pad_message(&content)?;
        Ok(secret_out(&p))
    })
}

/// Removes veilkit padding (strict).
#[wasm_bindgen(js_name = "unpadMessage")]
pub fn unpad_message(padded: Vec<u8>) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Small, || {
        let padded = secret_in(padded);
        let c = padding::unpad_message(&padded)?;
        Ok(secret_out(&c))
    })
}

/// Padded size of a content length.
#[wasm_bindgen(js_name = "paddedLength")]
pub fn padded_length(content_length: f64) -> JsResult<f64> {
    let n = usize::try_from(safe_u64(
        "contentLength must be a safe integer",
        content_length,
    )?)
    .map_err(|_| CryptoError::InvalidParameter("contentLength too large"))?;
    Ok(padding::padded_len(n)? as f64)
}

/// Pads, then AES-256-GCM with a fresh IV: `iv ‖ ct ‖ tag`.
#[wasm_bindgen(js_name = "encryptAesGcmPadded")]
pub fn encrypt_aes_gcm_padded(key: Vec<u8>, plaintext: Vec<u8>, aad: &[u8]) -> JsResult<Vec<u8>> {
    scrubbed(StackUse::Small, || {
        let (key, plaintext) = (secret_in(key), secret_in(plaintext));
        Ok(padding::encrypt_aes_gcm_padded(&key, &plaintext, aad)?)
    })
}

/// Decrypts and unpads.
#[wasm_bindgen(js_name = "decryptAesGcmPadded")]
pub fn decrypt_aes_gcm_padded(key: Vec<u8>, ciphertext: &[u8], aad: &[u8]) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Small, || {
        let key = secret_in(key);
        let pt = padding::decrypt_aes_gcm_padded(&key, ciphertext, aad)?;
        Ok(secret_out(&pt))
    })
}

/// Chunked AES-256-GCM.
#[wasm_bindgen(js_name = "encryptAesGcmChunked")]
pub fn encrypt_aes_gcm_chunked(
    key: Vec<u8>,
    plaintext: Vec<u8>,
    aad: &[u8],
    chunk_size: u32,
) -> JsResult<Vec<u8>> {
    scrubbed(StackUse::Small, || {
        let (key, plaintext) = (secret_in(key), secret_in(plaintext));
        Ok(chunked::encrypt_aes_gcm_chunked(
            &key, &plaintext, aad, chunk_size,
        )?)
    })
}

/// Decrypts a chunked ciphertext (all chunks or nothing).
#[wasm_bindgen(js_name = "decryptAesGcmChunked")]
pub fn decrypt_aes_gcm_chunked(
    key: Vec<u8>,
    ciphertext: &[u8],
    aad: &[u8],
) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Small, || {
        let key = secret_in(key);
        let pt = chunked::decrypt_aes_gcm_chunked(&key, ciphertext, aad)?;
        Ok(secret_out(&pt))
    })
}

// ---------------------------------------------------------------- session keys

/// Session root key.
#[wasm_bindgen(js_name = "deriveSrk")]
pub fn derive_srk(dek: Vec<u8>, chat_id: &[u8]) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Small, || {
        let dek = secret_in(dek);
        let k = session::derive_srk(&dek, chat_id)?;
        Ok(secret_out(k.as_slice()))
    })
}

/// Window key.
#[wasm_bindgen(js_name = "deriveWindowKey")]
pub fn derive_window_key(srk: Vec<u8>, window_index: f64) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Small, || {
        let srk = secret_in(srk);
        let w = safe_u64(
            "windowIndex must be a safe non-negative integer",
            window_index,
        )?;
        let k = session::derive_window_key(&srk, w)?;
        Ok(secret_out(k.as_slice()))
    })
}

/// Fresh ratchet key pair as `secret32 ‖ public32`.
#[wasm_bindgen(js_name = "generateRatchetKeypair")]
pub fn generate_ratchet_keypair() -> JsResult<Uint8Array> {
    scrubbed(StackUse::Small, || {
        let kp = session::generate_ratchet_keypair()?;
        Ok(concat_out(&[kp.secret.as_slice(), &kp.public]))
    })
}

/// One PCS ratchet step.
#[wasm_bindgen(js_name = "ratchetSrk")]
pub fn ratchet_srk(
    current_srk: Vec<u8>,
    our_ratchet_secret: Vec<u8>,
    their_ratchet_public: &[u8],
    chat_id: &[u8],
    ratchet_step: f64,
    is_sender: bool,
) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Small, || {
        let (srk, ours) = (secret_in(current_srk), secret_in(our_ratchet_secret));
        let step = safe_u64(
            "ratchetStep must be a safe non-negative integer",
            ratchet_step,
        )?;
        let k = session::ratchet_srk(&srk, &ours, their_ratchet_public, chat_id, step, is_sender)?;
        Ok(secret_out(k.as_slice()))
    })
}

/// Whether to ratchet now.
#[wasm_bindgen(js_name = "shouldRatchet")]
pub fn should_ratchet(
    message_count: f64,
    window_changed: bool,
    messages_per_ratchet: f64,
    ratchet_on_new_window: bool,
) -> JsResult<bool> {
    let count = safe_u64(
        "messageCount must be a safe non-negative integer",
        message_count,
    )?;
    let per = safe_u64(
        "messagesPerRatchet must be a safe non-negative integer",
        messages_per_ratchet,
    )?;
    Ok(session::should_ratchet(
        count,
        window_changed,
        per,
        ratchet_on_new_window,
    ))
}

// ---------------------------------------------------------------- transcript

/// Initial chain state of a session id.
#[wasm_bindgen(js_name = "transcriptNew")]
pub fn transcript_new(session_id: &[u8]) -> JsResult<Vec<u8>> {
    Ok(transcript::transcript_new(session_id)?.to_vec())
}

/// Hash of one message envelope.
#[wasm_bindgen(js_name = "transcriptComputeMessageHash")]
pub fn transcript_compute_message_hash(
    message_id: &[u8],
    sender_id: &[u8],
    timestamp: f64,
    ciphertext: &[u8],
) -> JsResult<Vec<u8>> {
    let t = safe_u64("timestamp must be a safe non-negative integer", timestamp)?;
    Ok(transcript::transcript_compute_message_hash(message_id, sender_id, t, ciphertext)?.to_vec())
}

/// Next chain state.
#[wasm_bindgen(js_name = "transcriptUpdate")]
pub fn transcript_update(chain_state: &[u8], message_hash: &[u8]) -> JsResult<Vec<u8>> {
    Ok(transcript::transcript_update(chain_state, message_hash)?.to_vec())
}

/// Constant-time equality of two chain states.
#[wasm_bindgen(js_name = "transcriptVerifySync")]
pub fn transcript_verify_sync(hash_a: &[u8], hash_b: &[u8]) -> JsResult<bool> {
    Ok(transcript::transcript_verify_sync(hash_a, hash_b)?)
}

// ---------------------------------------------------------------- sealed sender

/// Seals `content` from `senderId` to a recipient, signed by the sender.
#[wasm_bindgen(js_name = "sealMessage")]
pub fn seal_message(
    recipient_public: &[u8],
    sender_id: &[u8],
    content: Vec<u8>,
    sender_signing_key: Vec<u8>,
) -> JsResult<Vec<u8>> {
    scrubbed(StackUse::Small, || {
        let (content, signing) = (secret_in(content), secret_in(sender_signing_key));
        Ok(sealed::seal_message(
            recipient_public,
            sender_id,
            &content,
            &signing,
        )?)
    })
}

/// The sender id a packet claims (decrypted, **not verified**).
#[wasm_bindgen(js_name = "unsealSenderId")]
pub fn unseal_sender_id(sealed_packet: &[u8], our_secret: Vec<u8>) -> JsResult<Vec<u8>> {
    scrubbed(StackUse::Small, || {
        let our_secret = secret_in(our_secret);
        Ok(sealed::unseal_sender_id(sealed_packet, &our_secret)?)
    })
}

/// Unseals and verifies, as `u16(|senderId|) ‖ senderId ‖ content`.
#[wasm_bindgen(js_name = "unsealMessage")]
pub fn unseal_message(
    sealed_packet: &[u8],
    our_secret: Vec<u8>,
    sender_identity_public: &[u8],
) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Small, || {
        let our_secret = secret_in(our_secret);
        let u = sealed::unseal_message(sealed_packet, &our_secret, sender_identity_public)?;
        let len =
            u16::try_from(u.sender_id.len()).map_err(|_| MessagingError::AuthenticationFailed)?;
        Ok(concat_out(&[&len.to_be_bytes(), &u.sender_id, &u.content]))
    })
}

// ---------------------------------------------------------------- verification codes

/// `Enc(I)`: the canonical encoding of an identity's public keys.
#[wasm_bindgen(js_name = "encodeVerificationIdentity")]
pub fn encode_verification_identity(
    ed25519: &[u8],
    ml_dsa_65: Option<Vec<u8>>,
    x25519: &[u8],
) -> JsResult<Vec<u8>> {
    Ok(verification::encode_identity(
        ed25519,
        ml_dsa_65.as_deref(),
        x25519,
    )?)
}

/// `{"numeric","fingerprint"}` of two identity encodings.
#[wasm_bindgen(js_name = "generateVerificationCode")]
pub fn generate_verification_code(
    identity_a: &[u8],
    identity_b: &[u8],
    conversation_id: &[u8],
) -> JsResult<String> {
    let c = verification::generate_verification_code(identity_a, identity_b, conversation_id)?;
    Ok(serde_json::to_string(
        &serde_json::json!({ "numeric": c.numeric, "fingerprint": c.fingerprint }),
    )
    .map_err(|_| MessagingError::Malformed("verification code"))?)
}

/// One side of an interactive commit-then-reveal SAS verification.
#[wasm_bindgen(js_name = "SasHandle")]
pub struct SasHandle {
    inner: SasVerification,
}

#[wasm_bindgen(js_class = "SasHandle")]
impl SasHandle {
    /// A verifier (`initiator` true: initiator, else responder).
    #[wasm_bindgen(constructor)]
    pub fn new(
        initiator: bool,
        own_identity: &[u8],
        peer_identity: &[u8],
        max_attempts: u32,
    ) -> JsResult<SasHandle> {
        let role = if initiator {
            SasRole::Initiator
        } else {
            SasRole::Responder
        };
        Ok(Self {
            inner: SasVerification::new(role, own_identity, peer_identity, max_attempts)?,
        })
    }

    /// Starts an attempt: the responder's commitment, empty for the initiator.
    pub fn start(&mut self, tx_id: &[u8]) -> JsResult<Vec<u8>> {
        scrubbed(StackUse::Small, || {
            Ok(self
                .inner
                .start(tx_id)?
                .map(|c| c.to_vec())
                .unwrap_or_default())
        })
    }

    /// Initiator: takes the commitment, returns our nonce to send.
    #[wasm_bindgen(js_name = "receiveCommitment")]
    pub fn receive_commitment(&mut self, commitment: &[u8]) -> JsResult<Vec<u8>> {
        Ok(self.inner.receive_commitment(commitment)?.to_vec())
    }

    /// Takes the peer's nonce: the responder's own nonce to send back, empty for the initiator.
    #[wasm_bindgen(js_name = "receiveNonce")]
    pub fn receive_nonce(&mut self, nonce: &[u8]) -> JsResult<Vec<u8>> {
        Ok(self
            .inner
            .receive_nonce(nonce)?
            .map(|n| n.to_vec())
            .unwrap_or_default())
    }

    /// The 7 emoji, as a JSON array.
    pub fn emoji(&self) -> JsResult<String> {
        let e = self.inner.emoji()?;
        Ok(serde_json::to_string(&e).map_err(|_| MessagingError::Malformed("emoji"))?)
    }

    /// The users saw the same emoji.
    pub fn confirm(&mut self) -> JsResult<()> {
        Ok(self.inner.confirm()?)
    }

    /// The users saw different emoji (a failed attempt).
    pub fn reject(&mut self) -> JsResult<()> {
        Ok(self.inner.reject()?)
    }

    /// Abandons the running attempt (a failed attempt).
    pub fn abort(&mut self) {
        self.inner.abort();
    }

    /// Failed or aborted attempts so far.
    #[wasm_bindgen(getter)]
    pub fn failures(&self) -> u32 {
        self.inner.failures()
    }

    /// Attempts left.
    #[wasm_bindgen(getter, js_name = "attemptsLeft")]
    pub fn attempts_left(&self) -> u32 {
        self.inner.attempts_left()
    }

    /// The state's name.
    #[wasm_bindgen(getter)]
    pub fn state(&self) -> String {
        self.inner.state().to_owned()
    }
}

// ---------------------------------------------------------------- key-transparency log

fn report(r: Result<(), MessagingError>) -> JsResult<String> {
    match r {
        Ok(()) => Ok("{\"valid\":true}".to_owned()),
        Err(MessagingError::KeyLog { index, fault }) => Ok(format!(
            "{{\"valid\":false,\"index\":{index},\"reason\":\"{}\"}}",
            fault.code()
        )),
        Err(MessagingError::Registry { index, fault }) => Ok(format!(
            "{{\"valid\":false,\"index\":{},\"reason\":\"{}\"}}",
            index.map_or_else(|| "null".to_owned(), |i| i.to_string()),
            fault.code()
        )),
        Err(other) => Err(other.into()),
    }
}

/// Creates and signs an entry (action 1 add, 2 update, 3 revoke; an update is
/// co-signed by the new key's secret); its JSON form.
#[wasm_bindgen(js_name = "keyLogCreateEntry")]
pub fn key_log_create_entry(
    user_id: &[u8],
    public_key: &[u8],
    timestamp: f64,
    prev_entry_hash: &[u8],
    action: u8,
    signing_key: Vec<u8>,
    new_key_signing_key: Option<Vec<u8>>,
) -> JsResult<String> {
    scrubbed(StackUse::Small, || {
        let signing_key = secret_in(signing_key);
        let new_key = new_key_signing_key.map(secret_in);
        let t = safe_u64("timestamp must be a safe non-negative integer", timestamp)?;
        let action = KeyLogAction::from_byte(action)?;
        let e = keylog::key_log_create_entry(
            user_id,
            public_key,
            t,
            prev_entry_hash,
            action,
            &signing_key,
            new_key.as_deref().map(Vec::as_slice),
        )?;
        Ok(keylog::key_log_entry_to_json(&e)?)
    })
}

/// Hash of one entry (JSON form): the next entry's `prevHash`.
#[wasm_bindgen(js_name = "keyLogEntryHash")]
pub fn key_log_entry_hash(entry_json: &str) -> JsResult<Vec<u8>> {
    let e = keylog::key_log_entry_from_json(entry_json)?;
    Ok(e.hash()?.to_vec())
}

/// `{"valid":true}` or `{"valid":false,"index":n,"reason":"…"}`; throws only
/// if the text is not a JSON array.
#[wasm_bindgen(js_name = "keyLogVerifyChain")]
pub fn key_log_verify_chain(entries_json: &str) -> JsResult<String> {
    report(keylog::key_log_from_json(entries_json).and_then(|e| keylog::key_log_verify_chain(&e)))
}

/// The user's key at `atTime` (or now), `undefined` if none; throws
/// `KEY_LOG_INVALID` if the log does not verify.
#[wasm_bindgen(js_name = "keyLogCurrentKey")]
pub fn key_log_current_key(
    entries_json: &str,
    user_id: &[u8],
    at_time: Option<f64>,
) -> JsResult<Option<Vec<u8>>> {
    let at = at_time
        .map(|t| safe_u64("atTime must be a safe non-negative integer", t))
        .transpose()?;
    let entries = keylog::key_log_from_json(entries_json)?;
    Ok(keylog::key_log_current_key(&entries, user_id, at)?.map(|k| k.to_vec()))
}

// ---------------------------------------------------------------- device registry

/// Empty registry JSON for the account key.
#[wasm_bindgen(js_name = "registryEmpty")]
pub fn registry_empty(account_public_key: &[u8]) -> JsResult<String> {
    Ok(registry::registry_empty(account_public_key)?)
}

/// Adds a device (signed by the account key); the new JSON.
#[wasm_bindgen(js_name = "registryAddDevice")]
pub fn registry_add_device(
    registry_json: &str,
    device_id: &str,
    name: &str,
    added_at: f64,
    device_public_key: &[u8],
    account_signing_key: Vec<u8>,
) -> JsResult<String> {
    scrubbed(StackUse::Small, || {
        let signing = secret_in(account_signing_key);
        let t = safe_u64("addedAt must be a safe non-negative integer", added_at)?;
        Ok(registry::registry_add_device(
            registry_json,
            device_id,
            name,
            t,
            device_public_key,
            &signing,
        )?)
    })
}

/// Revokes a device (signed by the account key); the new JSON.
#[wasm_bindgen(js_name = "registryRevokeDevice")]
pub fn registry_revoke_device(
    registry_json: &str,
    device_id: &str,
    revoked_at: f64,
    account_signing_key: Vec<u8>,
) -> JsResult<String> {
    scrubbed(StackUse::Small, || {
        let signing = secret_in(account_signing_key);
        let t = safe_u64("revokedAt must be a safe non-negative integer", revoked_at)?;
        Ok(registry::registry_revoke_device(
            registry_json,
            device_id,
            t,
            &signing,
        )?)
    })
}

/// Active devices `[{"deviceId","name","publicKey","addedAt"}]` of a verified registry.
#[wasm_bindgen(js_name = "registryListActive")]
pub fn registry_list_active(registry_json: &str, account_public_key: &[u8]) -> JsResult<String> {
    let devices = registry::registry_list_active(registry_json, account_public_key)?;
    Ok(registry::devices_to_json(&devices)?)
}

/// `{"valid":true}` or `{"valid":false,"index":n|null,"reason":"…"}`.
#[wasm_bindgen(js_name = "registryVerify")]
pub fn registry_verify(registry_json: &str, account_public_key: &[u8]) -> JsResult<String> {
    report(registry::registry_verify(registry_json, account_public_key))
}

// ---------------------------------------------------------------- replay store

/// A bounded replay-protection store living in wasm memory.
#[wasm_bindgen(js_name = "ReplayStoreHandle")]
pub struct ReplayStoreHandle {
    inner: ReplayStore,
}

#[wasm_bindgen(js_class = "ReplayStoreHandle")]
impl ReplayStoreHandle {
    /// An empty store.
    #[wasm_bindgen(constructor)]
    pub fn new(window_seconds: f64, max_entries: f64) -> JsResult<ReplayStoreHandle> {
        let w = safe_u64("windowSeconds must be a safe integer", window_seconds)?;
        let m = usize::try_from(safe_u64("maxEntries must be a safe integer", max_entries)?)
            .map_err(|_| CryptoError::InvalidParameter("maxEntries too large"))?;
        Ok(Self {
            inner: ReplayStore::new(w, m)?,
        })
    }

    /// A store from its JSON form.
    #[wasm_bindgen(js_name = "fromJson")]
    pub fn from_json(json: &str) -> JsResult<ReplayStoreHandle> {
        Ok(Self {
            inner: ReplayStore::from_json(json)?,
        })
    }

    /// Whether the 32-byte hash is stored.
    pub fn has(&self, hash: &[u8]) -> JsResult<bool> {
        Ok(self.inner.has(hash)?)
    }

    /// Records a hash; `REPLAY_DETECTED` / `REPLAY_OUT_OF_WINDOW` otherwise.
    pub fn insert(&mut self, hash: &[u8], timestamp: f64, now: f64) -> JsResult<()> {
        let t = safe_u64("timestamp must be a safe non-negative integer", timestamp)?;
        let now = safe_u64("now must be a safe non-negative integer", now)?;
        Ok(self.inner.insert(hash, t, now)?)
    }

    /// Forgets expired hashes; returns how many.
    pub fn prune(&mut self, now: f64) -> JsResult<f64> {
        let now = safe_u64("now must be a safe non-negative integer", now)?;
        Ok(self.inner.prune(now) as f64)
    }

    /// Number of stored hashes.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> f64 {
        self.inner.len() as f64
    }

    /// The window in seconds.
    #[wasm_bindgen(getter, js_name = "windowSeconds")]
    pub fn window_seconds(&self) -> f64 {
        safe_f64(self.inner.window_seconds())
    }

    /// The capacity.
    #[wasm_bindgen(getter, js_name = "maxEntries")]
    pub fn max_entries(&self) -> f64 {
        self.inner.max_entries() as f64
    }

    /// Timestamps below the floor are refused.
    #[wasm_bindgen(getter)]
    pub fn floor(&self) -> f64 {
        safe_f64(self.inner.floor())
    }

    /// The JSON form.
    #[wasm_bindgen(js_name = "toJson")]
    pub fn to_json(&self) -> JsResult<String> {
        Ok(self.inner.to_json()?)
    }
}
