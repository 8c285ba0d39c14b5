/** Bounded replay protection held in WebAssembly memory (docs/PROTOCOL.md §11). */
import * as wasm from '../wasm/veilkit.js';
import { call } from '../init.js';
import { WasmResource, disposedError } from '../dispose.js';
import { exact, integer, string } from '../validate.js';
import { safeInteger } from './internal.js';
import { MESSAGING } from './sizes.js';

// ---------------------------------------------------------------- replay store

/** Options of a {@link ReplayStore}. */
export interface ReplayStoreOptions {
  /** How long a hash is remembered, in seconds (≥ 1). */
  windowSeconds: number;
  /** Capacity (1 … 1048576); when full, the oldest is forgotten and older timestamps are refused. */
  maxEntries: number;
}

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** Handle handed from {@link ReplayStore.fromJson} to the constructor. */
let adopted: wasm.ReplayStoreHandle | undefined;

/**
 * Bounded replay protection: 32-byte hashes with timestamps, O(log n) `has`
 * and `insert` (an ordered map: no hash flooding), held in WebAssembly memory.
 * Call {@link ReplayStore.dispose} when done (or `using`); every method afterwards throws
 * `VeilError('INVALID_STATE')`. Times are seconds; `now` defaults to the clock.
 */
export class ReplayStore extends WasmResource {
  #handle: wasm.ReplayStoreHandle | undefined;

  constructor(options: ReplayStoreOptions) {
    super();
    if (adopted !== undefined) {
      this.#handle = adopted;
      adopted = undefined;
      return;
    }
    if (typeof options !== 'object' || options === null) throw new TypeError('options must be { windowSeconds, maxEntries }');
    const w = safeInteger('windowSeconds', options.windowSeconds, 1);
    const m = integer('maxEntries', options.maxEntries, 1, 1 << 20);
    this.#handle = call(() => new wasm.ReplayStoreHandle(w, m));
  }

  /** A store from its JSON form ({@link ReplayStore.toJson}). */
  static fromJson(json: string): ReplayStore {
    const text = string('json', json);
    adopted = call(() => wasm.ReplayStoreHandle.fromJson(text));
    return new ReplayStore({ windowSeconds: 1, maxEntries: 1 });
  }

  #live(): wasm.ReplayStoreHandle {
    if (this.#handle === undefined) throw disposedError('this ReplayStore');
    return this.#handle;
  }

  /** Whether the hash has been seen (and not forgotten). */
  has(hash: Uint8Array): boolean {
    const handle = this.#live();
    const h = exact('hash', hash, MESSAGING.replayHashLength);
    return call(() => handle.has(h));
  }

  /**
   * Records a message hash. `timestamp` must be the **sender's timestamp that
   * the message authenticates** (signed or inside the encrypted envelope, and
   * covered by `hash`, e.g. the one given to {@link transcriptComputeMessageHash}),
   * never the time of receipt: the window and the floor stop a replay only
   * because a replayed message comes back with its original timestamp; a
   * receive time would give a replay of a forgotten hash a fresh one.
   * `now` is the receiver's clock. Throws `VeilError('REPLAY_DETECTED')` if
   * the hash is stored, `VeilError('REPLAY_OUT_OF_WINDOW')` if the timestamp
   * is outside the window (or older than what the store has had to forget).
   */
  insert(hash: Uint8Array, timestamp: number, now: number = nowSeconds()): void {
    const handle = this.#live();
    const h = exact('hash', hash, MESSAGING.replayHashLength);
    const t = safeInteger('timestamp', timestamp);
    const n = safeInteger('now', now);
    call(() => handle.insert(h, t, n));
  }

  /** Forgets expired hashes; returns how many. */
  prune(now: number = nowSeconds()): number {
    const handle = this.#live();
    const n = safeInteger('now', now);
    return call(() => handle.prune(n));
  }

  /** Number of stored hashes. */
  get size(): number {
    const handle = this.#live();
    return call(() => handle.size);
  }

  /** Timestamps below the floor are refused. */
  get floor(): number {
    const handle = this.#live();
    return call(() => handle.floor);
  }

  /** The JSON form (docs/PROTOCOL.md §11). */
  toJson(): string {
    const handle = this.#live();
    return call(() => handle.toJson());
  }

  /** Releases the WebAssembly memory. Idempotent (also `[Symbol.dispose]()`, deprecated `free()`). */
  override dispose(): void {
    this.#handle?.free();
    this.#handle = undefined;
  }
}
