/**
 * The loading steps of `init()` (ts/init.ts), for whoever wants to know how far a start got: the
 * worker entry reports each one to its pool (protocol/protocol.ts `StartingMessage`), which names the
 * last one when the worker does not report ready in time. Internal: not exported by the package.
 */
export type InitStep =
  | 'loading the threads build'
  | "starting the threads build's helper workers"
  | 'loading the SIMD build'
  | 'probing WebCrypto';

/** Default of `InitOptions.threadsStartTimeoutMs` (ts/init.ts). */
export const DEFAULT_THREADS_START_TIMEOUT_MS = 8_000;

/**
 * The steps of loading the threads build. Its start can block the worker for good (ts/pool.ts), so
 * a worker repeats these every {@link START_TICK_MS} while it is in one of them: a pool that hears
 * nothing for a while knows the worker is blocked, not slow.
 */
export const THREADS_STEPS: ReadonlySet<string> = new Set<InitStep>(['loading the threads build', "starting the threads build's helper workers"]);

/** How often a worker repeats its current threads step (ms). */
export const START_TICK_MS = 500;

/**
 * Engines where starting the threads build can block its worker for good: in Firefox (ESR 153
 * measured) `new Worker()` inside a worker now and then never returns (about 3 starts in 100), and
 * a blocked thread runs no timer, so nothing inside it can fall back. An engine fault, not a
 * missing feature, so no feature test finds it: the user agent names it.
 */
export function blockingThreadsStart(userAgent: string | undefined): boolean {
  return typeof userAgent === 'string' && /\bFirefox\//.test(userAgent);
}

let supervised = false;

/**
 * Marks this worker as one a `WorkerPool` supervises (worker/veilkit.worker.ts): a pool replaces a
 * worker whose threads start blocks, so the automatic choice may take the threads build here even
 * in an engine where that start can block (see {@link blockingThreadsStart}).
 */
export function superviseStart(): void {
  supervised = true;
}

/** Whether {@link superviseStart} was called in this context. */
export function startSupervised(): boolean {
  return supervised;
}

let listener: ((step: InitStep) => void) | undefined;

/** Sets (or, with `undefined`, removes) the one listener of {@link InitStep}s. */
export function onInitStep(fn: ((step: InitStep) => void) | undefined): void {
  listener = fn;
}

/** Reports `step` to the listener; a throwing listener does not disturb `init()`. */
export function initStep(step: InitStep): void {
  try {
    listener?.(step);
  } catch {
    // the report is advisory
  }
}
