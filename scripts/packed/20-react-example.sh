#!/usr/bin/env bash
# Packed-package part: the React example (examples/react) installed from .pack/veilkit.tgz (made
# by scripts/pack.sh, run first by scripts/test-packed.sh), built once (`tsc --noEmit && vite
# build`), then driven by tests/examples/react/*.spec.ts in Chromium (one worker). Playwright's
# webServer serves the build with `vite preview` on VEILKIT_REACT_PORT (default 8950) and stops it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
start=$(date +%s)
step() { printf '20-react-example: %s (%ds)\n' "$1" $(( $(date +%s) - start )); }

bash scripts/install-packed.sh examples/react
step "installed"
(cd examples/react && npm run --silent build)
step "built"
status=0
npx --no-install playwright test -c tests/examples/react/playwright.config.ts || status=$?
step "playwright exit $status"
printf '20-react-example: duration %ds\n' $(( $(date +%s) - start ))
exit "$status"
