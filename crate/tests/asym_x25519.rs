//! X25519 known-answer tests: Wycheproof `x25519_test.json` and RFC 7748 §5.2
//! (`rfc7748.txt`), from `vectors/x25519/`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use serde_json::Value;
use veilkit::CryptoError;
use veilkit::x25519::{x25519_dh, x25519_public};

fn h(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().expect("hex string")).expect("valid hex")
}

#[test]
fn wycheproof_x25519_test() {
    let data: Value =
        serde_json::from_str(include_str!("../../vectors/x25519/x25519_test.json")).unwrap();
    let (mut valid, mut acceptable_ok, mut acceptable_weak) = (0usize, 0usize, 0usize);
    for group in data["testGroups"].as_array().unwrap() {
        assert_eq!(group["curve"], "curve25519");
        for t in group["tests"].as_array().unwrap() {
            let id = &t["tcId"];
            let shared = h(&t["shared"]);
            let got = x25519_dh(&h(&t["private"]), &h(&t["public"]));
            match t["result"].as_str().unwrap() {
                "valid" => {
                    assert_eq!(
                        got.expect("valid case").as_slice(),
                        shared.as_slice(),
                        "tcId {id}"
                    );
                    valid += 1;
                }
                "acceptable" if shared.iter().all(|&b| b == 0) => {
                    assert_eq!(got, Err(CryptoError::WeakKey), "tcId {id}");
                    acceptable_weak += 1;
                }
                "acceptable" => {
                    assert_eq!(
                        got.expect("acceptable case").as_slice(),
                        shared.as_slice(),
                        "tcId {id}"
                    );
                    acceptable_ok += 1;
                }
                other => panic!("tcId {id}: unexpected result {other}"),
            }
        }
    }
    let total = valid + acceptable_ok + acceptable_weak;
    assert_eq!(total as u64, data["numberOfTests"].as_u64().unwrap());
    assert_eq!(total, 518);
    println!(
        "x25519_test.json: {total} checked ({valid} valid, {acceptable_ok} acceptable with \
         expected secret, {acceptable_weak} acceptable all-zero -> WeakKey), 0 skipped"
    );
}

#[test]
fn rfc7748_section_5_2() {
    let text = include_str!("../../vectors/x25519/rfc7748.txt");
    let mut count = 0;
    for block in text.split("COUNT = ").skip(1) {
        let field = |name: &str| {
            let line = block
                .lines()
                .find(|l| l.starts_with(name))
                .unwrap_or_else(|| panic!("missing {name}"));
            hex::decode(line.split('=').nth(1).unwrap().trim()).unwrap()
        };
        let out = x25519_dh(&field("INPUT_SCALAR"), &field("INPUT_U")).unwrap();
        assert_eq!(out.as_slice(), field("OUTPUT_U").as_slice());
        count += 1;
    }
    assert_eq!(count, 3);
    // The third case is X25519(9, 9): the public key of the scalar 9.
    let mut nine = [0u8; 32];
    nine[0] = 9;
    assert_eq!(
        hex::encode(x25519_public(&nine).unwrap()),
        "422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079"
    );
    println!("rfc7748.txt: {count} checked, 0 skipped");
}
