//! Session keys: the session root key (SRK), time-window keys and the
//! post-compromise-security (PCS) ratchet.
//!
//! ```text
//! SRK        = HKDF-SHA256(salt = chatId, ikm = dek, info = "veilkit-srk-v1", 32)
//! window key = HKDF-SHA256(salt = u64(windowIndex), ikm = SRK, info = "veilkit-window-key-v1", 32)
//! new SRK    = HKDF-SHA256(salt = u64(step) ‖ chatId, ikm = SRK ‖ X25519(ours, theirs),
//!                          info = "veilkit-pcs-ratchet-v1" ‖ min(pubA, pubB) ‖ max(pubA, pubB), 32)
//! ```
//!
//! The two ratchet public keys are ordered lexicographically, so both sides
//! compute the same SRK whatever `is_sender` says.

use zeroize::Zeroizing;

use super::codec::hkdf32;
use super::error::Result;
use crate::error::{CryptoError, exact};
use crate::x25519::{self, X25519Keypair};

/// HKDF `info` of the SRK.
pub const SRK_INFO: &[u8] = b"veilkit-srk-v1";
/// HKDF `info` of a window key.
pub const WINDOW_KEY_INFO: &[u8] = b"veilkit-window-key-v1";
/// HKDF `info` label of the PCS ratchet.
pub const RATCHET_INFO: &[u8] = b"veilkit-pcs-ratchet-v1";

fn chat_id_checked(chat_id: &[u8]) -> Result<&[u8]> {
    if chat_id.is_empty() {
        return Err(CryptoError::InvalidParameter("chatId must not be empty").into());
    }
    Ok(chat_id)
}

/// Session root key of a 32-byte data-encryption key (e.g. a KEM shared
/// secret) for the conversation `chat_id` (non-empty).
///
/// # Errors
/// `INVALID_LENGTH` (`dek`), `INVALID_PARAMETER` (empty `chatId`).
#[must_use = "the derived key is the only output"]
pub fn derive_srk(dek: &[u8], chat_id: &[u8]) -> Result<Zeroizing<[u8; 32]>> {
    let dek = exact::<32>("dek", "32 bytes", dek)?;
    hkdf32(dek, chat_id_checked(chat_id)?, SRK_INFO)
}

/// Key of time window `window_index` (e.g. `⌊unix_time / window_seconds⌋`).
///
/// # Errors
/// `INVALID_LENGTH` (`srk`).
#[must_use = "the derived key is the only output"]
pub fn derive_window_key(srk: &[u8], window_index: u64) -> Result<Zeroizing<[u8; 32]>> {
    let srk = exact::<32>("srk", "32 bytes", srk)?;
    hkdf32(srk, &window_index.to_be_bytes(), WINDOW_KEY_INFO)
}

/// A fresh X25519 ratchet key pair.
///
/// # Errors
/// `RANDOMNESS_UNAVAILABLE`.
#[must_use = "the generated key pair is the only copy of the secret"]
pub fn generate_ratchet_keypair() -> Result<X25519Keypair> {
    Ok(x25519::x25519_generate()?)
}

/// One PCS ratchet step. `is_sender` does not change the result (the public
/// keys are ordered); it is accepted for API compatibility.
///
/// # Errors
/// `INVALID_LENGTH` (keys), `INVALID_PARAMETER` (empty `chatId`), `WEAK_KEY`
/// (low-order ratchet public key).
#[must_use = "the new SRK is the only output"]
pub fn ratchet_srk(
    current_srk: &[u8],
    our_ratchet_secret: &[u8],
    their_ratchet_public: &[u8],
    chat_id: &[u8],
    ratchet_step: u64,
    is_sender: bool,
) -> Result<Zeroizing<[u8; 32]>> {
    let _ = is_sender;
    let srk = exact::<32>("currentSrk", "32 bytes", current_srk)?;
    let theirs = exact::<32>("theirRatchetPub", "32 bytes", their_ratchet_public)?;
    let chat_id = chat_id_checked(chat_id)?;
    let ours = x25519::x25519_public(our_ratchet_secret)?;
    let dh = x25519::x25519_dh(our_ratchet_secret, theirs)?;
    let mut ikm = Zeroizing::new([0u8; 64]);
    let (a, b) = ikm.split_at_mut(32);
    a.copy_from_slice(srk);
    b.copy_from_slice(dh.as_slice());
    let mut salt = Vec::with_capacity(8 + chat_id.len());
    salt.extend_from_slice(&ratchet_step.to_be_bytes());
    salt.extend_from_slice(chat_id);
    let (lo, hi) = if ours.as_slice() <= theirs.as_slice() {
        (&ours, theirs)
    } else {
        (theirs, &ours)
    };
    let mut info = Vec::with_capacity(RATCHET_INFO.len() + 64);
    info.extend_from_slice(RATCHET_INFO);
    info.extend_from_slice(lo);
    info.extend_from_slice(hi);
    hkdf32(ikm.as_slice(), &salt, &info)
}

/// Whether to ratchet now:
/// `(ratchet_on_new_window && window_changed) || message_count >= messages_per_ratchet`
/// (so `messages_per_ratchet = 0` ratchets on every message).
#[must_use]
pub const fn should_ratchet(
    message_count: u64,
    window_changed: bool,
    messages_per_ratchet: u64,
    ratchet_on_new_window: bool,
) -> bool {
    (ratchet_on_new_window && window_changed) || message_count >= messages_per_ratchet
}
