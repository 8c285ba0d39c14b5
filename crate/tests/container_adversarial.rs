//! Adversarial containers: every case of issue #4 is rejected with a typed
//! error and (in verified mode) no plaintext reaches the caller.
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

const C: usize = 4096;

/// A 4-chunk (last one short) group container.
fn sample() -> (Vec<u8>, Vec<u8>) {
    group_container(3 * C + 700, SMALL)
}

fn flip(bytes: &[u8], at: usize, mask: u8) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at] ^= mask;
    out
}

fn set_u32(bytes: &mut [u8], at: usize, v: u32) {
    bytes[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

// ---------------------------------------------------------------- body attacks

#[test]
fn truncation_at_every_chunk_boundary_and_inside_chunks() {
    let (c, _) = sample();
    let h = header_len(&c);
    // Fixed part (112 bytes, DEK commitment at 80..112), header, leaf table
    // (4 × 32 bytes), envelopes.
    let table_end = h + 4 * 32;
    let mut cuts = vec![
        0,
        1,
        79,
        80,
        111,
        112,
        h - 1,
        h,
        h + 1,
        h + 32,
        table_end - 1,
        table_end,
    ];
    for k in 0..4 {
        let start = table_end + k * (C + 32);
        cuts.extend([
            start,
            start + 1,
            start + 4,
            start + 16,
            start + 100,
            start + (C + 32) / 2,
        ]);
    }
    cuts.push(c.len() - 16);
    cuts.push(c.len() - 1);
    for cut in cuts.into_iter().filter(|&x| x < c.len()) {
        let err = assert_rejected(&c[..cut], &group_unlock(), "TRUNCATED");
        assert!(matches!(err, ContainerError::Truncated { .. }), "cut {cut}");
    }
}

#[test]
fn chunk_swap_duplication_deletion_and_trailing_bytes() {
    let (c, _) = sample();
    let (header, envs) = split(&c);
    // Swap two full-size chunks (same length, so only crypto can tell).
    let mut swapped = envs.clone();
    swapped.swap(0, 2);
    assert_rejected(
        &join(&header, &swapped),
        &group_unlock(),
        "AUTHENTICATION_FAILED",
    );
    // Swap and rewrite the stored index so the index check passes: the leaf
    // (which covers the stored index) no longer matches its table entry.
    let mut relabeled = swapped.clone();
    relabeled[0][..4].copy_from_slice(&0u32.to_be_bytes());
    relabeled[2][..4].copy_from_slice(&2u32.to_be_bytes());
    assert_rejected(
        &join(&header, &relabeled),
        &group_unlock(),
        "AUTHENTICATION_FAILED",
    );
    // Duplicate chunk 1 in place of chunk 2.
    let mut dup = envs.clone();
    dup[2] = envs[1].clone();
    assert_rejected(
        &join(&header, &dup),
        &group_unlock(),
        "AUTHENTICATION_FAILED",
    );
    // Duplicate chunk 1 (inserted): one envelope too many.
    let mut ins = envs.clone();
    ins.insert(2, envs[1].clone());
    assert_rejected(&join(&header, &ins), &group_unlock(), "TRAILING_BYTES");
    // Delete a middle chunk and the last chunk.
    for i in [1usize, 3] {
        let mut del = envs.clone();
        del.remove(i);
        assert_rejected(&join(&header, &del), &group_unlock(), "TRUNCATED");
    }
    // Trailing bytes.
    for extra in [&b"\0"[..], &[0u8; 32][..], &envs[0][..]] {
        let mut t = c.clone();
        t.extend_from_slice(extra);
        assert_rejected(&t, &group_unlock(), "TRAILING_BYTES");
    }
    // The reader's sequential mode detects truncation / surplus too.
    let mut r = reader_with_table(&c);
    r.unlock(&group_unlock()).unwrap();
    r.begin_sequential().unwrap();
    for e in &envs[..3] {
        r.next_chunk(e).unwrap();
    }
    assert_eq!(r.end_sequential().unwrap_err().code(), "TRUNCATED");
    r.begin_sequential().unwrap();
    for e in &envs {
        r.next_chunk(e).unwrap();
    }
    assert_eq!(r.next_chunk(&envs[0]).unwrap_err().code(), "TRAILING_BYTES");
    r.end_sequential().unwrap();
}

#[test]
fn cross_file_splice_under_the_same_key() {
    let pt = data(3 * C + 700);
    let a = encrypt(&pt, options(vec![group_spec()], SMALL))
        .unwrap()
        .container;
    let b = encrypt(&pt, options(vec![group_spec()], SMALL))
        .unwrap()
        .container;
    let (ha, ea) = split(&a);
    let (hb, eb) = split(&b);
    assert_eq!(ha.len(), hb.len());
    // One chunk of B in A.
    let mut spliced = ea.clone();
    spliced[1] = eb[1].clone();
    assert_rejected(
        &join(&ha, &spliced),
        &group_unlock(),
        "AUTHENTICATION_FAILED",
    );
    // A's header on B's body, and vice versa.
    assert_rejected(&join(&ha, &eb), &group_unlock(), "AUTHENTICATION_FAILED");
    assert_rejected(&join(&hb, &ea), &group_unlock(), "AUTHENTICATION_FAILED");
}

#[test]
fn flipped_ciphertext_tag_and_iv_bytes() {
    let (c, _) = sample();
    let h = header_len(&c);
    let table_end = h + 4 * 32;
    for off in [4usize, 15, 16, 17, 1000, C + 31] {
        let at = table_end + C + 32 + off; // inside envelope 1
        assert_rejected(
            &flip(&c, at, 0x01),
            &group_unlock(),
            "AUTHENTICATION_FAILED",
        );
    }
}

// ---------------------------------------------------------------- header attacks

/// What FORMAT.md says an unsigned (v4) header that still parses after a flip
/// at `at` fails with, in abort mode: the container length first (§11 step
/// 5: `C` and `P` give it), then the leaf table against the root (step 6, so a
/// root or hash-algorithm flip), then the unlock (step 7: a wrap that no
/// longer matches, or one over the KDF budget, §4.3), else the DEK commitment
/// or AES-KW (file id, `C`, `P`, hash algorithm, commitment, salt, wrapped
/// key: `AUTHENTICATION_FAILED`).
fn v4_flip_code(bad: &[u8], at: usize) -> &'static str {
    let (hd, hl) = Header::parse(bad).unwrap();
    let n = hd.plaintext_size.div_ceil(u64::from(hd.chunk_size));
    let len = hl as u64 + 64 * n + hd.plaintext_size;
    let u32_at = |o: usize| u32::from_be_bytes(bad[o..o + 4].try_into().unwrap());
    match (at, bad[112]) {
        _ if len > bad.len() as u64 => "TRUNCATED",
        _ if len < bad.len() as u64 => "TRAILING_BYTES",
        (39..71, _) => "AUTHENTICATION_FAILED", // root
        (115..135, 3) => "NO_MATCHING_WRAP",    // group id, key version
        (115..127, 1) if u32_at(115) > 262_144 || u32_at(119) > 4 => "KDF_BUDGET_EXCEEDED",
        _ => "AUTHENTICATION_FAILED",
    }
}

/// Flips every header byte of `c` with each mask. Every variant fails and
/// releases nothing, in abort and in report mode, with the code the format
/// gives it: a flip the parser refuses fails with the parser's code; a header
/// that still parses as signed (v5/v6) fails with `INVALID_SIGNATURE`,
/// whatever byte was hit (every byte before the signatures is signed, §8.1,
/// the rest are the signatures), in report mode too (§11 step 2: always
/// fatal); one that parses as unsigned (v4, or v5 lowered to v4, §8.3) with
/// [`v4_flip_code`], except that report mode goes on past the length and the
/// table: a root flip or a lowered version gives a report that is not intact,
/// a `C` or `P` flip then fails the DEK commitment. Returns how many flips
/// still parsed.
fn flip_every_header_byte(c: &[u8], unlock: &Unlock<'_>, masks: &[u8]) -> usize {
    let h = header_len(c);
    let report = VerificationPolicy {
        on_tamper: TamperAction::Report,
        ..VerificationPolicy::default()
    };
    let mut parsed = 0;
    for at in 0..h {
        for &mask in masks {
            let bad = flip(c, at, mask);
            let (abort_code, report_code) = match Header::parse(&bad) {
                Err(e) => (e.code(), Some(e.code())),
                Ok((hd, _)) if hd.signed.is_some() => {
                    ("INVALID_SIGNATURE", Some("INVALID_SIGNATURE"))
                }
                Ok(_) => {
                    let code = v4_flip_code(&bad, at);
                    let report_code = match at {
                        8 | 39..71 => None,                      // version lowered, root
                        27..39 => Some("AUTHENTICATION_FAILED"), // C, P
                        _ => Some(code),
                    };
                    (code, report_code)
                }
            };
            parsed += usize::from(Header::parse(&bad).is_ok());
            for (policy, want) in [
                (VerificationPolicy::default(), Some(abort_code)),
                (report.clone(), report_code),
            ] {
                let mut released = 0usize;
                let r = decrypt_with_sink(&bad, unlock, &policy, &mut |_, _| released += 1);
                let what = format!("flip at {at} mask {mask:#04x} ({:?})", policy.on_tamper);
                assert_eq!(released, 0, "{what} released plaintext");
                match (r, want) {
                    (Err(e), Some(code)) => assert_eq!(e.code(), code, "{what}: {e}"),
                    (Ok(rep), None) => {
                        assert!(!rep.is_intact() && !rep.merkle_valid, "{what}: {rep:?}");
                    }
                    (r, want) => panic!("{what}: expected {want:?}, got {r:?}"),
                }
            }
        }
    }
    parsed
}

#[test]
fn every_header_byte_flipped_v4_group() {
    let (c, _) = sample();
    let parsed = flip_every_header_byte(&c, &group_unlock(), &[0x01, 0x80, 0xff]);
    // The file id, root, DEK commitment and wrap bytes (group id, version,
    // wrapped key) at least: 3 · (16 + 32 + 32 + 60) flips reach the checks
    // after the parser.
    assert!(parsed >= 3 * 140, "{parsed}");
}

#[test]
fn every_header_byte_flipped_v4_argon2id() {
    let pt = data(C + 1);
    let c = encrypt(&pt, options(vec![argon_min(PASSWORD)], SMALL))
        .unwrap()
        .container;
    let parsed = flip_every_header_byte(&c, &Unlock::Password(PASSWORD), &[0x01]);
    assert!(parsed >= 16 + 32 + 32 + 56, "{parsed}");
}

#[test]
fn every_header_byte_flipped_v5_and_v6_signed() {
    let pt = data(2 * C + 3);
    for signer in [ed_signer(10), hybrid_signer(10)] {
        let version = signer.version();
        let mut o = options(vec![group_spec()], SMALL);
        o.signer = Some(signer);
        let c = encrypt(&pt, o).unwrap().container;
        assert_eq!(c[8], version);
        let parsed = flip_every_header_byte(&c, &group_unlock(), &[0x01]);
        // File id, root, commitment, the wrap's group id, version and wrapped
        // key, the metadata's timestamp, keys and key-log id, the signatures:
        // all signed, all INVALID_SIGNATURE.
        let sigs = if version == 6 { 64 + 3309 } else { 64 };
        let keys = if version == 6 { 32 + 1952 } else { 32 };
        assert!(
            parsed >= 16 + 32 + 32 + 60 + 8 + keys + 32 + sigs,
            "{parsed}"
        );
    }
}

#[test]
fn fixed_field_errors_are_typed() {
    let (c, _) = sample();
    let cases: Vec<(usize, u8, &str)> = vec![
        (0, b'X', "BAD_MAGIC"),
        (8, 0, "UNSUPPORTED_VERSION"),
        // The non-committing versions 1–3 are refused, like anything above 6.
        (8, 1, "UNSUPPORTED_VERSION"),
        (8, 2, "UNSUPPORTED_VERSION"),
        (8, 3, "UNSUPPORTED_VERSION"),
        (8, 7, "UNSUPPORTED_VERSION"),
        (8, 0xff, "UNSUPPORTED_VERSION"),
        (9, 0, "NON_CANONICAL"), // mode says password, table is a group wrap
        (9, 6, "NON_CANONICAL"),
        (10, 1, "UNSUPPORTED_CIPHER_SUITE"),
        (72, 2, "UNSUPPORTED_HASH_ALGORITHM"),
        (73, 1, "NON_CANONICAL"), // reserved
        (75, 0x80, "NON_CANONICAL"),
    ];
    for (at, value, code) in cases {
        let mut bad = c.clone();
        bad[at] = value;
        assert_rejected(&bad, &group_unlock(), code);
        assert_eq!(Header::parse(&bad).unwrap_err().code(), code);
    }
}

#[test]
fn chunk_size_out_of_range() {
    let (c, _) = sample();
    for size in [0u32, 1, 4095, 16 * 1024 * 1024 + 1, u32::MAX] {
        let mut bad = c.clone();
        set_u32(&mut bad, 27, size);
        let err = assert_rejected(&bad, &group_unlock(), "INVALID_CHUNK_SIZE");
        assert_eq!(err, ContainerError::InvalidChunkSize(size));
    }
    // Writers refuse them as well.
    for size in [0u32, 1, 4095, 16 * 1024 * 1024 + 1] {
        let e = encrypt(b"x", options(vec![group_spec()], size));
        assert_eq!(e.err().unwrap().code(), "INVALID_CHUNK_SIZE");
    }
    // 2^32 chunks is the limit.
    let mut bad = c.clone();
    bad[31..39].copy_from_slice(&(u64::from(SMALL) * (1u64 << 32) + 1).to_be_bytes());
    assert_rejected(&bad, &group_unlock(), "INVALID_PLAINTEXT_SIZE");
}

#[test]
fn plaintext_size_lies() {
    let (c, _) = sample();
    let p = (3 * C + 700) as u64;
    for lie in [
        p - 1,
        p + 1,
        p - C as u64,
        p + C as u64,
        0,
        u64::from(u32::MAX),
    ] {
        let bad = edit_header(&c, |h| h.plaintext_size = lie);
        let err = assert_rejected(
            &bad,
            &group_unlock(),
            if lie < p {
                "TRAILING_BYTES"
            } else {
                "TRUNCATED"
            },
        );
        assert!(matches!(
            err,
            ContainerError::TrailingBytes | ContainerError::Truncated { .. }
        ));
    }
    // Even with the body length adjusted to the lie, the chunks no longer authenticate.
    let mut longer = edit_header(&c, |h| h.plaintext_size = p + 1);
    longer.push(0);
    assert_rejected(&longer, &group_unlock(), "AUTHENTICATION_FAILED");
    let mut shorter = edit_header(&c, |h| h.plaintext_size = p - 1);
    shorter.pop();
    assert_rejected(&shorter, &group_unlock(), "AUTHENTICATION_FAILED");
}

#[test]
fn wrap_count_and_variable_length_lies() {
    let kp = xwing(3);
    let pt = data(100);
    let c = encrypt(
        &pt,
        options(
            vec![group_spec(), WrapSpec::recipient(&kp.public, 0)],
            SMALL,
        ),
    )
    .unwrap()
    .container;
    let var = u32::from_be_bytes(c[76..80].try_into().unwrap());
    assert_eq!(var as usize, 63 + 1183);
    for count in [0u8, 1, 3, 255] {
        let mut bad = c.clone();
        bad[71] = count;
        assert_rejected(&bad, &group_unlock(), "NON_CANONICAL");
    }
    for v in [0, var - 1, var + 1, var - 63, var + 61, u32::MAX] {
        let mut bad = c.clone();
        set_u32(&mut bad, 76, v);
        let err = assert_rejected(&bad, &group_unlock(), "NON_CANONICAL");
        assert!(
            matches!(err, ContainerError::NonCanonical(_)),
            "{v}: {err:?}"
        );
    }
    // Var length claiming more bytes than exist is caught before reading them:
    // the 112-byte fixed part (DEK commitment included) is enough to know the
    // header length, 80 bytes are not.
    assert_eq!(Header::required_len(&c[..80]).unwrap(), Err(112));
    assert_eq!(
        Header::required_len(&c[..112]).unwrap(),
        Ok(112 + var as usize)
    );
    // A lying length field out of its bounds (61·w ≤ V ≤ 1183·w, w = 2) is
    // refused from those 112 bytes alone: no reader asks for the bytes it claims.
    for v in [0, 121, 2367, u32::MAX] {
        let mut lying = c[..112].to_vec();
        set_u32(&mut lying, 76, v);
        let err = Header::required_len(&lying).unwrap_err();
        assert!(
            matches!(err, ContainerError::NonCanonical(_)),
            "{v}: {err:?}"
        );
        assert_eq!(
            ContainerReader::parse_header(&lying).err().unwrap().code(),
            "NON_CANONICAL",
            "{v}"
        );
    }
}

#[test]
fn zero_wraps_parse_but_do_not_open() {
    let (c, _) = sample();
    let bad = edit_header(&c, |h| h.wraps.clear());
    let (h, _) = Header::parse(&bad).unwrap();
    assert_eq!(h.mode(), Mode::None);
    assert_eq!(bad[9], 5);
    assert_rejected(&bad, &group_unlock(), "NO_WRAPS");
    assert_rejected(&bad, &Unlock::Password(PASSWORD), "NO_WRAPS");
    // Inspection still works.
    let rep = verify_container(&bad, &VerificationPolicy::default(), None).unwrap();
    assert!(rep.is_intact() && !rep.chunks_authenticated);
    // Writers refuse zero wraps.
    assert_eq!(
        encrypt(b"x", options(vec![], SMALL)).err().unwrap().code(),
        "INVALID_OPTION"
    );
}

#[test]
fn wrap_entry_structure_errors() {
    let (c, _) = sample();
    // Group wrap at 112 (after the 32-byte DEK commitment): type ‖ u16 len ‖ 60 bytes.
    for (len, code) in [
        (59u16, "INVALID_WRAP"),
        (61, "INVALID_WRAP"),
        (0, "INVALID_WRAP"),
        (1180, "INVALID_WRAP"),
    ] {
        let mut bad = c.clone();
        bad[113..115].copy_from_slice(&len.to_be_bytes());
        assert_rejected(&bad, &group_unlock(), code);
    }
    for t in [2u8, 6, 0xff] {
        let mut bad = c.clone();
        bad[112] = t;
        let err = assert_rejected(&bad, &group_unlock(), "UNSUPPORTED_WRAP_TYPE");
        assert_eq!(err, ContainerError::UnsupportedWrapType(t));
    }
    // Retyping a 60-byte group payload as PBKDF2 (also 60 bytes): parses only
    // if the iteration field is in range; here it is not.
    let mut bad = c.clone();
    bad[112] = 0;
    bad[9] = 0;
    assert_rejected(&bad, &group_unlock(), "INVALID_WRAP");
}

#[test]
fn kdf_parameter_bounds_enforced_on_parse() {
    let pt = data(10);
    let c = encrypt(&pt, options(vec![argon_min(PASSWORD)], SMALL))
        .unwrap()
        .container;
    // Argon2id payload at 115 (wrap at 112: type ‖ u16 len): m ‖ t ‖ p ‖ salt ‖ wrapped.
    for (at, v) in [
        (115, 19_455u32),
        (115, 1_048_577),
        (115, 0),
        (119, 1),
        (119, 11),
        (119, 0),
        (123, 0),
        (123, 17),
    ] {
        let mut bad = c.clone();
        set_u32(&mut bad, at, v);
        assert_rejected(&bad, &Unlock::Password(PASSWORD), "INVALID_WRAP");
    }
    // PBKDF2 bounds: build entries directly (no 600k derivation needed).
    for (iterations, ok) in [
        (599_999u32, false),
        (600_000, true),
        (10_000_000, true),
        (10_000_001, false),
        (0, false),
    ] {
        let entry = WrapEntry::Pbkdf2 {
            iterations,
            salt: [1; 16],
            wrapped: [2; 40],
        };
        let bytes = entry.to_bytes();
        assert_eq!(WrapEntry::parse(&bytes).is_ok(), ok, "{iterations}");
    }
    // Writers refuse out-of-range costs.
    let bad_cost = Argon2idCost {
        memory_kib: 8192,
        iterations: 2,
        parallelism: 1,
    };
    let spec = WrapSpec::Argon2id {
        password: Zeroizing::new(b"p".to_vec()),
        cost: bad_cost,
    };
    assert_eq!(
        encrypt(b"x", options(vec![spec], SMALL))
            .err()
            .unwrap()
            .code(),
        "INVALID_OPTION"
    );
    let spec = WrapSpec::Pbkdf2 {
        password: Zeroizing::new(b"p".to_vec()),
        iterations: 100_000,
    };
    assert_eq!(
        encrypt(b"x", options(vec![spec], SMALL))
            .err()
            .unwrap()
            .code(),
        "INVALID_OPTION"
    );
}

// ---------------------------------------------------------------- wrap attacks

#[test]
fn aes_kw_integrity_failure() {
    let (c, _) = sample();
    // Group wrap at 112: type ‖ u16 len ‖ group_id 16 ‖ version 4 ‖ wrapped 40
    // → wrapped at 135..175.
    for at in [135usize, 150, 174] {
        assert_rejected(
            &flip(&c, at, 0x40),
            &group_unlock(),
            "AUTHENTICATION_FAILED",
        );
    }
    // A wrap copied from another container (other DEK, same group key): unwraps
    // under that file id only.
    let (other, _) = sample();
    let mut spliced = c.clone();
    spliced[112..175].copy_from_slice(&other[112..175]);
    assert_rejected(&spliced, &group_unlock(), "AUTHENTICATION_FAILED");
    // …and with the other container's DEK commitment as well (the wrap is
    // still bound to the other file id, so AES-KW fails first).
    let mut spliced = c.clone();
    spliced[80..175].copy_from_slice(&other[80..175]);
    assert_rejected(&spliced, &group_unlock(), "AUTHENTICATION_FAILED");
}

#[test]
fn wrong_password_wrong_group_key_wrong_recipient() {
    let pt = data(C + 5);
    let me = xwing(1);
    let other = xwing(2);
    let c = encrypt(
        &pt,
        options(
            vec![
                argon_min(PASSWORD),
                WrapSpec::recipient(&me.public, 0),
                group_spec(),
            ],
            SMALL,
        ),
    )
    .unwrap()
    .container;
    assert_rejected(
        &c,
        &Unlock::Password(b"wrong password"),
        "AUTHENTICATION_FAILED",
    );
    assert_rejected(&c, &Unlock::Password(b""), "AUTHENTICATION_FAILED");
    let wrong_key = [0u8; 32];
    let u = Unlock::Group(GroupUnlock {
        group_id: GROUP_ID,
        key_version: 0,
        group_key: &wrong_key,
        manifest: None,
    });
    assert_rejected(&c, &u, "AUTHENTICATION_FAILED");
    let u = Unlock::Group(GroupUnlock {
        group_id: [9; 16],
        key_version: 0,
        group_key: &GROUP_KEY,
        manifest: None,
    });
    assert_rejected(&c, &u, "NO_MATCHING_WRAP");
    let u = Unlock::Group(GroupUnlock {
        group_id: GROUP_ID,
        key_version: 1,
        group_key: &GROUP_KEY,
        manifest: None,
    });
    assert_rejected(&c, &u, "NO_MATCHING_WRAP");
    // A KEM wrap for another recipient: trial decryption fails opaquely…
    let u = Unlock::Recipient {
        secret_key: other.secret.as_slice(),
        recipient_id: None,
    };
    assert_rejected(&c, &u, "AUTHENTICATION_FAILED");
    // …and selecting by the other recipient's id finds no wrap.
    let u = Unlock::Recipient {
        secret_key: other.secret.as_slice(),
        recipient_id: Some(wrap::recipient_id_for(&other.public)),
    };
    assert_rejected(&c, &u, "NO_MATCHING_WRAP");
    // Claiming my recipient id with the other key.
    let u = Unlock::Recipient {
        secret_key: other.secret.as_slice(),
        recipient_id: Some(wrap::recipient_id_for(&me.public)),
    };
    assert_rejected(&c, &u, "AUTHENTICATION_FAILED");
    // No threshold wrap at all.
    let g = encrypt(
        &pt,
        options(
            vec![WrapSpec::Threshold {
                threshold: 2,
                shares: 2,
            }],
            SMALL,
        ),
    )
    .unwrap();
    assert_rejected(&c, &Unlock::Shares(&g.shares[0]), "NO_MATCHING_WRAP");
    // PBKDF2 wrong password (600 000 iterations: one of few such tests).
    let spec = WrapSpec::Pbkdf2 {
        password: Zeroizing::new(PASSWORD.to_vec()),
        iterations: 600_000,
    };
    let p = encrypt(&pt, options(vec![spec], SMALL)).unwrap().container;
    assert_rejected(&p, &Unlock::Password(b"nope"), "AUTHENTICATION_FAILED");
}

#[test]
fn threshold_attacks() {
    let pt = data(500);
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
    let c = &e.container;
    let s = &e.shares[0];
    // t − 1 shares.
    let err = assert_rejected(c, &Unlock::Shares(&s[..2]), "INSUFFICIENT_SHARES");
    assert_eq!(err, ContainerError::InsufficientShares { have: 2, need: 3 });
    assert_rejected(c, &Unlock::Shares(&[]), "INVALID_SHARE");
    // Duplicate x.
    let dup = [s[0].clone(), s[1].clone(), s[1].clone()];
    assert_rejected(c, &Unlock::Shares(&dup), "INVALID_SHARE");
    // Mixed share sets.
    let other = encrypt(
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
    let mixed = [s[0].clone(), s[1].clone(), other.shares[0][2].clone()];
    assert_rejected(c, &Unlock::Shares(&mixed), "INVALID_SHARE");
    // A corrupted share string fails its checksum.
    let text = s[2].to_vcs();
    for pos in [4usize, 20, 50, 82] {
        let mut b = text.as_bytes().to_vec();
        b[pos] = if b[pos] == b'A' { b'B' } else { b'A' };
        let bad = String::from_utf8(b).unwrap();
        assert_eq!(
            ThresholdShare::parse(&bad).err().unwrap().code(),
            "INVALID_SHARE",
            "{pos}"
        );
    }
    // A corrupted y with a recomputed checksum: the wrong TMS fails AES-KW.
    let mut payload = s[2].to_payload().to_vec();
    payload[30] ^= 1;
    let cs = veilkit::hash::sha256(&payload[..55]);
    payload[55..].copy_from_slice(&cs[..4]);
    let forged = ThresholdShare::from_payload(&payload).unwrap();
    let set = [s[0].clone(), s[1].clone(), forged];
    assert_rejected(c, &Unlock::Shares(&set), "AUTHENTICATION_FAILED");
    // Share-string format errors.
    let good = s[0].to_vcs().to_string();
    let bads = [
        good.replacen("vcs_", "vcx_", 1),
        good.replacen("vcs_", "VCS_", 1),
        format!("{good}A"),
        good[..82].to_owned(),
        format!("{}=", &good[..82]),
        good.replace('-', "+")
            .replace('_', "/")
            .replacen("+", "-", 0),
        String::new(),
    ];
    for b in bads.iter().filter(|b| *b != &good) {
        assert_eq!(
            ThresholdShare::parse(b).err().unwrap().code(),
            "INVALID_SHARE",
            "{b}"
        );
    }
    // Bad fields with valid checksums.
    for (idx, value) in [
        (3usize, 0x02u8),
        (20, 1),
        (20, 6),
        (21, 1),
        (22, 0),
        (22, 6),
    ] {
        let mut p = s[0].to_payload().to_vec();
        p[idx] = value; // 3: version, 20: t, 21: n, 22: x
        let cs = veilkit::hash::sha256(&p[..55]);
        p[55..].copy_from_slice(&cs[..4]);
        assert_eq!(
            ThresholdShare::from_payload(&p).err().unwrap().code(),
            "INVALID_SHARE",
            "{idx}={value}"
        );
    }
    // Threshold wrap bounds on parse: t < 2, t > n.
    for (t, n) in [(1u8, 5u8), (0, 0), (6, 5)] {
        let entry = WrapEntry::Threshold {
            threshold: t,
            shares: n,
            share_set_id: [0; 16],
            wrapped: [0; 40],
        };
        assert_eq!(
            WrapEntry::parse(&entry.to_bytes()).err().unwrap().code(),
            "INVALID_WRAP"
        );
    }
    // And all good shares still work.
    assert_eq!(open(c, &Unlock::Shares(&s[2..])).unwrap(), pt);
}

// ---------------------------------------------------------------- Merkle attacks

#[test]
fn merkle_proof_attacks() {
    let pt = data(5 * C + 9); // 6 chunks
    let c = encrypt(&pt, options(vec![group_spec()], SMALL))
        .unwrap()
        .container;
    let mut reader = reader_with_table(&c);
    reader.unlock(&group_unlock()).unwrap();
    let (_, envs) = split(&c);
    let n = envs.len();
    let alg = HashAlg::Sha256;
    let leaves: Vec<[u8; 32]> = (0..n)
        .map(|i| reader.leaf_hash(i as u64, &envs[i]).unwrap())
        .collect();
    assert_eq!(
        leaves,
        leaf_table(&c),
        "the table holds every recomputed leaf"
    );
    let root = reader.header().merkle_root;
    assert_eq!(merkle_root(alg, &leaves), root);
    // Envelope of chunk 1 presented as chunk 2: stored index and leaf differ.
    assert_eq!(
        reader.decrypt_chunk(2, &envs[1]).unwrap_err().code(),
        "AUTHENTICATION_FAILED"
    );
    // Envelope 1 relabelled as 2 (stored index rewritten): its leaf is not table[2].
    let mut relabelled = envs[1].clone();
    relabelled[..4].copy_from_slice(&2u32.to_be_bytes());
    assert_eq!(
        reader.decrypt_chunk(2, &relabelled).unwrap_err().code(),
        "AUTHENTICATION_FAILED"
    );
    // Proof helpers (kept for key-less audits): wrong index, lengths, empty.
    let p1 = inclusion_proof(alg, &leaves, 1).unwrap();
    assert!(verify_merkle_proof(
        alg, &leaves[1], 1, n as u64, &p1, &root
    ));
    assert!(!verify_merkle_proof(
        alg, &leaves[2], 2, n as u64, &p1, &root
    ));
    assert!(!verify_merkle_proof(
        alg, &leaves[1], 2, n as u64, &p1, &root
    ));
    assert!(!verify_merkle_proof(
        alg, &leaves[1], n as u64, n as u64, &p1, &root
    ));
    let mut longer = p1.clone();
    longer.push([0; 32]);
    assert!(!verify_merkle_proof(
        alg, &leaves[1], 1, n as u64, &longer, &root
    ));
    assert!(!verify_merkle_proof(
        alg,
        &leaves[1],
        1,
        n as u64,
        &p1[..p1.len() - 1],
        &root
    ));
    assert!(!verify_merkle_proof(
        alg,
        &leaves[1],
        1,
        n as u64,
        &[],
        &root
    ));
    // Odd-level duplication (Bitcoin-style tree that repeats the last node): its
    // root differs from the RFC 6962 shape, and a table whose root it is fails.
    let node = |l: &[u8; 32], r: &[u8; 32]| merkle::node_hash(alg, l, r);
    let l01 = node(&leaves[0], &leaves[1]);
    let l23 = node(&leaves[2], &leaves[3]);
    let l45 = node(&leaves[4], &leaves[5]);
    let dup_root = node(&node(&l01, &l23), &node(&l45, &l45));
    assert_ne!(dup_root, root);
    let dup_proof = [leaves[5], l45, node(&l01, &l23)];
    assert!(!verify_merkle_proof(
        alg, &leaves[4], 4, n as u64, &dup_proof, &root
    ));
    assert!(!verify_merkle_proof(
        alg, &leaves[4], 4, n as u64, &dup_proof, &dup_root
    ));
    // A node presented as a leaf: leaf and node labels differ.
    assert_ne!(
        merkle::leaf_hash(alg, &reader.header().file_id, 0, 4096, &[0; 12], &[0; 16]),
        node(&leaves[0], &leaves[1])
    );
    // Every chunk opens against its table entry.
    for (i, env) in envs.iter().enumerate() {
        reader.decrypt_chunk(i as u64, env).unwrap();
    }
    // A header whose root was replaced is rejected (no plaintext).
    let bad = edit_header(&c, |h| h.merkle_root = dup_root);
    assert_rejected(&bad, &group_unlock(), "AUTHENTICATION_FAILED");
    // A leaf table with one entry changed no longer matches the root.
    let mut bad_table = c.clone();
    let h = header_len(&c);
    bad_table[h + 32 * 3] ^= 1;
    assert_rejected(&bad_table, &group_unlock(), "AUTHENTICATION_FAILED");
    let mut r2 = ContainerReader::new(&bad_table).unwrap();
    assert_eq!(
        r2.set_leaf_table(&bad_table[h..h + 32 * n])
            .unwrap_err()
            .code(),
        "AUTHENTICATION_FAILED"
    );
}

// ---------------------------------------------------------------- signature attacks

fn signed(signer: SigningKeys) -> (Vec<u8>, Vec<u8>) {
    let pt = data(2 * C + 1);
    let mut o = options(vec![group_spec()], SMALL);
    o.signer = Some(signer);
    (encrypt(&pt, o).unwrap().container, pt)
}

#[test]
fn signature_stripped_and_downgraded() {
    let required = VerificationPolicy::strict();
    for signer in [ed_signer(1), hybrid_signer(1)] {
        let version = signer.version();
        let (c, pt) = signed(signer);
        assert_eq!(c[8], version);
        // Strip to v4 (metadata and signature table removed, version byte lowered).
        let stripped = edit_header(&c, |h| h.signed = None);
        assert_eq!(stripped[8], 4);
        let mut released = 0;
        let err = decrypt_with_sink(&stripped, &group_unlock(), &required, &mut |_, _| {
            released += 1
        })
        .unwrap_err();
        assert_eq!(err.code(), "SIGNATURE_MISSING");
        assert_eq!(released, 0);
        assert_eq!(
            verify_container(&stripped, &required, None)
                .unwrap_err()
                .code(),
            "SIGNATURE_MISSING"
        );
        // Expected signer implies a signature.
        let pinned = VerificationPolicy {
            expected_signer: Some(ExpectedSigner::ed25519([0x11; 32])),
            ..VerificationPolicy::default()
        };
        assert_eq!(
            verify_container(&stripped, &pinned, None)
                .unwrap_err()
                .code(),
            "SIGNATURE_MISSING"
        );
        // Under an optional policy the stripped (now v4) container opens: the
        // reason a policy must require signatures.
        assert_eq!(open(&stripped, &group_unlock()).unwrap(), pt);
        // Only lowering the version byte (FORMAT.md §8.3): the header parses
        // as v4, the old metadata length, metadata and signatures are read as
        // the start of the body, and the container is that much too long.
        let var = u32::from_be_bytes(c[76..80].try_into().unwrap()) as usize;
        let m = u32::from_be_bytes(c[112 + var..116 + var].try_into().unwrap()) as usize;
        let sigs = if version == 6 { 64 + 3309 } else { 64 };
        let mut lowered = c.clone();
        lowered[8] = 4;
        let (lh, lowered_len) = Header::parse(&lowered).unwrap();
        assert!(lh.signed.is_none());
        assert_eq!(header_len(&c) - lowered_len, 4 + m + sigs);
        assert_rejected(&lowered, &group_unlock(), "TRAILING_BYTES");
        assert_eq!(
            verify_container(&lowered, &VerificationPolicy::default(), None)
                .unwrap_err()
                .code(),
            "TRAILING_BYTES"
        );
        // Under a signature policy SIGNATURE_MISSING comes first.
        assert_eq!(
            decrypt(&lowered, &group_unlock(), &required)
                .err()
                .unwrap()
                .code(),
            "SIGNATURE_MISSING"
        );
        // A stream reader, which learns the length only at the end, fails the
        // leaf-table check first (the table it reads starts with M).
        let mut r = ContainerReader::new(&lowered).unwrap();
        let table_len = r.leaf_table_len() as usize;
        assert_eq!(
            r.set_leaf_table(&lowered[lowered_len..lowered_len + table_len])
                .unwrap_err()
                .code(),
            "AUTHENTICATION_FAILED"
        );
        // Raising v5 to v6 or lowering v6 to v5: M is outside the other
        // version's range.
        let mut other = c.clone();
        other[8] = if version == 5 { 6 } else { 5 };
        assert_rejected(&other, &group_unlock(), "INVALID_METADATA");
        assert_eq!(
            Header::parse(&other).unwrap_err().code(),
            "INVALID_METADATA"
        );
        // Lowering it to an old (non-committing) version is refused outright.
        for old in 1..=3u8 {
            lowered[8] = old;
            assert_rejected(&lowered, &group_unlock(), "UNSUPPORTED_VERSION");
        }
    }
    // An empty file has no leaf table to fail: the stream reader unlocks (the
    // DEK commitment does not cover the version byte) and ends with
    // TRAILING_BYTES at the old metadata, as does the whole-buffer path.
    for signer in [ed_signer(1), hybrid_signer(1)] {
        let mut o = options(vec![group_spec()], SMALL);
        o.signer = Some(signer);
        let mut lowered = encrypt(b"", o).unwrap().container;
        lowered[8] = 4;
        assert_rejected(&lowered, &group_unlock(), "TRAILING_BYTES");
        let mut r = ContainerReader::new(&lowered).unwrap();
        let h = r.header_len();
        r.set_leaf_table(&[]).unwrap();
        r.unlock(&group_unlock()).unwrap();
        r.begin_sequential().unwrap();
        assert_eq!(
            r.next_chunk(&lowered[h..]).unwrap_err().code(),
            "TRAILING_BYTES"
        );
    }
}

#[test]
fn v3_to_v2_downgrade_and_half_invalid_signatures() {
    let (c, _) = signed(hybrid_signer(7));
    let h = header_len(&c);
    // v6 → v5: drop the ML-DSA key and signature; the Ed25519 signature covered version 6.
    let v2 = edit_header(&c, |hd| {
        let s = hd.signed.as_mut().unwrap();
        s.metadata.mldsa_public = None;
        s.mldsa_signature = None;
    });
    assert_eq!(v2[8], 5);
    assert_rejected(&v2, &group_unlock(), "INVALID_SIGNATURE");
    // Ed25519 valid, ML-DSA invalid (last byte of the ML-DSA signature).
    assert_rejected(&flip(&c, h - 1, 0x01), &group_unlock(), "INVALID_SIGNATURE");
    assert_rejected(
        &flip(&c, h - 3000, 0x01),
        &group_unlock(),
        "INVALID_SIGNATURE",
    );
    // ML-DSA valid, Ed25519 invalid (Ed25519 signature precedes the ML-DSA one).
    let ed_at = h - veilkit::mldsa::SIG_LEN - 64;
    assert_rejected(&flip(&c, ed_at, 0x01), &group_unlock(), "INVALID_SIGNATURE");
    assert_rejected(
        &flip(&c, ed_at + 63, 0x01),
        &group_unlock(),
        "INVALID_SIGNATURE",
    );
    // Swapping in another signer's ML-DSA key + signature (over the same bytes
    // but a different metadata) fails the Ed25519 half.
    let (other, _) = signed(SigningKeys::hybrid(&[0x11; 32], &[0x44; 32], [0x22; 32], 7).unwrap());
    let mixed = edit_header(&c, |hd| {
        let o = Header::parse(&other).unwrap().0.signed.unwrap();
        let s = hd.signed.as_mut().unwrap();
        s.metadata.mldsa_public = o.metadata.mldsa_public;
        s.mldsa_signature = o.mldsa_signature;
    });
    assert_rejected(&mixed, &group_unlock(), "INVALID_SIGNATURE");
}

#[test]
fn resigned_by_an_attacker_or_other_signer() {
    let (c, _) = signed(ed_signer(1));
    let owner = *ed_signer(1).ed25519_public();
    // The attacker re-signs a modified header (changed timestamp) with their key.
    let attacker = SigningKeys::ed25519(&[0x66; 32], [0; 32], 2).unwrap();
    let (mut h, len) = Header::parse(&c).unwrap();
    signature::sign_header(&mut h, &attacker, MetadataKind::Plain).unwrap();
    let mut forged = h.to_bytes().unwrap();
    forged.extend_from_slice(&c[len..]);
    let pinned = VerificationPolicy {
        expected_signer: Some(ExpectedSigner::ed25519(owner)),
        ..VerificationPolicy::strict()
    };
    let mut released = 0;
    let err = decrypt_with_sink(&forged, &group_unlock(), &pinned, &mut |_, _| released += 1)
        .unwrap_err();
    assert_eq!((err.code(), released), ("SIGNER_MISMATCH", 0));
    decrypt(&c, &group_unlock(), &pinned).unwrap();
}

// ---------------------------------------------------------------- sealing

#[test]
fn sealed_and_purged_containers() {
    let (c, pt) = sample();
    let sealer = hybrid_signer(1_800_000_000);
    let sealed = seal(&c, SealMode::Seal, "GDPR erasure request #42", &sealer).unwrap();
    let (_, envs) = split(&c);
    let (sh, _) = Header::parse(&sealed).unwrap();
    assert!(sh.is_sealed() && sh.wraps.is_empty());
    assert_eq!(sh.mode(), Mode::None);
    assert!(
        sealed.ends_with(&join(&leaf_table(&c).concat(), &envs)),
        "leaf table and ciphertext kept"
    );
    assert_eq!(
        sh.dek_commitment,
        Header::parse(&c).unwrap().0.dek_commitment
    );
    // Inspection (key-less, like any container: the table against the signed
    // root and every leaf recomputed from its ciphertext).
    let rep = verify_container(&sealed, &VerificationPolicy::strict(), None).unwrap();
    assert!(rep.merkle_valid && rep.length_valid && rep.bad_chunks.is_empty());
    // A sealed container whose body was altered or cut fails under Abort.
    let sh_len = header_len(&sealed);
    let body_flip = flip(&sealed, sh_len + 4 * 32 + C + 32 + 100, 1);
    assert_eq!(
        verify_container(&body_flip, &VerificationPolicy::default(), None)
            .unwrap_err()
            .code(),
        "AUTHENTICATION_FAILED"
    );
    let table_flip = flip(&sealed, sh_len + 7, 1);
    assert_eq!(
        verify_container(&table_flip, &VerificationPolicy::default(), None)
            .unwrap_err()
            .code(),
        "AUTHENTICATION_FAILED"
    );
    assert_eq!(
        verify_container(
            &sealed[..sealed.len() - 1],
            &VerificationPolicy::default(),
            None
        )
        .unwrap_err()
        .code(),
        "TRUNCATED"
    );
    let report = VerificationPolicy {
        on_tamper: TamperAction::Report,
        ..VerificationPolicy::default()
    };
    assert_eq!(
        verify_container(&body_flip, &report, None)
            .unwrap()
            .bad_chunks,
        vec![1]
    );
    let info = rep.sealed.clone().unwrap();
    assert_eq!(
        (info.mode, info.reason.as_str(), info.timestamp),
        (SealMode::Seal, "GDPR erasure request #42", 1_800_000_000)
    );
    assert!(!rep.is_intact());
    // Every decrypt path fails with SEALED.
    for u in [group_unlock(), Unlock::Password(PASSWORD)] {
        assert_rejected(&sealed, &u, "SEALED");
    }
    let mut r = ContainerReader::new(&sealed).unwrap();
    assert_eq!(r.unlock(&group_unlock()).unwrap_err().code(), "SEALED");
    let dek = [0u8; 32];
    assert_eq!(r.unlock_dek(&dek).unwrap_err().code(), "SEALED");
    assert_eq!(r.begin_sequential().unwrap_err().code(), "SEALED");
    assert_eq!(r.decrypt_chunk(0, &envs[0]).unwrap_err().code(), "SEALED");
    assert_eq!(r.export_dek().unwrap_err().code(), "SEALED");
    // Sealing twice / rewrapping a sealed container.
    assert_eq!(
        seal(&sealed, SealMode::Purge, "again", &sealer)
            .unwrap_err()
            .code(),
        "SEALED"
    );
    assert_eq!(
        rewrap(
            &sealed,
            &group_unlock(),
            &|_| false,
            &[group_spec()],
            Some(&sealer)
        )
        .err()
        .unwrap()
        .code(),
        "SEALED"
    );
    // Purge: header alone.
    let purged = purge(&c, "retention expired", &ed_signer(5)).unwrap();
    assert_eq!(purged.len(), header_len(&purged));
    let rep = verify_container(&purged, &VerificationPolicy::default(), None).unwrap();
    assert_eq!(rep.sealed.unwrap().mode, SealMode::Purge);
    assert!(rep.length_valid);
    assert_rejected(&purged, &group_unlock(), "SEALED");
    let pr = ContainerReader::new(&purged).unwrap();
    assert_eq!(pr.chunk_offset(0).unwrap_err().code(), "SEALED");
    // A forged seal marker (signature broken) and a "sealed" header with wraps.
    assert_eq!(
        verify_container(
            &flip(&sealed, header_len(&sealed) - 1, 1),
            &VerificationPolicy::default(),
            None
        )
        .unwrap_err()
        .code(),
        "INVALID_SIGNATURE"
    );
    let mut with_wrap = Header::parse(&sealed).unwrap().0;
    with_wrap.wraps = Header::parse(&c).unwrap().0.wraps;
    assert_eq!(with_wrap.to_bytes().unwrap_err().code(), "NON_CANONICAL");
    // The original is untouched and still opens.
    assert_eq!(open(&c, &group_unlock()).unwrap(), pt);
    // Bounds on the reason.
    let long = "x".repeat(1025);
    assert_eq!(
        seal(&c, SealMode::Seal, &long, &sealer).unwrap_err().code(),
        "INVALID_OPTION"
    );
    seal(&c, SealMode::Seal, &"x".repeat(1024), &sealer).unwrap();
}

// ---------------------------------------------------------------- release policy

#[test]
fn release_modes_and_tamper_actions() {
    let (c, pt) = sample();
    let (header, mut envs) = split(&c);
    envs[2][20] ^= 1; // chunk 2 fails authentication
    let bad = join(&header, &envs);
    // Verified / abort: nothing released.
    assert_rejected(&bad, &group_unlock(), "AUTHENTICATION_FAILED");
    // Streaming / abort: chunks 0 and 1 released, then the error.
    let streaming = VerificationPolicy {
        release_mode: ReleaseMode::Streaming,
        ..VerificationPolicy::default()
    };
    let mut got = Vec::new();
    let err =
        decrypt_with_sink(&bad, &group_unlock(), &streaming, &mut |i, _| got.push(i)).unwrap_err();
    assert_eq!((err.code(), got), ("AUTHENTICATION_FAILED", vec![0, 1]));
    // Report: the list, no plaintext.
    let report = VerificationPolicy {
        on_tamper: TamperAction::Report,
        ..VerificationPolicy::default()
    };
    let mut got = Vec::new();
    let rep = decrypt_with_sink(&bad, &group_unlock(), &report, &mut |i, _| got.push(i)).unwrap();
    assert_eq!(rep.bad_chunks, vec![2]);
    // (The leaf covers the ciphertext: chunk 2's recomputed leaf differs from
    // its table entry; the table itself still matches the root.)
    assert!(got.is_empty() && !rep.is_intact() && rep.merkle_valid);
    let d = decrypt(&bad, &group_unlock(), &report).unwrap();
    assert!(d.plaintext.is_none() && d.recovered.is_empty());
    // Streaming + report: released until the first bad chunk.
    let sr = VerificationPolicy {
        release_mode: ReleaseMode::Streaming,
        on_tamper: TamperAction::Report,
        ..VerificationPolicy::default()
    };
    let mut got = Vec::new();
    decrypt_with_sink(&bad, &group_unlock(), &sr, &mut |i, _| got.push(i)).unwrap();
    assert_eq!(got, vec![0, 1]);
    // Recover: the good chunks and the list.
    let recover = VerificationPolicy {
        on_tamper: TamperAction::Recover,
        ..VerificationPolicy::default()
    };
    let d = decrypt(&bad, &group_unlock(), &recover).unwrap();
    assert!(d.plaintext.is_none());
    assert_eq!(d.report.bad_chunks, vec![2]);
    let idx: Vec<u64> = d.recovered.iter().map(|(i, _)| *i).collect();
    assert_eq!(idx, vec![0, 1, 3]);
    assert_eq!(d.recovered[2].1.as_slice(), &pt[3 * C..]);
    // Recover on a truncated container.
    let cut = &c[..c.len() - 100];
    let d = decrypt(cut, &group_unlock(), &recover).unwrap();
    assert_eq!(d.report.missing_from, Some(3));
    assert!(!d.report.length_valid);
    assert_eq!(d.recovered.len(), 3);
    // Verify-only report without a key: structure, leaf table and every leaf.
    // Stronger than the old format (whose leaves held no ciphertext, so a
    // ciphertext flip was invisible without the key): every leaf hashes its
    // ciphertext, so key-less verification pinpoints chunk 2.
    let rep = verify_container(&bad, &report, None).unwrap();
    assert_eq!(rep.bad_chunks, vec![2]);
    assert!(rep.merkle_valid && !rep.chunks_authenticated && !rep.is_intact());
    assert_eq!(
        verify_container(&bad, &VerificationPolicy::default(), None)
            .unwrap_err()
            .code(),
        "AUTHENTICATION_FAILED"
    );
    // A tag flip likewise (the table still matches the root: only chunk 1 is bad)…
    let (_, mut envs2) = split(&c);
    let last = envs2[1].len() - 1;
    envs2[1][last] ^= 1;
    let rep = verify_container(&join(&header, &envs2), &report, None).unwrap();
    assert_eq!(rep.bad_chunks, vec![1]);
    assert!(rep.merkle_valid && !rep.is_intact());
    assert_eq!(
        verify_container(&join(&header, &envs2), &VerificationPolicy::default(), None)
            .unwrap_err()
            .code(),
        "AUTHENTICATION_FAILED"
    );
    // …while a flipped leaf-table entry breaks the root.
    let mut table_flip = c.clone();
    table_flip[header_len(&c) + 32 + 5] ^= 1;
    let rep = verify_container(&table_flip, &report, None).unwrap();
    assert!(!rep.merkle_valid && !rep.is_intact());
    assert_eq!(
        verify_container(&table_flip, &VerificationPolicy::default(), None)
            .unwrap_err()
            .code(),
        "AUTHENTICATION_FAILED"
    );
    let rep = verify_container(&c, &VerificationPolicy::default(), Some(&group_unlock())).unwrap();
    assert!(rep.is_intact() && rep.chunks_authenticated);
}

#[test]
fn random_access_reader_rejects_tampered_chunks() {
    let (c, _) = sample();
    let mut reader = ContainerReader::new(&c).unwrap();
    let (_, envs) = split(&c);
    // No leaf table yet, then locked.
    reader.unlock(&group_unlock()).unwrap();
    assert_eq!(
        reader.decrypt_chunk(1, &envs[1]).unwrap_err().code(),
        "INVALID_STATE"
    );
    let mut reader = reader_with_table(&c);
    assert_eq!(
        reader.decrypt_chunk(1, &envs[1]).unwrap_err().code(),
        "INVALID_STATE"
    );
    reader.unlock(&group_unlock()).unwrap();
    // Ciphertext flip: the recomputed leaf differs from the table entry.
    let mut e = envs[1].clone();
    e[100] ^= 1;
    assert_eq!(
        reader.decrypt_chunk(1, &e).unwrap_err().code(),
        "AUTHENTICATION_FAILED"
    );
    assert_eq!(
        reader.verify_chunk(1, &e).unwrap_err().code(),
        "AUTHENTICATION_FAILED"
    );
    // Tag flip and IV flip: the leaf covers both.
    for at in [e.len() - 1, 4] {
        let mut e = envs[1].clone();
        e[at] ^= 1;
        assert_eq!(
            reader.decrypt_chunk(1, &e).unwrap_err().code(),
            "AUTHENTICATION_FAILED"
        );
    }
    // Wrong-length envelope, wrong index.
    assert_eq!(
        reader.decrypt_chunk(1, &envs[1][..100]).unwrap_err().code(),
        "TRUNCATED"
    );
    assert_eq!(
        reader.decrypt_chunk(9, &envs[1]).unwrap_err().code(),
        "INVALID_CHUNK"
    );
    reader.verify_chunk(1, &envs[1]).unwrap();
    assert_eq!(reader.decrypt_chunk(1, &envs[1]).unwrap().len(), C);
}
