/**
 * The keystore, inside a veilkit worker (IndexedDB via `idb`, WebCrypto,
 * Web Locks, BroadcastChannel). Specified in docs/KEYSTORE.md.
 *
 * - A device key — a non-extractable AES-GCM `CryptoKey` made by WebCrypto and
 *   stored in IndexedDB — wraps every secret record (AES-GCM, AAD = record
 *   id ‖ 0x00 ‖ record type). With a passphrase, a random storage key sealed
 *   under Argon2id(passphrase) and then under the device key takes its place,
 *   held (non-extractable) in this worker's memory only while unlocked.
 * - Private keys whose algorithm WebCrypto implements (and passes a self-test)
 *   are stored as non-extractable `CryptoKey`s instead of wrapped bytes.
 * - Every write takes the Web Lock `veilkit-keystore:<name>`, commits in one
 *   IndexedDB transaction and is announced on the BroadcastChannel of the
 *   same name. A failed write aborts its transaction: nothing is ever wiped.
 */
import type { DBSchema, IDBPDatabase, IDBPTransaction } from 'idb';
import * as P from '../ts/primitives.js';
import { VeilError } from '../ts/errors.js';
import { wipe } from '../ts/validate.js';
import {
  BUNDLE_DST, bundleEd25519Message, checkPassphraseKdf, concat, decodePublicBundle, deriveKeySeed, encodeBundleBody, identityId,
  openBackup, publicKeyFromKeySeed, sealBackup, type BackupEntry, type PublicBundle,
} from '../ts/keystore-format.js';
import {
  KEY_TYPES,
  type IdentityHandle, type ImportBackupResult, type KeyRoute, type KeyType, type KeystoreCapabilities,
  type KeystoreChange, type KeystoreRequest, type KeystoreStatus, type PassphraseKdfParams,
} from './keystore.protocol.js';

// ---------------------------------------------------------------------------
// Schema

/** Version of the IndexedDB schema this code writes. Older databases are migrated; newer ones are refused. */
export const SCHEMA_VERSION = 2;

type SecretType = KeyType | 'recovery';

interface SecretRecord {
  /** `<identity id>/<type>`. */
  id: string;
  identityId: string;
  type: SecretType;
  route: KeyRoute;
  /** `webcrypto` route: the non-extractable private key. */
  key?: CryptoKey;
  /** `wasm` route: iv(12) ‖ AES-GCM(storage key, secret, AAD = id ‖ 0x00 ‖ type). */
  wrapped?: Uint8Array;
}

interface IdentityRecord {
  id: string;
  label: string;
  createdAt: number;
  mlDsa: boolean;
  routes: Partial<Record<KeyType, KeyRoute>>;
  publicKeys: Partial<Record<KeyType, Uint8Array>>;
  /** Canonical signed public bundle. */
  bundle: Uint8Array;
}

interface LockRecord {
  salt: Uint8Array;
  params: PassphraseKdfParams;
  /** iv ‖ AES-GCM(device key, iv' ‖ AES-GCM(Argon2id KEK, storage key, AAD), AAD), AAD = "state" ‖ 0x00 ‖ "storage-key". */
  sealed: Uint8Array;
}

interface DeviceRecord { key: 'device'; deviceKey: CryptoKey; createdAt: number }
interface StateRecord { key: 'state'; revision: number; generation: number; lock?: LockRecord }
type MetaRecord = DeviceRecord | StateRecord;

export interface KeystoreDB extends DBSchema {
  meta: { key: string; value: MetaRecord };
  identities: { key: string; value: IdentityRecord };
  secrets: { key: string; value: SecretRecord; indexes: { byIdentity: string } };
}

type AnyDb = IDBPDatabase<unknown>;
type UpgradeTx = IDBPTransaction<unknown, string[], 'versionchange'>;

/**
 * Schema migrations: `MIGRATIONS[v]` upgrades a version `v − 1` database to
 * version `v`, inside the versionchange transaction (any failure aborts it
 * and leaves the database at its old version, data untouched).
 * - 1: stores `meta` (keyPath `key`), `identities` (keyPath `id`), `secrets` (keyPath `id`).
 * - 2: index `secrets.byIdentity` on `identityId`; back-fills `identityId`
 *   (the part of the record id before `/`) into version-1 secret records.
 */
export const MIGRATIONS: Readonly<Record<number, (db: AnyDb, tx: UpgradeTx) => Promise<void>>> = {
  1: async (db) => {
    db.createObjectStore('meta', { keyPath: 'key' });
    db.createObjectStore('identities', { keyPath: 'id' });
    db.createObjectStore('secrets', { keyPath: 'id' });
  },
  2: async (_db, tx) => {
    const secrets = tx.objectStore('secrets');
    secrets.createIndex('byIdentity', 'identityId');
    for (let c = await secrets.openCursor(); c; c = await c.continue()) {
      const v = c.value as { id: string; identityId?: string };
      if (typeof v.identityId !== 'string') await c.update({ ...v, identityId: v.id.split('/')[0] });
    }
  },
};

/** The IndexedDB database name of keystore `name`. */
export function databaseName(name: string): string {
  return `veilkit-keystore:${name}`;
}

type Idb = typeof import('idb');
let idbModule: Promise<Idb> | undefined;

/**
 * Loads `idb` lazily, so that a worker that never opens a keystore does not
 * need it. Bundlers resolve `import('idb')`; unbundled ES modules in a worker
 * (no import maps there) fall back to the package in `node_modules` beside
 * veilkit's `dist/`.
 */
function loadIdb(): Promise<Idb> {
  idbModule ??= import('idb').catch(() => {
    const fallback = new URL('../../node_modules/idb/build/index.js', import.meta.url).href;
    return import(/* @vite-ignore */ /* webpackIgnore: true */ fallback) as Promise<Idb>;
  }).catch((e: unknown) => {
    idbModule = undefined;
    throw new VeilError('UNSUPPORTED_PLATFORM', `could not load the idb package: ${String(e)}`);
  });
  return idbModule;
}

/** Opens (creating or migrating) the database of keystore `name` at `version`. */
export async function openKeystoreDb(name: string, version = SCHEMA_VERSION, onClose?: () => void): Promise<IDBPDatabase<KeystoreDB>> {
  const { openDB } = await loadIdb();
  let db: IDBPDatabase<KeystoreDB> | undefined;
  try {
    db = await openDB<KeystoreDB>(databaseName(name), version, {
      upgrade(database, oldVersion, newVersion, tx) {
        const anyTx = tx as unknown as UpgradeTx;
        (async () => {
          for (let v = oldVersion + 1; v <= (newVersion ?? version); v++) {
            const step = MIGRATIONS[v];
            if (!step) throw new Error(`no migration to version ${v}`);
            await step(database as unknown as AnyDb, anyTx);
          }
        })().catch(() => {
          try { anyTx.abort(); } catch { /* already finished */ }
        });
      },
      // A newer veilkit in another tab wants to upgrade: step aside rather than block it.
      blocking() {
        db?.close();
        onClose?.();
      },
      terminated() {
        onClose?.();
      },
    });
    return db;
  } catch (e) {
    throw storageError(e);
  }
}

// ---------------------------------------------------------------------------
// Errors

function storageError(e: unknown): Error {
  if (e instanceof VeilError || e instanceof TypeError || e instanceof RangeError) return e;
  const name = typeof e === 'object' && e !== null ? (e as { name?: unknown }).name : undefined;
  const message = e instanceof Error || e instanceof DOMException ? e.message : String(e);
  switch (name) {
    case 'QuotaExceededError':
      return new VeilError('STORAGE_QUOTA_EXCEEDED', `the storage quota is exhausted; nothing was changed (${message})`);
    case 'DataCloneError':
      return new VeilError('STORAGE_UNSUPPORTED', `this browser refused to store a key (DataCloneError, as in some private modes); nothing was changed (${message})`);
    case 'VersionError':
      return new VeilError('STORAGE_VERSION_MISMATCH', `the keystore was written by a newer veilkit (schema newer than ${SCHEMA_VERSION}); it was left untouched (${message})`);
    default:
      return new VeilError('STORAGE_FAILED', `IndexedDB failed (${String(name ?? 'Error')}: ${message}); nothing was changed`);
  }
}

const locked = () => new VeilError('KEYSTORE_LOCKED', 'the keystore is locked: call unlock(passphrase) first');
const notFound = (what: string) => new VeilError('KEY_NOT_FOUND', `${what} is not in this keystore`);

// ---------------------------------------------------------------------------
// Per-worker state

interface Store {
  readonly name: string;
  db: IDBPDatabase<KeystoreDB>;
  readonly deviceKey: CryptoKey;
  unlocked: { generation: number; key: CryptoKey } | undefined;
  readonly channel: BroadcastChannel | undefined;
  /** Test hook: the next commit fails this way (debug workers only). */
  fault: 'DataCloneError' | 'QuotaExceededError' | undefined;
}

const stores = new Map<string, Promise<Store>>();
let debugEnabled = false;
// The keystore's debug hooks follow the worker's `debug` flag, read from the same init message.
(globalThis as { addEventListener?: (t: string, l: (e: MessageEvent) => void) => void }).addEventListener?.('message', (e) => {
  const m = e.data as { type?: unknown; debug?: unknown } | null;
  if (m?.type === 'veilkit/init') debugEnabled = m.debug === true;
});

const enc = new TextEncoder();
const subtle = (): SubtleCrypto => globalThis.crypto.subtle;
/** WebCrypto methods and formats newer than the DOM typings (raw-seed, decapsulate*). */
interface ModernSubtle {
  importKey(format: string, data: BufferSource, alg: unknown, extractable: boolean, usages: string[]): Promise<CryptoKey>;
  decapsulateBits(alg: unknown, key: CryptoKey, ciphertext: BufferSource): Promise<ArrayBuffer>;
  decapsulateKey(alg: unknown, key: CryptoKey, ciphertext: BufferSource, sharedKeyAlg: unknown, extractable: boolean, usages: string[]): Promise<CryptoKey>;
  sign(alg: unknown, key: CryptoKey, data: BufferSource): Promise<ArrayBuffer>;
}
const modern = (): ModernSubtle => globalThis.crypto.subtle as unknown as ModernSubtle;
const buf = (b: Uint8Array): Uint8Array<ArrayBuffer> => b as Uint8Array<ArrayBuffer>;

function channelName(name: string): string {
  return `veilkit-keystore:${name}`;
}

function withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const locks = (globalThis.navigator as Navigator | undefined)?.locks;
  if (!locks) return Promise.reject(new VeilError('UNSUPPORTED_PLATFORM', 'Web Locks (navigator.locks) are required for keystore writes'));
  return locks.request(`veilkit-keystore:${name}`, { mode: 'exclusive' }, fn) as Promise<T>;
}

function getStore(name: string): Promise<Store> {
  let p = stores.get(name);
  if (!p) {
    p = openStore(name);
    stores.set(name, p);
    p.catch(() => {
      if (stores.get(name) === p) stores.delete(name);
    });
  }
  return p;
}

async function openStore(name: string): Promise<Store> {
  const forget = () => {
    const cur = stores.get(name);
    stores.delete(name);
    void cur?.then((s) => s.channel?.close(), () => {});
  };
  const db = await openKeystoreDb(name, SCHEMA_VERSION, forget);
  try {
    let device = (await db.get('meta', 'device')) as DeviceRecord | undefined;
    let created = false;
    if (!device) {
      device = await withLock(name, async () => {
        const again = (await db.get('meta', 'device')) as DeviceRecord | undefined;
        if (again) return again;
        const deviceKey = await subtle().generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
        const record: DeviceRecord = { key: 'device', deviceKey, createdAt: Date.now() };
        const tx = db.transaction('meta', 'readwrite');
        const done = tx.done;
        done.catch(() => {});
        try {
          await tx.store.put(record);
          await tx.store.put({ key: 'state', revision: 1, generation: 0 } satisfies StateRecord);
          await done;
        } catch (e) {
          try { tx.abort(); } catch { /* finished */ }
          throw storageError(e);
        }
        created = true;
        return record;
      });
    }
    const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(channelName(name)) : undefined;
    const store: Store = { name, db, deviceKey: device.deviceKey, unlocked: undefined, channel, fault: undefined };
    if (channel) {
      channel.onmessage = (e: MessageEvent) => {
        const m = e.data as KeystoreChange | null;
        if (m?.change === 'locked') store.unlocked = undefined;
      };
    }
    if (created) announce(store, { change: 'created', revision: 1, ids: [] });
    return store;
  } catch (e) {
    db.close();
    throw storageError(e);
  }
}

function announce(s: Store, c: Omit<KeystoreChange, 'name'>): void {
  s.channel?.postMessage({ name: s.name, ...c } satisfies KeystoreChange);
}

async function readState(s: Store): Promise<StateRecord> {
  try {
    const st = (await s.db.get('meta', 'state')) as StateRecord | undefined;
    if (!st) throw new VeilError('STORAGE_FAILED', 'the keystore has no state record');
    return st;
  } catch (e) {
    throw storageError(e);
  }
}

/** The key that wraps secret records now, or `KEYSTORE_LOCKED`. */
function activeKey(s: Store, state: StateRecord): CryptoKey {
  if (!state.lock) return s.deviceKey;
  if (s.unlocked && s.unlocked.generation === state.generation) return s.unlocked.key;
  throw locked();
}

type WriteTx = IDBPTransaction<KeystoreDB, ('meta' | 'identities' | 'secrets')[], 'readwrite'>;

/**
 * One logical change = one readwrite transaction over every store. `expected`
 * is the revision read under the Web Lock; `fn` may only issue IndexedDB
 * requests (no other awaits: the transaction would auto-commit). Any failure
 * aborts the transaction and is reported as a typed error.
 */
async function commit(
  s: Store, expected: number, fn: (tx: WriteTx, state: StateRecord) => Promise<Partial<StateRecord> | void>,
): Promise<number> {
  let tx: WriteTx;
  try {
    tx = s.db.transaction(['meta', 'identities', 'secrets'], 'readwrite');
  } catch (e) {
    throw storageError(e);
  }
  const done = tx.done;
  done.catch(() => {});
  try {
    const state = (await tx.objectStore('meta').get('state')) as StateRecord | undefined;
    if (!state || state.revision !== expected) throw new VeilError('STORAGE_FAILED', 'the keystore changed during the operation; nothing was changed');
    const update = (await fn(tx, state)) ?? {};
    if (s.fault) {
      const fault = s.fault;
      s.fault = undefined;
      if (fault === 'DataCloneError') {
        // A value the structured-clone algorithm refuses: the browser raises a real DataCloneError.
        await tx.objectStore('meta').put({ key: 'debug-fault', value: () => 0 } as unknown as MetaRecord);
      } else {
        throw new DOMException('simulated: the quota has been exceeded', 'QuotaExceededError');
      }
    }
    const next: StateRecord = { ...state, ...update, key: 'state', revision: state.revision + 1 };
    if (update.lock === undefined && 'lock' in update) delete next.lock;
    await tx.objectStore('meta').put(next);
    await done;
    return next.revision;
  } catch (e) {
    try { tx.abort(); } catch { /* already aborted or finished */ }
    throw storageError(e);
  }
}

// ---------------------------------------------------------------------------
// Sealing (AES-GCM under a CryptoKey, AAD = id ‖ 0x00 ‖ type)

function recordAad(id: string, type: string): Uint8Array {
  return concat(enc.encode(id), Uint8Array.of(0), enc.encode(type));
}

async function seal(key: CryptoKey, id: string, type: string, plaintext: Uint8Array): Promise<Uint8Array> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = await subtle().encrypt({ name: 'AES-GCM', iv, additionalData: buf(recordAad(id, type)) }, key, buf(plaintext));
  return concat(iv, new Uint8Array(ct));
}

async function unseal(key: CryptoKey, id: string, type: string, sealed: Uint8Array | undefined): Promise<Uint8Array> {
  if (!(sealed instanceof Uint8Array) || sealed.length < 28) throw new VeilError('STORAGE_FAILED', `record ${id} is damaged`);
  try {
    const pt = await subtle().decrypt(
      { name: 'AES-GCM', iv: buf(sealed.subarray(0, 12)), additionalData: buf(recordAad(id, type)) }, key, buf(sealed.subarray(12)),
    );
    return new Uint8Array(pt);
  } catch {
    throw new VeilError('AUTHENTICATION_FAILED', `record ${id} could not be decrypted`);
  }
}

// ---------------------------------------------------------------------------
// Native (WebCrypto) keys and the capability self-test

const PKCS8_PREFIX: Record<'ed25519' | 'x25519', Uint8Array> = {
  ed25519: Uint8Array.from([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]),
  x25519: Uint8Array.from([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x6e, 0x04, 0x22, 0x04, 0x20]),
};

/** Imports a derived private key seed as a non-extractable WebCrypto key. */
async function importNative(type: KeyType, keySeed: Uint8Array): Promise<CryptoKey> {
  switch (type) {
    case 'ed25519':
    case 'x25519': {
      const pkcs8 = concat(PKCS8_PREFIX[type], keySeed);
      try {
        return type === 'ed25519'
          ? await subtle().importKey('pkcs8', buf(pkcs8), { name: 'Ed25519' }, false, ['sign'])
          : await subtle().importKey('pkcs8', buf(pkcs8), { name: 'X25519' }, false, ['deriveBits']);
      } finally {
        wipe(pkcs8);
      }
    }
    case 'ml-kem-768':
      return modern().importKey('raw-seed', buf(keySeed), { name: 'ML-KEM-768' }, false, ['decapsulateBits', 'decapsulateKey']);
    case 'ml-dsa-65':
      return modern().importKey('raw-seed', buf(keySeed), { name: 'ML-DSA-65' }, false, ['sign']);
    case 'x-wing':
      throw new VeilError('INTERNAL', 'X-Wing has no WebCrypto route');
  }
}

type NativeAlg = 'ed25519' | 'x25519' | 'ml-kem-768' | 'ml-dsa-65';
let detected: Promise<Record<NativeAlg, boolean>> | undefined;

/** Which algorithms WebCrypto implements here *and* agrees with the wasm core on (a known-answer self-test from a fixed seed). */
function detectNative(): Promise<Record<NativeAlg, boolean>> {
  detected ??= (async () => {
    const seed = P.deriveHkdf(new Uint8Array(64), null, enc.encode('veilkit-keystore-selftest'), 64);
    const msg = enc.encode('veilkit keystore self-test');
    const probe = async (f: () => Promise<boolean>) => {
      try { return await f(); } catch { return false; }
    };
    const result: Record<NativeAlg, boolean> = {
      'ed25519': await probe(async () => {
        const s = deriveKeySeed(seed, 'ed25519');
        const sig = new Uint8Array(await subtle().sign({ name: 'Ed25519' }, await importNative('ed25519', s), msg));
        return P.verifySignature(publicKeyFromKeySeed('ed25519', s), msg, sig);
      }),
      'x25519': await probe(async () => {
        const s = deriveKeySeed(seed, 'x25519');
        const peerSecret = deriveKeySeed(seed, 'x-wing');
        const peer = await subtle().importKey('raw', buf(P.x25519PublicKey(peerSecret)), { name: 'X25519' }, true, []);
        const bits = new Uint8Array(await subtle().deriveBits({ name: 'X25519', public: peer }, await importNative('x25519', s), 256));
        return equal(bits, P.ecdhSharedSecret(peerSecret, publicKeyFromKeySeed('x25519', s)));
      }),
      'ml-kem-768': await probe(async () => {
        const s = deriveKeySeed(seed, 'ml-kem-768');
        const { ciphertext, sharedSecret } = P.mlKemEncapsulate(publicKeyFromKeySeed('ml-kem-768', s));
        const ss = new Uint8Array(await modern().decapsulateBits({ name: 'ML-KEM-768' }, await importNative('ml-kem-768', s), buf(ciphertext)));
        return equal(ss, sharedSecret);
      }),
      'ml-dsa-65': await probe(async () => {
        const s = deriveKeySeed(seed, 'ml-dsa-65');
        const sig = new Uint8Array(await modern().sign({ name: 'ML-DSA-65' }, await importNative('ml-dsa-65', s), msg));
        return P.mlDsaVerify(publicKeyFromKeySeed('ml-dsa-65', s), msg, sig);
      }),
    };
    return result;
  })();
  return detected;
}

/**
 * Routes for new identities. Ed25519, X25519 and ML-KEM-768 use WebCrypto when
 * it passes the self-test. ML-DSA-65 always uses wasm, even where WebCrypto has
 * it: bundle signatures must be deterministic (FIPS 204 deterministic
 * variant) so that a restored identity publishes a byte-identical bundle, and
 * WebCrypto signs hedged only. X-Wing has no WebCrypto algorithm.
 */
async function capabilities(): Promise<KeystoreCapabilities> {
  const webCrypto = await detectNative();
  const route = (ok: boolean): KeyRoute => (ok ? 'webcrypto' : 'wasm');
  return {
    routes: {
      'ed25519': route(webCrypto.ed25519),
      'x25519': route(webCrypto.x25519),
      'ml-kem-768': route(webCrypto['ml-kem-768']),
      'x-wing': 'wasm',
      'ml-dsa-65': 'wasm',
    },
    webCrypto,
    webLocks: typeof (globalThis.navigator as Navigator | undefined)?.locks?.request === 'function',
    broadcastChannel: typeof BroadcastChannel === 'function',
    indexedDb: typeof indexedDB === 'object' && indexedDB !== null,
    schemaVersion: SCHEMA_VERSION,
  };
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

// ---------------------------------------------------------------------------
// Identities

function handleOf(r: IdentityRecord): IdentityHandle {
  return { kind: 'identity', id: r.id, label: r.label, createdAt: r.createdAt, mlDsa: r.mlDsa, routes: { ...r.routes } };
}

/** Derives every key of an identity from its 64-byte BIP-39 seed and prepares its records (no writes). */
async function buildIdentity(
  storageKey: CryptoKey, seed: Uint8Array, entropy: Uint8Array, label: string, mlDsa: boolean, createdAt: number,
): Promise<{ identity: IdentityRecord; secrets: SecretRecord[] }> {
  const caps = await capabilities();
  const types = KEY_TYPES.filter((t) => mlDsa || t !== 'ml-dsa-65');
  const seeds = new Map<KeyType, Uint8Array>();
  try {
    for (const t of types) seeds.set(t, deriveKeySeed(seed, t));
    const publicKeys: Partial<Record<KeyType, Uint8Array>> = {};
    for (const t of types) publicKeys[t] = publicKeyFromKeySeed(t, seeds.get(t)!);
    const id = identityId(publicKeys.ed25519!);
    const body = encodeBundleBody(publicKeys);
    const parts = [body, P.signMessage(seeds.get('ed25519')!, bundleEd25519Message(body))];
    if (mlDsa) parts.push(P.mlDsaSign(seeds.get('ml-dsa-65')!, body, { context: enc.encode(BUNDLE_DST), deterministic: true }));
    const routes: Partial<Record<KeyType, KeyRoute>> = {};
    const secrets: SecretRecord[] = [];
    for (const t of types) {
      const route = caps.routes[t];
      routes[t] = route;
      const rid = `${id}/${t}`;
      secrets.push(route === 'webcrypto'
        ? { id: rid, identityId: id, type: t, route, key: await importNative(t, seeds.get(t)!) }
        : { id: rid, identityId: id, type: t, route, wrapped: await seal(storageKey, rid, t, seeds.get(t)!) });
    }
    const recovery = concat(entropy, seed);
    try {
      const rid = `${id}/recovery`;
      secrets.push({ id: rid, identityId: id, type: 'recovery', route: 'wasm', wrapped: await seal(storageKey, rid, 'recovery', recovery) });
    } finally {
      wipe(recovery);
    }
    return { identity: { id, label, createdAt, mlDsa, routes, publicKeys, bundle: concat(...parts) }, secrets };
  } finally {
    for (const v of seeds.values()) wipe(v);
  }
}

function checkLabel(label: unknown): string {
  if (typeof label !== 'string') throw new TypeError('label must be a string');
  if (label.length > 256) throw new RangeError(`label must be at most 256 characters, got ${label.length}`);
  return label;
}

/** Phrase → (entropy, seed). Only 24-word phrases (256-bit entropy) are identities. */
function phraseMaterial(phrase: string, bip39Passphrase: string): { entropy: Uint8Array; seed: Uint8Array } {
  if (typeof phrase !== 'string') throw new TypeError('phrase must be a string');
  const entropy = P.mnemonicToEntropy(phrase);
  if (entropy.length !== 32) {
    wipe(entropy);
    throw new VeilError('INVALID_MNEMONIC', 'a veilkit recovery phrase has 24 words');
  }
  return { entropy, seed: P.mnemonicToSeed(phrase, bip39Passphrase) };
}

async function addIdentity(s: Store, phrase: string, bip39Passphrase: string, label: string, mlDsa: boolean, createdAt: number, existing: 'fail' | 'return'): Promise<IdentityHandle> {
  const { entropy, seed } = phraseMaterial(phrase, bip39Passphrase);
  try {
    return await withLock(s.name, async () => {
      const state = await readState(s);
      const key = activeKey(s, state);
      const { identity, secrets } = await buildIdentity(key, seed, entropy, label, mlDsa, createdAt);
      const present = await s.db.get('identities', identity.id).catch((e: unknown) => { throw storageError(e); });
      if (present) {
        if (existing === 'return' && present.mlDsa === mlDsa) return handleOf(present);
        throw new VeilError('KEY_EXISTS', `identity ${identity.id} is already in this keystore${present.mlDsa !== mlDsa ? ' (with a different ML-DSA setting)' : ''}`);
      }
      const revision = await commit(s, state.revision, async (tx) => {
        await tx.objectStore('identities').add(identity);
        for (const r of secrets) await tx.objectStore('secrets').add(r);
      });
      announce(s, { change: 'identity-created', revision, ids: [identity.id] });
      return handleOf(identity);
    });
  } finally {
    wipe(entropy, seed);
  }
}

async function identityRecord(s: Store, id: unknown): Promise<IdentityRecord> {
  if (typeof id !== 'string') throw new TypeError('identity must be an identity handle or id');
  const r = await s.db.get('identities', id).catch((e: unknown) => { throw storageError(e); });
  if (!r) throw notFound(`identity ${id}`);
  return r;
}

async function secretRecord(s: Store, id: string, type: SecretType): Promise<SecretRecord> {
  const r = await s.db.get('secrets', `${id}/${type}`).catch((e: unknown) => { throw storageError(e); });
  if (!r) throw notFound(`the ${type} key of identity ${id}`);
  return r;
}

/** Runs `fn` on a wasm-route secret, wiping the bytes afterwards. */
async function withSecret<T>(key: CryptoKey, r: SecretRecord, fn: (secret: Uint8Array) => T | Promise<T>): Promise<T> {
  const secret = await unseal(key, r.id, r.type, r.wrapped);
  try {
    return await fn(secret);
  } finally {
    wipe(secret);
  }
}

/** HKDF-SHA256(ikm, salt = empty, info) → non-extractable AES-256-GCM key (or the HKDF base key). */
async function keyFromSecret(ikm: Uint8Array | CryptoKey, info: Uint8Array, output: 'aes-gcm' | 'hkdf'): Promise<CryptoKey> {
  const base = ikm instanceof Uint8Array
    ? await subtle().importKey('raw', buf(ikm), { name: 'HKDF' }, false, ['deriveKey', 'deriveBits'])
    : ikm;
  if (output === 'hkdf') return base;
  return subtle().deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: buf(info) }, base,
    { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt'],
  );
}

// ---------------------------------------------------------------------------
// Passphrases (lock and backup)

const kdfParams = checkPassphraseKdf;

function passphraseKek(passphrase: unknown, salt: Uint8Array, params: PassphraseKdfParams): Uint8Array {
  if (typeof passphrase !== 'string' || passphrase.length === 0) throw new TypeError('passphrase must be a non-empty string');
  return P.argon2id(passphrase, salt, { ...params, length: 32 });
}

const STORAGE_KEY_AAD = recordAad('state', 'storage-key');

async function importStorageKey(material: Uint8Array): Promise<CryptoKey> {
  return subtle().importKey('raw', buf(material), { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
}

async function setPassphrase(s: Store, passphrase: string | null, params?: PassphraseKdfParams): Promise<KeystoreStatus> {
  if (passphrase !== null && (typeof passphrase !== 'string' || passphrase.length === 0)) throw new TypeError('passphrase must be a non-empty string or null');
  const p = kdfParams(params);
  return withLock(s.name, async () => {
    const state = await readState(s);
    const oldKey = activeKey(s, state);
    let newKey = s.deviceKey;
    let lock: LockRecord | undefined;
    if (passphrase !== null) {
      const material = crypto.getRandomValues(new Uint8Array(32));
      const salt = crypto.getRandomValues(new Uint8Array(16));
      const kek = passphraseKek(passphrase, salt, p);
      try {
        const inner = P.encryptAesGcm(kek, material, STORAGE_KEY_AAD);
        lock = { salt, params: p, sealed: await seal(s.deviceKey, 'state', 'storage-key', inner) };
        newKey = await importStorageKey(material);
      } finally {
        wipe(material, kek);
      }
    }
    // Re-wrap every wasm-route secret under the new key, then commit them with the new lock at once.
    const all = await s.db.getAll('secrets').catch((e: unknown) => { throw storageError(e); });
    const rewrapped: SecretRecord[] = [];
    for (const r of all) {
      if (r.route !== 'wasm') continue;
      rewrapped.push({ ...r, wrapped: await withSecret(oldKey, r, (secret) => seal(newKey, r.id, r.type, secret)) });
    }
    const generation = state.generation + 1;
    const revision = await commit(s, state.revision, async (tx) => {
      for (const r of rewrapped) await tx.objectStore('secrets').put(r);
      return { generation, lock };
    });
    s.unlocked = lock ? { generation, key: newKey } : undefined;
    announce(s, { change: 'passphrase-changed', revision, ids: [] });
    return status(s);
  });
}

async function unlock(s: Store, passphrase: string): Promise<KeystoreStatus> {
  const state = await readState(s);
  if (!state.lock) return status(s);
  const kek = passphraseKek(passphrase, state.lock.salt, state.lock.params);
  try {
    const inner = await unseal(s.deviceKey, 'state', 'storage-key', state.lock.sealed);
    const material = P.decryptAesGcm(kek, inner, STORAGE_KEY_AAD); // wrong passphrase: AUTHENTICATION_FAILED
    try {
      s.unlocked = { generation: state.generation, key: await importStorageKey(material) };
    } finally {
      wipe(material);
    }
  } finally {
    wipe(kek);
  }
  return status(s);
}

async function status(s: Store): Promise<KeystoreStatus> {
  const state = await readState(s);
  const identities = await s.db.count('identities').catch((e: unknown) => { throw storageError(e); });
  const isLocked = state.lock !== undefined && !(s.unlocked && s.unlocked.generation === state.generation);
  let persisted = false;
  try {
    persisted = (await (globalThis.navigator as Navigator | undefined)?.storage?.persisted?.()) === true;
  } catch { /* not available here */ }
  return { passphrase: state.lock !== undefined, locked: isLocked, revision: state.revision, identities, persisted };
}

// ---------------------------------------------------------------------------
// Backup (docs/KEYSTORE.md#backup)

async function exportBackup(s: Store, passphrase: string, params?: PassphraseKdfParams): Promise<Uint8Array> {
  const p = kdfParams(params);
  const state = await readState(s);
  const key = activeKey(s, state);
  // One read transaction: the identities and their recovery records as of one point in time.
  let identities: IdentityRecord[];
  let recoveries: (SecretRecord | undefined)[];
  try {
    const tx = s.db.transaction(['identities', 'secrets']);
    identities = await tx.objectStore('identities').getAll();
    recoveries = await Promise.all(identities.map((r) => tx.objectStore('secrets').get(`${r.id}/recovery`)));
  } catch (e) {
    throw storageError(e);
  }
  const order = identities.map((r, i) => ({ r, rec: recoveries[i] }));
  order.sort((x, y) => x.r.createdAt - y.r.createdAt || (x.r.id < y.r.id ? -1 : 1));
  const entries: BackupEntry[] = [];
  try {
    for (const { r, rec } of order) {
      if (!rec) throw notFound(`the recovery record of identity ${r.id}`);
      // The recovery record is entropy (32) ‖ seed (64).
      const recovery = await withSecret(key, rec, (sec) => sec.slice());
      entries.push({ mlDsa: r.mlDsa, createdAt: r.createdAt, label: r.label, entropy: recovery.subarray(0, 32), seed: recovery.subarray(32) });
    }
    const salt = crypto.getRandomValues(new Uint8Array(16));
    return sealBackup(entries, p, salt, (sa, pp) => passphraseKek(passphrase, sa, pp));
  } finally {
    for (const e of entries) wipe(e.entropy, e.seed);
  }
}

function decryptBackup(backup: Uint8Array, passphrase: string): BackupEntry[] {
  return openBackup(backup, (salt, params) => passphraseKek(passphrase, salt, params));
}

async function importBackup(s: Store, backup: Uint8Array, passphrase: string): Promise<ImportBackupResult> {
  const entries = decryptBackup(backup, passphrase);
  try {
    return await withLock(s.name, async () => {
      const state = await readState(s);
      const key = activeKey(s, state);
      const built: { identity: IdentityRecord; secrets: SecretRecord[] }[] = [];
      const skipped: string[] = [];
      for (const e of entries) {
        const b = await buildIdentity(key, e.seed, e.entropy, e.label, e.mlDsa, e.createdAt);
        const present = await s.db.get('identities', b.identity.id).catch((err: unknown) => { throw storageError(err); });
        if (present || built.some((x) => x.identity.id === b.identity.id)) skipped.push(b.identity.id);
        else built.push(b);
      }
      if (built.length === 0) return { imported: [], skipped };
      const revision = await commit(s, state.revision, async (tx) => {
        for (const b of built) {
          await tx.objectStore('identities').add(b.identity);
          for (const r of b.secrets) await tx.objectStore('secrets').add(r);
        }
      });
      const imported = built.map((b) => handleOf(b.identity));
      announce(s, { change: 'backup-imported', revision, ids: imported.map((h) => h.id) });
      return { imported, skipped };
    });
  } finally {
    for (const e of entries) wipe(e.entropy, e.seed);
  }
}

// ---------------------------------------------------------------------------
// Handlers

type KeystoreHandlers = { [T in KeystoreRequest['type']]: (req: Extract<KeystoreRequest, { type: T }>) => unknown };

function checkName(name: unknown): string {
  if (typeof name !== 'string') throw new TypeError('name must be a string');
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(name)) throw new RangeError('name must be 1 to 64 characters from A-Z a-z 0-9 . _ -');
  return name;
}

function bytesArg(name: string, v: unknown, length?: number): Uint8Array {
  if (!(v instanceof Uint8Array)) throw new TypeError(`${name} must be a Uint8Array`);
  if (length !== undefined && v.length !== length) throw new RangeError(`${name} must be ${length} bytes, got ${v.length}`);
  return v;
}

const open = (req: { name: string }) => getStore(checkName(req.name));

/** The `keystore/*` handlers, spread into the worker's handler table. */
export const keystoreHandlers: KeystoreHandlers = {
  'keystore/open': async (req) => status(await open(req)),
  'keystore/capabilities': () => capabilities(),
  'keystore/status': async (req) => status(await open(req)),
  'keystore/set-passphrase': async (req) => setPassphrase(await open(req), req.passphrase, req.params),
  'keystore/unlock': async (req) => unlock(await open(req), req.passphrase),
  'keystore/lock': async (req) => {
    const s = await open(req);
    s.unlocked = undefined;
    const st = await status(s);
    announce(s, { change: 'locked', revision: st.revision, ids: [] });
    return st;
  },
  'keystore/create-identity': async (req) => {
    const s = await open(req);
    const label = checkLabel(req.label);
    activeKey(s, await readState(s)); // fail fast when locked, before any key material exists
    const phrase = P.generateMnemonic();
    return addIdentity(s, phrase, '', label, req.mlDsa === true, Date.now(), 'fail');
  },
  'keystore/list-identities': async (req) => {
    const s = await open(req);
    const all = await s.db.getAll('identities').catch((e: unknown) => { throw storageError(e); });
    return all.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1)).map(handleOf);
  },
  'keystore/public-bundle': async (req): Promise<PublicBundle> => {
    const r = await identityRecord(await open(req), req.identity);
    return decodePublicBundle(r.bundle);
  },
  'keystore/delete-identity': async (req) => {
    const s = await open(req);
    return withLock(s.name, async () => {
      const state = await readState(s);
      activeKey(s, state);
      const r = await identityRecord(s, req.identity);
      const revision = await commit(s, state.revision, async (tx) => {
        await tx.objectStore('identities').delete(r.id);
        const index = tx.objectStore('secrets').index('byIdentity');
        for (let c = await index.openKeyCursor(IDBKeyRange.only(r.id)); c; c = await c.continue()) {
          await tx.objectStore('secrets').delete(c.primaryKey);
        }
      });
      announce(s, { change: 'identity-deleted', revision, ids: [r.id] });
      return true;
    });
  },
  'keystore/export-phrase': async (req) => {
    const s = await open(req);
    const key = activeKey(s, await readState(s));
    const r = await identityRecord(s, req.identity);
    return withSecret(key, await secretRecord(s, r.id, 'recovery'), (rec) => P.entropyToMnemonic(rec.subarray(0, 32)));
  },
  'keystore/restore-phrase': async (req) => {
    const s = await open(req);
    const label = checkLabel(req.label);
    if (typeof req.bip39Passphrase !== 'string') throw new TypeError('passphrase must be a string');
    return addIdentity(s, req.phrase, req.bip39Passphrase, label, req.mlDsa === true, Date.now(), 'return');
  },
  'keystore/export-backup': async (req) => exportBackup(await open(req), req.passphrase, req.params),
  'keystore/import-backup': async (req) => importBackup(await open(req), req.backup, req.passphrase),
  'keystore/sign': async (req) => {
    const s = await open(req);
    const key = activeKey(s, await readState(s));
    const message = bytesArg('message', req.message);
    const r = await identityRecord(s, req.identity);
    if (req.algorithm === 'ed25519') {
      if (req.context !== undefined) throw new TypeError('Ed25519 takes no context');
      const rec = await secretRecord(s, r.id, 'ed25519');
      if (rec.route === 'webcrypto') return new Uint8Array(await subtle().sign({ name: 'Ed25519' }, rec.key!, buf(message)));
      return withSecret(key, rec, (sk) => P.signMessage(sk, message));
    }
    if (req.algorithm === 'ml-dsa-65') {
      const context = req.context === undefined ? undefined : bytesArg('context', req.context);
      const rec = await secretRecord(s, r.id, 'ml-dsa-65');
      if (rec.route === 'webcrypto') return new Uint8Array(await modern().sign({ name: 'ML-DSA-65', context }, rec.key!, buf(message)));
      return withSecret(key, rec, (sk) => P.mlDsaSign(sk, message, context ? { context } : {}));
    }
    throw new TypeError(`algorithm must be 'ed25519' or 'ml-dsa-65'`);
  },
  'keystore/derive-shared-key': async (req) => {
    const s = await open(req);
    const key = activeKey(s, await readState(s));
    const peer = bytesArg('peerPublicKey', req.peerPublicKey, 32);
    const info = bytesArg('info', req.info);
    const r = await identityRecord(s, req.identity);
    const rec = await secretRecord(s, r.id, 'x25519');
    let shared: Uint8Array;
    if (rec.route === 'webcrypto') {
      const peerKey = await subtle().importKey('raw', buf(peer), { name: 'X25519' }, true, []);
      try {
        shared = new Uint8Array(await subtle().deriveBits({ name: 'X25519', public: peerKey }, rec.key!, 256));
      } catch (e) {
        throw new VeilError('WEAK_KEY', `X25519 with this peer key failed (${(e as Error).message})`);
      }
    } else {
      shared = await withSecret(key, rec, (sk) => P.ecdhSharedSecret(sk, peer));
    }
    try {
      return await keyFromSecret(shared, info, 'aes-gcm');
    } finally {
      wipe(shared);
    }
  },
  'keystore/decapsulate': async (req) => {
    const s = await open(req);
    const key = activeKey(s, await readState(s));
    const info = bytesArg('info', req.info);
    if (req.output !== 'aes-gcm' && req.output !== 'hkdf') throw new TypeError(`output must be 'aes-gcm' or 'hkdf'`);
    const r = await identityRecord(s, req.identity);
    if (req.kem === 'ml-kem-768') {
      const ct = bytesArg('ciphertext', req.ciphertext, 1088);
      const rec = await secretRecord(s, r.id, 'ml-kem-768');
      if (rec.route === 'webcrypto') {
        const base = await modern().decapsulateKey({ name: 'ML-KEM-768' }, rec.key!, buf(ct), { name: 'HKDF' }, false, ['deriveKey', 'deriveBits']);
        return keyFromSecret(base, info, req.output);
      }
      const ss = await withSecret(key, rec, (seed) => {
        const [dk, ek] = P.mlKemKeygen(seed);
        try {
          return P.mlKemDecapsulate(dk, ct);
        } finally {
          wipe(dk, ek);
        }
      });
      try {
        return await keyFromSecret(ss, info, req.output);
      } finally {
        wipe(ss);
      }
    }
    if (req.kem === 'x-wing') {
      const ct = bytesArg('ciphertext', req.ciphertext, 1120);
      const rec = await secretRecord(s, r.id, 'x-wing');
      const ss = await withSecret(key, rec, (sk) => P.xWingDecapsulate(sk, ct));
      try {
        return await keyFromSecret(ss, info, req.output);
      } finally {
        wipe(ss);
      }
    }
    throw new TypeError(`kem must be 'ml-kem-768' or 'x-wing'`);
  },
  'keystore/debug': async (req) => {
    if (!debugEnabled) throw new TypeError('debug requests are disabled');
    const s = await open(req);
    if (req.action === 'fault') {
      s.fault = req.fault;
      return true;
    }
    const [identities, secrets] = await Promise.all([s.db.count('identities'), s.db.count('secrets')]);
    return { identities, secrets, revision: (await readState(s)).revision };
  },
};
