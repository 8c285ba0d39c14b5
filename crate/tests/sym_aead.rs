//! AES-256-GCM against Wycheproof and NIST CAVP (SP 800-38D) vectors.
//!
//! Vectors are embedded with `include_str!` so the same test can be built for
//! wasm32. Every case is checked and the number of checked cases is asserted.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod sym_util;

use serde::Deserialize;
use sym_util::{parse_rsp, unhex};
use veilkit::CryptoError;
use veilkit::aead::{
    IV_LEN, TAG_LEN, aes_gcm_decrypt, aes_gcm_decrypt_with_iv, aes_gcm_encrypt_with_iv,
};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WpFile {
    number_of_tests: usize,
    test_groups: Vec<WpGroup>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WpGroup {
    key_size: usize,
    iv_size: usize,
    tag_size: usize,
    tests: Vec<WpTest>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WpTest {
    tc_id: usize,
    key: String,
    iv: String,
    aad: String,
    msg: String,
    ct: String,
    tag: String,
    result: String,
}

fn is_iv_length_error(r: &Result<Vec<u8>, CryptoError>) -> bool {
    matches!(r, Err(CryptoError::InvalidLength { what: "iv", .. }))
}

#[test]
fn aes_gcm_wycheproof() {
    let file: WpFile =
        serde_json::from_str(include_str!("../../vectors/aes-gcm/aes_gcm_test.json")).unwrap();
    assert_eq!(
        file.number_of_tests,
        file.test_groups
            .iter()
            .map(|g| g.tests.len())
            .sum::<usize>()
    );

    let (mut valid, mut invalid, mut iv_rejected, mut other_key) = (0usize, 0usize, 0usize, 0usize);
    for g in &file.test_groups {
        if g.key_size != 256 {
            // AES-128/192: out of scope (veilkit is AES-256 only); the key is rejected.
            for t in &g.tests {
                let key = unhex(&t.key);
                assert_eq!(key.len() * 8, g.key_size);
                let r = aes_gcm_decrypt_with_iv(&key, &unhex(&t.iv), &unhex(&t.tag), b"");
                assert!(matches!(
                    r,
                    Err(CryptoError::InvalidLength { what: "key", .. })
                ));
                other_key += 1;
            }
            continue;
        }
        assert_eq!(g.tag_size, 128, "all 256-bit groups use 128-bit tags");
        for t in &g.tests {
            let (key, iv, aad, msg) = (unhex(&t.key), unhex(&t.iv), unhex(&t.aad), unhex(&t.msg));
            let mut ct_tag = unhex(&t.ct);
            ct_tag.extend_from_slice(&unhex(&t.tag));
            if g.iv_size != 96 {
                // GCM allows any IV size; veilkit accepts only 96-bit IVs, so every
                // such case (valid or not) must be rejected up front.
                assert_eq!(iv.len() * 8, g.iv_size);
                let enc = aes_gcm_encrypt_with_iv(&key, &iv, &msg, &aad);
                let dec = aes_gcm_decrypt_with_iv(&key, &iv, &ct_tag, &aad);
                assert!(is_iv_length_error(&enc), "tc {}: {enc:?}", t.tc_id);
                assert!(is_iv_length_error(&dec), "tc {}: {dec:?}", t.tc_id);
                iv_rejected += 1;
                continue;
            }
            let mut sealed = iv.clone();
            sealed.extend_from_slice(&ct_tag);
            match t.result.as_str() {
                "valid" => {
                    assert_eq!(
                        aes_gcm_encrypt_with_iv(&key, &iv, &msg, &aad).unwrap(),
                        ct_tag,
                        "tc {}",
                        t.tc_id
                    );
                    assert_eq!(
                        aes_gcm_decrypt_with_iv(&key, &iv, &ct_tag, &aad).unwrap(),
                        msg
                    );
                    assert_eq!(aes_gcm_decrypt(&key, &sealed, &aad).unwrap(), msg);
                    valid += 1;
                }
                "invalid" => {
                    assert_eq!(
                        aes_gcm_decrypt_with_iv(&key, &iv, &ct_tag, &aad),
                        Err(CryptoError::AuthenticationFailed),
                        "tc {}",
                        t.tc_id
                    );
                    assert_eq!(
                        aes_gcm_decrypt(&key, &sealed, &aad),
                        Err(CryptoError::AuthenticationFailed)
                    );
                    invalid += 1;
                }
                other => panic!("tc {}: unexpected result {other}", t.tc_id),
            }
        }
    }
    println!(
        "aes-gcm wycheproof: {} cases (96-bit IV: {valid} valid + {invalid} invalid; \
         {iv_rejected} other IV sizes rejected with InvalidLength); {other_key} AES-128/192 cases out of scope (key rejected)",
        valid + invalid + iv_rejected
    );
    assert_eq!((valid, invalid), (39, 27));
    assert_eq!(valid + invalid, 66);
    assert_eq!(iv_rejected, 39);
    assert_eq!(
        valid + invalid + iv_rejected + other_key,
        file.number_of_tests
    );
}

/// The records of a NIST GCM file with a 256-bit key, 96-bit IV and 128-bit tag.
fn nist_subset(text: &str) -> (usize, Vec<sym_util::Record>) {
    let all = parse_rsp(text, "Count");
    let total = all.len();
    let sub = all
        .into_iter()
        .filter(|r| {
            assert_eq!(r.head("Keylen"), "256");
            r.head("IVlen") == "96" && r.head("Taglen") == "128"
        })
        .collect();
    (total, sub)
}

#[test]
fn aes_gcm_nist_decrypt() {
    let (total, recs) = nist_subset(include_str!("../../vectors/aes-gcm/gcmDecrypt256.rsp"));
    assert_eq!(total, 7875);
    let (mut pass, mut fail) = (0usize, 0usize);
    for r in &recs {
        let (key, iv, aad) = (r.hex("Key"), r.hex("IV"), r.hex("AAD"));
        assert_eq!(iv.len(), IV_LEN);
        let mut ct_tag = r.hex("CT");
        let tag = r.hex("Tag");
        assert_eq!(tag.len(), TAG_LEN);
        ct_tag.extend_from_slice(&tag);
        let got = aes_gcm_decrypt_with_iv(&key, &iv, &ct_tag, &aad);
        if r.fail {
            assert_eq!(
                got,
                Err(CryptoError::AuthenticationFailed),
                "Count {}",
                r.get("Count")
            );
            fail += 1;
        } else {
            assert_eq!(got.unwrap(), r.hex("PT"), "Count {}", r.get("Count"));
            pass += 1;
        }
    }
    println!(
        "aes-gcm NIST gcmDecrypt256 (IV 96, tag 128): {} cases ({pass} decrypt, {fail} FAIL rejected); \
         skipped {}: other IV lengths or truncated tags (veilkit takes 96-bit IVs and 128-bit tags only)",
        pass + fail,
        total - recs.len()
    );
    assert_eq!(pass + fail, 375);
    assert_eq!(total - recs.len(), 7500);
    assert_eq!(fail, 191);
}

#[test]
fn aes_gcm_nist_encrypt() {
    let (total, recs) = nist_subset(include_str!("../../vectors/aes-gcm/gcmEncryptExtIV256.rsp"));
    assert_eq!(total, 7875);
    let mut n = 0usize;
    for r in &recs {
        assert!(!r.fail);
        let (key, iv, aad, pt) = (r.hex("Key"), r.hex("IV"), r.hex("AAD"), r.hex("PT"));
        let mut expected = r.hex("CT");
        expected.extend_from_slice(&r.hex("Tag"));
        assert_eq!(
            aes_gcm_encrypt_with_iv(&key, &iv, &pt, &aad).unwrap(),
            expected,
            "Count {}",
            r.get("Count")
        );
        assert_eq!(
            aes_gcm_decrypt_with_iv(&key, &iv, &expected, &aad).unwrap(),
            pt
        );
        n += 1;
    }
    println!(
        "aes-gcm NIST gcmEncryptExtIV256 (IV 96, tag 128): {n} cases; skipped {}: other IV lengths or \
         truncated tags (veilkit takes 96-bit IVs and 128-bit tags only)",
        total - recs.len()
    );
    assert_eq!(n, 375);
    assert_eq!(total - recs.len(), 7500);
}
