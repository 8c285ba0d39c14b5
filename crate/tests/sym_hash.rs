//! SHA-256 (NIST SHAVS), HMAC-SHA-256 (Wycheproof, RFC 4231) and BLAKE3
//! (official test vectors). Every case is checked and counted.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::cast_possible_truncation
)]

mod sym_util;

use serde::Deserialize;
use sym_util::{parse_rsp, unhex};
use veilkit::CryptoError;
use veilkit::hash::{
    Sha256, blake3_derive_key, blake3_hash, blake3_keyed, hmac_sha256, hmac_sha256_verify, sha256,
};

// ---------------------------------------------------------------- SHA-256

fn sha256_msg_file(text: &str) -> usize {
    let recs = parse_rsp(text, "Len");
    for r in &recs {
        assert_eq!(r.head("L"), "32");
        let bits = r.num("Len");
        assert_eq!(bits % 8, 0, "byte-oriented vectors only");
        // `Len = 0` is written with a placeholder `Msg = 00`.
        let msg = if bits == 0 { Vec::new() } else { r.hex("Msg") };
        assert_eq!(msg.len() * 8, bits);
        let md = r.hex("MD");
        assert_eq!(sha256(&msg).as_slice(), md.as_slice(), "Len {bits}");
        // Streaming wrapper, uneven chunks.
        let mut h = Sha256::new();
        for chunk in msg.chunks(7) {
            h.update(chunk);
        }
        assert_eq!(
            h.finalize().as_slice(),
            md.as_slice(),
            "Len {bits} (streaming)"
        );
    }
    recs.len()
}

#[test]
fn sha256_nist_short_and_long() {
    let short = sha256_msg_file(include_str!("../../vectors/sha256-hmac/SHA256ShortMsg.rsp"));
    let long = sha256_msg_file(include_str!("../../vectors/sha256-hmac/SHA256LongMsg.rsp"));
    println!("sha256 NIST ShortMsg: {short} cases");
    println!("sha256 NIST LongMsg: {long} cases");
    assert_eq!(short, 65);
    assert_eq!(long, 64);
}

#[test]
fn sha256_nist_monte() {
    // SHAVS Monte Carlo: for each of 100 checkpoints, MD0 = MD1 = MD2 = Seed,
    // then 1000 iterations of MD_i = SHA256(MD_{i-3} || MD_{i-2} || MD_{i-1});
    // the checkpoint is MD_1002, which becomes the next Seed.
    let text = include_str!("../../vectors/sha256-hmac/SHA256Monte.rsp");
    let recs = parse_rsp(text, "COUNT");
    let mut seed: [u8; 32] = unhex(recs[0].head("Seed")).try_into().unwrap();
    for (j, r) in recs.iter().enumerate() {
        assert_eq!(r.num("COUNT"), j);
        let (mut a, mut b, mut c) = (seed, seed, seed);
        for _ in 0..1000 {
            let mut h = Sha256::new();
            h.update(&a);
            h.update(&b);
            h.update(&c);
            (a, b, c) = (b, c, h.finalize());
        }
        seed = c;
        assert_eq!(seed.as_slice(), r.hex("MD").as_slice(), "checkpoint {j}");
    }
    println!("sha256 NIST Monte: {} checkpoints", recs.len());
    assert_eq!(recs.len(), 100);
}

// ---------------------------------------------------------------- HMAC-SHA-256

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MacFile {
    number_of_tests: usize,
    test_groups: Vec<MacGroup>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MacGroup {
    tag_size: usize,
    tests: Vec<MacTest>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MacTest {
    tc_id: usize,
    key: String,
    msg: String,
    tag: String,
    result: String,
}

#[test]
fn hmac_sha256_wycheproof() {
    let file: MacFile = serde_json::from_str(include_str!(
        "../../vectors/sha256-hmac/hmac_sha256_test.json"
    ))
    .unwrap();
    let (mut valid, mut invalid) = (0usize, 0usize);
    for g in &file.test_groups {
        let tag_len = g.tag_size / 8;
        for t in &g.tests {
            let (key, msg, tag) = (unhex(&t.key), unhex(&t.msg), unhex(&t.tag));
            assert_eq!(tag.len(), tag_len, "tc {}", t.tc_id);
            match t.result.as_str() {
                "valid" => {
                    assert_eq!(
                        &hmac_sha256(&key, &msg)[..tag_len],
                        tag.as_slice(),
                        "tc {}",
                        t.tc_id
                    );
                    hmac_sha256_verify(&key, &msg, &tag).unwrap();
                    valid += 1;
                }
                "invalid" => {
                    assert_eq!(
                        hmac_sha256_verify(&key, &msg, &tag),
                        Err(CryptoError::AuthenticationFailed),
                        "tc {}",
                        t.tc_id
                    );
                    invalid += 1;
                }
                other => panic!("tc {}: unexpected result {other}", t.tc_id),
            }
        }
    }
    println!(
        "hmac-sha256 wycheproof: {} cases ({valid} valid, {invalid} invalid; 128- and 256-bit tags)",
        valid + invalid
    );
    assert_eq!(valid + invalid, 174);
    assert_eq!(valid + invalid, file.number_of_tests);
    assert_eq!(invalid, 108);
}

#[test]
fn hmac_sha256_rfc4231() {
    // RFC 4231 cases 1-4, 6, 7 (the file omits the truncated-output case 5).
    let recs = parse_rsp(
        include_str!("../../vectors/sha256-hmac/rfc-4231-sha256.txt"),
        "Len",
    );
    for r in &recs {
        let (key, msg, md) = (r.hex("Key"), r.hex("Msg"), r.hex("MD"));
        assert_eq!(
            hmac_sha256(&key, &msg).as_slice(),
            md.as_slice(),
            "Len {}",
            r.get("Len")
        );
        hmac_sha256_verify(&key, &msg, &md).unwrap();
        hmac_sha256_verify(&key, &msg, &md[..16]).unwrap();
    }
    println!("hmac-sha256 RFC 4231: {} cases", recs.len());
    assert_eq!(recs.len(), 6);
}

// ---------------------------------------------------------------- BLAKE3

#[derive(Deserialize)]
struct Blake3File {
    key: String,
    context_string: String,
    cases: Vec<Blake3Case>,
}

#[derive(Deserialize)]
struct Blake3Case {
    input_len: usize,
    hash: String,
    keyed_hash: String,
    derive_key: String,
}

#[test]
fn blake3_official() {
    let file: Blake3File =
        serde_json::from_str(include_str!("../../vectors/blake3/test_vectors.json")).unwrap();
    let key = file.key.as_bytes();
    assert_eq!(key.len(), 32);
    let mut n = 0usize;
    for c in &file.cases {
        let input: Vec<u8> = (0..c.input_len).map(|i| (i % 251) as u8).collect();
        let (h, k, d) = (unhex(&c.hash), unhex(&c.keyed_hash), unhex(&c.derive_key));
        assert_eq!((h.len(), k.len(), d.len()), (131, 131, 131));
        let len = c.input_len;
        // Full 131-byte extended output and the default 32-byte digest.
        assert_eq!(blake3_hash(&input, 131).unwrap(), h, "hash {len}");
        assert_eq!(blake3_hash(&input, 32).unwrap(), h[..32], "hash {len} / 32");
        assert_eq!(blake3_keyed(key, &input, 131).unwrap(), k, "keyed {len}");
        assert_eq!(
            blake3_keyed(key, &input, 32).unwrap(),
            k[..32],
            "keyed {len} / 32"
        );
        assert_eq!(
            blake3_derive_key(&file.context_string, &input, 131)
                .unwrap()
                .as_slice(),
            d.as_slice(),
            "derive {len}"
        );
        assert_eq!(
            blake3_derive_key(&file.context_string, &input, 32)
                .unwrap()
                .as_slice(),
            &d[..32],
            "derive {len} / 32"
        );
        n += 1;
    }
    println!(
        "blake3 official: {n} input lengths x {{hash, keyed_hash, derive_key}} x {{131, 32}} bytes"
    );
    assert_eq!(n, 35);
}
