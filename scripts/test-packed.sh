#!/usr/bin/env bash
# The packed package as users get it: packs the built package once (scripts/pack.sh), then runs
# every scripts/packed/NN-*.sh in order (bundler matrix, examples). Each part installs its app(s)
# from the tarball, builds them once, runs its Playwright specs and stops every server it started.
# Every part runs even after a failure; the exit status is non-zero if any failed.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/pack.sh || exit 1
failed=0
summary=()
shopt -s nullglob
for part in scripts/packed/[0-9][0-9]-*.sh; do
  printf '\n--> %s\n' "$part"
  start=$(date +%s)
  if bash "$part"; then r=PASS; else r=FAIL; failed=1; fi
  summary+=("$(printf '%-40s %s %6ds' "$(basename "$part")" "$r" $(( $(date +%s) - start )))")
done
printf '\n'
for line in "${summary[@]}"; do echo "packed: $line"; done
exit $failed
