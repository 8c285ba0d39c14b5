//! The cost bounds of every password KDF use, in one table ([`KDF_BOUNDS`]).

use super::{
    ARGON2_MAX_MEMORY_KIB, ARGON2_MAX_OUTPUT_LEN, ARGON2_MAX_PARALLELISM, ARGON2_MAX_SECRET_LEN,
    ARGON2_MIN_OUTPUT_LEN, ARGON2_MIN_SALT_LEN, PBKDF2_MAX_LEN,
};

/// The inclusive range of one password-KDF cost parameter and the value a
/// writer uses when the caller gives none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CostBounds {
    /// Smallest accepted value.
    pub min: u32,
    /// Largest accepted value.
    pub max: u32,
    /// The writers' default.
    pub default: u32,
}

impl CostBounds {
    /// Whether `value` lies in `min..=max`.
    #[must_use]
    pub const fn contains(&self, value: u32) -> bool {
        value >= self.min && value <= self.max
    }
}

/// The bounds of an Argon2id cost (memory, passes, lanes) for one use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Argon2CostBounds {
    /// Memory cost in KiB.
    pub memory_kib: CostBounds,
    /// Time cost (passes).
    pub iterations: CostBounds,
    /// Lanes.
    pub parallelism: CostBounds,
}

/// The limits of the Argon2id primitive itself ([`argon2id`](super::argon2id)); the memory
/// cost must also be at least 8 · parallelism.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Argon2Limits {
    /// [`ARGON2_MAX_MEMORY_KIB`].
    pub max_memory_kib: u32,
    /// [`ARGON2_MAX_PARALLELISM`].
    pub max_parallelism: u32,
    /// [`ARGON2_MIN_OUTPUT_LEN`].
    pub min_output_len: usize,
    /// [`ARGON2_MAX_OUTPUT_LEN`].
    pub max_output_len: usize,
    /// [`ARGON2_MIN_SALT_LEN`].
    pub min_salt_len: usize,
    /// [`ARGON2_MAX_SECRET_LEN`].
    pub max_secret_len: usize,
}

/// The default per-derivation KDF budget of every reader (container unlock,
/// keystore unlock, backup import): password costs over it are refused
/// before any work. `crate::container::KdfBudget::default()` is this.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetDefaults {
    /// Largest Argon2id memory cost tried (KiB).
    pub argon2_memory_kib: u32,
    /// Largest Argon2id time cost tried.
    pub argon2_iterations: u32,
    /// Largest PBKDF2 iteration count tried.
    pub pbkdf2_iterations: u32,
    /// Most password wraps one container unlock tries.
    #[serde(rename = "passwordWraps")]
    pub password_attempts: u32,
}

/// Every bound on a password KDF's cost, in one table. The TypeScript facade
/// exports the same table as `KDF_BOUNDS` (`ts/kdf-bounds.ts`); a Node test
/// compares the two through the wasm getter `kdfBounds`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KdfBounds {
    /// The Argon2id primitive ([`argon2id`](super::argon2id)).
    pub argon2id: Argon2Limits,
    /// Largest output of the PBKDF2 primitive ([`PBKDF2_MAX_LEN`]).
    pub pbkdf2_max_output_len: usize,
    /// A container's Argon2id password wrap (type 1, FORMAT.md §5).
    pub wrap_argon2id: Argon2CostBounds,
    /// A container's PBKDF2 password wrap (type 0): the iteration count.
    pub wrap_pbkdf2_iterations: CostBounds,
    /// A keystore passphrase (lock and backup, KEYSTORE.md); enforced by the
    /// TypeScript keystore, listed here so the table is whole.
    pub passphrase_argon2id: Argon2CostBounds,
    /// The readers' default KDF budget.
    pub default_budget: BudgetDefaults,
}

const fn bounds(min: u32, max: u32, default: u32) -> CostBounds {
    CostBounds { min, max, default }
}

/// The Argon2id memory of a password (container wrap and keystore passphrase
/// alike): OWASP's 19 MiB floor up to the primitive's 1 GiB, 64 MiB by default.
const PASSWORD_MEMORY_KIB: CostBounds = bounds(19_456, ARGON2_MAX_MEMORY_KIB, 65_536);

/// The password-KDF bounds (see [`KdfBounds`]).
pub const KDF_BOUNDS: KdfBounds = KdfBounds {
    argon2id: Argon2Limits {
        max_memory_kib: ARGON2_MAX_MEMORY_KIB,
        max_parallelism: ARGON2_MAX_PARALLELISM,
        min_output_len: ARGON2_MIN_OUTPUT_LEN,
        max_output_len: ARGON2_MAX_OUTPUT_LEN,
        min_salt_len: ARGON2_MIN_SALT_LEN,
        max_secret_len: ARGON2_MAX_SECRET_LEN,
    },
    pbkdf2_max_output_len: PBKDF2_MAX_LEN,
    wrap_argon2id: Argon2CostBounds {
        memory_kib: PASSWORD_MEMORY_KIB,
        iterations: bounds(2, 10, 3),
        parallelism: bounds(1, ARGON2_MAX_PARALLELISM, 4),
    },
    wrap_pbkdf2_iterations: bounds(600_000, 10_000_000, 600_000),
    passphrase_argon2id: Argon2CostBounds {
        memory_kib: PASSWORD_MEMORY_KIB,
        iterations: bounds(2, 16, 3),
        parallelism: bounds(1, ARGON2_MAX_PARALLELISM, 1),
    },
    default_budget: BudgetDefaults {
        argon2_memory_kib: 262_144,
        argon2_iterations: 4,
        pbkdf2_iterations: 2_000_000,
        password_attempts: 2,
    },
};
