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
}

crate::error::error_codes! {
    SessionError, wraps Self::Crypto(inner) => inner.code();
    Self::AuthenticationFailed => "AUTHENTICATION_FAILED",
    Self::Malformed(_) => "MALFORMED_INPUT",
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
