#!/usr/bin/env bash
# Full test run: setup, native vectors, clippy (native + wasm), build, lint (tsc +
# ESLint), Node tests, Playwright (Chromium, Firefox, WebKit). Every step runs even after a failure
# so the summary is complete; exit status is non-zero if any step failed. The last
# line of output is exactly "N passed, N failed" (steps).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
if [[ -d "${CARGO_HOME:-$HOME/.cargo}/bin" ]]; then
  export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
fi
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

NAMES=()
RESULTS=()
TIMES=()
BUILD_OK=0
# Each step's output is also kept here, so the end of the run can repeat what failed (a CI log
# shown as head and tail otherwise hides a failure in the middle).
STEP_LOGS="$(mktemp -d "${TMPDIR:-/tmp}/veilkit-test.XXXXXX")"
trap 'rm -rf "$STEP_LOGS"' EXIT

now() { date +%s%N; }

# run_step NAME CMD...  — runs CMD, records PASS/FAIL and duration.
run_step() {
  local name="$1"
  shift
  printf '\n==> %s: %s\n' "$name" "$*"
  local start end status
  start=$(now)
  "$@" 2>&1 | tee "$STEP_LOGS/${#NAMES[@]}.log"
  status=${PIPESTATUS[0]}
  end=$(now)
  NAMES+=("$name")
  TIMES+=("$(( (end - start) / 1000000 ))")
  if [[ $status -eq 0 ]]; then
    RESULTS+=("PASS")
  else
    RESULTS+=("FAIL")
    printf '==> %s FAILED (exit %d)\n' "$name" "$status"
  fi
  return $status
}

# skip_step NAME REASON — a step that cannot run counts as failed.
skip_step() {
  printf '\n==> %s: not run (%s)\n' "$1" "$2"
  NAMES+=("$1")
  RESULTS+=("FAIL")
  TIMES+=("0")
}

run_step "setup" bash scripts/setup.sh
run_step "dependency hygiene" bash scripts/check-deps.sh
# One formatting for the whole workspace (default rustfmt settings, edition 2024).
run_step "rustfmt (cargo fmt --check)" cargo fmt --all --check
# --show-output: the vector counts and skip reasons the tests print appear in the log.
run_step "cargo test (native vectors)" cargo test -p veilkit -- --show-output
# The MLS group engine (feature `group`, OpenMLS): its own test file, the crypto provider's known
# answers (lib tests `group::`) and the group fuzz corpora, so the feature's extra build is OpenMLS,
# the crate and three test binaries, not every test binary again.
run_step "cargo test (groups, --features group)" bash -c \
  'cargo test -p veilkit --features group --test group --test fuzz_corpus_replay -- --show-output &&
   cargo test -p veilkit --features group --lib -- --show-output group::'
# 4 s of mutations per target (20 targets): a smoke test; the seeds are replayed by cargo test,
# the long fuzzing is `npm run fuzz` (fuzz/smoke.sh says where the step's time goes).
run_step "fuzz smoke (every target, 4 s)" bash fuzz/smoke.sh 4
run_step "clippy (native, all targets, --features group)" cargo clippy -p veilkit --features group --all-targets -- -D warnings
run_step "clippy (wasm32, --features wasm)" \
  cargo clippy -p veilkit --features wasm --target wasm32-unknown-unknown -- -D warnings
run_step "clippy (wasm32, --features wasm,testing)" \
  cargo clippy -p veilkit --features wasm,testing --target wasm32-unknown-unknown -- -D warnings
run_step "clippy (wasm32, --features group-testing: the group module and its test-only exports)" \
  cargo clippy -p veilkit --features group-testing --target wasm32-unknown-unknown -- -D warnings
# The threads build's own code (crate/src/wasm/threads.rs): linted on the host target, stable, in
# the shared target directory. The crate has no target-specific cfg, so this is the code the nightly
# wasm32 threads build compiles (wasm-bindgen-rayon refuses wasm32 without atomics, which needs
# nightly build-std: 279 s of std rebuilt only to lint one file); the build step still compiles the
# threads build itself, and the wasm32 steps above lint everything else at 32 bits.
run_step "clippy (threads feature, host)" cargo clippy -p veilkit --features threads -- -D warnings
# The tests need the test-only exports (cargo feature `testing`); still one wasm build per run.
run_step "build (wasm + tsc, VEILKIT_TESTING=1)" env VEILKIT_TESTING=1 bash scripts/build.sh && BUILD_OK=1
if [[ $BUILD_OK -eq 1 ]]; then
  # After the build: type-aware linting reads the generated glue's types (ts/wasm/veilkit.d.ts).
  # `npm run lint` = TypeScript 7's tsc over tsconfig.lint.json (every .ts, specs included), then ESLint.
  run_step "eslint (typescript-eslint strict-type-checked)" npm run --silent lint
  run_step "node tests" node --test dist/tests/node/
  # veilkit/react hook logic (fakes of the veilkit objects, happy-dom; SSR in Node): tests/react/.
  run_step "react hooks (vitest)" npx --no-install vitest run --config tests/react/vitest.config.ts
  # An independent implementation (pyca/cryptography on OpenSSL) re-derives every messaging KAT.
  run_step "messaging KATs vs pyca/cryptography" python3 vectors/messaging/crosscheck_pyca.py
  # A verifier written from docs/DEVICES.md alone (pyca/cryptography) checks the registry vectors.
  run_step "device registry vectors vs pyca/cryptography" python3 vectors/devices/crosscheck_pyca.py
  # The browser corpus once per engine (tests/shared/engines.ts); each step prints its passed,
  # failed and skipped counts, and every skip its reason.
  for engine in chromium firefox webkit; do
    run_step "playwright ($engine)" env VEILKIT_ENGINE="$engine" npx --no-install playwright test
  done
  # The npm tarball installed into the examples and scratch apps (Vite, Next, an import map).
  run_step "packed package: bundler matrix and examples" bash scripts/test-packed.sh
else
  skip_step "eslint (typescript-eslint strict-type-checked)" "build failed"
  skip_step "node tests" "build failed"
  skip_step "messaging KATs vs pyca/cryptography" "build failed"
  for engine in chromium firefox webkit; do
    skip_step "playwright ($engine)" "build failed"
  done
  skip_step "packed package: bundler matrix and examples" "build failed"
fi

# What failed, once more at the end: Playwright's failed tests (its ✘ lines, at most 40) and the
# last 25 lines of every failed step's output.
for i in "${!NAMES[@]}"; do
  log="$STEP_LOGS/$i.log"
  if [[ ${RESULTS[$i]} == FAIL && -f $log ]]; then
    printf '\n==> failed: %s\n' "${NAMES[$i]}"
    grep -a '✘' "$log" | head -n 40
    printf -- '--- last lines of its output:\n'
    tail -n 25 "$log"
  fi
done

# Last, right above the table (the part of a long log that is always shown): one line per failed
# test of each failed Playwright step (its final "N failed" list), or a failed step's last 3 lines.
for i in "${!NAMES[@]}"; do
  log="$STEP_LOGS/$i.log"
  if [[ ${RESULTS[$i]} == FAIL && -f $log ]]; then
    printf '\n==> failed: %s\n' "${NAMES[$i]}"
    list="$(awk '/^ +[0-9]+ failed$/ { on = 1; next } on && /^ +\[[a-z]+\] › / { print; next } { on = 0 }' "$log" | head -n 12)"
    if [[ -n $list ]]; then printf '%s\n' "$list"; else tail -n 3 "$log"; fi
    # The first lines of each failure's message (Playwright's "Error:" lines with the expected /
    # received values and the timeout under them, and the FAIL lines that tests print themselves),
    # cut to 300 characters: what failed, not only where.
    grep -aE '^ *(Error: |FAIL |Expected( substring| string| pattern)?: |Received( string)?: |Timeout: )' "$log" | head -n 24 | cut -c 1-300
  fi
done

passed=0
failed=0
printf '\n%-48s %-6s %10s\n' "step" "result" "seconds"
printf '%-48s %-6s %10s\n' "------------------------------------------------" "------" "----------"
for i in "${!NAMES[@]}"; do
  ms=${TIMES[$i]}
  printf '%-48s %-6s %6d.%03d\n' "${NAMES[$i]}" "${RESULTS[$i]}" $(( ms / 1000 )) $(( ms % 1000 ))
  if [[ ${RESULTS[$i]} == PASS ]]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
