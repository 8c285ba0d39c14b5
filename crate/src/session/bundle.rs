//! Prekey bundles (docs/SESSIONS.md §3): what a device publishes and an
//! initiator fetches.
//!
//! ```text
//! bundle = "VKPB" ‖ u8 format(1) ‖ Enc(ID)(2017) ‖ u32 device_id ‖ versions
//!          ‖ SPK record ‖ PQSPK record ‖ u8 optional ‖ [OPK record] ‖ [PQOPK record]
//! versions = u8 n(1..16) ‖ n bytes, strictly increasing, none 0
//! optional: bit 0 = one-time X25519 prekey present, bit 1 = one-time
//!           ML-KEM-768 prekey present, other bits 0
//! ```
//! Records are [`SignedPrekey`] records. The parser is total and canonical:
//! every field has a fixed length or a length bounded before any allocation,
//! and nothing may follow the last record.

use super::error::{Result, SessionError};
use super::identity::{IDENTITY_ENCODING_LEN, SessionIdentity};
use super::prekey::{PrekeyKind, SignedPrekey};
use super::versions::{read_versions, write_versions};
use crate::bytes::ByteReader;

/// Magic of a bundle.
pub const BUNDLE_MAGIC: &[u8; 4] = b"VKPB";
/// Format byte of the bundle encoding.
pub const BUNDLE_FORMAT: u8 = 1;
/// `optional` bit: a one-time X25519 prekey follows.
pub const OPTIONAL_ONE_TIME_X25519: u8 = 0x01;
/// `optional` bit: a one-time ML-KEM-768 prekey follows.
pub const OPTIONAL_ONE_TIME_MLKEM: u8 = 0x02;

/// A device's prekey bundle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bundle {
    /// The device's session identity.
    pub identity: SessionIdentity,
    /// The device id (one identity on two devices: two bundles, no shared prekeys).
    pub device_id: u32,
    /// The protocol versions the device supports (canonical list).
    pub versions: Vec<u8>,
    /// The signed X25519 prekey `SPK`.
    pub signed_prekey: SignedPrekey,
    /// The signed last-resort ML-KEM-768 prekey.
    pub pq_last_resort: SignedPrekey,
    /// A signed one-time X25519 prekey `OPK`, if the server had one.
    pub one_time: Option<SignedPrekey>,
    /// A signed one-time ML-KEM-768 prekey, if the server had one.
    pub pq_one_time: Option<SignedPrekey>,
}

impl Bundle {
    /// The canonical bytes.
    ///
    /// # Errors
    /// `MALFORMED_INPUT` if the version list is not canonical.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(
            5 + IDENTITY_ENCODING_LEN
                + 4
                + 1
                + self.versions.len()
                + self.signed_prekey.encoded_len()
                + self.pq_last_resort.encoded_len()
                + 1
                + self.one_time.as_ref().map_or(0, SignedPrekey::encoded_len)
                + self
                    .pq_one_time
                    .as_ref()
                    .map_or(0, SignedPrekey::encoded_len),
        );
        out.extend_from_slice(BUNDLE_MAGIC);
        out.push(BUNDLE_FORMAT);
        out.extend_from_slice(self.identity.encoding());
        out.extend_from_slice(&self.device_id.to_be_bytes());
        write_versions(&mut out, &self.versions)?;
        self.signed_prekey.encode_into(&mut out);
        self.pq_last_resort.encode_into(&mut out);
        let mut optional = 0u8;
        if self.one_time.is_some() {
            optional |= OPTIONAL_ONE_TIME_X25519;
        }
        if self.pq_one_time.is_some() {
            optional |= OPTIONAL_ONE_TIME_MLKEM;
        }
        out.push(optional);
        if let Some(p) = &self.one_time {
            p.encode_into(&mut out);
        }
        if let Some(p) = &self.pq_one_time {
            p.encode_into(&mut out);
        }
        Ok(out)
    }

    /// Parses canonical bundle bytes (structure only; see [`Bundle::verify`]).
    ///
    /// # Errors
    /// `MALFORMED_INPUT`, `PQ_IDENTITY_REQUIRED` (identity without ML-DSA-65).
    pub fn parse(bytes: &[u8]) -> Result<Self> {
        let trunc = SessionError::Malformed("bundle truncated");
        let mut r = ByteReader::new(bytes);
        if r.array::<4>().ok_or(trunc)? != *BUNDLE_MAGIC {
            return Err(SessionError::Malformed("bundle: bad magic"));
        }
        if r.u8().ok_or(trunc)? != BUNDLE_FORMAT {
            return Err(SessionError::Malformed("bundle: unknown format"));
        }
        let identity = SessionIdentity::from_encoding(r.take(IDENTITY_ENCODING_LEN).ok_or(trunc)?)?;
        let device_id = r.u32().ok_or(trunc)?;
        let versions = read_versions(&mut r)?;
        let signed_prekey = SignedPrekey::read(&mut r)?;
        let pq_last_resort = SignedPrekey::read(&mut r)?;
        let optional = r.u8().ok_or(trunc)?;
        if optional & !(OPTIONAL_ONE_TIME_X25519 | OPTIONAL_ONE_TIME_MLKEM) != 0 {
            return Err(SessionError::Malformed("bundle: unknown optional bits"));
        }
        let one_time = if optional & OPTIONAL_ONE_TIME_X25519 != 0 {
            Some(SignedPrekey::read(&mut r)?)
        } else {
            None
        };
        let pq_one_time = if optional & OPTIONAL_ONE_TIME_MLKEM != 0 {
            Some(SignedPrekey::read(&mut r)?)
        } else {
            None
        };
        if !r.rest().is_empty() {
            return Err(SessionError::Malformed("bundle: trailing bytes"));
        }
        Ok(Self {
            identity,
            device_id,
            versions,
            signed_prekey,
            pq_last_resort,
            one_time,
            pq_one_time,
        })
    }

    /// Verifies the bundle at time `now` (seconds since the Unix epoch):
    /// every prekey is of the kind its slot requires, signed by both the
    /// Ed25519 and the ML-DSA-65 key of the bundle's identity (over that
    /// identity's id), within the lifetime cap, not degenerate and not
    /// expired ([`SignedPrekey::verify`]), and the identity's X25519 key is
    /// not of small order. If `pinned` is given (the peer's `Enc(ID)` as
    /// verified out of band), the bundle's identity must be exactly it — the
    /// X25519 identity key included.
    ///
    /// # Errors
    /// `IDENTITY_MISMATCH`, `BUNDLE_INVALID` (reason), `WEAK_KEY` /
    /// `INVALID_KEY` (a degenerate key), `PREKEY_EXPIRED`.
    pub fn verify(&self, pinned: Option<&[u8]>, now: u64) -> Result<()> {
        if let Some(p) = pinned
            && p != self.identity.encoding()
        {
            return Err(SessionError::IdentityMismatch(
                "bundle identity is not the pinned identity",
            ));
        }
        super::versions::check_versions(&self.versions)?;
        self.signed_prekey
            .verify(&self.identity, PrekeyKind::X25519Signed, now)?;
        self.pq_last_resort
            .verify(&self.identity, PrekeyKind::MlKemLastResort, now)?;
        if let Some(p) = &self.one_time {
            p.verify(&self.identity, PrekeyKind::X25519OneTime, now)?;
        }
        if let Some(p) = &self.pq_one_time {
            p.verify(&self.identity, PrekeyKind::MlKemOneTime, now)?;
        }
        let ik =
            crate::error::exact::<32>("identity X25519 key", "32 bytes", self.identity.x25519())?;
        crate::x25519::x25519_check_public(ik)?;
        Ok(())
    }
}
