//! Sealed-box bindings (HPKE base mode, X-Wing, HKDF-SHA256, AES-256-GCM; `crate::hpke`).
use super::{JsResult, StackUse, concat_out, scrubbed, secret_in, secret_out};
use crate::error::CryptoError;
use crate::hpke;
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;

/// An export length from JS (a `u32`) as `usize`.
fn export_len(len: u32) -> Result<usize, CryptoError> {
    usize::try_from(len)
        .map_err(|_| CryptoError::InvalidParameter("hpke: export length must be 1..=8160 bytes"))
}

/// Seals `plaintext` to a 1216-byte X-Wing public key: `enc(1120) ‖ ct ‖ tag(16)`.
#[wasm_bindgen(js_name = "hpkeSeal")]
pub fn hpke_seal(pk: &[u8], info: &[u8], aad: &[u8], plaintext: Vec<u8>) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Kem, || {
        let pt = secret_in(plaintext);
        let sealed = hpke::seal(pk, info, aad, &pt)?;
        Ok(Uint8Array::from(sealed.as_slice()))
    })
}

/// Opens a sealed box with the 32-byte X-Wing secret key.
#[wasm_bindgen(js_name = "hpkeOpen")]
pub fn hpke_open(sk: Vec<u8>, sealed: &[u8], info: &[u8], aad: &[u8]) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Kem, || {
        let sk = secret_in(sk);
        let pt = hpke::open(&sk, sealed, info, aad)?;
        Ok(secret_out(&pt))
    })
}

/// Single-shot sender export: `enc(1120) ‖ secret(len)`.
#[wasm_bindgen(js_name = "hpkeSendExport")]
pub fn hpke_send_export(
    pk: &[u8],
    info: &[u8],
    exporter_context: &[u8],
    len: u32,
) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Kem, || {
        let e = hpke::send_export(pk, info, exporter_context, export_len(len)?)?;
        Ok(concat_out(&[&e.enc, &e.secret]))
    })
}

/// Single-shot recipient export of `enc` with the 32-byte X-Wing secret key.
#[wasm_bindgen(js_name = "hpkeReceiveExport")]
pub fn hpke_receive_export(
    sk: Vec<u8>,
    enc: &[u8],
    info: &[u8],
    exporter_context: &[u8],
    len: u32,
) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Kem, || {
        let sk = secret_in(sk);
        let secret = hpke::receive_export(&sk, enc, info, exporter_context, export_len(len)?)?;
        Ok(secret_out(&secret))
    })
}
