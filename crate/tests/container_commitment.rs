//! Attack-shaped regression tests of the committing container format
//! (versions 4–6: DEK commitment in the header, leaf table over every
//! ciphertext, hybrid pins, KDF budget). Each test performs the attack and
//! asserts the exact typed error and which chunks (if any) reached the sink.
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

const C: usize = SMALL as usize;

/// The full pin of a signer: its Ed25519 key and, if it has one, its ML-DSA-65 key.
fn pin_of(s: &SigningKeys) -> ExpectedSigner {
    ExpectedSigner {
        ed25519: *s.ed25519_public(),
        mldsa65: s.mldsa_public().map(<[u8]>::to_vec),
    }
}

/// `{ signature: Required, expected_signer: the hybrid test signer }` with the
/// given release mode and tamper action.
fn pinned(release_mode: ReleaseMode, on_tamper: TamperAction) -> VerificationPolicy {
    VerificationPolicy {
        release_mode,
        on_tamper,
        expected_signer: Some(pin_of(&hybrid_signer(0))),
        ..VerificationPolicy::strict()
    }
}

/// No signature policy, the given release mode and tamper action.
fn unpinned(release_mode: ReleaseMode, on_tamper: TamperAction) -> VerificationPolicy {
    VerificationPolicy {
        release_mode,
        on_tamper,
        ..VerificationPolicy::default()
    }
}

type Released = Vec<(u64, Vec<u8>)>;

/// Decrypts through the sink, recording every released chunk.
fn run(
    container: &[u8],
    unlock: &Unlock<'_>,
    policy: &VerificationPolicy,
) -> (Result<VerificationReport>, Released) {
    let mut got = Vec::new();
    let r = decrypt_with_sink(container, unlock, policy, &mut |i, pt| {
        got.push((i, pt.to_vec()));
    });
    (r, got)
}

fn indices(got: &Released) -> Vec<u64> {
    got.iter().map(|(i, _)| *i).collect()
}

/// Every released chunk is the genuine plaintext of its index.
fn assert_genuine(got: &Released, pt: &[u8]) {
    for (i, chunk) in got {
        let start = *i as usize * C;
        let end = (start + C).min(pt.len());
        assert_eq!(
            chunk.as_slice(),
            &pt[start..end],
            "chunk {i} is not genuine"
        );
    }
}

/// The attack must fail with `code` and release nothing.
fn assert_refused(container: &[u8], unlock: &Unlock<'_>, policy: &VerificationPolicy, code: &str) {
    let (r, got) = run(container, unlock, policy);
    match r {
        Ok(rep) => panic!("expected {code}, got Ok({rep:?})"),
        Err(e) => assert_eq!(e.code(), code, "{e}"),
    }
    assert!(got.is_empty(), "released {:?}", indices(&got));
}

/// [`assert_refused`] under the full pin in every release mode and tamper action.
fn assert_refused_in_every_mode(container: &[u8], unlock: &Unlock<'_>, code: &str) {
    for release in [ReleaseMode::Verified, ReleaseMode::Streaming] {
        for on_tamper in [
            TamperAction::Abort,
            TamperAction::Report,
            TamperAction::Recover,
        ] {
            assert_refused(container, unlock, &pinned(release, on_tamper), code);
        }
    }
}

fn dek_via(container: &[u8], unlock: &Unlock<'_>) -> Dek {
    let mut r = ContainerReader::new(container).unwrap();
    r.unlock(unlock).unwrap();
    Dek::from_bytes(r.export_dek().unwrap().as_slice()).unwrap()
}

/// Offset of envelope `index` in a container.
fn envelope_at(container: &[u8], index: u64) -> usize {
    ContainerReader::new(container)
        .unwrap()
        .chunk_offset(index)
        .unwrap() as usize
}

fn flip(bytes: &[u8], at: usize) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at] ^= 1;
    out
}

/// A v6 (Ed25519 + ML-DSA-65) group container of `len` bytes, with extra wraps.
fn hybrid_group_container(len: usize, extra: Vec<WrapSpec>) -> (Vec<u8>, Vec<u8>) {
    let pt = data(len);
    let mut wraps = vec![group_spec()];
    wraps.extend(extra);
    let mut o = options(wraps, SMALL);
    o.signer = Some(hybrid_signer(1_767_225_600));
    let c = encrypt(&pt, o).unwrap().container;
    assert_eq!(c[8], 6);
    (c, pt)
}

/// A genuine AES-GCM envelope for chunk `index` carrying `text`, made by a DEK
/// holder with the file's own chunk key, IV and AAD.
fn forge_envelope(dek: &Dek, ctx: &FileContext, index: u32, text: &[u8]) -> Vec<u8> {
    let key = chunk::chunk_key(dek, &ctx.file_id, index).unwrap();
    let iv = chunk::chunk_iv(dek, &ctx.file_id, index).unwrap();
    let aad = chunk::chunk_aad(ctx, index, u32::try_from(text.len()).unwrap());
    let ct = veilkit::aead::aes_gcm_encrypt_with_iv(key.as_slice(), &iv, text, &aad).unwrap();
    // With the key, any ciphertext gets a valid tag: the forgery authenticates.
    assert_eq!(
        veilkit::aead::aes_gcm_decrypt_with_iv(key.as_slice(), &iv, &ct, &aad).unwrap(),
        text
    );
    let mut env = index.to_be_bytes().to_vec();
    env.extend_from_slice(&iv);
    env.extend_from_slice(&ct);
    env
}

// ---------------------------------------------------------------- co-recipient rewrite

/// The reported high finding: a co-recipient of a signed container (who holds
/// the DEK) rewrites one chunk's plaintext, keeping header, leaf table and
/// signatures. AES-GCM is not committing for a key holder, so the forged
/// chunk authenticates; the leaf table (signed through the root) does not.
#[test]
fn co_recipient_rewrite_of_a_hybrid_signed_container() {
    let mallory = xwing(0x4d);
    let (c, pt) =
        hybrid_group_container(3 * C + 100, vec![WrapSpec::recipient(&mallory.public, 0)]);
    let mallory_unlock = Unlock::Recipient {
        secret_key: mallory.secret.as_slice(),
        recipient_id: None,
    };
    // Mallory unlocks legitimately and exports the DEK.
    let dek = dek_via(&c, &mallory_unlock);
    let ctx = *ContainerReader::new(&c).unwrap().context();
    let evil: Vec<u8> = b"PAY MALLORY 1000 EUR. "
        .iter()
        .copied()
        .cycle()
        .take(C)
        .collect();
    let forged_env = forge_envelope(&dek, &ctx, 1, &evil);
    let (head, mut envs) = split(&c);
    assert_eq!(forged_env.len(), envs[1].len());
    // Same stored index and IV: only ciphertext and tag differ.
    assert_eq!(forged_env[..16], envs[1][..16]);
    envs[1] = forged_env.clone();
    let forged = join(&head, &envs);
    assert_eq!(forged.len(), c.len());
    assert_eq!(
        forged[..head.len()],
        c[..head.len()],
        "header, table, signatures kept"
    );

    // The header still verifies: the signature alone cannot see the rewrite…
    let fr = ContainerReader::new(&forged).unwrap();
    assert_eq!(fr.verify_signature().unwrap(), SignatureStatus::Hybrid);
    // …but the leaf recomputed from the forged bytes is not the signed table's.
    assert_ne!(fr.leaf_hash(1, &forged_env).unwrap(), leaf_table(&c)[1]);

    let victim = group_unlock();
    // Verified release: nothing.
    assert_refused(
        &forged,
        &victim,
        &pinned(ReleaseMode::Verified, TamperAction::Abort),
        "AUTHENTICATION_FAILED",
    );
    // Streaming release: chunk 0 (genuine) may go out, chunk 1 and later never.
    let (r, got) = run(
        &forged,
        &victim,
        &pinned(ReleaseMode::Streaming, TamperAction::Abort),
    );
    assert_eq!(r.unwrap_err().code(), "AUTHENTICATION_FAILED");
    assert_eq!(indices(&got), vec![0]);
    assert_genuine(&got, &pt);
    // Report: the forged chunk is listed, nothing released.
    let (r, got) = run(
        &forged,
        &victim,
        &pinned(ReleaseMode::Verified, TamperAction::Report),
    );
    let rep = r.unwrap();
    assert_eq!((rep.bad_chunks.clone(), rep.merkle_valid), (vec![1], true));
    assert!(got.is_empty());
    // Recover (the table matches the signed root, so the other chunks are
    // bound to the signer): the forged chunk is pinpointed and never released;
    // only genuine chunks come out.
    for release in [ReleaseMode::Verified, ReleaseMode::Streaming] {
        let (r, got) = run(&forged, &victim, &pinned(release, TamperAction::Recover));
        let rep = r.unwrap();
        assert_eq!(rep.bad_chunks, vec![1]);
        assert!(!rep.is_intact());
        assert_eq!(indices(&got), vec![0, 2, 3], "{release:?}");
        assert_genuine(&got, &pt);
        assert!(got.iter().all(|(_, p)| p != &evil));
    }
    let d = decrypt(
        &forged,
        &victim,
        &pinned(ReleaseMode::Verified, TamperAction::Recover),
    )
    .unwrap();
    assert!(d.plaintext.is_none());
    // The DEK path and key-less verification see it too.
    assert_refused(
        &forged,
        &Unlock::Dek(&dek),
        &pinned(ReleaseMode::Verified, TamperAction::Abort),
        "AUTHENTICATION_FAILED",
    );
    assert_eq!(
        verify_container(
            &forged,
            &pinned(ReleaseMode::Verified, TamperAction::Abort),
            None
        )
        .unwrap_err()
        .code(),
        "AUTHENTICATION_FAILED"
    );

    // ContainerReader, random access: the forged chunk is refused, the others open.
    let mut reader = reader_with_table(&forged);
    reader.unlock(&victim).unwrap();
    assert_eq!(
        reader.decrypt_chunk(1, &forged_env).unwrap_err().code(),
        "AUTHENTICATION_FAILED"
    );
    assert_eq!(
        reader.verify_chunk(1, &forged_env).unwrap_err().code(),
        "AUTHENTICATION_FAILED"
    );
    assert_eq!(
        reader.decrypt_chunk(0, &envs[0]).unwrap().as_slice(),
        &pt[..C]
    );
    // Sequential: chunk 0 comes out, the forged chunk 1 does not.
    reader.begin_sequential().unwrap();
    assert_eq!(reader.next_chunk(&envs[0]).unwrap().as_slice(), &pt[..C]);
    assert_eq!(
        reader.next_chunk(&forged_env).unwrap_err().code(),
        "AUTHENTICATION_FAILED"
    );

    // Escalation 1: Mallory also rewrites table entry 1 → the table no longer
    // matches the signed root.
    let h = header_len(&c);
    let leaf = fr.leaf_hash(1, &forged_env).unwrap();
    let mut with_table = forged.clone();
    with_table[h + 32..h + 64].copy_from_slice(&leaf);
    assert_refused(
        &with_table,
        &victim,
        &pinned(ReleaseMode::Streaming, TamperAction::Abort),
        "AUTHENTICATION_FAILED",
    );
    let mut r = ContainerReader::new(&with_table).unwrap();
    assert_eq!(
        r.set_leaf_table(&with_table[h..h + 4 * 32])
            .unwrap_err()
            .code(),
        "AUTHENTICATION_FAILED"
    );
    // Escalation 2: … and the header's root → the signature breaks.
    let mut leaves = leaf_table(&c);
    leaves[1] = leaf;
    let new_root = merkle_root(HashAlg::Sha256, &leaves);
    let with_root = edit_header(&with_table, |hd| hd.merkle_root = new_root);
    assert_refused_in_every_mode(&with_root, &victim, "INVALID_SIGNATURE");
    // Escalation 3: … and re-signs with her own hybrid key → not the pinned signer.
    let mallory_signer = SigningKeys::hybrid(&[0x4d; 32], &[0x4e; 32], [0; 32], 1).unwrap();
    let (mut hd, len) = Header::parse(&with_root).unwrap();
    signature::sign_header(&mut hd, &mallory_signer, MetadataKind::Plain).unwrap();
    let mut resigned = hd.to_bytes().unwrap();
    resigned.extend_from_slice(&with_root[len..]);
    assert_refused_in_every_mode(&resigned, &victim, "SIGNER_MISMATCH");
    // (Without a pin the re-signed file is a valid file *by Mallory*: the
    // report names her as the signer, which is why callers pin.)
    let d = decrypt(&resigned, &victim, &VerificationPolicy::strict()).unwrap();
    assert_eq!(d.report.signer, Some(*mallory_signer.ed25519_public()));
    assert_ne!(d.report.signer, Some(*hybrid_signer(0).ed25519_public()));

    // The untouched container opens under the same pin.
    let d = decrypt(
        &c,
        &victim,
        &pinned(ReleaseMode::Verified, TamperAction::Abort),
    )
    .unwrap();
    assert_eq!(d.plaintext.unwrap().as_slice(), pt.as_slice());
}

// ---------------------------------------------------------------- multi-key

/// One signed header, two DEKs: the (pinned, trusted) author adds a wrap for
/// the victim that unwraps to another DEK B. AES-KW passes; the commitment
/// (to DEK A) refuses it.
#[test]
fn multi_key_header_second_dek_is_refused() {
    let victim = xwing(0x56);
    let victim_unlock = Unlock::Recipient {
        secret_key: victim.secret.as_slice(),
        recipient_id: None,
    };
    let (c, pt) = hybrid_group_container(2 * C + 7, vec![]);
    let dek_b = Dek::from_bytes(&[0xb0; 32]).unwrap();
    let (mut hd, len) = Header::parse(&c).unwrap();
    let (wrap_b, _) =
        wrap::create_wrap(&WrapSpec::recipient(&victim.public, 0), &dek_b, &hd.file_id).unwrap();
    hd.wraps.push(wrap_b);
    // Re-signed by the author's own keys: the signature is genuine.
    signature::sign_header(&mut hd, &hybrid_signer(1_767_225_600), MetadataKind::Plain).unwrap();
    let mut multi = hd.to_bytes().unwrap();
    multi.extend_from_slice(&c[len..]);
    let policy = pinned(ReleaseMode::Verified, TamperAction::Abort);
    // Group members (DEK A) open it under the pin.
    let d = decrypt(&multi, &group_unlock(), &policy).unwrap();
    assert_eq!(d.plaintext.unwrap().as_slice(), pt.as_slice());
    // The victim's wrap unwraps to B, which does not open the commitment:
    // refused at unlock, in every mode (unlock errors are always fatal).
    assert_refused_in_every_mode(&multi, &victim_unlock, "AUTHENTICATION_FAILED");
    let mut r = ContainerReader::new(&multi).unwrap();
    assert_eq!(
        r.unlock(&victim_unlock).unwrap_err().code(),
        "AUTHENTICATION_FAILED"
    );
    assert!(!r.is_unlocked());
    assert_eq!(r.export_dek().unwrap_err().code(), "INVALID_STATE");
    // Control: with a commitment to B the very same wrap opens (to B), and the
    // group wrap (to A) is refused instead — one header, one DEK.
    let to_b = edit_header(&multi, |hd| {
        let ctx = FileContext::of(hd);
        hd.dek_commitment =
            chunk::dek_commitment(&dek_b, &hd.file_id, &ctx.header_hash_preimage()).unwrap();
    });
    let mut r = ContainerReader::new(&to_b).unwrap();
    r.unlock(&victim_unlock).unwrap();
    assert_eq!(*r.export_dek().unwrap(), [0xb0; 32]);
    let mut r = ContainerReader::new(&to_b).unwrap();
    assert_eq!(
        r.unlock(&group_unlock()).unwrap_err().code(),
        "AUTHENTICATION_FAILED"
    );
}

/// A password wrap to DEK B planted before the genuine one (same password):
/// the first candidate unwraps but fails the commitment, the loop goes on
/// and the genuine wrap opens; with the planted wrap alone, nothing opens.
#[test]
fn planted_password_wrap_to_another_dek() {
    let pt = data(C + 9);
    let c = encrypt(&pt, options(vec![argon_min(PASSWORD)], SMALL))
        .unwrap()
        .container;
    let dek_b = Dek::from_bytes(&[0xb1; 32]).unwrap();
    let file_id = Header::parse(&c).unwrap().0.file_id;
    let (planted, _) = wrap::create_wrap(&argon_min(PASSWORD), &dek_b, &file_id).unwrap();
    let both = edit_header(&c, |hd| hd.wraps.insert(0, planted.clone()));
    assert_eq!(open(&both, &Unlock::Password(PASSWORD)).unwrap(), pt);
    let mut r = ContainerReader::new(&both).unwrap();
    r.unlock(&Unlock::Password(PASSWORD)).unwrap();
    assert_ne!(*r.export_dek().unwrap(), [0xb1; 32]);
    let only_b = edit_header(&c, |hd| hd.wraps = vec![planted.clone()]);
    assert_rejected(
        &only_b,
        &Unlock::Password(PASSWORD),
        "AUTHENTICATION_FAILED",
    );
}

/// A wrong DEK handed in directly is refused by the commitment too.
#[test]
fn wrong_dek_through_unlock_dek() {
    let (c, pt) = group_container(2 * C + 1, SMALL);
    let right = dek_via(&c, &group_unlock());
    let wrong = Dek::from_bytes(&[0x42; 32]).unwrap();
    let mut r = ContainerReader::new(&c).unwrap();
    assert_eq!(
        r.unlock_dek(&[0x42; 32]).unwrap_err().code(),
        "AUTHENTICATION_FAILED"
    );
    assert!(!r.is_unlocked());
    for policy in [
        unpinned(ReleaseMode::Verified, TamperAction::Abort),
        unpinned(ReleaseMode::Streaming, TamperAction::Abort),
        unpinned(ReleaseMode::Streaming, TamperAction::Recover),
    ] {
        assert_refused(&c, &Unlock::Dek(&wrong), &policy, "AUTHENTICATION_FAILED");
    }
    // The DEK of another container (same group key) as well.
    let (other, _) = group_container(2 * C + 1, SMALL);
    let other_dek = dek_via(&other, &group_unlock());
    assert_rejected(&c, &Unlock::Dek(&other_dek), "AUTHENTICATION_FAILED");
    // The right DEK opens.
    r.unlock_dek(right.as_bytes()).unwrap();
    assert_eq!(open(&c, &Unlock::Dek(&right)).unwrap(), pt);
}

// ---------------------------------------------------------------- empty files

/// An empty file has no chunk to authenticate its immutable fields: only the
/// commitment binds file id, chunk size and hash algorithm to the DEK.
#[test]
fn empty_file_fields_are_bound_by_the_commitment() {
    let c = encrypt(&[], options(vec![group_spec()], SMALL))
        .unwrap()
        .container;
    assert_eq!(c.len(), header_len(&c), "no leaf table, no envelope");
    assert_eq!(open(&c, &group_unlock()).unwrap(), Vec::<u8>::new());
    let dek = dek_via(&c, &group_unlock());
    // File id: the group KEK depends on it, so the attacker (who knows the DEK
    // and the group key) re-wraps the DEK for the new id.
    let new_id = [0xee; 16];
    let (rewrapped, _) = wrap::create_wrap(&group_spec(), &dek, &new_id).unwrap();
    let file_id = edit_header(&c, |hd| {
        hd.file_id = new_id;
        hd.wraps = vec![rewrapped.clone()];
    });
    // Chunk size.
    let chunk_size = edit_header(&c, |hd| hd.chunk_size = 8192);
    // Hash algorithm, with the root set to BLAKE3's empty root so that the
    // (empty) leaf table matches.
    let hash_alg = edit_header(&c, |hd| {
        hd.hash_alg = HashAlg::Blake3;
        hd.merkle_root = merkle_root(HashAlg::Blake3, &[]);
    });
    for (name, bad) in [
        ("file id", &file_id),
        ("chunk size", &chunk_size),
        ("hash algorithm", &hash_alg),
    ] {
        // Structurally these are perfect empty files (nothing key-less can
        // tell); the commitment refuses them at unlock, on every path.
        let rep = verify_container(bad, &VerificationPolicy::default(), None).unwrap();
        assert!(rep.is_intact(), "{name}");
        for u in [group_unlock(), Unlock::Dek(&dek)] {
            for policy in [
                unpinned(ReleaseMode::Verified, TamperAction::Abort),
                unpinned(ReleaseMode::Streaming, TamperAction::Recover),
            ] {
                assert_refused(bad, &u, &policy, "AUTHENTICATION_FAILED");
            }
        }
        let mut r = ContainerReader::new(bad).unwrap();
        r.set_leaf_table(&[]).unwrap();
        assert_eq!(
            r.unlock(&group_unlock()).unwrap_err().code(),
            "AUTHENTICATION_FAILED",
            "{name}"
        );
    }
}

/// Truncate-to-empty: set P = 0 and the root to the empty root, drop the leaf
/// table and the body. Before the commitment this decrypted to 0 bytes as intact.
#[test]
fn truncation_to_an_empty_file_is_refused() {
    for alg in [HashAlg::Sha256, HashAlg::Blake3] {
        let pt = data(3 * C + 5);
        let mut o = options(vec![group_spec()], SMALL);
        o.hash_alg = alg;
        let c = encrypt(&pt, o).unwrap().container;
        let dek = dek_via(&c, &group_unlock());
        let (mut hd, _) = Header::parse(&c).unwrap();
        hd.plaintext_size = 0;
        hd.merkle_root = merkle_root(alg, &[]);
        let truncated = hd.to_bytes().unwrap();
        // A well-formed empty container as far as anything without the key can see.
        let rep = verify_container(&truncated, &VerificationPolicy::default(), None).unwrap();
        assert!(rep.is_intact() && rep.chunk_count == 0);
        for u in [group_unlock(), Unlock::Dek(&dek)] {
            for policy in [
                unpinned(ReleaseMode::Verified, TamperAction::Abort),
                unpinned(ReleaseMode::Verified, TamperAction::Report),
                unpinned(ReleaseMode::Streaming, TamperAction::Recover),
            ] {
                assert_refused(&truncated, &u, &policy, "AUTHENTICATION_FAILED");
            }
        }
        let mut r = ContainerReader::new(&truncated).unwrap();
        r.set_leaf_table(&[]).unwrap();
        assert_eq!(
            r.unlock_dek(dek.as_bytes()).unwrap_err().code(),
            "AUTHENTICATION_FAILED"
        );
        // The untouched original still opens.
        assert_eq!(open(&c, &group_unlock()).unwrap(), pt);
    }
}

// ---------------------------------------------------------------- old versions

/// Version bytes 1–3 (the non-committing format) are refused everywhere with
/// `UNSUPPORTED_VERSION`: in their own (80-byte fixed part, no leaf table)
/// layout and as a lowered version byte on a current container.
#[test]
fn old_versions_are_refused() {
    for signer in [None, Some(ed_signer(1)), Some(hybrid_signer(1))] {
        let mut o = options(vec![group_spec()], SMALL);
        o.signer = signer;
        let c = encrypt(&data(C + 1), o).unwrap().container;
        let version = c[8];
        let old_version = version - 3;
        let h = header_len(&c);
        // The old layout: no DEK commitment, no leaf table.
        let mut old_layout = c[..80].to_vec();
        old_layout[8] = old_version;
        old_layout.extend_from_slice(&c[112..h]);
        old_layout.extend_from_slice(&c[h + 2 * 32..]);
        let mut cases = vec![old_layout];
        for v in 1..=3u8 {
            let mut lowered = c.clone();
            lowered[8] = v;
            cases.push(lowered);
        }
        for bad in &cases {
            let v = bad[8];
            let want = ContainerError::UnsupportedVersion(v);
            assert_eq!(Header::parse(bad).unwrap_err(), want);
            assert_eq!(Header::required_len(bad).unwrap_err(), want);
            assert_eq!(Header::required_len(&bad[..80]).unwrap(), Err(112));
            assert_eq!(ContainerReader::new(bad).err().unwrap(), want);
            assert_eq!(ContainerReader::parse_header(bad).err().unwrap(), want);
            assert_rejected(bad, &group_unlock(), "UNSUPPORTED_VERSION");
            assert_eq!(
                verify_container(bad, &VerificationPolicy::default(), None)
                    .unwrap_err()
                    .code(),
                "UNSUPPORTED_VERSION"
            );
            assert_eq!(
                seal(bad, SealMode::Seal, "x", &ed_signer(1))
                    .err()
                    .unwrap()
                    .code(),
                "UNSUPPORTED_VERSION"
            );
            assert_eq!(
                rewrap(bad, &group_unlock(), &|_| false, &[], None)
                    .err()
                    .unwrap()
                    .code(),
                "UNSUPPORTED_VERSION"
            );
        }
    }
}

// ---------------------------------------------------------------- recover mode

/// A leaf table that does not match the root: under a signature policy
/// (Required, a pin, or both) nothing is released even in recover mode;
/// without one, AEAD-valid chunks are released and flagged `merkle_valid = false`.
#[test]
fn recover_mode_with_a_bad_leaf_table() {
    let (c, pt) = hybrid_group_container(3 * C + 100, vec![]);
    let h = header_len(&c);
    let bad_table = flip(&c, h + 2 * 32 + 3); // table entry 2
    let signature_policies = [
        VerificationPolicy::strict(),
        VerificationPolicy {
            expected_signer: Some(pin_of(&hybrid_signer(0))),
            ..VerificationPolicy::default()
        },
        pinned(ReleaseMode::Verified, TamperAction::Abort),
    ];
    for base in &signature_policies {
        for release_mode in [ReleaseMode::Verified, ReleaseMode::Streaming] {
            let p = VerificationPolicy {
                release_mode,
                on_tamper: TamperAction::Recover,
                ..base.clone()
            };
            let (r, got) = run(&bad_table, &group_unlock(), &p);
            let rep = r.unwrap();
            assert!(!rep.merkle_valid && !rep.is_intact());
            assert!(got.is_empty(), "released {:?} under {p:?}", indices(&got));
            let d = decrypt(&bad_table, &group_unlock(), &p).unwrap();
            assert!(d.plaintext.is_none() && d.recovered.is_empty());
            // And Abort refuses it outright.
            let abort = VerificationPolicy {
                on_tamper: TamperAction::Abort,
                ..p.clone()
            };
            assert_refused(&bad_table, &group_unlock(), &abort, "AUTHENTICATION_FAILED");
        }
    }
    // Without a signature policy: every chunk whose tag verifies, flagged.
    for release_mode in [ReleaseMode::Verified, ReleaseMode::Streaming] {
        let p = unpinned(release_mode, TamperAction::Recover);
        let (r, got) = run(&bad_table, &group_unlock(), &p);
        let rep = r.unwrap();
        assert!(!rep.merkle_valid && rep.bad_chunks.is_empty() && !rep.is_intact());
        assert_eq!(indices(&got), vec![0, 1, 2, 3]);
        assert_genuine(&got, &pt);
        let d = decrypt(&bad_table, &group_unlock(), &p).unwrap();
        assert!(d.plaintext.is_none() && !d.report.merkle_valid);
        assert_eq!(d.recovered.len(), 4);
        // Plus a damaged chunk: AEAD alone pinpoints it now.
        let both = flip(&bad_table, envelope_at(&c, 1) + 50);
        let (r, got) = run(&both, &group_unlock(), &p);
        let rep = r.unwrap();
        assert_eq!((rep.bad_chunks.clone(), rep.merkle_valid), (vec![1], false));
        assert_eq!(indices(&got), vec![0, 2, 3]);
        assert_genuine(&got, &pt);
    }
    // Control: with a table that matches the signed root, recover under the
    // pin pinpoints a damaged chunk and releases the others.
    let damaged = flip(&c, envelope_at(&c, 1) + 50);
    let (r, got) = run(
        &damaged,
        &group_unlock(),
        &pinned(ReleaseMode::Verified, TamperAction::Recover),
    );
    let rep = r.unwrap();
    assert_eq!((rep.bad_chunks.clone(), rep.merkle_valid), (vec![1], true));
    assert_eq!(indices(&got), vec![0, 2, 3]);
    assert_genuine(&got, &pt);
}

// ---------------------------------------------------------------- sequential reader

/// Feeds `envs` to a sequential reader over `c`'s (valid) table; returns the
/// chunks returned before the first error, and the error.
fn sequential(c: &[u8], envs: &[Vec<u8>], pt: &[u8]) -> (Vec<u64>, ContainerError) {
    let mut r = reader_with_table(c);
    r.unlock(&group_unlock()).unwrap();
    r.begin_sequential().unwrap();
    let mut ok = Vec::new();
    for (i, e) in envs.iter().enumerate() {
        match r.next_chunk(e) {
            Ok(p) => {
                let start = i * C;
                assert_eq!(p.as_slice(), &pt[start..(start + C).min(pt.len())]);
                ok.push(i as u64);
            }
            Err(err) => return (ok, err),
        }
    }
    match r.end_sequential() {
        Ok(()) => panic!("tampered sequence accepted"),
        Err(err) => (ok, err),
    }
}

/// The tampers of the sequential and streaming tests, on a 4-chunk
/// container: (name, envelopes, first bad index).
fn envelope_tampers(envs: &[Vec<u8>]) -> Vec<(&'static str, Vec<Vec<u8>>, u64)> {
    let mut out = Vec::new();
    let mut swapped = envs.to_vec();
    swapped.swap(1, 2);
    out.push(("swapped chunks 1 and 2", swapped.clone(), 1));
    // Swapped and relabelled (stored indices rewritten to the new positions).
    let mut relabelled = swapped;
    relabelled[1][..4].copy_from_slice(&1u32.to_be_bytes());
    relabelled[2][..4].copy_from_slice(&2u32.to_be_bytes());
    out.push(("swapped and relabelled", relabelled, 1));
    // Chunk 2's stored index changed in place.
    let mut relabel = envs.to_vec();
    relabel[2][..4].copy_from_slice(&3u32.to_be_bytes());
    out.push(("relabelled index of chunk 2", relabel, 2));
    // Chunk 1 duplicated in place of chunk 2 (same length).
    let mut dup = envs.to_vec();
    dup[2] = envs[1].clone();
    out.push(("chunk 1 duplicated at 2", dup, 2));
    // Stored IV, ciphertext and tag flips.
    for (name, chunk, at) in [
        ("flipped stored IV of chunk 3", 3usize, 4usize),
        ("flipped ciphertext of chunk 1", 1, 100),
        ("flipped tag of chunk 2", 2, C + 31),
    ] {
        let mut t = envs.to_vec();
        t[chunk][at] ^= 1;
        out.push((name, t, chunk as u64));
    }
    out
}

#[test]
fn sequential_reader_rejects_tampering() {
    let (c, pt) = group_container(3 * C + 100, SMALL);
    let (_, envs) = split(&c);
    let h = header_len(&c);
    let table = c[h..h + 4 * 32].to_vec();
    // A wrong table: refused, and no sequential read without one.
    let mut r = ContainerReader::new(&c).unwrap();
    r.unlock(&group_unlock()).unwrap();
    for at in [0usize, 40, 127] {
        let mut t = table.clone();
        t[at] ^= 1;
        assert_eq!(
            r.set_leaf_table(&t).unwrap_err().code(),
            "AUTHENTICATION_FAILED"
        );
    }
    let mut swapped_entries = table.clone();
    swapped_entries.copy_within(0..32, 32 * 3);
    swapped_entries[..32].copy_from_slice(&table[32 * 3..]);
    assert_eq!(
        r.set_leaf_table(&swapped_entries).unwrap_err().code(),
        "AUTHENTICATION_FAILED"
    );
    assert_eq!(
        r.set_leaf_table(&table[..96]).unwrap_err().code(),
        "TRUNCATED"
    );
    let mut longer = table.clone();
    longer.extend_from_slice(&[0; 32]);
    assert_eq!(
        r.set_leaf_table(&longer).unwrap_err().code(),
        "TRAILING_BYTES"
    );
    assert!(!r.has_leaf_table());
    assert_eq!(r.begin_sequential().unwrap_err().code(), "INVALID_STATE");
    assert_eq!(
        r.decrypt_chunk(0, &envs[0]).unwrap_err().code(),
        "INVALID_STATE"
    );
    // A wrong root in the header: the genuine table no longer matches.
    let wrong_root = edit_header(&c, |hd| hd.merkle_root = [0x77; 32]);
    let mut r = ContainerReader::new(&wrong_root).unwrap();
    assert_eq!(
        r.set_leaf_table(&table).unwrap_err().code(),
        "AUTHENTICATION_FAILED"
    );
    // Tampered envelopes: the chunks before the tampered one come out, the
    // tampered one does not.
    for (name, t, bad) in envelope_tampers(&envs) {
        let (ok, err) = sequential(&c, &t, &pt);
        assert_eq!(err.code(), "AUTHENTICATION_FAILED", "{name}");
        assert_eq!(ok, (0..bad).collect::<Vec<_>>(), "{name}");
    }
    // The genuine sequence passes.
    let mut r = reader_with_table(&c);
    r.unlock(&group_unlock()).unwrap();
    r.begin_sequential().unwrap();
    for e in &envs {
        r.next_chunk(e).unwrap();
    }
    r.end_sequential().unwrap();
}

#[test]
fn streaming_release_stops_at_the_tampered_chunk() {
    let (unsigned, pt_u) = group_container(3 * C + 100, SMALL);
    let (signed, pt_s) = hybrid_group_container(3 * C + 100, vec![]);
    for (c, pt, policy) in [
        (
            &unsigned,
            &pt_u,
            unpinned(ReleaseMode::Streaming, TamperAction::Abort),
        ),
        (
            &signed,
            &pt_s,
            pinned(ReleaseMode::Streaming, TamperAction::Abort),
        ),
    ] {
        let (head, envs) = split(c);
        for (name, t, bad) in envelope_tampers(&envs) {
            let (r, got) = run(&join(&head, &t), &group_unlock(), &policy);
            assert_eq!(r.unwrap_err().code(), "AUTHENTICATION_FAILED", "{name}");
            assert_eq!(indices(&got), (0..bad).collect::<Vec<_>>(), "{name}");
            assert_genuine(&got, pt);
        }
        // A wrong table entry or root: checked before any chunk, nothing released.
        let h = header_len(c);
        for entry in [0usize, 3] {
            let bad = flip(c, h + 32 * entry + 7);
            assert_refused(&bad, &group_unlock(), &policy, "AUTHENTICATION_FAILED");
        }
        let wrong_root = edit_header(c, |hd| hd.merkle_root[0] ^= 1);
        let want = if c[8] == 6 {
            "INVALID_SIGNATURE"
        } else {
            "AUTHENTICATION_FAILED"
        };
        assert_refused(&wrong_root, &group_unlock(), &policy, want);
        // A missing last chunk: the length is known up front, nothing released.
        assert_refused(
            &join(&head, &envs[..3]),
            &group_unlock(),
            &policy,
            "TRUNCATED",
        );
        // The untouched container streams out whole.
        let (r, got) = run(c, &group_unlock(), &policy);
        assert!(r.unwrap().is_intact());
        assert_eq!(indices(&got), vec![0, 1, 2, 3]);
        assert_genuine(&got, pt);
    }
}

/// Every leaf-table byte flipped (its low bit), one at a time: refused
/// before any chunk is released, in streaming mode too, and key-lessly.
#[test]
fn every_leaf_table_byte_flipped() {
    let (c, _) = hybrid_group_container(3 * C + 100, vec![]);
    let h = header_len(&c);
    let policy = pinned(ReleaseMode::Streaming, TamperAction::Abort);
    for at in h..h + 4 * 32 {
        let bad = flip(&c, at);
        assert_refused(&bad, &group_unlock(), &policy, "AUTHENTICATION_FAILED");
        assert_eq!(
            verify_container(&bad, &policy, None).unwrap_err().code(),
            "AUTHENTICATION_FAILED",
            "{at}"
        );
    }
}

// ---------------------------------------------------------------- first, middle and last chunk

/// What every reader path of the core does with `envs` (one of them forged
/// or damaged at `bad`) under `c`'s genuine header and leaf table, given the
/// policy's pin (`pin`) and the genuine plaintext `pt`: each refuses chunk
/// `bad` with `AUTHENTICATION_FAILED` and releases no byte of it.
fn refused_on_every_reader_path(c: &[u8], envs: &[Vec<u8>], bad: usize, pt: &[u8], pin: bool) {
    let (head, genuine) = split(c);
    let tampered = join(&head, envs);
    let policy = |release, on_tamper| {
        if pin {
            pinned(release, on_tamper)
        } else {
            unpinned(release, on_tamper)
        }
    };
    let unlock = group_unlock();
    let here = format!("chunk {bad} of {}, pinned {pin}", envs.len());
    // Verified release: nothing.
    let (r, got) = run(
        &tampered,
        &unlock,
        &policy(ReleaseMode::Verified, TamperAction::Abort),
    );
    assert_eq!(r.unwrap_err().code(), "AUTHENTICATION_FAILED", "{here}");
    assert!(got.is_empty(), "{here}");
    // Streaming release: the chunks before it, genuine; it and later ones never.
    let (r, got) = run(
        &tampered,
        &unlock,
        &policy(ReleaseMode::Streaming, TamperAction::Abort),
    );
    assert_eq!(r.unwrap_err().code(), "AUTHENTICATION_FAILED", "{here}");
    assert_eq!(indices(&got), (0..bad as u64).collect::<Vec<_>>(), "{here}");
    assert_genuine(&got, pt);
    // Report and recover: pinpointed; recover releases only the genuine others.
    for release in [ReleaseMode::Verified, ReleaseMode::Streaming] {
        let (r, got) = run(&tampered, &unlock, &policy(release, TamperAction::Report));
        assert_eq!(r.unwrap().bad_chunks, vec![bad as u64], "{here}");
        if release == ReleaseMode::Verified {
            assert!(got.is_empty(), "{here}");
        }
        let (r, got) = run(&tampered, &unlock, &policy(release, TamperAction::Recover));
        assert_eq!(r.unwrap().bad_chunks, vec![bad as u64], "{here}");
        let others: Vec<u64> = (0..envs.len() as u64)
            .filter(|&i| i != bad as u64)
            .collect();
        assert_eq!(indices(&got), others, "{here} {release:?}");
        assert_genuine(&got, pt);
    }
    // Verification with the key, and key-less (the leaf check alone).
    for key in [Some(&unlock), None] {
        let v = verify_container(
            &tampered,
            &policy(ReleaseMode::Verified, TamperAction::Abort),
            key,
        );
        assert_eq!(
            v.unwrap_err().code(),
            "AUTHENTICATION_FAILED",
            "{here}, key {}",
            key.is_some()
        );
        let rep = verify_container(
            &tampered,
            &policy(ReleaseMode::Verified, TamperAction::Report),
            key,
        )
        .unwrap();
        assert_eq!(
            (rep.bad_chunks, rep.merkle_valid),
            (vec![bad as u64], true),
            "{here}"
        );
    }
    // ContainerReader, random access (the chunk's envelope fetched on its
    // own, as an external reader does) and key-less per-chunk verification.
    let mut reader = reader_with_table(c);
    reader.unlock(&unlock).unwrap();
    for (i, e) in envs.iter().enumerate() {
        let index = i as u64;
        if i == bad {
            assert_eq!(
                reader.decrypt_chunk(index, e).unwrap_err().code(),
                "AUTHENTICATION_FAILED",
                "{here}"
            );
            assert_eq!(
                reader.verify_chunk(index, e).unwrap_err().code(),
                "AUTHENTICATION_FAILED",
                "{here}"
            );
        } else {
            assert_eq!(
                reader.decrypt_chunk(index, e).unwrap().as_slice(),
                &pt[i * C..(i * C + C).min(pt.len())]
            );
            reader.verify_chunk(index, e).unwrap();
        }
    }
    // Sequential (the stream reader): the chunks before it come out, it does not.
    reader.begin_sequential().unwrap();
    for (i, e) in envs.iter().enumerate() {
        let out = reader.next_chunk(e);
        if i == bad {
            assert_eq!(out.unwrap_err().code(), "AUTHENTICATION_FAILED", "{here}");
            break;
        }
        assert_eq!(
            out.unwrap().as_slice(),
            &pt[i * C..(i * C + C).min(pt.len())]
        );
    }
    // Control: the genuine envelopes pass every path.
    assert_eq!(open(&join(&head, &genuine), &unlock).unwrap(), pt);
}

/// Issue 34 item 10(b, c): a co-recipient (who holds the DEK) rewrites the
/// first, a middle or the last chunk with a valid AES-GCM tag, keeping header,
/// leaf table and signature; and anyone damages one (a flipped ciphertext
/// bit). Every reader path refuses it: verified and streaming release,
/// report and recover, verification with and without the key, random access,
/// per-chunk key-less verification, sequential. Before, only chunk 1 was
/// forged in any test, so dropping the leaf check for the last chunk in
/// `open_chunk` (which the random-access and stream readers rely on alone) or
/// in `policy::process` (key-less verification's only per-chunk check)
/// passed every test.
#[test]
fn a_forged_first_middle_or_last_chunk_is_refused_on_every_reader_path() {
    let mallory = xwing(0x4d);
    let (signed, pt_s) =
        hybrid_group_container(2 * C + 100, vec![WrapSpec::recipient(&mallory.public, 0)]);
    let mut o = options(
        vec![group_spec(), WrapSpec::recipient(&mallory.public, 0)],
        SMALL,
    );
    o.plaintext_size = 0;
    let pt_u = data(2 * C + 100);
    let unsigned = encrypt(&pt_u, o).unwrap().container;
    let mallory_unlock = Unlock::Recipient {
        secret_key: mallory.secret.as_slice(),
        recipient_id: None,
    };
    for (c, pt, pin) in [(&signed, &pt_s, true), (&unsigned, &pt_u, false)] {
        let dek = dek_via(c, &mallory_unlock);
        let ctx = *ContainerReader::new(c).unwrap().context();
        assert_eq!(ctx.chunk_count(), 3);
        let (_, envs) = split(c);
        for bad in 0..3usize {
            // The DEK holder's forgery: same length, same stored index and IV, valid tag.
            let len = envs[bad].len() - chunk::ENVELOPE_OVERHEAD;
            let evil: Vec<u8> = b"PAY MALLORY ".iter().copied().cycle().take(len).collect();
            let forged = forge_envelope(&dek, &ctx, u32::try_from(bad).unwrap(), &evil);
            assert_eq!(forged.len(), envs[bad].len());
            let mut t = envs.clone();
            t[bad] = forged;
            refused_on_every_reader_path(c, &t, bad, pt, pin);
            // Damage without the key: one flipped ciphertext bit.
            let mut t = envs.clone();
            t[bad][20] ^= 0x80;
            refused_on_every_reader_path(c, &t, bad, pt, pin);
        }
    }
}

/// The leaf check, property-shaped: every single-bit flip anywhere in any
/// chunk envelope (stored index, IV, ciphertext, tag; first, middle and the
/// short last chunk) is refused by the key-less per-chunk check and by
/// random access, and every byte's flip by key-less verification of the
/// whole container (report mode names exactly that chunk) and by decryption.
#[test]
fn any_single_bit_flip_in_any_chunk_envelope_is_refused() {
    let (c, pt) = group_container(2 * C + 100, SMALL);
    let (head, envs) = split(&c);
    let mut reader = reader_with_table(&c);
    reader.unlock(&group_unlock()).unwrap();
    let report = unpinned(ReleaseMode::Verified, TamperAction::Report);
    let (mut flips, mut whole) = (0usize, 0usize);
    for (i, env) in envs.iter().enumerate() {
        let index = i as u64;
        for at in 0..env.len() {
            for bit in 0..8 {
                let mut e = env.clone();
                e[at] ^= 1 << bit;
                assert_eq!(
                    reader.verify_chunk(index, &e).unwrap_err().code(),
                    "AUTHENTICATION_FAILED",
                    "chunk {i} byte {at} bit {bit}"
                );
                assert_eq!(
                    reader.decrypt_chunk(index, &e).unwrap_err().code(),
                    "AUTHENTICATION_FAILED",
                    "chunk {i} byte {at} bit {bit}"
                );
                flips += 1;
            }
            let mut t = envs.clone();
            t[i][at] ^= 1 << (at % 8);
            let tampered = join(&head, &t);
            let rep = verify_container(&tampered, &report, None).unwrap();
            assert_eq!(rep.bad_chunks, vec![index], "chunk {i} byte {at}");
            assert_rejected(&tampered, &group_unlock(), "AUTHENTICATION_FAILED");
            whole += 1;
        }
    }
    assert_eq!(whole, 2 * (C + 32) + 100 + 32);
    assert_eq!(flips, 8 * whole);
    // Control: the genuine envelopes pass.
    assert_eq!(open(&c, &group_unlock()).unwrap(), pt);
}

// ---------------------------------------------------------------- a rewritten leaf table (v4)

/// `c`'s header with its Merkle root recomputed over `table`, then `table`
/// and `envs`. Anyone can do this to an unsigned (v4) container (or to a
/// signed one stripped to v4): neither the root nor the table is bound to a
/// key, so the leaf check passes and only the stored-index and stored-IV
/// checks of FORMAT.md §6.5 stand between the tampered envelopes and release.
fn with_rewritten_table(c: &[u8], table: &[[u8; 32]], envs: &[Vec<u8>]) -> Vec<u8> {
    let root = merkle_root(HashAlg::Sha256, table);
    let h = header_len(c);
    let mut out = edit_header(&c[..h], |hd| hd.merkle_root = root);
    assert_eq!(out.len(), h);
    out.extend_from_slice(&table.concat());
    for e in envs {
        out.extend_from_slice(e);
    }
    out
}

/// Envelope tampers on a 4-chunk v4 container (chunks 0–2 full, chunk 3 of
/// 100 bytes) whose leaf table and root are rewritten to match the tampered
/// envelopes: (name, container, bad chunks, whether a key-less check sees it).
fn rewritten_table_tampers(c: &[u8]) -> Vec<(&'static str, Vec<u8>, Vec<u64>, bool)> {
    let (_, envs) = split(c);
    let table = leaf_table(c);
    let file_id = Header::parse(c).unwrap().0.file_id;
    // The leaf FORMAT.md §7 defines for envelope `e` at position `i`.
    let leaf_at = |i: u32, len: u32, e: &[u8]| {
        merkle::leaf_hash(
            HashAlg::Sha256,
            &file_id,
            i,
            len,
            e[4..16].try_into().unwrap(),
            &e[16..],
        )
    };
    let mut out = Vec::new();
    // Two full chunks swapped together with their table entries: every
    // recomputed leaf equals its (rewritten) entry; envelope 2 now sits at
    // position 1 with stored index 2, and would decrypt there (key, IV and
    // AAD of chunk 2) if the stored index were not checked.
    let mut e = envs.clone();
    e.swap(1, 2);
    let mut t = table.clone();
    t.swap(1, 2);
    out.push((
        "chunks 1 and 2 swapped with their entries",
        with_rewritten_table(c, &t, &e),
        vec![1, 2],
        true,
    ));
    // The stored IV of chunk 3 flipped and its entry recomputed over the new
    // bytes: leaf, index and tag (under the derived IV) are all fine.
    let mut e = envs.clone();
    e[3][4] ^= 1;
    let mut t = table.clone();
    t[3] = leaf_at(3, 100, &e[3]);
    out.push((
        "stored IV of chunk 3 flipped, entry recomputed",
        with_rewritten_table(c, &t, &e),
        vec![3],
        false,
    ));
    // Chunk 2 relabelled as 1, its entry recomputed over the new bytes.
    let mut e = envs.clone();
    e[2][..4].copy_from_slice(&1u32.to_be_bytes());
    let mut t = table;
    t[2] = leaf_at(2, C as u32, &e[2]);
    out.push((
        "chunk 2 relabelled as 1, entry recomputed",
        with_rewritten_table(c, &t, &e),
        vec![2],
        true,
    ));
    out
}

/// A swapped chunk, a relabelled index or a flipped stored IV behind a leaf
/// table rewritten to match them (v4: the root is not bound to any key). The
/// leaf check passes, so this is what the stored-index check
/// (`chunk::envelope_parts`) and the stored-IV check (`chunk::open_chunk`)
/// are for: FORMAT.md §6.5 requires both before anything of a chunk is
/// released, in every release mode and in both readers.
#[test]
fn rewritten_leaf_table_does_not_hide_index_or_iv_tampering() {
    let (c, pt) = group_container(3 * C + 100, SMALL);
    let (_, envs) = split(&c);
    for (name, bad, bad_chunks, keyless) in rewritten_table_tampers(&c) {
        let first_bad = bad_chunks[0];
        let good: Vec<u64> = (0..4).filter(|i| !bad_chunks.contains(i)).collect();
        let (_, tampered) = split(&bad);
        // The rewritten table matches the rewritten root: the table check passes.
        let mut reader = reader_with_table(&bad);

        // Verified release: nothing.
        assert_refused(
            &bad,
            &group_unlock(),
            &unpinned(ReleaseMode::Verified, TamperAction::Abort),
            "AUTHENTICATION_FAILED",
        );
        // Streaming release: the genuine chunks before the first bad one.
        let (r, got) = run(
            &bad,
            &group_unlock(),
            &unpinned(ReleaseMode::Streaming, TamperAction::Abort),
        );
        assert_eq!(r.unwrap_err().code(), "AUTHENTICATION_FAILED", "{name}");
        assert_eq!(indices(&got), (0..first_bad).collect::<Vec<_>>(), "{name}");
        assert_genuine(&got, &pt);
        // Report: the bad chunks listed against a table that matches the root;
        // nothing released (streaming: nothing from the first bad one on).
        for release in [ReleaseMode::Verified, ReleaseMode::Streaming] {
            let (r, got) = run(
                &bad,
                &group_unlock(),
                &unpinned(release, TamperAction::Report),
            );
            let rep = r.unwrap();
            assert_eq!(
                (rep.bad_chunks.clone(), rep.merkle_valid),
                (bad_chunks.clone(), true),
                "{name} {release:?}"
            );
            let want: Vec<u64> = match release {
                ReleaseMode::Verified => vec![],
                ReleaseMode::Streaming => (0..first_bad).collect(),
            };
            assert_eq!(indices(&got), want, "{name} {release:?}");
            assert_genuine(&got, &pt);
        }
        // Recover: every good chunk, each at its own position; never a bad one.
        for release in [ReleaseMode::Verified, ReleaseMode::Streaming] {
            let (r, got) = run(
                &bad,
                &group_unlock(),
                &unpinned(release, TamperAction::Recover),
            );
            assert_eq!(r.unwrap().bad_chunks, bad_chunks, "{name} {release:?}");
            assert_eq!(indices(&got), good, "{name} {release:?}");
            assert_genuine(&got, &pt);
        }
        // Key-less verification sees the index (needs no key), not the IV.
        let rep = verify_container(
            &bad,
            &unpinned(ReleaseMode::Verified, TamperAction::Report),
            None,
        )
        .unwrap();
        let want: Vec<u64> = if keyless { bad_chunks.clone() } else { vec![] };
        assert_eq!(rep.bad_chunks, want, "{name}: key-less");
        assert!(rep.merkle_valid && !rep.chunks_authenticated, "{name}");

        // ContainerReader, random access.
        reader.unlock(&group_unlock()).unwrap();
        for (i, e) in tampered.iter().enumerate() {
            let r = reader.decrypt_chunk(i as u64, e);
            if bad_chunks.contains(&(i as u64)) {
                assert_eq!(
                    r.unwrap_err().code(),
                    "AUTHENTICATION_FAILED",
                    "{name}: chunk {i}"
                );
            } else {
                assert_eq!(
                    r.unwrap().as_slice(),
                    &pt[i * C..((i + 1) * C).min(pt.len())]
                );
            }
        }
        // Sequential: the chunks before the first bad one, then the error; the
        // run never completes.
        reader.begin_sequential().unwrap();
        for (i, e) in tampered.iter().enumerate() {
            match reader.next_chunk(e) {
                Ok(p) => {
                    assert!((i as u64) < first_bad, "{name}: chunk {i} released");
                    assert_eq!(p.as_slice(), &pt[i * C..((i + 1) * C).min(pt.len())]);
                }
                Err(err) => {
                    assert_eq!(
                        (err.code(), i as u64),
                        ("AUTHENTICATION_FAILED", first_bad),
                        "{name}"
                    );
                    break;
                }
            }
        }
        assert_eq!(
            reader.end_sequential().unwrap_err().code(),
            "TRUNCATED",
            "{name}"
        );
    }
    // Control: the helper changes nothing but the table and the root.
    assert_eq!(with_rewritten_table(&c, &leaf_table(&c), &envs), c);
}

// ---------------------------------------------------------------- KDF budget

fn argon(password: &[u8], memory_kib: u32, iterations: u32) -> WrapSpec {
    WrapSpec::Argon2id {
        password: Zeroizing::new(password.to_vec()),
        cost: Argon2idCost {
            memory_kib,
            iterations,
            parallelism: 1,
        },
    }
}

fn unlimited(wraps: Vec<WrapSpec>) -> EncryptOptions {
    let mut o = options(wraps, SMALL);
    o.kdf_budget = KdfBudget::unlimited();
    o
}

fn with_budget(budget: KdfBudget) -> VerificationPolicy {
    VerificationPolicy {
        kdf_budget: budget,
        ..VerificationPolicy::default()
    }
}

#[test]
fn writers_refuse_to_exceed_the_default_reader_budget() {
    let refused = |wraps: Vec<WrapSpec>| {
        let mut o = EncryptOptions::new(10, wraps);
        o.chunk_size = SMALL;
        ContainerEncryptor::new(o).err().unwrap().code()
    };
    // 1 GiB, t = 10: in the format's bounds, over the budget (refused before any derivation).
    assert_eq!(
        refused(vec![argon(PASSWORD, 1_048_576, 10)]),
        "KDF_BUDGET_EXCEEDED"
    );
    assert_eq!(
        refused(vec![argon(PASSWORD, 19_456, 5)]),
        "KDF_BUDGET_EXCEEDED"
    );
    assert_eq!(
        refused(vec![argon(PASSWORD, 262_145, 1)]),
        "KDF_BUDGET_EXCEEDED"
    );
    assert_eq!(
        refused(vec![WrapSpec::Pbkdf2 {
            password: Zeroizing::new(PASSWORD.to_vec()),
            iterations: 2_000_001,
        }]),
        "KDF_BUDGET_EXCEEDED"
    );
    // More password wraps than a reader tries.
    assert_eq!(
        refused(vec![argon_min(b"a"), argon_min(b"b"), argon_min(b"c")]),
        "KDF_BUDGET_EXCEEDED"
    );
    assert_eq!(
        encrypt(b"x", options(vec![argon(PASSWORD, 19_456, 5)], SMALL))
            .err()
            .unwrap()
            .code(),
        "KDF_BUDGET_EXCEEDED"
    );
}

/// Two Argon2id wraps at 1 GiB / t = 10 written into a header (no writer
/// makes them): the reader skips both without deriving anything.
#[test]
fn over_budget_header_wraps_are_skipped() {
    let (c, pt) = group_container(100, SMALL);
    let huge = |salt: u8| WrapEntry::Argon2id {
        cost: Argon2idCost {
            memory_kib: 1_048_576,
            iterations: 10,
            parallelism: 1,
        },
        salt: [salt; 16],
        wrapped: [salt; 40],
    };
    let bad = edit_header(&c, |hd| hd.wraps = vec![huge(1), huge(2)]);
    assert_eq!(Header::parse(&bad).unwrap().0.mode(), Mode::Password);
    assert_rejected(&bad, &Unlock::Password(PASSWORD), "KDF_BUDGET_EXCEEDED");
    let mut r = ContainerReader::new(&bad).unwrap();
    assert_eq!(
        r.unlock(&Unlock::Password(PASSWORD)).unwrap_err().code(),
        "KDF_BUDGET_EXCEEDED"
    );
    // Next to a group wrap: password unlock still refuses, group unlock opens.
    let mixed = edit_header(&c, |hd| hd.wraps.insert(0, huge(3)));
    assert_rejected(&mixed, &Unlock::Password(PASSWORD), "KDF_BUDGET_EXCEEDED");
    assert_eq!(open(&mixed, &group_unlock()).unwrap(), pt);
}

/// Genuine wraps just over the cap (t = 5 at 19 456 KiB, random salts, right
/// password): refused under the default budget, open under a raised one.
#[test]
fn over_cap_wraps_need_a_raised_budget() {
    let pt = data(C + 3);
    let c = encrypt(
        &pt,
        unlimited(vec![argon(PASSWORD, 19_456, 5), argon(PASSWORD, 19_456, 5)]),
    )
    .unwrap()
    .container;
    assert_rejected(&c, &Unlock::Password(PASSWORD), "KDF_BUDGET_EXCEEDED");
    let mut r = ContainerReader::new(&c).unwrap();
    assert_eq!(
        r.unlock(&Unlock::Password(PASSWORD)).unwrap_err().code(),
        "KDF_BUDGET_EXCEEDED"
    );
    // Positive control: the same password opens it once the budget allows t = 5.
    let raised = KdfBudget {
        argon2_iterations: 5,
        ..KdfBudget::default()
    };
    r.unlock_with_budget(&Unlock::Password(PASSWORD), &raised)
        .unwrap();
    let d = decrypt(&c, &Unlock::Password(PASSWORD), &with_budget(raised)).unwrap();
    assert_eq!(d.plaintext.unwrap().as_slice(), pt.as_slice());
    // A wrong password under the raised budget: tried and failed, not a budget error.
    assert_eq!(
        decrypt(&c, &Unlock::Password(b"wrong"), &with_budget(raised))
            .err()
            .unwrap()
            .code(),
        "AUTHENTICATION_FAILED"
    );
    // An over-cap wrap before a within-cap one is skipped and the second opens.
    let c2 = encrypt(
        &pt,
        unlimited(vec![argon(PASSWORD, 19_456, 5), argon_min(PASSWORD)]),
    )
    .unwrap()
    .container;
    assert_eq!(open(&c2, &Unlock::Password(PASSWORD)).unwrap(), pt);
}

/// Three password wraps, the right one last: the default budget tries two
/// and stops, so the third (which would open) is never tried.
#[test]
fn password_wraps_beyond_the_attempt_budget_are_not_tried() {
    let pt = data(50);
    let c = encrypt(
        &pt,
        unlimited(vec![
            argon_min(b"first wrong password"),
            argon_min(b"second wrong password"),
            argon_min(PASSWORD),
        ]),
    )
    .unwrap()
    .container;
    assert_rejected(&c, &Unlock::Password(PASSWORD), "KDF_BUDGET_EXCEEDED");
    let three = KdfBudget {
        password_attempts: 3,
        ..KdfBudget::default()
    };
    let d = decrypt(&c, &Unlock::Password(PASSWORD), &with_budget(three)).unwrap();
    assert_eq!(d.plaintext.unwrap().as_slice(), pt.as_slice());
    // The first password opens within the budget.
    assert_eq!(
        open(&c, &Unlock::Password(b"first wrong password")).unwrap(),
        pt
    );
}

/// Rewrap is a writer too: it refuses an over-cap spec, and a password wrap
/// that would make more password wraps than a default reader tries.
#[test]
fn rewrap_stays_inside_the_default_budget() {
    let pt = data(10);
    let c = encrypt(
        &pt,
        options(vec![argon_min(b"one"), argon_min(b"two")], SMALL),
    )
    .unwrap()
    .container;
    let u = Unlock::Password(b"one");
    assert_eq!(
        rewrap(&c, &u, &|_| false, &[argon(b"three", 19_456, 5)], None)
            .err()
            .unwrap()
            .code(),
        "KDF_BUDGET_EXCEEDED"
    );
    assert_eq!(
        rewrap(&c, &u, &|_| false, &[argon_min(b"three")], None)
            .err()
            .unwrap()
            .code(),
        "KDF_BUDGET_EXCEEDED"
    );
    // Replacing the password wraps by two others stays at two: allowed.
    let r = rewrap(
        &c,
        &u,
        &|w| w.kind() == wrap::WrapKind::Password,
        &[argon_min(b"three"), argon_min(b"four")],
        None,
    )
    .unwrap();
    assert_eq!(open(&r.container, &Unlock::Password(b"four")).unwrap(), pt);
    // Adding a non-password wrap next to two password wraps is fine.
    let r = rewrap(&c, &u, &|_| false, &[group_spec()], None).unwrap();
    assert_eq!(open(&r.container, &group_unlock()).unwrap(), pt);
}

// ---------------------------------------------------------------- hybrid pins

#[test]
fn hybrid_pins() {
    let owner = hybrid_signer(0);
    let full_pin = VerificationPolicy {
        expected_signer: Some(pin_of(&owner)),
        ..VerificationPolicy::strict()
    };
    let pt = data(C + 1);
    // v5 (Ed25519 only, same Ed25519 key) under a pin with an ML-DSA key.
    let mut o = options(vec![group_spec()], SMALL);
    o.signer = Some(ed_signer(0));
    let v5 = encrypt(&pt, o).unwrap().container;
    assert_eq!(v5[8], 5);
    assert_refused(&v5, &group_unlock(), &full_pin, "HYBRID_REQUIRED");
    assert_eq!(
        verify_container(&v5, &full_pin, None).unwrap_err().code(),
        "HYBRID_REQUIRED"
    );
    // (An Ed25519-only pin accepts it: hybrid comes from the pin, not the file.)
    let ed_pin = VerificationPolicy {
        expected_signer: Some(ExpectedSigner::ed25519(*owner.ed25519_public())),
        ..VerificationPolicy::strict()
    };
    assert_eq!(
        decrypt(&v5, &group_unlock(), &ed_pin)
            .unwrap()
            .plaintext
            .unwrap()
            .as_slice(),
        pt.as_slice()
    );
    // v6 by the same Ed25519 key but another ML-DSA-65 key.
    let other = SigningKeys::hybrid(&[0x11; 32], &[0x44; 32], [0x22; 32], 0).unwrap();
    let mut o = options(vec![group_spec()], SMALL);
    o.signer = Some(other);
    let v6_other = encrypt(&pt, o).unwrap().container;
    assert_refused(&v6_other, &group_unlock(), &full_pin, "SIGNER_MISMATCH");
    // The genuine v6 under a pin naming another ML-DSA-65 key.
    let (v6, v6_pt) = hybrid_group_container(C + 1, vec![]);
    let wrong_pq = VerificationPolicy {
        expected_signer: Some(ExpectedSigner {
            ed25519: *owner.ed25519_public(),
            mldsa65: SigningKeys::hybrid(&[0x11; 32], &[0x44; 32], [0; 32], 0)
                .unwrap()
                .mldsa_public()
                .map(<[u8]>::to_vec),
        }),
        ..VerificationPolicy::strict()
    };
    assert_refused(&v6, &group_unlock(), &wrong_pq, "SIGNER_MISMATCH");
    // v6 stripped to v4 under the pin (signature Optional: the pin alone demands it).
    let stripped = edit_header(&v6, |hd| hd.signed = None);
    assert_eq!(stripped[8], 4);
    let pin_only = VerificationPolicy {
        expected_signer: Some(pin_of(&owner)),
        ..VerificationPolicy::default()
    };
    for p in [&full_pin, &pin_only] {
        assert_refused(&stripped, &group_unlock(), p, "SIGNATURE_MISSING");
        assert_eq!(
            verify_container(&stripped, p, None).unwrap_err().code(),
            "SIGNATURE_MISSING"
        );
    }
    // The genuine v6 under the full pin.
    let d = decrypt(&v6, &group_unlock(), &full_pin).unwrap();
    assert_eq!(d.plaintext.unwrap().as_slice(), v6_pt.as_slice());
    assert_eq!(d.report.signature, SignatureStatus::Hybrid);
    assert_eq!(d.report.signer_mldsa65.as_deref(), owner.mldsa_public());
}

/// A sealer never signs a marker over a tampered body: `seal` verifies the
/// container key-lessly first (signature, leaf table against the root, every
/// chunk's leaf).
#[test]
fn sealing_a_tampered_container_is_refused() {
    let (c, _) = hybrid_group_container(3 * C + 5, Vec::new());
    let sealer = ed_signer(7);
    // A ciphertext byte of chunk 1, a leaf-table byte, a signature byte.
    let body = flip(&c, envelope_at(&c, 1) + 40);
    let table = flip(&c, header_len(&c) + 33);
    let sig = flip(&c, header_len(&c) - 1);
    for (bad, want) in [
        (&body, "AUTHENTICATION_FAILED"),
        (&table, "AUTHENTICATION_FAILED"),
        (&sig, "INVALID_SIGNATURE"),
    ] {
        for mode in [SealMode::Seal, SealMode::Purge] {
            assert_eq!(
                seal(bad, mode, "retention", &sealer).unwrap_err().code(),
                want
            );
        }
    }
    // The intact container seals.
    let sealed = seal(&c, SealMode::Seal, "retention", &sealer).unwrap();
    assert!(
        verify_container(&sealed, &VerificationPolicy::default(), None)
            .unwrap()
            .sealed
            .is_some()
    );
}
