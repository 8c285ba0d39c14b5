#!/usr/bin/env bash
# Packs the built package (run scripts/build.sh first; this builds nothing) into .pack/veilkit.tgz,
# the one tarball every consumer in the repository installs (examples/, tests/bundlers/), and prints
# what it holds: the `npm pack --dry-run` file list, the file count, the packed and unpacked sizes.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
[[ -f dist/pkg/veilkit.js && -f dist/pkg/veilkit.worker.js ]] || { echo "pack: dist/pkg/ is missing: run scripts/build.sh first" >&2; exit 1; }
mkdir -p .pack
rm -f .pack/veilkit*.tgz
# --ignore-scripts: the package has no lifecycle scripts to run, and packing must not build.
npm pack --dry-run --json --ignore-scripts >.pack/dry-run.json
node --input-type=module - .pack/dry-run.json <<'NODE'
import { readFileSync } from 'node:fs';
const [p] = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const dts = p.files.filter((f) => f.path.endsWith('.d.ts'));
for (const f of p.files.filter((f) => !f.path.endsWith('.d.ts')).sort((a, b) => a.path.localeCompare(b.path))) {
  console.log(`pack:   ${kib(f.size).padStart(11)}  ${f.path}`);
}
console.log(`pack:   ${kib(dts.reduce((n, f) => n + f.size, 0)).padStart(11)}  ${dts.length} declaration files (dist/ts, dist/worker, dist/protocol: **/*.d.ts)`);
console.log(`pack: ${p.entryCount} files, ${p.size} bytes packed (${kib(p.size)}), ${p.unpackedSize} bytes unpacked (${kib(p.unpackedSize)})`);
NODE
name="$(npm pack --silent --ignore-scripts --pack-destination .pack)"
mv ".pack/$name" .pack/veilkit.tgz
printf 'pack: .pack/veilkit.tgz, %d bytes\n' "$(wc -c <.pack/veilkit.tgz)"
