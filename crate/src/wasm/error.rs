//! The one JS error builder of the bindings.
//!
//! Every core error crosses to JS the same way: an `Error` named `VeilError`
//! with the error's `Display` text as message and its stable `code`
//! (`CryptoError::code`, `ContainerError::code`, `MessagingError::code`,
//! `SessionError::code`),
//! plus the extra properties of a few variants ([`JsCode::details`]); the
//! TypeScript facade turns it into its `VeilError` class. The four error
//! enums implement [`JsCode`]; [`JsFail`] converts from each of them, so the
//! bindings use `?` on core results directly.
use crate::container::ContainerError;
use crate::error::CryptoError;
use crate::messaging::MessagingError;
use crate::session::SessionError;
use wasm_bindgen::JsValue;

/// A core error as the facade sees it.
pub(crate) trait JsCode: core::fmt::Display {
    /// The stable `code` property.
    fn code(&self) -> &'static str;
    /// Sets the variant's extra properties on `err` (none by default).
    fn details(&self, err: &js_sys::Error) {
        let _ = err;
    }
}

/// Sets property `key` on a fresh `Error` object (which cannot fail).
fn set(err: &js_sys::Error, key: &str, value: &JsValue) {
    let _ = js_sys::Reflect::set(err, &JsValue::from_str(key), value);
}

/// Builds the JS error of a core error.
pub(crate) fn js_err<E: JsCode>(e: &E) -> JsValue {
    let err = js_sys::Error::new(&e.to_string());
    err.set_name("VeilError");
    set(&err, "code", &JsValue::from_str(e.code()));
    e.details(&err);
    err.into()
}

/// The error type of every exported function: a JS error built by
/// [`js_err`] (or a JS value passed through). wasm-bindgen throws it.
pub struct JsFail(JsValue);

impl<E: JsCode> From<E> for JsFail {
    fn from(e: E) -> Self {
        Self(js_err(&e))
    }
}

impl From<JsFail> for JsValue {
    fn from(e: JsFail) -> Self {
        e.0
    }
}

impl JsCode for CryptoError {
    fn code(&self) -> &'static str {
        Self::code(self)
    }
}

/// `TRUNCATED` also carries `needed` and `got` (byte counts). The match lists
/// every variant, so a new one cannot be added without deciding here.
impl JsCode for ContainerError {
    fn code(&self) -> &'static str {
        Self::code(self)
    }

    fn details(&self, err: &js_sys::Error) {
        match self {
            Self::Crypto(inner) => inner.details(err),
            Self::Truncated { needed, got } => {
                set(err, "needed", &JsValue::from_f64(*needed as f64));
                set(err, "got", &JsValue::from_f64(*got as f64));
            }
            Self::TrailingBytes
            | Self::BadMagic
            | Self::UnsupportedVersion(_)
            | Self::UnsupportedCipherSuite(_)
            | Self::UnsupportedHashAlgorithm(_)
            | Self::InvalidChunkSize(_)
            | Self::InvalidPlaintextSize
            | Self::NonCanonical(_)
            | Self::InvalidWrap(_)
            | Self::UnsupportedWrapType(_)
            | Self::InvalidMetadata(_)
            | Self::NoWraps
            | Self::NoMatchingWrap
            | Self::AuthenticationFailed
            | Self::SignatureMissing
            | Self::SignatureInvalid
            | Self::SignerMismatch
            | Self::HybridRequired
            | Self::KdfBudgetExceeded
            | Self::Sealed
            | Self::InvalidShare(_)
            | Self::InsufficientShares { .. }
            | Self::InvalidChunk(_)
            | Self::InvalidState(_)
            | Self::InvalidOption(_)
            | Self::InvalidManifest(_)
            | Self::ManifestRollback { .. }
            | Self::FounderMismatch
            | Self::ManifestRequired => {}
        }
    }
}

/// Key-log and registry failures also carry `index` (a number, or `null` for
/// a registry fault without one) and `reason` (the fault's code). The match
/// lists every variant.
impl JsCode for MessagingError {
    fn code(&self) -> &'static str {
        Self::code(self)
    }

    fn details(&self, err: &js_sys::Error) {
        let (index, reason) = match self {
            Self::Crypto(inner) => return inner.details(err),
            Self::AuthenticationFailed
            | Self::Malformed(_)
            | Self::InvalidPadding
            | Self::Replay
            | Self::ReplayOutOfWindow
            | Self::InvalidState
            | Self::SasCommitmentMismatch
            | Self::SasNonceReused
            | Self::SasAttemptsExhausted => return,
            Self::KeyLog { index, fault } => (Some(*index), fault.code()),
            Self::Registry { index, fault } => (*index, fault.code()),
        };
        let index = index.map_or(JsValue::NULL, |i| JsValue::from_f64(i as f64));
        set(err, "index", &index);
        set(err, "reason", &JsValue::from_str(reason));
    }
}

/// `TOO_FAR_AHEAD` also carries `jump` and `limit` (key counts),
/// `STATE_ROLLBACK` `counter` and `highestSeen` (numbers; above 2^53 they
/// round). The match lists every variant.
impl JsCode for SessionError {
    fn code(&self) -> &'static str {
        Self::code(self)
    }

    fn details(&self, err: &js_sys::Error) {
        match self {
            Self::Crypto(inner) => inner.details(err),
            Self::TooFarAhead { jump, limit } => {
                set(err, "jump", &JsValue::from_f64(*jump as f64));
                set(err, "limit", &JsValue::from_f64(f64::from(*limit)));
            }
            Self::StateRollback {
                counter,
                highest_seen,
            } => {
                set(err, "counter", &JsValue::from_f64(*counter as f64));
                set(err, "highestSeen", &JsValue::from_f64(*highest_seen as f64));
            }
            Self::AuthenticationFailed
            | Self::Malformed(_)
            | Self::PqIdentityRequired
            | Self::BundleInvalid(_)
            | Self::PrekeyExpired
            | Self::NoCommonVersion
            | Self::VersionDowngrade
            | Self::ReplayDetected
            | Self::IdentityMismatch(_)
            | Self::PrekeyNotFound
            | Self::DuplicateMessage
            | Self::InvalidState(_) => {}
        }
    }
}
