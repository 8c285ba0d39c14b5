//! Property tests of the messaging encodings (proptest), as
//! `proptest_primitives.rs` does for the primitives: every encode/decode pair
//! round-trips, and every single-bit mutation or truncation of an
//! authenticated encoding is rejected (or, for KEMs, yields another key).
//!
//! Case counts are moderate; `PROPTEST_CASES=N` overrides them.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod messaging_util;
mod proptest_util;
use messaging_util::chunked_failure;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::Index;
use proptest_util::cases;
use veilkit::messaging::{MessagingError, akem, chunked, hybrid_kem, keylog, padding, sealed};
use veilkit::{ed25519, mlkem, x25519};

fn flip(data: &[u8], bit: &Index) -> Vec<u8> {
    let mut out = data.to_vec();
    let i = bit.index(data.len() * 8);
    out[i / 8] ^= 1 << (i % 8);
    out
}

fn code<T>(r: Result<T, MessagingError>) -> Option<&'static str> {
    r.err().map(|e| e.code())
}

proptest! {
    #![proptest_config(cases(256))]

    #[test]
    fn padding_round_trips(content in vec(any::<u8>(), 0..3000)) {
        let padded = padding::pad_message(&content).unwrap();
        prop_assert_eq!(padded.len(), padding::padded_len(content.len()).unwrap());
        prop_assert_eq!(padding::unpad_message(&padded).unwrap().to_vec(), content);
    }

    #[test]
    fn padded_aead_round_trips_and_flips_fail(key in any::<[u8; 32]>(), pt in vec(any::<u8>(), 0..600), aad in vec(any::<u8>(), 0..32), bit in any::<Index>(), cut in any::<Index>()) {
        let ct = padding::encrypt_aes_gcm_padded(&key, &pt, &aad).unwrap();
        prop_assert_eq!(padding::decrypt_aes_gcm_padded(&key, &ct, &aad).unwrap().to_vec(), pt);
        prop_assert_eq!(code(padding::decrypt_aes_gcm_padded(&key, &flip(&ct, &bit), &aad)), Some("AUTHENTICATION_FAILED"));
        // Shorter than IV and tag: a length error; otherwise the tag fails.
        let short = &ct[..cut.index(ct.len())];
        let want = if short.len() < 28 { "INVALID_LENGTH" } else { "AUTHENTICATION_FAILED" };
        prop_assert_eq!(code(padding::decrypt_aes_gcm_padded(&key, short, &aad)), Some(want));
    }

    #[test]
    fn chunked_round_trips_and_flips_fail(key in any::<[u8; 32]>(), pt in vec(any::<u8>(), 0..700), size in 1u32..300, bit in any::<Index>(), cut in any::<Index>()) {
        let ct = chunked::encrypt_aes_gcm_chunked(&key, &pt, b"aad", size).unwrap();
        prop_assert_eq!(ct.len(), chunked::ciphertext_len(pt.len(), size).unwrap());
        prop_assert_eq!(chunked::decrypt_aes_gcm_chunked(&key, &ct, b"aad").unwrap().to_vec(), pt.clone());
        let bad = flip(&ct, &bit);
        // Every bit is authenticated, the chunk-size header included (it is in each chunk's AAD).
        prop_assert_eq!(code(chunked::decrypt_aes_gcm_chunked(&key, &bad, b"aad")), Some(chunked_failure(&bad)));
        if bad[..8] == ct[..8] {
            prop_assert_eq!(chunked_failure(&bad), "AUTHENTICATION_FAILED");
        }
        let short = &ct[..cut.index(ct.len())];
        prop_assert_eq!(code(chunked::decrypt_aes_gcm_chunked(&key, short, b"aad")), Some(chunked_failure(short)));
        prop_assert_eq!(code(chunked::decrypt_aes_gcm_chunked(&key, &ct, b"aaD")), Some("AUTHENTICATION_FAILED"));
    }
}

/// Fixed identities for the public-key properties (key generation is not what is tested).
struct Keys {
    recipient: [u8; 32],
    recipient_pub: [u8; 32],
    sender_identity: [u8; 32],
    sender_identity_pub: [u8; 32],
    dk: Vec<u8>,
    ek: Vec<u8>,
}

fn keys() -> Keys {
    let recipient = [0x11; 32];
    let sender_identity = [0x33; 32];
    let kem = mlkem::mlkem_from_seed(&[0x44; 64]).unwrap();
    Keys {
        recipient,
        recipient_pub: x25519::x25519_public(&recipient).unwrap(),
        sender_identity,
        sender_identity_pub: ed25519::ed25519_from_seed(&sender_identity).unwrap().public,
        dk: kem.decapsulation_key.to_vec(),
        ek: kem.encapsulation_key,
    }
}

proptest! {
    #![proptest_config(cases(64))]

    #[test]
    fn sealed_sender_round_trips_and_flips_fail(id in vec(any::<u8>(), 1..40), content in vec(any::<u8>(), 0..400), bit in any::<Index>(), cut in any::<Index>()) {
        let k = keys();
        let packet = sealed::seal_message(&k.recipient_pub, &id, &content, &k.sender_identity).unwrap();
        let m = sealed::unseal_message(&packet, &k.recipient, &k.sender_identity_pub).unwrap();
        prop_assert_eq!(&m.sender_id, &id);
        prop_assert_eq!(m.content.to_vec(), content);
        prop_assert_eq!(sealed::unseal_sender_id(&packet, &k.recipient).unwrap(), id);
        let e = sealed::unseal_message(&flip(&packet, &bit), &k.recipient, &k.sender_identity_pub).unwrap_err();
        prop_assert!(matches!(e, MessagingError::AuthenticationFailed), "{e:?}");
        prop_assert!(sealed::unseal_message(&packet[..cut.index(packet.len())], &k.recipient, &k.sender_identity_pub).is_err());
        // Another sender key does not verify.
        let other = ed25519::ed25519_from_seed(&[0x99; 32]).unwrap().public;
        prop_assert!(sealed::unseal_message(&packet, &k.recipient, &other).is_err());
    }
}

proptest! {
    #![proptest_config(cases(24))]

    #[test]
    fn authenticated_kem_round_trips_and_flips_fail(sender in any::<[u8; 32]>(), m in any::<[u8; 32]>(), bit in any::<Index>()) {
        let k = keys();
        let Ok(sender_pub) = x25519::x25519_public(&sender) else { return Ok(()) };
        let (ct, ss) = akem::authenticated_kem_encapsulate_derand(&sender, &k.recipient_pub, &k.ek, &k.sender_identity, &m).unwrap();
        let back = akem::authenticated_kem_decapsulate(&k.recipient, &sender_pub, &k.dk, &ct, &k.sender_identity_pub).unwrap();
        prop_assert_eq!(*back, *ss);
        // Any flipped bit breaks the length prefix (MALFORMED_INPUT) or the signature (AUTHENTICATION_FAILED).
        let bad = flip(&ct, &bit);
        let want = if bad[..2] == ct[..2] { "AUTHENTICATION_FAILED" } else { "MALFORMED_INPUT" };
        prop_assert_eq!(code(akem::authenticated_kem_decapsulate(&k.recipient, &sender_pub, &k.dk, &bad, &k.sender_identity_pub)), Some(want));
        prop_assert_eq!(code(akem::authenticated_kem_decapsulate(&k.recipient, &sender_pub, &k.dk, &ct[..ct.len() - 1], &k.sender_identity_pub)), Some("INVALID_LENGTH"));
    }

    #[test]
    fn hybrid_kem_round_trips_and_mutations_change_the_key(sender in any::<[u8; 32]>(), m in any::<[u8; 32]>(), bit in any::<Index>()) {
        let k = keys();
        let Ok(sender_pub) = x25519::x25519_public(&sender) else { return Ok(()) };
        let r = hybrid_kem::hybrid_kem_encapsulate_derand(&sender, &k.recipient_pub, &k.ek, &m).unwrap();
        let back = hybrid_kem::hybrid_kem_decapsulate(&k.recipient, &sender_pub, &k.dk, &r.mlkem_ciphertext).unwrap();
        prop_assert_eq!(*back, *r.shared_key);
        // Implicit rejection: a mutated ciphertext gives an unrelated key, never the sender's.
        let other = hybrid_kem::hybrid_kem_decapsulate(&k.recipient, &sender_pub, &k.dk, &flip(&r.mlkem_ciphertext, &bit)).unwrap();
        prop_assert_ne!(*other, *r.shared_key);
        // So does a different sender public key.
        if let Ok(bad) = hybrid_kem::hybrid_kem_decapsulate(&k.recipient, &flip(&sender_pub, &bit), &k.dk, &r.mlkem_ciphertext) {
            prop_assert_ne!(*bad, *r.shared_key);
        }
    }
}

proptest! {
    #![proptest_config(cases(64))]

    #[test]
    fn key_log_json_round_trips(user in vec(any::<u8>(), 1..40), seeds in vec(any::<[u8; 32]>(), 1..4), t0 in 0u64..1_000_000) {
        let mut entries = Vec::new();
        let mut prev = [0u8; 32];
        let mut signer = seeds[0];
        for (i, seed) in seeds.iter().enumerate() {
            let pk = ed25519::ed25519_from_seed(seed).unwrap().public;
            let action = if i == 0 { keylog::KeyLogAction::Add } else { keylog::KeyLogAction::Update };
            let pop = (i > 0).then_some(seed.as_slice());
            let e = keylog::key_log_create_entry(&user, &pk, t0 + i as u64, &prev, action, &signer, pop).unwrap();
            prev = e.hash().unwrap();
            signer = *seed;
            entries.push(e);
        }
        prop_assert!(keylog::key_log_verify_chain(&entries).is_ok());
        let json = keylog::key_log_to_json(&entries).unwrap();
        prop_assert_eq!(&keylog::key_log_from_json(&json).unwrap(), &entries);
        let last_pk = ed25519::ed25519_from_seed(seeds.last().unwrap()).unwrap().public;
        prop_assert_eq!(keylog::key_log_current_key(&entries, &user, None).unwrap(), Some(last_pk));
        // A changed signature breaks the chain.
        let mut bad = entries.clone();
        bad[0].signature[0] ^= 1;
        prop_assert!(keylog::key_log_verify_chain(&bad).is_err());
        // So does a changed proof of possession (every entry here has one).
        let mut bad = entries.clone();
        if let Some(k) = bad.last_mut().and_then(|e| e.key_signature.as_mut()) {
            k[0] ^= 1;
        }
        prop_assert!(keylog::key_log_verify_chain(&bad).is_err());
    }
}
