/** The key-transparency log (format v2, docs/PROTOCOL.md §9). */
import * as wasm from '../wasm/veilkit.js';
import { VeilError } from '../../protocol/errors.js';
import { call } from '../init.js';
import { bytes, exact, integer, oneOf, string } from '../validate.js';
import { base64urlEncode } from '../bytes.js';
import { ED25519_SECRET_LENGTHS, b64urlDecode, malformed, nonEmpty, safeInteger } from './internal.js';
import { MESSAGING } from './sizes.js';

// ---------------------------------------------------------------- key-transparency log

/** What a key-log entry does to a key: add it, update it, or revoke it. */
export type KeyLogAction = 'add' | 'update' | 'revoke';
const ACTION_CODES: Readonly<Record<KeyLogAction, number>> = { add: 1, update: 2, revoke: 3 };
const ACTIONS: readonly KeyLogAction[] = ['add', 'update', 'revoke'];

/** One key-transparency log entry (format v2). */
export interface KeyLogEntry {
  userId: Uint8Array;
  /** Ed25519 key added, new key (update) or revoked key. */
  publicKey: Uint8Array;
  timestamp: number;
  /** Hash of the previous entry ({@link keyLogEntryHash}); 32 zero bytes for the first. */
  prevHash: Uint8Array;
  action: KeyLogAction;
  /** Signature of the authorising key: `publicKey` itself for `add`, the user's current key otherwise. */
  signature: Uint8Array;
  /** Proof of possession: `publicKey`'s signature; present exactly for `add` and `update`. */
  keySignature?: Uint8Array;
}

/** Why an entry was rejected (docs/PROTOCOL.md §9). */
export type KeyLogFailureReason =
  | 'MALFORMED'
  | 'BAD_PREV_HASH'
  | 'TIMESTAMP_DECREASED'
  | 'BAD_SIGNATURE'
  | 'FIRST_NOT_ADD'
  | 'DUPLICATE_ADD'
  | 'AFTER_REVOKE'
  | 'REVOKE_KEY_MISMATCH'
  | 'UNSUPPORTED_VERSION'
  | 'KEY_OF_ANOTHER_USER'
  | 'BAD_KEY_SIGNATURE';

/** The result of verifying a key log: valid, or the first failing entry's index and the reason. */
export type KeyLogVerification = { valid: true } | { valid: false; index: number; reason: KeyLogFailureReason };

/** `prevHash` of the first entry. */
export const KEY_LOG_GENESIS_HASH: Uint8Array = new Uint8Array(32);

const KEY_LOG_VERSION = 2;

function entryToJsonObject(e: KeyLogEntry, name: string): Record<string, unknown> {
  if (typeof e !== 'object' || e === null) throw new TypeError(`${name} must be a KeyLogEntry object`);
  if (!ACTIONS.includes(e.action)) throw new TypeError(`${name}.action must be 'add', 'update' or 'revoke'`);
  const o: Record<string, unknown> = {
    version: KEY_LOG_VERSION,
    userId: base64urlEncode(nonEmpty(`${name}.userId`, e.userId, MESSAGING.maxUserIdLength)),
    publicKey: base64urlEncode(exact(`${name}.publicKey`, e.publicKey, 32)),
    timestamp: safeInteger(`${name}.timestamp`, e.timestamp),
    prevHash: base64urlEncode(exact(`${name}.prevHash`, e.prevHash, 32)),
    action: e.action,
    signature: base64urlEncode(exact(`${name}.signature`, e.signature, 64)),
  };
  if (e.keySignature !== undefined) o.keySignature = base64urlEncode(exact(`${name}.keySignature`, e.keySignature, 64));
  return o;
}

function entryFromJsonObject(o: unknown, index: number): KeyLogEntry {
  const what = `key log entry ${index}`;
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw malformed(what);
  const r = o as Record<string, unknown>;
  if (r.version !== KEY_LOG_VERSION) throw new VeilError('UNSUPPORTED_VERSION', `${what}: not a version ${KEY_LOG_VERSION} entry`);
  const { timestamp, action } = r;
  if (typeof action !== 'string' || !ACTIONS.includes(action as KeyLogAction)) throw malformed(what);
  const introducesKey = action !== 'revoke';
  const keys = Object.keys(r);
  const expected = ['version', 'userId', 'publicKey', 'timestamp', 'prevHash', 'action', 'signature', ...(introducesKey ? ['keySignature'] : [])];
  if (keys.length !== expected.length || !expected.every((k) => k in r)) throw malformed(what);
  if (typeof timestamp !== 'number' || !Number.isSafeInteger(timestamp) || timestamp < 0) throw malformed(what);
  const userId = b64urlDecode(what, r.userId);
  if (userId.length === 0 || userId.length > MESSAGING.maxUserIdLength) throw malformed(what);
  const entry: KeyLogEntry = {
    userId,
    publicKey: b64urlDecode(what, r.publicKey, 32),
    timestamp,
    prevHash: b64urlDecode(what, r.prevHash, 32),
    action: action as KeyLogAction,
    signature: b64urlDecode(what, r.signature, 64),
  };
  if (introducesKey) entry.keySignature = b64urlDecode(what, r.keySignature, 64);
  return entry;
}

/** The stable JSON form of a log (array of entries, bytes as unpadded base64url). */
export function keyLogToJson(entries: readonly KeyLogEntry[]): string {
  const list: unknown = entries; // Array.isArray would narrow `entries` itself to any[]
  if (!Array.isArray(list)) throw new TypeError('entries must be an array of KeyLogEntry');
  return JSON.stringify(entries.map((e, i) => entryToJsonObject(e, `entries[${i}]`)));
}

/**
 * Parses the JSON form of a log (structure only; see {@link keyLogVerifyChain}).
 * An entry that is not format v2 throws `VeilError('UNSUPPORTED_VERSION')`.
 */
export function keyLogFromJson(json: string): KeyLogEntry[] {
  const text = string('json', json);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw malformed('key log JSON');
  }
  if (!Array.isArray(parsed)) throw malformed('key log JSON must be an array');
  return parsed.map((o, i) => entryFromJsonObject(o, i));
}

/**
 * Creates and signs an entry. `action` is `'add'` (self-signed: `signingKey`
 * must be the secret of `publicKey`), `'update'` (signed by the user's current
 * key, and co-signed by the new key: `newKeySigningKey` must be the secret of
 * `publicKey`, the proof of possession) or `'revoke'` (signed by the user's
 * current key), or the seed's numbers 1, 2, 3. Secrets are 64-byte Ed25519
 * secrets or 32-byte seeds.
 */
export function keyLogCreateEntry(
  userId: Uint8Array,
  publicKey: Uint8Array,
  timestamp: number,
  prevEntryHash: Uint8Array,
  action: KeyLogAction | 1 | 2 | 3,
  signingKey: Uint8Array,
  newKeySigningKey?: Uint8Array,
): KeyLogEntry {
  const u = nonEmpty('userId', userId, MESSAGING.maxUserIdLength);
  const pk = exact('publicKey', publicKey, 32);
  const t = safeInteger('timestamp', timestamp);
  const prev = exact('prevEntryHash', prevEntryHash, 32);
  let code: number;
  if (typeof action === 'number') {
    code = integer('action', action, 1, 3);
  } else if (typeof action === 'string' && ACTIONS.includes(action)) {
    code = ACTION_CODES[action];
  } else {
    throw new TypeError(`action must be 'add', 'update', 'revoke' or 1, 2, 3, got ${String(action)}`);
  }
  const sk = oneOf('signingKey', signingKey, ED25519_SECRET_LENGTHS);
  let newSk: Uint8Array | undefined;
  if (code === ACTION_CODES.update) {
    if (newKeySigningKey === undefined) throw new TypeError('an update needs newKeySigningKey, the secret of the new publicKey');
    newSk = oneOf('newKeySigningKey', newKeySigningKey, ED25519_SECRET_LENGTHS);
  } else if (newKeySigningKey !== undefined) {
    throw new TypeError('newKeySigningKey is only for update');
  }
  const json = call(() => wasm.keyLogCreateEntry(u, pk, t, prev, code, sk, newSk));
  return entryFromJsonObject(JSON.parse(json), 0);
}

/** Hash of an entry: the next entry's `prevHash`. */
export function keyLogEntryHash(entry: KeyLogEntry): Uint8Array {
  const json = JSON.stringify(entryToJsonObject(entry, 'entry'));
  return call(() => wasm.keyLogEntryHash(json));
}

/** Verifies a whole log (typed entries or their JSON form); says which entry failed and why. */
export function keyLogVerifyChain(entries: readonly KeyLogEntry[] | string): KeyLogVerification {
  const json = typeof entries === 'string' ? entries : keyLogToJson(entries);
  return JSON.parse(call(() => wasm.keyLogVerifyChain(json))) as KeyLogVerification;
}

/**
 * The user's key after the entries with `timestamp ≤ atTime` (all if
 * omitted), or `null` (never added, or revoked). Throws
 * `VeilError('KEY_LOG_INVALID')` if the log does not verify.
 */
export function keyLogCurrentKey(entries: readonly KeyLogEntry[] | string, userId: Uint8Array, atTime?: number): Uint8Array | null {
  const json = typeof entries === 'string' ? entries : keyLogToJson(entries);
  const u = bytes('userId', userId);
  const at = atTime === undefined ? undefined : safeInteger('atTime', atTime);
  return call(() => wasm.keyLogCurrentKey(json, u, at)) ?? null;
}
