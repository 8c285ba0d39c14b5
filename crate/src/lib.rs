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
#[cfg(any(feature = "wasm", feature = "group-wasm"))]
mod stack;
pub mod x25519;
pub mod xwing;

#[cfg(feature = "wasm")]
pub mod wasm;

/// The group module's allocator wipes every block it frees (the group module
/// only: its own wasm, `group-wasm`). OpenMLS keeps its storage records as
/// serde_json text and its secrets in types of its own; their freed copies are
/// outside our zeroizing types, so the allocator wipes them all
/// (docs/GROUPS.md "Zeroization"; `tests/playwright/zeroize.spec.ts` scans for them).
#[cfg(all(feature = "group-wasm", target_arch = "wasm32"))]
#[global_allocator]
static GROUP_ALLOCATOR: zalloc::ZeroizingAlloc<std::alloc::System> =
    zalloc::ZeroizingAlloc(std::alloc::System);

pub use error::{CryptoError, Result};
