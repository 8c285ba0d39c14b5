//! The PQXDH-style handshake (docs/SESSIONS.md §4; PQXDH rev. 3 §3.3, §3.4).
//!
//! ```text
//! DH1 = DH(IK_A, SPK_B)   DH2 = DH(EK_A, IK_B)   DH3 = DH(EK_A, SPK_B)   DH4 = DH(EK_A, OPK_B)
//! (CT, SS) = ML-KEM-768.Encaps(PQPK_B)   (PQPK_B: the one-time ML-KEM prekey if offered,
//!                                          else the last-resort one)
//! flags = bit 0: DH4 present, bit 1: PQPK_B is a one-time prekey
//! T     = SHA-256(Enc(ID_A) ‖ Enc(ID_B) ‖ SPK_B ‖ [OPK_B] ‖ PQPK_B ‖ EK_A ‖ CT
//!                 ‖ u32 device_A ‖ u32 device_B)
//! info  = "veilkit-pqxdh-v1" ‖ u8 version ‖ u8 flags ‖ versions_A ‖ versions_B ‖ T
//! OKM   = HKDF-SHA256(salt = 0^32, ikm = 0xFF^32 ‖ DH1 ‖ DH2 ‖ DH3 ‖ [DH4] ‖ SS, info, L = 128)
//!       = root_key ‖ chain_key ‖ pq_root_0 ‖ confirmation_key (32 bytes each)
//!
//! initial message = "VKIM" ‖ u8 version ‖ Enc(ID_A)(2017) ‖ u32 device_A ‖ versions_A
//!                   ‖ identity id_B(32) ‖ u32 device_B ‖ versions_B (as seen in the bundle)
//!                   ‖ EK_A(32) ‖ u32 spk_id ‖ u8 pq_kind(3|4) ‖ u32 pq_id
//!                   ‖ u8 has_opk(0|1) ‖ [u32 opk_id] ‖ CT(1088)
//!                   ‖ u32 n ‖ first_message(n ≤ 1 MiB) ‖ tag(32)
//! tag = HMAC-SHA256(confirmation_key, every preceding byte of the initial message)
//! ```
//! The responder checks the tag last; every failure before or at it leaves
//! its store untouched (it only reads), and a success returns which one-time
//! prekeys to delete and which replay-cache entry to add, for the caller to
//! commit in the same transaction as the new session.
//!
//! Size: the initial-message codec, the shared transcript / KDF and both sides
//! in one module so the transcript is built by one function; splitting the codec
//! and the in-memory test stores out is planned with the keystore wiring.

use std::collections::{HashMap, HashSet};

use zeroize::Zeroizing;

use super::bundle::Bundle;
use super::error::{Result, SessionError};
use super::identity::{IDENTITY_ENCODING_LEN, IDENTITY_ID_LEN, IdentityKeyPair, SessionIdentity};
use super::prekey::PrekeyKind;
use super::versions::{
    SUPPORTED_VERSIONS, check_versions, highest_common, read_versions, write_versions,
};
use super::{HandshakeKeys, SessionBinding};
use crate::bytes::ByteReader;
use crate::hash::{Sha256, hmac_sha256, hmac_sha256_verify, sha256};
use crate::kdf::hkdf_sha256;
use crate::{mlkem, rng, x25519};

/// HKDF info label of the handshake.
pub const PQXDH_LABEL: &[u8] = b"veilkit-pqxdh-v1";
/// Magic of an initial message.
pub const INITIAL_MAGIC: &[u8; 4] = b"VKIM";
/// Longest `first_message` slot (1 MiB).
pub const MAX_FIRST_MESSAGE_LEN: usize = 1 << 20;
/// Length of the initial message's confirmation tag.
pub const TAG_LEN: usize = 32;
/// `flags` bit: DH4 (a one-time X25519 prekey) is part of the secret.
pub const FLAG_DH4: u8 = 0x01;
/// `flags` bit: the ML-KEM ciphertext is to a one-time ML-KEM prekey.
pub const FLAG_PQ_ONE_TIME: u8 = 0x02;

/// Offset of the encapsulation key inside an expanded ML-KEM-768 decapsulation key.
const DK_EK_OFFSET: usize = 1152;

/// This device's side of a handshake.
pub struct LocalDevice<'a> {
    /// The session identity (with its secrets).
    pub identity: &'a IdentityKeyPair,
    /// This device's id.
    pub device_id: u32,
    /// The versions this device supports (normally [`SUPPORTED_VERSIONS`]).
    pub versions: &'a [u8],
}

/// An initial message (the fields of the canonical bytes, see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitialMessage {
    /// The negotiated version.
    pub version: u8,
    /// The initiator's session identity `Enc(ID_A)`.
    pub initiator_identity: SessionIdentity,
    /// The initiator's device id.
    pub initiator_device_id: u32,
    /// The initiator's supported versions.
    pub initiator_versions: Vec<u8>,
    /// The responder's identity id.
    pub responder_identity_id: [u8; IDENTITY_ID_LEN],
    /// The responder's device id (from its bundle).
    pub responder_device_id: u32,
    /// The responder's supported versions, as the initiator saw them in the bundle.
    pub responder_versions: Vec<u8>,
    /// The initiator's ephemeral X25519 key `EK_A`.
    pub ephemeral: [u8; 32],
    /// Key id of the signed X25519 prekey used.
    pub signed_prekey_id: u32,
    /// Kind of the ML-KEM prekey used (last-resort or one-time).
    pub pq_prekey_kind: PrekeyKind,
    /// Key id of the ML-KEM prekey used.
    pub pq_prekey_id: u32,
    /// Key id of the one-time X25519 prekey used, if any.
    pub one_time_prekey_id: Option<u32>,
    /// The ML-KEM-768 ciphertext `CT` (1,088 bytes).
    pub ciphertext: Vec<u8>,
    /// Opaque slot for the ratchet's first message.
    pub first_message: Vec<u8>,
    /// `HMAC-SHA256(confirmation_key, preceding bytes)`.
    pub tag: [u8; TAG_LEN],
}

impl InitialMessage {
    /// Every byte the tag covers.
    ///
    /// # Errors
    /// `MALFORMED_INPUT` (version lists), `INVALID_LENGTH` (ciphertext, first message).
    pub fn authenticated_bytes(&self) -> Result<Vec<u8>> {
        if self.ciphertext.len() != mlkem::CT_LEN {
            return Err(crate::error::CryptoError::length(
                "ciphertext",
                "1088 bytes",
                self.ciphertext.len(),
            )
            .into());
        }
        if self.first_message.len() > MAX_FIRST_MESSAGE_LEN {
            return Err(crate::error::CryptoError::length(
                "firstMessage",
                "at most 1 MiB",
                self.first_message.len(),
            )
            .into());
        }
        if !self.pq_prekey_kind.is_kem() {
            return Err(SessionError::Malformed("initial message: PQ prekey kind"));
        }
        let mut out = Vec::with_capacity(
            5 + IDENTITY_ENCODING_LEN
                + 4
                + 17
                + 32
                + 4
                + 17
                + 32
                + 4
                + 1
                + 4
                + 1
                + 4
                + mlkem::CT_LEN
                + 4
                + self.first_message.len()
                + TAG_LEN,
        );
        out.extend_from_slice(INITIAL_MAGIC);
        out.push(self.version);
        out.extend_from_slice(self.initiator_identity.encoding());
        out.extend_from_slice(&self.initiator_device_id.to_be_bytes());
        write_versions(&mut out, &self.initiator_versions)?;
        out.extend_from_slice(&self.responder_identity_id);
        out.extend_from_slice(&self.responder_device_id.to_be_bytes());
        write_versions(&mut out, &self.responder_versions)?;
        out.extend_from_slice(&self.ephemeral);
        out.extend_from_slice(&self.signed_prekey_id.to_be_bytes());
        out.push(self.pq_prekey_kind.byte());
        out.extend_from_slice(&self.pq_prekey_id.to_be_bytes());
        match self.one_time_prekey_id {
            Some(id) => {
                out.push(1);
                out.extend_from_slice(&id.to_be_bytes());
            }
            None => out.push(0),
        }
        out.extend_from_slice(&self.ciphertext);
        let n = u32::try_from(self.first_message.len()).map_err(|_| {
            crate::error::CryptoError::length(
                "firstMessage",
                "at most 1 MiB",
                self.first_message.len(),
            )
        })?;
        out.extend_from_slice(&n.to_be_bytes());
        out.extend_from_slice(&self.first_message);
        Ok(out)
    }

    /// The canonical bytes (authenticated bytes ‖ tag).
    ///
    /// # Errors
    /// As [`InitialMessage::authenticated_bytes`].
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut out = self.authenticated_bytes()?;
        out.extend_from_slice(&self.tag);
        Ok(out)
    }

    /// Parses canonical initial-message bytes (structure only).
    ///
    /// # Errors
    /// `MALFORMED_INPUT`, `PQ_IDENTITY_REQUIRED`.
    pub fn parse(bytes: &[u8]) -> Result<Self> {
        let trunc = SessionError::Malformed("initial message truncated");
        let mut r = ByteReader::new(bytes);
        if r.array::<4>().ok_or(trunc)? != *INITIAL_MAGIC {
            return Err(SessionError::Malformed("initial message: bad magic"));
        }
        let version = r.u8().ok_or(trunc)?;
        if version == 0 {
            return Err(SessionError::Malformed("initial message: version 0"));
        }
        let initiator_identity =
            SessionIdentity::from_encoding(r.take(IDENTITY_ENCODING_LEN).ok_or(trunc)?)?;
        let initiator_device_id = r.u32().ok_or(trunc)?;
        let initiator_versions = read_versions(&mut r)?;
        let responder_identity_id = r.array::<IDENTITY_ID_LEN>().ok_or(trunc)?;
        let responder_device_id = r.u32().ok_or(trunc)?;
        let responder_versions = read_versions(&mut r)?;
        let ephemeral = r.array::<32>().ok_or(trunc)?;
        let signed_prekey_id = r.u32().ok_or(trunc)?;
        let pq_prekey_kind = PrekeyKind::from_byte(r.u8().ok_or(trunc)?)
            .filter(|k| k.is_kem())
            .ok_or(SessionError::Malformed("initial message: PQ prekey kind"))?;
        let pq_prekey_id = r.u32().ok_or(trunc)?;
        let one_time_prekey_id = match r.u8().ok_or(trunc)? {
            0 => None,
            1 => Some(r.u32().ok_or(trunc)?),
            _ => {
                return Err(SessionError::Malformed(
                    "initial message: one-time prekey flag",
                ));
            }
        };
        let ciphertext = r.take(mlkem::CT_LEN).ok_or(trunc)?.to_vec();
        let n = usize::try_from(r.u32().ok_or(trunc)?).map_err(|_| trunc)?;
        if n > MAX_FIRST_MESSAGE_LEN {
            return Err(SessionError::Malformed(
                "initial message: first message longer than 1 MiB",
            ));
        }
        let first_message = r.take(n).ok_or(trunc)?.to_vec();
        let tag = r.array::<TAG_LEN>().ok_or(trunc)?;
        if !r.rest().is_empty() {
            return Err(SessionError::Malformed("initial message: trailing bytes"));
        }
        Ok(Self {
            version,
            initiator_identity,
            initiator_device_id,
            initiator_versions,
            responder_identity_id,
            responder_device_id,
            responder_versions,
            ephemeral,
            signed_prekey_id,
            pq_prekey_kind,
            pq_prekey_id,
            one_time_prekey_id,
            ciphertext,
            first_message,
            tag,
        })
    }
}

/// The public values the key derivation binds.
struct Transcript<'a> {
    version: u8,
    initiator_versions: &'a [u8],
    responder_versions: &'a [u8],
    initiator: &'a [u8],
    responder: &'a [u8],
    signed_prekey: &'a [u8],
    one_time_prekey: Option<&'a [u8]>,
    pq_prekey: &'a [u8],
    pq_one_time: bool,
    ephemeral: &'a [u8],
    ciphertext: &'a [u8],
    initiator_device_id: u32,
    responder_device_id: u32,
}

/// The HKDF `info` of a transcript.
fn kdf_info(t: &Transcript<'_>) -> Result<Vec<u8>> {
    let mut flags = 0u8;
    if t.one_time_prekey.is_some() {
        flags |= FLAG_DH4;
    }
    if t.pq_one_time {
        flags |= FLAG_PQ_ONE_TIME;
    }
    let mut h = Sha256::new();
    h.update(t.initiator);
    h.update(t.responder);
    h.update(t.signed_prekey);
    if let Some(opk) = t.one_time_prekey {
        h.update(opk);
    }
    h.update(t.pq_prekey);
    h.update(t.ephemeral);
    h.update(t.ciphertext);
    h.update(&t.initiator_device_id.to_be_bytes());
    h.update(&t.responder_device_id.to_be_bytes());
    let mut info = Vec::with_capacity(PQXDH_LABEL.len() + 2 + 34 + 32);
    info.extend_from_slice(PQXDH_LABEL);
    info.push(t.version);
    info.push(flags);
    write_versions(&mut info, t.initiator_versions)?;
    write_versions(&mut info, t.responder_versions)?;
    info.extend_from_slice(&h.finalize());
    Ok(info)
}

/// `OKM = HKDF(0^32, 0xFF^32 ‖ DH1 ‖ DH2 ‖ DH3 ‖ [DH4] ‖ SS, info, 128)`, split.
fn derive(
    dhs: &[&[u8; 32]],
    ss: &[u8; 32],
    t: &Transcript<'_>,
) -> Result<(HandshakeKeys, Zeroizing<[u8; 32]>)> {
    let mut ikm = Zeroizing::new(Vec::with_capacity(32 * 6));
    ikm.extend_from_slice(&[0xFF; 32]);
    for dh in dhs {
        ikm.extend_from_slice(dh.as_slice());
    }
    ikm.extend_from_slice(ss);
    let okm = hkdf_sha256(&ikm, &[0u8; 32], &kdf_info(t)?, 128)?;
    let part = |i: usize| -> Result<Zeroizing<[u8; 32]>> {
        okm.get(32 * i..32 * (i + 1))
            .and_then(|s| <[u8; 32]>::try_from(s).ok())
            .map(Zeroizing::new)
            .ok_or(SessionError::Malformed("handshake key schedule"))
    };
    Ok((
        HandshakeKeys {
            root_key: part(0)?,
            chain_key: part(1)?,
            pq_root_0: part(2)?,
        },
        part(3)?,
    ))
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
    let pq_prekey =
        dk.get(DK_EK_OFFSET..DK_EK_OFFSET + mlkem::EK_LEN)
            .ok_or(SessionError::Crypto(crate::error::CryptoError::InvalidKey(
                "ML-KEM decapsulation key length",
            )))?;
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

/// An in-memory replay cache (tests, and a model of the keystore's).
#[derive(Clone, Debug, Default)]
pub struct MemoryReplayCache {
    seen: HashSet<ReplayKey>,
}

impl MemoryReplayCache {
    /// Whether `key` is in the cache.
    #[must_use]
    pub fn contains(&self, key: &ReplayKey) -> bool {
        self.seen.contains(key)
    }

    /// Adds `key`; `false` if it was already there.
    pub fn insert(&mut self, key: ReplayKey) -> bool {
        self.seen.insert(key)
    }

    /// Drops the entries of a deleted signed or last-resort prekey.
    pub fn forget_prekeys(&mut self, signed_prekey_id: Option<u32>, pq_prekey_id: Option<u32>) {
        self.seen.retain(|k| {
            Some(k.signed_prekey_id) != signed_prekey_id && Some(k.pq_prekey_id) != pq_prekey_id
        });
    }

    /// Number of entries.
    #[must_use]
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    /// Whether the cache is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }
}

/// An in-memory [`PrekeyStore`] with the keystore's commit semantics
/// ([`MemoryPrekeyStore::commit`]): tests and a reference model.
#[derive(Default)]
pub struct MemoryPrekeyStore {
    signed: HashMap<u32, Zeroizing<[u8; 32]>>,
    one_time: HashMap<u32, Zeroizing<[u8; 32]>>,
    mlkem: HashMap<(PrekeyKind, u32), Zeroizing<Vec<u8>>>,
    /// The replay cache.
    pub replay: MemoryReplayCache,
}

impl MemoryPrekeyStore {
    /// Keeps a signed X25519 prekey secret.
    pub fn add_signed(&mut self, key_id: u32, secret: Zeroizing<[u8; 32]>) {
        self.signed.insert(key_id, secret);
    }

    /// Keeps a one-time X25519 prekey secret.
    pub fn add_one_time(&mut self, key_id: u32, secret: Zeroizing<[u8; 32]>) {
        self.one_time.insert(key_id, secret);
    }

    /// Keeps an ML-KEM prekey decapsulation key.
    pub fn add_mlkem(
        &mut self,
        kind: PrekeyKind,
        key_id: u32,
        decapsulation_key: Zeroizing<Vec<u8>>,
    ) {
        self.mlkem.insert((kind, key_id), decapsulation_key);
    }

    /// Deletes the signed X25519 prekey (rotation) and its replay entries.
    pub fn delete_signed(&mut self, key_id: u32) {
        self.signed.remove(&key_id);
        self.replay.forget_prekeys(Some(key_id), None);
    }

    /// Number of one-time prekeys held (X25519, ML-KEM).
    #[must_use]
    pub fn one_time_counts(&self) -> (usize, usize) {
        (
            self.one_time.len(),
            self.mlkem
                .keys()
                .filter(|(k, _)| *k == PrekeyKind::MlKemOneTime)
                .count(),
        )
    }

    /// What the keystore does in the transaction that stores the session:
    /// deletes the consumed one-time prekeys and records the replay key.
    pub fn commit(&mut self, response: &Response) {
        if let Some(id) = response.consumed.one_time_x25519 {
            self.one_time.remove(&id);
        }
        if let Some(id) = response.consumed.one_time_mlkem {
            self.mlkem.remove(&(PrekeyKind::MlKemOneTime, id));
        }
        if let Some(k) = response.replay_key {
            self.replay.insert(k);
        }
    }
}

impl PrekeyStore for MemoryPrekeyStore {
    fn signed_prekey(&self, key_id: u32) -> Option<Zeroizing<[u8; 32]>> {
        self.signed.get(&key_id).cloned()
    }

    fn one_time_prekey(&self, key_id: u32) -> Option<Zeroizing<[u8; 32]>> {
        self.one_time.get(&key_id).cloned()
    }

    fn mlkem_prekey(&self, kind: PrekeyKind, key_id: u32) -> Option<Zeroizing<Vec<u8>>> {
        self.mlkem.get(&(kind, key_id)).cloned()
    }

    fn replay_seen(&self, key: &ReplayKey) -> bool {
        self.replay.contains(key)
    }
}
