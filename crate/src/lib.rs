//! veilkit core: the cryptographic primitives and constructions of the
//! veilkit SDK, in pure Rust with no WebAssembly types.
//!
//! The optional `wasm` feature adds the thin wasm-bindgen layer in
//! [`wasm`](crate::wasm); nothing in the core depends on it.
//!
//! Layout mirrors the TypeScript facade: `aead` ↔ `ts/aead.ts`, and so on.
#![forbid(unsafe_code)]
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic,
        clippy::cast_possible_truncation
    )
)]

pub mod aead;
pub mod bip39;
mod bytes;
pub mod container;
pub mod ed25519;
pub mod error;
#[cfg(feature = "group")]
pub mod group;
/// The group domain's error enum alone, for builds without the `group` feature: the one error
/// model (`tests/error_codes.rs`) lists its codes in every build.
#[cfg(not(feature = "group"))]
#[path = "group/error.rs"]
pub mod group_error;
pub mod hash;
pub mod hpke;
pub mod kdf;
pub mod keywrap;
pub mod messaging;
pub mod mldsa;
pub mod mlkem;
pub mod rng;
pub mod session;
pub mod shamir;
pub mod x25519;
pub mod xwing;

#[cfg(feature = "wasm")]
pub mod wasm;

pub use error::{CryptoError, Result};
