//! ML-DSA-65 bindings.
use super::{JsResult, StackUse, concat_out, scrubbed, secret_in};
use crate::mldsa;
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;

/// Fresh key pair as `seed32 ‖ pk1952`.
#[wasm_bindgen(js_name = "mlDsaGenerate")]
pub fn mldsa_generate() -> JsResult<Uint8Array> {
    scrubbed(StackUse::MlDsa, || {
        let kp = mldsa::mldsa_generate()?;
        Ok(concat_out(&[kp.seed.as_slice(), &kp.public]))
    })
}

/// Key pair from a 32-byte seed, as `seed32 ‖ pk1952`.
#[wasm_bindgen(js_name = "mlDsaFromSeed")]
pub fn mldsa_from_seed(seed: Vec<u8>) -> JsResult<Uint8Array> {
    scrubbed(StackUse::MlDsa, || {
        let seed = secret_in(seed);
        let kp = mldsa::mldsa_from_seed(&seed)?;
        Ok(concat_out(&[kp.seed.as_slice(), &kp.public]))
    })
}

/// Sign (hedged, or deterministic when asked).
#[wasm_bindgen(js_name = "mlDsaSign")]
pub fn mldsa_sign(
    seed: Vec<u8>,
    message: &[u8],
    context: &[u8],
    deterministic: bool,
) -> JsResult<Vec<u8>> {
    scrubbed(StackUse::MlDsa, || {
        let seed = secret_in(seed);
        Ok(mldsa::mldsa_sign(&seed, message, context, deterministic)?)
    })
}

/// Sign with explicit 32-byte randomness (KATs).
#[wasm_bindgen(js_name = "mlDsaSignWithRnd")]
pub fn mldsa_sign_with_rnd(
    seed: Vec<u8>,
    message: &[u8],
    context: &[u8],
    rnd: Vec<u8>,
) -> JsResult<Vec<u8>> {
    scrubbed(StackUse::MlDsa, || {
        let (seed, rnd) = (secret_in(seed), secret_in(rnd));
        Ok(mldsa::mldsa_sign_with_rnd(&seed, message, context, &rnd)?)
    })
}

/// Verify; failure is an `INVALID_SIGNATURE` error.
#[wasm_bindgen(js_name = "mlDsaVerify")]
pub fn mldsa_verify(
    public: &[u8],
    message: &[u8],
    context: &[u8],
    signature: &[u8],
) -> JsResult<()> {
    Ok(mldsa::mldsa_verify(public, message, context, signature)?)
}
