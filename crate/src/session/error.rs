//! Errors of the sessions domain.
//!
//! One enum, [`SessionError`], for bundles, the handshake and the ratchet.
//! Every authentication failure (AEAD tag of a message, padding after a valid
//! tag) is the single opaque `AUTHENTICATION_FAILED`. A failed operation
//! never changes a session's state.

use core::fmt;

use crate::error::CryptoError;

/// Error of a session operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionError {
    /// An error of an underlying primitive; its code is the inner code.
    Crypto(CryptoError),
    /// Authentication failed (message AEAD tag, padding). Deliberately opaque.
    AuthenticationFailed,
    /// An encoded input (bundle, prekey, initial message, message, state) is malformed.
    Malformed(&'static str),
    // --- triple ratchet (crate::session::ratchet) ---
    /// A message number lies further ahead of its chain than the configured
    /// limit allows (checked before any key derivation; the state is unchanged).
    TooFarAhead {
        /// How many message keys would have to be skipped.
        jump: u64,
        /// The configured limit (`Limits::max_jump`).
        limit: u32,
    },
    /// The message key was already used (a replay) or is no longer held
    /// (evicted or expired skipped key); the two cannot be told apart.
    DuplicateMessage,
    /// The operation is not possible in the session's current state, or a
    /// serialized state violates an invariant.
    InvalidState(&'static str),
    /// A stored state is older than the newest one seen (rollback refused).
    StateRollback {
        /// The state counter of the state offered.
        counter: u64,
        /// The highest state counter seen before.
        highest_seen: u64,
    },
}

impl SessionError {
    /// Stable code, identical to the TypeScript `VeilError.code`.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            Self::Crypto(inner) => inner.code(),
            Self::AuthenticationFailed => "AUTHENTICATION_FAILED",
            Self::Malformed(_) => "MALFORMED_INPUT",
            Self::TooFarAhead { .. } => "TOO_FAR_AHEAD",
            Self::DuplicateMessage => "DUPLICATE_MESSAGE",
            Self::InvalidState(_) => "INVALID_STATE",
            Self::StateRollback { .. } => "STATE_ROLLBACK",
        }
    }
}

impl From<CryptoError> for SessionError {
    /// Wraps a primitive error; an AEAD authentication failure becomes the
    /// one opaque [`SessionError::AuthenticationFailed`].
    fn from(e: CryptoError) -> Self {
        match e {
            CryptoError::AuthenticationFailed => Self::AuthenticationFailed,
            other => Self::Crypto(other),
        }
    }
}

impl fmt::Display for SessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Crypto(inner) => inner.fmt(f),
            Self::AuthenticationFailed => f.write_str("authentication failed"),
            Self::Malformed(what) => write!(f, "malformed input: {what}"),
            Self::TooFarAhead { jump, limit } => {
                write!(f, "message too far ahead: {jump} keys to skip, limit {limit}")
            }
            Self::DuplicateMessage => {
                f.write_str("duplicate message (key already used, evicted or expired)")
            }
            Self::InvalidState(what) => write!(f, "invalid session state: {what}"),
            Self::StateRollback { counter, highest_seen } => write!(
                f,
                "session state rollback: counter {counter} is older than {highest_seen}"
            ),
        }
    }
}

impl std::error::Error for SessionError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Crypto(inner) => Some(inner),
            _ => None,
        }
    }
}

/// Result alias of the sessions domain.
pub type Result<T> = core::result::Result<T, SessionError>;
