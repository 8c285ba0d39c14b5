/**
 * Internal helpers shared by the messaging modules (argument checks, the
 * `MALFORMED_INPUT` error, strict base64url); not re-exported by ts/messaging.ts.
 */
import { VeilError } from '../../protocol/errors.js';
import { bytes, integer } from '../validate.js';
import { base64urlDecode } from '../bytes.js';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
export const ED25519_SECRET_LENGTHS = [64, 32] as const;

export function nonEmpty(name: string, value: unknown, max: number): Uint8Array {
  const b = bytes(name, value);
  if (b.length === 0 || b.length > max) throw new RangeError(`${name} must be 1 to ${max} bytes, got ${b.length}`);
  return b;
}

export function safeInteger(name: string, value: unknown, min = 0): number {
  return integer(name, value, min, MAX_SAFE);
}

export function boolean(name: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new TypeError(`${name} must be a boolean, got ${typeof value}`);
  return value;
}

export function malformed(what: string): VeilError {
  return new VeilError('MALFORMED_INPUT', `malformed input: ${what}`);
}

// ---------------------------------------------------------------- base64url (RFC 4648 §5, unpadded, canonical)

export function b64urlDecode(what: string, text: unknown, length?: number): Uint8Array {
  const out = typeof text === 'string' ? base64urlDecode(text) : undefined;
  if (out === undefined || (length !== undefined && out.length !== length)) throw malformed(what);
  return out;
}
