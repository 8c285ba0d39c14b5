#!/usr/bin/env bash
# Runs one cargo-fuzz target for a while and prints what it reached.
#
#   npm run fuzz                       # lists the targets
#   npm run fuzz -- <target> [seconds] [libFuzzer options…]   (default 60 s)
#
# Installs what is missing first (the nightly toolchain, cargo-fuzz). The seed
# corpus in fuzz/corpus/<target>/ is only read; new inputs go to
# fuzz/corpus-work/<target>/ and crashes to fuzz/artifacts/<target>/ (both
# gitignored). Promote an interesting input by copying it into the seed corpus
# (named valid_* / invalid_* so the replay test in `cargo test` checks it).
# Exit status: 0 when the run ends without a crash, non-zero otherwise.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT/fuzz"
if [[ -d "${CARGO_HOME:-$HOME/.cargo}/bin" ]]; then
  export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
fi

say() { printf 'fuzz: %s\n' "$*"; }

if ! rustup toolchain list | grep -q '^nightly'; then
  say "installing the nightly toolchain (cargo-fuzz needs -Z flags)"
  rustup toolchain install nightly --profile minimal
fi
if ! command -v cargo-fuzz >/dev/null 2>&1; then
  say "installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi

if [[ $# -lt 1 || "$1" == "-h" || "$1" == "--help" ]]; then
  echo "usage: npm run fuzz -- <target> [seconds=60] [libFuzzer options...]"
  echo "targets:"
  cargo +nightly fuzz list | sed 's/^/  /'
  exit 2
fi

target="$1"
seconds="${2:-60}"
shift $(( $# >= 2 ? 2 : 1 ))
if ! cargo +nightly fuzz list | grep -qx "$target"; then
  echo "fuzz: unknown target '$target'; known: $(cargo +nightly fuzz list | tr '\n' ' ')" >&2
  exit 2
fi
if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
  echo "fuzz: seconds must be a whole number, got '$seconds'" >&2
  exit 2
fi

work="corpus-work/$target"
seeds="corpus/$target"
mkdir -p "$work" "artifacts/$target"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

say "building $target (nightly, release + debug assertions, ASan)"
cargo +nightly fuzz build "$target"

say "running $target for ${seconds}s (seeds: $seeds, new inputs: $work)"
status=0
cargo +nightly fuzz run "$target" "$work" "$seeds" -- \
  -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=4096 "$@" 2>&1 | tee "$log" || status=$?

# Summary: the last status line ("#N DONE cov: C ft: F corp: …") and libFuzzer's final stats.
last="$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)"
execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)"
cov="$(printf '%s' "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')"
ft="$(printf '%s' "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')"
corp="$(printf '%s' "$last" | sed -n 's/.* corp: \([0-9]*\/[0-9A-Za-z]*\).*/\1/p')"
echo
say "summary: target=$target seconds=$seconds execs=${execs:-?} exec/s=${rate:-?} cov=${cov:-?} ft=${ft:-?} corpus=${corp:-?} status=$status"
if [[ $status -ne 0 ]]; then
  say "crash or failure: see fuzz/artifacts/$target/ (reproduce: cargo +nightly fuzz run $target <file>)"
fi
exit "$status"
