#!/usr/bin/env bash
# install-packed.sh APP_DIR — installs APP_DIR's dependencies from its lockfile, then the fresh
# .pack/veilkit.tgz as a real directory node_modules/veilkit (no symlink).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
APP="$(cd "$1" && pwd)"
[[ -f $ROOT/.pack/veilkit.tgz ]] || { echo "install-packed: run scripts/pack.sh first" >&2; exit 1; }
cd "$APP"
npm install --no-audit --no-fund --ignore-scripts
rm -rf node_modules/veilkit
mkdir -p node_modules/veilkit
tar -xzf "$ROOT/.pack/veilkit.tgz" -C node_modules/veilkit --strip-components=1
