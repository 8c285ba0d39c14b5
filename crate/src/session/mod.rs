//! Post-quantum chat sessions (docs/SESSIONS.md): signed prekey bundles, a
//! PQXDH-style handshake and a triple ratchet (a Double Ratchet whose every
//! message key also mixes a key from an ML-KEM-768 epoch ratchet).
//!
//! Layout:
//! - [`identity`], [`prekey`], [`bundle`], [`versions`]: session identities
//!   (Ed25519 + ML-DSA-65 + X25519), signed prekeys, the canonical bundle
//!   bytes and supported-version lists;
//! - [`handshake`]: the initiator's and the responder's side of the
//!   handshake, ending in [`HandshakeKeys`] + [`SessionBinding`];
//! - [`ratchet`]: the triple ratchet state, its message format, limits and
//!   serialized form.
//!
//! Everything here is pure Rust with no WebAssembly types; the keystore worker
//! drives it through thin bindings.

pub mod error;
// ---- handshake modules ----
pub mod bundle;
pub mod handshake;
pub mod identity;
pub mod prekey;
pub mod versions;
// ---- end handshake modules ----
pub mod ratchet;

pub use error::{Result, SessionError};

use zeroize::Zeroizing;

/// Protocol version 1 (bound into the handshake KDF and into every message's
/// associated data): the unchunked PQ ratchet, power-of-two padding.
pub const VERSION_1: u8 = 1;
/// Protocol version 2 (message format 2, docs/SESSIONS.md §5.11): the PQ
/// ratchet's `ek`/`ct` in 32-byte erasure-coded chunks, one per message, and
/// Padmé padding from 256 bytes. New sessions pick it when both sides list it.
pub const VERSION_2: u8 = 2;

/// Which side of the handshake a party was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The party that fetched the peer's bundle and sent the initial message
    /// (the ek-sender of odd PQ epochs).
    Initiator,
    /// The party whose bundle was used.
    Responder,
}

/// The secrets the handshake hands to the ratchet (the first 96 bytes of the
/// handshake's HKDF output, docs/SESSIONS.md). Zeroized on drop; no `Debug`.
pub struct HandshakeKeys {
    /// The first root key of the Double Ratchet.
    pub root_key: Zeroizing<[u8; 32]>,
    /// The first chain key (use defined in docs/SESSIONS.md, ratchet initialisation).
    pub chain_key: Zeroizing<[u8; 32]>,
    /// `pq_root_0`, the root of PQ epoch 0.
    pub pq_root_0: Zeroizing<[u8; 32]>,
}

/// What every message of a session binds (associated data): the version and
/// both identity encodings `Enc(ID)`, initiator first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionBinding {
    /// The negotiated protocol version.
    pub version: u8,
    /// `Enc(ID_init)`.
    pub initiator_identity: Vec<u8>,
    /// `Enc(ID_resp)`.
    pub responder_identity: Vec<u8>,
}
