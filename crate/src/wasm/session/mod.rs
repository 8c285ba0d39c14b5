//! Session bindings (`crate::session`, docs/SESSIONS.md §6): validate, call,
//! convert. Split by `ts/session/core.ts`.
//!
//! Output layout: every multi-part result is a list of length-prefixed parts,
//! `u32 len ‖ bytes` (big-endian) each, in the order documented on the
//! function, copied out of one zeroizing buffer ([`parts_out`]). Integers are
//! 8-byte big-endian parts; an absent optional value is an empty part.
//! Integers arrive as JS numbers (`u64` inputs must be safe integers,
//! 0 … 2^53 − 1); `u64` outputs above 2^53 − 1 round in the TypeScript layer
//! (only a peer's far-future `expires` can be that large).
//!
//! Identity seeds arrive as one 96-byte secret: Ed25519 seed ‖ ML-DSA-65
//! seed `ξ` ‖ X25519 scalar. Production randomness is [`crate::rng::fill`].
//!
//! Files: [`prekeys`] (identity, prekeys, bundles, initial-message fields),
//! [`handshake`] (initiate, respond), [`ratchet`] (encrypt, decrypt, state
//! info on serialized states), [`state`] (`SessionStateHandle`: a state kept
//! in wasm memory); the shared helpers are here.

mod handshake;
mod prekeys;
mod ratchet;
mod state;

use super::JsResult;
use crate::error::CryptoError;
use crate::session::identity::IdentityKeyPair;
use crate::session::ratchet::Limits;
use js_sys::Uint8Array;
use zeroize::Zeroizing;

/// Length of the identity seeds input (three 32-byte seeds).
const SEEDS_LEN: usize = 96;

/// `lp(part)` for each part, in one zeroizing buffer, copied out.
pub(super) fn parts_out(parts: &[&[u8]]) -> JsResult<Uint8Array> {
    let mut buf = Zeroizing::new(Vec::with_capacity(
        parts.iter().map(|p| p.len().saturating_add(4)).sum(),
    ));
    for p in parts {
        let len = u32::try_from(p.len())
            .map_err(|_| CryptoError::InvalidParameter("session output part too long"))?;
        buf.extend_from_slice(&len.to_be_bytes());
        buf.extend_from_slice(p);
    }
    Ok(super::secret_out(&buf))
}

/// An integer part.
pub(super) const fn int(v: u64) -> [u8; 8] {
    v.to_be_bytes()
}

/// An optional integer part: 8 bytes, or empty when absent.
pub(super) fn opt_int(v: Option<u32>) -> Vec<u8> {
    v.map(|x| u64::from(x).to_be_bytes().to_vec())
        .unwrap_or_default()
}

/// A JS number that must be a safe non-negative integer.
pub(super) fn safe_u64(what: &'static str, v: f64) -> JsResult<u64> {
    super::messaging::safe_u64(what, v)
}

/// The identity key pair of the 96-byte seeds (`INVALID_LENGTH` otherwise);
/// the seed copies are wiped on return.
pub(super) fn identity_of(seeds: &[u8]) -> JsResult<IdentityKeyPair> {
    let seed = |i: usize| {
        seeds
            .get(i * 32..(i + 1) * 32)
            .and_then(|s| <[u8; 32]>::try_from(s).ok())
            .map(Zeroizing::new)
    };
    match (seeds.len() == SEEDS_LEN, seed(0), seed(1), seed(2)) {
        (true, Some(ed), Some(ml), Some(x)) => Ok(IdentityKeyPair::from_seeds(&ed, &ml, &x)?),
        _ => Err(CryptoError::length("identity seeds", "96", seeds.len()).into()),
    }
}

/// The limits of a new state: the defaults, with the fields given replaced
/// (range-checked by the core: `INVALID_STATE`).
pub(super) fn limits_of(
    max_jump: Option<u32>,
    max_skipped_keys: Option<u32>,
    max_receiving_chains: Option<u32>,
    max_skipped_age_secs: Option<f64>,
) -> JsResult<Limits> {
    let d = Limits::default();
    Ok(Limits {
        max_jump: max_jump.unwrap_or(d.max_jump),
        max_skipped_keys: max_skipped_keys.unwrap_or(d.max_skipped_keys),
        max_receiving_chains: max_receiving_chains.unwrap_or(d.max_receiving_chains),
        max_skipped_age_secs: match max_skipped_age_secs {
            Some(v) => safe_u64("maxSkippedAgeSecs must be a safe integer", v)?,
            None => d.max_skipped_age_secs,
        },
    })
}
