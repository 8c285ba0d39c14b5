//! Entry points of the messaging fuzz targets (`fuzz/fuzz_targets/messaging_*.rs`)
//! and of their corpus replay in `cargo test` (`crate/tests/fuzz_corpus_replay.rs`),
//! included in both with `#[path]` so the two always run the same code.
//!
//! Each entry returns `Err` only when an invariant is broken — never for merely
//! invalid input — so a fuzz target panics on `Err`. Invariants: parsers are
//! total; what parses re-serialises and re-parses to the same value; the
//! verify / resolve functions agree with each other; authenticated inputs are
//! only accepted when their signature or tag really verifies; and our own
//! encodings of fuzzer-chosen contents decode back to them.
//!
//! The keys are fixed (derived from constant seeds), so seed corpora made by
//! [`seed_corpus`] stay valid.
#![allow(dead_code)]

use std::sync::OnceLock;

use veilkit::messaging::registry::DeviceRegistry;
use veilkit::messaging::replay::ReplayStore;
use veilkit::messaging::{akem, chunked, keylog, padding, registry, sealed};
use veilkit::{aead, ed25519, kdf, mlkem, x25519};

/// An entry point: `Err` names the broken invariant.
pub type Entry = fn(&[u8]) -> Result<(), &'static str>;

/// Every messaging target, by name.
pub const TARGETS: [(&str, Entry); 6] = [
    ("messaging_keylog_json", keylog_json),
    ("messaging_registry_json", registry_json),
    ("messaging_sealed", sealed_packet),
    ("messaging_akem", akem_ciphertext),
    ("messaging_chunked", chunked_message),
    ("messaging_replay_json", replay_json),
];

const RECIPIENT_X25519: [u8; 32] = [0x11; 32];
const SENDER_X25519: [u8; 32] = [0x22; 32];
const SENDER_IDENTITY_SEED: [u8; 32] = [0x33; 32];
const RECIPIENT_MLKEM_SEED: [u8; 64] = [0x44; 64];
const CHUNK_KEY: [u8; 32] = [0x55; 32];
const EPHEMERAL: [u8; 32] = [0x66; 32];
const IV: [u8; 12] = [0x77; 12];
const AAD: &[u8] = b"veilkit fuzz aad";

struct Keys {
    recipient_public: [u8; 32],
    sender_public: [u8; 32],
    sender_identity_public: [u8; 32],
    mlkem_dk: Vec<u8>,
    mlkem_ek: Vec<u8>,
}

fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| {
        let kem = mlkem::mlkem_from_seed(&RECIPIENT_MLKEM_SEED).ok();
        Keys {
            recipient_public: x25519::x25519_public(&RECIPIENT_X25519).unwrap_or_default(),
            sender_public: x25519::x25519_public(&SENDER_X25519).unwrap_or_default(),
            sender_identity_public: ed25519::ed25519_from_seed(&SENDER_IDENTITY_SEED)
                .map(|k| k.public)
                .unwrap_or_default(),
            mlkem_dk: kem
                .as_ref()
                .map(|k| k.decapsulation_key.to_vec())
                .unwrap_or_default(),
            mlkem_ek: kem.map(|k| k.encapsulation_key).unwrap_or_default(),
        }
    })
}

// ---------------------------------------------------------------- key log JSON

/// Key-log JSON (`key_log_from_json`, one entry, chain verification, current key).
///
/// # Errors
/// The broken invariant.
pub fn keylog_json(data: &[u8]) -> Result<(), &'static str> {
    let Ok(text) = std::str::from_utf8(data) else {
        return Ok(());
    };
    let _ = keylog::key_log_entry_from_json(text);
    let Ok(entries) = keylog::key_log_from_json(text) else {
        return Ok(());
    };
    let json =
        keylog::key_log_to_json(&entries).map_err(|_| "a parsed key log does not serialise")?;
    if keylog::key_log_from_json(&json).ok().as_ref() != Some(&entries) {
        return Err("key log JSON round trip changes the entries");
    }
    let verified = keylog::key_log_verify_chain(&entries).is_ok();
    for e in entries.iter().take(8) {
        if keylog::key_log_current_key(&entries, &e.user_id, None).is_ok() != verified {
            return Err("key_log_current_key and key_log_verify_chain disagree");
        }
        let _ = keylog::key_log_current_key(&entries, &e.user_id, Some(e.timestamp));
        let one =
            keylog::key_log_entry_to_json(e).map_err(|_| "a parsed entry does not serialise")?;
        if keylog::key_log_entry_from_json(&one).ok().as_ref() != Some(e) {
            return Err("entry JSON round trip changes the entry");
        }
        e.hash().map_err(|_| "a parsed entry has no hash")?;
    }
    Ok(())
}

// ---------------------------------------------------------------- registry JSON

/// Device-registry JSON (parse, re-serialise, verify, list active devices).
///
/// # Errors
/// The broken invariant.
pub fn registry_json(data: &[u8]) -> Result<(), &'static str> {
    let Ok(text) = std::str::from_utf8(data) else {
        return Ok(());
    };
    let Ok(reg) = DeviceRegistry::from_json_unverified(text) else {
        if registry::registry_verify(text, &keys().sender_identity_public).is_ok() {
            return Err("registry_verify accepts JSON that does not parse");
        }
        return Ok(());
    };
    let json = reg
        .to_json()
        .map_err(|_| "a parsed registry does not serialise")?;
    if DeviceRegistry::from_json_unverified(&json).ok().as_ref() != Some(&reg) {
        return Err("registry JSON round trip changes the registry");
    }
    let verified = reg.verify(&reg.account_key).is_ok();
    if reg.active_devices(&reg.account_key).is_ok() != verified {
        return Err("active_devices and verify disagree");
    }
    if registry::registry_verify(text, &reg.account_key).is_ok() != verified {
        return Err("registry_verify and DeviceRegistry::verify disagree");
    }
    if verified && registry::registry_list_active(text, &reg.account_key).is_err() {
        return Err("a verified registry cannot list its devices");
    }
    Ok(())
}

// ---------------------------------------------------------------- sealed sender

/// `eph_pub ‖ iv ‖ AES-GCM(K, iv, padded, eph_pub ‖ recipient_pub)` for our
/// fixed recipient: a valid outer layer around fuzzer-chosen padded bytes.
fn outer_layer(padded: &[u8]) -> Result<Vec<u8>, &'static str> {
    let k = keys();
    let eph_pub = x25519::x25519_public(&EPHEMERAL).map_err(|_| "x25519")?;
    let dh = x25519::x25519_dh(&EPHEMERAL, &k.recipient_public).map_err(|_| "x25519")?;
    let mut salt = eph_pub.to_vec();
    salt.extend_from_slice(&k.recipient_public);
    let key = kdf::hkdf_sha256(dh.as_slice(), &salt, sealed::KEY_INFO, 32).map_err(|_| "hkdf")?;
    let ct = aead::aes_gcm_encrypt_with_iv(&key, &IV, padded, &salt).map_err(|_| "aes-gcm")?;
    let mut packet = eph_pub.to_vec();
    packet.extend_from_slice(&IV);
    packet.extend_from_slice(&ct);
    Ok(packet)
}

/// Unseals `packet` both ways; they must agree on the sender id.
fn unseal_both(packet: &[u8]) -> Result<(), &'static str> {
    let id = sealed::unseal_sender_id(packet, &RECIPIENT_X25519);
    match sealed::unseal_message(packet, &RECIPIENT_X25519, &keys().sender_identity_public) {
        Ok(m) if id.ok().as_deref() != Some(m.sender_id.as_slice()) => {
            Err("unseal_message and unseal_sender_id disagree on the sender")
        }
        _ => Ok(()),
    }
}

/// Sealed-sender packets: the raw packet; the bytes as the padded inner
/// plaintext under a valid outer layer (reaches unpadding and the inner
/// parser); and a seal → unseal round trip of fuzzer-chosen id and content.
///
/// # Errors
/// The broken invariant.
pub fn sealed_packet(data: &[u8]) -> Result<(), &'static str> {
    unseal_both(data)?;
    unseal_both(&outer_layer(data)?)?;
    if let Ok(padded) = padding::pad_message(data) {
        unseal_both(&outer_layer(&padded)?)?;
    }
    if let Some((&n, rest)) = data.split_first() {
        let (id, content) = rest.split_at(rest.len().min(usize::from(n % 64) + 1));
        if !id.is_empty() {
            let k = keys();
            let packet = sealed::seal_message_derand(
                &k.recipient_public,
                id,
                content,
                &SENDER_IDENTITY_SEED,
                &EPHEMERAL,
                &IV,
            )
            .map_err(|_| "sealing fuzzer-chosen content failed")?;
            let m = sealed::unseal_message(&packet, &RECIPIENT_X25519, &k.sender_identity_public)
                .map_err(|_| "our own sealed packet does not unseal")?;
            if m.sender_id != id || m.content.as_slice() != content {
                return Err("seal / unseal round trip changes the message");
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------- authenticated KEM

/// Authenticated-KEM ciphertexts: decapsulation accepts only a ciphertext whose
/// signature verifies; encapsulation with fuzzer-chosen `m` round-trips.
///
/// # Errors
/// The broken invariant.
pub fn akem_ciphertext(data: &[u8]) -> Result<(), &'static str> {
    let k = keys();
    let got = akem::authenticated_kem_decapsulate(
        &RECIPIENT_X25519,
        &k.sender_public,
        &k.mlkem_dk,
        data,
        &k.sender_identity_public,
    );
    if got.is_ok() {
        // Re-check the signature independently: label ‖ sender_pub ‖ recipient_pub ‖ mlkem_ct.
        let (ct, sig) = data
            .get(2..)
            .map(|rest| rest.split_at(rest.len().min(mlkem::CT_LEN)))
            .ok_or("accepted a ciphertext without a body")?;
        let mut msg = akem::LABEL.to_vec();
        msg.extend_from_slice(&k.sender_public);
        msg.extend_from_slice(&k.recipient_public);
        msg.extend_from_slice(ct);
        if ed25519::ed25519_verify(&k.sender_identity_public, &msg, sig).is_err() {
            return Err("decapsulation accepted a ciphertext whose signature does not verify");
        }
    }
    let mut m = [0u8; 32];
    for (d, s) in m.iter_mut().zip(data.iter()) {
        *d = *s;
    }
    let (ct, ss) = akem::authenticated_kem_encapsulate_derand(
        &SENDER_X25519,
        &k.recipient_public,
        &k.mlkem_ek,
        &SENDER_IDENTITY_SEED,
        &m,
    )
    .map_err(|_| "encapsulation to our fixed keys failed")?;
    let back = akem::authenticated_kem_decapsulate(
        &RECIPIENT_X25519,
        &k.sender_public,
        &k.mlkem_dk,
        &ct,
        &k.sender_identity_public,
    )
    .map_err(|_| "our own ciphertext does not decapsulate")?;
    if *back != *ss {
        return Err("authenticated KEM round trip gives a different secret");
    }
    Ok(())
}

// ---------------------------------------------------------------- chunked AEAD

/// Chunked AES-GCM: the raw bytes as a chunked ciphertext (header and length
/// logic; a success must re-encrypt to the same bytes), and an
/// encrypt → decrypt round trip of fuzzer-chosen chunk size and plaintext.
///
/// # Errors
/// The broken invariant.
pub fn chunked_message(data: &[u8]) -> Result<(), &'static str> {
    if let Ok(pt) = chunked::decrypt_aes_gcm_chunked(&CHUNK_KEY, data, AAD) {
        let size = data
            .first_chunk::<4>()
            .map(|b| u32::from_be_bytes(*b))
            .ok_or("accepted a headerless ciphertext")?;
        let mut ivs = Vec::new();
        let mut at = chunked::HEADER_LEN;
        let chunk = usize::try_from(size).map_err(|_| "chunk size")?;
        let mut left = pt.len();
        loop {
            let iv = data
                .get(at..at + aead::IV_LEN)
                .ok_or("accepted a truncated chunk")?;
            ivs.extend_from_slice(iv);
            let n = left.min(chunk);
            at += chunked::CHUNK_OVERHEAD + n;
            left -= n;
            if left == 0 {
                break;
            }
        }
        let again = chunked::encrypt_aes_gcm_chunked_with_ivs(&CHUNK_KEY, &pt, AAD, size, &ivs)
            .map_err(|_| "an accepted plaintext does not re-encrypt")?;
        if again != data {
            return Err("decrypt then re-encrypt with the same IVs changes the ciphertext");
        }
    }
    if let Some((size, pt)) = data.split_first_chunk::<2>() {
        let size = u32::from(u16::from_be_bytes(*size)).max(1);
        let count = chunked::chunk_count(pt.len(), size).map_err(|_| "chunk_count")?;
        let ivs: Vec<u8> = (0..count)
            .flat_map(|i| [[0u8; 8].as_slice(), &i.to_be_bytes()].concat())
            .collect();
        let ct = chunked::encrypt_aes_gcm_chunked_with_ivs(&CHUNK_KEY, pt, AAD, size, &ivs)
            .map_err(|_| "encrypting failed")?;
        if Some(ct.len()) != chunked::ciphertext_len(pt.len(), size).ok() {
            return Err("ciphertext_len disagrees with the ciphertext");
        }
        let back = chunked::decrypt_aes_gcm_chunked(&CHUNK_KEY, &ct, AAD)
            .map_err(|_| "our own ciphertext does not decrypt")?;
        if back.as_slice() != pt {
            return Err("chunked round trip changes the plaintext");
        }
        // Dropping the last byte or flipping a bit anywhere must fail.
        if chunked::decrypt_aes_gcm_chunked(
            &CHUNK_KEY,
            ct.get(..ct.len() - 1).unwrap_or_default(),
            AAD,
        )
        .is_ok()
        {
            return Err("a truncated chunked ciphertext decrypts");
        }
        let mut bad = ct.clone();
        let at = usize::try_from(size).unwrap_or(0) % bad.len().max(1);
        if let Some(b) = bad.get_mut(at) {
            *b ^= 0x01;
        }
        if chunked::decrypt_aes_gcm_chunked(&CHUNK_KEY, &bad, AAD).is_ok() {
            return Err("a modified chunked ciphertext decrypts");
        }
    }
    Ok(())
}

// ---------------------------------------------------------------- replay store JSON

/// Replay-store JSON: parse, re-serialise, re-parse.
///
/// # Errors
/// The broken invariant.
pub fn replay_json(data: &[u8]) -> Result<(), &'static str> {
    let Ok(text) = std::str::from_utf8(data) else {
        return Ok(());
    };
    let Ok(store) = ReplayStore::from_json(text) else {
        return Ok(());
    };
    let json = store
        .to_json()
        .map_err(|_| "a parsed replay store does not serialise")?;
    let again =
        ReplayStore::from_json(&json).map_err(|_| "a serialised replay store does not parse")?;
    if again.len() != store.len() || again.to_json().ok().as_deref() != Some(json.as_str()) {
        return Err("replay store JSON round trip is not stable");
    }
    Ok(())
}

// ---------------------------------------------------------------- seed corpora

/// Seed corpus files `(target, file name, bytes)`: `valid_*` are accepted by
/// the target's parser, `invalid_*` rejected (checked by the replay test).
#[must_use]
pub fn seed_corpus() -> Vec<(&'static str, String, Vec<u8>)> {
    let mut out = Vec::new();
    let k = keys();
    let mut add = |target: &'static str, name: &str, bytes: Vec<u8>| {
        out.push((target, name.to_owned(), bytes))
    };

    // Key log: a verified chain (add, update, revoke) and broken variants.
    let id_seed = [0x01u8; 32];
    let id2_seed = [0x02u8; 32];
    let pk1 = ed25519::ed25519_from_seed(&id_seed)
        .map(|kp| kp.public)
        .unwrap_or_default();
    let pk2 = ed25519::ed25519_from_seed(&id2_seed)
        .map(|kp| kp.public)
        .unwrap_or_default();
    let mut log = Vec::new();
    if let Ok(e1) = keylog::key_log_create_entry(
        b"alice",
        &pk1,
        100,
        &[0; 32],
        keylog::KeyLogAction::Add,
        &id_seed,
        None,
    ) {
        let h1 = e1.hash().unwrap_or_default();
        log.push(e1);
        if let Ok(e2) = keylog::key_log_create_entry(
            b"alice",
            &pk2,
            200,
            &h1,
            keylog::KeyLogAction::Update,
            &id_seed,
            Some(&id2_seed),
        ) {
            let h2 = e2.hash().unwrap_or_default();
            log.push(e2);
            if let Ok(e3) = keylog::key_log_create_entry(
                b"alice",
                &pk2,
                300,
                &h2,
                keylog::KeyLogAction::Revoke,
                &id2_seed,
                None,
            ) {
                log.push(e3);
            }
        }
    }
    let log_json = keylog::key_log_to_json(&log).unwrap_or_default();
    add(
        "messaging_keylog_json",
        "valid_chain.json",
        log_json.clone().into_bytes(),
    );
    add("messaging_keylog_json", "valid_empty.json", b"[]".to_vec());
    add(
        "messaging_keylog_json",
        "valid_one.json",
        keylog::key_log_to_json(log.get(..1).unwrap_or_default())
            .unwrap_or_default()
            .into_bytes(),
    );
    add(
        "messaging_keylog_json",
        "invalid_not_array.json",
        b"{\"entries\":[]}".to_vec(),
    );
    add(
        "messaging_keylog_json",
        "invalid_bad_base64.json",
        log_json
            .replacen("\"publicKey\":\"", "\"publicKey\":\"!", 1)
            .into_bytes(),
    );
    add(
        "messaging_keylog_json",
        "invalid_extra_field.json",
        log_json
            .replacen("{\"version\"", "{\"x\":1,\"version\"", 1)
            .into_bytes(),
    );
    add(
        "messaging_keylog_json",
        "invalid_old_version.json",
        log_json
            .replacen("\"version\":2", "\"version\":1", 1)
            .into_bytes(),
    );
    // An update without the new key's proof of possession (the v1 shape).
    let mut stripped = log.clone();
    if let Some(e) = stripped.get_mut(1) {
        e.key_signature = None;
    }
    add(
        "messaging_keylog_json",
        "invalid_no_key_signature.json",
        keylog::key_log_to_json(&stripped)
            .unwrap_or_default()
            .into_bytes(),
    );
    // Parses but does not verify (the replay test only checks parsing): timestamps reordered.
    add(
        "messaging_keylog_json",
        "parses_reordered.json",
        keylog::key_log_to_json(&log.iter().rev().cloned().collect::<Vec<_>>())
            .unwrap_or_default()
            .into_bytes(),
    );

    // Registry: empty, one device, add + revoke; broken variants.
    let account = ed25519::ed25519_from_seed(&SENDER_IDENTITY_SEED)
        .map(|kp| kp.public)
        .unwrap_or_default();
    let empty = registry::registry_empty(&account).unwrap_or_default();
    let one = registry::registry_add_device(
        &empty,
        "laptop",
        "Alice's laptop",
        10,
        &[9u8; 32],
        &SENDER_IDENTITY_SEED,
    )
    .unwrap_or_default();
    let two = registry::registry_revoke_device(&one, "laptop", 20, &SENDER_IDENTITY_SEED)
        .unwrap_or_default();
    add(
        "messaging_registry_json",
        "valid_empty.json",
        empty.clone().into_bytes(),
    );
    add(
        "messaging_registry_json",
        "valid_one_device.json",
        one.clone().into_bytes(),
    );
    add(
        "messaging_registry_json",
        "valid_add_revoke.json",
        two.clone().into_bytes(),
    );
    add(
        "messaging_registry_json",
        "invalid_version.json",
        empty
            .replacen("\"version\":1", "\"version\":2", 1)
            .into_bytes(),
    );
    add(
        "messaging_registry_json",
        "invalid_revoke_with_name.json",
        two.replacen(
            "\"action\":\"revoke\",",
            "\"action\":\"revoke\",\"name\":\"x\",",
            1,
        )
        .into_bytes(),
    );
    add(
        "messaging_registry_json",
        "invalid_truncated.json",
        one.get(..one.len() / 2)
            .unwrap_or_default()
            .as_bytes()
            .to_vec(),
    );

    // Sealed sender: valid packets to our fixed recipient; tampered and short ones.
    for (name, id, content) in [
        ("valid_short.bin", &b"bob"[..], &b"hi"[..]),
        ("valid_long.bin", &b"device-7"[..], &[0x42u8; 700][..]),
    ] {
        let p = sealed::seal_message_derand(
            &k.recipient_public,
            id,
            content,
            &SENDER_IDENTITY_SEED,
            &EPHEMERAL,
            &IV,
        )
        .unwrap_or_default();
        add("messaging_sealed", name, p);
    }
    let p = sealed::seal_message_derand(
        &k.recipient_public,
        b"bob",
        b"hi",
        &SENDER_IDENTITY_SEED,
        &EPHEMERAL,
        &IV,
    )
    .unwrap_or_default();
    let mut flipped = p.clone();
    if let Some(b) = flipped.get_mut(60) {
        *b ^= 1;
    }
    add("messaging_sealed", "invalid_flipped.bin", flipped);
    add(
        "messaging_sealed",
        "invalid_short.bin",
        p.get(..100).unwrap_or_default().to_vec(),
    );
    // Inner-layer seeds (valid outer layer around them inside the target).
    if let Ok(inner) = padding::pad_message(&[0, 3, b'b', b'o', b'b']) {
        add(
            "messaging_sealed",
            "inner_padded_no_signature.bin",
            inner.to_vec(),
        );
    }

    // Authenticated KEM: a valid ciphertext and broken ones.
    if let Ok((ct, _)) = akem::authenticated_kem_encapsulate_derand(
        &SENDER_X25519,
        &k.recipient_public,
        &k.mlkem_ek,
        &SENDER_IDENTITY_SEED,
        &[7; 32],
    ) {
        add("messaging_akem", "valid_ciphertext.bin", ct.clone());
        let mut bad = ct.clone();
        if let Some(b) = bad.get_mut(1) {
            *b ^= 1;
        }
        add("messaging_akem", "invalid_prefix.bin", bad);
        let mut bad = ct.clone();
        if let Some(b) = bad.last_mut() {
            *b ^= 0x80;
        }
        add("messaging_akem", "invalid_signature.bin", bad);
        add(
            "messaging_akem",
            "invalid_truncated.bin",
            ct.get(..ct.len() - 1).unwrap_or_default().to_vec(),
        );
    }

    // Chunked: valid multi-chunk and single empty-chunk ciphertexts; broken ones.
    let ivs: Vec<u8> = (0u8..4).flat_map(|i| [i; 12]).collect();
    let pt: Vec<u8> = (0u8..=99).collect();
    if let Ok(ct) = chunked::encrypt_aes_gcm_chunked_with_ivs(&CHUNK_KEY, &pt, AAD, 32, &ivs) {
        add("messaging_chunked", "valid_four_chunks.bin", ct.clone());
        let mut bad = ct.clone();
        if let Some(b) = bad.get_mut(7) {
            *b = 5; // count 4 → 5
        }
        add("messaging_chunked", "invalid_count.bin", bad);
        add(
            "messaging_chunked",
            "invalid_dropped_byte.bin",
            ct.get(..ct.len() - 1).unwrap_or_default().to_vec(),
        );
    }
    if let Ok(ct) = chunked::encrypt_aes_gcm_chunked_with_ivs(
        &CHUNK_KEY,
        &[],
        AAD,
        16,
        ivs.get(..12).unwrap_or_default(),
    ) {
        add("messaging_chunked", "valid_empty.bin", ct);
    }
    add("messaging_chunked", "invalid_zero_size.bin", vec![0; 36]);

    // Replay store.
    if let Ok(mut s) = ReplayStore::new(3600, 16) {
        let _ = s.insert(&[1; 32], 1000, 1000);
        let _ = s.insert(&[2; 32], 1001, 1001);
        add(
            "messaging_replay_json",
            "valid_two.json",
            s.to_json().unwrap_or_default().into_bytes(),
        );
    }
    if let Ok(s) = ReplayStore::new(60, 1) {
        add(
            "messaging_replay_json",
            "valid_empty.json",
            s.to_json().unwrap_or_default().into_bytes(),
        );
    }
    add(
        "messaging_replay_json",
        "invalid_array.json",
        b"[]".to_vec(),
    );
    add(
        "messaging_replay_json",
        "invalid_garbage.json",
        b"{\"window\":".to_vec(),
    );
    out
}

/// Whether `target`'s parser accepts `data` (for the `valid_` / `invalid_` check of the replay test).
#[must_use]
pub fn accepts(target: &str, data: &[u8]) -> bool {
    let k = keys();
    let text = std::str::from_utf8(data).unwrap_or("\u{0}");
    match target {
        "messaging_keylog_json" => keylog::key_log_from_json(text)
            .and_then(|e| keylog::key_log_verify_chain(&e))
            .is_ok(),
        "messaging_registry_json" => DeviceRegistry::from_json_unverified(text)
            .and_then(|r| r.verify(&r.account_key))
            .is_ok(),
        "messaging_sealed" => {
            sealed::unseal_message(data, &RECIPIENT_X25519, &k.sender_identity_public).is_ok()
        }
        "messaging_akem" => akem::authenticated_kem_decapsulate(
            &RECIPIENT_X25519,
            &k.sender_public,
            &k.mlkem_dk,
            data,
            &k.sender_identity_public,
        )
        .is_ok(),
        "messaging_chunked" => chunked::decrypt_aes_gcm_chunked(&CHUNK_KEY, data, AAD).is_ok(),
        "messaging_replay_json" => ReplayStore::from_json(text).is_ok(),
        _ => false,
    }
}
