/** Small helpers the specs, fixtures and Node tests share. */
import { VeilError } from '../../protocol/errors.js';

/** The error code (VeilError) or name (other errors) a promise rejects with, or 'resolved'. */
export async function errorCode(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'resolved';
  } catch (e) {
    return e instanceof VeilError ? e.code : (e as Error).name;
  }
}

/** `n` as a `bytes`-byte big-endian unsigned integer. */
export function bigEndian(n: number | bigint, bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  let v = BigInt(n);
  for (let i = bytes - 1; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}
