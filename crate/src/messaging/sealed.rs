//! Sealed sender: the sender's identity travels inside the ciphertext, under
//! an ephemeral X25519 key, and is authenticated by the sender's Ed25519
//! signature over the recipient, the sender id and the content.
//!
//! ```text
//! K      = HKDF-SHA256(salt = eph_pub ‖ recipient_pub, ikm = X25519(eph, recipient_pub),
//!                      info = "veilkit-sealed-sender-v1", 32)
//! sig    = Ed25519(sender_sk, "veilkit-sealed-v1" ‖ recipient_pub ‖ u16(|senderId|) ‖ senderId ‖ content)
//! inner  = u16(|senderId|) ‖ senderId ‖ sig(64) ‖ content
//! packet = eph_pub(32) ‖ iv(12) ‖ AES-256-GCM(K, iv, pad(inner), aad = eph_pub ‖ recipient_pub) ‖ tag(16)
//! ```
//!
//! `pad` is [`super::padding::pad_message`]. Unsealing returns the sender id
//! and content only after the signature verifies under the key the caller
//! supplies for that sender id. Every failure after the length check is the
//! opaque `AUTHENTICATION_FAILED`.

use core::fmt;

use zeroize::Zeroizing;

use super::codec::{Reader, hkdf32, put_u16_prefixed};
use super::error::{MessagingError, Result};
use super::padding::{pad_message, unpad_message};
use crate::aead::{self, IV_LEN, TAG_LEN};
use crate::error::{CryptoError, exact};
use crate::{ed25519, rng, x25519};

/// HKDF `info` of the sealing key.
pub const KEY_INFO: &[u8] = b"veilkit-sealed-sender-v1";
/// Signature label.
pub const SIGNATURE_LABEL: &[u8] = b"veilkit-sealed-v1";
/// Shortest possible packet: `eph_pub ‖ iv ‖ padded inner ‖ tag`, where the
/// smallest inner plaintext (`2 + 1 + 64` bytes, plus the 4-byte length)
/// pads to the 128-byte bucket.
pub const MIN_PACKET_LEN: usize = 32 + IV_LEN + 128 + TAG_LEN;
/// Longest sender id (its length is a `u16`).
pub const MAX_SENDER_ID_LEN: usize = 65535;

/// An unsealed, verified message.
pub struct Unsealed {
    /// The sender id the signature was verified for.
    pub sender_id: Vec<u8>,
    /// The content.
    pub content: Zeroizing<Vec<u8>>,
}

impl fmt::Debug for Unsealed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Unsealed")
            .field("sender_id", &self.sender_id)
            .finish_non_exhaustive()
    }
}

fn signed_message(recipient_pub: &[u8; 32], sender_id: &[u8], content: &[u8]) -> Result<Vec<u8>> {
    let mut m = Vec::with_capacity(SIGNATURE_LABEL.len() + 34 + sender_id.len() + content.len());
    m.extend_from_slice(SIGNATURE_LABEL);
    m.extend_from_slice(recipient_pub);
    put_u16_prefixed(&mut m, "senderId", sender_id)?;
    m.extend_from_slice(content);
    Ok(m)
}

fn sealing_key(
    dh: &[u8; 32],
    eph_pub: &[u8; 32],
    recipient_pub: &[u8; 32],
) -> Result<Zeroizing<[u8; 32]>> {
    let mut salt = [0u8; 64];
    let (a, b) = salt.split_at_mut(32);
    a.copy_from_slice(eph_pub);
    b.copy_from_slice(recipient_pub);
    hkdf32(dh, &salt, KEY_INFO)
}

/// Seals `content` from `sender_id` to `recipient_x25519_public`, signed with
/// the sender's Ed25519 secret (32-byte seed or 64-byte `seed ‖ public`).
///
/// # Errors
/// `INVALID_LENGTH` (keys; sender id empty or longer than 65535 bytes),
/// `INVALID_KEY` (64-byte signing key inconsistent), `WEAK_KEY` (low-order
/// recipient key), `RANDOMNESS_UNAVAILABLE`.
#[must_use = "the packet is the only output"]
pub fn seal_message(
    recipient_x25519_public: &[u8],
    sender_id: &[u8],
    content: &[u8],
    sender_signing_key: &[u8],
) -> Result<Vec<u8>> {
    let eph = rng::array::<32>()?;
    let mut iv = [0u8; IV_LEN];
    rng::fill(&mut iv)?;
    seal_message_derand(
        recipient_x25519_public,
        sender_id,
        content,
        sender_signing_key,
        eph.as_slice(),
        &iv,
    )
}

/// [`seal_message`] with a caller-chosen ephemeral secret and IV (known-answer
/// tests only: both must be fresh for every packet).
///
/// # Errors
/// As [`seal_message`], plus `INVALID_LENGTH` for `ephemeral_secret` / `iv`.
#[must_use = "the packet is the only output"]
pub fn seal_message_derand(
    recipient_x25519_public: &[u8],
    sender_id: &[u8],
    content: &[u8],
    sender_signing_key: &[u8],
    ephemeral_secret: &[u8],
    iv: &[u8],
) -> Result<Vec<u8>> {
    let recipient_pub = exact::<32>("recipientX25519Pub", "32 bytes", recipient_x25519_public)?;
    if sender_id.is_empty() || sender_id.len() > MAX_SENDER_ID_LEN {
        return Err(CryptoError::length("senderId", "1 to 65535 bytes", sender_id.len()).into());
    }
    let iv = exact::<IV_LEN>("iv", "12 bytes", iv)?;
    let sig = ed25519::ed25519_sign(
        sender_signing_key,
        &signed_message(recipient_pub, sender_id, content)?,
    )?;
    let eph_pub = x25519::x25519_public(ephemeral_secret)?;
    let dh = x25519::x25519_dh(ephemeral_secret, recipient_pub)?;
    let key = sealing_key(&dh, &eph_pub, recipient_pub)?;

    let mut inner = Zeroizing::new(Vec::with_capacity(2 + sender_id.len() + 64 + content.len()));
    put_u16_prefixed(&mut inner, "senderId", sender_id)?;
    inner.extend_from_slice(&sig);
    inner.extend_from_slice(content);
    let padded = pad_message(&inner)?;

    let mut aad = [0u8; 64];
    let (a, b) = aad.split_at_mut(32);
    a.copy_from_slice(&eph_pub);
    b.copy_from_slice(recipient_pub);
    let ct = aead::aes_gcm_encrypt_with_iv(key.as_slice(), iv, &padded, &aad)?;
    let mut packet = Vec::with_capacity(32 + IV_LEN + ct.len());
    packet.extend_from_slice(&eph_pub);
    packet.extend_from_slice(iv);
    packet.extend_from_slice(&ct);
    Ok(packet)
}

/// A decrypted, *not yet verified* packet.
struct Opened {
    recipient_pub: [u8; 32],
    sender_id: Vec<u8>,
    signature: [u8; 64],
    content: Zeroizing<Vec<u8>>,
}

fn open(packet: &[u8], our_x25519_secret: &[u8]) -> Result<Opened> {
    let recipient_pub = x25519::x25519_public(our_x25519_secret)?;
    if packet.len() < MIN_PACKET_LEN {
        return Err(CryptoError::length("sealedPacket", "at least 188 bytes", packet.len()).into());
    }
    let auth = |_: CryptoError| MessagingError::AuthenticationFailed;
    let (eph_pub, sealed) = packet
        .split_first_chunk::<32>()
        .ok_or(MessagingError::AuthenticationFailed)?;
    let dh = x25519::x25519_dh(our_x25519_secret, eph_pub).map_err(auth)?;
    let key = sealing_key(&dh, eph_pub, &recipient_pub)?;
    let mut aad = [0u8; 64];
    let (a, b) = aad.split_at_mut(32);
    a.copy_from_slice(eph_pub);
    b.copy_from_slice(&recipient_pub);
    let padded = Zeroizing::new(aead::aes_gcm_decrypt(key.as_slice(), sealed, &aad).map_err(auth)?);
    let inner = unpad_message(&padded).map_err(|_| MessagingError::AuthenticationFailed)?;
    let mut r = Reader::new(&inner);
    let id_len = r.u16().ok_or(MessagingError::AuthenticationFailed)?;
    let sender_id = r
        .take(usize::from(id_len))
        .ok_or(MessagingError::AuthenticationFailed)?;
    let signature = r
        .array::<64>()
        .ok_or(MessagingError::AuthenticationFailed)?;
    if sender_id.is_empty() {
        return Err(MessagingError::AuthenticationFailed);
    }
    Ok(Opened {
        recipient_pub,
        sender_id: sender_id.to_vec(),
        signature,
        content: Zeroizing::new(r.rest().to_vec()),
    })
}

/// Decrypts a packet and returns the sender id it claims, **unverified**, so
/// the caller can look up that sender's key. The content is discarded; call
/// [`unseal_message`] with the key to get it.
///
/// # Errors
/// `INVALID_LENGTH` (our key; packet shorter than 188 bytes), `AUTHENTICATION_FAILED`.
#[must_use = "the sender id is the only output"]
pub fn unseal_sender_id(sealed_packet: &[u8], our_x25519_secret: &[u8]) -> Result<Vec<u8>> {
    Ok(open(sealed_packet, our_x25519_secret)?.sender_id)
}

/// Decrypts a packet and verifies the sender's signature under
/// `sender_identity_public` (32-byte Ed25519).
///
/// # Errors
/// `INVALID_LENGTH` (keys; packet shorter than 188 bytes), `AUTHENTICATION_FAILED`
/// for anything else (tampering, wrong recipient, wrong sender key).
#[must_use = "the message is the only output"]
pub fn unseal_message(
    sealed_packet: &[u8],
    our_x25519_secret: &[u8],
    sender_identity_public: &[u8],
) -> Result<Unsealed> {
    let key = *exact::<32>("senderIdentityPk", "32 bytes", sender_identity_public)?;
    unseal_message_with(sealed_packet, our_x25519_secret, |_| Ok(key))
}

/// Decrypts a packet, asks `resolve` for the Ed25519 public key of the sender
/// id it claims, and verifies the signature under that key.
///
/// # Errors
/// As [`unseal_message`], plus whatever `resolve` returns.
pub fn unseal_message_with(
    sealed_packet: &[u8],
    our_x25519_secret: &[u8],
    resolve: impl FnOnce(&[u8]) -> Result<[u8; 32]>,
) -> Result<Unsealed> {
    let opened = open(sealed_packet, our_x25519_secret)?;
    let key = resolve(&opened.sender_id)?;
    let msg = Zeroizing::new(signed_message(
        &opened.recipient_pub,
        &opened.sender_id,
        &opened.content,
    )?);
    ed25519::ed25519_verify(&key, &msg, &opened.signature)
        .map_err(|_| MessagingError::AuthenticationFailed)?;
    Ok(Unsealed {
        sender_id: opened.sender_id,
        content: opened.content,
    })
}
