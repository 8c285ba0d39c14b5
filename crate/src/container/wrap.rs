//! Wrap entries: the ways the 32-byte DEK is protected (each one an
//! AES-256-KW wrap of the DEK, 40 bytes, under a KEK derived per type), the
//! unlock methods, and `vcs_` threshold share export / parsing.
//!
//! Entry = `u8 type ‖ u16be payload_len ‖ payload`:
//!
//! | type | payload | len |
//! |---|---|---|
//! | 0 PBKDF2 | u32 iterations ‖ salt16 ‖ wrapped40 | 60 |
//! | 1 Argon2id | u32 m_KiB ‖ u32 t ‖ u32 p ‖ salt16 ‖ wrapped40 | 68 |
//! | 3 Group | group_id16 ‖ u32 key_version ‖ wrapped40 | 60 |
//! | 4 Hybrid KEM (X-Wing) | recipient_id16 ‖ u32 key_version ‖ ct_X25519 32 ‖ ct_ML-KEM 1088 ‖ wrapped40 | 1180 |
//! | 5 Threshold | t ‖ n ‖ share_set_id16 ‖ wrapped40 | 58 |
//!
//! Type 2 and every other type are rejected.

use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use super::chunk::{DEK_LEN, Dek, FileContext};
use super::encoding::{Cursor, b64url_decode, b64url_encode};
use super::error::{ContainerError, Result};
use super::header::CIPHER_SUITE_AES_256_GCM;
use crate::hash::{Sha256, sha256};
use crate::kdf::{Argon2Params, argon2id, hkdf_sha256, pbkdf2_sha256};
use crate::keywrap::{aes_kw_unwrap, aes_kw_wrap};
use crate::{rng, shamir, xwing};

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

/// Smallest PBKDF2 iteration count.
pub const PBKDF2_MIN_ITERATIONS: u32 = 600_000;
/// Largest PBKDF2 iteration count.
pub const PBKDF2_MAX_ITERATIONS: u32 = 10_000_000;
/// Smallest Argon2id memory cost (KiB).
pub const ARGON2_MIN_MEMORY_KIB: u32 = 19_456;
/// Largest Argon2id memory cost (KiB).
pub const ARGON2_MAX_MEMORY_KIB: u32 = 1_048_576;
/// Smallest Argon2id time cost.
pub const ARGON2_MIN_ITERATIONS: u32 = 2;
/// Largest Argon2id time cost.
pub const ARGON2_MAX_ITERATIONS: u32 = 10;
/// Largest Argon2id parallelism (smallest is 1).
pub const ARGON2_MAX_PARALLELISM: u32 = 16;

/// HKDF info label of the group KEK.
pub const GROUP_KEK_LABEL: &[u8] = b"vollcrypt-file-group-kek-v1";
/// HKDF info label of the hybrid-KEM KEK.
pub const HYBRID_KEK_LABEL: &[u8] = b"vollcrypt-file-hybrid-kem-v1";
/// HKDF info label of the threshold KEK.
pub const THRESHOLD_KEK_LABEL: &[u8] = b"vollcrypt-file-threshold-kek-v1";
/// Domain label of a derived recipient id.
pub const RECIPIENT_ID_LABEL: &[u8] = b"vollcrypt-file-recipient-id-v1";
/// KEM suite id of X-Wing (bound into the hybrid KEK).
pub const KEM_SUITE_XWING: u8 = 1;

/// Length of an X25519 ciphertext (ephemeral public key).
pub const CT_X25519_LEN: usize = 32;
/// Length of an ML-KEM-768 ciphertext.
pub const CT_MLKEM_LEN: usize = 1088;

/// Argon2id cost parameters of a type-1 wrap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Argon2idCost {
    /// Memory in KiB, 19 456 ..= 1 048 576.
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
            memory_kib: 65_536,
            iterations: 3,
            parallelism: 4,
        }
    }
}

impl Argon2idCost {
    /// The smallest cost the format allows (m = 19 456 KiB, t = 2, p = 1).
    pub const MINIMUM: Self = Self {
        memory_kib: ARGON2_MIN_MEMORY_KIB,
        iterations: 2,
        parallelism: 1,
    };

    /// Checks the format's bounds.
    ///
    /// # Errors
    /// [`ContainerError::InvalidWrap`] naming the parameter.
    pub const fn validate(&self) -> Result<()> {
        if self.memory_kib < ARGON2_MIN_MEMORY_KIB || self.memory_kib > ARGON2_MAX_MEMORY_KIB {
            return Err(ContainerError::InvalidWrap(
                "argon2id memory outside 19456..=1048576 KiB",
            ));
        }
        if self.iterations < ARGON2_MIN_ITERATIONS || self.iterations > ARGON2_MAX_ITERATIONS {
            return Err(ContainerError::InvalidWrap(
                "argon2id time cost outside 2..=10",
            ));
        }
        if self.parallelism < 1 || self.parallelism > ARGON2_MAX_PARALLELISM {
            return Err(ContainerError::InvalidWrap(
                "argon2id parallelism outside 1..=16",
            ));
        }
        Ok(())
    }
}

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
                if (PBKDF2_MIN_ITERATIONS..=PBKDF2_MAX_ITERATIONS).contains(iterations) {
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

const fn check_threshold(t: u8, n: u8) -> core::result::Result<(), ()> {
    if t >= 2 && t <= n { Ok(()) } else { Err(()) }
}

// ---------------------------------------------------------------- KEKs

type Kek = Zeroizing<Vec<u8>>;

fn pbkdf2_kek(password: &[u8], salt: &[u8; 16], iterations: u32) -> Result<Kek> {
    Ok(pbkdf2_sha256(password, salt, iterations, 32)?)
}

fn argon2_kek(password: &[u8], salt: &[u8; 16], cost: &Argon2idCost) -> Result<Kek> {
    cost.validate()?;
    let params = Argon2Params {
        memory_kib: cost.memory_kib,
        iterations: cost.iterations,
        parallelism: cost.parallelism,
        output_len: 32,
    };
    Ok(argon2id(password, salt, b"", b"", &params)?)
}

fn group_kek(
    file_id: &[u8; 16],
    group_key: &[u8],
    group_id: &[u8; 16],
    key_version: u32,
) -> Result<Kek> {
    if group_key.len() != 32 {
        return Err(ContainerError::Crypto(crate::CryptoError::length(
            "groupKey",
            "32 bytes",
            group_key.len(),
        )));
    }
    let mut info = Vec::with_capacity(GROUP_KEK_LABEL.len() + 20);
    info.extend_from_slice(GROUP_KEK_LABEL);
    info.extend_from_slice(group_id);
    info.extend_from_slice(&key_version.to_be_bytes());
    Ok(hkdf_sha256(group_key, file_id, &info, 32)?)
}

fn hybrid_kek(
    file_id: &[u8; 16],
    shared: &[u8],
    recipient_id: &[u8; 16],
    key_version: u32,
) -> Result<Kek> {
    let mut info = Vec::with_capacity(HYBRID_KEK_LABEL.len() + 22);
    info.extend_from_slice(HYBRID_KEK_LABEL);
    info.extend_from_slice(recipient_id);
    info.extend_from_slice(&key_version.to_be_bytes());
    info.push(KEM_SUITE_XWING);
    info.push(CIPHER_SUITE_AES_256_GCM);
    Ok(hkdf_sha256(shared, file_id, &info, 32)?)
}

fn threshold_kek(
    file_id: &[u8; 16],
    tms: &[u8],
    share_set_id: &[u8; 16],
    t: u8,
    n: u8,
) -> Result<Kek> {
    let mut info = Vec::with_capacity(THRESHOLD_KEK_LABEL.len() + 18);
    info.extend_from_slice(THRESHOLD_KEK_LABEL);
    info.extend_from_slice(share_set_id);
    info.push(t);
    info.push(n);
    Ok(hkdf_sha256(tms, file_id, &info, 32)?)
}

fn wrap_dek(kek: &[u8], dek: &Dek) -> Result<[u8; 40]> {
    let w = aes_kw_wrap(kek, dek.as_bytes())?;
    <[u8; 40]>::try_from(w.as_slice())
        .map_err(|_| ContainerError::InvalidWrap("wrapped DEK length"))
}

fn unwrap_dek(kek: &[u8], wrapped: &[u8; 40]) -> Result<Dek> {
    let k = aes_kw_unwrap(kek, wrapped)?;
    if k.len() != DEK_LEN {
        return Err(ContainerError::AuthenticationFailed);
    }
    Dek::from_bytes(&k)
}

/// The default recipient id of an X-Wing public key:
/// `SHA-256("vollcrypt-file-recipient-id-v1" ‖ pk)[0..16]`.
#[must_use]
pub fn recipient_id_for(public_key: &[u8]) -> [u8; 16] {
    let mut h = Sha256::new();
    h.update(RECIPIENT_ID_LABEL);
    h.update(public_key);
    let d = h.finalize();
    let mut out = [0u8; 16];
    out.copy_from_slice(d.get(..16).unwrap_or(&[0u8; 16]));
    out
}

// ---------------------------------------------------------------- writing

/// How to protect the DEK of a new container (one wrap entry each).
/// Holds secrets: wiped on drop, no `Debug`.
pub enum WrapSpec {
    /// Type 0 (compatibility only; new containers should use Argon2id).
    Pbkdf2 {
        /// Password bytes (UTF-8; veilkit applies no normalisation).
        password: Zeroizing<Vec<u8>>,
        /// Iterations, 600 000 ..= 10 000 000.
        iterations: u32,
    },
    /// Type 1.
    Argon2id {
        /// Password bytes (UTF-8; veilkit applies no normalisation).
        password: Zeroizing<Vec<u8>>,
        /// Cost.
        cost: Argon2idCost,
    },
    /// Type 3.
    Group {
        /// Group id.
        group_id: [u8; 16],
        /// Key version (manifest key epoch).
        key_version: u32,
        /// The 32-byte group key of that version.
        group_key: Zeroizing<[u8; 32]>,
    },
    /// Type 4.
    Recipient {
        /// Recipient's X-Wing public key (1216 bytes).
        public_key: Vec<u8>,
        /// Recipient key version.
        key_version: u32,
        /// Recipient id; `None` = [`recipient_id_for`] the public key.
        recipient_id: Option<[u8; 16]>,
    },
    /// Type 5: a fresh threshold master secret split into `shares` shares, any
    /// `threshold` of which open the container.
    Threshold {
        /// `t`, 2 ..= n.
        threshold: u8,
        /// `n`, ≤ 255.
        shares: u8,
    },
}

impl WrapSpec {
    /// Argon2id with the default cost (m = 64 MiB, t = 3, p = 4): the
    /// recommended password wrap.
    #[must_use]
    pub fn password(password: &[u8]) -> Self {
        Self::Argon2id {
            password: Zeroizing::new(password.to_vec()),
            cost: Argon2idCost::default(),
        }
    }

    /// A group wrap.
    #[must_use]
    pub fn group(group_id: [u8; 16], key_version: u32, group_key: &[u8; 32]) -> Self {
        Self::Group {
            group_id,
            key_version,
            group_key: Zeroizing::new(*group_key),
        }
    }

    /// A recipient wrap with the derived recipient id.
    #[must_use]
    pub fn recipient(public_key: &[u8], key_version: u32) -> Self {
        Self::Recipient {
            public_key: public_key.to_vec(),
            key_version,
            recipient_id: None,
        }
    }
}

/// Refuses wrap specs an honest reader with `budget` could not open: a
/// password wrap over the per-wrap caps, or more password wraps in the new
/// table (the `kept_passwords` already there plus the added ones) than the
/// budget tries. Writers check the default reader budget unless told otherwise.
///
/// # Errors
/// [`ContainerError::KdfBudgetExceeded`].
pub fn check_writer_budget(specs: &[WrapSpec], kept_passwords: usize, budget: &KdfBudget) -> Result<()> {
    let mut passwords = u32::try_from(kept_passwords).unwrap_or(u32::MAX);
    for spec in specs {
        let fits = match spec {
            WrapSpec::Pbkdf2 { iterations, .. } => *iterations <= budget.pbkdf2_iterations,
            WrapSpec::Argon2id { cost, .. } => {
                cost.memory_kib <= budget.argon2_memory_kib
                    && cost.iterations <= budget.argon2_iterations
            }
            _ => continue,
        };
        passwords = passwords.saturating_add(1);
        if !fits || passwords > budget.password_attempts {
            return Err(ContainerError::KdfBudgetExceeded);
        }
    }
    Ok(())
}

/// Builds the wrap entry of `spec` for `dek`. Threshold specs also return the
/// new shares (in x order).
///
/// # Errors
/// [`ContainerError::InvalidOption`] for out-of-range parameters; primitive errors.
pub fn create_wrap(
    spec: &WrapSpec,
    dek: &Dek,
    file_id: &[u8; 16],
) -> Result<(WrapEntry, Vec<ThresholdShare>)> {
    match spec {
        WrapSpec::Pbkdf2 {
            password,
            iterations,
        } => {
            if !(PBKDF2_MIN_ITERATIONS..=PBKDF2_MAX_ITERATIONS).contains(iterations) {
                return Err(ContainerError::InvalidOption(
                    "pbkdf2 iterations outside 600000..=10000000",
                ));
            }
            let salt = *rng::array::<16>()?;
            let kek = pbkdf2_kek(password, &salt, *iterations)?;
            let wrapped = wrap_dek(&kek, dek)?;
            Ok((
                WrapEntry::Pbkdf2 {
                    iterations: *iterations,
                    salt,
                    wrapped,
                },
                Vec::new(),
            ))
        }
        WrapSpec::Argon2id { password, cost } => {
            cost.validate().map_err(|e| match e {
                ContainerError::InvalidWrap(m) => ContainerError::InvalidOption(m),
                other => other,
            })?;
            let salt = *rng::array::<16>()?;
            let kek = argon2_kek(password, &salt, cost)?;
            let wrapped = wrap_dek(&kek, dek)?;
            Ok((
                WrapEntry::Argon2id {
                    cost: *cost,
                    salt,
                    wrapped,
                },
                Vec::new(),
            ))
        }
        WrapSpec::Group {
            group_id,
            key_version,
            group_key,
        } => {
            let kek = group_kek(file_id, group_key.as_slice(), group_id, *key_version)?;
            let wrapped = wrap_dek(&kek, dek)?;
            Ok((
                WrapEntry::Group {
                    group_id: *group_id,
                    key_version: *key_version,
                    wrapped,
                },
                Vec::new(),
            ))
        }
        WrapSpec::Recipient {
            public_key,
            key_version,
            recipient_id,
        } => {
            let recipient_id = recipient_id.unwrap_or_else(|| recipient_id_for(public_key));
            let (ct, ss) = xwing::xwing_encapsulate(public_key)?;
            let (ct_mlkem, ct_x) = ct
                .split_at_checked(CT_MLKEM_LEN)
                .ok_or(ContainerError::InvalidWrap("X-Wing ciphertext length"))?;
            let ct_x25519 = <[u8; 32]>::try_from(ct_x)
                .map_err(|_| ContainerError::InvalidWrap("X-Wing ciphertext length"))?;
            let kek = hybrid_kek(file_id, ss.as_slice(), &recipient_id, *key_version)?;
            let wrapped = wrap_dek(&kek, dek)?;
            Ok((
                WrapEntry::HybridKem {
                    recipient_id,
                    key_version: *key_version,
                    ct_x25519,
                    ct_mlkem: ct_mlkem.to_vec(),
                    wrapped,
                },
                Vec::new(),
            ))
        }
        WrapSpec::Threshold { threshold, shares } => {
            check_threshold(*threshold, *shares).map_err(|()| {
                ContainerError::InvalidOption("threshold needs 2 <= t <= n <= 255")
            })?;
            let share_set_id = *rng::array::<16>()?;
            let tms = rng::array::<32>()?;
            let kek = threshold_kek(file_id, tms.as_slice(), &share_set_id, *threshold, *shares)?;
            let wrapped = wrap_dek(&kek, dek)?;
            let raw = shamir::split(tms.as_slice(), *threshold, *shares)?;
            let mut out = Vec::with_capacity(raw.len());
            for s in &raw {
                let y = <[u8; 32]>::try_from(s.y.as_slice())
                    .map_err(|_| ContainerError::InvalidShare("share length"))?;
                out.push(ThresholdShare {
                    share_set_id,
                    threshold: *threshold,
                    shares: *shares,
                    x: s.x,
                    y,
                });
            }
            Ok((
                WrapEntry::Threshold {
                    threshold: *threshold,
                    shares: *shares,
                    share_set_id,
                    wrapped,
                },
                out,
            ))
        }
    }
}

// ---------------------------------------------------------------- unlocking

/// Group credentials for unlocking (and the manifest the policy may check).
pub struct GroupUnlock<'a> {
    /// Group id.
    pub group_id: [u8; 16],
    /// Key version (manifest key epoch) of `group_key`.
    pub key_version: u32,
    /// The 32-byte group key.
    pub group_key: &'a [u8],
    /// The group's manifest, required when the policy pins an epoch or a founder.
    pub manifest: Option<&'a [u8]>,
}

/// How to recover the DEK of a container. Borrows secrets; no `Debug`.
pub enum Unlock<'a> {
    /// A password: every PBKDF2 / Argon2id wrap is tried in table order.
    Password(&'a [u8]),
    /// A group key: the group wrap with this id and key version.
    Group(GroupUnlock<'a>),
    /// An X-Wing secret key (32-byte seed). With a `recipient_id`, only wraps
    /// carrying it are tried; without, every recipient wrap is (anonymous recipients).
    Recipient {
        /// X-Wing secret key.
        secret_key: &'a [u8],
        /// Recipient id to select the wrap.
        recipient_id: Option<[u8; 16]>,
    },
    /// At least `t` shares of one threshold share set.
    Shares(&'a [ThresholdShare]),
    /// The DEK itself (exported earlier with `export_dek`).
    Dek(&'a Dek),
}

fn password_candidates(wraps: &[WrapEntry]) -> impl Iterator<Item = &WrapEntry> {
    wraps.iter().filter(|w| w.kind() == WrapKind::Password)
}

/// The per-unlock KDF budget of a reader: password wraps whose cost is over a
/// per-wrap cap are skipped without any work, and at most
/// `password_attempts` password wraps are tried. The total work of one unlock
/// is therefore at most `password_attempts` derivations of the capped cost.
/// `Default` is the browser default: a little above the writers' default
/// password cost (Argon2id 64 MiB, t = 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KdfBudget {
    /// Largest Argon2id memory cost tried (KiB).
    pub argon2_memory_kib: u32,
    /// Largest Argon2id time cost tried.
    pub argon2_iterations: u32,
    /// Largest PBKDF2 iteration count tried.
    pub pbkdf2_iterations: u32,
    /// Most password wraps tried in one unlock.
    pub password_attempts: u32,
}

/// Default Argon2id memory cap of [`KdfBudget`]: 256 MiB.
pub const DEFAULT_BUDGET_ARGON2_MEMORY_KIB: u32 = 262_144;
/// Default Argon2id time-cost cap of [`KdfBudget`].
pub const DEFAULT_BUDGET_ARGON2_ITERATIONS: u32 = 4;
/// Default PBKDF2 iteration cap of [`KdfBudget`].
pub const DEFAULT_BUDGET_PBKDF2_ITERATIONS: u32 = 2_000_000;
/// Default number of password wraps one unlock tries.
pub const DEFAULT_BUDGET_PASSWORD_ATTEMPTS: u32 = 2;

impl Default for KdfBudget {
    fn default() -> Self {
        Self {
            argon2_memory_kib: DEFAULT_BUDGET_ARGON2_MEMORY_KIB,
            argon2_iterations: DEFAULT_BUDGET_ARGON2_ITERATIONS,
            pbkdf2_iterations: DEFAULT_BUDGET_PBKDF2_ITERATIONS,
            password_attempts: DEFAULT_BUDGET_PASSWORD_ATTEMPTS,
        }
    }
}

impl KdfBudget {
    /// No cap beyond the format's parse-time bounds (trusted input only).
    #[must_use]
    pub const fn unlimited() -> Self {
        Self {
            argon2_memory_kib: ARGON2_MAX_MEMORY_KIB,
            argon2_iterations: ARGON2_MAX_ITERATIONS,
            pbkdf2_iterations: PBKDF2_MAX_ITERATIONS,
            password_attempts: u32::MAX,
        }
    }

    /// Whether one derivation for `wrap` fits the per-wrap caps (non-password
    /// wraps always do).
    #[must_use]
    pub const fn allows(&self, wrap: &WrapEntry) -> bool {
        match wrap {
            WrapEntry::Pbkdf2 { iterations, .. } => *iterations <= self.pbkdf2_iterations,
            WrapEntry::Argon2id { cost, .. } => {
                cost.memory_kib <= self.argon2_memory_kib
                    && cost.iterations <= self.argon2_iterations
            }
            _ => true,
        }
    }
}

/// The DEK of a wrap that unwrapped, accepted only if it opens the header's
/// DEK commitment. A wrap that unwraps under a wrong KEK-DEK pairing the
/// writer never made (a second DEK planted for one recipient) fails here.
fn committed(ctx: &FileContext, commitment: &[u8; 32], dek: Dek) -> Result<Option<Dek>> {
    Ok(ctx.dek_matches(&dek, commitment)?.then_some(dek))
}

/// Recovers the DEK of a header (`wraps` its wrap table, `ctx` its chunk
/// context, `commitment` its DEK commitment). Every candidate that unwraps
/// must also open the commitment, or it counts as failed and the next
/// candidate is tried; that includes [`Unlock::Dek`].
///
/// # Errors
/// [`ContainerError::NoWraps`] for an empty table, [`ContainerError::NoMatchingWrap`]
/// if no wrap of the unlock's kind (and id) exists, [`ContainerError::KdfBudgetExceeded`]
/// if password wraps were skipped or left untried under `budget` and none opened,
/// [`ContainerError::AuthenticationFailed`] if candidates exist but none opens,
/// share-set errors.
pub fn unlock_dek(
    wraps: &[WrapEntry],
    ctx: &FileContext,
    commitment: &[u8; 32],
    unlock: &Unlock<'_>,
    budget: &KdfBudget,
) -> Result<Dek> {
    let file_id = &ctx.file_id;
    if let Unlock::Dek(dek) = unlock {
        return committed(ctx, commitment, (*dek).clone())?
            .ok_or(ContainerError::AuthenticationFailed);
    }
    if wraps.is_empty() {
        return Err(ContainerError::NoWraps);
    }
    let mut tried = false;
    match unlock {
        Unlock::Password(password) => {
            let mut over_budget = false;
            let mut attempts = 0u32;
            for w in password_candidates(wraps) {
                if !budget.allows(w) || attempts >= budget.password_attempts {
                    over_budget = true;
                    continue;
                }
                attempts += 1;
                tried = true;
                let kek = match w {
                    WrapEntry::Pbkdf2 {
                        iterations, salt, ..
                    } => pbkdf2_kek(password, salt, *iterations)?,
                    WrapEntry::Argon2id { cost, salt, .. } => argon2_kek(password, salt, cost)?,
                    _ => continue,
                };
                if let Ok(dek) = unwrap_dek(&kek, w.wrapped())
                    && let Some(dek) = committed(ctx, commitment, dek)?
                {
                    return Ok(dek);
                }
            }
            if over_budget {
                return Err(ContainerError::KdfBudgetExceeded);
            }
        }
        Unlock::Group(g) => {
            for w in wraps {
                if let WrapEntry::Group {
                    group_id,
                    key_version,
                    wrapped,
                } = w
                    && *group_id == g.group_id
                    && *key_version == g.key_version
                {
                    tried = true;
                    let kek = group_kek(file_id, g.group_key, group_id, *key_version)?;
                    if let Ok(dek) = unwrap_dek(&kek, wrapped)
                        && let Some(dek) = committed(ctx, commitment, dek)?
                    {
                        return Ok(dek);
                    }
                }
            }
        }
        Unlock::Recipient {
            secret_key,
            recipient_id,
        } => {
            for w in wraps {
                if let WrapEntry::HybridKem {
                    recipient_id: rid,
                    key_version,
                    ct_x25519,
                    ct_mlkem,
                    wrapped,
                } = w
                {
                    if recipient_id.is_some_and(|want| want != *rid) {
                        continue;
                    }
                    tried = true;
                    let mut ct = Vec::with_capacity(xwing::CT_LEN);
                    ct.extend_from_slice(ct_mlkem);
                    ct.extend_from_slice(ct_x25519);
                    let ss = xwing::xwing_decapsulate(secret_key, &ct)?;
                    let kek = hybrid_kek(file_id, ss.as_slice(), rid, *key_version)?;
                    if let Ok(dek) = unwrap_dek(&kek, wrapped)
                        && let Some(dek) = committed(ctx, commitment, dek)?
                    {
                        return Ok(dek);
                    }
                }
            }
        }
        Unlock::Shares(shares) => {
            let (set, tms) = combine_shares(shares)?;
            for w in wraps {
                if let WrapEntry::Threshold {
                    threshold,
                    shares: n,
                    share_set_id,
                    wrapped,
                } = w
                    && *share_set_id == set.share_set_id
                    && *threshold == set.threshold
                    && *n == set.shares
                {
                    tried = true;
                    let kek = threshold_kek(file_id, tms.as_slice(), share_set_id, *threshold, *n)?;
                    if let Ok(dek) = unwrap_dek(&kek, wrapped)
                        && let Some(dek) = committed(ctx, commitment, dek)?
                    {
                        return Ok(dek);
                    }
                }
            }
        }
        Unlock::Dek(_) => {}
    }
    if tried {
        Err(ContainerError::AuthenticationFailed)
    } else {
        Err(ContainerError::NoMatchingWrap)
    }
}

// ---------------------------------------------------------------- shares

/// Prefix of an exported share.
pub const SHARE_PREFIX: &str = "vcs_";
/// Magic of the share payload: `"VCS" ‖ 0x01`.
pub const SHARE_MAGIC: &[u8; 4] = b"VCS\x01";
/// Length of the share payload.
pub const SHARE_PAYLOAD_LEN: usize = 59;
/// Length of an exported share string: `"vcs_"` + 79 base64url symbols.
pub const SHARE_STRING_LEN: usize = 4 + 79;

/// One share of a threshold share set. `y` is secret: wiped on drop, no `Debug`.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct ThresholdShare {
    share_set_id: [u8; 16],
    threshold: u8,
    shares: u8,
    x: u8,
    y: [u8; 32],
}

/// Identity of a share set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShareSet {
    /// Share set id.
    pub share_set_id: [u8; 16],
    /// `t`.
    pub threshold: u8,
    /// `n`.
    pub shares: u8,
}

impl ThresholdShare {
    /// The set this share belongs to.
    #[must_use]
    pub const fn set(&self) -> ShareSet {
        ShareSet {
            share_set_id: self.share_set_id,
            threshold: self.threshold,
            shares: self.shares,
        }
    }

    /// Evaluation point `x` (1 ..= n).
    #[must_use]
    pub const fn x(&self) -> u8 {
        self.x
    }

    /// Builds a share from its fields (checks `2 ≤ t ≤ n`, `1 ≤ x ≤ n`).
    ///
    /// # Errors
    /// [`ContainerError::InvalidShare`].
    pub fn new(
        share_set_id: [u8; 16],
        threshold: u8,
        shares: u8,
        x: u8,
        y: &[u8; 32],
    ) -> Result<Self> {
        check_threshold(threshold, shares)
            .map_err(|()| ContainerError::InvalidShare("need 2 <= t <= n"))?;
        if x == 0 || x > shares {
            return Err(ContainerError::InvalidShare("x must be in 1..=n"));
        }
        Ok(Self {
            share_set_id,
            threshold,
            shares,
            x,
            y: *y,
        })
    }

    /// The 59-byte payload `"VCS\x01" ‖ share_set_id16 ‖ t ‖ n ‖ x ‖ y32 ‖ checksum4`,
    /// checksum = first 4 bytes of SHA-256 of the preceding 55 bytes.
    #[must_use]
    pub fn to_payload(&self) -> Zeroizing<Vec<u8>> {
        let mut p = Zeroizing::new(Vec::with_capacity(SHARE_PAYLOAD_LEN));
        p.extend_from_slice(SHARE_MAGIC);
        p.extend_from_slice(&self.share_set_id);
        p.extend_from_slice(&[self.threshold, self.shares, self.x]);
        p.extend_from_slice(&self.y);
        let digest = Zeroizing::new(sha256(&p));
        p.extend_from_slice(digest.get(..4).unwrap_or(&[0u8; 4]));
        p
    }

    /// Exports as `vcs_` + base64url (no padding) of the payload.
    #[must_use]
    pub fn to_vcs(&self) -> Zeroizing<String> {
        let payload = self.to_payload();
        let mut s = Zeroizing::new(String::with_capacity(SHARE_STRING_LEN));
        s.push_str(SHARE_PREFIX);
        let enc = Zeroizing::new(b64url_encode(&payload));
        s.push_str(&enc);
        s
    }

    /// Parses the 59-byte payload (checksum, magic, `t`, `n`, `x`).
    ///
    /// # Errors
    /// [`ContainerError::InvalidShare`].
    pub fn from_payload(payload: &[u8]) -> Result<Self> {
        if payload.len() != SHARE_PAYLOAD_LEN {
            return Err(ContainerError::InvalidShare("payload must be 59 bytes"));
        }
        let (body, checksum) = payload
            .split_at_checked(55)
            .ok_or(ContainerError::InvalidShare("payload must be 59 bytes"))?;
        let digest = Zeroizing::new(sha256(body));
        let expected = digest.get(..4).unwrap_or_default();
        if !bool::from(subtle::ConstantTimeEq::ct_eq(expected, checksum)) {
            return Err(ContainerError::InvalidShare("checksum mismatch"));
        }
        let mut c = Cursor::new(body);
        if &c.array::<4>()? != SHARE_MAGIC {
            return Err(ContainerError::InvalidShare("bad magic or version"));
        }
        let share_set_id = c.array::<16>()?;
        let threshold = c.u8()?;
        let shares = c.u8()?;
        let x = c.u8()?;
        let mut y = Zeroizing::new(c.array::<32>()?);
        let share = Self::new(share_set_id, threshold, shares, x, &y);
        y.zeroize();
        share
    }

    /// Parses a `vcs_` share string (canonical base64url, checksum verified).
    ///
    /// # Errors
    /// [`ContainerError::InvalidShare`].
    pub fn parse(text: &str) -> Result<Self> {
        let bytes = text.as_bytes();
        if bytes.len() != SHARE_STRING_LEN {
            return Err(ContainerError::InvalidShare(
                "share string must be 83 characters",
            ));
        }
        let body = text
            .strip_prefix(SHARE_PREFIX)
            .ok_or(ContainerError::InvalidShare("missing vcs_ prefix"))?;
        let payload = Zeroizing::new(
            b64url_decode(body.as_bytes())
                .ok_or(ContainerError::InvalidShare("not canonical base64url"))?,
        );
        Self::from_payload(&payload)
    }
}

/// Checks a share collection and combines it into the threshold master secret.
///
/// # Errors
/// [`ContainerError::InvalidShare`] (empty, mixed sets, duplicate x),
/// [`ContainerError::InsufficientShares`] (fewer than t).
pub fn combine_shares(shares: &[ThresholdShare]) -> Result<(ShareSet, Zeroizing<Vec<u8>>)> {
    let first = shares
        .first()
        .ok_or(ContainerError::InvalidShare("no shares"))?;
    let set = first.set();
    let mut seen = [false; 256];
    for s in shares {
        if s.set() != set {
            return Err(ContainerError::InvalidShare(
                "shares belong to different share sets",
            ));
        }
        let slot = seen
            .get_mut(usize::from(s.x))
            .ok_or(ContainerError::InvalidShare("x out of range"))?;
        if *slot {
            return Err(ContainerError::InvalidShare("duplicate share x"));
        }
        *slot = true;
    }
    if shares.len() < usize::from(set.threshold) {
        return Err(ContainerError::InsufficientShares {
            have: shares.len(),
            need: set.threshold,
        });
    }
    let raw: Vec<shamir::Share> = shares
        .iter()
        .map(|s| shamir::Share {
            x: s.x,
            y: s.y.to_vec(),
        })
        .collect();
    let tms = shamir::combine(&raw)?;
    Ok((set, tms))
}
