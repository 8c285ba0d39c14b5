/** Shamir secret sharing over GF(2^8). A share is `x(1 byte) ‖ y`. */
import * as wasm from './wasm/veilkit.js';
import { call } from './init.js';
import { bytes, integer, wipe } from './validate.js';
import { splitOwned } from './split.js';

/**
 * Splits `secret` (1..1024 bytes, typically a 32-byte key) into `shares`
 * shares, any `threshold` of which recover it (2 ≤ threshold ≤ shares ≤ 255).
 */
export function shamirSplit(secret: Uint8Array, threshold: number, shares: number): Uint8Array[] {
  const s = bytes('secret', secret);
  if (s.length < 1 || s.length > 1024) throw new RangeError(`secret must be 1 to 1024 bytes, got ${s.length}`);
  const n = integer('shares', shares, 2, 255);
  const t = integer('threshold', threshold, 2, n);
  const out = call(() => wasm.shamirSplit(s, t, n));
  return splitOwned(out, ...Array.from({ length: n }, () => 1 + s.length));
}

/**
 * Recovers the secret. Shares with x = 0, duplicate x or different lengths
 * throw `VeilError('INVALID_SHARES')`. Fewer than the threshold yield a wrong value.
 */
export function shamirCombine(shares: readonly Uint8Array[]): Uint8Array {
  if (!Array.isArray(shares)) throw new TypeError('shares must be an array of Uint8Array');
  if (shares.length < 2) throw new RangeError(`shares must hold at least 2 shares, got ${shares.length}`);
  const list = shares.map((s, i) => bytes(`shares[${i}]`, s));
  const len = list[0]?.length ?? 0;
  if (len < 2) throw new RangeError(`shares[0] must be at least 2 bytes, got ${len}`);
  list.forEach((s, i) => {
    if (s.length !== len) throw new RangeError(`shares[${i}] must be ${len} bytes like shares[0], got ${s.length}`);
  });
  const joined = new Uint8Array(len * list.length);
  list.forEach((s, i) => joined.set(s, i * len));
  try {
    return call(() => wasm.shamirCombine(joined, len));
  } finally {
    wipe(joined);
  }
}
