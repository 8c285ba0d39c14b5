/**
 * One file hook's job, framework-free: `run` starts an `encryptFile` / `decryptFile` on the
 * provider's pool and mirrors its `FileOperation` (`subscribe` / `getSnapshot`) into a store with a
 * transfer rate; `cancel`, `reset` and `dispose` (unmount) abort it through its `AbortSignal`.
 * Each `run` takes a new generation: a result, progress or error of an older generation (after
 * `reset`, `cancel`, a newer `run` or `dispose`) is dropped.
 */
import { createVeilStore, type VeilStatus, type VeilStore } from './store.js';
import { hookError } from './errors.js';
import type { WorkerPool } from '../pool.js';
import { VeilError } from '../../protocol/errors.js';
import type { FileJobOptions, FileOperation, FileProgress } from '../files.js';

/** `progress` of the file hooks: the operation's progress plus its rate. */
export interface FileTaskProgress extends FileProgress {
  /** Plaintext bytes per second of the chunk phase (0 until two progress steps of it are known; key derivation time is not counted). */
  readonly bytesPerSecond: number;
}

/** The state of `useEncryptFile` / `useDecryptFile`: status, progress, result and error of the current job. */
export interface FileTaskState<R> {
  readonly status: VeilStatus;
  readonly progress: FileTaskProgress | undefined;
  readonly result: R | undefined;
  /** A `VeilError` (or `TypeError` / `RangeError` for bad arguments), or the `AbortError` of `cancel()`. */
  readonly error: VeilError | undefined;
}

const IDLE: FileTaskState<never> = { status: 'idle', progress: undefined, result: undefined, error: undefined };

function abortError(): DOMException {
  return new DOMException('The operation was cancelled', 'AbortError');
}

function now(): number {
  return typeof performance === 'object' ? performance.now() : Date.now();
}

/** Starts the operation with the job options the task adds (`signal`, `pool`). */
export type FileStart<R> = (job: { signal: AbortSignal; pool: WorkerPool | undefined }) => FileOperation<R>;

export class FileTask<R> {
  readonly store: VeilStore<FileTaskState<R>> = createVeilStore<FileTaskState<R>>(IDLE);
  readonly #pool: () => Promise<WorkerPool | undefined>;
  #generation = 0;
  #controller: AbortController | undefined;
  #off: (() => void) | undefined;

  /** `pool`: the provider's pool once ready (`undefined`: the shared default pool). */
  constructor(pool: () => Promise<WorkerPool | undefined>) {
    this.#pool = pool;
  }

  /** Ends the current job (aborting it) and makes every late event of it stale. */
  #stop(reason: unknown): number {
    this.#generation++;
    this.#off?.();
    this.#off = undefined;
    const c = this.#controller;
    this.#controller = undefined;
    if (c !== undefined && !c.signal.aborted) c.abort(reason);
    return this.#generation;
  }

  /** Runs `start`; resolves to its result, or `undefined` when it failed, was cancelled or superseded. Never rejects. */
  async run(start: FileStart<R>, options: Pick<FileJobOptions, 'signal' | 'pool'> = {}): Promise<R | undefined> {
    const generation = this.#stop(abortError());
    const controller = new AbortController();
    this.#controller = controller;
    const current = () => generation === this.#generation;
    const userSignal = options.signal;
    if (userSignal !== undefined) {
      if (userSignal.aborted) controller.abort(userSignal.reason);
      else userSignal.addEventListener('abort', () => controller.abort(userSignal.reason), { once: true });
    }
    this.store.set({ status: 'pending', progress: undefined, result: undefined, error: undefined });
    try {
      const pool = options.pool ?? (await this.#pool());
      if (!current()) return undefined;
      controller.signal.throwIfAborted();
      const op = start({ signal: controller.signal, pool });
      let base: { t: number; bytes: number } | undefined;
      let sawKdf = false;
      const started = now();
      const onChange = () => {
        if (!current()) return;
        const p = op.getSnapshot().progress;
        if (p === undefined) return;
        let bytesPerSecond = 0;
        if (p.phase === 'kdf') sawKdf = true;
        else {
          // After a key derivation, count from the first chunk step (the KDF's seconds are not transfer).
          base ??= sawKdf ? { t: now(), bytes: p.bytesDone } : { t: started, bytes: 0 };
          const dt = (now() - base.t) / 1000;
          if (dt > 0) bytesPerSecond = Math.max(0, (p.bytesDone - base.bytes) / dt);
        }
        this.store.set({ progress: Object.freeze({ ...p, bytesPerSecond }) });
      };
      this.#off = op.subscribe(onChange);
      onChange();
      const result = await op;
      if (!current()) return undefined;
      onChange();
      this.#off?.();
      this.#off = undefined;
      this.#controller = undefined;
      this.store.set({ status: 'success', result, error: undefined });
      return result;
    } catch (e) {
      if (!current()) return undefined;
      this.#off?.();
      this.#off = undefined;
      this.#controller = undefined;
      // Aborted by the caller's own signal: `ABORTED`, whatever reason it gave (the `cause`).
      const error = controller.signal.aborted && !(e instanceof VeilError && e.code !== 'ABORTED')
        ? (e instanceof VeilError ? e : new VeilError('ABORTED', e instanceof Error ? e.message : 'aborted', { cause: e }))
        : hookError(e);
      this.store.set({ status: 'error', error, result: undefined });
      return undefined;
    }
  }

  /** Aborts the running job: `status: 'error'` with an `AbortError`; its late result is dropped. */
  cancel(): void {
    if (this.store.getSnapshot().status !== 'pending') return;
    const e = abortError();
    this.#stop(e);
    this.store.set({ status: 'error', error: hookError(e), result: undefined });
  }

  /** Aborts any running job and returns to `idle`; a late result is dropped. */
  reset(): void {
    this.#stop(abortError());
    this.store.reset();
  }

  /** Unmount: aborts the running job; its late events are dropped (the state is kept). */
  dispose(): void {
    this.#stop(abortError());
  }
}
