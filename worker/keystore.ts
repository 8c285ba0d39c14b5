/**
 * The keystore, inside a veilkit worker (IndexedDB, WebCrypto, Web Locks,
 * BroadcastChannel). Specified in docs/KEYSTORE.md.
 *
 * - Nothing usable is persisted: every secret is stored as its seed bytes,
 *   AES-256-GCM-wrapped under the storage key with AAD = label ‖ record id ‖
 *   record type ‖ generation. The storage key is S = Argon2id(passphrase) —
 *   held as a non-extractable `CryptoKey` in this worker's memory only while
 *   unlocked — or, without a passphrase, a device key (a non-extractable
 *   `CryptoKey` in IndexedDB: then same-origin script is the same principal
 *   as the app).
 * - WebCrypto-route keys are imported from their unwrapped seeds as
 *   non-extractable `CryptoKey`s into this worker's memory, and dropped on
 *   `lock` (or when another tab locks or changes the passphrase).
 * - Every operation reads the state in the transaction that reads its
 *   records and requires the generation and lock epoch it unlocked with: a
 *   worker that missed a lock broadcast cannot keep using S.
 * - Every write takes the Web Lock `veilkit-keystore:<name>`, commits in one
 *   IndexedDB transaction and is announced on the BroadcastChannel of the
 *   same name. A failed write aborts its transaction: nothing is ever wiped.
 */
import * as P from '../ts/primitives.js';
import { VeilError } from '../ts/errors.js';
import { wipe } from '../ts/validate.js';
import {
  BUNDLE_DST, bundleEd25519Message, checkArgon2Budget, checkBackupEntry, checkPassphraseKdf, concat, decodePublicBundle,
  deriveKeySeed, encodeBundleBody, identityId, openBackup, publicKeyFromKeySeed, sealBackup, type BackupEntry, type PublicBundle,
} from '../ts/keystore-format.js';
import {
  KEY_TYPES,
  type HybridSignature, type IdentityHandle, type ImportBackupResult, type KdfBudget, type KeyRoute, type KeyType,
  type KeystoreCapabilities, type KeystoreChange, type KeystoreRequest, type KeystoreStatus, type PassphraseKdfParams,
} from './keystore.protocol.js';
import { abort, done, eachCursor, openDatabase, request } from './keystore-db.js';

// ---------------------------------------------------------------------------
// Schema

/** Version of the IndexedDB schema (object stores and indexes). Older databases are migrated; newer ones are refused. */
export const SCHEMA_VERSION = 2;
/**
 * Version of the record format (docs/KEYSTORE.md#storage-model), kept in the
 * state record. A store written in another format is refused with
 * `UNSUPPORTED_VERSION` and left untouched.
 */
export const STORE_FORMAT = 2;

type SecretType = KeyType | 'recovery';

interface SecretRecord {
  /** `<identity id>/<type>`. */
  id: string;
  identityId: string;
  type: SecretType;
  /** iv(12) ‖ AES-256-GCM(storage key, seed, AAD = recordAad(id, type, generation)). */
  wrapped: Uint8Array;
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
  /** iv ‖ AES-GCM(S, empty, AAD = recordAad('state', 'lock-check', generation)): tells a wrong passphrase apart. */
  check: Uint8Array;
}

interface DeviceRecord { key: 'device'; deviceKey: CryptoKey; createdAt: number }
interface StateRecord {
  key: 'state';
  format: number;
  revision: number;
  /** Incremented by every passphrase change (set, change, remove); part of every record's AAD. */
  generation: number;
  /** Incremented by every `lock()`: an unlocked worker must have seen the current epoch. */
  lockEpoch: number;
  lock?: LockRecord;
}
type MetaRecord = DeviceRecord | StateRecord;

/**
 * Schema migrations: `MIGRATIONS[v]` upgrades a version `v − 1` database to
 * version `v`, inside the versionchange transaction (any failure aborts it
 * and leaves the database at its old version, data untouched).
 * - 1: stores `meta` (keyPath `key`), `identities` (keyPath `id`), `secrets` (keyPath `id`).
 * - 2: index `secrets.byIdentity` on `identityId`; back-fills `identityId`
 *   (the part of the record id before `/`) into version-1 secret records.
 */
export const MIGRATIONS: Readonly<Record<number, (db: IDBDatabase, tx: IDBTransaction) => Promise<void>>> = {
  1: async (db) => {
    db.createObjectStore('meta', { keyPath: 'key' });
    db.createObjectStore('identities', { keyPath: 'id' });
    db.createObjectStore('secrets', { keyPath: 'id' });
  },
  2: async (_db, tx) => {
    const secrets = tx.objectStore('secrets');
    secrets.createIndex('byIdentity', 'identityId');
    await eachCursor(secrets, null, (c) => {
      const v = c.value as { id: string; identityId?: string };
      if (typeof v.identityId !== 'string') c.update({ ...v, identityId: v.id.split('/')[0] });
    });
  },
};

/** The IndexedDB database name of keystore `name`. */
export function databaseName(name: string): string {
  return `veilkit-keystore:${name}`;
}

/** Opens (creating or migrating) the database of keystore `name` at `version`. */
export async function openKeystoreDb(name: string, version = SCHEMA_VERSION, onClose: () => void = () => {}): Promise<IDBDatabase> {
  try {
    return await openDatabase(databaseName(name), version, {
      async upgrade(db, oldVersion, newVersion, tx) {
        for (let v = oldVersion + 1; v <= newVersion; v++) {
          const step = MIGRATIONS[v];
          if (!step) throw new Error(`no migration to version ${v}`);
          await step(db, tx);
        }
      },
      onClose,
    });
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

/** What this worker holds while the store is usable. Dropped on lock, on a stale generation or epoch. */
interface Session {
  readonly generation: number;
  readonly lockEpoch: number;
  /** S (passphrase) or the device key: wraps every secret record. */
  readonly key: CryptoKey;
  readonly passphrase: boolean;
  /** WebCrypto-route private keys imported from their seeds, by record id. */
  readonly native: Map<string, CryptoKey>;
}

interface Store {
  readonly name: string;
  readonly db: IDBDatabase;
  readonly deviceKey: CryptoKey;
  session: Session | undefined;
  readonly channel: BroadcastChannel | undefined;
}

/** Runs inside every commit's transaction before the state is written (test builds install fault injection here). */
export type CommitHook = (tx: IDBTransaction, storeName: string) => Promise<void> | void;
let commitHook: CommitHook | undefined;

/**
 * Installs (or removes) the commit hook. No message reaches it: the shipped
 * worker never calls this; only a test-only worker entry does
 * (tests/playwright/fixtures/keystore-fault-worker.ts).
 */
export function setCommitHook(hook: CommitHook | undefined): void {
  commitHook = hook;
}

const stores = new Map<string, Promise<Store>>();

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
    void cur?.then((s) => {
      s.session = undefined;
      s.channel?.close();
    }, () => {});
  };
  const db = await openKeystoreDb(name, SCHEMA_VERSION, forget);
  try {
    let device = (await read(db, 'meta', 'device')) as DeviceRecord | undefined;
    let created = false;
    if (!device) {
      device = await withLock(name, async () => {
        const again = (await read(db, 'meta', 'device')) as DeviceRecord | undefined;
        if (again) return again;
        const deviceKey = await subtle().generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
        const record: DeviceRecord = { key: 'device', deviceKey, createdAt: Date.now() };
        const tx = db.transaction('meta', 'readwrite');
        const finished = done(tx);
        finished.catch(() => {});
        try {
          const meta = tx.objectStore('meta');
          await request(meta.put(record));
          await request(meta.put({ key: 'state', format: STORE_FORMAT, revision: 1, generation: 0, lockEpoch: 0 } satisfies StateRecord));
          await finished;
        } catch (e) {
          abort(tx);
          throw storageError(e);
        }
        created = true;
        return record;
      });
    }
    const state = (await read(db, 'meta', 'state')) as StateRecord | undefined;
    checkFormat(state);
    const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(channelName(name)) : undefined;
    const store: Store = { name, db, deviceKey: device.deviceKey, session: undefined, channel };
    if (channel) {
      channel.onmessage = (e: MessageEvent) => {
        const m = e.data as KeystoreChange | null;
        if (m?.change === 'locked' || m?.change === 'passphrase-changed') store.session = undefined;
      };
    }
    if (created) announce(store, { change: 'created', revision: 1, ids: [] });
    return store;
  } catch (e) {
    db.close();
    throw storageError(e);
  }
}

/** A state record of this format, or `UNSUPPORTED_VERSION` (an older veilkit's store: nothing is read from or written to it). */
function checkFormat(state: StateRecord | undefined): StateRecord {
  if (!state) throw new VeilError('STORAGE_FAILED', 'the keystore has no state record');
  if (state.format !== STORE_FORMAT) {
    throw new VeilError(
      'UNSUPPORTED_VERSION',
      `this keystore was written in record format ${String(state.format ?? 1)}; this veilkit reads format ${STORE_FORMAT} only. It was left untouched: restore its identities from their phrases or a backup into a new store`,
    );
  }
  return state;
}

async function read(db: IDBDatabase, store: 'meta' | 'identities' | 'secrets', key: string): Promise<unknown> {
  try {
    return await request(db.transaction(store).objectStore(store).get(key));
  } catch (e) {
    throw storageError(e);
  }
}

function announce(s: Store, c: Omit<KeystoreChange, 'name'>): void {
  s.channel?.postMessage({ name: s.name, ...c } satisfies KeystoreChange);
}

async function readState(s: Store): Promise<StateRecord> {
  return checkFormat((await read(s.db, 'meta', 'state')) as StateRecord | undefined);
}

/**
 * The session that may use the records of `state`, or `KEYSTORE_LOCKED`.
 * Without a passphrase it is made on demand with the device key; with one it
 * exists only after `unlock` and only for the generation and lock epoch it
 * unlocked (a stale one is dropped here).
 */
function sessionFor(s: Store, state: StateRecord): Session {
  const cur = s.session;
  if (!state.lock) {
    if (cur && !cur.passphrase && cur.generation === state.generation) return cur;
    s.session = { generation: state.generation, lockEpoch: state.lockEpoch, key: s.deviceKey, passphrase: false, native: new Map() };
    return s.session;
  }
  if (cur && cur.passphrase && cur.generation === state.generation && cur.lockEpoch === state.lockEpoch) return cur;
  s.session = undefined;
  throw locked();
}

/**
 * One logical change = one readwrite transaction over every store. `expected`
 * is the revision read under the Web Lock; `fn` may only issue IndexedDB
 * requests (no other awaits: the transaction would auto-commit). Any failure
 * aborts the transaction and is reported as a typed error.
 */
async function commit(
  s: Store, expected: number, fn: (tx: IDBTransaction, state: StateRecord) => Promise<Partial<StateRecord> | void>,
): Promise<number> {
  let tx: IDBTransaction;
  try {
    tx = s.db.transaction(['meta', 'identities', 'secrets'], 'readwrite');
  } catch (e) {
    throw storageError(e);
  }
  const finished = done(tx);
  finished.catch(() => {});
  try {
    const state = checkFormat((await request(tx.objectStore('meta').get('state'))) as StateRecord | undefined);
    if (state.revision !== expected) throw new VeilError('STORAGE_FAILED', 'the keystore changed during the operation; nothing was changed');
    const update = (await fn(tx, state)) ?? {};
    if (commitHook) await commitHook(tx, s.name);
    const next: StateRecord = { ...state, ...update, key: 'state', format: STORE_FORMAT, revision: state.revision + 1 };
    if (update.lock === undefined && 'lock' in update) delete next.lock;
    await request(tx.objectStore('meta').put(next));
    await finished;
    return next.revision;
  } catch (e) {
    abort(tx);
    throw storageError(e);
  }
}

// ---------------------------------------------------------------------------
// Sealing: AES-256-GCM under a CryptoKey, AAD = label ‖ 0x00 ‖ id ‖ 0x00 ‖ type ‖ 0x00 ‖ u32 generation

const RECORD_LABEL = 'veilkit-keystore-record-v2';

function recordAad(id: string, type: string, generation: number): Uint8Array {
  const g = new Uint8Array(4);
  new DataView(g.buffer).setUint32(0, generation);
  return concat(enc.encode(RECORD_LABEL), Uint8Array.of(0), enc.encode(id), Uint8Array.of(0), enc.encode(type), Uint8Array.of(0), g);
}

async function seal(key: CryptoKey, id: string, type: string, generation: number, plaintext: Uint8Array): Promise<Uint8Array> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = await subtle().encrypt({ name: 'AES-GCM', iv, additionalData: buf(recordAad(id, type, generation)) }, key, buf(plaintext));
  return concat(iv, new Uint8Array(ct));
}

async function unseal(key: CryptoKey, id: string, type: string, generation: number, sealed: Uint8Array | undefined): Promise<Uint8Array> {
  if (!(sealed instanceof Uint8Array) || sealed.length < 28) throw new VeilError('AUTHENTICATION_FAILED', `record ${id} is damaged`);
  try {
    const pt = await subtle().decrypt(
      { name: 'AES-GCM', iv: buf(sealed.subarray(0, 12)), additionalData: buf(recordAad(id, type, generation)) }, key, buf(sealed.subarray(12)),
    );
    return new Uint8Array(pt);
  } catch {
    throw new VeilError('AUTHENTICATION_FAILED', `record ${id} could not be decrypted (wrong key, another record's bytes, or a stale generation)`);
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

/** The plaintext of a recovery record: entropy(32) ‖ BIP-39 seed(64) ‖ UTF-8(BIP-39 passphrase). Wipe it after use. */
function recoveryPlaintext(entropy: Uint8Array, seed: Uint8Array, bip39Passphrase: string): Uint8Array {
  const pass = enc.encode(bip39Passphrase);
  try {
    return concat(entropy, seed, pass);
  } finally {
    wipe(pass);
  }
}

/** Derives every key of an identity from its 64-byte BIP-39 seed and prepares its records, wrapped for `session` (no writes). */
async function buildIdentity(
  session: Session, seed: Uint8Array, entropy: Uint8Array, bip39Passphrase: string, label: string, mlDsa: boolean, createdAt: number,
): Promise<{ identity: IdentityRecord; secrets: SecretRecord[]; siblingId: string }> {
  const caps = await capabilities();
  const types = KEY_TYPES.filter((t) => mlDsa || t !== 'ml-dsa-65');
  const seeds = new Map<KeyType, Uint8Array>();
  try {
    for (const t of types) seeds.set(t, deriveKeySeed(seed, t));
    const publicKeys: Partial<Record<KeyType, Uint8Array>> = {};
    for (const t of types) publicKeys[t] = publicKeyFromKeySeed(t, seeds.get(t)!);
    const id = identityId(publicKeys);
    // The same phrase with the other ML-DSA setting: another id over the same classical keys.
    let siblingId: string;
    if (mlDsa) {
      siblingId = identityId({ ...publicKeys, 'ml-dsa-65': undefined });
    } else {
      const mlDsaSeed = deriveKeySeed(seed, 'ml-dsa-65');
      try {
        siblingId = identityId({ ...publicKeys, 'ml-dsa-65': publicKeyFromKeySeed('ml-dsa-65', mlDsaSeed) });
      } finally {
        wipe(mlDsaSeed);
      }
    }
    const body = encodeBundleBody(publicKeys);
    const parts = [body, P.signMessage(seeds.get('ed25519')!, bundleEd25519Message(body))];
    if (mlDsa) parts.push(P.mlDsaSign(seeds.get('ml-dsa-65')!, body, { context: enc.encode(BUNDLE_DST), deterministic: true }));
    const routes: Partial<Record<KeyType, KeyRoute>> = {};
    const secrets: SecretRecord[] = [];
    for (const t of types) {
      routes[t] = caps.routes[t];
      const rid = `${id}/${t}`;
      secrets.push({ id: rid, identityId: id, type: t, wrapped: await seal(session.key, rid, t, session.generation, seeds.get(t)!) });
    }
    const recovery = recoveryPlaintext(entropy, seed, bip39Passphrase);
    try {
      const rid = `${id}/recovery`;
      secrets.push({ id: rid, identityId: id, type: 'recovery', wrapped: await seal(session.key, rid, 'recovery', session.generation, recovery) });
    } finally {
      wipe(recovery);
    }
    return { identity: { id, label, createdAt, mlDsa, routes, publicKeys, bundle: concat(...parts) }, secrets, siblingId };
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

async function addIdentity(
  s: Store, phrase: string, bip39Passphrase: string, label: string, mlDsa: boolean, createdAt: number, existing: 'fail' | 'return',
): Promise<IdentityHandle> {
  const { entropy, seed } = phraseMaterial(phrase, bip39Passphrase);
  try {
    return await withLock(s.name, async () => {
      const state = await readState(s);
      const session = sessionFor(s, state);
      const { identity, secrets, siblingId } = await buildIdentity(session, seed, entropy, bip39Passphrase, label, mlDsa, createdAt);
      const present = (await read(s.db, 'identities', identity.id)) as IdentityRecord | undefined;
      if (present) {
        if (existing === 'return') return handleOf(present);
        throw new VeilError('KEY_EXISTS', `identity ${identity.id} is already in this keystore`);
      }
      // One phrase, one identity: its keys are not installed a second time under the other ML-DSA setting.
      if (await read(s.db, 'identities', siblingId)) {
        throw new VeilError('KEY_EXISTS', `this phrase's identity is already in this keystore with a different ML-DSA setting (${siblingId})`);
      }
      const revision = await commit(s, state.revision, async (tx) => {
        await request(tx.objectStore('identities').add(identity));
        for (const r of secrets) await request(tx.objectStore('secrets').add(r));
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
  const r = (await read(s.db, 'identities', id)) as IdentityRecord | undefined;
  if (!r) throw notFound(`identity ${id}`);
  return r;
}

/**
 * Reads the state, the identity and one of its secret records in one
 * transaction and requires a session valid for that state (the lock check of
 * every operation): `KEYSTORE_LOCKED`, `KEY_NOT_FOUND`.
 */
async function loadSecret(s: Store, id: unknown, type: SecretType): Promise<{ session: Session; identity: IdentityRecord; record: SecretRecord }> {
  if (typeof id !== 'string') throw new TypeError('identity must be an identity handle or id');
  let state: StateRecord | undefined;
  let identity: IdentityRecord | undefined;
  let record: SecretRecord | undefined;
  try {
    const tx = s.db.transaction(['meta', 'identities', 'secrets']);
    [state, identity, record] = await Promise.all([
      request(tx.objectStore('meta').get('state')) as Promise<StateRecord | undefined>,
      request(tx.objectStore('identities').get(id)) as Promise<IdentityRecord | undefined>,
      request(tx.objectStore('secrets').get(`${id}/${type}`)) as Promise<SecretRecord | undefined>,
    ]);
  } catch (e) {
    throw storageError(e);
  }
  const session = sessionFor(s, checkFormat(state));
  if (!identity) throw notFound(`identity ${id}`);
  if (!record) throw notFound(`the ${type} key of identity ${id}`);
  return { session, identity, record };
}

/** Runs `fn` on the unwrapped seed of a secret record, wiping the bytes afterwards. */
async function withSecret<T>(session: Session, r: SecretRecord, fn: (secret: Uint8Array) => T | Promise<T>): Promise<T> {
  const secret = await unseal(session.key, r.id, r.type, session.generation, r.wrapped);
  try {
    return await fn(secret);
  } finally {
    wipe(secret);
  }
}

/** The non-extractable WebCrypto key of a webcrypto-route record, imported from its seed into this worker's memory once per session. */
async function nativeKey(session: Session, r: SecretRecord, type: KeyType): Promise<CryptoKey> {
  const cached = session.native.get(r.id);
  if (cached) return cached;
  const key = await withSecret(session, r, (seed) => importNative(type, seed));
  session.native.set(r.id, key);
  return key;
}

async function signWith(s: Store, id: unknown, algorithm: 'ed25519' | 'ml-dsa-65', message: Uint8Array, context: Uint8Array | undefined): Promise<Uint8Array> {
  if (algorithm === 'ed25519') {
    if (context !== undefined) throw new TypeError('Ed25519 takes no context');
    const { session, identity, record } = await loadSecret(s, id, 'ed25519');
    if (identity.routes.ed25519 === 'webcrypto') {
      return new Uint8Array(await subtle().sign({ name: 'Ed25519' }, await nativeKey(session, record, 'ed25519'), buf(message)));
    }
    return withSecret(session, record, (sk) => P.signMessage(sk, message));
  }
  const { session, identity, record } = await loadSecret(s, id, 'ml-dsa-65');
  if (identity.routes['ml-dsa-65'] === 'webcrypto') {
    return new Uint8Array(await modern().sign({ name: 'ML-DSA-65', context }, await nativeKey(session, record, 'ml-dsa-65'), buf(message)));
  }
  return withSecret(session, record, (sk) => P.mlDsaSign(sk, message, context ? { context } : {}));
}

/** HKDF-SHA256(ikm, salt = empty, info) → non-extractable AES-256-GCM key, or the HKDF base key with `deriveKey` only (never `deriveBits`). */
async function keyFromSecret(ikm: Uint8Array | CryptoKey, info: Uint8Array, output: 'aes-gcm' | 'hkdf'): Promise<CryptoKey> {
  const base = ikm instanceof Uint8Array
    ? await subtle().importKey('raw', buf(ikm), { name: 'HKDF' }, false, ['deriveKey'])
    : ikm;
  if (output === 'hkdf') return base;
  return subtle().deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: buf(info) }, base,
    { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt'],
  );
}

// ---------------------------------------------------------------------------
// Passphrases (lock and backup)

/** Argon2id(UTF-8(passphrase), salt, params) → 32 bytes. The caller checked the parameters against the KDF budget. */
function passphraseKey(passphrase: unknown, salt: Uint8Array, params: PassphraseKdfParams): Uint8Array {
  if (typeof passphrase !== 'string' || passphrase.length === 0) throw new TypeError('passphrase must be a non-empty string');
  return P.argon2id(passphrase, salt, { ...params, length: 32 });
}

async function importStorageKey(material: Uint8Array): Promise<CryptoKey> {
  return subtle().importKey('raw', buf(material), { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
}

async function allSecrets(s: Store): Promise<SecretRecord[]> {
  try {
    return (await request(s.db.transaction('secrets').objectStore('secrets').getAll())) as SecretRecord[];
  } catch (e) {
    throw storageError(e);
  }
}

async function setPassphrase(s: Store, passphrase: string | null, params: PassphraseKdfParams | undefined, budget: KdfBudget | undefined): Promise<KeystoreStatus> {
  if (passphrase !== null && (typeof passphrase !== 'string' || passphrase.length === 0)) throw new TypeError('passphrase must be a non-empty string or null');
  const p = checkPassphraseKdf(params);
  // The writer keeps within the reader's budget, so that this store always unlocks.
  if (passphrase !== null) checkArgon2Budget(p, budget);
  return withLock(s.name, async () => {
    const state = await readState(s);
    const old = sessionFor(s, state);
    const generation = state.generation + 1;
    let key = s.deviceKey;
    let lock: LockRecord | undefined;
    if (passphrase !== null) {
      const salt = crypto.getRandomValues(new Uint8Array(16));
      const material = passphraseKey(passphrase, salt, p);
      try {
        key = await importStorageKey(material);
      } finally {
        wipe(material);
      }
      lock = { salt, params: p, check: await seal(key, 'state', 'lock-check', generation, new Uint8Array(0)) };
    }
    // Re-wrap every secret under the new key and generation, then commit them with the new lock at once.
    const rewrapped: SecretRecord[] = [];
    for (const r of await allSecrets(s)) {
      rewrapped.push({ ...r, wrapped: await withSecret(old, r, (secret) => seal(key, r.id, r.type, generation, secret)) });
    }
    const revision = await commit(s, state.revision, async (tx) => {
      for (const r of rewrapped) await request(tx.objectStore('secrets').put(r));
      return { generation, lock };
    });
    s.session = lock ? { generation, lockEpoch: state.lockEpoch, key, passphrase: true, native: old.native } : undefined;
    announce(s, { change: 'passphrase-changed', revision, ids: [] });
    return status(s);
  });
}

function validLock(l: LockRecord): PassphraseKdfParams {
  try {
    if (!(l.salt instanceof Uint8Array) || l.salt.length !== 16) throw new RangeError('salt');
    return checkPassphraseKdf(l.params);
  } catch {
    throw new VeilError('STORAGE_FAILED', 'the keystore\'s lock record is damaged');
  }
}

async function unlock(s: Store, passphrase: string, budget: KdfBudget | undefined): Promise<KeystoreStatus> {
  const state = await readState(s);
  if (!state.lock) return status(s);
  if (typeof passphrase !== 'string' || passphrase.length === 0) throw new TypeError('passphrase must be a non-empty string');
  const params = validLock(state.lock);
  // The parameters come from storage that page script can write: bounded before any work.
  checkArgon2Budget(params, budget);
  const material = passphraseKey(passphrase, state.lock.salt, params);
  let key: CryptoKey;
  try {
    key = await importStorageKey(material);
  } finally {
    wipe(material);
  }
  await unseal(key, 'state', 'lock-check', state.generation, state.lock.check); // wrong passphrase: AUTHENTICATION_FAILED
  s.session = { generation: state.generation, lockEpoch: state.lockEpoch, key, passphrase: true, native: new Map() };
  return status(s);
}

async function lock(s: Store): Promise<KeystoreStatus> {
  const result = await withLock(s.name, async () => {
    const state = await readState(s);
    s.session = undefined;
    if (!state.lock) return undefined;
    // A committed epoch, not only a broadcast: a worker that misses the message still finds itself locked.
    return commit(s, state.revision, async () => ({ lockEpoch: state.lockEpoch + 1 }));
  });
  s.session = undefined;
  if (result !== undefined) announce(s, { change: 'locked', revision: result, ids: [] });
  return status(s);
}

async function status(s: Store): Promise<KeystoreStatus> {
  let state: StateRecord | undefined;
  let identities: number;
  try {
    const tx = s.db.transaction(['meta', 'identities']);
    [state, identities] = await Promise.all([
      request(tx.objectStore('meta').get('state')) as Promise<StateRecord | undefined>,
      request(tx.objectStore('identities').count()),
    ]);
  } catch (e) {
    throw storageError(e);
  }
  const st = checkFormat(state);
  const cur = s.session;
  const isLocked = st.lock !== undefined && !(cur && cur.passphrase && cur.generation === st.generation && cur.lockEpoch === st.lockEpoch);
  let persisted = false;
  try {
    persisted = (await (globalThis.navigator as Navigator | undefined)?.storage?.persisted?.()) === true;
  } catch { /* not available here */ }
  return { passphrase: st.lock !== undefined, locked: isLocked, revision: st.revision, identities, persisted };
}

// ---------------------------------------------------------------------------
// Backup (docs/KEYSTORE.md#backup)

async function exportBackup(s: Store, passphrase: string, params: PassphraseKdfParams | undefined, budget: KdfBudget | undefined): Promise<Uint8Array> {
  const p = checkPassphraseKdf(params);
  checkArgon2Budget(p, budget); // a reader with the same budget must be able to open it
  if (typeof passphrase !== 'string' || passphrase.length === 0) throw new TypeError('passphrase must be a non-empty string');
  // One read transaction: the state, the identities and their recovery records as of one point in time.
  let state: StateRecord | undefined;
  let identities: IdentityRecord[];
  let recoveries: (SecretRecord | undefined)[];
  try {
    const tx = s.db.transaction(['meta', 'identities', 'secrets']);
    const stateP = request(tx.objectStore('meta').get('state')) as Promise<StateRecord | undefined>;
    identities = (await request(tx.objectStore('identities').getAll())) as IdentityRecord[];
    recoveries = await Promise.all(identities.map((r) => request(tx.objectStore('secrets').get(`${r.id}/recovery`)) as Promise<SecretRecord | undefined>));
    state = await stateP;
  } catch (e) {
    throw storageError(e);
  }
  const session = sessionFor(s, checkFormat(state));
  const order = identities.map((r, i) => ({ r, rec: recoveries[i] }));
  order.sort((x, y) => x.r.createdAt - y.r.createdAt || (x.r.id < y.r.id ? -1 : 1));
  const entries: BackupEntry[] = [];
  try {
    for (const { r, rec } of order) {
      if (!rec) throw notFound(`the recovery record of identity ${r.id}`);
      const recovery = await withSecret(session, rec, (sec) => sec.slice());
      entries.push({
        mlDsa: r.mlDsa, createdAt: r.createdAt, label: r.label, entropy: recovery.subarray(0, 32), seed: recovery.subarray(32, 96),
        bip39Passphrase: new TextDecoder('utf-8', { ignoreBOM: true }).decode(recovery.subarray(96)),
      });
      recovery.subarray(96).fill(0);
    }
    const salt = crypto.getRandomValues(new Uint8Array(16));
    return sealBackup(entries, p, salt, (sa, pp) => passphraseKey(passphrase, sa, pp));
  } finally {
    for (const e of entries) wipe(e.entropy, e.seed);
  }
}

async function importBackup(s: Store, backup: Uint8Array, passphrase: string, budget: KdfBudget | undefined): Promise<ImportBackupResult> {
  let entries: BackupEntry[];
  try {
    entries = openBackup(backup, (salt, params) => passphraseKey(passphrase, salt, params), budget);
  } finally {
    // The page transferred its copy of the backup to this worker: nothing else holds it.
    if (backup instanceof Uint8Array) wipe(backup);
  }
  try {
    // The recovery phrase must restore exactly the keys that are installed.
    for (const e of entries) checkBackupEntry(e);
    return await withLock(s.name, async () => {
      const state = await readState(s);
      const session = sessionFor(s, state);
      const built: { identity: IdentityRecord; secrets: SecretRecord[]; siblingId: string }[] = [];
      const skipped: string[] = [];
      for (const e of entries) {
        const b = await buildIdentity(session, e.seed, e.entropy, e.bip39Passphrase, e.label, e.mlDsa, e.createdAt);
        const present = (await read(s.db, 'identities', b.identity.id)) ?? (await read(s.db, 'identities', b.siblingId));
        if (present || built.some((x) => x.identity.id === b.identity.id || x.identity.id === b.siblingId)) skipped.push(b.identity.id);
        else built.push(b);
      }
      if (built.length === 0) return { imported: [], skipped };
      const revision = await commit(s, state.revision, async (tx) => {
        for (const b of built) {
          await request(tx.objectStore('identities').add(b.identity));
          for (const r of b.secrets) await request(tx.objectStore('secrets').add(r));
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
  'keystore/set-passphrase': async (req) => setPassphrase(await open(req), req.passphrase, req.params, req.kdfBudget),
  'keystore/unlock': async (req) => unlock(await open(req), req.passphrase, req.kdfBudget),
  'keystore/lock': async (req) => lock(await open(req)),
  'keystore/create-identity': async (req) => {
    const s = await open(req);
    const label = checkLabel(req.label);
    sessionFor(s, await readState(s)); // fail fast when locked, before any key material exists
    const phrase = P.generateMnemonic();
    return addIdentity(s, phrase, '', label, req.mlDsa === true, Date.now(), 'fail');
  },
  'keystore/list-identities': async (req) => {
    const s = await open(req);
    let all: IdentityRecord[];
    try {
      all = (await request(s.db.transaction('identities').objectStore('identities').getAll())) as IdentityRecord[];
    } catch (e) {
      throw storageError(e);
    }
    return all.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1)).map(handleOf);
  },
  'keystore/public-bundle': async (req): Promise<PublicBundle> => {
    const r = await identityRecord(await open(req), req.identity);
    // The id is a hash of the bundle's keys: a bundle written under another identity's id is refused.
    let bundle: PublicBundle | undefined;
    try {
      bundle = decodePublicBundle(r.bundle);
    } catch { /* reported below */ }
    if (!bundle || bundle.id !== r.id) throw new VeilError('AUTHENTICATION_FAILED', `the stored public bundle of identity ${r.id} does not match its id`);
    return bundle;
  },
  'keystore/delete-identity': async (req) => {
    const s = await open(req);
    return withLock(s.name, async () => {
      const state = await readState(s);
      const session = sessionFor(s, state);
      const r = await identityRecord(s, req.identity);
      const revision = await commit(s, state.revision, async (tx) => {
        await request(tx.objectStore('identities').delete(r.id));
        await eachCursor(tx.objectStore('secrets').index('byIdentity'), IDBKeyRange.only(r.id), (c) => {
          c.delete();
        });
      });
      for (const k of [...session.native.keys()]) if (k.startsWith(`${r.id}/`)) session.native.delete(k);
      announce(s, { change: 'identity-deleted', revision, ids: [r.id] });
      return true;
    });
  },
  'keystore/export-phrase': async (req) => {
    const { session, record } = await loadSecret(await open(req), req.identity, 'recovery');
    return withSecret(session, record, (rec) => P.entropyToMnemonic(rec.subarray(0, 32)));
  },
  'keystore/restore-phrase': async (req) => {
    const s = await open(req);
    const label = checkLabel(req.label);
    if (typeof req.bip39Passphrase !== 'string') throw new TypeError('passphrase must be a string');
    return addIdentity(s, req.phrase, req.bip39Passphrase, label, req.mlDsa === true, Date.now(), 'return');
  },
  'keystore/export-backup': async (req) => exportBackup(await open(req), req.passphrase, req.params, req.kdfBudget),
  'keystore/import-backup': async (req) => importBackup(await open(req), bytesArg('backup', req.backup), req.passphrase, req.kdfBudget),
  'keystore/sign': async (req) => {
    const s = await open(req);
    const message = bytesArg('message', req.message);
    if (req.algorithm !== 'ed25519' && req.algorithm !== 'ml-dsa-65') throw new TypeError(`algorithm must be 'ed25519' or 'ml-dsa-65'`);
    const context = req.context === undefined ? undefined : bytesArg('context', req.context);
    return signWith(s, req.identity, req.algorithm, message, context);
  },
  'keystore/sign-hybrid': async (req): Promise<HybridSignature> => {
    const s = await open(req);
    const message = bytesArg('message', req.message);
    const context = req.context === undefined ? undefined : bytesArg('context', req.context);
    const r = await identityRecord(s, req.identity);
    if (!r.mlDsa) throw notFound(`the ml-dsa-65 key of identity ${r.id} (a hybrid signature needs an identity made with mlDsa: true)`);
    const mlDsa65 = await signWith(s, r.id, 'ml-dsa-65', message, context);
    const ed25519 = await signWith(s, r.id, 'ed25519', message, undefined);
    return { ed25519, mlDsa65 };
  },
  'keystore/derive-shared-key': async (req) => {
    const s = await open(req);
    const peer = bytesArg('peerPublicKey', req.peerPublicKey, 32);
    const info = bytesArg('info', req.info);
    const { session, identity, record } = await loadSecret(s, req.identity, 'x25519');
    let shared: Uint8Array;
    if (identity.routes.x25519 === 'webcrypto') {
      const peerKey = await subtle().importKey('raw', buf(peer), { name: 'X25519' }, true, []);
      const own = await nativeKey(session, record, 'x25519');
      try {
        shared = new Uint8Array(await subtle().deriveBits({ name: 'X25519', public: peerKey }, own, 256));
      } catch (e) {
        throw new VeilError('WEAK_KEY', `X25519 with this peer key failed (${(e as Error).message})`);
      }
    } else {
      shared = await withSecret(session, record, (sk) => P.ecdhSharedSecret(sk, peer));
    }
    try {
      return await keyFromSecret(shared, info, 'aes-gcm');
    } finally {
      wipe(shared);
    }
  },
  'keystore/decapsulate': async (req) => {
    const port = req.port;
    if (port !== undefined && !(port instanceof MessagePort)) throw new TypeError('port must be a MessagePort');
    if (port === undefined) return decapsulate(req);
    // Straight to the worker holding the other end: the page relayed only the port. On failure
    // the other end learns it too (its request must not wait for ever); the error itself is ours.
    try {
      port.postMessage({ key: await decapsulate(req) });
      return true;
    } catch (e) {
      port.postMessage({ failed: true });
      throw e;
    } finally {
      port.close();
    }
  },
};

async function decapsulate(req: Extract<KeystoreRequest, { type: 'keystore/decapsulate' }>): Promise<CryptoKey> {
  {
    const s = await open(req);
    const info = bytesArg('info', req.info);
    if (req.output !== 'aes-gcm' && req.output !== 'hkdf') throw new TypeError(`output must be 'aes-gcm' or 'hkdf'`);
    if (req.kem === 'ml-kem-768') {
      const ct = bytesArg('ciphertext', req.ciphertext, 1088);
      const { session, identity, record } = await loadSecret(s, req.identity, 'ml-kem-768');
      if (identity.routes['ml-kem-768'] === 'webcrypto') {
        const dk = await nativeKey(session, record, 'ml-kem-768');
        const base = await modern().decapsulateKey({ name: 'ML-KEM-768' }, dk, buf(ct), { name: 'HKDF' }, false, ['deriveKey']);
        return keyFromSecret(base, info, req.output);
      }
      const ss = await withSecret(session, record, (seed) => {
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
      const { session, record } = await loadSecret(s, req.identity, 'x-wing');
      const ss = await withSecret(session, record, (sk) => P.xWingDecapsulate(sk, ct));
      try {
        return await keyFromSecret(ss, info, req.output);
      } finally {
        wipe(ss);
      }
    }
    throw new TypeError(`kem must be 'ml-kem-768' or 'x-wing'`);
  }
}
