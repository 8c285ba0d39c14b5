//! Property tests of the primitives layer (proptest).
//!
//! Two families, both over random inputs:
//! - every encode/decode pair round-trips (AES-GCM, AES-KW, Shamir shares and
//!   split/combine, BIP-39 entropy ↔ phrase, signatures, KEMs);
//! - every single-bit mutation, truncation and extension of an authenticated
//!   encoding (AEAD ciphertext, wrapped key, HMAC tag, signature) is rejected,
//!   and a mutated KEM ciphertext never yields the sender's shared secret.
//!
//! Case counts are kept moderate (`cases(..)` per block) so `cargo test`
//! stays fast; `PROPTEST_CASES=N` overrides them all for a longer soak.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::cast_possible_truncation
)]

mod proptest_util;
use proptest_util::cases;

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::{Index, subsequence};
use veilkit::CryptoError;
use veilkit::{aead, bip39, ed25519, hash, keywrap, mldsa, mlkem, shamir, x25519, xwing};

fn key32() -> impl Strategy<Value = [u8; 32]> {
    any::<[u8; 32]>()
}

/// Flips bit `bit` (taken modulo the bit length) of a copy of `data`.
fn flip(data: &[u8], bit: &Index) -> Vec<u8> {
    let mut out = data.to_vec();
    let i = bit.index(data.len() * 8);
    out[i / 8] ^= 1 << (i % 8);
    out
}

/// Whether the error is the opaque authentication failure or a length error
/// (what a truncated or extended input may legitimately produce).
fn rejected(e: &CryptoError) -> bool {
    matches!(
        e,
        CryptoError::AuthenticationFailed | CryptoError::InvalidLength { .. }
    )
}

// ------------------------------------------------------------------ AES-256-GCM

proptest! {
    #![proptest_config(cases(256))]

    #[test]
    fn gcm_round_trips(key in key32(), pt in vec(any::<u8>(), 0..600), aad in vec(any::<u8>(), 0..64)) {
        let sealed = aead::aes_gcm_encrypt(&key, &pt, &aad).unwrap();
        prop_assert_eq!(sealed.len(), pt.len() + aead::IV_LEN + aead::TAG_LEN);
        prop_assert_eq!(aead::aes_gcm_decrypt(&key, &sealed, &aad).unwrap(), pt);
    }

    #[test]
    fn gcm_with_iv_round_trips(key in key32(), iv in any::<[u8; 12]>(), pt in vec(any::<u8>(), 0..300), aad in vec(any::<u8>(), 0..32)) {
        let ct = aead::aes_gcm_encrypt_with_iv(&key, &iv, &pt, &aad).unwrap();
        prop_assert_eq!(&aead::aes_gcm_decrypt_with_iv(&key, &iv, &ct, &aad).unwrap(), &pt);
        // The random-IV form is the same construction with the IV in front.
        let mut sealed = iv.to_vec();
        sealed.extend_from_slice(&ct);
        prop_assert_eq!(&aead::aes_gcm_decrypt(&key, &sealed, &aad).unwrap(), &pt);
    }

    #[test]
    fn gcm_any_bit_flip_fails(key in key32(), pt in vec(any::<u8>(), 0..200), aad in vec(any::<u8>(), 0..32), bit in any::<Index>()) {
        let sealed = aead::aes_gcm_encrypt(&key, &pt, &aad).unwrap();
        let bad = flip(&sealed, &bit);
        prop_assert_eq!(aead::aes_gcm_decrypt(&key, &bad, &aad), Err(CryptoError::AuthenticationFailed));
    }

    #[test]
    fn gcm_aad_and_key_bit_flips_fail(key in key32(), pt in vec(any::<u8>(), 0..64), aad in vec(any::<u8>(), 1..32), bit in any::<Index>()) {
        let sealed = aead::aes_gcm_encrypt(&key, &pt, &aad).unwrap();
        prop_assert_eq!(aead::aes_gcm_decrypt(&key, &sealed, &flip(&aad, &bit)), Err(CryptoError::AuthenticationFailed));
        let key2 = flip(&key, &bit);
        prop_assert_eq!(aead::aes_gcm_decrypt(&key2, &sealed, &aad), Err(CryptoError::AuthenticationFailed));
    }

    #[test]
    fn gcm_truncation_and_extension_fail(key in key32(), pt in vec(any::<u8>(), 0..200), cut in any::<Index>(), extra in vec(any::<u8>(), 1..20)) {
        let sealed = aead::aes_gcm_encrypt(&key, &pt, b"").unwrap();
        let short = &sealed[..cut.index(sealed.len())];
        let e = aead::aes_gcm_decrypt(&key, short, b"").unwrap_err();
        prop_assert!(rejected(&e), "{e:?}");
        let mut long = sealed.clone();
        long.extend_from_slice(&extra);
        prop_assert_eq!(aead::aes_gcm_decrypt(&key, &long, b""), Err(CryptoError::AuthenticationFailed));
    }
}

// ------------------------------------------------------------------ AES-256-KW

fn kw_key() -> impl Strategy<Value = Vec<u8>> {
    (2usize..=40).prop_flat_map(|blocks| vec(any::<u8>(), blocks * 8))
}

proptest! {
    #![proptest_config(cases(256))]

    #[test]
    fn kw_round_trips(kek in key32(), key in kw_key()) {
        let wrapped = keywrap::aes_kw_wrap(&kek, &key).unwrap();
        prop_assert_eq!(wrapped.len(), key.len() + keywrap::KW_OVERHEAD);
        prop_assert_eq!(keywrap::aes_kw_unwrap(&kek, &wrapped).unwrap().to_vec(), key.clone());
    }

    #[test]
    fn kw_any_bit_flip_fails(kek in key32(), key in kw_key(), bit in any::<Index>()) {
        let wrapped = keywrap::aes_kw_wrap(&kek, &key).unwrap();
        prop_assert_eq!(keywrap::aes_kw_unwrap(&kek, &flip(&wrapped, &bit)).unwrap_err(), CryptoError::AuthenticationFailed);
        prop_assert_eq!(keywrap::aes_kw_unwrap(&flip(&kek, &bit), &wrapped).unwrap_err(), CryptoError::AuthenticationFailed);
    }

    #[test]
    fn kw_truncation_and_extension_fail(kek in key32(), key in kw_key(), cut in any::<Index>(), extra in vec(any::<u8>(), 1..17)) {
        let wrapped = keywrap::aes_kw_wrap(&kek, &key).unwrap();
        let e = keywrap::aes_kw_unwrap(&kek, &wrapped[..cut.index(wrapped.len())]).unwrap_err();
        prop_assert!(rejected(&e), "{e:?}");
        let mut long = wrapped.clone();
        long.extend_from_slice(&extra);
        let e = keywrap::aes_kw_unwrap(&kek, &long).unwrap_err();
        prop_assert!(rejected(&e), "{e:?}");
    }
}

// ------------------------------------------------------------------ HMAC

proptest! {
    #![proptest_config(cases(256))]

    #[test]
    fn hmac_tag_round_trips_and_flips_fail(key in vec(any::<u8>(), 0..100), data in vec(any::<u8>(), 0..200), len in 16usize..=32, bit in any::<Index>()) {
        let tag = hash::hmac_sha256(&key, &data);
        prop_assert_eq!(hash::hmac_sha256_verify(&key, &data, &tag[..len]), Ok(()));
        prop_assert_eq!(hash::hmac_sha256_verify(&key, &data, &flip(&tag[..len], &bit)), Err(CryptoError::AuthenticationFailed));
        if !data.is_empty() {
            prop_assert_eq!(hash::hmac_sha256_verify(&key, &flip(&data, &bit), &tag), Err(CryptoError::AuthenticationFailed));
        }
    }
}

// ------------------------------------------------------------------ Shamir

proptest! {
    #![proptest_config(cases(256))]

    #[test]
    fn share_bytes_round_trip(x in 1u8..=255, y in vec(any::<u8>(), 1..100)) {
        let share = shamir::Share { x, y: y.clone() };
        let bytes = share.to_bytes();
        prop_assert_eq!(bytes.len(), 1 + y.len());
        let back = shamir::Share::from_bytes(&bytes).unwrap();
        prop_assert_eq!(back.x, x);
        prop_assert_eq!(&back.y, &y);
    }

    #[test]
    fn share_from_arbitrary_bytes_never_panics(bytes in vec(any::<u8>(), 0..40)) {
        match shamir::Share::from_bytes(&bytes) {
            Ok(s) => {
                prop_assert!(bytes.len() >= 2 && bytes[0] != 0);
                prop_assert_eq!(s.to_bytes().to_vec(), bytes.clone());
            }
            Err(e) => prop_assert!(matches!(e, CryptoError::InvalidLength { .. } | CryptoError::InvalidShares(_)), "{:?}", e),
        }
    }
}

/// `(secret, threshold, count)` with 2 ≤ threshold ≤ count ≤ 12.
fn sharing() -> impl Strategy<Value = (Vec<u8>, u8, u8)> {
    (vec(any::<u8>(), 1..=64), 2u8..=12)
        .prop_flat_map(|(secret, count)| (Just(secret), 2u8..=count, Just(count)))
}

proptest! {
    #![proptest_config(cases(128))]

    #[test]
    fn split_combine_any_quorum((secret, threshold, count) in sharing(), pick in any::<Index>(), order in any::<u64>()) {
        let shares = shamir::split(&secret, threshold, count).unwrap();
        prop_assert_eq!(shares.len(), usize::from(count));
        // Any subset of at least `threshold` shares, in any order, recovers the secret.
        let size = usize::from(threshold) + pick.index(usize::from(count - threshold) + 1);
        let mut chosen: Vec<shamir::Share> = shares.iter().skip((order % u64::from(count)) as usize).chain(shares.iter()).take(size).cloned().collect();
        chosen.rotate_left((order as usize / 7) % size);
        prop_assert_eq!(shamir::combine(&chosen).unwrap().to_vec(), secret.clone());
        // Through the byte encoding too.
        let reparsed: Vec<shamir::Share> = chosen.iter().map(|s| shamir::Share::from_bytes(&s.to_bytes()).unwrap()).collect();
        prop_assert_eq!(shamir::combine(&reparsed).unwrap().to_vec(), secret.clone());
    }

    #[test]
    fn below_threshold_reveals_nothing_useful(secret in vec(any::<u8>(), 16..=48), count in 3u8..=8, sub in any::<u64>()) {
        // threshold = count: any count - 1 shares interpolate to an unrelated value
        // (equal to the secret with probability 2^-128 at 16 bytes).
        let shares = shamir::split(&secret, count, count).unwrap();
        let skip = (sub % u64::from(count)) as usize;
        let partial: Vec<shamir::Share> = shares.iter().enumerate().filter(|(i, _)| *i != skip).map(|(_, s)| s.clone()).collect();
        prop_assert_ne!(shamir::combine(&partial).unwrap().to_vec(), secret.clone());
    }

    #[test]
    fn combine_rejects_inconsistent_sets(secret in vec(any::<u8>(), 2..=32), shares_idx in subsequence((0usize..5).collect::<Vec<_>>(), 2..=5)) {
        let shares = shamir::split(&secret, 2, 5).unwrap();
        let chosen: Vec<shamir::Share> = shares_idx.iter().map(|&i| shares[i].clone()).collect();
        // Duplicate x.
        let mut dup = chosen.clone();
        dup.push(chosen[0].clone());
        prop_assert!(matches!(shamir::combine(&dup), Err(CryptoError::InvalidShares(_))));
        // Mismatched length.
        let mut short = chosen.clone();
        short[1].y.pop();
        prop_assert!(matches!(shamir::combine(&short), Err(CryptoError::InvalidShares(_))));
    }
}

// ------------------------------------------------------------------ BIP-39

fn entropy() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![Just(16usize), Just(20), Just(24), Just(28), Just(32)]
        .prop_flat_map(|n| vec(any::<u8>(), n))
}

proptest! {
    #![proptest_config(cases(256))]

    #[test]
    fn bip39_entropy_phrase_round_trips(e in entropy()) {
        let phrase = bip39::entropy_to_mnemonic(&e).unwrap();
        prop_assert_eq!(phrase.split(' ').count(), e.len() * 3 / 4);
        prop_assert_eq!(bip39::mnemonic_to_entropy(&phrase).unwrap().to_vec(), e.clone());
        prop_assert!(bip39::validate_mnemonic(&phrase));
    }

    #[test]
    fn bip39_whitespace_is_not_significant(e in entropy(), seps in vec(prop_oneof![Just(" "), Just("  "), Just("\t"), Just("\n"), Just("\u{3000}")], 24)) {
        let phrase = bip39::entropy_to_mnemonic(&e).unwrap();
        let mut spaced = String::from(" ");
        for (w, sep) in phrase.split(' ').zip(seps.iter()) {
            spaced.push_str(w);
            spaced.push_str(sep);
        }
        prop_assert_eq!(bip39::mnemonic_to_entropy(&spaced).unwrap().to_vec(), e.clone());
    }

    #[test]
    fn bip39_dropping_a_word_fails(e in entropy(), which in any::<Index>()) {
        let phrase = bip39::entropy_to_mnemonic(&e).unwrap();
        let words: Vec<&str> = phrase.split(' ').collect();
        let skip = which.index(words.len());
        let fewer: Vec<&str> = words.iter().enumerate().filter(|(i, _)| *i != skip).map(|(_, w)| *w).collect();
        prop_assert!(matches!(bip39::mnemonic_to_entropy(&fewer.join(" ")), Err(CryptoError::InvalidMnemonic(_))));
    }

    #[test]
    fn bip39_arbitrary_text_never_panics(s in "\\PC{0,200}") {
        if let Ok(e) = bip39::mnemonic_to_entropy(&s) {
            prop_assert!(matches!(e.len(), 16 | 20 | 24 | 28 | 32));
        }
    }
}

// ------------------------------------------------------------------ signatures

proptest! {
    #![proptest_config(cases(128))]

    #[test]
    fn ed25519_sign_verify_and_flips_fail(seed in key32(), msg in vec(any::<u8>(), 0..200), bit in any::<Index>()) {
        let kp = ed25519::ed25519_from_seed(&seed).unwrap();
        let sig = ed25519::ed25519_sign(kp.secret.as_slice(), &msg).unwrap();
        prop_assert_eq!(sig, ed25519::ed25519_sign(&seed, &msg).unwrap());
        prop_assert_eq!(ed25519::ed25519_verify(&kp.public, &msg, &sig), Ok(()));
        prop_assert_eq!(ed25519::ed25519_verify(&kp.public, &msg, &flip(&sig, &bit)), Err(CryptoError::InvalidSignature));
        // A flipped public key is another key, a non-canonical encoding or no
        // point at all: each is a signature that does not verify.
        prop_assert_eq!(ed25519::ed25519_verify(&flip(&kp.public, &bit), &msg, &sig), Err(CryptoError::InvalidSignature));
        if !msg.is_empty() {
            prop_assert_eq!(ed25519::ed25519_verify(&kp.public, &flip(&msg, &bit), &sig), Err(CryptoError::InvalidSignature));
        }
    }
}

proptest! {
    #![proptest_config(cases(16))]

    #[test]
    fn mldsa_sign_verify_and_flips_fail(seed in key32(), msg in vec(any::<u8>(), 0..100), ctx in vec(any::<u8>(), 0..16), bit in any::<Index>()) {
        let kp = mldsa::mldsa_from_seed(&seed).unwrap();
        let sig = mldsa::mldsa_sign(kp.seed.as_slice(), &msg, &ctx, true).unwrap();
        prop_assert_eq!(mldsa::mldsa_verify(&kp.public, &msg, &ctx, &sig), Ok(()));
        prop_assert_eq!(mldsa::mldsa_verify(&kp.public, &msg, &ctx, &flip(&sig, &bit)), Err(CryptoError::InvalidSignature));
        let short = mldsa::mldsa_verify(&kp.public, &msg, &ctx, &sig[..sig.len() - 1]);
        prop_assert!(matches!(short, Err(CryptoError::InvalidLength { what: "signature", .. })), "{:?}", short);
        let mut other_ctx = ctx.clone();
        other_ctx.push(0);
        prop_assert_eq!(mldsa::mldsa_verify(&kp.public, &msg, &other_ctx, &sig), Err(CryptoError::InvalidSignature));
    }
}

// ------------------------------------------------------------------ KEMs

proptest! {
    #![proptest_config(cases(16))]

    #[test]
    fn mlkem_round_trips_and_mutations_reject(seed in any::<[u8; 64]>(), m in key32(), bit in any::<Index>()) {
        let kp = mlkem::mlkem_from_seed(&seed).unwrap();
        let (ct, ss) = mlkem::mlkem_encapsulate_derand(&kp.encapsulation_key, &m).unwrap();
        prop_assert_eq!(*mlkem::mlkem_decapsulate(&kp.decapsulation_key, &ct).unwrap(), *ss);
        // Implicit rejection: a mutated ciphertext gives an unrelated key, never the sender's.
        let bad = mlkem::mlkem_decapsulate(&kp.decapsulation_key, &flip(&ct, &bit)).unwrap();
        prop_assert_ne!(*bad, *ss);
        // A truncated ciphertext is a length error.
        let short = mlkem::mlkem_decapsulate(&kp.decapsulation_key, &ct[..ct.len() - 1]);
        prop_assert!(matches!(short, Err(CryptoError::InvalidLength { .. })), "truncated ciphertext accepted");
    }

    #[test]
    fn xwing_round_trips_and_mutations_reject(seed in key32(), eseed in any::<[u8; 64]>(), bit in any::<Index>()) {
        let kp = xwing::xwing_from_seed(&seed).unwrap();
        let (ct, ss) = xwing::xwing_encapsulate_derand(&kp.public, &eseed).unwrap();
        prop_assert_eq!(*xwing::xwing_decapsulate(kp.secret.as_slice(), &ct).unwrap(), *ss);
        match xwing::xwing_decapsulate(kp.secret.as_slice(), &flip(&ct, &bit)) {
            Ok(bad) => prop_assert_ne!(*bad, *ss),
            Err(e) => prop_assert!(matches!(e, CryptoError::WeakKey | CryptoError::InvalidKey(_)), "{e:?}"),
        }
    }

    #[test]
    fn x25519_agreement_is_symmetric(a in key32(), b in key32()) {
        let pa = x25519::x25519_public(&a).unwrap();
        let pb = x25519::x25519_public(&b).unwrap();
        prop_assert_eq!(*x25519::x25519_dh(&a, &pb).unwrap(), *x25519::x25519_dh(&b, &pa).unwrap());
    }
}
