//! Bounded-memory streaming: an encryptor fed chunk by chunk (placeholder
//! header and leaf table first, final header and table last, same length) and
//! a reader that parses a header from a prefix, checks the leaf table against
//! the header's Merkle root, unlocks the DEK and decrypts chunks in any order
//! or in sequence, each checked against its table entry before release.
//!
//! Memory: both keep the header and the leaf table (32 bytes per chunk:
//! 1/32768 of the plaintext at the default 1 MiB chunk size). Neither holds
//! more than one chunk.
//!
//! One file per concern: the encryptor (`encrypt.rs`), the reader (`read.rs`) and
//! its unlock paths (`unlock.rs`).

mod encrypt;
mod read;
mod unlock;

pub use encrypt::{ContainerEncryptor, EncryptOptions};
pub use read::{ContainerReader, ReaderPrefix};
