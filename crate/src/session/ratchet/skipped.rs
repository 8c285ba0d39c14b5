//! Receiving chains and skipped message keys (docs/SESSIONS.md §5.6).
//!
//! A receiving chain is *open* (it holds its chain keys and derives on
//! demand) while it is the peer's current chain; when the peer starts a new
//! chain, the open one is advanced to `PN` (its unreceived keys become
//! skipped keys, stored as final message keys) and closed. Bounds: a jump of
//! at most `max_jump` (checked by the caller before any derivation), at most
//! `max_skipped_keys` skipped keys (the oldest evicted), at most
//! `max_receiving_chains` chains (the oldest evicted with its keys), skipped
//! keys at most `max_skipped_age_secs` old. The window is counted in chains,
//! not PQ epochs (every direction change is a new epoch): skipped keys are
//! final message keys, so an old epoch's chain needs no PQ state. A closed
//! chain whose keys are all used stays as a record (ratchet key, epoch)
//! until evicted, so replays on it are detected.

use super::kdf::{ChainKeys, Key};
use super::limits::Limits;
use crate::session::{Result, SessionError};

/// A skipped message key.
#[derive(Clone)]
pub(crate) struct SkippedKey {
    pub(crate) n: u32,
    pub(crate) mk: Key,
    /// Unix seconds when it was stored.
    pub(crate) created: u64,
    /// Global insertion order (eviction of the oldest).
    pub(crate) seq: u64,
}

/// One receiving chain.
#[derive(Clone)]
pub(crate) struct RecvChain {
    pub(crate) ratchet_public: [u8; 32],
    pub(crate) epoch: u64,
    /// Chain keys while open.
    pub(crate) keys: Option<ChainKeys>,
    /// Next message number to derive (meaningful while open).
    pub(crate) next: u32,
    /// Skipped keys, strictly increasing `n`.
    pub(crate) skipped: Vec<SkippedKey>,
}

/// Context of a derivation.
pub(crate) struct Ctx {
    pub(crate) version: u8,
    pub(crate) now: u64,
}

impl RecvChain {
    /// Stores the keys of `next..until` as skipped keys (`until > next`
    /// bounded by the caller's jump check).
    pub(crate) fn skip_to(&mut self, until: u32, ctx: &Ctx, seq: &mut u64) -> Result<()> {
        let Some(keys) = self.keys.as_mut() else {
            return Ok(());
        };
        let count = usize::try_from(until.saturating_sub(self.next)).unwrap_or(0);
        reserve_wiped(&mut self.skipped, count);
        while self.next < until {
            let mk = keys.step(ctx.version, self.epoch, &self.ratchet_public, self.next)?;
            self.skipped.push(SkippedKey {
                n: self.next,
                mk,
                created: ctx.now,
                seq: *seq,
            });
            *seq = seq.saturating_add(1);
            self.next = self.next.saturating_add(1);
        }
        Ok(())
    }

    /// The key of message `n`: a skipped key (removed), or derived from the
    /// open chain after skipping to `n`.
    pub(crate) fn key_for(&mut self, n: u32, ctx: &Ctx, seq: &mut u64) -> Result<Key> {
        if let Some(pos) = self.skipped.iter().position(|k| k.n == n)
            && let Some(k) = remove_wiped(&mut self.skipped, pos)
        {
            return Ok(k.mk);
        }
        if self.keys.is_none() || n < self.next {
            return Err(SessionError::DuplicateMessage);
        }
        self.skip_to(n, ctx, seq)?;
        let keys = self.keys.as_mut().ok_or(SessionError::DuplicateMessage)?;
        let mk = keys.step(ctx.version, self.epoch, &self.ratchet_public, n)?;
        match n.checked_add(1) {
            Some(next) => self.next = next,
            None => self.keys = None,
        }
        Ok(mk)
    }

    /// How far message `n` lies ahead of this chain (0 if behind or closed).
    pub(crate) fn jump_to(&self, n: u32) -> u64 {
        if self.keys.is_none() {
            return 0;
        }
        u64::from(n.saturating_sub(self.next))
    }
}

/// Every receiving chain, oldest first.
#[derive(Clone, Default)]
pub(crate) struct Receiving {
    pub(crate) chains: Vec<RecvChain>,
    /// Next skipped-key sequence number.
    pub(crate) next_seq: u64,
}

impl Receiving {
    /// The chain of `ratchet_public`.
    pub(crate) fn find_mut(&mut self, ratchet_public: &[u8; 32]) -> Option<&mut RecvChain> {
        self.chains
            .iter_mut()
            .find(|c| &c.ratchet_public == ratchet_public)
    }

    /// The open (current) chain.
    pub(crate) fn open_mut(&mut self) -> Option<&mut RecvChain> {
        self.chains.iter_mut().rev().find(|c| c.keys.is_some())
    }

    /// Total skipped keys held.
    pub(crate) fn skipped_len(&self) -> usize {
        self.chains.iter().map(|c| c.skipped.len()).sum()
    }

    /// Deletes skipped keys older than the limit (a clock behind a key's
    /// creation time counts as age 0).
    pub(crate) fn purge_expired(&mut self, now: u64, limits: &Limits) {
        for c in &mut self.chains {
            retain_wiped(&mut c.skipped, |k| {
                now.saturating_sub(k.created) <= limits.max_skipped_age_secs
            });
        }
    }

    /// Applies the bounds after a change (a closed chain without keys stays
    /// as a record until evicted, so a replay on it is `DUPLICATE_MESSAGE`):
    /// at most `max_receiving_chains` chains, whatever their epochs (oldest
    /// evicted), at most `max_skipped_keys` skipped keys (oldest evicted).
    /// A chain's epoch plays no part: its skipped keys are final message
    /// keys and a closed chain holds no PQ key material.
    pub(crate) fn enforce(&mut self, limits: &Limits) {
        let max_chains = usize::try_from(limits.max_receiving_chains).unwrap_or(usize::MAX);
        while self.chains.len() > max_chains {
            remove_wiped(&mut self.chains, 0);
        }
        let max_keys = usize::try_from(limits.max_skipped_keys).unwrap_or(usize::MAX);
        let excess = self.skipped_len().saturating_sub(max_keys);
        if let Some(last) = excess.checked_sub(1) {
            // Sequence numbers are unique: drop the `excess` smallest.
            let mut seqs: Vec<u64> = self
                .chains
                .iter()
                .flat_map(|c| c.skipped.iter().map(|k| k.seq))
                .collect();
            if last < seqs.len() {
                let threshold = *seqs.select_nth_unstable(last).1;
                for c in &mut self.chains {
                    retain_wiped(&mut c.skipped, |k| k.seq > threshold);
                }
            }
        }
    }
}

// `Vec`'s own `remove`, `retain` and growth move elements with bitwise copies
// and leave the old bytes behind the new end or in the freed old buffer,
// where no drop wipes them: the zeroization scan found used and still-held
// message keys there (tests/playwright/zeroize.spec.ts, session). These
// helpers only swap elements within the live range and drop the unwanted ones
// in place, so their `Zeroizing` keys wipe themselves.

/// Removes and returns `v[pos]` (a clone; the element itself is dropped in
/// place after being rotated to the end).
fn remove_wiped<T: Clone>(v: &mut Vec<T>, pos: usize) -> Option<T> {
    let out = v.get(pos)?.clone();
    if let Some(tail) = v.get_mut(pos..) {
        tail.rotate_left(1);
    }
    v.truncate(v.len().saturating_sub(1));
    Some(out)
}

/// `Vec::retain` (order of the kept elements preserved) by swaps, then the
/// rejected elements dropped in place.
fn retain_wiped<T>(v: &mut Vec<T>, mut keep: impl FnMut(&T) -> bool) {
    let mut kept = 0;
    for i in 0..v.len() {
        if v.get(i).is_some_and(&mut keep) {
            v.swap(kept, i);
            kept += 1;
        }
    }
    v.truncate(kept);
}

/// Room for `additional` more elements: a larger buffer filled with clones,
/// the old elements dropped in place before their buffer is freed.
pub(crate) fn reserve_wiped<T: Clone>(v: &mut Vec<T>, additional: usize) {
    if v.capacity().saturating_sub(v.len()) >= additional {
        return;
    }
    let cap = v
        .len()
        .saturating_add(additional)
        .max(v.capacity().saturating_mul(2));
    let mut grown = Vec::with_capacity(cap);
    grown.extend(v.iter().cloned());
    *v = grown;
}
