//! Wrap entries: the ways the 32-byte DEK is protected (each one an
//! AES-256-KW wrap of the DEK, 40 bytes, under a KEK derived per type), the
//! unlock methods, and (re-exported from `container::share`) the `vcs_`
//! threshold shares.
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
//!
//! One file per concern: the wire constants and `Argon2idCost` (`params.rs`), entries on the wire (`entry.rs`),
//! KEK derivations (`kek.rs`), writing wraps (`create.rs`), unlocking
//! (`unlock.rs`); shares live in `container/share.rs`. Every item is
//! re-exported here, so the public paths are `container::wrap::*`.

mod create;
mod entry;
mod kek;
mod params;
mod unlock;

pub use super::share::{
    SHARE_MAGIC, SHARE_PAYLOAD_LEN, SHARE_PREFIX, SHARE_STRING_LEN, ShareSet, ThresholdShare,
    combine_shares,
};
pub use create::{WrapSpec, check_writer_budget, create_wrap};
pub use entry::{WrapEntry, WrapKind};
pub use params::{
    ARGON2ID_PAYLOAD_LEN, Argon2idCost, CT_MLKEM_LEN, CT_X25519_LEN, GROUP_PAYLOAD_LEN,
    HYBRID_KEM_PAYLOAD_LEN, MAX_WRAP_ENTRY_LEN, MIN_WRAP_ENTRY_LEN, PBKDF2_PAYLOAD_LEN,
    THRESHOLD_PAYLOAD_LEN, WRAP_ARGON2ID, WRAP_GROUP, WRAP_HYBRID_KEM, WRAP_PBKDF2, WRAP_THRESHOLD,
    WRAPPED_DEK_LEN,
};
pub use kek::{
    GROUP_KEK_LABEL, HYBRID_KEK_LABEL, KEM_SUITE_XWING, RECIPIENT_ID_LABEL, THRESHOLD_KEK_LABEL,
    recipient_id_for,
};
pub use unlock::{GroupUnlock, KdfBudget, Unlock, unlock_dek};
