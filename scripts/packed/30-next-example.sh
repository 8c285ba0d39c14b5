#!/usr/bin/env bash
# The Next.js example (examples/next) as users build it: installed from .pack/veilkit.tgz, built once
# with Turbopack (the default) and once with --webpack (two dist dirs), each served by `next start`
# (ports 8970, 8971; each mirrors its stores to examples/next/store-<build>.json and ds-<build>.json), and the
# Playwright specs tests/examples/next/*.spec.ts run against both (the rooms story on the Turbopack build). Servers are stopped by pid.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
APP="$ROOT/examples/next"
TURBOPACK_PORT=8970
WEBPACK_PORT=8971
t0=$(date +%s)
lap() { printf '30-next-example: %s in %ds\n' "$1" $(( $(date +%s) - $2 )); }

# The /smoke page's flow is a copy (the example builds on its own, outside this repository's tree):
# it must stay the matrix's flow, line for line after its one-line header.
tail -n +2 "$APP/lib/smoke.ts" | cmp -s - "$ROOT/tests/bundlers/smoke.ts" \
  || { echo '30-next-example: examples/next/lib/smoke.ts is no longer a copy of tests/bundlers/smoke.ts' >&2; exit 1; }

t=$(date +%s)
bash "$ROOT/scripts/install-packed.sh" "$APP"
lap install "$t"

cd "$APP"
export NEXT_TELEMETRY_DISABLED=1
t=$(date +%s)
NEXT_DIST_DIR=.next-turbopack node node_modules/next/dist/bin/next build
lap 'next build (Turbopack)' "$t"
t=$(date +%s)
NEXT_DIST_DIR=.next-webpack node node_modules/next/dist/bin/next build --webpack
lap 'next build --webpack' "$t"

pids=()
stop() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop EXIT

mkdir -p "$ROOT/test-results"
start() { # start BUILD PORT
  rm -rf "store-$1.json" "ds-$1.json" "files-$1"
  NEXT_DIST_DIR=".next-$1" VEILKIT_NEXT_STORE="$APP/store-$1.json" VEILKIT_NEXT_DS_STORE="$APP/ds-$1.json" VEILKIT_NEXT_FILES="$APP/files-$1" \
    node node_modules/next/dist/bin/next start -H 127.0.0.1 -p "$2" >"$ROOT/test-results/next-server-$1.log" 2>&1 &
  pids+=($!)
}
start turbopack "$TURBOPACK_PORT"
start webpack "$WEBPACK_PORT"
for port in "$TURBOPACK_PORT" "$WEBPACK_PORT"; do
  for _ in $(seq 1 60); do
    curl -sf -o /dev/null "http://127.0.0.1:$port/smoke" && break
    sleep 0.5
  done
  curl -sf -o /dev/null "http://127.0.0.1:$port/smoke" || { echo "30-next-example: server on $port did not start" >&2; exit 1; }
done

cd "$ROOT"
t=$(date +%s)
VEILKIT_NEXT_TURBOPACK_PORT=$TURBOPACK_PORT VEILKIT_NEXT_WEBPACK_PORT=$WEBPACK_PORT \
  npx --no-install playwright test -c tests/examples/next/playwright.config.ts
lap 'playwright (both builds)' "$t"
stop
pids=()
# Nothing of veilkit runs on the server: a server that logged an error (e.g. wasm or a worker
# evaluated while rendering) fails the part, even if the pages still worked.
for build in turbopack webpack; do
  if grep -n -E 'Error|⨯' "$ROOT/test-results/next-server-$build.log"; then
    echo "30-next-example: the $build server logged errors (above)" >&2
    exit 1
  fi
done

# The bundler matrix's Next cells (tests/bundlers, @next): /smoke of both builds with and without
# COOP/COEP; each cell starts and stops its own `next start`.
if [[ -f tests/bundlers/playwright.config.ts ]]; then
  t=$(date +%s)
  npx --no-install playwright test -c tests/bundlers/playwright.config.ts --grep @next
  lap 'bundler matrix @next cells' "$t"
fi
lap total "$t0"
