/**
 * A ratchet state kept in WebAssembly memory (`SessionState`): parse once
 * with {@link SessionState.fromBytes}, then `encrypt` / `decrypt` without
 * re-parsing and re-serializing the state on every call (the call level of
 * libolm's session objects), and `toBytes()` only to save. The byte-level
 * functions of `./core.ts` are the same operations on serialized states.
 *
 * Like `./core.ts` this is for the keystore worker, tests and benches (not
 * exported from the package index). Arguments are checked before
 * WebAssembly; core failures are `VeilError`s with the Rust codes; a failed
 * `encrypt` or `decrypt` leaves the state exactly as it was. Secret outputs
 * (`toBytes()`, plaintexts) are fresh arrays the caller owns and wipes;
 * caller buffers are never mutated. Call {@link SessionState.dispose} (or
 * `using`) when done: it frees (and zeroizes) the state in wasm memory; every
 * method afterwards throws `VeilError('INVALID_STATE')`.
 */
import * as wasm from '../wasm/veilkit.js';
import { call } from '../init.js';
import { WasmResource, disposedError } from '../dispose.js';
import { bytes, integer, optionalBytes, untrusted } from '../validate.js';
import { SESSION_SIZES } from './core.js';
import { int } from './parts.js';

function options(o: unknown): { aad: Uint8Array; now: number } {
  if (typeof o !== 'object' || o === null) throw new TypeError('options must be { aad?, now }');
  const opts = o as { aad?: unknown; now?: unknown };
  const now = integer('options.now', opts.now, 0, Number.MAX_SAFE_INTEGER);
  return { aad: optionalBytes('options.aad', opts.aad), now };
}

/** One side of a session, parsed once and kept in WebAssembly memory. */
export class SessionState extends WasmResource {
  #handle: wasm.SessionStateHandle | undefined;

  private constructor(handle: wasm.SessionStateHandle) {
    super();
    this.#handle = handle;
  }

  /**
   * Parses a serialized state (docs/SESSIONS.md §5.9): `MALFORMED_INPUT`,
   * `INVALID_STATE` or `INVALID_KEY` if it does not parse. `state` is copied
   * (the caller still owns and wipes its array).
   */
  static fromBytes(state: Uint8Array): SessionState {
    const s = untrusted('state', state, 1);
    return new SessionState(call(() => new wasm.SessionStateHandle(s)));
  }

  #live(): wasm.SessionStateHandle {
    if (this.#handle === undefined) throw disposedError('this SessionState');
    return this.#handle;
  }

  /**
   * Encrypts `plaintext` with `o.aad`: the message. `o.now` is checked but
   * not used (the core's `encrypt` takes no clock, as `core.encrypt`).
   */
  encrypt(plaintext: Uint8Array, o: { aad?: Uint8Array; now: number }): Uint8Array {
    const h = this.#live();
    const p = bytes('plaintext', plaintext);
    const { aad } = options(o);
    return call(() => h.encrypt(p, aad));
  }

  /** Decrypts `message` with `o.aad` at `o.now`: the plaintext. On failure the state is unchanged. */
  decrypt(message: Uint8Array, o: { aad?: Uint8Array; now: number }): Uint8Array {
    const h = this.#live();
    const m = untrusted('message', message, SESSION_SIZES.messageMin);
    const { aad, now } = options(o);
    return call(() => h.decrypt(m, aad, now));
  }

  /** The serialized state (secret: a fresh array the caller wraps and wipes). */
  toBytes(): Uint8Array {
    const h = this.#live();
    return call(() => h.toBytes());
  }

  /** The state counter (strictly increases with every committed change). */
  counter(): number {
    const h = this.#live();
    return int(call(() => h.counter()));
  }

  /** Frees (and zeroizes) the state in WebAssembly memory. Idempotent (also `[Symbol.dispose]()`, `free()`). */
  override dispose(): void {
    this.#handle?.free();
    this.#handle = undefined;
  }
}
