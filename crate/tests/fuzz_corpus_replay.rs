//! Replays every seed-corpus file of the cargo-fuzz targets (`fuzz/corpus/<target>/`)
//! through the same entry points (`veilkit::container::fuzzing`), so plain
//! `cargo test` catches regressions without nightly. Also checks that the
//! corpus keeps both accepted and rejected inputs for each target.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::Path;

use veilkit::container::fuzzing;
use veilkit::container::{GroupManifest, Header, ThresholdShare, WrapEntry};

type Entry = fn(&[u8]) -> Result<(), &'static str>;

fn replay(target: &str, entry: Entry, accepts: fn(&[u8]) -> bool) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 4, "{target}: corpus too small");
    let (mut valid, mut invalid) = (0, 0);
    let mut unlabelled = Vec::new();
    for f in &files {
        let data = std::fs::read(f).unwrap();
        if let Err(broken) = entry(&data) {
            panic!("{}: {broken}", f.display());
        }
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let ok = accepts(&data);
        if name.starts_with("valid_") {
            assert!(ok, "{name} should parse");
            valid += 1;
        } else if name.starts_with("invalid_") {
            assert!(!ok, "{name} should be rejected");
            invalid += 1;
        } else {
            unlabelled.push(name);
        }
    }
    println!(
        "{target} corpus: {} seeds, {valid} valid_ (must parse), {invalid} invalid_ (must be rejected), \
         {} without a prefix (replayed for totality only, no verdict asserted): {unlabelled:?}",
        files.len(),
        unlabelled.len()
    );
    assert_eq!(valid + invalid + unlabelled.len(), files.len());
    assert!(
        valid > 0 && invalid > 0,
        "{target}: {valid} valid, {invalid} invalid"
    );
}

/// Compares generated seed files with `fuzz/corpus/<target>/<name>`; with
/// `VEILKIT_WRITE_CORPUS` set, rewrites them instead.
fn check_seed_corpus(corpus: Vec<(&'static str, String, Vec<u8>)>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    let write = std::env::var_os("VEILKIT_WRITE_CORPUS").is_some();
    for (target, name, bytes) in corpus {
        let path = root.join(target).join(&name);
        if write {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &bytes).unwrap();
        } else {
            let on_disk =
                std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(on_disk, bytes, "{} is stale", path.display());
        }
    }
}

/// Deterministic mutations of every seed of `targets`: at every `step`-th
/// offset of its first `limit` bytes, the seed with that byte XORed with `xor`
/// and the seed truncated there; every entry must hold its invariants.
/// Returns the number of runs.
fn mutate_corpora(targets: &[(&str, Entry)], limit: usize, step: usize, xor: u8) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    let mut runs = 0usize;
    for (target, entry) in targets {
        for f in std::fs::read_dir(root.join(target)).unwrap() {
            let data = std::fs::read(f.unwrap().path()).unwrap();
            for at in (0..data.len().min(limit)).step_by(step) {
                let mut m = data.clone();
                m[at] ^= xor;
                entry(&m).unwrap_or_else(|b| panic!("{target}: {b}"));
                entry(&data[..at]).unwrap_or_else(|b| panic!("{target}: {b}"));
                runs += 2;
            }
        }
    }
    runs
}

#[test]
fn container_header_corpus() {
    replay("container_header", fuzzing::header, |d| {
        Header::parse(d).is_ok()
    });
    // Every accepted seed is in the current (committing) format.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/container_header");
    for f in std::fs::read_dir(&dir).unwrap() {
        let path = f.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        if let Ok((h, _)) = Header::parse(&data) {
            assert!((4..=6).contains(&h.version()), "{}", path.display());
        }
    }
}

/// Rewrites the container-header seed corpus in the current format (random
/// DEKs and salts: every byte changes). Run with `VEILKIT_WRITE_CORPUS=1 cargo
/// test -p veilkit --test fuzz_corpus_replay regenerate_container_header_corpus
/// -- --ignored`.
#[test]
#[ignore = "rewrites fuzz/corpus/container_header; run explicitly"]
fn regenerate_container_header_corpus() {
    use veilkit::container::{
        Argon2idCost, EncryptOptions, SealMode, SigningKeys, WrapSpec, encrypt, seal_header,
    };
    use zeroize::Zeroizing;
    if std::env::var("VEILKIT_WRITE_CORPUS").as_deref() != Ok("1") {
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/container_header");
    for f in std::fs::read_dir(&dir).unwrap() {
        std::fs::remove_file(f.unwrap().path()).unwrap();
    }
    let write = |name: &str, bytes: &[u8]| std::fs::write(dir.join(name), bytes).unwrap();
    let pw = || Zeroizing::new(b"corpus".to_vec());
    let make = |len: usize, wraps: Vec<WrapSpec>, signer: Option<SigningKeys>| {
        let mut o = EncryptOptions::new(0, wraps);
        o.chunk_size = 4096;
        o.signer = signer;
        encrypt(&vec![0x5a; len], o).unwrap().container
    };
    let header_of = |c: &[u8]| c[..Header::parse(c).unwrap().1].to_vec();
    let hybrid = || SigningKeys::hybrid(&[0x11; 32], &[0x33; 32], [0x22; 32], 1).unwrap();
    let group = || WrapSpec::group([0x47; 16], 0, &[0x4b; 32]);
    // Accepted: full containers (leaf table and envelopes), headers alone.
    let argon = make(
        4264,
        vec![WrapSpec::Argon2id {
            password: pw(),
            cost: Argon2idCost::MINIMUM,
        }],
        None,
    );
    write("valid_argon2id_full.vvlt", &argon);
    let pbkdf2 = make(
        6,
        vec![WrapSpec::Pbkdf2 {
            password: pw(),
            iterations: 600_000,
        }],
        None,
    );
    write("valid_pbkdf2_full.vvlt", &pbkdf2);
    let threshold = make(
        10,
        vec![WrapSpec::Threshold {
            threshold: 2,
            shares: 3,
        }],
        None,
    );
    write("valid_threshold_header.vvlt", &header_of(&threshold));
    let xw = veilkit::xwing::xwing_from_seed(&[7; 32]).unwrap();
    write(
        "valid_xwing_header.vvlt",
        &header_of(&make(10, vec![WrapSpec::recipient(&xw.public, 0)], None)),
    );
    let ed = SigningKeys::ed25519(&[0x11; 32], [0x22; 32], 1).unwrap();
    let empty_v5 = make(0, vec![group()], Some(ed));
    write("valid_v5_empty.vvlt", &empty_v5);
    let v6 = make(5000, vec![group()], Some(hybrid()));
    write("valid_v6_header.vvlt", &header_of(&v6));
    let (sealed, _) = seal_header(&v6, SealMode::Seal, "corpus", &hybrid()).unwrap();
    write("valid_sealed_header.vvlt", &sealed);
    // Rejected: one field of the Argon2id header broken each.
    let h = header_of(&argon);
    let broken = |edit: &dyn Fn(&mut Vec<u8>)| {
        let mut b = h.clone();
        edit(&mut b);
        b
    };
    write("invalid_magic.bin", &broken(&|b| b[7] = b'X'));
    write("invalid_old_version.bin", &broken(&|b| b[8] = 1));
    write("invalid_mode.bin", &broken(&|b| b[9] = 1));
    write(
        "invalid_chunk_size.bin",
        &broken(&|b| b[27..31].copy_from_slice(&256u32.to_be_bytes())),
    );
    write("invalid_wrap_count.bin", &broken(&|b| b[71] = 2));
    write("invalid_reserved.bin", &broken(&|b| b[74] = 1));
    // The fixed part is 112 bytes (DEK commitment at 80..112): one short.
    write("invalid_short.bin", &h[..111]);
    // An Ed25519 (v5) header claiming to be hybrid (v6).
    let mut lie = empty_v5.clone();
    lie[8] = 6;
    write("invalid_version_lie.bin", &lie);
}

#[test]
fn container_wrap_corpus() {
    replay("container_wrap", fuzzing::wrap, |d| {
        d.split_first()
            .is_some_and(|(&n, t)| WrapEntry::parse_table(t, n).is_ok())
    });
}

#[test]
fn container_share_corpus() {
    replay("container_share", fuzzing::share, |d| {
        std::str::from_utf8(d).is_ok_and(|s| ThresholdShare::parse(s).is_ok())
            || ThresholdShare::from_payload(d).is_ok()
    });
}

#[test]
fn container_manifest_corpus() {
    replay("container_manifest", fuzzing::manifest, |d| {
        GroupManifest::parse(d)
            .and_then(|m| m.verify(None, None))
            .is_ok()
    });
}

/// Mutations of every corpus file (bit flips, truncations) through the same
/// entry points: a tiny deterministic stand-in for the fuzzer on stable.
#[test]
fn deterministic_mutations_hold_the_invariants() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    let targets: [(&str, Entry); 4] = [
        ("container_header", fuzzing::header),
        ("container_wrap", fuzzing::wrap),
        ("container_share", fuzzing::share),
        ("container_manifest", fuzzing::manifest),
    ];
    let mut runs = 0usize;
    for (target, entry) in targets {
        for f in std::fs::read_dir(root.join(target)).unwrap() {
            let data = std::fs::read(f.unwrap().path()).unwrap();
            let len = data.len().min(400);
            for at in (0..len).step_by(7) {
                let mut m = data.clone();
                m[at] ^= 0x5a;
                entry(&m).unwrap();
                entry(&data[..at]).unwrap();
                runs += 2;
            }
        }
    }
    assert!(runs > 1000);
}

// ---------------------------------------------------------------- messaging targets
// Entry points in fuzz/messaging_entries.rs (shared with fuzz/fuzz_targets/messaging_*.rs).

#[path = "../../fuzz/messaging_entries.rs"]
mod messaging_entries;

#[test]
fn messaging_keylog_json_corpus() {
    replay(
        "messaging_keylog_json",
        messaging_entries::keylog_json,
        |d| messaging_entries::accepts("messaging_keylog_json", d),
    );
}

#[test]
fn messaging_registry_json_corpus() {
    replay(
        "messaging_registry_json",
        messaging_entries::registry_json,
        |d| messaging_entries::accepts("messaging_registry_json", d),
    );
}

#[test]
fn messaging_sealed_corpus() {
    replay("messaging_sealed", messaging_entries::sealed_packet, |d| {
        messaging_entries::accepts("messaging_sealed", d)
    });
}

#[test]
fn messaging_akem_corpus() {
    replay("messaging_akem", messaging_entries::akem_ciphertext, |d| {
        messaging_entries::accepts("messaging_akem", d)
    });
}

#[test]
fn messaging_chunked_corpus() {
    replay(
        "messaging_chunked",
        messaging_entries::chunked_message,
        |d| messaging_entries::accepts("messaging_chunked", d),
    );
}

#[test]
fn messaging_replay_json_corpus() {
    replay(
        "messaging_replay_json",
        messaging_entries::replay_json,
        |d| messaging_entries::accepts("messaging_replay_json", d),
    );
}

/// The messaging seed corpora are generated: `messaging_entries::seed_corpus()`
/// must match the files (regenerate with
/// `VEILKIT_WRITE_CORPUS=1 cargo test -p veilkit --test fuzz_corpus_replay messaging_seed_corpus`).
#[test]
fn messaging_seed_corpus_is_current() {
    check_seed_corpus(messaging_entries::seed_corpus());
}

/// Deterministic mutations (bit flips, truncations) of the messaging corpora.
#[test]
fn messaging_mutations_hold_the_invariants() {
    let runs = mutate_corpora(&messaging_entries::TARGETS, 300, 11, 0x21);
    assert!(runs > 300, "{runs}");
}

// ---------------------------------------------------------------- session handshake targets
// Entry points in fuzz/session_handshake_entries.rs (shared with fuzz/fuzz_targets/session_*.rs).

#[path = "../../fuzz/session_handshake_entries.rs"]
mod session_handshake_entries;

#[test]
fn session_bundle_corpus() {
    replay("session_bundle", session_handshake_entries::bundle, |d| {
        session_handshake_entries::accepts("session_bundle", d)
    });
}

#[test]
fn session_initial_message_corpus() {
    replay(
        "session_initial_message",
        session_handshake_entries::initial_message,
        |d| session_handshake_entries::accepts("session_initial_message", d),
    );
}

/// The session-handshake seed corpora are generated: `session_handshake_entries::seed_corpus()`
/// must match the files (regenerate with
/// `VEILKIT_WRITE_CORPUS=1 cargo test -p veilkit --test fuzz_corpus_replay session_seed_corpus`).
#[test]
fn session_seed_corpus_is_current() {
    let corpus = session_handshake_entries::seed_corpus();
    assert!(corpus.len() >= 9, "{}", corpus.len());
    check_seed_corpus(corpus);
}

/// Deterministic mutations (bit flips, truncations) of the session-handshake corpora.
#[test]
fn session_mutations_hold_the_invariants() {
    let runs = mutate_corpora(&session_handshake_entries::TARGETS, usize::MAX, 97, 0x21);
    assert!(runs > 300, "{runs}");
}

// Entry points in fuzz/session_entries.rs (shared with fuzz/fuzz_targets/session_*.rs).
#[allow(dead_code, clippy::all)]
#[path = "../../fuzz/session_entries.rs"]
mod session_entries;

#[test]
fn session_message_corpus() {
    replay("session_message", session_entries::message, |d| {
        session_entries::accepts("session_message", d)
    });
}

#[test]
fn session_state_corpus() {
    replay("session_state", session_entries::state, |d| {
        session_entries::accepts("session_state", d)
    });
}

#[test]
fn session_state_machine_corpus() {
    replay(
        "session_state_machine",
        session_entries::state_machine,
        |d| session_entries::accepts("session_state_machine", d),
    );
}

/// The session seed corpora are generated (fixed keys and randomness):
/// `VEILKIT_WRITE_CORPUS=1 cargo test -p veilkit --test fuzz_corpus_replay session_ratchet_seed_corpus_is_current`
/// rewrites them.
#[test]
fn session_ratchet_seed_corpus_is_current() {
    check_seed_corpus(session_entries::seed_corpus());
}

#[test]
fn session_ratchet_mutations_hold_the_invariants() {
    mutate_corpora(&session_entries::TARGETS, 600, 11, 0x5a);
}

// Entry point in fuzz/hpke_entries.rs (shared with fuzz/fuzz_targets/hpke_open.rs).
#[path = "../../fuzz/hpke_entries.rs"]
mod hpke_entries;

#[test]
fn hpke_open_corpus() {
    replay(
        "hpke_open",
        hpke_entries::open_sealed,
        hpke_entries::accepts,
    );
}

// Entry points in fuzz/group_entries.rs (shared with fuzz/fuzz_targets/group_*.rs);
// the group feature is `cargo test --features group` (scripts/test.sh runs it).
#[cfg(feature = "group")]
#[path = "../../fuzz/group_entries.rs"]
mod group_entries;

#[cfg(feature = "group")]
mod group_corpora {
    use super::{group_entries, mutate_corpora, replay};
    use std::path::Path;
    use veilkit::group::{Client, Suite};

    #[test]
    fn group_state_corpus() {
        replay("group_state", group_entries::state, |d| {
            Client::import_state(d).is_ok()
        });
    }

    #[test]
    fn group_receive_corpus() {
        replay(
            "group_receive",
            group_entries::receive,
            group_entries::receive_accepts,
        );
    }

    #[test]
    fn group_welcome_corpus() {
        replay(
            "group_welcome",
            group_entries::welcome,
            group_entries::welcome_accepts,
        );
    }

    #[test]
    fn group_key_package_corpus() {
        replay(
            "group_key_package",
            group_entries::key_package,
            group_entries::key_package_accepts,
        );
    }

    #[test]
    fn group_mutations_hold_the_invariants() {
        // Group messages are kilobytes: every 37th byte of the first 2,000.
        let runs = mutate_corpora(&group_entries::TARGETS, 2000, 37, 0x21);
        assert!(runs > 200, "{runs}");
    }

    /// Rewrites `fuzz/group_fixture/` and the four group seed corpora (fresh
    /// randomness: every byte changes). Run with `VEILKIT_WRITE_CORPUS=1 cargo
    /// test -p veilkit --features group --test fuzz_corpus_replay
    /// regenerate_group_corpora -- --ignored`.
    #[test]
    #[ignore = "rewrites fuzz/group_fixture and fuzz/corpus/group_*; run explicitly"]
    fn regenerate_group_corpora() {
        if std::env::var("VEILKIT_WRITE_CORPUS").as_deref() != Ok("1") {
            return;
        }
        let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
        let write = |path: &str, bytes: &[u8]| {
            let p = fuzz.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, bytes).unwrap();
        };
        for t in group_entries::TARGETS.map(|(t, _)| t) {
            let dir = fuzz.join("corpus").join(t);
            if dir.exists() {
                std::fs::remove_dir_all(&dir).unwrap();
            }
        }
        let suite = Suite::Classic;
        let alice = Client::new(b"alice").unwrap();
        let member = Client::new(b"member").unwrap();
        let joiner = Client::new(b"joiner").unwrap();
        let dave = Client::new(b"dave").unwrap();
        let mut ga = alice.create_group(suite).unwrap();
        let kp_member = member.create_key_package(suite, false).unwrap();
        let out = ga.add(&alice, &[kp_member.as_slice()]).unwrap();
        ga.merge_pending(&alice).unwrap();
        let gm = member.join(out.welcome.as_deref().unwrap()).unwrap();
        let kp_joiner = joiner.create_key_package(suite, false).unwrap();
        write("group_fixture/member.state", &member.export_state());
        write("group_fixture/group.id", &gm.id());
        write("group_fixture/joiner.state", &joiner.export_state());

        // Messages of epoch 1 for the member.
        let app = ga
            .encrypt(&alice, b"hello from the corpus", b"aad")
            .unwrap();
        let update = ga.update(&alice).unwrap();
        ga.discard_pending(&alice).unwrap();
        let add = ga.add(&alice, &[kp_joiner.as_slice()]).unwrap();
        let welcome = add.welcome.clone().unwrap();
        let flip = |b: &[u8], at: usize| {
            let mut m = b.to_vec();
            let i = at % m.len();
            m[i] ^= 0x01;
            m
        };
        let r = "corpus/group_receive";
        write(&format!("{r}/valid_application.bin"), &app);
        write(&format!("{r}/valid_update_commit.bin"), &update.commit);
        write(&format!("{r}/valid_add_commit.bin"), &add.commit);
        write(
            &format!("{r}/invalid_application_flipped.bin"),
            &flip(&app, app.len() - 3),
        );
        write(
            &format!("{r}/invalid_commit_truncated.bin"),
            &update.commit[..update.commit.len() / 2],
        );
        write(&format!("{r}/invalid_welcome_as_message.bin"), &welcome);
        let w = "corpus/group_welcome";
        write(&format!("{w}/valid_welcome.bin"), &welcome);
        write(
            &format!("{w}/invalid_welcome_flipped.bin"),
            &flip(&welcome, welcome.len() - 5),
        );
        write(
            &format!("{w}/invalid_welcome_truncated.bin"),
            &welcome[..welcome.len() - 1],
        );
        write(&format!("{w}/invalid_commit_as_welcome.bin"), &add.commit);
        let kp_dave = dave.create_key_package(suite, false).unwrap();
        let kp_xwing = dave.create_key_package(Suite::XWing, false).unwrap();
        let k = "corpus/group_key_package";
        write(&format!("{k}/valid_key_package.bin"), &kp_dave);
        write(
            &format!("{k}/invalid_signature_flipped.bin"),
            &flip(&kp_dave, kp_dave.len() - 2),
        );
        write(&format!("{k}/invalid_other_suite.bin"), &kp_xwing);
        write(
            &format!("{k}/invalid_own_key_package.bin"),
            &member.create_key_package(suite, false).unwrap(),
        );
        let s = "corpus/group_state";
        let member_state = member.export_state();
        write(&format!("{s}/valid_member.bin"), &member_state);
        write(&format!("{s}/valid_joiner.bin"), &joiner.export_state());
        let mut trailing = member_state.to_vec();
        trailing.push(0);
        write(&format!("{s}/invalid_trailing.bin"), &trailing);
        write(
            &format!("{s}/invalid_truncated.bin"),
            &member_state[..member_state.len() - 1],
        );
        write(&format!("{s}/invalid_magic.bin"), &flip(&member_state, 0));
    }
}
