//! X-Wing known-answer tests: `vectors/x-wing/xwing_test-vectors.json`
//! (draft-connolly-cfrg-xwing-kem test vectors: seed -> pk/sk, eseed -> ct/ss, decaps).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use serde_json::Value;
use veilkit::xwing::{
    CT_LEN, PK_LEN, SK_LEN, xwing_decapsulate, xwing_encapsulate, xwing_encapsulate_derand,
    xwing_from_seed,
};

fn h(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().expect("hex string")).expect("valid hex")
}

#[test]
fn xwing_test_vectors() {
    let data: Value =
        serde_json::from_str(include_str!("../../vectors/x-wing/xwing_test-vectors.json")).unwrap();
    let mut count = 0;
    for (i, t) in data.as_array().unwrap().iter().enumerate() {
        let (seed, sk, pk) = (h(&t["seed"]), h(&t["sk"]), h(&t["pk"]));
        let (eseed, ct, ss) = (h(&t["eseed"]), h(&t["ct"]), h(&t["ss"]));
        assert_eq!(
            (sk.len(), pk.len(), ct.len()),
            (SK_LEN, PK_LEN, CT_LEN),
            "vector {i}"
        );
        let kp = xwing_from_seed(&seed).unwrap();
        assert_eq!(kp.secret.as_slice(), sk.as_slice(), "vector {i}: sk");
        assert_eq!(kp.public, pk, "vector {i}: pk");
        let (ct2, ss2) = xwing_encapsulate_derand(&pk, &eseed).unwrap();
        assert_eq!(ct2, ct, "vector {i}: ct");
        assert_eq!(ss2.as_slice(), ss.as_slice(), "vector {i}: ss (encaps)");
        assert_eq!(
            xwing_decapsulate(&sk, &ct).unwrap().as_slice(),
            ss.as_slice(),
            "vector {i}: ss (decaps)"
        );
        // A random encapsulation to the same key round-trips.
        let (ct3, ss3) = xwing_encapsulate(&pk).unwrap();
        assert_eq!(*xwing_decapsulate(&sk, &ct3).unwrap(), *ss3);
        count += 1;
    }
    assert_eq!(count, 3);
    println!("xwing_test-vectors.json: {count} checked (keygen, encaps, decaps each), 0 skipped");
}
