//! veilkit's own known-answer tests for the messaging constructions
//! (`docs/PROTOCOL.md`), stored in `vectors/messaging/kat.json`.
//!
//! The file holds fixed inputs and the outputs veilkit produced for them. Each
//! case is recomputed here from its stored inputs and compared, the inverse
//! operation is run (decapsulate, decrypt, unseal, verify), and every family
//! is also re-derived independently from the specification (`spec`): with
//! the primitive modules, SHA-256 from `sha2`, the registry's Ed25519
//! signatures from `ed25519-dalek`, base64url, the padding buckets and the
//! replay store's floor and eviction written out here — so a construction
//! that drifted from docs/PROTOCOL.md cannot pass by regenerating the file. The same file drives the Node and
//! Chromium tests (`tests/node/messaging.test.ts`, `tests/playwright/messaging.spec.ts`).
//!
//! Regenerate (only when a construction deliberately changes):
//! `cargo test -p veilkit --test messaging_kat -- --ignored generate_kat`
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::cast_possible_truncation
)]

use serde_json::{Map, Value, json};
use veilkit::messaging::keylog::{self, KeyLogAction, KeyLogEntry};
use veilkit::messaging::registry;
use veilkit::messaging::replay::ReplayStore;
use veilkit::messaging::{
    akem, chunked, hybrid_kem, padding, sealed, session, transcript, verification,
};
use veilkit::{aead, ed25519, hash, kdf, mlkem, x25519};

const KAT_PATH: &str = "vectors/messaging/kat.json";
const KAT: &str = include_str!("../../vectors/messaging/kat.json");

// ---------------------------------------------------------------- helpers

/// Deterministic fixed input: SHA-256 counter mode over `veilkit-kat:` ‖ label.
fn fixed(label: &str, n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n + 32);
    let mut counter = 0u32;
    while out.len() < n {
        let mut m = b"veilkit-kat:".to_vec();
        m.extend_from_slice(label.as_bytes());
        m.extend_from_slice(&counter.to_be_bytes());
        out.extend_from_slice(&hash::sha256(&m));
        counter += 1;
    }
    out.truncate(n);
    out
}

/// `content[i] = (31·i + 7) mod 256` (the padding cases' content).
fn pattern(n: usize) -> Vec<u8> {
    (0..n).map(|i| ((31 * i + 7) % 256) as u8).collect()
}

fn hx(b: &[u8]) -> Value {
    Value::String(hex::encode(b))
}

fn get<'a>(o: &'a Map<String, Value>, k: &str) -> &'a Value {
    o.get(k).unwrap_or_else(|| panic!("missing field {k}"))
}

fn b(o: &Map<String, Value>, k: &str) -> Vec<u8> {
    hex::decode(
        get(o, k)
            .as_str()
            .unwrap_or_else(|| panic!("{k} not a string")),
    )
    .unwrap()
}

fn n(o: &Map<String, Value>, k: &str) -> u64 {
    get(o, k)
        .as_u64()
        .unwrap_or_else(|| panic!("{k} not an integer"))
}

fn s<'a>(o: &'a Map<String, Value>, k: &str) -> &'a str {
    get(o, k)
        .as_str()
        .unwrap_or_else(|| panic!("{k} not a string"))
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

fn b32(o: &Map<String, Value>, k: &str) -> [u8; 32] {
    b(o, k)
        .try_into()
        .unwrap_or_else(|_| panic!("{k} not 32 bytes"))
}

/// `Enc(I)` of the identity in field `k` (`{ed25519, mlDsa65 | null, x25519}`), by the API.
fn identity(o: &Map<String, Value>, k: &str) -> Vec<u8> {
    let id = get(o, k).as_object().unwrap();
    let ml = id
        .get("mlDsa65")
        .and_then(Value::as_str)
        .map(|h| hex::decode(h).unwrap());
    verification::encode_identity(&b(id, "ed25519"), ml.as_deref(), &b(id, "x25519")).unwrap()
}

/// `Enc(I)` straight from docs/PROTOCOL.md §8.
fn spec_identity(o: &Map<String, Value>, k: &str) -> Vec<u8> {
    let id = get(o, k).as_object().unwrap();
    match id.get("mlDsa65").and_then(Value::as_str) {
        Some(ml) => cat(&[
            &[1u8],
            &b(id, "ed25519"),
            &hex::decode(ml).unwrap(),
            &b(id, "x25519"),
        ]),
        None => cat(&[&[0u8], &b(id, "ed25519"), &b(id, "x25519")]),
    }
}

fn mlkem_keys(seed: &[u8]) -> mlkem::MlKemKeypair {
    mlkem::mlkem_from_seed(seed).unwrap()
}

// ---------------------------------------------------------------- compute: inputs -> expected

fn compute(family: &str, i: &Map<String, Value>) -> Value {
    match family {
        "hybridKem" => {
            let kp = mlkem_keys(&b(i, "recipientMlKemSeed"));
            let r = hybrid_kem::hybrid_kem_encapsulate_derand(
                &b(i, "senderX25519Secret"),
                &x25519::x25519_public(&b(i, "recipientX25519Secret")).unwrap(),
                &kp.encapsulation_key,
                &b(i, "m"),
            )
            .unwrap();
            json!({
                "senderX25519Public": hx(&x25519::x25519_public(&b(i, "senderX25519Secret")).unwrap()),
                "recipientX25519Public": hx(&x25519::x25519_public(&b(i, "recipientX25519Secret")).unwrap()),
                "mlKemCiphertext": hx(&r.mlkem_ciphertext),
                "sharedKey": hx(r.shared_key.as_slice()),
            })
        }
        "authenticatedKem" => {
            let kp = mlkem_keys(&b(i, "recipientMlKemSeed"));
            let id = ed25519::ed25519_from_seed(&b(i, "senderIdentitySeed")).unwrap();
            let (ct, ss) = akem::authenticated_kem_encapsulate_derand(
                &b(i, "senderX25519Secret"),
                &x25519::x25519_public(&b(i, "recipientX25519Secret")).unwrap(),
                &kp.encapsulation_key,
                id.secret.as_slice(),
                &b(i, "m"),
            )
            .unwrap();
            json!({
                "senderIdentityPublic": hx(&id.public),
                "senderX25519Public": hx(&x25519::x25519_public(&b(i, "senderX25519Secret")).unwrap()),
                "ciphertext": hx(&ct),
                "sharedSecret": hx(ss.as_slice()),
            })
        }
        "padding" => {
            let len = n(i, "contentLength") as usize;
            let p = padding::pad_message(&pattern(len)).unwrap();
            let mut e = json!({ "paddedLength": p.len(), "paddedSha256": hx(&hash::sha256(&p)) });
            if p.len() <= 256 {
                e["padded"] = hx(&p);
            }
            e
        }
        "paddedAead" => {
            let ct = padding::encrypt_aes_gcm_padded_with_iv(
                &b(i, "key"),
                &b(i, "iv"),
                &b(i, "plaintext"),
                &b(i, "aad"),
            )
            .unwrap();
            json!({ "ciphertext": hx(&ct) })
        }
        "chunked" => {
            let ct = chunked::encrypt_aes_gcm_chunked_with_ivs(
                &b(i, "key"),
                &b(i, "plaintext"),
                &b(i, "aad"),
                n(i, "chunkSize") as u32,
                &b(i, "ivs"),
            )
            .unwrap();
            json!({ "ciphertext": hx(&ct) })
        }
        "srk" => {
            let srk = session::derive_srk(&b(i, "dek"), &b(i, "chatId")).unwrap();
            json!({ "srk": hx(srk.as_slice()) })
        }
        "windowKey" => {
            let k = session::derive_window_key(&b(i, "srk"), n(i, "windowIndex")).unwrap();
            json!({ "windowKey": hx(k.as_slice()) })
        }
        "ratchet" => {
            let bob_pub = x25519::x25519_public(&b(i, "bobRatchetSecret")).unwrap();
            let k = session::ratchet_srk(
                &b(i, "currentSrk"),
                &b(i, "aliceRatchetSecret"),
                &bob_pub,
                &b(i, "chatId"),
                n(i, "ratchetStep"),
                true,
            )
            .unwrap();
            json!({
                "aliceRatchetPublic": hx(&x25519::x25519_public(&b(i, "aliceRatchetSecret")).unwrap()),
                "bobRatchetPublic": hx(&bob_pub),
                "newSrk": hx(k.as_slice()),
            })
        }
        "shouldRatchet" => json!({
            "result": session::should_ratchet(
                n(i, "messageCount"),
                get(i, "windowChanged").as_bool().unwrap(),
                n(i, "messagesPerRatchet"),
                get(i, "ratchetOnNewWindow").as_bool().unwrap(),
            )
        }),
        "transcript" => {
            let mut chain = transcript::transcript_new(&b(i, "sessionId")).unwrap();
            let h0 = chain;
            let mut hashes = Vec::new();
            let mut chains = Vec::new();
            for m in get(i, "messages").as_array().unwrap() {
                let m = m.as_object().unwrap();
                let h = transcript::transcript_compute_message_hash(
                    &b(m, "messageId"),
                    &b(m, "senderId"),
                    n(m, "timestamp"),
                    &b(m, "ciphertext"),
                )
                .unwrap();
                chain = transcript::transcript_update(&chain, &h).unwrap();
                hashes.push(hx(&h));
                chains.push(hx(&chain));
            }
            json!({ "h0": hx(&h0), "messageHashes": hashes, "chain": chains })
        }
        "sealed" => {
            let id = ed25519::ed25519_from_seed(&b(i, "senderSigningSeed")).unwrap();
            let recipient_pub = x25519::x25519_public(&b(i, "recipientX25519Secret")).unwrap();
            let packet = sealed::seal_message_derand(
                &recipient_pub,
                &b(i, "senderId"),
                &b(i, "content"),
                id.secret.as_slice(),
                &b(i, "ephemeralSecret"),
                &b(i, "iv"),
            )
            .unwrap();
            json!({
                "recipientX25519Public": hx(&recipient_pub),
                "senderIdentityPublic": hx(&id.public),
                "packet": hx(&packet),
            })
        }
        "verificationCode" => {
            let (a, bb) = (identity(i, "a"), identity(i, "b"));
            let c =
                verification::generate_verification_code(&a, &bb, &b(i, "conversationId")).unwrap();
            json!({ "identityA": hx(&a), "identityB": hx(&bb), "numeric": c.numeric, "fingerprint": c.fingerprint })
        }
        "sas" => {
            let (init, resp) = (identity(i, "initiator"), identity(i, "responder"));
            let (tx, ni, nr) = (
                b(i, "txId"),
                b32(i, "initiatorNonce"),
                b32(i, "responderNonce"),
            );
            let c = verification::sas_commitment(&tx, &resp, &nr).unwrap();
            let sas = verification::sas_hash(&tx, &init, &resp, &ni, &nr).unwrap();
            json!({
                "initiatorIdentity": hx(&init),
                "responderIdentity": hx(&resp),
                "commitment": hx(&c),
                "sas": hx(&sas),
                "emoji": verification::sas_emoji(&sas),
            })
        }
        "keyLog" => {
            let mut entries: Vec<KeyLogEntry> = Vec::new();
            for op in get(i, "ops").as_array().unwrap() {
                let op = op.as_object().unwrap();
                let public = ed25519::ed25519_from_seed(&b(op, "publicKeySeed"))
                    .unwrap()
                    .public;
                let signer = ed25519::ed25519_from_seed(&b(op, "signingSeed")).unwrap();
                let prev = entries.last().map_or([0u8; 32], |e| e.hash().unwrap());
                let action = match s(op, "action") {
                    "add" => KeyLogAction::Add,
                    "update" => KeyLogAction::Update,
                    "revoke" => KeyLogAction::Revoke,
                    other => panic!("action {other}"),
                };
                let new_key = ed25519::ed25519_from_seed(&b(op, "publicKeySeed")).unwrap();
                let pop = (action == KeyLogAction::Update).then_some(new_key.secret.as_slice());
                entries.push(
                    keylog::key_log_create_entry(
                        &b(op, "userId"),
                        &public,
                        n(op, "timestamp"),
                        &prev,
                        action,
                        signer.secret.as_slice(),
                        pop,
                    )
                    .unwrap(),
                );
            }
            let current: Vec<Value> = get(i, "queries")
                .as_array()
                .unwrap()
                .iter()
                .map(|q| {
                    let q = q.as_object().unwrap();
                    let at = get(q, "atTime").as_u64();
                    let k = keylog::key_log_current_key(&entries, &b(q, "userId"), at).unwrap();
                    k.map_or(Value::Null, |k| hx(&k))
                })
                .collect();
            json!({
                "json": keylog::key_log_to_json(&entries).unwrap(),
                "entryHashes": entries.iter().map(|e| hx(&e.hash().unwrap())).collect::<Vec<_>>(),
                "currentKeys": current,
            })
        }
        "registry" => {
            let account = ed25519::ed25519_from_seed(&b(i, "accountSeed")).unwrap();
            let mut json_text = registry::registry_empty(&account.public).unwrap();
            for op in get(i, "ops").as_array().unwrap() {
                let op = op.as_object().unwrap();
                json_text = match s(op, "op") {
                    "add" => registry::registry_add_device(
                        &json_text,
                        s(op, "deviceId"),
                        s(op, "name"),
                        n(op, "at"),
                        &b(op, "devicePublicKey"),
                        account.secret.as_slice(),
                    )
                    .unwrap(),
                    "revoke" => registry::registry_revoke_device(
                        &json_text,
                        s(op, "deviceId"),
                        n(op, "at"),
                        account.secret.as_slice(),
                    )
                    .unwrap(),
                    other => panic!("op {other}"),
                };
            }
            let active = registry::registry_list_active(&json_text, &account.public).unwrap();
            json!({
                "accountPublicKey": hx(&account.public),
                "json": json_text,
                "activeDeviceIds": active.iter().map(|d| d.device_id.clone()).collect::<Vec<_>>(),
            })
        }
        "replayStore" => {
            let mut store =
                ReplayStore::new(n(i, "windowSeconds"), n(i, "maxEntries") as usize).unwrap();
            let results: Vec<Value> = get(i, "inserts")
                .as_array()
                .unwrap()
                .iter()
                .map(|op| {
                    let op = op.as_object().unwrap();
                    let r = store.insert(&b(op, "hash"), n(op, "timestamp"), n(op, "now"));
                    Value::String(r.map_or_else(|e| e.code().to_owned(), |()| "OK".to_owned()))
                })
                .collect();
            json!({ "results": results, "json": store.to_json().unwrap() })
        }
        other => panic!("unknown family {other}"),
    }
}

// ---------------------------------------------------------------- inverse checks

fn inverse(family: &str, i: &Map<String, Value>, e: &Map<String, Value>) {
    match family {
        "hybridKem" => {
            let kp = mlkem_keys(&b(i, "recipientMlKemSeed"));
            let k = hybrid_kem::hybrid_kem_decapsulate(
                &b(i, "recipientX25519Secret"),
                &b(e, "senderX25519Public"),
                &kp.decapsulation_key,
                &b(e, "mlKemCiphertext"),
            )
            .unwrap();
            assert_eq!(k.as_slice(), b(e, "sharedKey").as_slice());
        }
        "authenticatedKem" => {
            let kp = mlkem_keys(&b(i, "recipientMlKemSeed"));
            let k = akem::authenticated_kem_decapsulate(
                &b(i, "recipientX25519Secret"),
                &b(e, "senderX25519Public"),
                &kp.decapsulation_key,
                &b(e, "ciphertext"),
                &b(e, "senderIdentityPublic"),
            )
            .unwrap();
            assert_eq!(k.as_slice(), b(e, "sharedSecret").as_slice());
        }
        "padding" => {
            let len = n(i, "contentLength") as usize;
            let p = padding::pad_message(&pattern(len)).unwrap();
            assert_eq!(
                padding::unpad_message(&p).unwrap().as_slice(),
                pattern(len).as_slice()
            );
            assert_eq!(
                padding::padded_len(len).unwrap() as u64,
                n(e, "paddedLength")
            );
        }
        "paddedAead" => {
            let pt =
                padding::decrypt_aes_gcm_padded(&b(i, "key"), &b(e, "ciphertext"), &b(i, "aad"))
                    .unwrap();
            assert_eq!(pt.as_slice(), b(i, "plaintext").as_slice());
        }
        "chunked" => {
            let pt =
                chunked::decrypt_aes_gcm_chunked(&b(i, "key"), &b(e, "ciphertext"), &b(i, "aad"))
                    .unwrap();
            assert_eq!(pt.as_slice(), b(i, "plaintext").as_slice());
        }
        "ratchet" => {
            let k = session::ratchet_srk(
                &b(i, "currentSrk"),
                &b(i, "bobRatchetSecret"),
                &b(e, "aliceRatchetPublic"),
                &b(i, "chatId"),
                n(i, "ratchetStep"),
                false,
            )
            .unwrap();
            assert_eq!(k.as_slice(), b(e, "newSrk").as_slice(), "both sides agree");
        }
        "sealed" => {
            let u = sealed::unseal_message(
                &b(e, "packet"),
                &b(i, "recipientX25519Secret"),
                &b(e, "senderIdentityPublic"),
            )
            .unwrap();
            assert_eq!(u.sender_id, b(i, "senderId"));
            assert_eq!(u.content.as_slice(), b(i, "content").as_slice());
        }
        "verificationCode" => {
            let swapped = verification::generate_verification_code(
                &b(e, "identityB"),
                &b(e, "identityA"),
                &b(i, "conversationId"),
            )
            .unwrap();
            assert_eq!(swapped.numeric, s(e, "numeric"), "symmetric");
        }
        "keyLog" => {
            let entries = keylog::key_log_from_json(s(e, "json")).unwrap();
            keylog::key_log_verify_chain(&entries).unwrap();
            assert_eq!(
                keylog::key_log_to_json(&entries).unwrap(),
                s(e, "json"),
                "JSON round trip"
            );
        }
        "registry" => {
            let r = registry::registry_load(s(e, "json"), &b(e, "accountPublicKey")).unwrap();
            assert_eq!(r.to_json().unwrap(), s(e, "json"), "JSON round trip");
        }
        "replayStore" => {
            let store = ReplayStore::from_json(s(e, "json")).unwrap();
            assert_eq!(store.to_json().unwrap(), s(e, "json"), "JSON round trip");
        }
        _ => {}
    }
}

// ---------------------------------------------------------------- independent re-derivation

fn hkdf32(ikm: &[u8], salt: &[u8], info: &[u8]) -> Vec<u8> {
    kdf::hkdf_sha256(ikm, salt, info, 32).unwrap().to_vec()
}

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// SHA-256 straight from `sha2` (not veilkit's hash module).
fn sha2_256(parts: &[&[u8]]) -> [u8; 32] {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

/// RFC 4648 §5 base64url without padding, written out here (not veilkit's encoder).
fn b64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let v = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (k, &x)| acc | (u32::from(x) << (16 - 8 * k)));
        for k in 0..=chunk.len() {
            out.push(char::from(ALPHABET[(v >> (18 - 6 * k)) as usize & 63]));
        }
    }
    out
}

/// PROTOCOL.md §3: the padded length of `len` content bytes (64-byte minimum,
/// powers of two up to 64 KiB, Padmé above), written out from the spec.
fn spec_padded_len(len: usize) -> usize {
    let l = len + 4;
    if l <= 64 {
        return 64;
    }
    if l <= 65536 {
        return l.next_power_of_two();
    }
    let e = l.ilog2();
    let s = e.ilog2() + 1;
    let mask = (1usize << (e - s)) - 1;
    (l + mask) & !mask
}

/// PROTOCOL.md §3: `u32(|content|) ‖ content ‖ 0x00 × (padded_len − L)`.
fn spec_padded(content: &[u8]) -> Vec<u8> {
    let mut p = (content.len() as u32).to_be_bytes().to_vec();
    p.extend_from_slice(content);
    p.resize(spec_padded_len(content.len()), 0);
    p
}

/// Recomputes outputs straight from docs/PROTOCOL.md with the primitives.
fn spec(family: &str, i: &Map<String, Value>, e: &Map<String, Value>) {
    match family {
        "hybridKem" => {
            let kp = mlkem_keys(&b(i, "recipientMlKemSeed"));
            let (ct, ss) =
                mlkem::mlkem_encapsulate_derand(&kp.encapsulation_key, &b(i, "m")).unwrap();
            let spk = b(e, "senderX25519Public");
            let rpk = b(e, "recipientX25519Public");
            let dh = x25519::x25519_dh(&b(i, "senderX25519Secret"), &rpk).unwrap();
            let info = cat(&[b"veilkit-hybrid-kem-v1", &spk, &rpk, &ct]);
            assert_eq!(
                hkdf32(&cat(&[dh.as_slice(), ss.as_slice()]), &[], &info),
                b(e, "sharedKey")
            );
            assert_eq!(ct, b(e, "mlKemCiphertext"));
        }
        "authenticatedKem" => {
            let kp = mlkem_keys(&b(i, "recipientMlKemSeed"));
            let (ct, ss) =
                mlkem::mlkem_encapsulate_derand(&kp.encapsulation_key, &b(i, "m")).unwrap();
            let spk = b(e, "senderX25519Public");
            let rpk = x25519::x25519_public(&b(i, "recipientX25519Secret")).unwrap();
            let idpk = b(e, "senderIdentityPublic");
            let full = b(e, "ciphertext");
            assert_eq!(full.len(), 1154);
            assert_eq!(&full[..2], &1088u16.to_be_bytes());
            assert_eq!(&full[2..1090], ct.as_slice());
            let signed = cat(&[b"veilkit-akem-v1", &spk, &rpk, &ct]);
            ed25519::ed25519_verify(&idpk, &signed, &full[1090..]).unwrap();
            let dh = x25519::x25519_dh(&b(i, "senderX25519Secret"), &rpk).unwrap();
            let info = cat(&[b"veilkit-akem-v1", &idpk, &spk, &rpk, &ct]);
            assert_eq!(
                hkdf32(&cat(&[dh.as_slice(), ss.as_slice()]), &[], &info),
                b(e, "sharedSecret")
            );
        }
        "padding" => {
            // Every length, the Padmé ones above 64 KiB included: bucket and
            // digest of the padded bytes built from the spec.
            let len = n(i, "contentLength") as usize;
            let content: Vec<u8> = (0..len).map(|j| ((31 * j + 7) % 256) as u8).collect();
            let p = spec_padded(&content);
            assert_eq!(p.len() as u64, n(e, "paddedLength"), "{len}");
            assert_eq!(hex::encode(sha2_256(&[&p])), s(e, "paddedSha256"), "{len}");
            // The bytes themselves are stored up to 256.
            assert_eq!(
                e.get("padded"),
                (p.len() <= 256).then(|| hx(&p)).as_ref(),
                "{len}"
            );
        }
        "paddedAead" => {
            // iv ‖ AES-GCM(key, iv, P(pt), aad): the bucket and the zero fill.
            let (pt, ct) = (b(i, "plaintext"), b(e, "ciphertext"));
            let p = spec_padded(&pt);
            assert_eq!(ct.len(), 12 + p.len() + 16);
            assert_eq!(&ct[..12], b(i, "iv").as_slice());
            assert_eq!(
                aead::aes_gcm_decrypt(&b(i, "key"), &ct, &b(i, "aad")).unwrap(),
                p
            );
        }
        "shouldRatchet" => {
            // (onNewWindow AND windowChanged) OR count ≥ perRatchet.
            let want = (get(i, "ratchetOnNewWindow").as_bool().unwrap()
                && get(i, "windowChanged").as_bool().unwrap())
                || n(i, "messageCount") >= n(i, "messagesPerRatchet");
            assert_eq!(get(e, "result"), &Value::Bool(want), "shouldRatchet {i:?}");
        }
        "registry" => {
            // PROTOCOL.md §10, signed with ed25519-dalek directly (Ed25519 is
            // deterministic, so the signatures must come out byte for byte).
            use ed25519_dalek::Signer;
            let account = ed25519_dalek::SigningKey::from_bytes(&b32(i, "accountSeed"));
            let ak = account.verifying_key().to_bytes();
            assert_eq!(hex::encode(ak), s(e, "accountPublicKey"));
            let lp16 = |x: &[u8]| cat(&[&(x.len() as u16).to_be_bytes(), x]);
            let js = |x: &str| serde_json::to_string(x).unwrap();
            let mut prev = [0u8; 32];
            let mut changes = Vec::new();
            let mut active: Vec<String> = Vec::new();
            for op in get(i, "ops").as_array().unwrap() {
                let op = op.as_object().unwrap();
                let (id, at) = (s(op, "deviceId"), n(op, "at"));
                let (action, byte) = match s(op, "op") {
                    "add" => ("add", 1u8),
                    "revoke" => ("revoke", 2u8),
                    other => panic!("op {other}"),
                };
                let mut body = cat(&[
                    b"veilkit-registry-v1",
                    &ak,
                    &prev,
                    &[byte],
                    &at.to_be_bytes(),
                    &lp16(id.as_bytes()),
                ]);
                let mut change = format!(r#"{{"action":"{action}","deviceId":{}"#, js(id));
                if byte == 1 {
                    let (name, key) = (s(op, "name"), b(op, "devicePublicKey"));
                    body.extend(lp16(name.as_bytes()));
                    body.extend(lp16(&key));
                    change += &format!(r#","name":{},"publicKey":"{}""#, js(name), b64url(&key));
                    active.push(id.to_owned());
                } else {
                    active.retain(|d| d != id);
                }
                let sig = account.sign(&body).to_bytes();
                change += &format!(
                    r#","timestamp":{at},"prevHash":"{}","signature":"{}"}}"#,
                    b64url(&prev),
                    b64url(&sig)
                );
                changes.push(change);
                prev = sha2_256(&[&body, &sig]);
            }
            let want = format!(
                r#"{{"version":1,"accountKey":"{}","changes":[{}]}}"#,
                b64url(&ak),
                changes.join(",")
            );
            assert_eq!(s(e, "json"), want, "registry JSON");
            assert_eq!(
                get(e, "activeDeviceIds"),
                &json!(active),
                "registry active devices"
            );
        }
        "replayStore" => {
            // PROTOCOL.md §11, simulated: a floor, FIFO eviction while full.
            let (w, max) = (n(i, "windowSeconds"), n(i, "maxEntries") as usize);
            let mut floor = 0u64;
            let mut stored: std::collections::VecDeque<(Vec<u8>, u64)> =
                std::collections::VecDeque::new();
            let mut results = Vec::new();
            for op in get(i, "inserts").as_array().unwrap() {
                let op = op.as_object().unwrap();
                let (h, t, now) = (b(op, "hash"), n(op, "timestamp"), n(op, "now"));
                let r = if t < floor || t + w < now || t > now + w {
                    "REPLAY_OUT_OF_WINDOW"
                } else if stored.iter().any(|(x, _)| *x == h) {
                    "REPLAY_DETECTED"
                } else {
                    while stored.len() >= max {
                        let (_, old) = stored.pop_front().unwrap();
                        floor = floor.max(old + 1);
                    }
                    if t < floor {
                        "REPLAY_OUT_OF_WINDOW"
                    } else {
                        stored.push_back((h, t));
                        "OK"
                    }
                };
                results.push(r);
            }
            assert_eq!(get(e, "results"), &json!(results), "replay store results");
            let entries: Vec<String> = stored
                .iter()
                .map(|(h, t)| format!(r#"["{}",{t}]"#, b64url(h)))
                .collect();
            let want = format!(
                r#"{{"version":1,"windowSeconds":{w},"maxEntries":{max},"floor":{floor},"entries":[{}]}}"#,
                entries.join(",")
            );
            assert_eq!(s(e, "json"), want, "replay store JSON");
        }
        "chunked" => {
            let ct = b(e, "ciphertext");
            let size = u32::from_be_bytes(ct[..4].try_into().unwrap()) as usize;
            let count = u32::from_be_bytes(ct[4..8].try_into().unwrap());
            assert_eq!(size as u64, n(i, "chunkSize"));
            let (key, aad, ivs) = (b(i, "key"), b(i, "aad"), b(i, "ivs"));
            let mut off = 8;
            let mut pt = Vec::new();
            let total = b(i, "plaintext").len();
            for idx in 0..count {
                let len = if idx + 1 == count {
                    total - size * idx as usize
                } else {
                    size
                };
                let iv = &ct[off..off + 12];
                assert_eq!(iv, &ivs[12 * idx as usize..12 * idx as usize + 12]);
                let a = cat(&[
                    &aad,
                    &idx.to_be_bytes(),
                    &count.to_be_bytes(),
                    &(size as u32).to_be_bytes(),
                ]);
                pt.extend(
                    aead::aes_gcm_decrypt_with_iv(&key, iv, &ct[off + 12..off + 28 + len], &a)
                        .unwrap(),
                );
                off += 28 + len;
            }
            assert_eq!(off, ct.len());
            assert_eq!(pt, b(i, "plaintext"));
        }
        "srk" => assert_eq!(
            hkdf32(&b(i, "dek"), &b(i, "chatId"), b"veilkit-srk-v1"),
            b(e, "srk")
        ),
        "windowKey" => assert_eq!(
            hkdf32(
                &b(i, "srk"),
                &n(i, "windowIndex").to_be_bytes(),
                b"veilkit-window-key-v1"
            ),
            b(e, "windowKey")
        ),
        "ratchet" => {
            let (a, bb) = (b(e, "aliceRatchetPublic"), b(e, "bobRatchetPublic"));
            let (lo, hi) = if a <= bb { (a, bb) } else { (bb.clone(), a) };
            let dh =
                x25519::x25519_dh(&b(i, "aliceRatchetSecret"), &b(e, "bobRatchetPublic")).unwrap();
            let salt = cat(&[&n(i, "ratchetStep").to_be_bytes(), &b(i, "chatId")]);
            let info = cat(&[b"veilkit-pcs-ratchet-v1", &lo, &hi]);
            assert_eq!(
                hkdf32(&cat(&[&b(i, "currentSrk"), dh.as_slice()]), &salt, &info),
                b(e, "newSrk")
            );
        }
        "transcript" => {
            // Straight from sha2 (not veilkit's hash module).
            use sha2::Digest;
            let sha = |parts: &[&[u8]]| -> Vec<u8> {
                let mut h = sha2::Sha256::new();
                for p in parts {
                    h.update(p);
                }
                h.finalize().to_vec()
            };
            let lp = |x: &[u8]| cat(&[&(x.len() as u32).to_be_bytes(), x]);
            let mut chain = sha(&[b"veilkit-transcript-v2/new", &lp(&b(i, "sessionId"))]);
            assert_eq!(chain, b(e, "h0"));
            for (k, m) in get(i, "messages").as_array().unwrap().iter().enumerate() {
                let m = m.as_object().unwrap();
                let h = sha(&[
                    b"veilkit-transcript-v2/message",
                    &lp(&b(m, "messageId")),
                    &lp(&b(m, "senderId")),
                    &n(m, "timestamp").to_be_bytes(),
                    &lp(&b(m, "ciphertext")),
                ]);
                assert_eq!(hx(&h), get(e, "messageHashes")[k]);
                chain = sha(&[b"veilkit-transcript-v2/update", &chain, &h]);
                assert_eq!(hx(&chain), get(e, "chain")[k]);
            }
        }
        "sealed" => {
            let packet = b(e, "packet");
            let rsk = b(i, "recipientX25519Secret");
            let rpk = b(e, "recipientX25519Public");
            let eph = &packet[..32];
            assert_eq!(
                eph,
                x25519::x25519_public(&b(i, "ephemeralSecret"))
                    .unwrap()
                    .as_slice()
            );
            let dh = x25519::x25519_dh(&rsk, eph).unwrap();
            let key = hkdf32(
                dh.as_slice(),
                &cat(&[eph, &rpk]),
                b"veilkit-sealed-sender-v1",
            );
            let p = aead::aes_gcm_decrypt(&key, &packet[32..], &cat(&[eph, &rpk])).unwrap();
            let inner_len = u32::from_be_bytes(p[..4].try_into().unwrap()) as usize;
            let inner = &p[4..4 + inner_len];
            let id_len = u16::from_be_bytes(inner[..2].try_into().unwrap()) as usize;
            let sender_id = &inner[2..2 + id_len];
            let sig = &inner[2 + id_len..2 + id_len + 64];
            let content = &inner[2 + id_len + 64..];
            assert_eq!(sender_id, b(i, "senderId").as_slice());
            assert_eq!(content, b(i, "content").as_slice());
            let signed = cat(&[
                b"veilkit-sealed-v1",
                &rpk,
                &(id_len as u16).to_be_bytes(),
                sender_id,
                content,
            ]);
            ed25519::ed25519_verify(&b(e, "senderIdentityPublic"), &signed, sig).unwrap();
        }
        "verificationCode" => {
            let (ka, kb, conv) = (
                spec_identity(i, "a"),
                spec_identity(i, "b"),
                b(i, "conversationId"),
            );
            assert_eq!(ka, b(e, "identityA"));
            assert_eq!(kb, b(e, "identityB"));
            let (lo, hi) = if ka <= kb { (ka, kb) } else { (kb, ka) };
            let lp = |x: &[u8]| cat(&[&(x.len() as u32).to_be_bytes(), x]);
            let enc = cat(&[&lp(&conv), &lp(&lo), &lp(&hi)]);
            let h = |t: u8| hash::sha256(&cat(&[b"veilkit-verification-v2", &[t], &enc]));
            let d = cat(&[&h(0), &h(1)]);
            let groups: Vec<String> = (0..12)
                .map(|j| {
                    let v = d[5 * j..5 * j + 5]
                        .iter()
                        .fold(0u64, |a, &x| (a << 8) | u64::from(x));
                    format!("{:05}", v % 100_000)
                })
                .collect();
            assert_eq!(groups.join(" "), s(e, "numeric"));
            assert_eq!(hex::encode(h(2)), s(e, "fingerprint"));
        }
        "sas" => {
            let (init, resp) = (spec_identity(i, "initiator"), spec_identity(i, "responder"));
            assert_eq!(init, b(e, "initiatorIdentity"));
            assert_eq!(resp, b(e, "responderIdentity"));
            let lp = |x: &[u8]| cat(&[&(x.len() as u32).to_be_bytes(), x]);
            let tx = b(i, "txId");
            let c = hash::sha256(&cat(&[
                b"veilkit-sas-commit-v1",
                &lp(&tx),
                &lp(&resp),
                &b(i, "responderNonce"),
            ]));
            assert_eq!(hex::encode(c), s(e, "commitment"));
            let sas = hash::sha256(&cat(&[
                b"veilkit-sas-v1",
                &lp(&tx),
                &lp(&init),
                &lp(&resp),
                &b(i, "initiatorNonce"),
                &b(i, "responderNonce"),
            ]));
            assert_eq!(hex::encode(sas), s(e, "sas"));
            let bits = u64::from_be_bytes(sas[..8].try_into().unwrap());
            let emoji: Vec<Value> = (0..7)
                .map(|k| Value::from(verification::EMOJI[((bits >> (58 - 6 * k)) & 63) as usize]))
                .collect();
            assert_eq!(&Value::Array(emoji), get(e, "emoji"));
        }
        "keyLog" => {
            let entries = keylog::key_log_from_json(s(e, "json")).unwrap();
            let mut prev = [0u8; 32];
            for (k, en) in entries.iter().enumerate() {
                let body = cat(&[
                    b"veilkit-keylog-v2",
                    &[en.action.byte()],
                    &(en.user_id.len() as u16).to_be_bytes(),
                    &en.user_id,
                    &en.public_key,
                    &en.timestamp.to_be_bytes(),
                    &prev,
                ]);
                assert_eq!(en.body().unwrap(), body);
                let introduces = en.action != KeyLogAction::Revoke;
                assert_eq!(
                    en.key_signature.is_some(),
                    introduces,
                    "keySignature exactly for add and update"
                );
                let mut hashed = cat(&[&body, &en.signature]);
                if let Some(pop) = &en.key_signature {
                    ed25519::ed25519_verify(
                        &en.public_key,
                        &cat(&[b"veilkit-keylog-pop-v2", &body]),
                        pop,
                    )
                    .unwrap();
                    hashed.extend_from_slice(pop);
                }
                prev = hash::sha256(&hashed);
                assert_eq!(hx(&prev), get(e, "entryHashes")[k]);
            }
        }
        _ => {}
    }
}

// ---------------------------------------------------------------- fixed inputs (generator)

fn inputs() -> Vec<(&'static str, Vec<Value>)> {
    let x = |l: &str| hx(&fixed(l, 32));
    let mut fams = Vec::new();
    fams.push((
        "hybridKem",
        (0..2)
            .map(|k| {
                json!({
                    "senderX25519Secret": x(&format!("hybrid-{k}-sender-x25519")),
                    "recipientX25519Secret": x(&format!("hybrid-{k}-recipient-x25519")),
                    "recipientMlKemSeed": hx(&fixed(&format!("hybrid-{k}-recipient-mlkem"), 64)),
                    "m": x(&format!("hybrid-{k}-m")),
                })
            })
            .collect(),
    ));
    fams.push((
        "authenticatedKem",
        (0..2)
            .map(|k| {
                json!({
                    "senderX25519Secret": x(&format!("akem-{k}-sender-x25519")),
                    "recipientX25519Secret": x(&format!("akem-{k}-recipient-x25519")),
                    "recipientMlKemSeed": hx(&fixed(&format!("akem-{k}-recipient-mlkem"), 64)),
                    "senderIdentitySeed": x(&format!("akem-{k}-sender-identity")),
                    "m": x(&format!("akem-{k}-m")),
                })
            })
            .collect(),
    ));
    fams.push((
        "padding",
        [0usize, 1, 60, 61, 124, 125, 1000, 65532, 65533, 100_000]
            .iter()
            .map(|&l| json!({ "contentLength": l }))
            .collect(),
    ));
    fams.push((
        "paddedAead",
        [(0usize, 0usize), (11, 5), (300, 0)]
            .iter()
            .enumerate()
            .map(|(k, &(pl, al))| {
                json!({
                    "key": x(&format!("padded-{k}-key")),
                    "iv": hx(&fixed(&format!("padded-{k}-iv"), 12)),
                    "plaintext": hx(&fixed(&format!("padded-{k}-pt"), pl)),
                    "aad": hx(&fixed(&format!("padded-{k}-aad"), al)),
                })
            })
            .collect(),
    ));
    fams.push((
        "chunked",
        [(0usize, 16u32), (10, 16), (32, 16), (33, 16), (100, 7)]
            .iter()
            .enumerate()
            .map(|(k, &(pl, cs))| {
                let count = chunked::chunk_count(pl, cs).unwrap() as usize;
                json!({
                    "key": x(&format!("chunked-{k}-key")),
                    "plaintext": hx(&fixed(&format!("chunked-{k}-pt"), pl)),
                    "aad": hx(&fixed(&format!("chunked-{k}-aad"), k * 3)),
                    "chunkSize": cs,
                    "ivs": hx(&fixed(&format!("chunked-{k}-ivs"), 12 * count)),
                })
            })
            .collect(),
    ));
    fams.push((
        "srk",
        vec![
            json!({ "dek": x("srk-0-dek"), "chatId": hx(b"conv-alice-bob-001") }),
            json!({ "dek": x("srk-1-dek"), "chatId": x("srk-1-chat") }),
        ],
    ));
    fams.push((
        "windowKey",
        [0u64, 1, 487_000, (1 << 53) - 1]
            .iter()
            .map(|&w| json!({ "srk": x("window-srk"), "windowIndex": w }))
            .collect(),
    ));
    fams.push((
        "ratchet",
        (0..3u64)
            .map(|k| {
                json!({
                    "currentSrk": x(&format!("ratchet-{k}-srk")),
                    "aliceRatchetSecret": x(&format!("ratchet-{k}-alice")),
                    "bobRatchetSecret": x(&format!("ratchet-{k}-bob")),
                    "chatId": hx(b"conv-alice-bob-001"),
                    "ratchetStep": k * 1000 + 1,
                })
            })
            .collect(),
    ));
    fams.push((
        "shouldRatchet",
        [(0u64, false, 100u64, true), (99, false, 100, true), (100, false, 100, false), (5, true, 100, true), (5, true, 100, false), (0, false, 0, false)]
            .iter()
            .map(|&(c, w, m, r)| {
                json!({ "messageCount": c, "windowChanged": w, "messagesPerRatchet": m, "ratchetOnNewWindow": r })
            })
            .collect(),
    ));
    fams.push((
        "transcript",
        vec![json!({
            "sessionId": hx(b"conv-alice-bob-001"),
            "messages": [
                { "messageId": hx(b"msg-001"), "senderId": hx(b"alice@example.com"), "timestamp": 1_700_000_000u64, "ciphertext": hx(&fixed("transcript-ct-1", 45)) },
                { "messageId": hx(b"msg-002"), "senderId": hx(b"bob@example.com"), "timestamp": 1_700_000_060u64, "ciphertext": hx(&fixed("transcript-ct-2", 0)) },
                { "messageId": hx(b""), "senderId": hx(b"alice@example.com"), "timestamp": (1u64 << 53) - 1, "ciphertext": hx(&fixed("transcript-ct-3", 300)) },
            ],
        })],
    ));
    fams.push((
        "sealed",
        [
            (b"alice@example.com".to_vec(), 9usize),
            (b"a".to_vec(), 0),
            (b"device:7f3a".to_vec(), 200),
        ]
        .iter()
        .enumerate()
        .map(|(k, (id, cl))| {
            json!({
                "recipientX25519Secret": x(&format!("sealed-{k}-recipient")),
                "senderSigningSeed": x(&format!("sealed-{k}-sender")),
                "senderId": hx(id),
                "content": hx(&fixed(&format!("sealed-{k}-content"), *cl)),
                "ephemeralSecret": x(&format!("sealed-{k}-eph")),
                "iv": hx(&fixed(&format!("sealed-{k}-iv"), 12)),
            })
        })
        .collect(),
    ));
    fams.push((
        "verificationCode",
        vec![
            json!({
                "a": { "ed25519": x("vc-0-a-ed"), "mlDsa65": null, "x25519": x("vc-0-a-x") },
                "b": { "ed25519": x("vc-0-b-ed"), "mlDsa65": null, "x25519": x("vc-0-b-x") },
                "conversationId": hx(b"conv-alice-bob-001"),
            }),
            json!({
                "a": { "ed25519": x("vc-1-a-ed"), "mlDsa65": hx(&fixed("vc-1-a-mldsa", 1952)), "x25519": x("vc-1-a-x") },
                "b": { "ed25519": x("vc-1-b-ed"), "mlDsa65": null, "x25519": x("vc-1-b-x") },
                "conversationId": hx(b""),
            }),
        ],
    ));
    fams.push((
        "sas",
        vec![
            json!({
                "txId": hx(b"sas-tx-0001"),
                "initiator": { "ed25519": x("sas-0-i-ed"), "mlDsa65": null, "x25519": x("sas-0-i-x") },
                "responder": { "ed25519": x("sas-0-r-ed"), "mlDsa65": null, "x25519": x("sas-0-r-x") },
                "initiatorNonce": x("sas-0-n-i"),
                "responderNonce": x("sas-0-n-r"),
            }),
            json!({
                "txId": x("sas-1-tx"),
                "initiator": { "ed25519": x("sas-1-i-ed"), "mlDsa65": hx(&fixed("sas-1-i-mldsa", 1952)), "x25519": x("sas-1-i-x") },
                "responder": { "ed25519": x("sas-1-r-ed"), "mlDsa65": hx(&fixed("sas-1-r-mldsa", 1952)), "x25519": x("sas-1-r-x") },
                "initiatorNonce": x("sas-1-n-i"),
                "responderNonce": x("sas-1-n-r"),
            }),
        ],
    ));
    let alice = hx(b"alice");
    let bob = hx(b"bob");
    fams.push((
        "keyLog",
        vec![json!({
            "ops": [
                { "userId": alice, "action": "add", "publicKeySeed": x("kl-alice-1"), "signingSeed": x("kl-alice-1"), "timestamp": 1000 },
                { "userId": bob, "action": "add", "publicKeySeed": x("kl-bob-1"), "signingSeed": x("kl-bob-1"), "timestamp": 1000 },
                { "userId": alice, "action": "update", "publicKeySeed": x("kl-alice-2"), "signingSeed": x("kl-alice-1"), "timestamp": 2000 },
                { "userId": bob, "action": "revoke", "publicKeySeed": x("kl-bob-1"), "signingSeed": x("kl-bob-1"), "timestamp": 3000 },
            ],
            "queries": [
                { "userId": alice, "atTime": null },
                { "userId": alice, "atTime": 1500 },
                { "userId": bob, "atTime": 2999 },
                { "userId": bob, "atTime": null },
                { "userId": hx(b"carol"), "atTime": null },
            ],
        })],
    ));
    fams.push((
        "registry",
        vec![json!({
            "accountSeed": x("reg-account"),
            "ops": [
                { "op": "add", "deviceId": "laptop", "name": "Alice's laptop", "at": 100, "devicePublicKey": x("reg-laptop") },
                { "op": "add", "deviceId": "phone", "name": "Téléphone 📱", "at": 200, "devicePublicKey": hx(&fixed("reg-phone", 1184)) },
                { "op": "revoke", "deviceId": "laptop", "at": 300 },
            ],
        })],
    ));
    fams.push((
        "replayStore",
        vec![json!({
            "windowSeconds": 60,
            "maxEntries": 3,
            "inserts": [
                { "hash": x("rs-1"), "timestamp": 1000, "now": 1000 },
                { "hash": x("rs-2"), "timestamp": 1001, "now": 1001 },
                { "hash": x("rs-1"), "timestamp": 1002, "now": 1002 },
                { "hash": x("rs-3"), "timestamp": 900, "now": 1002 },
                { "hash": x("rs-3"), "timestamp": 1003, "now": 1003 },
                { "hash": x("rs-4"), "timestamp": 1004, "now": 1004 },
                { "hash": x("rs-5"), "timestamp": 1000, "now": 1005 },
                { "hash": x("rs-6"), "timestamp": 1100, "now": 1100 },
            ],
        })],
    ));
    fams
}

#[test]
#[ignore = "generator: rewrites vectors/messaging/kat.json"]
fn generate_kat() {
    let mut families = Map::new();
    for (family, cases) in inputs() {
        let cases: Vec<Value> = cases
            .into_iter()
            .map(|input| {
                let expected = compute(family, input.as_object().unwrap());
                json!({ "input": input, "expected": expected })
            })
            .collect();
        families.insert(family.to_owned(), Value::Array(cases));
    }
    let doc = json!({
        "description": "veilkit's own known-answer tests for the messaging constructions of docs/PROTOCOL.md (not from any external source). Generated from fixed inputs by crate/tests/messaging_kat.rs (generate_kat); regenerated for issue 13 (transcript v2, verification v2 + interactive SAS, key log v2), the other families unchanged; bytes are lowercase hex; padding content is content[i] = (31*i + 7) mod 256.",
        "version": 1,
        "families": families,
    });
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(KAT_PATH);
    std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap() + "\n").unwrap();
}

#[test]
fn messaging_kat() {
    let doc: Value = serde_json::from_str(KAT).unwrap();
    let families = doc["families"].as_object().unwrap();
    let expected_families: Vec<&str> = inputs().iter().map(|(f, _)| *f).collect();
    assert_eq!(
        families
            .keys()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .len(),
        expected_families.len()
    );
    let mut checked = 0usize;
    for family in &expected_families {
        let cases = families[*family]
            .as_array()
            .unwrap_or_else(|| panic!("family {family}"));
        assert!(!cases.is_empty(), "{family}: no cases");
        for (k, case) in cases.iter().enumerate() {
            let input = case["input"].as_object().unwrap();
            let expected = obj(case["expected"].clone());
            let got = obj(compute(family, input));
            assert_eq!(got, expected, "{family}[{k}]: recomputed outputs differ");
            inverse(family, input, &expected);
            spec(family, input, &expected);
            checked += 1;
        }
    }
    // 2+2+10+3+5+2+4+3+6+1+3+2+2+1+1+1 cases.
    assert_eq!(checked, 48);
}
