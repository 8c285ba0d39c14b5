//! Messaging primitives: the constructions an end-to-end encrypted messenger
//! builds on (hybrid and authenticated KEMs, padded and chunked AEAD, session
//! root / window keys and the PCS ratchet, transcript hashing, sealed sender,
//! verification codes and the interactive SAS, the key-transparency log, the
//! device registry and a replay store).
//!
//! Every construction is specified byte-exactly in `docs/PROTOCOL.md`
//! (big-endian throughout) and pinned by known-answer tests
//! (`vectors/messaging/kat.json`). Every parser is total: it never panics and
//! checks bounds before it allocates. Errors are [`MessagingError`], one enum
//! with a stable [`MessagingError::code`].

pub mod akem;
pub mod chunked;
mod codec;
pub mod error;
pub mod hybrid_kem;
pub mod keylog;
pub mod padding;
pub mod registry;
pub mod replay;
pub mod sealed;
pub mod session;
pub mod transcript;
pub mod verification;

pub use codec::MAX_SAFE_INTEGER;
pub use error::{KeyLogFault, MessagingError, RegistryFault, Result};
