//! Fuzz target: `veilkit::container::fuzzing::share` (invariants in that function;
//! the same entry point replays the seed corpus in `crate/tests/fuzz_corpus_replay.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = veilkit::container::fuzzing::share(data) {
        panic!("invariant broken: {broken}");
    }
});
