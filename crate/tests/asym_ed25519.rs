//! Ed25519 known-answer tests: Wycheproof `ed25519_test.json`, RFC 8032 §7.1
//! TEST 1–3 (transcribed below) and C2SP/CCTV `ed25519vectors.json` edge cases,
//! from `vectors/ed25519/`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::collections::BTreeMap;

use serde_json::Value;
use veilkit::CryptoError;
use veilkit::ed25519::{ed25519_from_seed, ed25519_sign, ed25519_verify};

fn h(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().expect("hex string")).expect("valid hex")
}

#[test]
fn wycheproof_ed25519_test() {
    let data: Value =
        serde_json::from_str(include_str!("../../vectors/ed25519/ed25519_test.json")).unwrap();
    let (mut valid, mut invalid) = (0usize, 0usize);
    for group in data["testGroups"].as_array().unwrap() {
        let pk = h(&group["publicKey"]["pk"]);
        for t in group["tests"].as_array().unwrap() {
            let id = &t["tcId"];
            let (msg, sig) = (h(&t["msg"]), h(&t["sig"]));
            let got = ed25519_verify(&pk, &msg, &sig);
            match t["result"].as_str().unwrap() {
                "valid" => {
                    assert_eq!(got, Ok(()), "tcId {id}");
                    valid += 1;
                }
                "invalid" => {
                    if sig.len() == 64 {
                        assert_eq!(got, Err(CryptoError::InvalidSignature), "tcId {id}");
                    } else {
                        assert!(
                            matches!(
                                got,
                                Err(CryptoError::InvalidLength {
                                    what: "signature",
                                    ..
                                })
                            ),
                            "tcId {id}: {got:?}"
                        );
                    }
                    invalid += 1;
                }
                other => panic!("tcId {id}: unexpected result {other}"),
            }
        }
    }
    assert_eq!(
        (valid + invalid) as u64,
        data["numberOfTests"].as_u64().unwrap()
    );
    assert_eq!((valid, invalid), (88, 63));
    println!(
        "ed25519_test.json: {} checked ({valid} valid, {invalid} invalid), 0 skipped",
        valid + invalid
    );
}

/// RFC 8032 §7.1, TEST 1, TEST 2 and TEST 3 (secret key = 32-byte seed).
/// These are also lines 1–3 of the SUPERCOP `sign.input` list.
const RFC8032: [(&str, &str, &str, &str); 3] = [
    (
        "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    (
        "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
    (
        "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "af82",
        "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
    ),
];

#[test]
fn rfc8032_section_7_1() {
    for (i, (sk, pk, msg, sig)) in RFC8032.iter().enumerate() {
        let (sk, pk, msg, sig) = (
            hex::decode(sk).unwrap(),
            hex::decode(pk).unwrap(),
            hex::decode(msg).unwrap(),
            hex::decode(sig).unwrap(),
        );
        let kp = ed25519_from_seed(&sk).unwrap();
        assert_eq!(kp.public.as_slice(), pk.as_slice(), "TEST {}", i + 1);
        assert_eq!(&kp.secret[..32], sk.as_slice());
        assert_eq!(
            ed25519_sign(&sk, &msg).unwrap().as_slice(),
            sig.as_slice(),
            "TEST {}",
            i + 1
        );
        assert_eq!(
            ed25519_sign(kp.secret.as_slice(), &msg).unwrap().as_slice(),
            sig.as_slice()
        );
        ed25519_verify(&pk, &msg, &sig).unwrap();
    }
    println!("RFC 8032 §7.1: 3 checked (TEST 1-3: keygen, sign 32/64-byte key, verify), 0 skipped");
}

/// CCTV edge cases for A and R. `verify_strict` semantics: reject small-order A
/// or R, non-canonical encodings, and (cofactorless equation) any case whose
/// low-order components do not cancel. The only accepted flags are therefore
/// `low_order_component_A` / `low_order_component_R` (mixed-order points).
#[test]
fn cctv_ed25519_vectors() {
    let data: Value = serde_json::from_str(include_str!(
        "../../vectors/ed25519/cctv_ed25519vectors.json"
    ))
    .unwrap();
    const ACCEPTED_FLAGS: [&str; 2] = ["low_order_component_A", "low_order_component_R"];
    let (mut accepted, mut rejected) = (0usize, 0usize);
    let mut rejected_by_flag: BTreeMap<String, usize> = BTreeMap::new();
    for t in data.as_array().unwrap() {
        let n = &t["number"];
        let flags: Vec<&str> = t["flags"]
            .as_array()
            .map(|a| a.iter().map(|f| f.as_str().unwrap()).collect())
            .unwrap_or_default();
        let expect_ok = flags.iter().all(|f| ACCEPTED_FLAGS.contains(f));
        let got = ed25519_verify(
            &h(&t["key"]),
            t["msg"].as_str().unwrap().as_bytes(),
            &h(&t["sig"]),
        );
        if expect_ok {
            assert_eq!(got, Ok(()), "vector {n} flags {flags:?}");
            accepted += 1;
        } else {
            assert_eq!(
                got,
                Err(CryptoError::InvalidSignature),
                "vector {n} flags {flags:?}"
            );
            rejected += 1;
            for f in flags.iter().filter(|f| !ACCEPTED_FLAGS.contains(f)) {
                *rejected_by_flag.entry((*f).to_owned()).or_default() += 1;
            }
        }
    }
    assert_eq!(accepted + rejected, 914);
    println!(
        "cctv_ed25519vectors.json: {} checked ({accepted} accepted: flags only \
         low_order_component_A/R or none; {rejected} rejected), 0 skipped; \
         rejecting flags seen: {rejected_by_flag:?}",
        accepted + rejected
    );
}
