//! Properties of the sealed box's nonce use (`crate::hpke`, docs/SEALED.md),
//! checked against an independent RFC 9180 key schedule written here from
//! the RFC over HMAC-SHA-256 (the known-answer vectors of
//! `hpke_vectors.rs` are the other check): the single message of a context
//! uses sequence number 0, so its nonce is `base_nonce`; a box sealed under
//! any other sequence number does not open; and no two seals share a key
//! or a nonce.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::collections::HashSet;

use veilkit::aead::{aes_gcm_decrypt_with_iv, aes_gcm_encrypt_with_iv};
use veilkit::hash::hmac_sha256;
use veilkit::{CryptoError, hpke, xwing};

/// `"HPKE" ‖ I2OSP(0x647a, 2) ‖ I2OSP(0x0001, 2) ‖ I2OSP(0x0002, 2)`: X-Wing,
/// HKDF-SHA256, AES-256-GCM.
const SUITE_ID: &[u8] = b"HPKE\x64\x7a\x00\x01\x00\x02";

/// RFC 9180 §4 `LabeledExtract` (HKDF-Extract = HMAC(salt, ikm); an empty salt
/// is HMAC's zero key).
fn labeled_extract(salt: &[u8], label: &[u8], ikm: &[u8]) -> [u8; 32] {
    hmac_sha256(salt, &[b"HPKE-v1", SUITE_ID, label, ikm].concat())
}

/// RFC 9180 §4 `LabeledExpand` for `L ≤ 32` (one HKDF-Expand block).
fn labeled_expand(prk: &[u8; 32], label: &[u8], info: &[u8], len: u16) -> Vec<u8> {
    let labeled = [
        &len.to_be_bytes()[..],
        b"HPKE-v1",
        SUITE_ID,
        label,
        info,
        &[1],
    ]
    .concat();
    hmac_sha256(prk, &labeled)[..usize::from(len)].to_vec()
}

/// RFC 9180 §5.1 `KeySchedule` in base mode: `(key, base_nonce)`.
fn key_schedule(shared_secret: &[u8], info: &[u8]) -> ([u8; 32], [u8; 12]) {
    let context = [
        &[0u8][..],
        &labeled_extract(b"", b"psk_id_hash", b""),
        &labeled_extract(b"", b"info_hash", info),
    ]
    .concat();
    let secret = labeled_extract(shared_secret, b"secret", b"");
    let key = labeled_expand(&secret, b"key", &context, 32);
    let nonce = labeled_expand(&secret, b"base_nonce", &context, 12);
    (key.try_into().unwrap(), nonce.try_into().unwrap())
}

/// RFC 9180 §5.2 `ComputeNonce(seq)` = `base_nonce XOR I2OSP(seq, Nn)`.
fn nonce(base: &[u8; 12], seq: u64) -> [u8; 12] {
    let mut out = *base;
    for (o, s) in out[4..].iter_mut().zip(seq.to_be_bytes()) {
        *o ^= s;
    }
    out
}

/// The recipient's `(key, base_nonce)` of a sealed box.
fn context_of(sk: &[u8], sealed: &[u8], info: &[u8]) -> ([u8; 32], [u8; 12]) {
    let ss = xwing::xwing_decapsulate(sk, &sealed[..hpke::ENC_LEN]).unwrap();
    key_schedule(ss.as_slice(), info)
}

const SEQS: [u64; 7] = [1, 2, 0xff, 0x100, 1 << 32, 1 << 63, u64::MAX];

#[test]
fn the_single_message_uses_sequence_number_zero_and_no_other() {
    assert_eq!(SUITE_ID, hpke::SUITE_ID);
    let kp = xwing::xwing_from_seed(&[0x51; 32]).unwrap();
    for (info, aad, pt) in [
        (&b""[..], &b""[..], &b""[..]),
        (b"info", b"aad", b"hello"),
        (b"veilkit", b"", &[0xa5; 1000][..]),
    ] {
        let sealed = hpke::seal(&kp.public, info, aad, pt).unwrap();
        let (enc, ct) = sealed.split_at(hpke::ENC_LEN);
        let (key, base) = context_of(kp.secret.as_slice(), &sealed, info);
        // The box is exactly AES-256-GCM under (key, nonce(0)).
        assert_eq!(
            aes_gcm_encrypt_with_iv(&key, &nonce(&base, 0), pt, aad).unwrap(),
            ct
        );
        assert_eq!(
            aes_gcm_decrypt_with_iv(&key, &nonce(&base, 0), ct, aad).unwrap(),
            pt
        );
        for seq in SEQS {
            // Not under any other sequence number…
            assert_eq!(
                aes_gcm_decrypt_with_iv(&key, &nonce(&base, seq), ct, aad),
                Err(CryptoError::AuthenticationFailed),
                "seq {seq}"
            );
            // …and `open` refuses a box sealed under one (the same key and
            // enc, the nonce of message `seq` of a multi-message context).
            let shifted = [
                enc,
                &aes_gcm_encrypt_with_iv(&key, &nonce(&base, seq), pt, aad).unwrap(),
            ]
            .concat();
            assert_eq!(
                hpke::open(kp.secret.as_slice(), &shifted, info, aad),
                Err(CryptoError::AuthenticationFailed),
                "seq {seq}"
            );
        }
        // Control: the independent construction at seq 0 is what `open` accepts.
        let rebuilt = [enc, &aes_gcm_encrypt_with_iv(&key, &base, pt, aad).unwrap()].concat();
        assert_eq!(
            *hpke::open(kp.secret.as_slice(), &rebuilt, info, aad).unwrap(),
            pt
        );
    }
}

#[test]
fn two_seals_of_the_same_message_never_share_a_key_or_a_nonce() {
    let a = xwing::xwing_from_seed(&[0x52; 32]).unwrap();
    let b = xwing::xwing_from_seed(&[0x53; 32]).unwrap();
    let (info, aad, pt) = (b"info", b"aad", b"the same message");
    let (mut encs, mut keys, mut nonces, mut cts) = (
        HashSet::new(),
        HashSet::new(),
        HashSet::new(),
        HashSet::new(),
    );
    let mut n = 0;
    for _ in 0..16 {
        for kp in [&a, &b] {
            let sealed = hpke::seal(&kp.public, info, aad, pt).unwrap();
            let (key, base) = context_of(kp.secret.as_slice(), &sealed, info);
            assert!(encs.insert(sealed[..hpke::ENC_LEN].to_vec()));
            assert!(keys.insert(key), "key reused");
            assert!(nonces.insert(base), "nonce reused");
            assert!(cts.insert(sealed[hpke::ENC_LEN..].to_vec()));
            n += 1;
        }
    }
    assert_eq!((keys.len(), nonces.len()), (n, n));
}
