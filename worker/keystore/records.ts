/**
 * The keystore's records (docs/KEYSTORE.md#storage-model) and how secrets are
 * sealed in them: AES-256-GCM under the storage key, bound to the record by
 * its AAD.
 */
import { VeilError } from '../../ts/errors.js';
import { wipe } from '../../ts/validate.js';
import { bs, concatBytes } from '../../ts/bytes.js';
import type { KeyRoute, KeyType, PassphraseKdfParams } from '../keystore.protocol.js';
import { subtle } from '../../ts/webcrypto/subtle.js';
import type { Session } from './store.js';

const enc = new TextEncoder();

// ---------------------------------------------------------------------------
// Records

export type SecretType = KeyType | 'recovery';

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

/** One session's ratchet state (store `sessions`). Only `wrapped` is authenticated; the other fields are an index. */
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
  /** {@link sealSession} of the serialized state. */
  wrapped: Uint8Array;
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

/** The highest committed state counter of a session (store `heads`): a record put back with a lower counter is a rollback. */
export interface HeadRecord {
  /** The session id. */
  id: string;
  identityId: string;
  counter: number;
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

/** The record type bound into a session state's AAD: `session:<counter in decimal>`. */
function sessionAadType(counter: number): string {
  return `session:${counter}`;
}

/**
 * Seals a serialized ratchet state for the `sessions` store. AAD (byte-exact, docs/KEYSTORE.md#sessions-and-prekeys) =
 * `"veilkit-keystore-record-v2" ‖ 0x00 ‖ UTF-8("<identity id>/session/<session id>") ‖ 0x00 ‖ UTF-8("session:<counter>") ‖ 0x00 ‖ u32be(generation)`,
 * `counter` in decimal ASCII without leading zeros: the state cannot move to another session or identity, and an older
 * state of the same session put back under a newer counter fails to open.
 */
export async function sealSession(
  key: CryptoKey, identityId: string, sessionId: string, counter: number, generation: number, state: Uint8Array,
): Promise<Uint8Array> {
  if (!Number.isSafeInteger(counter) || counter < 0) throw new RangeError('counter must be a non-negative safe integer');
  return seal(key, sessionAadId(identityId, sessionId), sessionAadType(counter), generation, state);
}

/** Opens {@link sealSession}'s output (a fresh buffer the caller wipes); any mismatch: `AUTHENTICATION_FAILED`. */
export async function unsealSession(
  key: CryptoKey, identityId: string, sessionId: string, counter: number, generation: number, wrapped: Uint8Array | undefined,
): Promise<Uint8Array> {
  if (!Number.isSafeInteger(counter) || counter < 0) throw new VeilError('AUTHENTICATION_FAILED', `session ${sessionId} is damaged`);
  return unseal(key, sessionAadId(identityId, sessionId), sessionAadType(counter), generation, wrapped);
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
