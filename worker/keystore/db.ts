/**
 * The keystore's IndexedDB database: schema version and migrations, opening,
 * typed storage errors, reads, the Web Lock every write takes and the one
 * transaction every change commits in (docs/KEYSTORE.md#storage-model).
 */
import { VeilError } from '../../protocol/errors.js';
import { abort, done, eachCursor, openDatabase, request } from './idb.js';
import type { StateRecord } from './records.js';
import type { Store } from './store.js';

// ---------------------------------------------------------------------------
// Schema

/** Version of the IndexedDB schema (object stores and indexes). Older databases are migrated; newer ones are refused. */
export const SCHEMA_VERSION = 5;
/**
 * Version of the record format (docs/KEYSTORE.md#storage-model), kept in the
 * state record. A store written in another format is refused with
 * `UNSUPPORTED_VERSION` and left untouched.
 */
export const STORE_FORMAT = 2;

/** The object stores of schema 3 that hold an identity's session data (each keyPath `id`, index `byIdentity`). */
export const SESSION_STORES = ['prekeys', 'sessions', 'replay', 'heads'] as const;
export type SessionStoreName = (typeof SESSION_STORES)[number];
/** The object store of schema 5 holding each identity's sealed MLS client (docs/GROUPS.md#groups-in-the-keystore; keyPath `id`, index `byIdentity`). */
export const GROUP_STORE = 'groups';
/** Every object store of an identity's keys and secrets; `commit` opens its transaction over all of them. */
export const ALL_STORES = ['meta', 'identities', 'secrets', ...SESSION_STORES, GROUP_STORE] as const;
export type StoreName = (typeof ALL_STORES)[number];

/**
 * Schema migrations: `MIGRATIONS[v]` upgrades a version `v − 1` database to
 * version `v`, inside the versionchange transaction (any failure aborts it
 * and leaves the database at its old version, data untouched).
 * - 1: stores `meta` (keyPath `key`), `identities` (keyPath `id`), `secrets` (keyPath `id`).
 * - 2: index `secrets.byIdentity` on `identityId`; back-fills `identityId`
 *   (the part of the record id before `/`) into version-1 secret records.
 * - 3: the session stores (docs/KEYSTORE.md#sessions-and-prekeys), each keyPath `id` with an
 *   index `byIdentity` on `identityId`: `prekeys` (signed prekeys with their wrapped secrets,
 *   and the `<identity>/device` record), `sessions` (wrapped ratchet states), `replay`
 *   (first-message replay cache), `heads` (highest committed state counter per session).
 *   Existing records are not touched; the record format stays 2.
 * - 4: the message history (docs/KEYSTORE.md#message-history): `conversations` (keyPath `c`) and
 *   `history` (keyPath `['c', 's']`: conversation tag, sequence number). Nothing else changes.
 * - 5: MLS groups (docs/GROUPS.md#groups-in-the-keystore): `groups` (keyPath `id`, index `byIdentity` on
 *   `identityId`), one sealed MLS client per identity; its heads go into `heads`. Nothing else changes.
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
  3: async (db) => {
    for (const name of SESSION_STORES) db.createObjectStore(name, { keyPath: 'id' }).createIndex('byIdentity', 'identityId');
  },
  4: async (db) => {
    db.createObjectStore('conversations', { keyPath: 'c' });
    db.createObjectStore('history', { keyPath: ['c', 's'] });
  },
  5: async (db) => {
    db.createObjectStore(GROUP_STORE, { keyPath: 'id' }).createIndex('byIdentity', 'identityId');
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

export function storageError(e: unknown): Error {
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
      return new VeilError('STORAGE_FAILED', `IndexedDB failed (${typeof name === 'string' ? name : 'Error'}: ${message}); nothing was changed`);
  }
}

export const locked = () => new VeilError('KEYSTORE_LOCKED', 'the keystore is locked: call unlock(passphrase) first');
export const notFound = (what: string) => new VeilError('KEY_NOT_FOUND', `${what} is not in this keystore`);

// ---------------------------------------------------------------------------
// Reads, the Web Lock and commits

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

/** Runs the commit hook, if a test worker installed one (the session commits call it too: sessions.ts). */
export async function runCommitHook(tx: IDBTransaction, storeName: string): Promise<void> {
  if (commitHook) await commitHook(tx, storeName);
}

export function withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const locks = (globalThis.navigator as Navigator | undefined)?.locks;
  if (!locks) return Promise.reject(new VeilError('UNSUPPORTED_PLATFORM', 'Web Locks (navigator.locks) are required for keystore writes'));
  return locks.request(`veilkit-keystore:${name}`, { mode: 'exclusive' }, fn);
}

/** A state record of this format, or `UNSUPPORTED_VERSION` (an older veilkit's store: nothing is read from or written to it). */
export function checkFormat(state: StateRecord | undefined): StateRecord {
  if (!state) throw new VeilError('STORAGE_FAILED', 'the keystore has no state record');
  if (state.format !== STORE_FORMAT) {
    throw new VeilError(
      'UNSUPPORTED_VERSION',
      `this keystore was written in record format ${String(state.format ?? 1)}; this veilkit reads format ${STORE_FORMAT} only. It was left untouched: restore its identities from their phrases or a backup into a new store`,
    );
  }
  return state;
}

export async function read(db: IDBDatabase, store: StoreName, key: string): Promise<unknown> {
  try {
    return await request(db.transaction(store).objectStore(store).get(key));
  } catch (e) {
    throw storageError(e);
  }
}

/** Fields a commit changes in the state record; `lock: undefined` removes the passphrase lock. */
export type StateUpdate = Partial<Omit<StateRecord, 'lock'>> & { lock?: StateRecord['lock'] | undefined };

/**
 * One logical change = one readwrite transaction over every store (`ALL_STORES`). `expected`
 * is the revision read under the Web Lock; `fn` may only issue IndexedDB
 * requests (no other awaits: the transaction would auto-commit). Any failure
 * aborts the transaction and is reported as a typed error. `extraStores` widens the
 * transaction (the backup import adds the history's `conversations` and `history`).
 */
export async function commit(
  s: Store, expected: number, fn: (tx: IDBTransaction, state: StateRecord) => Promise<StateUpdate | undefined>,
  extraStores: readonly string[] = [],
): Promise<number> {
  let tx: IDBTransaction;
  try {
    tx = s.db.transaction([...ALL_STORES, ...extraStores], 'readwrite');
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
    const { lock, ...rest } = update;
    const next: StateRecord = { ...state, ...rest, key: 'state', format: STORE_FORMAT, revision: state.revision + 1 };
    if (lock !== undefined) next.lock = lock;
    else if ('lock' in update) delete next.lock;
    await request(tx.objectStore('meta').put(next));
    await finished;
    return next.revision;
  } catch (e) {
    abort(tx);
    throw storageError(e);
  }
}
