//! Ed25519 bindings.
use super::{JsResult, StackUse, concat_out, scrubbed, secret_in};
use crate::ed25519;
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;

/// Fresh key pair as `secret64 ‖ public32` (secret = seed ‖ public).
#[wasm_bindgen(js_name = "ed25519Generate")]
pub fn ed25519_generate() -> JsResult<Uint8Array> {
    scrubbed(StackUse::Small, || {
        let kp = ed25519::ed25519_generate()?;
        Ok(concat_out(&[kp.secret.as_slice(), &kp.public]))
    })
}

/// Key pair from a 32-byte seed, as `secret64 ‖ public32`.
#[wasm_bindgen(js_name = "ed25519FromSeed")]
pub fn ed25519_from_seed(seed: Vec<u8>) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Small, || {
        let seed = secret_in(seed);
        let kp = ed25519::ed25519_from_seed(&seed)?;
        Ok(concat_out(&[kp.secret.as_slice(), &kp.public]))
    })
}

/// Signs with a 32-byte seed or 64-byte secret key.
#[wasm_bindgen(js_name = "ed25519Sign")]
pub fn ed25519_sign(secret: Vec<u8>, message: &[u8]) -> JsResult<Vec<u8>> {
    scrubbed(StackUse::Small, || {
        let secret = secret_in(secret);
        Ok(ed25519::ed25519_sign(&secret, message)?.to_vec())
    })
}

/// Strict verification; an invalid signature is an `INVALID_SIGNATURE` error.
#[wasm_bindgen(js_name = "ed25519Verify")]
pub fn ed25519_verify(public: &[u8], message: &[u8], signature: &[u8]) -> JsResult<()> {
    Ok(ed25519::ed25519_verify(public, message, signature)?)
}

/// A signing key held in wasm memory (ts/keys.ts `Ed25519SigningKey`, wasm route): the public key
/// derived once; `free()` (wasm-bindgen) drops it, which wipes the secret.
#[wasm_bindgen(js_name = "Ed25519SignerHandle")]
pub struct Ed25519SignerHandle {
    inner: ed25519::Ed25519Signer,
}

#[wasm_bindgen(js_class = "Ed25519SignerHandle")]
impl Ed25519SignerHandle {
    /// The signer of a 32-byte seed.
    #[wasm_bindgen(constructor)]
    pub fn new(seed: Vec<u8>) -> JsResult<Ed25519SignerHandle> {
        scrubbed(StackUse::Small, || {
            let seed = secret_in(seed);
            Ok(Self {
                inner: ed25519::Ed25519Signer::from_seed(&seed)?,
            })
        })
    }

    /// The 32-byte public key.
    #[wasm_bindgen(js_name = "publicKey")]
    pub fn public_key(&self) -> Vec<u8> {
        self.inner.public().to_vec()
    }

    /// The 64-byte signature of `message`.
    pub fn sign(&self, message: &[u8]) -> JsResult<Vec<u8>> {
        scrubbed(StackUse::Small, || Ok(self.inner.sign(message)?.to_vec()))
    }
}
