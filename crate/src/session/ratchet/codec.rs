//! Canonical, versioned serialized state (docs/SESSIONS.md §5.9).
//!
//! ```text
//! state = "VKRS" ‖ u8 format(3) ‖ u8 protocol version ‖ u8 role(1 initiator, 2 responder) ‖ u64 counter
//!       ‖ u32 max_jump ‖ u32 max_skipped_keys ‖ u32 max_receiving_chains ‖ u64 max_skipped_age_secs
//!       ‖ H_ID(32) ‖ root_key(32)
//!       ‖ opt(dh_secret(32)) ‖ opt(dh_remote(32)) ‖ opt(ck(32) ‖ pq_ck(32) ‖ u32 n ‖ u64 epoch) ‖ u32 PN
//!       ‖ u64 latest ‖ pq_root(32) ‖ own_dir(32) ‖ peer_dir(32)
//!       ‖ own_key ‖ opt(u64 k ‖ ct(1088)) ‖ opt(u64 k ‖ ek(1184))
//!       ‖ [chunked]                                   (protocol version 2 only)
//!       ‖ u64 next_seq ‖ u8 chains ‖ chain*
//! chain = ratchet_pub(32) ‖ u64 epoch ‖ opt(ck(32) ‖ pq_ck(32)) ‖ u32 next ‖ u32 count
//!       ‖ (u32 n ‖ mk(32) ‖ u64 created ‖ u64 seq)*
//! opt(x) = 0x00 | 0x01 ‖ x
//! own_key = 0x00 | 0x01 ‖ u64 k ‖ seed(64) | 0x02 ‖ u64 k ‖ dk(2400)
//! chunked = u16 ek_next ‖ u16 ct_next ‖ opt(pq_root ‖ dir(i→r) ‖ dir(r→i) of epoch latest+1 (96))
//!       ‖ opt(prev_peer_dir(32)) ‖ u8 n ‖ (u16 index ‖ chunk(32))^n (ek) ‖ u8 n ‖ (u16 index ‖ chunk(32))^n (ct)
//! ```
//! Parsing is bounded and total; every invariant the code relies on is
//! checked (`INVALID_STATE`), trailing bytes are refused (`MALFORMED_INPUT`).
//!
//! The identity encodings are not in the state (format 3): it binds them by
//! `H_ID = SHA-256(Enc(ID_init) ‖ Enc(ID_resp))`, and whoever stores the state
//! keeps the encodings beside it and checks them against `H_ID` on load
//! ([`RatchetState::check_identities`]). Format 2 carried both encodings in
//! place of `H_ID` (`u16 len ‖ Enc(ID_init) ‖ u16 len ‖ Enc(ID_resp)`, the rest
//! identical): [`RatchetState::from_bytes`] refuses it and
//! [`RatchetState::migrate_format_2`] converts it.
//!
//! The own pending ML-KEM key pair is stored as its key-generation seed
//! `d ‖ z` (tag 1; a load regenerates the pair, FIPS 203
//! `ML-KEM.KeyGen_internal`). Format 2 stored the expanded decapsulation key
//! `dk_PKE ‖ ek ‖ H(ek) ‖ z` (`opt(u64 k ‖ dk(2400))`), from which `d` cannot
//! be recovered: a migrated state keeps that key in the expanded form (tag 2,
//! checked on every load) until its epoch completes; keys generated after
//! that are stored as seeds.

use std::sync::Arc;

use zeroize::Zeroizing;

use super::header;

use super::chunks::{CHUNK_LEN, Chunk};
use super::kdf::EpochKeys;
use super::kdf::{ChainKeys, Key};
use super::limits::Limits;
use super::pq::{Chunked, OwnEk, PqState};
use super::skipped::{Receiving, RecvChain, SkippedKey};
use super::{DhPair, RatchetState, SendChain, check_binding, check_version};
use crate::bytes::ByteReader;
use crate::mlkem::{CT_LEN, DK_LEN, EK_LEN, SEED_LEN};
use crate::session::{Result, Role, SessionBinding, SessionError};

/// Magic prefix of a serialized state.
pub const STATE_MAGIC: &[u8; 4] = b"VKRS";
/// Current serialized-state format (3: the identities bound by `H_ID`, not
/// stored, the own ML-KEM key pair stored as its 64-byte seed (tag 1) or, only
/// when migrated from format 2, as its expanded decapsulation key (tag 2);
/// 2: both identity encodings and the expanded key stored, read only by
/// [`RatchetState::migrate_format_2`]; format 1 is not read).
pub const STATE_FORMAT: u8 = 3;
/// The previous format, which stored both identity encodings.
pub const STATE_FORMAT_2: u8 = 2;
/// Longest identity encoding accepted.
pub(crate) const MAX_IDENTITY_LEN: usize = 8192;

const TRUNC: SessionError = SessionError::Malformed("state: truncated");

/// `own_key` tag: the 64-byte seed `d ‖ z`.
const OWN_SEED: u8 = 1;
/// `own_key` tag: the expanded decapsulation key (migrated from format 2).
const OWN_DK: u8 = 2;

fn put_opt(out: &mut Vec<u8>, present: bool) {
    out.push(u8::from(present));
}

fn opt(r: &mut ByteReader<'_>) -> Result<bool> {
    match r.u8().ok_or(TRUNC)? {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(SessionError::Malformed("state: option flag not 0 or 1")),
    }
}

fn key(r: &mut ByteReader<'_>) -> Result<Key> {
    Ok(Zeroizing::new(r.array::<32>().ok_or(TRUNC)?))
}

fn bad(what: &'static str) -> SessionError {
    SessionError::InvalidState(what)
}

/// Length of the version-2 chunk block.
fn chunked_len(c: &Chunked) -> usize {
    let entry = 2 + CHUNK_LEN;
    (2 + 2 + 1 + 1 + 1 + 1)
        + if c.pending.is_some() { 96 } else { 0 }
        + if c.prev_peer_dir.is_some() { 32 } else { 0 }
        + c.ek_rx
            .len()
            .saturating_add(c.ct_rx.len())
            .saturating_mul(entry)
}

fn put_chunks(out: &mut Vec<u8>, rx: &[Chunk]) {
    out.push(u8::try_from(rx.len()).unwrap_or(u8::MAX));
    for (i, c) in rx.iter().take(usize::from(u8::MAX)) {
        out.extend_from_slice(&i.to_be_bytes());
        out.extend_from_slice(c);
    }
}

fn put_chunked(o: &mut Vec<u8>, c: &Chunked) {
    o.extend_from_slice(&c.ek_next.to_be_bytes());
    o.extend_from_slice(&c.ct_next.to_be_bytes());
    put_opt(o, c.pending.is_some());
    if let Some(k) = &c.pending {
        o.extend_from_slice(&k.root[..]);
        o.extend_from_slice(&k.initiator_to_responder[..]);
        o.extend_from_slice(&k.responder_to_initiator[..]);
    }
    put_opt(o, c.prev_peer_dir.is_some());
    if let Some(d) = &c.prev_peer_dir {
        o.extend_from_slice(&d[..]);
    }
    put_chunks(o, &c.ek_rx);
    put_chunks(o, &c.ct_rx);
}

/// At most `max` chunks (the invariants check the rest).
fn read_chunks(r: &mut ByteReader<'_>, max: usize) -> Result<Vec<Chunk>> {
    let n = usize::from(r.u8().ok_or(TRUNC)?);
    if n > max {
        return Err(bad("too many stored PQ chunks"));
    }
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push((r.u16().ok_or(TRUNC)?, r.array::<CHUNK_LEN>().ok_or(TRUNC)?));
    }
    Ok(out)
}

fn read_chunked(r: &mut ByteReader<'_>) -> Result<Chunked> {
    let ek_next = r.u16().ok_or(TRUNC)?;
    let ct_next = r.u16().ok_or(TRUNC)?;
    let pending = if opt(r)? {
        Some(EpochKeys {
            root: key(r)?,
            initiator_to_responder: key(r)?,
            responder_to_initiator: key(r)?,
        })
    } else {
        None
    };
    let prev_peer_dir = if opt(r)? { Some(key(r)?) } else { None };
    Ok(Chunked {
        ek_next,
        ct_next,
        pending,
        prev_peer_dir,
        ek_rx: read_chunks(r, super::pq::EK_CHUNKS)?,
        ct_rx: read_chunks(r, super::pq::CT_CHUNKS)?,
    })
}

/// The own pending key pair: `own_key` (format 3), or format 2's
/// `opt(u64 k ‖ dk(2400))`, whose flag 1 is the expanded key.
fn read_own_key(r: &mut ByteReader<'_>, format: u8) -> Result<Option<Arc<OwnEk>>> {
    let tag = match r.u8().ok_or(TRUNC)? {
        0 => return Ok(None),
        1 if format == STATE_FORMAT_2 => OWN_DK,
        t @ (OWN_SEED | OWN_DK) if format == STATE_FORMAT => t,
        _ => return Err(SessionError::Malformed("state: own key tag")),
    };
    let k = r.u64().ok_or(TRUNC)?;
    let own = if tag == OWN_SEED {
        OwnEk::from_seed(k, Zeroizing::new(r.array::<SEED_LEN>().ok_or(TRUNC)?))?
    } else {
        OwnEk::from_dk(k, Zeroizing::new(r.take(DK_LEN).ok_or(TRUNC)?.to_vec()))?
    };
    Ok(Some(Arc::new(own)))
}

impl RatchetState {
    /// The length of [`RatchetState::to_bytes`].
    fn encoded_len(&self) -> usize {
        let opt_len = |present: bool, len: usize| 1 + if present { len } else { 0 };
        let p = &self.pq;
        let fixed: usize = 4 + 1 + 1 + 1 + 8 + 4 + 4 + 4 + 8 + 32 + 32 + 4 + 8 + 32 * 3 + 8 + 1;
        let chains = self.recv.chains.iter().fold(0usize, |acc, c| {
            acc.saturating_add(32 + 8 + opt_len(c.keys.is_some(), 64) + 4 + 4)
                .saturating_add(c.skipped.len().saturating_mul(4 + 32 + 8 + 8))
        });
        fixed
            .saturating_add(opt_len(self.dh_self.is_some(), 32))
            .saturating_add(opt_len(self.dh_remote.is_some(), 32))
            .saturating_add(opt_len(self.send.is_some(), 32 + 32 + 4 + 8))
            .saturating_add(
                1 + p.own_ek.as_ref().map_or(0, |own| {
                    8 + if own.seed.is_some() { SEED_LEN } else { DK_LEN }
                }),
            )
            .saturating_add(opt_len(p.own_ct.is_some(), 8 + CT_LEN))
            .saturating_add(opt_len(p.peer_ek.is_some(), 8 + EK_LEN))
            .saturating_add(p.chunked.as_ref().map_or(0, chunked_len))
            .saturating_add(chains)
    }

    /// The canonical serialized state (secrets included: the keystore wraps it).
    #[must_use]
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        // Room for the whole state up front: a growing Vec would free its
        // earlier buffers (with secrets in them) without wiping them. Rounded
        // up to a power of two: wiping an odd-sized buffer on drop measured
        // twice as slow (`cargo bench --bench session`, state to_bytes).
        let mut o = Zeroizing::new(Vec::with_capacity(self.encoded_len().next_power_of_two()));
        o.extend_from_slice(STATE_MAGIC);
        o.push(STATE_FORMAT);
        o.push(self.version);
        o.push(match self.role {
            Role::Initiator => 1,
            Role::Responder => 2,
        });
        o.extend_from_slice(&self.counter.to_be_bytes());
        o.extend_from_slice(&self.limits.max_jump.to_be_bytes());
        o.extend_from_slice(&self.limits.max_skipped_keys.to_be_bytes());
        o.extend_from_slice(&self.limits.max_receiving_chains.to_be_bytes());
        o.extend_from_slice(&self.limits.max_skipped_age_secs.to_be_bytes());
        o.extend_from_slice(&self.identities_hash);
        o.extend_from_slice(&self.root_key[..]);
        put_opt(&mut o, self.dh_self.is_some());
        if let Some(dh) = &self.dh_self {
            o.extend_from_slice(&dh.secret[..]);
        }
        put_opt(&mut o, self.dh_remote.is_some());
        if let Some(remote) = &self.dh_remote {
            o.extend_from_slice(remote);
        }
        put_opt(&mut o, self.send.is_some());
        if let Some(send) = &self.send {
            o.extend_from_slice(&send.keys.ck[..]);
            o.extend_from_slice(&send.keys.pq_ck[..]);
            o.extend_from_slice(&send.n.to_be_bytes());
            o.extend_from_slice(&send.epoch.to_be_bytes());
        }
        o.extend_from_slice(&self.previous_send_len.to_be_bytes());
        let p = &self.pq;
        o.extend_from_slice(&p.latest.to_be_bytes());
        o.extend_from_slice(&p.root[..]);
        o.extend_from_slice(&p.own_dir[..]);
        o.extend_from_slice(&p.peer_dir[..]);
        match &p.own_ek {
            None => o.push(0),
            Some(own) => {
                o.push(if own.seed.is_some() { OWN_SEED } else { OWN_DK });
                o.extend_from_slice(&own.epoch.to_be_bytes());
                match &own.seed {
                    Some(seed) => o.extend_from_slice(&seed[..]),
                    None => o.extend_from_slice(&own.dk[..]),
                }
            }
        }
        put_opt(&mut o, p.own_ct.is_some());
        if let Some((k, ct)) = &p.own_ct {
            o.extend_from_slice(&k.to_be_bytes());
            o.extend_from_slice(&ct[..]);
        }
        put_opt(&mut o, p.peer_ek.is_some());
        if let Some((k, ek)) = &p.peer_ek {
            o.extend_from_slice(&k.to_be_bytes());
            o.extend_from_slice(&ek[..]);
        }
        if let Some(c) = &p.chunked {
            put_chunked(&mut o, c);
        }
        o.extend_from_slice(&self.recv.next_seq.to_be_bytes());
        o.push(u8::try_from(self.recv.chains.len()).unwrap_or(u8::MAX));
        for c in self.recv.chains.iter().take(usize::from(u8::MAX)) {
            o.extend_from_slice(&c.ratchet_public);
            o.extend_from_slice(&c.epoch.to_be_bytes());
            put_opt(&mut o, c.keys.is_some());
            if let Some(k) = &c.keys {
                o.extend_from_slice(&k.ck[..]);
                o.extend_from_slice(&k.pq_ck[..]);
            }
            o.extend_from_slice(&c.next.to_be_bytes());
            o.extend_from_slice(
                &u32::try_from(c.skipped.len())
                    .unwrap_or(u32::MAX)
                    .to_be_bytes(),
            );
            for k in &c.skipped {
                o.extend_from_slice(&k.n.to_be_bytes());
                o.extend_from_slice(&k.mk[..]);
                o.extend_from_slice(&k.created.to_be_bytes());
                o.extend_from_slice(&k.seq.to_be_bytes());
            }
        }
        debug_assert_eq!(o.len(), self.encoded_len(), "encoded_len is exact");
        o
    }

    /// Parses a serialized state (bounded by the limits it carries) and
    /// checks every invariant.
    ///
    /// # Errors
    /// [`SessionError::Malformed`] (magic, format, truncation, flags, trailing
    /// bytes), [`SessionError::InvalidState`] (a violated invariant or limit),
    /// `INVALID_KEY` (an ML-KEM key that fails its check).
    /// A state of the previous format 2 (`MALFORMED_INPUT`, "format 2") is
    /// refused: convert it with [`RatchetState::migrate_format_2`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Self::parse(bytes, STATE_FORMAT).map(|(s, _)| s)
    }

    /// Converts a state of format 2 (which stored both identity encodings)
    /// into a state of the current format with the same secrets and counter,
    /// and returns the identities it carried (the caller stores them beside
    /// the new state). Whatever [`RatchetState::from_bytes`] checks is checked.
    ///
    /// # Errors
    /// As [`RatchetState::from_bytes`]; a state of any other format is
    /// `MALFORMED_INPUT`; an identity encoding over 8,192 bytes `INVALID_STATE`.
    pub fn migrate_format_2(bytes: &[u8]) -> Result<(Self, SessionBinding)> {
        let (s, binding) = Self::parse(bytes, STATE_FORMAT_2)?;
        let binding = binding.ok_or(SessionError::Malformed("state: format 2"))?;
        Ok((s, binding))
    }

    fn parse(bytes: &[u8], format: u8) -> Result<(Self, Option<SessionBinding>)> {
        let mut r = ByteReader::new(bytes);
        if r.take(4).ok_or(TRUNC)? != STATE_MAGIC {
            return Err(SessionError::Malformed("state: magic"));
        }
        match r.u8().ok_or(TRUNC)? {
            f if f == format => {}
            STATE_FORMAT_2 => {
                return Err(SessionError::Malformed(
                    "state: format 2 (identities inside): migrate it",
                ));
            }
            _ => return Err(SessionError::Malformed("state: unknown format")),
        }
        let version = r.u8().ok_or(TRUNC)?;
        let role = match r.u8().ok_or(TRUNC)? {
            1 => Role::Initiator,
            2 => Role::Responder,
            _ => return Err(SessionError::Malformed("state: role")),
        };
        let counter = r.u64().ok_or(TRUNC)?;
        let limits = Limits {
            max_jump: r.u32().ok_or(TRUNC)?,
            max_skipped_keys: r.u32().ok_or(TRUNC)?,
            max_receiving_chains: r.u32().ok_or(TRUNC)?,
            max_skipped_age_secs: r.u64().ok_or(TRUNC)?,
        };
        limits.validate()?;
        check_version(version)?;
        let (identities_hash, binding) = if format == STATE_FORMAT_2 {
            let mut ids = [Vec::new(), Vec::new()];
            for id in &mut ids {
                let len = usize::from(r.u16().ok_or(TRUNC)?);
                *id = r.take(len).ok_or(TRUNC)?.to_vec();
            }
            let [initiator_identity, responder_identity] = ids;
            let binding = SessionBinding {
                version,
                initiator_identity,
                responder_identity,
            };
            check_binding(&binding)?;
            (header::identities_hash(&binding), Some(binding))
        } else {
            (r.array::<32>().ok_or(TRUNC)?, None)
        };
        let root_key = key(&mut r)?;
        let dh_self = if opt(&mut r)? {
            Some(DhPair::from_secret(key(&mut r)?)?)
        } else {
            None
        };
        let dh_remote = if opt(&mut r)? {
            Some(r.array::<32>().ok_or(TRUNC)?)
        } else {
            None
        };
        let send = if opt(&mut r)? {
            let keys = ChainKeys {
                ck: key(&mut r)?,
                pq_ck: key(&mut r)?,
            };
            Some(SendChain {
                keys,
                n: r.u32().ok_or(TRUNC)?,
                epoch: r.u64().ok_or(TRUNC)?,
            })
        } else {
            None
        };
        let previous_send_len = r.u32().ok_or(TRUNC)?;
        let latest = r.u64().ok_or(TRUNC)?;
        let (root, own_dir, peer_dir) = (key(&mut r)?, key(&mut r)?, key(&mut r)?);
        let own_ek = read_own_key(&mut r, format)?;
        let own_ct = if opt(&mut r)? {
            Some((
                r.u64().ok_or(TRUNC)?,
                Arc::from(r.take(CT_LEN).ok_or(TRUNC)?),
            ))
        } else {
            None
        };
        let peer_ek = if opt(&mut r)? {
            Some((
                r.u64().ok_or(TRUNC)?,
                Arc::from(r.take(EK_LEN).ok_or(TRUNC)?),
            ))
        } else {
            None
        };
        let chunked = if version == crate::session::VERSION_2 {
            Some(read_chunked(&mut r)?)
        } else {
            None
        };
        let pq = PqState {
            latest,
            root,
            own_dir,
            peer_dir,
            own_ek,
            own_ct,
            peer_ek,
            chunked,
        };
        let next_seq = r.u64().ok_or(TRUNC)?;
        let count = r.u8().ok_or(TRUNC)?;
        if u32::from(count) > limits.max_receiving_chains {
            return Err(bad("more receiving chains than the limit"));
        }
        let mut chains = Vec::with_capacity(usize::from(count));
        let mut total: u64 = 0;
        for _ in 0..count {
            let ratchet_public = r.array::<32>().ok_or(TRUNC)?;
            let epoch = r.u64().ok_or(TRUNC)?;
            let keys = if opt(&mut r)? {
                Some(ChainKeys {
                    ck: key(&mut r)?,
                    pq_ck: key(&mut r)?,
                })
            } else {
                None
            };
            let next = r.u32().ok_or(TRUNC)?;
            let n_keys = r.u32().ok_or(TRUNC)?;
            total = total.saturating_add(u64::from(n_keys));
            if total > u64::from(limits.max_skipped_keys) {
                return Err(bad("more skipped keys than the limit"));
            }
            let mut skipped = Vec::with_capacity(usize::try_from(n_keys).unwrap_or(0));
            for _ in 0..n_keys {
                skipped.push(SkippedKey {
                    n: r.u32().ok_or(TRUNC)?,
                    mk: key(&mut r)?,
                    created: r.u64().ok_or(TRUNC)?,
                    seq: r.u64().ok_or(TRUNC)?,
                });
            }
            chains.push(RecvChain {
                ratchet_public,
                epoch,
                keys,
                next,
                skipped,
            });
        }
        if !r.rest().is_empty() {
            return Err(SessionError::Malformed("state: trailing bytes"));
        }
        let s = Self {
            version,
            identities_hash,
            role,
            limits,
            counter,
            root_key,
            dh_self,
            dh_remote,
            send,
            previous_send_len,
            pq,
            recv: Receiving { chains, next_seq },
        };
        s.check_invariants()?;
        Ok((s, binding))
    }
}
