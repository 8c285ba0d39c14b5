//! Fuzz target: `messaging_entries::keylog_json` (invariants in fuzz/messaging_entries.rs;
//! the same entry point replays the seed corpus in `crate/tests/fuzz_corpus_replay.rs`).
#![no_main]

#[path = "../messaging_entries.rs"]
mod messaging_entries;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = messaging_entries::keylog_json(data) {
        panic!("invariant broken: {broken}");
    }
});
