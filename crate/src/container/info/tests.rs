//! Tests of [`HeaderInfo`](super::HeaderInfo): every wrap type, mode, signer and seal.

use super::*;
use crate::container::chunk::{header_hash, header_hash_preimage};
use crate::container::header::{Metadata, SignedPart};
use crate::container::wrap::Argon2idCost;

/// One wrap entry of each type, with distinct byte patterns.
fn all_wraps() -> Vec<WrapEntry> {
    vec![
        WrapEntry::Pbkdf2 {
            iterations: 600_000,
            salt: [1; 16],
            wrapped: [2; 40],
        },
        WrapEntry::Argon2id {
            cost: Argon2idCost {
                memory_kib: 19_456,
                iterations: 2,
                parallelism: 1,
            },
            salt: [3; 16],
            wrapped: [4; 40],
        },
        WrapEntry::Group {
            group_id: [5; 16],
            key_version: 7,
            wrapped: [6; 40],
        },
        WrapEntry::HybridKem {
            recipient_id: [7; 16],
            key_version: 9,
            ct_x25519: [0xee; 32],
            ct_mlkem: vec![0x11; 1088],
            wrapped: [8; 40],
        },
        WrapEntry::Threshold {
            threshold: 2,
            shares: 3,
            share_set_id: [9; 16],
            wrapped: [10; 40],
        },
    ]
}

fn header(wraps: Vec<WrapEntry>, signed: Option<SignedPart>) -> Header {
    Header {
        file_id: [0xf1; 16],
        chunk_size: 4096,
        plaintext_size: 3 * 4096 + 5,
        merkle_root: [0xaa; 32],
        hash_alg: HashAlg::Blake3,
        dek_commitment: [0xcc; 32],
        wraps,
        signed,
    }
}

fn signed(kind: MetadataKind, mldsa: bool) -> SignedPart {
    SignedPart {
        metadata: Metadata {
            kind,
            timestamp: 1_700_000_000,
            ed25519_public: [0xed; 32],
            mldsa_public: mldsa.then(|| vec![0x65; crate::mldsa::PK_LEN]),
            key_log_id: [0x1d; 32],
        },
        ed25519_signature: [0x5e; 64],
        mldsa_signature: mldsa.then(|| vec![0x5d; crate::mldsa::SIG_LEN]),
    }
}

/// Serialises `h`, parses it back and describes it.
fn info_of(h: &Header) -> (HeaderInfo, usize) {
    let bytes = h.to_bytes().unwrap();
    (ContainerReader::new(&bytes).unwrap().info(), bytes.len())
}

#[test]
fn unsigned_header_with_every_wrap_type() {
    let (info, len) = info_of(&header(all_wraps(), None));
    assert_eq!(info.version, 4);
    assert_eq!(info.mode, Mode::Mixed);
    assert_eq!(
        (info.file_id, info.merkle_root, info.dek_commitment),
        ([0xf1; 16], [0xaa; 32], [0xcc; 32])
    );
    assert_eq!(
        (info.chunk_size, info.plaintext_size, info.hash_alg),
        (4096, 3 * 4096 + 5, HashAlg::Blake3)
    );
    assert_eq!(
        info.header_hash,
        header_hash(&[0xf1; 16], 4096, 3 * 4096 + 5, HashAlg::Blake3)
    );
    assert_eq!(
        info.header_hash_preimage,
        header_hash_preimage(&[0xf1; 16], 4096, 3 * 4096 + 5, HashAlg::Blake3)
    );
    assert_eq!(
        crate::hash::sha256(&info.header_hash_preimage),
        info.header_hash
    );
    assert_eq!(info.chunk_count, 4);
    assert_eq!(info.header_len, len as u64);
    assert_eq!(info.leaf_table_len, 4 * 32);
    // Header, leaf table, four envelopes (plaintext + 32 bytes each).
    assert_eq!(
        info.container_len,
        len as u64 + 4 * 32 + 3 * 4096 + 5 + 4 * 32
    );
    assert_eq!((info.signer, info.sealed), (None, None));
    assert_eq!(
        info.wraps
            .iter()
            .map(WrapInfo::type_name)
            .collect::<Vec<_>>(),
        ["pbkdf2", "argon2id", "group", "recipient", "threshold"]
    );
    assert_eq!(
        info.wraps[0],
        WrapInfo::Pbkdf2 {
            iterations: 600_000,
            salt: [1; 16],
            wrapped: [2; 40]
        }
    );
    assert_eq!(
        info.wraps[1],
        WrapInfo::Argon2id {
            memory_kib: 19_456,
            iterations: 2,
            parallelism: 1,
            salt: [3; 16],
            wrapped: [4; 40]
        }
    );
    assert_eq!(
        info.wraps[2],
        WrapInfo::Group {
            group_id: [5; 16],
            key_version: 7,
            wrapped: [6; 40]
        }
    );
    assert_eq!(
        info.wraps[4],
        WrapInfo::Threshold {
            threshold: 2,
            shares: 3,
            share_set_id: [9; 16],
            wrapped: [10; 40]
        }
    );
    let WrapInfo::Recipient {
        recipient_id,
        key_version,
        ciphertext,
        wrapped,
    } = &info.wraps[3]
    else {
        panic!("wrap 3 is not a recipient wrap");
    };
    assert_eq!(
        (recipient_id, *key_version, wrapped),
        (&[7; 16], 9, &[8; 40])
    );
    // X-Wing order: the ML-KEM part first, the X25519 part last.
    assert_eq!(ciphertext.len(), 1120);
    assert!(
        ciphertext[..1088].iter().all(|&b| b == 0x11)
            && ciphertext[1088..].iter().all(|&b| b == 0xee)
    );
}

#[test]
fn mode_follows_the_wrap_table() {
    for (wraps, mode) in [
        (
            vec![all_wraps().remove(0), all_wraps().remove(1)],
            Mode::Password,
        ),
        (vec![all_wraps().remove(2)], Mode::Group),
        (vec![all_wraps().remove(3)], Mode::Recipient),
        (vec![all_wraps().remove(4)], Mode::Threshold),
    ] {
        let (info, _) = info_of(&header(wraps, None));
        assert_eq!((info.mode, info.mode.name()), (mode, mode.name()));
    }
}

#[test]
fn signed_headers_name_their_signer() {
    let (ed, _) = info_of(&header(
        vec![all_wraps().remove(2)],
        Some(signed(MetadataKind::Plain, false)),
    ));
    assert_eq!(ed.version, 5);
    assert_eq!(
        ed.signer,
        Some(SignerInfo {
            ed25519: [0xed; 32],
            mldsa65: None,
            key_log_id: [0x1d; 32],
            timestamp: 1_700_000_000
        })
    );
    assert_eq!(ed.sealed, None);
    let (hybrid, _) = info_of(&header(
        vec![all_wraps().remove(2)],
        Some(signed(MetadataKind::Plain, true)),
    ));
    assert_eq!(hybrid.version, 6);
    assert_eq!(
        hybrid.signer.and_then(|s| s.mldsa65),
        Some(vec![0x65; crate::mldsa::PK_LEN])
    );
}

#[test]
fn sealed_markers_describe_the_seal() {
    for (mode, purged) in [(SealMode::Seal, false), (SealMode::Purge, true)] {
        let kind = MetadataKind::Sealed {
            mode,
            reason: "retention".to_owned(),
        };
        let (info, len) = info_of(&header(Vec::new(), Some(signed(kind, false))));
        assert_eq!((info.mode, info.wraps.len()), (Mode::None, 0));
        assert_eq!(
            info.sealed,
            Some(SealedInfo {
                mode,
                reason: "retention".to_owned(),
                timestamp: 1_700_000_000,
                sealer: [0xed; 32]
            })
        );
        assert!(info.signer.is_some());
        // A purged container is the header alone; a sealed one keeps its body.
        assert_eq!(info.container_len == len as u64, purged, "{mode:?}");
    }
}

#[test]
fn api_names() {
    assert_eq!(
        (HashAlg::Sha256.name(), HashAlg::Blake3.name()),
        ("sha256", "blake3")
    );
    assert_eq!(
        (SealMode::Seal.name(), SealMode::Purge.name()),
        ("seal", "purge")
    );
    let modes = [
        Mode::Password,
        Mode::Recipient,
        Mode::Group,
        Mode::Threshold,
        Mode::Mixed,
        Mode::None,
    ];
    assert_eq!(
        modes.map(Mode::name),
        [
            "password",
            "recipient",
            "group",
            "threshold",
            "mixed",
            "none"
        ]
    );
}
