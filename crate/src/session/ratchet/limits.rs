//! Configurable bounds of a ratchet state (docs/SESSIONS.md §5.8).

use crate::session::{Result, SessionError};

/// Default [`Limits::max_jump`].
pub const DEFAULT_MAX_JUMP: u32 = 2_000;
/// Default [`Limits::max_skipped_keys`]: 200 (2,000 until state format 3;
/// each held key is 52 bytes of every stored state, docs/SESSIONS.md §5.9).
/// A jump of up to [`DEFAULT_MAX_JUMP`] still decrypts; of the keys it skips
/// the newest 200 are kept.
pub const DEFAULT_MAX_SKIPPED_KEYS: u32 = 200;
/// Default [`Limits::max_receiving_chains`].
pub const DEFAULT_MAX_RECEIVING_CHAINS: u32 = 5;
/// Default [`Limits::max_skipped_age_secs`]: 30 days.
pub const DEFAULT_MAX_SKIPPED_AGE_SECS: u64 = 30 * 24 * 60 * 60;

/// Largest accepted [`Limits::max_jump`] and [`Limits::max_skipped_keys`]
/// (bounds the work of one decrypt and the size of a state).
pub const HARD_MAX_KEYS: u32 = 100_000;
/// Largest accepted [`Limits::max_receiving_chains`].
pub const HARD_MAX_CHAINS: u32 = 64;

/// The bounds a state enforces; stored in the serialized state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most message keys one message may make the receiver skip in one chain
    /// (`N − Nr` and `PN − Nr`); checked before any key derivation.
    pub max_jump: u32,
    /// Most skipped message keys held in total; beyond it the oldest are evicted.
    pub max_skipped_keys: u32,
    /// Most receiving chains held; beyond it the oldest chain (with its
    /// skipped keys) is evicted.
    pub max_receiving_chains: u32,
    /// A skipped key older than this many seconds is deleted.
    pub max_skipped_age_secs: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_jump: DEFAULT_MAX_JUMP,
            max_skipped_keys: DEFAULT_MAX_SKIPPED_KEYS,
            max_receiving_chains: DEFAULT_MAX_RECEIVING_CHAINS,
            max_skipped_age_secs: DEFAULT_MAX_SKIPPED_AGE_SECS,
        }
    }
}

impl Limits {
    /// Checks the ranges: `max_jump` and `max_skipped_keys` in
    /// `1..=`[`HARD_MAX_KEYS`], `max_receiving_chains` in `1..=`[`HARD_MAX_CHAINS`],
    /// `max_skipped_age_secs` ≥ 1.
    ///
    /// # Errors
    /// [`SessionError::InvalidState`] naming the offending field.
    pub fn validate(&self) -> Result<()> {
        if !(1..=HARD_MAX_KEYS).contains(&self.max_jump) {
            return Err(SessionError::InvalidState(
                "limits: max_jump must be 1..=100000",
            ));
        }
        if !(1..=HARD_MAX_KEYS).contains(&self.max_skipped_keys) {
            return Err(SessionError::InvalidState(
                "limits: max_skipped_keys must be 1..=100000",
            ));
        }
        if !(1..=HARD_MAX_CHAINS).contains(&self.max_receiving_chains) {
            return Err(SessionError::InvalidState(
                "limits: max_receiving_chains must be 1..=64",
            ));
        }
        if self.max_skipped_age_secs == 0 {
            return Err(SessionError::InvalidState(
                "limits: max_skipped_age_secs must be at least 1",
            ));
        }
        Ok(())
    }
}
