//! BIP-39 bindings.
//!
//! Phrases are secrets: they arrive as owned `String`s (wiped on drop, like
//! `secret_in`) and leave as JS strings decoded straight from the zeroizing
//! buffer, so no unwiped copy stays in linear memory.
use super::{JsResult, StackUse, scrubbed, secret_in, secret_out};
use crate::bip39;
use js_sys::{JsString, Uint8Array};
use wasm_bindgen::prelude::*;
use zeroize::Zeroizing;

/// A fresh 24-word phrase.
#[wasm_bindgen(js_name = "bip39Generate")]
pub fn bip39_generate() -> JsResult<JsString> {
    scrubbed(StackUse::Small, || {
        Ok(JsString::from(bip39::generate_mnemonic()?.as_str()))
    })
}

/// Entropy (16..=32 bytes, step 4) to phrase.
#[wasm_bindgen(js_name = "bip39FromEntropy")]
pub fn bip39_from_entropy(entropy: Vec<u8>) -> JsResult<JsString> {
    scrubbed(StackUse::Small, || {
        let entropy = secret_in(entropy);
        Ok(JsString::from(
            bip39::entropy_to_mnemonic(&entropy)?.as_str(),
        ))
    })
}

/// Phrase to entropy, checking words and checksum. The phrase must already be NFKD
/// (the facade calls `normalize('NFKD')`; the Unicode tables stay out of the module).
#[wasm_bindgen(js_name = "bip39ToEntropy")]
pub fn bip39_to_entropy(phrase: String) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Small, || {
        let phrase = Zeroizing::new(phrase);
        let e = bip39::mnemonic_to_entropy_nfkd(&phrase)?;
        Ok(secret_out(&e))
    })
}

/// Phrase (+ passphrase) to the 64-byte seed. Both must already be NFKD (see above).
#[wasm_bindgen(js_name = "bip39ToSeed")]
pub fn bip39_to_seed(phrase: String, passphrase: String) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Small, || {
        let (phrase, passphrase) = (Zeroizing::new(phrase), Zeroizing::new(passphrase));
        let seed = bip39::mnemonic_to_seed_nfkd(&phrase, &passphrase)?;
        Ok(secret_out(seed.as_slice()))
    })
}
