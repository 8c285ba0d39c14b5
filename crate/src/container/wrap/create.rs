//! Writing: [`WrapSpec`] (how to protect the DEK of a new container), the
//! writer-side KDF budget check and [`create_wrap`].

use zeroize::Zeroizing;

use super::super::chunk::Dek;
use super::super::error::{ContainerError, Result};
use super::super::share::{ThresholdShare, check_threshold};
use super::entry::WrapEntry;
use super::params::{Argon2idCost, CT_MLKEM_LEN};
use super::kek::{
    argon2_kek, group_kek, hybrid_kek, pbkdf2_kek, recipient_id_for, threshold_kek, wrap_dek,
};
use super::unlock::KdfBudget;
use crate::kdf::KDF_BOUNDS;
use crate::{rng, shamir, xwing};

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
pub fn check_writer_budget(
    specs: &[WrapSpec],
    kept_passwords: usize,
    budget: &KdfBudget,
) -> Result<()> {
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
            if !KDF_BOUNDS.wrap_pbkdf2_iterations.contains(*iterations) {
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
