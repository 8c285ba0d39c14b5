/**
 * Asset locations in the published package (dist/pkg: flat, every runtime file side by side).
 * scripts/bundle.mjs uses this module in place of ts/assets.ts (same exports). Every location is a
 * literal, single-level `new URL('./file', import.meta.url)` in the module that uses it, which Vite,
 * webpack 5, Turbopack, Parcel and esbuild-based tools rewrite to the emitted asset; without a bundler
 * (an import map, a CDN) it resolves next to the module itself.
 *
 * The threads build's glue, veilkit-threads.js, is one self-contained module (no imports) that
 * bundlers copy as an asset, never bundle: its wasm-bindgen-rayon helper restarts that very file from
 * a `blob:` URL in each helper worker, which only works on the verbatim file. So it is imported by
 * URL with the bundlers' ignore comments, and the worker holds no import a bundler would code-split.
 */

export function simdWasmUrl(): URL {
  return new URL('./veilkit_bg.wasm', import.meta.url);
}

export function threadsWasmUrl(): URL {
  return new URL('./veilkit-threads_bg.wasm', import.meta.url);
}

export function groupWasmUrl(): URL {
  return new URL('./veilkit_group_bg.wasm', import.meta.url);
}

export function importThreadsGlue(): Promise<unknown> {
  const url = new URL('./veilkit-threads.js', import.meta.url);
  return import(/* @vite-ignore */ /* webpackIgnore: true */ /* turbopackIgnore: true */ url.href);
}

export function startDefaultWorker(): Worker {
  return new Worker(new URL('./veilkit.worker.js', import.meta.url), { type: 'module', name: 'veilkit' });
}

export function defaultWorkerHref(): string | undefined {
  // Unbundled (import map, CDN), this chunk sits next to veilkit.worker.js in the package's dist/pkg/.
  const file = './veilkit.worker.js';
  return /\/dist\/pkg\/[^/]+\.js$/.test(import.meta.url) ? new URL(file, import.meta.url).href : undefined;
}
