//! BIP-39 vectors: trezor/python-mnemonic `vectors.json` (English, passphrase
//! "TREZOR"), copied unmodified to `vectors/bip39/trezor_vectors.json`.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use veilkit::bip39;

#[test]
fn trezor_english_vectors() {
    let v: serde_json::Value =
        serde_json::from_str(include_str!("../../vectors/bip39/trezor_vectors.json")).unwrap();
    let cases = v["english"].as_array().unwrap();
    let mut checked = 0;
    for case in cases {
        let entropy = hex::decode(case[0].as_str().unwrap()).unwrap();
        let phrase = case[1].as_str().unwrap();
        let seed = hex::decode(case[2].as_str().unwrap()).unwrap();
        assert_eq!(bip39::entropy_to_mnemonic(&entropy).unwrap().as_str(), phrase);
        assert_eq!(*bip39::mnemonic_to_entropy(phrase).unwrap(), entropy);
        assert_eq!(bip39::mnemonic_to_seed(phrase, "TREZOR").unwrap().as_slice(), seed.as_slice());
        checked += 1;
    }
    println!("bip39 trezor english: {checked} cases");
    assert_eq!(checked, 24);
}
