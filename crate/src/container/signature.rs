//! Header signatures: v5 (Ed25519) and v6 (Ed25519 + ML-DSA-65, both must verify).
//!
//! ```text
//! message = "vollcrypt-file-header-signature-v1" ‖ every header byte before the signature table
//! v5: sig_ed25519 = Ed25519.Sign(sk, message)
//! v6: sig_ed25519 = Ed25519.Sign(sk, message)
//!     sig_mldsa   = ML-DSA-65.Sign(sk', message, ctx = "vollcrypt-file-header-v3")
//! ```
//!
//! The covered bytes include the version byte, the mode, the Merkle root, the
//! whole wrap table and the metadata (signer keys, timestamp, key-log id,
//! seal marker), so stripping the ML-DSA half (v6 → v5) or the whole
//! signature (→ v4) invalidates or removes it; a policy that requires a
//! signature then rejects the container.

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::error::{ContainerError, Result};
use super::header::{Header, Metadata, MetadataKind, SignedPart, VERSION_ED25519, VERSION_HYBRID};
use crate::{ed25519, mldsa};

/// Domain label prefixed to the signed header bytes.
pub const SIGNATURE_LABEL: &[u8] = b"vollcrypt-file-header-signature-v1";
/// ML-DSA-65 context string of v6 header signatures.
pub const MLDSA_CONTEXT: &[u8] = b"vollcrypt-file-header-v3";

/// What a header's signature table proved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignatureStatus {
    /// v4: no signature.
    Unsigned,
    /// v5: a valid Ed25519 signature.
    Ed25519,
    /// v6: valid Ed25519 and ML-DSA-65 signatures.
    Hybrid,
}

/// A signer: Ed25519 seed, optional ML-DSA-65 seed (→ v6), key-log id and the
/// timestamp to record. Secrets wiped on drop; no `Debug`.
///
/// The core never reads a clock (there is none on `wasm32-unknown-unknown`):
/// the caller supplies the timestamp.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct SigningKeys {
    ed25519_seed: [u8; 32],
    mldsa_seed: Option<[u8; 32]>,
    #[zeroize(skip)]
    ed25519_public: [u8; 32],
    #[zeroize(skip)]
    mldsa_public: Option<Vec<u8>>,
    #[zeroize(skip)]
    key_log_id: [u8; 32],
    #[zeroize(skip)]
    timestamp: u64,
}

impl SigningKeys {
    /// A classical (v5) signer.
    ///
    /// # Errors
    /// [`ContainerError::Crypto`] (`INVALID_LENGTH`) unless the seed is 32 bytes.
    pub fn ed25519(seed: &[u8], key_log_id: [u8; 32], timestamp: u64) -> Result<Self> {
        let kp = ed25519::ed25519_from_seed(seed)?;
        let mut s = [0u8; 32];
        s.copy_from_slice(seed);
        Ok(Self {
            ed25519_seed: s,
            mldsa_seed: None,
            ed25519_public: kp.public,
            mldsa_public: None,
            key_log_id,
            timestamp,
        })
    }

    /// A hybrid (v6) signer.
    ///
    /// # Errors
    /// [`ContainerError::Crypto`] (`INVALID_LENGTH`) unless both seeds are 32 bytes.
    pub fn hybrid(
        ed25519_seed: &[u8],
        mldsa_seed: &[u8],
        key_log_id: [u8; 32],
        timestamp: u64,
    ) -> Result<Self> {
        let mut s = Self::ed25519(ed25519_seed, key_log_id, timestamp)?;
        let kp = mldsa::mldsa_from_seed(mldsa_seed)?;
        let mut m = [0u8; 32];
        m.copy_from_slice(mldsa_seed);
        s.mldsa_seed = Some(m);
        s.mldsa_public = Some(kp.public.clone());
        Ok(s)
    }

    /// Ed25519 public key.
    #[must_use]
    pub const fn ed25519_public(&self) -> &[u8; 32] {
        &self.ed25519_public
    }

    /// ML-DSA-65 public key (hybrid signers).
    #[must_use]
    pub fn mldsa_public(&self) -> Option<&[u8]> {
        self.mldsa_public.as_deref()
    }

    /// The version headers signed by this signer get (5 or 6).
    #[must_use]
    pub const fn version(&self) -> u8 {
        if self.mldsa_seed.is_some() {
            VERSION_HYBRID
        } else {
            VERSION_ED25519
        }
    }

    /// The metadata this signer records, of `kind`.
    #[must_use]
    pub fn metadata(&self, kind: MetadataKind) -> Metadata {
        Metadata {
            kind,
            timestamp: self.timestamp,
            ed25519_public: self.ed25519_public,
            mldsa_public: self.mldsa_public.clone(),
            key_log_id: self.key_log_id,
        }
    }

    /// A placeholder signed part (zero signatures) of the right size, so that
    /// the header length is known before signing.
    #[must_use]
    pub fn placeholder(&self, kind: MetadataKind) -> SignedPart {
        SignedPart {
            metadata: self.metadata(kind),
            ed25519_signature: [0u8; 64],
            mldsa_signature: self.mldsa_seed.map(|_| vec![0u8; mldsa::SIG_LEN]),
        }
    }
}

/// Checks that `key` has the length of an ML-DSA-65 public key (1952 bytes).
///
/// # Errors
/// `INVALID_LENGTH`, naming `what`.
pub fn check_mldsa_public(what: &'static str, key: &[u8]) -> Result<()> {
    if key.len() == mldsa::PK_LEN {
        Ok(())
    } else {
        Err(ContainerError::Crypto(crate::error::CryptoError::length(
            what,
            "1952 bytes",
            key.len(),
        )))
    }
}

/// The message the signatures cover.
///
/// # Errors
/// As [`Header::unsigned_prefix`].
pub fn signed_message(header: &Header) -> Result<Vec<u8>> {
    let prefix = header.unsigned_prefix()?;
    let mut msg = Vec::with_capacity(SIGNATURE_LABEL.len() + prefix.len());
    msg.extend_from_slice(SIGNATURE_LABEL);
    msg.extend_from_slice(&prefix);
    Ok(msg)
}

/// Signs `header` with `keys`, recording metadata of `kind` (replaces any
/// existing signature; the version becomes 5 or 6).
///
/// # Errors
/// Serialisation errors; primitive errors.
pub fn sign_header(header: &mut Header, keys: &SigningKeys, kind: MetadataKind) -> Result<()> {
    header.signed = Some(keys.placeholder(kind));
    let msg = signed_message(header)?;
    let ed = ed25519::ed25519_sign(&keys.ed25519_seed, &msg)?;
    let ml = match &keys.mldsa_seed {
        Some(seed) => Some(mldsa::mldsa_sign(seed, &msg, MLDSA_CONTEXT, false)?),
        None => None,
    };
    if let Some(s) = header.signed.as_mut() {
        s.ed25519_signature = ed;
        s.mldsa_signature = ml;
    }
    Ok(())
}

/// Verifies the signature table of `header`. Both halves of a v6 signature
/// are always checked.
///
/// # Errors
/// [`ContainerError::SignatureInvalid`] if any signature fails.
pub fn verify_header(header: &Header) -> Result<SignatureStatus> {
    let Some(signed) = &header.signed else {
        return Ok(SignatureStatus::Unsigned);
    };
    let msg = signed_message(header)?;
    let ed_ok = ed25519::ed25519_verify(
        &signed.metadata.ed25519_public,
        &msg,
        &signed.ed25519_signature,
    )
    .is_ok();
    match (&signed.metadata.mldsa_public, &signed.mldsa_signature) {
        (None, None) => {
            if ed_ok {
                Ok(SignatureStatus::Ed25519)
            } else {
                Err(ContainerError::SignatureInvalid)
            }
        }
        (Some(pk), Some(sig)) => {
            let ml_ok = mldsa::mldsa_verify(pk, &msg, MLDSA_CONTEXT, sig).is_ok();
            if ed_ok && ml_ok {
                Ok(SignatureStatus::Hybrid)
            } else {
                Err(ContainerError::SignatureInvalid)
            }
        }
        _ => Err(ContainerError::SignatureInvalid),
    }
}
