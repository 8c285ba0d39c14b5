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
//!
//! header_v2 = 0x02 ‖ ratchet_pub(32) ‖ u32 PN ‖ u32 N ‖ u64 epoch ‖ pq_kind(1) ‖ [u16 index ‖ chunk(32)]
//!   pq_kind 0x00 none     (nothing follows)
//!           0x01 ek chunk  chunk `index` of ek_{epoch+1}   (docs/SESSIONS.md §5.11)
//!           0x02 ct chunk  chunk `index` of ct_{epoch+1}
//! ```
//! The message therefore begins with the version byte. Integers are big-endian.

use super::chunks::CHUNK_LEN;
use crate::bytes::ByteReader;
use crate::hash::Sha256;
use crate::mlkem::{CT_LEN, EK_LEN};
use crate::session::{Result, SessionBinding, SessionError, VERSION_1, VERSION_2};

/// Length of a header without PQ data.
pub const HEADER_FIXED_LEN: usize = 1 + 32 + 4 + 4 + 8 + 1;
/// Length of the AES-GCM nonce carried in every message.
pub const NONCE_LEN: usize = 12;
/// Smallest AEAD part: the smallest padded plaintext (64) plus the tag (16).
pub const MIN_SEALED_LEN: usize = 64 + 16;
/// Smallest AEAD part of version 2: the smallest padded plaintext (256) plus the tag.
pub const MIN_SEALED_LEN_V2: usize = 256 + 16;
/// Length of a version-2 PQ chunk field after the kind byte: `u16 index ‖ chunk(32)`.
pub const CHUNK_FIELD_LEN: usize = 2 + CHUNK_LEN;
/// Label at the start of every message's associated data.
pub const AD_LABEL: &[u8] = b"veilkit-session-v1";

const KIND_NONE: u8 = 0;
pub(crate) const KIND_EK: u8 = 1;
pub(crate) const KIND_CT: u8 = 2;
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
    /// Version 2: chunk `index` of the sender's `ek_{epoch+1}`.
    EkChunk(u16, [u8; CHUNK_LEN]),
    /// Version 2: chunk `index` of the sender's `ct_{epoch+1}`.
    CtChunk(u16, [u8; CHUNK_LEN]),
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

/// The fields of a header, borrowed for encoding (the sender builds its
/// header from its state without copying the PQ data twice).
pub(crate) struct HeaderRef<'a> {
    pub(crate) version: u8,
    pub(crate) ratchet_public: &'a [u8; 32],
    pub(crate) previous_chain_length: u32,
    pub(crate) message_number: u32,
    pub(crate) epoch: u64,
    pub(crate) ct: Option<&'a [u8]>,
    pub(crate) ek: Option<&'a [u8]>,
    /// Version 2: `(kind, index, chunk)` (then `ct` and `ek` are `None`).
    pub(crate) chunk: Option<(u8, u16, [u8; CHUNK_LEN])>,
}

impl HeaderRef<'_> {
    /// Encoded length.
    pub(crate) fn len(&self) -> usize {
        HEADER_FIXED_LEN
            .saturating_add(if self.chunk.is_some() {
                CHUNK_FIELD_LEN
            } else {
                0
            })
            .saturating_add(self.ct.map_or(0, <[u8]>::len))
            .saturating_add(self.ek.map_or(0, <[u8]>::len))
    }

    /// Appends the canonical encoding to `out`.
    pub(crate) fn encode_into(&self, out: &mut Vec<u8>) {
        let kind = match (self.ct.is_some(), self.ek.is_some()) {
            (false, false) => self.chunk.map_or(KIND_NONE, |(kind, _, _)| kind),
            (false, true) => KIND_EK,
            (true, false) => KIND_CT,
            (true, true) => KIND_CT_EK,
        };
        out.push(self.version);
        out.extend_from_slice(self.ratchet_public);
        out.extend_from_slice(&self.previous_chain_length.to_be_bytes());
        out.extend_from_slice(&self.message_number.to_be_bytes());
        out.extend_from_slice(&self.epoch.to_be_bytes());
        out.push(kind);
        if let Some((_, index, chunk)) = &self.chunk {
            out.extend_from_slice(&index.to_be_bytes());
            out.extend_from_slice(chunk);
        }
        if let Some(ct) = self.ct {
            out.extend_from_slice(ct);
        }
        if let Some(ek) = self.ek {
            out.extend_from_slice(ek);
        }
    }
}

impl Header {
    fn as_ref(&self) -> HeaderRef<'_> {
        HeaderRef {
            version: self.version,
            ratchet_public: &self.ratchet_public,
            previous_chain_length: self.previous_chain_length,
            message_number: self.message_number,
            epoch: self.epoch,
            ct: self.pq.ct(),
            ek: self.pq.ek(),
            chunk: match &self.pq {
                PqField::EkChunk(i, c) => Some((KIND_EK, *i, *c)),
                PqField::CtChunk(i, c) => Some((KIND_CT, *i, *c)),
                _ => None,
            },
        }
    }

    /// Canonical encoding.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let h = self.as_ref();
        let mut out = Vec::with_capacity(h.len());
        h.encode_into(&mut out);
        out
    }

    fn read(r: &mut ByteReader<'_>) -> Result<Self> {
        let short = SessionError::Malformed("message: truncated header");
        let version = r.u8().ok_or(short)?;
        if version != VERSION_1 && version != VERSION_2 {
            return Err(SessionError::Malformed("message: unsupported version"));
        }
        let ratchet_public = r.array::<32>().ok_or(short)?;
        let previous_chain_length = r.u32().ok_or(short)?;
        let message_number = r.u32().ok_or(short)?;
        let epoch = r.u64().ok_or(short)?;
        let kind = r.u8().ok_or(short)?;
        if version == VERSION_2 {
            let pq = match kind {
                KIND_NONE => PqField::None,
                KIND_EK | KIND_CT => {
                    if epoch == u64::MAX {
                        return Err(SessionError::Malformed("message: epoch overflow"));
                    }
                    let index = r.u16().ok_or(short)?;
                    let chunk = r.array::<CHUNK_LEN>().ok_or(short)?;
                    if kind == KIND_EK {
                        PqField::EkChunk(index, chunk)
                    } else {
                        PqField::CtChunk(index, chunk)
                    }
                }
                _ => return Err(SessionError::Malformed("message: unknown PQ field kind")),
            };
            return Ok(Self {
                version,
                ratchet_public,
                previous_chain_length,
                message_number,
                epoch,
                pq,
            });
        }
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
        let parsed = ParsedMessage::parse(bytes)?;
        Ok(Self {
            header: parsed.header,
            nonce: parsed.nonce,
            sealed: parsed.sealed.to_vec(),
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

/// A parsed message that borrows the wire bytes: the header's encoding and
/// the AEAD part are slices of the input (`decrypt` binds the header bytes
/// as received, which are canonical, instead of re-encoding them).
pub(crate) struct ParsedMessage<'a> {
    pub(crate) header: Header,
    pub(crate) header_bytes: &'a [u8],
    pub(crate) nonce: [u8; NONCE_LEN],
    pub(crate) sealed: &'a [u8],
}

impl<'a> ParsedMessage<'a> {
    /// As [`Message::parse`] (same checks, same errors).
    pub(crate) fn parse(bytes: &'a [u8]) -> Result<Self> {
        let mut r = ByteReader::new(bytes);
        let header = Header::read(&mut r)?;
        let header_len = bytes.len().saturating_sub(r.rest().len());
        let header_bytes = bytes
            .get(..header_len)
            .ok_or(SessionError::Malformed("message: truncated header"))?;
        let nonce = r
            .array::<NONCE_LEN>()
            .ok_or(SessionError::Malformed("message: truncated nonce"))?;
        let sealed = r.rest();
        let min = if header.version == VERSION_2 {
            MIN_SEALED_LEN_V2
        } else {
            MIN_SEALED_LEN
        };
        if sealed.len() < min {
            return Err(SessionError::Malformed("message: ciphertext too short"));
        }
        Ok(Self {
            header,
            header_bytes,
            nonce,
            sealed,
        })
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

/// `H_ID = SHA-256(Enc(ID_init) ‖ Enc(ID_resp))`: what the associated data
/// of every message binds in place of the two identity encodings (each
/// `Enc(ID)` is self-delimiting, so the concatenation is unambiguous).
/// A state computes it once, when it is built or loaded.
#[must_use]
pub fn identities_hash(binding: &SessionBinding) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(&binding.initiator_identity);
    h.update(&binding.responder_identity);
    h.finalize()
}

/// Length of the associated data before `lp(header)`: label, version, `H_ID`.
const AD_PREFIX_LEN: usize = AD_LABEL.len() + 1 + 32;

/// `"veilkit-session-v1" ‖ version ‖ H_ID ‖ lp(header) ‖ lp(aad)` with
/// `lp(x) = u32(len x) ‖ x` and `H_ID` = [`identities_hash`] of the session's binding.
///
/// # Errors
/// [`SessionError::Malformed`] if `header` or `aad` is longer than 2^32 − 1 bytes.
pub fn associated_data(
    version: u8,
    identities_hash: &[u8; 32],
    header: &[u8],
    aad: &[u8],
) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(
        AD_PREFIX_LEN
            .saturating_add(header.len())
            .saturating_add(aad.len())
            .saturating_add(8),
    );
    out.extend_from_slice(AD_LABEL);
    out.push(version);
    out.extend_from_slice(identities_hash);
    put_lp(&mut out, header)?;
    put_lp(&mut out, aad)?;
    Ok(out)
}
