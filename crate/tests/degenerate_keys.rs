//! Degenerate recipient keys (issue 34 item 5): a public key whose
//! encapsulation or key agreement anyone can undo is refused wherever a
//! public key enters — the sealed box (and the X-Wing KEM under it), session
//! bundles and prekeys, container recipient wraps, the messaging KEMs — with
//! `WEAK_KEY`. Degenerate means (docs/SEALED.md §5, docs/SESSIONS.md §2.2):
//! - X25519: a small-order u-coordinate (0, 1, p − 1 and the two of order 8),
//!   in each of its encodings (bit 255 is ignored; p and p + 1 encode 0 and 1):
//!   X25519 of any clamped scalar with such a point is all zero;
//! - ML-KEM-768: an encapsulation key whose `ByteEncode12(t̂)` (its first 1,152
//!   bytes) is all zero: then `v = e2 + ⌈q/2⌋·m` and the ciphertext carries
//!   `m` in the clear (FIPS 203 §6.2 / K-PKE.Encrypt), so anyone computes
//!   `K = G(m ‖ H(ek))`. (The FIPS 203 modulus check stays `INVALID_KEY`.)
//!
//! Each test builds the degenerate key, calls the entry point and asserts the
//! refusal; where the old code accepted the key, the test also performs what
//! a third party could then do and fails loudly with it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod prekey_util;

use hkdf::Hkdf;
use sha2::Sha256;
use veilkit::container::{
    ContainerError, EncryptOptions, ExternalEncryptor, HashAlg, Unlock, WrapEntry, WrapSpec,
    encrypt, rewrap,
};
use veilkit::container::{GroupUnlock, VerificationPolicy, decrypt};
use veilkit::messaging::{akem, hybrid_kem, sealed, session as msg_session};
use veilkit::session::SessionError;
use veilkit::session::handshake::{InitialMessage, initiate, initiate_derand};
use veilkit::session::identity::IdentityKeyPair;
use veilkit::session::prekey::{PrekeyKind, SignedPrekey};
use veilkit::{CryptoError, aead, hpke, mlkem, x25519, xwing};

use prekey_util::{NOW, SLOTS, initiator, local, seed, signer, signer_with_x25519, slot};

/// Every encoding of a small-order X25519 u-coordinate with bit 255 clear
/// (libsodium's blocklist): 0, 1, the two points of order 8, p − 1, p, p + 1.
const SMALL_ORDER: [&str; 7] = [
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0100000000000000000000000000000000000000000000000000000000000000",
    "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
    "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
];

/// The 14 small-order encodings (each with bit 255 clear and set).
fn small_order() -> Vec<[u8; 32]> {
    let mut out = Vec::new();
    for h in SMALL_ORDER {
        let k: [u8; 32] = hex::decode(h).unwrap().try_into().unwrap();
        let mut high = k;
        high[31] |= 0x80;
        out.push(k);
        out.push(high);
    }
    out
}

/// An honest ML-KEM-768 key pair.
fn mlkem_pair(i: u8) -> mlkem::MlKemKeypair {
    let mut s = [0u8; 64];
    s[..32].copy_from_slice(&seed(0x50, i));
    s[32..].copy_from_slice(&seed(0x51, i));
    mlkem::mlkem_from_seed(&s).unwrap()
}

/// `ek` with its t̂ (first 1,152 bytes) zeroed: ρ stays, the key passes the modulus check.
fn zero_t_hat(ek: &[u8]) -> Vec<u8> {
    let mut k = ek.to_vec();
    k[..1152].fill(0);
    k
}

/// The degenerate ML-KEM keys: all zero, and an honest key with t̂ zeroed.
fn degenerate_eks() -> Vec<Vec<u8>> {
    vec![
        vec![0u8; 1184],
        zero_t_hat(&mlkem_pair(1).encapsulation_key),
    ]
}

/// The degenerate X-Wing keys: all zero (the key of the report); an honest
/// ML-KEM half with each small-order X25519 half; a zero-t̂ ML-KEM half with
/// an honest X25519 half.
fn degenerate_xwing_keys() -> Vec<Vec<u8>> {
    let honest = xwing::xwing_from_seed(&[7; 32]).unwrap().public;
    let mut out = vec![vec![0u8; xwing::PK_LEN]];
    for x in small_order() {
        let mut k = honest.clone();
        k[1184..].copy_from_slice(&x);
        out.push(k);
    }
    let mut k = honest.clone();
    k[..1152].fill(0);
    out.push(k);
    out
}

/// The message `m` of an ML-KEM-768 ciphertext made with an `ek` whose t̂ is
/// zero, read from the ciphertext alone: `c2 = ByteEncode4(Compress4(v))`
/// with `v = e2 + 1665·m` (`|e2| ≤ 2`), so each 4-bit value is about 0 for a
/// 0 bit and 8 for a 1 bit; `Compress1(Decompress4(n))` is 1 for n = 5..=11.
fn m_from_ciphertext(ct: &[u8]) -> [u8; 32] {
    let c2 = &ct[960..1088];
    let mut m = [0u8; 32];
    for i in 0..256 {
        let n = if i % 2 == 0 {
            c2[i / 2] & 0x0f
        } else {
            c2[i / 2] >> 4
        };
        if (5..=11).contains(&n) {
            m[i / 8] |= 1 << (i % 8);
        }
    }
    m
}

/// FIPS 203: `(K, r) = G(m ‖ H(ek))`, `G` = SHA3-512, `H` = SHA3-256.
fn mlkem_key(m: &[u8; 32], ek: &[u8]) -> [u8; 32] {
    let g = libcrux_sha3::sha512(&[m.as_slice(), &libcrux_sha3::sha256(ek)].concat());
    g[..32].try_into().unwrap()
}

/// The X-Wing shared secret of `enc` (1,120 bytes) to a degenerate `pk`
/// (zero t̂ and a small-order X25519 half), computed from public values only.
fn xwing_secret_of_degenerate(pk: &[u8], enc: &[u8]) -> [u8; 32] {
    let ss_m = mlkem_key(&m_from_ciphertext(&enc[..1088]), &pk[..1184]);
    let ss_x = [0u8; 32]; // X25519(anything, small-order point)
    libcrux_sha3::sha256(
        &[
            &ss_m,
            &ss_x,
            &enc[1088..],
            &pk[1184..],
            b"\\.//^\\".as_slice(),
        ]
        .concat(),
    )
}

/// RFC 9180 base-mode `OpenBase` of a veilkit sealed box, from the KEM's
/// shared secret instead of the secret key (docs/SEALED.md §2–§3), written
/// out here so that it does not rely on veilkit's key schedule.
fn open_with_shared_secret(ss: &[u8; 32], sealed: &[u8], info: &[u8], aad: &[u8]) -> Vec<u8> {
    let suite = [b'H', b'P', b'K', b'E', 0x64, 0x7a, 0x00, 0x01, 0x00, 0x02];
    let labeled = |label: &[u8], ikm: &[u8]| [b"HPKE-v1".as_slice(), &suite, label, ikm].concat();
    let (psk_id_hash, _) = Hkdf::<Sha256>::extract(Some(b""), &labeled(b"psk_id_hash", b""));
    let (info_hash, _) = Hkdf::<Sha256>::extract(Some(b""), &labeled(b"info_hash", info));
    let context = [&[0u8][..], psk_id_hash.as_slice(), info_hash.as_slice()].concat();
    let (_, secret) = Hkdf::<Sha256>::extract(Some(ss), &labeled(b"secret", b""));
    let expand = |label: &[u8], out: &mut [u8]| {
        let len = u16::try_from(out.len()).unwrap().to_be_bytes();
        let info = [&len[..], &labeled(label, &context)].concat();
        secret.expand(&info, out).unwrap();
    };
    let mut key = [0u8; 32];
    let mut nonce = [0u8; 12];
    expand(b"key", &mut key);
    expand(b"base_nonce", &mut nonce);
    aead::aes_gcm_decrypt_with_iv(&key, &nonce, &sealed[1120..], aad).unwrap()
}

/// The report's attack: `seal()` to the all-zero 1,216-byte key. Before the
/// fix it returned a box, and `open_with_shared_secret` read it from the box
/// alone (the test failed with the plaintext); now `seal` refuses, as do
/// `seal_derand`, `send_export`, `send_export_derand` and the X-Wing KEM
/// itself, for every degenerate half.
#[test]
fn sealing_to_a_degenerate_xwing_key_is_refused() {
    let (info, aad, pt) = (
        b"app v1".as_slice(),
        b"to bob".as_slice(),
        b"attack at dawn",
    );
    let zero = vec![0u8; xwing::PK_LEN];
    match hpke::seal(&zero, info, aad, pt) {
        Err(e) => assert_eq!(e, CryptoError::WeakKey),
        Ok(sealed) => {
            let ss = xwing_secret_of_degenerate(&zero, &sealed[..1120]);
            let read = open_with_shared_secret(&ss, &sealed, info, aad);
            panic!(
                "sealed to the all-zero key, and a third party read it: {:?}",
                String::from_utf8_lossy(&read)
            );
        }
    }
    for (i, pk) in degenerate_xwing_keys().iter().enumerate() {
        let weak = Err(CryptoError::WeakKey);
        assert_eq!(
            hpke::seal(pk, info, aad, pt).map(drop),
            weak,
            "seal, key {i}"
        );
        assert_eq!(
            hpke::seal_derand(pk, &[3; 64], info, aad, pt).map(drop),
            weak,
            "seal_derand, key {i}"
        );
        assert_eq!(
            hpke::send_export(pk, info, b"c", 32).map(drop),
            weak,
            "send_export, key {i}"
        );
        assert_eq!(
            hpke::send_export_derand(pk, &[3; 64], info, b"c", 32).map(drop),
            weak,
            "send_export_derand, key {i}"
        );
        assert_eq!(
            xwing::xwing_encapsulate(pk).map(drop),
            weak,
            "xwing_encapsulate, key {i}"
        );
        assert_eq!(
            xwing::xwing_encapsulate_derand(pk, &[3; 64]).map(drop),
            weak,
            "xwing_encapsulate_derand, key {i}"
        );
    }
    // Exactly these: a key one bit away from degenerate is an ordinary key.
    let honest = xwing::xwing_from_seed(&[7; 32]).unwrap().public;
    let mut almost = honest.clone();
    almost[..1152].fill(0);
    almost[1151] = 1;
    assert!(hpke::seal(&almost, info, aad, pt).is_ok());
    let mut rho_zero = honest.clone();
    rho_zero[1152..1184].fill(0);
    assert!(hpke::seal(&rho_zero, info, aad, pt).is_ok());
    // The modulus check keeps its own code.
    let mut over_q = honest;
    over_q[0] = 0xff;
    over_q[1] |= 0x0f;
    assert!(matches!(
        hpke::seal(&over_q, info, aad, pt),
        Err(CryptoError::InvalidKey(_))
    ));
}

/// Why a box to such a key is readable by everyone, shown on the libraries
/// themselves (the box can no longer be made with veilkit): ML-KEM (libcrux)
/// encapsulating to a zero-t̂ key leaves its secret readable from the
/// ciphertext; X25519 (x25519-dalek) with a small-order point gives zero; and
/// from the X-Wing secret, the HPKE key schedule (no PSK in base mode) gives
/// the box key — checked on a genuine box, whose X-Wing secret is taken
/// from the recipient here.
#[test]
fn a_box_to_a_degenerate_key_would_be_readable_by_anyone() {
    use libcrux_ml_kem::mlkem768::{MlKem768PublicKey, encapsulate};
    for (i, ek) in degenerate_eks().iter().enumerate() {
        let ek_arr: [u8; 1184] = ek.as_slice().try_into().unwrap();
        for r in 0..4u8 {
            let (ct, k) = encapsulate(&MlKem768PublicKey::from(ek_arr), seed(0x60, r));
            let recovered = mlkem_key(&m_from_ciphertext(ct.as_slice()), ek);
            assert_eq!(&recovered, k.as_slice(), "key {i}, randomness {r}");
        }
    }
    for x in small_order() {
        let shared = x25519_dalek::StaticSecret::from(seed(0x61, 0))
            .diffie_hellman(&x25519_dalek::PublicKey::from(x));
        assert_eq!(shared.as_bytes(), &[0u8; 32]);
    }
    let kp = xwing::xwing_from_seed(&[9; 32]).unwrap();
    let sealed = hpke::seal(&kp.public, b"i", b"a", b"the box key follows from ss").unwrap();
    let ss = xwing::xwing_decapsulate(kp.secret.as_slice(), &sealed[..1120]).unwrap();
    assert_eq!(
        open_with_shared_secret(&ss, &sealed, b"i", b"a"),
        b"the box key follows from ss"
    );
}

/// Container recipient wraps (type 4, X-Wing): every writer — a new
/// container, a rewrap, the external (WebCrypto) encryptor — refuses a
/// degenerate recipient key before writing anything. Before the fix each of
/// them wrapped the DEK to the all-zero key.
#[test]
fn container_recipient_wrap_to_a_degenerate_key_is_refused() {
    let group = WrapSpec::group([0x47; 16], 0, &[0x4b; 32]);
    let pt = vec![0x5a; 100];
    let existing = encrypt(&pt, EncryptOptions::new(0, vec![group]))
        .unwrap()
        .container;
    let unlock = Unlock::Group(GroupUnlock {
        group_id: [0x47; 16],
        key_version: 0,
        group_key: &[0x4b; 32],
        manifest: None,
    });
    let weak = |r: Result<(), ContainerError>, what: &str| {
        assert_eq!(
            r,
            Err(ContainerError::Crypto(CryptoError::WeakKey)),
            "{what}"
        );
    };
    for (i, pk) in degenerate_xwing_keys().iter().enumerate() {
        let spec = || WrapSpec::recipient(pk, 0);
        weak(
            encrypt(&pt, EncryptOptions::new(0, vec![spec()])).map(drop),
            &format!("encrypt, key {i}"),
        );
        weak(
            rewrap(&existing, &unlock, &|_: &WrapEntry| false, &[spec()], None).map(drop),
            &format!("rewrap, key {i}"),
        );
        let mut ext = ExternalEncryptor::new(100, 4096, HashAlg::Sha256).unwrap();
        weak(
            ext.add_wrap(&spec()).map(drop),
            &format!("external add_wrap, key {i}"),
        );
    }
    // The untouched container still opens.
    let d = decrypt(&existing, &unlock, &VerificationPolicy::default()).unwrap();
    assert_eq!(d.plaintext.unwrap().to_vec(), pt);
}

/// Session bundles: a prekey the identity signed over a degenerate key, in
/// any slot, or an identity whose X25519 key is small-order, is refused by
/// `Bundle::verify` and `initiate` (`WEAK_KEY`), and `SignedPrekey::sign`
/// refuses to sign such a key. Before the fix `verify` accepted all of them;
/// `initiate` refused the X25519 ones only through its all-zero DH check and
/// encapsulated to the ML-KEM ones, so that a passive observer read the
/// encapsulation randomness `m` — hence `SS` — from the initial message.
#[test]
fn a_bundle_with_a_degenerate_prekey_or_identity_key_is_refused() {
    let bob = signer(0xB2);
    let base = bob.bundle();
    let alice = initiator();
    let weak = SessionError::Crypto(CryptoError::WeakKey);
    let mut cases: Vec<(String, veilkit::session::bundle::Bundle)> = Vec::new();
    for kind in SLOTS {
        let keys: Vec<Vec<u8>> = if kind.is_kem() {
            degenerate_eks()
        } else {
            small_order().iter().map(|k| k.to_vec()).collect()
        };
        for (i, key) in keys.iter().enumerate() {
            let mut b = base.clone();
            if kind == PrekeyKind::MlKemLastResort {
                b.pq_one_time = None; // else `initiate` encapsulates to the one-time key
            }
            let id = slot(&mut b, kind).key_id;
            *slot(&mut b, kind) = bob.prekey(kind, id, NOW - 86_400, NOW + 86_400, key);
            cases.push((format!("{kind:?} key {i}"), b));
        }
    }
    // Five of the 14 encodings (each re-signs four prekeys); x25519.rs tests all 14.
    for (i, x) in small_order().iter().enumerate().step_by(3) {
        cases.push((
            format!("identity X25519 key {i}"),
            signer_with_x25519(0xB5, x).bundle(),
        ));
    }
    for (what, b) in &cases {
        assert_eq!(b.verify(None, NOW), Err(weak), "verify: {what}");
        let kem_randomness = seed(0x62, 0);
        match initiate_derand(
            &local(&alice),
            &b.to_bytes().unwrap(),
            None,
            NOW,
            &[0x63; 32],
            &kem_randomness,
        ) {
            Err(e) => assert_eq!(e, weak, "initiate: {what}"),
            Ok(init) => {
                let msg = init.initial_message(b"hello").unwrap();
                let observed = InitialMessage::parse(&msg).unwrap();
                panic!(
                    "initiate accepted {what}; a passive observer reads m from the initial message: {}",
                    m_from_ciphertext(&observed.ciphertext) == kem_randomness
                );
            }
        }
        assert_eq!(
            initiate(&local(&alice), &b.to_bytes().unwrap(), None, NOW).map(drop),
            Err(weak),
            "initiate (random): {what}"
        );
    }
    // The signing side: never sign a degenerate key.
    let id = IdentityKeyPair::from_seeds(&seed(3, 1), &seed(3, 2), &seed(3, 3)).unwrap();
    for kind in SLOTS {
        let keys: Vec<Vec<u8>> = if kind.is_kem() {
            degenerate_eks()
        } else {
            small_order().iter().map(|k| k.to_vec()).collect()
        };
        for key in keys {
            assert_eq!(
                SignedPrekey::sign(&id, kind, 1, NOW, NOW + 86_400, &key).map(drop),
                Err(weak),
                "sign {kind:?}"
            );
        }
    }
    // An honest bundle still verifies and starts a session.
    assert_eq!(base.verify(None, NOW), Ok(()));
    assert!(initiate(&local(&alice), &base.to_bytes().unwrap(), None, NOW).is_ok());
}

/// The messaging toolbox's entry points that encapsulate or agree to a
/// given public key: the hybrid KEM and the authenticated KEM refuse a
/// zero-t̂ ML-KEM key (before the fix they encapsulated to it) and a
/// small-order X25519 key; the sealed-sender packet and the PCS ratchet step
/// refuse a small-order X25519 key (through their all-zero DH check, as
/// before the fix).
#[test]
fn messaging_encapsulations_refuse_degenerate_keys() {
    use veilkit::messaging::MessagingError;
    let weak = Err(MessagingError::Crypto(CryptoError::WeakKey));
    let ours = seed(0x64, 0);
    let honest_x = x25519::x25519_public(&seed(0x64, 1)).unwrap();
    let honest_ek = mlkem_pair(2).encapsulation_key;
    let signing = seed(0x64, 2);
    for (i, ek) in degenerate_eks().iter().enumerate() {
        assert_eq!(
            hybrid_kem::hybrid_kem_encapsulate(&ours, &honest_x, ek).map(drop),
            weak,
            "hybrid KEM, ML-KEM key {i}"
        );
        assert_eq!(
            hybrid_kem::hybrid_kem_encapsulate_derand(&ours, &honest_x, ek, &[1; 32]).map(drop),
            weak,
            "hybrid KEM derand, ML-KEM key {i}"
        );
        assert_eq!(
            akem::authenticated_kem_encapsulate(&ours, &honest_x, ek, &signing).map(drop),
            weak,
            "authenticated KEM, ML-KEM key {i}"
        );
        assert_eq!(
            akem::authenticated_kem_encapsulate_derand(&ours, &honest_x, ek, &signing, &[1; 32])
                .map(drop),
            weak,
            "authenticated KEM derand, ML-KEM key {i}"
        );
    }
    for (i, x) in small_order().iter().enumerate() {
        assert_eq!(
            hybrid_kem::hybrid_kem_encapsulate(&ours, x, &honest_ek).map(drop),
            weak,
            "hybrid KEM, X25519 key {i}"
        );
        assert_eq!(
            akem::authenticated_kem_encapsulate(&ours, x, &honest_ek, &signing).map(drop),
            weak,
            "authenticated KEM, X25519 key {i}"
        );
        assert_eq!(
            sealed::seal_message(x, b"alice", b"hi", &signing).map(drop),
            weak,
            "sealed sender, X25519 key {i}"
        );
        assert_eq!(
            msg_session::ratchet_srk(&[2; 32], &ours, x, b"chat", 1, true).map(drop),
            weak,
            "ratchet step, X25519 key {i}"
        );
    }
    // Honest keys still work.
    assert!(hybrid_kem::hybrid_kem_encapsulate(&ours, &honest_x, &honest_ek).is_ok());
    assert!(akem::authenticated_kem_encapsulate(&ours, &honest_x, &honest_ek, &signing).is_ok());
}
