//! Message header and message codec (docs/SESSIONS.md §5.2), and the
//! associated data every message binds.
//!
//! ```text
//! header  = version(1) ‖ ratchet_pub(32) ‖ u32 PN ‖ u32 N ‖ u64 epoch ‖ pq_kind(1) ‖ pq_data
//!   pq_kind 0x00 none   pq_data = ""
//!           0x01 ek     pq_data = ek_{epoch+1} (1184)
//!           0x02 ct     pq_data = ct_epoch (1088)            (epoch ≥ 1)
//!           0x03 ct‖ek  pq_data = ct_epoch ‖ ek_{epoch+1}    (epoch ≥ 1)
//! message = header ‖ nonce(12) ‖ AES-256-GCM(padded plaintext) ‖ tag(16)
//! ```
//! The message therefore begins with the version byte. Integers are big-endian.

use crate::bytes::ByteReader;
use crate::mlkem::{CT_LEN, EK_LEN};
use crate::session::{Result, SessionBinding, SessionError, VERSION_1};

/// Length of a header without PQ data.
pub const HEADER_FIXED_LEN: usize = 1 + 32 + 4 + 4 + 8 + 1;
/// Length of the AES-GCM nonce carried in every message.
pub const NONCE_LEN: usize = 12;
/// Smallest AEAD part: the smallest padded plaintext (64) plus the tag (16).
pub const MIN_SEALED_LEN: usize = 64 + 16;
/// Label at the start of every message's associated data.
pub const AD_LABEL: &[u8] = b"veilkit-session-v1";

const KIND_NONE: u8 = 0;
const KIND_EK: u8 = 1;
const KIND_CT: u8 = 2;
const KIND_CT_EK: u8 = 3;

/// The PQ field of a header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PqField {
    /// No PQ data.
    None,
    /// `ek_{epoch+1}`: the sender's pending encapsulation key (1184 bytes).
    Ek(Vec<u8>),
    /// `ct_epoch`: the sender's encapsulation for the header's epoch (1088 bytes).
    Ct(Vec<u8>),
    /// Both `ct_epoch` and `ek_{epoch+1}`.
    CtEk(Vec<u8>, Vec<u8>),
}

impl PqField {
    /// The ciphertext, if any.
    #[must_use]
    pub fn ct(&self) -> Option<&[u8]> {
        match self {
            Self::Ct(ct) | Self::CtEk(ct, _) => Some(ct),
            _ => None,
        }
    }

    /// The encapsulation key, if any.
    #[must_use]
    pub fn ek(&self) -> Option<&[u8]> {
        match self {
            Self::Ek(ek) | Self::CtEk(_, ek) => Some(ek),
            _ => None,
        }
    }

    /// Builds the field from optional parts (lengths are checked on parse).
    #[must_use]
    pub fn from_parts(ct: Option<Vec<u8>>, ek: Option<Vec<u8>>) -> Self {
        match (ct, ek) {
            (None, None) => Self::None,
            (None, Some(ek)) => Self::Ek(ek),
            (Some(ct), None) => Self::Ct(ct),
            (Some(ct), Some(ek)) => Self::CtEk(ct, ek),
        }
    }
}

/// A message header (not encrypted; every field is visible on the wire).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Protocol version.
    pub version: u8,
    /// The sender's current X25519 ratchet public key.
    pub ratchet_public: [u8; 32],
    /// `PN`: the number of messages in the sender's previous sending chain.
    pub previous_chain_length: u32,
    /// `N`: this message's number in its sending chain.
    pub message_number: u32,
    /// The PQ epoch of the sending chain.
    pub epoch: u64,
    /// The PQ field.
    pub pq: PqField,
}

impl Header {
    /// Canonical encoding.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let (kind, extra) = match &self.pq {
            PqField::None => (KIND_NONE, 0),
            PqField::Ek(ek) => (KIND_EK, ek.len()),
            PqField::Ct(ct) => (KIND_CT, ct.len()),
            PqField::CtEk(ct, ek) => (KIND_CT_EK, ct.len().saturating_add(ek.len())),
        };
        let mut out = Vec::with_capacity(HEADER_FIXED_LEN.saturating_add(extra));
        out.push(self.version);
        out.extend_from_slice(&self.ratchet_public);
        out.extend_from_slice(&self.previous_chain_length.to_be_bytes());
        out.extend_from_slice(&self.message_number.to_be_bytes());
        out.extend_from_slice(&self.epoch.to_be_bytes());
        out.push(kind);
        if let Some(ct) = self.pq.ct() {
            out.extend_from_slice(ct);
        }
        if let Some(ek) = self.pq.ek() {
            out.extend_from_slice(ek);
        }
        out
    }

    fn read(r: &mut ByteReader<'_>) -> Result<Self> {
        let short = SessionError::Malformed("message: truncated header");
        let version = r.u8().ok_or(short)?;
        if version != VERSION_1 {
            return Err(SessionError::Malformed("message: unsupported version"));
        }
        let ratchet_public = r.array::<32>().ok_or(short)?;
        let previous_chain_length = r.u32().ok_or(short)?;
        let message_number = r.u32().ok_or(short)?;
        let epoch = r.u64().ok_or(short)?;
        let kind = r.u8().ok_or(short)?;
        let (has_ct, has_ek) = match kind {
            KIND_NONE => (false, false),
            KIND_EK => (false, true),
            KIND_CT => (true, false),
            KIND_CT_EK => (true, true),
            _ => return Err(SessionError::Malformed("message: unknown PQ field kind")),
        };
        if has_ct && epoch == 0 {
            return Err(SessionError::Malformed("message: ciphertext in epoch 0"));
        }
        if has_ek && epoch == u64::MAX {
            return Err(SessionError::Malformed("message: epoch overflow"));
        }
        let ct = if has_ct {
            Some(r.take(CT_LEN).ok_or(short)?.to_vec())
        } else {
            None
        };
        let ek = if has_ek {
            Some(r.take(EK_LEN).ok_or(short)?.to_vec())
        } else {
            None
        };
        Ok(Self {
            version,
            ratchet_public,
            previous_chain_length,
            message_number,
            epoch,
            pq: PqField::from_parts(ct, ek),
        })
    }
}

/// A parsed message: header, nonce and the AEAD part (ciphertext ‖ tag).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// The header.
    pub header: Header,
    /// The random AES-GCM nonce.
    pub nonce: [u8; NONCE_LEN],
    /// AES-256-GCM ciphertext of the padded plaintext, then the 16-byte tag.
    pub sealed: Vec<u8>,
}

impl Message {
    /// Parses a message (canonical: every field is fixed by the kind byte, so
    /// one byte string has one meaning). Total: never panics.
    ///
    /// # Errors
    /// [`SessionError::Malformed`] for a wrong version, unknown PQ kind,
    /// a ciphertext in epoch 0, truncation, or an AEAD part shorter than 80 bytes.
    pub fn parse(bytes: &[u8]) -> Result<Self> {
        let mut r = ByteReader::new(bytes);
        let header = Header::read(&mut r)?;
        let nonce = r
            .array::<NONCE_LEN>()
            .ok_or(SessionError::Malformed("message: truncated nonce"))?;
        let sealed = r.rest().to_vec();
        if sealed.len() < MIN_SEALED_LEN {
            return Err(SessionError::Malformed("message: ciphertext too short"));
        }
        Ok(Self {
            header,
            nonce,
            sealed,
        })
    }

    /// The wire bytes.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = self.header.to_bytes();
        out.extend_from_slice(&self.nonce);
        out.extend_from_slice(&self.sealed);
        out
    }
}

/// Appends `u32(len) ‖ bytes`.
fn put_lp(out: &mut Vec<u8>, bytes: &[u8]) -> Result<()> {
    let len = u32::try_from(bytes.len())
        .map_err(|_| SessionError::Malformed("field longer than 2^32 - 1 bytes"))?;
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(bytes);
    Ok(())
}

/// `"veilkit-session-v1" ‖ version ‖ Enc(ID_init) ‖ Enc(ID_resp) ‖ lp(header) ‖ lp(aad)`
/// with `lp(x) = u32(len x) ‖ x`.
///
/// # Errors
/// [`SessionError::Malformed`] if `aad` is longer than 2^32 − 1 bytes.
pub fn associated_data(binding: &SessionBinding, header: &[u8], aad: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(
        AD_LABEL
            .len()
            .saturating_add(binding.initiator_identity.len())
            .saturating_add(binding.responder_identity.len())
            .saturating_add(header.len())
            .saturating_add(aad.len())
            .saturating_add(9),
    );
    out.extend_from_slice(AD_LABEL);
    out.push(binding.version);
    out.extend_from_slice(&binding.initiator_identity);
    out.extend_from_slice(&binding.responder_identity);
    put_lp(&mut out, header)?;
    put_lp(&mut out, aad)?;
    Ok(out)
}
