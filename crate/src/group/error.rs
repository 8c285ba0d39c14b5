//! Errors of the group domain ([`crate::group`]).
//!
//! One enum for the MLS layer. OpenMLS reports many distinct validation
//! failures; they are folded into a few stable codes. Every failure to
//! decrypt or authenticate a message (AEAD tag, signature, membership tag,
//! confirmation tag) is the single opaque [`GroupError::AuthenticationFailed`].

use core::fmt;

/// Error of an MLS group operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupError {
    /// Bytes that should be an MLS message (key package, welcome, commit,
    /// application message) or a veilkit group state do not parse.
    Malformed(&'static str),
    /// The ciphersuite is not one veilkit groups offer (0x0001 or 0x004D).
    UnsupportedSuite(u16),
    /// A message failed authentication or decryption. Deliberately opaque.
    AuthenticationFailed,
    /// A handshake or application message is for another epoch than the
    /// group's (a past one no longer held, or a future one).
    WrongEpoch,
    /// A message for another group.
    WrongGroup,
    /// An application message whose key was already used (a replay) or is
    /// no longer held.
    DuplicateMessage,
    /// A commit or welcome does not validate (its proposals, path, tree or
    /// group info); the reason names the check.
    InvalidCommit(&'static str),
    /// A key package fails validation (signature, lifetime, suite, or it is
    /// this client's own).
    InvalidKeyPackage(&'static str),
    /// A member's credential is not a certified credential whose certificate
    /// verifies for its MLS signature key, or a member's leaf changed its
    /// identity (required by a client whose own credential is certified).
    InvalidCredential,
    /// No key package of this client matches the welcome (none was made
    /// for it, or it was consumed already).
    NoMatchingKeyPackage,
    /// The member is not in the group (a leaf index that is not a member),
    /// or this client is no longer in it.
    NotAMember,
    /// The operation needs an operational group, but this member has a
    /// commit of its own pending: merge or discard it first.
    CommitPending,
    /// There is no pending commit to merge or discard.
    NoPendingCommit,
    /// An argument is outside its allowed range (empty list, too many key packages).
    InvalidArgument(&'static str),
    /// The random number generator failed.
    RandomnessUnavailable,
    /// OpenMLS reported an internal error (a library bug or a storage fault).
    Internal,
}

crate::error::error_codes! {
    GroupError;
    Self::Malformed(_) => "MALFORMED_INPUT",
    Self::UnsupportedSuite(_) => "UNSUPPORTED_CIPHER_SUITE",
    Self::AuthenticationFailed => "AUTHENTICATION_FAILED",
    Self::WrongEpoch => "WRONG_EPOCH",
    Self::WrongGroup => "WRONG_GROUP",
    Self::DuplicateMessage => "DUPLICATE_MESSAGE",
    Self::InvalidCommit(_) => "INVALID_COMMIT",
    Self::InvalidKeyPackage(_) => "INVALID_KEY_PACKAGE",
    Self::InvalidCredential => "INVALID_CREDENTIAL",
    Self::NoMatchingKeyPackage => "NO_MATCHING_KEY_PACKAGE",
    Self::NotAMember => "NOT_A_MEMBER",
    Self::CommitPending => "COMMIT_CONFLICT",
    Self::NoPendingCommit => "NO_PENDING_COMMIT",
    Self::InvalidArgument(_) => "INVALID_PARAMETER",
    Self::RandomnessUnavailable => "RANDOMNESS_UNAVAILABLE",
    Self::Internal => "INTERNAL",
}

impl fmt::Display for GroupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Malformed(what) => write!(f, "malformed {what}"),
            Self::UnsupportedSuite(id) => write!(f, "unsupported MLS ciphersuite {id:#06x}"),
            Self::AuthenticationFailed => f.write_str("authentication failed"),
            Self::WrongEpoch => f.write_str("message for another epoch"),
            Self::WrongGroup => f.write_str("message for another group"),
            Self::DuplicateMessage => f.write_str("message already received or its key is gone"),
            Self::InvalidCommit(why) => write!(f, "invalid commit or welcome: {why}"),
            Self::InvalidKeyPackage(why) => write!(f, "invalid key package: {why}"),
            Self::InvalidCredential => f.write_str(
                "a member's credential is not certified by its identity, or changed identity",
            ),
            Self::NoMatchingKeyPackage => {
                f.write_str("no key package of this client matches the welcome")
            }
            Self::NotAMember => f.write_str("not a member of the group"),
            Self::CommitPending => f.write_str("a commit of this member is pending"),
            Self::NoPendingCommit => f.write_str("no pending commit"),
            Self::InvalidArgument(why) => write!(f, "invalid argument: {why}"),
            Self::RandomnessUnavailable => f.write_str("randomness unavailable"),
            Self::Internal => f.write_str("internal MLS library error"),
        }
    }
}

impl std::error::Error for GroupError {}
