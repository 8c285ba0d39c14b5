// What `npm install veilkit` gets (issue 17). Packs the built package (as scripts/pack.sh does, into a
// temporary directory: the tarball tested is the current dist/, never a stale .pack/veilkit.tgz) and
// checks:
// - the file list: the flat runtime dist/pkg/ (entry modules, their chunks, the worker, the threads
//   glue, both wasm builds), declarations (.d.ts), package.json, the README and both licence files —
//   nothing test- or source-only, no source maps;
// - package.json's entry points (main, types, exports, typesVersions) all point into it; react is an
//   optional peer dependency; sideEffects names exactly the worker modules;
// - the worker and the threads glue are self-contained modules (no static import or export-from, no
//   literal dynamic import: a bundler would split them), and every asset is located with a literal
//   single-level `new URL('./file', import.meta.url)` that names a file of the package;
// - importing `veilkit` and `veilkit/react` from the extracted tarball in a Node process without window,
//   Worker or indexedDB touches no browser API and instantiates no wasm (server rendering).
// Needs a built dist/ (npm run build).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

interface PackResult {
  readonly filename: string;
  readonly size: number;
  readonly unpackedSize: number;
  readonly entryCount: number;
  readonly files: readonly { readonly path: string; readonly size: number }[];
}

type Entry = { readonly types: string; readonly default: string };
interface Manifest {
  readonly license: string;
  readonly main: string;
  readonly types: string;
  readonly exports: Record<string, Entry | string>;
  readonly typesVersions: Record<string, Record<string, readonly string[]>>;
  readonly sideEffects: readonly string[] | boolean;
  readonly peerDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, { readonly optional?: boolean }>;
  readonly dependencies?: Record<string, string>;
}

const strip = (p: string): string => p.replace(/^\.\//, '');
const SELF_CONTAINED = ['dist/pkg/veilkit.worker.js', 'dist/pkg/veilkit-threads.js'];

let dir: string;
let pack: PackResult;
let files: Set<string>;
let pkgDir: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'veilkit-package-'));
  const out = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const [p] = JSON.parse(out) as PackResult[];
  assert.ok(p, 'npm pack --json printed one package');
  pack = p;
  files = new Set(pack.files.map((f) => f.path));
  // What an app gets: node_modules/veilkit, a real directory.
  pkgDir = join(dir, 'app', 'node_modules', 'veilkit');
  mkdirSync(pkgDir, { recursive: true });
  execFileSync('tar', ['-xzf', join(dir, pack.filename), '-C', pkgDir, '--strip-components=1']);
  // veilkit/react imports react (an optional peer dependency): the repository's own copy, if any.
  for (const name of ['react', 'react-dom']) {
    const target = join(root, 'node_modules', name);
    if (existsSync(target)) symlinkSync(target, join(dir, 'app', 'node_modules', name), 'dir');
  }
});

after(() => {
  rmSync(dir, { recursive: true, force: true });
});

test('npm pack: the flat runtime, declarations, the README and both licence files; nothing test- or source-only', (t) => {
  t.diagnostic(`npm pack: ${pack.entryCount} files, ${pack.size} bytes packed, ${pack.unpackedSize} bytes unpacked`);
  for (const f of ['package.json', 'README.md', 'LICENSE-MIT', 'LICENSE-APACHE', 'dist/pkg/veilkit.js', 'dist/pkg/react.js',
    'dist/pkg/veilkit.worker.js', 'dist/pkg/veilkit-threads.js', 'dist/pkg/veilkit_bg.wasm', 'dist/ts/index.d.ts']) {
    assert.ok(files.has(f), `${f} is in the package`);
  }
  const allowed = (f: string): boolean =>
    ['package.json', 'README.md', 'LICENSE-MIT', 'LICENSE-APACHE'].includes(f)
    || /^dist\/pkg\/[^/]+\.(js|wasm)$/.test(f)
    || /^dist\/(ts|worker|protocol)\/.+\.d\.ts$/.test(f)
    || /^docs\/[A-Z_]+\.md$/.test(f) || /^docs\/images\/[\w-]+\.png$/.test(f);
  assert.deepEqual([...files].filter((f) => !allowed(f)), [], 'only runtime (dist/pkg), .d.ts, README, docs, licences and package.json');
  assert.deepEqual([...files].filter((f) => /\.map$|tsbuildinfo|(^|\/)tests?\//.test(f)), [], 'no source maps, no tests');

  const mit = readFileSync(`${root}LICENSE-MIT`, 'utf8');
  const apache = readFileSync(`${root}LICENSE-APACHE`, 'utf8');
  assert.match(mit, /Permission is hereby granted, free of charge/);
  assert.match(apache, /Apache License\s+Version 2\.0, January 2004/);
  assert.match(apache, /END OF TERMS AND CONDITIONS/);
});

/** Relative link targets of a Markdown text (code spans and fenced blocks are not links), without `#fragment`. */
function relativeLinks(markdown: string): string[] {
  const text = markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  const out: string[] = [];
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1]!;
    if (/^[a-z]+:/i.test(target) || target.startsWith('#')) continue;
    out.push(target.replace(/#.*$/, ''));
  }
  return out;
}

test('every relative link of the README and of the shipped docs resolves to a file of the packed tarball (issue 28)', () => {
  const docs = ['README.md', ...[...files].filter((f) => /^docs\/.+\.md$/.test(f))];
  assert.ok(docs.includes('docs/REACT.md'), 'docs/REACT.md ships');
  let links = 0;
  for (const doc of docs) {
    const base = doc.includes('/') ? doc.slice(0, doc.lastIndexOf('/') + 1) : '';
    for (const target of relativeLinks(readFileSync(join(pkgDir, doc), 'utf8'))) {
      if (target === '') continue;
      const path = new URL(target, `file:///${base}`).pathname.slice(1);
      assert.ok(files.has(path), `${doc} links ${target}: ${path} is not in the package`);
      links++;
    }
  }
  assert.ok(links >= 5, `found ${String(links)} links`);
});

test('package.json: every entry point is in the package; react an optional peer; sideEffects the worker modules', () => {
  const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as Manifest;
  assert.equal(manifest.license, 'MIT OR Apache-2.0');
  assert.deepEqual(Object.keys(manifest.exports).sort(), ['.', './hazmat', './keystore-frame', './package.json', './primitives', './react', './server', './worker']);
  const entries = Object.values(manifest.exports).filter((e): e is Entry => typeof e === 'object');
  const entryPoints = [
    manifest.main, manifest.types,
    ...entries.flatMap((e) => [e.types, e.default]),
    ...Object.values(manifest.typesVersions).flatMap((m) => Object.values(m).flat()),
  ];
  for (const e of entryPoints) assert.ok(files.has(strip(e)), `entry point ${e} is in the package`);
  for (const e of entries) assert.match(e.default, /^\.\/dist\/pkg\/[^/]+\.js$/, 'runtime entries are in the flat dist/pkg/');
  const dot = manifest.exports['.'] as Entry;
  assert.equal(strip(manifest.main), strip(dot.default), 'main is the "." export');
  assert.equal(strip(manifest.types), strip(dot.types), 'types is the "." export\'s types');
  assert.equal(manifest.dependencies, undefined, 'no runtime dependencies');
  assert.equal(manifest.peerDependencies?.react, '>=18');
  assert.equal(manifest.peerDependenciesMeta?.react?.optional, true);
  assert.deepEqual(manifest.sideEffects, SELF_CONTAINED.map((f) => `./${f}`));
  assert.match(readFileSync(join(pkgDir, 'dist/pkg/react.js'), 'utf8'), /^'use client';\n/, "veilkit/react starts with 'use client'");
});

test('the worker and the threads glue are self-contained; assets are single-level new URL literals of packed files', () => {
  for (const f of SELF_CONTAINED) {
    const text = readFileSync(join(pkgDir, f), 'utf8');
    assert.doesNotMatch(text, /^\s*import\s*[\w{*'"]/m, `${f}: no import statement`);
    assert.doesNotMatch(text, /^\s*export\s*(\*|\{[^}]*\})\s*from\b/m, `${f}: no export-from`);
    assert.doesNotMatch(text, /\bimport\s*\(\s*['"`]/, `${f}: no literal dynamic import`);
  }
  const runtime = [...files].filter((f) => /^dist\/pkg\/.+\.js$/.test(f));
  const located = new Set<string>();
  for (const f of runtime) {
    const text = readFileSync(join(pkgDir, f), 'utf8');
    for (const m of text.matchAll(/new URL\(\s*(['"`])([^'"`]*)\1\s*,\s*import\.meta\.url\s*\)/g)) {
      const spec = m[2]!;
      assert.match(spec, /^\.\/[^/]+$/, `${f}: new URL(${spec}) is single-level './file'`);
      assert.ok(files.has(`dist/pkg/${spec.slice(2)}`), `${f}: ${spec} is a file of the package`);
      located.add(spec);
    }
  }
  for (const spec of ['./veilkit_bg.wasm', './veilkit.worker.js', './veilkit-threads.js']) assert.ok(located.has(spec), `${spec} is located with new URL`);
  const entry = readFileSync(join(pkgDir, 'dist/pkg/veilkit.worker.js'), 'utf8');
  assert.match(entry, /import\(\s*\/\* @vite-ignore \*\/\s*\/\* webpackIgnore: true \*\//, 'the threads glue is imported with the bundlers\' ignore comments');
});

test('importing veilkit and veilkit/react in Node touches no browser API and loads no wasm (server rendering)', () => {
  // A child process: globals trapped before the first import; an access counts when veilkit's own files
  // are on the stack (react's, if any, do not).
  const probe = `
    const touched = [];
    const ours = () => /node_modules[\\\\/]veilkit[\\\\/]/.test(new Error().stack ?? '');
    for (const name of ['window', 'document', 'self', 'Worker', 'SharedWorker', 'indexedDB', 'localStorage', 'location', 'navigator', 'BroadcastChannel', 'fetch']) {
      const had = Object.getOwnPropertyDescriptor(globalThis, name);
      if (had && !had.configurable) continue;
      Object.defineProperty(globalThis, name, { configurable: true, get() { if (ours()) touched.push(name); return had?.get ? had.get.call(globalThis) : had?.value; } });
    }
    for (const name of ['instantiate', 'instantiateStreaming', 'compile', 'compileStreaming', 'validate']) {
      const fn = WebAssembly[name];
      WebAssembly[name] = function (...args) { touched.push('WebAssembly.' + name); return fn.apply(this, args); };
    }
    for (const name of ['Module', 'Instance', 'Memory']) {
      const C = WebAssembly[name];
      WebAssembly[name] = new Proxy(C, { construct(T, args) { touched.push('new WebAssembly.' + name); return new T(...args); } });
    }
    const core = await import('veilkit');
    const react = await import('veilkit/react');
    const sub = await Promise.all(['veilkit/primitives', 'veilkit/hazmat'].map((s) => import(s)));
    console.log(JSON.stringify({ touched, initialized: core.isInitialized(), core: Object.keys(core).length, react: Object.keys(react).length, sub: sub.map((m) => Object.keys(m).length) }));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', probe], { cwd: join(dir, 'app'), encoding: 'utf8' });
  const r = JSON.parse(out.trim().split('\n').pop()!) as { touched: string[]; initialized: boolean; core: number; sub: number[] };
  assert.deepEqual(r.touched, [], 'no browser global, no WebAssembly call while importing');
  assert.equal(r.initialized, false, 'init() has not run');
  assert.ok(r.core > 50 && r.sub.every((n) => n > 0), 'the entries export their API');
});

test('the packed package works in Node: init() loads the wasm next to the module', () => {
  const probe = `
    const v = await import('veilkit');
    await v.init();
    const p = await import('veilkit/primitives');
    const digest = p.sha256(new TextEncoder().encode('abc'));
    console.log(JSON.stringify({ build: v.capabilities().wasmBuild, digest: Buffer.from(digest).toString('hex') }));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', probe], { cwd: join(dir, 'app'), encoding: 'utf8' });
  const r = JSON.parse(out.trim().split('\n').pop()!) as { build: string; digest: string };
  assert.equal(r.build, 'simd');
  assert.equal(r.digest, 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad', 'veilkit/primitives shares init() with veilkit (one instance)');
});
