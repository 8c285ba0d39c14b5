//! Fuzz target: `session_handshake_entries::bundle` (invariants in fuzz/session_handshake_entries.rs;
//! the same entry point replays the seed corpus in `crate/tests/fuzz_corpus_replay.rs`).
#![no_main]

#[path = "../session_handshake_entries.rs"]
mod session_handshake_entries;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = session_handshake_entries::bundle(data) {
        panic!("invariant broken: {broken}");
    }
});
