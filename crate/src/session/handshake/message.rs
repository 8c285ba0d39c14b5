//! The initial-message codec: [`InitialMessage`], its canonical bytes and
//! their parser (the byte layout is in the [module documentation](super)).

use super::{INITIAL_MAGIC, MAX_FIRST_MESSAGE_LEN, TAG_LEN};
use crate::bytes::ByteReader;
use crate::mlkem;
use crate::session::error::{Result, SessionError};
use crate::session::identity::{IDENTITY_ENCODING_LEN, IDENTITY_ID_LEN, SessionIdentity};
use crate::session::prekey::PrekeyKind;
use crate::session::versions::{read_versions, write_versions};

/// An initial message (the fields of the canonical bytes, see the [module documentation](super)).
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
