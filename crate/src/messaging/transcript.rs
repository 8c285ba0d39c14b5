//! Transcript hashing: a running SHA-256 chain over the messages of a session,
//! so both sides can detect dropped, replayed, reordered or inserted messages.
//!
//! ```text
//! h0           = SHA-256(sessionId)
//! message hash = SHA-256(u32(|messageId|) ‖ messageId ‖ u32(|senderId|) ‖ senderId
//!                        ‖ u64(timestamp) ‖ u32(|ciphertext|) ‖ ciphertext)
//! update       = SHA-256(chain ‖ message hash)
//! ```

use subtle::ConstantTimeEq;

use super::error::Result;
use crate::error::{CryptoError, exact};
use crate::hash::{Sha256, sha256};

/// Initial chain state `SHA-256(session_id)`.
#[must_use]
pub fn transcript_new(session_id: &[u8]) -> [u8; 32] {
    sha256(session_id)
}

fn absorb_prefixed(h: &mut Sha256, what: &'static str, data: &[u8]) -> Result<()> {
    let len = u32::try_from(data.len())
        .map_err(|_| CryptoError::length(what, "at most 2^32 - 1 bytes", data.len()))?;
    h.update(&len.to_be_bytes());
    h.update(data);
    Ok(())
}

/// Hash of one message envelope.
///
/// # Errors
/// `INVALID_LENGTH` if a field is 2^32 bytes or longer.
#[must_use = "the hash is the only output"]
pub fn transcript_compute_message_hash(
    message_id: &[u8],
    sender_id: &[u8],
    timestamp: u64,
    ciphertext: &[u8],
) -> Result<[u8; 32]> {
    let mut h = Sha256::new();
    absorb_prefixed(&mut h, "messageId", message_id)?;
    absorb_prefixed(&mut h, "senderId", sender_id)?;
    h.update(&timestamp.to_be_bytes());
    absorb_prefixed(&mut h, "ciphertext", ciphertext)?;
    Ok(h.finalize())
}

/// Next chain state `SHA-256(chain ‖ message_hash)`.
///
/// # Errors
/// `INVALID_LENGTH` unless both are 32 bytes.
#[must_use = "the new chain state is the only output"]
pub fn transcript_update(chain_state: &[u8], message_hash: &[u8]) -> Result<[u8; 32]> {
    let chain = exact::<32>("chainState", "32 bytes", chain_state)?;
    let msg = exact::<32>("messageHash", "32 bytes", message_hash)?;
    let mut h = Sha256::new();
    h.update(chain);
    h.update(msg);
    Ok(h.finalize())
}

/// Constant-time comparison of two 32-byte chain states.
///
/// # Errors
/// `INVALID_LENGTH` unless both are 32 bytes.
pub fn transcript_verify_sync(hash_a: &[u8], hash_b: &[u8]) -> Result<bool> {
    let a = exact::<32>("hashA", "32 bytes", hash_a)?;
    let b = exact::<32>("hashB", "32 bytes", hash_b)?;
    Ok(bool::from(a.ct_eq(b)))
}
