//! Statements of `docs/FORMAT.md` that an independent reader found
//! under-specified (review 2026-12, K1–K5), each checked against the code:
//! what a key-less check binds (§11), the stripped purged container (§8.3),
//! the order of the unlock outcomes (§4.2), the manifest codes (§11 step 4)
//! and the order of the metadata checks (§8.2).
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

/// A group key one byte short.
static SHORT_KEY: [u8; 31] = [0x4b; 31];

/// Offset of the chunk-size field in the fixed header (§3.1).
const CHUNK_SIZE_AT: usize = 27;

fn with_chunk_size(c: &[u8], chunk_size: u32) -> Vec<u8> {
    let mut out = c.to_vec();
    out[CHUNK_SIZE_AT..CHUNK_SIZE_AT + 4].copy_from_slice(&chunk_size.to_be_bytes());
    out
}

fn keyless(c: &[u8]) -> Result<VerificationReport> {
    verify_container(c, &VerificationPolicy::default(), None)
}

fn code<T>(r: Result<T>) -> &'static str {
    match r {
        Ok(_) => "OK",
        Err(e) => e.code(),
    }
}

/// §11 (K1): `C` is not in the leaf input. A key-less check of an unsigned
/// file of at most one chunk passes a changed `C`; the DEK commitment (at
/// unlock) and, in v5, the signature refuse it; with two chunks the leaf does.
#[test]
fn keyless_check_binds_chunk_size_only_from_two_chunks() {
    for len in [0usize, 1, 100, 4096] {
        let (c, _) = group_container(len, SMALL);
        let changed = with_chunk_size(&c, 8192);
        let rep = keyless(&changed).unwrap();
        assert!(rep.is_intact(), "P = {len}: {rep:?}");
        assert_rejected(&changed, &group_unlock(), "AUTHENTICATION_FAILED");
    }
    // An empty v4 file: a changed file id passes a key-less check as well.
    let (c, _) = group_container(0, SMALL);
    let mut other_id = c.clone();
    other_id[11] ^= 1;
    assert!(keyless(&other_id).unwrap().is_intact());
    assert_rejected(&other_id, &group_unlock(), "AUTHENTICATION_FAILED");
    // One chunk of 100 bytes: a file id is in the leaf.
    let (c, _) = group_container(100, SMALL);
    let mut other_id = c.clone();
    other_id[11] ^= 1;
    assert_eq!(code(keyless(&other_id)), "AUTHENTICATION_FAILED");
    // Two chunks: len_0 = C is in leaf_0 (same n, same total length).
    let (c, _) = group_container(5000, SMALL);
    assert_eq!(
        code(keyless(&with_chunk_size(&c, 4500))),
        "AUTHENTICATION_FAILED"
    );
    assert_eq!(code(keyless(&with_chunk_size(&c, 8192))), "TRAILING_BYTES");
    // Signed (v5), one chunk: the signature covers the field.
    let mut o = options(vec![group_spec()], SMALL);
    o.signer = Some(ed_signer(1));
    let signed = encrypt(&data(100), o).unwrap().container;
    assert_eq!(
        code(keyless(&with_chunk_size(&signed, 8192))),
        "INVALID_SIGNATURE"
    );
}

/// §8.3 (K2): a purged v5 container whose version byte is set to 4. The v4
/// reading expects `64·n + P` body bytes and finds `S = 4 + M + 64`.
#[test]
fn purged_container_read_as_v4_depends_on_its_size() {
    let s = 4 + 76 + 64; // M = 76: kind 1 with an empty reason
    for (len, want) in [
        (0usize, "TRAILING_BYTES"),
        (79, "TRAILING_BYTES"),
        (s - 64, "AUTHENTICATION_FAILED"),
        (s - 63, "TRUNCATED"),
        (5000, "TRUNCATED"),
    ] {
        let mut o = options(vec![group_spec()], SMALL);
        o.signer = Some(ed_signer(1));
        let c = encrypt(&data(len), o).unwrap().container;
        let mut purged = purge(&c, "", &ed_signer(2)).unwrap();
        assert_eq!(purged.len(), 112 + s);
        purged[8] = 4;
        assert_eq!(code(keyless(&purged)), want, "P = {len}");
        assert_eq!(
            code(decrypt(
                &purged,
                &group_unlock(),
                &VerificationPolicy::default()
            )),
            want,
            "P = {len}"
        );
        assert_eq!(
            code(verify_container(
                &purged,
                &VerificationPolicy::strict(),
                None
            )),
            "SIGNATURE_MISSING"
        );
    }
    // Not purged (kind 0, or sealed with its body kept): S bytes too long.
    let mut o = options(vec![group_spec()], SMALL);
    o.signer = Some(ed_signer(1));
    let c = encrypt(&data(5000), o).unwrap().container;
    let mut sealed = seal(&c, SealMode::Seal, "", &ed_signer(2)).unwrap();
    let mut plain = c;
    plain[8] = 4;
    sealed[8] = 4;
    assert_eq!(code(keyless(&plain)), "TRAILING_BYTES");
    assert_eq!(code(keyless(&sealed)), "TRAILING_BYTES");
}

/// §4.2 (K3): the order of the unlock outcomes and the primitive codes.
#[test]
fn unlock_outcomes_in_order() {
    let (c, _) = group_container(100, SMALL);
    let group = |id: [u8; 16], key: &'static [u8]| {
        Unlock::Group(GroupUnlock {
            group_id: id,
            key_version: 0,
            group_key: key,
            manifest: None,
        })
    };
    let short: &'static [u8] = &SHORT_KEY;
    // A matching group wrap: the primitive's own code.
    assert_rejected(&c, &group(GROUP_ID, short), "INVALID_LENGTH");
    // No matching wrap: nothing runs, NO_MATCHING_WRAP.
    assert_rejected(&c, &group([0x48; 16], short), "NO_MATCHING_WRAP");
    let recipient = Unlock::Recipient {
        secret_key: &[0u8; 31],
        recipient_id: None,
    };
    assert_rejected(&c, &recipient, "NO_MATCHING_WRAP");
    // A type-4 wrap: a secret key of 31 bytes is INVALID_LENGTH.
    let kp = xwing(7);
    let o = options(vec![WrapSpec::recipient(&kp.public, 0)], SMALL);
    let to_kp = encrypt(&data(100), o).unwrap().container;
    assert_rejected(&to_kp, &recipient, "INVALID_LENGTH");
    // Zero wraps: NO_WRAPS before the credential is looked at.
    let shredded = edit_header(&c, |h| h.wraps.clear());
    assert_rejected(&shredded, &group(GROUP_ID, short), "NO_WRAPS");
    // Sealed: SEALED first; a DEK given as bytes is checked for length even before.
    let mut o = options(vec![group_spec()], SMALL);
    o.signer = Some(ed_signer(1));
    let signed = encrypt(&data(100), o).unwrap().container;
    let sealed = seal(&signed, SealMode::Seal, "", &ed_signer(1)).unwrap();
    let mut reader = ContainerReader::new(&sealed).unwrap();
    assert_eq!(code(reader.unlock_dek(&[0u8; 31])), "INVALID_LENGTH");
    assert_eq!(code(reader.unlock_dek(&[0u8; 32])), "SEALED");
    assert_eq!(code(reader.unlock(&group(GROUP_ID, short))), "SEALED");
}

/// §11 step 4 (K4): the manifest checks, their order and codes.
#[test]
fn manifest_checks_in_order() {
    let (c, _) = group_container(100, SMALL);
    let founder = [0x11u8; 32];
    let m = GroupManifest::genesis(GROUP_ID, &founder, &GROUP_KEY, 1).unwrap();
    let other = GroupManifest::genesis([0x48; 16], &founder, &GROUP_KEY, 1).unwrap();
    let (mb, ob) = (m.to_bytes(), other.to_bytes());
    let run = |manifest: &[u8], version: u32, key: &[u8], policy: &VerificationPolicy| {
        let u = Unlock::Group(GroupUnlock {
            group_id: GROUP_ID,
            key_version: version,
            group_key: key,
            manifest: Some(manifest),
        });
        code(decrypt(&c, &u, policy))
    };
    let dflt = VerificationPolicy::default();
    assert_eq!(run(&mb, 0, &GROUP_KEY, &dflt), "OK");
    assert_eq!(run(&ob, 0, &GROUP_KEY, &dflt), "INVALID_MANIFEST");
    assert_eq!(run(&mb, 1, &GROUP_KEY, &dflt), "INVALID_MANIFEST");
    assert_eq!(
        run(&mb, 0, &GROUP_KEY[..31], &dflt),
        "AUTHENTICATION_FAILED"
    );
    assert_eq!(run(&mb, 0, &[0x4c; 32], &dflt), "AUTHENTICATION_FAILED");
    let pinned = VerificationPolicy {
        rollback_pin: Some(1),
        ..VerificationPolicy::default()
    };
    assert_eq!(run(&mb, 0, &GROUP_KEY, &pinned), "MANIFEST_ROLLBACK");
    // The founder anchor comes before the chain rules: a broken genesis
    // signature under another anchor is FOUNDER_MISMATCH.
    let mut broken = mb.clone();
    let last = broken.len() - 1;
    broken[last] ^= 1;
    assert_eq!(run(&broken, 0, &GROUP_KEY, &dflt), "INVALID_MANIFEST");
    let anchored = VerificationPolicy {
        founder_anchor: Some([0x22; 32]),
        ..VerificationPolicy::default()
    };
    assert_eq!(run(&broken, 0, &GROUP_KEY, &anchored), "FOUNDER_MISMATCH");
    // Other unlock methods ignore the pin and the anchor.
    assert_eq!(
        code(decrypt(&c, &Unlock::Password(b"x"), &pinned)),
        "NO_MATCHING_WRAP"
    );
}

/// §8.2 (K5): the metadata checks in order, TRUNCATED versus INVALID_METADATA.
#[test]
fn metadata_checks_in_order() {
    let mut o = options(vec![group_spec()], SMALL);
    o.signer = Some(ed_signer(1));
    let plain = encrypt(&data(100), o).unwrap().container;
    let sealed = seal(&plain, SealMode::Seal, "ab", &ed_signer(1)).unwrap();
    let parse = |bytes: &[u8]| code(Header::parse(bytes));
    // Kind 0, v5: the metadata follows the wrap table (one group wrap) and M.
    let (h, _) = Header::parse(&plain).unwrap();
    let meta = 112 + h.wraps.iter().map(|w| w.to_bytes().len()).sum::<usize>() + 4;
    let edit = |c: &[u8], at: usize, v: u8| {
        let mut b = c.to_vec();
        b[meta + at] = v;
        b
    };
    assert_eq!(parse(&plain), "OK");
    assert_eq!(parse(&edit(&plain, 0, 2)), "INVALID_METADATA");
    assert_eq!(parse(&edit(&plain, 0, 1)), "TRUNCATED"); // no seal_mode byte in M = 73
    // Kind 1 ("ab", M = 78): seal_mode at 73, reason_len at 74..76, reason at 76..78.
    let sealed_meta = 116; // a sealed header has no wraps: metadata at 112 + 0 + 4
    let at = |c: &[u8], i: usize, v: u8| {
        let mut b = c.to_vec();
        b[sealed_meta + i] = v;
        b
    };
    assert_eq!(parse(&sealed), "OK");
    assert_eq!(parse(&at(&sealed, 0, 0)), "INVALID_METADATA"); // kind 0, bytes left
    assert_eq!(parse(&at(&sealed, 0, 7)), "INVALID_METADATA");
    assert_eq!(parse(&at(&sealed, 73, 2)), "INVALID_METADATA");
    let len = |c: &[u8], n: u16| {
        let mut b = c.to_vec();
        b[sealed_meta + 74..sealed_meta + 76].copy_from_slice(&n.to_be_bytes());
        b
    };
    assert_eq!(parse(&len(&sealed, 1025)), "INVALID_METADATA"); // before the reason is read
    assert_eq!(parse(&len(&sealed, 3)), "TRUNCATED");
    assert_eq!(parse(&len(&sealed, 1)), "INVALID_METADATA"); // a byte left
    assert_eq!(parse(&at(&sealed, 76, 0xff)), "INVALID_METADATA"); // not UTF-8
    // Metadata errors come before a signature table cut short.
    let bad = at(&sealed, 73, 2);
    assert_eq!(parse(&bad[..sealed_meta + 78 + 10]), "INVALID_METADATA");
    assert_eq!(parse(&sealed[..sealed_meta + 78 + 10]), "TRUNCATED");
}
