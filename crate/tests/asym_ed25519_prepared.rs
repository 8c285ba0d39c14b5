//! veilkit's own strict Ed25519 check (`ed25519::verify_strict`, which skips decompressing `R`)
//! and its prepared keys (`ed25519::PreparedVerifyingKey`, a table of multiples of `−A`) against
//! `ed25519-dalek`'s `VerifyingKey::verify_strict`: the same answer on every Wycheproof and CCTV
//! vector whose key decodes, and on valid signatures of random keys with every single-bit flip of
//! `R`, `S` and the message, `S + L`, and every small-order `R`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::cast_possible_truncation
)]

use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use serde_json::Value;
use veilkit::ed25519::{PreparedVerifyingKey, verify_strict};

fn h(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().expect("hex string")).expect("valid hex")
}

/// The three answers for one (key, message, signature); asserts they agree and returns dalek's.
fn agree(pk: &[u8; 32], msg: &[u8], sig: &[u8; 64], what: &str) -> Option<bool> {
    let key = VerifyingKey::from_bytes(pk).ok()?;
    let dalek = key.verify_strict(msg, &Signature::from_bytes(sig)).is_ok();
    let ours = verify_strict(pk, &key.to_edwards(), msg, sig);
    let prepared = PreparedVerifyingKey::new(*pk, &key.to_edwards())
        .is_some_and(|p| p.verify_strict(msg, sig));
    assert_eq!(ours, dalek, "verify_strict, {what}");
    assert_eq!(prepared, dalek, "PreparedVerifyingKey, {what}");
    Some(dalek)
}

#[test]
fn agrees_with_dalek_on_wycheproof() {
    let data: Value =
        serde_json::from_str(include_str!("../../vectors/ed25519/ed25519_test.json")).unwrap();
    let (mut accepted, mut rejected, mut wrong_length) = (0, 0, 0);
    for group in data["testGroups"].as_array().unwrap() {
        let pk: [u8; 32] = h(&group["publicKey"]["pk"]).try_into().unwrap();
        for t in group["tests"].as_array().unwrap() {
            let (msg, sig) = (h(&t["msg"]), h(&t["sig"]));
            // Signatures of other lengths never reach the check (a length error first).
            let Ok(sig) = <[u8; 64]>::try_from(sig.as_slice()) else {
                wrong_length += 1;
                continue;
            };
            match agree(&pk, &msg, &sig, &format!("tcId {}", t["tcId"])) {
                Some(true) => accepted += 1,
                Some(false) => rejected += 1,
                None => panic!("Wycheproof keys all decode"),
            }
        }
    }
    assert!(accepted > 50 && rejected > 50, "{accepted} / {rejected}");
    println!(
        "Wycheproof: {accepted} accepted, {rejected} rejected by all three, {wrong_length} of other lengths"
    );
}

#[test]
fn agrees_with_dalek_on_cctv_edge_cases() {
    let data: Value = serde_json::from_str(include_str!(
        "../../vectors/ed25519/cctv_ed25519vectors.json"
    ))
    .unwrap();
    let (mut accepted, mut rejected, mut undecodable) = (0, 0, 0);
    for t in data.as_array().unwrap() {
        let pk: [u8; 32] = h(&t["key"]).try_into().unwrap();
        let sig: [u8; 64] = h(&t["sig"]).try_into().unwrap();
        let msg = t["msg"].as_str().unwrap().as_bytes();
        match agree(&pk, msg, &sig, &format!("vector {}", t["number"])) {
            Some(true) => accepted += 1,
            Some(false) => rejected += 1,
            None => undecodable += 1,
        }
    }
    // CCTV's cases include small-order and mixed-order A and R and non-canonical encodings.
    assert!(accepted > 40 && rejected > 800, "{accepted} / {rejected}");
    println!(
        "CCTV: {accepted} accepted, {rejected} rejected by all three, {undecodable} keys that do not decode"
    );
}

/// The eight small-order points' encodings (and their non-canonical twins where y ≥ p).
fn small_order_encodings() -> Vec<[u8; 32]> {
    let mut out = Vec::new();
    for t in curve25519_dalek::constants::EIGHT_TORSION {
        let c = t.compress().to_bytes();
        out.push(c);
        let mut signed = c;
        signed[31] ^= 0x80;
        out.push(signed);
    }
    // y = p + 1 (non-canonical 1) and y = p (non-canonical 0).
    let mut p_plus_one = [0xff; 32];
    p_plus_one[0] = 0xee;
    p_plus_one[31] = 0x7f;
    out.push(p_plus_one);
    let mut p = p_plus_one;
    p[0] = 0xed;
    out.push(p);
    out
}

#[test]
fn agrees_with_dalek_on_mutated_signatures() {
    const L: [u8; 32] = [
        0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde,
        0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
    ];
    let (mut accepted, mut rejected) = (0, 0);
    let mut count = |ok: Option<bool>| match ok {
        Some(true) => accepted += 1,
        Some(false) => rejected += 1,
        None => panic!("generated keys decode"),
    };
    for i in 0..12u8 {
        let signing = SigningKey::from_bytes(&[i.wrapping_mul(37).wrapping_add(1); 32]);
        let pk = signing.verifying_key().to_bytes();
        let msg: Vec<u8> = (0..usize::from(i) * 23).map(|j| (j as u8) ^ i).collect();
        let sig = signing.sign(&msg).to_bytes();
        count(agree(&pk, &msg, &sig, "valid"));
        // One prepared key checks many signatures: several messages on the same table.
        let prepared =
            PreparedVerifyingKey::new(pk, &signing.verifying_key().to_edwards()).unwrap();
        for j in 0..4u8 {
            let m = [i, j, 7];
            assert!(prepared.verify_strict(&m, &signing.sign(&m).to_bytes()));
        }
        for bit in (0..512).step_by(if i == 0 { 1 } else { 29 }) {
            let mut bad = sig;
            bad[bit / 8] ^= 1 << (bit % 8);
            count(agree(
                &pk,
                &msg,
                &bad,
                &format!("key {i}, signature bit {bit}"),
            ));
        }
        for bit in (0..msg.len() * 8).step_by(61) {
            let mut bad = msg.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            count(agree(
                &pk,
                &bad,
                &sig,
                &format!("key {i}, message bit {bit}"),
            ));
        }
        // S + L: the same equation with a non-canonical S.
        let mut malleated = sig;
        let mut carry = 0u16;
        for (s, l) in malleated[32..].iter_mut().zip(L) {
            let v = u16::from(*s) + u16::from(l) + carry;
            *s = v as u8;
            carry = v >> 8;
        }
        count(agree(&pk, &msg, &malleated, &format!("key {i}, S + L")));
        for r in small_order_encodings() {
            let mut forged = sig;
            forged[..32].copy_from_slice(&r);
            count(agree(
                &pk,
                &msg,
                &forged,
                &format!("key {i}, small-order R {r:02x?}"),
            ));
        }
    }
    assert_eq!(accepted, 12, "only the unmodified signatures verify");
    assert!(rejected > 900, "{rejected}");
}

#[test]
fn small_order_keys_are_not_prepared_and_verify_nothing() {
    let mut checked = 0;
    for pk in small_order_encodings() {
        let Ok(key) = VerifyingKey::from_bytes(&pk) else {
            continue;
        };
        assert!(
            PreparedVerifyingKey::new(pk, &key.to_edwards()).is_none(),
            "{pk:02x?}"
        );
        // R = the identity, S = 0 satisfies the cofactorless equation for A of small order.
        let mut sig = [0u8; 64];
        sig[0] = 1;
        assert!(agree(&pk, b"anything", &sig, "small-order A").is_some_and(|ok| !ok));
        checked += 1;
    }
    assert!(checked >= 8, "{checked}");
}
