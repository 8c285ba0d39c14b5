//! Fuzz target: `session_entries::state_machine` (invariants in fuzz/session_entries.rs;
//! the same entry point replays the seed corpus in `crate/tests/fuzz_corpus_replay.rs`).
#![no_main]

#[path = "../session_entries.rs"]
mod session_entries;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = session_entries::state_machine(data) {
        panic!("invariant broken: {broken}");
    }
});
