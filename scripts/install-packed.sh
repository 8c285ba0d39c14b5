#!/usr/bin/env bash
# install-packed.sh APP_DIR — installs APP_DIR's dependencies exactly as its committed lockfile says,
# then the fresh .pack/veilkit.tgz as a real directory node_modules/veilkit (no symlink: Next cannot
# resolve symlinked packages).
#
# Why not `npm ci`: the app depends on "veilkit": "file:…/.pack/veilkit.tgz" and its lockfile records
# that tarball's integrity, which changes with every build: `npm ci` then fails (EINTEGRITY) or — npm 11,
# seen here — silently installs the OLD tarball from npm's cache (keyed by that integrity), and
# `npm install` would rewrite the committed lockfile. Instead: `npm ci` runs on a copy of package.json
# and package-lock.json without veilkit (veilkit has no dependencies of its own, so nothing else
# changes), the originals are put back untouched, and the tarball is extracted into node_modules/veilkit.
# The install is skipped when node_modules already matches the same package.json and lockfile (a stamp
# in node_modules/.install-packed); the tarball is always re-extracted. Without a lockfile: npm install.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[[ $# -eq 1 && -d $1 ]] || { echo "usage: install-packed.sh APP_DIR" >&2; exit 2; }
APP="$(cd "$1" && pwd)"
TGZ="$ROOT/.pack/veilkit.tgz"
[[ -f $TGZ ]] || { echo "install-packed: $TGZ is missing: run scripts/pack.sh first" >&2; exit 1; }
cd "$APP"
say() { printf 'install-packed: %s: %s\n' "$APP" "$*"; }

if [[ -f package-lock.json ]]; then
  stamp="$(cat package.json package-lock.json | sha256sum | cut -d' ' -f1)"
  if [[ -f node_modules/.install-packed && "$(cat node_modules/.install-packed)" == "$stamp" ]]; then
    say "node_modules matches package.json and package-lock.json: npm ci skipped"
  else
    backup="$(mktemp -d)"
    cp package.json package-lock.json "$backup/"
    restore() { cp "$backup/package.json" "$backup/package-lock.json" "$APP/" && rm -rf "$backup"; }
    trap restore EXIT
    node --input-type=module - <<'NODE'
import { readFileSync, writeFileSync } from 'node:fs';
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
for (const k of ['dependencies', 'devDependencies', 'optionalDependencies']) delete pkg[k]?.veilkit;
writeFileSync('package.json', `${JSON.stringify(pkg, null, 2)}\n`);
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
const rootEntry = lock.packages?.[''] ?? {};
for (const k of ['dependencies', 'devDependencies', 'optionalDependencies']) delete rootEntry[k]?.veilkit;
delete lock.packages?.['node_modules/veilkit'];
delete lock.dependencies?.veilkit; // lockfile v1/v2 section
writeFileSync('package-lock.json', `${JSON.stringify(lock, null, 2)}\n`);
NODE
    say "npm ci (lockfile without veilkit)"
    npm ci --no-audit --no-fund --ignore-scripts
    restore
    trap - EXIT
    mkdir -p node_modules # an app whose only dependency is veilkit gets none from npm ci
    printf '%s\n' "$stamp" >node_modules/.install-packed
  fi
else
  say "no package-lock.json: npm install"
  npm install --no-audit --no-fund --ignore-scripts --no-save
fi

rm -rf node_modules/veilkit
mkdir -p node_modules/veilkit
tar -xzf "$TGZ" -C node_modules/veilkit --strip-components=1
say "node_modules/veilkit from $TGZ ($(node -p "require('./node_modules/veilkit/package.json').version"))"
