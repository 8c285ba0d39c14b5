/**
 * Loading the WebAssembly core. `init()` is memoised and works in a page, a
 * (module) Worker and Node.js.
 */
import initWasm, { initSync } from './wasm/veilkit.js';
import { VeilError, poisonedError, toVeilError } from './errors.js';

/** Where the `.wasm` comes from. By default it is resolved next to this module. */
export type WasmSource = URL | string | Response | BufferSource | WebAssembly.Module;

export interface InitOptions {
  /** Override the location or bytes of `veilkit_bg.wasm` (e.g. a bundler asset URL). */
  wasm?: WasmSource;
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
  const bytes = await fs.readFile(url.fileURLToPath(new URL('./wasm/veilkit_bg.wasm', import.meta.url)));
  initSync({ module: bytes });
}

/**
 * Loads and instantiates the SIMD WebAssembly core. Memoised: every call
 * returns the same promise. Rejects with `VeilError('UNSUPPORTED_PLATFORM')`
 * when WebAssembly or SIMD128 is unavailable.
 */
export function init(options: InitOptions = {}): Promise<void> {
  ready ??= (async () => {
    const support = platformSupport();
    if (!support.webAssembly) {
      throw new VeilError('UNSUPPORTED_PLATFORM', 'WebAssembly is not available in this environment');
    }
    if (!support.simd) {
      throw new VeilError('UNSUPPORTED_PLATFORM', 'WebAssembly SIMD128 is not supported by this engine');
    }
    try {
      if (options.wasm !== undefined) {
        await initWasm({ module_or_path: options.wasm });
      } else if (isNode()) {
        await loadInNode();
      } else {
        await initWasm({ module_or_path: new URL('./wasm/veilkit_bg.wasm', import.meta.url) });
      }
      initialized = true;
    } catch (e) {
      ready = undefined; // allow a retry (e.g. after a network error)
      throw e instanceof VeilError ? e : new VeilError('UNSUPPORTED_PLATFORM', `could not load the wasm core: ${String(e)}`, { cause: e });
    }
  })();
  return ready;
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
