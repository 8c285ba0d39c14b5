//! AES-256-KW bindings.
use super::{JsResult, StackUse, scrubbed, secret_in, secret_out};
use crate::keywrap;
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;

/// RFC 3394 wrap.
#[wasm_bindgen(js_name = "aesKwWrap")]
pub fn aes_kw_wrap(kek: Vec<u8>, key: Vec<u8>) -> JsResult<Vec<u8>> {
    scrubbed(StackUse::Small, || {
        let (kek, key) = (secret_in(kek), secret_in(key));
        Ok(keywrap::aes_kw_wrap(&kek, &key)?)
    })
}

/// RFC 3394 unwrap.
#[wasm_bindgen(js_name = "aesKwUnwrap")]
pub fn aes_kw_unwrap(kek: Vec<u8>, wrapped: &[u8]) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Small, || {
        let kek = secret_in(kek);
        let key = keywrap::aes_kw_unwrap(&kek, wrapped)?;
        Ok(secret_out(&key))
    })
}
