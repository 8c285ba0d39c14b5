//! Hybrid KEM: X25519 ⊕ ML-KEM-768, combined with HKDF-SHA-256.
//!
//! ```text
//! shared_key = HKDF-SHA256(salt = "", ikm = x25519_ss ‖ mlkem_ss,
//!                          info = "veilkit-hybrid-kem-v1" ‖ sender_x25519_pub
//!                                 ‖ recipient_x25519_pub ‖ mlkem_ct, L = 32)
//! ```
//!
//! The key binds both X25519 public keys and the ML-KEM ciphertext, so it is
//! secure as long as either component is. The sender's X25519 key is usually
//! ephemeral; its public half travels beside the ML-KEM ciphertext.

use core::fmt;

use zeroize::Zeroizing;

use super::codec::hkdf32;
use super::error::Result;
use crate::error::exact;
use crate::{mlkem, rng, x25519};

/// HKDF `info` label of the hybrid KEM.
pub const LABEL: &[u8] = b"veilkit-hybrid-kem-v1";

/// Result of [`hybrid_kem_encapsulate`].
pub struct HybridKemResult {
    /// The 32-byte shared key.
    pub shared_key: Zeroizing<[u8; 32]>,
    /// The 1088-byte ML-KEM-768 ciphertext to send.
    pub mlkem_ciphertext: Vec<u8>,
}

impl fmt::Debug for HybridKemResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HybridKemResult").finish_non_exhaustive()
    }
}

/// Derives a KEM key from both shared secrets and the transcript
/// `label ‖ binding ‖ sender_pub ‖ recipient_pub ‖ ct` (the `info`).
pub(crate) fn combine(
    label: &[u8],
    binding: &[u8],
    x25519_ss: &[u8; 32],
    mlkem_ss: &[u8; 32],
    sender_pub: &[u8; 32],
    recipient_pub: &[u8; 32],
    mlkem_ct: &[u8],
) -> Result<Zeroizing<[u8; 32]>> {
    let mut ikm = Zeroizing::new([0u8; 64]);
    let (a, b) = ikm.split_at_mut(32);
    a.copy_from_slice(x25519_ss);
    b.copy_from_slice(mlkem_ss);
    let mut info = Vec::with_capacity(label.len() + binding.len() + 64 + mlkem_ct.len());
    info.extend_from_slice(label);
    info.extend_from_slice(binding);
    info.extend_from_slice(sender_pub);
    info.extend_from_slice(recipient_pub);
    info.extend_from_slice(mlkem_ct);
    hkdf32(ikm.as_slice(), &[], &info)
}

/// Hybrid encapsulation with fresh ML-KEM randomness.
///
/// # Errors
/// `INVALID_LENGTH` for wrong key sizes, `INVALID_KEY` for an ML-KEM key
/// failing the modulus check, `WEAK_KEY` for a low-order X25519 public key
/// (all-zero DH output) or an ML-KEM key whose `t̂` is all zero (its
/// encapsulation would be readable by anyone), `RANDOMNESS_UNAVAILABLE`.
#[must_use = "the shared key is the only output"]
pub fn hybrid_kem_encapsulate(
    our_x25519_secret: &[u8],
    their_x25519_public: &[u8],
    mlkem_ek: &[u8],
) -> Result<HybridKemResult> {
    let m = rng::array::<{ mlkem::M_LEN }>()?;
    hybrid_kem_encapsulate_derand(
        our_x25519_secret,
        their_x25519_public,
        mlkem_ek,
        m.as_slice(),
    )
}

/// Hybrid encapsulation with explicit 32-byte ML-KEM randomness `m`
/// (known-answer tests only: never reuse `m`).
///
/// # Errors
/// As [`hybrid_kem_encapsulate`], plus `INVALID_LENGTH` for `m`.
#[must_use = "the shared key is the only output"]
pub fn hybrid_kem_encapsulate_derand(
    our_x25519_secret: &[u8],
    their_x25519_public: &[u8],
    mlkem_ek: &[u8],
    m: &[u8],
) -> Result<HybridKemResult> {
    let recipient_pub = *exact::<32>("x25519TheirPublic", "32 bytes", their_x25519_public)?;
    exact::<{ mlkem::EK_LEN }>("mlKemEk", "1184 bytes", mlkem_ek)?;
    let sender_pub = x25519::x25519_public(our_x25519_secret)?;
    let dh = x25519::x25519_dh(our_x25519_secret, &recipient_pub)?;
    let (ct, ss) = mlkem::encapsulate_to_peer_derand(mlkem_ek, m)?;
    let shared_key = combine(LABEL, &[], &dh, &ss, &sender_pub, &recipient_pub, &ct)?;
    Ok(HybridKemResult {
        shared_key,
        mlkem_ciphertext: ct,
    })
}

/// Hybrid decapsulation. A forged ML-KEM ciphertext yields an unrelated key
/// (implicit rejection), not an error.
///
/// # Errors
/// `INVALID_LENGTH` for wrong sizes, `INVALID_KEY` for a decapsulation key
/// whose embedded hash does not match, `WEAK_KEY` for a low-order X25519 key.
#[must_use = "the shared key is the only output"]
pub fn hybrid_kem_decapsulate(
    our_x25519_secret: &[u8],
    their_x25519_public: &[u8],
    mlkem_dk: &[u8],
    mlkem_ct: &[u8],
) -> Result<Zeroizing<[u8; 32]>> {
    let sender_pub = *exact::<32>("x25519TheirPublic", "32 bytes", their_x25519_public)?;
    exact::<{ mlkem::DK_LEN }>("mlKemDk", "2400 bytes", mlkem_dk)?;
    exact::<{ mlkem::CT_LEN }>("mlKemCt", "1088 bytes", mlkem_ct)?;
    let recipient_pub = x25519::x25519_public(our_x25519_secret)?;
    let dh = x25519::x25519_dh(our_x25519_secret, &sender_pub)?;
    let ss = mlkem::mlkem_decapsulate(mlkem_dk, mlkem_ct)?;
    combine(LABEL, &[], &dh, &ss, &sender_pub, &recipient_pub, mlkem_ct)
}
