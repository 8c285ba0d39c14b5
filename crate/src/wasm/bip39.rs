//! BIP-39 bindings.
use super::{js_error, secret_in, secret_out, JsResult};
use crate::bip39;
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;

/// A fresh 24-word phrase.
#[wasm_bindgen(js_name = "bip39Generate")]
pub fn bip39_generate() -> JsResult<String> {
    bip39::generate_mnemonic().map(|p| p.as_str().to_owned()).map_err(js_error)
}

/// Entropy (16..=32 bytes, step 4) to phrase.
#[wasm_bindgen(js_name = "bip39FromEntropy")]
pub fn bip39_from_entropy(entropy: Vec<u8>) -> JsResult<String> {
    let entropy = secret_in(entropy);
    bip39::entropy_to_mnemonic(&entropy).map(|p| p.as_str().to_owned()).map_err(js_error)
}

/// Phrase to entropy, checking words and checksum.
#[wasm_bindgen(js_name = "bip39ToEntropy")]
pub fn bip39_to_entropy(phrase: &str) -> JsResult<Uint8Array> {
    let e = bip39::mnemonic_to_entropy(phrase).map_err(js_error)?;
    Ok(secret_out(&e))
}

/// Phrase (+ passphrase) to the 64-byte seed.
#[wasm_bindgen(js_name = "bip39ToSeed")]
pub fn bip39_to_seed(phrase: &str, passphrase: &str) -> JsResult<Uint8Array> {
    let seed = bip39::mnemonic_to_seed(phrase, passphrase).map_err(js_error)?;
    Ok(secret_out(seed.as_slice()))
}
