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
        assert_eq!(
            bip39::entropy_to_mnemonic(&entropy).unwrap().as_str(),
            phrase
        );
        assert_eq!(*bip39::mnemonic_to_entropy(phrase).unwrap(), entropy);
        assert_eq!(
            bip39::mnemonic_to_seed(phrase, "TREZOR")
                .unwrap()
                .as_slice(),
            seed.as_slice()
        );
        checked += 1;
    }
    println!("bip39 trezor english: {checked} cases");
    assert_eq!(checked, 24);
}

/// NFKD: the normalising functions agree with the `_nfkd` ones on normalised input
/// (what the wasm build runs after the facade's `normalize('NFKD')`), composed and
/// decomposed passphrases give one seed, and compatibility characters in a phrase decode
/// only through the normalising entry point.
#[test]
fn nfkd_entry_points_agree() {
    let phrase = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
    let composed = "p\u{e4}ssw\u{f6}rd \u{fb01} \u{2460}"; // ä, ö, the "fi" ligature, circled 1
    let decomposed = "pa\u{308}sswo\u{308}rd fi 1"; // their NFKD
    let seed = bip39::mnemonic_to_seed(phrase, composed).unwrap();
    assert_eq!(
        seed.as_slice(),
        bip39::mnemonic_to_seed(phrase, decomposed)
            .unwrap()
            .as_slice()
    );
    assert_eq!(
        seed.as_slice(),
        bip39::mnemonic_to_seed_nfkd(phrase, decomposed)
            .unwrap()
            .as_slice()
    );
    // Not normalised by the `_nfkd` entry point: a different seed (the facade must normalise).
    assert_ne!(
        seed.as_slice(),
        bip39::mnemonic_to_seed_nfkd(phrase, composed)
            .unwrap()
            .as_slice()
    );
    // The seed is PBKDF2-HMAC-SHA512(phrase, "mnemonic" ‖ NFKD(passphrase), 2048).
    let mut expected = [0u8; 64];
    let salt = format!("mnemonic{decomposed}");
    pbkdf2::pbkdf2_hmac::<sha2::Sha512>(phrase.as_bytes(), salt.as_bytes(), 2048, &mut expected);
    assert_eq!(seed.as_slice(), expected.as_slice());

    // Fullwidth letters are NFKD-equivalent to ASCII ones.
    let fullwidth: String = phrase
        .chars()
        .map(|c| {
            if c.is_ascii_lowercase() {
                char::from_u32(c as u32 - 0x61 + 0xff41).unwrap()
            } else {
                c
            }
        })
        .collect();
    assert_eq!(
        *bip39::mnemonic_to_entropy(&fullwidth).unwrap(),
        vec![0u8; 16]
    );
    assert!(matches!(
        bip39::mnemonic_to_entropy_nfkd(&fullwidth),
        Err(veilkit::CryptoError::InvalidMnemonic(_))
    ));
    assert_eq!(
        *bip39::mnemonic_to_entropy_nfkd(phrase).unwrap(),
        vec![0u8; 16]
    );
}
