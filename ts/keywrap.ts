/** AES-256 Key Wrap, RFC 3394 (seed names `wrapKey` / `unwrapKey`). */
import * as wasm from './wasm/veilkit.js';
import { call } from './init.js';
import { blocks, exact } from './validate.js';

/** Wraps `keyToWrap` (≥ 16 bytes, a multiple of 8) under a 32-byte KEK; output is 8 bytes longer. */
export function wrapKey(kek: Uint8Array, keyToWrap: Uint8Array): Uint8Array {
  const k = exact('kek', kek, 32);
  const w = blocks('keyToWrap', keyToWrap, 16, 8);
  return call(() => wasm.aesKwWrap(k, w));
}

/** Unwraps; a failed integrity check throws `VeilError('AUTHENTICATION_FAILED')`. */
export function unwrapKey(kek: Uint8Array, wrappedKey: Uint8Array): Uint8Array {
  const k = exact('kek', kek, 32);
  const w = blocks('wrappedKey', wrappedKey, 24, 8);
  return call(() => wasm.aesKwUnwrap(k, w));
}
