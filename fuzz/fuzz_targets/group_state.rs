//! Fuzz target: `group_entries::state` (invariants in fuzz/group_entries.rs;
//! the same entry point replays the seed corpus in `crate/tests/fuzz_corpus_replay.rs`).
#![no_main]

#[path = "../group_entries.rs"]
mod group_entries;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = group_entries::state(data) {
        panic!("invariant broken: {broken}");
    }
});
