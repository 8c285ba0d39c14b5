/**
 * The keystore's records (docs/KEYSTORE.md#storage-model) and how secrets are
 * sealed in them: AES-256-GCM under the storage key, bound to the record by
 * its AAD.
 */
import { VeilError } from '../../protocol/errors.js';
import { wipe } from '../../ts/validate.js';
import { bs, concatBytes } from '../../ts/bytes.js';
import type { KeyRoute, KeyType, PassphraseKdfParams } from '../../protocol/keystore.protocol.js';
import { subtle } from '../../ts/webcrypto/subtle.js';
import type { Session } from './store.js';

const enc = new TextEncoder();

// ---------------------------------------------------------------------------
// Records

/** `history`: the message-history key (record `#history`, worker/keystore/history.ts). */
export type SecretType = KeyType | 'recovery' | 'history';

export interface SecretRecord {
  /** `<identity id>/<type>`. */
  id: string;
  identityId: string;
  type: SecretType;
  /** iv(12) ‖ AES-256-GCM(storage key, seed, AAD = recordAad(id, type, generation)). */
  wrapped: Uint8Array;
}

export interface IdentityRecord {
  id: string;
  label: string;
  createdAt: number;
  mlDsa: boolean;
  routes: Partial<Record<KeyType, KeyRoute>>;
  publicKeys: Partial<Record<KeyType, Uint8Array>>;
  /** Canonical signed public bundle. */
  bundle: Uint8Array;
}

export interface LockRecord {
  salt: Uint8Array;
  params: PassphraseKdfParams;
  /** iv ‖ AES-GCM(S, empty, AAD = recordAad('state', 'lock-check', generation)): tells a wrong passphrase apart. */
  check: Uint8Array;
}

export interface DeviceRecord { key: 'device'; deviceKey: CryptoKey; createdAt: number }
export interface StateRecord {
  key: 'state';
  format: number;
  revision: number;
  /** Incremented by every passphrase change (set, change, remove); part of every record's AAD. */
  generation: number;
  /** Incremented by every `lock()`: an unlocked worker must have seen the current epoch. */
  lockEpoch: number;
  lock?: LockRecord;
}
export type MetaRecord = DeviceRecord | StateRecord;

// ---------------------------------------------------------------------------
// Session records (schema 3; docs/KEYSTORE.md#sessions-and-prekeys). Times of prekeys are the
// signed values (seconds since the epoch); times of sessions and replay entries are milliseconds.

/** The kinds of signed prekeys (docs/SESSIONS.md §2.2); the same union as `PrekeyKind` of ts/session/core.ts. */
export type PrekeyKind = 'x25519-signed' | 'x25519-one-time' | 'mlkem-last-resort' | 'mlkem-one-time';
export const PREKEY_KINDS: readonly PrekeyKind[] = ['x25519-signed', 'x25519-one-time', 'mlkem-last-resort', 'mlkem-one-time'];

/** One signed prekey of this device and its secret (store `prekeys`). */
export interface PrekeyRecord {
  /** `<identity id>/<kind>/<key id>` ({@link prekeyRecordId}). */
  id: string;
  identityId: string;
  kind: PrekeyKind;
  /** u32, from the device's `nextKeyId`: unique across every kind of the device, never reused. */
  keyId: number;
  /** Seconds since the epoch, as signed in `record`. */
  createdAt: number;
  /** Seconds since the epoch, as signed in `record`. */
  expiresAt: number;
  /** Signed and last-resort prekeys: when a newer one replaced it (seconds); its secret is deleted 30 days later. */
  replacedAt?: number;
  /** The signed public prekey bytes (docs/SESSIONS.md §2.2 `record`). */
  record: Uint8Array;
  /** iv(12) ‖ AES-256-GCM(storage key, secret, AAD = recordAad(id, 'prekey', generation)); the secret is the X25519 scalar (32) or the ML-KEM-768 dk (2400). */
  wrapped: Uint8Array;
}

/** The device state of an identity (store `prekeys`, id `<identity id>/device`): public, never wrapped. */
export interface DeviceStateRecord {
  id: string;
  identityId: string;
  kind: 'device';
  /** Random u32 (never 0), fixed for the identity on this device; bundles carry it. */
  deviceId: number;
  /** The next prekey key id (u32, starts at 1, only grows): key ids are never reused. */
  nextKeyId: number;
  /** Milliseconds since the epoch. */
  createdAt: number;
}

/**
 * One session's ratchet state (store `sessions`). Only `wrapped` is authenticated: in record version 2 it
 * seals {@link SessionMeta} with the state, and every field `SessionInfo` reports comes from there or from the
 * state; the clear fields besides `id`, `identityId` and `counter` (both bound in the AAD) are an index that
 * page script can edit.
 */
export interface SessionRecord {
  /** Random 16 bytes, 32 lowercase hex characters. */
  id: string;
  identityId: string;
  /** Lowercase hex of the peer's 32-byte session identity id (docs/SESSIONS.md §2.1). */
  peerIdentityId: string;
  peerDeviceId: number;
  role: 'initiator' | 'responder';
  /** Milliseconds since the epoch. */
  createdAt: number;
  updatedAt: number;
  /** `RatchetState::counter()` of the sealed state; bound into the AAD. */
  counter: number;
  /** Record version 2: {@link sealSession} of {@link SessionMeta} ‖ the serialized state. Absent: version 1, {@link sealSessionV1} of the state alone (written by the previous veilkit; upgraded on first use). */
  wrapped: Uint8Array;
  /** 2, or absent for a version-1 record. Which of the two AADs `wrapped` opens under decides; this field only says which to try. */
  recordVersion?: 2;
  /**
   * `Enc(ID_init)` and `Enc(ID_resp)` (2,017 bytes each; public), written with every state of format 3
   * (docs/SESSIONS.md §5.9), which binds them by `H_ID` only. Clear fields, authenticated by that hash: a
   * load checks SHA-256(initiator ‖ responder) against the sealed state's `H_ID` (`IDENTITY_MISMATCH`).
   * Absent in a record whose sealed state is of format 2 (identities inside), which a load migrates.
   */
  initiatorIdentity?: Uint8Array;
  responderIdentity?: Uint8Array;
}

/** `Enc(ID_init)` and `Enc(ID_resp)` of a session (public). */
export interface Identities { initiator: Uint8Array; responder: Uint8Array }

/** What a version-2 session record seals in front of the state: the `SessionInfo` fields the state does not hold. */
export interface SessionMeta {
  /** u32. */
  peerDeviceId: number;
  /** Milliseconds since the epoch (u64). */
  createdAt: number;
  updatedAt: number;
}

/** A first message accepted without one-time prekeys (store `replay`), kept until its signed or last-resort prekey is deleted. */
export interface ReplayRecord {
  /** `<identity id>/<signed prekey id>/<pq prekey id>/<hex of H(EK_A ‖ CT)>` ({@link replayRecordId}). */
  id: string;
  identityId: string;
  signedPrekeyId: number;
  pqPrekeyId: number;
  /** Milliseconds since the epoch. */
  createdAt: number;
}

/**
 * The newest committed state counter of a session, or its deletion (store `heads`), written in the transaction
 * of every session commit and deletion. Version 2 carries `tag` ({@link sealHead}), which binds identity, session
 * id, counter, deletion and generation; a version-1 head (the previous veilkit's) has none and is trusted only
 * for a version-1 record.
 */
export interface HeadRecord {
  /** The session id. */
  id: string;
  identityId: string;
  counter: number;
  /** The session was deleted (a tombstone); its record is gone. */
  deleted?: boolean;
  /** iv(12) ‖ AES-256-GCM tag(16) over the empty plaintext ({@link sealHead}); absent in a version-1 head. */
  tag?: Uint8Array;
}

export function prekeyRecordId(identityId: string, kind: PrekeyKind, keyId: number): string {
  return `${identityId}/${kind}/${keyId}`;
}

export function deviceRecordId(identityId: string): string {
  return `${identityId}/device`;
}

export function replayRecordId(identityId: string, signedPrekeyId: number, pqPrekeyId: number, digest: Uint8Array): string {
  return `${identityId}/${signedPrekeyId}/${pqPrekeyId}/${Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

// ---------------------------------------------------------------------------
// Sealing: AES-256-GCM under a CryptoKey, AAD = label ‖ 0x00 ‖ id ‖ 0x00 ‖ type ‖ 0x00 ‖ u32 generation

const RECORD_LABEL = 'veilkit-keystore-record-v2';

function recordAad(id: string, type: string, generation: number): Uint8Array {
  const g = new Uint8Array(4);
  new DataView(g.buffer).setUint32(0, generation);
  return concatBytes([enc.encode(RECORD_LABEL), Uint8Array.of(0), enc.encode(id), Uint8Array.of(0), enc.encode(type), Uint8Array.of(0), g]);
}

export async function seal(key: CryptoKey, id: string, type: string, generation: number, plaintext: Uint8Array): Promise<Uint8Array> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = await subtle().encrypt({ name: 'AES-GCM', iv, additionalData: bs(recordAad(id, type, generation)) }, key, bs(plaintext));
  return concatBytes([iv, new Uint8Array(ct)]);
}

export async function unseal(key: CryptoKey, id: string, type: string, generation: number, sealed: Uint8Array | undefined): Promise<Uint8Array> {
  if (!(sealed instanceof Uint8Array) || sealed.length < 28) throw new VeilError('AUTHENTICATION_FAILED', `record ${id} is damaged`);
  try {
    const pt = await subtle().decrypt(
      { name: 'AES-GCM', iv: bs(sealed.subarray(0, 12)), additionalData: bs(recordAad(id, type, generation)) }, key, bs(sealed.subarray(12)),
    );
    return new Uint8Array(pt);
  } catch {
    throw new VeilError('AUTHENTICATION_FAILED', `record ${id} could not be decrypted (wrong key, another record's bytes, or a stale generation)`);
  }
}

/** The record id bound into a session state's AAD: `<identity id>/session/<session id>`. */
export function sessionAadId(identityId: string, sessionId: string): string {
  return `${identityId}/session/${sessionId}`;
}

/** The record type bound into a session state's AAD: `session-v2:<counter in decimal>` (version 1: `session:<counter>`). */
function sessionAadType(counter: number, version: 1 | 2): string {
  return `${version === 2 ? 'session-v2' : 'session'}:${counter}`;
}

function checkCounter(sessionId: string, counter: number): void {
  if (!Number.isSafeInteger(counter) || counter < 0) throw new VeilError('AUTHENTICATION_FAILED', `session ${sessionId} is damaged`);
}

/** Length of the encoded {@link SessionMeta}: u32be(peerDeviceId) ‖ u64be(createdAt) ‖ u64be(updatedAt). */
export const SESSION_META_LENGTH = 20;

function encodeMeta(m: SessionMeta): Uint8Array {
  if (!Number.isInteger(m.peerDeviceId) || m.peerDeviceId < 0 || m.peerDeviceId > 0xffffffff) throw new RangeError('peerDeviceId must be a u32');
  for (const t of [m.createdAt, m.updatedAt]) if (!Number.isSafeInteger(t) || t < 0) throw new RangeError('session times must be non-negative safe integers');
  const out = new Uint8Array(SESSION_META_LENGTH);
  const v = new DataView(out.buffer);
  v.setUint32(0, m.peerDeviceId);
  v.setBigUint64(4, BigInt(m.createdAt));
  v.setBigUint64(12, BigInt(m.updatedAt));
  return out;
}

function decodeMeta(b: Uint8Array): SessionMeta {
  const v = new DataView(b.buffer, b.byteOffset, SESSION_META_LENGTH);
  return { peerDeviceId: v.getUint32(0), createdAt: Number(v.getBigUint64(4)), updatedAt: Number(v.getBigUint64(12)) };
}

/**
 * Seals a session (record version 2) for the `sessions` store: `meta ‖ state` under AAD (byte-exact,
 * docs/KEYSTORE.md#sessions-and-prekeys) = `"veilkit-keystore-record-v2" ‖ 0x00 ‖ UTF-8("<identity id>/session/<session id>")
 * ‖ 0x00 ‖ UTF-8("session-v2:<counter>") ‖ 0x00 ‖ u32be(generation)`, `counter` in decimal ASCII without leading zeros:
 * the state and its metadata cannot move to another session or identity, and an older state of the same session put
 * back under a newer counter fails to open.
 */
export async function sealSession(
  key: CryptoKey, identityId: string, sessionId: string, counter: number, generation: number, meta: SessionMeta, state: Uint8Array,
): Promise<Uint8Array> {
  if (!Number.isSafeInteger(counter) || counter < 0) throw new RangeError('counter must be a non-negative safe integer');
  const plaintext = concatBytes([encodeMeta(meta), state]);
  try {
    return await seal(key, sessionAadId(identityId, sessionId), sessionAadType(counter, 2), generation, plaintext);
  } finally {
    wipe(plaintext);
  }
}

/** Opens {@link sealSession}'s output: the metadata and the state (a fresh buffer the caller wipes); any mismatch: `AUTHENTICATION_FAILED`. */
export async function unsealSession(
  key: CryptoKey, identityId: string, sessionId: string, counter: number, generation: number, wrapped: Uint8Array | undefined,
): Promise<{ meta: SessionMeta; state: Uint8Array }> {
  checkCounter(sessionId, counter);
  const plaintext = await unseal(key, sessionAadId(identityId, sessionId), sessionAadType(counter, 2), generation, wrapped);
  try {
    if (plaintext.length < SESSION_META_LENGTH) throw new VeilError('AUTHENTICATION_FAILED', `session ${sessionId} is damaged`);
    return { meta: decodeMeta(plaintext), state: plaintext.slice(SESSION_META_LENGTH) };
  } finally {
    wipe(plaintext);
  }
}

/** Seals a state alone under `session:<counter>` (record version 1, the previous veilkit's): only tests write it now. */
export async function sealSessionV1(
  key: CryptoKey, identityId: string, sessionId: string, counter: number, generation: number, state: Uint8Array,
): Promise<Uint8Array> {
  if (!Number.isSafeInteger(counter) || counter < 0) throw new RangeError('counter must be a non-negative safe integer');
  return seal(key, sessionAadId(identityId, sessionId), sessionAadType(counter, 1), generation, state);
}

/** Opens a version-1 record's `wrapped` (a fresh buffer the caller wipes); any mismatch: `AUTHENTICATION_FAILED`. */
export async function unsealSessionV1(
  key: CryptoKey, identityId: string, sessionId: string, counter: number, generation: number, wrapped: Uint8Array | undefined,
): Promise<Uint8Array> {
  checkCounter(sessionId, counter);
  return unseal(key, sessionAadId(identityId, sessionId), sessionAadType(counter, 1), generation, wrapped);
}

/** The record type of a head's tag: `session-head:<counter>`, or `session-deleted:<counter>` for a tombstone. */
function headAadType(counter: number, deleted: boolean): string {
  return `${deleted ? 'session-deleted' : 'session-head'}:${counter}`;
}

/**
 * The tag of a version-2 head: `iv(12) ‖ AES-256-GCM(storage key, empty, AAD)` with AAD =
 * `"veilkit-keystore-record-v2" ‖ 0x00 ‖ UTF-8("<identity id>/session/<session id>") ‖ 0x00 ‖
 * UTF-8("session-head:<counter>" | "session-deleted:<counter>") ‖ 0x00 ‖ u32be(generation)` (28 bytes). Only the
 * worker holding the storage key makes one; it cannot be moved to another session or identity, changed to another
 * counter, turned from a head into a tombstone or back, or carried across a passphrase change.
 */
export async function sealHead(key: CryptoKey, identityId: string, sessionId: string, counter: number, deleted: boolean, generation: number): Promise<Uint8Array> {
  if (!Number.isSafeInteger(counter) || counter < 0) throw new RangeError('counter must be a non-negative safe integer');
  return seal(key, sessionAadId(identityId, sessionId), headAadType(counter, deleted), generation, new Uint8Array(0));
}

/** Whether `head` carries a tag made by {@link sealHead} for its own fields under `key` and `generation`. */
export async function headIsAuthentic(key: CryptoKey, head: HeadRecord, generation: number): Promise<boolean> {
  if (typeof head.id !== 'string' || typeof head.identityId !== 'string' || !Number.isSafeInteger(head.counter) || head.counter < 0) return false;
  if (!(head.tag instanceof Uint8Array) || head.tag.length !== 28 || (head.deleted !== undefined && typeof head.deleted !== 'boolean')) return false;
  try {
    wipe(await unseal(key, sessionAadId(head.identityId, head.id), headAadType(head.counter, head.deleted === true), generation, head.tag));
    return true;
  } catch {
    return false;
  }
}

/** A session record re-wrapped from `from` to `to` (a passphrase change), in its own record version. */
export async function rewrapSession(
  from: { key: CryptoKey; generation: number }, to: { key: CryptoKey; generation: number }, r: SessionRecord,
): Promise<SessionRecord> {
  if (r.recordVersion === 2) {
    const { meta, state } = await unsealSession(from.key, r.identityId, r.id, r.counter, from.generation, r.wrapped);
    try {
      return { ...r, wrapped: await sealSession(to.key, r.identityId, r.id, r.counter, to.generation, meta, state) };
    } finally {
      wipe(state);
    }
  }
  const state = await unsealSessionV1(from.key, r.identityId, r.id, r.counter, from.generation, r.wrapped);
  try {
    return { ...r, wrapped: await sealSessionV1(to.key, r.identityId, r.id, r.counter, to.generation, state) };
  } finally {
    wipe(state);
  }
}

/**
 * A version-2 head re-tagged from `from` to `to` (a passphrase change); `undefined` for a head left as it is: a
 * version-1 head (no tag), or one whose tag does not verify (it fails under the new generation as it did before).
 */
export async function rewrapHead(
  from: { key: CryptoKey; generation: number }, to: { key: CryptoKey; generation: number }, h: HeadRecord,
): Promise<HeadRecord | undefined> {
  if (h.tag === undefined || !(await headIsAuthentic(from.key, h, from.generation))) return undefined;
  return { ...h, tag: await sealHead(to.key, h.identityId, h.id, h.counter, h.deleted === true, to.generation) };
}

/** Seals a prekey secret: `seal(key, <identity id>/<kind>/<key id>, 'prekey', generation, secret)`. */
export async function sealPrekey(key: CryptoKey, id: string, generation: number, secret: Uint8Array): Promise<Uint8Array> {
  return seal(key, id, 'prekey', generation, secret);
}

/** Opens a prekey record's secret under `session` (a fresh buffer the caller wipes). */
export async function unsealPrekey(session: Session, r: PrekeyRecord): Promise<Uint8Array> {
  return unseal(session.key, r.id, 'prekey', session.generation, r.wrapped);
}

/** Runs `fn` on the unwrapped seed of a secret record, wiping the bytes afterwards. */
export async function withSecret<T>(session: Session, r: SecretRecord, fn: (secret: Uint8Array) => T | Promise<T>): Promise<T> {
  const secret = await unseal(session.key, r.id, r.type, session.generation, r.wrapped);
  try {
    return await fn(secret);
  } finally {
    wipe(secret);
  }
}
