//! The one source of randomness: the OS CSPRNG (`getrandom`), which on
//! `wasm32-unknown-unknown` is `crypto.getRandomValues` (feature `wasm_js`).
//! There is no fallback: if it fails, the operation fails.
//!
//! Algorithms that want an RNG object (ML-KEM, ML-DSA, X-Wing) are instead
//! driven through their deterministic, seeded entry points with seeds drawn
//! here, so a failing generator is an error, never a panic.

use crate::error::{CryptoError, Result};
use zeroize::Zeroizing;

/// Fills `buf` with secure random bytes.
///
/// # Errors
/// [`CryptoError::RandomnessUnavailable`] if the platform generator fails.
pub fn fill(buf: &mut [u8]) -> Result<()> {
    getrandom::fill(buf).map_err(|_| CryptoError::RandomnessUnavailable)
}

/// Returns `N` fresh random bytes in a zeroizing buffer.
///
/// # Errors
/// [`CryptoError::RandomnessUnavailable`] if the platform generator fails.
pub fn array<const N: usize>() -> Result<Zeroizing<[u8; N]>> {
    let mut out = Zeroizing::new([0u8; N]);
    fill(out.as_mut_slice())?;
    Ok(out)
}
