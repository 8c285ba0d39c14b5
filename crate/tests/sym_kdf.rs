//! HKDF-SHA-256, PBKDF2-HMAC-SHA-256 and Argon2id against Wycheproof, RFC and
//! reference-implementation vectors. Every case is checked and counted.
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
use veilkit::kdf::{
    ARGON2_MAX_MEMORY_KIB, Argon2Params, HKDF_MAX_LEN, argon2id, hkdf_sha256, pbkdf2_sha256,
};

// ---------------------------------------------------------------- HKDF

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HkdfFile {
    number_of_tests: usize,
    test_groups: Vec<HkdfGroup>,
}

#[derive(Deserialize)]
struct HkdfGroup {
    tests: Vec<HkdfTest>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HkdfTest {
    tc_id: usize,
    ikm: String,
    salt: String,
    info: String,
    size: usize,
    okm: String,
    result: String,
}

#[test]
fn hkdf_sha256_wycheproof() {
    let file: HkdfFile = serde_json::from_str(include_str!(
        "../../vectors/hkdf-sha256/hkdf_sha256_test.json"
    ))
    .unwrap();
    let (mut valid, mut invalid) = (0usize, 0usize);
    for t in file.test_groups.iter().flat_map(|g| &g.tests) {
        let got = hkdf_sha256(&unhex(&t.ikm), &unhex(&t.salt), &unhex(&t.info), t.size);
        match t.result.as_str() {
            "valid" => {
                assert_eq!(
                    got.unwrap().as_slice(),
                    unhex(&t.okm).as_slice(),
                    "tc {}",
                    t.tc_id
                );
                valid += 1;
            }
            "invalid" => {
                // SizeTooLarge: 8161 > 255 * 32.
                assert!(t.size > HKDF_MAX_LEN, "tc {}", t.tc_id);
                assert!(
                    matches!(got, Err(CryptoError::InvalidParameter(_))),
                    "tc {}",
                    t.tc_id
                );
                invalid += 1;
            }
            other => panic!("tc {}: unexpected result {other}", t.tc_id),
        }
    }
    println!(
        "hkdf-sha256 wycheproof: {} cases ({valid} valid, {invalid} invalid SizeTooLarge)",
        valid + invalid
    );
    assert_eq!(valid + invalid, 86);
    assert_eq!(invalid, 3);
    assert_eq!(valid + invalid, file.number_of_tests);
}

#[test]
fn hkdf_sha256_rfc5869() {
    let recs = parse_rsp(
        include_str!("../../vectors/hkdf-sha256/rfc-5869-HKDF-SHA256.txt"),
        "COUNT",
    );
    let mut n = 0usize;
    for r in &recs {
        assert_eq!(r.get("Hash"), "SHA-256");
        let okm = hkdf_sha256(&r.hex("IKM"), &r.hex("salt"), &r.hex("info"), r.num("L")).unwrap();
        assert_eq!(
            okm.as_slice(),
            r.hex("OKM").as_slice(),
            "COUNT {}",
            r.get("COUNT")
        );
        n += 1;
    }
    println!("hkdf-sha256 RFC 5869 A.1-A.3: {n} cases");
    assert_eq!(n, 3);
}

// ---------------------------------------------------------------- PBKDF2

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PbkdfFile {
    number_of_tests: usize,
    test_groups: Vec<PbkdfGroup>,
}

#[derive(Deserialize)]
struct PbkdfGroup {
    tests: Vec<PbkdfTest>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PbkdfTest {
    tc_id: usize,
    password: String,
    salt: String,
    iteration_count: u32,
    dk_len: usize,
    dk: String,
    result: String,
}

#[test]
fn pbkdf2_sha256_wycheproof() {
    let file: PbkdfFile = serde_json::from_str(include_str!(
        "../../vectors/pbkdf2-sha256/pbkdf2_hmacsha256_test.json"
    ))
    .unwrap();
    let mut n = 0usize;
    for t in file.test_groups.iter().flat_map(|g| &g.tests) {
        assert_eq!(t.result, "valid", "tc {}", t.tc_id);
        let dk = pbkdf2_sha256(
            &unhex(&t.password),
            &unhex(&t.salt),
            t.iteration_count,
            t.dk_len,
        )
        .unwrap();
        assert_eq!(dk.as_slice(), unhex(&t.dk).as_slice(), "tc {}", t.tc_id);
        n += 1;
    }
    println!("pbkdf2-sha256 wycheproof: {n} cases");
    assert_eq!(n, 60);
    assert_eq!(n, file.number_of_tests);
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Rfc7914File {
    tests: Vec<Rfc7914Test>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Rfc7914Test {
    password: String,
    salt: String,
    iterations: u32,
    dk_len: usize,
    dk: String,
}

#[test]
fn pbkdf2_sha256_rfc7914() {
    let file: Rfc7914File = serde_json::from_str(include_str!(
        "../../vectors/pbkdf2-sha256/rfc7914_section11.json"
    ))
    .unwrap();
    let mut n = 0usize;
    for t in &file.tests {
        let dk = pbkdf2_sha256(
            t.password.as_bytes(),
            t.salt.as_bytes(),
            t.iterations,
            t.dk_len,
        )
        .unwrap();
        assert_eq!(
            dk.as_slice(),
            unhex(&t.dk).as_slice(),
            "{} / {}",
            t.password,
            t.iterations
        );
        n += 1;
    }
    println!("pbkdf2-sha256 RFC 7914 §11: {n} cases");
    assert_eq!(n, 2);
}

// ---------------------------------------------------------------- Argon2id

struct ArgonCase {
    name: String,
    password: Vec<u8>,
    salt: Vec<u8>,
    secret: Vec<u8>,
    ad: Vec<u8>,
    params: Argon2Params,
    tag: Vec<u8>,
}

/// Runs one case. Returns `false` (skipped) if it needs more than the
/// 1 GiB wasm32 memory cap, after checking that veilkit rejects it.
fn run_argon(c: &ArgonCase) -> bool {
    let got = argon2id(&c.password, &c.salt, &c.secret, &c.ad, &c.params);
    if c.params.memory_kib > ARGON2_MAX_MEMORY_KIB {
        assert!(
            matches!(got, Err(CryptoError::InvalidParameter(_))),
            "{}",
            c.name
        );
        println!(
            "argon2id: skipped {}: needs {} KiB > 1 GiB cap",
            c.name, c.params.memory_kib
        );
        return false;
    }
    assert_eq!(got.unwrap().as_slice(), c.tag.as_slice(), "{}", c.name);
    true
}

#[derive(Deserialize)]
struct ArgonFile {
    version: u32,
    tests: Vec<ArgonJson>,
}

#[derive(Deserialize)]
struct ArgonJson {
    name: String,
    password: String,
    salt: String,
    secret: String,
    ad: String,
    t: u32,
    m_kib: u32,
    p: u32,
    #[serde(rename = "tagLen")]
    tag_len: usize,
    tag: String,
}

#[test]
fn argon2id_rfc9106_and_phc() {
    let file: ArgonFile = serde_json::from_str(include_str!(
        "../../vectors/argon2id/argon2id_v13_vectors.json"
    ))
    .unwrap();
    assert_eq!(file.version, 0x13);
    // No case exceeds the 1 GiB cap (largest: m = 2^18 KiB = 256 MiB), so none is skipped.
    let (mut run, mut skipped) = (0usize, 0usize);
    for t in &file.tests {
        let c = ArgonCase {
            name: t.name.clone(),
            password: unhex(&t.password),
            salt: unhex(&t.salt),
            secret: unhex(&t.secret),
            ad: unhex(&t.ad),
            params: Argon2Params {
                memory_kib: t.m_kib,
                iterations: t.t,
                parallelism: t.p,
                output_len: t.tag_len,
            },
            tag: unhex(&t.tag),
        };
        if run_argon(&c) {
            run += 1
        } else {
            skipped += 1
        }
    }
    println!(
        "argon2id v1.3 (RFC 9106 §5.3 + phc test.c): {run} cases, {skipped} skipped (> 1 GiB)"
    );
    assert_eq!(run + skipped, 9);
    assert_eq!(skipped, 0);
}

#[test]
fn argon2id_pyca() {
    // Format: NIST-loader style records `COUNT, length, lanes, iter, memcost,
    // [secret], pass, salt, [ad], output`; absent secret/ad mean empty.
    let recs = parse_rsp(
        include_str!("../../vectors/argon2id/pyca_argon2id.txt"),
        "COUNT",
    );
    let (mut run, mut skipped) = (0usize, 0usize);
    for r in &recs {
        let opt = |k: &str| r.fields.get(k).map(|v| unhex(v)).unwrap_or_default();
        let c = ArgonCase {
            name: format!("pyca COUNT {}", r.get("COUNT")),
            password: r.hex("pass"),
            salt: r.hex("salt"),
            secret: opt("secret"),
            ad: opt("ad"),
            params: Argon2Params {
                memory_kib: u32::try_from(r.num("memcost")).unwrap(),
                iterations: u32::try_from(r.num("iter")).unwrap(),
                parallelism: u32::try_from(r.num("lanes")).unwrap(),
                output_len: r.num("length"),
            },
            tag: r.hex("output"),
        };
        assert_eq!(c.tag.len(), c.params.output_len);
        if run_argon(&c) {
            run += 1
        } else {
            skipped += 1
        }
    }
    println!("argon2id pyca: {run} cases, {skipped} skipped (> 1 GiB)");
    assert_eq!(run + skipped, 6);
    assert_eq!(skipped, 0);
}
