//! The PQXDH-style handshake (docs/SESSIONS.md §4; PQXDH rev. 3 §3.3, §3.4).
//!
//! ```text
//! DH1 = DH(IK_A, SPK_B)   DH2 = DH(EK_A, IK_B)   DH3 = DH(EK_A, SPK_B)   DH4 = DH(EK_A, OPK_B)
//! (CT, SS) = ML-KEM-768.Encaps(PQPK_B)   (PQPK_B: the one-time ML-KEM prekey if offered,
//!                                          else the last-resort one)
//! flags = bit 0: DH4 present, bit 1: PQPK_B is a one-time prekey
//! T     = SHA-256(Enc(ID_A) ‖ Enc(ID_B) ‖ SPK_B ‖ [OPK_B] ‖ PQPK_B ‖ EK_A ‖ CT
//!                 ‖ u32 device_A ‖ u32 device_B)
//! info  = "veilkit-pqxdh-v1" ‖ u8 version ‖ u8 flags ‖ versions_A ‖ versions_B ‖ T
//! OKM   = HKDF-SHA256(salt = 0^32, ikm = 0xFF^32 ‖ DH1 ‖ DH2 ‖ DH3 ‖ [DH4] ‖ SS, info, L = 128)
//!       = root_key ‖ chain_key ‖ pq_root_0 ‖ confirmation_key (32 bytes each)
//!
//! initial message = "VKIM" ‖ u8 version ‖ Enc(ID_A)(2017) ‖ u32 device_A ‖ versions_A
//!                   ‖ identity id_B(32) ‖ u32 device_B ‖ versions_B (as seen in the bundle)
//!                   ‖ EK_A(32) ‖ u32 spk_id ‖ u8 pq_kind(3|4) ‖ u32 pq_id
//!                   ‖ u8 has_opk(0|1) ‖ [u32 opk_id] ‖ CT(1088)
//!                   ‖ u32 n ‖ first_message(n ≤ 1 MiB) ‖ tag(32)
//! tag = HMAC-SHA256(confirmation_key, every preceding byte of the initial message)
//! ```
//! The responder checks the tag last; every failure before or at it leaves
//! its store untouched (it only reads), and a success returns which one-time
//! prekeys to delete and which replay-cache entry to add, for the caller to
//! commit in the same transaction as the new session.
//!
//! Layout (one concern per file, every public item re-exported here):
//! - `transcript`: the one transcript builder (`T`, `info`) and the key
//!   derivation shared by both sides;
//! - `message`: [`InitialMessage`], the initial-message codec;
//! - `initiate`: the initiator's side ([`LocalDevice`], [`Initiation`],
//!   [`initiate()`], [`initiate_derand`]);
//! - `respond`: the responder's side ([`PrekeyStore`], [`ReplayKey`],
//!   [`ConsumedPrekeys`], [`Response`], [`respond()`]);
//! - `memory`: the in-memory replay cache and prekey store (tests, and a model
//!   of the keystore's).

mod initiate;
mod memory;
mod message;
mod respond;
mod transcript;

pub use initiate::{Initiation, LocalDevice, initiate, initiate_derand};
pub use memory::{MemoryPrekeyStore, MemoryReplayCache};
pub use message::InitialMessage;
pub use respond::{ConsumedPrekeys, PrekeyStore, ReplayKey, Response, respond};

/// HKDF info label of the handshake.
pub const PQXDH_LABEL: &[u8] = b"veilkit-pqxdh-v1";
/// Magic of an initial message.
pub const INITIAL_MAGIC: &[u8; 4] = b"VKIM";
/// Longest `first_message` slot (1 MiB).
pub const MAX_FIRST_MESSAGE_LEN: usize = 1 << 20;
/// Length of the initial message's confirmation tag.
pub const TAG_LEN: usize = 32;
/// `flags` bit: DH4 (a one-time X25519 prekey) is part of the secret.
pub const FLAG_DH4: u8 = 0x01;
/// `flags` bit: the ML-KEM ciphertext is to a one-time ML-KEM prekey.
pub const FLAG_PQ_ONE_TIME: u8 = 0x02;
