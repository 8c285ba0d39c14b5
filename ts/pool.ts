/**
 * A pool of veilkit workers: FIFO scheduling, affinity for stateful work,
 * `AbortSignal` cancellation, typed error propagation, crash recovery, idle
 * termination and `dispose()` (also `[Symbol.dispose]`, for `using`).
 *
 * Each worker runs one request at a time, so a crash or a cancellation is
 * attributed to exactly one call: that call fails, the worker is replaced,
 * every other call goes on.
 *
 * Size: one scheduler class (queue, affinity, start timeout, crash recovery,
 * progress routing, idle termination, dispose) over shared private state, plus
 * the ref-counted default pool; about 100 lines over the ~400-line guideline
 * (the start-failure helpers live in ts/pool-start.ts).
 */
import { VeilError, detailsOf, isVeilErrorCode } from '../protocol/errors.js';
import { disposeSymbol, disposedError } from './dispose.js';
import { DEFAULT_WORKER_START_TIMEOUT_MS, THREADS_STALL_MS, defaultWorker, startFailed, workerErrorCause, workerLabel } from './pool-start.js';
import { THREADS_STEPS } from './init-steps.js';
import type { RoutePreference } from './webcrypto/routes.js';
import type {
  PrimitiveArgs, PrimitiveResult, ProgressMessage, ReadyMessage, Replies, Reply, Request, SerializedError, StartingMessage, WorkerPrimitive,
} from '../protocol/protocol.js';

/** Distributes `Omit` over a union, keeping each member's fields. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** A request before the pool gives it an id. */
export type RequestBody = DistributiveOmit<Request, 'id'>;

/** Why a worker of the pool went away (see `PoolOptions.onWorkerExit`). */
export type WorkerExitReason = 'idle' | 'crashed' | 'aborted' | 'failed to start' | 'disposed';

/** One worker leaving the pool. */
export interface WorkerExit {
  /** The worker's slot (0 … size − 1); a replacement takes the same slot. */
  readonly slot: number;
  readonly reason: WorkerExitReason;
}

/** Options of {@link WorkerPool}: its size, the worker and wasm locations, a worker factory, start timeout, threads and route. */
export interface PoolOptions {
  /** Number of workers (default `navigator.hardwareConcurrency`, at least 1). */
  size?: number;
  /** Terminate a worker idle for this long (ms, default 30 s; 0 = never). */
  idleTimeoutMs?: number;
  /** Creates a worker (default: a module worker from `workerUrl`). */
  createWorker?: () => Worker;
  /**
   * The worker module (default: the bundled `dist/worker/veilkit.worker.js`, located next to this
   * module). Used by the default `createWorker`, and named in `WORKER_START_FAILED` errors (with a
   * custom `createWorker`, pass it too so that errors can name the script).
   */
  workerUrl?: string | URL;
  /**
   * How long a new worker may take to load its script and the wasm core and report ready (ms,
   * default 30 s; 0 = wait forever). Past it, the worker is terminated and the call that was waiting
   * for it rejects with `VeilError('WORKER_START_FAILED')`; the next call starts a fresh worker.
   */
  startTimeoutMs?: number;
  /** URL of `veilkit_bg.wasm` for the workers (default: next to the worker module). */
  wasmUrl?: string | URL;
  /** Enables `debug/*` requests (tests only). */
  debug?: boolean;
  /** Called with every worker→page message (test builds: e.g. asserting that no secret bytes reach the page). */
  inspectReply?: (message: unknown) => void;
  /** Called after a worker is terminated, with its slot and why (e.g. to observe idle termination). */
  onWorkerExit?: (exit: WorkerExit) => void;
  /** The workers' `init({ route })`: where routable primitives run (default `'auto'`, see `capabilities()`). */
  route?: RoutePreference;
  /** The workers' `init({ threads })`: `false` forces the SIMD build, a number sets each worker's thread pool size. */
  threads?: boolean | number;
}

/** Options of {@link WorkerPool.run}: an abort `signal`, a worker `affinity` key, `transfer`ables and an `onProgress` callback. */
export interface RunOptions {
  /** Cancels the call: queued calls never start; a running call's worker is terminated and replaced. */
  signal?: AbortSignal;
  /** Calls with the same affinity key always run on the same worker (stateful work). */
  affinity?: string;
  /** Buffers to transfer (hand over) to the worker instead of copying. Only pass buffers you own and no longer need. */
  transfer?: Transferable[];
  /** Called with the progress a running request reports (`files/*-chunks`: plaintext bytes and chunks done since the previous call). */
  onProgress?: (step: { readonly bytes: number; readonly chunks: number }) => void;
}

interface Job {
  body: RequestBody;
  options: RunOptions;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  onAbort?: () => void;
  /** Settled by an abort that spared its worker (see `abort`): the worker's eventual reply only frees the slot. */
  abandoned?: boolean;
}

interface Slot {
  index: number;
  worker: Worker | undefined;
  ready: Promise<void> | undefined;
  job: (Job & { id: number }) | undefined;
  idleTimer: ReturnType<typeof setTimeout> | undefined;
}

function defaultSize(): number {
  const n = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency;
  return typeof n === 'number' && n > 0 ? n : 2;
}

/**
 * Rebuilds a thrown error from its serialized form. Anything else becomes `VeilError('INTERNAL')`
 * whose `details.reason` is the error's name in the worker (`'Error'`, `'DataCloneError'`, …, or
 * `'malformed'`) and whose `details.step` is `step`, the request it answers, when given.
 */
export function deserializeError(e: SerializedError, step?: string): Error {
  const se: unknown = e;
  const where = typeof step === 'string' ? { step } : {};
  if (typeof se !== 'object' || se === null) {
    return new VeilError('INTERNAL', `a malformed error crossed the worker boundary (${se === null ? 'null' : typeof se})`, { details: { reason: 'malformed', ...where } });
  }
  const message = typeof e.message === 'string' ? e.message : 'no message';
  if (e.name === 'VeilError' && isVeilErrorCode(e.code)) {
    const details = detailsOf(e.details);
    return new VeilError(e.code, message, { details: e.code === 'INTERNAL' ? { ...where, ...details } : details });
  }
  if (e.name === 'TypeError') return new TypeError(message);
  if (e.name === 'RangeError') return new RangeError(message);
  return new VeilError('INTERNAL', message, { details: { reason: typeof e.name === 'string' && e.name !== '' ? e.name : 'Error', ...where } });
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

/** A pool of veilkit workers (`veilkit/worker`) that runs primitives and file jobs off the main thread: lazy start, affinity keys, abort, `dispose()`. */
export class WorkerPool {
  readonly size: number;
  private readonly slots: Slot[];
  private readonly queue: Job[] = [];
  private readonly affinity = new Map<string, number>();
  /** Keys `release`d while calls with them were still queued or running: forgotten when the last one ends. */
  private readonly releasing = new Set<string>();
  private readonly idleTimeoutMs: number;
  private readonly createWorker: () => Worker;
  private readonly wasmUrl: string | undefined;
  private readonly debug: boolean;
  private readonly inspectReply: ((message: unknown) => void) | undefined;
  private readonly onWorkerExit: ((exit: WorkerExit) => void) | undefined;
  private readonly route: RoutePreference | undefined;
  private readonly threads: boolean | number | undefined;
  private readonly startTimeoutMs: number;
  private readonly workerLabel: string;
  private nextId = 1;
  private nextAffinity = 0;
  private disposed = false;

  constructor(options: PoolOptions = {}) {
    const size = options.size ?? defaultSize();
    if (!Number.isInteger(size) || size < 1 || size > 64) throw new RangeError(`size must be an integer between 1 and 64, got ${size}`);
    this.size = size;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 30_000;
    const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_WORKER_START_TIMEOUT_MS;
    if (typeof startTimeoutMs !== 'number' || !Number.isFinite(startTimeoutMs) || startTimeoutMs < 0) {
      throw new RangeError(`startTimeoutMs must be a finite number ≥ 0, got ${String(startTimeoutMs)}`);
    }
    this.startTimeoutMs = startTimeoutMs;
    const workerUrl = options.workerUrl;
    this.createWorker = options.createWorker ?? (() => defaultWorker(workerUrl));
    this.workerLabel = workerLabel(workerUrl, options.createWorker !== undefined);
    this.wasmUrl = options.wasmUrl === undefined ? undefined : String(options.wasmUrl);
    this.debug = options.debug === true;
    this.inspectReply = options.inspectReply;
    this.onWorkerExit = options.onWorkerExit;
    this.route = options.route;
    this.threads = options.threads;
    this.slots = Array.from({ length: size }, (_, index) => ({ index, worker: undefined, ready: undefined, job: undefined, idleTimer: undefined }));
  }

  /** Calls a primitive in a worker. Arguments are copied (structured clone) unless listed in `transfer`. */
  call<K extends WorkerPrimitive>(name: K, args: PrimitiveArgs<K>, options: RunOptions = {}): Promise<PrimitiveResult<K>> {
    return this.run({ type: 'primitives/call', name, args }, options) as Promise<PrimitiveResult<K>>;
  }

  /** Sends a raw request; resolves with the worker's value (`Replies[type]`, protocol/protocol.ts) or rejects with its error. */
  run<B extends RequestBody>(body: B, options: RunOptions = {}): Promise<Replies[B['type']]> {
    if (this.disposed) return Promise.reject(disposedError('this worker pool'));
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(abortError(signal));
    if (options.affinity !== undefined) this.releasing.delete(options.affinity);
    return new Promise<Replies[B['type']]>((resolve, reject) => {
      // The worker's handler table answers `Replies[type]` (HandlerTable, protocol/protocol.ts).
      const job: Job = { body, options, resolve: resolve as (value: unknown) => void, reject };
      if (signal) {
        job.onAbort = () => this.abort(job, signal);
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      this.queue.push(job);
      this.pump();
    });
  }

  /**
   * Forgets an affinity key whose stateful work has ended (its worker's state is gone or freed),
   * so the affinity map stays bounded. Calls already made with the key still run on its worker;
   * the key is forgotten when the last of them ends, and a later call with it may go to any worker.
   * Nothing to do (and no error) once the pool is disposed: its map is gone with its workers.
   */
  release(affinity: string): void {
    if (this.disposed) return;
    if (this.usesKey(affinity)) this.releasing.add(affinity);
    else this.affinity.delete(affinity);
  }

  /** Number of affinity keys this pool remembers (each names the worker holding some state). */
  get affinityKeys(): number {
    return this.affinity.size;
  }

  /** Number of calls waiting for a worker. */
  get pending(): number {
    return this.queue.length;
  }

  /** Number of live workers. */
  get liveWorkers(): number {
    return this.slots.filter((s) => s.worker !== undefined).length;
  }

  /**
   * Terminates every worker and rejects every queued and running call (`VeilError('INTERNAL')`: the
   * call was made while the pool was live). Idempotent; a later `run` / `call` rejects with
   * `VeilError('INVALID_STATE')`.
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.affinity.clear();
    this.releasing.clear();
    const err = new VeilError('INTERNAL', 'the worker pool has been disposed');
    for (const job of this.queue.splice(0)) this.settle(job, err);
    for (const slot of this.slots) {
      if (slot.job) this.settle(slot.job, err);
      slot.job = undefined;
      this.kill(slot, 'disposed');
    }
  }

  /** Same as {@link WorkerPool.dispose} (`using pool = new WorkerPool()`). */
  [disposeSymbol](): void {
    this.dispose();
  }

  private slotFor(job: Job): Slot | undefined {
    const key = job.options.affinity;
    if (key !== undefined) {
      let idx = this.affinity.get(key);
      if (idx === undefined) {
        idx = this.nextAffinity++ % this.size;
        this.affinity.set(key, idx);
      }
      const slot = this.slots[idx];
      return slot?.job === undefined ? slot : undefined;
    }
    return this.slots.find((s) => s.job === undefined && s.worker !== undefined) ?? this.slots.find((s) => s.job === undefined);
  }

  /** FIFO: the oldest job that has a free worker starts (an affinity job waits for its worker without blocking others). */
  private pump(): void {
    // Stops as soon as every slot is busy: a completion then costs O(1), not a walk of the
    // whole queue (which made 1,000 queued calls quadratic).
    for (let i = 0; i < this.queue.length && this.slots.some((s) => s.job === undefined); ) {
      const job = this.queue[i];
      if (job === undefined) break;
      const slot = this.slotFor(job);
      if (slot === undefined) {
        i++;
        continue;
      }
      this.queue.splice(i, 1);
      this.start(slot, job);
    }
  }

  /** `threads`: the worker's `init({ threads })` (the pool's option; `false` for a start retried without threads). */
  private spawn(slot: Slot, threads: boolean | number | undefined = this.threads): Promise<void> {
    const worker = this.createWorker();
    slot.worker = worker;
    const url = this.workerLabel;
    /** Until ready: an `error` event is a start failure (reported once, by `slot.ready`), not a crash of a running call. */
    let started = false;
    slot.ready = new Promise<void>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      /** Armed while the worker is in a threads step, re-armed at each repeat (automatic choice only): see stalled(). */
      let stall: ReturnType<typeof setTimeout> | undefined;
      const stop = () => {
        if (timer !== undefined) clearTimeout(timer);
        if (stall !== undefined) clearTimeout(stall);
        worker.removeEventListener('message', onReady);
        worker.removeEventListener('error', onError);
      };
      /** The last start step the worker reported (protocol/protocol.ts StartingMessage). */
      let step: string | undefined;
      const onReady = (e: MessageEvent) => {
        const msg = e.data as ReadyMessage | StartingMessage;
        if (msg?.type === 'veilkit/starting') {
          if (typeof msg.step === 'string') step = msg.step;
          if (stall !== undefined) clearTimeout(stall);
          stall = step !== undefined && THREADS_STEPS.has(step) && threads === undefined ? setTimeout(stalled, THREADS_STALL_MS) : undefined;
          return;
        }
        if (msg?.type !== 'veilkit/ready') return;
        stop();
        started = msg.ok;
        if (msg.ok) resolve();
        // The worker ran and its init() failed: that error (e.g. UNSUPPORTED_PLATFORM when the wasm
        // could not be fetched or compiled) is the more precise one.
        else reject(msg.error ? deserializeError(msg.error, 'veilkit/ready') : startFailed(url, 'its init() failed without an error'));
      };
      const onError = (e: Event) => {
        e.preventDefault();
        stop();
        reject(startFailed(url, workerErrorCause(e)));
      };
      // Starting the threads build can block its worker for good: in Firefox ESR 153 a few starts in
      // a hundred stop while creating the helper workers, with the worker's thread stuck (its own
      // fallback timer, threadsStartTimeoutMs, never fires). A worker repeats its threads step every
      // START_TICK_MS while its thread runs; with the automatic choice, one silent for
      // THREADS_STALL_MS is replaced by a worker on the SIMD build.
      const stalled = () => {
        stop();
        if (slot.worker !== worker) {
          reject(startFailed(url, `it stopped responding while loading the threads build`, undefined, step));
          return;
        }
        worker.terminate();
        this.onWorkerExit?.({ slot: slot.index, reason: 'failed to start' });
        this.spawn(slot, false).then(resolve, reject);
      };
      worker.addEventListener('message', onReady);
      worker.addEventListener('error', onError);
      if (this.startTimeoutMs > 0) {
        timer = setTimeout(() => {
          stop();
          reject(startFailed(url, step === undefined
            ? `it did not report ready within ${this.startTimeoutMs} ms (its script did not load or run)`
            : `it did not report ready within ${this.startTimeoutMs} ms (last step reported: ${step})`, undefined, step));
        }, this.startTimeoutMs);
      }
    });
    // A start failure is reported to the call waiting for it (start()); nobody else awaits this.
    slot.ready.catch(() => {});
    worker.addEventListener('message', (e: MessageEvent) => {
      this.inspectReply?.(e.data);
      this.onReply(slot, worker, e.data as Reply | ReadyMessage | StartingMessage | ProgressMessage);
    });
    worker.addEventListener('error', (e: Event) => {
      e.preventDefault();
      if (started) this.onCrash(slot, worker, workerErrorCause(e));
    });
    worker.addEventListener('messageerror', () => {
      if (started) this.onCrash(slot, worker, 'a message could not be deserialized');
    });
    worker.postMessage({ type: 'veilkit/init', wasmUrl: this.wasmUrl, debug: this.debug, route: this.route, threads });
    return slot.ready;
  }

  private start(slot: Slot, job: Job): void {
    if (slot.idleTimer !== undefined) clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
    const id = this.nextId++;
    const running = Object.assign(job, { id });
    slot.job = running;
    const ready = slot.worker !== undefined && slot.ready ? slot.ready : this.spawn(slot);
    ready.then(
      () => {
        if (slot.job !== running || !slot.worker) return; // aborted meanwhile
        try {
          slot.worker.postMessage({ ...job.body, id }, job.options.transfer ?? []);
        } catch (e) {
          this.finish(slot, running);
          this.settle(running, e);
        }
      },
      (err: unknown) => {
        if (slot.job !== running) return;
        this.kill(slot, 'failed to start');
        this.finish(slot, running);
        this.settle(running, err);
      },
    );
  }

  private onReply(slot: Slot, worker: Worker, msg: Reply | ReadyMessage | StartingMessage | ProgressMessage): void {
    if (slot.worker !== worker) return;
    const m: unknown = msg;
    if (typeof m !== 'object' || m === null) return;
    if ('type' in msg) {
      if (msg.type === 'veilkit/progress') this.onProgress(slot, msg);
      return;
    }
    const job = slot.job;
    if (!job || job.id !== msg.id) return;
    this.finish(slot, job);
    if (job.abandoned) {
      this.forgetIfReleased(job);
      return;
    }
    if (msg.ok) this.settle(job, msg.value, true);
    else this.settle(job, deserializeError(msg.error, job.body.type));
  }

  private onProgress(slot: Slot, msg: ProgressMessage): void {
    const job = slot.job;
    if (!job || job.id !== msg.id || job.abandoned || job.options.onProgress === undefined) return;
    if (typeof msg.bytes !== 'number' || typeof msg.chunks !== 'number') return;
    try {
      job.options.onProgress({ bytes: msg.bytes, chunks: msg.chunks });
    } catch {
      // a throwing progress callback must not break the call
    }
  }

  private onCrash(slot: Slot, worker: Worker, message: string): void {
    if (slot.worker !== worker) return;
    const job = slot.job;
    this.kill(slot, 'crashed');
    if (job) {
      this.finish(slot, job);
      this.settle(job, new VeilError('WASM_PANIC', `the worker running this call died: ${message}`));
    } else {
      this.pump();
    }
  }

  private abort(job: Job, signal: AbortSignal): void {
    const queued = this.queue.indexOf(job);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      this.settle(job, abortError(signal));
      return;
    }
    const slot = this.slots.find((s) => s.job === job);
    if (slot && sharedPools.has(this) && this.holdsOtherState(slot, job)) {
      // A shared pool (acquireDefaultPool): the worker holds other callers' state (their affinity),
      // which terminating it would destroy. The call fails now; the worker finishes the work, and its
      // reply only frees the slot.
      job.abandoned = true;
      this.settle(job, abortError(signal));
      return;
    }
    if (slot) {
      // The worker may be deep inside wasm: terminating it is the only way to release the work.
      this.kill(slot, 'aborted');
      this.finish(slot, job); // the slot found above runs this job
      this.settle(job, abortError(signal));
    }
  }

  /** Frees the slot and schedules more work (or the idle timer). */
  private finish(slot: Slot, job: Job): void {
    if (slot.job === job) slot.job = undefined;
    if (this.disposed) return;
    this.pump();
    if (slot.job === undefined && slot.worker !== undefined && this.idleTimeoutMs > 0) {
      slot.idleTimer = setTimeout(() => {
        if (slot.job === undefined) this.kill(slot, 'idle');
      }, this.idleTimeoutMs);
    }
  }

  /** Whether a call with `key` is queued or running. */
  private usesKey(key: string): boolean {
    return this.queue.some((j) => j.options.affinity === key) || this.slots.some((s) => s.job?.options.affinity === key);
  }

  /** Whether the slot's worker holds state of affinity keys other than the job's own. */
  private holdsOtherState(slot: Slot, job: Job): boolean {
    for (const [key, index] of this.affinity) if (index === slot.index && key !== job.options.affinity) return true;
    return false;
  }

  /** Forgets the job's affinity key if it was `release`d and no call with it is left. */
  private forgetIfReleased(job: Job): void {
    const key = job.options.affinity;
    if (key !== undefined && this.releasing.has(key) && !this.usesKey(key)) {
      this.releasing.delete(key);
      this.affinity.delete(key);
    }
  }

  private settle(job: Job, valueOrError: unknown, ok = false): void {
    if (job.onAbort) job.options.signal?.removeEventListener('abort', job.onAbort);
    this.forgetIfReleased(job);
    if (ok) job.resolve(valueOrError);
    else job.reject(valueOrError);
  }

  private kill(slot: Slot, reason: WorkerExitReason): void {
    if (slot.idleTimer !== undefined) clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
    const worker = slot.worker;
    slot.worker = undefined;
    slot.ready = undefined;
    if (worker === undefined) return;
    worker.terminate();
    this.onWorkerExit?.({ slot: slot.index, reason });
  }
}

/** Pools handed out by `acquireDefaultPool`: an abort spares a worker that holds other callers' state. */
const sharedPools = new WeakSet<WorkerPool>();
let defaultPool: WorkerPool | undefined;
let defaultRefs = 0;
let defaultLinger: ReturnType<typeof setTimeout> | undefined;

/** How long the default pool outlives its last user (ms): back-to-back calls find its workers warm, and no worker stays long after the last call. */
export const DEFAULT_POOL_LINGER_MS = 2_000;

function defaultPoolSize(): number {
  return Math.max(1, Math.min(defaultSize(), 4));
}

/**
 * Package-internal: takes a reference to the default pool that `encryptFile`, `decryptFile` and
 * `openContainer` share when the caller passes neither `pool` nor `workers` (one pool per page
 * instead of one per call: a cold pool costs 100+ ms). Its workers never idle out while it is
 * referenced (file sessions hold a wasm handle in one of them) and run the single-threaded build;
 * it is disposed `DEFAULT_POOL_LINGER_MS` after the last {@link releaseDefaultPool}. Aborting a
 * call on it terminates the worker only if that worker holds no other caller's affinity state.
 *
 * The keystore does not use it: a keystore's worker holds the unlocked storage key, which a file
 * job's crash would destroy (relocking the store), and which `Keystore.dispose()` forgets by
 * terminating that worker — so `Keystore.open` keeps its own one-worker pool.
 */
export function acquireDefaultPool(): WorkerPool {
  if (defaultLinger !== undefined) clearTimeout(defaultLinger);
  defaultLinger = undefined;
  if (defaultPool === undefined) {
    defaultPool = new WorkerPool({ size: defaultPoolSize(), idleTimeoutMs: 0, threads: false });
    sharedPools.add(defaultPool);
  }
  defaultRefs++;
  return defaultPool;
}

/** Package-internal: gives back a reference taken by {@link acquireDefaultPool}. */
export function releaseDefaultPool(pool: WorkerPool): void {
  if (pool !== defaultPool || defaultRefs === 0 || --defaultRefs > 0) return;
  defaultLinger = setTimeout(() => {
    defaultLinger = undefined;
    if (defaultRefs > 0 || defaultPool !== pool) return;
    defaultPool = undefined;
    pool.dispose();
  }, DEFAULT_POOL_LINGER_MS);
  (defaultLinger as { unref?: () => void }).unref?.();
}
