//! HPKE sealed-box known-answer tests (`crate::hpke`):
//! - `vectors/hpke/xwing_hkdfsha256_aes256gcm.json`: veilkit's exact suite (X-Wing,
//!   HKDF-SHA256, AES-256-GCM), derandomised vectors computed by the independent
//!   `@hpke/core` + `@hpke/hybridkem-x-wing` (`vectors/hpke/generate.mjs`): the sealed
//!   box is byte-identical, opens, and every export matches;
//! - the draft's X-Wing vector (`vectors/x-wing/hpke-pq_test-vectors.json`, ChaCha20-Poly1305
//!   suite) checks the key schedule in the unit tests of `crate/src/hpke.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use serde_json::Value;
use veilkit::CryptoError;
use veilkit::hpke;

fn h(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().unwrap()).unwrap()
}

#[test]
fn independent_library_vectors() {
    let file: Value = serde_json::from_str(include_str!(
        "../../vectors/hpke/xwing_hkdfsha256_aes256gcm.json"
    ))
    .unwrap();
    assert_eq!(file["kem_id"], hpke::KEM_ID);
    assert_eq!(file["kdf_id"], hpke::KDF_ID);
    assert_eq!(file["aead_id"], hpke::AEAD_ID);
    assert_eq!(h(&file["suite_id"]), hpke::SUITE_ID.to_vec());
    let tests = file["tests"].as_array().unwrap();
    let (mut sealed_count, mut export_count) = (0, 0);
    for (i, t) in tests.iter().enumerate() {
        let (sk, pk, ekm) = (h(&t["sk"]), h(&t["pk"]), h(&t["ekm"]));
        let (info, aad, pt) = (h(&t["info"]), h(&t["aad"]), h(&t["pt"]));
        assert_eq!(
            veilkit::xwing::xwing_from_seed(&sk).unwrap().public,
            pk,
            "{i}: pk"
        );
        let mut expected = h(&t["enc"]);
        expected.extend_from_slice(&h(&t["ct"]));
        let sealed = hpke::seal_derand(&pk, &ekm, &info, &aad, &pt).unwrap();
        assert_eq!(sealed, expected, "{i}: sealed box");
        assert_eq!(
            *hpke::open(&sk, &expected, &info, &aad).unwrap(),
            pt,
            "{i}: open"
        );
        let mut bad = expected.clone();
        bad[i * 131 % expected.len()] ^= 0x40;
        assert_eq!(
            hpke::open(&sk, &bad, &info, &aad),
            Err(CryptoError::AuthenticationFailed)
        );
        sealed_count += 1;
        for e in t["exports"].as_array().unwrap() {
            let ctx = h(&e["exporterContext"]);
            let len = usize::try_from(e["L"].as_u64().unwrap()).unwrap();
            let want = h(&e["exportedValue"]);
            let sent = hpke::send_export_derand(&pk, &ekm, &info, &ctx, len).unwrap();
            assert_eq!(sent.enc, h(&t["enc"]), "{i}: export enc");
            assert_eq!(*sent.secret, want, "{i}: sender export");
            let got = hpke::receive_export(&sk, &sent.enc, &info, &ctx, len).unwrap();
            assert_eq!(*got, want, "{i}: receiver export");
            export_count += 1;
        }
    }
    assert_eq!((sealed_count, export_count), (8, 25));
    println!(
        "hpke vectors: {sealed_count} sealed boxes, {export_count} exports checked, 0 skipped"
    );
}
