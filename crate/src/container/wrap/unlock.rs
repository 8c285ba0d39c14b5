//! Unlocking: the credentials ([`Unlock`], [`GroupUnlock`]), the reader's
//! [`KdfBudget`] and [`unlock_dek`], which recovers a header's DEK.

use super::super::chunk::{Dek, FileContext};
use super::super::error::{ContainerError, Result};
use super::super::share::{ThresholdShare, combine_shares};
use super::entry::{WrapEntry, WrapKind};
use super::kek::{argon2_kek, group_kek, hybrid_kek, pbkdf2_kek, threshold_kek, unwrap_dek};
use crate::kdf::KDF_BOUNDS;
use crate::xwing;

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

impl Default for KdfBudget {
    /// `KDF_BOUNDS.default_budget` (crate::kdf).
    fn default() -> Self {
        let d = KDF_BOUNDS.default_budget;
        Self {
            argon2_memory_kib: d.argon2_memory_kib,
            argon2_iterations: d.argon2_iterations,
            pbkdf2_iterations: d.pbkdf2_iterations,
            password_attempts: d.password_attempts,
        }
    }
}

impl KdfBudget {
    /// No cap beyond the format's parse-time bounds (trusted input only).
    #[must_use]
    pub const fn unlimited() -> Self {
        Self {
            argon2_memory_kib: KDF_BOUNDS.wrap_argon2id.memory_kib.max,
            argon2_iterations: KDF_BOUNDS.wrap_argon2id.iterations.max,
            pbkdf2_iterations: KDF_BOUNDS.wrap_pbkdf2_iterations.max,
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
