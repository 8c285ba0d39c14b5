//! Errors of the primitives domain.
//!
//! One enum for every primitive in the core. Every authentication failure
//! (AEAD tag, key-wrap integrity check) is the single opaque
//! [`CryptoError::AuthenticationFailed`]; nothing about *why* leaks.
//! Each variant has a stable machine-readable [`CryptoError::code`] that the
//! wasm layer maps, exhaustively, to the TypeScript `VeilError.code`.

use core::fmt;

/// Generates, from one list of `pattern => "CODE"` arms, an enum's stable
/// `code()` (an exhaustive `match`, so every variant must be listed) and its
/// `CODES` (every code of those arms, in order), so that the two cannot drift.
///
/// An optional `, wraps pattern => expression` after the type delegates to a
/// wrapped error (`Self::Crypto(inner) => inner.code()`); the wrapped enum's
/// codes are its own `CODES`, not repeated here.
macro_rules! error_codes {
    (
        $ty:ident $(, wraps $wpat:pat => $wexpr:expr )?;
        $( $pat:pat => $code:literal, )+
    ) => {
        impl $ty {
            /// Stable code, identical to the TypeScript `VeilError.code` (or,
            /// for a fault, to the TypeScript failure `reason`).
            #[must_use]
            pub const fn code(&self) -> &'static str {
                match self {
                    $( $pat => $code, )+
                    $( $wpat => $wexpr, )?
                }
            }

            /// Every code [`Self::code`] returns from its own variants (a
            /// wrapped error's codes are that error's own `CODES`), generated
            /// from the same list as `code()`.
            pub const CODES: &'static [&'static str] = &[ $( $code ),+ ];
        }
    };
}
pub(crate) use error_codes;

/// Error of a cryptographic primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CryptoError {
    /// An input had the wrong length.
    InvalidLength {
        /// Which argument.
        what: &'static str,
        /// What was expected, in words ("32 bytes", "at least 16 bytes, a multiple of 8").
        expected: &'static str,
        /// The length received.
        got: usize,
    },
    /// A parameter is outside its allowed range (iteration count, memory cost, threshold …).
    InvalidParameter(&'static str),
    /// A key is malformed or fails its validity check (ML-KEM modulus check,
    /// embedded hash mismatch, Ed25519 public half not matching the seed …).
    InvalidKey(&'static str),
    /// A degenerate public key: a low-order X25519 point (refused as a key,
    /// or its key agreement produced the all-zero shared secret), or an
    /// ML-KEM-768 encapsulation key whose `t̂` is all zero (refused where a
    /// protocol receives it; see [`crate::mlkem`]).
    WeakKey,
    /// Authenticated decryption or key unwrapping failed. Deliberately opaque.
    AuthenticationFailed,
    /// A signature did not verify (or is non-canonical / uses a small-order key).
    InvalidSignature,
    /// A mnemonic phrase is malformed: unknown word, wrong word count or bad checksum.
    InvalidMnemonic(&'static str),
    /// A Shamir share set cannot be combined (x = 0, duplicate x, mismatched lengths, too few).
    InvalidShares(&'static str),
    /// The operating system / browser random number generator failed.
    RandomnessUnavailable,
}

crate::error::error_codes! {
    CryptoError;
    Self::InvalidLength { .. } => "INVALID_LENGTH",
    Self::InvalidParameter(_) => "INVALID_PARAMETER",
    Self::InvalidKey(_) => "INVALID_KEY",
    Self::WeakKey => "WEAK_KEY",
    Self::AuthenticationFailed => "AUTHENTICATION_FAILED",
    Self::InvalidSignature => "INVALID_SIGNATURE",
    Self::InvalidMnemonic(_) => "INVALID_MNEMONIC",
    Self::InvalidShares(_) => "INVALID_SHARES",
    Self::RandomnessUnavailable => "RANDOMNESS_UNAVAILABLE",
}

impl CryptoError {
    /// Shorthand for an [`CryptoError::InvalidLength`].
    #[must_use]
    pub const fn length(what: &'static str, expected: &'static str, got: usize) -> Self {
        Self::InvalidLength {
            what,
            expected,
            got,
        }
    }
}

impl fmt::Display for CryptoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidLength {
                what,
                expected,
                got,
            } => {
                write!(f, "{what}: expected {expected}, got {got} bytes")
            }
            Self::InvalidParameter(m) => write!(f, "invalid parameter: {m}"),
            Self::InvalidKey(m) => write!(f, "invalid key: {m}"),
            Self::WeakKey => f.write_str("weak key: low-order X25519 point or all-zero ML-KEM key"),
            Self::AuthenticationFailed => f.write_str("authentication failed"),
            Self::InvalidSignature => f.write_str("invalid signature"),
            Self::InvalidMnemonic(m) => write!(f, "invalid mnemonic: {m}"),
            Self::InvalidShares(m) => write!(f, "invalid shares: {m}"),
            Self::RandomnessUnavailable => f.write_str("secure randomness unavailable"),
        }
    }
}

impl std::error::Error for CryptoError {}

/// Result alias of the primitives domain.
pub type Result<T> = core::result::Result<T, CryptoError>;

/// Checks that `bytes` has exactly `N` bytes and returns it as an array reference.
///
/// # Errors
/// [`CryptoError::InvalidLength`] naming `what` and `expected`.
pub fn exact<'a, const N: usize>(
    what: &'static str,
    expected: &'static str,
    bytes: &'a [u8],
) -> Result<&'a [u8; N]> {
    <&[u8; N]>::try_from(bytes).map_err(|_| CryptoError::length(what, expected, bytes.len()))
}
