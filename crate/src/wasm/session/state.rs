//! A ratchet state kept in WebAssembly memory (`SessionStateHandle`): the
//! same call level as libolm's session objects. `fromBytes` parses once;
//! `encrypt` / `decrypt` work on the parsed state; `toBytes` serializes only
//! when the caller saves. The secrets live in the wasm heap until `free`
//! (zeroized on drop, as every `RatchetState`).
use super::safe_u64;
use crate::rng;
use crate::session::ratchet::RatchetState;
use crate::wasm::{JsResult, StackUse, scrubbed, secret_in, secret_out};
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;

/// One side of a session, parsed once and kept in wasm memory.
#[wasm_bindgen(js_name = "SessionStateHandle")]
pub struct SessionState {
    inner: RatchetState,
}

#[wasm_bindgen(js_class = "SessionStateHandle")]
impl SessionState {
    /// Parses a serialized state (docs/SESSIONS.md §5.9; secret, moved into
    /// a zeroizing buffer): `MALFORMED_INPUT` / `INVALID_STATE` / `INVALID_KEY`.
    /// A constructor (`new SessionStateHandle(state)`), not a static
    /// factory, so the panic-boundary harness can build a live instance
    /// from a seed state (tests/playwright/fixtures/boundary-plan.ts).
    #[wasm_bindgen(constructor)]
    pub fn from_bytes(state: Vec<u8>) -> JsResult<SessionState> {
        scrubbed(StackUse::Kem, || {
            let state = secret_in(state);
            Ok(Self {
                inner: RatchetState::from_bytes(&state)?,
            })
        })
    }

    /// Encrypts `plaintext` with `aad`: the message. The state changes only
    /// if the whole operation succeeds (the core's `encrypt` commits last).
    pub fn encrypt(&mut self, plaintext: Vec<u8>, aad: &[u8]) -> JsResult<Vec<u8>> {
        scrubbed(StackUse::Kem, || {
            let plaintext = secret_in(plaintext);
            Ok(self.inner.encrypt(&plaintext, aad, &mut rng::fill)?)
        })
    }

    /// Decrypts `message` with `aad` at `now` (seconds): the plaintext. The
    /// core decrypts on a copy; the copy replaces the state only on success,
    /// so after any failure the state is exactly as it was.
    pub fn decrypt(&mut self, message: &[u8], aad: &[u8], now: f64) -> JsResult<Uint8Array> {
        scrubbed(StackUse::Kem, || {
            let now = safe_u64("now must be a safe integer", now)?;
            let (next, plaintext) = self.inner.decrypt(message, aad, now)?;
            self.inner = next;
            Ok(secret_out(&plaintext))
        })
    }

    /// The serialized state (secret: the caller wraps and wipes it).
    #[wasm_bindgen(js_name = "toBytes")]
    pub fn to_bytes(&self) -> Uint8Array {
        scrubbed(StackUse::Small, || secret_out(&self.inner.to_bytes()))
    }

    /// The state counter as 8 big-endian bytes (`RatchetState::counter`,
    /// strictly increasing with every committed change).
    pub fn counter(&self) -> Vec<u8> {
        self.inner.counter().to_be_bytes().to_vec()
    }
}
