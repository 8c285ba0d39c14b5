//! Certified credentials: a member's MLS credential bound to its keystore
//! identity.
//!
//! An MLS basic credential carries identity bytes that MLS itself does not
//! interpret. A veilkit member's are a *certified credential*:
//!
//! ```text
//! credential  = version (0x01) || Enc(ID) (2,017 bytes) || certificate (64 bytes)
//! Enc(ID)     = the session identity encoding (docs/SESSIONS.md §2.1; flags 0x01:
//!               Ed25519 || ML-DSA-65 || X25519 public keys)
//! certificate = Ed25519-Sign(identity Ed25519 key,
//!               "veilkit-mls-credential-v1" || 0x00 || MLS signature public key (32))
//! ```
//!
//! The certificate binds the leaf's MLS signature key to the identity, so a
//! member shows the same `Enc(ID)` (and verification code) in a group as in a
//! one-to-one session. It is Ed25519 only: an MLS group's authentication is the
//! suite's Ed25519 signatures, so a post-quantum certificate would not protect
//! more than the signatures it certifies (docs/GROUPS.md "Credentials").
//!
//! A client whose own credential is certified requires one of every member:
//! [`check_leaf`] runs on every key package it adds, every member of a welcome
//! it joins, and every leaf a received commit adds or changes; a changed leaf
//! must keep its `Enc(ID)`.

use super::GroupError;
use crate::ed25519;
use crate::messaging::verification;

/// The credential version byte.
pub const VERSION: u8 = 0x01;
/// Length of `Enc(ID)` with the ML-DSA-65 key (flags `0x01`).
pub const IDENTITY_LEN: usize = 1 + 32 + 1952 + 32;
/// Length of a certified credential.
pub const CREDENTIAL_LEN: usize = 1 + IDENTITY_LEN + 64;
/// The certificate's domain-separation label.
pub const LABEL: &[u8] = b"veilkit-mls-credential-v1";

/// The bytes the identity's Ed25519 key signs for the MLS signature key `key`.
#[must_use]
pub fn certificate_message(key: &[u8; 32]) -> Vec<u8> {
    let mut m = Vec::with_capacity(LABEL.len() + 1 + 32);
    m.extend_from_slice(LABEL);
    m.push(0x00);
    m.extend_from_slice(key);
    m
}

/// A certified credential for the MLS signature key `key`, signed with the
/// identity's Ed25519 seed (32 bytes) whose public key is in `enc_id`.
///
/// # Errors
/// [`GroupError::InvalidArgument`] if `enc_id` is not a canonical identity
/// encoding with the ML-DSA-65 key, or the seed is not the one of its Ed25519 key.
pub fn issue(enc_id: &[u8], ed25519_seed: &[u8], key: &[u8; 32]) -> Result<Vec<u8>, GroupError> {
    let public = identity_ed25519(enc_id)?;
    let pair = ed25519::ed25519_from_seed(ed25519_seed)
        .map_err(|_| GroupError::InvalidArgument("identity Ed25519 seed: 32 bytes"))?;
    if pair.public.as_slice() != public {
        return Err(GroupError::InvalidArgument(
            "identity Ed25519 seed: not the key of this identity",
        ));
    }
    let sig = ed25519::ed25519_sign(ed25519_seed, &certificate_message(key))
        .map_err(|_| GroupError::Internal)?;
    let mut out = Vec::with_capacity(CREDENTIAL_LEN);
    out.push(VERSION);
    out.extend_from_slice(enc_id);
    out.extend_from_slice(&sig);
    Ok(out)
}

/// The Ed25519 public key inside a canonical `Enc(ID)` with flags `0x01`.
fn identity_ed25519(enc_id: &[u8]) -> Result<&[u8], GroupError> {
    if enc_id.len() != IDENTITY_LEN
        || verification::check_identity("identity", enc_id).is_err()
        || enc_id.first() != Some(&verification::FLAG_ML_DSA_65)
    {
        return Err(GroupError::InvalidArgument(
            "identity: a 2,017-byte Enc(ID) with the ML-DSA-65 key",
        ));
    }
    enc_id.get(1..33).ok_or(GroupError::Internal)
}

/// Whether `credential` has a certified credential's shape (version and length).
#[must_use]
pub fn is_certified(credential: &[u8]) -> bool {
    credential.len() == CREDENTIAL_LEN && credential.first() == Some(&VERSION)
}

/// Checks a leaf's credential against its MLS signature key and returns its
/// `Enc(ID)`.
///
/// # Errors
/// [`GroupError::InvalidCredential`] for anything but a certified credential
/// whose certificate verifies for `signature_key`.
pub fn check_leaf<'a>(credential: &'a [u8], signature_key: &[u8]) -> Result<&'a [u8], GroupError> {
    let bad = || GroupError::InvalidCredential;
    if !is_certified(credential) {
        return Err(bad());
    }
    let enc_id = credential.get(1..=IDENTITY_LEN).ok_or_else(bad)?;
    let certificate = credential.get(1 + IDENTITY_LEN..).ok_or_else(bad)?;
    let public = identity_ed25519(enc_id).map_err(|_| bad())?;
    let key: &[u8; 32] = signature_key.try_into().map_err(|_| bad())?;
    ed25519::ed25519_verify(public, &certificate_message(key), certificate).map_err(|_| bad())?;
    Ok(enc_id)
}

/// The `Enc(ID)` of a certified credential, without checking its certificate
/// (for display of a credential already checked when it entered the group).
#[must_use]
pub fn enc_id(credential: &[u8]) -> Option<&[u8]> {
    if is_certified(credential) {
        credential.get(1..=IDENTITY_LEN)
    } else {
        None
    }
}

/// The conversation id of the static verification code of a one-to-one
/// session (`ts/session.ts` `SESSION_VERIFICATION_CONTEXT`): a group member's
/// code uses the same one, so it equals the 1:1 session's code for the same two
/// identities.
pub const VERIFICATION_CONTEXT: &[u8] = b"veilkit-session-v1";

/// The verification code between this member's certified credential `own`
/// and another member's `member`: `generate_verification_code` over both
/// `Enc(ID)`s with [`VERIFICATION_CONTEXT`], symmetric, and the same as the
/// one-to-one session's code of the two identities.
///
/// # Errors
/// [`GroupError::InvalidCredential`] unless both are certified credentials
/// (their certificates were checked when they entered the group).
pub fn verification_code(
    own: &[u8],
    member: &[u8],
) -> Result<verification::VerificationCode, GroupError> {
    let (Some(a), Some(b)) = (enc_id(own), enc_id(member)) else {
        return Err(GroupError::InvalidCredential);
    };
    verification::generate_verification_code(a, b, VERIFICATION_CONTEXT)
        .map_err(|_| GroupError::InvalidCredential)
}
