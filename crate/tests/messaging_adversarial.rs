//! Adversarial tests of the messaging constructions (issue #3): every attack
//! must fail with a typed `MessagingError` (a `Result::Err`, so no partial
//! output exists), and every parser must be total on garbage.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use veilkit::messaging::keylog::{self, KeyLogAction, KeyLogEntry};
use veilkit::messaging::registry::{self, DeviceRegistry};
use veilkit::messaging::replay::ReplayStore;
use veilkit::messaging::{
    KeyLogFault, MessagingError, RegistryFault, akem, chunked, hybrid_kem, padding, sealed,
    session, transcript,
};
use veilkit::{CryptoError, aead, ed25519, hash, kdf, mlkem, x25519};

fn seed(label: &str) -> [u8; 32] {
    hash::sha256(format!("adversarial:{label}").as_bytes())
}

fn x25519_kp(label: &str) -> ([u8; 32], [u8; 32]) {
    let s = seed(label);
    (s, x25519::x25519_public(&s).unwrap())
}

fn ed_kp(label: &str) -> ed25519::Ed25519Keypair {
    ed25519::ed25519_from_seed(&seed(label)).unwrap()
}

fn mlkem_kp(label: &str) -> mlkem::MlKemKeypair {
    let mut s = seed(label).to_vec();
    s.extend_from_slice(&seed(&format!("{label}/z")));
    mlkem::mlkem_from_seed(&s).unwrap()
}

const AUTH: MessagingError = MessagingError::AuthenticationFailed;

// ================================================================ sealed sender

struct SealedFixture {
    packet: Vec<u8>,
    bob_sk: [u8; 32],
    bob_pk: [u8; 32],
    alice: ed25519::Ed25519Keypair,
}

fn sealed_fixture(content: &[u8]) -> SealedFixture {
    let (bob_sk, bob_pk) = x25519_kp("bob-x25519");
    let alice = ed_kp("alice-identity");
    let packet = sealed::seal_message(&bob_pk, b"alice@example.com", content, alice.secret.as_slice()).unwrap();
    SealedFixture { packet, bob_sk, bob_pk, alice }
}

#[test]
fn sealed_every_single_bit_flip_fails() {
    let f = sealed_fixture(b"hi");
    let ok = sealed::unseal_message(&f.packet, &f.bob_sk, &f.alice.public).unwrap();
    assert_eq!(ok.content.as_slice(), b"hi");
    let mut flips = 0;
    for byte in 0..f.packet.len() {
        for bit in 0..8 {
            let mut p = f.packet.clone();
            p[byte] ^= 1 << bit;
            let r = sealed::unseal_message(&p, &f.bob_sk, &f.alice.public);
            assert_eq!(r.err(), Some(AUTH), "flip of byte {byte} bit {bit} must fail opaquely");
            assert_eq!(sealed::unseal_sender_id(&p, &f.bob_sk).err(), Some(AUTH));
            flips += 1;
        }
    }
    assert_eq!(flips, f.packet.len() * 8);
    assert_eq!(f.packet.len(), sealed::MIN_PACKET_LEN, "short content fits the smallest possible packet");
}

#[test]
fn sealed_packet_forwarded_to_another_recipient_fails() {
    let f = sealed_fixture(b"for bob only");
    let (carol_sk, _) = x25519_kp("carol-x25519");
    assert_eq!(sealed::unseal_message(&f.packet, &carol_sk, &f.alice.public).err(), Some(AUTH));
}

#[test]
fn sealed_packet_retargeted_by_recipient_fails_signature() {
    // Bob (who can decrypt) re-encrypts Alice's signed inner plaintext to Carol.
    let f = sealed_fixture(b"meet at noon");
    let (carol_sk, carol_pk) = x25519_kp("carol-x25519");
    let eph = &f.packet[..32];
    let dh = x25519::x25519_dh(&f.bob_sk, eph).unwrap();
    let salt = [eph, f.bob_pk.as_slice()].concat();
    let key = kdf::hkdf_sha256(dh.as_slice(), &salt, sealed::KEY_INFO, 32).unwrap();
    let padded = aead::aes_gcm_decrypt(&key, &f.packet[32..], &salt).unwrap();
    let inner = padding::unpad_message(&padded).unwrap();

    let (eph2_sk, eph2_pk) = x25519_kp("bob-fresh-ephemeral");
    let dh2 = x25519::x25519_dh(&eph2_sk, &carol_pk).unwrap();
    let salt2 = [eph2_pk.as_slice(), carol_pk.as_slice()].concat();
    let key2 = kdf::hkdf_sha256(dh2.as_slice(), &salt2, sealed::KEY_INFO, 32).unwrap();
    let repadded = padding::pad_message(&inner).unwrap();
    let ct = aead::aes_gcm_encrypt(&key2, &repadded, &salt2).unwrap();
    let forged = [eph2_pk.as_slice(), &ct].concat();

    // Decryption works for Carol, but Alice's signature names Bob: refused.
    assert_eq!(sealed::unseal_message(&forged, &carol_sk, &f.alice.public).err(), Some(AUTH));
    // The claimed sender id is visible only unverified.
    assert_eq!(sealed::unseal_sender_id(&forged, &carol_sk).unwrap(), b"alice@example.com");
}

#[test]
fn sealed_wrong_sender_key_and_resolver_failures() {
    let f = sealed_fixture(b"x");
    let mallory = ed_kp("mallory-identity");
    assert_eq!(sealed::unseal_message(&f.packet, &f.bob_sk, &mallory.public).err(), Some(AUTH));
    // A resolver that does not know the sender id: its error comes back as is.
    let unknown = MessagingError::Malformed("unknown sender");
    assert_eq!(
        sealed::unseal_message_with(&f.packet, &f.bob_sk, |_| Err(unknown)).err(),
        Some(unknown)
    );
    // A resolver that returns the key for the id claimed: accepted.
    let alice_pk = f.alice.public;
    let u = sealed::unseal_message_with(&f.packet, &f.bob_sk, |id| {
        assert_eq!(id, b"alice@example.com");
        Ok(alice_pk)
    })
    .unwrap();
    assert_eq!(u.sender_id, b"alice@example.com");
}

#[test]
fn sealed_truncated_extended_and_low_order_ephemeral_fail() {
    let f = sealed_fixture(&[0x42u8; 100]);
    assert_eq!(f.packet.len(), 32 + 12 + 256 + 16);
    for cut in [0, 1, 31, 32, 60, sealed::MIN_PACKET_LEN - 1] {
        assert!(matches!(
            sealed::unseal_message(&f.packet[..cut], &f.bob_sk, &f.alice.public),
            Err(MessagingError::Crypto(CryptoError::InvalidLength { .. }))
        ));
    }
    for cut in [sealed::MIN_PACKET_LEN, f.packet.len() - 1] {
        assert_eq!(sealed::unseal_message(&f.packet[..cut], &f.bob_sk, &f.alice.public).err(), Some(AUTH));
    }
    let mut longer = f.packet.clone();
    longer.push(0);
    assert_eq!(sealed::unseal_message(&longer, &f.bob_sk, &f.alice.public).err(), Some(AUTH));
    // Ephemeral key replaced by a low-order point (all-zero DH): still opaque.
    let mut low = f.packet.clone();
    low[..32].copy_from_slice(&[0u8; 32]);
    assert_eq!(sealed::unseal_message(&low, &f.bob_sk, &f.alice.public).err(), Some(AUTH));
}

// ================================================================ authenticated KEM

struct AkemFixture {
    ct: Vec<u8>,
    ss: [u8; 32],
    bob_sk: [u8; 32],
    bob_mlkem: mlkem::MlKemKeypair,
    alice_eph_pk: [u8; 32],
    alice: ed25519::Ed25519Keypair,
}

fn akem_fixture() -> AkemFixture {
    let (bob_sk, bob_pk) = x25519_kp("bob-x25519");
    let bob_mlkem = mlkem_kp("bob-mlkem");
    let (eph_sk, alice_eph_pk) = x25519_kp("alice-ephemeral");
    let alice = ed_kp("alice-identity");
    let (ct, ss) =
        akem::authenticated_kem_encapsulate(&eph_sk, &bob_pk, &bob_mlkem.encapsulation_key, alice.secret.as_slice())
            .unwrap();
    AkemFixture { ct, ss: *ss, bob_sk, bob_mlkem, alice_eph_pk, alice }
}

fn akem_decap(f: &AkemFixture, ct: &[u8], sender_x: &[u8], identity: &[u8]) -> Result<[u8; 32], MessagingError> {
    akem::authenticated_kem_decapsulate(&f.bob_sk, sender_x, &f.bob_mlkem.decapsulation_key, ct, identity).map(|k| *k)
}

#[test]
fn akem_round_trip_and_length() {
    let f = akem_fixture();
    assert_eq!(f.ct.len(), 1154);
    assert_eq!(akem_decap(&f, &f.ct, &f.alice_eph_pk, &f.alice.public).unwrap(), f.ss);
}

#[test]
fn akem_signature_stripped_fails() {
    let f = akem_fixture();
    // Stripped: 1090 bytes.
    assert!(matches!(
        akem_decap(&f, &f.ct[..1090], &f.alice_eph_pk, &f.alice.public),
        Err(MessagingError::Crypto(CryptoError::InvalidLength { .. }))
    ));
    // Zeroed in place.
    let mut zeroed = f.ct.clone();
    zeroed[1090..].fill(0);
    assert_eq!(akem_decap(&f, &zeroed, &f.alice_eph_pk, &f.alice.public).err(), Some(AUTH));
}

#[test]
fn akem_signature_replaced_by_another_identity_fails() {
    let f = akem_fixture();
    let eve = ed_kp("eve-identity");
    let (_, bob_pk) = x25519_kp("bob-x25519");
    let signed = [akem::LABEL, f.alice_eph_pk.as_slice(), bob_pk.as_slice(), &f.ct[2..1090]].concat();
    let eve_sig = ed25519::ed25519_sign(eve.secret.as_slice(), &signed).unwrap();
    let mut resigned = f.ct.clone();
    resigned[1090..].copy_from_slice(&eve_sig);
    // Checked against Alice's identity: refused.
    assert_eq!(akem_decap(&f, &resigned, &f.alice_eph_pk, &f.alice.public).err(), Some(AUTH));
    // Checked against Eve's identity (unknown-key share attempt): accepted,
    // but the key binds the identity, so it is not Alice's session key.
    let eve_key = akem_decap(&f, &resigned, &f.alice_eph_pk, &eve.public).unwrap();
    assert_ne!(eve_key, f.ss);
}

#[test]
fn akem_x25519_key_swapped_fails() {
    let f = akem_fixture();
    let (_, other) = x25519_kp("someone-else-ephemeral");
    assert_eq!(akem_decap(&f, &f.ct, &other, &f.alice.public).err(), Some(AUTH));
    // Recipient side swapped: Carol's X25519 key with Bob's ML-KEM key.
    let (carol_sk, _) = x25519_kp("carol-x25519");
    let r = akem::authenticated_kem_decapsulate(
        &carol_sk,
        &f.alice_eph_pk,
        &f.bob_mlkem.decapsulation_key,
        &f.ct,
        &f.alice.public,
    );
    assert_eq!(r.err(), Some(AUTH));
}

#[test]
fn akem_every_single_bit_flip_fails() {
    let f = akem_fixture();
    for byte in 0..f.ct.len() {
        for bit in 0..8 {
            let mut c = f.ct.clone();
            c[byte] ^= 1 << bit;
            let r = akem_decap(&f, &c, &f.alice_eph_pk, &f.alice.public);
            if byte < 2 {
                assert!(matches!(r, Err(MessagingError::Malformed(_))), "prefix byte {byte}");
            } else {
                assert_eq!(r.err(), Some(AUTH), "byte {byte} bit {bit}");
            }
        }
    }
}

#[test]
fn hybrid_kem_tampering_changes_the_key() {
    let (bob_sk, bob_pk) = x25519_kp("bob-x25519");
    let bob_mlkem = mlkem_kp("bob-mlkem");
    let (eph_sk, eph_pk) = x25519_kp("alice-ephemeral");
    let r = hybrid_kem::hybrid_kem_encapsulate(&eph_sk, &bob_pk, &bob_mlkem.encapsulation_key).unwrap();
    let ok = hybrid_kem::hybrid_kem_decapsulate(&bob_sk, &eph_pk, &bob_mlkem.decapsulation_key, &r.mlkem_ciphertext).unwrap();
    assert_eq!(*ok, *r.shared_key);
    let mut ct = r.mlkem_ciphertext.clone();
    ct[17] ^= 4;
    let bad = hybrid_kem::hybrid_kem_decapsulate(&bob_sk, &eph_pk, &bob_mlkem.decapsulation_key, &ct).unwrap();
    assert_ne!(*bad, *r.shared_key, "implicit rejection + ciphertext binding");
    let (_, other) = x25519_kp("other");
    let swapped = hybrid_kem::hybrid_kem_decapsulate(&bob_sk, &other, &bob_mlkem.decapsulation_key, &r.mlkem_ciphertext).unwrap();
    assert_ne!(*swapped, *r.shared_key);
    // Low-order X25519 key: typed error.
    assert!(matches!(
        hybrid_kem::hybrid_kem_decapsulate(&bob_sk, &[0u8; 32], &bob_mlkem.decapsulation_key, &r.mlkem_ciphertext),
        Err(MessagingError::Crypto(CryptoError::WeakKey))
    ));
}

// ================================================================ chunked AEAD

const KEY: [u8; 32] = [7u8; 32];
const AAD: &[u8] = b"file-42";
const CS: u32 = 16;

/// 4 chunks: 16 + 16 + 16 + 5 bytes.
fn chunked_fixture() -> (Vec<u8>, Vec<u8>) {
    let pt: Vec<u8> = (0..53u8).collect();
    let ct = chunked::encrypt_aes_gcm_chunked(&KEY, &pt, AAD, CS).unwrap();
    (pt, ct)
}

/// Splits a chunked ciphertext into header and chunks.
fn split(ct: &[u8]) -> ([u8; 8], Vec<Vec<u8>>) {
    let header: [u8; 8] = ct[..8].try_into().unwrap();
    let mut chunks = Vec::new();
    let mut rest = &ct[8..];
    while !rest.is_empty() {
        let n = (CS as usize + 28).min(rest.len());
        chunks.push(rest[..n].to_vec());
        rest = &rest[n..];
    }
    (header, chunks)
}

fn join(header: [u8; 8], chunks: &[Vec<u8>]) -> Vec<u8> {
    let mut out = header.to_vec();
    for c in chunks {
        out.extend_from_slice(c);
    }
    out
}

fn with_count(mut header: [u8; 8], count: u32) -> [u8; 8] {
    header[4..].copy_from_slice(&count.to_be_bytes());
    header
}

fn decrypt(ct: &[u8]) -> Result<Vec<u8>, MessagingError> {
    chunked::decrypt_aes_gcm_chunked(&KEY, ct, AAD).map(|p| p.to_vec())
}

fn is_typed_failure(r: &Result<Vec<u8>, MessagingError>) -> bool {
    matches!(
        r,
        Err(MessagingError::AuthenticationFailed | MessagingError::Malformed(_) | MessagingError::Crypto(CryptoError::InvalidLength { .. }))
    )
}

#[test]
fn chunked_round_trip_edges() {
    for len in [0usize, 1, 15, 16, 17, 32, 33] {
        let pt = vec![0x5Au8; len];
        let ct = chunked::encrypt_aes_gcm_chunked(&KEY, &pt, AAD, CS).unwrap();
        assert_eq!(ct.len(), chunked::ciphertext_len(len, CS).unwrap());
        assert_eq!(decrypt(&ct).unwrap(), pt);
    }
    let (pt, ct) = chunked_fixture();
    assert_eq!(split(&ct).1.len(), 4);
    assert_eq!(decrypt(&ct).unwrap(), pt);
}

#[test]
fn chunked_reordered_chunks_fail() {
    let (_, ct) = chunked_fixture();
    let (h, mut chunks) = split(&ct);
    chunks.swap(0, 1);
    assert_eq!(decrypt(&join(h, &chunks)).err(), Some(AUTH));
}

#[test]
fn chunked_dropped_chunk_fails() {
    let (_, ct) = chunked_fixture();
    let (h, mut chunks) = split(&ct);
    chunks.remove(1);
    // Header unchanged: lengths no longer match.
    assert!(matches!(decrypt(&join(h, &chunks)), Err(MessagingError::Malformed(_))));
    // Header count fixed up: the AAD of every chunk names the old count.
    assert_eq!(decrypt(&join(with_count(h, 3), &chunks)).err(), Some(AUTH));
}

#[test]
fn chunked_duplicated_chunk_fails() {
    let (_, ct) = chunked_fixture();
    let (h, chunks) = split(&ct);
    let mut dup = chunks.clone();
    dup[1] = chunks[0].clone();
    assert_eq!(decrypt(&join(h, &dup)).err(), Some(AUTH));
    let mut extra = chunks.clone();
    extra.insert(1, chunks[0].clone());
    assert!(is_typed_failure(&decrypt(&join(with_count(h, 5), &extra))));
    assert!(is_typed_failure(&decrypt(&join(h, &extra))));
}

#[test]
fn chunked_truncated_fails() {
    let (_, ct) = chunked_fixture();
    let (h, chunks) = split(&ct);
    // Last chunk dropped, with and without fixing the header.
    assert!(matches!(decrypt(&join(h, &chunks[..3])), Err(MessagingError::Malformed(_))));
    assert_eq!(decrypt(&join(with_count(h, 3), &chunks[..3])).err(), Some(AUTH));
    // Every byte-level truncation.
    for cut in 0..ct.len() {
        assert!(is_typed_failure(&decrypt(&ct[..cut])), "cut at {cut}");
    }
}

#[test]
fn chunked_header_tampering_and_bit_flips_fail() {
    let (_, ct) = chunked_fixture();
    let (h, chunks) = split(&ct);
    let mut other_size = h;
    other_size[..4].copy_from_slice(&17u32.to_be_bytes());
    assert!(is_typed_failure(&decrypt(&join(other_size, &chunks))));
    for zero in [[0, 0, 0, 0, 0, 0, 0, 4], [0, 0, 0, 16, 0, 0, 0, 0]] {
        assert!(matches!(decrypt(&join(zero, &chunks)), Err(MessagingError::Malformed(_))));
    }
    // Huge header values: no allocation, typed failure.
    assert!(is_typed_failure(&decrypt(&join([0xff; 8], &chunks))));
    for byte in 0..ct.len() {
        for bit in 0..8 {
            let mut c = ct.clone();
            c[byte] ^= 1 << bit;
            assert!(is_typed_failure(&decrypt(&c)), "byte {byte} bit {bit}");
        }
    }
}

#[test]
fn chunked_spliced_from_another_message_or_wrong_aad_fails() {
    // Messages under one key are told apart by their AAD (docs/PROTOCOL.md):
    // a chunk of message "file-43" spliced into message "file-42" fails.
    let (_, ct) = chunked_fixture();
    let other = chunked::encrypt_aes_gcm_chunked(&KEY, &[9u8; 53], b"file-43", CS).unwrap();
    let (h, mut chunks) = split(&ct);
    chunks[2] = split(&other).1[2].clone();
    assert_eq!(decrypt(&join(h, &chunks)).err(), Some(AUTH));
    assert_eq!(chunked::decrypt_aes_gcm_chunked(&KEY, &ct, b"file-43").err(), Some(AUTH));
    // Another message of a different length (other chunk count) under the same AAD.
    let longer = chunked::encrypt_aes_gcm_chunked(&KEY, &[9u8; 70], AAD, CS).unwrap();
    let mut chunks = split(&ct).1;
    chunks[1] = split(&longer).1[1].clone();
    assert_eq!(decrypt(&join(h, &chunks)).err(), Some(AUTH));
}

// ================================================================ padding

#[test]
fn padding_rejects_noncanonical_forms() {
    let p = padding::pad_message(b"hello").unwrap();
    // Length field beyond P.
    let mut beyond = p.to_vec();
    beyond[..4].copy_from_slice(&61u32.to_be_bytes());
    assert_eq!(padding::unpad_message(&beyond).err(), Some(MessagingError::InvalidPadding));
    let mut huge = p.to_vec();
    huge[..4].copy_from_slice(&u32::MAX.to_be_bytes());
    assert_eq!(padding::unpad_message(&huge).err(), Some(MessagingError::InvalidPadding));
    // Non-zero fill.
    let mut fill = p.to_vec();
    fill[63] = 1;
    assert_eq!(padding::unpad_message(&fill).err(), Some(MessagingError::InvalidPadding));
    // Wrong bucket size (truncated or extended).
    assert_eq!(padding::unpad_message(&p[..63]).err(), Some(MessagingError::InvalidPadding));
    assert_eq!(padding::unpad_message(&[p.as_slice(), &[0u8; 64]].concat()).err(), Some(MessagingError::InvalidPadding));
    for short in 0..4 {
        assert_eq!(padding::unpad_message(&p[..short]).err(), Some(MessagingError::InvalidPadding));
    }
    // Padded AEAD: a bit flip fails authentication.
    let ct = padding::encrypt_aes_gcm_padded(&KEY, b"hello", b"").unwrap();
    assert_eq!(ct.len(), 12 + 64 + 16);
    let mut bad = ct.clone();
    bad[20] ^= 1;
    assert_eq!(padding::decrypt_aes_gcm_padded(&KEY, &bad, b"").err(), Some(AUTH));
}

// ================================================================ key-transparency log

struct Log {
    entries: Vec<KeyLogEntry>,
    alice1: ed25519::Ed25519Keypair,
    alice2: ed25519::Ed25519Keypair,
    bob: ed25519::Ed25519Keypair,
}

fn append(entries: &mut Vec<KeyLogEntry>, user: &[u8], key: &[u8; 32], ts: u64, action: KeyLogAction, signer: &ed25519::Ed25519Keypair) {
    let prev = entries.last().map_or([0u8; 32], |e| e.hash().unwrap());
    entries.push(keylog::key_log_create_entry(user, key, ts, &prev, action, signer.secret.as_slice()).unwrap());
}

/// alice add (k1) → bob add → alice update (k2, signed k1) → bob revoke.
fn key_log() -> Log {
    let (alice1, alice2, bob) = (ed_kp("kl-alice-1"), ed_kp("kl-alice-2"), ed_kp("kl-bob"));
    let mut entries = Vec::new();
    append(&mut entries, b"alice", &alice1.public, 10, KeyLogAction::Add, &alice1);
    append(&mut entries, b"bob", &bob.public, 20, KeyLogAction::Add, &bob);
    append(&mut entries, b"alice", &alice2.public, 30, KeyLogAction::Update, &alice1);
    append(&mut entries, b"bob", &bob.public, 40, KeyLogAction::Revoke, &bob);
    Log { entries, alice1, alice2, bob }
}

fn fault(r: Result<(), MessagingError>) -> (usize, KeyLogFault) {
    match r {
        Err(MessagingError::KeyLog { index, fault }) => (index, fault),
        other => panic!("expected a key-log failure, got {other:?}"),
    }
}

#[test]
fn key_log_valid_and_current_key() {
    let l = key_log();
    keylog::key_log_verify_chain(&l.entries).unwrap();
    assert_eq!(keylog::key_log_current_key(&l.entries, b"alice", None).unwrap(), Some(l.alice2.public));
    assert_eq!(keylog::key_log_current_key(&l.entries, b"alice", Some(29)).unwrap(), Some(l.alice1.public));
    assert_eq!(keylog::key_log_current_key(&l.entries, b"alice", Some(9)).unwrap(), None);
    assert_eq!(keylog::key_log_current_key(&l.entries, b"bob", Some(39)).unwrap(), Some(l.bob.public));
    assert_eq!(keylog::key_log_current_key(&l.entries, b"bob", None).unwrap(), None);
}

#[test]
fn key_log_reordered_entries_fail() {
    let l = key_log();
    let mut e = l.entries.clone();
    e.swap(1, 2);
    assert_eq!(fault(keylog::key_log_verify_chain(&e)), (1, KeyLogFault::BadPrevHash));
    let mut e = l.entries.clone();
    e.remove(0);
    assert_eq!(fault(keylog::key_log_verify_chain(&e)), (0, KeyLogFault::BadPrevHash));
    // A current-key query refuses an invalid log.
    assert!(matches!(
        keylog::key_log_current_key(&e, b"alice", None),
        Err(MessagingError::KeyLog { index: 0, .. })
    ));
}

#[test]
fn key_log_resigned_by_wrong_key_fails() {
    let l = key_log();
    // Update signed by the *new* key instead of the current one.
    let mut e = l.entries[..2].to_vec();
    append(&mut e, b"alice", &l.alice2.public, 30, KeyLogAction::Update, &l.alice2);
    assert_eq!(fault(keylog::key_log_verify_chain(&e)), (2, KeyLogFault::BadSignature));
    // An attacker "updates" Alice to its own key, signing with its own key.
    let mallory = ed_kp("mallory");
    let mut e = l.entries[..2].to_vec();
    append(&mut e, b"alice", &mallory.public, 30, KeyLogAction::Update, &mallory);
    assert_eq!(fault(keylog::key_log_verify_chain(&e)), (2, KeyLogFault::BadSignature));
    // A stored entry's key swapped after signing.
    let mut e = l.entries.clone();
    e[0].public_key = mallory.public;
    assert_eq!(fault(keylog::key_log_verify_chain(&e)), (0, KeyLogFault::BadSignature));
    // An add not self-signed cannot even be created…
    assert!(matches!(
        keylog::key_log_create_entry(b"carol", &mallory.public, 50, &[0u8; 32], KeyLogAction::Add, l.bob.secret.as_slice()),
        Err(MessagingError::Crypto(CryptoError::InvalidKey(_)))
    ));
    // …and a forged one is refused.
    let mut e = l.entries.clone();
    let prev = e.last().unwrap().hash().unwrap();
    let mut forged = keylog::key_log_create_entry(b"carol", &l.bob.public, 50, &prev, KeyLogAction::Add, l.bob.secret.as_slice()).unwrap();
    forged.public_key = mallory.public;
    e.push(forged);
    assert_eq!(fault(keylog::key_log_verify_chain(&e)), (4, KeyLogFault::BadSignature));
}

#[test]
fn key_log_appended_after_revoke_fails() {
    let l = key_log();
    for action in [KeyLogAction::Update, KeyLogAction::Revoke, KeyLogAction::Add] {
        let mut e = l.entries.clone();
        append(&mut e, b"bob", &l.bob.public, 50, action, &l.bob);
        assert_eq!(fault(keylog::key_log_verify_chain(&e)), (4, KeyLogFault::AfterRevoke), "{action:?}");
    }
}

#[test]
fn key_log_other_rule_violations() {
    let l = key_log();
    // Timestamps decreasing.
    let mut e = l.entries[..3].to_vec();
    append(&mut e, b"bob", &l.bob.public, 25, KeyLogAction::Revoke, &l.bob);
    assert_eq!(fault(keylog::key_log_verify_chain(&e)), (3, KeyLogFault::TimestampDecreased));
    // Second add.
    let mut e = l.entries[..3].to_vec();
    append(&mut e, b"alice", &l.alice2.public, 35, KeyLogAction::Add, &l.alice2);
    assert_eq!(fault(keylog::key_log_verify_chain(&e)), (3, KeyLogFault::DuplicateAdd));
    // First entry for a user is not an add.
    let mut e = Vec::new();
    append(&mut e, b"dave", &l.bob.public, 1, KeyLogAction::Update, &l.bob);
    assert_eq!(fault(keylog::key_log_verify_chain(&e)), (0, KeyLogFault::FirstNotAdd));
    // Revoke naming another key.
    let mut e = l.entries[..3].to_vec();
    append(&mut e, b"alice", &l.alice1.public, 40, KeyLogAction::Revoke, &l.alice2);
    assert_eq!(fault(keylog::key_log_verify_chain(&e)), (3, KeyLogFault::RevokeKeyMismatch));
}

#[test]
fn key_log_json_tampering_is_located() {
    let l = key_log();
    let json = keylog::key_log_to_json(&l.entries).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v[2]["publicKey"] = serde_json::Value::from("not base64!");
    assert!(matches!(
        keylog::key_log_from_json(&v.to_string()),
        Err(MessagingError::KeyLog { index: 2, fault: KeyLogFault::Malformed })
    ));
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v[1]["extra"] = serde_json::Value::from(1);
    assert!(matches!(
        keylog::key_log_from_json(&v.to_string()),
        Err(MessagingError::KeyLog { index: 1, fault: KeyLogFault::Malformed })
    ));
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v[3]["timestamp"] = serde_json::Value::from(1u64 << 53);
    assert!(matches!(keylog::key_log_from_json(&v.to_string()), Err(MessagingError::KeyLog { index: 3, .. })));
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v[0]["timestamp"] = serde_json::Value::from(11);
    let tampered = keylog::key_log_from_json(&v.to_string()).unwrap();
    assert_eq!(fault(keylog::key_log_verify_chain(&tampered)), (0, KeyLogFault::BadSignature));
    assert!(matches!(keylog::key_log_from_json("{}"), Err(MessagingError::Malformed(_))));
}

// ================================================================ device registry

fn device_registry() -> (DeviceRegistry, ed25519::Ed25519Keypair, ed25519::Ed25519Keypair) {
    let account = ed_kp("account");
    let laptop = ed_kp("laptop");
    let mut r = DeviceRegistry::new(&account.public).unwrap();
    r.add_device("laptop", "Laptop", 10, &laptop.public, account.secret.as_slice()).unwrap();
    r.add_device("phone", "Phone", 20, &ed_kp("phone").public, account.secret.as_slice()).unwrap();
    (r, account, laptop)
}

fn reg_fault(r: Result<(), MessagingError>) -> (Option<usize>, RegistryFault) {
    match r {
        Err(MessagingError::Registry { index, fault }) => (index, fault),
        other => panic!("expected a registry failure, got {other:?}"),
    }
}

#[test]
fn registry_change_signed_by_device_key_fails() {
    let (r, account, laptop) = device_registry();
    // Through the API: the device key is not the account key.
    let mut r2 = r.clone();
    assert_eq!(
        reg_fault(r2.add_device("rogue", "Rogue", 30, &ed_kp("rogue").public, laptop.secret.as_slice())),
        (None, RegistryFault::AccountKeyMismatch)
    );
    // Forged by hand: a well-formed change whose signature is the laptop's.
    let mut forged = r.clone();
    forged.add_device("rogue", "Rogue", 30, &ed_kp("rogue").public, account.secret.as_slice()).unwrap();
    let last = forged.changes.last_mut().unwrap();
    last.signature = ed25519::ed25519_sign(laptop.secret.as_slice(), &last.body(&account.public).unwrap()).unwrap();
    assert_eq!(reg_fault(forged.verify(&account.public)), (Some(2), RegistryFault::BadSignature));
    let json = forged.to_json().unwrap();
    assert!(matches!(
        registry::registry_list_active(&json, &account.public),
        Err(MessagingError::Registry { index: Some(2), fault: RegistryFault::BadSignature })
    ));
}

#[test]
fn registry_server_cannot_swap_account_key_reorder_or_resurrect() {
    let (r, account, _) = device_registry();
    // The server re-signs everything with its own "account" key.
    let server = ed_kp("server");
    let mut swapped = DeviceRegistry::new(&server.public).unwrap();
    swapped.add_device("laptop", "Laptop", 10, &ed_kp("laptop").public, server.secret.as_slice()).unwrap();
    swapped.add_device("evil", "Evil", 20, &ed_kp("evil").public, server.secret.as_slice()).unwrap();
    assert_eq!(reg_fault(swapped.verify(&account.public)), (None, RegistryFault::AccountKeyMismatch));
    // Reordered changes.
    let mut reordered = r.clone();
    reordered.changes.swap(0, 1);
    assert_eq!(reg_fault(reordered.verify(&account.public)), (Some(0), RegistryFault::BadPrevHash));
    // Revoke, then re-add the same id: refused at creation and in verification.
    let mut revoked = r.clone();
    revoked.revoke_device("laptop", 30, account.secret.as_slice()).unwrap();
    assert_eq!(
        reg_fault(revoked.clone().add_device("laptop", "Laptop", 40, &ed_kp("laptop").public, account.secret.as_slice())),
        (Some(3), RegistryFault::DuplicateDevice)
    );
    assert_eq!(
        reg_fault(revoked.clone().revoke_device("laptop", 40, account.secret.as_slice())),
        (Some(3), RegistryFault::AlreadyRevoked)
    );
    assert_eq!(
        reg_fault(revoked.clone().revoke_device("tablet", 40, account.secret.as_slice())),
        (Some(3), RegistryFault::UnknownDevice)
    );
    // Dropping the revoke in the middle of the log breaks the chain.
    let mut later = revoked.clone();
    later.add_device("tablet", "Tablet", 50, &ed_kp("tablet").public, account.secret.as_slice()).unwrap();
    let mut dropped = later.clone();
    dropped.changes.remove(2);
    assert_eq!(reg_fault(dropped.verify(&account.public)), (Some(2), RegistryFault::BadPrevHash));
    let active: Vec<String> =
        later.active_devices(&account.public).unwrap().into_iter().map(|d| d.device_id).collect();
    assert_eq!(active, ["phone", "tablet"]);
}

#[test]
fn registry_json_tampering_fails() {
    let (r, account, _) = device_registry();
    let json = r.to_json().unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v["changes"][1]["name"] = serde_json::Value::from("Renamed");
    assert_eq!(
        reg_fault(registry::registry_verify(&v.to_string(), &account.public)),
        (Some(1), RegistryFault::BadSignature)
    );
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v["changes"][0]["action"] = serde_json::Value::from("revoke");
    assert_eq!(
        reg_fault(registry::registry_verify(&v.to_string(), &account.public)),
        (Some(0), RegistryFault::Malformed)
    );
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v["version"] = serde_json::Value::from(2);
    assert_eq!(reg_fault(registry::registry_verify(&v.to_string(), &account.public)), (None, RegistryFault::Malformed));
    assert_eq!(reg_fault(registry::registry_verify("[]", &account.public)), (None, RegistryFault::Malformed));
}

// ================================================================ replay store

#[test]
fn replay_of_a_stored_hash_fails() {
    let mut s = ReplayStore::new(3600, 1000).unwrap();
    let h = transcript::transcript_compute_message_hash(b"msg-1", b"alice", 1000, b"ct").unwrap();
    s.insert(&h, 1000, 1000).unwrap();
    assert!(s.has(&h).unwrap());
    assert_eq!(s.insert(&h, 1000, 1001).err(), Some(MessagingError::Replay));
    assert_eq!(s.insert(&h, 2000, 2000).err(), Some(MessagingError::Replay), "a new timestamp does not help");
    // Survives serialisation.
    let mut loaded = ReplayStore::from_json(&s.to_json().unwrap()).unwrap();
    assert_eq!(loaded.insert(&h, 1000, 1002).err(), Some(MessagingError::Replay));
}

#[test]
fn replay_after_eviction_or_prune_is_still_refused() {
    let mut s = ReplayStore::new(60, 2).unwrap();
    let h = |i: u8| [i; 32];
    s.insert(&h(1), 100, 100).unwrap();
    s.insert(&h(2), 101, 101).unwrap();
    s.insert(&h(3), 102, 102).unwrap(); // evicts h(1): floor = 101
    assert!(!s.has(&h(1)).unwrap());
    assert_eq!(s.insert(&h(1), 100, 103).err(), Some(MessagingError::ReplayOutOfWindow));
    assert_eq!(s.prune(200), 2);
    assert!(s.is_empty());
    assert_eq!(s.insert(&h(3), 102, 130).err(), Some(MessagingError::ReplayOutOfWindow), "pruned hash");
    assert_eq!(s.insert(&h(9), 10, 200).err(), Some(MessagingError::ReplayOutOfWindow), "too old");
    assert_eq!(s.insert(&h(9), 300, 200).err(), Some(MessagingError::ReplayOutOfWindow), "too far ahead");
    s.insert(&h(9), 200, 200).unwrap();
}

#[test]
fn replay_store_json_is_checked() {
    let s = ReplayStore::new(60, 2).unwrap();
    let json = s.to_json().unwrap();
    assert!(ReplayStore::from_json(&json).is_ok());
    let dup = r#"{"version":1,"windowSeconds":60,"maxEntries":2,"floor":0,"entries":[["AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",1],["AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",2]]}"#;
    assert!(matches!(ReplayStore::from_json(dup), Err(MessagingError::Malformed(_))));
    let over = r#"{"version":1,"windowSeconds":60,"maxEntries":1,"floor":0,"entries":[["AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",1],["AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",2]]}"#;
    assert!(matches!(ReplayStore::from_json(over), Err(MessagingError::Malformed(_))));
    let huge = r#"{"version":1,"windowSeconds":60,"maxEntries":18446744073709551615,"floor":0,"entries":[]}"#;
    assert!(matches!(ReplayStore::from_json(huge), Err(MessagingError::Malformed(_))));
}

// ================================================================ session keys and transcript

#[test]
fn ratchet_is_symmetric_and_binds_every_input() {
    let srk = [3u8; 32];
    let (a_sk, a_pk) = x25519_kp("ra");
    let (b_sk, b_pk) = x25519_kp("rb");
    let alice = session::ratchet_srk(&srk, &a_sk, &b_pk, b"chat", 7, true).unwrap();
    let bob = session::ratchet_srk(&srk, &b_sk, &a_pk, b"chat", 7, false).unwrap();
    assert_eq!(*alice, *bob);
    assert_ne!(*alice, *session::ratchet_srk(&srk, &a_sk, &b_pk, b"chat", 8, true).unwrap());
    assert_ne!(*alice, *session::ratchet_srk(&srk, &a_sk, &b_pk, b"chat2", 7, true).unwrap());
    assert_ne!(*alice, *session::ratchet_srk(&[4u8; 32], &a_sk, &b_pk, b"chat", 7, true).unwrap());
    assert!(matches!(
        session::ratchet_srk(&srk, &a_sk, &[0u8; 32], b"chat", 7, true),
        Err(MessagingError::Crypto(CryptoError::WeakKey))
    ));
    assert!(matches!(session::derive_srk(&[1u8; 32], b""), Err(MessagingError::Crypto(CryptoError::InvalidParameter(_)))));
}

#[test]
fn transcript_detects_drop_reorder_and_field_shifts() {
    let h = |id: &[u8], s: &[u8], t: u64, c: &[u8]| transcript::transcript_compute_message_hash(id, s, t, c).unwrap();
    let m1 = h(b"1", b"alice", 1, b"a");
    let m2 = h(b"2", b"bob", 2, b"b");
    let base = transcript::transcript_new(b"session");
    let ab = transcript::transcript_update(&transcript::transcript_update(&base, &m1).unwrap(), &m2).unwrap();
    let ba = transcript::transcript_update(&transcript::transcript_update(&base, &m2).unwrap(), &m1).unwrap();
    let b_only = transcript::transcript_update(&base, &m2).unwrap();
    assert!(transcript::transcript_verify_sync(&ab, &ab).unwrap());
    assert!(!transcript::transcript_verify_sync(&ab, &ba).unwrap());
    assert!(!transcript::transcript_verify_sync(&ab, &b_only).unwrap());
    // Length prefixes: moving a byte between fields changes the hash.
    assert_ne!(h(b"ab", b"c", 0, b""), h(b"a", b"bc", 0, b""));
    assert!(transcript::transcript_verify_sync(&ab, &ab[..31]).is_err());
}

// ================================================================ totality on garbage

#[test]
fn parsers_are_total_on_garbage() {
    let mut state = hash::sha256(b"garbage");
    let mut next = |len: usize| {
        let mut out = Vec::with_capacity(len);
        while out.len() < len {
            state = hash::sha256(&state);
            out.extend_from_slice(&state);
        }
        out.truncate(len);
        out
    };
    let (bob_sk, _) = x25519_kp("bob-x25519");
    let bob_mlkem = mlkem_kp("bob-mlkem");
    let alice = ed_kp("alice-identity");
    for len in [0usize, 1, 3, 4, 7, 8, 9, 35, 64, 123, 124, 125, 300, 1154, 2000] {
        let g = next(len);
        assert!(padding::unpad_message(&g).is_err() || g.len() >= 64);
        assert!(chunked::decrypt_aes_gcm_chunked(&KEY, &g, b"").is_err());
        assert!(padding::decrypt_aes_gcm_padded(&KEY, &g, b"").is_err());
        assert!(sealed::unseal_message(&g, &bob_sk, &alice.public).is_err());
        assert!(sealed::unseal_sender_id(&g, &bob_sk).is_err());
        assert!(akem::authenticated_kem_decapsulate(&bob_sk, &[9u8; 32], &bob_mlkem.decapsulation_key, &g, &alice.public).is_err());
        let text = String::from_utf8_lossy(&g);
        assert!(keylog::key_log_from_json(&text).is_err());
        assert!(keylog::key_log_entry_from_json(&text).is_err());
        assert!(DeviceRegistry::from_json_unverified(&text).is_err());
        assert!(ReplayStore::from_json(&text).is_err());
    }
    for json in ["", "null", "[", "[null]", "[[]]", "[{}]", r#"{"version":1}"#, "1e999", "\"\\u0000\""] {
        assert!(keylog::key_log_from_json(json).is_err(), "{json}");
        assert!(DeviceRegistry::from_json_unverified(json).is_err(), "{json}");
        assert!(ReplayStore::from_json(json).is_err(), "{json}");
    }
}
