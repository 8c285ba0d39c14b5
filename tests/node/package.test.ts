// What `npm install veilkit` gets (issue 17): the file list of `npm pack --dry-run --json` holds the
// runtime (dist/ts, dist/worker: .js, .d.ts, wasm), the README and both licence files, and nothing
// test- or source-only; package.json's entry points (main, types, exports, typesVersions for
// TypeScript's `moduleResolution: "node"`) all point into it. Needs a built dist/ (npm run build).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

interface PackResult {
  readonly size: number;
  readonly unpackedSize: number;
  readonly entryCount: number;
  readonly files: readonly { readonly path: string; readonly size: number }[];
}

interface Manifest {
  readonly license: string;
  readonly main: string;
  readonly types: string;
  readonly exports: Record<string, { readonly types: string; readonly default: string }>;
  readonly typesVersions: Record<string, Record<string, readonly string[]>>;
}

const strip = (p: string): string => p.replace(/^\.\//, '');

test('npm pack: the runtime, the README and both licence files; nothing test- or source-only', (t) => {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const [pack] = JSON.parse(out) as PackResult[];
  assert.ok(pack, 'npm pack --dry-run --json printed one package');
  const files = new Set(pack.files.map((f) => f.path));
  t.diagnostic(`npm pack --dry-run: ${pack.entryCount} files, ${pack.size} bytes packed, ${pack.unpackedSize} bytes unpacked`);

  for (const f of ['package.json', 'README.md', 'LICENSE-MIT', 'LICENSE-APACHE', 'dist/ts/wasm/veilkit_bg.wasm', 'dist/ts/wasm/veilkit.js', 'dist/worker/veilkit.worker.js']) {
    assert.ok(files.has(f), `${f} is in the package`);
  }
  const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as Manifest;
  assert.equal(manifest.license, 'MIT OR Apache-2.0');
  const entryPoints = [
    manifest.main, manifest.types,
    ...Object.values(manifest.exports).flatMap((e) => [e.types, e.default]),
    ...Object.values(manifest.typesVersions).flatMap((m) => Object.values(m).flat()),
  ];
  for (const e of entryPoints) assert.ok(files.has(strip(e)), `entry point ${e} is in the package`);
  assert.equal(strip(manifest.main), strip(manifest.exports['.']!.default), 'main is the "." export');
  assert.equal(strip(manifest.types), strip(manifest.exports['.']!.types), 'types is the "." export\'s types');

  const sourceOnly = /^(ts|worker|crate|tests|docs|examples|bench|scripts|fuzz|vectors|target|dist\/tests|dist\/examples|dist\/bench)\//;
  const bad = [...files].filter((f) => sourceOnly.test(f) || (/\.ts$/.test(f) && !/\.d\.ts$/.test(f)) || /\.(map|tsbuildinfo)$/.test(f));
  assert.deepEqual(bad, [], 'no test- or source-only files');
  const outside = [...files].filter((f) => !/^dist\/(ts|worker)\//.test(f) && !['package.json', 'README.md', 'LICENSE-MIT', 'LICENSE-APACHE'].includes(f));
  assert.deepEqual(outside, [], 'nothing besides dist/ts, dist/worker, the README, the licences and package.json');

  const mit = readFileSync(`${root}LICENSE-MIT`, 'utf8');
  const apache = readFileSync(`${root}LICENSE-APACHE`, 'utf8');
  assert.match(mit, /Permission is hereby granted, free of charge/);
  assert.match(apache, /Apache License\s+Version 2\.0, January 2004/);
  assert.match(apache, /END OF TERMS AND CONDITIONS/);
});
