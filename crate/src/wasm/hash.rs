//! SHA-256, HMAC-SHA256 and BLAKE3 bindings.
use super::{JsResult, StackUse, scrubbed, secret_in, secret_out};
use crate::hash;
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;

/// SHA-256.
#[wasm_bindgen(js_name = "sha256")]
#[must_use]
pub fn sha256(data: &[u8]) -> Vec<u8> {
    hash::sha256(data).to_vec()
}

/// HMAC-SHA256. The tag is copied out from the (wiped) stack, never left in the wasm heap: it is
/// often a key (ts/sealed-native.ts runs the HPKE key schedule through it).
#[wasm_bindgen(js_name = "hmacSha256")]
#[must_use]
pub fn hmac_sha256(key: Vec<u8>, data: &[u8]) -> Uint8Array {
    scrubbed(StackUse::Small, || {
        let key = secret_in(key);
        secret_out(&hash::hmac_sha256(&key, data))
    })
}

/// Constant-time HMAC-SHA256 tag check (16..=32-byte tags).
#[wasm_bindgen(js_name = "hmacSha256Verify")]
pub fn hmac_sha256_verify(key: Vec<u8>, data: &[u8], tag: &[u8]) -> JsResult<()> {
    scrubbed(StackUse::Small, || {
        let key = secret_in(key);
        Ok(hash::hmac_sha256_verify(&key, data, tag)?)
    })
}

/// BLAKE3 hash with `length` bytes of output.
#[wasm_bindgen(js_name = "blake3Hash")]
pub fn blake3_hash(data: &[u8], length: usize) -> JsResult<Vec<u8>> {
    Ok(hash::blake3_hash(data, length)?)
}

/// Keyed BLAKE3 (32-byte key).
#[wasm_bindgen(js_name = "blake3Keyed")]
pub fn blake3_keyed(key: Vec<u8>, data: &[u8], length: usize) -> JsResult<Vec<u8>> {
    scrubbed(StackUse::Small, || {
        let key = secret_in(key);
        Ok(hash::blake3_keyed(&key, data, length)?)
    })
}

/// BLAKE3 key derivation.
#[wasm_bindgen(js_name = "blake3DeriveKey")]
pub fn blake3_derive_key(context: &str, material: Vec<u8>, length: usize) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Small, || {
        let material = secret_in(material);
        let out = hash::blake3_derive_key(context, &material, length)?;
        Ok(secret_out(&out))
    })
}
