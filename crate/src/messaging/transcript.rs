//! Transcript hashing: a running SHA-256 chain over the messages of a session,
//! so both sides can detect dropped, replayed, reordered or inserted messages.
//!
//! Every hash starts with its own label and every variable-length input is
//! length-prefixed, so no input of one function is an input of another
//! (before v2, `transcript_new(chain ‖ h)` was `transcript_update(chain, h)`):
//!
//! ```text
//! h0           = SHA-256("veilkit-transcript-v2/new" ‖ u32(|sessionId|) ‖ sessionId)
//! message hash = SHA-256("veilkit-transcript-v2/message" ‖ u32(|messageId|) ‖ messageId
//!                        ‖ u32(|senderId|) ‖ senderId ‖ u64(timestamp)
//!                        ‖ u32(|ciphertext|) ‖ ciphertext)
//! update       = SHA-256("veilkit-transcript-v2/update" ‖ chain(32) ‖ message hash(32))
//! ```

use subtle::ConstantTimeEq;

use super::error::Result;
use crate::error::{CryptoError, exact};
use crate::hash::Sha256;

/// Label of the initial chain state.
pub const LABEL_NEW: &[u8] = b"veilkit-transcript-v2/new";
/// Label of a message hash.
pub const LABEL_MESSAGE: &[u8] = b"veilkit-transcript-v2/message";
/// Label of a chain update.
pub const LABEL_UPDATE: &[u8] = b"veilkit-transcript-v2/update";

fn absorb_prefixed(h: &mut Sha256, what: &'static str, data: &[u8]) -> Result<()> {
    let len = u32::try_from(data.len())
        .map_err(|_| CryptoError::length(what, "at most 2^32 - 1 bytes", data.len()))?;
    h.update(&len.to_be_bytes());
    h.update(data);
    Ok(())
}

/// Initial chain state `SHA-256("veilkit-transcript-v2/new" ‖ lp32(session_id))`.
///
/// # Errors
/// `INVALID_LENGTH` if the session id is 2^32 bytes or longer.
#[must_use = "the chain state is the only output"]
pub fn transcript_new(session_id: &[u8]) -> Result<[u8; 32]> {
    let mut h = Sha256::new();
    h.update(LABEL_NEW);
    absorb_prefixed(&mut h, "sessionId", session_id)?;
    Ok(h.finalize())
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
    h.update(LABEL_MESSAGE);
    absorb_prefixed(&mut h, "messageId", message_id)?;
    absorb_prefixed(&mut h, "senderId", sender_id)?;
    h.update(&timestamp.to_be_bytes());
    absorb_prefixed(&mut h, "ciphertext", ciphertext)?;
    Ok(h.finalize())
}

/// Next chain state `SHA-256("veilkit-transcript-v2/update" ‖ chain ‖ message_hash)`.
///
/// # Errors
/// `INVALID_LENGTH` unless both are 32 bytes.
#[must_use = "the new chain state is the only output"]
pub fn transcript_update(chain_state: &[u8], message_hash: &[u8]) -> Result<[u8; 32]> {
    let chain = exact::<32>("chainState", "32 bytes", chain_state)?;
    let msg = exact::<32>("messageHash", "32 bytes", message_hash)?;
    let mut h = Sha256::new();
    h.update(LABEL_UPDATE);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_distinct_and_none_is_a_prefix_of_another() {
        let labels = [LABEL_NEW, LABEL_MESSAGE, LABEL_UPDATE];
        for (i, a) in labels.iter().enumerate() {
            for (j, b) in labels.iter().enumerate() {
                if i != j {
                    assert!(!b.starts_with(a), "{i} is a prefix of {j}");
                }
            }
        }
    }
}
