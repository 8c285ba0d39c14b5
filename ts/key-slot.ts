/**
 * The private half of a key handle (ts/keys.ts, ts/mlkem-key.ts): a non-extractable WebCrypto key
 * on the native route, or what the wasm route holds (the key's bytes in JS memory, or a wasm
 * object), until `release()`. One place for the rules every handle follows: exactly one of the two
 * until released, neither after; a use after release is `VeilError('INVALID_STATE')`, checked
 * before the caller's arguments; releasing wipes the bytes (or frees the wasm object) and is
 * idempotent. The route tells the two apart, never `instanceof CryptoKey`: outside a secure
 * context (a plain-http page) there is no global `CryptoKey`, and the wasm route must still work.
 */
import { disposedError } from './dispose.js';
import type { Route } from './webcrypto/routes.js';

/** What {@link KeySlot.held} gives: the WebCrypto key, or the wasm route's `W`. */
export type HeldKey<W> = { readonly native: CryptoKey } | { readonly wasm: W };

export class KeySlot<W> {
  #held: HeldKey<W> | undefined;
  readonly #free: (held: W) => void;
  readonly #what: string;

  /** `key`: the WebCrypto key when `route` is native, else the wasm route's `W`; `free` wipes or frees a `W`; `what` names the key in errors. */
  constructor(route: Route, key: CryptoKey | W, free: (held: W) => void, what: string) {
    this.#held = route === 'native' ? { native: key as CryptoKey } : { wasm: key as W };
    this.#free = free;
    this.#what = what;
  }

  /** The WebCrypto key on the native route; `undefined` on wasm and once released (it does not throw). */
  get webCryptoKey(): CryptoKey | undefined {
    return this.#held !== undefined && 'native' in this.#held ? this.#held.native : undefined;
  }

  /** The live key; `VeilError('INVALID_STATE')` once released. */
  held(): HeldKey<W> {
    if (this.#held === undefined) throw disposedError(this.#what);
    return this.#held;
  }

  /** Forgets the key (wipes / frees the wasm route's `W`, drops the WebCrypto key). Idempotent. */
  release(): void {
    const held = this.#held;
    this.#held = undefined;
    if (held !== undefined && 'wasm' in held) this.#free(held.wasm);
  }
}
