//! Container round trips: every wrap type and combinations, chunk sizes and
//! edge lengths, both hash algorithms, v4/v5/v6, the streaming encryptor and
//! reader (random access against the leaf table, sequential), the exposed chunk
//! key schedule, and rewrap / re-encryption.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::cast_possible_truncation
)]

mod container_util;

use container_util::*;
use veilkit::container::*;
use zeroize::Zeroizing;

#[test]
fn edge_lengths_and_chunk_sizes_round_trip() {
    for c in [4096u32, 5000, 65536] {
        let cu = c as usize;
        for len in [0, 1, cu - 1, cu, cu + 1, 3 * cu] {
            for alg in [HashAlg::Sha256, HashAlg::Blake3] {
                let pt = data(len);
                let mut o = options(vec![group_spec()], c);
                o.hash_alg = alg;
                let e = encrypt(&pt, o).unwrap();
                let reader = ContainerReader::new(&e.container).unwrap();
                assert_eq!(reader.chunk_count(), (len as u64).div_ceil(c as u64));
                assert_eq!(reader.container_len(), e.container.len() as u64);
                assert_eq!(reader.header().hash_alg, alg);
                assert_eq!(
                    open(&e.container, &group_unlock()).unwrap(),
                    pt,
                    "C={c} len={len}"
                );
            }
        }
    }
}

#[test]
fn default_and_maximum_chunk_size() {
    let pt = data(DEFAULT_LEN);
    let e = encrypt(&pt, EncryptOptions::new(0, vec![group_spec()])).unwrap();
    let (h, _) = Header::parse(&e.container).unwrap();
    assert_eq!(h.chunk_size, 1024 * 1024);
    assert_eq!(open(&e.container, &group_unlock()).unwrap(), pt);
    let e = encrypt(&pt, options(vec![group_spec()], 16 * 1024 * 1024)).unwrap();
    assert_eq!(open(&e.container, &group_unlock()).unwrap(), pt);
}
const DEFAULT_LEN: usize = 1024 * 1024 + 17;

#[test]
fn every_wrap_type_opens() {
    let pt = data(10_000);
    let kp = xwing(7);
    // Argon2id (minimum cost the format allows).
    let e = encrypt(&pt, options(vec![argon_min(PASSWORD)], SMALL)).unwrap();
    let h = Header::parse(&e.container).unwrap().0;
    assert_eq!(h.mode(), Mode::Password);
    assert_eq!(open(&e.container, &Unlock::Password(PASSWORD)).unwrap(), pt);
    // PBKDF2 at the minimum 600 000 iterations (one of few such tests).
    let spec = WrapSpec::Pbkdf2 {
        password: Zeroizing::new(PASSWORD.to_vec()),
        iterations: 600_000,
    };
    let e = encrypt(&pt, options(vec![spec], SMALL)).unwrap();
    assert_eq!(open(&e.container, &Unlock::Password(PASSWORD)).unwrap(), pt);
    // Group.
    let e = encrypt(&pt, options(vec![group_spec()], SMALL)).unwrap();
    assert_eq!(Header::parse(&e.container).unwrap().0.mode(), Mode::Group);
    assert_eq!(open(&e.container, &group_unlock()).unwrap(), pt);
    // Hybrid KEM, with and without recipient id.
    let e = encrypt(
        &pt,
        options(vec![WrapSpec::recipient(&kp.public, 3)], SMALL),
    )
    .unwrap();
    let h = Header::parse(&e.container).unwrap().0;
    assert_eq!(h.mode(), Mode::Recipient);
    match &h.wraps[0] {
        WrapEntry::HybridKem {
            recipient_id,
            key_version,
            ..
        } => {
            assert_eq!(*recipient_id, wrap::recipient_id_for(&kp.public));
            assert_eq!(*key_version, 3);
        }
        other => panic!("{other:?}"),
    }
    let rid = wrap::recipient_id_for(&kp.public);
    for id in [None, Some(rid)] {
        let u = Unlock::Recipient {
            secret_key: kp.secret.as_slice(),
            recipient_id: id,
        };
        assert_eq!(open(&e.container, &u).unwrap(), pt);
    }
    // Threshold 3-of-5: every 3-subset opens; shares survive export.
    let e = encrypt(
        &pt,
        options(
            vec![WrapSpec::Threshold {
                threshold: 3,
                shares: 5,
            }],
            SMALL,
        ),
    )
    .unwrap();
    assert_eq!(
        Header::parse(&e.container).unwrap().0.mode(),
        Mode::Threshold
    );
    let shares: Vec<ThresholdShare> = e.shares[0]
        .iter()
        .map(|s| {
            let text = s.to_vcs();
            assert!(text.starts_with("vcs_"));
            assert_eq!(text.len(), 83);
            ThresholdShare::parse(&text).unwrap()
        })
        .collect();
    for a in 0..5 {
        for b in a + 1..5 {
            for c in b + 1..5 {
                let subset = [shares[a].clone(), shares[b].clone(), shares[c].clone()];
                assert_eq!(open(&e.container, &Unlock::Shares(&subset)).unwrap(), pt);
            }
        }
    }
    assert_eq!(open(&e.container, &Unlock::Shares(&shares)).unwrap(), pt);
}

#[test]
fn combinations_any_wrap_opens() {
    let pt = data(9000);
    let kp1 = xwing(1);
    let kp2 = xwing(2);
    let e = encrypt(
        &pt,
        options(
            vec![
                argon_min(b"pw-one"),
                group_spec(),
                WrapSpec::recipient(&kp1.public, 1),
                WrapSpec::recipient(&kp2.public, 1),
                WrapSpec::Threshold {
                    threshold: 2,
                    shares: 3,
                },
                argon_min(b"pw-two"),
            ],
            SMALL,
        ),
    )
    .unwrap();
    let h = Header::parse(&e.container).unwrap().0;
    assert_eq!(h.mode(), Mode::Mixed);
    assert_eq!(h.wraps.len(), 6);
    assert_eq!(
        open(&e.container, &Unlock::Password(b"pw-one")).unwrap(),
        pt
    );
    assert_eq!(
        open(&e.container, &Unlock::Password(b"pw-two")).unwrap(),
        pt
    );
    assert_eq!(open(&e.container, &group_unlock()).unwrap(), pt);
    for kp in [&kp1, &kp2] {
        let u = Unlock::Recipient {
            secret_key: kp.secret.as_slice(),
            recipient_id: None,
        };
        assert_eq!(open(&e.container, &u).unwrap(), pt);
    }
    let two = [e.shares[0][0].clone(), e.shares[0][2].clone()];
    assert_eq!(open(&e.container, &Unlock::Shares(&two)).unwrap(), pt);
    // Exported DEK opens it too.
    let mut r = ContainerReader::new(&e.container).unwrap();
    r.unlock(&group_unlock()).unwrap();
    let dek = Dek::from_bytes(r.export_dek().unwrap().as_slice()).unwrap();
    assert_eq!(open(&e.container, &Unlock::Dek(&dek)).unwrap(), pt);
}

#[test]
fn fresh_dek_and_file_id_per_container() {
    let pt = data(100);
    let a = encrypt(&pt, options(vec![group_spec()], SMALL))
        .unwrap()
        .container;
    let b = encrypt(&pt, options(vec![group_spec()], SMALL))
        .unwrap()
        .container;
    let ha = Header::parse(&a).unwrap().0;
    let hb = Header::parse(&b).unwrap().0;
    assert_ne!(ha.file_id, hb.file_id);
    let dek = |c: &[u8]| {
        let mut r = ContainerReader::new(c).unwrap();
        r.unlock(&group_unlock()).unwrap();
        *r.export_dek().unwrap()
    };
    assert_ne!(dek(&a), dek(&b));
}

#[test]
fn signed_v2_and_v3_round_trip() {
    let pt = data(12_345);
    for (signer, version, status) in [
        (ed_signer(1_700_000_000), 5u8, SignatureStatus::Ed25519),
        (hybrid_signer(1_700_000_000), 6u8, SignatureStatus::Hybrid),
    ] {
        let pk = *signer.ed25519_public();
        let pq = signer.mldsa_public().map(<[u8]>::to_vec);
        assert_eq!(signer.version(), version);
        let mut o = options(vec![group_spec()], SMALL);
        o.signer = Some(signer);
        let e = encrypt(&pt, o).unwrap();
        assert_eq!(e.container[8], version);
        let policy = VerificationPolicy {
            expected_signer: Some(ExpectedSigner::ed25519(pk)),
            ..VerificationPolicy::strict()
        };
        let d = decrypt(&e.container, &group_unlock(), &policy).unwrap();
        assert_eq!(d.plaintext.unwrap().as_slice(), pt.as_slice());
        assert_eq!(d.report.signature, status);
        assert_eq!(d.report.version, version);
        assert_eq!(d.report.signer, Some(pk));
        assert_eq!(d.report.signer_mldsa65, pq);
        assert_eq!(d.report.key_log_id, Some([0x22; 32]));
        assert_eq!(d.report.timestamp, Some(1_700_000_000));
        let rep = verify_container(&e.container, &policy, None).unwrap();
        assert!(rep.is_intact());
        assert!(!rep.chunks_authenticated);
        // The full pin (with the ML-DSA-65 key where the signer has one).
        let full = VerificationPolicy {
            expected_signer: Some(ExpectedSigner {
                ed25519: pk,
                mldsa65: pq.clone(),
            }),
            ..VerificationPolicy::strict()
        };
        let d = decrypt(&e.container, &group_unlock(), &full).unwrap();
        assert_eq!(d.plaintext.unwrap().as_slice(), pt.as_slice());
    }
}

#[test]
fn streaming_encryptor_placeholder_then_rewrite() {
    for (len, signer) in [
        (0usize, None),
        (1, Some(hybrid_signer(5))),
        (3 * 4096 + 5, Some(ed_signer(6))),
        (8192, None),
    ] {
        let pt = data(len);
        let mut o = EncryptOptions::new(
            len as u64,
            vec![
                group_spec(),
                WrapSpec::Threshold {
                    threshold: 2,
                    shares: 2,
                },
            ],
        );
        o.chunk_size = SMALL;
        o.signer = signer;
        let mut enc = ContainerEncryptor::new(o).unwrap();
        let mut file = enc.placeholder_header();
        // Header and leaf table (32 bytes per chunk) are both placeholders.
        assert_eq!(file.len(), enc.prefix_len());
        assert_eq!(
            enc.prefix_len(),
            enc.header_len() + 32 * enc.chunk_count() as usize
        );
        let n = enc.chunk_count();
        for i in 0..n {
            let start = (i * 4096) as usize;
            let l = enc.chunk_len(i).unwrap() as usize;
            // A wrong-length chunk is refused and consumes nothing.
            if l > 1 {
                assert_eq!(
                    enc.push_chunk(&pt[start..start + l - 1])
                        .unwrap_err()
                        .code(),
                    "INVALID_CHUNK"
                );
            }
            if i + 1 < n {
                assert_eq!(enc.finish().unwrap_err().code(), "INVALID_STATE");
            }
            let env = enc.push_chunk(&pt[start..start + l]).unwrap();
            assert_eq!(env.len(), l + 32);
            file.extend_from_slice(&env);
        }
        assert_eq!(enc.push_chunk(b"x").unwrap_err().code(), "INVALID_STATE");
        let header = enc.finish().unwrap();
        assert_eq!(header.len(), enc.prefix_len());
        assert_eq!(enc.finish().unwrap_err().code(), "INVALID_STATE");
        file[..header.len()].copy_from_slice(&header);
        assert_eq!(open(&file, &group_unlock()).unwrap(), pt);
        assert_eq!(enc.threshold_shares().len(), 1);
        assert_eq!(
            open(&file, &Unlock::Shares(&enc.threshold_shares()[0])).unwrap(),
            pt
        );
    }
}

#[test]
fn reader_prefix_random_access_and_sequential() {
    let c = 4096usize;
    let pt = data(7 * c + 100);
    for alg in [HashAlg::Sha256, HashAlg::Blake3] {
        let mut o = options(vec![group_spec()], SMALL);
        o.hash_alg = alg;
        o.signer = Some(hybrid_signer(9));
        let container = encrypt(&pt, o).unwrap().container;
        // Feed growing prefixes as a file reader would.
        let mut have = 10usize;
        let mut reader = loop {
            match ContainerReader::parse_header(&container[..have]).unwrap() {
                ReaderPrefix::NeedMore { needed } => {
                    assert!(needed > have && needed <= container.len());
                    have = needed;
                }
                ReaderPrefix::Ready(r) => break r,
            }
        };
        assert_eq!(reader.header_len(), header_len(&container));
        assert_eq!(reader.verify_signature().unwrap(), SignatureStatus::Hybrid);
        reader.unlock_group(GROUP_ID, 0, &GROUP_KEY).unwrap();
        let n = reader.chunk_count();
        assert_eq!(n, 8);
        // Leaves recomputed from the envelopes (no key needed) are the table.
        let (_, envs) = split(&container);
        let leaves: Vec<[u8; 32]> = (0..n)
            .map(|i| reader.leaf_hash(i, &envs[i as usize]).unwrap())
            .collect();
        assert_eq!(merkle_root(alg, &leaves), reader.header().merkle_root);
        assert_eq!(leaves, leaf_table(&container));
        let h = reader.header_len();
        assert_eq!(reader.leaf_table_len(), 32 * n);
        reader
            .set_leaf_table(&container[h..h + 32 * n as usize])
            .unwrap();
        // Random order.
        for i in [5u64, 0, 7, 3, 1, 6, 2, 4] {
            let off = reader.chunk_offset(i).unwrap() as usize;
            assert_eq!(off, h + 32 * n as usize + i as usize * (c + 32));
            let env = &container[off..off + reader.envelope_len(i).unwrap()];
            let chunk = reader.decrypt_chunk(i, env).unwrap();
            let start = i as usize * c;
            assert_eq!(chunk.as_slice(), &pt[start..(start + c).min(pt.len())]);
        }
        // Sequential.
        reader.begin_sequential().unwrap();
        let mut out = Vec::new();
        for e in &envs {
            out.extend_from_slice(&reader.next_chunk(e).unwrap());
        }
        reader.end_sequential().unwrap();
        assert_eq!(out, pt);
    }
}

/// The exposed key schedule reproduces every envelope (what a WebCrypto
/// layer does with HKDF + AES-GCM).
#[test]
fn exposed_chunk_key_schedule_matches_envelopes() {
    let pt = data(2 * 4096 + 10);
    let container = encrypt(&pt, options(vec![group_spec()], SMALL))
        .unwrap()
        .container;
    let mut reader = ContainerReader::new(&container).unwrap();
    reader.unlock(&group_unlock()).unwrap();
    let dek = Dek::from_bytes(reader.export_dek().unwrap().as_slice()).unwrap();
    let h = reader.header().clone();
    let ctx = *reader.context();
    assert_eq!(
        ctx.header_hash,
        header_hash(&h.file_id, h.chunk_size, h.plaintext_size, h.hash_alg)
    );
    let (_, envs) = split(&container);
    for (i, env) in envs.iter().enumerate() {
        let i32_ = i as u32;
        // HKDF with the documented info strings.
        let key = veilkit::kdf::hkdf_sha256(dek.as_bytes(), &h.file_id, &chunk_key_info(i32_), 32)
            .unwrap();
        let iv = veilkit::kdf::hkdf_sha256(dek.as_bytes(), &h.file_id, &chunk_iv_info(i32_), 12)
            .unwrap();
        assert_eq!(
            key.as_slice(),
            chunk_key(&dek, &h.file_id, i32_).unwrap().as_slice()
        );
        assert_eq!(
            iv.as_slice(),
            chunk_iv(&dek, &h.file_id, i32_).unwrap().as_slice()
        );
        assert_eq!(&chunk_key_info(i32_)[..27], b"vollcrypt-file-chunk-key-v1");
        assert_eq!(&chunk_iv_info(i32_)[..26], b"vollcrypt-file-chunk-iv-v1");
        let len = ctx.chunk_len(i as u64).unwrap();
        let aad = chunk_aad(&ctx, i32_, len);
        assert_eq!(aad.len(), 95);
        let ct = veilkit::aead::aes_gcm_encrypt_with_iv(
            &key,
            &iv,
            &pt[i * 4096..i * 4096 + len as usize],
            &aad,
        )
        .unwrap();
        assert_eq!(&env[..4], &i32_.to_be_bytes());
        assert_eq!(&env[4..16], iv.as_slice());
        assert_eq!(&env[16..], ct.as_slice());
    }
}

#[test]
fn rewrap_changes_only_the_header() {
    let pt = data(3 * 4096 + 1);
    let kp = xwing(9);
    let mut o = options(vec![group_spec()], SMALL);
    o.signer = Some(ed_signer(1));
    let container = encrypt(&pt, o).unwrap().container;
    let (old_header, envs) = split(&container);
    // Signed containers need a signer to be re-signed.
    let err = rewrap(
        &container,
        &group_unlock(),
        &|_| false,
        &[WrapSpec::recipient(&kp.public, 1)],
        None,
    );
    assert_eq!(err.err().unwrap().code(), "INVALID_OPTION");
    let signer = hybrid_signer(2);
    let r = rewrap(
        &container,
        &group_unlock(),
        &|_| false,
        &[WrapSpec::recipient(&kp.public, 1)],
        Some(&signer),
    )
    .unwrap();
    let (new_header, new_envs) = split(&r.container);
    assert_ne!(new_header, old_header);
    assert_eq!(new_envs, envs, "chunks untouched");
    assert_eq!(
        leaf_table(&r.container),
        leaf_table(&container),
        "leaf table untouched"
    );
    assert_eq!(
        Header::parse(&r.container).unwrap().0.dek_commitment,
        Header::parse(&container).unwrap().0.dek_commitment,
        "DEK commitment copied verbatim"
    );
    let u = Unlock::Recipient {
        secret_key: kp.secret.as_slice(),
        recipient_id: None,
    };
    assert_eq!(open(&r.container, &u).unwrap(), pt);
    assert_eq!(open(&r.container, &group_unlock()).unwrap(), pt);
    assert_eq!(r.container[8], 6);
    // Remove the group wrap.
    let r2 = rewrap(
        &r.container,
        &u,
        &|w| matches!(w, WrapEntry::Group { .. }),
        &[],
        Some(&signer),
    )
    .unwrap();
    assert_eq!(
        assert_rejected(&r2.container, &group_unlock(), "NO_MATCHING_WRAP").code(),
        "NO_MATCHING_WRAP"
    );
    assert_eq!(open(&r2.container, &u).unwrap(), pt);
    // Removing every wrap is refused (sealing is the tool for that).
    let err = rewrap(&r2.container, &u, &|_| true, &[], Some(&signer))
        .err()
        .unwrap();
    assert_eq!(err.code(), "INVALID_OPTION");
}

#[test]
fn reencrypt_gives_new_dek_and_file_id() {
    let pt = data(5000);
    let container = encrypt(&pt, options(vec![group_spec()], SMALL))
        .unwrap()
        .container;
    let new_key = [0x99u8; 32];
    let out = reencrypt(
        &container,
        &group_unlock(),
        &VerificationPolicy::default(),
        options(vec![WrapSpec::group(GROUP_ID, 1, &new_key)], SMALL),
    )
    .unwrap()
    .container;
    let a = Header::parse(&container).unwrap().0;
    let b = Header::parse(&out).unwrap().0;
    assert_ne!(a.file_id, b.file_id);
    let u = Unlock::Group(GroupUnlock {
        group_id: GROUP_ID,
        key_version: 1,
        group_key: &new_key,
        manifest: None,
    });
    assert_eq!(open(&out, &u).unwrap(), pt);
    assert_rejected(&out, &group_unlock(), "NO_MATCHING_WRAP");
}

#[test]
fn header_serialisation_is_canonical() {
    let kp = xwing(4);
    let e = encrypt(
        &data(100),
        options(
            vec![
                argon_min(PASSWORD),
                WrapSpec::recipient(&kp.public, 0),
                WrapSpec::Threshold {
                    threshold: 2,
                    shares: 4,
                },
            ],
            SMALL,
        ),
    )
    .unwrap();
    let (h, len) = Header::parse(&e.container).unwrap();
    assert_eq!(h.to_bytes().unwrap(), e.container[..len].to_vec());
    assert_eq!(Header::parse_exact(&e.container[..len]).unwrap(), h);
    // 112-byte fixed part (DEK commitment at 80..112), then the wrap table.
    assert_eq!(len, 112 + (3 + 68) + (3 + 1180) + (3 + 58));
    assert_eq!(&e.container[80..112], &h.dek_commitment);
}

#[test]
fn error_codes_are_stable_and_distinct() {
    let codes = ContainerError::CODES;
    let mut sorted = codes.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), codes.len());
    assert!(
        codes
            .iter()
            .all(|c| c.chars().all(|ch| ch.is_ascii_uppercase() || ch == '_'))
    );
    assert_eq!(ContainerError::Sealed.code(), "SEALED");
    assert_eq!(
        ContainerError::AuthenticationFailed.code(),
        "AUTHENTICATION_FAILED"
    );
    let inner = veilkit::CryptoError::RandomnessUnavailable;
    assert_eq!(ContainerError::from(inner).code(), inner.code());
    assert_eq!(
        ContainerError::from(veilkit::CryptoError::AuthenticationFailed),
        ContainerError::AuthenticationFailed
    );
}
