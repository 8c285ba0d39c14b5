#!/usr/bin/env bash
# Part of scripts/test-packed.sh: the bundler matrix. Installs the scratch apps of tests/bundlers/
# (Vite 8, Vite 6, the no-bundler import-map page) from .pack/veilkit.tgz, builds each Vite app once,
# then runs tests/bundlers/matrix.spec.ts: one Playwright test per cell (app × dev / build+preview ×
# with / without COOP/COEP), each starting its server and stopping it by pid. A failed build is not
# fatal here: its preview cells fail and name the build log. Prints each cell's result and duration.
# Logs: test-results/bundlers/ (<app>-install.log, <app>-build.log, results.json).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
START=$(date +%s)
B=tests/bundlers
LOGS=test-results/bundlers
mkdir -p "$LOGS"
rm -f "$LOGS/results.json" "$LOGS/servers.pids"
failed=0
say() { printf 'bundlers: %s\n' "$*"; }

# The shared smoke flow into each app: the Vite apps compile the TypeScript themselves; the
# no-bundler page gets it with its types stripped.
# Both Vite apps are the same page (tests/bundlers/vite-page/) under two bundler versions.
for app in vite8 vite6; do
  mkdir -p "$B/$app/src" # every file in it is copied here (a fresh clone has no src/)
  cp "$B/smoke.ts" "$B/$app/src/smoke.ts"
  cp "$B/vite-page/main.ts" "$B/$app/src/main.ts"
  cp "$B/vite-page/index.html" "$B/$app/index.html"
done
npx --no-install esbuild "$B/smoke.ts" --format=esm --target=es2022 --log-level=warning --outfile="$B/importmap/smoke.js" \
  || { say "esbuild of smoke.ts FAILED"; failed=1; }

# Installs in parallel (network and disk bound), from each app's lockfile plus the fresh tarball.
t0=$(date +%s)
pids=()
for app in vite8 vite6 importmap; do
  bash scripts/install-packed.sh "$B/$app" >"$LOGS/$app-install.log" 2>&1 &
  pids+=("$!")
done
i=0
for app in vite8 vite6 importmap; do
  if wait "${pids[$i]}"; then say "$app install ok"; else say "$app install FAILED (log: $LOGS/$app-install.log)"; tail -n 20 "$LOGS/$app-install.log"; failed=1; fi
  i=$((i + 1))
done
say "installs: $(( $(date +%s) - t0 ))s"

# One build per Vite app (`tsc --noEmit && vite build`); COOP/COEP are toggled at serve time.
for app in vite8 vite6; do
  t0=$(date +%s)
  rm -rf "$B/$app/dist"
  if (cd "$B/$app" && npm run --silent build) >"$LOGS/$app-build.log" 2>&1; then
    say "$app build ok ($(( $(date +%s) - t0 ))s)"
  else
    say "$app build FAILED ($(( $(date +%s) - t0 ))s; its build+preview cells fail; log: $LOGS/$app-build.log)"
    grep -m 5 -iE 'error|invalid' "$LOGS/$app-build.log"
  fi
done

# The cells. Each test stops its own server; anything a killed run left behind is stopped below.
# The Next example's cells (@next) run in scripts/packed/30-next-example.sh, after its builds.
t0=$(date +%s)
npx --no-install playwright test -c "$B/playwright.config.ts" --grep-invert @next || failed=1
say "cells: $(( $(date +%s) - t0 ))s"
if [[ -f $LOGS/servers.pids ]]; then
  while read -r pid; do
    if kill -0 "$pid" 2>/dev/null; then say "stopping leftover server group $pid"; kill -- "-$pid" 2>/dev/null; fi
  done <"$LOGS/servers.pids"
fi

# Per-cell table from Playwright's JSON report.
if [[ -f $LOGS/results.json ]]; then
  node - "$LOGS/results.json" <<'NODE'
const fs = require('node:fs');
const report = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const rows = [];
const walk = (suite) => {
  for (const spec of suite.specs ?? []) for (const t of spec.tests) {
    const r = t.results.at(-1) ?? { status: 'not run', duration: 0 };
    const a = Object.fromEntries(t.annotations.map((x) => [x.type, x.description]));
    rows.push([spec.title, r.status === 'passed' ? 'PASS' : `FAIL (${r.status})`, a.wasmBuild ? `${a.wasmBuild}${a.threads && a.threads !== '1' ? ` ×${a.threads}` : ''}` : '-', `${(r.duration / 1000).toFixed(1)}s`]);
  }
  for (const s of suite.suites ?? []) walk(s);
};
report.suites.forEach(walk);
console.log(`\nbundlers: ${'cell'.padEnd(38)}${'result'.padEnd(18)}${'worker build'.padEnd(14)}${'time'.padStart(7)}`);
for (const [cell, res, build, time] of rows) console.log(`bundlers: ${cell.padEnd(38)}${res.padEnd(18)}${build.padEnd(14)}${time.padStart(7)}`);
NODE
fi
say "total $(( $(date +%s) - START ))s"
exit $failed
