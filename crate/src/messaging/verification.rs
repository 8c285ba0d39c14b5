//! Out-of-band verification codes: two users compare a number, an emoji
//! sequence or a fingerprint derived from both identity keys and the
//! conversation id. Symmetric in the two keys.
//!
//! ```text
//! (lo, hi) = the two keys in lexicographic byte order
//! enc      = u32(|conversationId|) ‖ conversationId ‖ u32(|lo|) ‖ lo ‖ u32(|hi|) ‖ hi
//! H_i      = SHA-256("veilkit-verification-v1" ‖ u8(i) ‖ enc)
//! numeric  = 12 groups, group j = u40(D[5j .. 5j+5]) mod 100000 as 5 digits, D = H_0 ‖ H_1,
//!            separated by single spaces
//! emoji    = EMOJI[b_k] for k = 0..7, b_k = bits 6k .. 6k+6 of H_2 (most significant first)
//! fingerprint = lowercase hex of H_3
//! ```

use super::codec::put_u32_prefixed;
use super::error::Result;
use crate::error::CryptoError;
use crate::hash::sha256;

/// Hash label.
pub const LABEL: &[u8] = b"veilkit-verification-v1";
/// Number of 5-digit groups.
pub const NUMERIC_GROUPS: usize = 12;
/// Number of emoji.
pub const EMOJI_COUNT: usize = 7;

/// The fixed 64-entry emoji table (index = 6-bit value). Every entry is one
/// Unicode code point with default emoji presentation.
pub const EMOJI: [&str; 64] = [
    "🐶", "🐱", "🐭", "🐹", "🐰", "🦊", "🐻", "🐼", // 0-7
    "🐨", "🐯", "🦁", "🐮", "🐷", "🐸", "🐵", "🐔", // 8-15
    "🐧", "🐦", "🦆", "🦉", "🐴", "🦄", "🐝", "🐛", // 16-23
    "🦋", "🐌", "🐞", "🐢", "🐍", "🐙", "🦀", "🐬", // 24-31
    "🐳", "🦈", "🐘", "🦒", "🍎", "🍐", "🍊", "🍋", // 32-39
    "🍌", "🍉", "🍇", "🍓", "🍒", "🍑", "🍍", "🥝", // 40-47
    "🥕", "🌽", "🍄", "🌵", "🌲", "🌻", "🌙", "🌈", // 48-55
    "🔥", "💧", "🌊", "🎈", "🎸", "🚀", "🔑", "🔔", // 56-63
];

/// A verification code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerificationCode {
    /// 12 groups of 5 digits separated by spaces (71 characters).
    pub numeric: String,
    /// 7 emoji from [`EMOJI`].
    pub emoji: Vec<&'static str>,
    /// 64 lowercase hex digits.
    pub fingerprint: String,
}

/// The verification code of two identity keys in a conversation.
///
/// # Errors
/// `INVALID_LENGTH` if a key is empty or an input is 2^32 bytes or longer.
#[must_use = "the code is the only output"]
pub fn generate_verification_code(
    key_a: &[u8],
    key_b: &[u8],
    conversation_id: &[u8],
) -> Result<VerificationCode> {
    if key_a.is_empty() {
        return Err(CryptoError::length("keyA", "at least 1 byte", 0).into());
    }
    if key_b.is_empty() {
        return Err(CryptoError::length("keyB", "at least 1 byte", 0).into());
    }
    let (lo, hi) = if key_a <= key_b { (key_a, key_b) } else { (key_b, key_a) };
    let mut enc = Vec::with_capacity(12 + conversation_id.len() + lo.len() + hi.len());
    put_u32_prefixed(&mut enc, "conversationId", conversation_id)?;
    put_u32_prefixed(&mut enc, "keyA", lo)?;
    put_u32_prefixed(&mut enc, "keyB", hi)?;
    let h = |i: u8| {
        let mut m = Vec::with_capacity(LABEL.len() + 1 + enc.len());
        m.extend_from_slice(LABEL);
        m.push(i);
        m.extend_from_slice(&enc);
        sha256(&m)
    };

    let mut d = [0u8; 64];
    let (d0, d1) = d.split_at_mut(32);
    d0.copy_from_slice(&h(0));
    d1.copy_from_slice(&h(1));
    let groups: Vec<String> = d
        .chunks_exact(5)
        .take(NUMERIC_GROUPS)
        .map(|c| {
            let v = c.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b));
            format!("{:05}", v % 100_000)
        })
        .collect();

    let e = h(2);
    let mut head = [0u8; 8];
    head.copy_from_slice(e.get(..8).unwrap_or(&[0u8; 8]));
    let bits = u64::from_be_bytes(head);
    let emoji = (0..EMOJI_COUNT)
        .map(|k| {
            let idx = (bits >> (58 - 6 * k)) & 63;
            EMOJI.get(idx as usize).copied().unwrap_or("")
        })
        .collect();

    let fingerprint = h(3).iter().map(|b| format!("{b:02x}")).collect();
    Ok(VerificationCode { numeric: groups.join(" "), emoji, fingerprint })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_64_distinct_single_code_points() {
        let mut seen = std::collections::HashSet::new();
        for e in EMOJI {
            assert_eq!(e.chars().count(), 1, "{e}");
            assert!(seen.insert(e), "duplicate {e}");
        }
    }

    #[test]
    fn symmetric() {
        let a = generate_verification_code(b"alice-key", b"bob-key", b"conv").unwrap();
        let b = generate_verification_code(b"bob-key", b"alice-key", b"conv").unwrap();
        assert_eq!(a, b);
        assert_eq!(a.numeric.len(), 71);
        assert_eq!(a.emoji.len(), 7);
        assert_eq!(a.fingerprint.len(), 64);
    }
}
