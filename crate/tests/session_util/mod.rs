//! Shared setup of the triple-ratchet tests: two states built from a fixed
//! test `HandshakeKeys` and a signed-prekey key pair (no handshake), and a
//! deterministic, purpose-separated random source.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use veilkit::error::Result as CryptoResult;
use veilkit::hash::sha256;
use veilkit::session::ratchet::{Limits, RandomPurpose, RatchetRng, RatchetState};
use veilkit::session::{HandshakeKeys, SessionBinding, VERSION_1, VERSION_2};
use veilkit::x25519;
use zeroize::Zeroizing;

/// Unix time used by the tests.
pub const NOW: u64 = 1_700_000_000;
/// The responder's signed prekey secret.
pub const SPK_SECRET: [u8; 32] = [0x5a; 32];

/// Deterministic randomness with one seed per kind: X25519 ratchet keys,
/// ML-KEM (key generation and encapsulation) and nonces.
#[derive(Clone)]
pub struct TestRng {
    pub dh_seed: u8,
    pub kem_seed: u8,
    pub nonce_seed: u8,
    counters: [u64; 4],
}

impl TestRng {
    pub fn new(seed: u8) -> Self {
        Self::with_seeds(seed, seed, seed)
    }
    pub fn with_seeds(dh_seed: u8, kem_seed: u8, nonce_seed: u8) -> Self {
        Self {
            dh_seed,
            kem_seed,
            nonce_seed,
            counters: [0; 4],
        }
    }
}

impl RatchetRng for TestRng {
    fn fill(&mut self, purpose: RandomPurpose, buf: &mut [u8]) -> CryptoResult<()> {
        let (idx, seed) = match purpose {
            RandomPurpose::RatchetKey => (0usize, self.dh_seed),
            RandomPurpose::KemKeygen => (1, self.kem_seed),
            RandomPurpose::KemEncapsulation => (2, self.kem_seed),
            RandomPurpose::Nonce => (3, self.nonce_seed),
        };
        let counter = self.counters[idx];
        self.counters[idx] += 1;
        for (block, chunk) in buf.chunks_mut(32).enumerate() {
            let mut input = vec![seed, u8::try_from(idx).unwrap()];
            input.extend_from_slice(&counter.to_be_bytes());
            input.extend_from_slice(&(block as u64).to_be_bytes());
            let h = sha256(&input);
            chunk.copy_from_slice(&h[..chunk.len()]);
        }
        Ok(())
    }
}

pub fn binding() -> SessionBinding {
    SessionBinding {
        version: VERSION_1,
        initiator_identity: vec![0xa1; 64],
        responder_identity: vec![0xb2; 64],
    }
}

pub fn keys() -> HandshakeKeys {
    HandshakeKeys {
        root_key: Zeroizing::new([0x01; 32]),
        chain_key: Zeroizing::new([0x02; 32]),
        pq_root_0: Zeroizing::new([0x03; 32]),
    }
}

/// The test binding with protocol version 2 (chunked PQ epochs).
pub fn binding_v2() -> SessionBinding {
    SessionBinding {
        version: VERSION_2,
        ..binding()
    }
}

/// `(initiator, responder)` of a version-2 session.
pub fn pair_v2(rng: &mut TestRng) -> (RatchetState, RatchetState) {
    let spk_public = x25519::x25519_public(&SPK_SECRET).unwrap();
    let limits = Limits::default();
    let a = RatchetState::new_initiator(keys(), binding_v2(), spk_public, limits, rng).unwrap();
    let b = RatchetState::new_responder(keys(), binding_v2(), Zeroizing::new(SPK_SECRET), limits)
        .unwrap();
    (a, b)
}

/// `(initiator, responder)` sharing the test handshake keys.
pub fn pair_with(rng: &mut TestRng, limits: Limits) -> (RatchetState, RatchetState) {
    let spk_public = x25519::x25519_public(&SPK_SECRET).unwrap();
    let a = RatchetState::new_initiator(keys(), binding(), spk_public, limits, rng).unwrap();
    let b =
        RatchetState::new_responder(keys(), binding(), Zeroizing::new(SPK_SECRET), limits).unwrap();
    (a, b)
}

pub fn pair(rng: &mut TestRng) -> (RatchetState, RatchetState) {
    pair_with(rng, Limits::default())
}

/// Encrypts `pt` with empty aad.
pub fn send(s: &mut RatchetState, rng: &mut TestRng, pt: &[u8]) -> Vec<u8> {
    s.encrypt(pt, b"", rng).unwrap()
}

/// Decrypts and commits; returns the plaintext.
pub fn recv(s: &mut RatchetState, msg: &[u8]) -> Vec<u8> {
    let (next, pt) = s.decrypt(msg, b"", NOW).unwrap();
    *s = next;
    pt.to_vec()
}

/// Serialized snapshot (equality of states).
pub fn snap(s: &RatchetState) -> Vec<u8> {
    s.to_bytes().to_vec()
}

/// `ek` with 12-bit coefficient `i` (of 768) set to `value`.
pub fn with_coefficient(ek: &[u8], i: usize, value: u16) -> Vec<u8> {
    let mut out = ek.to_vec();
    let at = i / 2 * 3;
    let v = value & 0x0fff;
    if i.is_multiple_of(2) {
        out[at] = v.to_le_bytes()[0];
        out[at + 1] = (out[at + 1] & 0xf0) | v.to_le_bytes()[1];
    } else {
        out[at + 1] = (out[at + 1] & 0x0f) | ((v & 0x0f) << 4).to_le_bytes()[0];
        out[at + 2] = (v >> 4).to_le_bytes()[0];
    }
    out
}
