//! Invariants of a state that `from_bytes` checks (every one `encrypt` and
//! `decrypt` rely on).

use super::RatchetState;
use super::chunks::Chunk;
use super::pq::{self, Chunked};
use crate::session::{Result, SessionError};

fn bad(what: &'static str) -> SessionError {
    SessionError::InvalidState(what)
}

fn distinct(rx: &[Chunk]) -> bool {
    rx.iter()
        .enumerate()
        .all(|(i, (a, _))| rx.iter().skip(i.saturating_add(1)).all(|(b, _)| a != b))
}

impl RatchetState {
    /// The version-2 chunk state (docs/SESSIONS.md §5.11).
    fn check_chunked(&self, c: &Chunked) -> Result<()> {
        let p = &self.pq;
        let next_epoch = p.latest.checked_add(1);
        if let Some((k, _)) = &p.own_ct
            && (Some(*k) != next_epoch
                || pq::ek_sender(*k) != pq::peer(self.role)
                || p.own_ek.is_some()
                || p.peer_ek.is_some())
        {
            return Err(bad("own ct epoch"));
        }
        if p.own_ct.is_some() != c.pending.is_some() {
            return Err(bad("pending epoch keys"));
        }
        if c.prev_peer_dir.is_some() && p.latest == 0 {
            return Err(bad("previous peer direction key"));
        }
        let peer_turn = next_epoch.is_some_and(|k| pq::ek_sender(k) == pq::peer(self.role));
        if !c.ek_rx.is_empty()
            && (!peer_turn
                || p.own_ek.is_some()
                || p.peer_ek.is_some()
                || p.own_ct.is_some()
                || c.ek_rx.len() >= pq::EK_CHUNKS
                || !distinct(&c.ek_rx))
        {
            return Err(bad("ek chunks"));
        }
        if !c.ct_rx.is_empty()
            && (p.own_ek.is_none() || c.ct_rx.len() >= pq::CT_CHUNKS || !distinct(&c.ct_rx))
        {
            return Err(bad("ct chunks"));
        }
        Ok(())
    }

    /// Every invariant `encrypt`/`decrypt` rely on.
    pub(super) fn check_invariants(&self) -> Result<()> {
        let p = &self.pq;
        let next_epoch = p.latest.checked_add(1);
        if let Some(own) = &p.own_ek
            && (Some(own.epoch) != next_epoch || pq::ek_sender(own.epoch) != self.role)
        {
            return Err(bad("own ek epoch"));
        }
        if let Some((k, ek)) = &p.peer_ek {
            if Some(*k) != next_epoch
                || pq::ek_sender(*k) != pq::peer(self.role)
                || p.own_ek.is_some()
            {
                return Err(bad("peer ek epoch"));
            }
            pq::check_ek(ek)?;
        }
        if let Some(c) = &p.chunked {
            self.check_chunked(c)?;
        } else if p.own_ct.is_some() && p.peer_ek.is_some() {
            // Version 1: an own `ct_k` (k ≤ latest) is acknowledged by the
            // peer message of epoch latest that could carry a peer `ek`, before
            // that `ek` is taken (version 2: `check_chunked`). The state-size
            // bound (docs/SESSIONS.md §5.9) relies on it.
            return Err(bad("own ct and peer ek both pending"));
        } else if let Some((k, _)) = &p.own_ct
            && (*k == 0 || *k > p.latest || pq::ek_sender(*k) != pq::peer(self.role))
        {
            return Err(bad("own ct epoch"));
        }
        if let Some(send) = &self.send
            && (send.epoch > p.latest || self.dh_self.is_none() || self.dh_remote.is_none())
        {
            return Err(bad("sending chain"));
        }
        let chains = &self.recv.chains;
        let mut open = 0usize;
        for (i, c) in chains.iter().enumerate() {
            if c.epoch > p.latest {
                return Err(bad("receiving chain epoch"));
            }
            if chains
                .iter()
                .skip(i.saturating_add(1))
                .any(|d| d.ratchet_public == c.ratchet_public)
            {
                return Err(bad("duplicate receiving chain"));
            }
            if c.keys.is_some() {
                open = open.saturating_add(1);
                if i.saturating_add(1) != chains.len() {
                    return Err(bad("open receiving chain not the newest"));
                }
            }
            let ordered = c
                .skipped
                .windows(2)
                .all(|w| matches!(w, [a, b] if a.n < b.n));
            let below = c.keys.is_none() || c.skipped.iter().all(|k| k.n < c.next);
            if !ordered || !below || c.skipped.iter().any(|k| k.seq >= self.recv.next_seq) {
                return Err(bad("skipped keys"));
            }
        }
        if open > 1 {
            return Err(bad("more than one open receiving chain"));
        }
        Ok(())
    }
}
