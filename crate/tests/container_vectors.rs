//! veilkit's own container fixtures (`vectors/container/`): small containers
//! of every unlock kind with documented inputs and expected plaintext, and
//! chunk key-schedule vectors for the WebCrypto layer. `regenerate_fixtures`
//! (ignored; run with `VEILKIT_WRITE_FIXTURES=1 cargo test -p veilkit --test
//! container_vectors -- --ignored`) rewrites them; the other tests decrypt
//! the committed files, so a format change that breaks old containers fails here.
//! `independent_reader_from_the_spec` re-implements the reader of the v6 layout
//! (112-byte fixed part with the DEK commitment, leaf table, envelopes) from
//! docs/FORMAT.md with raw offsets and the `sha2` / `hmac` / `hkdf` crates: it
//! is the spec-conformance oracle and calls nothing in `veilkit::container`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::cast_possible_truncation
)]

use serde_json::{Value, json};
use veilkit::container::*;
use zeroize::Zeroizing;

const PASSWORD: &str = "veilkit fixture password";
const GROUP_ID: [u8; 16] = [0x47; 16];
const GROUP_KEY: [u8; 32] = [0x4b; 32];
const ED_SEED: [u8; 32] = [0x11; 32];
const MLDSA_SEED: [u8; 32] = [0x33; 32];
const KEY_LOG_ID: [u8; 32] = [0x22; 32];
const TIMESTAMP: u64 = 1_767_225_600; // 2026-01-01T00:00:00Z

/// `xwing_seed[i] = i` for i in 0..32.
fn xwing_seed() -> [u8; 32] {
    core::array::from_fn(|i| i as u8)
}

/// Fixture plaintext: `p[i] = (i · 31 ⊕ (i >> 8)) mod 256`.
fn plaintext(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i.wrapping_mul(31) ^ (i >> 8)) as u8)
        .collect()
}

fn dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors/container")
}

fn opts(
    wraps: Vec<WrapSpec>,
    chunk: u32,
    alg: HashAlg,
    signer: Option<SigningKeys>,
) -> EncryptOptions {
    let mut o = EncryptOptions::new(0, wraps);
    o.chunk_size = chunk;
    o.hash_alg = alg;
    o.signer = signer;
    o
}

#[test]
#[ignore = "rewrites vectors/container; run explicitly"]
fn regenerate_fixtures() {
    if std::env::var("VEILKIT_WRITE_FIXTURES").as_deref() != Ok("1") {
        return;
    }
    let d = dir();
    std::fs::create_dir_all(&d).unwrap();
    let pw = || Zeroizing::new(PASSWORD.as_bytes().to_vec());
    let xw = veilkit::xwing::xwing_from_seed(&xwing_seed()).unwrap();
    let hybrid = || SigningKeys::hybrid(&ED_SEED, &MLDSA_SEED, KEY_LOG_ID, TIMESTAMP).unwrap();
    let mut entries = Vec::new();
    let mut write = |name: &str, len: usize, o: EncryptOptions, unlock: Value| -> Encrypted {
        let pt = plaintext(len);
        let e = encrypt(&pt, o).unwrap();
        std::fs::write(d.join(name), &e.container).unwrap();
        entries.push(json!({
            "file": name,
            "version": e.container[8],
            "unlock": unlock,
            "plaintext_len": len,
            "plaintext_sha256": hex::encode(veilkit::hash::sha256(&pt)),
            "container_sha256": hex::encode(veilkit::hash::sha256(&e.container)),
        }));
        e
    };
    write(
        "password_argon2id.vvlt",
        10_000,
        opts(
            vec![WrapSpec::Argon2id {
                password: pw(),
                cost: Argon2idCost::MINIMUM,
            }],
            4096,
            HashAlg::Sha256,
            None,
        ),
        json!({ "password": PASSWORD }),
    );
    write(
        "password_pbkdf2.vvlt",
        14,
        opts(
            vec![WrapSpec::Pbkdf2 {
                password: pw(),
                iterations: 600_000,
            }],
            4096,
            HashAlg::Sha256,
            None,
        ),
        json!({ "password": PASSWORD }),
    );
    write(
        "xwing_recipient_blake3.vvlt",
        3 * 4096 + 1,
        opts(
            vec![WrapSpec::recipient(&xw.public, 1)],
            4096,
            HashAlg::Blake3,
            None,
        ),
        json!({ "xwing_secret_key": hex::encode(xwing_seed()), "recipient_id": hex::encode(wrap::recipient_id_for(&xw.public)) }),
    );
    write(
        "group_signed_v6.vvlt",
        4097,
        opts(
            vec![WrapSpec::group(GROUP_ID, 0, &GROUP_KEY)],
            4096,
            HashAlg::Sha256,
            Some(hybrid()),
        ),
        json!({
            "group_id": hex::encode(GROUP_ID), "key_version": 0, "group_key": hex::encode(GROUP_KEY),
            "signer_ed25519_seed": hex::encode(ED_SEED), "signer_mldsa65_seed": hex::encode(MLDSA_SEED),
        }),
    );
    write(
        "empty_signed_v5.vvlt",
        0,
        opts(
            vec![WrapSpec::group(GROUP_ID, 0, &GROUP_KEY)],
            4096,
            HashAlg::Sha256,
            Some(SigningKeys::ed25519(&ED_SEED, KEY_LOG_ID, TIMESTAMP).unwrap()),
        ),
        json!({ "group_id": hex::encode(GROUP_ID), "key_version": 0, "group_key": hex::encode(GROUP_KEY),
                "signer_ed25519_seed": hex::encode(ED_SEED) }),
    );
    let e = write(
        "threshold_2of3.vvlt",
        5000,
        opts(
            vec![WrapSpec::Threshold {
                threshold: 2,
                shares: 3,
            }],
            4096,
            HashAlg::Sha256,
            None,
        ),
        json!({ "shares_file": "threshold_2of3.shares.txt" }),
    );
    let shares: Vec<String> = e.shares[0].iter().map(|s| s.to_vcs().to_string()).collect();
    std::fs::write(
        d.join("threshold_2of3.shares.txt"),
        shares.join("\n") + "\n",
    )
    .unwrap();
    // A sealed copy of the v6 fixture.
    let v6 = std::fs::read(d.join("group_signed_v6.vvlt")).unwrap();
    let sealed = seal(&v6, SealMode::Seal, "fixture: sealed", &hybrid()).unwrap();
    std::fs::write(d.join("group_signed_v6.sealed.vvlt"), &sealed).unwrap();
    entries.push(json!({
        "file": "group_signed_v6.sealed.vvlt",
        "version": sealed[8],
        "sealed": { "mode": "seal", "reason": "fixture: sealed", "timestamp": TIMESTAMP },
        "container_sha256": hex::encode(veilkit::hash::sha256(&sealed)),
    }));
    // A group manifest.
    let mut m = GroupManifest::genesis(GROUP_ID, &ED_SEED, &GROUP_KEY, TIMESTAMP).unwrap();
    let member = veilkit::ed25519::ed25519_from_seed(&[0x55; 32])
        .unwrap()
        .public;
    m.add_member(&ED_SEED, member, TIMESTAMP + 1).unwrap();
    m.rotate_key(&ED_SEED, &[0x4c; 32], TIMESTAMP + 2).unwrap();
    std::fs::write(d.join("manifest.vcgm"), m.to_bytes()).unwrap();

    // Chunk key schedule vectors (fixed DEK / file id; no container).
    let dek = Dek::from_bytes(&[0x0d; 32]).unwrap();
    let file_id = [0xf1u8; 16];
    let ctx = FileContext {
        file_id,
        chunk_size: 4096,
        plaintext_size: 5000,
        hash_alg: HashAlg::Sha256,
        header_hash: header_hash(&file_id, 4096, 5000, HashAlg::Sha256),
    };
    let mut chunks = Vec::new();
    for index in [0u32, 1] {
        let len = ctx.chunk_len(u64::from(index)).unwrap();
        let pt = plaintext(5000);
        let start = index as usize * 4096;
        let env = chunk::seal_chunk(
            &dek,
            &ctx,
            u64::from(index),
            &pt[start..start + len as usize],
        )
        .unwrap();
        chunks.push(json!({
            "index": index,
            "key_info": hex::encode(chunk_key_info(index)),
            "iv_info": hex::encode(chunk_iv_info(index)),
            "chunk_key": hex::encode(chunk_key(&dek, &file_id, index).unwrap()),
            "chunk_iv": hex::encode(chunk_iv(&dek, &file_id, index).unwrap()),
            "chunk_len": len,
            "aad": hex::encode(chunk_aad(&ctx, index, len)),
            "envelope_sha256": hex::encode(veilkit::hash::sha256(&env)),
            "leaf_sha256": hex::encode(chunk::envelope_leaf(&ctx, u64::from(index), &env).unwrap()),
        }));
    }
    let preimage = ctx.header_hash_preimage();
    let commitment_key =
        veilkit::kdf::hkdf_sha256(dek.as_bytes(), &file_id, chunk::KEY_COMMITMENT_LABEL, 32)
            .unwrap();
    let kdf = json!({
        "comment": "Per-chunk key schedule, leaves and DEK commitment (docs/FORMAT.md). plaintext p[i] = (i*31 ^ (i>>8)) mod 256, 5000 bytes, chunk_size 4096. leaf = SHA-256(\"vollcrypt-file-merkle-leaf-v2\" || file_id || u32be index || u32be chunk_len || iv || ciphertext || tag); commitment_key = HKDF-SHA-256(DEK, salt = file_id, info = \"vollcrypt-file-key-commitment-v1\", 32); dek_commitment = HMAC-SHA-256(commitment_key, header_hash_preimage).",
        "dek": hex::encode(dek.as_bytes()),
        "file_id": hex::encode(file_id),
        "chunk_size": 4096,
        "plaintext_size": 5000,
        "hash_alg": 0,
        "header_hash_preimage": hex::encode(preimage),
        "header_hash": hex::encode(ctx.header_hash),
        "commitment_key": hex::encode(commitment_key.as_slice()),
        "dek_commitment": hex::encode(chunk::dek_commitment(&dek, &file_id, &preimage).unwrap()),
        "chunks": chunks,
    });
    std::fs::write(
        d.join("chunk_kdf.json"),
        serde_json::to_string_pretty(&kdf).unwrap() + "\n",
    )
    .unwrap();
    let index = json!({
        "comment": "veilkit container fixtures; plaintext p[i] = (i*31 ^ (i>>8)) mod 256 for i < plaintext_len",
        "fixtures": entries,
    });
    std::fs::write(
        d.join("fixtures.json"),
        serde_json::to_string_pretty(&index).unwrap() + "\n",
    )
    .unwrap();
}

fn fixture_index() -> Value {
    serde_json::from_str(include_str!("../../vectors/container/fixtures.json")).unwrap()
}

fn check_fixture(name: &str, bytes: &[u8], unlock: &Unlock<'_>, policy: &VerificationPolicy) {
    let idx = fixture_index();
    let entry = idx["fixtures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["file"] == name)
        .unwrap();
    assert_eq!(
        hex::encode(veilkit::hash::sha256(bytes)),
        entry["container_sha256"].as_str().unwrap(),
        "{name}"
    );
    assert_eq!(
        u64::from(bytes[8]),
        entry["version"].as_u64().unwrap(),
        "{name}"
    );
    let len = entry["plaintext_len"].as_u64().unwrap() as usize;
    let d = decrypt(bytes, unlock, policy).unwrap();
    assert_eq!(d.report.version, bytes[8], "{name}");
    let pt = d.plaintext.unwrap();
    assert_eq!(pt.as_slice(), plaintext(len).as_slice(), "{name}");
    assert_eq!(
        hex::encode(veilkit::hash::sha256(&pt)),
        entry["plaintext_sha256"].as_str().unwrap()
    );
    // Key-less verification binds every ciphertext to the header's root.
    let rep = verify_container(bytes, policy, None).unwrap();
    assert!(rep.is_intact() && !rep.chunks_authenticated, "{name}");
}

fn group() -> Unlock<'static> {
    Unlock::Group(GroupUnlock {
        group_id: GROUP_ID,
        key_version: 0,
        group_key: &GROUP_KEY,
        manifest: None,
    })
}

/// The fixture signer's full pin (Ed25519 and ML-DSA-65 public keys).
fn hybrid_pin() -> ExpectedSigner {
    let s = SigningKeys::hybrid(&ED_SEED, &MLDSA_SEED, KEY_LOG_ID, TIMESTAMP).unwrap();
    ExpectedSigner {
        ed25519: *s.ed25519_public(),
        mldsa65: s.mldsa_public().map(<[u8]>::to_vec),
    }
}

#[test]
fn password_fixtures() {
    let pw = PASSWORD.as_bytes();
    let p = VerificationPolicy::default();
    check_fixture(
        "password_argon2id.vvlt",
        include_bytes!("../../vectors/container/password_argon2id.vvlt"),
        &Unlock::Password(pw),
        &p,
    );
    check_fixture(
        "password_pbkdf2.vvlt",
        include_bytes!("../../vectors/container/password_pbkdf2.vvlt"),
        &Unlock::Password(pw),
        &p,
    );
}

#[test]
fn xwing_group_threshold_fixtures() {
    let p = VerificationPolicy::default();
    let seed = xwing_seed();
    let u = Unlock::Recipient {
        secret_key: &seed,
        recipient_id: None,
    };
    check_fixture(
        "xwing_recipient_blake3.vvlt",
        include_bytes!("../../vectors/container/xwing_recipient_blake3.vvlt"),
        &u,
        &p,
    );
    let ed = veilkit::ed25519::ed25519_from_seed(&ED_SEED)
        .unwrap()
        .public;
    let strict = VerificationPolicy {
        expected_signer: Some(ExpectedSigner::ed25519(ed)),
        ..VerificationPolicy::strict()
    };
    let hybrid = VerificationPolicy {
        expected_signer: Some(hybrid_pin()),
        ..VerificationPolicy::strict()
    };
    let v6: &[u8] = include_bytes!("../../vectors/container/group_signed_v6.vvlt");
    check_fixture("group_signed_v6.vvlt", v6, &group(), &strict);
    check_fixture("group_signed_v6.vvlt", v6, &group(), &hybrid);
    let v5: &[u8] = include_bytes!("../../vectors/container/empty_signed_v5.vvlt");
    check_fixture("empty_signed_v5.vvlt", v5, &group(), &strict);
    // The Ed25519-only fixture under the hybrid pin.
    assert_eq!(
        decrypt(v5, &group(), &hybrid).err().unwrap().code(),
        "HYBRID_REQUIRED"
    );
    let shares: Vec<ThresholdShare> =
        include_str!("../../vectors/container/threshold_2of3.shares.txt")
            .lines()
            .map(|l| ThresholdShare::parse(l).unwrap())
            .collect();
    assert_eq!(shares.len(), 3);
    for pair in [[0usize, 1], [0, 2], [1, 2]] {
        let two = [shares[pair[0]].clone(), shares[pair[1]].clone()];
        check_fixture(
            "threshold_2of3.vvlt",
            include_bytes!("../../vectors/container/threshold_2of3.vvlt"),
            &Unlock::Shares(&two),
            &p,
        );
    }
}

#[test]
fn sealed_and_manifest_fixtures() {
    let sealed = include_bytes!("../../vectors/container/group_signed_v6.sealed.vvlt");
    let strict = VerificationPolicy {
        expected_signer: Some(hybrid_pin()),
        ..VerificationPolicy::strict()
    };
    let rep = verify_container(sealed, &strict, None).unwrap();
    // Sealed containers are verified key-lessly like any other: the table
    // against the signed root and every leaf against its ciphertext.
    assert!(rep.length_valid && rep.merkle_valid && rep.bad_chunks.is_empty());
    let info = rep.sealed.unwrap();
    assert_eq!(
        (info.mode, info.reason.as_str(), info.timestamp),
        (SealMode::Seal, "fixture: sealed", TIMESTAMP)
    );
    // The seal kept the original's DEK commitment, leaf table and body.
    let original: &[u8] = include_bytes!("../../vectors/container/group_signed_v6.vvlt");
    let (sh, sl) = Header::parse(sealed).unwrap();
    let (oh, ol) = Header::parse(original).unwrap();
    assert_eq!(sh.dek_commitment, oh.dek_commitment);
    assert_eq!(sh.merkle_root, oh.merkle_root);
    assert_eq!(&sealed[sl..], &original[ol..]);
    assert_eq!(
        decrypt(sealed, &group(), &VerificationPolicy::default())
            .err()
            .unwrap()
            .code(),
        "SEALED"
    );
    let m = include_bytes!("../../vectors/container/manifest.vcgm");
    let ed = veilkit::ed25519::ed25519_from_seed(&ED_SEED)
        .unwrap()
        .public;
    let state = GroupManifest::parse(m)
        .unwrap()
        .verify(Some(2), Some(&ed))
        .unwrap();
    assert_eq!(state.current_key_epoch(), 2);
    state.check_group_key(2, &[0x4c; 32]).unwrap();
    state.check_group_key(0, &GROUP_KEY).unwrap();
}

// ---------------------------------------------------------------- spec primitives
// Written from docs/FORMAT.md with the `sha2` / `hmac` / `hkdf` crates (and
// veilkit's AES-GCM / AES-KW / signature primitives): nothing here calls
// `veilkit::container`, so a label or layout change there fails these tests.

const LEAF_LABEL: &[u8] = b"vollcrypt-file-merkle-leaf-v2";
const NODE_LABEL: &[u8] = b"vollcrypt-file-merkle-node-v1";
const EMPTY_LABEL: &[u8] = b"vollcrypt-file-merkle-empty-v1";
const HEADER_LABEL: &[u8] = b"vollcrypt-file-header-v1";
const COMMITMENT_LABEL: &[u8] = b"vollcrypt-file-key-commitment-v1";
const KEY_LABEL: &[u8] = b"vollcrypt-file-chunk-key-v1";
const IV_LABEL: &[u8] = b"vollcrypt-file-chunk-iv-v1";
const AAD_LABEL: &[u8] = b"vollcrypt-file-chunk-aad-v1";
const GROUP_KEK_LABEL: &[u8] = b"vollcrypt-file-group-kek-v1";
const SIGNATURE_LABEL: &[u8] = b"vollcrypt-file-header-signature-v1";
const MLDSA_CONTEXT: &[u8] = b"vollcrypt-file-header-v3";

fn spec_sha256(parts: &[&[u8]]) -> [u8; 32] {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

fn spec_hkdf(ikm: &[u8], salt: &[u8], info: &[u8], len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    hkdf::Hkdf::<sha2::Sha256>::new(Some(salt), ikm)
        .expand(info, &mut out)
        .unwrap();
    out
}

fn spec_hmac(key: &[u8], data: &[u8]) -> [u8; 32] {
    use hmac::{KeyInit, Mac};
    let mut m = <hmac::Hmac<sha2::Sha256> as KeyInit>::new_from_slice(key).unwrap();
    m.update(data);
    m.finalize().into_bytes().into()
}

/// `"vollcrypt-file-header-v1" ‖ "VOLLVALT" ‖ suite 0 ‖ file_id ‖ u32be C ‖
/// u64be P ‖ u8 hash_alg` (62 bytes).
fn spec_preimage(file_id: &[u8], chunk_size: u32, psize: u64, hash_alg: u8) -> Vec<u8> {
    let mut p = HEADER_LABEL.to_vec();
    p.extend_from_slice(b"VOLLVALT");
    p.push(0);
    p.extend_from_slice(file_id);
    p.extend_from_slice(&chunk_size.to_be_bytes());
    p.extend_from_slice(&psize.to_be_bytes());
    p.push(hash_alg);
    assert_eq!(p.len(), 62);
    p
}

/// `HMAC-SHA-256(HKDF-SHA-256(DEK, file_id, "vollcrypt-file-key-commitment-v1", 32), preimage)`.
fn spec_commitment(dek: &[u8], file_id: &[u8], preimage: &[u8]) -> [u8; 32] {
    spec_hmac(&spec_hkdf(dek, file_id, COMMITMENT_LABEL, 32), preimage)
}

/// SHA-256 leaf of one envelope (`u32be i ‖ iv12 ‖ ciphertext ‖ tag16`).
fn spec_leaf(file_id: &[u8], index: u32, len: u32, envelope: &[u8]) -> [u8; 32] {
    spec_sha256(&[
        LEAF_LABEL,
        file_id,
        &index.to_be_bytes(),
        &len.to_be_bytes(),
        &envelope[4..16],
        &envelope[16..],
    ])
}

/// RFC 6962 root with the node / empty labels (SHA-256).
fn spec_root(l: &[[u8; 32]]) -> [u8; 32] {
    match l.len() {
        0 => spec_sha256(&[EMPTY_LABEL]),
        1 => l[0],
        n => {
            let mut k = 1;
            while k * 2 < n {
                k *= 2;
            }
            spec_sha256(&[NODE_LABEL, &spec_root(&l[..k]), &spec_root(&l[k..])])
        }
    }
}

fn spec_aad(hh: &[u8], file_id: &[u8], i: u32, chunk_size: u32, psize: u64, len: u32) -> Vec<u8> {
    let mut aad = AAD_LABEL.to_vec();
    aad.extend_from_slice(hh);
    aad.extend_from_slice(file_id);
    aad.extend_from_slice(&i.to_be_bytes());
    aad.extend_from_slice(&chunk_size.to_be_bytes());
    aad.extend_from_slice(&psize.to_be_bytes());
    aad.extend_from_slice(&len.to_be_bytes());
    assert_eq!(aad.len(), 95);
    aad
}

#[test]
fn chunk_kdf_vectors() {
    let v: Value =
        serde_json::from_str(include_str!("../../vectors/container/chunk_kdf.json")).unwrap();
    let dek = hex::decode(v["dek"].as_str().unwrap()).unwrap();
    let file_id = hex::decode(v["file_id"].as_str().unwrap()).unwrap();
    assert_eq!(
        (dek.as_slice(), file_id.as_slice()),
        (&[0x0d; 32][..], &[0xf1; 16][..])
    );
    let preimage = spec_preimage(&file_id, 4096, 5000, 0);
    assert_eq!(
        hex::encode(&preimage),
        v["header_hash_preimage"].as_str().unwrap()
    );
    let hh = spec_sha256(&[&preimage]);
    assert_eq!(hex::encode(hh), v["header_hash"].as_str().unwrap());
    // The crate agrees with the spec computation.
    assert_eq!(
        hh,
        header_hash(
            file_id.as_slice().try_into().unwrap(),
            4096,
            5000,
            HashAlg::Sha256
        )
    );
    // DEK commitment: HKDF to K_c, HMAC over the header-hash preimage.
    let kc = spec_hkdf(&dek, &file_id, COMMITMENT_LABEL, 32);
    assert_eq!(hex::encode(&kc), v["commitment_key"].as_str().unwrap());
    let commitment = spec_commitment(&dek, &file_id, &preimage);
    assert_eq!(
        hex::encode(commitment),
        v["dek_commitment"].as_str().unwrap()
    );
    // Another DEK, another file id or another size gives another commitment.
    assert_ne!(
        spec_commitment(&[0x0e; 32], &file_id, &preimage),
        commitment
    );
    assert_ne!(
        spec_commitment(&dek, &file_id, &spec_preimage(&file_id, 4096, 0, 0)),
        commitment
    );
    let chunks = v["chunks"].as_array().unwrap();
    assert_eq!(chunks.len(), 2);
    for c in chunks {
        let index = c["index"].as_u64().unwrap() as u32;
        let len = c["chunk_len"].as_u64().unwrap() as u32;
        assert_eq!(len, if index == 0 { 4096 } else { 904 });
        // The documented info strings: label ‖ u32be index.
        let info_k = [KEY_LABEL, &index.to_be_bytes()].concat();
        let info_iv = [IV_LABEL, &index.to_be_bytes()].concat();
        assert_eq!(hex::encode(&info_k), c["key_info"].as_str().unwrap());
        assert_eq!(hex::encode(&info_iv), c["iv_info"].as_str().unwrap());
        // Plain HKDF-SHA-256 with those info strings (what WebCrypto does).
        let k = spec_hkdf(&dek, &file_id, &info_k, 32);
        let iv = spec_hkdf(&dek, &file_id, &info_iv, 12);
        assert_eq!(hex::encode(&k), c["chunk_key"].as_str().unwrap());
        assert_eq!(hex::encode(&iv), c["chunk_iv"].as_str().unwrap());
        let aad = spec_aad(&hh, &file_id, index, 4096, 5000, len);
        assert_eq!(hex::encode(&aad), c["aad"].as_str().unwrap());
        let pt = plaintext(5000);
        let start = index as usize * 4096;
        let ct =
            veilkit::aead::aes_gcm_encrypt_with_iv(&k, &iv, &pt[start..start + len as usize], &aad)
                .unwrap();
        let mut env = index.to_be_bytes().to_vec();
        env.extend_from_slice(&iv);
        env.extend_from_slice(&ct);
        assert_eq!(
            hex::encode(spec_sha256(&[&env])),
            c["envelope_sha256"].as_str().unwrap()
        );
        // The leaf hashes the whole ciphertext (label v2).
        let leaf = spec_leaf(&file_id, index, len, &env);
        assert_eq!(hex::encode(leaf), c["leaf_sha256"].as_str().unwrap());
        let mut flipped = env.clone();
        flipped[20] ^= 1; // a ciphertext byte
        assert_ne!(spec_leaf(&file_id, index, len, &flipped), leaf);
    }
    // The crate's labels are the documented ones.
    assert_eq!(merkle::LEAF_LABEL, LEAF_LABEL);
    assert_eq!(merkle::NODE_LABEL, NODE_LABEL);
    assert_eq!(chunk::KEY_COMMITMENT_LABEL, COMMITMENT_LABEL);
    assert_eq!(chunk::HEADER_HASH_LABEL, HEADER_LABEL);
}

/// Opens a group-wrapped v5 / v6 container with raw offsets and the spec
/// primitives alone: fixed part, DEK commitment, wrap, metadata, signatures,
/// leaf table against the root, every leaf against its envelope, AEAD.
fn spec_open_group(b: &[u8], group_key: &[u8; 32]) -> core::result::Result<Vec<u8>, &'static str> {
    use veilkit::{aead, ed25519, keywrap, mldsa};
    let be32 = |o: usize| u32::from_be_bytes(b[o..o + 4].try_into().unwrap());
    assert_eq!(&b[0..8], b"VOLLVALT");
    let version = b[8];
    assert!(version == 5 || version == 6, "signed header versions");
    assert_eq!((b[9], b[10]), (2, 0)); // group mode, AES-256-GCM
    let file_id = &b[11..27];
    let chunk_size = be32(27);
    let psize = u64::from_be_bytes(b[31..39].try_into().unwrap());
    let root = &b[39..71];
    assert_eq!((b[71], b[72], &b[73..76]), (1, 0, &[0u8; 3][..])); // 1 wrap, SHA-256
    let var = be32(76) as usize;
    assert_eq!(var, 63);
    let commitment = &b[80..112];
    // Wrap at 112: type 3 ‖ len 60 ‖ group_id ‖ key version ‖ wrapped.
    assert_eq!((b[112], u16::from_be_bytes([b[113], b[114]])), (3, 60));
    assert_eq!(&b[115..131], &GROUP_ID);
    let key_version = be32(131);
    let info = [GROUP_KEK_LABEL, &GROUP_ID[..], &key_version.to_be_bytes()].concat();
    let kek = spec_hkdf(group_key, file_id, &info, 32);
    let dek = keywrap::aes_kw_unwrap(&kek, &b[135..175]).map_err(|_| "unwrap")?;
    // The DEK must open the commitment before it is used for anything.
    let preimage = spec_preimage(file_id, chunk_size, psize, 0);
    if spec_commitment(&dek, file_id, &preimage) != commitment {
        return Err("commitment");
    }
    // Metadata: kind ‖ timestamp ‖ Ed25519 pk ‖ [ML-DSA-65 pk] ‖ key-log id.
    let mlen = be32(175) as usize;
    let pq_len = if version == 6 { 1952 } else { 0 };
    assert_eq!(mlen, 1 + 8 + 32 + pq_len + 32);
    let meta = &b[179..179 + mlen];
    assert_eq!(meta[0], 0);
    let ed_pk = &meta[9..41];
    let sig_start = 179 + mlen;
    let msg = [SIGNATURE_LABEL, &b[..sig_start]].concat();
    ed25519::ed25519_verify(ed_pk, &msg, &b[sig_start..sig_start + 64]).map_err(|_| "ed25519")?;
    let mut header_len = sig_start + 64;
    if version == 6 {
        let ml_pk = &meta[41..41 + 1952];
        let ml_sig = &b[header_len..header_len + 3309];
        mldsa::mldsa_verify(ml_pk, &msg, MLDSA_CONTEXT, ml_sig).map_err(|_| "ml-dsa")?;
        header_len += 3309;
    }
    // Leaf table: 32 · n bytes, its root must be the (signed) header root.
    let n = psize.div_ceil(u64::from(chunk_size)) as usize;
    let table: Vec<[u8; 32]> = b[header_len..header_len + 32 * n]
        .chunks_exact(32)
        .map(|c| c.try_into().unwrap())
        .collect();
    if spec_root(&table) != root {
        return Err("root");
    }
    let hh = spec_sha256(&[&preimage]);
    let mut out = Vec::new();
    let mut off = header_len + 32 * n;
    for (i, want) in table.iter().enumerate() {
        let len = if i + 1 == n {
            psize as usize - i * chunk_size as usize
        } else {
            chunk_size as usize
        };
        let env = &b[off..off + 32 + len];
        // Release rule: the leaf recomputed from these exact bytes first.
        if &spec_leaf(file_id, i as u32, len as u32, env) != want {
            return Err("leaf");
        }
        assert_eq!(u32::from_be_bytes(env[..4].try_into().unwrap()) as usize, i);
        let key = spec_hkdf(
            &dek,
            file_id,
            &[KEY_LABEL, &(i as u32).to_be_bytes()].concat(),
            32,
        );
        let iv = spec_hkdf(
            &dek,
            file_id,
            &[IV_LABEL, &(i as u32).to_be_bytes()].concat(),
            12,
        );
        assert_eq!(&env[4..16], iv.as_slice());
        let aad = spec_aad(&hh, file_id, i as u32, chunk_size, psize, len as u32);
        let pt = aead::aes_gcm_decrypt_with_iv(&key, &iv, &env[16..], &aad).map_err(|_| "aead")?;
        out.extend_from_slice(&pt);
        off += 32 + len;
    }
    assert_eq!(off, b.len());
    Ok(out)
}

/// An independent reader written from docs/FORMAT.md alone (raw offsets and
/// primitives only; no container API) opens the v6 and v5 group fixtures and
/// refuses what the format says it must.
#[test]
fn independent_reader_from_the_spec() {
    let v6: &[u8] = include_bytes!("../../vectors/container/group_signed_v6.vvlt");
    assert_eq!(v6[8], 6);
    assert_eq!(spec_open_group(v6, &GROUP_KEY).unwrap(), plaintext(4097));
    let v5: &[u8] = include_bytes!("../../vectors/container/empty_signed_v5.vvlt");
    assert_eq!(v5[8], 5);
    assert_eq!(spec_open_group(v5, &GROUP_KEY).unwrap(), Vec::<u8>::new());
    // The empty file's root is the empty root and it has no leaf table.
    assert_eq!(&v5[39..71], &spec_sha256(&[EMPTY_LABEL]));
    // The oracle fails where the format says a reader must (sanity of the oracle).
    assert_eq!(spec_open_group(v6, &[0; 32]), Err("unwrap"));
    // v6 header: fixed 112 ‖ group wrap 63 ‖ u32 mlen ‖ metadata ‖ Ed25519 64 ‖ ML-DSA-65 3309.
    let h = 112 + 63 + 4 + (1 + 8 + 32 + 1952 + 32) + 64 + 3309;
    let mut bad = v6.to_vec();
    bad[h + 5] ^= 1; // a leaf-table entry
    assert_eq!(spec_open_group(&bad, &GROUP_KEY), Err("root"));
    let mut bad = v6.to_vec();
    bad[h + 64 + 100] ^= 1; // chunk 0 ciphertext
    assert_eq!(spec_open_group(&bad, &GROUP_KEY), Err("leaf"));
    let mut bad = v6.to_vec();
    bad[90] ^= 1; // the DEK commitment (signed bytes, but the commitment is checked first)
    assert_eq!(spec_open_group(&bad, &GROUP_KEY), Err("commitment"));
}
