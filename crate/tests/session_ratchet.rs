//! Properties of the triple ratchet (`veilkit::session::ratchet`, docs/SESSIONS.md §5),
//! each test named after the property it checks. The two states are built
//! from a shared test `HandshakeKeys` and a signed-prekey key pair (the
//! handshake has its own tests); randomness is injected and deterministic
//! unless a test needs the platform generator.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod session_util;

use session_util::{NOW, TestRng, pair, pair_with, recv, send, snap, with_coefficient};
use veilkit::aead::{aes_gcm_decrypt_with_iv, aes_gcm_encrypt_with_iv};
use veilkit::hash::hmac_sha256;
use veilkit::kdf::hkdf_sha256;
use veilkit::mlkem::{CT_LEN, DK_LEN, EK_LEN, SEED_LEN};
use veilkit::session::ratchet::{
    Header, Limits, MK_LABEL, Message, PqField, PqPhase, RatchetState, header,
};
use veilkit::session::{SessionBinding, SessionError, VERSION_1};
use veilkit::x25519::x25519_public;
use zeroize::Zeroizing;

fn err<T>(r: Result<T, SessionError>) -> SessionError {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    }
}

#[test]
fn both_sides_derive_identical_keys_in_both_directions() {
    let mut rng = TestRng::new(1);
    let (mut a, mut b) = pair(&mut rng);
    for round in 0..6u8 {
        for i in 0..3u8 {
            let m = send(&mut a, &mut rng, &[round, i, 0xaa]);
            assert_eq!(recv(&mut b, &m), vec![round, i, 0xaa]);
        }
        for i in 0..2u8 {
            let m = send(&mut b, &mut rng, &[round, i, 0xbb]);
            assert_eq!(recv(&mut a, &m), vec![round, i, 0xbb]);
        }
    }
    // Every direction change advanced one PQ epoch: A sent in 0, 2, …, 10, B in 1, 3, …, 11.
    assert_eq!(a.pq_epoch(), 11);
    assert_eq!(b.pq_epoch(), 11);
    // Empty and long plaintexts; the aad must match.
    let m = a.encrypt(b"", b"ctx", &mut rng).unwrap();
    assert_eq!(b.decrypt(&m, b"ctx", NOW).unwrap().1.to_vec(), b"".to_vec());
    let long = vec![7u8; 70_000];
    let m = a.encrypt(&long, b"", &mut rng).unwrap();
    assert_eq!(b.decrypt(&m, b"", NOW).unwrap().1.to_vec(), long);
}

#[test]
fn responder_cannot_send_before_its_first_message() {
    let mut rng = TestRng::new(2);
    let (_, mut b) = pair(&mut rng);
    let before = snap(&b);
    assert_eq!(err(b.encrypt(b"x", b"", &mut rng)).code(), "INVALID_STATE");
    assert_eq!(snap(&b), before);
}

#[test]
fn wrong_aad_fails_and_leaves_state_usable() {
    let mut rng = TestRng::new(3);
    let (mut a, b) = pair(&mut rng);
    let m = a.encrypt(b"hi", b"aad-1", &mut rng).unwrap();
    assert_eq!(
        err(b.decrypt(&m, b"aad-2", NOW)),
        SessionError::AuthenticationFailed
    );
    assert_eq!(
        b.decrypt(&m, b"aad-1", NOW).unwrap().1.to_vec(),
        b"hi".to_vec()
    );
}

#[test]
fn every_message_binds_both_identities_through_their_hash() {
    // The AD layout of §5.2, built by hand: label ‖ version ‖
    // SHA-256(Enc(ID_init) ‖ Enc(ID_resp)) ‖ lp(header) ‖ lp(aad).
    let b = session_util::binding();
    let h_id = header::identities_hash(&b);
    let both = [b.initiator_identity.clone(), b.responder_identity.clone()].concat();
    assert_eq!(h_id, veilkit::hash::sha256(&both));
    let (hdr, aad) = (b"header bytes".as_slice(), b"user aad".as_slice());
    let mut expected = b"veilkit-session-v1".to_vec();
    expected.push(1);
    expected.extend_from_slice(&h_id);
    expected.extend_from_slice(&12u32.to_be_bytes());
    expected.extend_from_slice(hdr);
    expected.extend_from_slice(&8u32.to_be_bytes());
    expected.extend_from_slice(aad);
    assert_eq!(
        header::associated_data(1, &h_id, hdr, aad).unwrap(),
        expected
    );

    // A receiver whose binding differs in one identity byte, or has the two
    // identities swapped, cannot authenticate the message; the genuine one can.
    let mut rng = TestRng::new(0x1d);
    let (mut a, genuine) = pair(&mut rng);
    let m = a.encrypt(b"bound", b"", &mut rng).unwrap();
    let responder = |binding: SessionBinding| {
        RatchetState::new_responder(
            session_util::keys(),
            binding,
            Zeroizing::new(session_util::SPK_SECRET),
            Limits::default(),
        )
        .unwrap()
    };
    let mut flipped = session_util::binding();
    flipped.responder_identity[63] ^= 1;
    let mut swapped = session_util::binding();
    core::mem::swap(
        &mut swapped.initiator_identity,
        &mut swapped.responder_identity,
    );
    for other in [flipped, swapped] {
        assert_eq!(
            err(responder(other).decrypt(&m, b"", NOW)),
            SessionError::AuthenticationFailed
        );
    }
    assert_eq!(
        genuine.decrypt(&m, b"", NOW).unwrap().1.to_vec(),
        b"bound".to_vec()
    );
}

#[test]
fn forward_secrecy_old_state_cannot_decrypt_new_traffic() {
    let mut rng = TestRng::new(4);
    let (mut a, mut b) = pair(&mut rng);
    let m0 = send(&mut a, &mut rng, b"m0");
    let b_old = b.clone();
    recv(&mut b, &m0);
    let r0 = send(&mut b, &mut rng, b"r0");
    recv(&mut a, &r0);
    let m1 = send(&mut a, &mut rng, b"m1");
    // The state from before the round trip holds no key of the new chain.
    assert!(b_old.decrypt(&m1, b"", NOW).is_err());
    assert_eq!(recv(&mut b, &m1), b"m1".to_vec());
    // A used message key cannot be recomputed from the later state (live or restored).
    assert_eq!(
        err(b.decrypt(&m1, b"", NOW)),
        SessionError::DuplicateMessage
    );
    let restored = RatchetState::from_bytes(&b.to_bytes()).unwrap();
    assert_eq!(
        err(restored.decrypt(&m1, b"", NOW)),
        SessionError::DuplicateMessage
    );
    // m0's chain is closed with no keys left; it stays as a record, so this is a known replay.
    assert_eq!(
        err(restored.decrypt(&m0, b"", NOW)),
        SessionError::DuplicateMessage
    );
}

/// Follows `real`'s operations on a clone from a snapshot with its own
/// randomness and reports whether the clone reads `peer_msg`.
fn attacker_reads(snapshot: &[u8], rng: &mut TestRng, sends: usize, peer_msg: &[u8]) -> bool {
    let mut clone = RatchetState::from_bytes(snapshot).unwrap();
    for _ in 0..sends {
        clone.encrypt(b"x", b"", rng).unwrap();
    }
    clone.decrypt(peer_msg, b"", NOW).is_ok()
}

#[test]
fn post_compromise_recovery_after_one_round_trip_needs_both_halves() {
    let (dh, kem, nonce) = (10, 11, 12);
    let mut rng_a = TestRng::with_seeds(dh, kem, nonce);
    let mut rng_b = TestRng::new(13);
    let (mut a, mut b) = pair_with(&mut rng_a, Limits::default());
    for _ in 0..2 {
        let m = send(&mut a, &mut rng_a, b"a");
        recv(&mut b, &m);
        let r = send(&mut b, &mut rng_b, b"b");
        recv(&mut a, &r);
    }
    // Compromise: the attacker copies A's whole state and A's randomness
    // counters (the seeds model what it may additionally learn later).
    assert_eq!(a.pq_phase(), PqPhase::PeerEkPending);
    let snapshot = snap(&a);
    let rng_at_compromise = rng_a.clone();
    let m1 = send(&mut a, &mut rng_a, b"after compromise");
    recv(&mut b, &m1);
    let r1 = send(&mut b, &mut rng_b, b"healed");
    assert_eq!(recv(&mut a, &r1), b"healed".to_vec());
    // Sanity: with every secret A drew after the compromise, the clone reads r1.
    let mut all = rng_at_compromise.clone();
    assert!(attacker_reads(&snapshot, &mut all, 1, &r1));
    // Handed the DH secrets (X25519 broken) but not the ML-KEM randomness: no.
    let mut dh_only = rng_at_compromise.clone();
    dh_only.kem_seed ^= 0xff;
    assert!(!attacker_reads(&snapshot, &mut dh_only, 1, &r1));
    // Handed the ML-KEM randomness but not the DH secrets: no.
    let mut kem_only = rng_at_compromise.clone();
    kem_only.dh_seed ^= 0xff;
    assert!(!attacker_reads(&snapshot, &mut kem_only, 1, &r1));
}

#[test]
fn out_of_order_within_limits_decrypts_each_exactly_once() {
    let mut rng = TestRng::new(20);
    let (mut a, mut b) = pair(&mut rng);
    // Two chains of A (epochs 0 and 2), with a direction change in between.
    let mut msgs: Vec<(u32, Vec<u8>)> = (0..20u32)
        .map(|i| (i, send(&mut a, &mut rng, &i.to_be_bytes())))
        .collect();
    recv(&mut b, &msgs.remove(7).1);
    let r = send(&mut b, &mut rng, b"r");
    recv(&mut a, &r);
    msgs.extend((20..40u32).map(|i| (i, send(&mut a, &mut rng, &i.to_be_bytes()))));
    // Deterministic shuffle.
    let mut x = 7u64;
    for i in (1..msgs.len()).rev() {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        msgs.swap(i, (x >> 33) as usize % (i + 1));
    }
    for (i, m) in &msgs {
        assert_eq!(recv(&mut b, m), i.to_be_bytes().to_vec());
        assert_eq!(err(b.decrypt(m, b"", NOW)), SessionError::DuplicateMessage);
    }
    assert_eq!(b.skipped_keys(), 0);
}

/// One chain of A with a message left undelivered, then a reply: A sends
/// `first` and `late` on a new chain, B reads only `first`, B replies and A
/// reads the reply (two direction changes). Returns `late`.
fn chain_with_a_late_message(
    a: &mut RatchetState,
    b: &mut RatchetState,
    rng: &mut TestRng,
    tag: u8,
) -> Vec<u8> {
    let first = send(a, rng, &[tag, 0]);
    let late = send(a, rng, &[tag, 1]);
    assert_eq!(recv(b, &first), vec![tag, 0]);
    let r = send(b, rng, &[tag, 2]);
    assert_eq!(recv(a, &r), vec![tag, 2]);
    late
}

/// `m` decrypts once (to `want`, committing) and is a replay afterwards; the
/// PQ epoch and phase are those of the newest chain, whatever the message's epoch.
fn decrypts_exactly_once(b: &mut RatchetState, m: &[u8], want: &[u8]) {
    let (epoch, phase) = (b.pq_epoch(), b.pq_phase());
    assert_eq!(recv(b, m), want.to_vec());
    assert_eq!(err(b.decrypt(m, b"", NOW)), SessionError::DuplicateMessage);
    assert_eq!((b.pq_epoch(), b.pq_phase()), (epoch, phase));
}

/// Issue 34 item 8: the receiving window is `max_receiving_chains` peer
/// chains (default 5), not the two newest peer epochs. Every direction change
/// is a new epoch, so a message delayed across four direction changes is three
/// epochs old (before the fix it was dropped with its epoch and failed
/// `AUTHENTICATION_FAILED`).
#[test]
fn a_message_delayed_across_four_direction_changes_decrypts_exactly_once() {
    let mut rng = TestRng::new(28);
    let (mut a, mut b) = pair(&mut rng);
    assert_eq!(Limits::default().max_receiving_chains, 5);
    let late: Vec<Vec<u8>> = (0..3u8)
        .map(|tag| chain_with_a_late_message(&mut a, &mut b, &mut rng, tag))
        .collect();
    // late[0] (epoch 0) was sent before B→A, A→B, B→A, A→B: B is at epoch 5,
    // its newest chain of A in epoch 4.
    assert_eq!(b.pq_epoch(), 5);
    assert_eq!(
        Message::parse(&late[0]).unwrap().header.epoch,
        0,
        "three epochs behind A's newest chain"
    );
    decrypts_exactly_once(&mut b, &late[0], &[0, 1]);
    assert_eq!(b.receiving_chains(), 3);
    // Two more round trips: five chains of A held, the oldest one's message
    // now delayed across eight direction changes.
    let more: Vec<Vec<u8>> = (3..5u8)
        .map(|tag| chain_with_a_late_message(&mut a, &mut b, &mut rng, tag))
        .collect();
    assert_eq!(b.receiving_chains(), 5);
    // Newest first, the oldest last: each once.
    for (tag, m) in [(4u8, &more[1]), (3, &more[0]), (2, &late[2]), (1, &late[1])] {
        decrypts_exactly_once(&mut b, m, &[tag, 1]);
    }
    assert_eq!(b.skipped_keys(), 0);
    // Both sides still agree, and the state round-trips with five chains of five epochs.
    for i in 0..2u8 {
        let m = send(&mut a, &mut rng, &[i]);
        assert_eq!(recv(&mut b, &m), vec![i]);
        let r = send(&mut b, &mut rng, &[i, i]);
        assert_eq!(recv(&mut a, &r), vec![i, i]);
    }
    let bytes = b.to_bytes();
    assert_eq!(
        *RatchetState::from_bytes(&bytes).unwrap().to_bytes(),
        *bytes
    );
}

/// A message whose chain is older than the configured number of receiving
/// chains is refused with the typed error, state unchanged; every later
/// chain's message still decrypts exactly once.
#[test]
fn a_message_delayed_past_the_configured_number_of_chains_is_refused() {
    for max in [3u32, 5] {
        let mut rng = TestRng::new(29);
        let limits = Limits {
            max_receiving_chains: max,
            ..Limits::default()
        };
        let (mut a, mut b) = pair_with(&mut rng, limits);
        let late: Vec<Vec<u8>> = (0..=max)
            .map(|tag| {
                chain_with_a_late_message(&mut a, &mut b, &mut rng, u8::try_from(tag).unwrap())
            })
            .collect();
        // The chain of late[0] was evicted with its skipped key: its ratchet
        // key is not held, so the message is indistinguishable from a forgery.
        let before = snap(&b);
        let e = err(b.decrypt(&late[0], b"", NOW));
        assert_eq!(
            (e, e.code()),
            (SessionError::AuthenticationFailed, "AUTHENTICATION_FAILED"),
            "max {max}"
        );
        assert_eq!(snap(&b), before);
        for (tag, m) in late.iter().enumerate().skip(1).rev() {
            decrypts_exactly_once(&mut b, m, &[u8::try_from(tag).unwrap(), 1]);
        }
        assert_eq!(b.receiving_chains(), usize::try_from(max).unwrap());
    }
}

/// The wider window keeps the other bounds: the total skipped-key cap (the
/// oldest keys evicted across chains; their chains stay as records, so those
/// messages are `DUPLICATE_MESSAGE`) and the maximum age.
#[test]
fn the_receiving_window_keeps_the_skipped_key_cap_and_age() {
    let mut rng = TestRng::new(30);
    let limits = Limits {
        max_skipped_keys: 3,
        max_skipped_age_secs: 100,
        ..Limits::default()
    };
    let (mut a, mut b) = pair_with(&mut rng, limits);
    let late: Vec<Vec<u8>> = (0..5u8)
        .map(|tag| chain_with_a_late_message(&mut a, &mut b, &mut rng, tag))
        .collect();
    // Four closed chains with one skipped key each, capped at 3; the fifth
    // chain is open (late[4] is derived on demand).
    assert_eq!((b.receiving_chains(), b.skipped_keys()), (5, 3));
    assert_eq!(
        err(b.decrypt(&late[0], b"", NOW)),
        SessionError::DuplicateMessage
    );
    for m in &late[1..4] {
        assert_eq!(
            err(b.decrypt(m, b"", NOW + 101)),
            SessionError::DuplicateMessage,
            "expired"
        );
    }
    // The open chain's key is derived on demand, so it does not age.
    assert_eq!(
        b.decrypt(&late[4], b"", NOW + 101).unwrap().1.to_vec(),
        vec![4, 1]
    );
    for (tag, m) in late.iter().enumerate().skip(1) {
        let (_, pt) = b.decrypt(m, b"", NOW + 100).unwrap();
        assert_eq!(pt.to_vec(), vec![u8::try_from(tag).unwrap(), 1]);
    }
}

#[test]
fn beyond_the_jump_limit_fails_with_state_unchanged() {
    let mut rng = TestRng::new(21);
    let (mut a, mut b) = pair(&mut rng);
    let limit = Limits::default().max_jump;
    let msgs: Vec<Vec<u8>> = (0..=limit + 1)
        .map(|_| send(&mut a, &mut rng, b"m"))
        .collect();
    let before = snap(&b);
    let e = err(b.decrypt(&msgs[(limit + 1) as usize], b"", NOW));
    assert_eq!(
        e,
        SessionError::TooFarAhead {
            jump: u64::from(limit) + 1,
            limit
        }
    );
    assert_eq!(e.code(), "TOO_FAR_AHEAD");
    assert_eq!(snap(&b), before);
    // Exactly at the limit is accepted.
    recv(&mut b, &msgs[limit as usize]);
    // Of the `limit` keys skipped, the newest `max_skipped_keys` are kept
    // (200 by default since state format 3; the oldest are evicted).
    assert_eq!(
        b.skipped_keys(),
        Limits::default().max_skipped_keys.min(limit) as usize
    );
    // PN beyond the limit on a new chain: B heard message `limit`; A sends
    // 2·limit more, gets a reply and starts a new chain whose PN jumps too far.
    for _ in 0..=limit {
        send(&mut a, &mut rng, b"m");
    }
    let r = send(&mut b, &mut rng, b"r");
    recv(&mut a, &r);
    let m = send(&mut a, &mut rng, b"new chain");
    let before = snap(&b);
    assert_eq!(err(b.decrypt(&m, b"", NOW)).code(), "TOO_FAR_AHEAD");
    assert_eq!(snap(&b), before);
}

#[test]
fn skipped_keys_beyond_the_cap_evict_the_oldest() {
    let mut rng = TestRng::new(22);
    let limits = Limits {
        max_skipped_keys: 10,
        ..Limits::default()
    };
    let (mut a, mut b) = pair_with(&mut rng, limits);
    let msgs: Vec<Vec<u8>> = (0..30).map(|_| send(&mut a, &mut rng, b"m")).collect();
    recv(&mut b, &msgs[29]);
    assert_eq!(b.skipped_keys(), 10);
    assert_eq!(
        err(b.decrypt(&msgs[5], b"", NOW)),
        SessionError::DuplicateMessage
    );
    assert_eq!(
        err(b.decrypt(&msgs[18], b"", NOW)),
        SessionError::DuplicateMessage
    );
    recv(&mut b, &msgs[19]);
    recv(&mut b, &msgs[28]);
    assert_eq!(b.skipped_keys(), 8);
}

#[test]
fn skipped_keys_expire_after_the_maximum_age() {
    let mut rng = TestRng::new(23);
    let limits = Limits {
        max_skipped_age_secs: 100,
        ..Limits::default()
    };
    let (mut a, mut b) = pair_with(&mut rng, limits);
    let msgs: Vec<Vec<u8>> = (0..4).map(|_| send(&mut a, &mut rng, b"m")).collect();
    recv(&mut b, &msgs[3]);
    let (b2, _) = b.decrypt(&msgs[0], b"", NOW + 100).unwrap();
    assert_eq!(b2.skipped_keys(), 2);
    assert_eq!(
        err(b.decrypt(&msgs[1], b"", NOW + 101)),
        SessionError::DuplicateMessage
    );
}

#[test]
fn receiving_chains_beyond_the_cap_evict_the_oldest() {
    let mut rng = TestRng::new(24);
    let limits = Limits {
        max_receiving_chains: 1,
        ..Limits::default()
    };
    let (mut a, mut b) = pair_with(&mut rng, limits);
    let m0 = send(&mut a, &mut rng, b"0");
    let m1 = send(&mut a, &mut rng, b"1");
    let m2 = send(&mut a, &mut rng, b"2");
    recv(&mut b, &m2);
    assert_eq!(b.receiving_chains(), 1);
    let r = send(&mut b, &mut rng, b"r");
    recv(&mut a, &r);
    let n0 = send(&mut a, &mut rng, b"n0");
    recv(&mut b, &n0);
    // The old chain (with the skipped keys of m0 and m1) was evicted.
    assert_eq!(b.receiving_chains(), 1);
    assert_eq!(b.skipped_keys(), 0);
    assert!(b.decrypt(&m0, b"", NOW).is_err());
    assert!(b.decrypt(&m1, b"", NOW).is_err());
}

#[test]
fn replay_fails() {
    let mut rng = TestRng::new(25);
    let (mut a, mut b) = pair(&mut rng);
    let m = send(&mut a, &mut rng, b"once");
    recv(&mut b, &m);
    let e = err(b.decrypt(&m, b"", NOW));
    assert_eq!(
        (e, e.code()),
        (SessionError::DuplicateMessage, "DUPLICATE_MESSAGE")
    );
    let r = send(&mut b, &mut rng, b"r");
    recv(&mut a, &r);
    assert_eq!(err(a.decrypt(&r, b"", NOW)), SessionError::DuplicateMessage);
    // Still a replay after later traffic in both directions.
    let m2 = send(&mut a, &mut rng, b"two");
    recv(&mut b, &m2);
    assert!(b.decrypt(&m, b"", NOW).is_err());
}

/// Offsets of every field of a message (header fields, PQ data, nonce, ciphertext, tag).
fn field_offsets(m: &[u8]) -> Vec<(&'static str, usize)> {
    let parsed = Message::parse(m).unwrap();
    let pq_len = m.len() - 50 - 12 - parsed.sealed.len();
    let mut v = vec![
        ("version", 0),
        ("ratchet key", 1),
        ("ratchet key end", 32),
        ("PN", 36),
        ("N", 40),
        ("epoch", 48),
        ("epoch high", 41),
        ("pq kind", 49),
    ];
    if pq_len > 0 {
        v.push(("pq data", 50));
        v.push(("pq data end", 49 + pq_len));
    }
    let nonce = 50 + pq_len;
    v.extend([
        ("nonce", nonce),
        ("ciphertext", nonce + 12),
        ("tag", m.len() - 1),
    ]);
    v
}

#[test]
fn tamper_in_every_field_fails_with_state_unchanged() {
    let mut rng = TestRng::new(26);
    let (mut a, mut b) = pair(&mut rng);
    // Messages with each PQ field kind: ek (initiator's first), ct‖ek (responder's first), none.
    let m_ek = send(&mut a, &mut rng, b"first");
    let mut cases = vec![(b.clone(), m_ek.clone())];
    recv(&mut b, &m_ek);
    let r_ctek = send(&mut b, &mut rng, b"reply");
    cases.push((a.clone(), r_ctek.clone()));
    recv(&mut a, &r_ctek);
    let m2 = send(&mut a, &mut rng, b"x");
    recv(&mut b, &m2);
    let r2 = send(&mut b, &mut rng, b"y");
    recv(&mut a, &r2);
    // A later chain's second message (ct‖ek retransmitted until acknowledged).
    let m3 = send(&mut a, &mut rng, b"z");
    recv(&mut b, &m3);
    let m4 = send(&mut a, &mut rng, b"w");
    assert_eq!(m4[49], 3, "PQ kind ct‖ek");
    cases.push((b.clone(), m4));
    for (receiver, genuine) in cases {
        let before = snap(&receiver);
        for (field, off) in field_offsets(&genuine) {
            for bit in [0u8, 7] {
                let mut t = genuine.clone();
                t[off] ^= 1 << bit;
                assert!(
                    receiver.decrypt(&t, b"", NOW).is_err(),
                    "tampered {field} (offset {off}, bit {bit}) accepted"
                );
                assert_eq!(snap(&receiver), before, "{field}");
            }
        }
        // Truncated and extended messages.
        assert!(
            receiver
                .decrypt(&genuine[..genuine.len() - 1], b"", NOW)
                .is_err()
        );
        let mut longer = genuine.clone();
        longer.push(0);
        assert!(receiver.decrypt(&longer, b"", NOW).is_err());
        assert!(receiver.decrypt(&genuine, b"", NOW).is_ok());
    }
}

#[test]
fn crossing_messages_at_a_direction_change_keep_both_sides_in_agreement() {
    let mut rng = TestRng::new(27);
    let (mut a, mut b) = pair(&mut rng);
    let a1 = send(&mut a, &mut rng, b"a1");
    recv(&mut b, &a1);
    // Both send before hearing the other's latest message.
    let b1 = send(&mut b, &mut rng, b"b1"); // new chain, epoch 1
    let a2 = send(&mut a, &mut rng, b"a2"); // old chain, epoch 0
    assert_eq!(recv(&mut b, &a2), b"a2".to_vec());
    assert_eq!(recv(&mut a, &b1), b"b1".to_vec());
    // Again at the next change, with several messages in flight each way.
    let a3 = send(&mut a, &mut rng, b"a3"); // new chain, epoch 2
    let b2 = send(&mut b, &mut rng, b"b2");
    let b3 = send(&mut b, &mut rng, b"b3");
    let a4 = send(&mut a, &mut rng, b"a4");
    assert_eq!(recv(&mut a, &b3), b"b3".to_vec());
    assert_eq!(recv(&mut b, &a4), b"a4".to_vec());
    assert_eq!(recv(&mut b, &a3), b"a3".to_vec());
    assert_eq!(recv(&mut a, &b2), b"b2".to_vec());
    // Both continue and agree on every later key.
    for i in 0..4u8 {
        let m = send(&mut a, &mut rng, &[i]);
        assert_eq!(recv(&mut b, &m), vec![i]);
        let m = send(&mut b, &mut rng, &[i, i]);
        assert_eq!(recv(&mut a, &m), vec![i, i]);
    }
    assert_eq!(a.pq_epoch(), b.pq_epoch());
}

#[test]
fn compromise_while_idle_heals_after_one_round_trip() {
    let mut rng_a = TestRng::new(30);
    let (dh, kem) = (31, 32);
    let mut rng_b = TestRng::with_seeds(dh, kem, 33);
    let (mut a, mut b) = pair_with(&mut rng_a, Limits::default());
    assert_eq!(b.pq_phase(), PqPhase::Idle);
    let snapshot = snap(&b);
    let rng_at = rng_b.clone();
    let a1 = send(&mut a, &mut rng_a, b"in flight");
    // The in-flight message is readable from the snapshot (no healing yet).
    assert!(
        RatchetState::from_bytes(&snapshot)
            .unwrap()
            .decrypt(&a1, b"", NOW)
            .is_ok()
    );
    recv(&mut b, &a1);
    let b1 = send(&mut b, &mut rng_b, b"b1");
    recv(&mut a, &b1);
    let a2 = send(&mut a, &mut rng_a, b"a2");
    let read = |rng: &TestRng| {
        let mut clone = RatchetState::from_bytes(&snapshot).unwrap();
        let (c, _) = clone.decrypt(&a1, b"", NOW).unwrap();
        clone = c;
        clone.encrypt(b"x", b"", &mut rng.clone()).unwrap();
        clone.decrypt(&a2, b"", NOW).is_ok()
    };
    assert!(read(&rng_at));
    let mut dh_only = rng_at.clone();
    dh_only.kem_seed ^= 0xff;
    assert!(!read(&dh_only), "PQ half: fresh encapsulation heals");
    let mut kem_only = rng_at.clone();
    kem_only.dh_seed ^= 0xff;
    assert!(!read(&kem_only), "classical half: fresh ratchet key heals");
}

#[test]
fn compromise_with_own_ek_pending_heals_after_one_round_trip() {
    let mut rng_a = TestRng::with_seeds(40, 41, 42);
    let mut rng_b = TestRng::new(43);
    let (mut a, mut b) = pair_with(&mut rng_a, Limits::default());
    let m = send(&mut a, &mut rng_a, b"1");
    recv(&mut b, &m);
    let r = send(&mut b, &mut rng_b, b"2");
    recv(&mut a, &r);
    let m = send(&mut a, &mut rng_a, b"3"); // A sent ek_3 and waits for ct_3
    assert_eq!(a.pq_phase(), PqPhase::OwnEkPending);
    let snapshot = snap(&a);
    let rng_at = rng_a.clone();
    recv(&mut b, &m);
    // B's reply answers A's pre-compromise ek_3 and ratchet key: readable from the snapshot.
    let r1 = send(&mut b, &mut rng_b, b"answer to a compromised key");
    assert!(
        RatchetState::from_bytes(&snapshot)
            .unwrap()
            .decrypt(&r1, b"", NOW)
            .is_ok()
    );
    recv(&mut a, &r1);
    let m1 = send(&mut a, &mut rng_a, b"fresh keys");
    recv(&mut b, &m1);
    let r2 = send(&mut b, &mut rng_b, b"healed");
    recv(&mut a, &r2);
    let read = |rng: &TestRng| {
        let mut clone = RatchetState::from_bytes(&snapshot).unwrap();
        clone = clone.decrypt(&r1, b"", NOW).unwrap().0;
        clone.encrypt(b"x", b"", &mut rng.clone()).unwrap();
        clone.decrypt(&r2, b"", NOW).is_ok()
    };
    assert!(read(&rng_at));
    let mut dh_only = rng_at.clone();
    dh_only.kem_seed ^= 0xff;
    assert!(!read(&dh_only));
    let mut kem_only = rng_at.clone();
    kem_only.dh_seed ^= 0xff;
    assert!(!read(&kem_only));
}

#[test]
fn compromise_with_peer_ek_pending_heals_at_the_next_sending_chain() {
    let mut rng_a = TestRng::with_seeds(50, 51, 52);
    let mut rng_b = TestRng::new(53);
    let (mut a, mut b) = pair_with(&mut rng_a, Limits::default());
    let m = send(&mut a, &mut rng_a, b"1");
    recv(&mut b, &m);
    let r = send(&mut b, &mut rng_b, b"2");
    recv(&mut a, &r);
    assert_eq!(a.pq_phase(), PqPhase::PeerEkPending);
    let snapshot = snap(&a);
    let rng_at = rng_a.clone();
    let m1 = send(&mut a, &mut rng_a, b"3");
    recv(&mut b, &m1);
    let r1 = send(&mut b, &mut rng_b, b"healed");
    assert!(attacker_reads(&snapshot, &mut rng_at.clone(), 1, &r1));
    let mut dh_only = rng_at.clone();
    dh_only.kem_seed ^= 0xff;
    assert!(!attacker_reads(&snapshot, &mut dh_only, 1, &r1));
    let mut kem_only = rng_at.clone();
    kem_only.dh_seed ^= 0xff;
    assert!(!attacker_reads(&snapshot, &mut kem_only, 1, &r1));
}

#[test]
fn forward_secrecy_against_a_quantum_attacker_with_two_compromises() {
    // The quantum attacker breaks X25519 (modelled: it knows every DH secret
    // A draws) but not ML-KEM; it takes A's state twice.
    let mut rng_a = TestRng::with_seeds(60, 61, 62);
    let mut rng_b = TestRng::new(63);
    let (mut a, mut b) = pair_with(&mut rng_a, Limits::default());
    let m = send(&mut a, &mut rng_a, b"1");
    recv(&mut b, &m);
    let r = send(&mut b, &mut rng_b, b"2");
    recv(&mut a, &r);
    let first = snap(&a); // compromise 1
    let rng_at_first = rng_a.clone();
    let m = send(&mut a, &mut rng_a, b"3");
    recv(&mut b, &m);
    // Two messages of one epoch after healing; A reads the first, then is compromised again.
    let secret = send(&mut b, &mut rng_b, b"secret of this epoch");
    let later = send(&mut b, &mut rng_b, b"later in the same epoch");
    recv(&mut a, &secret);
    let second = snap(&a); // compromise 2, same epoch
    // The second snapshot does not hold the used key (PQ chain key advanced).
    let s2 = RatchetState::from_bytes(&second).unwrap();
    assert_eq!(
        err(s2.decrypt(&secret, b"", NOW)),
        SessionError::DuplicateMessage
    );
    assert!(
        s2.decrypt(&later, b"", NOW).is_ok(),
        "sanity: the compromise is real"
    );
    // The first snapshot plus every DH secret (the classical root and chain keys) does not give it either.
    let mut dh_only = rng_at_first.clone();
    dh_only.kem_seed ^= 0xff;
    assert!(!attacker_reads(&first, &mut dh_only, 1, &secret));
    // Only the ML-KEM randomness A drew would.
    assert!(attacker_reads(
        &first,
        &mut rng_at_first.clone(),
        1,
        &secret
    ));
}

#[test]
fn rollback_then_encrypt_never_reuses_a_nonce() {
    let mut rng = TestRng::new(70);
    let (mut a, mut b) = pair(&mut rng);
    let m = send(&mut a, &mut rng, b"x");
    recv(&mut b, &m);
    let stored = snap(&a);
    let highest = a.counter();
    let mut fill = veilkit::rng::fill;
    let m1 = a.encrypt(b"same plaintext", b"", &mut fill).unwrap();
    // Rolled back to the stored state: the same message key is derived again…
    let mut rolled = RatchetState::from_bytes(&stored).unwrap();
    let m1b = rolled.encrypt(b"same plaintext", b"", &mut fill).unwrap();
    let (p1, p2) = (Message::parse(&m1).unwrap(), Message::parse(&m1b).unwrap());
    assert_eq!(p1.header, p2.header);
    // …but under a fresh random nonce, so no (key, nonce) pair repeats.
    assert_ne!(p1.nonce, p2.nonce);
    assert_ne!(p1.sealed, p2.sealed);
    // The keystore detects the rollback by the state counter.
    assert!(a.counter() > highest);
    let e = err(RatchetState::from_bytes(&stored)
        .unwrap()
        .check_not_rolled_back(a.counter()));
    assert_eq!(e.code(), "STATE_ROLLBACK");
    assert!(a.check_not_rolled_back(a.counter()).is_ok());
}

#[test]
fn state_serialization_round_trips_and_counts_changes() {
    let mut rng = TestRng::new(80);
    let (mut a, mut b) = pair(&mut rng);
    for i in 0..5u8 {
        let m = send(&mut a, &mut rng, &[i]);
        if i != 2 {
            recv(&mut b, &m);
        }
    }
    let r = send(&mut b, &mut rng, b"r");
    recv(&mut a, &r);
    for s in [&a, &b] {
        let bytes = s.to_bytes();
        let back = RatchetState::from_bytes(&bytes).unwrap();
        assert_eq!(*back.to_bytes(), *bytes);
        assert_eq!(back.counter(), s.counter());
        for cut in [0, 4, 5, bytes.len() / 2, bytes.len() - 1] {
            assert!(RatchetState::from_bytes(&bytes[..cut]).is_err());
        }
        let mut long = bytes.to_vec();
        long.push(0);
        assert_eq!(
            err(RatchetState::from_bytes(&long)).code(),
            "MALFORMED_INPUT"
        );
    }
    assert_eq!(a.counter(), 6); // 5 encrypts + 1 decrypt
    assert_eq!(b.counter(), 5); // 4 decrypts + 1 encrypt
    // A restored state keeps working.
    let mut b2 = RatchetState::from_bytes(&b.to_bytes()).unwrap();
    let m = send(&mut a, &mut rng, b"after restore");
    assert_eq!(recv(&mut b2, &m), b"after restore".to_vec());
}

/// Format 3 stores the own pending ML-KEM key pair as its 64-byte seed
/// `d ‖ z` (tag 1, docs/SESSIONS.md §5.9): the ek a message carries is the one
/// FIPS 203 `ML-KEM.KeyGen_internal` derives from the stored seed, a load
/// regenerates the pair (it decapsulates the peer's reply), and no part of
/// the expanded decapsulation key is stored. A tag other than 0, 1, 2 is
/// refused; format 1 is refused.
#[test]
fn stored_own_key_is_its_seed_and_regenerates_on_load() {
    let mut rng = TestRng::new(85);
    let (mut a, _) = pair(&mut rng);
    assert_eq!(a.pq_phase(), PqPhase::OwnEkPending);
    let m = send(&mut a, &mut rng, b"ek_1 attached");
    let ek = Message::parse(&m).unwrap().header.pq.ek().unwrap().to_vec();
    let bytes = a.to_bytes();
    assert_eq!(bytes[4], 3, "format 3");
    let at = own_key_at(&bytes);
    assert_eq!(bytes[at], 1, "tag 1: seed");
    assert_eq!(bytes[at + 1..at + 9], 1u64.to_be_bytes(), "k = 1");
    let seed = &bytes[at + 9..at + 9 + SEED_LEN];
    let kp = veilkit::mlkem::mlkem_from_seed(seed).unwrap();
    assert_eq!(kp.encapsulation_key, ek, "the seed derives the ek sent");
    assert!(!bytes.windows(32).any(|w| w == &ek[..32]), "no ek stored");
    let z = &kp.decapsulation_key[DK_LEN - 32..];
    assert_eq!(z, &seed[32..], "z is the seed's second half");
    assert!(
        !bytes.windows(64).any(|w| w == &kp.decapsulation_key[..64]),
        "no part of dk_PKE stored"
    );
    assert_eq!(bytes[at + 9 + SEED_LEN], 0, "own ct flag follows the seed");
    let back = RatchetState::from_bytes(&bytes).unwrap();
    assert_eq!(*back.to_bytes(), *bytes);
    for tag in [3u8, 0xff] {
        let mut t = bytes.to_vec();
        t[at] = tag;
        assert_eq!(
            err(RatchetState::from_bytes(&t)).code(),
            "MALFORMED_INPUT",
            "tag {tag}"
        );
    }
    let mut old = bytes.to_vec();
    old[4] = 1;
    assert_eq!(
        err(RatchetState::from_bytes(&old)).code(),
        "MALFORMED_INPUT"
    );
    // The loaded key decapsulates: B's reply (ct_1) opens epoch 1 in the loaded state.
    let (_, mut b) = {
        let mut rng = TestRng::new(85);
        pair(&mut rng)
    };
    recv(&mut b, &m);
    let r = send(&mut b, &mut rng, b"ct_1");
    let mut loaded = RatchetState::from_bytes(&bytes).unwrap();
    assert_eq!(recv(&mut loaded, &r), b"ct_1".to_vec());
    assert_eq!(loaded.pq_epoch(), 1);
    // A flipped seed bit loads (any 64 bytes are a seed) but derives another
    // key pair: the reply's ct then fails authentication, the state unchanged.
    let mut t = bytes.to_vec();
    t[at + 9] ^= 0x01;
    let flipped = RatchetState::from_bytes(&t).unwrap();
    let before = snap(&flipped);
    assert_eq!(
        flipped.decrypt(&r, b"", NOW).err().unwrap().code(),
        "AUTHENTICATION_FAILED"
    );
    assert_eq!(snap(&flipped), before);
}

/// Offset of the `own_key` tag of a version-1 state (§5.9 grammar).
fn own_key_at(state: &[u8]) -> usize {
    let mut at = 4 + 1 + 1 + 1 + 8 + 4 + 4 + 4 + 8 + 32 + 32; // …, H_ID, root key
    for len in [32, 32, 32 + 32 + 4 + 8] {
        at += 1 + if state[at] == 1 { len } else { 0 };
    }
    at + 4 + 8 + 32 * 3 // PN, latest, pq_root, pq_dir ×2
}

/// A migrated format-2 state keeps its own pending key in the expanded form
/// (tag 2: `d` cannot be recovered from `dk_PKE ‖ ek ‖ H(ek) ‖ z`), checked
/// on every load (FIPS 203 §7.3 hash check, the modulus check of its `ek`:
/// `INVALID_KEY`), and keeps working: the peer's reply decapsulates with it,
/// and the next own key pair is stored as a seed again.
#[test]
fn a_migrated_expanded_own_key_is_checked_on_load_and_keeps_working() {
    let mut rng = TestRng::new(86);
    let (mut a, mut b) = pair(&mut rng);
    let m = send(&mut a, &mut rng, b"ek_1 attached");
    let ek = Message::parse(&m).unwrap().header.pq.ek().unwrap().to_vec();
    let v3 = a.to_bytes();
    let at = own_key_at(&v3);
    let seed = v3[at + 9..at + 9 + SEED_LEN].to_vec();
    let dk = veilkit::mlkem::mlkem_from_seed(&seed)
        .unwrap()
        .decapsulation_key;
    // The state with the expanded key, as a format-2 state migrates to (tag 2).
    let mut bytes = v3[..at].to_vec();
    bytes.push(2);
    bytes.extend_from_slice(&v3[at + 1..at + 9]);
    bytes.extend_from_slice(&dk);
    bytes.extend_from_slice(&v3[at + 9 + SEED_LEN..]);
    assert_eq!(bytes.len(), v3.len() + DK_LEN - SEED_LEN);
    let back = RatchetState::from_bytes(&bytes).unwrap();
    assert_eq!(*back.to_bytes(), bytes, "kept expanded");
    let ek_at = at + 9 + 1152;
    assert_eq!(&bytes[ek_at..ek_at + EK_LEN], &ek[..]);
    // A flipped bit in ek or in H(ek) fails the hash check; a coefficient
    // ≥ q in ek (after fixing H(ek)) fails the modulus check.
    for i in [ek_at, ek_at + 700, ek_at + 1184, ek_at + 1184 + 31] {
        let mut t = bytes.clone();
        t[i] ^= 0x01;
        assert_eq!(
            err(RatchetState::from_bytes(&t)).code(),
            "INVALID_KEY",
            "byte {i}"
        );
    }
    let mut t = bytes.clone();
    t[ek_at] = 0xff;
    t[ek_at + 1] |= 0x0f; // first 12-bit coefficient 0xfff >= q
    let h = libcrux_sha3::sha256(&t[ek_at..ek_at + 1184]);
    t[ek_at + 1184..ek_at + 1184 + 32].copy_from_slice(&h[..]);
    assert_eq!(err(RatchetState::from_bytes(&t)).code(), "INVALID_KEY");
    // The expanded key decapsulates B's reply; A's next own key is a seed.
    recv(&mut b, &m);
    let r = send(&mut b, &mut rng, b"ct_1");
    let mut loaded = RatchetState::from_bytes(&bytes).unwrap();
    assert_eq!(recv(&mut loaded, &r), b"ct_1".to_vec());
    assert_eq!(loaded.pq_epoch(), 1);
    let m2 = send(&mut b, &mut rng, b"b");
    recv(&mut loaded, &m2);
    let m3 = send(&mut loaded, &mut rng, b"a");
    assert_eq!(recv(&mut b, &m3), b"a".to_vec());
    assert_eq!(loaded.pq_phase(), PqPhase::OwnEkPending);
    let s = loaded.to_bytes();
    assert_eq!(s[own_key_at(&s)], 1, "a new own key is stored as its seed");
}

/// Upper bound of `to_bytes().len()`, computed from the field sizes of the
/// state encoding (docs/SESSIONS.md §5.9, format 3: the identities bound by
/// the 32-byte `H_ID`, not stored; the own pending ML-KEM key pair stored as
/// its 64-byte seed): every optional field present except the PQ pendings
/// that exclude each other, `max_receiving_chains` chains of which one is open
/// (its chain keys stored), `max_skipped_keys` skipped keys. `own_key`: own
/// `ek` (its seed) and own `ct` pending; otherwise the peer's `ek` pending,
/// which excludes both (the invariants refuse either with it).
fn state_size_bound(limits: &Limits, own_key: bool) -> usize {
    const KEY: usize = 32;
    let opt = |len: usize| 1 + len;
    let head = 4 + 1 + 1 + 1 + 8; // "VKRS", format, protocol version, role, counter
    let limit_fields = 4 + 4 + 4 + 8; // max_jump, max_skipped_keys, max_receiving_chains, max age
    let identities = KEY; // H_ID
    let ratchet = KEY // root key
        + opt(KEY) // own ratchet secret
        + opt(KEY) // peer ratchet public key
        + opt(KEY + KEY + 4 + 8) // sending chain: ck, pq_ck, N, epoch
        + 4; // PN
    let pending = if own_key {
        opt(8 + SEED_LEN) + opt(8 + CT_LEN) + opt(0) // own k ‖ seed, own k ‖ ct; peer ek absent
    } else {
        opt(0) + opt(0) + opt(8 + EK_LEN) // own key and ct absent; peer k ‖ ek
    };
    let pq = 8 + 3 * KEY + pending; // latest, pq_root, pq_dir own, pq_dir peer
    let receiving = 8 + 1; // next_seq, chain count
    let chain = KEY + 8 + opt(0) + 4 + 4; // ratchet pub, epoch, keys flag, next, key count
    let open_chain_keys = KEY + KEY; // ck ‖ pq_ck of the one open chain
    let skipped_key = 4 + KEY + 8 + 8; // n, mk, created, seq
    let chains = usize::try_from(limits.max_receiving_chains).unwrap();
    let keys = usize::try_from(limits.max_skipped_keys).unwrap();
    head + limit_fields
        + identities
        + ratchet
        + pq
        + receiving
        + chains * chain
        + open_chain_keys
        + keys * skipped_key
}

/// Issue 34 item 9, issue 28 (state format 3, own key as its seed): the
/// documented bound (docs/SESSIONS.md §5.9 "State size"): `1,618 + 49·C +
/// 52·K` bytes (a peer `ek` pending), `1,594 + 49·C + 52·K` with an own key
/// and `ct` pending, whatever the identities.
#[test]
fn the_state_size_bound_formula_matches_the_encoding() {
    let with = |c: u32, k: u32| Limits {
        max_receiving_chains: c,
        max_skipped_keys: k,
        ..Limits::default()
    };
    let base = |own: bool| state_size_bound(&with(1, 1), own) - 49 - 52;
    assert_eq!((base(false), base(true)), (1_618, 1_594));
    for own in [true, false] {
        assert_eq!(
            state_size_bound(&with(2, 1), own) - state_size_bound(&with(1, 1), own),
            49
        );
        assert_eq!(
            state_size_bound(&with(1, 2), own) - state_size_bound(&with(1, 1), own),
            52
        );
    }
    // The figures of the docs: default limits (C = 5, K = 200), one chain
    // without skipped keys, and the hard maxima of the limits.
    let d = Limits::default();
    assert_eq!((d.max_receiving_chains, d.max_skipped_keys), (5, 200));
    assert_eq!(state_size_bound(&d, false), 12_263);
    assert_eq!(state_size_bound(&d, true), 12_239);
    assert_eq!(state_size_bound(&with(1, 0), true), 1_643);
    assert_eq!(state_size_bound(&with(1, 0), false), 1_667);
    assert_eq!(state_size_bound(&with(64, 100_000), false), 5_204_754);
}

/// Issue 28: a session in steady state (no skipped keys; closed chains kept
/// as replay records up to `max_receiving_chains`) in each PQ phase,
/// measured: with a peer `ek` held 1,559 bytes with one chain (+ 49 per
/// closed chain, 1,755 with five), whatever the identities: the state stores
/// `H_ID`, not the two 2,017-byte encodings (format 2: 5,565 bytes); with own
/// key (its 64-byte seed) and `ct` pending 1,643 bytes + 49 per closed chain
/// (the expanded `dk` of format 2 made it 3,979; format 2: 7,985). Each
/// figure is the formula's bound for its phase minus the fields absent in it.
#[test]
fn steady_state_sizes_are_the_documented_ones() {
    let mut rng = TestRng::new(28);
    let (mut a, mut b) = pair(&mut rng);
    let one = Limits {
        max_receiving_chains: 1,
        max_skipped_keys: 0,
        ..Limits::default()
    };
    // Peer ek held (received, not yet answered): no own ratchet secret or
    // sending chain until this side sends (flags stay).
    let peer_ek_base = state_size_bound(&one, false) - 32 - (32 + 32 + 4 + 8);
    let own_key_base = state_size_bound(&one, true);
    assert_eq!((peer_ek_base, own_key_base), (1_559, 1_643));
    let (mut peer_ek, mut own_key) = (Vec::new(), Vec::new());
    for i in 0..8u8 {
        let m = send(&mut a, &mut rng, &[i]);
        recv(&mut b, &m);
        let r = send(&mut b, &mut rng, &[i]);
        recv(&mut a, &r);
        for s in [&a, &b] {
            assert_eq!(s.skipped_keys(), 0);
            let closed = 49 * (s.receiving_chains() - 1);
            let n = s.to_bytes().len();
            match s.pq_phase() {
                PqPhase::PeerEkPending => {
                    assert_eq!(n, peer_ek_base + closed);
                    peer_ek.push(n);
                }
                PqPhase::OwnEkPending => {
                    assert_eq!(n, own_key_base + closed);
                    own_key.push(n);
                }
                PqPhase::Idle => panic!("a party is idle after a round trip"),
            }
        }
    }
    assert_eq!(a.receiving_chains(), 5);
    assert_eq!(peer_ek.iter().max(), Some(&1_755));
    assert_eq!(own_key.iter().max(), Some(&1_839));
    assert!(
        peer_ek.iter().chain(&own_key).all(|&n| n <= 2_048),
        "{peer_ek:?} {own_key:?}"
    );
}

/// Issue 34 item 9: the worst case is built (default limits: 5 chains with
/// 40 skipped keys each = 200, the newest chain open, own key and `ct`
/// pending, a sending chain) and its serialized state is exactly the bound
/// of that phase, also after an older chain was evicted, and within the
/// overall bound (a peer `ek` pending instead: 24 bytes more). Before the
/// receiving-window fix the state held at most 2 chains; before state format
/// 3 the bound added both identity encodings and the default `K` was 2,000.
#[test]
fn serialized_state_stays_within_the_documented_bound() {
    let limits = Limits::default();
    let (c, k) = (
        usize::try_from(limits.max_receiving_chains).unwrap(),
        usize::try_from(limits.max_skipped_keys).unwrap(),
    );
    let per_chain = k / c;
    let mut rng = TestRng::new(31);
    let (mut a, mut b) = pair_with(&mut rng, limits);
    let bound = state_size_bound(&limits, false);
    let own_phase = state_size_bound(&limits, true);
    assert_eq!((bound, own_phase), (12_263, 12_239));
    let m = send(&mut a, &mut rng, b"hello");
    recv(&mut b, &m);
    let mut sizes = Vec::new();
    for _ in 0..=c {
        // A chain of B's; A reads only its last message: `per_chain` skipped keys.
        let mut last = Vec::new();
        for _ in 0..=per_chain {
            last = send(&mut b, &mut rng, b"b");
        }
        recv(&mut a, &last);
        assert!(a.to_bytes().len() <= bound);
        // A's next sending chain encapsulates to B's ek (own ct pending) and
        // carries A's next ek (own key pending).
        let r = send(&mut a, &mut rng, b"a");
        sizes.push(a.to_bytes().len());
        recv(&mut b, &r);
    }
    assert_eq!(a.pq_phase(), PqPhase::OwnEkPending);
    assert_eq!((a.receiving_chains(), a.skipped_keys()), (c, k));
    assert!(sizes.iter().all(|&s| s <= bound), "{sizes:?} > {bound}");
    assert_eq!(
        (sizes[c - 1], sizes[c]),
        (own_phase, own_phase),
        "{sizes:?}"
    );
    println!("worst-case state: {own_phase} bytes built (bound {bound}, default limits)");
}

/// The sending chain of a serialized state (§5.9 grammar): everything a
/// malicious peer knows about its own next message.
struct SendingKeys {
    dh_secret: [u8; 32],
    ck: [u8; 32],
    pq_ck: [u8; 32],
    n: u32,
    epoch: u64,
}

fn sending_keys(state: &[u8]) -> SendingKeys {
    let key = |at: usize| <[u8; 32]>::try_from(&state[at..at + 32]).unwrap();
    let mut at = 4 + 1 + 1 + 1 + 8 + 4 + 4 + 4 + 8;
    at += 32; // H_ID
    at += 32; // root key
    assert_eq!(state[at], 1, "own ratchet key present");
    let dh_secret = key(at + 1);
    at += 33;
    assert_eq!(state[at], 1, "peer ratchet key present");
    at += 33;
    assert_eq!(state[at], 1, "sending chain present");
    SendingKeys {
        dh_secret,
        ck: key(at + 1),
        pq_ck: key(at + 33),
        n: u32::from_be_bytes(state[at + 65..at + 69].try_into().unwrap()),
        epoch: u64::from_be_bytes(state[at + 69..at + 77].try_into().unwrap()),
    }
}

/// `mk` of message `N` of that chain (§5.3): `KDF_CK` on the DR and the PQ
/// chain key, then the message-key HKDF.
fn message_key(k: &SendingKeys) -> Zeroizing<Vec<u8>> {
    let dr_mk = hmac_sha256(&k.ck, &[0x01]);
    let pq_mk = hmac_sha256(&k.pq_ck, &[0x01]);
    let mut info = MK_LABEL.to_vec();
    info.push(VERSION_1);
    info.extend_from_slice(&k.epoch.to_be_bytes());
    info.extend_from_slice(&x25519_public(&k.dh_secret).unwrap());
    info.extend_from_slice(&k.n.to_be_bytes());
    hkdf_sha256(&dr_mk, &pq_mk, &info, 32).unwrap()
}

/// `genuine` (sent on the chain of `keys`) with the `ek` of its PQ field
/// replaced and re-sealed under its message key: an authentic message, as
/// the peer that holds those keys can make it.
fn with_ek(genuine: &[u8], keys: &SendingKeys, ek: &[u8]) -> Vec<u8> {
    let msg = Message::parse(genuine).unwrap();
    assert_eq!(
        (msg.header.message_number, msg.header.epoch),
        (keys.n, keys.epoch)
    );
    let mk = message_key(keys);
    let h_id = header::identities_hash(&session_util::binding());
    let ad = |h: &Header| header::associated_data(VERSION_1, &h_id, &h.to_bytes(), b"").unwrap();
    let padded = aes_gcm_decrypt_with_iv(&mk, &msg.nonce, &msg.sealed, &ad(&msg.header))
        .expect("the derived mk opens the genuine message");
    let mut h = msg.header.clone();
    h.pq = PqField::from_parts(h.pq.ct().map(<[u8]>::to_vec), Some(ek.to_vec()));
    let sealed = aes_gcm_encrypt_with_iv(&mk, &msg.nonce, &padded, &ad(&h)).unwrap();
    Message {
        header: h,
        nonce: msg.nonce,
        sealed,
    }
    .to_bytes()
}

/// `receiver` refuses `genuine` with a peer `ek` that fails the FIPS 203
/// modulus check (a coefficient ≥ q = 3329), sealed as an authentic message:
/// `INVALID_KEY`, state unchanged. The same forgery with a valid `ek`
/// (coefficient q − 1) is accepted, so the modulus check alone refuses it.
fn refuses_an_authentic_bad_ek(receiver: &RatchetState, genuine: &[u8], keys: &SendingKeys) {
    let ek = Message::parse(genuine)
        .unwrap()
        .header
        .pq
        .ek()
        .unwrap()
        .to_vec();
    let (_, want) = receiver.decrypt(genuine, b"", NOW).unwrap();
    for i in [0usize, 1, 383, 767] {
        let valid = with_coefficient(&ek, i, 3328);
        assert!(veilkit::mlkem::mlkem_encapsulate(&valid).is_ok());
        let (s, pt) = receiver
            .decrypt(&with_ek(genuine, keys, &valid), b"", NOW)
            .unwrap();
        assert_eq!(*pt, *want);
        assert_eq!(s.pq_phase(), PqPhase::PeerEkPending, "valid ek taken");
        for value in [3329u16, 3330, 0x0fff] {
            let bad = with_coefficient(&ek, i, value);
            assert_eq!(
                veilkit::mlkem::mlkem_encapsulate(&bad).unwrap_err().code(),
                "INVALID_KEY"
            );
            let forged = with_ek(genuine, keys, &bad);
            let before = snap(receiver);
            let e = err(receiver.decrypt(&forged, b"", NOW));
            assert_eq!(e.code(), "INVALID_KEY", "coefficient {i} = {value}");
            assert_eq!(snap(receiver), before);
        }
    }
    // The genuine message still decrypts, and its ek is taken.
    let (s, pt) = receiver.decrypt(genuine, b"", NOW).unwrap();
    assert_eq!(*pt, *want);
    assert_eq!(s.pq_phase(), PqPhase::PeerEkPending);
}

/// Issue 34 item 10(a): a peer that holds the message keys (it is the sender)
/// attaches an `ek` failing the FIPS 203 modulus check to an otherwise
/// authentic message, once as the initiator's `ek_1` (PQ kind `ek`, epoch 0)
/// and once as the responder's `ek_2` (`ct_1 ‖ ek_2`, a chain's second
/// message, the `ct` intact so that epoch 1 installs first).
#[test]
fn an_authentic_message_with_a_peer_ek_failing_the_modulus_check_is_refused() {
    let mut rng = TestRng::new(87);
    let (mut a, mut b) = pair(&mut rng);
    let keys = sending_keys(&a.to_bytes());
    let m = send(&mut a, &mut rng, b"first");
    assert_eq!(Message::parse(&m).unwrap().header.epoch, 0);
    refuses_an_authentic_bad_ek(&b, &m, &keys);
    recv(&mut b, &m);
    let _r0 = send(&mut b, &mut rng, b"r0");
    let keys = sending_keys(&b.to_bytes());
    let r1 = send(&mut b, &mut rng, b"r1");
    assert_eq!(
        Message::parse(&r1).unwrap().header.pq.ct().map(<[u8]>::len),
        Some(1088)
    );
    refuses_an_authentic_bad_ek(&a, &r1, &keys);
}

#[test]
fn wire_sizes_per_message_and_per_epoch() {
    let mut rng = TestRng::new(90);
    let (mut a, mut b) = pair(&mut rng);
    let m_ek = send(&mut a, &mut rng, b"hi");
    recv(&mut b, &m_ek);
    let r_ctek = send(&mut b, &mut rng, b"hi");
    let r_again = send(&mut b, &mut rng, b"hi");
    recv(&mut a, &r_ctek);
    let m = send(&mut a, &mut rng, b"hi");
    recv(&mut b, &m);
    let r = send(&mut b, &mut rng, b"hi");
    recv(&mut a, &r);
    let m2 = send(&mut a, &mut rng, b"hi");
    recv(&mut b, &m2);
    let steady = send(&mut a, &mut rng, b"hi");
    // 50-byte header + PQ data + 12-byte nonce + 64-byte padded block + 16-byte tag.
    let base = 50 + 12 + 64 + 16;
    assert_eq!(m_ek.len(), base + 1184, "initiator's first chain: ek_1");
    assert_eq!(r_ctek.len(), base + 1088 + 1184, "ct_k ‖ ek_(k+1)");
    assert_eq!(
        r_again.len(),
        r_ctek.len(),
        "retransmitted until acknowledged"
    );
    assert_eq!(
        steady.len(),
        base + 2272,
        "every direction change is a new epoch"
    );
    println!(
        "wire bytes (short plaintext): base {base}; initiator's first chain {} (ek); every later message {} (ct+ek, retransmitted until the peer's reply); PQ data per epoch 1184 + 1088 = 2272",
        m_ek.len(),
        steady.len()
    );
}

/// Known-answer check: with the deterministic test randomness the first
/// messages in each direction and the states after them are fixed bytes
/// (any change to the format, a label or a derivation changes them).
/// Provenance: the two message values were regenerated with this test when
/// the associated data moved from both identity encodings to their hash
/// `H_ID` (docs/SESSIONS.md §5.2, refinement of the design note); the two
/// state values were regenerated with this test for state format 2 (the own
/// pending ML-KEM key stored as its expanded `dk` instead of its seed, §5.9;
/// the messages did not change), and again for state format 3 (`H_ID` in
/// place of both identity encodings; the messages did not change), and again
/// when format 3 came to store the own pending ML-KEM key as its 64-byte seed
/// (only B's state, which holds one, changed).
#[test]
fn known_answer_first_round_trip() {
    let mut rng = TestRng::new(0x4b);
    let (mut a, mut b) = pair(&mut rng);
    let m = a.encrypt(b"known answer", b"aad", &mut rng).unwrap();
    b = b.decrypt(&m, b"aad", NOW).unwrap().0;
    let r = b.encrypt(b"reply", b"", &mut rng).unwrap();
    a = a.decrypt(&r, b"", NOW).unwrap().0;
    let h = |x: &[u8]| hex::encode(veilkit::hash::sha256(x));
    let got = [h(&m), h(&r), h(&a.to_bytes()), h(&b.to_bytes())];
    assert_eq!(got, KAT);
}

const KAT: [&str; 4] = [
    "c04860ae523774e9015ba6aa3e2aef83b4fa6ebbf6a55209def6647e64959a2d",
    "8e77b2f89fa8f3f24f89ad824b5eb5eba3896b28434e2818b1fdc94a337a0abe",
    "ae63c9d29065cb0de55a4eb56a61556755d3e3f2e8bd357e1b03042b858589e3",
    "123d9583697354ab222a7ef2190ce8ae108bffcff1c197fc384ec57726e25c8a",
];
