//! Ratchet bindings: encrypt, decrypt, state info. A state crosses as its
//! serialized bytes (docs/SESSIONS.md §5.9, secret); every call parses it,
//! and only a successful call returns new bytes.
use super::{int, parts_out, safe_u64};
use crate::rng;
use crate::session::Role;
use crate::session::ratchet::RatchetState;
use crate::wasm::{JsResult, StackUse, scrubbed, secret_in};
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;

/// Encrypts `plaintext` with `aad`: `lp(new state) ‖ lp(message) ‖ int(counter)`.
#[wasm_bindgen(js_name = "sessionEncrypt")]
pub fn session_encrypt(state: Vec<u8>, plaintext: Vec<u8>, aad: &[u8]) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Kem, || {
        let (state, plaintext) = (secret_in(state), secret_in(plaintext));
        let mut s = RatchetState::from_bytes(&state)?;
        let message = s.encrypt(&plaintext, aad, &mut rng::fill)?;
        let bytes = s.to_bytes();
        parts_out(&[&bytes, &message, &int(s.counter())])
    })
}

/// Decrypts `message` with `aad` at `now` (on a copy: a failure returns no
/// state): `lp(new state) ‖ lp(plaintext) ‖ int(counter)`.
#[wasm_bindgen(js_name = "sessionDecrypt")]
pub fn session_decrypt(
    state: Vec<u8>,
    message: &[u8],
    aad: &[u8],
    now: f64,
) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Kem, || {
        let state = secret_in(state);
        let now = safe_u64("now must be a safe integer", now)?;
        let s = RatchetState::from_bytes(&state)?;
        let (next, plaintext) = s.decrypt(message, aad, now)?;
        let bytes = next.to_bytes();
        parts_out(&[&bytes, &plaintext, &int(next.counter())])
    })
}

/// Public facts of a state: `int(counter) ‖ int(role: 1 initiator,
/// 2 responder) ‖ int(version) ‖ int(PQ epoch) ‖ lp(H_ID) ‖
/// int(skipped keys) ‖ int(receiving chains)` (`H_ID` = SHA-256(Enc(ID_init)
/// ‖ Enc(ID_resp)), against which the caller checks the encodings it keeps).
#[wasm_bindgen(js_name = "sessionStateInfo")]
pub fn session_state_info(state: Vec<u8>) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Kem, || {
        let state = secret_in(state);
        let s = RatchetState::from_bytes(&state)?;
        let role = match s.role() {
            Role::Initiator => 1,
            Role::Responder => 2,
        };
        parts_out(&[
            &int(s.counter()),
            &int(role),
            &int(u64::from(s.version())),
            &int(s.pq_epoch()),
            s.identities_hash(),
            &int(u64::try_from(s.skipped_keys()).unwrap_or(u64::MAX)),
            &int(u64::try_from(s.receiving_chains()).unwrap_or(u64::MAX)),
        ])
    })
}

/// Converts a state of format 2 (which stored both identity encodings,
/// docs/SESSIONS.md §5.9) into the current format: `lp(new state) ‖
/// lp(Enc(ID_init)) ‖ lp(Enc(ID_resp))`; same counter and secrets.
#[wasm_bindgen(js_name = "sessionStateMigrate")]
pub fn session_state_migrate(state: Vec<u8>) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Kem, || {
        let state = secret_in(state);
        let (s, binding) = RatchetState::migrate_format_2(&state)?;
        let bytes = s.to_bytes();
        parts_out(&[
            &bytes,
            &binding.initiator_identity,
            &binding.responder_identity,
        ])
    })
}
