//! Fuzz entry point of the sealed box (`veilkit::hpke`, docs/SEALED.md), shared by
//! `fuzz/fuzz_targets/hpke_open.rs` and the seed-corpus replay in
//! `crate/tests/fuzz_corpus_replay.rs`.
//!
//! The recipient is fixed (X-Wing seed `0x11 × 32`, `info = "veilkit fuzz"`, `aad = "aad"`),
//! so a seed corpus made by any HPKE implementation with those inputs opens (the committed
//! one is made by `@hpke/core` + `@hpke/hybridkem-x-wing`: `fuzz/hpke_corpus.mjs`).
#![allow(dead_code)]

use std::sync::OnceLock;

use veilkit::CryptoError;
use veilkit::hpke;
use veilkit::xwing;

/// The recipient's X-Wing secret key (seed).
pub const SECRET_KEY: [u8; 32] = [0x11; 32];
/// `info` every corpus box was sealed with.
pub const INFO: &[u8] = b"veilkit fuzz";
/// `aad` every corpus box was sealed with.
pub const AAD: &[u8] = b"aad";
/// Encapsulation randomness of the round trip (fixed: fuzzing only).
const ESEED: [u8; 64] = [0x22; 64];

fn public_key() -> &'static [u8] {
    static PK: OnceLock<Vec<u8>> = OnceLock::new();
    PK.get_or_init(|| {
        xwing::xwing_from_seed(&SECRET_KEY)
            .map(|k| k.public)
            .unwrap_or_default()
    })
}

/// Opening `data` either succeeds with `len - 1136` bytes of plaintext, or fails with
/// `INVALID_LENGTH` (shorter than 1136 bytes) or the one opaque `AUTHENTICATION_FAILED`.
/// An input too short to be a box is used as a plaintext instead: it seals and opens back, and
/// one flipped byte of that box fails authentication. (One decapsulation per long input, one
/// encapsulation and two decapsulations per short one: about as fast as the other KEM targets.)
///
/// # Errors
/// The broken invariant.
pub fn open_sealed(data: &[u8]) -> Result<(), &'static str> {
    match hpke::open(&SECRET_KEY, data, INFO, AAD) {
        Ok(pt) if pt.len() + hpke::OVERHEAD == data.len() => return Ok(()),
        Ok(_) => return Err("opened plaintext has the wrong length"),
        Err(CryptoError::AuthenticationFailed) if data.len() >= hpke::OVERHEAD => return Ok(()),
        Err(CryptoError::InvalidLength { .. }) if data.len() < hpke::OVERHEAD => {}
        Err(_) => {
            return Err(
                "open failed with an error other than INVALID_LENGTH / AUTHENTICATION_FAILED",
            );
        }
    }
    let mut sealed =
        hpke::seal_derand(public_key(), &ESEED, INFO, AAD, data).map_err(|_| "sealing failed")?;
    let opened =
        hpke::open(&SECRET_KEY, &sealed, INFO, AAD).map_err(|_| "our own box does not open")?;
    if opened.as_slice() != data {
        return Err("seal / open round trip changes the plaintext");
    }
    let at = data.first().map_or(0, |&b| usize::from(b)) * 7 % sealed.len();
    if let Some(b) = sealed.get_mut(at) {
        *b ^= 0x01;
    }
    if hpke::open(&SECRET_KEY, &sealed, INFO, AAD) != Err(CryptoError::AuthenticationFailed) {
        return Err("a flipped byte did not fail authentication");
    }
    Ok(())
}

/// Whether `data` opens (the corpus verdict: `valid_` seeds must, `invalid_` ones must not).
#[must_use]
pub fn accepts(data: &[u8]) -> bool {
    hpke::open(&SECRET_KEY, data, INFO, AAD).is_ok()
}
