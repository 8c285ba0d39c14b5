/**
 * Starting a pool worker (ts/pool.ts): the default module worker, the name a pool gives it in its
 * errors, and `VeilError('WORKER_START_FAILED')` with the cause of a failed start.
 */
import { VeilError } from './errors.js';
import { defaultWorkerHref, startDefaultWorker } from './assets.js';
import { VITE_DEPS_HINT, inViteDeps } from './vite-deps.js';

/** Default of `PoolOptions.startTimeoutMs`. */
export const DEFAULT_WORKER_START_TIMEOUT_MS = 30_000;

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

export function startFailed(url: string, reason: string, cause?: unknown): VeilError {
  return new VeilError('WORKER_START_FAILED', `veilkit worker ${url} failed to start: ${reason}`, {
    details: { url, reason },
    ...(cause === undefined ? {} : { cause }),
  });
}
