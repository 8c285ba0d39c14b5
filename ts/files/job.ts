/** One file operation's machinery: its pool, abort, worker session, the bounded batch pipeline, progress and observable state. */
import { WorkerPool, acquireDefaultPool, releaseDefaultPool, type RequestBody, type RunOptions } from '../pool.js';
import type { Replies } from '../../protocol/protocol.js';
import { disposeSymbol, disposedError } from '../dispose.js';
import { integer } from '../validate.js';
import type { FileJobOptions, FileJobSnapshot, FileJobStatus, FileOperation, FileProgress } from './types.js';

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

function sessionId(): string {
  const c = globalThis.crypto as Crypto & { randomUUID?: () => string };
  return typeof c.randomUUID === 'function' ? c.randomUUID() : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

const RUNNING: FileJobSnapshot<never> = Object.freeze({ status: 'running', progress: undefined, error: undefined, result: undefined });

/**
 * The observable state of a file operation, framework-free: `subscribe(listener)` (returns the
 * unsubscribe function) and `getSnapshot()`, which returns the same frozen object until something
 * changes (progress, completion, failure), as React's `useSyncExternalStore` requires. Both are
 * bound (they can be passed around unbound). A settled state never changes again.
 */
export class JobState<T> {
  #snapshot: FileJobSnapshot<T> = RUNNING;
  readonly #listeners = new Set<() => void>();

  /** Calls `listener` (no arguments) after every change; returns the function that stops it. Idempotent. */
  readonly subscribe = (listener: () => void): (() => void) => {
    if (typeof listener !== 'function') throw new TypeError('listener must be a function');
    const entry = () => listener();
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  };

  /** The current snapshot: the same object until the next change. */
  readonly getSnapshot = (): FileJobSnapshot<T> => this.#snapshot;

  /** Package-internal: new progress of a running operation. */
  progress(progress: FileProgress): void {
    if (this.#snapshot.status !== 'running') return;
    this.#set({ status: 'running', progress, error: undefined, result: undefined });
  }

  /** Package-internal: the operation ended (`done` with its result, else with its error). */
  settle(status: Exclude<FileJobStatus, 'running'>, value: unknown): void {
    if (this.#snapshot.status !== 'running') return;
    const progress = this.#snapshot.progress;
    this.#set(status === 'done'
      ? { status, progress, error: undefined, result: value as T }
      : { status, progress, error: value, result: undefined });
  }

  #set(next: FileJobSnapshot<T>): void {
    this.#snapshot = Object.freeze(next);
    for (const l of [...this.#listeners]) {
      try {
        l();
      } catch {
        // a throwing listener must not break the operation or the other listeners
      }
    }
  }
}

/** Whether `e` ends an operation as `'cancelled'`: the caller's abort reason, or an `AbortError`. */
function cancelled(e: unknown, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted && e === signal.reason) return true;
  return typeof DOMException === 'function' && e instanceof DOMException && e.name === 'AbortError';
}

/** Package-internal: `run` as a {@link FileOperation} (the promise, plus `subscribe` / `getSnapshot` of `state`, settled with it). */
export function observe<T>(state: JobState<T>, run: Promise<T>, signal: AbortSignal | undefined): FileOperation<T> {
  run.then(
    (v) => state.settle('done', v),
    (e: unknown) => state.settle(cancelled(e, signal) ? 'cancelled' : 'failed', e),
  );
  return Object.assign(run, { subscribe: state.subscribe, getSnapshot: state.getSnapshot });
}

/**
 * One file operation: its pool, an abort controller (the caller's signal, or our first error) and a
 * worker session. The pool is the caller's (`pool`), a private one (`workers`) or else the shared
 * default pool (`acquireDefaultPool` in ts/pool.ts).
 */
export class FileJob {
  readonly pool: WorkerPool;
  readonly session = sessionId();
  readonly limit: number;
  readonly batchBytes: number;
  /** `private`: ours, disposed on close; `default`: the shared default pool, released on close. */
  private readonly owned: 'private' | 'default' | undefined;
  private readonly controller = new AbortController();
  private readonly userSignal: AbortSignal | undefined;
  private readonly onUserAbort = () => {
    if (this.userSignal) this.controller.abort(abortReason(this.userSignal));
  };
  private opened = false;
  private disposed = false;
  private readonly onProgress: FileJobOptions['onProgress'];
  /** What `subscribe` / `getSnapshot` observe (the public operation's state when it has one). */
  readonly state: JobState<unknown>;

  constructor(options: FileJobOptions, state: JobState<unknown> = new JobState()) {
    this.state = state;
    if (options.onProgress !== undefined && typeof options.onProgress !== 'function') throw new TypeError('onProgress must be a function');
    this.onProgress = options.onProgress;
    if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) throw new TypeError('signal must be an AbortSignal');
    if (options.pool !== undefined && !(options.pool instanceof WorkerPool)) throw new TypeError('pool must be a WorkerPool');
    const workers = options.workers === undefined ? undefined : integer('workers', options.workers, 1, 64);
    this.batchBytes = integer('batchBytes', options.batchBytes ?? 16 << 20, 1, 1 << 30);
    this.userSignal = options.signal;
    if (this.userSignal?.aborted) throw abortReason(this.userSignal);
    this.userSignal?.addEventListener('abort', this.onUserAbort, { once: true });
    const concurrency = options.concurrency === undefined ? undefined : integer('concurrency', options.concurrency, 1, 1024);
    this.owned = options.pool !== undefined ? undefined : workers !== undefined ? 'private' : 'default';
    // A private or the default pool: no idle termination while the operation lives (the session's
    // wasm handle is in one of its workers); the single-threaded build (no nested thread pools).
    this.pool = options.pool ?? (workers !== undefined ? new WorkerPool({ size: workers, idleTimeoutMs: 0, threads: false }) : acquireDefaultPool());
    this.limit = concurrency ?? 2 * this.pool.size;
  }

  /** See {@link JobState.subscribe}. */
  get subscribe(): (listener: () => void) => () => void {
    return this.state.subscribe;
  }

  /** See {@link JobState.getSnapshot}. */
  get getSnapshot(): () => FileJobSnapshot<unknown> {
    return this.state.getSnapshot;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Stops everything in flight (first caller's reason wins). */
  fail(e: unknown): void {
    if (!this.controller.signal.aborted) this.controller.abort(e);
  }

  /** The error to report: the abort reason if the job was stopped, else `e`. */
  error(e: unknown): unknown {
    return this.controller.signal.aborted ? this.controller.signal.reason : e;
  }

  throwIfStopped(): void {
    if (this.controller.signal.aborted) throw this.controller.signal.reason;
  }

  /** Runs a request of this job (`session`: on the session's worker); resolves with `Replies[type]`. */
  run<B extends RequestBody>(body: B, options: { session?: boolean; transfer?: Transferable[]; onProgress?: RunOptions['onProgress'] } = {}): Promise<Replies[B['type']]> {
    if (this.disposed) return Promise.reject(disposedError('this file operation'));
    if (options.session) this.opened = true;
    return this.pool.run(body, {
      signal: this.controller.signal,
      ...(options.session ? { affinity: `files:${this.session}` } : {}),
      ...(options.transfer ? { transfer: options.transfer } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
  }

  /** A password's key derivation starts: one progress step `{ phase: 'kdf' }` with nothing done yet. */
  kdfStarted(bytesTotal: number, chunksTotal: number): void {
    emit(this.onProgress, Object.freeze({ phase: 'kdf', bytesDone: 0, bytesTotal, chunksDone: 0, chunksTotal }), this.state);
  }

  /**
   * Frees the worker session and its affinity key (`pool.release`), and terminates a private pool's
   * workers or gives back the default pool. Idempotent; a later `run` rejects with `INVALID_STATE`.
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.userSignal?.removeEventListener('abort', this.onUserAbort);
    if (this.owned === 'private') {
      this.pool.dispose();
      return;
    }
    if (this.opened) {
      const affinity = `files:${this.session}`;
      this.pool.run({ type: 'files/close', session: this.session }, { affinity }).catch(() => {});
      this.pool.release(affinity);
    }
    if (this.owned === 'default') releaseDefaultPool(this.pool);
  }

  /** Same as {@link FileJob.dispose}. */
  [disposeSymbol](): void {
    this.dispose();
  }
}

/**
 * Runs `count` tasks with at most `limit` started but not yet consumed, and
 * hands their results to `consume` in index order. A task's failure stops it
 * once every earlier task is consumed (so a stream releases each verified
 * batch before the failing one, however the workers race); no task starts
 * after a failed one. An abort or a failing `consume` stops it at once.
 */
export function pipeline<T>(job: FileJob, count: number, start: (i: number) => Promise<T>, consume: (i: number, v: T) => Promise<void> | void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const results = new Map<number, T>();
    const errors = new Map<number, unknown>();
    let stopAt = count; // the first task known to have failed
    let next = 0;
    let consumed = 0;
    let failed = false;
    let draining = false;
    const fail = (e: unknown) => {
      if (failed) return;
      failed = true;
      job.fail(e);
      reject(job.error(e));
    };
    const onAbort = () => fail(job.signal.reason);
    job.signal.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      job.signal.removeEventListener('abort', onAbort);
      resolve();
    };
    const pump = () => {
      while (!failed && next < stopAt && next - consumed < job.limit) {
        const i = next++;
        let p: Promise<T>;
        try {
          p = start(i);
        } catch (e) {
          fail(e);
          return;
        }
        p.then((v) => {
          results.set(i, v);
          void drain();
        }, (e: unknown) => {
          errors.set(i, e);
          stopAt = Math.min(stopAt, i);
          void drain();
        });
      }
      if (!failed && consumed === count) done();
    };
    const drain = async () => {
      if (draining || failed) return;
      draining = true;
      try {
        while (!failed) {
          if (errors.has(consumed)) {
            fail(errors.get(consumed));
            return;
          }
          if (!results.has(consumed)) break;
          const v = results.get(consumed) as T;
          results.delete(consumed);
          await consume(consumed, v);
          consumed++;
          pump();
        }
      } catch (e) {
        fail(e);
      } finally {
        draining = false;
      }
    };
    if (job.signal.aborted) fail(job.signal.reason);
    else pump();
  });
}

/** Batches of `per` chunks: batch `b` covers chunks `[b·per, min(n, (b+1)·per))`. */
export function batching(n: number, chunkSize: number, batchBytes: number): { per: number; batches: number; range: (b: number) => [number, number] } {
  const per = Math.max(1, Math.floor(batchBytes / chunkSize));
  return { per, batches: Math.ceil(n / per), range: (b) => [b * per, Math.min(n, (b + 1) * per) - b * per] };
}

/** Hands one progress step to the observable state (when given) and to the caller's callback. */
function emit(cb: FileJobOptions['onProgress'], p: FileProgress, state: JobState<unknown> | undefined): void {
  state?.progress(p);
  try {
    cb?.(p);
  } catch {
    // a throwing progress callback must not break the operation
  }
}

/** A progress counter calling `cb` (and updating `state`, when given) with the running totals; a step of nothing is not reported. */
export function progress(cb: FileJobOptions['onProgress'], bytesTotal: number, chunksTotal: number, state?: JobState<unknown>) {
  let bytesDone = 0;
  let chunksDone = 0;
  if (cb !== undefined && typeof cb !== 'function') throw new TypeError('onProgress must be a function');
  return (bytes: number, chunks: number) => {
    if (bytes === 0 && chunks === 0) return;
    bytesDone += bytes;
    chunksDone += chunks;
    emit(cb, Object.freeze({ phase: 'chunks', bytesDone, bytesTotal, chunksDone, chunksTotal }), state);
  };
}

/**
 * The progress of one batch request of `bytes` plaintext bytes in `chunks` chunks: `onProgress` (for
 * `FileJob.run`) passes on the steps its worker reports while it runs, `finish()` reports the rest
 * once it has answered. The steps never add up to more than the batch.
 */
export function batchProgress(tick: (bytes: number, chunks: number) => void, bytes: number, chunks: number): { onProgress: NonNullable<RunOptions['onProgress']>; finish: () => void } {
  let bytesDone = 0;
  let chunksDone = 0;
  const step = (b: number, c: number) => {
    const db = Math.max(0, Math.min(b, bytes - bytesDone));
    const dc = Math.max(0, Math.min(c, chunks - chunksDone));
    bytesDone += db;
    chunksDone += dc;
    tick(db, dc);
  };
  return { onProgress: (s) => step(s.bytes, s.chunks), finish: () => step(bytes, chunks) };
}

export function anySignal(a: AbortSignal, b: AbortSignal | undefined): AbortSignal {
  if (b === undefined) return a;
  const c = new AbortController();
  const on = (s: AbortSignal) => () => c.abort(s.reason);
  if (a.aborted) c.abort(a.reason);
  else if (b.aborted) c.abort(b.reason);
  else {
    a.addEventListener('abort', on(a), { once: true });
    b.addEventListener('abort', on(b), { once: true });
  }
  return c.signal;
}
