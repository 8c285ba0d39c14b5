//! Threshold shares: [`ThresholdShare`] and its `vcs_` text form
//! (`"vcs_"` ‖ unpadded base64url of the 59-byte payload), share sets and
//! [`combine_shares`]. The public paths are `container::wrap::*`.

use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use super::encoding::{Cursor, b64url_decode, b64url_encode};
use super::error::{ContainerError, Result};
use crate::hash::sha256;
use crate::shamir;

/// Whether `2 ≤ t ≤ n` (a valid share set shape).
pub(crate) const fn check_threshold(t: u8, n: u8) -> core::result::Result<(), ()> {
    if t >= 2 && t <= n { Ok(()) } else { Err(()) }
}

/// Prefix of an exported share.
pub const SHARE_PREFIX: &str = "vcs_";
/// Magic of the share payload: `"VCS" ‖ 0x01`.
pub const SHARE_MAGIC: &[u8; 4] = b"VCS\x01";
/// Length of the share payload.
pub const SHARE_PAYLOAD_LEN: usize = 59;
/// Length of an exported share string: `"vcs_"` + 79 base64url symbols.
pub const SHARE_STRING_LEN: usize = 4 + 79;

/// One share of a threshold share set. `y` is secret: wiped on drop, no `Debug`.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct ThresholdShare {
    pub(in crate::container) share_set_id: [u8; 16],
    pub(in crate::container) threshold: u8,
    pub(in crate::container) shares: u8,
    pub(in crate::container) x: u8,
    pub(in crate::container) y: [u8; 32],
}

/// Identity of a share set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShareSet {
    /// Share set id.
    pub share_set_id: [u8; 16],
    /// `t`.
    pub threshold: u8,
    /// `n`.
    pub shares: u8,
}

impl ThresholdShare {
    /// The set this share belongs to.
    #[must_use]
    pub const fn set(&self) -> ShareSet {
        ShareSet {
            share_set_id: self.share_set_id,
            threshold: self.threshold,
            shares: self.shares,
        }
    }

    /// Evaluation point `x` (1 ..= n).
    #[must_use]
    pub const fn x(&self) -> u8 {
        self.x
    }

    /// Builds a share from its fields (checks `2 ≤ t ≤ n`, `1 ≤ x ≤ n`).
    ///
    /// # Errors
    /// [`ContainerError::InvalidShare`].
    pub fn new(
        share_set_id: [u8; 16],
        threshold: u8,
        shares: u8,
        x: u8,
        y: &[u8; 32],
    ) -> Result<Self> {
        check_threshold(threshold, shares)
            .map_err(|()| ContainerError::InvalidShare("need 2 <= t <= n"))?;
        if x == 0 || x > shares {
            return Err(ContainerError::InvalidShare("x must be in 1..=n"));
        }
        Ok(Self {
            share_set_id,
            threshold,
            shares,
            x,
            y: *y,
        })
    }

    /// The 59-byte payload `"VCS\x01" ‖ share_set_id16 ‖ t ‖ n ‖ x ‖ y32 ‖ checksum4`,
    /// checksum = first 4 bytes of SHA-256 of the preceding 55 bytes.
    #[must_use]
    pub fn to_payload(&self) -> Zeroizing<Vec<u8>> {
        let mut p = Zeroizing::new(Vec::with_capacity(SHARE_PAYLOAD_LEN));
        p.extend_from_slice(SHARE_MAGIC);
        p.extend_from_slice(&self.share_set_id);
        p.extend_from_slice(&[self.threshold, self.shares, self.x]);
        p.extend_from_slice(&self.y);
        let digest = Zeroizing::new(sha256(&p));
        p.extend_from_slice(digest.get(..4).unwrap_or(&[0u8; 4]));
        p
    }

    /// Exports as `vcs_` + base64url (no padding) of the payload.
    #[must_use]
    pub fn to_vcs(&self) -> Zeroizing<String> {
        let payload = self.to_payload();
        let mut s = Zeroizing::new(String::with_capacity(SHARE_STRING_LEN));
        s.push_str(SHARE_PREFIX);
        let enc = Zeroizing::new(b64url_encode(&payload));
        s.push_str(&enc);
        s
    }

    /// Parses the 59-byte payload (checksum, magic, `t`, `n`, `x`).
    ///
    /// # Errors
    /// [`ContainerError::InvalidShare`].
    pub fn from_payload(payload: &[u8]) -> Result<Self> {
        if payload.len() != SHARE_PAYLOAD_LEN {
            return Err(ContainerError::InvalidShare("payload must be 59 bytes"));
        }
        let (body, checksum) = payload
            .split_at_checked(55)
            .ok_or(ContainerError::InvalidShare("payload must be 59 bytes"))?;
        let digest = Zeroizing::new(sha256(body));
        let expected = digest.get(..4).unwrap_or_default();
        if !bool::from(subtle::ConstantTimeEq::ct_eq(expected, checksum)) {
            return Err(ContainerError::InvalidShare("checksum mismatch"));
        }
        let mut c = Cursor::new(body);
        if &c.array::<4>()? != SHARE_MAGIC {
            return Err(ContainerError::InvalidShare("bad magic or version"));
        }
        let share_set_id = c.array::<16>()?;
        let threshold = c.u8()?;
        let shares = c.u8()?;
        let x = c.u8()?;
        let mut y = Zeroizing::new(c.array::<32>()?);
        let share = Self::new(share_set_id, threshold, shares, x, &y);
        y.zeroize();
        share
    }

    /// Parses a `vcs_` share string (canonical base64url, checksum verified).
    ///
    /// # Errors
    /// [`ContainerError::InvalidShare`].
    pub fn parse(text: &str) -> Result<Self> {
        let bytes = text.as_bytes();
        if bytes.len() != SHARE_STRING_LEN {
            return Err(ContainerError::InvalidShare(
                "share string must be 83 characters",
            ));
        }
        let body = text
            .strip_prefix(SHARE_PREFIX)
            .ok_or(ContainerError::InvalidShare("missing vcs_ prefix"))?;
        let payload = Zeroizing::new(
            b64url_decode(body.as_bytes())
                .ok_or(ContainerError::InvalidShare("not canonical base64url"))?,
        );
        Self::from_payload(&payload)
    }
}

/// Checks a share collection and combines it into the threshold master secret.
///
/// # Errors
/// [`ContainerError::InvalidShare`] (empty, mixed sets, duplicate x),
/// [`ContainerError::InsufficientShares`] (fewer than t).
pub fn combine_shares(shares: &[ThresholdShare]) -> Result<(ShareSet, Zeroizing<Vec<u8>>)> {
    let first = shares
        .first()
        .ok_or(ContainerError::InvalidShare("no shares"))?;
    let set = first.set();
    let mut seen = [false; 256];
    for s in shares {
        if s.set() != set {
            return Err(ContainerError::InvalidShare(
                "shares belong to different share sets",
            ));
        }
        let slot = seen
            .get_mut(usize::from(s.x))
            .ok_or(ContainerError::InvalidShare("x out of range"))?;
        if *slot {
            return Err(ContainerError::InvalidShare("duplicate share x"));
        }
        *slot = true;
    }
    if shares.len() < usize::from(set.threshold) {
        return Err(ContainerError::InsufficientShares {
            have: shares.len(),
            need: set.threshold,
        });
    }
    let raw: Vec<shamir::Share> = shares
        .iter()
        .map(|s| shamir::Share {
            x: s.x,
            y: s.y.to_vec(),
        })
        .collect();
    let tms = shamir::combine(&raw)?;
    Ok((set, tms))
}

