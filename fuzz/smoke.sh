#!/usr/bin/env bash
# Short fuzz smoke run of every cargo-fuzz target (mutations, not only the
# corpus replay that `cargo test` does). Installs what is missing first: the
# nightly toolchain and cargo-fuzz (from crates.io).
# Usage: fuzz/smoke.sh [seconds per target, default 60]
# `npm test` runs it with 4 s per target: a smoke test (each target builds with
# the sanitizer, loads its seed corpus and mutates without a crash); the seeds
# themselves are replayed natively by crate/tests/fuzz_corpus_replay.rs, and the
# long fuzzing is `npm run fuzz`. Of the step's time, the ASan build of veilkit
# and its dependencies (shared by all targets, nothing shared with the other
# steps: different instrumentation) is the larger part; each target line prints
# its seconds.
# New inputs go to fuzz/corpus-work/ (ignored); the committed seed corpus in
# fuzz/corpus/ is only read. Crashes land in fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")"
if [[ -d "${CARGO_HOME:-$HOME/.cargo}/bin" ]]; then
  export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
fi
secs="${1:-60}"
if ! rustup toolchain list | grep -q '^nightly'; then
  echo "fuzz smoke: installing the nightly toolchain"
  rustup toolchain install nightly --profile minimal
fi
if ! command -v cargo-fuzz >/dev/null 2>&1; then
  echo "fuzz smoke: installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi
mapfile -t targets < <(cargo +nightly fuzz list)
[[ ${#targets[@]} -gt 0 ]] || { echo "fuzz smoke: no targets"; exit 1; }
t0=$SECONDS
cargo +nightly fuzz build -O
echo "fuzz smoke: build $((SECONDS - t0)) s"
for t in "${targets[@]}"; do
  rm -rf "corpus-work/$t" && mkdir -p "corpus-work/$t"
  cp "corpus/$t/"* "corpus-work/$t/"
  log="$(mktemp)"
  t0=$SECONDS
  cargo +nightly fuzz run -O "$t" "corpus-work/$t" -- -max_total_time="$secs" -max_len=16384 >"$log" 2>&1 \
    || { tail -40 "$log"; echo "fuzz smoke: $t FAILED"; exit 1; }
  echo "$t: $(grep -E '^Done [0-9]+ runs' "$log" || echo 'no summary') ($((SECONDS - t0)) s)"
  rm -f "$log"
done
echo "fuzz smoke: ${#targets[@]} targets, ${secs}s each, no crash"
