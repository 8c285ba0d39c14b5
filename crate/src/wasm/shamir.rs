//! Shamir bindings. Shares travel as `x ‖ y`, concatenated (all the same length).
use super::{JsResult, StackUse, scrubbed, secret_in, secret_out};
use crate::error::CryptoError;
use crate::shamir::{self, Share};
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use zeroize::Zeroizing;

/// Splits `secret`; returns `count` shares of `1 + secret.len()` bytes each, concatenated.
#[wasm_bindgen(js_name = "shamirSplit")]
pub fn shamir_split(secret: Vec<u8>, threshold: u8, count: u8) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Small, || {
        let secret = secret_in(secret);
        let shares = shamir::split(&secret, threshold, count)?;
        let mut out = Zeroizing::new(Vec::with_capacity(shares.len() * (1 + secret.len())));
        for s in &shares {
            out.extend_from_slice(&s.to_bytes());
        }
        Ok(secret_out(&out))
    })
}

/// Combines `share_len`-byte shares given concatenated.
#[wasm_bindgen(js_name = "shamirCombine")]
pub fn shamir_combine(shares: Vec<u8>, share_len: usize) -> JsResult<Uint8Array> {
    scrubbed(StackUse::Small, || {
        let shares = secret_in(shares);
        if share_len < 2 || !shares.len().is_multiple_of(share_len) {
            return Err(CryptoError::length(
                "shares",
                "a whole number of equal shares",
                shares.len(),
            )
            .into());
        }
        let parsed = shares
            .chunks_exact(share_len)
            .map(Share::from_bytes)
            .collect::<Result<Vec<_>, _>>()?;
        let secret = shamir::combine(&parsed)?;
        Ok(secret_out(&secret))
    })
}
