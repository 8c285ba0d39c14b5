/**
 * Starting a pool worker (ts/pool.ts): the default module worker, the name a pool gives it in its
 * errors, and `VeilError('WORKER_START_FAILED')` with the cause of a failed start.
 */
import { VeilError } from './errors.js';

/** Default of `PoolOptions.startTimeoutMs`. */
export const DEFAULT_WORKER_START_TIMEOUT_MS = 15_000;

/** The default `createWorker`: a module worker from `url`, or veilkit's own worker module. */
export function defaultWorker(url: string | URL | undefined): Worker {
  // A literal `new URL('…', import.meta.url)` in the `new Worker(…)` call: bundlers find the worker there.
  if (url === undefined) return new Worker(new URL('../worker/veilkit.worker.js', import.meta.url), { type: 'module', name: 'veilkit' });
  return new Worker(url, { type: 'module', name: 'veilkit' });
}

/** Where the default worker is, relative to this module (unbundled: dist/ts/pool-start.js → dist/worker/). */
const DEFAULT_WORKER_PATH = '../worker/veilkit.worker.js';

/** The worker script a pool names in its errors. */
export function workerLabel(url: string | URL | undefined, custom: boolean): string {
  if (url !== undefined) return String(url);
  if (custom) return '(custom createWorker)';
  // Unbundled (npm layout, import map, CDN): the URL the default worker loads. Bundled, this module
  // is inside a chunk and the bundler rewrote the worker's URL, which only it knows. (A variable, not
  // a literal: bundlers would emit a literal `new URL('…', import.meta.url)` as one more asset.)
  if (/\/ts\/pool-start\.js$/.test(import.meta.url)) return new URL(DEFAULT_WORKER_PATH, import.meta.url).href;
  return 'veilkit.worker.js (the module worker your bundler emitted for veilkit)';
}

/**
 * Why a worker's `error` event fired while it was starting: the ErrorEvent's message and location when
 * it has them (an exception thrown while the module evaluated), else a load failure (a 404, a wrong
 * MIME type, a network or CSP refusal, or an import of the module that failed: browsers give no detail).
 */
export function workerErrorCause(e: Event): string {
  const ev = e as Partial<ErrorEvent>;
  const message = typeof ev.message === 'string' && ev.message !== '' ? ev.message : undefined;
  const where = typeof ev.filename === 'string' && ev.filename !== ''
    ? ` (${ev.filename}${typeof ev.lineno === 'number' && ev.lineno > 0 ? `:${ev.lineno}${typeof ev.colno === 'number' && ev.colno > 0 ? `:${ev.colno}` : ''}` : ''})`
    : '';
  if (message !== undefined) return `${message}${where}`;
  return `the script could not be loaded (a 404, a wrong MIME type, a network or CSP refusal, or a failing import)${where}`;
}

export function startFailed(url: string, reason: string, cause?: unknown): VeilError {
  return new VeilError('WORKER_START_FAILED', `veilkit worker ${url} failed to start: ${reason}`, {
    details: { url, reason },
    ...(cause === undefined ? {} : { cause }),
  });
}
