#!/usr/bin/env bash
# Packs the built package (run scripts/build.sh first; this builds nothing) into .pack/veilkit.tgz,
# the one tarball every consumer in the repository installs (examples/, tests/bundlers/).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
mkdir -p .pack
rm -f .pack/veilkit*.tgz
name="$(npm pack --silent --pack-destination .pack)"
mv ".pack/$name" .pack/veilkit.tgz
printf 'pack: .pack/veilkit.tgz, %d bytes\n' "$(wc -c <.pack/veilkit.tgz)"
