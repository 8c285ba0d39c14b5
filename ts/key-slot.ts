/**
 * The private half of a key handle (ts/keys.ts, ts/mlkem-key.ts): a non-extractable WebCrypto key
 * on the native route, or what the wasm route holds (the key's bytes in JS memory, or a wasm
 * object), until `release()`. One place for the rules every handle follows: exactly one of the two
 * until released, neither after; a use after release is `VeilError('INVALID_STATE')`, checked
 * before the caller's arguments; releasing wipes the bytes (or frees the wasm object) and is
 * idempotent.
 */
import { disposedError } from './dispose.js';

export class KeySlot<W extends object> {
  #native: CryptoKey | undefined;
  #wasm: W | undefined;
  readonly #free: (held: W) => void;
  readonly #what: string;

  /** `key`: the WebCrypto key, or the wasm route's `W`; `free` wipes or frees a `W`; `what` names the key in errors. */
  constructor(key: CryptoKey | W, free: (held: W) => void, what: string) {
    if (key instanceof CryptoKey) this.#native = key;
    else this.#wasm = key;
    this.#free = free;
    this.#what = what;
  }

  /** The WebCrypto key on the native route; `undefined` on wasm and once released (it does not throw). */
  get webCryptoKey(): CryptoKey | undefined {
    return this.#native;
  }

  /** The live key: the WebCrypto key, or the wasm route's `W`; `VeilError('INVALID_STATE')` once released. */
  held(): CryptoKey | W {
    const key = this.#native ?? this.#wasm;
    if (key === undefined) throw disposedError(this.#what);
    return key;
  }

  /** Forgets the key (wipes / frees the wasm route's `W`, drops the WebCrypto key). Idempotent. */
  release(): void {
    if (this.#wasm !== undefined) this.#free(this.#wasm);
    this.#wasm = undefined;
    this.#native = undefined;
  }
}
