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
    // ---- handshake (identity, prekeys, bundles, initial message) ----
    /// A session identity lacks the ML-DSA-65 key that sessions require.
    PqIdentityRequired,
    /// A prekey bundle fails verification (a signature, a kind, a date, the
    /// identity); the reason names which.
    BundleInvalid(&'static str),
    /// A prekey of the bundle has expired at the caller's `now`.
    PrekeyExpired,
    /// The two parties' supported-version lists have no version in common
    /// (or the common one is not implemented here).
    NoCommonVersion,
    /// The initial message uses a lower version than both parties support.
    VersionDowngrade,
    /// The initial message was already accepted (replay cache, no one-time prekey).
    ReplayDetected,
    /// An identity (or device) is not the expected one: a pinned peer
    /// identity, or an initial message addressed to another identity or device.
    IdentityMismatch(&'static str),
    /// A prekey the initial message names is not (or no longer) in the store:
    /// a consumed one-time prekey, or a deleted signed / last-resort prekey.
    PrekeyNotFound,
    // ---- end handshake ----
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

crate::error::error_codes! {
    SessionError, wraps Self::Crypto(inner) => inner.code();
    Self::AuthenticationFailed => "AUTHENTICATION_FAILED",
    Self::Malformed(_) => "MALFORMED_INPUT",
    // ---- handshake ----
    Self::PqIdentityRequired => "PQ_IDENTITY_REQUIRED",
    Self::BundleInvalid(_) => "BUNDLE_INVALID",
    Self::PrekeyExpired => "PREKEY_EXPIRED",
    Self::NoCommonVersion => "NO_COMMON_VERSION",
    Self::VersionDowngrade => "VERSION_DOWNGRADE",
    Self::ReplayDetected => "REPLAY_DETECTED",
    Self::IdentityMismatch(_) => "IDENTITY_MISMATCH",
    Self::PrekeyNotFound => "PREKEY_NOT_FOUND",
    // ---- end handshake ----
    // ---- triple ratchet ----
    Self::TooFarAhead { .. } => "TOO_FAR_AHEAD",
    Self::DuplicateMessage => "DUPLICATE_MESSAGE",
    Self::InvalidState(_) => "INVALID_STATE",
    Self::StateRollback { .. } => "STATE_ROLLBACK",
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
            // ---- handshake ----
            Self::PqIdentityRequired => f.write_str("session identities require an ML-DSA-65 key"),
            Self::BundleInvalid(why) => write!(f, "prekey bundle invalid: {why}"),
            Self::PrekeyExpired => f.write_str("a prekey of the bundle has expired"),
            Self::NoCommonVersion => f.write_str("no common protocol version"),
            Self::VersionDowngrade => f.write_str("version downgrade: a higher common version exists"),
            Self::ReplayDetected => f.write_str("initial message already accepted"),
            Self::IdentityMismatch(what) => write!(f, "identity mismatch: {what}"),
            Self::PrekeyNotFound => f.write_str("prekey not found (consumed or deleted)"),
            // ---- end handshake ----
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

#[cfg(test)]
mod handshake_code_tests {
    use super::*;

    /// The handshake variants' codes (the TypeScript layer will list them).
    #[test]
    fn handshake_codes_are_stable() {
        let cases = [
            (SessionError::PqIdentityRequired, "PQ_IDENTITY_REQUIRED"),
            (SessionError::BundleInvalid("x"), "BUNDLE_INVALID"),
            (SessionError::PrekeyExpired, "PREKEY_EXPIRED"),
            (SessionError::NoCommonVersion, "NO_COMMON_VERSION"),
            (SessionError::VersionDowngrade, "VERSION_DOWNGRADE"),
            (SessionError::ReplayDetected, "REPLAY_DETECTED"),
            (SessionError::IdentityMismatch("x"), "IDENTITY_MISMATCH"),
            (SessionError::PrekeyNotFound, "PREKEY_NOT_FOUND"),
        ];
        for (e, code) in cases {
            assert_eq!(e.code(), code, "{e}");
        }
        // Same string as the messaging replay store's code.
        assert_eq!(SessionError::ReplayDetected.code(), crate::messaging::MessagingError::Replay.code());
    }
}
