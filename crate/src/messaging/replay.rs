//! Replay store: a bounded set of message hashes seen within a time window,
//! with O(log n) lookups and insertions, and a JSON form for persistence.
//!
//! A hash is accepted by [`ReplayStore::insert`] only if
//! `floor ≤ timestamp`, `now − window ≤ timestamp ≤ now + window` and it is
//! not already stored. When the store is full the oldest insertion is evicted
//! (O(log n)) and `floor` rises above its timestamp, so an evicted (forgotten)
//! hash can never be replayed: anything at or below a forgotten timestamp is
//! refused as out of window. [`ReplayStore::prune`] (O(n), call it
//! periodically) forgets expired hashes the same way.
//!
//! **Which timestamp.** `timestamp` must be the sender's timestamp that the
//! message authenticates (signed, or inside the AEAD-protected / hashed
//! envelope, e.g. the `timestamp` of `transcript_compute_message_hash`), and
//! `hash` must cover it; `now` is the receiver's clock. The floor and the
//! window only stop replays if a replayed message arrives with the timestamp
//! it was first stored under: the receive time (or any value the network can
//! choose) would give a replay of a forgotten hash a fresh timestamp above the
//! floor, and it would be accepted again.
//!
//! The hashes live in a `BTreeMap`: lookups cost O(log n) whatever the keys,
//! so hashes chosen to collide cannot flood it (a `HashMap`'s default hasher
//! is not randomly keyed on `wasm32-unknown-unknown`).
//!
//! JSON form: `{"version":1,"windowSeconds":n,"maxEntries":n,"floor":n,"entries":[[b64url hash, timestamp], …]}`
//! (entries oldest insertion first, integers ≤ 2^53 − 1, unknown fields refused).

use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};

use super::codec::{MAX_SAFE_INTEGER, b64_decode_array, b64_encode};
use super::error::{MessagingError, Result};
use crate::error::{CryptoError, exact};

/// JSON `version`.
pub const VERSION: u32 = 1;
/// Largest `max_entries`.
pub const MAX_ENTRIES_LIMIT: usize = 1 << 20;

/// A bounded replay-protection store.
pub struct ReplayStore {
    window_seconds: u64,
    max_entries: usize,
    floor: u64,
    seen: BTreeMap<[u8; 32], u64>,
    order: VecDeque<[u8; 32]>,
}

impl core::fmt::Debug for ReplayStore {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ReplayStore")
            .field("window_seconds", &self.window_seconds)
            .field("max_entries", &self.max_entries)
            .field("floor", &self.floor)
            .field("len", &self.seen.len())
            .finish()
    }
}

fn check_params(window_seconds: u64, max_entries: usize) -> Result<()> {
    if window_seconds == 0 || window_seconds > MAX_SAFE_INTEGER {
        return Err(CryptoError::InvalidParameter("windowSeconds must be 1..=2^53 - 1").into());
    }
    if max_entries == 0 || max_entries > MAX_ENTRIES_LIMIT {
        return Err(CryptoError::InvalidParameter("maxEntries must be 1..=1048576").into());
    }
    Ok(())
}

impl ReplayStore {
    /// An empty store remembering hashes for `window_seconds`, holding at most `max_entries`.
    ///
    /// # Errors
    /// `INVALID_PARAMETER` (ranges).
    pub fn new(window_seconds: u64, max_entries: usize) -> Result<Self> {
        check_params(window_seconds, max_entries)?;
        Ok(Self {
            window_seconds,
            max_entries,
            floor: 0,
            seen: BTreeMap::new(),
            order: VecDeque::new(),
        })
    }

    /// Number of stored hashes.
    #[must_use]
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    /// Whether the store is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }

    /// The window in seconds.
    #[must_use]
    pub const fn window_seconds(&self) -> u64 {
        self.window_seconds
    }

    /// The capacity.
    #[must_use]
    pub const fn max_entries(&self) -> usize {
        self.max_entries
    }

    /// Timestamps below this are refused (the store may have forgotten them).
    #[must_use]
    pub const fn floor(&self) -> u64 {
        self.floor
    }

    /// Whether `hash` is stored.
    ///
    /// # Errors
    /// `INVALID_LENGTH` unless `hash` is 32 bytes.
    pub fn has(&self, hash: &[u8]) -> Result<bool> {
        Ok(self
            .seen
            .contains_key(exact::<32>("hash", "32 bytes", hash)?))
    }

    /// Records `hash` of a message whose authenticated (sender's) timestamp is
    /// `timestamp`, at the receiver's time `now` (see the module docs: never
    /// the receive time as `timestamp`).
    ///
    /// # Errors
    /// `REPLAY_DETECTED` if it is already stored; `REPLAY_OUT_OF_WINDOW` if
    /// `timestamp` is below the floor or more than a window away from `now`;
    /// `INVALID_LENGTH` unless `hash` is 32 bytes.
    pub fn insert(&mut self, hash: &[u8], timestamp: u64, now: u64) -> Result<()> {
        let hash = *exact::<32>("hash", "32 bytes", hash)?;
        if timestamp < self.floor
            || timestamp.saturating_add(self.window_seconds) < now
            || timestamp > now.saturating_add(self.window_seconds)
        {
            return Err(MessagingError::ReplayOutOfWindow);
        }
        if self.seen.contains_key(&hash) {
            return Err(MessagingError::Replay);
        }
        // Full: forget the oldest insertion (O(log n)); the floor rises above it.
        while self.seen.len() >= self.max_entries {
            let Some(oldest) = self.order.pop_front() else {
                break;
            };
            if let Some(ts) = self.seen.remove(&oldest) {
                self.floor = self.floor.max(ts.saturating_add(1));
            }
        }
        if timestamp < self.floor {
            return Err(MessagingError::ReplayOutOfWindow);
        }
        self.seen.insert(hash, timestamp);
        self.order.push_back(hash);
        Ok(())
    }

    /// Forgets every hash whose timestamp is more than a window before `now`
    /// (raising the floor above them); returns how many were removed. O(n).
    pub fn prune(&mut self, now: u64) -> usize {
        let cutoff = now.saturating_sub(self.window_seconds);
        let before = self.seen.len();
        let mut floor = self.floor;
        self.seen.retain(|_, ts| {
            let keep = *ts >= cutoff;
            if !keep {
                floor = floor.max(ts.saturating_add(1));
            }
            keep
        });
        self.floor = floor;
        let seen = &self.seen;
        self.order.retain(|h| seen.contains_key(h));
        before - self.seen.len()
    }

    /// The JSON form.
    ///
    /// # Errors
    /// `MALFORMED_INPUT` if serialisation fails.
    pub fn to_json(&self) -> Result<String> {
        let j = StoreJson {
            version: VERSION,
            window_seconds: self.window_seconds,
            max_entries: self.max_entries as u64,
            floor: self.floor,
            entries: self
                .order
                .iter()
                .filter_map(|h| self.seen.get(h).map(|ts| (b64_encode(h), *ts)))
                .collect(),
        };
        serde_json::to_string(&j).map_err(|_| MessagingError::Malformed("replay store"))
    }

    /// Parses the JSON form (bounds are checked before anything is stored).
    ///
    /// # Errors
    /// `MALFORMED_INPUT` (syntax, version, ranges, more entries than
    /// `maxEntries`, duplicate hashes).
    pub fn from_json(json: &str) -> Result<Self> {
        let j: StoreJson = serde_json::from_str(json)
            .map_err(|_| MessagingError::Malformed("replay store JSON"))?;
        let max_entries =
            usize::try_from(j.max_entries).map_err(|_| MessagingError::Malformed("maxEntries"))?;
        if j.version != VERSION
            || check_params(j.window_seconds, max_entries).is_err()
            || j.floor > MAX_SAFE_INTEGER
            || j.entries.len() > max_entries
        {
            return Err(MessagingError::Malformed("replay store parameters"));
        }
        let mut store = Self::new(j.window_seconds, max_entries)?;
        store.floor = j.floor;
        for (h, ts) in &j.entries {
            let hash = b64_decode_array::<32>("hash", h)?;
            if *ts > MAX_SAFE_INTEGER || store.seen.insert(hash, *ts).is_some() {
                return Err(MessagingError::Malformed("replay store entries"));
            }
            store.order.push_back(hash);
        }
        Ok(store)
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct StoreJson {
    version: u32,
    window_seconds: u64,
    max_entries: u64,
    floor: u64,
    entries: Vec<(String, u64)>,
}
