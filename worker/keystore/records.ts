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

/** Runs `fn` on the unwrapped seed of a secret record, wiping the bytes afterwards. */
export async function withSecret<T>(session: Session, r: SecretRecord, fn: (secret: Uint8Array) => T | Promise<T>): Promise<T> {
  const secret = await unseal(session.key, r.id, r.type, session.generation, r.wrapped);
  try {
    return await fn(secret);
  } finally {
    wipe(secret);
  }
}
