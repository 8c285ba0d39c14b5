//! veilkit's own container fixtures (`vectors/container/`): small containers
//! of every unlock kind with documented inputs and expected plaintext, and
//! chunk key-schedule vectors for the WebCrypto layer. `regenerate_fixtures`
//! (ignored; run with `VEILKIT_WRITE_FIXTURES=1 cargo test -p veilkit --test
//! container_vectors -- --ignored`) rewrites them; the other tests decrypt
//! the committed files, so a format change that breaks old containers fails here.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
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
        "group_signed_v3.vvlt",
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
        "empty_signed_v2.vvlt",
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
    // A sealed copy of the v3 fixture.
    let v3 = std::fs::read(d.join("group_signed_v3.vvlt")).unwrap();
    let sealed = seal(&v3, SealMode::Seal, "fixture: sealed", &hybrid()).unwrap();
    std::fs::write(d.join("group_signed_v3.sealed.vvlt"), &sealed).unwrap();
    entries.push(json!({
        "file": "group_signed_v3.sealed.vvlt",
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
    let kdf = json!({
        "comment": "Per-chunk key schedule (docs/FORMAT.md §6). plaintext p[i] = (i*31 ^ (i>>8)) mod 256, 5000 bytes, chunk_size 4096.",
        "dek": hex::encode(dek.as_bytes()),
        "file_id": hex::encode(file_id),
        "chunk_size": 4096,
        "plaintext_size": 5000,
        "hash_alg": 0,
        "header_hash": hex::encode(ctx.header_hash),
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
    let len = entry["plaintext_len"].as_u64().unwrap() as usize;
    let d = decrypt(bytes, unlock, policy).unwrap();
    let pt = d.plaintext.unwrap();
    assert_eq!(pt.as_slice(), plaintext(len).as_slice(), "{name}");
    assert_eq!(
        hex::encode(veilkit::hash::sha256(&pt)),
        entry["plaintext_sha256"].as_str().unwrap()
    );
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
    let g = Unlock::Group(GroupUnlock {
        group_id: GROUP_ID,
        key_version: 0,
        group_key: &GROUP_KEY,
        manifest: None,
    });
    let ed = veilkit::ed25519::ed25519_from_seed(&ED_SEED)
        .unwrap()
        .public;
    let strict = VerificationPolicy {
        expected_signer: Some(ed),
        ..VerificationPolicy::strict()
    };
    check_fixture(
        "group_signed_v3.vvlt",
        include_bytes!("../../vectors/container/group_signed_v3.vvlt"),
        &g,
        &strict,
    );
    check_fixture(
        "empty_signed_v2.vvlt",
        include_bytes!("../../vectors/container/empty_signed_v2.vvlt"),
        &g,
        &strict,
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
    let sealed = include_bytes!("../../vectors/container/group_signed_v3.sealed.vvlt");
    let rep = verify_container(sealed, &VerificationPolicy::strict(), None).unwrap();
    let info = rep.sealed.unwrap();
    assert_eq!(
        (info.mode, info.reason.as_str(), info.timestamp),
        (SealMode::Seal, "fixture: sealed", TIMESTAMP)
    );
    let g = Unlock::Group(GroupUnlock {
        group_id: GROUP_ID,
        key_version: 0,
        group_key: &GROUP_KEY,
        manifest: None,
    });
    assert_eq!(
        decrypt(sealed, &g, &VerificationPolicy::default())
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

#[test]
fn chunk_kdf_vectors() {
    let v: Value =
        serde_json::from_str(include_str!("../../vectors/container/chunk_kdf.json")).unwrap();
    let dek = hex::decode(v["dek"].as_str().unwrap()).unwrap();
    let file_id = hex::decode(v["file_id"].as_str().unwrap()).unwrap();
    let hh = header_hash(
        file_id.as_slice().try_into().unwrap(),
        4096,
        5000,
        HashAlg::Sha256,
    );
    assert_eq!(hex::encode(hh), v["header_hash"].as_str().unwrap());
    for c in v["chunks"].as_array().unwrap() {
        let info_k = hex::decode(c["key_info"].as_str().unwrap()).unwrap();
        let info_iv = hex::decode(c["iv_info"].as_str().unwrap()).unwrap();
        // Plain HKDF-SHA-256 with the documented info strings (what WebCrypto does).
        let k = veilkit::kdf::hkdf_sha256(&dek, &file_id, &info_k, 32).unwrap();
        let iv = veilkit::kdf::hkdf_sha256(&dek, &file_id, &info_iv, 12).unwrap();
        assert_eq!(hex::encode(k.as_slice()), c["chunk_key"].as_str().unwrap());
        assert_eq!(hex::encode(iv.as_slice()), c["chunk_iv"].as_str().unwrap());
        let index = c["index"].as_u64().unwrap() as usize;
        let len = c["chunk_len"].as_u64().unwrap() as usize;
        let aad = hex::decode(c["aad"].as_str().unwrap()).unwrap();
        let pt = plaintext(5000);
        let ct = veilkit::aead::aes_gcm_encrypt_with_iv(
            &k,
            &iv,
            &pt[index * 4096..index * 4096 + len],
            &aad,
        )
        .unwrap();
        let mut env = (index as u32).to_be_bytes().to_vec();
        env.extend_from_slice(&iv);
        env.extend_from_slice(&ct);
        assert_eq!(
            hex::encode(veilkit::hash::sha256(&env)),
            c["envelope_sha256"].as_str().unwrap()
        );
    }
}

/// An independent reader written from docs/FORMAT.md alone (raw offsets and
/// primitives only; no container API) opens the v3 group fixture.
#[test]
fn independent_reader_from_the_spec() {
    use veilkit::{aead, ed25519, hash, kdf, keywrap, mldsa};
    let b: &[u8] = include_bytes!("../../vectors/container/group_signed_v3.vvlt");
    let be32 = |o: usize| u32::from_be_bytes(b[o..o + 4].try_into().unwrap());
    assert_eq!(&b[0..8], b"VOLLVALT");
    assert_eq!((b[8], b[9], b[10]), (3, 2, 0)); // v3, group mode, AES-256-GCM
    let file_id = &b[11..27];
    let chunk_size = be32(27);
    let psize = u64::from_be_bytes(b[31..39].try_into().unwrap());
    let root = &b[39..71];
    assert_eq!((b[71], b[72], &b[73..76]), (1, 0, &[0u8; 3][..]));
    let var = be32(76) as usize;
    assert_eq!(var, 63);
    // Wrap: type 3 ‖ len 60 ‖ group_id ‖ version ‖ wrapped.
    assert_eq!((b[80], u16::from_be_bytes([b[81], b[82]])), (3, 60));
    assert_eq!(&b[83..99], &GROUP_ID);
    let version = be32(99);
    let mut info = b"vollcrypt-file-group-kek-v1".to_vec();
    info.extend_from_slice(&GROUP_ID);
    info.extend_from_slice(&version.to_be_bytes());
    let kek = kdf::hkdf_sha256(&GROUP_KEY, file_id, &info, 32).unwrap();
    let dek = keywrap::aes_kw_unwrap(&kek, &b[103..143]).unwrap();
    // Metadata and signatures.
    let mlen = be32(143) as usize;
    assert_eq!(mlen, 1 + 8 + 32 + 1952 + 32);
    let meta = &b[147..147 + mlen];
    assert_eq!(meta[0], 0);
    let ed_pk = &meta[9..41];
    let ml_pk = &meta[41..41 + 1952];
    let sig_start = 147 + mlen;
    let mut msg = b"vollcrypt-file-header-signature-v1".to_vec();
    msg.extend_from_slice(&b[..sig_start]);
    ed25519::ed25519_verify(ed_pk, &msg, &b[sig_start..sig_start + 64]).unwrap();
    let ml_sig = &b[sig_start + 64..sig_start + 64 + 3309];
    mldsa::mldsa_verify(ml_pk, &msg, b"vollcrypt-file-header-v3", ml_sig).unwrap();
    let header_len = sig_start + 64 + 3309;
    // Header hash and chunks.
    let mut hh_in = b"vollcrypt-file-header-v1VOLLVALT\x00".to_vec();
    hh_in.extend_from_slice(file_id);
    hh_in.extend_from_slice(&chunk_size.to_be_bytes());
    hh_in.extend_from_slice(&psize.to_be_bytes());
    hh_in.push(0);
    let hh = hash::sha256(&hh_in);
    let n = psize.div_ceil(u64::from(chunk_size)) as usize;
    let mut out = Vec::new();
    let mut leaves = Vec::new();
    let mut off = header_len;
    for i in 0..n {
        let len = if i + 1 == n {
            psize as usize - i * chunk_size as usize
        } else {
            chunk_size as usize
        };
        let env = &b[off..off + 32 + len];
        assert_eq!(u32::from_be_bytes(env[..4].try_into().unwrap()) as usize, i);
        let mut ki = b"vollcrypt-file-chunk-key-v1".to_vec();
        ki.extend_from_slice(&(i as u32).to_be_bytes());
        let mut ii = b"vollcrypt-file-chunk-iv-v1".to_vec();
        ii.extend_from_slice(&(i as u32).to_be_bytes());
        let key = kdf::hkdf_sha256(&dek, file_id, &ki, 32).unwrap();
        let iv = kdf::hkdf_sha256(&dek, file_id, &ii, 12).unwrap();
        assert_eq!(&env[4..16], iv.as_slice());
        let mut aad = b"vollcrypt-file-chunk-aad-v1".to_vec();
        aad.extend_from_slice(&hh);
        aad.extend_from_slice(file_id);
        aad.extend_from_slice(&(i as u32).to_be_bytes());
        aad.extend_from_slice(&chunk_size.to_be_bytes());
        aad.extend_from_slice(&psize.to_be_bytes());
        aad.extend_from_slice(&(len as u32).to_be_bytes());
        out.extend_from_slice(&aead::aes_gcm_decrypt_with_iv(&key, &iv, &env[16..], &aad).unwrap());
        let mut leaf = b"vollcrypt-file-merkle-leaf-v1".to_vec();
        leaf.extend_from_slice(file_id);
        leaf.extend_from_slice(&(i as u32).to_be_bytes());
        leaf.extend_from_slice(&(len as u32).to_be_bytes());
        leaf.extend_from_slice(&env[4..16]);
        leaf.extend_from_slice(&env[16 + len..]);
        leaves.push(hash::sha256(&leaf));
        off += 32 + len;
    }
    assert_eq!(off, b.len());
    // RFC 6962 root with the node label.
    fn mth(l: &[[u8; 32]]) -> [u8; 32] {
        if l.len() == 1 {
            return l[0];
        }
        let mut k = 1;
        while k * 2 < l.len() {
            k *= 2;
        }
        let mut m = b"vollcrypt-file-merkle-node-v1".to_vec();
        m.extend_from_slice(&mth(&l[..k]));
        m.extend_from_slice(&mth(&l[k..]));
        veilkit::hash::sha256(&m)
    }
    assert_eq!(&mth(&leaves), root);
    assert_eq!(out, plaintext(psize as usize));
}
