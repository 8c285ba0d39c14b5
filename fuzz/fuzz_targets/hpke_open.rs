//! Fuzz target: `hpke_entries::open_sealed` (invariants in fuzz/hpke_entries.rs; the same
//! entry point replays the seed corpus in `crate/tests/fuzz_corpus_replay.rs`).
#![no_main]

#[path = "../hpke_entries.rs"]
mod hpke_entries;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = hpke_entries::open_sealed(data) {
        panic!("invariant broken: {broken}");
    }
});
