//! HKDF, PBKDF2 and Argon2id bindings.
use super::{scrubbed, secret_in, secret_out, JsResult, StackUse};
use crate::kdf::{self, Argon2Params};
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;

/// HKDF-SHA256.
#[wasm_bindgen(js_name = "hkdfSha256")]
pub fn hkdf_sha256(ikm: Vec<u8>, salt: &[u8], info: &[u8], length: usize) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Small, || {
        let ikm = secret_in(ikm);
        let okm = kdf::hkdf_sha256(&ikm, salt, info, length)?;
        Ok(secret_out(&okm))
    })
}

/// PBKDF2-HMAC-SHA256.
#[wasm_bindgen(js_name = "pbkdf2Sha256")]
pub fn pbkdf2_sha256(password: Vec<u8>, salt: &[u8], iterations: u32, length: usize) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Small, || {
        let password = secret_in(password);
        let dk = kdf::pbkdf2_sha256(&password, salt, iterations, length)?;
        Ok(secret_out(&dk))
    })
}

/// Argon2id v0x13.
#[wasm_bindgen(js_name = "argon2id")]
#[allow(clippy::too_many_arguments)]
pub fn argon2id(
    password: Vec<u8>,
    salt: &[u8],
    secret: Vec<u8>,
    associated_data: &[u8],
    memory_kib: u32,
    iterations: u32,
    parallelism: u32,
    length: usize,
) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Small, || {
        let (password, secret) = (secret_in(password), secret_in(secret));
        let params = Argon2Params { memory_kib, iterations, parallelism, output_len: length };
        let out = kdf::argon2id(&password, salt, &secret, associated_data, &params)?;
        Ok(secret_out(&out))
    })
}

/// The password-KDF bounds table (`crate::kdf::KDF_BOUNDS`) as JSON with
/// camelCase keys: what `ts/kdf-bounds.ts`' `KDF_BOUNDS` must equal (a Node
/// test compares them). Serialising these plain integers cannot fail; if it
/// did, the empty string would fail that test.
#[wasm_bindgen(js_name = "kdfBoundsJson")]
#[must_use]
pub fn kdf_bounds_json() -> String {
    serde_json::to_string(&kdf::KDF_BOUNDS).unwrap_or_default()
}
