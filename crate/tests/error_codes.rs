//! One error model, end to end: the codes the Rust error enums can produce
//! (each enum's `CODES`, generated from the same list as its `code()`) are
//! exactly the TypeScript `VEIL_ERROR_CODES` (protocol/errors.ts) minus the codes
//! only the TypeScript layer raises, listed below with their reason; the
//! key-log and registry fault codes are exactly the TypeScript failure-reason
//! unions (ts/messaging/key-log.ts, ts/messaging/registry.ts).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::collections::BTreeSet;
use std::path::Path;

use veilkit::CryptoError;
use veilkit::container::ContainerError;
use veilkit::messaging::{KeyLogFault, MessagingError, RegistryFault};
use veilkit::session::SessionError;

#[cfg(feature = "group")]
use veilkit::group::GroupError;
#[cfg(not(feature = "group"))]
use veilkit::group_error::GroupError;

/// Codes no Rust enum produces, each with the TypeScript code that raises it.
const TS_ONLY: &[(&str, &str)] = &[
    (
        "NOT_INITIALIZED",
        "facade: a call before init() (ts/init.ts)",
    ),
    (
        "UNSUPPORTED_PLATFORM",
        "facade: no WebAssembly / WebCrypto / worker support",
    ),
    (
        "WASM_PANIC",
        "facade: a WebAssembly trap, turned into an error by toVeilError",
    ),
    (
        "WORKER_START_FAILED",
        "ts/pool.ts: a worker that failed to load or did not report ready in time",
    ),
    (
        "ABORTED",
        "ts/react/errors.ts: a hook's job or conversation cancelled, reset or unmounted",
    ),
    (
        "TRANSPORT_FAILED",
        "ts/react/chat.ts: the app's ChatTransport.send threw or rejected",
    ),
    ("KEYSTORE_LOCKED", "keystore worker (IndexedDB, TS only)"),
    ("KEY_NOT_FOUND", "keystore worker"),
    ("KEY_EXISTS", "keystore worker"),
    ("INVALID_BACKUP", "keystore backup import (worker/keystore)"),
    ("STORAGE_VERSION_MISMATCH", "keystore database migrations"),
    ("STORAGE_QUOTA_EXCEEDED", "keystore: IndexedDB quota error"),
    ("STORAGE_UNSUPPORTED", "keystore: no IndexedDB"),
    ("STORAGE_FAILED", "keystore: any other IndexedDB failure"),
    (
        "TOP_LEVEL_REQUIRED",
        "isolated-origin keystore: export (or an ungated passphrase change or deletion) asked for by the embedding page",
    ),
    (
        "KEYSTORE_UNAVAILABLE",
        "isolated-origin keystore: the frame did not answer the handshake",
    ),
    (
        "RATE_LIMITED",
        "isolated-origin keystore: the embedding page's key uses over the frame's rate limit",
    ),
    (
        "SIZE_MISMATCH",
        "ts/files/encrypt.ts: a stream shorter or longer than its declared size",
    ),
    (
        "READ_FAILED",
        "ts/bytes.ts readBlob: the browser refused to read a Blob",
    ),
];

fn repo_file(path: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The single-quoted string literals of `text` between `start` and the first `end` after it.
fn literals(text: &str, start: &str, end: &str) -> Vec<String> {
    let from = text
        .find(start)
        .unwrap_or_else(|| panic!("{start:?} not found"))
        + start.len();
    let body = &text[from..];
    let body = &body[..body
        .find(end)
        .unwrap_or_else(|| panic!("{end:?} not found after {start:?}"))];
    let code_only: String = body
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let parts: Vec<&str> = code_only.split('\'').collect();
    assert!(parts.len() % 2 == 1, "unbalanced quotes after {start:?}");
    parts
        .iter()
        .skip(1)
        .step_by(2)
        .map(|s| (*s).to_owned())
        .collect()
}

fn set(codes: &[&str]) -> BTreeSet<String> {
    codes.iter().map(|c| (*c).to_owned()).collect()
}

fn distinct(what: &str, codes: &[String]) -> BTreeSet<String> {
    let s: BTreeSet<String> = codes.iter().cloned().collect();
    assert_eq!(s.len(), codes.len(), "{what} lists a code twice: {codes:?}");
    s
}

#[test]
fn rust_codes_and_ts_codes_are_the_same_list() {
    let mut rust = BTreeSet::new();
    for codes in [
        CryptoError::CODES,
        ContainerError::CODES,
        MessagingError::CODES,
        SessionError::CODES,
        GroupError::CODES,
    ] {
        rust.extend(set(codes));
    }
    let ts = distinct(
        "VEIL_ERROR_CODES",
        &literals(
            &repo_file("protocol/errors.ts"),
            "export const VEIL_ERROR_CODES = [",
            "] as const;",
        ),
    );
    let ts_only: BTreeSet<String> = TS_ONLY.iter().map(|(c, _)| (*c).to_owned()).collect();
    assert_eq!(ts_only.len(), TS_ONLY.len(), "TS_ONLY lists a code twice");

    let missing_in_ts: Vec<_> = rust.difference(&ts).collect();
    assert!(
        missing_in_ts.is_empty(),
        "Rust codes missing from VEIL_ERROR_CODES: {missing_in_ts:?}"
    );
    let stale_ts_only: Vec<_> = ts_only.intersection(&rust).collect();
    assert!(
        stale_ts_only.is_empty(),
        "listed as TS-only but a Rust enum produces them: {stale_ts_only:?}"
    );
    let unexplained: Vec<_> = ts
        .iter()
        .filter(|c| !rust.contains(*c) && !ts_only.contains(*c))
        .collect();
    assert!(
        unexplained.is_empty(),
        "VEIL_ERROR_CODES without a Rust enum or a TS_ONLY reason: {unexplained:?}"
    );
    let gone: Vec<_> = ts_only.difference(&ts).collect();
    assert!(
        gone.is_empty(),
        "TS_ONLY codes no longer in VEIL_ERROR_CODES: {gone:?}"
    );
    for c in &ts {
        assert!(
            c.chars().all(|ch| ch.is_ascii_uppercase() || ch == '_'),
            "{c}"
        );
    }
}

#[test]
fn fault_codes_are_the_ts_failure_reasons() {
    let key_log_ts = repo_file("ts/messaging/key-log.ts");
    let registry_ts = repo_file("ts/messaging/registry.ts");
    let key_log = distinct(
        "KeyLogFailureReason",
        &literals(&key_log_ts, "export type KeyLogFailureReason =", ";"),
    );
    assert_eq!(key_log, set(KeyLogFault::CODES));
    let registry = distinct(
        "RegistryFailureReason",
        &literals(&registry_ts, "export type RegistryFailureReason =", ";"),
    );
    assert_eq!(registry, set(RegistryFault::CODES));
}

/// One value of every `ContainerError` variant (what the browser test's
/// `containerErrorSamples` export covered): each code is in `CODES` and every
/// code of `CODES` has a sample, so every variant reaches a TS-known code.
#[test]
fn every_container_variant_has_a_listed_code() {
    let samples = [
        ContainerError::Truncated {
            needed: 100,
            got: 10,
        },
        ContainerError::TrailingBytes,
        ContainerError::BadMagic,
        ContainerError::UnsupportedVersion(9),
        ContainerError::UnsupportedCipherSuite(9),
        ContainerError::UnsupportedHashAlgorithm(9),
        ContainerError::InvalidChunkSize(1),
        ContainerError::InvalidPlaintextSize,
        ContainerError::NonCanonical("sample"),
        ContainerError::InvalidWrap("sample"),
        ContainerError::UnsupportedWrapType(2),
        ContainerError::InvalidMetadata("sample"),
        ContainerError::NoWraps,
        ContainerError::NoMatchingWrap,
        ContainerError::AuthenticationFailed,
        ContainerError::SignatureMissing,
        ContainerError::SignatureInvalid,
        ContainerError::SignerMismatch,
        ContainerError::HybridRequired,
        ContainerError::KdfBudgetExceeded,
        ContainerError::Sealed,
        ContainerError::InvalidShare("sample"),
        ContainerError::InsufficientShares { have: 1, need: 2 },
        ContainerError::InvalidChunk("sample"),
        ContainerError::InvalidState("sample"),
        ContainerError::InvalidOption("sample"),
        ContainerError::InvalidManifest("sample"),
        ContainerError::ManifestRollback { pinned: 2, head: 1 },
        ContainerError::FounderMismatch,
        ContainerError::ManifestRequired,
    ];
    let got: BTreeSet<String> = samples.iter().map(|e| e.code().to_owned()).collect();
    assert_eq!(got, set(ContainerError::CODES));
    assert_eq!(samples.len(), ContainerError::CODES.len());
    let wrapped = ContainerError::Crypto(CryptoError::InvalidKey("sample"));
    assert_eq!(wrapped.code(), "INVALID_KEY");
    assert!(CryptoError::CODES.contains(&wrapped.code()));
    assert_eq!(samples[0].to_string(), "truncated: need 100 bytes, got 10");
}

#[test]
fn every_crypto_messaging_and_session_variant_has_a_listed_code() {
    let crypto = [
        CryptoError::length("x", "1 byte", 0),
        CryptoError::InvalidParameter("x"),
        CryptoError::InvalidKey("x"),
        CryptoError::WeakKey,
        CryptoError::AuthenticationFailed,
        CryptoError::InvalidSignature,
        CryptoError::InvalidMnemonic("x"),
        CryptoError::InvalidShares("x"),
        CryptoError::RandomnessUnavailable,
    ];
    let got: BTreeSet<String> = crypto.iter().map(|e| e.code().to_owned()).collect();
    assert_eq!(got, set(CryptoError::CODES));
    let sessions = [
        SessionError::AuthenticationFailed,
        SessionError::Malformed("x"),
        // handshake
        SessionError::PqIdentityRequired,
        SessionError::BundleInvalid("x"),
        SessionError::PrekeyExpired,
        SessionError::NoCommonVersion,
        SessionError::VersionDowngrade,
        SessionError::ReplayDetected,
        SessionError::IdentityMismatch("x"),
        SessionError::PrekeyNotFound,
        // triple ratchet
        SessionError::TooFarAhead {
            jump: 2001,
            limit: 2000,
        },
        SessionError::DuplicateMessage,
        SessionError::InvalidState("x"),
        SessionError::StateRollback {
            counter: 1,
            highest_seen: 2,
        },
    ];
    let got: BTreeSet<String> = sessions.iter().map(|e| e.code().to_owned()).collect();
    assert_eq!(got, set(SessionError::CODES));
    assert_eq!(
        SessionError::Crypto(CryptoError::WeakKey).code(),
        "WEAK_KEY"
    );
    // MessagingError: crate/src/messaging/error.rs `codes_are_stable` lists every variant.
    assert_eq!(MessagingError::CODES.len(), 11);
}
