//! Group manifest: chain rules, authority, rollback pin, founder anchor, the
//! policy integration and the three revocation modes.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod container_util;

use container_util::*;
use veilkit::container::manifest::{ManifestBlock, group_key_commitment};
use veilkit::container::*;
use veilkit::ed25519::ed25519_from_seed;

const FOUNDER: [u8; 32] = [0xf0; 32];
const ADMIN: [u8; 32] = [0xa1; 32];
const ALICE: [u8; 32] = [0xa2; 32];
const BOB: [u8; 32] = [0xb0; 32];
const KEY0: [u8; 32] = GROUP_KEY;
const KEY3: [u8; 32] = [0x33; 32];

fn pk(seed: &[u8; 32]) -> [u8; 32] {
    ed25519_from_seed(seed).unwrap().public
}

/// genesis(0) → add ADMIN(1) → promote ADMIN(2) → add ALICE(3) → add BOB(4).
fn chain() -> GroupManifest {
    let mut m = GroupManifest::genesis(GROUP_ID, &FOUNDER, &KEY0, 100).unwrap();
    assert_eq!(m.add_member(&FOUNDER, pk(&ADMIN), 101).unwrap(), 1);
    assert_eq!(m.promote_admin(&FOUNDER, pk(&ADMIN), 102).unwrap(), 2);
    assert_eq!(m.add_member(&ADMIN, pk(&ALICE), 103).unwrap(), 3);
    assert_eq!(m.add_member(&ADMIN, pk(&BOB), 104).unwrap(), 4);
    m
}

fn resign(block: &mut ManifestBlock, seed: &[u8; 32]) {
    let kp = ed25519_from_seed(seed).unwrap();
    block.signer = kp.public;
    block.signature =
        veilkit::ed25519::ed25519_sign(kp.secret.as_slice(), &block.signed_bytes()).unwrap();
}

fn relink(blocks: &mut [ManifestBlock], seeds: &[[u8; 32]]) {
    for i in 1..blocks.len() {
        blocks[i].prev_hash = blocks[i - 1].hash();
        resign(&mut blocks[i], &seeds[i]);
    }
}

fn verify_err(blocks: Vec<ManifestBlock>) -> ContainerError {
    GroupManifest::from_blocks(blocks)
        .verify(None, None)
        .unwrap_err()
}

#[test]
fn chain_builds_and_verifies() {
    let m = chain();
    let bytes = m.to_bytes();
    assert_eq!(bytes.len(), 9 + 5 * 221);
    let parsed = GroupManifest::parse(&bytes).unwrap();
    assert_eq!(parsed, m);
    let s = parsed.verify(Some(4), Some(&pk(&FOUNDER))).unwrap();
    assert_eq!(s.head_epoch, 4);
    assert_eq!(s.founder, pk(&FOUNDER));
    assert_eq!(s.members.len(), 4);
    assert_eq!(s.admins.len(), 2);
    assert_eq!(s.current_key_epoch(), 0);
    s.check_group_key(0, &KEY0).unwrap();
    assert_eq!(
        s.check_group_key(0, &KEY3).unwrap_err().code(),
        "AUTHENTICATION_FAILED"
    );
    assert_eq!(
        s.check_group_key(1, &KEY0).unwrap_err().code(),
        "INVALID_MANIFEST"
    );
    let mut m = m;
    assert_eq!(m.rotate_key(&ADMIN, &KEY3, 105).unwrap(), 5);
    assert_eq!(m.remove_member(&ADMIN, pk(&BOB), 106).unwrap(), 6);
    let s = m.verify(None, None).unwrap();
    assert_eq!(s.current_key_epoch(), 5);
    s.check_group_key(5, &KEY3).unwrap();
    assert!(!s.members.contains(&pk(&BOB)));
    assert_eq!(s.key_epochs[1].1, group_key_commitment(&GROUP_ID, 5, &KEY3));
}

#[test]
fn authority_rules() {
    let mut m = chain();
    // A plain member cannot act.
    assert_eq!(
        m.add_member(&ALICE, [7; 32], 200).unwrap_err().code(),
        "INVALID_MANIFEST"
    );
    assert_eq!(
        m.rotate_key(&BOB, &KEY3, 200).unwrap_err().code(),
        "INVALID_MANIFEST"
    );
    // Not a member at all.
    assert_eq!(
        m.promote_admin(&[0x55; 32], pk(&ALICE), 200)
            .unwrap_err()
            .code(),
        "INVALID_MANIFEST"
    );
    // Duplicate add, removing a non-member, promoting a non-member / an admin,
    // removing the founder, a timestamp going backwards (FORMAT.md §10).
    let refused = [
        m.add_member(&ADMIN, pk(&ALICE), 200),
        m.remove_member(&ADMIN, [9; 32], 200),
        m.promote_admin(&ADMIN, [9; 32], 200),
        m.promote_admin(&ADMIN, pk(&ADMIN), 200),
        m.remove_member(&ADMIN, pk(&FOUNDER), 200),
        m.add_member(&ADMIN, [8; 32], 50),
    ];
    for (k, r) in refused.into_iter().enumerate() {
        assert_eq!(r.unwrap_err().code(), "INVALID_MANIFEST", "case {k}");
    }
    // Failed appends leave the chain unchanged.
    assert_eq!(m.blocks().len(), 5);
    m.verify(None, None).unwrap();
    // A removed admin loses authority.
    m.remove_member(&FOUNDER, pk(&ADMIN), 300).unwrap();
    assert_eq!(
        m.add_member(&ADMIN, [8; 32], 301).unwrap_err().code(),
        "INVALID_MANIFEST"
    );
    // A forged block by a non-admin (signature valid, authority not).
    let mut blocks = chain().blocks().to_vec();
    let mut forged = blocks[4].clone();
    forged.epoch = 5;
    forged.subject = [0x77; 32];
    forged.prev_hash = blocks[4].hash();
    resign(&mut forged, &ALICE);
    blocks.push(forged);
    assert_eq!(verify_err(blocks).code(), "INVALID_MANIFEST");
}

#[test]
fn chain_integrity_rules() {
    let good = chain().blocks().to_vec();
    let seeds = [FOUNDER, FOUNDER, FOUNDER, ADMIN, ADMIN];
    // Broken link.
    let mut b = good.clone();
    b[3].prev_hash[0] ^= 1;
    resign(&mut b[3], &ADMIN);
    assert_eq!(verify_err(b).code(), "INVALID_MANIFEST");
    // Swapped blocks (re-linked and re-signed): epochs no longer monotonic.
    let mut b = good.clone();
    b.swap(3, 4);
    relink(&mut b, &seeds);
    assert_eq!(verify_err(b).code(), "INVALID_MANIFEST");
    // Epoch gap / repeat.
    for e in [3u32, 5, 100] {
        let mut b = good.clone();
        b[4].epoch = e;
        relink(&mut b, &seeds);
        assert_eq!(verify_err(b).code(), "INVALID_MANIFEST", "epoch {e}");
    }
    // Group id change, second genesis, commitment on a non-rotate block, non-zero rotate subject.
    let mut b = good.clone();
    b[2].group_id[0] ^= 1;
    relink(&mut b, &seeds);
    assert_eq!(verify_err(b).code(), "INVALID_MANIFEST");
    let mut b = good.clone();
    b[1].op = ManifestOp::Genesis;
    relink(&mut b, &seeds);
    assert_eq!(verify_err(b).code(), "INVALID_MANIFEST");
    let mut b = good.clone();
    b[1].key_commitment = [1; 32];
    relink(&mut b, &seeds);
    assert_eq!(verify_err(b).code(), "INVALID_MANIFEST");
    // Genesis rules.
    let mut b = good.clone();
    b[0].epoch = 1;
    relink(&mut b, &seeds);
    resign(&mut b[0], &FOUNDER);
    assert_eq!(verify_err(b).code(), "INVALID_MANIFEST");
    let mut b = good.clone();
    b[0].subject = pk(&ALICE);
    resign(&mut b[0], &FOUNDER);
    assert_eq!(verify_err(b).code(), "INVALID_MANIFEST");
    assert_eq!(verify_err(good[1..].to_vec()).code(), "INVALID_MANIFEST");
    assert_eq!(verify_err(vec![]).code(), "INVALID_MANIFEST");
    // Every byte of the serialised manifest flipped: INVALID_MANIFEST, except
    // a block count that no longer matches the length (§10: TRUNCATED /
    // TRAILING_BYTES when it stays within 1 ..= 1 000 000).
    let bytes = chain().to_bytes();
    for at in 0..bytes.len() {
        let mut bad = bytes.clone();
        bad[at] ^= 0x01;
        let count = u32::from_be_bytes(bad[5..9].try_into().unwrap()) as usize;
        let want = match 9 + 221 * count {
            _ if !(5..9).contains(&at) || count == 0 || count > 1_000_000 => "INVALID_MANIFEST",
            len if len > bad.len() => "TRUNCATED",
            _ => "TRAILING_BYTES",
        };
        let err = GroupManifest::parse(&bad)
            .and_then(|m| m.verify(None, None))
            .unwrap_err();
        assert_eq!(err.code(), want, "flip at {at}: {err}");
    }
}

#[test]
fn wire_format_errors() {
    let bytes = chain().to_bytes();
    assert_eq!(
        GroupManifest::parse(&bytes[..bytes.len() - 1])
            .unwrap_err()
            .code(),
        "TRUNCATED"
    );
    let mut t = bytes.clone();
    t.push(0);
    assert_eq!(
        GroupManifest::parse(&t).unwrap_err().code(),
        "TRAILING_BYTES"
    );
    let mut z = bytes.clone();
    z[5..9].copy_from_slice(&0u32.to_be_bytes());
    assert_eq!(
        GroupManifest::parse(&z).unwrap_err().code(),
        "INVALID_MANIFEST"
    );
    let mut huge = bytes[..9].to_vec();
    huge[5..9].copy_from_slice(&u32::MAX.to_be_bytes());
    assert_eq!(
        GroupManifest::parse(&huge).unwrap_err().code(),
        "INVALID_MANIFEST"
    );
    let mut many = bytes[..9].to_vec();
    many[5..9].copy_from_slice(&1_000_000u32.to_be_bytes());
    assert_eq!(GroupManifest::parse(&many).unwrap_err().code(), "TRUNCATED");
    assert_eq!(
        GroupManifest::parse(b"VCG").unwrap_err().code(),
        "TRUNCATED"
    );
    assert_eq!(
        GroupManifest::parse(b"VCGM\x01").unwrap_err().code(),
        "TRUNCATED"
    );
    assert_eq!(
        GroupManifest::parse(b"VCGX").unwrap_err().code(),
        "INVALID_MANIFEST"
    );
    let mut magic = bytes.clone();
    magic[0] = b'X';
    assert_eq!(
        GroupManifest::parse(&magic).unwrap_err().code(),
        "INVALID_MANIFEST"
    );
    let mut op = bytes.clone();
    op[9 + 20] = 9;
    assert_eq!(
        GroupManifest::parse(&op).unwrap_err().code(),
        "INVALID_MANIFEST"
    );
}

#[test]
fn rollback_pin_and_founder_anchor() {
    let m = chain();
    let truncated = GroupManifest::from_blocks(m.blocks()[..3].to_vec());
    assert_eq!(
        truncated.verify(Some(4), None).unwrap_err(),
        ContainerError::ManifestRollback { pinned: 4, head: 2 }
    );
    truncated.verify(Some(2), None).unwrap();
    // An attacker's own chain for the same group id.
    let fake = GroupManifest::genesis(GROUP_ID, &[0x66; 32], &KEY0, 1).unwrap();
    assert_eq!(
        fake.verify(None, Some(&pk(&FOUNDER))).unwrap_err().code(),
        "FOUNDER_MISMATCH"
    );
    m.verify(None, Some(&pk(&FOUNDER))).unwrap();
}

fn group_unlock_with<'a>(
    version: u32,
    key: &'a [u8; 32],
    manifest: Option<&'a [u8]>,
) -> Unlock<'a> {
    Unlock::Group(GroupUnlock {
        group_id: GROUP_ID,
        key_version: version,
        group_key: key,
        manifest,
    })
}

#[test]
fn policy_checks_the_manifest() {
    let m = chain().to_bytes();
    let (c, pt) = group_container(5000, SMALL);
    let pinned = VerificationPolicy {
        rollback_pin: Some(4),
        founder_anchor: Some(pk(&FOUNDER)),
        ..VerificationPolicy::default()
    };
    let d = decrypt(&c, &group_unlock_with(0, &KEY0, Some(&m)), &pinned).unwrap();
    assert_eq!(d.plaintext.unwrap().as_slice(), pt.as_slice());
    assert_eq!(d.report.manifest_epoch, Some(4));
    // No manifest although the policy pins one.
    let mut released = 0;
    let e = decrypt_with_sink(
        &c,
        &group_unlock_with(0, &KEY0, None),
        &pinned,
        &mut |_, _| released += 1,
    )
    .unwrap_err();
    assert_eq!((e.code(), released), ("MANIFEST_REQUIRED", 0));
    // Rolled-back manifest.
    let old = GroupManifest::from_blocks(chain().blocks()[..2].to_vec()).to_bytes();
    let e = decrypt(&c, &group_unlock_with(0, &KEY0, Some(&old)), &pinned)
        .err()
        .unwrap();
    assert_eq!(e.code(), "MANIFEST_ROLLBACK");
    // Foreign founder.
    let fake = GroupManifest::genesis(GROUP_ID, &[0x66; 32], &KEY0, 1)
        .unwrap()
        .to_bytes();
    let e = decrypt(&c, &group_unlock_with(0, &KEY0, Some(&fake)), &pinned)
        .err()
        .unwrap();
    assert_eq!(e.code(), "FOUNDER_MISMATCH");
    // Manifest of another group.
    let other = GroupManifest::genesis([1; 16], &FOUNDER, &KEY0, 1)
        .unwrap()
        .to_bytes();
    let e = decrypt(
        &c,
        &group_unlock_with(0, &KEY0, Some(&other)),
        &VerificationPolicy::default(),
    )
    .err()
    .unwrap();
    assert_eq!(e.code(), "INVALID_MANIFEST");
    // Corrupted manifest (the genesis block's key commitment): nothing released.
    let mut bad = m.clone();
    bad[100] ^= 1;
    let mut released = 0;
    let e = decrypt_with_sink(
        &c,
        &group_unlock_with(0, &KEY0, Some(&bad)),
        &pinned,
        &mut |_, _| released += 1,
    )
    .unwrap_err();
    assert_eq!((e.code(), released), ("INVALID_MANIFEST", 0));
}

#[test]
fn revocation_modes() {
    let mut m = chain();
    let pt = data(3 * 4096 + 11);
    let old_file = encrypt(&pt, options(vec![group_spec()], SMALL))
        .unwrap()
        .container;

    // Lazy: Bob is removed; nothing else changes; old keys still open old files.
    let lazy = revoke_member(&mut m, &ADMIN, pk(&BOB), RevocationMode::Lazy, 200).unwrap();
    assert!(lazy.is_none());
    assert_eq!(open(&old_file, &group_unlock()).unwrap(), pt);

    // Forward-only: Alice is removed, a new key epoch is committed; new files use it.
    let (epoch, new_key) =
        revoke_member(&mut m, &ADMIN, pk(&ALICE), RevocationMode::ForwardOnly, 201)
            .unwrap()
            .unwrap();
    let state = m.verify(None, Some(&pk(&FOUNDER))).unwrap();
    assert_eq!(state.current_key_epoch(), epoch);
    state.check_group_key(epoch, new_key.as_slice()).unwrap();
    let new_file = encrypt(
        &pt,
        options(vec![WrapSpec::group(GROUP_ID, epoch, &new_key)], SMALL),
    )
    .unwrap()
    .container;
    let manifest = m.to_bytes();
    let pinned = VerificationPolicy {
        rollback_pin: Some(state.head_epoch),
        ..VerificationPolicy::default()
    };
    let u_new = group_unlock_with(epoch, &new_key, Some(&manifest));
    assert_eq!(
        decrypt(&new_file, &u_new, &pinned)
            .unwrap()
            .plaintext
            .unwrap()
            .as_slice(),
        pt.as_slice()
    );
    // The old key does not open the new file; the old file is untouched.
    assert_rejected(&new_file, &group_unlock(), "NO_MATCHING_WRAP");
    assert_eq!(open(&old_file, &group_unlock()).unwrap(), pt);

    // Strict (rewrap): the old file's group wrap moves to the new epoch, chunks untouched.
    let rewrapped = rewrap_group(
        &old_file,
        &GroupUnlock {
            group_id: GROUP_ID,
            key_version: 0,
            group_key: &KEY0,
            manifest: None,
        },
        epoch,
        &new_key,
        None,
    )
    .unwrap();
    let (_, old_envs) = split(&old_file);
    let (_, new_envs) = split(&rewrapped);
    assert_eq!(old_envs, new_envs);
    assert_rejected(&rewrapped, &group_unlock(), "NO_MATCHING_WRAP");
    assert_eq!(
        decrypt(&rewrapped, &u_new, &pinned)
            .unwrap()
            .plaintext
            .unwrap()
            .as_slice(),
        pt.as_slice()
    );
}

#[test]
fn strict_reencrypt_after_rotation() {
    let mut m = chain();
    let pt = data(9000);
    let old_file = encrypt(&pt, options(vec![group_spec()], SMALL))
        .unwrap()
        .container;
    let (epoch, key) = revoke_member(&mut m, &FOUNDER, pk(&ADMIN), RevocationMode::Strict, 300)
        .unwrap()
        .unwrap();
    let out = reencrypt(
        &old_file,
        &group_unlock(),
        &VerificationPolicy::default(),
        options(vec![WrapSpec::group(GROUP_ID, epoch, &key)], SMALL),
    )
    .unwrap()
    .container;
    let (a, _) = Header::parse(&old_file).unwrap();
    let (b, _) = Header::parse(&out).unwrap();
    assert_ne!(a.file_id, b.file_id);
    assert_eq!(
        open(&out, &group_unlock_with(epoch, &key, None)).unwrap(),
        pt
    );
    // The removed admin can no longer extend the chain.
    assert_eq!(
        m.add_member(&ADMIN, [1; 32], 400).unwrap_err().code(),
        "INVALID_MANIFEST"
    );
}
