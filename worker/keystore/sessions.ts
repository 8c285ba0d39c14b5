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
 * 2. reloads the record and its head (records.ts `sealHead`: an authenticated
 *    counter or tombstone) and refuses a record that is not the newest state
 *    known — older than its head or than what this worker knows (heads.ts:
 *    what it committed, opened, verified or heard announced), or without an
 *    authenticated head naming its counter (`STATE_ROLLBACK`; deleted:
 *    `KEY_NOT_FOUND`);
 * 3. unwraps the state and its metadata (records.ts `unsealSession`: the AAD
 *    binds identity, session id, counter and generation), computes on it (the
 *    core returns a new state; the input is unchanged on failure) and wraps
 *    the new state under its new counter;
 * 4. commits the record and its new head in one `durability: 'strict'`
 *    transaction that re-checks the generation and lock epoch and that the
 *    record and head are those it started from (`respond`: the same
 *    transaction deletes the consumed one-time prekeys and records the replay
 *    key, prekeys.ts `consumeInTransaction`, aborting if either was used
 *    meanwhile), and announces the head on the change channel;
 * 5. only then releases the locks and returns the message or plaintext.
 *
 * `SessionInfo` comes from the state and the sealed metadata only, and from the
 * record's two identity encodings once they are checked against the state's
 * `H_ID` (a state of format 3 stores only that hash; `IDENTITY_MISMATCH`
 * otherwise). A record of version 1 (the previous veilkit's) is read under its
 * old rules and rewritten as version 2 by the first operation on it; a state of
 * format 2 (identities inside) is migrated on load and rewritten likewise.
 *
 * A new session (`initiate`, `respond`) has no lock of its own yet: nobody
 * else knows its id. State bytes, seeds and prekey secrets are wiped after use.
 */
import * as core from '../../ts/session/core.js';
import type { IdentitySeeds } from '../../ts/session/core.js';
import { VeilError } from '../../protocol/errors.js';
import { bytesToHex, equalBytes } from '../../ts/bytes.js';
import { bytes, wipe } from '../../ts/validate.js';
import type { KeystoreChange, SessionBatchItem, SessionDecryptOutcome, SessionHead, SessionInfo } from '../../protocol/keystore.protocol.js';
import { serializeError } from '../../protocol/protocol.js';
import { SessionState } from '../../ts/session/state.js';
import { checkFormat, locked, notFound, runCommitHook, storageError } from './db.js';
import { cached, drop, keep, type CachedSession } from './session-cache.js';
import { abort, done, request } from './idb.js';
import {
  headIsAuthentic, sealHead, sealSession, unsealSession, unsealSessionV1, type HeadRecord, type Identities, type SessionMeta, type SessionRecord, type StateRecord,
} from './records.js';
import { absorb, keptIsCurrent, knownHead, learn, shared } from './heads.js';
import { announce, sessionFor, type Session as Unlocked, type Store } from './store.js';
import { consumeFailure, consumeInTransaction, deviceOf, identitySeeds, prekeySecrets, replaySeen } from './prekeys.js';


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

interface Opened {
  record: SessionRecord;
  /** Every field from the authenticated state and metadata, none from the record's clear fields. */
  info: SessionInfo;
  meta: SessionMeta;
  /** Secret: wipe after use. */
  state: Uint8Array;
  /** Both identity encodings, checked against the state's `H_ID`. */
  identities: Identities;
  /** A version-1 record (the previous veilkit's) or a state of format 2: upgraded by the next commit. */
  legacy: boolean;
}


/**
 * The state in the current format and its identities: a format-2 state (identities inside, authenticated with
 * it) is migrated; otherwise the record's identities, which must match the state's `H_ID` (else
 * `IDENTITY_MISMATCH`: the clear fields were replaced, e.g. the peer's identity swapped). Wipes `state` when it
 * replaces it or throws.
 */
function stateAndIdentities(id: string, record: SessionRecord, state: Uint8Array): { state: Uint8Array; identities: Identities; info: core.StateInfo; migrated: boolean } {
  let current = state;
  try {
    let identities: Identities;
    let migrated = false;
    if (core.stateFormat(state) === 2) {
      const m = core.migrateState(state);
      wipe(state);
      current = m.state;
      identities = { initiator: m.initiatorIdentity, responder: m.responderIdentity };
      migrated = true;
    } else {
      if (!(record.initiatorIdentity instanceof Uint8Array) || !(record.responderIdentity instanceof Uint8Array)) {
        throw new VeilError('IDENTITY_MISMATCH', `session ${id}: the record has no identities for its state`);
      }
      identities = { initiator: record.initiatorIdentity.slice(), responder: record.responderIdentity.slice() };
    }
    const info = core.stateInfo(current);
    core.checkIdentities(info, identities.initiator, identities.responder);
    return { state: current, identities, info, migrated };
  } catch (e) {
    wipe(current);
    throw e;
  }
}

interface Loaded extends Opened {
  unlocked: Unlocked;
  /** The head as read: the commit requires it unchanged. */
  head: HeadRecord | undefined;
}

const rollback = (id: string, why: string) => new VeilError('STATE_ROLLBACK', `session ${id}: ${why}`);

type CheckedHead = { kind: 'none' } | { kind: 'v1' | 'v2'; counter: number; deleted: boolean };

/**
 * The stored head of session `id`: none, a version-1 head (no tag; trusted only beside a version-1 record), or a
 * version-2 head whose tag verifies — remembered by this worker before anything is decided, so that a worker that
 * refuses a stale record still knows the newer head after page script has put an older one back. A tag that
 * does not verify: `AUTHENTICATION_FAILED`.
 */
async function checkHead(s: Store, unlocked: Unlocked, id: string, head: HeadRecord | undefined): Promise<CheckedHead> {
  if (head === undefined) return { kind: 'none' };
  if (head.tag === undefined) return { kind: 'v1', counter: typeof head.counter === 'number' ? head.counter : 0, deleted: head.deleted === true };
  if (head.id !== id || !(await headIsAuthentic(unlocked.key, head, unlocked.generation))) {
    throw new VeilError('AUTHENTICATION_FAILED', `session ${id}: its head is damaged, or from another session or generation`);
  }
  learn(s.name, id, head.counter, head.deleted === true);
  return { kind: 'v2', counter: head.counter, deleted: head.deleted === true };
}

/** The clear fields of a version-1 record, as the upgrade seals them (the previous veilkit never authenticated them). */
function legacyMeta(r: SessionRecord): SessionMeta {
  const time = (t: unknown) => (typeof t === 'number' && Number.isSafeInteger(t) && t >= 0 ? t : 0);
  const device = typeof r.peerDeviceId === 'number' && Number.isInteger(r.peerDeviceId) && r.peerDeviceId >= 0 && r.peerDeviceId <= 0xffffffff ? r.peerDeviceId : 0;
  return { peerDeviceId: device, createdAt: time(r.createdAt), updatedAt: time(r.updatedAt) };
}

/**
 * Decides whether `record` is the session's newest state and opens it: `KEY_NOT_FOUND` for a session deleted (this
 * worker knows it, or an authenticated tombstone says so), missing, or of a deleted identity; `STATE_ROLLBACK` for a
 * record older than the newest counter known (its head, this worker's memory) — and for a version-2 record without
 * an authenticated head naming its very counter; `AUTHENTICATION_FAILED` for a damaged record or head.
 */
async function openRecord(
  s: Store, unlocked: Unlocked, id: string, record: SessionRecord | undefined, head: HeadRecord | undefined, identityPresent: boolean,
): Promise<Opened> {
  if (knownHead(s.name, id)?.deleted) throw notFound(`session ${id}`);
  const h = await checkHead(s, unlocked, id, head);
  const known = knownHead(s.name, id);
  if (known?.deleted || (h.kind !== 'none' && h.deleted)) throw notFound(`session ${id}`);
  // A record of a deleted identity (deleteIdentity removes its sessions) can only have been written back.
  if (!record || !identityPresent) throw notFound(`session ${id}`);
  const highest = Math.max(h.kind === 'none' ? 0 : h.counter, known?.counter ?? 0);
  if (!(record.counter >= highest)) throw rollback(id, `the stored state (counter ${record.counter}) is older than the newest known (${highest})`);
  let opened: { meta: SessionMeta; state: Uint8Array };
  if (record.recordVersion === 2) {
    if (h.kind !== 'v2') throw rollback(id, 'the stored state has no authenticated head (it was removed or replaced)');
    if (h.counter !== record.counter || head?.identityId !== record.identityId) {
      throw rollback(id, `the stored state (counter ${record.counter}) is not the one its head names (${h.counter})`);
    }
    opened = await unsealSession(unlocked.key, record.identityId, id, record.counter, unlocked.generation, record.wrapped);
  } else {
    // Version 1, written by the previous veilkit: its head has no tag, its clear fields were never authenticated.
    if (h.kind === 'v2') throw rollback(id, 'a record of the previous format under an authenticated head');
    opened = { meta: legacyMeta(record), state: await unsealSessionV1(unlocked.key, record.identityId, id, record.counter, unlocked.generation, record.wrapped) };
  }
  const c = stateAndIdentities(id, record, opened.state);
  try {
    // The AAD binds the counter of the record; the state must carry the same one.
    if (c.info.counter !== record.counter) throw new VeilError('AUTHENTICATION_FAILED', `session ${id}: the state does not match its record`);
    learn(s.name, id, record.counter);
    return {
      meta: opened.meta, state: c.state, identities: c.identities, record,
      info: infoOf(id, record.identityId, opened.meta, c.info, c.identities), legacy: record.recordVersion !== 2 || c.migrated,
    };
  } catch (e) {
    wipe(c.state);
    throw e;
  }
}

/** Reads the state record, the session record and its head in one transaction; checks and opens the record. */
async function load(s: Store, id: string): Promise<Loaded> {
  let state: StateRecord | undefined;
  let record: SessionRecord | undefined;
  let head: HeadRecord | undefined;
  let identity: unknown;
  try {
    const tx = s.db.transaction(['meta', 'identities', 'sessions', 'heads']);
    [state, record, head] = await Promise.all([
      request(tx.objectStore('meta').get('state')) as Promise<StateRecord | undefined>,
      request(tx.objectStore('sessions').get(id)) as Promise<SessionRecord | undefined>,
      request(tx.objectStore('heads').get(id)) as Promise<HeadRecord | undefined>,
    ]);
    if (record) identity = await request(tx.objectStore('identities').getKey(record.identityId));
  } catch (e) {
    throw storageError(e);
  }
  const unlocked = sessionFor(s, checkFormat(state));
  await absorb(s, unlocked);
  const opened = await openRecord(s, unlocked, id, record, head, identity !== undefined);
  return { ...opened, unlocked, head };
}

/** `SessionInfo` from the state's facts and its identities (already checked against the state's `H_ID`). */
function infoOf(id: string, identityId: string, meta: SessionMeta, i: core.StateInfo, ids: Identities): SessionInfo {
  const initiator = i.role === 'initiator';
  const peerIdentity = (initiator ? ids.responder : ids.initiator).slice();
  return {
    kind: 'session', id, identity: identityId, role: i.role, version: i.version,
    localIdentity: (initiator ? ids.initiator : ids.responder).slice(), peerIdentity,
    peerIdentityId: core.sessionIdentityId(peerIdentity), peerDeviceId: meta.peerDeviceId, counter: i.counter, pqEpoch: i.pqEpoch,
    createdAt: meta.createdAt, updatedAt: meta.updatedAt,
  };
}

// ---------------------------------------------------------------------------
// Committing

/** What `respond` adds to the commit: its stores, the requests it issues in the transaction, and why it aborted it. */
interface Extra {
  stores: string[];
  run: (tx: IDBTransaction) => void;
  failure: (tx: IDBTransaction) => VeilError | undefined;
}

/** Whether two reads of a head are the same record (a tag is compared byte for byte). */
function sameHead(a: HeadRecord | undefined, b: HeadRecord | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.counter === b.counter && a.deleted === b.deleted && a.identityId === b.identityId
    && (a.tag === undefined ? b.tag === undefined : b.tag instanceof Uint8Array && a.tag instanceof Uint8Array && equalBytes(a.tag, b.tag));
}

/** Whether the stored record `cur` is `expected` as this worker read or wrote it: the fields the AAD binds, `wrapped` byte for byte and the two identity encodings. */
function sameRecord(cur: SessionRecord | undefined, expected: SessionRecord): boolean {
  return cur !== undefined && cur.id === expected.id && cur.identityId === expected.identityId && cur.counter === expected.counter
    && cur.recordVersion === expected.recordVersion && cur.wrapped instanceof Uint8Array && equalBytes(cur.wrapped, expected.wrapped)
    && sameOptionalBytes(cur.initiatorIdentity, expected.initiatorIdentity) && sameOptionalBytes(cur.responderIdentity, expected.responderIdentity);
}

/**
 * The clear identity fields (state format 3) are part of what a commit requires unchanged: a record whose
 * identities page script replaced is not the one this worker's cached state was opened from, so the commit
 * falls back to a full reload, which refuses it (`IDENTITY_MISMATCH`).
 */
function sameOptionalBytes(a: unknown, b: Uint8Array | undefined): boolean {
  if (b === undefined) return a === undefined;
  return a instanceof Uint8Array && equalBytes(a, b);
}

/**
 * Errors that mean "the store is not what this worker's copy of the session was made from" (another worker
 * committed, page script rewrote the record or head, the generation or lock epoch moved): a commit from the
 * parsed-state cache that meets one is redone from a full reload, which decides what it means.
 */
const staleErrors = new WeakSet<Error>();
const stale = <E extends Error>(e: E): E => {
  staleErrors.add(e);
  return e;
};

/** Checks, inside a commit's transaction, that the state record still has the generation and lock epoch `unlocked` was made for. */
function currentState(record: StateRecord | undefined, s: Store, unlocked: Unlocked): StateRecord {
  const state = checkFormat(record);
  if (state.generation !== unlocked.generation || (state.lock !== undefined && state.lockEpoch !== unlocked.lockEpoch)) {
    s.session = undefined;
    throw stale(locked());
  }
  return state;
}

/**
 * One `durability: 'strict'` readwrite transaction over session `id`. It reads the state record, the
 * session record, its head (and, with `identityId`, whether that identity still exists) with one round
 * of requests, then checks the generation and lock epoch against the unlocked session the records were
 * wrapped with (else `KEYSTORE_LOCKED`: a passphrase change or lock committed meanwhile), that the
 * session record and its head are still those the operation started from (`expected`; else
 * `STORAGE_FAILED`, nothing changed) and that the identity exists (else `KEY_NOT_FOUND`), runs `extra`
 * (respond: consumed prekeys and the replay entry) and `write`, and bumps the store revision — the
 * writes issued together, the transaction awaited once. Returns the new revision.
 */
async function sessionTransaction(
  s: Store, unlocked: Unlocked, id: string,
  expected: (cur: SessionRecord | undefined, curHead: HeadRecord | undefined) => boolean,
  write: (tx: IDBTransaction) => void,
  o: { extra?: Extra | undefined; identityId?: string | undefined } = {},
): Promise<number> {
  const { extra, identityId } = o;
  let tx: IDBTransaction;
  try {
    tx = s.db.transaction(['meta', 'sessions', 'heads', ...(identityId === undefined ? [] : ['identities']), ...(extra?.stores ?? [])], 'readwrite', { durability: 'strict' });
  } catch (e) {
    throw storageError(e);
  }
  const finished = done(tx);
  finished.catch(() => {});
  try {
    const [stateRecord, cur, curHead, identity] = await Promise.all([
      request(tx.objectStore('meta').get('state')) as Promise<StateRecord | undefined>,
      request(tx.objectStore('sessions').get(id)) as Promise<SessionRecord | undefined>,
      request(tx.objectStore('heads').get(id)) as Promise<HeadRecord | undefined>,
      identityId === undefined ? undefined : request(tx.objectStore('identities').getKey(identityId)),
    ]);
    const state = currentState(stateRecord, s, unlocked);
    if (!expected(cur, curHead)) {
      throw stale(new VeilError('STORAGE_FAILED', `session ${id} changed during the operation; nothing was changed`));
    }
    if (identityId !== undefined && identity === undefined) throw notFound(`session ${id}`);
    if (extra) extra.run(tx);
    write(tx);
    await runCommitHook(tx, s.name);
    const revision = state.revision + 1;
    tx.objectStore('meta').put({ ...state, revision });
    await finished;
    return revision;
  } catch (e) {
    abort(tx);
    throw extra?.failure(tx) ?? storageError(e);
  }
}

/** What a commit writes: the session's fields and its new state (the caller owns and wipes `state`). */
interface NewState {
  id: string;
  identityId: string;
  info: Pick<SessionInfo, 'peerIdentityId' | 'role'>;
  meta: SessionMeta;
  counter: number;
  state: Uint8Array;
  /** `Enc(ID_init)` and `Enc(ID_resp)`, written in clear beside the state (bound by its `H_ID`). */
  identities: Identities;
}

/**
 * Wraps `n` into a version-2 record and its authenticated head (both AES-GCM seals at once) and commits them
 * ({@link sessionTransaction}; `previous`: the record and head the operation started from, `undefined` = a new
 * session). Returns the revision, the record and head as written and the head as announced.
 */
async function commitSession(
  s: Store, unlocked: Unlocked, n: NewState, previous: { record: SessionRecord; head: HeadRecord | undefined } | undefined,
  o: { extra?: Extra | undefined; identityId?: string | undefined } = {},
): Promise<{ revision: number; record: SessionRecord; head: HeadRecord; announced: SessionHead }> {
  const [record, tag] = await Promise.all([
    sealedRecord(unlocked, n.id, n.identityId, n.info, n.meta, n.counter, n.state, n.identities),
    sealHead(unlocked.key, n.identityId, n.id, n.counter, false, unlocked.generation),
  ]);
  const head = { id: n.id, identityId: n.identityId, counter: n.counter, tag };
  const revision = await sessionTransaction(
    s, unlocked, n.id,
    (cur, curHead) => previous === undefined
      ? cur === undefined && curHead === undefined
      : sameRecord(cur, previous.record) && sameHead(curHead, previous.head),
    (tx) => {
      tx.objectStore('sessions').put(record);
      tx.objectStore('heads').put(head satisfies HeadRecord);
    },
    o,
  );
  learn(s.name, n.id, n.counter);
  return { revision, record, head, announced: shared(head, unlocked.generation) };
}

/** Announces a committed session change with the head it wrote (the other workers check and remember it). */
function changed(s: Store, change: KeystoreChange['change'], revision: number, id: string, head: SessionHead): void {
  announce(s, { change, revision, ids: [id], heads: [head] });
}

function newSessionId(): string {
  return bytesToHex(crypto.getRandomValues(new Uint8Array(16)));
}

function wipeSeeds(seeds: IdentitySeeds | undefined): void {
  if (seeds) wipe(seeds.ed25519, seeds.mlDsa, seeds.x25519);
}

/**
 * A version-2 record of session `id` at `counter`: `meta ‖ state` sealed under the unlocked key; the clear fields
 * (an index) from authenticated values; the two identity encodings in clear, bound by the state's `H_ID`.
 */
async function sealedRecord(
  unlocked: Unlocked, id: string, identityId: string, info: Pick<SessionInfo, 'peerIdentityId' | 'role'>, meta: SessionMeta, counter: number, state: Uint8Array,
  identities: Identities,
): Promise<SessionRecord> {
  return {
    id, identityId, peerIdentityId: info.peerIdentityId, peerDeviceId: meta.peerDeviceId, role: info.role,
    createdAt: meta.createdAt, updatedAt: meta.updatedAt, counter, recordVersion: 2,
    initiatorIdentity: identities.initiator.slice(), responderIdentity: identities.responder.slice(),
    wrapped: await sealSession(unlocked.key, identityId, id, counter, unlocked.generation, meta, state),
  };
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
    const { info, revision, head } = await createSession(s, identity, 'initiator', result);
    changed(s, 'session-created', revision, info.id, head);
    return { session: info, initialMessage: result.initialMessage };
  });
}

/**
 * Stores a new session (a fresh id) from the core's output, wiping its state bytes whatever happens, and keeps its
 * parsed state in the cache (session-cache.ts) for the operations that follow.
 */
async function createSession(
  s: Store, identity: string, role: 'initiator' | 'responder',
  r: { state: Uint8Array; counter: number; peerIdentity: Uint8Array; localIdentity: Uint8Array; peerDeviceId: number }, extra?: Extra,
): Promise<{ info: SessionInfo; revision: number; head: SessionHead }> {
  try {
    const unlocked = sessionFor(s, await readStateRecord(s));
    const now = Date.now();
    const id = newSessionId();
    const meta: SessionMeta = { peerDeviceId: r.peerDeviceId, createdAt: now, updatedAt: now };
    const identities: Identities = role === 'initiator'
      ? { initiator: r.localIdentity, responder: r.peerIdentity }
      : { initiator: r.peerIdentity, responder: r.localIdentity };
    const i = core.stateInfo(r.state);
    core.checkIdentities(i, identities.initiator, identities.responder);
    const info = infoOf(id, identity, meta, i, identities);
    if (info.role !== role || info.counter !== r.counter) throw new VeilError('INTERNAL', 'the new state does not match the handshake');
    const c = await commitSession(s, unlocked, { id, identityId: identity, info, meta, counter: r.counter, state: r.state, identities }, undefined, { extra });
    keep(s.name, id, { unlocked, record: c.record, head: c.head, info, meta, identities, state: SessionState.fromBytes(r.state) });
    return { info, revision: c.revision, head: c.announced };
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
    const { info: sessionInfo, revision, head } = await createSession(s, identity, 'responder', r, {
      stores: ['prekeys', 'replay'],
      run: (tx) => consumeInTransaction(tx, identity, info, r.consumed, r.replayDigest),
      failure: consumeFailure,
    });
    changed(s, 'session-created', revision, sessionInfo.id, head);
    return { session: sessionInfo, plaintext: r.plaintext };
  });
}

/** The most messages one batch may carry (`encryptMany` / `decryptMany`). */
export const MAX_BATCH = 1000;

/**
 * What an operation does to the parsed state: `out` to return after the commit, whether the state changed (a
 * failed message leaves it as it was), and the secret arrays in `out` (wiped if the commit fails). Throwing
 * fails the whole operation.
 */
type Compute<T> = (state: SessionState) => { out: T; changed: boolean; secrets: Uint8Array[] };

/**
 * The cached parsed state of session `id` if it may be used: made under the store's current unlocked key, and not
 * behind what this worker knows (heads heard announced are checked first). Otherwise it is dropped.
 */
async function usableCache(s: Store, id: string): Promise<CachedSession | undefined> {
  const c = cached(s.name, id);
  if (!c) return undefined;
  if (await keptIsCurrent(s, c.unlocked, id, c.record.counter)) return c;
  drop(s.name, id);
  return undefined;
}

/** The full reload (§7.2 steps 2–4): the record and head read and checked, the state opened and parsed, and cached. */
async function reload(s: Store, id: string): Promise<CachedSession> {
  const l = await load(s, id);
  try {
    const entry: CachedSession = { unlocked: l.unlocked, record: l.record, head: l.head, info: l.info, meta: l.meta, identities: l.identities, state: SessionState.fromBytes(l.state) };
    keep(s.name, id, entry);
    return entry;
  } finally {
    wipe(l.state);
  }
}

/**
 * One attempt of an operation on `c`: compute, wrap, commit in one transaction that requires the stored record and
 * head to be `c`'s, then update `c`. From the cache (`fromCache`), an attempt that would commit nothing, or whose
 * commit finds the store changed, returns `undefined` (the caller redoes it from a full reload, whose checks decide:
 * `STATE_ROLLBACK`, `KEY_NOT_FOUND`, …); any failure drops the cached state, which may be ahead of the store.
 */
async function attempt<T>(s: Store, id: string, c: CachedSession, compute: Compute<T>, fromCache: boolean): Promise<(T & { counter: number }) | undefined> {
  let r: ReturnType<Compute<T>>;
  try {
    r = compute(c.state);
  } catch (e) {
    drop(s.name, id);
    if (fromCache) return undefined;
    throw e;
  }
  if (!r.changed) {
    if (fromCache) return undefined;
    return { ...r.out, counter: c.record.counter };
  }
  let committed: Awaited<ReturnType<typeof commitSession>>;
  const meta = { ...c.meta, updatedAt: Date.now() };
  let counter: number;
  try {
    counter = c.state.counter();
    if (counter <= c.record.counter) throw new VeilError('INTERNAL', 'the state counter did not increase');
    const state = c.state.toBytes();
    try {
      committed = await commitSession(
        s, c.unlocked, { id, identityId: c.record.identityId, info: c.info, meta, counter, state, identities: c.identities }, { record: c.record, head: c.head },
        { identityId: c.record.identityId },
      );
    } finally {
      wipe(state);
    }
  } catch (e) {
    drop(s.name, id);
    wipe(...r.secrets);
    if (fromCache && e instanceof Error && staleErrors.has(e)) return undefined;
    throw e;
  }
  c.record = committed.record;
  c.head = committed.head;
  c.meta = meta;
  changed(s, 'session-updated', committed.revision, id, committed.announced);
  return { ...r.out, counter };
}

/**
 * encrypt / decrypt and their batches, under the session's lock: from the cached parsed state when this worker has
 * one (one transaction: §7.2 "Fast path"), else — or when that finds the store changed — from a full reload.
 */
async function operate<T>(s: Store, id: string, compute: Compute<T>): Promise<T & { counter: number }> {
  return withSessionLock(s, id, async () => {
    const c = await usableCache(s, id);
    if (c) {
      const r = await attempt(s, id, c, compute, true);
      if (r !== undefined) return r;
    }
    const r = await attempt(s, id, await reload(s, id), compute, false);
    if (r === undefined) throw new VeilError('INTERNAL', 'a session operation from a fresh reload gave no result');
    return r;
  });
}

export async function encrypt(s: Store, session: string, plaintext: Uint8Array, aad: Uint8Array | undefined): Promise<{ message: Uint8Array; counter: number }> {
  const id = checkSessionId(session);
  const p = bytes('plaintext', plaintext);
  const a = optional('aad', aad);
  return operate(s, id, (state) => ({ out: { message: state.encrypt(p, { now: nowSecs(), ...(a ? { aad: a } : {}) }) }, changed: true, secrets: [] }));
}

export async function decrypt(s: Store, session: string, message: Uint8Array, aad: Uint8Array | undefined): Promise<{ plaintext: Uint8Array; counter: number }> {
  const id = checkSessionId(session);
  const m = bytes('message', message);
  const a = optional('aad', aad);
  return operate(s, id, (state) => {
    const plaintext = state.decrypt(m, { now: nowSecs(), ...(a ? { aad: a } : {}) });
    return { out: { plaintext }, changed: true, secrets: [plaintext] };
  });
}

function batchItems(items: unknown): { data: Uint8Array; aad: Uint8Array | undefined }[] {
  if (!Array.isArray(items)) throw new TypeError('items must be an array');
  if (items.length > MAX_BATCH) throw new RangeError(`a batch holds at most ${MAX_BATCH} messages (got ${items.length})`);
  return (items as unknown[]).map((x, i) => {
    if (typeof x !== 'object' || x === null) throw new TypeError(`items[${i}] must be { data, aad? }`);
    const it = x as { data?: unknown; aad?: unknown };
    return { data: bytes(`items[${i}].data`, it.data), aad: optional(`items[${i}].aad`, it.aad as Uint8Array | undefined) };
  });
}

/** Encrypts every plaintext in order and commits once; all or nothing (an encryption fails only on a broken state). */
export async function encryptMany(s: Store, session: string, items: readonly SessionBatchItem[]): Promise<{ messages: Uint8Array[]; counter: number }> {
  const id = checkSessionId(session);
  const list = batchItems(items);
  return operate(s, id, (state) => ({
    out: { messages: list.map((it) => state.encrypt(it.data, { now: nowSecs(), ...(it.aad ? { aad: it.aad } : {}) })) },
    changed: list.length > 0, secrets: [],
  }));
}

/**
 * Decrypts every message in order on the state the previous ones left and commits once. A message that fails
 * (`AUTHENTICATION_FAILED`, `DUPLICATE_MESSAGE`, …) gets its error in its slot and changes nothing; the others
 * proceed. No plaintext is returned before the commit; if it fails, the whole call fails and none is.
 */
export async function decryptMany(s: Store, session: string, items: readonly SessionBatchItem[]): Promise<{ results: SessionDecryptOutcome[]; counter: number }> {
  const id = checkSessionId(session);
  const list = batchItems(items);
  return operate(s, id, (state) => {
    const results: SessionDecryptOutcome[] = [];
    const secrets: Uint8Array[] = [];
    const now = nowSecs();
    for (const it of list) {
      try {
        const plaintext = state.decrypt(it.data, { now, ...(it.aad ? { aad: it.aad } : {}) });
        secrets.push(plaintext);
        results.push({ ok: true, plaintext, counter: state.counter() });
      } catch (e) {
        // A failed message leaves the state as it was; anything but a typed refusal of that message fails the batch.
        if (!(e instanceof VeilError) || e.code === 'INTERNAL') throw e;
        results.push({ ok: false, error: serializeError(e) });
      }
    }
    return { out: { results }, changed: secrets.length > 0, secrets };
  });
}

/**
 * Rewrites a version-1 record (the previous veilkit's) as version 2 with an authenticated head, and a state of
 * format 2 as format 3 with its identities beside it, at the same counter.
 */
async function upgrade(s: Store, l: Loaded): Promise<void> {
  const c = await commitSession(
    s, l.unlocked, { id: l.record.id, identityId: l.record.identityId, info: l.info, meta: l.meta, counter: l.record.counter, state: l.state, identities: l.identities },
    { record: l.record, head: l.head },
  );
  changed(s, 'session-updated', c.revision, l.record.id, c.announced);
}

export async function info(s: Store, session: string): Promise<SessionInfo> {
  return infoOfId(s, checkSessionId(session));
}

async function infoOfId(s: Store, id: string): Promise<SessionInfo> {
  return withSessionLock(s, id, async () => {
    const l = await load(s, id);
    try {
      if (l.legacy) {
        drop(s.name, id);
        await upgrade(s, l);
      } else {
        // Parsed now, so that the operations that usually follow a load take the fast path.
        keep(s.name, id, { unlocked: l.unlocked, record: l.record, head: l.head, info: l.info, meta: l.meta, identities: l.identities, state: SessionState.fromBytes(l.state) });
      }
      return l.info;
    } finally {
      wipe(l.state);
    }
  });
}

/** Every session (of `identity`, if given), oldest first; each checked and read from its authenticated state as `info` does. */
export async function list(s: Store, identity: string | undefined): Promise<SessionInfo[]> {
  if (identity !== undefined && typeof identity !== 'string') throw new TypeError('identity must be an identity handle or id');
  let state: StateRecord | undefined;
  let records: SessionRecord[];
  let heads: HeadRecord[];
  let identities: IDBValidKey[];
  try {
    const tx = s.db.transaction(['meta', 'identities', 'sessions', 'heads']);
    const sessions = tx.objectStore('sessions');
    [state, records, heads, identities] = await Promise.all([
      request(tx.objectStore('meta').get('state')) as Promise<StateRecord | undefined>,
      request(identity === undefined ? sessions.getAll() : sessions.index('byIdentity').getAll(IDBKeyRange.only(identity))) as Promise<SessionRecord[]>,
      request(tx.objectStore('heads').getAll()) as Promise<HeadRecord[]>,
      request(tx.objectStore('identities').getAllKeys()),
    ]);
  } catch (e) {
    throw storageError(e);
  }
  const unlocked = sessionFor(s, checkFormat(state));
  await absorb(s, unlocked);
  const headOf = new Map(heads.map((h) => [h.id, h]));
  const present = new Set(identities);
  const out: SessionInfo[] = [];
  for (const r of records) {
    try {
      // A version-1 record is upgraded under its session's lock, as `info` does.
      if (r.recordVersion !== 2) {
        out.push(await infoOfId(s, r.id));
        continue;
      }
      const o = await openRecord(s, unlocked, r.id, r, headOf.get(r.id), present.has(r.identityId));
      wipe(o.state);
      // A state of format 2 is migrated and rewritten under its session's lock, as `info` does.
      out.push(o.legacy ? await infoOfId(s, r.id) : o.info);
    } catch (e) {
      // Deleted sessions and sessions of deleted identities written back by page script are not listed.
      if (e instanceof VeilError && e.code === 'KEY_NOT_FOUND') continue;
      throw e;
    }
  }
  return out.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
}

/**
 * Deletes the session: its record goes and its head becomes an authenticated tombstone (`deleted`, at the highest
 * counter known), in one transaction; this worker remembers the deletion and announces the tombstone.
 */
export async function remove(s: Store, session: string): Promise<true> {
  const id = checkSessionId(session);
  return withSessionLock(s, id, async () => {
    let state: StateRecord | undefined;
    let record: SessionRecord | undefined;
    let head: HeadRecord | undefined;
    try {
      const tx = s.db.transaction(['meta', 'sessions', 'heads']);
      [state, record, head] = await Promise.all([
        request(tx.objectStore('meta').get('state')) as Promise<StateRecord | undefined>,
        request(tx.objectStore('sessions').get(id)) as Promise<SessionRecord | undefined>,
        request(tx.objectStore('heads').get(id)) as Promise<HeadRecord | undefined>,
      ]);
    } catch (e) {
      throw storageError(e);
    }
    const unlocked = sessionFor(s, checkFormat(state));
    await absorb(s, unlocked);
    let headCounter = 0;
    if (head?.tag !== undefined) {
      // A damaged head does not stop a deletion: the tombstone replaces it.
      if (await headIsAuthentic(unlocked.key, head, unlocked.generation)) {
        learn(s.name, id, head.counter, head.deleted === true);
        headCounter = head.counter;
      }
    } else if (head?.deleted) {
      throw notFound(`session ${id}`); // a version-1 tombstone
    }
    const known = knownHead(s.name, id);
    if (!record || known?.deleted) throw notFound(`session ${id}`);
    const counter = Math.max(Number.isSafeInteger(record.counter) && record.counter > 0 ? record.counter : 0, headCounter, known?.counter ?? 0);
    const tombstone = { id, identityId: record.identityId, counter, deleted: true, tag: await sealHead(unlocked.key, record.identityId, id, counter, true, unlocked.generation) };
    const revision = await sessionTransaction(
      s, unlocked, id,
      (cur, curHead) => cur?.counter === record.counter && sameHead(curHead, head),
      (tx) => {
        tx.objectStore('sessions').delete(id);
        tx.objectStore('heads').put(tombstone satisfies HeadRecord);
      },
    );
    learn(s.name, id, counter, true);
    drop(s.name, id);
    changed(s, 'session-deleted', revision, id, shared(tombstone, unlocked.generation));
    return true as const;
  });
}
