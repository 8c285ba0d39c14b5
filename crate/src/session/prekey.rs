//! Signed prekeys (docs/SESSIONS.md §2).
//!
//! ```text
//! signed bytes = "veilkit-prekey-v1" ‖ u8 kind ‖ u32 key_id ‖ u64 created ‖ u64 expires
//!                ‖ identity id(32) ‖ key
//! record       = u8 kind ‖ u32 key_id ‖ u64 created ‖ u64 expires ‖ key
//!                ‖ Ed25519 sig(64) ‖ ML-DSA-65 sig(3309)
//! ```
//! Integers big-endian, times in seconds since the Unix epoch. The key length
//! follows from the kind (32 bytes X25519, 1,184 bytes ML-KEM-768), so the
//! encodings of different kinds are disjoint. Ed25519 signs the signed bytes;
//! ML-DSA-65 signs them with context = `"veilkit-prekey-v1"`; both must verify.
//!
//! Every prekey, one-time ML-KEM prekeys included, is signed on its own: no
//! Merkle batch (an ML-DSA-65 signature costs 3,309 bytes per one-time
//! ML-KEM prekey; see docs/SESSIONS.md §2 for why that is accepted).
//!
//! Signing and verification refuse a lifetime `expires − created` over
//! [`MAX_PREKEY_LIFETIME`] and a degenerate key (a small-order X25519 point,
//! an ML-KEM key with an all-zero `t̂`: `WEAK_KEY`); verification also
//! refuses a `created` more than [`MAX_PREKEY_CREATED_SKEW`] after `now`. So
//! whoever gets the identity to sign once cannot mint a prekey that stays
//! valid for longer than that after the signing.

use zeroize::Zeroizing;

use super::error::{Result, SessionError};
use super::identity::{IDENTITY_ID_LEN, IdentityKeyPair, SessionIdentity};
use crate::bytes::ByteReader;
use crate::{ed25519, mldsa, mlkem, rng, x25519};

/// Label of the signed prekey bytes, also the ML-DSA-65 signing context.
pub const PREKEY_LABEL: &[u8] = b"veilkit-prekey-v1";
/// Length of the fixed head of a prekey record (kind, key id, created, expires).
pub const RECORD_HEAD_LEN: usize = 1 + 4 + 8 + 8;
/// Length of both signatures of a prekey record.
pub const SIGNATURES_LEN: usize = ed25519::SIGNATURE_LEN + mldsa::SIG_LEN;
/// Longest prekey lifetime `expires − created` signing and verification
/// accept: 90 days (the keystore makes 30-day signed and last-resort prekeys
/// and 90-day one-time prekeys).
pub const MAX_PREKEY_LIFETIME: u64 = 90 * 86_400;
/// How far a prekey's `created` may lie after the verifier's `now`: one day
/// of clock skew between devices.
pub const MAX_PREKEY_CREATED_SKEW: u64 = 86_400;

/// The four kinds of prekeys. Their byte values appear in the signed bytes
/// and the records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PrekeyKind {
    /// The medium-term signed X25519 prekey `SPK` (1).
    X25519Signed,
    /// A one-time X25519 prekey `OPK` (2).
    X25519OneTime,
    /// The signed last-resort ML-KEM-768 prekey `PQSPK` (3).
    MlKemLastResort,
    /// A signed one-time ML-KEM-768 prekey `PQOPK` (4).
    MlKemOneTime,
}

impl PrekeyKind {
    /// The kind's byte.
    #[must_use]
    pub const fn byte(self) -> u8 {
        match self {
            Self::X25519Signed => 1,
            Self::X25519OneTime => 2,
            Self::MlKemLastResort => 3,
            Self::MlKemOneTime => 4,
        }
    }

    /// The kind of a byte, if any.
    #[must_use]
    pub const fn from_byte(b: u8) -> Option<Self> {
        match b {
            1 => Some(Self::X25519Signed),
            2 => Some(Self::X25519OneTime),
            3 => Some(Self::MlKemLastResort),
            4 => Some(Self::MlKemOneTime),
            _ => None,
        }
    }

    /// Length of the public key of this kind.
    #[must_use]
    pub const fn key_len(self) -> usize {
        match self {
            Self::X25519Signed | Self::X25519OneTime => x25519::KEY_LEN,
            Self::MlKemLastResort | Self::MlKemOneTime => mlkem::EK_LEN,
        }
    }

    /// Whether this kind is an ML-KEM-768 key.
    #[must_use]
    pub const fn is_kem(self) -> bool {
        matches!(self, Self::MlKemLastResort | Self::MlKemOneTime)
    }
}

/// A signed prekey: public key, metadata and both signatures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedPrekey {
    /// The kind.
    pub kind: PrekeyKind,
    /// The key id (unique per device and kind, never reused).
    pub key_id: u32,
    /// Creation time, seconds since the Unix epoch.
    pub created: u64,
    /// Expiry time, seconds since the Unix epoch (refused at `now ≥ expires`).
    pub expires: u64,
    /// The public key (32 or 1,184 bytes, per the kind).
    pub key: Vec<u8>,
    /// Ed25519 signature of the signed bytes.
    pub ed25519_signature: [u8; 64],
    /// ML-DSA-65 signature of the signed bytes (context [`PREKEY_LABEL`]).
    pub ml_dsa_signature: Vec<u8>,
}

/// The bytes both signatures cover.
#[must_use]
pub fn signed_bytes(
    kind: PrekeyKind,
    key_id: u32,
    created: u64,
    expires: u64,
    identity_id: &[u8; IDENTITY_ID_LEN],
    key: &[u8],
) -> Vec<u8> {
    let mut m =
        Vec::with_capacity(PREKEY_LABEL.len() + RECORD_HEAD_LEN + IDENTITY_ID_LEN + key.len());
    m.extend_from_slice(PREKEY_LABEL);
    m.push(kind.byte());
    m.extend_from_slice(&key_id.to_be_bytes());
    m.extend_from_slice(&created.to_be_bytes());
    m.extend_from_slice(&expires.to_be_bytes());
    m.extend_from_slice(identity_id);
    m.extend_from_slice(key);
    m
}

/// Why the dates of a prekey are refused: `created ≥ expires`, or a
/// lifetime over [`MAX_PREKEY_LIFETIME`].
const fn check_lifetime(created: u64, expires: u64) -> core::result::Result<(), &'static str> {
    if created >= expires {
        Err("prekey created at or after it expires")
    } else if expires - created > MAX_PREKEY_LIFETIME {
        Err("prekey lifetime over 90 days")
    } else {
        Ok(())
    }
}

/// Refuses a degenerate key of `kind` (`WEAK_KEY`; an ML-KEM key failing the
/// FIPS 203 modulus check: `INVALID_KEY`), the key having the kind's length.
fn check_key(kind: PrekeyKind, key: &[u8]) -> crate::error::Result<()> {
    if kind.is_kem() {
        mlkem::check_peer_key(key).map(drop)
    } else {
        x25519::x25519_check_public(crate::error::exact::<32>("prekey", "32 bytes", key)?)
    }
}

impl SignedPrekey {
    /// Signs `key` as a prekey of `kind` (hedged ML-DSA-65 signature).
    ///
    /// # Errors
    /// `INVALID_LENGTH` if the key does not have the kind's length;
    /// `INVALID_PARAMETER` unless `created < expires` and the lifetime is at
    /// most [`MAX_PREKEY_LIFETIME`]; `WEAK_KEY` / `INVALID_KEY` for a
    /// degenerate key; `RANDOMNESS_UNAVAILABLE`.
    pub fn sign(
        identity: &IdentityKeyPair,
        kind: PrekeyKind,
        key_id: u32,
        created: u64,
        expires: u64,
        key: &[u8],
    ) -> Result<Self> {
        let rnd = rng::array::<32>()?;
        Self::sign_derand(identity, kind, key_id, created, expires, key, &rnd)
    }

    /// As [`SignedPrekey::sign`] with the ML-DSA-65 signing randomness `rnd`
    /// given (known-answer tests; all zero = the deterministic variant).
    ///
    /// # Errors
    /// As [`SignedPrekey::sign`].
    pub fn sign_derand(
        identity: &IdentityKeyPair,
        kind: PrekeyKind,
        key_id: u32,
        created: u64,
        expires: u64,
        key: &[u8],
        rnd: &[u8; 32],
    ) -> Result<Self> {
        if key.len() != kind.key_len() {
            return Err(crate::error::CryptoError::length(
                "prekey",
                "32 (X25519) or 1184 (ML-KEM-768) bytes per kind",
                key.len(),
            )
            .into());
        }
        check_lifetime(created, expires).map_err(crate::error::CryptoError::InvalidParameter)?;
        check_key(kind, key)?;
        let m = signed_bytes(kind, key_id, created, expires, identity.public().id(), key);
        Ok(Self {
            kind,
            key_id,
            created,
            expires,
            key: key.to_vec(),
            ed25519_signature: identity.sign_ed25519(&m)?,
            ml_dsa_signature: identity.sign_ml_dsa(&m, PREKEY_LABEL, rnd)?,
        })
    }

    /// Verifies both signatures under `identity`, that the kind is
    /// `expected`, the dates are ordered, the lifetime is at most
    /// [`MAX_PREKEY_LIFETIME`], `created` is at most
    /// [`MAX_PREKEY_CREATED_SKEW`] after `now`, the key is not degenerate and
    /// the prekey has not expired at `now`.
    ///
    /// # Errors
    /// `BUNDLE_INVALID` (wrong kind, dates, either signature), `WEAK_KEY` /
    /// `INVALID_KEY` (a signed degenerate key), `PREKEY_EXPIRED`.
    pub fn verify(&self, identity: &SessionIdentity, expected: PrekeyKind, now: u64) -> Result<()> {
        if self.kind != expected {
            return Err(SessionError::BundleInvalid(match expected {
                PrekeyKind::X25519Signed => "signed X25519 prekey slot holds another kind",
                PrekeyKind::X25519OneTime => "one-time X25519 prekey slot holds another kind",
                PrekeyKind::MlKemLastResort => "last-resort ML-KEM prekey slot holds another kind",
                PrekeyKind::MlKemOneTime => "one-time ML-KEM prekey slot holds another kind",
            }));
        }
        if self.key.len() != self.kind.key_len() {
            return Err(SessionError::BundleInvalid(
                "prekey length does not match its kind",
            ));
        }
        check_lifetime(self.created, self.expires).map_err(SessionError::BundleInvalid)?;
        if self.created > now.saturating_add(MAX_PREKEY_CREATED_SKEW) {
            return Err(SessionError::BundleInvalid(
                "prekey created more than a day in the future",
            ));
        }
        let m = signed_bytes(
            self.kind,
            self.key_id,
            self.created,
            self.expires,
            identity.id(),
            &self.key,
        );
        ed25519::ed25519_verify(identity.ed25519(), &m, &self.ed25519_signature)
            .map_err(|_| SessionError::BundleInvalid("prekey Ed25519 signature"))?;
        mldsa::mldsa_verify(
            identity.ml_dsa_65(),
            &m,
            PREKEY_LABEL,
            &self.ml_dsa_signature,
        )
        .map_err(|_| SessionError::BundleInvalid("prekey ML-DSA-65 signature"))?;
        check_key(self.kind, &self.key)?;
        if now >= self.expires {
            return Err(SessionError::PrekeyExpired);
        }
        Ok(())
    }

    /// Length of this prekey's record.
    #[must_use]
    pub fn encoded_len(&self) -> usize {
        RECORD_HEAD_LEN + self.key.len() + SIGNATURES_LEN
    }

    /// Appends the record bytes.
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        out.push(self.kind.byte());
        out.extend_from_slice(&self.key_id.to_be_bytes());
        out.extend_from_slice(&self.created.to_be_bytes());
        out.extend_from_slice(&self.expires.to_be_bytes());
        out.extend_from_slice(&self.key);
        out.extend_from_slice(&self.ed25519_signature);
        out.extend_from_slice(&self.ml_dsa_signature);
    }

    /// The record bytes.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.encoded_len());
        self.encode_into(&mut out);
        out
    }

    /// Parses exactly one record (no trailing bytes).
    ///
    /// # Errors
    /// `MALFORMED_INPUT`.
    pub fn parse(bytes: &[u8]) -> Result<Self> {
        let mut r = ByteReader::new(bytes);
        let p = Self::read(&mut r)?;
        if !r.rest().is_empty() {
            return Err(SessionError::Malformed("prekey record: trailing bytes"));
        }
        Ok(p)
    }

    /// Reads one record (structure only: signatures are checked by [`SignedPrekey::verify`]).
    pub(crate) fn read(r: &mut ByteReader<'_>) -> Result<Self> {
        let trunc = SessionError::Malformed("prekey record truncated");
        let kind = PrekeyKind::from_byte(r.u8().ok_or(trunc)?)
            .ok_or(SessionError::Malformed("prekey record: unknown kind"))?;
        let key_id = r.u32().ok_or(trunc)?;
        let created = r.u64().ok_or(trunc)?;
        let expires = r.u64().ok_or(trunc)?;
        let key = r.take(kind.key_len()).ok_or(trunc)?.to_vec();
        let ed25519_signature = r.array::<64>().ok_or(trunc)?;
        let ml_dsa_signature = r.take(mldsa::SIG_LEN).ok_or(trunc)?.to_vec();
        Ok(Self {
            kind,
            key_id,
            created,
            expires,
            key,
            ed25519_signature,
            ml_dsa_signature,
        })
    }
}

/// A generated X25519 prekey: the signed public record and the secret scalar.
pub struct X25519Prekey {
    /// The signed public record.
    pub public: SignedPrekey,
    /// The secret scalar (zeroized on drop).
    pub secret: Zeroizing<[u8; 32]>,
}

/// A generated ML-KEM-768 prekey: the signed public record and the
/// 2,400-byte decapsulation key.
pub struct MlKemPrekey {
    /// The signed public record.
    pub public: SignedPrekey,
    /// The expanded decapsulation key (zeroized on drop).
    pub decapsulation_key: Zeroizing<Vec<u8>>,
}

/// Generates and signs an X25519 prekey (`kind` must be an X25519 kind).
///
/// # Errors
/// `INVALID_PARAMETER` for an ML-KEM kind, `created ≥ expires` or a lifetime
/// over [`MAX_PREKEY_LIFETIME`]; `RANDOMNESS_UNAVAILABLE`.
pub fn generate_x25519_prekey(
    identity: &IdentityKeyPair,
    kind: PrekeyKind,
    key_id: u32,
    created: u64,
    expires: u64,
) -> Result<X25519Prekey> {
    if kind.is_kem() {
        return Err(
            crate::error::CryptoError::InvalidParameter("X25519 prekey of an ML-KEM kind").into(),
        );
    }
    let kp = x25519::x25519_generate()?;
    let public = SignedPrekey::sign(identity, kind, key_id, created, expires, &kp.public)?;
    Ok(X25519Prekey {
        public,
        secret: kp.secret,
    })
}

/// Generates and signs an ML-KEM-768 prekey (`kind` must be an ML-KEM kind).
///
/// # Errors
/// `INVALID_PARAMETER` for an X25519 kind, `created ≥ expires` or a lifetime
/// over [`MAX_PREKEY_LIFETIME`]; `RANDOMNESS_UNAVAILABLE`.
pub fn generate_mlkem_prekey(
    identity: &IdentityKeyPair,
    kind: PrekeyKind,
    key_id: u32,
    created: u64,
    expires: u64,
) -> Result<MlKemPrekey> {
    if !kind.is_kem() {
        return Err(
            crate::error::CryptoError::InvalidParameter("ML-KEM prekey of an X25519 kind").into(),
        );
    }
    let kp = mlkem::mlkem_generate()?;
    let public = SignedPrekey::sign(
        identity,
        kind,
        key_id,
        created,
        expires,
        &kp.encapsulation_key,
    )?;
    Ok(MlKemPrekey {
        public,
        decapsulation_key: kp.decapsulation_key,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prekey_sign_verify_round_trip() {
        let id = IdentityKeyPair::from_seeds(&[1; 32], &[2; 32], &[3; 32]).unwrap();
        let pk = x25519::x25519_public(&[9; 32]).unwrap();
        let p =
            SignedPrekey::sign_derand(&id, PrekeyKind::X25519Signed, 7, 100, 200, &pk, &[0; 32])
                .unwrap();
        p.verify(id.public(), PrekeyKind::X25519Signed, 150)
            .unwrap();
        assert_eq!(
            p.verify(id.public(), PrekeyKind::X25519Signed, 200),
            Err(SessionError::PrekeyExpired)
        );
        assert!(matches!(
            p.verify(id.public(), PrekeyKind::X25519OneTime, 150),
            Err(SessionError::BundleInvalid(_))
        ));
        let bytes = p.to_bytes();
        assert_eq!(bytes.len(), p.encoded_len());
        assert_eq!(SignedPrekey::parse(&bytes).unwrap(), p);
        for n in 0..bytes.len() {
            assert!(SignedPrekey::parse(&bytes[..n]).is_err());
        }
        let mut long = bytes.clone();
        long.push(0);
        assert!(SignedPrekey::parse(&long).is_err());
        // Changing the kind byte changes what was signed.
        let mut other = p.clone();
        other.kind = PrekeyKind::X25519OneTime;
        assert!(matches!(
            other.verify(id.public(), PrekeyKind::X25519OneTime, 150),
            Err(SessionError::BundleInvalid(_))
        ));
        assert!(
            SignedPrekey::sign_derand(&id, PrekeyKind::MlKemOneTime, 7, 100, 200, &pk, &[0; 32])
                .is_err()
        );
        assert!(
            SignedPrekey::sign_derand(&id, PrekeyKind::X25519Signed, 7, 200, 200, &pk, &[0; 32])
                .is_err()
        );
    }
}
