//! Session identities (docs/SESSIONS.md §2).
//!
//! The public part is the identity encoding of the messaging layer,
//! `Enc(ID) = u8(flags) ‖ Ed25519(32) ‖ ML-DSA-65(1952) ‖ X25519(32)`
//! ([`crate::messaging::verification::encode_identity`]), with the ML-DSA-65
//! flag **required**: a session identity is always 2,017 bytes. Its identity
//! id is `SHA-256("veilkit-session-identity-v1" ‖ Enc(ID))`.
//!
//! The X25519 key inside `Enc(ID)` is the identity key of the handshake's
//! DH1 / DH2, so the verification code (computed over `Enc(ID)`) covers it.

use zeroize::Zeroizing;

use super::error::{Result, SessionError};
use crate::error::CryptoError;
use crate::messaging::verification::{FLAG_ML_DSA_65, check_identity, encode_identity};
use crate::{ed25519, mldsa, rng, x25519};

/// Label of the identity id hash.
pub const IDENTITY_ID_LABEL: &[u8] = b"veilkit-session-identity-v1";
/// Length of a session identity encoding (flags 1: ML-DSA-65 present).
pub const IDENTITY_ENCODING_LEN: usize = 1 + 32 + 1952 + 32;
/// Length of an identity id.
pub const IDENTITY_ID_LEN: usize = 32;

const ED_END: usize = 1 + ed25519::PUBLIC_LEN;
const MLDSA_END: usize = ED_END + mldsa::PK_LEN;

/// The public part of a session identity: a canonical `Enc(ID)` with the
/// ML-DSA-65 key present, and its identity id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionIdentity {
    encoding: Vec<u8>,
    id: [u8; IDENTITY_ID_LEN],
}

impl SessionIdentity {
    /// Checks and wraps an identity encoding.
    ///
    /// # Errors
    /// `MALFORMED_INPUT` / `INVALID_LENGTH` for a non-canonical encoding;
    /// `PQ_IDENTITY_REQUIRED` if the ML-DSA-65 key is absent.
    pub fn from_encoding(encoding: &[u8]) -> Result<Self> {
        check_identity("identity", encoding).map_err(|e| match e {
            crate::messaging::MessagingError::Crypto(c) => SessionError::Crypto(c),
            _ => SessionError::Malformed("identity encoding"),
        })?;
        if encoding.first().copied() != Some(FLAG_ML_DSA_65) {
            return Err(SessionError::PqIdentityRequired);
        }
        Ok(Self { encoding: encoding.to_vec(), id: identity_id(encoding) })
    }

    /// `Enc(ID)` (2,017 bytes).
    #[must_use]
    pub fn encoding(&self) -> &[u8] {
        &self.encoding
    }

    /// The identity id `SHA-256(IDENTITY_ID_LABEL ‖ Enc(ID))`.
    #[must_use]
    pub const fn id(&self) -> &[u8; IDENTITY_ID_LEN] {
        &self.id
    }

    /// The Ed25519 public key.
    #[must_use]
    pub fn ed25519(&self) -> &[u8] {
        self.encoding.get(1..ED_END).unwrap_or_default()
    }

    /// The ML-DSA-65 public key.
    #[must_use]
    pub fn ml_dsa_65(&self) -> &[u8] {
        self.encoding.get(ED_END..MLDSA_END).unwrap_or_default()
    }

    /// The X25519 identity key (used in DH1 / DH2 of the handshake).
    #[must_use]
    pub fn x25519(&self) -> &[u8] {
        self.encoding.get(MLDSA_END..).unwrap_or_default()
    }
}

/// The identity id of an encoding: `SHA-256(IDENTITY_ID_LABEL ‖ Enc(ID))`.
#[must_use]
pub fn identity_id(encoding: &[u8]) -> [u8; IDENTITY_ID_LEN] {
    let mut h = crate::hash::Sha256::new();
    h.update(IDENTITY_ID_LABEL);
    h.update(encoding);
    h.finalize()
}

/// A session identity with its secrets: the Ed25519 seed, the ML-DSA-65 seed
/// `ξ` and the X25519 scalar, all zeroized on drop. No `Debug`.
pub struct IdentityKeyPair {
    ed25519_seed: Zeroizing<[u8; 32]>,
    ml_dsa_seed: Zeroizing<[u8; 32]>,
    x25519_secret: Zeroizing<[u8; 32]>,
    public: SessionIdentity,
}

impl IdentityKeyPair {
    /// A fresh identity from the platform CSPRNG.
    ///
    /// # Errors
    /// `RANDOMNESS_UNAVAILABLE`.
    pub fn generate() -> Result<Self> {
        let ed = rng::array::<32>()?;
        let ml = rng::array::<32>()?;
        let x = rng::array::<32>()?;
        Self::from_seeds(&ed, &ml, &x)
    }

    /// The identity of three 32-byte seeds (Ed25519 seed, ML-DSA-65 `ξ`,
    /// X25519 scalar); the public keys are derived from them, so the
    /// encoding always matches the secrets.
    ///
    /// # Errors
    /// Only if a primitive fails to derive a key.
    pub fn from_seeds(ed25519_seed: &[u8; 32], ml_dsa_seed: &[u8; 32], x25519_secret: &[u8; 32]) -> Result<Self> {
        let ed = ed25519::ed25519_from_seed(ed25519_seed)?;
        let ml = mldsa::mldsa_from_seed(ml_dsa_seed)?;
        let x = x25519::x25519_public(x25519_secret)?;
        let encoding = encode_identity(&ed.public, Some(&ml.public), &x).map_err(|e| match e {
            crate::messaging::MessagingError::Crypto(c) => SessionError::Crypto(c),
            _ => SessionError::Crypto(CryptoError::InvalidKey("identity encoding")),
        })?;
        let public = SessionIdentity::from_encoding(&encoding)?;
        Ok(Self {
            ed25519_seed: Zeroizing::new(*ed25519_seed),
            ml_dsa_seed: Zeroizing::new(*ml_dsa_seed),
            x25519_secret: Zeroizing::new(*x25519_secret),
            public,
        })
    }

    /// The public part.
    #[must_use]
    pub const fn public(&self) -> &SessionIdentity {
        &self.public
    }

    /// The Ed25519 seed (for the keystore's wrapped record).
    #[must_use]
    pub fn ed25519_seed(&self) -> &Zeroizing<[u8; 32]> {
        &self.ed25519_seed
    }

    /// The ML-DSA-65 seed `ξ` (for the keystore's wrapped record).
    #[must_use]
    pub fn ml_dsa_seed(&self) -> &Zeroizing<[u8; 32]> {
        &self.ml_dsa_seed
    }

    /// The X25519 identity scalar (for the keystore's wrapped record).
    #[must_use]
    pub fn x25519_secret(&self) -> &Zeroizing<[u8; 32]> {
        &self.x25519_secret
    }

    /// Ed25519 signature of `msg`.
    pub(crate) fn sign_ed25519(&self, msg: &[u8]) -> Result<[u8; 64]> {
        Ok(ed25519::ed25519_sign(self.ed25519_seed.as_slice(), msg)?)
    }

    /// ML-DSA-65 signature of `msg` under `ctx` with the signing randomness `rnd`.
    pub(crate) fn sign_ml_dsa(&self, msg: &[u8], ctx: &[u8], rnd: &[u8; 32]) -> Result<Vec<u8>> {
        Ok(mldsa::mldsa_sign_with_rnd(self.ml_dsa_seed.as_slice(), msg, ctx, rnd)?)
    }

    /// X25519 with the identity scalar.
    pub(crate) fn dh(&self, public: &[u8]) -> Result<Zeroizing<[u8; 32]>> {
        Ok(x25519::x25519_dh(self.x25519_secret.as_slice(), public)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::sha256;

    #[test]
    fn identity_encoding_and_id() {
        let kp = IdentityKeyPair::from_seeds(&[1; 32], &[2; 32], &[3; 32]).unwrap();
        let p = kp.public();
        assert_eq!(p.encoding().len(), IDENTITY_ENCODING_LEN);
        assert_eq!(p.x25519(), x25519::x25519_public(&[3; 32]).unwrap());
        assert_eq!(p.ed25519().len(), 32);
        assert_eq!(p.ml_dsa_65().len(), 1952);
        let again = SessionIdentity::from_encoding(p.encoding()).unwrap();
        assert_eq!(&again, p);
        assert_eq!(p.id(), &sha256(&[IDENTITY_ID_LABEL, p.encoding()].concat()));
        // Without ML-DSA-65: refused.
        let classical = encode_identity(p.ed25519(), None, p.x25519()).unwrap();
        assert_eq!(SessionIdentity::from_encoding(&classical), Err(SessionError::PqIdentityRequired));
        assert!(SessionIdentity::from_encoding(&p.encoding()[..100]).is_err());
    }
}
