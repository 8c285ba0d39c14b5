//! Wrap entries on the wire: [`WrapKind`] and [`WrapEntry`] (parsing,
//! validating and serialising one entry or a whole wrap table); the type and
//! length constants and [`Argon2idCost`] are in `params.rs`.

use super::super::encoding::Cursor;
use super::super::error::{ContainerError, Result};
use super::super::share::check_threshold;
use super::params::{ARGON2ID_PAYLOAD_LEN, Argon2idCost, CT_MLKEM_LEN, GROUP_PAYLOAD_LEN, HYBRID_KEM_PAYLOAD_LEN, PBKDF2_PAYLOAD_LEN, THRESHOLD_PAYLOAD_LEN, WRAP_ARGON2ID, WRAP_GROUP, WRAP_HYBRID_KEM, WRAP_PBKDF2, WRAP_THRESHOLD};
use crate::kdf::{KDF_BOUNDS};

/// The category of a wrap (decides the mode byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WrapKind {
    /// Types 0 and 1.
    Password,
    /// Type 4.
    Recipient,
    /// Type 3.
    Group,
    /// Type 5.
    Threshold,
}

/// One parsed wrap entry. Contains only public data (the DEK is wrapped).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WrapEntry {
    /// Type 0.
    Pbkdf2 {
        /// Iterations, 600 000 ..= 10 000 000.
        iterations: u32,
        /// Salt.
        salt: [u8; 16],
        /// AES-256-KW(KEK, DEK).
        wrapped: [u8; 40],
    },
    /// Type 1.
    Argon2id {
        /// Cost parameters.
        cost: Argon2idCost,
        /// Salt.
        salt: [u8; 16],
        /// AES-256-KW(KEK, DEK).
        wrapped: [u8; 40],
    },
    /// Type 3.
    Group {
        /// Group id.
        group_id: [u8; 16],
        /// Group key version (manifest key epoch).
        key_version: u32,
        /// AES-256-KW(KEK, DEK).
        wrapped: [u8; 40],
    },
    /// Type 4.
    HybridKem {
        /// Recipient id.
        recipient_id: [u8; 16],
        /// Recipient key version.
        key_version: u32,
        /// X25519 part of the X-Wing ciphertext (its last 32 bytes).
        ct_x25519: [u8; 32],
        /// ML-KEM-768 part of the X-Wing ciphertext (its first 1088 bytes).
        ct_mlkem: Vec<u8>,
        /// AES-256-KW(KEK, DEK).
        wrapped: [u8; 40],
    },
    /// Type 5.
    Threshold {
        /// Threshold `t`, 2 ..= n.
        threshold: u8,
        /// Share count `n`.
        shares: u8,
        /// Share set id.
        share_set_id: [u8; 16],
        /// AES-256-KW(KEK, DEK).
        wrapped: [u8; 40],
    },
}

impl WrapEntry {
    /// Wire type.
    #[must_use]
    pub const fn wrap_type(&self) -> u8 {
        match self {
            Self::Pbkdf2 { .. } => WRAP_PBKDF2,
            Self::Argon2id { .. } => WRAP_ARGON2ID,
            Self::Group { .. } => WRAP_GROUP,
            Self::HybridKem { .. } => WRAP_HYBRID_KEM,
            Self::Threshold { .. } => WRAP_THRESHOLD,
        }
    }

    /// Category.
    #[must_use]
    pub const fn kind(&self) -> WrapKind {
        match self {
            Self::Pbkdf2 { .. } | Self::Argon2id { .. } => WrapKind::Password,
            Self::Group { .. } => WrapKind::Group,
            Self::HybridKem { .. } => WrapKind::Recipient,
            Self::Threshold { .. } => WrapKind::Threshold,
        }
    }

    /// The wrapped DEK.
    #[must_use]
    pub const fn wrapped(&self) -> &[u8; 40] {
        match self {
            Self::Pbkdf2 { wrapped, .. }
            | Self::Argon2id { wrapped, .. }
            | Self::Group { wrapped, .. }
            | Self::HybridKem { wrapped, .. }
            | Self::Threshold { wrapped, .. } => wrapped,
        }
    }

    const fn payload_len(&self) -> u16 {
        match self {
            Self::Pbkdf2 { .. } => PBKDF2_PAYLOAD_LEN,
            Self::Argon2id { .. } => ARGON2ID_PAYLOAD_LEN,
            Self::Group { .. } => GROUP_PAYLOAD_LEN,
            Self::HybridKem { .. } => HYBRID_KEM_PAYLOAD_LEN,
            Self::Threshold { .. } => THRESHOLD_PAYLOAD_LEN,
        }
    }

    /// Serialised length `3 + payload_len`.
    #[must_use]
    pub const fn wire_len(&self) -> usize {
        3 + self.payload_len() as usize
    }

    /// Checks the parameter bounds of the entry.
    ///
    /// # Errors
    /// [`ContainerError::InvalidWrap`].
    pub fn validate(&self) -> Result<()> {
        match self {
            Self::Pbkdf2 { iterations, .. } => {
                if KDF_BOUNDS.wrap_pbkdf2_iterations.contains(*iterations) {
                    Ok(())
                } else {
                    Err(ContainerError::InvalidWrap(
                        "pbkdf2 iterations outside 600000..=10000000",
                    ))
                }
            }
            Self::Argon2id { cost, .. } => cost.validate(),
            Self::Group { .. } => Ok(()),
            Self::HybridKem { ct_mlkem, .. } => {
                if ct_mlkem.len() == CT_MLKEM_LEN {
                    Ok(())
                } else {
                    Err(ContainerError::InvalidWrap(
                        "ML-KEM ciphertext must be 1088 bytes",
                    ))
                }
            }
            Self::Threshold {
                threshold, shares, ..
            } => check_threshold(*threshold, *shares)
                .map_err(|_| ContainerError::InvalidWrap("threshold needs 2 <= t <= n")),
        }
    }

    /// Parses one entry at the start of `bytes`; returns it and its length.
    ///
    /// # Errors
    /// [`ContainerError::UnsupportedWrapType`] (type 2, ≥ 6),
    /// [`ContainerError::InvalidWrap`] (payload length ≠ the type's, bounds),
    /// [`ContainerError::Truncated`] (the entry overruns `bytes`).
    pub fn parse(bytes: &[u8]) -> Result<(Self, usize)> {
        let mut c = Cursor::new(bytes);
        let wrap_type = c.u8()?;
        let expected = match wrap_type {
            WRAP_PBKDF2 => PBKDF2_PAYLOAD_LEN,
            WRAP_ARGON2ID => ARGON2ID_PAYLOAD_LEN,
            WRAP_GROUP => GROUP_PAYLOAD_LEN,
            WRAP_HYBRID_KEM => HYBRID_KEM_PAYLOAD_LEN,
            WRAP_THRESHOLD => THRESHOLD_PAYLOAD_LEN,
            other => return Err(ContainerError::UnsupportedWrapType(other)),
        };
        let payload_len = c.u16()?;
        if payload_len != expected {
            return Err(ContainerError::InvalidWrap(
                "payload length does not match the wrap type",
            ));
        }
        let mut p = Cursor::with_base(c.take(usize::from(payload_len))?, 3);
        let entry = match wrap_type {
            WRAP_PBKDF2 => Self::Pbkdf2 {
                iterations: p.u32()?,
                salt: p.array()?,
                wrapped: p.array()?,
            },
            WRAP_ARGON2ID => Self::Argon2id {
                cost: Argon2idCost {
                    memory_kib: p.u32()?,
                    iterations: p.u32()?,
                    parallelism: p.u32()?,
                },
                salt: p.array()?,
                wrapped: p.array()?,
            },
            WRAP_GROUP => Self::Group {
                group_id: p.array()?,
                key_version: p.u32()?,
                wrapped: p.array()?,
            },
            WRAP_HYBRID_KEM => Self::HybridKem {
                recipient_id: p.array()?,
                key_version: p.u32()?,
                ct_x25519: p.array()?,
                ct_mlkem: p.take(CT_MLKEM_LEN)?.to_vec(),
                wrapped: p.array()?,
            },
            _ => Self::Threshold {
                threshold: p.u8()?,
                shares: p.u8()?,
                share_set_id: p.array()?,
                wrapped: p.array()?,
            },
        };
        entry.validate()?;
        Ok((entry, c.position()))
    }

    /// Parses a wrap table of exactly `count` entries filling `table` exactly.
    ///
    /// # Errors
    /// As [`WrapEntry::parse`]; [`ContainerError::NonCanonical`] if the
    /// entries end before `table` does or overrun it.
    pub fn parse_table(table: &[u8], count: u8) -> Result<Vec<Self>> {
        // Bounded: at most 255 entries; `table` was length-checked by the caller.
        let mut wraps = Vec::with_capacity(usize::from(count));
        let mut rest = table;
        for _ in 0..count {
            if rest.is_empty() {
                return Err(ContainerError::NonCanonical(
                    "variable length shorter than the wrap entries",
                ));
            }
            let (entry, used) = Self::parse(rest).map_err(|e| match e {
                ContainerError::Truncated { .. } => {
                    ContainerError::NonCanonical("variable length shorter than the wrap entries")
                }
                other => other,
            })?;
            wraps.push(entry);
            rest = rest.get(used..).unwrap_or_default();
        }
        if !rest.is_empty() {
            return Err(ContainerError::NonCanonical(
                "variable length longer than the wrap entries",
            ));
        }
        Ok(wraps)
    }

    /// Appends the serialised entry.
    pub fn write(&self, out: &mut Vec<u8>) {
        out.push(self.wrap_type());
        out.extend_from_slice(&self.payload_len().to_be_bytes());
        match self {
            Self::Pbkdf2 {
                iterations,
                salt,
                wrapped,
            } => {
                out.extend_from_slice(&iterations.to_be_bytes());
                out.extend_from_slice(salt);
                out.extend_from_slice(wrapped);
            }
            Self::Argon2id {
                cost,
                salt,
                wrapped,
            } => {
                out.extend_from_slice(&cost.memory_kib.to_be_bytes());
                out.extend_from_slice(&cost.iterations.to_be_bytes());
                out.extend_from_slice(&cost.parallelism.to_be_bytes());
                out.extend_from_slice(salt);
                out.extend_from_slice(wrapped);
            }
            Self::Group {
                group_id,
                key_version,
                wrapped,
            } => {
                out.extend_from_slice(group_id);
                out.extend_from_slice(&key_version.to_be_bytes());
                out.extend_from_slice(wrapped);
            }
            Self::HybridKem {
                recipient_id,
                key_version,
                ct_x25519,
                ct_mlkem,
                wrapped,
            } => {
                out.extend_from_slice(recipient_id);
                out.extend_from_slice(&key_version.to_be_bytes());
                out.extend_from_slice(ct_x25519);
                out.extend_from_slice(ct_mlkem);
                out.extend_from_slice(wrapped);
            }
            Self::Threshold {
                threshold,
                shares,
                share_set_id,
                wrapped,
            } => {
                out.push(*threshold);
                out.push(*shares);
                out.extend_from_slice(share_set_id);
                out.extend_from_slice(wrapped);
            }
        }
    }

    /// The serialised entry.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.wire_len());
        self.write(&mut out);
        out
    }
}
