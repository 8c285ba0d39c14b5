/**
 * The byte toolkit shared by the page (ts/) and the workers (worker/):
 * concatenation, hex, unpadded base64url, constant-time comparison and the
 * views WebCrypto's `BufferSource` parameters want. Argument checks live in
 * ts/validate.ts.
 */
import { VeilError, isErrorLike } from '../protocol/errors.js';

/** The parts one after the other, in a fresh buffer. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** Lower-case hex. */
export function bytesToHex(b: Uint8Array): string {
  let s = '';
  for (const x of b) s += x.toString(16).padStart(2, '0');
  return s;
}

/** Hex (either case) to bytes; the input is trusted to be well-formed (an odd last digit is dropped). */
export function hexToBytes(hex: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const B64_INDEX = new Map(Array.from(B64, (c, i) => [c, i]));

/** Unpadded base64url (RFC 4648 §5). */
export function base64urlEncode(data: Uint8Array): string {
  let out = '';
  for (let i = 0; i < data.length; i += 3) {
    const n = ((data[i] ?? 0) << 16) | ((data[i + 1] ?? 0) << 8) | (data[i + 2] ?? 0);
    const chars = Math.min(4, Math.ceil(((data.length - i) * 8) / 6));
    for (let k = 0; k < chars; k++) out += B64.charAt((n >> (18 - 6 * k)) & 63);
  }
  return out;
}

/**
 * Canonical unpadded base64url (RFC 4648 §5): `undefined` for anything else
 * (padding, a character outside the alphabet, an impossible length, non-zero
 * unused trailing bits).
 */
export function base64urlDecode(text: string): Uint8Array | undefined {
  if (text.length % 4 === 1) return undefined;
  const out = new Uint8Array(Math.floor((text.length * 6) / 8));
  let acc = 0;
  let bits = 0;
  let j = 0;
  for (const c of text) {
    const v = B64_INDEX.get(c);
    if (v === undefined) return undefined;
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[j++] = (acc >> bits) & 0xff;
    }
  }
  // Canonical: the unused trailing bits must be zero.
  if ((acc & ((1 << bits) - 1)) !== 0) return undefined;
  return out;
}

/** Equal length and bytes, in time that depends only on the length. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  // Same length, so the defaults are never taken: no branch depends on the bytes.
  for (let i = 0; i < a.length; i++) d |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return d === 0;
}

/** A view typed for WebCrypto (`BufferSource` wants an `ArrayBuffer`-backed view); no copy. */
export function bs(b: Uint8Array): Uint8Array<ArrayBuffer> {
  return b as Uint8Array<ArrayBuffer>;
}

/** A copy in a fresh `ArrayBuffer` (what WebCrypto's `BufferSource` parameters want). */
export function copyBytes(b: Uint8Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(b);
}

/** `b` itself when it is backed by an `ArrayBuffer`, else (a view of shared memory) a copy. */
export function bufferSource(b: Uint8Array): Uint8Array<ArrayBuffer> {
  return b.buffer instanceof ArrayBuffer ? (b as Uint8Array<ArrayBuffer>) : copyBytes(b);
}

/**
 * A `Blob`'s bytes. A read the browser refuses is `VeilError('READ_FAILED')` with the browser's
 * error name as `details.reason`: a picked file that changed or vanished since
 * (`NotReadableError`, `NotFoundError`), or — Chromium — blob storage that is full because
 * large `Blob`s the page dropped are not yet garbage-collected (`NotReadableError` as well).
 */
export async function readBlob(blob: Blob): Promise<Uint8Array<ArrayBuffer>> {
  try {
    return new Uint8Array(await blob.arrayBuffer());
  } catch (e) {
    const reason = isErrorLike(e) ? e.name : typeof e;
    const why = isErrorLike(e) ? e.message : String(e);
    throw new VeilError('READ_FAILED', `the browser could not read a Blob (${reason}: ${why}); a picked file may have changed since, or the browser's blob storage is full`, { cause: e, details: { reason } });
  }
}
