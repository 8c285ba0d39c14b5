#!/usr/bin/env bash
# Short fuzz smoke run of every container target (needs nightly + cargo-fuzz:
# `rustup toolchain install nightly && cargo install cargo-fuzz`).
# Usage: fuzz/smoke.sh [seconds per target, default 60]
# New inputs go to fuzz/corpus-work/ (ignored); the committed seed corpus in
# fuzz/corpus/ is only read. Crashes land in fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")"
secs="${1:-60}"
targets=(container_header container_wrap container_share container_manifest)
cargo +nightly fuzz build -O
for t in "${targets[@]}"; do
  rm -rf "corpus-work/$t" && mkdir -p "corpus-work/$t"
  cp "corpus/$t/"* "corpus-work/$t/"
  log="$(mktemp)"
  cargo +nightly fuzz run -O "$t" "corpus-work/$t" -- -max_total_time="$secs" -max_len=16384 >"$log" 2>&1 \
    || { tail -40 "$log"; echo "fuzz smoke: $t FAILED"; exit 1; }
  echo "$t: $(grep -E '^Done [0-9]+ runs' "$log" || echo 'no summary')"
  rm -f "$log"
done
