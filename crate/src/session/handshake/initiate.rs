//! The initiator's side: [`initiate`] / [`initiate_derand`] turn the peer's
//! bundle into the keys and an [`Initiation`] carrying the initial message.

use zeroize::Zeroizing;

use super::TAG_LEN;
use super::message::InitialMessage;
use super::transcript::{Transcript, derive};
use crate::hash::hmac_sha256;
use crate::session::bundle::Bundle;
use crate::session::error::{Result, SessionError};
use crate::session::identity::IdentityKeyPair;
use crate::session::versions::{SUPPORTED_VERSIONS, check_versions, highest_common};
use crate::session::{HandshakeKeys, SessionBinding};
use crate::{mlkem, rng, x25519};

/// This device's side of a handshake.
pub struct LocalDevice<'a> {
    /// The session identity (with its secrets).
    pub identity: &'a IdentityKeyPair,
    /// This device's id.
    pub device_id: u32,
    /// The versions this device supports (normally [`SUPPORTED_VERSIONS`]).
    pub versions: &'a [u8],
}

/// The initiator's result: the keys, the binding and the initial message
/// (its `first_message` empty and its tag unset until
/// [`Initiation::initial_message`] fills them).
pub struct Initiation {
    /// The message fields (what [`Initiation::initial_message`] encodes).
    pub message: InitialMessage,
    /// The handshake's keys for the ratchet.
    pub keys: HandshakeKeys,
    /// Version and both identity encodings.
    pub binding: SessionBinding,
    /// The peer's signed X25519 prekey `SPK_B` (the responder's first ratchet public key).
    pub peer_signed_prekey: [u8; 32],
    /// The peer's device id.
    pub peer_device_id: u32,
    confirmation_key: Zeroizing<[u8; 32]>,
}

impl Initiation {
    /// The canonical initial message carrying `first_message` (the ratchet's
    /// first message), tagged with the confirmation key.
    ///
    /// # Errors
    /// `INVALID_LENGTH` if `first_message` is longer than 1 MiB.
    pub fn initial_message(&self, first_message: &[u8]) -> Result<Vec<u8>> {
        let mut m = self.message.clone();
        m.first_message = first_message.to_vec();
        let mut out = m.authenticated_bytes()?;
        let tag = hmac_sha256(self.confirmation_key.as_slice(), &out);
        out.extend_from_slice(&tag);
        Ok(out)
    }
}

/// Starts a session with the device of `peer_bundle` (random ephemeral key
/// and ML-KEM randomness). See [`initiate_derand`].
///
/// # Errors
/// As [`initiate_derand`]; `RANDOMNESS_UNAVAILABLE`.
pub fn initiate(
    local: &LocalDevice<'_>,
    peer_bundle: &[u8],
    pinned_peer: Option<&[u8]>,
    now: u64,
) -> Result<Initiation> {
    let ephemeral = rng::array::<32>()?;
    let m = rng::array::<32>()?;
    initiate_derand(local, peer_bundle, pinned_peer, now, &ephemeral, &m)
}

/// Starts a session with the device of `peer_bundle`, with the ephemeral
/// X25519 scalar and the ML-KEM encapsulation randomness `m` given
/// (known-answer tests; both must be fresh and secret otherwise).
///
/// Parses and verifies the bundle at `now` (if `pinned_peer` is given, the
/// bundle's identity must be that exact `Enc(ID)`), picks the highest
/// version both lists contain, uses the bundle's one-time prekeys if
/// offered, and derives the keys.
///
/// # Errors
/// `MALFORMED_INPUT`, `PQ_IDENTITY_REQUIRED`, `BUNDLE_INVALID`,
/// `PREKEY_EXPIRED`, `IDENTITY_MISMATCH`, `NO_COMMON_VERSION`, `WEAK_KEY`,
/// `INVALID_KEY` (ML-KEM modulus check).
pub fn initiate_derand(
    local: &LocalDevice<'_>,
    peer_bundle: &[u8],
    pinned_peer: Option<&[u8]>,
    now: u64,
    ephemeral_secret: &[u8; 32],
    kem_randomness: &[u8; 32],
) -> Result<Initiation> {
    check_versions(local.versions)?;
    let bundle = Bundle::parse(peer_bundle)?;
    bundle.verify(pinned_peer, now)?;
    let version =
        highest_common(local.versions, &bundle.versions).ok_or(SessionError::NoCommonVersion)?;
    if !SUPPORTED_VERSIONS.contains(&version) {
        return Err(SessionError::NoCommonVersion);
    }
    let ours = local.identity.public();
    let theirs = &bundle.identity;
    let ephemeral = x25519::x25519_public(ephemeral_secret)?;
    let spk = bundle.signed_prekey.key.as_slice();
    let dh1 = local.identity.dh(spk)?;
    let dh2 = x25519::x25519_dh(ephemeral_secret, theirs.x25519())?;
    let dh3 = x25519::x25519_dh(ephemeral_secret, spk)?;
    let dh4 = match &bundle.one_time {
        Some(opk) => Some(x25519::x25519_dh(ephemeral_secret, &opk.key)?),
        None => None,
    };
    let pq = bundle
        .pq_one_time
        .as_ref()
        .unwrap_or(&bundle.pq_last_resort);
    let (ciphertext, ss) = mlkem::mlkem_encapsulate_derand(&pq.key, kem_randomness)?;
    let transcript = Transcript {
        version,
        initiator_versions: local.versions,
        responder_versions: &bundle.versions,
        initiator: ours.encoding(),
        responder: theirs.encoding(),
        signed_prekey: spk,
        one_time_prekey: bundle.one_time.as_ref().map(|p| p.key.as_slice()),
        pq_prekey: &pq.key,
        pq_one_time: bundle.pq_one_time.is_some(),
        ephemeral: &ephemeral,
        ciphertext: &ciphertext,
        initiator_device_id: local.device_id,
        responder_device_id: bundle.device_id,
    };
    let mut dhs: Vec<&[u8; 32]> = vec![&dh1, &dh2, &dh3];
    if let Some(d) = &dh4 {
        dhs.push(d);
    }
    let (keys, confirmation_key) = derive(&dhs, &ss, &transcript)?;
    let peer_signed_prekey = <[u8; 32]>::try_from(spk)
        .map_err(|_| SessionError::BundleInvalid("signed prekey length"))?;
    let message = InitialMessage {
        version,
        initiator_identity: ours.clone(),
        initiator_device_id: local.device_id,
        initiator_versions: local.versions.to_vec(),
        responder_identity_id: *theirs.id(),
        responder_device_id: bundle.device_id,
        responder_versions: bundle.versions.clone(),
        ephemeral,
        signed_prekey_id: bundle.signed_prekey.key_id,
        pq_prekey_kind: pq.kind,
        pq_prekey_id: pq.key_id,
        one_time_prekey_id: bundle.one_time.as_ref().map(|p| p.key_id),
        ciphertext,
        first_message: Vec::new(),
        tag: [0; TAG_LEN],
    };
    Ok(Initiation {
        binding: SessionBinding {
            version,
            initiator_identity: ours.encoding().to_vec(),
            responder_identity: theirs.encoding().to_vec(),
        },
        message,
        keys,
        peer_signed_prekey,
        peer_device_id: bundle.device_id,
        confirmation_key,
    })
}
