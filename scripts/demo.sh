#!/usr/bin/env bash
# npm run demo — the React example (examples/react) on the package exactly as npm users get it:
# set-up, build the package, pack it (.pack/veilkit.tgz), install the tarball into the example,
# `vite build` it (type-checked), then serve the built app on 127.0.0.1 with COOP/COEP (so the
# threads build is used; VEILKIT_COI=0 serves it without them: the SIMD build). PORT picks the
# port (default 4173). Ctrl-C stops the server.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PORT="${PORT:-4173}"

bash scripts/setup.sh
bash scripts/build.sh
bash scripts/pack.sh
bash scripts/install-packed.sh examples/react
(cd examples/react && npm run --silent build)

printf '\ndemo: serving examples/react on http://127.0.0.1:%s/ (Ctrl-C stops it)\n\n' "$PORT"
cd examples/react
exec node node_modules/vite/bin/vite.js preview --host 127.0.0.1 --port "$PORT" --strictPort
