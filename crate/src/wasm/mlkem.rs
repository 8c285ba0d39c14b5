//! ML-KEM-768 bindings.
use super::{JsResult, StackUse, concat_out, scrubbed, secret_in, secret_out};
use crate::mlkem;
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;

/// Fresh key pair as `dk2400 ‖ ek1184`.
#[wasm_bindgen(js_name = "mlKemGenerate")]
pub fn mlkem_generate() -> JsResult<Uint8Array> {
    scrubbed(StackUse::Kem, || {
        let kp = mlkem::mlkem_generate()?;
        Ok(concat_out(&[&kp.decapsulation_key, &kp.encapsulation_key]))
    })
}

/// Key pair from the 64-byte seed `d ‖ z`, as `dk2400 ‖ ek1184`.
#[wasm_bindgen(js_name = "mlKemFromSeed")]
pub fn mlkem_from_seed(seed: Vec<u8>) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Kem, || {
        let seed = secret_in(seed);
        let kp = mlkem::mlkem_from_seed(&seed)?;
        Ok(concat_out(&[&kp.decapsulation_key, &kp.encapsulation_key]))
    })
}

/// Encapsulation as `ct1088 ‖ ss32`.
#[wasm_bindgen(js_name = "mlKemEncapsulate")]
pub fn mlkem_encapsulate(ek: &[u8]) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Kem, || {
        let (ct, ss) = mlkem::mlkem_encapsulate(ek)?;
        Ok(concat_out(&[&ct, ss.as_slice()]))
    })
}

/// Derandomised encapsulation (explicit 32-byte `m`), as `ct1088 ‖ ss32`.
#[wasm_bindgen(js_name = "mlKemEncapsulateDerand")]
pub fn mlkem_encapsulate_derand(ek: &[u8], m: Vec<u8>) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Kem, || {
        let m = secret_in(m);
        let (ct, ss) = mlkem::mlkem_encapsulate_derand(ek, &m)?;
        Ok(concat_out(&[&ct, ss.as_slice()]))
    })
}

/// Decapsulation (implicit rejection).
#[wasm_bindgen(js_name = "mlKemDecapsulate")]
pub fn mlkem_decapsulate(dk: Vec<u8>, ct: &[u8]) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Kem, || {
        let dk = secret_in(dk);
        let ss = mlkem::mlkem_decapsulate(&dk, ct)?;
        Ok(secret_out(ss.as_slice()))
    })
}
