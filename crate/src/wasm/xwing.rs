//! X-Wing bindings.
use super::{JsResult, StackUse, concat_out, scrubbed, secret_in, secret_out};
use crate::xwing;
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;

/// Fresh key pair as `sk32 ‖ pk1216`.
#[wasm_bindgen(js_name = "xWingGenerate")]
pub fn xwing_generate() -> JsResult<Uint8Array> {
    scrubbed(StackUse::Kem, || {
        let kp = xwing::xwing_generate()?;
        Ok(concat_out(&[kp.secret.as_slice(), &kp.public]))
    })
}

/// Key pair from a 32-byte seed, as `sk32 ‖ pk1216`.
#[wasm_bindgen(js_name = "xWingFromSeed")]
pub fn xwing_from_seed(seed: Vec<u8>) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Kem, || {
        let seed = secret_in(seed);
        let kp = xwing::xwing_from_seed(&seed)?;
        Ok(concat_out(&[kp.secret.as_slice(), &kp.public]))
    })
}

/// Encapsulation as `ct1120 ‖ ss32`.
#[wasm_bindgen(js_name = "xWingEncapsulate")]
pub fn xwing_encapsulate(pk: &[u8]) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Kem, || {
        let (ct, ss) = xwing::xwing_encapsulate(pk)?;
        Ok(concat_out(&[&ct, ss.as_slice()]))
    })
}

/// Derandomised encapsulation (explicit 64-byte `eseed`), as `ct1120 ‖ ss32`.
#[wasm_bindgen(js_name = "xWingEncapsulateDerand")]
pub fn xwing_encapsulate_derand(pk: &[u8], eseed: Vec<u8>) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Kem, || {
        let eseed = secret_in(eseed);
        let (ct, ss) = xwing::xwing_encapsulate_derand(pk, &eseed)?;
        Ok(concat_out(&[&ct, ss.as_slice()]))
    })
}

/// Decapsulation.
#[wasm_bindgen(js_name = "xWingDecapsulate")]
pub fn xwing_decapsulate(sk: Vec<u8>, ct: &[u8]) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Kem, || {
        let sk = secret_in(sk);
        let ss = xwing::xwing_decapsulate(&sk, ct)?;
        Ok(secret_out(ss.as_slice()))
    })
}
