//! Shadow-stack wiping for the wasm bindings (the base module's
//! `wasm::scrubbed` and the group module's exports).
//!
//! wasm32 keeps its shadow stack in linear memory and nothing clears it: stack
//! temporaries of the crates below (hash states, scalars, moved key structs)
//! stay readable by anyone holding the `WebAssembly.Memory` until later calls
//! happen to overwrite them. A binding runs its body with [`in_own_frame`]
//! and then calls [`wipe`] for as much stack as the body was measured to use.

/// Keeps `f`'s locals out of the caller's frame (the wipe cannot reach the
/// frame it is called from).
#[inline(never)]
pub(crate) fn in_own_frame<T>(f: impl FnOnce() -> T) -> T {
    f()
}

/// Overwrites `WORDS * 8` bytes of the stack just below the caller's frame
/// (volatile writes via `zeroize`, so the stores are not optimised away).
#[inline(never)]
pub(crate) fn wipe<const WORDS: usize>() {
    use zeroize::Zeroize;
    let mut scratch = [0u64; WORDS];
    scratch.zeroize();
    core::hint::black_box(&scratch);
}
