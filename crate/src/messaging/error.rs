//! Errors of the messaging domain.
//!
//! One enum, [`MessagingError`], for every messaging construction. Each variant
//! has a stable machine-readable [`MessagingError::code`] (SCREAMING_SNAKE), the
//! string the TypeScript `VeilError.code` carries. Every authentication failure
//! (AEAD tag, sealed-sender signature, authenticated-KEM signature) is the single
//! opaque `AUTHENTICATION_FAILED`; nothing about *why* leaks. Errors of the
//! underlying primitives are wrapped in [`MessagingError::Crypto`], whose code
//! is the inner [`CryptoError::code`].

use core::fmt;

use crate::error::CryptoError;

/// Why a key-transparency log entry was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyLogFault {
    /// The entry cannot be decoded (bad base64url, wrong length, unknown field …).
    Malformed,
    /// `prevHash` is not the hash of the previous entry (zero for the first).
    BadPrevHash,
    /// The timestamp is smaller than the previous entry's.
    TimestampDecreased,
    /// The signature does not verify under the key that must have made it.
    BadSignature,
    /// The first entry for a user is not an `add`.
    FirstNotAdd,
    /// An `add` for a user who already has a key.
    DuplicateAdd,
    /// Any entry for a user after that user's `revoke`.
    AfterRevoke,
    /// A `revoke` naming a key other than the user's current key.
    RevokeKeyMismatch,
    /// The entry is not in the current format (an entry of an older version).
    UnsupportedVersion,
    /// An `add` or `update` introducing a key that is (or was) another user's.
    KeyOfAnotherUser,
    /// The new key's proof-of-possession signature (`keySignature`) does not verify.
    BadKeySignature,
}

crate::error::error_codes! {
    KeyLogFault;
    Self::Malformed => "MALFORMED",
    Self::BadPrevHash => "BAD_PREV_HASH",
    Self::TimestampDecreased => "TIMESTAMP_DECREASED",
    Self::BadSignature => "BAD_SIGNATURE",
    Self::FirstNotAdd => "FIRST_NOT_ADD",
    Self::DuplicateAdd => "DUPLICATE_ADD",
    Self::AfterRevoke => "AFTER_REVOKE",
    Self::RevokeKeyMismatch => "REVOKE_KEY_MISMATCH",
    Self::UnsupportedVersion => "UNSUPPORTED_VERSION",
    Self::KeyOfAnotherUser => "KEY_OF_ANOTHER_USER",
    Self::BadKeySignature => "BAD_KEY_SIGNATURE",
}

/// Why a device-registry change was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegistryFault {
    /// The registry or a change cannot be decoded.
    Malformed,
    /// The registry belongs to another account key than the one expected.
    AccountKeyMismatch,
    /// `prevHash` is not the hash of the previous change (zero for the first).
    BadPrevHash,
    /// The timestamp is smaller than the previous change's.
    TimestampDecreased,
    /// The signature does not verify under the account identity key.
    BadSignature,
    /// An `add` reusing a device id (active or revoked).
    DuplicateDevice,
    /// A `revoke` of a device id that was never added.
    UnknownDevice,
    /// A `revoke` of a device that is already revoked.
    AlreadyRevoked,
}

crate::error::error_codes! {
    RegistryFault;
    Self::Malformed => "MALFORMED",
    Self::AccountKeyMismatch => "ACCOUNT_KEY_MISMATCH",
    Self::BadPrevHash => "BAD_PREV_HASH",
    Self::TimestampDecreased => "TIMESTAMP_DECREASED",
    Self::BadSignature => "BAD_SIGNATURE",
    Self::DuplicateDevice => "DUPLICATE_DEVICE",
    Self::UnknownDevice => "UNKNOWN_DEVICE",
    Self::AlreadyRevoked => "ALREADY_REVOKED",
}

/// Error of a messaging construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessagingError {
    /// An error of an underlying primitive; its code is the inner code.
    Crypto(CryptoError),
    /// Authentication failed (AEAD tag, sealed-sender or authenticated-KEM
    /// signature, anything inside a sealed packet). Deliberately opaque.
    AuthenticationFailed,
    /// An encoded input (chunked header, authenticated-KEM prefix, JSON form) is malformed.
    Malformed(&'static str),
    /// A padded message is not in canonical veilkit padding.
    InvalidPadding,
    /// A key-transparency log is invalid: entry `index` failed because of `fault`.
    KeyLog {
        /// Index of the first entry that failed (the would-be index for an append).
        index: usize,
        /// Why.
        fault: KeyLogFault,
    },
    /// A device registry is invalid: change `index` (or the registry itself) failed.
    Registry {
        /// Index of the first change that failed (the would-be index for an
        /// append); `None` for the registry as a whole.
        index: Option<usize>,
        /// Why.
        fault: RegistryFault,
    },
    /// The hash is already in the replay store.
    Replay,
    /// The timestamp is outside the replay store's window (too old, too far
    /// in the future, or older than what the store has had to forget).
    ReplayOutOfWindow,
    /// A stateful object (an interactive verification) was used out of order
    /// or after it finished.
    InvalidState,
    /// Interactive verification: the revealed nonce and identity do not open
    /// the commitment received first. The attempt is aborted.
    SasCommitmentMismatch,
    /// Interactive verification: a nonce or commitment was seen before (a
    /// replay or a reflection of our own). The attempt is aborted.
    SasNonceReused,
    /// Interactive verification: the failed / aborted attempt limit is reached.
    SasAttemptsExhausted,
}

crate::error::error_codes! {
    MessagingError, wraps Self::Crypto(inner) => inner.code();
    Self::AuthenticationFailed => "AUTHENTICATION_FAILED",
    Self::Malformed(_) => "MALFORMED_INPUT",
    Self::InvalidPadding => "INVALID_PADDING",
    Self::KeyLog { .. } => "KEY_LOG_INVALID",
    Self::Registry { .. } => "REGISTRY_INVALID",
    Self::Replay => "REPLAY_DETECTED",
    Self::ReplayOutOfWindow => "REPLAY_OUT_OF_WINDOW",
    Self::InvalidState => "INVALID_STATE",
    Self::SasCommitmentMismatch => "SAS_COMMITMENT_MISMATCH",
    Self::SasNonceReused => "SAS_NONCE_REUSED",
    Self::SasAttemptsExhausted => "SAS_ATTEMPTS_EXHAUSTED",
}

impl From<CryptoError> for MessagingError {
    /// Wraps a primitive error; an AEAD / key-wrap authentication failure
    /// becomes the one opaque [`MessagingError::AuthenticationFailed`].
    fn from(e: CryptoError) -> Self {
        match e {
            CryptoError::AuthenticationFailed => Self::AuthenticationFailed,
            other => Self::Crypto(other),
        }
    }
}

impl fmt::Display for MessagingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Crypto(inner) => inner.fmt(f),
            Self::AuthenticationFailed => f.write_str("authentication failed"),
            Self::Malformed(what) => write!(f, "malformed input: {what}"),
            Self::InvalidPadding => f.write_str("invalid padding"),
            Self::KeyLog { index, fault } => {
                write!(f, "key log entry {index} rejected: {}", fault.code())
            }
            Self::Registry { index: Some(index), fault } => {
                write!(f, "device registry change {index} rejected: {}", fault.code())
            }
            Self::Registry { index: None, fault } => {
                write!(f, "device registry rejected: {}", fault.code())
            }
            Self::Replay => f.write_str("replay detected: hash already seen"),
            Self::ReplayOutOfWindow => f.write_str("timestamp outside the replay window"),
            Self::InvalidState => f.write_str("invalid state for this call"),
            Self::SasCommitmentMismatch => f.write_str("verification aborted: the reveal does not match the commitment"),
            Self::SasNonceReused => f.write_str("verification aborted: a nonce or commitment was reused"),
            Self::SasAttemptsExhausted => f.write_str("verification refused: too many failed attempts"),
        }
    }
}

impl std::error::Error for MessagingError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Crypto(inner) => Some(inner),
            _ => None,
        }
    }
}

/// Result alias of the messaging domain.
pub type Result<T> = core::result::Result<T, MessagingError>;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant's code; the TypeScript `VEIL_ERROR_CODES` lists each of them.
    #[test]
    fn codes_are_stable() {
        let cases = [
            (MessagingError::Crypto(CryptoError::WeakKey), "WEAK_KEY"),
            (MessagingError::Crypto(CryptoError::InvalidParameter("x")), "INVALID_PARAMETER"),
            (MessagingError::AuthenticationFailed, "AUTHENTICATION_FAILED"),
            (MessagingError::Malformed("x"), "MALFORMED_INPUT"),
            (MessagingError::InvalidPadding, "INVALID_PADDING"),
            (MessagingError::KeyLog { index: 3, fault: KeyLogFault::AfterRevoke }, "KEY_LOG_INVALID"),
            (MessagingError::Registry { index: None, fault: RegistryFault::AccountKeyMismatch }, "REGISTRY_INVALID"),
            (MessagingError::Replay, "REPLAY_DETECTED"),
            (MessagingError::ReplayOutOfWindow, "REPLAY_OUT_OF_WINDOW"),
            (MessagingError::InvalidState, "INVALID_STATE"),
            (MessagingError::SasCommitmentMismatch, "SAS_COMMITMENT_MISMATCH"),
            (MessagingError::SasNonceReused, "SAS_NONCE_REUSED"),
            (MessagingError::SasAttemptsExhausted, "SAS_ATTEMPTS_EXHAUSTED"),
        ];
        for (e, code) in cases {
            assert_eq!(e.code(), code, "{e}");
        }
        // Every variant of its own is in the case list above, and `CODES` is their codes.
        let own: Vec<&str> = cases.iter().skip(2).map(|(_, c)| *c).collect();
        assert_eq!(own, MessagingError::CODES);
        // An AEAD failure of a primitive becomes the one opaque messaging failure.
        assert_eq!(MessagingError::from(CryptoError::AuthenticationFailed), MessagingError::AuthenticationFailed);
        let faults = [
            (KeyLogFault::Malformed, "MALFORMED"),
            (KeyLogFault::BadPrevHash, "BAD_PREV_HASH"),
            (KeyLogFault::TimestampDecreased, "TIMESTAMP_DECREASED"),
            (KeyLogFault::BadSignature, "BAD_SIGNATURE"),
            (KeyLogFault::FirstNotAdd, "FIRST_NOT_ADD"),
            (KeyLogFault::DuplicateAdd, "DUPLICATE_ADD"),
            (KeyLogFault::AfterRevoke, "AFTER_REVOKE"),
            (KeyLogFault::RevokeKeyMismatch, "REVOKE_KEY_MISMATCH"),
            (KeyLogFault::UnsupportedVersion, "UNSUPPORTED_VERSION"),
            (KeyLogFault::KeyOfAnotherUser, "KEY_OF_ANOTHER_USER"),
            (KeyLogFault::BadKeySignature, "BAD_KEY_SIGNATURE"),
        ];
        for (f, code) in faults {
            assert_eq!(f.code(), code);
        }
        assert_eq!(faults.map(|(_, c)| c), KeyLogFault::CODES);
        assert_eq!(
            MessagingError::KeyLog { index: 3, fault: KeyLogFault::AfterRevoke }.to_string(),
            "key log entry 3 rejected: AFTER_REVOKE"
        );
    }
}
