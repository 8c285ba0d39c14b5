//! The serialized ratchet state, format 3 (docs/SESSIONS.md §5.9): the
//! identities bound by `H_ID` and kept outside the state (checked against
//! it, `IDENTITY_MISMATCH`), the migration of format-2 states, and a total,
//! canonical parser (every truncation, trailing bytes, each bound).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod session_util;

use session_util::{NOW, TestRng, keys, pair, recv, send};
use veilkit::session::identity::IDENTITY_ENCODING_LEN;
use veilkit::session::ratchet::{Limits, RatchetState, header};
use veilkit::session::{SessionBinding, SessionError, VERSION_1};
use veilkit::x25519::x25519_public;
use zeroize::Zeroizing;

fn err<T>(r: Result<T, SessionError>) -> SessionError {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    }
}

/// Offset of `H_ID` (and, in format 2, of the identity encodings): magic,
/// format, version, role, counter, limits.
const H_ID_AT: usize = 4 + 1 + 1 + 1 + 8 + 4 + 4 + 4 + 8;

/// Identity encodings of the real length (the content plays no part here).
fn real_binding() -> SessionBinding {
    let id = |seed: u8| {
        (0..IDENTITY_ENCODING_LEN)
            .map(|i| seed ^ u8::try_from(i % 256).unwrap())
            .collect::<Vec<u8>>()
    };
    SessionBinding {
        version: VERSION_1,
        initiator_identity: id(0xa1),
        responder_identity: id(0xb2),
    }
}

fn real_pair(rng: &mut TestRng) -> (RatchetState, RatchetState) {
    let spk = x25519_public(&session_util::SPK_SECRET).unwrap();
    let a =
        RatchetState::new_initiator(keys(), real_binding(), spk, Limits::default(), rng).unwrap();
    let b = RatchetState::new_responder(
        keys(),
        real_binding(),
        Zeroizing::new(session_util::SPK_SECRET),
        Limits::default(),
    )
    .unwrap();
    (a, b)
}

/// The format-2 encoding of a format-3 state: `u16 len ‖ Enc(ID_init) ‖ u16
/// len ‖ Enc(ID_resp)` in place of `H_ID`, format byte 2.
fn as_format_2(state: &[u8], b: &SessionBinding) -> Vec<u8> {
    let mut out = state[..H_ID_AT].to_vec();
    out[4] = 2;
    for id in [&b.initiator_identity, &b.responder_identity] {
        out.extend_from_slice(&u16::try_from(id.len()).unwrap().to_be_bytes());
        out.extend_from_slice(id);
    }
    out.extend_from_slice(&state[H_ID_AT + 32..]);
    out
}

#[test]
fn the_state_stores_h_id_and_no_identity_encoding() {
    let mut rng = TestRng::new(0x28);
    let (mut a, mut b) = real_pair(&mut rng);
    let m = send(&mut a, &mut rng, b"hi");
    recv(&mut b, &m);
    let bind = real_binding();
    for s in [&a, &b] {
        let bytes = s.to_bytes();
        assert_eq!(bytes[4], 3, "format 3");
        assert_eq!(
            &bytes[H_ID_AT..H_ID_AT + 32],
            &header::identities_hash(&bind)[..]
        );
        assert_eq!(s.identities_hash(), &header::identities_hash(&bind));
        for id in [&bind.initiator_identity, &bind.responder_identity] {
            assert!(
                !bytes.windows(64).any(|w| w == &id[..64]),
                "no part of an identity encoding is stored"
            );
        }
        s.check_identities(&bind).unwrap();
    }
}

/// The attack: the identity encodings kept beside a state (a session record)
/// are replaced — the peer's by another identity, the two swapped, the
/// boundary between them moved, the version changed — so that the app would
/// show (and compute a verification code from) an identity the session never
/// authenticated. Each is `IDENTITY_MISMATCH`. (Before format 3 the state
/// carried the encodings itself, so there was no copy to swap.)
#[test]
fn identities_that_do_not_match_h_id_are_refused() {
    let mut rng = TestRng::new(0x29);
    let (a, _) = real_pair(&mut rng);
    let genuine = real_binding();
    a.check_identities(&genuine).unwrap();
    let mut other_peer = real_binding();
    other_peer.responder_identity[100] ^= 1;
    let mut swapped = real_binding();
    core::mem::swap(
        &mut swapped.initiator_identity,
        &mut swapped.responder_identity,
    );
    // The same concatenation (and so the same hash) split elsewhere.
    let mut shifted = real_binding();
    let moved = shifted.responder_identity.remove(0);
    shifted.initiator_identity.push(moved);
    assert_eq!(
        header::identities_hash(&shifted),
        header::identities_hash(&genuine)
    );
    let mut version = real_binding();
    version.version = 2;
    for bad in [other_peer, swapped, shifted, version] {
        let e = err(a.check_identities(&bad));
        assert_eq!(e.code(), "IDENTITY_MISMATCH");
    }
}

/// Format 2 (identities inside) is refused by `from_bytes` with a typed
/// error and converted by `migrate_format_2` into exactly the format-3
/// state, returning the identities it carried; the migrated state keeps
/// working. A format-2 state whose identities were altered migrates to a
/// state whose `H_ID` no longer matches the messages (the AD binds it).
#[test]
fn a_format_2_state_is_migrated_with_its_identities() {
    let mut rng = TestRng::new(0x2a);
    let (mut a, mut b) = real_pair(&mut rng);
    let m = send(&mut a, &mut rng, b"one");
    recv(&mut b, &m);
    let bind = real_binding();
    let v3 = b.to_bytes();
    let v2 = as_format_2(&v3, &bind);
    assert_eq!(v2.len(), v3.len() - 32 + 4 + 2 * IDENTITY_ENCODING_LEN);
    let e = err(RatchetState::from_bytes(&v2));
    assert_eq!(e.code(), "MALFORMED_INPUT");
    assert!(e.to_string().contains("format 2"), "{e}");
    let (migrated, ids) = RatchetState::migrate_format_2(&v2).unwrap();
    assert_eq!(ids, bind);
    assert_eq!(*migrated.to_bytes(), *v3);
    migrated.check_identities(&ids).unwrap();
    // Only format 2 migrates.
    assert_eq!(
        err(RatchetState::migrate_format_2(&v3)).code(),
        "MALFORMED_INPUT"
    );
    // The migrated state continues the session.
    let mut migrated = migrated;
    let m2 = send(&mut a, &mut rng, b"two");
    assert_eq!(recv(&mut migrated, &m2), b"two".to_vec());
    // Truncated and trailing format-2 states are refused too.
    for cut in [H_ID_AT + 1, H_ID_AT + 3, v2.len() - 1] {
        assert!(RatchetState::migrate_format_2(&v2[..cut]).is_err());
    }
    let mut long = v2.clone();
    long.push(0);
    assert_eq!(
        err(RatchetState::migrate_format_2(&long)).code(),
        "MALFORMED_INPUT"
    );
}

/// A format-2 state with an own pending ML-KEM key (stored expanded there,
/// `opt(u64 k ‖ dk(2400))`) migrates to format 3 with that key kept expanded
/// (tag 2: its seed cannot be recovered), and the migrated state decapsulates
/// the peer's reply.
#[test]
fn a_format_2_state_with_an_expanded_own_key_migrates_and_keeps_working() {
    let mut rng = TestRng::new(0x2c);
    let (mut a, mut b) = real_pair(&mut rng);
    let m = send(&mut a, &mut rng, b"ek_1");
    let v3 = a.to_bytes();
    // own_key: after H_ID, root key, the three ratchet options, PN, latest, pq_root, pq_dir ×2.
    let mut at = H_ID_AT + 32 + 32;
    for len in [32, 32, 32 + 32 + 4 + 8] {
        at += 1 + if v3[at] == 1 { len } else { 0 };
    }
    at += 4 + 8 + 32 * 3;
    assert_eq!(v3[at], 1, "tag 1: seed");
    let dk = veilkit::mlkem::mlkem_from_seed(&v3[at + 9..at + 9 + 64])
        .unwrap()
        .decapsulation_key;
    let expanded = |tag: u8| {
        let mut out = v3[..at].to_vec();
        out.push(tag);
        out.extend_from_slice(&v3[at + 1..at + 9]);
        out.extend_from_slice(&dk);
        out.extend_from_slice(&v3[at + 9 + 64..]);
        out
    };
    let bind = real_binding();
    let v2 = as_format_2(&expanded(1), &bind);
    let (migrated, ids) = RatchetState::migrate_format_2(&v2).unwrap();
    assert_eq!(ids, bind);
    assert_eq!(*migrated.to_bytes(), expanded(2));
    // Format 2 knows no tag 2.
    let mut t = v2.clone();
    t[at - 32 + 4 + 2 * IDENTITY_ENCODING_LEN] = 2;
    assert_eq!(
        err(RatchetState::migrate_format_2(&t)).code(),
        "MALFORMED_INPUT"
    );
    recv(&mut b, &m);
    let r = send(&mut b, &mut rng, b"ct_1");
    let mut migrated = RatchetState::from_bytes(&migrated.to_bytes()).unwrap();
    assert_eq!(recv(&mut migrated, &r), b"ct_1".to_vec());
    assert_eq!(migrated.pq_epoch(), 1);
}

/// The parser is total and canonical: every strict prefix of a valid state
/// is refused, so is any trailing byte, an option flag other than 0/1, and
/// each bound (limits out of range, more chains or skipped keys than the
/// limits the state carries).
#[test]
fn the_state_parser_is_total_and_canonical() {
    let mut rng = TestRng::new(0x2b);
    let (mut a, mut b) = pair(&mut rng);
    // Two of B's chains reach A, with 3 skipped keys.
    let m = send(&mut a, &mut rng, b"a");
    recv(&mut b, &m);
    let mut last = Vec::new();
    for _ in 0..3 {
        last = send(&mut b, &mut rng, b"b");
    }
    recv(&mut a, &last);
    let r = send(&mut a, &mut rng, b"a");
    recv(&mut b, &r);
    let last = send(&mut b, &mut rng, b"b2");
    recv(&mut a, &last);
    let bytes = a.to_bytes().to_vec();
    assert_eq!((a.receiving_chains(), a.skipped_keys()), (2, 2));
    assert_eq!(*RatchetState::from_bytes(&bytes).unwrap().to_bytes(), bytes);
    for cut in 0..bytes.len() {
        assert_eq!(
            err(RatchetState::from_bytes(&bytes[..cut])).code(),
            "MALFORMED_INPUT",
            "prefix of {cut} bytes"
        );
    }
    let mut long = bytes.clone();
    long.push(0);
    assert_eq!(
        err(RatchetState::from_bytes(&long)).code(),
        "MALFORMED_INPUT"
    );
    // The first option flag (own ratchet secret) right after H_ID and the root key.
    let flag = H_ID_AT + 32 + 32;
    assert!(bytes[flag] <= 1);
    let mut t = bytes.clone();
    t[flag] = 2;
    assert_eq!(err(RatchetState::from_bytes(&t)).code(), "MALFORMED_INPUT");
    let set_u32 = |at: usize, v: u32| {
        let mut t = bytes.clone();
        t[at..at + 4].copy_from_slice(&v.to_be_bytes());
        t
    };
    let (skipped_at, chains_at) = (15 + 4, 15 + 8);
    for (t, what) in [
        (
            set_u32(chains_at, 1),
            "more receiving chains than the limit",
        ),
        (set_u32(skipped_at, 1), "more skipped keys than the limit"),
        (set_u32(skipped_at, 0), "max_skipped_keys"),
        (set_u32(15, 100_001), "max_jump"),
    ] {
        let e = err(RatchetState::from_bytes(&t));
        assert_eq!(e.code(), "INVALID_STATE", "{what}");
        assert!(e.to_string().contains(what), "{e} / {what}");
    }
    // At the bounds themselves the state loads.
    RatchetState::from_bytes(&set_u32(chains_at, 2)).unwrap();
    RatchetState::from_bytes(&set_u32(skipped_at, 2)).unwrap();
    // And an unknown format or magic.
    let mut t = bytes.clone();
    t[4] = 4;
    assert_eq!(err(RatchetState::from_bytes(&t)).code(), "MALFORMED_INPUT");
    let mut t = bytes;
    t[0] ^= 1;
    assert_eq!(err(RatchetState::from_bytes(&t)).code(), "MALFORMED_INPUT");
    let _ = NOW;
}
