//! The proptest configuration shared by the `proptest_*` test binaries.

use proptest::test_runner::Config as ProptestConfig;

/// Config with `n` cases unless `PROPTEST_CASES` says otherwise.
pub fn cases(n: u32) -> ProptestConfig {
    let n = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(n);
    ProptestConfig {
        cases: n,
        // No persistence files in the source tree: failures print their seed.
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}
