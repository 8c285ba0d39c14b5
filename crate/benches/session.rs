//! Native criterion benchmarks of the triple ratchet (docs/SESSIONS.md §5):
//! encrypt + decrypt of 1 KiB in one direction, a direction change with a
//! PQ epoch (encrypt on a new chain with encapsulation + decrypt with
//! decapsulation, both ways), and state save/load. Prints the wire bytes
//! per message and per epoch.
//!
//! `cargo bench -p veilkit --bench session` (add `-- --quick` for a short run).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use veilkit::session::ratchet::{Limits, RatchetState};
use veilkit::session::{HandshakeKeys, SessionBinding, VERSION_1};
use veilkit::x25519;
use zeroize::Zeroizing;

const NOW: u64 = 1_700_000_000;

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
    let a = RatchetState::new_initiator(keys(), binding.clone(), x25519::x25519_public(&spk).unwrap(), Limits::default(), &mut rng)
        .unwrap();
    let b = RatchetState::new_responder(keys(), binding, Zeroizing::new(spk), Limits::default()).unwrap();
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

    let (a, _) = warm_pair();
    let bytes = a.to_bytes();
    g.bench_function("state to_bytes", |bn| bn.iter(|| black_box(&a).to_bytes()));
    g.bench_function("state from_bytes", |bn| bn.iter(|| RatchetState::from_bytes(black_box(&bytes)).unwrap()));
    g.finish();

    let (mut a, mut b) = pair();
    let first = a.encrypt(b"hi", b"", &mut rng).unwrap();
    b = b.decrypt(&first, b"", NOW).unwrap().0;
    let reply = b.encrypt(b"hi", b"", &mut rng).unwrap();
    println!(
        "wire bytes: 1 KiB plaintext -> {} bytes (steady state, ct+ek attached); short message: initiator's first chain {} (ek), later {} (ct+ek); \
         PQ data per epoch 1184 + 1088 = 2272 bytes, retransmitted on every message until the peer's reply; serialized state {} bytes",
        steady.len(),
        first.len(),
        reply.len(),
        bytes.len()
    );
}

criterion_group!(benches, session);
criterion_main!(benches);
