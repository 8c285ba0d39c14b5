//! The responder's side: [`respond`] answers an initial message, reading the
//! prekey secrets and the replay cache through a [`PrekeyStore`] and
//! returning what to commit with the session.

use zeroize::Zeroizing;

use super::TAG_LEN;
use super::initiate::LocalDevice;
use super::message::InitialMessage;
use super::transcript::{Transcript, derive};
use crate::hash::{hmac_sha256_verify, sha256};
use crate::session::error::{Result, SessionError};
use crate::session::identity::SessionIdentity;
use crate::session::prekey::PrekeyKind;
use crate::session::versions::{SUPPORTED_VERSIONS, check_versions, highest_common};
use crate::session::{HandshakeKeys, SessionBinding};
use crate::{mlkem, x25519};

/// The replay-cache key of an initial message that used no one-time prekey:
/// `SHA-256(EK_A ‖ CT)`, kept per (signed prekey id, last-resort prekey id)
/// until those prekeys are deleted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ReplayKey {
    /// Key id of the signed X25519 prekey.
    pub signed_prekey_id: u32,
    /// Key id of the last-resort ML-KEM prekey.
    pub pq_prekey_id: u32,
    /// `SHA-256(EK_A ‖ CT)`.
    pub digest: [u8; 32],
}

/// Where the responder's prekey secrets and replay cache live (the keystore).
/// `respond` only reads through it.
pub trait PrekeyStore {
    /// The secret scalar of the signed X25519 prekey `key_id`, if still kept.
    fn signed_prekey(&self, key_id: u32) -> Option<Zeroizing<[u8; 32]>>;
    /// The secret scalar of the one-time X25519 prekey `key_id`, if not yet consumed.
    fn one_time_prekey(&self, key_id: u32) -> Option<Zeroizing<[u8; 32]>>;
    /// The 2,400-byte decapsulation key of the ML-KEM prekey (`kind`, `key_id`),
    /// if still kept (one-time: not yet consumed).
    fn mlkem_prekey(&self, kind: PrekeyKind, key_id: u32) -> Option<Zeroizing<Vec<u8>>>;
    /// Whether the replay cache already holds `key`.
    fn replay_seen(&self, key: &ReplayKey) -> bool;
}

/// One-time prekeys a successful `respond` used: the caller deletes them in
/// the transaction that stores the new session.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConsumedPrekeys {
    /// The one-time X25519 prekey's id, if one was used.
    pub one_time_x25519: Option<u32>,
    /// The one-time ML-KEM prekey's id, if one was used.
    pub one_time_mlkem: Option<u32>,
}

/// The responder's result.
pub struct Response {
    /// The handshake's keys for the ratchet.
    pub keys: HandshakeKeys,
    /// Version and both identity encodings.
    pub binding: SessionBinding,
    /// The initiator's identity (compare it with the pinned one, or show its
    /// verification code, before trusting the session).
    pub initiator: SessionIdentity,
    /// The initiator's device id.
    pub initiator_device_id: u32,
    /// The initiator's ephemeral key `EK_A`.
    pub initiator_ephemeral: [u8; 32],
    /// The ratchet's first message from the slot.
    pub first_message: Vec<u8>,
    /// Key id of the signed prekey used (the responder's first ratchet key pair).
    pub signed_prekey_id: u32,
    /// Its secret scalar.
    pub signed_prekey_secret: Zeroizing<[u8; 32]>,
    /// One-time prekeys to delete when the session is stored.
    pub consumed: ConsumedPrekeys,
    /// The replay-cache entry to add when the session is stored (only when
    /// no one-time prekey was used).
    pub replay_key: Option<ReplayKey>,
}

/// Answers an initial message: parses it, checks it is addressed to this
/// identity and device, refuses a version downgrade, looks the prekey
/// secrets up in `store`, refuses a replay (no one-time prekey), recomputes
/// the keys and checks the confirmation tag. Consumes nothing: the caller
/// commits [`Response::consumed`] and [`Response::replay_key`] with the session.
///
/// `pinned_peer`: the initiator's `Enc(ID)` if it is already known; the
/// message's identity must then be exactly it.
///
/// # Errors
/// `MALFORMED_INPUT`, `PQ_IDENTITY_REQUIRED`, `IDENTITY_MISMATCH`,
/// `VERSION_DOWNGRADE`, `NO_COMMON_VERSION`, `PREKEY_NOT_FOUND`,
/// `REPLAY_DETECTED`, `WEAK_KEY`, `INVALID_KEY`, `AUTHENTICATION_FAILED`.
pub fn respond(
    local: &LocalDevice<'_>,
    message: &[u8],
    pinned_peer: Option<&[u8]>,
    store: &dyn PrekeyStore,
) -> Result<Response> {
    check_versions(local.versions)?;
    let m = InitialMessage::parse(message)?;
    let ours = local.identity.public();
    if m.responder_identity_id != *ours.id() {
        return Err(SessionError::IdentityMismatch(
            "initial message is for another identity",
        ));
    }
    if m.responder_device_id != local.device_id {
        return Err(SessionError::IdentityMismatch(
            "initial message is for another device",
        ));
    }
    if let Some(p) = pinned_peer
        && p != m.initiator_identity.encoding()
    {
        return Err(SessionError::IdentityMismatch(
            "initiator is not the pinned identity",
        ));
    }
    // Version: the initiator must have taken the highest version of the two
    // lists it sent, and no higher version may be common to its list and ours.
    if highest_common(&m.initiator_versions, &m.responder_versions) != Some(m.version) {
        return Err(SessionError::VersionDowngrade);
    }
    match highest_common(&m.initiator_versions, local.versions) {
        Some(v) if v > m.version => return Err(SessionError::VersionDowngrade),
        Some(v) if v == m.version && SUPPORTED_VERSIONS.contains(&v) => {}
        _ => return Err(SessionError::NoCommonVersion),
    }
    let spk_secret = store
        .signed_prekey(m.signed_prekey_id)
        .ok_or(SessionError::PrekeyNotFound)?;
    let dk = store
        .mlkem_prekey(m.pq_prekey_kind, m.pq_prekey_id)
        .ok_or(SessionError::PrekeyNotFound)?;
    let opk_secret = match m.one_time_prekey_id {
        Some(id) => Some(
            store
                .one_time_prekey(id)
                .ok_or(SessionError::PrekeyNotFound)?,
        ),
        None => None,
    };
    let pq_one_time = m.pq_prekey_kind == PrekeyKind::MlKemOneTime;
    let replay_key = if opk_secret.is_none() && !pq_one_time {
        let key = ReplayKey {
            signed_prekey_id: m.signed_prekey_id,
            pq_prekey_id: m.pq_prekey_id,
            digest: sha256(&[m.ephemeral.as_slice(), &m.ciphertext].concat()),
        };
        if store.replay_seen(&key) {
            return Err(SessionError::ReplayDetected);
        }
        Some(key)
    } else {
        None
    };
    let pq_prekey = mlkem::embedded_ek(&dk)?;
    let spk_public = x25519::x25519_public(spk_secret.as_slice())?;
    let opk_public = match &opk_secret {
        Some(s) => Some(x25519::x25519_public(s.as_slice())?),
        None => None,
    };
    let dh1 = x25519::x25519_dh(spk_secret.as_slice(), m.initiator_identity.x25519())?;
    let dh2 = local.identity.dh(&m.ephemeral)?;
    let dh3 = x25519::x25519_dh(spk_secret.as_slice(), &m.ephemeral)?;
    let dh4 = match &opk_secret {
        Some(s) => Some(x25519::x25519_dh(s.as_slice(), &m.ephemeral)?),
        None => None,
    };
    let ss = mlkem::mlkem_decapsulate(&dk, &m.ciphertext)?;
    let transcript = Transcript {
        version: m.version,
        initiator_versions: &m.initiator_versions,
        responder_versions: &m.responder_versions,
        initiator: m.initiator_identity.encoding(),
        responder: ours.encoding(),
        signed_prekey: &spk_public,
        one_time_prekey: opk_public.as_ref().map(<[u8; 32]>::as_slice),
        pq_prekey,
        pq_one_time,
        ephemeral: &m.ephemeral,
        ciphertext: &m.ciphertext,
        initiator_device_id: m.initiator_device_id,
        responder_device_id: local.device_id,
    };
    let mut dhs: Vec<&[u8; 32]> = vec![&dh1, &dh2, &dh3];
    if let Some(d) = &dh4 {
        dhs.push(d);
    }
    let (keys, confirmation_key) = derive(&dhs, &ss, &transcript)?;
    let authenticated = message
        .get(..message.len().saturating_sub(TAG_LEN))
        .ok_or(SessionError::Malformed("initial message truncated"))?;
    hmac_sha256_verify(confirmation_key.as_slice(), authenticated, &m.tag)
        .map_err(|_| SessionError::AuthenticationFailed)?;
    Ok(Response {
        keys,
        binding: SessionBinding {
            version: m.version,
            initiator_identity: m.initiator_identity.encoding().to_vec(),
            responder_identity: ours.encoding().to_vec(),
        },
        consumed: ConsumedPrekeys {
            one_time_x25519: m.one_time_prekey_id,
            one_time_mlkem: pq_one_time.then_some(m.pq_prekey_id),
        },
        initiator_ephemeral: m.ephemeral,
        initiator_device_id: m.initiator_device_id,
        first_message: m.first_message,
        signed_prekey_id: m.signed_prekey_id,
        signed_prekey_secret: spk_secret,
        initiator: m.initiator_identity,
        replay_key,
    })
}
