//! wasm-bindgen layer (feature `wasm`): validate, call the core, convert.
//!
//! Conventions (kept by every file here, mirroring `crate/src/<area>.rs`):
//! - JS names are camelCase and set explicitly with `js_name`.
//! - Secret inputs arrive as `Vec<u8>` (ownership moves into wasm memory) and
//!   are wrapped in `Zeroizing` at once, so the copy in linear memory is wiped
//!   when the call returns. Public inputs are borrowed `&[u8]`.
//! - Secret outputs leave as a `Uint8Array` copied out of a `Zeroizing`
//!   buffer, so linear memory keeps no copy. Several outputs are concatenated
//!   in a documented order and split by the TypeScript facade (keeps the
//!   generated `.d.ts` free of `any`).
//! - Every function that touches secret bytes runs its body through
//!   [`scrubbed`]: the body gets its own stack frames, and the shadow-stack
//!   region they used (temporaries and moved copies the core cannot wipe) is
//!   overwritten before the call returns to JS.
//! - Errors become a JS `Error` named `VeilError` with a stable `code`
//!   (`CryptoError::code`, `ContainerError::code`, `MessagingError::code`,
//!   `SessionError::code`, exhaustive matches) and the extra properties of a few variants, built in
//!   one place ([`error`]); functions return [`JsResult`] and use `?` on core
//!   results. The TypeScript facade turns the error into its `VeilError` class.

use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use zeroize::Zeroizing;

mod aead;
mod bip39;
mod container;
mod ed25519;
mod error;
mod hash;
mod header_info;
mod hpke;
mod kdf;
mod keywrap;
mod messaging;
mod mldsa;
mod mlkem;
mod recipient_id;
mod session;
mod shamir;
#[cfg(feature = "threads")]
mod threads;
mod x25519;
mod xwing;

/// Result type of every exported function: core errors convert with `?`
/// (one builder, [`error::js_err`]).
pub(crate) type JsResult<T> = Result<T, error::JsFail>;

/// Copies secret bytes out to JS; the caller's `Zeroizing` wipes the source.
pub(crate) fn secret_out(bytes: &[u8]) -> Uint8Array {
    Uint8Array::from(bytes)
}

/// Takes ownership of a secret input so that it is wiped on drop.
pub(crate) fn secret_in(bytes: Vec<u8>) -> Zeroizing<Vec<u8>> {
    Zeroizing::new(bytes)
}

/// Concatenates parts into one zeroizing buffer and copies it out.
pub(crate) fn concat_out(parts: &[&[u8]]) -> Uint8Array {
    let mut buf = Zeroizing::new(Vec::with_capacity(parts.iter().map(|p| p.len()).sum()));
    for p in parts {
        buf.extend_from_slice(p);
    }
    secret_out(&buf)
}

/// How much shadow stack a binding's body may use, plus headroom. Measured on
/// the SIMD build with the wipes turned off: stack painted with a canary, one
/// call, deepest overwritten byte (the scan of
/// `tests/playwright/fixtures/zeroize-page.ts`). Re-measure when a crypto
/// dependency changes: a wipe that is too short leaves secrets behind. (The
/// wipe is cheap: ML-DSA verification ran at the same speed with 192 KiB as
/// with 320 KiB, so the sizes keep the headroom of the previous crates.)
#[derive(Clone, Copy)]
pub(crate) enum StackUse {
    /// Classical primitives, KDFs, BIP-39, Shamir (measured ≤ 9 KiB).
    Small,
    /// ML-KEM-768 and X-Wing (libcrux; measured ≤ 41 KiB, X-Wing decapsulation);
    /// the session ratchet exports (measured ≤ 33 KiB, `sessionEncrypt`).
    Kem,
    /// ML-DSA-65 (libcrux; measured ≤ 131 KiB, signing from the seed; RustCrypto `ml-dsa` took 266 KiB);
    /// the session identity, prekey and handshake exports (measured ≤ 132 KiB,
    /// `sessionGeneratePrekey`; the zeroization test re-measures them with
    /// `setStackWipeForTesting` and checks they fit).
    MlDsa,
}

/// Runs `f` in a frame of its own, then overwrites the stack it used.
///
/// wasm32 has a shadow stack in linear memory that nothing clears: stack
/// temporaries of the crates below (hash states, scalars, moved key structs)
/// stay readable by anyone holding the `WebAssembly.Memory` until later calls
/// happen to overwrite them. Wiping `bytes` of stack below the caller's frame
/// removes them. `f` must not leave secrets in its return value.
pub(crate) fn scrubbed<T>(stack: StackUse, f: impl FnOnce() -> T) -> T {
    let out = crate::stack::in_own_frame(f);
    #[cfg(feature = "testing")]
    if !WIPES_ON.load(core::sync::atomic::Ordering::Relaxed) {
        return out;
    }
    match stack {
        StackUse::Small => crate::stack::wipe::<{ 16 * 1024 / 8 }>(),
        StackUse::Kem => crate::stack::wipe::<{ 56 * 1024 / 8 }>(),
        StackUse::MlDsa => crate::stack::wipe::<{ 320 * 1024 / 8 }>(),
    }
    out
}

/// Whether [`scrubbed`] wipes (feature `testing` only; always on otherwise).
#[cfg(feature = "testing")]
static WIPES_ON: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(true);

/// **Tests only** (feature `testing`, not in the shipped module): turns the
/// stack wipe of [`scrubbed`] off (`false`) or back on, so that the
/// zeroization fixture can measure how deep each binding's body really goes
/// (canary-painted stack, one call, deepest overwritten byte) and check it
/// against the binding's [`StackUse`] size.
#[cfg(feature = "testing")]
#[wasm_bindgen(js_name = "setStackWipeForTesting")]
pub fn set_stack_wipe_for_testing(on: bool) {
    WIPES_ON.store(on, core::sync::atomic::Ordering::Relaxed);
}

/// Version string of the core, for diagnostics.
#[wasm_bindgen(js_name = "coreVersion")]
#[must_use]
pub fn core_version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}
