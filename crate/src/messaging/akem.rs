//! Authenticated KEM: the hybrid KEM, with the ciphertext signed by the
//! sender's Ed25519 identity key.
//!
//! ```text
//! ciphertext   = u16(1088) ‖ mlkem_ct(1088) ‖ sig(64)            (1154 bytes)
//! sig          = Ed25519(sender_identity_sk, "veilkit-akem-v1" ‖ sender_x25519_pub
//!                                            ‖ recipient_x25519_pub ‖ mlkem_ct)
//! shared_secret = HKDF-SHA256(salt = "", ikm = x25519_ss ‖ mlkem_ss,
//!                 info = "veilkit-akem-v1" ‖ sender_identity_pub ‖ sender_x25519_pub
//!                        ‖ recipient_x25519_pub ‖ mlkem_ct, L = 32)
//! ```
//!
//! Decapsulation verifies the signature *before* touching the ML-KEM key and
//! refuses (`AUTHENTICATION_FAILED`) otherwise. The shared secret also binds
//! the sender's identity key, so a ciphertext re-signed by another identity
//! (an unknown-key-share attempt) yields an unrelated key even if accepted.

use zeroize::Zeroizing;

use super::codec::Reader;
use super::error::{MessagingError, Result};
use super::hybrid_kem::combine;
use crate::error::{CryptoError, exact};
use crate::{ed25519, mlkem, rng, x25519};

/// Signature and key-derivation label.
pub const LABEL: &[u8] = b"veilkit-akem-v1";
/// Length of an authenticated-KEM ciphertext.
pub const CIPHERTEXT_LEN: usize = 2 + mlkem::CT_LEN + ed25519::SIGNATURE_LEN;
/// The `u16(1088)` prefix: [`mlkem::CT_LEN`] big-endian (checked below).
const CT_PREFIX: [u8; 2] = [0x04, 0x40];
const _: () = assert!(u16::from_be_bytes(CT_PREFIX) as usize == mlkem::CT_LEN);

/// The signed message `label ‖ sender_pub ‖ recipient_pub ‖ ct`.
fn signed_message(sender_pub: &[u8; 32], recipient_pub: &[u8; 32], ct: &[u8]) -> Vec<u8> {
    let mut msg = Vec::with_capacity(LABEL.len() + 64 + ct.len());
    msg.extend_from_slice(LABEL);
    msg.extend_from_slice(sender_pub);
    msg.extend_from_slice(recipient_pub);
    msg.extend_from_slice(ct);
    msg
}

/// Public key of a 32-byte seed or 64-byte `seed ‖ public` Ed25519 secret.
fn identity_public(secret: &[u8]) -> Result<[u8; 32]> {
    let seed = secret
        .first_chunk::<{ ed25519::SEED_LEN }>()
        .filter(|_| secret.len() == ed25519::SEED_LEN || secret.len() == ed25519::SECRET_LEN)
        .ok_or(CryptoError::length(
            "senderIdentitySk",
            "32 or 64 bytes",
            secret.len(),
        ))?;
    Ok(ed25519::ed25519_from_seed(seed)?.public)
}

/// Authenticated encapsulation; returns `(ciphertext(1154), shared_secret(32))`.
///
/// # Errors
/// `INVALID_LENGTH` / `INVALID_KEY` / `WEAK_KEY` as the hybrid KEM;
/// `INVALID_KEY` if a 64-byte identity secret's public half does not match.
#[must_use = "the ciphertext and shared secret are the only outputs"]
pub fn authenticated_kem_encapsulate(
    our_x25519_secret: &[u8],
    recipient_x25519_public: &[u8],
    recipient_mlkem_ek: &[u8],
    sender_identity_secret: &[u8],
) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>)> {
    let m = rng::array::<{ mlkem::M_LEN }>()?;
    authenticated_kem_encapsulate_derand(
        our_x25519_secret,
        recipient_x25519_public,
        recipient_mlkem_ek,
        sender_identity_secret,
        m.as_slice(),
    )
}

/// [`authenticated_kem_encapsulate`] with explicit 32-byte ML-KEM randomness
/// `m` (known-answer tests only).
///
/// # Errors
/// As [`authenticated_kem_encapsulate`], plus `INVALID_LENGTH` for `m`.
#[must_use = "the ciphertext and shared secret are the only outputs"]
pub fn authenticated_kem_encapsulate_derand(
    our_x25519_secret: &[u8],
    recipient_x25519_public: &[u8],
    recipient_mlkem_ek: &[u8],
    sender_identity_secret: &[u8],
    m: &[u8],
) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>)> {
    let recipient_pub = *exact::<32>("recipientX25519Pub", "32 bytes", recipient_x25519_public)?;
    exact::<{ mlkem::EK_LEN }>("recipientMlkemEk", "1184 bytes", recipient_mlkem_ek)?;
    let identity_pub = identity_public(sender_identity_secret)?;
    let sender_pub = x25519::x25519_public(our_x25519_secret)?;
    let dh = x25519::x25519_dh(our_x25519_secret, &recipient_pub)?;
    let (ct, ss) = mlkem::encapsulate_to_peer_derand(recipient_mlkem_ek, m)?;
    let sig = ed25519::ed25519_sign(
        sender_identity_secret,
        &signed_message(&sender_pub, &recipient_pub, &ct),
    )?;
    let shared = combine(
        LABEL,
        &identity_pub,
        &dh,
        &ss,
        &sender_pub,
        &recipient_pub,
        &ct,
    )?;
    let mut out = Vec::with_capacity(CIPHERTEXT_LEN);
    out.extend_from_slice(&CT_PREFIX);
    out.extend_from_slice(&ct);
    out.extend_from_slice(&sig);
    Ok((out, shared))
}

/// Verifies the sender's signature, then decapsulates.
///
/// # Errors
/// - `INVALID_LENGTH` unless the ciphertext is 1154 bytes and the keys have their sizes.
/// - `MALFORMED_INPUT` if the length prefix is not 1088.
/// - `AUTHENTICATION_FAILED` if the signature does not verify under
///   `sender_identity_public` for these X25519 keys and this ML-KEM ciphertext.
/// - `INVALID_KEY` / `WEAK_KEY` as the hybrid KEM.
#[must_use = "the shared secret is the only output"]
pub fn authenticated_kem_decapsulate(
    our_x25519_secret: &[u8],
    sender_x25519_public: &[u8],
    our_mlkem_dk: &[u8],
    authenticated_ciphertext: &[u8],
    sender_identity_public: &[u8],
) -> Result<Zeroizing<[u8; 32]>> {
    let sender_pub = *exact::<32>("senderX25519Pub", "32 bytes", sender_x25519_public)?;
    exact::<{ mlkem::DK_LEN }>("ourMlkemDk", "2400 bytes", our_mlkem_dk)?;
    let identity_pub = *exact::<32>("senderIdentityPk", "32 bytes", sender_identity_public)?;
    exact::<CIPHERTEXT_LEN>(
        "authenticatedCiphertext",
        "1154 bytes",
        authenticated_ciphertext,
    )?;
    let mut r = Reader::new(authenticated_ciphertext);
    if r.array::<2>() != Some(CT_PREFIX) {
        return Err(MessagingError::Malformed(
            "authenticatedCiphertext: length prefix must be 1088",
        ));
    }
    let (Some(ct), Some(sig)) = (
        r.take(mlkem::CT_LEN),
        r.array::<{ ed25519::SIGNATURE_LEN }>(),
    ) else {
        return Err(MessagingError::Malformed("authenticatedCiphertext"));
    };
    let recipient_pub = x25519::x25519_public(our_x25519_secret)?;
    ed25519::ed25519_verify(
        &identity_pub,
        &signed_message(&sender_pub, &recipient_pub, ct),
        &sig,
    )
    .map_err(|_| MessagingError::AuthenticationFailed)?;
    let dh = x25519::x25519_dh(our_x25519_secret, &sender_pub)?;
    let ss = mlkem::mlkem_decapsulate(our_mlkem_dk, ct)?;
    combine(
        LABEL,
        &identity_pub,
        &dh,
        &ss,
        &sender_pub,
        &recipient_pub,
        ct,
    )
}
