/**
 * One message of a group conversation as the keystore's encrypted history stores it (docs/GROUPS.md#group-chat):
 * a received application message, written by the keystore worker in the same transaction that advances the
 * group's state (`Group.receive(message, { history })`), or one this member sent, written by the page when the
 * delivery service gave it back. Plain TypeScript, shared by the page and the worker.
 *
 *   u8  version = 1
 *   u8  kind: 1 received, 2 sent by this member
 *   32  sender's identity id (SHA-256("veilkit-session-identity-v1" ‖ Enc(ID)))
 *   u32 sender's leaf index
 *   u64 epoch
 *   u64 time, ms since 1970 (kind 1: when this member received it; kind 2: when the delivery service accepted it)
 *   u64 position: the app's number for the message (its sequence number in the delivery service's log)
 *   u32 aad length, aad
 *   the plaintext (the rest)
 *
 * All integers big-endian; u64 values are at most 2^53 − 1. Decoding is total: anything else is `MALFORMED_INPUT`.
 */
import { VeilError } from '../../protocol/errors.js';
import { bytesToHex } from '../bytes.js';

/** The version byte of a group history entry. */
export const GROUP_HISTORY_VERSION = 1;
const FIXED = 1 + 1 + 32 + 4 + 8 + 8 + 8 + 4;

/** A group message of the history, decoded. */
export interface GroupHistoryMessage {
  readonly kind: 'received' | 'sent';
  /** Hex of the sender's identity id (as `GroupMember.identityId`). */
  readonly senderId: string;
  readonly senderIndex: number;
  readonly epoch: number;
  /** ms since 1970. */
  readonly time: number;
  /** The app's number for the message: its sequence number in the delivery service's log. */
  readonly position: number;
  readonly aad: Uint8Array;
  readonly bytes: Uint8Array;
}

function u64(view: DataView, at: number, value: number): void {
  view.setUint32(at, Math.floor(value / 2 ** 32));
  view.setUint32(at + 4, value >>> 0);
}

function readU64(view: DataView, at: number): number {
  const v = view.getUint32(at) * 2 ** 32 + view.getUint32(at + 4);
  if (!Number.isSafeInteger(v)) throw new VeilError('MALFORMED_INPUT', 'a group history entry carries an integer above 2^53 − 1');
  return v;
}

function safe(name: string, v: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isSafeInteger(v) || v < 0 || v > max) throw new RangeError(`${name} must be an integer from 0 to ${max}`);
  return v;
}

/** The entry's bytes. `senderId` is the 32-byte identity id. */
export function encodeGroupHistoryMessage(m: {
  kind: 'received' | 'sent'; senderId: Uint8Array; senderIndex: number; epoch: number; time: number; position: number; aad: Uint8Array; bytes: Uint8Array;
}): Uint8Array {
  if (m.senderId.length !== 32) throw new RangeError('senderId must be 32 bytes');
  const out = new Uint8Array(FIXED + m.aad.length + m.bytes.length);
  const v = new DataView(out.buffer);
  out[0] = GROUP_HISTORY_VERSION;
  out[1] = m.kind === 'received' ? 1 : 2;
  out.set(m.senderId, 2);
  v.setUint32(34, safe('senderIndex', m.senderIndex, 0xffffffff));
  u64(v, 38, safe('epoch', m.epoch));
  u64(v, 46, safe('time', m.time));
  u64(v, 54, safe('position', m.position));
  v.setUint32(62, m.aad.length);
  out.set(m.aad, FIXED);
  out.set(m.bytes, FIXED + m.aad.length);
  return out;
}

/** Decodes an entry; anything that is not one (wrong version or kind, lengths past the end) is `MALFORMED_INPUT`. */
export function decodeGroupHistoryMessage(entry: Uint8Array): GroupHistoryMessage {
  if (!(entry instanceof Uint8Array) || entry.length < FIXED) throw new VeilError('MALFORMED_INPUT', 'not a group history entry: too short');
  const v = new DataView(entry.buffer, entry.byteOffset, entry.byteLength);
  if (entry[0] !== GROUP_HISTORY_VERSION) throw new VeilError('MALFORMED_INPUT', `group history entry version ${entry[0]} is not 1`);
  const kind = entry[1] === 1 ? 'received' : entry[1] === 2 ? 'sent' : undefined;
  if (kind === undefined) throw new VeilError('MALFORMED_INPUT', `group history entry kind ${entry[1]} is not 1 or 2`);
  const aadLength = v.getUint32(62);
  if (aadLength > entry.length - FIXED) throw new VeilError('MALFORMED_INPUT', 'a group history entry\'s aad runs past its end');
  return {
    kind, senderId: bytesToHex(entry.subarray(2, 34)), senderIndex: v.getUint32(34), epoch: readU64(v, 38), time: readU64(v, 46), position: readU64(v, 54),
    aad: entry.slice(FIXED, FIXED + aadLength), bytes: entry.slice(FIXED + aadLength),
  };
}
