//! AES-256-GCM bindings.
use super::{JsResult, StackUse, scrubbed, secret_in, secret_out};
use crate::aead;
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;

/// `iv ‖ ct ‖ tag` with a fresh random IV.
#[wasm_bindgen(js_name = "aesGcmEncrypt")]
pub fn aes_gcm_encrypt(key: Vec<u8>, plaintext: Vec<u8>, aad: &[u8]) -> JsResult<Vec<u8>> {
    scrubbed(StackUse::Small, || {
        let (key, plaintext) = (secret_in(key), secret_in(plaintext));
        Ok(aead::aes_gcm_encrypt(&key, &plaintext, aad)?)
    })
}

/// Decrypts `iv ‖ ct ‖ tag`.
#[wasm_bindgen(js_name = "aesGcmDecrypt")]
pub fn aes_gcm_decrypt(key: Vec<u8>, sealed: &[u8], aad: &[u8]) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Small, || {
        let key = secret_in(key);
        let pt = secret_in(aead::aes_gcm_decrypt(&key, sealed, aad)?);
        Ok(secret_out(&pt))
    })
}

/// `ct ‖ tag` under the caller's 12-byte IV.
#[wasm_bindgen(js_name = "aesGcmEncryptWithIv")]
pub fn aes_gcm_encrypt_with_iv(
    key: Vec<u8>,
    iv: &[u8],
    plaintext: Vec<u8>,
    aad: &[u8],
) -> JsResult<Vec<u8>> {
    scrubbed(StackUse::Small, || {
        let (key, plaintext) = (secret_in(key), secret_in(plaintext));
        Ok(aead::aes_gcm_encrypt_with_iv(&key, iv, &plaintext, aad)?)
    })
}

/// Decrypts `ct ‖ tag` under the given IV.
#[wasm_bindgen(js_name = "aesGcmDecryptWithIv")]
pub fn aes_gcm_decrypt_with_iv(
    key: Vec<u8>,
    iv: &[u8],
    ct_and_tag: &[u8],
    aad: &[u8],
) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Small, || {
        let key = secret_in(key);
        let pt = secret_in(aead::aes_gcm_decrypt_with_iv(&key, iv, ct_and_tag, aad)?);
        Ok(secret_out(&pt))
    })
}
