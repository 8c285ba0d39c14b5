//! Injected randomness, so known-answer vectors and compromise tests can
//! control (or tell apart) every random value a state draws.

use crate::error::Result;

/// What a random value is for (lets a test hand an attacker some of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RandomPurpose {
    /// A 32-byte X25519 ratchet secret.
    RatchetKey,
    /// The 64-byte ML-KEM-768 key-generation seed `d ‖ z` of an `ek`/`dk` pair.
    KemKeygen,
    /// The 32-byte ML-KEM-768 encapsulation randomness `m`.
    KemEncapsulation,
    /// The 12-byte AES-GCM nonce of a message.
    Nonce,
}

/// A source of randomness for the ratchet. Production code passes
/// `&mut veilkit::rng::fill` (any `FnMut(&mut [u8]) -> Result<()>` is one).
pub trait RatchetRng {
    /// Fills `buf` with random bytes for `purpose`.
    ///
    /// # Errors
    /// [`crate::error::CryptoError::RandomnessUnavailable`] (or any error the
    /// source reports); the operation then fails with the state unchanged.
    fn fill(&mut self, purpose: RandomPurpose, buf: &mut [u8]) -> Result<()>;
}

impl<F: FnMut(&mut [u8]) -> Result<()>> RatchetRng for F {
    fn fill(&mut self, _purpose: RandomPurpose, buf: &mut [u8]) -> Result<()> {
        self(buf)
    }
}
