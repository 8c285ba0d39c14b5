/** SHA-256, HMAC-SHA256 and BLAKE3. */
import * as wasm from './wasm/veilkit.js';
import { call } from './init.js';
import { bytes, exact, integer, string } from './validate.js';

/** Largest BLAKE3 output this API produces (XOF). */
export const BLAKE3_MAX_LENGTH = 65536;

/** SHA-256 digest (32 bytes). */
export function sha256(data: Uint8Array): Uint8Array {
  const d = bytes('data', data);
  return call(() => wasm.sha256(d));
}

/** HMAC-SHA256 tag (32 bytes). */
export function hmacSha256(key: Uint8Array, data: Uint8Array): Uint8Array {
  const k = bytes('key', key);
  const d = bytes('data', data);
  return call(() => wasm.hmacSha256(k, d));
}

/** Constant-time HMAC-SHA256 check of a 16..32-byte (possibly truncated) tag. */
export function verifyHmacSha256(key: Uint8Array, data: Uint8Array, tag: Uint8Array): boolean {
  const k = bytes('key', key);
  const d = bytes('data', data);
  const t = bytes('tag', tag);
  if (t.length < 16 || t.length > 32) throw new RangeError(`tag must be 16 to 32 bytes, got ${t.length}`);
  try {
    call(() => wasm.hmacSha256Verify(k, d, t));
    return true;
  } catch (e) {
    if (e instanceof Error && (e as { code?: string }).code === 'AUTHENTICATION_FAILED') return false;
    throw e;
  }
}

/** Options of `blake3`: output `length` (bytes) and an optional 32-byte `key` (keyed mode). */
export interface Blake3Options {
  /** Output length in bytes (default 32, at most 65536). */
  length?: number;
  /** 32-byte key for keyed hashing (BLAKE3 `keyed_hash`). */
  key?: Uint8Array;
}

/** BLAKE3 hash, optionally keyed, with extendable output. */
export function blake3(data: Uint8Array, options: Blake3Options = {}): Uint8Array {
  const d = bytes('data', data);
  const len = integer('length', options.length ?? 32, 1, BLAKE3_MAX_LENGTH);
  if (options.key !== undefined) {
    const k = exact('key', options.key, 32);
    return call(() => wasm.blake3Keyed(k, d, len));
  }
  return call(() => wasm.blake3Hash(d, len));
}

/** BLAKE3 `derive_key` mode: a context string and key material. */
export function blake3DeriveKey(context: string, material: Uint8Array, length = 32): Uint8Array {
  const c = string('context', context);
  const m = bytes('material', material);
  const len = integer('length', length, 1, BLAKE3_MAX_LENGTH);
  return call(() => wasm.blake3DeriveKey(c, m, len));
}
