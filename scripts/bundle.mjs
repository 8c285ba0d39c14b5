#!/usr/bin/env node
// Builds the published package's runtime, dist/pkg/ (run by scripts/build.sh after tsc and the wasm
// glue; the repository's tests keep using tsc's unbundled dist/ts and dist/worker). One flat
// directory, so that every asset is a literal single-level `new URL('./file', import.meta.url)` from
// the module that uses it, which Vite, webpack 5 and Turbopack rewrite without configuration:
//
//   veilkit.js, primitives.js, hazmat.js, keystore-frame.js, server.js, react.js   the entry points (esbuild,
//        code splitting: the state they share, e.g. init()'s, lives once, in chunk-*.js beside them;
//        react.js starts with 'use client')
//   veilkit.worker.js        the worker (pool, keystore, files): ONE self-contained module, no imports
//                            a bundler could split (the threads glue is imported by URL, ignored by them)
//   veilkit-threads.js       the threads build's wasm-bindgen glue and wasm-bindgen-rayon helper in one
//                            module without imports: the helper restarts this very file from a blob:
//                            URL in each helper worker, so bundlers must copy it verbatim (it is only
//                            ever located with new URL, never imported statically)
//   veilkit_bg.wasm, veilkit-threads_bg.wasm   the SIMD and threads builds
//   veilkit_group_bg.wasm    the MLS group module (docs/GROUPS.md): fetched by the worker on its first group request
//
// ts/assets.ts (the unbundled layout's asset paths) is replaced by ts/assets.flat.ts here.
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist/pkg');
const simdGlue = join(root, 'ts/wasm/veilkit.js');
const groupGlue = join(root, 'ts/wasm-group/veilkit_group.js');
const threadsDir = join(root, 'ts/wasm-threads');
const threadsGlue = join(threadsDir, 'veilkit.js');

/** `text` with `from` replaced by `to`, exactly `count` times (a changed glue fails the build, not the app). */
function replaceExactly(text, from, to, count, where) {
  const n = text.split(from).length - 1;
  if (n !== count) throw new Error(`bundle: expected ${count} occurrence(s) of ${JSON.stringify(from)} in ${where}, found ${n}`);
  return text.split(from).join(to);
}

const GLUE_DEFAULT_WASM = "new URL('veilkit_bg.wasm', import.meta.url)";

/** Swaps ts/assets.ts for ts/assets.flat.ts and points the wasm-bindgen glue's default at the flat wasm file. */
const flatLayout = {
  name: 'veilkit-flat-layout',
  setup(b) {
    // ts/assets.js by any relative path (the facade's './assets.js', the worker's '../../ts/assets.js').
    b.onResolve({ filter: /(^|\/)assets\.js$/ }, (args) =>
      resolve(args.resolveDir, args.path) === join(root, 'ts/assets.js') ? { path: join(root, 'ts/assets.flat.ts') } : undefined);
    b.onLoad({ filter: /[\\/]ts[\\/]wasm[\\/]veilkit\.js$/ }, (args) => {
      if (resolve(args.path) !== simdGlue) return undefined;
      const text = readFileSync(args.path, 'utf8');
      return { contents: replaceExactly(text, GLUE_DEFAULT_WASM, "new URL('./veilkit_bg.wasm', import.meta.url)", 1, args.path), loader: 'js' };
    });
    // The group module's glue is part of the worker; its default wasm location becomes the flat file.
    b.onLoad({ filter: /[\\/]ts[\\/]wasm-group[\\/]veilkit_group\.js$/ }, (args) => {
      if (resolve(args.path) !== groupGlue) return undefined;
      const text = readFileSync(args.path, 'utf8');
      return {
        contents: replaceExactly(text, "new URL('veilkit_group_bg.wasm', import.meta.url)", "new URL('./veilkit_group_bg.wasm', import.meta.url)", 1, args.path),
        loader: 'js',
      };
    });
  },
};

/**
 * The threads glue as one module: the helper's `import(data.mainJS)` (the glue, by the URL wasm-bindgen
 * reports) becomes an import of the glue inside this same bundle, so the file has no import at all (a
 * helper worker runs the blob: copy of this file, glue included; a dev server's rewrites of imports
 * cannot break it); the glue's default wasm location becomes the flat threads wasm.
 */
const threadsOneModule = {
  name: 'veilkit-threads-one-module',
  setup(b) {
    b.onLoad({ filter: /workerHelpers\.no-bundler\.js$/ }, (args) => {
      let text = readFileSync(args.path, 'utf8');
      text = replaceExactly(text, 'await import(data.mainJS)', "await import('../../../veilkit.js')", 1, args.path);
      // wasm-bindgen's current init form (the positional one logs a deprecation warning per helper).
      text = replaceExactly(text, 'await pkg.default(data.module, data.memory)', 'await pkg.default({ module_or_path: data.module, memory: data.memory })', 1, args.path);
      return { contents: text, loader: 'js' };
    });
    b.onLoad({ filter: /[\\/]ts[\\/]wasm-threads[\\/]veilkit\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      // The VEILKIT_THREADS=0 stub has no default location.
      const n = text.includes(GLUE_DEFAULT_WASM) ? 1 : 0;
      return { contents: replaceExactly(text, GLUE_DEFAULT_WASM, "new URL('./veilkit-threads_bg.wasm', import.meta.url)", n, args.path), loader: 'js' };
    });
  },
};

const common = {
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  legalComments: 'inline',
  logLevel: 'warning',
  // Node's modules are only ever imported by a computed name (init.ts: Node's wasm loading).
  external: ['node:*', 'react', 'react-dom'],
};

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const entryPoints = {
  veilkit: 'ts/index.ts',
  primitives: 'ts/primitives.ts',
  hazmat: 'ts/hazmat.ts',
  'keystore-frame': 'ts/keystore-frame.ts',
  server: 'ts/server.ts',
  react: 'ts/react/index.ts',
};
await build({
  ...common,
  absWorkingDir: root,
  entryPoints,
  outdir: out,
  splitting: true,
  chunkNames: 'chunk-[hash]',
  plugins: [flatLayout],
});
const react = join(out, 'react.js');
writeFileSync(react, `'use client';\n${readFileSync(react, 'utf8')}`);

await build({
  ...common,
  absWorkingDir: root,
  entryPoints: { 'veilkit.worker': 'worker/veilkit.worker.ts' },
  outdir: out,
  plugins: [flatLayout],
});

await build({
  ...common,
  absWorkingDir: root,
  entryPoints: { 'veilkit-threads': threadsGlue },
  outdir: out,
  plugins: [threadsOneModule],
});

copyFileSync(join(root, 'ts/wasm/veilkit_bg.wasm'), join(out, 'veilkit_bg.wasm'));
copyFileSync(join(root, 'ts/wasm-group/veilkit_group_bg.wasm'), join(out, 'veilkit_group_bg.wasm'));
if (existsSync(join(threadsDir, 'veilkit_bg.wasm'))) copyFileSync(join(threadsDir, 'veilkit_bg.wasm'), join(out, 'veilkit-threads_bg.wasm'));

// What bundlers must not see in the self-contained modules: a static import or export-from, or a
// literal dynamic import (each would be a chunk of its own, or a file the blob: restart cannot find).
for (const file of ['veilkit.worker.js', 'veilkit-threads.js']) {
  const text = readFileSync(join(out, file), 'utf8');
  const bad = text.match(/^\s*(import\s*[\w{*'"]|export\s*(\*|\{[^}]*\})\s*from)|\bimport\s*\(\s*['"`]/m);
  if (bad) throw new Error(`bundle: ${file} is not self-contained: ${bad[0].trim()}`);
}
const files = readdirSync(out).sort();
console.log(`bundle: dist/pkg/ ${files.length} files: ${files.join(' ')}`);
