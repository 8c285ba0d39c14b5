//! Native criterion benchmarks of sessions (docs/SESSIONS.md §5.10): the
//! handshake (`initiate` and `respond`, with and without one-time prekeys in
//! the bundle) and the triple ratchet (encrypt + decrypt of 1 KiB in one
//! direction, a direction change with a PQ epoch — encrypt on a new chain
//! with encapsulation + decrypt with decapsulation, both ways — and state
//! save/load). Prints the wire bytes per message and per epoch.
//!
//! `cargo bench -p veilkit --bench session` (add `-- --quick` for a short run;
//! `-- handshake` or `-- session/` for one group).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use veilkit::session::bundle::Bundle;
use veilkit::session::handshake::{LocalDevice, MemoryPrekeyStore, initiate, respond};
use veilkit::session::identity::IdentityKeyPair;
use veilkit::session::prekey::{PrekeyKind, SignedPrekey};
use veilkit::session::ratchet::{Limits, RatchetState};
use veilkit::session::versions::SUPPORTED_VERSIONS;
use veilkit::session::{HandshakeKeys, SessionBinding, VERSION_1};
use veilkit::{hash, mlkem, x25519};
use zeroize::Zeroizing;

const NOW: u64 = 1_700_000_000;
const CREATED: u64 = NOW - 86_400;
const EXPIRES: u64 = NOW + 30 * 86_400;

/// A device: identity, published bundle, prekey secrets.
struct Device {
    identity: IdentityKeyPair,
    device_id: u32,
    bundle: Vec<u8>,
    store: MemoryPrekeyStore,
}

impl Device {
    fn local(&self) -> LocalDevice<'_> {
        LocalDevice {
            identity: &self.identity,
            device_id: self.device_id,
            versions: SUPPORTED_VERSIONS,
        }
    }
}

fn seed(tag: u8, i: u8) -> [u8; 32] {
    hash::sha256(&[b"veilkit-session-bench".as_slice(), &[tag, i]].concat())
}

/// A deterministic device whose bundle offers one-time X25519 and ML-KEM
/// prekeys iff `one_time`.
fn device(tag: u8, device_id: u32, one_time: bool) -> Device {
    let identity =
        IdentityKeyPair::from_seeds(&seed(tag, 1), &seed(tag, 2), &seed(tag, 3)).unwrap();
    let mut store = MemoryPrekeyStore::default();
    let rnd = [0u8; 32];
    let x = |i: u8, kind: PrekeyKind, id: u32, store: &mut MemoryPrekeyStore| {
        let secret = seed(tag, i);
        let public = x25519::x25519_public(&secret).unwrap();
        let p = SignedPrekey::sign_derand(&identity, kind, id, CREATED, EXPIRES, &public, &rnd)
            .unwrap();
        if kind == PrekeyKind::X25519Signed {
            store.add_signed(id, Zeroizing::new(secret));
        } else {
            store.add_one_time(id, Zeroizing::new(secret));
        }
        p
    };
    let k = |i: u8, kind: PrekeyKind, id: u32, store: &mut MemoryPrekeyStore| {
        let mut s64 = [0u8; 64];
        s64[..32].copy_from_slice(&seed(tag, i));
        s64[32..].copy_from_slice(&seed(tag, i.wrapping_add(128)));
        let kp = mlkem::mlkem_from_seed(&s64).unwrap();
        let p = SignedPrekey::sign_derand(
            &identity,
            kind,
            id,
            CREATED,
            EXPIRES,
            &kp.encapsulation_key,
            &rnd,
        )
        .unwrap();
        store.add_mlkem(kind, id, kp.decapsulation_key);
        p
    };
    let signed_prekey = x(10, PrekeyKind::X25519Signed, 7, &mut store);
    let pq_last_resort = k(11, PrekeyKind::MlKemLastResort, 8, &mut store);
    let one_time_x = one_time.then(|| x(12, PrekeyKind::X25519OneTime, 100, &mut store));
    let pq_one_time = one_time.then(|| k(13, PrekeyKind::MlKemOneTime, 200, &mut store));
    let bundle = Bundle {
        identity: identity.public().clone(),
        device_id,
        versions: SUPPORTED_VERSIONS.to_vec(),
        signed_prekey,
        pq_last_resort,
        one_time: one_time_x,
        pq_one_time,
    }
    .to_bytes()
    .unwrap();
    Device {
        identity,
        device_id,
        bundle,
        store,
    }
}

/// `initiate` (bundle parse + both signatures on every prekey verified, the
/// DHs, the ML-KEM encapsulation(s), the KDF) and `respond` (parse, prekey
/// lookup, DHs, decapsulation(s), KDF, confirmation tag), each with and
/// without one-time prekeys. `respond` consumes nothing, so one initial
/// message can be answered repeatedly.
fn handshake(c: &mut Criterion) {
    let mut g = c.benchmark_group("handshake");
    let alice = device(0xa1, 1, false);
    for one_time in [false, true] {
        let bob = device(0xb2, 2, one_time);
        let pinned = Bundle::parse(&bob.bundle).unwrap().identity;
        let label = if one_time {
            "with one-time prekeys"
        } else {
            "without one-time prekeys"
        };
        g.bench_function(format!("initiate ({label})"), |bn| {
            bn.iter(|| {
                initiate(
                    &alice.local(),
                    black_box(&bob.bundle),
                    Some(pinned.encoding()),
                    NOW,
                )
                .unwrap()
            });
        });
        let init = initiate(&alice.local(), &bob.bundle, Some(pinned.encoding()), NOW).unwrap();
        let msg = init.initial_message(b"first ratchet message").unwrap();
        let pinned_alice = alice.identity.public().encoding().to_vec();
        g.bench_function(format!("respond ({label})"), |bn| {
            bn.iter(|| {
                respond(
                    &bob.local(),
                    black_box(&msg),
                    Some(&pinned_alice),
                    &bob.store,
                )
                .unwrap()
            });
        });
    }
    g.finish();
}

fn pair() -> (RatchetState, RatchetState) {
    let keys = || HandshakeKeys {
        root_key: Zeroizing::new([1; 32]),
        chain_key: Zeroizing::new([2; 32]),
        pq_root_0: Zeroizing::new([3; 32]),
    };
    // Identity encodings of realistic size (flags ‖ Ed25519 ‖ ML-DSA-65 ‖ X25519).
    let binding = SessionBinding {
        version: VERSION_1,
        initiator_identity: vec![0xa1; 1 + 32 + 1952 + 32],
        responder_identity: vec![0xb2; 1 + 32 + 1952 + 32],
    };
    let spk = [0x5a; 32];
    let mut rng = veilkit::rng::fill;
    let a = RatchetState::new_initiator(
        keys(),
        binding.clone(),
        x25519::x25519_public(&spk).unwrap(),
        Limits::default(),
        &mut rng,
    )
    .unwrap();
    let b = RatchetState::new_responder(keys(), binding, Zeroizing::new(spk), Limits::default())
        .unwrap();
    (a, b)
}

/// A pair after one round trip (steady state).
fn warm_pair() -> (RatchetState, RatchetState) {
    let (mut a, mut b) = pair();
    let mut rng = veilkit::rng::fill;
    let m = a.encrypt(b"hi", b"", &mut rng).unwrap();
    b = b.decrypt(&m, b"", NOW).unwrap().0;
    let r = b.encrypt(b"hi", b"", &mut rng).unwrap();
    a = a.decrypt(&r, b"", NOW).unwrap().0;
    (a, b)
}

fn session(c: &mut Criterion) {
    let mut g = c.benchmark_group("session");
    let pt = [0x42u8; 1024];
    let mut rng = veilkit::rng::fill;

    let (mut a, mut b) = warm_pair();
    // Start A's chain outside the loop so the loop measures one direction only.
    let m = a.encrypt(&pt, b"", &mut rng).unwrap();
    b = b.decrypt(&m, b"", NOW).unwrap().0;
    g.bench_function("encrypt+decrypt 1 KiB (one direction)", |bn| {
        bn.iter(|| {
            let m = a.encrypt(black_box(&pt), b"", &mut rng).unwrap();
            b = b.decrypt(&m, b"", NOW).unwrap().0;
        });
    });
    let steady = a.encrypt(&pt, b"", &mut rng).unwrap();

    let (mut a, mut b) = warm_pair();
    g.bench_function("direction change with a PQ epoch (A->B, B->A)", |bn| {
        bn.iter(|| {
            let m = a.encrypt(black_box(b"x"), b"", &mut rng).unwrap();
            b = b.decrypt(&m, b"", NOW).unwrap().0;
            let r = b.encrypt(black_box(b"y"), b"", &mut rng).unwrap();
            a = a.decrypt(&r, b"", NOW).unwrap().0;
        });
    });

    let (a, b) = warm_pair();
    let bytes = a.to_bytes();
    g.bench_function("state to_bytes", |bn| bn.iter(|| black_box(&a).to_bytes()));
    g.bench_function("state from_bytes", |bn| {
        bn.iter(|| RatchetState::from_bytes(black_box(&bytes)).unwrap())
    });
    // B after its reply holds its own ek_2 (and dk) until A's ct_2 arrives.
    let pending = b.to_bytes();
    g.bench_function("state from_bytes (own ML-KEM ek pending)", |bn| {
        bn.iter(|| RatchetState::from_bytes(black_box(&pending)).unwrap())
    });
    g.finish();

    let (mut a, mut b) = pair();
    let first = a.encrypt(b"hi", b"", &mut rng).unwrap();
    b = b.decrypt(&first, b"", NOW).unwrap().0;
    let reply = b.encrypt(b"hi", b"", &mut rng).unwrap();
    println!(
        "wire bytes: 1 KiB plaintext -> {} bytes (steady state, ct+ek attached); short message: initiator's first chain {} (ek), later {} (ct+ek); \
         PQ data per epoch 1184 + 1088 = 2272 bytes, retransmitted on every message until the peer's reply; serialized state {} bytes ({} with the own ek pending)",
        steady.len(),
        first.len(),
        reply.len(),
        bytes.len(),
        pending.len()
    );
}

criterion_group!(benches, handshake, session);
criterion_main!(benches);
