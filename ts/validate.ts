/**
 * Argument checks run before anything crosses into WebAssembly.
 *
 * Two kinds of bytes: *arguments* the caller chose (keys, seeds, options), whose wrong type or
 * length is a programming error (`TypeError` / `RangeError`), and *untrusted input* that arrived
 * from someone else (messages, bundles, sealed boxes, packets, containers, backups, stored states),
 * whose wrong length is malformed input an attacker can send: {@link untrusted} and
 * {@link untrustedExact} answer it with a `VeilError` and a code, never a `RangeError`.
 */
import { VeilError, type VeilErrorCode } from '../protocol/errors.js';

const EMPTY = new Uint8Array(0);

/** Throws `TypeError` unless `value` is a `Uint8Array`. */
export function bytes(name: string, value: unknown): Uint8Array {
  if (!(value instanceof Uint8Array)) {
    throw new TypeError(`${name} must be a Uint8Array, got ${describe(value)}`);
  }
  return value;
}

/** A `Uint8Array` of exactly `length` bytes, else `TypeError` / `RangeError`. */
export function exact(name: string, value: unknown, length: number): Uint8Array {
  const b = bytes(name, value);
  if (b.length !== length) {
    throw new RangeError(`${name} must be ${length} bytes, got ${b.length}`);
  }
  return b;
}

/** A `Uint8Array` whose length is one of `lengths`. */
export function oneOf(name: string, value: unknown, lengths: readonly number[]): Uint8Array {
  const b = bytes(name, value);
  if (!lengths.includes(b.length)) {
    throw new RangeError(`${name} must be ${lengths.join(' or ')} bytes, got ${b.length}`);
  }
  return b;
}

/** A `Uint8Array` of at least `min` bytes. */
export function atLeast(name: string, value: unknown, min: number): Uint8Array {
  const b = bytes(name, value);
  if (b.length < min) {
    throw new RangeError(`${name} must be at least ${min} bytes, got ${b.length}`);
  }
  return b;
}

/** A `Uint8Array` of at least `min` bytes and a multiple of `step` bytes long. */
export function blocks(name: string, value: unknown, min: number, step: number): Uint8Array {
  const b = bytes(name, value);
  if (b.length < min || b.length % step !== 0) {
    throw new RangeError(`${name} must be at least ${min} bytes and a multiple of ${step}, got ${b.length}`);
  }
  return b;
}

/** A `Uint8Array` of at most `max` bytes. */
export function atMost(name: string, value: unknown, max: number): Uint8Array {
  const b = bytes(name, value);
  if (b.length > max) {
    throw new RangeError(`${name} must be at most ${max} bytes, got ${b.length}`);
  }
  return b;
}

/**
 * Untrusted input of `min` to `max` bytes: `TypeError` unless a `Uint8Array` (the caller passed
 * the wrong thing), `VeilError(code)` (default `MALFORMED_INPUT`) for any other length, with
 * `details.got` (the length) — the same outcome whoever crafted the bytes.
 */
export function untrusted(name: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER, code: VeilErrorCode = 'MALFORMED_INPUT'): Uint8Array {
  const b = bytes(name, value);
  if (b.length < min || b.length > max) {
    const want = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : min === max ? `${min}` : `${min} to ${max}`;
    throw new VeilError(code, `${name} must be ${want} bytes, got ${b.length}`, { details: { got: b.length } });
  }
  return b;
}

/** Untrusted input of exactly `length` bytes ({@link untrusted}). */
export function untrustedExact(name: string, value: unknown, length: number, code: VeilErrorCode = 'MALFORMED_INPUT'): Uint8Array {
  return untrusted(name, value, length, length, code);
}

/** Optional bytes: `undefined`/`null` mean empty. */
export function optionalBytes(name: string, value: unknown): Uint8Array {
  if (value === undefined || value === null) return EMPTY;
  return bytes(name, value);
}

/** A string or bytes (UTF-8 encoded); returns bytes and whether we allocated them. */
export function stringOrBytes(name: string, value: unknown): { data: Uint8Array; owned: boolean } {
  if (typeof value === 'string') return { data: new TextEncoder().encode(value), owned: true };
  if (value instanceof Uint8Array) return { data: value, owned: false };
  throw new TypeError(`${name} must be a string or a Uint8Array, got ${describe(value)}`);
}

/** A string whose UTF-8 encoding is `min` to `max` bytes long. */
export function utf8(name: string, value: unknown, min: number, max: number): string {
  const s = string(name, value);
  const n = new TextEncoder().encode(s).length;
  if (n < min || n > max) throw new RangeError(`${name} must be ${min} to ${max} UTF-8 bytes, got ${n}`);
  return s;
}

/** An integer in `[min, max]`, else `TypeError` / `RangeError`. */
export function integer(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new TypeError(`${name} must be an integer, got ${describe(value)}`);
  }
  if (value < min || value > max) {
    throw new RangeError(`${name} must be between ${min} and ${max}, got ${value}`);
  }
  return value;
}

/** A string, else `TypeError`. */
export function string(name: string, value: unknown): string {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string, got ${describe(value)}`);
  return value;
}

/** Overwrites a buffer this library allocated. Never call it on a caller's buffer. */
export function wipe(...buffers: Uint8Array[]): void {
  for (const b of buffers) b.fill(0);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an Array';
  if (typeof value === 'object') return value.constructor?.name ?? 'an object';
  return typeof value;
}
