/** HKDF-SHA256, PBKDF2-HMAC-SHA256 and Argon2id. */
import * as wasm from './wasm/veilkit.js';
import { call } from './init.js';
import { atLeast, atMost, bytes, integer, optionalBytes, stringOrBytes, wipe } from './validate.js';
import { KDF_BOUNDS } from './kdf-bounds.js';

const A = KDF_BOUNDS.argon2id;

/** Largest HKDF-SHA256 output (255 · 32). */
export const HKDF_MAX_LENGTH = 8160;

/** HKDF-SHA256 (RFC 5869). `salt`/`info` null mean empty. */
export function deriveHkdf(ikm: Uint8Array, salt: Uint8Array | null, info: Uint8Array | null, keyLen: number): Uint8Array {
  const i = bytes('ikm', ikm);
  const s = optionalBytes('salt', salt);
  const f = optionalBytes('info', info);
  const n = integer('keyLen', keyLen, 1, HKDF_MAX_LENGTH);
  return call(() => wasm.hkdfSha256(i, s, f, n));
}

/**
 * PBKDF2-HMAC-SHA256. Any iteration count ≥ 1 is accepted by this primitive;
 * veilkit's own password-wrapping paths require at least 600,000.
 * A string password is UTF-8 encoded.
 */
export function derivePbkdf2(password: Uint8Array | string, salt: Uint8Array, iterations: number, keyLen: number): Uint8Array {
  const { data, owned } = stringOrBytes('password', password);
  try {
    const s = bytes('salt', salt);
    const it = integer('iterations', iterations, 1, 0xffff_ffff);
    const n = integer('keyLen', keyLen, 1, KDF_BOUNDS.pbkdf2MaxOutputLen);
    return call(() => wasm.pbkdf2Sha256(data, s, it, n));
  } finally {
    if (owned) wipe(data);
  }
}

/** Argon2id cost parameters. */
export interface Argon2idParams {
  /** Memory in KiB: at least 8 · parallelism, at most 1,048,576 (1 GiB). */
  memoryKib: number;
  /** Passes over memory, ≥ 1. */
  iterations: number;
  /** Lanes, 1..16. */
  parallelism: number;
  /** Output length in bytes, 4..1024. */
  length: number;
  /** Optional secret (pepper), at most 32 bytes. */
  secret?: Uint8Array;
  /** Optional associated data. */
  associatedData?: Uint8Array;
}

/** Argon2id v1.3 (RFC 9106). Salt at least 8 bytes; parameters are checked before any memory is allocated. */
export function argon2id(password: Uint8Array | string, salt: Uint8Array, params: Argon2idParams): Uint8Array {
  if (typeof params !== 'object' || params === null) throw new TypeError('params must be an object');
  const { data, owned } = stringOrBytes('password', password);
  try {
    const s = atLeast('salt', salt, A.minSaltLen);
    const p = integer('params.parallelism', params.parallelism, 1, A.maxParallelism);
    const m = integer('params.memoryKib', params.memoryKib, 8 * p, A.maxMemoryKib);
    const t = integer('params.iterations', params.iterations, 1, 0xffff_ffff);
    const len = integer('params.length', params.length, A.minOutputLen, A.maxOutputLen);
    const secret = atMost('params.secret', optionalBytes('params.secret', params.secret), A.maxSecretLen);
    const ad = optionalBytes('params.associatedData', params.associatedData);
    return call(() => wasm.argon2id(data, s, secret, ad, m, t, p, len));
  } finally {
    if (owned) wipe(data);
  }
}
