/**
 * Where veilkit's assets are, relative to the module that loads them — the repository's unbundled
 * layout (tsc's dist/ts, dist/worker: what tests/server.mjs serves). The published package is flat
 * (dist/pkg, built by scripts/bundle.mjs), which swaps this module for ts/assets.flat.ts: the same
 * exports, with single-level `new URL('./file', import.meta.url)` literals that bundlers follow.
 * Each URL is built inside a function: importing veilkit evaluates none of them (SSR-safe).
 */

/** The SIMD build's wasm. */
export function simdWasmUrl(): URL {
  return new URL('./wasm/veilkit_bg.wasm', import.meta.url);
}

/** The threads build's wasm. */
export function threadsWasmUrl(): URL {
  return new URL('./wasm-threads/veilkit_bg.wasm', import.meta.url);
}

/** The group module's wasm (MLS, docs/GROUPS.md): fetched by the keystore worker on its first group request. */
export function groupWasmUrl(): URL {
  return new URL('./wasm-group/veilkit_group_bg.wasm', import.meta.url);
}

/** Imports the threads build's glue (wasm-bindgen output plus the wasm-bindgen-rayon helper). */
export function importThreadsGlue(): Promise<unknown> {
  return import('./wasm-threads/veilkit.js');
}

/** Starts veilkit's own worker module (a literal `new URL` inside `new Worker(…)`: bundlers find it there). */
export function startDefaultWorker(): Worker {
  return new Worker(new URL('../worker/veilkit.worker.js', import.meta.url), { type: 'module', name: 'veilkit' });
}

/**
 * The URL of the default worker for error messages, when it is knowable: unbundled, the module next to
 * this one's `../worker/`. Under a bundler this module is inside a chunk and the worker's URL is the one
 * the bundler emitted, which only it knows: undefined. (A variable, not a literal: a literal
 * `new URL('…', import.meta.url)` would be one more asset for bundlers.)
 */
export function defaultWorkerHref(): string | undefined {
  const path = '../worker/veilkit.worker.js';
  return /\/ts\/assets\.js$/.test(import.meta.url) ? new URL(path, import.meta.url).href : undefined;
}
