//! Entry points of the session fuzz targets (`fuzz/fuzz_targets/session_*.rs`)
//! and of their corpus replay in `cargo test` (`crate/tests/fuzz_corpus_replay.rs`),
//! included in both with `#[path]`.
//!
//! Each entry returns `Err` only when an invariant is broken, never for
//! merely invalid input. Invariants: the message and state parsers are total
//! and canonical (what parses re-encodes to the same bytes); decrypting
//! arbitrary bytes never panics and never yields a plaintext other than one
//! that was sent; a two-party run driven by arbitrary actions decrypts each
//! message at most once and to what was sent, rejects tampered copies, and
//! ends with both sides still agreeing. Keys and randomness are fixed, so
//! the generated seed corpora stay valid.
#![allow(dead_code)]

use veilkit::error::Result as CryptoResult;
use veilkit::hash::sha256;
use veilkit::session::ratchet::{Limits, Message, RandomPurpose, RatchetRng, RatchetState};
use veilkit::session::{HandshakeKeys, SessionBinding, VERSION_1};
use veilkit::x25519;
use zeroize::Zeroizing;

/// An entry point: `Err` names the broken invariant.
pub type Entry = fn(&[u8]) -> Result<(), &'static str>;

/// Every session target, by name.
pub const TARGETS: [(&str, Entry); 3] = [
    ("session_message", message),
    ("session_state", state),
    ("session_state_machine", state_machine),
];

const NOW: u64 = 1_700_000_000;
const SPK: [u8; 32] = [0x5a; 32];
/// Most actions one state-machine input runs (bounds the work per input).
const MAX_ACTIONS: usize = 512;

/// Deterministic randomness (SHA-256 of a seed, the purpose and a counter).
struct FixedRng(u8, u64);

impl RatchetRng for FixedRng {
    fn fill(&mut self, purpose: RandomPurpose, buf: &mut [u8]) -> CryptoResult<()> {
        self.1 = self.1.wrapping_add(1);
        for (block, chunk) in buf.chunks_mut(32).enumerate() {
            let mut input = vec![self.0, purpose as u8];
            input.extend_from_slice(&self.1.to_be_bytes());
            input.extend_from_slice(&(block as u64).to_be_bytes());
            let h = sha256(&input);
            chunk.copy_from_slice(h.get(..chunk.len()).unwrap_or_default());
        }
        Ok(())
    }
}

fn pair(rng: &mut FixedRng) -> Option<(RatchetState, RatchetState)> {
    let keys = || HandshakeKeys {
        root_key: Zeroizing::new([1; 32]),
        chain_key: Zeroizing::new([2; 32]),
        pq_root_0: Zeroizing::new([3; 32]),
    };
    let binding = SessionBinding {
        version: VERSION_1,
        initiator_identity: vec![0xa1; 64],
        responder_identity: vec![0xb2; 64],
    };
    let spk_public = x25519::x25519_public(&SPK).ok()?;
    let a =
        RatchetState::new_initiator(keys(), binding.clone(), spk_public, Limits::default(), rng)
            .ok()?;
    let b = RatchetState::new_responder(keys(), binding, Zeroizing::new(SPK), Limits::default())
        .ok()?;
    Some((a, b))
}

/// Message parser: total, canonical; decrypting the bytes at a fresh
/// responder never panics and yields only the plaintext of a genuine message.
pub fn message(data: &[u8]) -> Result<(), &'static str> {
    if let Ok(m) = Message::parse(data) {
        if m.to_bytes() != data {
            return Err("message re-encodes differently");
        }
    }
    let mut rng = FixedRng(0x11, 0);
    let (_, b) = pair(&mut rng).ok_or("setup")?;
    if let Ok((_, pt)) = b.decrypt(data, b"", NOW) {
        if pt.as_slice() != b"fuzz" {
            return Err("a forged message decrypted");
        }
    }
    Ok(())
}

/// State parser: total, canonical; the format-2 migration total, and its
/// output a canonical format-3 state.
pub fn state(data: &[u8]) -> Result<(), &'static str> {
    if let Ok(s) = RatchetState::from_bytes(data) {
        if s.to_bytes().as_slice() != data {
            return Err("state re-encodes differently");
        }
    }
    if let Ok((s, _)) = RatchetState::migrate_format_2(data) {
        let bytes = s.to_bytes();
        if RatchetState::from_bytes(&bytes).map(|t| *t.to_bytes() == *bytes) != Ok(true) {
            return Err("a migrated state does not re-load canonically");
        }
    }
    Ok(())
}

struct Flight {
    id: u32,
    bytes: Vec<u8>,
}

/// Runs the action script; returns how many messages decrypted.
pub fn run_state_machine(data: &[u8]) -> Result<usize, &'static str> {
    let mut rng = FixedRng(0x22, 0);
    let (a, b) = pair(&mut rng).ok_or("setup")?;
    let mut parties = [a, b];
    let mut queues: [Vec<Flight>; 2] = [Vec::new(), Vec::new()];
    let mut delivered: Vec<bool> = Vec::new();
    let mut decrypted = 0usize;
    let mut bytes = data.iter().copied().take(MAX_ACTIONS);
    while let Some(op) = bytes.next() {
        let arg = usize::from(bytes.next().unwrap_or(0));
        let who = usize::from(op & 1);
        let q = &mut queues[who];
        match (op >> 1) % 5 {
            0 | 1 => {
                // The party `who` sends (the responder only once it has heard from the initiator).
                let id = u32::try_from(delivered.len()).map_err(|_| "id")?;
                match parties[who].encrypt(&id.to_be_bytes(), b"", &mut rng) {
                    Ok(m) => {
                        queues[1 - who].push(Flight { id, bytes: m });
                        delivered.push(false);
                    }
                    Err(_) if who == 1 => {}
                    Err(_) => return Err("the initiator could not send"),
                }
            }
            2 if !q.is_empty() => {
                let f = q.remove(arg % q.len());
                if let Ok((next, pt)) = parties[who].decrypt(&f.bytes, b"", NOW) {
                    let seen = delivered
                        .get_mut(usize::try_from(f.id).map_err(|_| "id")?)
                        .ok_or("id")?;
                    if *seen || pt.as_slice() != f.id.to_be_bytes() {
                        return Err("decrypted twice or to the wrong plaintext");
                    }
                    *seen = true;
                    decrypted += 1;
                    parties[who] = next;
                }
            }
            3 if !q.is_empty() => {
                let i = arg % q.len();
                let f = q.get(i).ok_or("index")?;
                let mut t = f.bytes.clone();
                let at = usize::from(bytes.next().unwrap_or(0)).wrapping_mul(31) % t.len().max(1);
                if let Some(byte) = t.get_mut(at) {
                    *byte ^= 1 << (arg % 8);
                }
                if parties[who].decrypt(&t, b"", NOW).is_ok() {
                    return Err("a tampered message decrypted");
                }
            }
            4 if !q.is_empty() => {
                let i = arg % q.len();
                q.remove(i);
            }
            _ => {}
        }
    }
    // Both sides still agree: a fresh round trip.
    let [a, b] = &mut parties;
    let m = a
        .encrypt(b"end", b"", &mut rng)
        .map_err(|_| "final encrypt")?;
    let (nb, pt) = b
        .decrypt(&m, b"", NOW)
        .map_err(|_| "final message to the responder failed")?;
    *b = nb;
    let r = b
        .encrypt(b"end2", b"", &mut rng)
        .map_err(|_| "final reply")?;
    let (_, pt2) = a
        .decrypt(&r, b"", NOW)
        .map_err(|_| "final reply to the initiator failed")?;
    if pt.as_slice() != b"end" || pt2.as_slice() != b"end2" {
        return Err("final plaintexts differ");
    }
    Ok(decrypted)
}

/// Two-party state machine driven by the input bytes.
pub fn state_machine(data: &[u8]) -> Result<(), &'static str> {
    run_state_machine(data).map(|_| ())
}

/// The verdict the replay test asserts for `valid_`/`invalid_` seeds.
pub fn accepts(target: &str, data: &[u8]) -> bool {
    match target {
        "session_message" => Message::parse(data).is_ok(),
        "session_state" => RatchetState::from_bytes(data).is_ok(),
        "session_state_machine" => run_state_machine(data).is_ok_and(|n| n > 0),
        _ => false,
    }
}

/// The generated seed corpora: `(target, file name, bytes)`.
pub fn seed_corpus() -> Vec<(&'static str, String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut add = |t: &'static str, n: &str, b: Vec<u8>| out.push((t, n.to_owned(), b));
    let mut rng = FixedRng(0x11, 0);
    if let Some((mut a, mut b)) = pair(&mut rng) {
        let m_ek = a.encrypt(b"fuzz", b"", &mut rng).unwrap_or_default();
        add("session_message", "valid_first_ek.bin", m_ek.clone());
        add(
            "session_state",
            "valid_initiator.bin",
            a.to_bytes().to_vec(),
        );
        add(
            "session_state",
            "valid_responder_idle.bin",
            b.to_bytes().to_vec(),
        );
        if let Ok((nb, _)) = b.decrypt(&m_ek, b"", NOW) {
            b = nb;
        }
        add(
            "session_state",
            "valid_responder_peer_ek.bin",
            b.to_bytes().to_vec(),
        );
        let r = b.encrypt(b"reply", b"", &mut rng).unwrap_or_default();
        add("session_message", "valid_ct_ek.bin", r.clone());
        if let Ok((na, _)) = a.decrypt(&r, b"", NOW) {
            a = na;
        }
        let mut plain = Message::parse(&m_ek).map(|m| m.header).ok();
        if let Some(h) = plain.as_mut() {
            h.pq = veilkit::session::ratchet::PqField::None;
            let mut bytes = h.to_bytes();
            bytes.extend_from_slice(&[0u8; 12 + 80]);
            add("session_message", "valid_no_pq.bin", bytes);
        }
        add(
            "session_state",
            "valid_after_round_trip.bin",
            a.to_bytes().to_vec(),
        );
        add(
            "session_message",
            "invalid_short.bin",
            m_ek.get(..40).unwrap_or_default().to_vec(),
        );
        let mut bad_kind = m_ek.clone();
        if let Some(k) = bad_kind.get_mut(49) {
            *k = 9;
        }
        add("session_message", "invalid_kind.bin", bad_kind);
        let mut bad_version = r;
        if let Some(v) = bad_version.first_mut() {
            *v = 2;
        }
        add("session_message", "invalid_version.bin", bad_version);
        let st = a.to_bytes().to_vec();
        add(
            "session_state",
            "invalid_truncated.bin",
            st.get(..st.len() / 2).unwrap_or_default().to_vec(),
        );
        let mut trailing = st;
        trailing.push(0);
        add("session_state", "invalid_trailing.bin", trailing);
    }
    // Scripts: op = (kind << 1) | party, then an argument byte.
    add(
        "session_state_machine",
        "valid_ping_pong.bin",
        vec![0, 0, 5, 0, 1, 0, 4, 0, 0, 0, 5, 0],
    );
    add(
        "session_state_machine",
        "valid_reorder_tamper.bin",
        vec![0, 0, 0, 0, 0, 0, 7, 1, 3, 5, 2, 5, 1, 0, 4, 1, 5, 0, 0, 0],
    );
    add(
        "session_state_machine",
        "valid_drops.bin",
        vec![0, 0, 0, 0, 9, 0, 5, 1, 1, 0, 4, 0, 9, 0, 0, 0, 5, 0],
    );
    add("session_state_machine", "invalid_empty.bin", Vec::new());
    add(
        "session_state_machine",
        "invalid_only_responder_sends.bin",
        vec![1, 0, 3, 0, 5, 0],
    );
    out
}
