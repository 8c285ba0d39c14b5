//! Threshold shares: [`ThresholdShare`] and its `vcs_` text form
//! (`"vcs_"` ‖ unpadded base64url of the 59-byte payload, encoded and decoded
//! with the constant-time `base64ct` through [`crate::bytes`]), share sets
//! and [`combine_shares`]. The public paths are `container::wrap::*`.

use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use super::encoding::Cursor;
use super::error::{ContainerError, Result};
use crate::bytes::{b64url_decode_into, b64url_encode_into};
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
pub const SHARE_STRING_LEN: usize = 4 + SHARE_BODY_LEN;
/// base64url symbols of the payload (59 bytes, unpadded).
const SHARE_BODY_LEN: usize = 79;

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
        let mut body = Zeroizing::new([0u8; SHARE_BODY_LEN]);
        // The buffer fits the 59-byte payload exactly, so encoding cannot fail.
        if let Some(enc) = b64url_encode_into(&payload, body.as_mut_slice()) {
            s.push_str(enc);
        }
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
        let mut buf = Zeroizing::new([0u8; SHARE_PAYLOAD_LEN]);
        let payload = b64url_decode_into(body, buf.as_mut_slice())
            .ok_or(ContainerError::InvalidShare("not canonical base64url"))?;
        Self::from_payload(payload)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The hand-written base64url this module used before `base64ct`, kept
    /// as a reference: output and acceptance must stay identical.
    mod reference {
        const B64URL: &[u8; 64] =
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

        pub fn encode(bytes: &[u8]) -> String {
            let mut out = String::new();
            for group in bytes.chunks(3) {
                let b = [
                    group[0],
                    *group.get(1).unwrap_or(&0),
                    *group.get(2).unwrap_or(&0),
                ];
                let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
                for k in 0..=group.len() {
                    out.push(char::from(B64URL[((n >> (18 - 6 * k)) & 63) as usize]));
                }
            }
            out
        }

        pub fn decode(text: &[u8]) -> Option<Vec<u8>> {
            if text.len() % 4 == 1 {
                return None;
            }
            let mut out = Vec::new();
            for group in text.chunks(4) {
                let mut n = 0u32;
                for &c in group {
                    n = (n << 6) | B64URL.iter().position(|&s| s == c)? as u32;
                }
                match group.len() {
                    4 => out.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8]),
                    3 if n & 0b11 == 0 => out.extend_from_slice(&[(n >> 10) as u8, (n >> 2) as u8]),
                    2 if n & 0b1111 == 0 => out.push((n >> 4) as u8),
                    _ => return None,
                }
            }
            Some(out)
        }
    }

    fn share(seed: u8) -> ThresholdShare {
        let y: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(29).wrapping_add(seed));
        ThresholdShare::new([seed; 16], 3, 5, 1 + seed % 5, &y).unwrap()
    }

    #[test]
    fn vcs_output_matches_the_reference_encoder() {
        for seed in 0..=255u8 {
            let s = share(seed);
            let text = s.to_vcs();
            assert_eq!(text.len(), SHARE_STRING_LEN);
            assert_eq!(
                *text,
                format!("{SHARE_PREFIX}{}", reference::encode(&s.to_payload()))
            );
            let back = ThresholdShare::parse(&text).unwrap();
            assert_eq!(back.to_payload(), s.to_payload());
        }
    }

    /// Every one-symbol change of a share string is accepted or refused
    /// exactly as by the reference decoder; refusals at the base64url step
    /// keep their error.
    #[test]
    fn vcs_acceptance_matches_the_reference_decoder() {
        let good = share(7).to_vcs().to_string();
        let alphabet = (0u8..=127).map(char::from);
        for pos in 4..SHARE_STRING_LEN {
            for c in alphabet.clone() {
                let mut b = good.clone().into_bytes();
                b[pos] = c as u8;
                let text = String::from_utf8(b).unwrap();
                let ours = ThresholdShare::parse(&text);
                match reference::decode(&text.as_bytes()[4..]) {
                    None => assert_eq!(
                        ours.err(),
                        Some(ContainerError::InvalidShare("not canonical base64url")),
                        "{text}"
                    ),
                    Some(p) => {
                        let theirs = ThresholdShare::from_payload(&p);
                        assert_eq!(ours.as_ref().err(), theirs.as_ref().err(), "{text}");
                        if let (Ok(a), Ok(b)) = (ours, theirs) {
                            assert_eq!(a.to_payload(), b.to_payload());
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn non_canonical_padded_and_foreign_alphabet_shares_are_refused() {
        let good = share(1).to_vcs().to_string();
        let body = &good[4..];
        let not_b64 = Err(ContainerError::InvalidShare("not canonical base64url"));
        // 79 symbols carry 474 bits for 472: the last symbol's 2 low bits
        // are unused and must be zero; set one.
        let symbols = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let last = symbols
            .iter()
            .position(|&s| s == body.as_bytes()[78])
            .unwrap();
        assert_eq!(last & 0b11, 0);
        let noncanonical = char::from(symbols[last | 1]);
        assert!(reference::decode(format!("{}{noncanonical}", &body[..78]).as_bytes()).is_none());
        let cases = [
            format!("vcs_{}{noncanonical}", &body[..78]),
            format!("vcs_{}=", &body[..78]),
            format!("vcs_{}==", &body[..77]),
            format!("vcs_{}+", &body[..78]),
            format!("vcs_/{}", &body[1..]),
            format!("vcs_{} ", &body[..78]),
            format!("vcs_{}\n", &body[..78]),
            format!("vcs_{}.", &body[..78]),
        ];
        for text in &cases {
            assert_eq!(text.len(), SHARE_STRING_LEN, "{text}");
            assert_eq!(
                ThresholdShare::parse(text).map(|s| s.x()),
                not_b64,
                "{text}"
            );
        }
        // Length and prefix errors come first, as before.
        assert_eq!(
            ThresholdShare::parse(&format!("{good}=")).map(|s| s.x()),
            Err(ContainerError::InvalidShare(
                "share string must be 83 characters"
            ))
        );
        assert_eq!(
            ThresholdShare::parse(&good.replacen("vcs_", "vcs=", 1)).map(|s| s.x()),
            Err(ContainerError::InvalidShare("missing vcs_ prefix"))
        );
        // A multi-byte character of the right byte length is refused too.
        let wide = format!("vcs_{}é", &body[..77]);
        assert_eq!(wide.len(), SHARE_STRING_LEN);
        assert_eq!(ThresholdShare::parse(&wide).map(|s| s.x()), not_b64);
    }
}
