//! Entry points of the session-handshake fuzz targets (`fuzz/fuzz_targets/session_bundle.rs`,
//! `fuzz/fuzz_targets/session_initial_message.rs`) and of their corpus replay in `cargo test`
//! (`crate/tests/fuzz_corpus_replay.rs`), included in both with `#[path]`.
//!
//! Each entry returns `Err` only when an invariant is broken, never for merely
//! invalid input. Invariants: the parsers are total; what parses re-encodes to
//! the same bytes (canonical); bundle verification never panics; `respond`
//! never panics, and accepts only inputs that parse and re-encode identically.
//! The responder's keys are fixed (constant seeds), so the seed corpus made by
//! [`seed_corpus`] stays valid.
#![allow(dead_code)]

use std::sync::OnceLock;

use veilkit::session::bundle::Bundle;
use veilkit::session::handshake::{InitialMessage, LocalDevice, MemoryPrekeyStore, initiate_derand, respond};
use veilkit::session::identity::IdentityKeyPair;
use veilkit::session::prekey::{PrekeyKind, SignedPrekey};
use veilkit::session::versions::SUPPORTED_VERSIONS;
use veilkit::{mlkem, x25519};

/// An entry point: `Err` names the broken invariant.
pub type Entry = fn(&[u8]) -> Result<(), &'static str>;

/// Every session-handshake target, by name.
pub const TARGETS: [(&str, Entry); 2] = [("session_bundle", bundle), ("session_initial_message", initial_message)];

/// The time at which the corpus bundles are verified.
pub const NOW: u64 = 1_700_086_400;
const CREATED: u64 = 1_700_000_000;
const EXPIRES: u64 = 1_702_592_000;
const RESPONDER_DEVICE: u32 = 2;
const INITIATOR_DEVICE: u32 = 1;

struct Responder {
    identity: IdentityKeyPair,
    store: MemoryPrekeyStore,
    bundle_plain: Vec<u8>,
    bundle_one_time: Vec<u8>,
}

fn responder() -> Option<&'static Responder> {
    static R: OnceLock<Option<Responder>> = OnceLock::new();
    R.get_or_init(|| {
        let identity = IdentityKeyPair::from_seeds(&[0x31; 32], &[0x32; 32], &[0x33; 32]).ok()?;
        let mut store = MemoryPrekeyStore::default();
        let rnd = [0u8; 32];
        let spk_secret = [0x34u8; 32];
        let spk = SignedPrekey::sign_derand(&identity, PrekeyKind::X25519Signed, 7, CREATED, EXPIRES, &x25519::x25519_public(&spk_secret).ok()?, &rnd).ok()?;
        store.add_signed(7, spk_secret.into());
        let opk_secret = [0x35u8; 32];
        let opk = SignedPrekey::sign_derand(&identity, PrekeyKind::X25519OneTime, 100, CREATED, EXPIRES, &x25519::x25519_public(&opk_secret).ok()?, &rnd).ok()?;
        store.add_one_time(100, opk_secret.into());
        let kem = mlkem::mlkem_from_seed(&[0x36; 64]).ok()?;
        let pq = SignedPrekey::sign_derand(&identity, PrekeyKind::MlKemLastResort, 8, CREATED, EXPIRES, &kem.encapsulation_key, &rnd).ok()?;
        store.add_mlkem(PrekeyKind::MlKemLastResort, 8, kem.decapsulation_key);
        let mut bundle = Bundle {
            identity: identity.public().clone(),
            device_id: RESPONDER_DEVICE,
            versions: SUPPORTED_VERSIONS.to_vec(),
            signed_prekey: spk,
            pq_last_resort: pq,
            one_time: None,
            pq_one_time: None,
        };
        let bundle_plain = bundle.to_bytes().ok()?;
        bundle.one_time = Some(opk);
        let bundle_one_time = bundle.to_bytes().ok()?;
        Some(Responder { identity, store, bundle_plain, bundle_one_time })
    })
    .as_ref()
}

fn local(r: &Responder) -> LocalDevice<'_> {
    LocalDevice { identity: &r.identity, device_id: RESPONDER_DEVICE, versions: SUPPORTED_VERSIONS }
}

/// Bundle bytes: parse, re-encode, verify.
///
/// # Errors
/// The broken invariant.
pub fn bundle(data: &[u8]) -> Result<(), &'static str> {
    let Ok(b) = Bundle::parse(data) else {
        return Ok(());
    };
    if b.to_bytes().ok().as_deref() != Some(data) {
        return Err("a parsed bundle does not re-encode to its bytes");
    }
    let _ = b.verify(None, NOW);
    Ok(())
}

/// Initial-message bytes: parse, re-encode, respond with the fixed responder.
///
/// # Errors
/// The broken invariant.
pub fn initial_message(data: &[u8]) -> Result<(), &'static str> {
    let parsed = InitialMessage::parse(data);
    if let Ok(m) = &parsed
        && m.to_bytes().ok().as_deref() != Some(data)
    {
        return Err("a parsed initial message does not re-encode to its bytes");
    }
    let Some(r) = responder() else {
        return Err("fixed responder keys");
    };
    if respond(&local(r), data, None, &r.store).is_ok() && parsed.is_err() {
        return Err("respond accepted an initial message that does not parse");
    }
    Ok(())
}

/// Seed corpus files `(target, file name, bytes)`: `valid_*` accepted by
/// [`accepts`], `invalid_*` rejected.
#[must_use]
pub fn seed_corpus() -> Vec<(&'static str, String, Vec<u8>)> {
    let mut out = Vec::new();
    let Some(r) = responder() else {
        return out;
    };
    let mut add = |target: &'static str, name: &str, bytes: Vec<u8>| out.push((target, name.to_owned(), bytes));
    add("session_bundle", "valid_plain.bin", r.bundle_plain.clone());
    add("session_bundle", "valid_one_time.bin", r.bundle_one_time.clone());
    let cut = |b: &[u8], n: usize| b.get(..b.len().saturating_sub(n)).unwrap_or_default().to_vec();
    add("session_bundle", "invalid_truncated.bin", cut(&r.bundle_plain, 1));
    let mut trailing = r.bundle_plain.clone();
    trailing.push(0);
    add("session_bundle", "invalid_trailing.bin", trailing);
    let mut sig = r.bundle_plain.clone();
    if let Some(b) = sig.get_mut(2100) {
        *b ^= 1;
    }
    add("session_bundle", "invalid_signature.bin", sig);

    let Ok(initiator) = IdentityKeyPair::from_seeds(&[0x41; 32], &[0x42; 32], &[0x43; 32]) else {
        return out;
    };
    let a = LocalDevice { identity: &initiator, device_id: INITIATOR_DEVICE, versions: SUPPORTED_VERSIONS };
    for (name, bundle, first) in [
        ("plain", &r.bundle_plain, b"".as_slice()),
        ("one_time", &r.bundle_one_time, b"first message slot".as_slice()),
    ] {
        let Ok(init) = initiate_derand(&a, bundle, None, NOW, &[0x44; 32], &[0x45; 32]) else {
            continue;
        };
        let Ok(msg) = init.initial_message(first) else {
            continue;
        };
        add("session_initial_message", &format!("valid_{name}.bin"), msg.clone());
        if name == "plain" {
            add("session_initial_message", "invalid_truncated.bin", cut(&msg, 1));
            let mut tag = msg.clone();
            if let Some(b) = tag.last_mut() {
                *b ^= 1;
            }
            add("session_initial_message", "invalid_tag.bin", tag);
            let mut ct = msg.clone();
            if let Some(b) = ct.get_mut(msg.len().saturating_sub(32 + 4 + 100)) {
                *b ^= 1;
            }
            add("session_initial_message", "invalid_ciphertext.bin", ct);
        }
    }
    out
}

/// Whether `target` accepts `data`: a bundle that parses and verifies at
/// [`NOW`]; an initial message the fixed responder answers.
#[must_use]
pub fn accepts(target: &str, data: &[u8]) -> bool {
    match target {
        "session_bundle" => Bundle::parse(data).and_then(|b| b.verify(None, NOW)).is_ok(),
        "session_initial_message" => responder().is_some_and(|r| respond(&local(r), data, None, &r.store).is_ok()),
        _ => false,
    }
}
