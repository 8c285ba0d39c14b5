//! The wire constants of wrap entries (type bytes, payload and ciphertext
//! lengths) and [`Argon2idCost`] with its format bounds.

use super::super::error::{ContainerError, Result};
use crate::kdf::{Argon2CostBounds, KDF_BOUNDS};

/// Wrap type 0.
pub const WRAP_PBKDF2: u8 = 0;
/// Wrap type 1.
pub const WRAP_ARGON2ID: u8 = 1;
/// Wrap type 3.
pub const WRAP_GROUP: u8 = 3;
/// Wrap type 4.
pub const WRAP_HYBRID_KEM: u8 = 4;
/// Wrap type 5.
pub const WRAP_THRESHOLD: u8 = 5;

/// Length of an AES-256-KW-wrapped DEK.
pub const WRAPPED_DEK_LEN: usize = 40;
/// Payload length of type 0.
pub const PBKDF2_PAYLOAD_LEN: u16 = 60;
/// Payload length of type 1.
pub const ARGON2ID_PAYLOAD_LEN: u16 = 68;
/// Payload length of type 3.
pub const GROUP_PAYLOAD_LEN: u16 = 60;
/// Payload length of type 4.
pub const HYBRID_KEM_PAYLOAD_LEN: u16 = 1180;
/// Payload length of type 5.
pub const THRESHOLD_PAYLOAD_LEN: u16 = 58;
/// Smallest serialised entry (type 5: 3 + 58).
pub const MIN_WRAP_ENTRY_LEN: usize = 3 + THRESHOLD_PAYLOAD_LEN as usize;
/// Largest serialised entry (type 4: 3 + 1180).
pub const MAX_WRAP_ENTRY_LEN: usize = 3 + HYBRID_KEM_PAYLOAD_LEN as usize;

/// The format's KDF bounds: `KDF_BOUNDS.wrap_argon2id` and
/// `KDF_BOUNDS.wrap_pbkdf2_iterations` (crate::kdf, one table with the TS facade).
const ARGON2: Argon2CostBounds = KDF_BOUNDS.wrap_argon2id;

/// Length of an X25519 ciphertext (ephemeral public key).
pub const CT_X25519_LEN: usize = 32;
/// Length of an ML-KEM-768 ciphertext.
pub const CT_MLKEM_LEN: usize = 1088;

/// Argon2id cost parameters of a type-1 wrap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Argon2idCost {
    /// Memory in KiB, 19 456 ..= 1 048 576 (`KDF_BOUNDS.wrap_argon2id`).
    pub memory_kib: u32,
    /// Passes, 2 ..= 10.
    pub iterations: u32,
    /// Lanes, 1 ..= 16.
    pub parallelism: u32,
}

impl Default for Argon2idCost {
    /// m = 65 536 KiB (64 MiB), t = 3, p = 4.
    fn default() -> Self {
        Self {
            memory_kib: ARGON2.memory_kib.default,
            iterations: ARGON2.iterations.default,
            parallelism: ARGON2.parallelism.default,
        }
    }
}

impl Argon2idCost {
    /// The smallest cost the format allows (m = 19 456 KiB, t = 2, p = 1).
    pub const MINIMUM: Self = Self {
        memory_kib: ARGON2.memory_kib.min,
        iterations: ARGON2.iterations.min,
        parallelism: ARGON2.parallelism.min,
    };

    /// Checks the format's bounds.
    ///
    /// # Errors
    /// [`ContainerError::InvalidWrap`] naming the parameter.
    pub const fn validate(&self) -> Result<()> {
        if !ARGON2.memory_kib.contains(self.memory_kib) {
            return Err(ContainerError::InvalidWrap(
                "argon2id memory outside 19456..=1048576 KiB",
            ));
        }
        if !ARGON2.iterations.contains(self.iterations) {
            return Err(ContainerError::InvalidWrap(
                "argon2id time cost outside 2..=10",
            ));
        }
        if !ARGON2.parallelism.contains(self.parallelism) {
            return Err(ContainerError::InvalidWrap(
                "argon2id parallelism outside 1..=16",
            ));
        }
        Ok(())
    }
}
