/**
 * The output layout of the session bindings (crate/src/wasm/session/mod.rs):
 * `u32 len ‖ bytes` parts (big-endian), integers as 8-byte big-endian parts,
 * an absent optional value as an empty part. Internal to ts/session/.
 */
import { VeilError } from '../../protocol/errors.js';

/** Splits a buffer returned by wasm (which this library owns) into exactly `count` copies, then wipes it. */
export function splitParts(buffer: Uint8Array, count: number): Uint8Array[] {
  const parts: Uint8Array[] = [];
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let offset = 0;
  try {
    while (offset < buffer.length) {
      if (offset + 4 > buffer.length) throw internal();
      const len = view.getUint32(offset);
      offset += 4;
      if (offset + len > buffer.length) throw internal();
      parts.push(buffer.slice(offset, offset + len));
      offset += len;
    }
    if (parts.length !== count) throw internal();
    return parts;
  } catch (e) {
    for (const p of parts) p.fill(0);
    throw e;
  } finally {
    buffer.fill(0);
  }
}

function internal(): VeilError {
  return new VeilError('INTERNAL', 'session binding returned an unexpected layout');
}

/** An 8-byte big-endian integer part as a number (above 2^53 − 1 it rounds). */
export function int(part: Uint8Array | undefined): number {
  if (part?.length !== 8) throw internal();
  return Number(new DataView(part.buffer, part.byteOffset, 8).getBigUint64(0));
}

/** An optional integer part: `undefined` when empty. */
export function optInt(part: Uint8Array | undefined): number | undefined {
  if (part === undefined) throw internal();
  return part.length === 0 ? undefined : int(part);
}

/** A bytes part. */
export function part(p: Uint8Array | undefined): Uint8Array {
  if (p === undefined) throw internal();
  return p;
}

/** An optional bytes part: `undefined` when empty. */
export function optPart(p: Uint8Array | undefined): Uint8Array | undefined {
  return part(p).length === 0 ? undefined : p;
}
