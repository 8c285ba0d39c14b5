//! Adversarial tests of the messaging constructions (issue #3): every attack
//! must fail with a typed `MessagingError` (a `Result::Err`, so no partial
//! output exists), and every parser must be total on garbage.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::cast_possible_truncation
)]

mod messaging_util;
use messaging_util::chunked_failure;
use veilkit::messaging::keylog::{self, KeyLogAction, KeyLogEntry};
use veilkit::messaging::registry::{self, DeviceRegistry};
use veilkit::messaging::replay::ReplayStore;
use veilkit::messaging::verification::{self, SasRole, SasVerification};
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
    let packet = sealed::seal_message(
        &bob_pk,
        b"alice@example.com",
        content,
        alice.secret.as_slice(),
    )
    .unwrap();
    SealedFixture {
        packet,
        bob_sk,
        bob_pk,
        alice,
    }
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
            assert_eq!(
                r.err(),
                Some(AUTH),
                "flip of byte {byte} bit {bit} must fail opaquely"
            );
            assert_eq!(sealed::unseal_sender_id(&p, &f.bob_sk).err(), Some(AUTH));
            flips += 1;
        }
    }
    assert_eq!(flips, f.packet.len() * 8);
    assert_eq!(
        f.packet.len(),
        sealed::MIN_PACKET_LEN,
        "short content fits the smallest possible packet"
    );
}

#[test]
fn sealed_packet_forwarded_to_another_recipient_fails() {
    let f = sealed_fixture(b"for bob only");
    let (carol_sk, _) = x25519_kp("carol-x25519");
    assert_eq!(
        sealed::unseal_message(&f.packet, &carol_sk, &f.alice.public).err(),
        Some(AUTH)
    );
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
    assert_eq!(
        sealed::unseal_message(&forged, &carol_sk, &f.alice.public).err(),
        Some(AUTH)
    );
    // The claimed sender id is visible only unverified.
    assert_eq!(
        sealed::unseal_sender_id(&forged, &carol_sk).unwrap(),
        b"alice@example.com"
    );
}

#[test]
fn sealed_wrong_sender_key_and_resolver_failures() {
    let f = sealed_fixture(b"x");
    let mallory = ed_kp("mallory-identity");
    assert_eq!(
        sealed::unseal_message(&f.packet, &f.bob_sk, &mallory.public).err(),
        Some(AUTH)
    );
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
        assert_eq!(
            sealed::unseal_message(&f.packet[..cut], &f.bob_sk, &f.alice.public).err(),
            Some(AUTH)
        );
    }
    let mut longer = f.packet.clone();
    longer.push(0);
    assert_eq!(
        sealed::unseal_message(&longer, &f.bob_sk, &f.alice.public).err(),
        Some(AUTH)
    );
    // Ephemeral key replaced by a low-order point (all-zero DH): still opaque.
    let mut low = f.packet.clone();
    low[..32].copy_from_slice(&[0u8; 32]);
    assert_eq!(
        sealed::unseal_message(&low, &f.bob_sk, &f.alice.public).err(),
        Some(AUTH)
    );
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
    let (ct, ss) = akem::authenticated_kem_encapsulate(
        &eph_sk,
        &bob_pk,
        &bob_mlkem.encapsulation_key,
        alice.secret.as_slice(),
    )
    .unwrap();
    AkemFixture {
        ct,
        ss: *ss,
        bob_sk,
        bob_mlkem,
        alice_eph_pk,
        alice,
    }
}

fn akem_decap(
    f: &AkemFixture,
    ct: &[u8],
    sender_x: &[u8],
    identity: &[u8],
) -> Result<[u8; 32], MessagingError> {
    akem::authenticated_kem_decapsulate(
        &f.bob_sk,
        sender_x,
        &f.bob_mlkem.decapsulation_key,
        ct,
        identity,
    )
    .map(|k| *k)
}

#[test]
fn akem_round_trip_and_length() {
    let f = akem_fixture();
    assert_eq!(f.ct.len(), 1154);
    assert_eq!(
        akem_decap(&f, &f.ct, &f.alice_eph_pk, &f.alice.public).unwrap(),
        f.ss
    );
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
    assert_eq!(
        akem_decap(&f, &zeroed, &f.alice_eph_pk, &f.alice.public).err(),
        Some(AUTH)
    );
}

#[test]
fn akem_signature_replaced_by_another_identity_fails() {
    let f = akem_fixture();
    let eve = ed_kp("eve-identity");
    let (_, bob_pk) = x25519_kp("bob-x25519");
    let signed = [
        akem::LABEL,
        f.alice_eph_pk.as_slice(),
        bob_pk.as_slice(),
        &f.ct[2..1090],
    ]
    .concat();
    let eve_sig = ed25519::ed25519_sign(eve.secret.as_slice(), &signed).unwrap();
    let mut resigned = f.ct.clone();
    resigned[1090..].copy_from_slice(&eve_sig);
    // Checked against Alice's identity: refused.
    assert_eq!(
        akem_decap(&f, &resigned, &f.alice_eph_pk, &f.alice.public).err(),
        Some(AUTH)
    );
    // Checked against Eve's identity (unknown-key share attempt): accepted,
    // but the key binds the identity, so it is not Alice's session key.
    let eve_key = akem_decap(&f, &resigned, &f.alice_eph_pk, &eve.public).unwrap();
    assert_ne!(eve_key, f.ss);
}

#[test]
fn akem_x25519_key_swapped_fails() {
    let f = akem_fixture();
    let (_, other) = x25519_kp("someone-else-ephemeral");
    assert_eq!(
        akem_decap(&f, &f.ct, &other, &f.alice.public).err(),
        Some(AUTH)
    );
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
                assert!(
                    matches!(r, Err(MessagingError::Malformed(_))),
                    "prefix byte {byte}"
                );
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
    let r =
        hybrid_kem::hybrid_kem_encapsulate(&eph_sk, &bob_pk, &bob_mlkem.encapsulation_key).unwrap();
    let ok = hybrid_kem::hybrid_kem_decapsulate(
        &bob_sk,
        &eph_pk,
        &bob_mlkem.decapsulation_key,
        &r.mlkem_ciphertext,
    )
    .unwrap();
    assert_eq!(*ok, *r.shared_key);
    let mut ct = r.mlkem_ciphertext.clone();
    ct[17] ^= 4;
    let bad =
        hybrid_kem::hybrid_kem_decapsulate(&bob_sk, &eph_pk, &bob_mlkem.decapsulation_key, &ct)
            .unwrap();
    assert_ne!(
        *bad, *r.shared_key,
        "implicit rejection + ciphertext binding"
    );
    let (_, other) = x25519_kp("other");
    let swapped = hybrid_kem::hybrid_kem_decapsulate(
        &bob_sk,
        &other,
        &bob_mlkem.decapsulation_key,
        &r.mlkem_ciphertext,
    )
    .unwrap();
    assert_ne!(*swapped, *r.shared_key);
    // Low-order X25519 key: typed error.
    assert!(matches!(
        hybrid_kem::hybrid_kem_decapsulate(
            &bob_sk,
            &[0u8; 32],
            &bob_mlkem.decapsulation_key,
            &r.mlkem_ciphertext
        ),
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

/// `ct` fails to decrypt with exactly [`chunked_failure`]'s code.
fn assert_chunked_failure(ct: &[u8], what: &str) {
    assert_eq!(
        decrypt(ct).err().map(|e| e.code()),
        Some(chunked_failure(ct)),
        "{what}"
    );
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
    assert!(matches!(
        decrypt(&join(h, &chunks)),
        Err(MessagingError::Malformed(_))
    ));
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
    // Count fixed up: the geometry fits, the AAD names another count.
    let fixed_up = join(with_count(h, 5), &extra);
    assert_eq!(chunked_failure(&fixed_up), "AUTHENTICATION_FAILED");
    assert_chunked_failure(&fixed_up, "inserted, count fixed up");
    let inserted = join(h, &extra);
    assert_eq!(chunked_failure(&inserted), "MALFORMED_INPUT");
    assert_chunked_failure(&inserted, "inserted");
}

#[test]
fn chunked_truncated_fails() {
    let (_, ct) = chunked_fixture();
    let (h, chunks) = split(&ct);
    // Last chunk dropped, with and without fixing the header.
    assert!(matches!(
        decrypt(&join(h, &chunks[..3])),
        Err(MessagingError::Malformed(_))
    ));
    assert_eq!(
        decrypt(&join(with_count(h, 3), &chunks[..3])).err(),
        Some(AUTH)
    );
    // Every byte-level truncation.
    for cut in 0..ct.len() {
        assert_chunked_failure(&ct[..cut], &format!("cut at {cut}"));
    }
}

#[test]
fn chunked_header_tampering_and_bit_flips_fail() {
    let (_, ct) = chunked_fixture();
    let (h, chunks) = split(&ct);
    let mut other_size = h;
    other_size[..4].copy_from_slice(&17u32.to_be_bytes());
    assert_chunked_failure(&join(other_size, &chunks), "chunk size 17");
    for zero in [[0, 0, 0, 0, 0, 0, 0, 4], [0, 0, 0, 16, 0, 0, 0, 0]] {
        assert!(matches!(
            decrypt(&join(zero, &chunks)),
            Err(MessagingError::Malformed(_))
        ));
    }
    // Huge header values: no allocation, typed failure.
    assert_chunked_failure(&join([0xff; 8], &chunks), "header all 0xff");
    for byte in 0..ct.len() {
        for bit in 0..8 {
            let mut c = ct.clone();
            c[byte] ^= 1 << bit;
            // A body flip leaves the geometry alone: the tag fails. A header
            // flip fails the geometry or the AAD (which holds the header).
            let want = if byte >= 8 {
                "AUTHENTICATION_FAILED"
            } else {
                chunked_failure(&c)
            };
            assert_eq!(
                decrypt(&c).err().map(|e| e.code()),
                Some(want),
                "byte {byte} bit {bit}"
            );
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
    assert_eq!(
        chunked::decrypt_aes_gcm_chunked(&KEY, &ct, b"file-43").err(),
        Some(AUTH)
    );
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
    assert_eq!(
        padding::unpad_message(&beyond).err(),
        Some(MessagingError::InvalidPadding)
    );
    let mut huge = p.to_vec();
    huge[..4].copy_from_slice(&u32::MAX.to_be_bytes());
    assert_eq!(
        padding::unpad_message(&huge).err(),
        Some(MessagingError::InvalidPadding)
    );
    // Non-zero fill.
    let mut fill = p.to_vec();
    fill[63] = 1;
    assert_eq!(
        padding::unpad_message(&fill).err(),
        Some(MessagingError::InvalidPadding)
    );
    // Wrong bucket size (truncated or extended).
    assert_eq!(
        padding::unpad_message(&p[..63]).err(),
        Some(MessagingError::InvalidPadding)
    );
    assert_eq!(
        padding::unpad_message(&[p.as_slice(), &[0u8; 64]].concat()).err(),
        Some(MessagingError::InvalidPadding)
    );
    for short in 0..4 {
        assert_eq!(
            padding::unpad_message(&p[..short]).err(),
            Some(MessagingError::InvalidPadding)
        );
    }
    // Padded AEAD: a bit flip fails authentication.
    let ct = padding::encrypt_aes_gcm_padded(&KEY, b"hello", b"").unwrap();
    assert_eq!(ct.len(), 12 + 64 + 16);
    let mut bad = ct.clone();
    bad[20] ^= 1;
    assert_eq!(
        padding::decrypt_aes_gcm_padded(&KEY, &bad, b"").err(),
        Some(AUTH)
    );
}

// ================================================================ key-transparency log

struct Log {
    entries: Vec<KeyLogEntry>,
    alice1: ed25519::Ed25519Keypair,
    alice2: ed25519::Ed25519Keypair,
    bob: ed25519::Ed25519Keypair,
}

/// Appends an entry signed by `signer`; an `update` is co-signed by `new_key`
/// (its proof of possession), which must be the key pair of `key`.
fn append_with(
    entries: &mut Vec<KeyLogEntry>,
    user: &[u8],
    key: &[u8; 32],
    ts: u64,
    action: KeyLogAction,
    signer: &ed25519::Ed25519Keypair,
    new_key: Option<&ed25519::Ed25519Keypair>,
) {
    let prev = entries.last().map_or([0u8; 32], |e| e.hash().unwrap());
    let pop = new_key.map(|k| k.secret.as_slice());
    entries.push(
        keylog::key_log_create_entry(user, key, ts, &prev, action, signer.secret.as_slice(), pop)
            .unwrap(),
    );
}

/// [`append_with`] for add / revoke, and for an update whose new key is `key`'s pair in `pairs`.
fn append(
    entries: &mut Vec<KeyLogEntry>,
    user: &[u8],
    key: &[u8; 32],
    ts: u64,
    action: KeyLogAction,
    signer: &ed25519::Ed25519Keypair,
) {
    let new_key = (action == KeyLogAction::Update).then(|| key_pair_of(key));
    append_with(entries, user, key, ts, action, signer, new_key.as_ref());
}

/// The test key pair (from `ed_kp`) whose public key is `key`.
fn key_pair_of(key: &[u8; 32]) -> ed25519::Ed25519Keypair {
    [
        "kl-alice-1",
        "kl-alice-2",
        "kl-bob",
        "mallory",
        "kl-alice-3",
    ]
    .into_iter()
    .map(ed_kp)
    .find(|k| k.public == *key)
    .unwrap_or_else(|| panic!("no test key pair for {}", hex::encode(key)))
}

/// alice add (k1) → bob add → alice update (k2, signed k1) → bob revoke.
fn key_log() -> Log {
    let (alice1, alice2, bob) = (ed_kp("kl-alice-1"), ed_kp("kl-alice-2"), ed_kp("kl-bob"));
    let mut entries = Vec::new();
    append(
        &mut entries,
        b"alice",
        &alice1.public,
        10,
        KeyLogAction::Add,
        &alice1,
    );
    append(
        &mut entries,
        b"bob",
        &bob.public,
        20,
        KeyLogAction::Add,
        &bob,
    );
    append(
        &mut entries,
        b"alice",
        &alice2.public,
        30,
        KeyLogAction::Update,
        &alice1,
    );
    append(
        &mut entries,
        b"bob",
        &bob.public,
        40,
        KeyLogAction::Revoke,
        &bob,
    );
    Log {
        entries,
        alice1,
        alice2,
        bob,
    }
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
    assert_eq!(
        keylog::key_log_current_key(&l.entries, b"alice", None).unwrap(),
        Some(l.alice2.public)
    );
    assert_eq!(
        keylog::key_log_current_key(&l.entries, b"alice", Some(29)).unwrap(),
        Some(l.alice1.public)
    );
    assert_eq!(
        keylog::key_log_current_key(&l.entries, b"alice", Some(9)).unwrap(),
        None
    );
    assert_eq!(
        keylog::key_log_current_key(&l.entries, b"bob", Some(39)).unwrap(),
        Some(l.bob.public)
    );
    assert_eq!(
        keylog::key_log_current_key(&l.entries, b"bob", None).unwrap(),
        None
    );
}

#[test]
fn key_log_reordered_entries_fail() {
    let l = key_log();
    let mut e = l.entries.clone();
    e.swap(1, 2);
    assert_eq!(
        fault(keylog::key_log_verify_chain(&e)),
        (1, KeyLogFault::BadPrevHash)
    );
    let mut e = l.entries.clone();
    e.remove(0);
    assert_eq!(
        fault(keylog::key_log_verify_chain(&e)),
        (0, KeyLogFault::BadPrevHash)
    );
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
    append(
        &mut e,
        b"alice",
        &l.alice2.public,
        30,
        KeyLogAction::Update,
        &l.alice2,
    );
    assert_eq!(
        fault(keylog::key_log_verify_chain(&e)),
        (2, KeyLogFault::BadSignature)
    );
    // An attacker "updates" Alice to its own key, signing with its own key.
    let mallory = ed_kp("mallory");
    let mut e = l.entries[..2].to_vec();
    append(
        &mut e,
        b"alice",
        &mallory.public,
        30,
        KeyLogAction::Update,
        &mallory,
    );
    assert_eq!(
        fault(keylog::key_log_verify_chain(&e)),
        (2, KeyLogFault::BadSignature)
    );
    // A stored entry's key swapped after signing.
    let mut e = l.entries.clone();
    e[0].public_key = mallory.public;
    assert_eq!(
        fault(keylog::key_log_verify_chain(&e)),
        (0, KeyLogFault::BadSignature)
    );
    // An add not self-signed cannot even be created…
    assert!(matches!(
        keylog::key_log_create_entry(
            b"carol",
            &mallory.public,
            50,
            &[0u8; 32],
            KeyLogAction::Add,
            l.bob.secret.as_slice(),
            None
        ),
        Err(MessagingError::Crypto(CryptoError::InvalidKey(_)))
    ));
    // …and a forged one is refused.
    let mut e = l.entries.clone();
    let prev = e.last().unwrap().hash().unwrap();
    let mut forged = keylog::key_log_create_entry(
        b"carol",
        &l.bob.public,
        50,
        &prev,
        KeyLogAction::Add,
        l.bob.secret.as_slice(),
        None,
    )
    .unwrap();
    forged.public_key = mallory.public;
    e.push(forged);
    assert_eq!(
        fault(keylog::key_log_verify_chain(&e)),
        (4, KeyLogFault::BadSignature)
    );
}

#[test]
fn key_log_appended_after_revoke_fails() {
    let l = key_log();
    for action in [
        KeyLogAction::Update,
        KeyLogAction::Revoke,
        KeyLogAction::Add,
    ] {
        let mut e = l.entries.clone();
        append(&mut e, b"bob", &l.bob.public, 50, action, &l.bob);
        assert_eq!(
            fault(keylog::key_log_verify_chain(&e)),
            (4, KeyLogFault::AfterRevoke),
            "{action:?}"
        );
    }
}

#[test]
fn key_log_other_rule_violations() {
    let l = key_log();
    // Timestamps decreasing.
    let mut e = l.entries[..3].to_vec();
    append(
        &mut e,
        b"bob",
        &l.bob.public,
        25,
        KeyLogAction::Revoke,
        &l.bob,
    );
    assert_eq!(
        fault(keylog::key_log_verify_chain(&e)),
        (3, KeyLogFault::TimestampDecreased)
    );
    // Second add.
    let mut e = l.entries[..3].to_vec();
    append(
        &mut e,
        b"alice",
        &l.alice2.public,
        35,
        KeyLogAction::Add,
        &l.alice2,
    );
    assert_eq!(
        fault(keylog::key_log_verify_chain(&e)),
        (3, KeyLogFault::DuplicateAdd)
    );
    // First entry for a user is not an add.
    let mut e = Vec::new();
    append(
        &mut e,
        b"dave",
        &l.bob.public,
        1,
        KeyLogAction::Update,
        &l.bob,
    );
    assert_eq!(
        fault(keylog::key_log_verify_chain(&e)),
        (0, KeyLogFault::FirstNotAdd)
    );
    // Revoke naming another key.
    let mut e = l.entries[..3].to_vec();
    append(
        &mut e,
        b"alice",
        &l.alice1.public,
        40,
        KeyLogAction::Revoke,
        &l.alice2,
    );
    assert_eq!(
        fault(keylog::key_log_verify_chain(&e)),
        (3, KeyLogFault::RevokeKeyMismatch)
    );
}

#[test]
fn key_log_json_tampering_is_located() {
    let l = key_log();
    let json = keylog::key_log_to_json(&l.entries).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v[2]["publicKey"] = serde_json::Value::from("not base64!");
    assert!(matches!(
        keylog::key_log_from_json(&v.to_string()),
        Err(MessagingError::KeyLog {
            index: 2,
            fault: KeyLogFault::Malformed
        })
    ));
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v[1]["extra"] = serde_json::Value::from(1);
    assert!(matches!(
        keylog::key_log_from_json(&v.to_string()),
        Err(MessagingError::KeyLog {
            index: 1,
            fault: KeyLogFault::Malformed
        })
    ));
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v[3]["timestamp"] = serde_json::Value::from(1u64 << 53);
    assert!(matches!(
        keylog::key_log_from_json(&v.to_string()),
        Err(MessagingError::KeyLog { index: 3, .. })
    ));
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v[0]["timestamp"] = serde_json::Value::from(11);
    let tampered = keylog::key_log_from_json(&v.to_string()).unwrap();
    assert_eq!(
        fault(keylog::key_log_verify_chain(&tampered)),
        (0, KeyLogFault::BadSignature)
    );
    assert!(matches!(
        keylog::key_log_from_json("{}"),
        Err(MessagingError::Malformed(_))
    ));
}

/// Issue 13 item 7: Mallory updates her own entry to Alice's public key. v1
/// accepted it (only Mallory's current key signed) and `key_log_current_key`
/// returned Alice's key for Mallory.
#[test]
fn key_log_update_to_another_users_key_is_refused() {
    let (alice, mallory) = (ed_kp("kl-alice-1"), ed_kp("mallory"));
    let mut e = Vec::new();
    append(
        &mut e,
        b"alice",
        &alice.public,
        10,
        KeyLogAction::Add,
        &alice,
    );
    append(
        &mut e,
        b"mallory",
        &mallory.public,
        20,
        KeyLogAction::Add,
        &mallory,
    );
    // Mallory cannot make the proof of possession for Alice's key.
    assert!(matches!(
        keylog::key_log_create_entry(
            b"mallory",
            &alice.public,
            30,
            &e[1].hash().unwrap(),
            KeyLogAction::Update,
            mallory.secret.as_slice(),
            Some(mallory.secret.as_slice())
        ),
        Err(MessagingError::Crypto(CryptoError::InvalidKey(_)))
    ));
    // Forged by hand, her own signature and each candidate proof: Alice's
    // proof from her add (replayed), Mallory's own, zeros, none.
    let body_of = |key: &[u8; 32]| {
        let mut f = keylog::key_log_create_entry(
            b"mallory",
            &mallory.public,
            30,
            &e[1].hash().unwrap(),
            KeyLogAction::Revoke,
            mallory.secret.as_slice(),
            None,
        )
        .unwrap();
        f.action = KeyLogAction::Update;
        f.public_key = *key;
        f.signature = ed25519::ed25519_sign(mallory.secret.as_slice(), &f.body().unwrap()).unwrap();
        f
    };
    let replayed_pop = e[0].key_signature.unwrap();
    let own_pop = ed25519::ed25519_sign(
        mallory.secret.as_slice(),
        &[keylog::KEY_LABEL, &body_of(&alice.public).body().unwrap()].concat(),
    )
    .unwrap();
    for pop in [replayed_pop, own_pop, [0u8; 64]] {
        let mut forged = e.clone();
        let mut f = body_of(&alice.public);
        f.key_signature = Some(pop);
        forged.push(f);
        // Alice's key is Alice's: refused before any signature is looked at.
        assert_eq!(
            fault(keylog::key_log_verify_chain(&forged)),
            (2, KeyLogFault::KeyOfAnotherUser)
        );
        assert!(matches!(
            keylog::key_log_current_key(&forged, b"mallory", None),
            Err(MessagingError::KeyLog {
                index: 2,
                fault: KeyLogFault::KeyOfAnotherUser
            })
        ));
        // A key nobody registered yet (Alice's next one): the proof fails.
        let next = ed_kp("kl-alice-3");
        let mut forged = e.clone();
        let mut f = body_of(&next.public);
        f.key_signature = Some(pop);
        forged.push(f);
        assert_eq!(
            fault(keylog::key_log_verify_chain(&forged)),
            (2, KeyLogFault::BadKeySignature)
        );
        assert!(matches!(
            keylog::key_log_current_key(&forged, b"mallory", None),
            Err(MessagingError::KeyLog {
                index: 2,
                fault: KeyLogFault::BadKeySignature
            })
        ));
    }
    // The v1 shape (an update without any proof) is malformed.
    let mut forged = e.clone();
    forged.push(body_of(&ed_kp("kl-alice-3").public));
    assert_eq!(
        fault(keylog::key_log_verify_chain(&forged)),
        (2, KeyLogFault::Malformed)
    );
    // And its JSON form too.
    let json = keylog::key_log_to_json(&forged).unwrap();
    assert!(matches!(
        keylog::key_log_from_json(&json),
        Err(MessagingError::KeyLog {
            index: 2,
            fault: KeyLogFault::Malformed
        })
    ));
    // The honest log still says what it said.
    assert_eq!(
        keylog::key_log_current_key(&e, b"mallory", None).unwrap(),
        Some(mallory.public)
    );
}

/// A key bound to one user is never added or updated into another user,
/// even by whoever holds its secret (so proofs of possession verify).
#[test]
fn key_log_key_of_another_user_cannot_be_added_or_updated_in() {
    let l = key_log();
    // Alice's current key added for a second user, self-signed and proven.
    let mut e = l.entries.clone();
    append(
        &mut e,
        b"alice-again",
        &l.alice2.public,
        50,
        KeyLogAction::Add,
        &l.alice2,
    );
    assert_eq!(
        fault(keylog::key_log_verify_chain(&e)),
        (4, KeyLogFault::KeyOfAnotherUser)
    );
    // Mallory updates to Alice's current key with Alice's secret (a stolen or colluding key).
    let mallory = ed_kp("mallory");
    let mut e = l.entries.clone();
    append(
        &mut e,
        b"mallory",
        &mallory.public,
        50,
        KeyLogAction::Add,
        &mallory,
    );
    let mut taken = e.clone();
    append_with(
        &mut taken,
        b"mallory",
        &l.alice2.public,
        60,
        KeyLogAction::Update,
        &mallory,
        Some(&l.alice2),
    );
    assert_eq!(
        fault(keylog::key_log_verify_chain(&taken)),
        (5, KeyLogFault::KeyOfAnotherUser)
    );
    // Alice's replaced key and Bob's revoked key stay theirs.
    for old in [&l.alice1, &l.bob] {
        let mut taken = e.clone();
        append_with(
            &mut taken,
            b"mallory",
            &old.public,
            60,
            KeyLogAction::Update,
            &mallory,
            Some(old),
        );
        assert_eq!(
            fault(keylog::key_log_verify_chain(&taken)),
            (5, KeyLogFault::KeyOfAnotherUser)
        );
    }
    // The same user going back to its own earlier key is not this rule's business.
    let mut back = l.entries[..3].to_vec();
    append_with(
        &mut back,
        b"alice",
        &l.alice1.public,
        50,
        KeyLogAction::Update,
        &l.alice2,
        Some(&l.alice1),
    );
    keylog::key_log_verify_chain(&back).unwrap();
}

/// v1 entries (no `version`, no `keySignature`) and unknown versions are refused with a typed reason.
#[test]
fn key_log_old_entries_are_refused() {
    let l = key_log();
    let json = keylog::key_log_to_json(&l.entries).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v[1].as_object_mut().unwrap().remove("version");
    assert!(matches!(
        keylog::key_log_from_json(&v.to_string()),
        Err(MessagingError::KeyLog {
            index: 1,
            fault: KeyLogFault::UnsupportedVersion
        })
    ));
    for version in [0, 1, 3] {
        let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
        v[0]["version"] = serde_json::Value::from(version);
        assert!(matches!(
            keylog::key_log_from_json(&v.to_string()),
            Err(MessagingError::KeyLog {
                index: 0,
                fault: KeyLogFault::UnsupportedVersion
            })
        ));
        assert!(matches!(
            keylog::key_log_entry_from_json(&v[0].to_string()),
            Err(MessagingError::KeyLog {
                index: 0,
                fault: KeyLogFault::UnsupportedVersion
            })
        ));
    }
    // A literal v1 entry, as v1 wrote it.
    let v1 = r#"[{"userId":"YWxpY2U","publicKey":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","timestamp":1,"prevHash":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","action":"add","signature":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}]"#;
    assert!(matches!(
        keylog::key_log_from_json(v1),
        Err(MessagingError::KeyLog {
            index: 0,
            fault: KeyLogFault::UnsupportedVersion
        })
    ));
    // A proof on a revoke is malformed.
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v[3]["keySignature"] = v[0]["keySignature"].clone();
    assert!(matches!(
        keylog::key_log_from_json(&v.to_string()),
        Err(MessagingError::KeyLog {
            index: 3,
            fault: KeyLogFault::Malformed
        })
    ));
}

// ================================================================ device registry

fn device_registry() -> (
    DeviceRegistry,
    ed25519::Ed25519Keypair,
    ed25519::Ed25519Keypair,
) {
    let account = ed_kp("account");
    let laptop = ed_kp("laptop");
    let mut r = DeviceRegistry::new(&account.public).unwrap();
    r.add_device(
        "laptop",
        "Laptop",
        10,
        &laptop.public,
        account.secret.as_slice(),
    )
    .unwrap();
    r.add_device(
        "phone",
        "Phone",
        20,
        &ed_kp("phone").public,
        account.secret.as_slice(),
    )
    .unwrap();
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
        reg_fault(r2.add_device(
            "rogue",
            "Rogue",
            30,
            &ed_kp("rogue").public,
            laptop.secret.as_slice()
        )),
        (None, RegistryFault::AccountKeyMismatch)
    );
    // Forged by hand: a well-formed change whose signature is the laptop's.
    let mut forged = r.clone();
    forged
        .add_device(
            "rogue",
            "Rogue",
            30,
            &ed_kp("rogue").public,
            account.secret.as_slice(),
        )
        .unwrap();
    let last = forged.changes.last_mut().unwrap();
    last.signature = ed25519::ed25519_sign(
        laptop.secret.as_slice(),
        &last.body(&account.public).unwrap(),
    )
    .unwrap();
    assert_eq!(
        reg_fault(forged.verify(&account.public)),
        (Some(2), RegistryFault::BadSignature)
    );
    let json = forged.to_json().unwrap();
    assert!(matches!(
        registry::registry_list_active(&json, &account.public),
        Err(MessagingError::Registry {
            index: Some(2),
            fault: RegistryFault::BadSignature
        })
    ));
}

#[test]
fn registry_server_cannot_swap_account_key_reorder_or_resurrect() {
    let (r, account, _) = device_registry();
    // The server re-signs everything with its own "account" key.
    let server = ed_kp("server");
    let mut swapped = DeviceRegistry::new(&server.public).unwrap();
    swapped
        .add_device(
            "laptop",
            "Laptop",
            10,
            &ed_kp("laptop").public,
            server.secret.as_slice(),
        )
        .unwrap();
    swapped
        .add_device(
            "evil",
            "Evil",
            20,
            &ed_kp("evil").public,
            server.secret.as_slice(),
        )
        .unwrap();
    assert_eq!(
        reg_fault(swapped.verify(&account.public)),
        (None, RegistryFault::AccountKeyMismatch)
    );
    // Reordered changes.
    let mut reordered = r.clone();
    reordered.changes.swap(0, 1);
    assert_eq!(
        reg_fault(reordered.verify(&account.public)),
        (Some(0), RegistryFault::BadPrevHash)
    );
    // Revoke, then re-add the same id: refused at creation and in verification.
    let mut revoked = r.clone();
    revoked
        .revoke_device("laptop", 30, account.secret.as_slice())
        .unwrap();
    assert_eq!(
        reg_fault(revoked.clone().add_device(
            "laptop",
            "Laptop",
            40,
            &ed_kp("laptop").public,
            account.secret.as_slice()
        )),
        (Some(3), RegistryFault::DuplicateDevice)
    );
    assert_eq!(
        reg_fault(
            revoked
                .clone()
                .revoke_device("laptop", 40, account.secret.as_slice())
        ),
        (Some(3), RegistryFault::AlreadyRevoked)
    );
    assert_eq!(
        reg_fault(
            revoked
                .clone()
                .revoke_device("tablet", 40, account.secret.as_slice())
        ),
        (Some(3), RegistryFault::UnknownDevice)
    );
    // Dropping the revoke in the middle of the log breaks the chain.
    let mut later = revoked.clone();
    later
        .add_device(
            "tablet",
            "Tablet",
            50,
            &ed_kp("tablet").public,
            account.secret.as_slice(),
        )
        .unwrap();
    let mut dropped = later.clone();
    dropped.changes.remove(2);
    assert_eq!(
        reg_fault(dropped.verify(&account.public)),
        (Some(2), RegistryFault::BadPrevHash)
    );
    let active: Vec<String> = later
        .active_devices(&account.public)
        .unwrap()
        .into_iter()
        .map(|d| d.device_id)
        .collect();
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
    assert_eq!(
        reg_fault(registry::registry_verify(&v.to_string(), &account.public)),
        (None, RegistryFault::Malformed)
    );
    assert_eq!(
        reg_fault(registry::registry_verify("[]", &account.public)),
        (None, RegistryFault::Malformed)
    );
}

// ================================================================ replay store

#[test]
fn replay_of_a_stored_hash_fails() {
    let mut s = ReplayStore::new(3600, 1000).unwrap();
    let h = transcript::transcript_compute_message_hash(b"msg-1", b"alice", 1000, b"ct").unwrap();
    s.insert(&h, 1000, 1000).unwrap();
    assert!(s.has(&h).unwrap());
    assert_eq!(s.insert(&h, 1000, 1001).err(), Some(MessagingError::Replay));
    assert_eq!(
        s.insert(&h, 2000, 2000).err(),
        Some(MessagingError::Replay),
        "a new timestamp does not help"
    );
    // Survives serialisation.
    let mut loaded = ReplayStore::from_json(&s.to_json().unwrap()).unwrap();
    assert_eq!(
        loaded.insert(&h, 1000, 1002).err(),
        Some(MessagingError::Replay)
    );
}

#[test]
fn replay_after_eviction_or_prune_is_still_refused() {
    let mut s = ReplayStore::new(60, 2).unwrap();
    let h = |i: u8| [i; 32];
    s.insert(&h(1), 100, 100).unwrap();
    s.insert(&h(2), 101, 101).unwrap();
    s.insert(&h(3), 102, 102).unwrap(); // evicts h(1): floor = 101
    assert!(!s.has(&h(1)).unwrap());
    assert_eq!(
        s.insert(&h(1), 100, 103).err(),
        Some(MessagingError::ReplayOutOfWindow)
    );
    assert_eq!(s.prune(200), 2);
    assert!(s.is_empty());
    assert_eq!(
        s.insert(&h(3), 102, 130).err(),
        Some(MessagingError::ReplayOutOfWindow),
        "pruned hash"
    );
    assert_eq!(
        s.insert(&h(9), 10, 200).err(),
        Some(MessagingError::ReplayOutOfWindow),
        "too old"
    );
    assert_eq!(
        s.insert(&h(9), 300, 200).err(),
        Some(MessagingError::ReplayOutOfWindow),
        "too far ahead"
    );
    s.insert(&h(9), 200, 200).unwrap();
}

#[test]
fn replay_store_json_is_checked() {
    let s = ReplayStore::new(60, 2).unwrap();
    let json = s.to_json().unwrap();
    assert!(ReplayStore::from_json(&json).is_ok());
    let dup = r#"{"version":1,"windowSeconds":60,"maxEntries":2,"floor":0,"entries":[["AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",1],["AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",2]]}"#;
    assert!(matches!(
        ReplayStore::from_json(dup),
        Err(MessagingError::Malformed(_))
    ));
    let over = r#"{"version":1,"windowSeconds":60,"maxEntries":1,"floor":0,"entries":[["AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",1],["AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",2]]}"#;
    assert!(matches!(
        ReplayStore::from_json(over),
        Err(MessagingError::Malformed(_))
    ));
    let huge = r#"{"version":1,"windowSeconds":60,"maxEntries":18446744073709551615,"floor":0,"entries":[]}"#;
    assert!(matches!(
        ReplayStore::from_json(huge),
        Err(MessagingError::Malformed(_))
    ));
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
    assert_ne!(
        *alice,
        *session::ratchet_srk(&srk, &a_sk, &b_pk, b"chat", 8, true).unwrap()
    );
    assert_ne!(
        *alice,
        *session::ratchet_srk(&srk, &a_sk, &b_pk, b"chat2", 7, true).unwrap()
    );
    assert_ne!(
        *alice,
        *session::ratchet_srk(&[4u8; 32], &a_sk, &b_pk, b"chat", 7, true).unwrap()
    );
    assert!(matches!(
        session::ratchet_srk(&srk, &a_sk, &[0u8; 32], b"chat", 7, true),
        Err(MessagingError::Crypto(CryptoError::WeakKey))
    ));
    assert!(matches!(
        session::derive_srk(&[1u8; 32], b""),
        Err(MessagingError::Crypto(CryptoError::InvalidParameter(_)))
    ));
}

#[test]
fn transcript_detects_drop_reorder_and_field_shifts() {
    let h = |id: &[u8], s: &[u8], t: u64, c: &[u8]| {
        transcript::transcript_compute_message_hash(id, s, t, c).unwrap()
    };
    let m1 = h(b"1", b"alice", 1, b"a");
    let m2 = h(b"2", b"bob", 2, b"b");
    let base = transcript::transcript_new(b"session").unwrap();
    let ab =
        transcript::transcript_update(&transcript::transcript_update(&base, &m1).unwrap(), &m2)
            .unwrap();
    let ba =
        transcript::transcript_update(&transcript::transcript_update(&base, &m2).unwrap(), &m1)
            .unwrap();
    let b_only = transcript::transcript_update(&base, &m2).unwrap();
    assert!(transcript::transcript_verify_sync(&ab, &ab).unwrap());
    assert!(!transcript::transcript_verify_sync(&ab, &ba).unwrap());
    assert!(!transcript::transcript_verify_sync(&ab, &b_only).unwrap());
    // Length prefixes: moving a byte between fields changes the hash.
    assert_ne!(h(b"ab", b"c", 0, b""), h(b"a", b"bc", 0, b""));
    assert!(transcript::transcript_verify_sync(&ab, &ab[..31]).is_err());
}

/// Issue 13 item 8: `transcriptNew(chain ‖ h)` was `SHA-256(chain ‖ h)`,
/// which is `transcriptUpdate(chain, h)`: a session id could stand for a
/// whole chain state. Labels now separate the two.
#[test]
fn transcript_new_cannot_stand_for_an_update() {
    use sha2::Digest;
    let chain = transcript::transcript_new(b"session").unwrap();
    let h = transcript::transcript_compute_message_hash(b"1", b"alice", 1, b"ct").unwrap();
    let joined = [chain.as_slice(), &h].concat();
    // The v1 definitions collided (SHA-256(sessionId) vs SHA-256(chain ‖ h)).
    assert_eq!(
        sha2::Sha256::digest(&joined),
        sha2::Sha256::digest([chain.as_slice(), &h].concat())
    );
    let new = transcript::transcript_new(&joined).unwrap();
    let update = transcript::transcript_update(&chain, &h).unwrap();
    assert_ne!(new, update);
    assert!(!transcript::transcript_verify_sync(&new, &update).unwrap());
    // Nor can a message hash stand for either.
    assert_ne!(
        transcript::transcript_compute_message_hash(b"", b"", 0, b"").unwrap(),
        transcript::transcript_new(b"").unwrap()
    );
}

// ================================================================ verification codes

fn identity(label: &str, ml_dsa: bool) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let ed = seed(&format!("{label}/ed")).to_vec();
    let x = seed(&format!("{label}/x")).to_vec();
    let ml: Vec<u8> = if ml_dsa {
        (0..1952)
            .map(|i| seed(&format!("{label}/ml/{}", i / 32))[i % 32])
            .collect()
    } else {
        Vec::new()
    };
    (ed, ml, x)
}

fn enc((ed, ml, x): &(Vec<u8>, Vec<u8>, Vec<u8>)) -> Vec<u8> {
    verification::encode_identity(ed, (!ml.is_empty()).then_some(ml.as_slice()), x).unwrap()
}

/// Issue 13 item 3 (a): every key of an identity is in the code, the X25519
/// identity key included (v1 took one key, so an X25519 substitution kept the code).
#[test]
fn verification_code_changes_with_every_component_key() {
    let alice = identity("vc-alice", true);
    let bob = identity("vc-bob", false);
    let base = verification::generate_verification_code(&enc(&alice), &enc(&bob), b"conv").unwrap();
    let mut variants = Vec::new();
    for part in 0..3 {
        for byte in [0usize, 17, 31] {
            let mut a = alice.clone();
            match part {
                0 => a.0[byte] ^= 1,
                1 => a.1[byte * 60] ^= 0x80,
                _ => a.2[byte] ^= 1,
            }
            variants.push(
                verification::generate_verification_code(&enc(&a), &enc(&bob), b"conv").unwrap(),
            );
            let mut b = bob.clone();
            match part {
                0 => b.0[byte] ^= 1,
                1 => b.1 = identity("vc-bob", true).1,
                _ => b.2[byte] ^= 1,
            }
            variants.push(
                verification::generate_verification_code(&enc(&alice), &enc(&b), b"conv").unwrap(),
            );
        }
    }
    // Dropping Alice's ML-DSA key (a downgrade) changes it too.
    variants.push(
        verification::generate_verification_code(
            &enc(&(alice.0.clone(), Vec::new(), alice.2.clone())),
            &enc(&bob),
            b"conv",
        )
        .unwrap(),
    );
    variants.push(
        verification::generate_verification_code(&enc(&alice), &enc(&bob), b"conv2").unwrap(),
    );
    for v in &variants {
        assert_ne!(v.numeric, base.numeric);
        assert_ne!(v.fingerprint, base.fingerprint);
    }
    // Identity encodings are canonical and length-checked.
    let mut bad_flags = enc(&bob);
    bad_flags[0] = 0x02;
    assert!(matches!(
        verification::generate_verification_code(&bad_flags, &enc(&alice), b""),
        Err(MessagingError::Malformed(_))
    ));
    let mut flag_without_key = enc(&bob);
    flag_without_key[0] = 0x01;
    assert!(matches!(
        verification::generate_verification_code(&flag_without_key, &enc(&alice), b""),
        Err(MessagingError::Crypto(CryptoError::InvalidLength { .. }))
    ));
    let truncated = &enc(&alice)[..2016];
    assert!(matches!(
        verification::generate_verification_code(truncated, &enc(&bob), b""),
        Err(MessagingError::Crypto(CryptoError::InvalidLength { .. }))
    ));
    assert!(matches!(
        verification::generate_verification_code(&[], &enc(&bob), b""),
        Err(MessagingError::Malformed(_))
    ));
    assert!(matches!(
        verification::encode_identity(&[1; 32], Some(&[0; 1951]), &[2; 32]),
        Err(MessagingError::Crypto(CryptoError::InvalidLength { .. }))
    ));
}

/// Issue 13 item 3 (b): a static code shows ≥ 199 bits (claw search ≥ 2^99.5):
/// 12 groups of 5 digits, each an independent 40-bit value mod 10^5 (60
/// digits, 60·log2(10) ≈ 199.3 bits), and a 256-bit fingerprint. No short form.
#[test]
fn verification_code_displays_at_least_199_bits() {
    let (a, b) = (
        enc(&identity("vc-alice", false)),
        enc(&identity("vc-bob", false)),
    );
    let mut distinct: Vec<std::collections::BTreeSet<String>> =
        vec![Default::default(); verification::NUMERIC_GROUPS];
    for conv in 0u32..300 {
        let c = verification::generate_verification_code(&a, &b, &conv.to_be_bytes()).unwrap();
        let groups: Vec<&str> = c.numeric.split(' ').collect();
        assert_eq!(groups.len(), 12);
        assert!(
            groups
                .iter()
                .all(|g| g.len() == 5 && g.bytes().all(|d| d.is_ascii_digit()))
        );
        assert_eq!(c.numeric.len(), 71);
        assert_eq!(c.fingerprint.len(), 64);
        assert!(
            c.fingerprint
                .bytes()
                .all(|d| d.is_ascii_hexdigit() && !d.is_ascii_uppercase())
        );
        for (set, g) in distinct.iter_mut().zip(&groups) {
            set.insert((*g).to_owned());
        }
    }
    // Every group is a full-range value of its own (none constant, none a copy of another).
    for set in &distinct {
        assert!(set.len() > 290, "{}", set.len());
    }
    let digits = 12.0 * 5.0;
    assert!(digits * 10f64.log2() >= 199.0);
}

fn sas_pair(max: u32) -> (SasVerification, SasVerification, Vec<u8>, Vec<u8>) {
    let (alice, bob) = (
        enc(&identity("sas-alice", true)),
        enc(&identity("sas-bob", false)),
    );
    let init = SasVerification::new(SasRole::Initiator, &alice, &bob, max).unwrap();
    let resp = SasVerification::new(SasRole::Responder, &bob, &alice, max).unwrap();
    (init, resp, alice, bob)
}

/// Runs one honest exchange; returns both emoji.
fn sas_run(
    init: &mut SasVerification,
    resp: &mut SasVerification,
    tx: &[u8],
) -> ([&'static str; 7], [&'static str; 7]) {
    assert_eq!(init.start(tx).unwrap(), None);
    let c = resp.start(tx).unwrap().unwrap();
    let ni = init.receive_commitment(&c).unwrap();
    let nr = resp.receive_nonce(&ni).unwrap().unwrap();
    assert_eq!(init.receive_nonce(&nr).unwrap(), None);
    (init.emoji().unwrap(), resp.emoji().unwrap())
}

#[test]
fn sas_honest_exchange_agrees_and_matches_the_spec() {
    let (mut init, mut resp, alice, bob) = sas_pair(3);
    assert_eq!(init.start(b"tx-1").unwrap(), None);
    let c = resp.start(b"tx-1").unwrap().unwrap();
    let ni = init.receive_commitment(&c).unwrap();
    let nr = resp.receive_nonce(&ni).unwrap().unwrap();
    init.receive_nonce(&nr).unwrap();
    assert_eq!(init.emoji().unwrap(), resp.emoji().unwrap());
    // Independently: the commitment and the SAS from sha2 directly.
    use sha2::Digest;
    let lp = |x: &[u8]| [&(x.len() as u32).to_be_bytes()[..], x].concat();
    let commit = sha2::Sha256::digest(
        [&b"veilkit-sas-commit-v1"[..], &lp(b"tx-1"), &lp(&bob), &nr].concat(),
    );
    assert_eq!(commit.as_slice(), c.as_slice());
    let sas = sha2::Sha256::digest(
        [
            &b"veilkit-sas-v1"[..],
            &lp(b"tx-1"),
            &lp(&alice),
            &lp(&bob),
            &ni,
            &nr,
        ]
        .concat(),
    );
    assert_eq!(verification::sas_emoji(&sas.into()), init.emoji().unwrap());
    assert_ne!(ni, nr);
    init.confirm().unwrap();
    resp.confirm().unwrap();
    assert!(init.is_verified() && resp.is_verified());
    assert_eq!(init.state(), "verified");
    // Verified is final.
    assert_eq!(
        init.start(b"tx-2").err(),
        Some(MessagingError::InvalidState)
    );
    assert_eq!(init.emoji().err(), Some(MessagingError::InvalidState));
}

/// Issue 13 item 3 (c): a responder (or a man in the middle playing one)
/// who changes its nonce after the commitment is detected.
#[test]
fn sas_responder_changing_nonce_after_commitment_is_detected() {
    let (mut init, mut resp, _, bob) = sas_pair(3);
    init.start(b"tx").unwrap();
    let c = resp.start(b"tx").unwrap().unwrap();
    let ni = init.receive_commitment(&c).unwrap();
    // Grinding: a second responder object (same identity) picks another nonce after seeing n_init.
    let (_, mut other, _, _) = sas_pair(3);
    other.start(b"tx").unwrap();
    let other_nonce = other.receive_nonce(&ni).unwrap().unwrap();
    assert_eq!(
        init.receive_nonce(&other_nonce).err(),
        Some(MessagingError::SasCommitmentMismatch)
    );
    assert_eq!(init.failures(), 1);
    assert_eq!(init.state(), "idle");
    assert_eq!(init.emoji().err(), Some(MessagingError::InvalidState));
    // The honest nonce cannot be delivered afterwards either: the attempt is over.
    let honest = resp.receive_nonce(&ni).unwrap().unwrap();
    assert_eq!(
        init.receive_nonce(&honest).err(),
        Some(MessagingError::InvalidState)
    );
    let _ = bob;
}

/// Issue 13 item 3 (c): a responder that committed under one identity and
/// then claims another (the key-substituting MITM) is detected.
#[test]
fn sas_responder_changing_identity_after_commitment_is_detected() {
    let (mut init, _, alice, bob) = sas_pair(3);
    let mallory = enc(&identity("sas-mallory", false));
    // The MITM commits honestly under his own identity (an honest-looking responder object)…
    let mut mitm = SasVerification::new(SasRole::Responder, &mallory, &alice, 3).unwrap();
    init.start(b"tx").unwrap();
    let c = mitm.start(b"tx").unwrap().unwrap();
    let ni = init.receive_commitment(&c).unwrap();
    let nm = mitm.receive_nonce(&ni).unwrap().unwrap();
    // …but Alice believes she talks to Bob: the opening under Bob's identity fails.
    assert_eq!(
        init.receive_nonce(&nm).err(),
        Some(MessagingError::SasCommitmentMismatch)
    );
    // And one changed component key (Bob's X25519 key) is enough.
    let mut init2 = SasVerification::new(SasRole::Initiator, &alice, &bob, 3).unwrap();
    let mut bob_x = identity("sas-bob", false);
    bob_x.2[0] ^= 1;
    let mut subst = SasVerification::new(SasRole::Responder, &enc(&bob_x), &alice, 3).unwrap();
    init2.start(b"tx").unwrap();
    let c = subst.start(b"tx").unwrap().unwrap();
    let ni = init2.receive_commitment(&c).unwrap();
    let ns = subst.receive_nonce(&ni).unwrap().unwrap();
    assert_eq!(
        init2.receive_nonce(&ns).err(),
        Some(MessagingError::SasCommitmentMismatch)
    );
    // Recomputing by hand: the commitment opens only under the identity committed to.
    let ns: [u8; 32] = ns;
    assert_eq!(
        verification::sas_commitment(b"tx", &enc(&bob_x), &ns).unwrap(),
        <[u8; 32]>::try_from(c.as_slice()).unwrap()
    );
    assert_ne!(
        verification::sas_commitment(b"tx", &bob, &ns).unwrap(),
        <[u8; 32]>::try_from(c.as_slice()).unwrap()
    );
}

/// Issue 13 item 3 (c): replayed and reflected nonces and commitments are refused.
#[test]
fn sas_replayed_or_reflected_nonce_is_refused() {
    let (mut init, mut resp, _, _) = sas_pair(5);
    // Attempt 1, complete; the users reject (say), so both may try again.
    init.start(b"tx-1").unwrap();
    let c1 = resp.start(b"tx-1").unwrap().unwrap();
    let ni1 = init.receive_commitment(&c1).unwrap();
    let nr1 = resp.receive_nonce(&ni1).unwrap().unwrap();
    init.receive_nonce(&nr1).unwrap();
    init.reject().unwrap();
    resp.reject().unwrap();
    // Attempt 2: the old commitment replayed.
    init.start(b"tx-2").unwrap();
    assert_eq!(
        init.receive_commitment(&c1).err(),
        Some(MessagingError::SasNonceReused)
    );
    assert_eq!(init.failures(), 2);
    // Attempt 3: a fresh commitment, then the old responder nonce replayed.
    init.start(b"tx-3").unwrap();
    let c3 = resp.start(b"tx-3").unwrap().unwrap();
    let ni3 = init.receive_commitment(&c3).unwrap();
    assert_ne!(ni3, ni1, "fresh nonce per attempt");
    assert_eq!(
        init.receive_nonce(&nr1).err(),
        Some(MessagingError::SasNonceReused)
    );
    assert_eq!(init.failures(), 3);
    // The responder refuses an old initiator nonce too.
    assert_eq!(
        resp.receive_nonce(&ni1).err(),
        Some(MessagingError::SasNonceReused)
    );
    assert_eq!(resp.failures(), 2);
    // Reflection: the initiator's own nonce sent back as the responder's.
    init.start(b"tx-4").unwrap();
    let c4 = resp.start(b"tx-4").unwrap().unwrap();
    let ni4 = init.receive_commitment(&c4).unwrap();
    assert_eq!(
        init.receive_nonce(&ni4).err(),
        Some(MessagingError::SasNonceReused)
    );
    // …and the responder's own commitment or nonce reflected to it.
    let (_, mut r, _, _) = sas_pair(3);
    let c = r.start(b"tx").unwrap().unwrap();
    assert_eq!(
        r.receive_nonce(&c).err(),
        Some(MessagingError::SasNonceReused)
    );
    // Own nonces are never reused across attempts.
    let mut nonces = std::collections::BTreeSet::new();
    let (mut i2, mut r2, _, _) = sas_pair(10);
    for k in 0..5u8 {
        i2.start(&[k + 1]).unwrap();
        let c = r2.start(&[k + 1]).unwrap().unwrap();
        let n = i2.receive_commitment(&c).unwrap();
        let m = r2.receive_nonce(&n).unwrap().unwrap();
        assert!(nonces.insert(n) && nonces.insert(m));
        i2.abort();
        r2.abort();
    }
}

/// Issue 13 item 3 (c): failed and aborted attempts are counted; after the cap, refused for good.
#[test]
fn sas_attempts_are_counted_and_capped() {
    let (mut init, mut resp, _, _) = sas_pair(3);
    // 1: the users see different emoji (say) and reject.
    sas_run(&mut init, &mut resp, b"tx-1");
    init.reject().unwrap();
    resp.reject().unwrap();
    // 2: aborted mid-way.
    init.start(b"tx-2").unwrap();
    init.abort();
    // 3: commitment mismatch.
    init.start(b"tx-3").unwrap();
    let c = resp.start(b"tx-3").unwrap().unwrap();
    init.receive_commitment(&c).unwrap();
    assert_eq!(
        init.receive_nonce(&[7u8; 32]).err(),
        Some(MessagingError::SasCommitmentMismatch)
    );
    assert_eq!((init.failures(), init.attempts_left()), (3, 0));
    assert_eq!(init.state(), "exhausted");
    assert_eq!(
        init.start(b"tx-4").err(),
        Some(MessagingError::SasAttemptsExhausted)
    );
    assert_eq!(
        init.start(b"tx-5").err(),
        Some(MessagingError::SasAttemptsExhausted)
    );
    // The responder counted its own: one reject so far, one abort now.
    resp.abort();
    assert_eq!(resp.failures(), 2);
    assert!(matches!(
        SasVerification::new(
            SasRole::Initiator,
            &enc(&identity("a", false)),
            &enc(&identity("b", false)),
            0
        ),
        Err(MessagingError::Crypto(CryptoError::InvalidParameter(_)))
    ));
    assert!(matches!(
        SasVerification::new(
            SasRole::Initiator,
            &enc(&identity("a", false)),
            &enc(&identity("b", false)),
            11
        ),
        Err(MessagingError::Crypto(CryptoError::InvalidParameter(_)))
    ));
}

/// Calls out of order are `INVALID_STATE` and change nothing; the initiator's
/// nonce is never released before the commitment.
#[test]
fn sas_out_of_order_calls_are_invalid_state() {
    let (mut init, mut resp, _, _) = sas_pair(3);
    let s = Some(MessagingError::InvalidState);
    assert_eq!(init.receive_commitment(&[1; 32]).err(), s, "before start");
    assert_eq!(init.receive_nonce(&[1; 32]).err(), s, "before start");
    assert_eq!(resp.receive_nonce(&[1; 32]).err(), s, "before start");
    init.start(b"tx").unwrap();
    assert_eq!(
        init.receive_nonce(&[1; 32]).err(),
        s,
        "reveal before commit"
    );
    assert_eq!(init.start(b"tx").err(), s, "start while running");
    assert_eq!(init.emoji().err(), s);
    assert_eq!(init.confirm().err(), s);
    assert_eq!(init.reject().err(), s);
    let c = resp.start(b"tx").unwrap().unwrap();
    assert_eq!(resp.receive_commitment(&c).err(), s, "wrong role");
    assert!(matches!(
        init.receive_commitment(&c[..31]),
        Err(MessagingError::Crypto(CryptoError::InvalidLength { .. }))
    ));
    assert!(matches!(init.start(&[]), Err(MessagingError::InvalidState)));
    init.receive_commitment(&c).unwrap();
    assert_eq!(init.receive_commitment(&c).err(), s, "second commitment");
    assert_eq!(init.failures(), 0, "misuse is not a failed attempt");
    let (_, mut fresh, _, _) = sas_pair(3);
    assert!(matches!(
        fresh.start(&[]),
        Err(MessagingError::Crypto(CryptoError::InvalidLength { .. }))
    ));
    assert!(matches!(
        fresh.start(&[0; 256]),
        Err(MessagingError::Crypto(CryptoError::InvalidLength { .. }))
    ));
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
    for len in [
        0usize, 1, 3, 4, 7, 8, 9, 35, 64, 123, 124, 125, 300, 1154, 2000,
    ] {
        let g = next(len);
        assert_eq!(
            padding::unpad_message(&g).err(),
            Some(MessagingError::InvalidPadding),
            "{len}"
        );
        if len >= 14 {
            // A length field that fits: the bucket size (or, for 64 bytes, the fill) is refused.
            let mut fits = g.clone();
            fits[..4].copy_from_slice(&10u32.to_be_bytes());
            assert_eq!(
                padding::unpad_message(&fits).err(),
                Some(MessagingError::InvalidPadding),
                "{len}"
            );
        }
        assert!(chunked::decrypt_aes_gcm_chunked(&KEY, &g, b"").is_err());
        assert!(padding::decrypt_aes_gcm_padded(&KEY, &g, b"").is_err());
        assert!(sealed::unseal_message(&g, &bob_sk, &alice.public).is_err());
        assert!(sealed::unseal_sender_id(&g, &bob_sk).is_err());
        assert!(
            akem::authenticated_kem_decapsulate(
                &bob_sk,
                &[9u8; 32],
                &bob_mlkem.decapsulation_key,
                &g,
                &alice.public
            )
            .is_err()
        );
        let text = String::from_utf8_lossy(&g);
        assert!(keylog::key_log_from_json(&text).is_err());
        assert!(keylog::key_log_entry_from_json(&text).is_err());
        assert!(DeviceRegistry::from_json_unverified(&text).is_err());
        assert!(ReplayStore::from_json(&text).is_err());
    }
    for json in [
        "",
        "null",
        "[",
        "[null]",
        "[[]]",
        "[{}]",
        r#"{"version":1}"#,
        "1e999",
        "\"\\u0000\"",
    ] {
        assert!(keylog::key_log_from_json(json).is_err(), "{json}");
        assert!(
            DeviceRegistry::from_json_unverified(json).is_err(),
            "{json}"
        );
        assert!(ReplayStore::from_json(json).is_err(), "{json}");
    }
}
