//! The external-chunk-layer encryptor (`container::external`, the browser's
//! `ContainerEncryptorHandle`): chunks sealed outside with the taken DEK,
//! leaves pushed in order, the header unsigned, signed with keys held here or
//! signed externally (`Finished::NeedsSignatures` → `finish_signed`), and
//! every state-machine refusal.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod container_util;

use container_util::*;
use veilkit::container::external::{ExternalEncryptor, Finished};
use veilkit::container::signature::MLDSA_CONTEXT;
use veilkit::container::*;

fn code<T>(r: Result<T>) -> &'static str {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.code(),
    }
}

/// Seals every chunk of `pt` with the taken DEK (as the WebCrypto layer does)
/// and pushes the leaves in two batches; returns the envelopes.
fn seal_outside(enc: &mut ExternalEncryptor, pt: &[u8]) -> Vec<Vec<u8>> {
    let dek = enc.take_dek(|k| Dek::from_bytes(k)).unwrap().unwrap();
    let ctx = *enc.context();
    let mut envs = Vec::new();
    let mut leaves = Vec::new();
    for (i, piece) in pt.chunks(ctx.chunk_size as usize).enumerate() {
        let env = chunk::seal_chunk(&dek, &ctx, i as u64, piece).unwrap();
        leaves.extend_from_slice(&chunk::envelope_leaf(&ctx, i as u64, &env).unwrap());
        envs.push(env);
    }
    let split = 32 * (envs.len() / 2);
    enc.push_leaves(0, &leaves[..split]).unwrap();
    enc.push_leaves((split / 32) as u64, &leaves[split..])
        .unwrap();
    envs
}

fn prefix(f: Finished) -> Vec<u8> {
    match f {
        Finished::Prefix(p) => p,
        Finished::NeedsSignatures(_) => panic!("expected the final header"),
    }
}

#[test]
fn unsigned_round_trip_matches_the_declared_layout() {
    for alg in [HashAlg::Sha256, HashAlg::Blake3] {
        for len in [0usize, 1, 4096, 10_000] {
            let pt = data(len);
            let mut enc = ExternalEncryptor::new(len as u64, SMALL, alg).unwrap();
            assert!(enc.add_wrap(&group_spec()).unwrap().is_empty());
            let prefix_len = enc.prefix_len().unwrap();
            let header_len = enc.header_len().unwrap();
            assert_eq!(enc.chunk_count(), (len as u64).div_ceil(4096));
            let envs = seal_outside(&mut enc, &pt);
            let p = prefix(enc.finish().unwrap());
            assert_eq!(p.len() as u64, prefix_len);
            let container = join(&p, &envs);
            let reader = ContainerReader::new(&container).unwrap();
            assert_eq!(reader.header_len(), header_len);
            assert_eq!(reader.header().file_id, *enc.file_id());
            assert_eq!(
                reader.verify_signature().unwrap(),
                SignatureStatus::Unsigned
            );
            assert_eq!(open(&container, &group_unlock()).unwrap(), pt, "len={len}");
        }
    }
}

#[test]
fn fixed_keys_match_the_rust_chunk_layer() {
    let pt = data(9000);
    let dek = [7u8; 32];
    let file_id = [9u8; 16];
    let mut enc = ExternalEncryptor::with_fixed_keys_for_testing(
        9000,
        SMALL,
        HashAlg::Sha256,
        Dek::from_bytes(&dek).unwrap(),
        file_id,
    )
    .unwrap();
    enc.add_wrap(&group_spec()).unwrap();
    assert_eq!(enc.take_dek(|k| *k).unwrap(), dek);
    let mut o = options(vec![group_spec()], SMALL);
    o.plaintext_size = 9000;
    let mut rust = ContainerEncryptor::with_fixed_keys_for_testing(o, &dek, file_id).unwrap();
    assert_eq!(rust.context(), enc.context());
    let mut leaves = Vec::new();
    for piece in pt.chunks(4096) {
        let env = rust.push_chunk(piece).unwrap();
        let i = leaves.len() as u64 / 32;
        leaves.extend_from_slice(&chunk::envelope_leaf(enc.context(), i, &env).unwrap());
    }
    enc.push_leaves(0, &leaves).unwrap();
    let ours = Header::parse(&prefix(enc.finish().unwrap())).unwrap().0;
    let theirs = Header::parse(&rust.finish().unwrap()).unwrap().0;
    assert_eq!(ours.merkle_root, theirs.merkle_root);
    assert_eq!(ours.dek_commitment, theirs.dek_commitment);
}

#[test]
fn threshold_wrap_returns_its_shares() {
    let mut enc = ExternalEncryptor::new(10, SMALL, HashAlg::Sha256).unwrap();
    let shares = enc
        .add_wrap(&WrapSpec::Threshold {
            threshold: 2,
            shares: 3,
        })
        .unwrap();
    assert_eq!(shares.len(), 3);
    let envs = seal_outside(&mut enc, &data(10));
    let container = join(&prefix(enc.finish().unwrap()), &envs);
    assert_eq!(
        open(&container, &Unlock::Shares(&shares[..2])).unwrap(),
        data(10)
    );
}

#[test]
fn keys_held_here_sign_v5_and_v6() {
    for (signer, status) in [
        (ed_signer(5), SignatureStatus::Ed25519),
        (hybrid_signer(6), SignatureStatus::Hybrid),
    ] {
        let mut enc = ExternalEncryptor::new(5000, SMALL, HashAlg::Sha256).unwrap();
        enc.add_wrap(&group_spec()).unwrap();
        enc.set_signer(signer).unwrap();
        let prefix_len = enc.prefix_len().unwrap();
        let envs = seal_outside(&mut enc, &data(5000));
        let p = prefix(enc.finish().unwrap());
        assert_eq!(p.len() as u64, prefix_len);
        let container = join(&p, &envs);
        assert_eq!(
            ContainerReader::new(&container)
                .unwrap()
                .verify_signature()
                .unwrap(),
            status
        );
        assert_eq!(open(&container, &group_unlock()).unwrap(), data(5000));
    }
}

#[test]
fn external_signatures_are_checked_before_the_header_is_released() {
    let ed = veilkit::ed25519::ed25519_from_seed(&[0x11; 32]).unwrap();
    let ml = veilkit::mldsa::mldsa_from_seed(&[0x33; 32]).unwrap();
    for hybrid in [false, true] {
        let mut enc = ExternalEncryptor::new(5000, SMALL, HashAlg::Sha256).unwrap();
        enc.add_wrap(&group_spec()).unwrap();
        let pq = hybrid.then(|| ml.public.clone());
        enc.set_external_signer(ed.public, pq, [0x22; 32], 7)
            .unwrap();
        let prefix_len = enc.prefix_len().unwrap();
        assert_eq!(
            code(enc.signed_message()),
            "INVALID_STATE",
            "before takeDek"
        );
        let envs = seal_outside(&mut enc, &data(5000));
        let Finished::NeedsSignatures(msg) = enc.finish().unwrap() else {
            panic!("an external signer needs signatures");
        };
        assert_eq!(enc.signed_message().unwrap(), msg);
        let ed_sig = veilkit::ed25519::ed25519_sign(&ed.secret[..], &msg).unwrap();
        let ml_sig = hybrid
            .then(|| veilkit::mldsa::mldsa_sign(&ml.seed[..], &msg, MLDSA_CONTEXT, false).unwrap());
        // Wrong length, missing / unexpected ML-DSA-65 half, a bad signature.
        assert_eq!(
            code(enc.finish_signed(&ed_sig[..63], ml_sig.clone())),
            "INVALID_SIGNATURE"
        );
        let other = if hybrid {
            None
        } else {
            Some(vec![0u8; veilkit::mldsa::SIG_LEN])
        };
        assert_eq!(code(enc.finish_signed(&ed_sig, other)), "INVALID_SIGNATURE");
        let mut bad = ed_sig;
        bad[0] ^= 1;
        assert_eq!(
            code(enc.finish_signed(&bad, ml_sig.clone())),
            "INVALID_SIGNATURE"
        );
        if let Some(s) = &ml_sig {
            assert_eq!(
                code(enc.finish_signed(&ed_sig, Some(s[1..].to_vec()))),
                "INVALID_SIGNATURE"
            );
        }
        // The failures left the encryptor open: the right signatures finish it.
        let p = enc.finish_signed(&ed_sig, ml_sig.clone()).unwrap();
        assert_eq!(p.len() as u64, prefix_len);
        assert_eq!(code(enc.finish_signed(&ed_sig, ml_sig)), "INVALID_STATE");
        let container = join(&p, &envs);
        let want = if hybrid {
            SignatureStatus::Hybrid
        } else {
            SignatureStatus::Ed25519
        };
        assert_eq!(
            ContainerReader::new(&container)
                .unwrap()
                .verify_signature()
                .unwrap(),
            want
        );
        assert_eq!(open(&container, &group_unlock()).unwrap(), data(5000));
    }
}

#[test]
fn state_machine_refusals() {
    let mut enc = ExternalEncryptor::new(9000, SMALL, HashAlg::Sha256).unwrap();
    // No wrap yet: the DEK cannot leave.
    assert_eq!(code(enc.take_dek(|_| ())), "INVALID_OPTION");
    assert_eq!(code(enc.finish()), "INVALID_STATE");
    assert_eq!(code(enc.signed_message()), "INVALID_STATE");
    assert_eq!(code(enc.finish_signed(&[0; 64], None)), "INVALID_STATE");
    assert_eq!(
        code(enc.set_external_signer([1; 32], Some(vec![0; 10]), [0; 32], 0)),
        "INVALID_LENGTH"
    );
    enc.add_wrap(&group_spec()).unwrap();
    enc.check_header_open().unwrap();
    enc.take_dek(|_| ()).unwrap();
    assert_eq!(code(enc.check_header_open()), "INVALID_STATE");
    assert_eq!(code(enc.take_dek(|_| ())), "INVALID_STATE");
    assert_eq!(code(enc.add_wrap(&group_spec())), "INVALID_STATE");
    assert_eq!(code(enc.set_signer(ed_signer(1))), "INVALID_STATE");
    assert_eq!(
        code(enc.set_external_signer([1; 32], None, [0; 32], 0)),
        "INVALID_STATE"
    );
    // Leaves: whole entries, in order, no more than the chunks.
    assert_eq!(code(enc.push_leaves(0, &[0; 33])), "INVALID_CHUNK");
    assert_eq!(code(enc.push_leaves(1, &[0; 32])), "INVALID_STATE");
    assert_eq!(code(enc.push_leaves(0, &[0; 32 * 4])), "INVALID_STATE");
    enc.push_leaves(0, &[0; 64]).unwrap();
    assert_eq!(code(enc.finish()), "INVALID_STATE", "a chunk is missing");
    enc.push_leaves(2, &[0; 32]).unwrap();
    assert_eq!(
        code(enc.push_leaves(3, &[0; 32])),
        "INVALID_STATE",
        "past the last chunk"
    );
    assert_eq!(
        code(enc.signed_message()),
        "INVALID_STATE",
        "no external signer"
    );
    prefix(enc.finish().unwrap());
    assert_eq!(code(enc.finish()), "INVALID_STATE");
    assert_eq!(code(enc.push_leaves(3, &[])), "INVALID_STATE");
    // Construction checks.
    assert_eq!(
        code(ExternalEncryptor::new(1, 100, HashAlg::Sha256)),
        "INVALID_CHUNK_SIZE"
    );
}

#[test]
fn wrap_limits_hold() {
    let mut enc = ExternalEncryptor::new(1, SMALL, HashAlg::Sha256).unwrap();
    for _ in 0..255 {
        enc.add_wrap(&group_spec()).unwrap();
    }
    assert_eq!(code(enc.add_wrap(&group_spec())), "INVALID_OPTION");
    // Password wraps stay inside the default reader budget.
    let mut enc = ExternalEncryptor::new(1, SMALL, HashAlg::Sha256).unwrap();
    let huge = WrapSpec::Argon2id {
        password: zeroize::Zeroizing::new(PASSWORD.to_vec()),
        cost: Argon2idCost {
            memory_kib: 4 * 1024 * 1024,
            iterations: 3,
            parallelism: 1,
        },
    };
    assert_eq!(code(enc.add_wrap(&huge)), "KDF_BUDGET_EXCEEDED");
}
