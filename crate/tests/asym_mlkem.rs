//! ML-KEM-768 (FIPS 203) known-answer tests from `vectors/ml-kem-768/`:
//! Wycheproof (`mlkem_768_*`), NIST ACVP (ML-KEM-768 groups only) and C2SP/CCTV
//! (modulus-check keys, strcmp). The `*_ipd` files (FIPS 203 draft) are not used.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::io::Read;

use serde_json::Value;
use veilkit::CryptoError;
use veilkit::mlkem::{
    CT_LEN, DK_LEN, EK_LEN, mlkem_decapsulate, mlkem_encapsulate, mlkem_encapsulate_derand,
    mlkem_from_seed,
};

fn h(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().expect("hex string")).expect("valid hex")
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

fn is_len_err(r: &Result<impl Sized, CryptoError>, what: &str) -> bool {
    matches!(r, Err(CryptoError::InvalidLength { what: w, .. }) if *w == what)
}

fn flags(t: &Value) -> Vec<&str> {
    t["flags"]
        .as_array()
        .map(|a| a.iter().map(|f| f.as_str().unwrap()).collect())
        .unwrap_or_default()
}

#[test]
fn wycheproof_mlkem_768_test() {
    let data = json(include_str!("../../vectors/ml-kem-768/mlkem_768_test.json"));
    let (mut valid, mut invalid) = (0usize, 0usize);
    for group in data["testGroups"].as_array().unwrap() {
        assert_eq!(group["parameterSet"], "ML-KEM-768");
        for t in group["tests"].as_array().unwrap() {
            let id = &t["tcId"];
            let (seed, c) = (h(&t["seed"]), h(&t["c"]));
            match t["result"].as_str().unwrap() {
                "valid" => {
                    let kp = mlkem_from_seed(&seed).unwrap();
                    assert_eq!(kp.encapsulation_key, h(&t["ek"]), "tcId {id}: ek");
                    let k = mlkem_decapsulate(&kp.decapsulation_key, &c).unwrap();
                    assert_eq!(k.as_slice(), h(&t["K"]).as_slice(), "tcId {id}: K");
                    valid += 1;
                }
                "invalid" => {
                    // Either the seed or the ciphertext has the wrong length.
                    match mlkem_from_seed(&seed) {
                        Err(e) => {
                            assert_ne!(seed.len(), 64, "tcId {id}");
                            assert!(is_len_err(&Err::<(), _>(e), "seed"), "tcId {id}");
                        }
                        Ok(kp) => {
                            let r = mlkem_decapsulate(&kp.decapsulation_key, &c);
                            assert_ne!(c.len(), CT_LEN, "tcId {id}");
                            assert!(is_len_err(&r, "ciphertext"), "tcId {id}");
                        }
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
    assert_eq!((valid, invalid), (161, 40));
    println!(
        "mlkem_768_test.json: {} checked ({valid} valid, {invalid} invalid), 0 skipped",
        valid + invalid
    );
}

#[test]
fn wycheproof_mlkem_768_keygen_seed_test() {
    let data = json(include_str!(
        "../../vectors/ml-kem-768/mlkem_768_keygen_seed_test.json"
    ));
    let mut n = 0usize;
    for group in data["testGroups"].as_array().unwrap() {
        assert_eq!(group["parameterSet"], "ML-KEM-768");
        for t in group["tests"].as_array().unwrap() {
            assert_eq!(t["result"], "valid");
            let kp = mlkem_from_seed(&h(&t["seed"])).unwrap();
            assert_eq!(kp.encapsulation_key, h(&t["ek"]), "tcId {}", t["tcId"]);
            assert_eq!(
                kp.decapsulation_key.as_slice(),
                h(&t["dk"]).as_slice(),
                "tcId {}",
                t["tcId"]
            );
            n += 1;
        }
    }
    assert_eq!(n as u64, data["numberOfTests"].as_u64().unwrap());
    assert_eq!(n, 100);
    println!("mlkem_768_keygen_seed_test.json: {n} checked (ek and expanded dk), 0 skipped");
}

#[test]
fn wycheproof_mlkem_768_encaps_test() {
    let data = json(include_str!(
        "../../vectors/ml-kem-768/mlkem_768_encaps_test.json"
    ));
    let (mut valid, mut modulus, mut length) = (0usize, 0usize, 0usize);
    let mut overflow_flagged = 0usize;
    for group in data["testGroups"].as_array().unwrap() {
        assert_eq!(group["parameterSet"], "ML-KEM-768");
        for t in group["tests"].as_array().unwrap() {
            let id = &t["tcId"];
            let (ek, m) = (h(&t["ek"]), h(&t["m"]));
            let r = mlkem_encapsulate_derand(&ek, &m);
            match t["result"].as_str().unwrap() {
                "valid" => {
                    let (c, k) = r.unwrap();
                    assert_eq!(c, h(&t["c"]), "tcId {id}: c");
                    assert_eq!(k.as_slice(), h(&t["K"]).as_slice(), "tcId {id}: K");
                    valid += 1;
                }
                "invalid" if ek.len() == EK_LEN => {
                    // "Public key not reduced" / ModulusOverflow: a coefficient >= q.
                    assert!(matches!(r, Err(CryptoError::InvalidKey(_))), "tcId {id}");
                    assert!(
                        matches!(mlkem_encapsulate(&ek), Err(CryptoError::InvalidKey(_))),
                        "tcId {id}"
                    );
                    if flags(t).contains(&"ModulusOverflow") {
                        overflow_flagged += 1;
                    }
                    modulus += 1;
                }
                "invalid" => {
                    assert!(is_len_err(&r, "encapsulationKey"), "tcId {id}");
                    length += 1;
                }
                other => panic!("tcId {id}: unexpected result {other}"),
            }
        }
    }
    let total = valid + modulus + length;
    assert_eq!(total as u64, data["numberOfTests"].as_u64().unwrap());
    assert_eq!((total, overflow_flagged), (265, 12));
    println!(
        "mlkem_768_encaps_test.json: {total} checked ({valid} valid, {modulus} modulus-check \
         -> InvalidKey incl. {overflow_flagged} ModulusOverflow, {length} wrong length), 0 skipped"
    );
}

#[test]
fn wycheproof_mlkem_768_semi_expanded_decaps_test() {
    let data = json(include_str!(
        "../../vectors/ml-kem-768/mlkem_768_semi_expanded_decaps_test.json"
    ));
    let mut n = 0usize;
    for group in data["testGroups"].as_array().unwrap() {
        assert_eq!(group["parameterSet"], "ML-KEM-768");
        for t in group["tests"].as_array().unwrap() {
            let id = &t["tcId"];
            let r = mlkem_decapsulate(&h(&t["dk"]), &h(&t["c"]));
            let f = flags(t);
            match t["result"].as_str().unwrap() {
                "valid" => assert_eq!(r.unwrap().as_slice(), h(&t["K"]).as_slice(), "tcId {id}"),
                "invalid" if f.contains(&"IncorrectCiphertextLength") => {
                    assert!(is_len_err(&r, "ciphertext"), "tcId {id}");
                }
                "invalid" if f.contains(&"IncorrectDecapsulationKeyLength") => {
                    assert!(is_len_err(&r, "decapsulationKey"), "tcId {id}");
                }
                "invalid" if f.contains(&"InvalidDecapsulationKey") => {
                    assert!(matches!(r, Err(CryptoError::InvalidKey(_))), "tcId {id}");
                }
                other => panic!("tcId {id}: unexpected result {other} {f:?}"),
            }
            n += 1;
        }
    }
    assert_eq!(n as u64, data["numberOfTests"].as_u64().unwrap());
    assert_eq!(n, 9);
    println!(
        "mlkem_768_semi_expanded_decaps_test.json: {n} checked (3 valid, 6 invalid), 0 skipped"
    );
}

#[test]
fn acvp_ml_kem_keygen() {
    let data = json(include_str!(
        "../../vectors/ml-kem-768/acvp_ML-KEM-keyGen.json"
    ));
    let (mut n, mut skipped) = (0usize, 0usize);
    for group in data["testGroups"].as_array().unwrap() {
        let tests = group["tests"].as_array().unwrap();
        if group["parameterSet"] != "ML-KEM-768" {
            skipped += tests.len();
            continue;
        }
        for t in tests {
            let seed = [h(&t["d"]), h(&t["z"])].concat();
            let kp = mlkem_from_seed(&seed).unwrap();
            assert_eq!(kp.encapsulation_key, h(&t["ek"]), "tcId {}", t["tcId"]);
            assert_eq!(
                kp.decapsulation_key.as_slice(),
                h(&t["dk"]).as_slice(),
                "tcId {}",
                t["tcId"]
            );
            n += 1;
        }
    }
    assert_eq!((n, skipped), (25, 50));
    println!(
        "acvp_ML-KEM-keyGen.json: {n} checked (ML-KEM-768), {skipped} skipped (ML-KEM-512/1024 not provided)"
    );
}

#[test]
fn acvp_ml_kem_encap_decap() {
    let data = json(include_str!(
        "../../vectors/ml-kem-768/acvp_ML-KEM-encapDecap.json"
    ));
    let (mut enc, mut dec, mut skipped) = (0usize, 0usize, 0usize);
    for group in data["testGroups"].as_array().unwrap() {
        let tests = group["tests"].as_array().unwrap();
        if group["parameterSet"] != "ML-KEM-768" {
            skipped += tests.len();
            continue;
        }
        for t in tests {
            let id = &t["tcId"];
            let (c, k) = (h(&t["c"]), h(&t["k"]));
            match group["function"].as_str().unwrap() {
                "encapsulation" => {
                    let (c2, k2) = mlkem_encapsulate_derand(&h(&t["ek"]), &h(&t["m"])).unwrap();
                    assert_eq!(c2, c, "tcId {id}: c");
                    assert_eq!(k2.as_slice(), k.as_slice(), "tcId {id}: k");
                    let k3 = mlkem_decapsulate(&h(&t["dk"]), &c).unwrap();
                    assert_eq!(k3.as_slice(), k.as_slice(), "tcId {id}: decaps");
                    enc += 1;
                }
                "decapsulation" => {
                    // Includes "modify ciphertext" cases: k is the implicit-rejection key.
                    let k2 = mlkem_decapsulate(&h(&group["dk"]), &c).unwrap();
                    assert_eq!(k2.as_slice(), k.as_slice(), "tcId {id} ({})", t["reason"]);
                    dec += 1;
                }
                other => panic!("unexpected function {other}"),
            }
        }
    }
    assert_eq!((enc, dec, skipped), (25, 10, 70));
    println!(
        "acvp_ML-KEM-encapDecap.json: {} checked (ML-KEM-768: {enc} encapsulation, {dec} \
         decapsulation), {skipped} skipped (ML-KEM-512/1024 not provided)",
        enc + dec
    );
}

#[test]
fn cctv_modulus_ml_kem_768() {
    let gz = include_bytes!("../../vectors/ml-kem-768/cctv_modulus_ML-KEM-768.txt.gz");
    let mut text = String::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_string(&mut text)
        .unwrap();
    let mut n = 0usize;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let ek = hex::decode(line.trim()).unwrap();
        assert_eq!(ek.len(), EK_LEN);
        assert!(
            matches!(
                mlkem_encapsulate_derand(&ek, &[0x42; 32]),
                Err(CryptoError::InvalidKey(_))
            ),
            "line {n}"
        );
        assert!(
            matches!(mlkem_encapsulate(&ek), Err(CryptoError::InvalidKey(_))),
            "line {n}"
        );
        n += 1;
    }
    assert_eq!(n, 780);
    println!("cctv_modulus_ML-KEM-768.txt.gz: {n} checked (all rejected: InvalidKey), 0 skipped");
}

#[test]
fn cctv_strcmp_ml_kem_768() {
    let text = include_str!("../../vectors/ml-kem-768/cctv_strcmp_ML-KEM-768.txt");
    let field = |name: &str| {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{name} = ")))
            .unwrap_or_else(|| panic!("missing {name}"));
        hex::decode(line.split('=').nth(1).unwrap().trim()).unwrap()
    };
    let (dk, c, k) = (field("dk"), field("c"), field("K"));
    assert_eq!((dk.len(), c.len()), (DK_LEN, CT_LEN));
    assert_eq!(mlkem_decapsulate(&dk, &c).unwrap().as_slice(), k.as_slice());
    println!(
        "cctv_strcmp_ML-KEM-768.txt: 1 checked (expanded dk, c starting with 0x00), 0 skipped"
    );
}

/// A 2400-byte decapsulation key `dk_PKE ‖ ek ‖ H(ek) ‖ z` with `ek` replaced
/// and `H(ek) = SHA3-256(ek)` recomputed, so that the hash check passes and
/// only the modulus check of the embedded `ek` (FIPS 203 §7.3) can refuse it.
fn dk_with_embedded_ek(dk: &[u8], ek: &[u8]) -> Vec<u8> {
    const EK_AT: usize = 1152;
    const H_AT: usize = EK_AT + EK_LEN;
    assert_eq!(
        libcrux_sha3::sha256(&dk[EK_AT..H_AT]),
        dk[H_AT..H_AT + 32],
        "H(ek) is SHA3-256 of the embedded ek"
    );
    let mut out = dk.to_vec();
    out[EK_AT..H_AT].copy_from_slice(ek);
    out[H_AT..H_AT + 32].copy_from_slice(&libcrux_sha3::sha256(ek));
    out
}

/// Sets the first 12-bit coefficient of an encoded `ek` to `v`.
fn with_first_coefficient(ek: &[u8], v: u16) -> Vec<u8> {
    let mut out = ek.to_vec();
    out[0] = (v & 0xff) as u8;
    out[1] = (out[1] & 0xf0) | (v >> 8) as u8;
    out
}

#[test]
fn decapsulation_key_with_an_out_of_range_embedded_ek() {
    let kp = mlkem_from_seed(&[0x5c; 64]).unwrap();
    let (ct, k) = mlkem_encapsulate_derand(&kp.encapsulation_key, &[7; 32]).unwrap();
    let dk = kp.decapsulation_key.as_slice();
    // Control: the key rebuilt from its own ek is unchanged and decapsulates.
    assert_eq!(dk_with_embedded_ek(dk, &kp.encapsulation_key), dk);
    assert_eq!(mlkem_decapsulate(dk, &ct).unwrap().as_slice(), k.as_slice());
    // Coefficient q − 1 = 3328 is in range: no error (the ciphertext no longer
    // re-encrypts, so implicit rejection gives another key).
    let edge = dk_with_embedded_ek(dk, &with_first_coefficient(&kp.encapsulation_key, 3328));
    assert_ne!(
        mlkem_decapsulate(&edge, &ct).unwrap().as_slice(),
        k.as_slice()
    );
    // q = 3329 and 0xFFF are not, whatever H(ek) says.
    for v in [3329u16, 0xfff] {
        let bad = with_first_coefficient(&kp.encapsulation_key, v);
        assert!(matches!(
            mlkem_encapsulate(&bad),
            Err(CryptoError::InvalidKey(_))
        ));
        assert!(
            matches!(
                mlkem_decapsulate(&dk_with_embedded_ek(dk, &bad), &ct),
                Err(CryptoError::InvalidKey(_))
            ),
            "coefficient {v}"
        );
    }
    // Every C2SP/CCTV modulus-check key (one coefficient out of range each),
    // embedded with a correct hash.
    let gz = include_bytes!("../../vectors/ml-kem-768/cctv_modulus_ML-KEM-768.txt.gz");
    let mut text = String::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_string(&mut text)
        .unwrap();
    let mut n = 0usize;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let ek = hex::decode(line.trim()).unwrap();
        let r = mlkem_decapsulate(&dk_with_embedded_ek(dk, &ek), &ct);
        assert!(matches!(r, Err(CryptoError::InvalidKey(_))), "line {n}");
        n += 1;
    }
    assert_eq!(n, 780);
}
