/**
 * Loading the WebAssembly core. `init()` is memoised and works in a page, a
 * (module) Worker and Node.js.
 */
import initWasm, { initSync, __veilkitSelect } from './wasm/veilkit.js';
import { VeilError, poisonedError, toVeilError } from '../protocol/errors.js';
import { chooseRoutes, setCapabilities, type RoutePreference, type WasmBuild } from './webcrypto/routes.js';
import { detectWebCrypto } from './webcrypto/probe.js';
import { importThreadsGlue, simdWasmUrl, threadsWasmUrl } from './assets.js';
import { VITE_DEPS_HINT, inViteDeps } from './vite-deps.js';
import { DEFAULT_THREADS_START_TIMEOUT_MS, blockingThreadsStart, initStep, startSupervised } from './init-steps.js';

/** Where the `.wasm` comes from. By default it is resolved next to this module. */
export type WasmSource = URL | string | Response | BufferSource | WebAssembly.Module;

/** Options of `init()`: where the wasm is (`wasm`, `threadsWasm`), the build (`threads`) and the WebCrypto route preference. */
export interface InitOptions {
  /** Override the location or bytes of `veilkit_bg.wasm` (e.g. a bundler asset URL). */
  wasm?: WasmSource;
  /** Override the location of the threads build's `wasm-threads/veilkit_bg.wasm`. */
  threadsWasm?: WasmSource;
  /**
   * The threads build (wasm-bindgen-rayon): `undefined` (default) loads it when
   * the context is cross-origin isolated, SharedArrayBuffer works and this is a
   * worker (a window's main thread may not block, so it keeps the SIMD build) —
   * in Firefox only in a `WorkerPool`'s workers, because there a threads start can
   * block its worker for good and only the pool can replace it;
   * `false` forces the single-threaded SIMD build; `true` wants threads wherever
   * they work (also on a main thread); a number also sets the pool size
   * (default `navigator.hardwareConcurrency`).
   */
  threads?: boolean | number;
  /**
   * How long loading the threads build and starting its helper workers may take (ms, default
   * 8 s). Past it — or when a helper worker fails to load, e.g. under a bundler that rewrites
   * worker scripts — the automatic choice (`threads` undefined) falls back to the SIMD build;
   * an explicit `threads` rejects with `VeilError('UNSUPPORTED_PLATFORM')` instead of hanging.
   */
  threadsStartTimeoutMs?: number;
  /**
   * Where the routable asynchronous operations run (see `capabilities()`):
   * `'auto'` (default) native WebCrypto where it is supported and passes its
   * self-test, `'native'` WebCrypto wherever supported, `'wasm'` never WebCrypto.
   */
  route?: RoutePreference;
}

// A minimal module using a v128 instruction (i8x16.splat); validates only with SIMD128.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

let ready: Promise<void> | undefined;
let initialized = false;

/** Whether the platform can run veilkit's wasm (WebAssembly with SIMD128). */
export function platformSupport(): { webAssembly: boolean; simd: boolean } {
  const webAssembly = typeof WebAssembly === 'object' && typeof WebAssembly.validate === 'function';
  return { webAssembly, simd: webAssembly && WebAssembly.validate(SIMD_PROBE) };
}

function isNode(): boolean {
  const p = (globalThis as { process?: { versions?: { node?: string } } }).process;
  return typeof p?.versions?.node === 'string' && typeof (globalThis as { window?: unknown }).window === 'undefined';
}

async function loadInNode(): Promise<void> {
  // Hidden from bundlers: only Node ever takes this path.
  const fsName = 'node:fs/promises';
  const urlName = 'node:url';
  const fs = (await import(/* @vite-ignore */ /* webpackIgnore: true */ fsName)) as {
    readFile(path: string): Promise<Uint8Array>;
  };
  const url = (await import(/* @vite-ignore */ /* webpackIgnore: true */ urlName)) as {
    fileURLToPath(u: URL): string;
  };
  const bytes = await fs.readFile(url.fileURLToPath(simdWasmUrl()));
  initSync({ module: bytes });
}

/** The batch exports only the threads build has (crate/src/wasm/threads.rs). */
export interface BatchGlue {
  mlKemEncapsulateBatch(eks: Uint8Array): Uint8Array;
  mlKemDecapsulateBatch(dks: Uint8Array, cts: Uint8Array): Uint8Array;
  xWingEncapsulateBatch(pks: Uint8Array): Uint8Array;
  xWingDecapsulateBatch(sks: Uint8Array, cts: Uint8Array): Uint8Array;
}

interface ThreadsGlue extends BatchGlue {
  default(input: { module_or_path: WasmSource }): Promise<unknown>;
  initThreadPool(n: number): Promise<unknown>;
  threadCount(): number;
}

let batchGlue: BatchGlue | undefined;

/** The threads build's batch exports when that build is loaded (internal: ts/batch.ts). */
export function threadsBatchGlue(): BatchGlue | undefined {
  return batchGlue;
}

/** Whether this context can run the threads build (`explicit`: the caller asked for threads). */
function threadsUsable(explicit: boolean): boolean {
  const g = globalThis as { crossOriginIsolated?: boolean; document?: unknown; navigator?: { userAgent?: string } };
  if (g.crossOriginIsolated !== true || typeof SharedArrayBuffer !== 'function' || isNode()) return false;
  if (!explicit && g.document !== undefined) return false; // a window's main thread: Atomics.wait is not allowed
  // Automatic choice where a start can block for good: only in a pool's worker (the pool replaces it).
  if (!explicit && blockingThreadsStart(g.navigator?.userAgent) && !startSupervised()) return false;
  try {
    return new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }).buffer instanceof SharedArrayBuffer;
  } catch {
    return false;
  }
}

function defaultThreadCount(): number {
  const n = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency;
  return typeof n === 'number' && n > 0 ? Math.min(n, 16) : 2;
}

/** `work`, or a rejection once `ms` have passed (the work itself cannot be cancelled: it is left behind). */
function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Loads the threads build and starts its pool; returns the pool size, or undefined when it could not. */
async function loadThreads(options: InitOptions): Promise<number | undefined> {
  const count = typeof options.threads === 'number' ? options.threads : defaultThreadCount();
  if (!Number.isInteger(count) || count < 1 || count > 64) {
    throw new RangeError(`threads must be a boolean or an integer between 1 and 64, got ${String(options.threads)}`);
  }
  const ms = options.threadsStartTimeoutMs ?? DEFAULT_THREADS_START_TIMEOUT_MS;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) {
    throw new RangeError(`threadsStartTimeoutMs must be a finite number > 0, got ${String(ms)}`);
  }
  try {
    // A helper worker that never loads (a bundler's worker format, a dev server's rewrites) leaves
    // initThreadPool pending forever: bounded, so the automatic choice falls back to SIMD.
    const glue = await within((async () => {
      const g = (await importThreadsGlue()) as ThreadsGlue;
      await g.default({ module_or_path: options.threadsWasm ?? threadsWasmUrl() });
      initStep("starting the threads build's helper workers");
      await g.initThreadPool(count);
      return g;
    })(), ms, 'loading the threads build and starting its helper workers');
    __veilkitSelect(glue);
    batchGlue = glue;
    return glue.threadCount();
  } catch (e) {
    if (options.threads === undefined) return undefined; // automatic choice: fall back to SIMD
    throw new VeilError('UNSUPPORTED_PLATFORM', `the threads build could not be started: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}

/**
 * Loads and instantiates the WebAssembly core: the threads build where it
 * works (see {@link InitOptions.threads}), else the SIMD build. Also probes
 * WebCrypto and fixes the routes reported by `capabilities()`. Memoised:
 * every call returns the same promise (the options of the first call win).
 * Rejects with `VeilError('UNSUPPORTED_PLATFORM')` when WebAssembly or
 * SIMD128 is unavailable.
 */
export function init(options: InitOptions = {}): Promise<void> {
  ready ??= (async () => {
    const route = options.route ?? 'auto';
    if (route !== 'auto' && route !== 'wasm' && route !== 'native') {
      throw new TypeError(`route must be 'auto', 'wasm' or 'native', got ${String(route)}`);
    }
    const webCrypto = detectWebCrypto();
    const support = platformSupport();
    if (!support.webAssembly) {
      throw new VeilError('UNSUPPORTED_PLATFORM', 'WebAssembly is not available in this environment');
    }
    if (!support.simd) {
      throw new VeilError('UNSUPPORTED_PLATFORM', 'WebAssembly SIMD128 is not supported by this engine');
    }
    /** Where the SIMD module was loaded from, for the error message. */
    let from: string | undefined;
    try {
      let build: WasmBuild = 'simd';
      let threads: number | undefined;
      if (options.threads !== false && threadsUsable(options.threads !== undefined)) {
        initStep('loading the threads build');
        threads = await loadThreads(options);
      }
      if (threads === undefined) initStep('loading the SIMD build');
      if (threads !== undefined) {
        build = 'threads';
      } else if (options.wasm !== undefined) {
        if (typeof options.wasm === 'string' || options.wasm instanceof URL) from = String(options.wasm);
        await initWasm({ module_or_path: options.wasm });
      } else if (isNode()) {
        await loadInNode();
      } else {
        const url = simdWasmUrl();
        from = url.href;
        await initWasm({ module_or_path: url });
      }
      initStep('probing WebCrypto');
      const wc = await webCrypto;
      const g = globalThis as { crossOriginIsolated?: boolean };
      setCapabilities({
        wasmBuild: build,
        threads: threads ?? 1,
        crossOriginIsolated: g.crossOriginIsolated === true,
        sharedArrayBuffer: typeof SharedArrayBuffer === 'function',
        routePreference: route,
        routes: chooseRoutes(route, wc),
        webCrypto: wc,
      });
      initialized = true;
    } catch (e) {
      ready = undefined; // allow a retry (e.g. after a network error)
      if (e instanceof VeilError) throw e;
      const html = (await servedHtml(from, e)) ? ' (the server answered with an HTML page, not the .wasm: serve veilkit_bg.wasm as a file, or pass init({ wasm }))' : '';
      const vite = from !== undefined && inViteDeps(from) ? ` — ${VITE_DEPS_HINT}` : '';
      throw new VeilError('UNSUPPORTED_PLATFORM', `could not load the wasm core${from === undefined ? '' : ` from ${from}`}: ${String(e)}${html}${vite}`, { cause: e });
    }
  })();
  return ready;
}

/**
 * Whether a failed wasm load got an HTML page (a dev server's fallback) instead of the .wasm.
 * Chromium says so in its CompileError ("expected magic word 00 61 73 6d, found 3c 21 64 6f"); other
 * engines only say the magic number is wrong (WebKit: "module doesn't start with '\\0asm'"), so
 * then the URL is fetched again and its content type or first bytes looked at.
 */
async function servedHtml(from: string | undefined, e: unknown): Promise<boolean> {
  if (/found 3c/i.test(String(e))) return true;
  if (from === undefined || !(e instanceof WebAssembly.CompileError) || typeof fetch !== 'function') return false;
  try {
    const response = await fetch(from);
    if (/text\/html/i.test(response.headers.get('content-type') ?? '')) return true;
    const head = new TextDecoder().decode((await response.arrayBuffer()).slice(0, 64));
    return /^\s*</.test(head);
  } catch {
    return false;
  }
}

/** Whether {@link init} has completed. */
export function isInitialized(): boolean {
  return initialized;
}

/** Runs a wasm call: checks initialisation, converts anything thrown into a `VeilError`. */
export function call<T>(fn: () => T): T {
  if (!initialized) {
    throw new VeilError('NOT_INITIALIZED', 'call `await init()` before using veilkit');
  }
  const poisoned = poisonedError();
  if (poisoned) throw poisoned;
  try {
    return fn();
  } catch (e) {
    throw toVeilError(e);
  }
}
