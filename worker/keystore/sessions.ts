/**
 * Chat sessions in the keystore (docs/SESSIONS.md §7): the ratchet state of
 * every session lives only here, wrapped in IndexedDB like an identity's
 * seeds; the page gets `SessionInfo` (public data), ciphertext and plaintext.
 *
 * Every operation on a session:
 * 1. takes the store's Web Lock `veilkit-keystore:<name>` in **shared** mode
 *    (a passphrase change, which re-wraps every session record, takes it
 *    exclusively, so it never interleaves with a session commit; sessions on
 *    different ids proceed in parallel), then the session's own exclusive Web
 *    Lock `veilkit-keystore:<name>:session:<id>` (always in this order);
 * 2. reloads the record and its head (highest committed counter) and refuses
 *    a record older than the head or than the highest counter this worker has
 *    committed or read (`STATE_ROLLBACK`);
 * 3. unwraps the state (records.ts `unsealSession`: the AAD binds identity, session id, counter and
 *    generation), computes on it (the core returns a new state; the
 *    input is unchanged on failure) and wraps the new state under its new
 *    counter;
 * 4. commits the record and the head in one `durability: 'strict'`
 *    transaction that re-checks the generation and lock epoch and the
 *    counter it started from (`respond`: the same transaction deletes the
 *    consumed one-time prekeys and records the replay key, prekeys.ts
 *    `consumeInTransaction`, aborting if either was used meanwhile);
 * 5. only then releases the locks and returns the message or plaintext.
 *
 * A new session (`initiate`, `respond`) has no lock of its own yet: nobody
 * else knows its id. State bytes, seeds and prekey secrets are wiped after use.
 */
import * as core from '../../ts/session/core.js';
import type { IdentitySeeds } from '../../ts/session/core.js';
import { VeilError } from '../../ts/errors.js';
import { bytesToHex } from '../../ts/bytes.js';
import { bytes, wipe } from '../../ts/validate.js';
import { sha256 } from '../../ts/hash.js';
import type { KeystoreChange, SessionInfo } from '../keystore.protocol.js';
import { checkFormat, locked, notFound, storageError } from './db.js';
import { abort, done, request } from './idb.js';
import { sealSession, unsealSession, type HeadRecord, type SessionRecord, type StateRecord } from './records.js';
import { announce, sessionFor, type Session as Unlocked, type Store } from './store.js';
import { consumeFailure, consumeInTransaction, deviceOf, identitySeeds, prekeySecrets, replaySeen } from './prekeys.js';

const enc = new TextEncoder();

/** A head (store `heads`); kept after `Session.delete` with `deleted: true`, so the record cannot be written back and used. */
type Head = HeadRecord & { deleted?: boolean };

/** Highest counter this worker has committed or read, per `<store>/<session id>` (a rolled-back head in IndexedDB does not fool it). */
const seen = new Map<string, number>();

function remember(s: Store, id: string, counter: number): void {
  const k = `${s.name}/${id}`;
  if ((seen.get(k) ?? -1) < counter) seen.set(k, counter);
}

const nowSecs = () => Math.floor(Date.now() / 1000);

function checkSessionId(id: unknown): string {
  if (typeof id !== 'string') throw new TypeError('session must be a Session or a session id');
  if (!/^[0-9a-f]{32}$/.test(id)) throw new RangeError('a session id is 32 lowercase hex characters');
  return id;
}

function optional(name: string, v: Uint8Array | undefined): Uint8Array | undefined {
  return v === undefined ? undefined : bytes(name, v);
}

// ---------------------------------------------------------------------------
// Locks

function locks(): LockManager {
  const l = (globalThis.navigator as Navigator | undefined)?.locks;
  if (!l) throw new VeilError('UNSUPPORTED_PLATFORM', 'Web Locks (navigator.locks) are required for sessions');
  return l;
}

/** The store lock (shared), then, for an existing session, its own exclusive lock: always in this order. */
async function withSessionLock<T>(s: Store, id: string | undefined, fn: () => Promise<T>): Promise<T> {
  const l = locks();
  return l.request(`veilkit-keystore:${s.name}`, { mode: 'shared' }, () =>
    id === undefined ? fn() : l.request(`veilkit-keystore:${s.name}:session:${id}`, { mode: 'exclusive' }, fn));
}

// ---------------------------------------------------------------------------
// Loading

interface Loaded {
  unlocked: Unlocked;
  record: SessionRecord;
  /** Secret: wipe after use. */
  state: Uint8Array;
}

/** Refuses a record older than its head or than what this worker has seen. */
function checkHead(s: Store, record: SessionRecord, head: Head | undefined): void {
  if (head?.deleted) throw notFound(`session ${record.id}`);
  const highest = Math.max(head?.counter ?? 0, seen.get(`${s.name}/${record.id}`) ?? 0);
  if (record.counter < highest) {
    throw new VeilError('STATE_ROLLBACK', `session ${record.id}: the stored state (counter ${record.counter}) is older than the highest committed (${highest})`);
  }
}

async function unwrap(s: Store, unlocked: Unlocked, record: SessionRecord, head: Head | undefined): Promise<Uint8Array> {
  checkHead(s, record, head);
  const state = await unsealSession(unlocked.key, record.identityId, record.id, record.counter, unlocked.generation, record.wrapped);
  try {
    // The AAD binds the counter of the record; the state must carry the same one.
    if (core.stateInfo(state).counter !== record.counter) throw new VeilError('AUTHENTICATION_FAILED', `session ${record.id}: the state does not match its record`);
  } catch (e) {
    wipe(state);
    throw e;
  }
  remember(s, record.id, record.counter);
  return state;
}

/** Reads the state record, the session record and its head in one transaction; unwraps the state. */
async function load(s: Store, id: string): Promise<Loaded> {
  let state: StateRecord | undefined;
  let record: SessionRecord | undefined;
  let head: Head | undefined;
  let identity: unknown;
  try {
    const tx = s.db.transaction(['meta', 'identities', 'sessions', 'heads']);
    [state, record, head] = await Promise.all([
      request(tx.objectStore('meta').get('state')) as Promise<StateRecord | undefined>,
      request(tx.objectStore('sessions').get(id)) as Promise<SessionRecord | undefined>,
      request(tx.objectStore('heads').get(id)) as Promise<Head | undefined>,
    ]);
    if (record) identity = await request(tx.objectStore('identities').getKey(record.identityId));
  } catch (e) {
    throw storageError(e);
  }
  const unlocked = sessionFor(s, checkFormat(state));
  // A record of a deleted identity (deleteIdentity removes its sessions) can only have been written back.
  if (!record || identity === undefined) throw notFound(`session ${id}`);
  return { unlocked, record, state: await unwrap(s, unlocked, record, head) };
}

function infoOf(record: SessionRecord, state: Uint8Array): SessionInfo {
  const i = core.stateInfo(state);
  const initiator = i.role === 'initiator';
  return {
    kind: 'session', id: record.id, identity: record.identityId, role: i.role, version: i.version,
    localIdentity: initiator ? i.initiatorIdentity : i.responderIdentity,
    peerIdentity: initiator ? i.responderIdentity : i.initiatorIdentity,
    peerIdentityId: record.peerIdentityId, peerDeviceId: record.peerDeviceId, counter: i.counter, pqEpoch: i.pqEpoch,
    createdAt: record.createdAt, updatedAt: record.updatedAt,
  };
}

/** Hex of a session identity id: SHA-256("veilkit-session-identity-v1" ‖ Enc(ID)) (docs/SESSIONS.md §2.1). */
function sessionIdentityId(encoding: Uint8Array): string {
  const label = enc.encode('veilkit-session-identity-v1');
  const m = new Uint8Array(label.length + encoding.length);
  m.set(label);
  m.set(encoding, label.length);
  return bytesToHex(sha256(m));
}

// ---------------------------------------------------------------------------
// Committing

/** What `respond` adds to the commit: its stores, the requests it issues in the transaction, and why it aborted it. */
interface Extra {
  stores: string[];
  run: (tx: IDBTransaction) => void;
  failure: (tx: IDBTransaction) => VeilError | undefined;
}

/**
 * One `durability: 'strict'` readwrite transaction: checks the state record's generation and lock
 * epoch against the unlocked session the record was wrapped with (else `KEYSTORE_LOCKED`: a passphrase
 * change or lock committed meanwhile), that the session record still has the counter the operation
 * started from (`previous`; `undefined` = a new session), writes the record and its head, runs
 * `extra` (respond: consumed prekeys and the replay entry) and bumps the store revision.
 */
async function commitSession(
  s: Store, unlocked: Unlocked, record: SessionRecord, previous: number | undefined,
  extra?: Extra,
): Promise<number> {
  let tx: IDBTransaction;
  try {
    tx = s.db.transaction(['meta', 'sessions', 'heads', ...(extra?.stores ?? [])], 'readwrite', { durability: 'strict' });
  } catch (e) {
    throw storageError(e);
  }
  const finished = done(tx);
  finished.catch(() => {});
  try {
    const meta = tx.objectStore('meta');
    const state = checkFormat((await request(meta.get('state'))) as StateRecord | undefined);
    if (state.generation !== unlocked.generation || (state.lock !== undefined && state.lockEpoch !== unlocked.lockEpoch)) {
      s.session = undefined;
      throw locked();
    }
    const [cur, head] = await Promise.all([
      request(tx.objectStore('sessions').get(record.id)) as Promise<SessionRecord | undefined>,
      request(tx.objectStore('heads').get(record.id)) as Promise<Head | undefined>,
    ]);
    if (previous === undefined ? cur !== undefined || head !== undefined : cur?.counter !== previous) {
      throw new VeilError('STORAGE_FAILED', `session ${record.id} changed during the operation; nothing was changed`);
    }
    if (head !== undefined && (head.deleted || head.counter > record.counter)) {
      throw new VeilError('STATE_ROLLBACK', `session ${record.id}: a newer state was committed`);
    }
    if (extra) extra.run(tx);
    await request(tx.objectStore('sessions').put(record));
    await request(tx.objectStore('heads').put({ id: record.id, identityId: record.identityId, counter: record.counter } satisfies Head));
    const revision = state.revision + 1;
    await request(meta.put({ ...state, revision }));
    await finished;
    remember(s, record.id, record.counter);
    return revision;
  } catch (e) {
    abort(tx);
    throw extra?.failure(tx) ?? storageError(e);
  }
}

function changed(s: Store, change: KeystoreChange['change'], revision: number, id: string): void {
  announce(s, { change, revision, ids: [id] });
}

function newSessionId(): string {
  return bytesToHex(crypto.getRandomValues(new Uint8Array(16)));
}

function wipeSeeds(seeds: IdentitySeeds | undefined): void {
  if (seeds) wipe(seeds.ed25519, seeds.mlDsa, seeds.x25519);
}

/** Wraps a new state of `record` (its counter and the unlocked key), wiping the state bytes. */
async function wrapped(unlocked: Unlocked, identityId: string, id: string, counter: number, state: Uint8Array): Promise<Uint8Array> {
  try {
    return await sealSession(unlocked.key, identityId, id, counter, unlocked.generation, state);
  } finally {
    wipe(state);
  }
}

// ---------------------------------------------------------------------------
// Requests

export async function initiate(
  s: Store, identity: string, bundle: Uint8Array, o: { pinned?: Uint8Array | undefined; plaintext?: Uint8Array | undefined; aad?: Uint8Array | undefined },
): Promise<{ session: SessionInfo; initialMessage: Uint8Array }> {
  if (typeof identity !== 'string') throw new TypeError('identity must be an identity handle or id');
  bytes('bundle', bundle);
  const pinned = optional('pinned', o.pinned);
  const plaintext = optional('plaintext', o.plaintext);
  const aad = optional('aad', o.aad);
  return withSessionLock(s, undefined, async () => {
    let seeds: IdentitySeeds | undefined;
    let result: ReturnType<typeof core.initiate> | undefined;
    try {
      seeds = await identitySeeds(s, identity);
      const deviceId = await deviceOf(s, identity);
      result = core.initiate(seeds, deviceId, bundle, {
        now: nowSecs(), ...(pinned ? { pinned } : {}), ...(plaintext ? { plaintext } : {}), ...(aad ? { aad } : {}),
      });
    } finally {
      wipeSeeds(seeds);
    }
    const { info, revision } = await createSession(s, identity, 'initiator', result);
    changed(s, 'session-created', revision, info.id);
    return { session: info, initialMessage: result.initialMessage };
  });
}

/** Stores a new session (a fresh id) from the core's output, wiping its state bytes whatever happens. */
async function createSession(
  s: Store, identity: string, role: 'initiator' | 'responder',
  r: { state: Uint8Array; counter: number; peerIdentity: Uint8Array; peerDeviceId: number }, extra?: Extra,
): Promise<{ info: SessionInfo; revision: number }> {
  try {
    const unlocked = sessionFor(s, await readStateRecord(s));
    const now = Date.now();
    const base = {
      id: newSessionId(), identityId: identity, peerIdentityId: sessionIdentityId(r.peerIdentity), peerDeviceId: r.peerDeviceId, role,
      createdAt: now, updatedAt: now, counter: r.counter,
    };
    const info = infoOf({ ...base, wrapped: new Uint8Array(0) }, r.state);
    const record: SessionRecord = { ...base, wrapped: await wrapped(unlocked, identity, base.id, r.counter, r.state) };
    return { info, revision: await commitSession(s, unlocked, record, undefined, extra) };
  } finally {
    wipe(r.state);
  }
}

async function readStateRecord(s: Store): Promise<StateRecord> {
  let state: StateRecord | undefined;
  try {
    state = (await request(s.db.transaction('meta').objectStore('meta').get('state'))) as StateRecord | undefined;
  } catch (e) {
    throw storageError(e);
  }
  return checkFormat(state);
}

export async function respond(
  s: Store, identity: string, message: Uint8Array, o: { pinned?: Uint8Array | undefined; aad?: Uint8Array | undefined },
): Promise<{ session: SessionInfo; plaintext: Uint8Array }> {
  if (typeof identity !== 'string') throw new TypeError('identity must be an identity handle or id');
  bytes('message', message);
  const pinned = optional('pinned', o.pinned);
  const aad = optional('aad', o.aad);
  const info = core.initialMessageInfo(message);
  // Shared like every session operation: two answers racing for one prekey or replay key are decided by the commit.
  return withSessionLock(s, undefined, async () => {
    let seeds: IdentitySeeds | undefined;
    let secrets: { signed: Uint8Array; pq: Uint8Array; oneTime?: Uint8Array } | undefined;
    let result: ReturnType<typeof core.respond> | undefined;
    try {
      seeds = await identitySeeds(s, identity);
      const deviceId = await deviceOf(s, identity);
      if (info.replayDigest !== undefined && (await replaySeen(s, identity, info))) {
        throw new VeilError('REPLAY_DETECTED', 'this initial message (without one-time prekeys) was already answered');
      }
      secrets = await prekeySecrets(s, identity, info);
      result = core.respond(seeds, deviceId, message, {
        now: nowSecs(), signedPrekeySecret: secrets.signed, pqPrekeySecret: secrets.pq,
        ...(secrets.oneTime ? { oneTimePrekeySecret: secrets.oneTime } : {}), ...(pinned ? { pinned } : {}), ...(aad ? { aad } : {}),
      });
    } finally {
      wipeSeeds(seeds);
      if (secrets) wipe(secrets.signed, secrets.pq, ...(secrets.oneTime ? [secrets.oneTime] : []));
    }
    const r = result;
    // Deletes the consumed one-time prekeys and records the replay key in the transaction that stores the
    // session; it aborts that transaction if a prekey is already gone or the key already recorded.
    const { info: sessionInfo, revision } = await createSession(s, identity, 'responder', r, {
      stores: ['prekeys', 'replay'],
      run: (tx) => consumeInTransaction(tx, identity, info, r.consumed, r.replayDigest),
      failure: consumeFailure,
    });
    changed(s, 'session-created', revision, sessionInfo.id);
    return { session: sessionInfo, plaintext: r.plaintext };
  });
}

/** encrypt / decrypt: lock, reload, compute on the state bytes, commit the new state, then return. */
async function advance<T>(
  s: Store, id: string, step: (state: Uint8Array) => { state: Uint8Array; counter: number; out: T },
): Promise<T & { counter: number }> {
  return withSessionLock(s, id, async () => {
    const { unlocked, record, state } = await load(s, id);
    let next: { state: Uint8Array; counter: number; out: T };
    try {
      next = step(state);
    } finally {
      wipe(state);
    }
    if (next.counter <= record.counter) {
      wipe(next.state);
      throw new VeilError('INTERNAL', 'the state counter did not increase');
    }
    const updated: SessionRecord = {
      ...record, counter: next.counter, updatedAt: Date.now(), wrapped: await wrapped(unlocked, record.identityId, id, next.counter, next.state),
    };
    const revision = await commitSession(s, unlocked, updated, record.counter);
    changed(s, 'session-updated', revision, id);
    return { ...next.out, counter: next.counter };
  });
}

export async function encrypt(s: Store, session: string, plaintext: Uint8Array, aad: Uint8Array | undefined): Promise<{ message: Uint8Array; counter: number }> {
  const id = checkSessionId(session);
  const p = bytes('plaintext', plaintext);
  const a = optional('aad', aad);
  return advance(s, id, (state) => {
    const r = core.encrypt(state, p, { now: nowSecs(), ...(a ? { aad: a } : {}) });
    return { state: r.state, counter: r.counter, out: { message: r.message } };
  });
}

export async function decrypt(s: Store, session: string, message: Uint8Array, aad: Uint8Array | undefined): Promise<{ plaintext: Uint8Array; counter: number }> {
  const id = checkSessionId(session);
  const m = bytes('message', message);
  const a = optional('aad', aad);
  return advance(s, id, (state) => {
    const r = core.decrypt(state, m, { now: nowSecs(), ...(a ? { aad: a } : {}) });
    return { state: r.state, counter: r.counter, out: { plaintext: r.plaintext } };
  });
}

export async function info(s: Store, session: string): Promise<SessionInfo> {
  const id = checkSessionId(session);
  return withSessionLock(s, id, async () => {
    const { record, state } = await load(s, id);
    try {
      return infoOf(record, state);
    } finally {
      wipe(state);
    }
  });
}

/** Every session (of `identity`, if given), oldest first; each read from its authenticated state with the rollback check. */
export async function list(s: Store, identity: string | undefined): Promise<SessionInfo[]> {
  if (identity !== undefined && typeof identity !== 'string') throw new TypeError('identity must be an identity handle or id');
  let state: StateRecord | undefined;
  let records: SessionRecord[];
  let heads: Head[];
  let identities: IDBValidKey[];
  try {
    const tx = s.db.transaction(['meta', 'identities', 'sessions', 'heads']);
    const sessions = tx.objectStore('sessions');
    [state, records, heads, identities] = await Promise.all([
      request(tx.objectStore('meta').get('state')) as Promise<StateRecord | undefined>,
      request(identity === undefined ? sessions.getAll() : sessions.index('byIdentity').getAll(IDBKeyRange.only(identity))) as Promise<SessionRecord[]>,
      request(tx.objectStore('heads').getAll()) as Promise<Head[]>,
      request(tx.objectStore('identities').getAllKeys()),
    ]);
  } catch (e) {
    throw storageError(e);
  }
  const unlocked = sessionFor(s, checkFormat(state));
  const headOf = new Map(heads.map((h) => [h.id, h]));
  const present = new Set(identities);
  const out: SessionInfo[] = [];
  for (const r of records) {
    // Deleted sessions and sessions of deleted identities written back by page script are not listed.
    if (headOf.get(r.id)?.deleted || !present.has(r.identityId)) continue;
    const st = await unwrap(s, unlocked, r, headOf.get(r.id));
    try {
      out.push(infoOf(r, st));
    } finally {
      wipe(st);
    }
  }
  return out.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
}

/** Deletes the session; its head stays (marked deleted) so the record cannot be written back and used again. */
export async function remove(s: Store, session: string): Promise<true> {
  const id = checkSessionId(session);
  return withSessionLock(s, id, async () => {
    const unlocked = sessionFor(s, await readStateRecord(s));
    let tx: IDBTransaction;
    try {
      tx = s.db.transaction(['meta', 'sessions', 'heads'], 'readwrite', { durability: 'strict' });
    } catch (e) {
      throw storageError(e);
    }
    const finished = done(tx);
    finished.catch(() => {});
    let revision: number;
    try {
      const meta = tx.objectStore('meta');
      const state = checkFormat((await request(meta.get('state'))) as StateRecord | undefined);
      if (state.generation !== unlocked.generation || (state.lock !== undefined && state.lockEpoch !== unlocked.lockEpoch)) throw locked();
      const cur = (await request(tx.objectStore('sessions').get(id))) as SessionRecord | undefined;
      const head = (await request(tx.objectStore('heads').get(id))) as Head | undefined;
      if (!cur || head?.deleted) throw notFound(`session ${id}`);
      await request(tx.objectStore('sessions').delete(id));
      await request(tx.objectStore('heads').put({ id, identityId: cur.identityId, counter: Math.max(cur.counter, head?.counter ?? 0), deleted: true } satisfies Head));
      revision = state.revision + 1;
      await request(meta.put({ ...state, revision }));
      await finished;
    } catch (e) {
      abort(tx);
      throw storageError(e);
    }
    changed(s, 'session-deleted', revision, id);
    return true as const;
  });
}
