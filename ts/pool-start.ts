/**
 * Starting a pool worker (ts/pool.ts): the default module worker, the name a pool gives it in its
 * errors, and `VeilError('WORKER_START_FAILED')` with the cause of a failed start.
 */
import { VeilError } from '../protocol/errors.js';
import { defaultWorkerHref, startDefaultWorker } from './assets.js';
import { VITE_DEPS_HINT, inViteDeps } from './vite-deps.js';
import { START_TICK_MS } from './init-steps.js';

/** Default of `PoolOptions.startTimeoutMs`. */
export const DEFAULT_WORKER_START_TIMEOUT_MS = 30_000;

/**
 * How long a worker loading the threads build may stay silent (it repeats its step every
 * `START_TICK_MS`, ts/init-steps.ts) before the pool takes its thread as blocked and starts a
 * SIMD-build worker instead (automatic `threads` only). Ten missed ticks: a busy machine delays
 * timers, a blocked thread stops them.
 */
export const THREADS_STALL_MS = 10 * START_TICK_MS;

/** The default `createWorker`: a module worker from `url`, or veilkit's own worker module. */
export function defaultWorker(url: string | URL | undefined): Worker {
  if (url === undefined) return startDefaultWorker();
  return new Worker(url, { type: 'module', name: 'veilkit' });
}

/** The worker script a pool names in its errors. */
export function workerLabel(url: string | URL | undefined, custom: boolean): string {
  if (url !== undefined) return String(url);
  if (custom) return '(custom createWorker)';
  // Unbundled (npm layout, import map, CDN): the URL the default worker loads. Bundled, the URL the
  // bundler emitted, which only it knows.
  const href = defaultWorkerHref();
  if (href !== undefined) return href;
  if (inViteDeps(import.meta.url)) return `veilkit.worker.js (from ${import.meta.url}: ${VITE_DEPS_HINT})`;
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

/** `step`: the last start step the worker reported (protocol/protocol.ts StartingMessage), if any. */
export function startFailed(url: string, reason: string, cause?: unknown, step?: string): VeilError {
  return new VeilError('WORKER_START_FAILED', `veilkit worker ${url} failed to start: ${reason}`, {
    details: { url, reason, ...(step === undefined ? {} : { step }) },
    ...(cause === undefined ? {} : { cause }),
  });
}
