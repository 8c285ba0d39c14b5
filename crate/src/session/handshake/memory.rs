//! In-memory implementations of the responder's stores (tests, and a model
//! of the keystore's semantics).

use std::collections::{HashMap, HashSet};

use zeroize::Zeroizing;

use super::respond::{PrekeyStore, ReplayKey, Response};
use crate::session::prekey::PrekeyKind;

/// An in-memory replay cache (tests, and a model of the keystore's).
#[derive(Clone, Debug, Default)]
pub struct MemoryReplayCache {
    seen: HashSet<ReplayKey>,
}

impl MemoryReplayCache {
    /// Whether `key` is in the cache.
    #[must_use]
    pub fn contains(&self, key: &ReplayKey) -> bool {
        self.seen.contains(key)
    }

    /// Adds `key`; `false` if it was already there.
    pub fn insert(&mut self, key: ReplayKey) -> bool {
        self.seen.insert(key)
    }

    /// Drops the entries of a deleted signed or last-resort prekey.
    pub fn forget_prekeys(&mut self, signed_prekey_id: Option<u32>, pq_prekey_id: Option<u32>) {
        self.seen.retain(|k| {
            Some(k.signed_prekey_id) != signed_prekey_id && Some(k.pq_prekey_id) != pq_prekey_id
        });
    }

    /// Number of entries.
    #[must_use]
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    /// Whether the cache is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }
}

/// An in-memory [`PrekeyStore`] with the keystore's commit semantics
/// ([`MemoryPrekeyStore::commit`]): tests and a reference model.
#[derive(Default)]
pub struct MemoryPrekeyStore {
    signed: HashMap<u32, Zeroizing<[u8; 32]>>,
    one_time: HashMap<u32, Zeroizing<[u8; 32]>>,
    mlkem: HashMap<(PrekeyKind, u32), Zeroizing<Vec<u8>>>,
    /// The replay cache.
    pub replay: MemoryReplayCache,
}

impl MemoryPrekeyStore {
    /// Keeps a signed X25519 prekey secret.
    pub fn add_signed(&mut self, key_id: u32, secret: Zeroizing<[u8; 32]>) {
        self.signed.insert(key_id, secret);
    }

    /// Keeps a one-time X25519 prekey secret.
    pub fn add_one_time(&mut self, key_id: u32, secret: Zeroizing<[u8; 32]>) {
        self.one_time.insert(key_id, secret);
    }

    /// Keeps an ML-KEM prekey decapsulation key.
    pub fn add_mlkem(
        &mut self,
        kind: PrekeyKind,
        key_id: u32,
        decapsulation_key: Zeroizing<Vec<u8>>,
    ) {
        self.mlkem.insert((kind, key_id), decapsulation_key);
    }

    /// Deletes the signed X25519 prekey (rotation) and its replay entries.
    pub fn delete_signed(&mut self, key_id: u32) {
        self.signed.remove(&key_id);
        self.replay.forget_prekeys(Some(key_id), None);
    }

    /// Number of one-time prekeys held (X25519, ML-KEM).
    #[must_use]
    pub fn one_time_counts(&self) -> (usize, usize) {
        (
            self.one_time.len(),
            self.mlkem
                .keys()
                .filter(|(k, _)| *k == PrekeyKind::MlKemOneTime)
                .count(),
        )
    }

    /// What the keystore does in the transaction that stores the session:
    /// deletes the consumed one-time prekeys and records the replay key.
    pub fn commit(&mut self, response: &Response) {
        if let Some(id) = response.consumed.one_time_x25519 {
            self.one_time.remove(&id);
        }
        if let Some(id) = response.consumed.one_time_mlkem {
            self.mlkem.remove(&(PrekeyKind::MlKemOneTime, id));
        }
        if let Some(k) = response.replay_key {
            self.replay.insert(k);
        }
    }
}

impl PrekeyStore for MemoryPrekeyStore {
    fn signed_prekey(&self, key_id: u32) -> Option<Zeroizing<[u8; 32]>> {
        self.signed.get(&key_id).cloned()
    }

    fn one_time_prekey(&self, key_id: u32) -> Option<Zeroizing<[u8; 32]>> {
        self.one_time.get(&key_id).cloned()
    }

    fn mlkem_prekey(&self, kind: PrekeyKind, key_id: u32) -> Option<Zeroizing<Vec<u8>>> {
        self.mlkem.get(&(kind, key_id)).cloned()
    }

    fn replay_seen(&self, key: &ReplayKey) -> bool {
        self.replay.contains(key)
    }
}
