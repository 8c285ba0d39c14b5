//! X25519 bindings.
use super::{JsResult, StackUse, concat_out, scrubbed, secret_in, secret_out};
use crate::x25519;
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;

/// Fresh key pair as `secret32 ‖ public32`.
#[wasm_bindgen(js_name = "x25519Generate")]
pub fn x25519_generate() -> JsResult<Uint8Array> {
    scrubbed(StackUse::Small, || {
        let kp = x25519::x25519_generate()?;
        Ok(concat_out(&[kp.secret.as_slice(), &kp.public]))
    })
}

/// Public key of a secret key.
#[wasm_bindgen(js_name = "x25519Public")]
pub fn x25519_public(secret: Vec<u8>) -> JsResult<Vec<u8>> {
    scrubbed(StackUse::Small, || {
        let secret = secret_in(secret);
        Ok(x25519::x25519_public(&secret)?.to_vec())
    })
}

/// Diffie-Hellman; the all-zero result is an error.
#[wasm_bindgen(js_name = "x25519Dh")]
pub fn x25519_dh(secret: Vec<u8>, public: &[u8]) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Small, || {
        let secret = secret_in(secret);
        let ss = x25519::x25519_dh(&secret, public)?;
        Ok(secret_out(ss.as_slice()))
    })
}
