/**
 * MLS groups in the keystore worker (docs/GROUPS.md#groups-in-the-keystore). One MLS client per keystore
 * identity — its signature key certified by the identity's Ed25519 key, every group and key package of it —
 * lives sealed in one record of the `groups` store (./records.ts); the page gets public facts, wire
 * messages and plaintexts, never state.
 *
 * Every operation, like a session's (worker/keystore/sessions.ts):
 * 1. takes the store's Web Lock `veilkit-keystore:<name>` in shared mode (a passphrase change takes it
 *    exclusively), then the client's exclusive lock `veilkit-keystore:<name>:mls:<identity id>`: two tabs
 *    never run an operation on one member's groups at once, so they cannot fork a group;
 * 2. reloads the record and its authenticated head and refuses a record older than its head or than what
 *    this worker knows (`STATE_ROLLBACK`), or without a head naming its counter;
 * 3. opens the state in the group module, runs the operation (a failed one changes nothing: the module's
 *    `receive` is transactional, and nothing is written);
 * 4. commits the new record and head in one `durability: 'strict'` transaction that re-checks the
 *    generation, lock epoch, record and head it started from, announces the head;
 * 5. only then returns.
 * The fast path skips 2–3 on a client this worker kept from its last operation on it, when the commit finds the
 * stored record and head to be the kept ones (else the operation is redone from 2; see withClient).
 *
 * Key packages are made in the client and sealed with it; a join consumes its key package (OpenMLS deletes
 * it, unless last resort) in the same write that stores the joined group. A welcome joined once is refused
 * again (`REPLAY_DETECTED`: its digest is kept), as is a welcome for a group this member already holds.
 */
import { VeilError } from '../../protocol/errors.js';
import type { KeystoreChange, SessionHead } from '../../protocol/keystore.protocol.js';
import {
  GROUP_SUITES, type GroupCommit, type GroupEncrypted, type GroupInfo, type GroupMember, type GroupReceived, type GroupUpdatePolicy,
} from '../../protocol/group.protocol.js';
import { bytesToHex, equalBytes, hexToBytes } from '../../ts/bytes.js';
import { sha256 } from '../../ts/hash.js';
import { bytes, wipe } from '../../ts/validate.js';
import * as core from '../../ts/session/core.js';
import { GROUP_STORE, checkFormat, locked, notFound, runCommitHook, storageError } from '../keystore/db.js';
import { abort, done, request } from '../keystore/idb.js';
import { headIsAuthentic, sealHead, type HeadRecord, type StateRecord } from '../keystore/records.js';
import { HISTORY_WRITE_STORES, checkData, withConversation, type PrepareAppend } from '../keystore/history.js';
import { encodeGroupHistoryMessage } from '../../ts/group/history-entry.js';
import { absorb, keptIsCurrent, knownHead, learn, shared } from '../keystore/heads.js';
import { announce, sessionFor, type Session as Unlocked, type Store } from '../keystore/store.js';
import { Kept } from '../keystore/kept.js';
import { identitySeeds } from '../keystore/prekeys.js';
import { sessionIdentityId } from '../../ts/session/core.js';
import { MlsClient, call, loadGroupModule, type ModuleCommit, type ModuleInfo, type ModuleReceived } from './engine.js';
import { MAX_WELCOMES, headId, sealClient, unsealClient, type ClientMeta, type GroupClientRecord, type GroupMeta, type Intent } from './records.js';

/** The update policy's defaults (docs/GROUPS.md#update-policy). */
export const DEFAULT_POLICY: GroupUpdatePolicy = Object.freeze({ messages: 100, days: 7 });
/** Most key packages one request makes. */
export const MAX_KEY_PACKAGES = 100;
/** Most key packages one add carries. */
export const MAX_ADDS = 1000;
/** Length of a certified credential: 0x01 ‖ Enc(ID) (2,017) ‖ Ed25519 certificate (64). */
const ENC_ID_LENGTH = 2017;

const nowSecs = () => Math.floor(Date.now() / 1000);

// ---------------------------------------------------------------------------
// Arguments

function identityArg(identity: unknown): string {
  if (typeof identity !== 'string' || identity.length === 0 || identity.includes('/')) throw new TypeError('identity must be an identity handle or id');
  return identity;
}

/** A group handle `<identity id>/<group id hex>`: its two parts. */
function groupArg(group: unknown): { identityId: string; groupId: string } {
  if (typeof group !== 'string') throw new TypeError('group must be a Group, a GroupInfo or a group id');
  const m = /^([^/]+)\/((?:[0-9a-f]{2}){1,255})$/.exec(group);
  if (!m || m[1] === undefined || m[2] === undefined) throw new RangeError('a group id is "<identity id>/<MLS group id in lowercase hex>"');
  return { identityId: m[1], groupId: m[2] };
}

function suiteArg(suite: unknown): number {
  if (suite !== GROUP_SUITES.xwing && suite !== GROUP_SUITES.classical) {
    throw new VeilError('UNSUPPORTED_CIPHER_SUITE', `unsupported MLS ciphersuite ${String(suite)}: veilkit groups use 0x004d (X-Wing) or 0x0001`);
  }
  return suite;
}

function policyArg(p: unknown): GroupUpdatePolicy {
  if (p === undefined) return DEFAULT_POLICY;
  if (typeof p !== 'object' || p === null) throw new TypeError('policy must be { messages, days }');
  const { messages, days } = p as Record<string, unknown>;
  if (typeof messages !== 'number' || !Number.isInteger(messages) || messages < 1 || messages > 1_000_000) throw new RangeError('policy.messages must be an integer in 1…1,000,000');
  if (typeof days !== 'number' || !Number.isFinite(days) || days <= 0 || days > 365) throw new RangeError('policy.days must be a number in (0, 365]');
  return { messages, days };
}

// ---------------------------------------------------------------------------
// Locks, loading, committing

function locks(): LockManager {
  const l = (globalThis.navigator as Navigator | undefined)?.locks;
  if (!l) throw new VeilError('UNSUPPORTED_PLATFORM', 'Web Locks (navigator.locks) are required for groups');
  return l;
}

function withClientLock<T>(s: Store, identityId: string, fn: () => Promise<T>): Promise<T> {
  const l = locks();
  return l.request(`veilkit-keystore:${s.name}`, { mode: 'shared' }, () =>
    l.request(`veilkit-keystore:${s.name}:mls:${identityId}`, { mode: 'exclusive' }, fn));
}

const rollback = (identityId: string, why: string) => new VeilError('STATE_ROLLBACK', `the MLS client of identity ${identityId}: ${why}`);

/** An opened client: the module's object (free it), its metadata, and what the commit must find unchanged. */
interface Opened {
  unlocked: Unlocked;
  identityId: string;
  client: MlsClient;
  meta: ClientMeta;
  record: GroupClientRecord | undefined;
  head: HeadRecord | undefined;
}

async function readAll(s: Store, identityId: string): Promise<{ state: StateRecord | undefined; record: GroupClientRecord | undefined; head: HeadRecord | undefined; present: boolean }> {
  try {
    const tx = s.db.transaction(['meta', 'identities', GROUP_STORE, 'heads']);
    const [state, record, head, identity] = await Promise.all([
      request(tx.objectStore('meta').get('state')) as Promise<StateRecord | undefined>,
      request(tx.objectStore(GROUP_STORE).get(identityId)) as Promise<GroupClientRecord | undefined>,
      request(tx.objectStore('heads').get(headId(identityId))) as Promise<HeadRecord | undefined>,
      request(tx.objectStore('identities').getKey(identityId)),
    ]);
    return { state, record, head, present: identity !== undefined };
  } catch (e) {
    throw storageError(e);
  }
}

/**
 * The identity's client, checked against rollback: a new one (certified by the identity) when it has none yet and
 * no authenticated head says it had one.
 */
async function openClient(s: Store, identityId: string): Promise<Opened> {
  const { state, record, head, present } = await readAll(s, identityId);
  const unlocked = sessionFor(s, checkFormat(state));
  await absorb(s, unlocked);
  if (!present) throw notFound(`identity ${identityId}`);
  const hid = headId(identityId);
  let headCounter = 0;
  if (head !== undefined) {
    if (head.id !== hid || head.identityId !== identityId || head.deleted === true || !(await headIsAuthentic(unlocked.key, head, unlocked.generation))) {
      throw new VeilError('AUTHENTICATION_FAILED', `the MLS client head of identity ${identityId} is damaged or from another record`);
    }
    learn(s.name, hid, head.counter);
    headCounter = head.counter;
  }
  const highest = Math.max(headCounter, knownHead(s.name, hid)?.counter ?? 0);
  if (record === undefined) {
    if (highest > 0) throw rollback(identityId, `its stored state is gone, but state ${highest} was committed`);
    const seeds = await identitySeeds(s, identityId);
    try {
      const own = core.sessionIdentity(seeds).encoding;
      await loadGroupModule();
      const client = call(() => MlsClient.certified(own, seeds.ed25519));
      return { unlocked, identityId, client, meta: { v: 1, groups: {}, welcomes: [] }, record, head };
    } finally {
      wipe(seeds.ed25519, seeds.mlDsa, seeds.x25519);
    }
  }
  if (record.recordVersion !== 1 || record.identityId !== identityId || record.id !== identityId) {
    throw new VeilError('AUTHENTICATION_FAILED', `the MLS client of identity ${identityId} is damaged`);
  }
  if (!(record.counter >= highest)) throw rollback(identityId, `the stored state (counter ${record.counter}) is older than the newest known (${highest})`);
  if (head === undefined || head.counter !== record.counter) throw rollback(identityId, `the stored state (counter ${record.counter}) is not the one its head names (${head?.counter ?? 'none'})`);
  const { meta, state: bytes } = await unsealClient(unlocked.key, identityId, record.counter, unlocked.generation, record.wrapped);
  try {
    await loadGroupModule();
    const client = call(() => MlsClient.importState(bytes));
    learn(s.name, hid, record.counter);
    return { unlocked, identityId, client, meta, record, head };
  } finally {
    wipe(bytes);
  }
}

function sameHead(a: HeadRecord | undefined, b: HeadRecord | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.counter === b.counter && a.identityId === b.identityId && a.deleted === b.deleted
    && a.tag instanceof Uint8Array && b.tag instanceof Uint8Array && equalBytes(a.tag, b.tag);
}

function sameRecord(a: GroupClientRecord | undefined, b: GroupClientRecord | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.counter === b.counter && a.identityId === b.identityId && a.wrapped instanceof Uint8Array && equalBytes(a.wrapped, b.wrapped);
}

/**
 * Seals the client's new state under the next counter with its head and commits both in one strict transaction
 * that finds the state record's generation and lock epoch, the identity, and the record and head as read.
 */
async function commitClient(s: Store, o: Opened, also?: Also): Promise<void> {
  const counter = (o.record?.counter ?? 0) + 1;
  const state = call(() => o.client.exportState());
  let record: GroupClientRecord;
  let tag: Uint8Array;
  try {
    [record, tag] = await Promise.all([
      sealClient(o.unlocked.key, o.identityId, counter, o.unlocked.generation, o.meta, state).then((wrapped) => ({
        id: o.identityId, identityId: o.identityId, counter, recordVersion: 1 as const, wrapped,
      })),
      sealHead(o.unlocked.key, o.identityId, headId(o.identityId), counter, false, o.unlocked.generation),
    ]);
  } finally {
    wipe(state);
  }
  const head: HeadRecord = { id: headId(o.identityId), identityId: o.identityId, counter, tag };
  let tx: IDBTransaction;
  try {
    const stores = new Set<string>(['meta', 'identities', GROUP_STORE, 'heads', ...(also === undefined ? [] : HISTORY_WRITE_STORES)]);
    tx = s.db.transaction([...stores], 'readwrite', { durability: 'strict' });
  } catch (e) {
    throw storageError(e);
  }
  const finished = done(tx);
  finished.catch(() => {});
  let revision: number;
  try {
    const [stateRecord, cur, curHead, identity] = await Promise.all([
      request(tx.objectStore('meta').get('state')) as Promise<StateRecord | undefined>,
      request(tx.objectStore(GROUP_STORE).get(o.identityId)) as Promise<GroupClientRecord | undefined>,
      request(tx.objectStore('heads').get(head.id)) as Promise<HeadRecord | undefined>,
      request(tx.objectStore('identities').getKey(o.identityId)),
    ]);
    const st = checkFormat(stateRecord);
    if (st.generation !== o.unlocked.generation || (st.lock !== undefined && st.lockEpoch !== o.unlocked.lockEpoch)) {
      s.session = undefined;
      throw locked();
    }
    if (identity === undefined) throw notFound(`identity ${o.identityId}`);
    if (!sameRecord(cur, o.record) || !sameHead(curHead, o.head)) {
      const e = new VeilError('STORAGE_FAILED', `the MLS client of identity ${o.identityId} changed during the operation; nothing was changed`);
      staleErrors.add(e);
      throw e;
    }
    tx.objectStore(GROUP_STORE).put(record);
    tx.objectStore('heads').put(head);
    if (also !== undefined) await also(tx);
    await runCommitHook(tx, s.name);
    revision = st.revision + 1;
    tx.objectStore('meta').put({ ...st, revision });
    await finished;
  } catch (e) {
    abort(tx);
    throw storageError(e);
  }
  learn(s.name, head.id, counter);
  o.record = record;
  o.head = head;
  const announced: SessionHead = shared({ id: head.id, identityId: o.identityId, counter, tag }, o.unlocked.generation);
  announce(s, { change: 'group-client-updated' satisfies KeystoreChange['change'], revision, ids: [o.identityId], heads: [announced] });
}

/** More writes for the commit's transaction (over {@link HISTORY_WRITE_STORES} too): a message stored in the history. */
type Also = (tx: IDBTransaction) => Promise<void>;

/** What an operation on a client gives: its value, whether the client changed, and more writes for the same commit. */
interface Outcome<T> {
  value: T;
  write: boolean;
  also?: Also;
}

/** Commits that found the stored record or head other than the operation started from (a cached client is stale). */
const staleErrors = new WeakSet<Error>();

// ---------------------------------------------------------------------------
// Opened clients kept between operations (the fast path, docs/GROUPS.md#groups-in-the-keystore)

/**
 * Most clients kept open. Each holds its groups' secrets in the group module's memory (zeroizing allocator): freed
 * when dropped, when a failure leaves it possibly ahead of the store, when the store locks, changes its passphrase
 * or closes (../keystore/kept.ts). A working copy of a kept client (its own metadata) shares its module object.
 */
const MAX_OPEN = 8;
const kept = new Kept<Opened>(MAX_OPEN, (o) => {
  o.client.free();
}, (o) => o.client);

/**
 * The kept client of `identityId` if it may be used: opened under the store's current unlocked key and not behind
 * a head this worker has heard announced. Otherwise it is dropped.
 */
async function usableClient(s: Store, identityId: string): Promise<Opened | undefined> {
  const o = kept.get(s.name, identityId);
  if (o === undefined) return undefined;
  if (o.record !== undefined && await keptIsCurrent(s, o.unlocked, headId(identityId), o.record.counter)) return o;
  kept.drop(s.name, identityId);
  return undefined;
}

const STALE = Symbol('stale');

/**
 * One attempt of `fn` on `o`, committing when it writes. From a kept client (`fromCache`), a failure of `fn`, an
 * operation that writes nothing, or a commit that finds the store changed returns {@link STALE}: the caller redoes
 * it from a full reload, whose checks decide (`STATE_ROLLBACK`, …). Any failure drops the client, which may be
 * ahead of the store; a success keeps it.
 */
async function attemptClient<T>(s: Store, o: Opened, fn: (o: Opened) => Promise<Outcome<T>> | Outcome<T>, fromCache: boolean): Promise<T | typeof STALE> {
  // A kept client's metadata is copied: a failed attempt leaves the kept one as stored.
  const work: Opened = fromCache ? { ...o, meta: structuredClone(o.meta) } : o;
  let out: Outcome<T>;
  try {
    out = await fn(work);
  } catch (e) {
    kept.drop(s.name, o.identityId, o);
    if (fromCache) return STALE;
    throw e;
  }
  if (!out.write) {
    if (fromCache) return STALE;
    if (o.record !== undefined) kept.keep(s.name, o.identityId, o);
    else o.client.free();
    return out.value;
  }
  try {
    await commitClient(s, work, out.also);
  } catch (e) {
    kept.drop(s.name, o.identityId, o);
    if (fromCache && e instanceof Error && staleErrors.has(e)) return STALE;
    throw e;
  }
  kept.keep(s.name, work.identityId, work);
  return out.value;
}

/**
 * Runs `fn` on the identity's client under its locks and commits when `fn` says so (`write`): on the client kept
 * from this worker's last operation when it has one that is current (one transaction, which requires the stored
 * record and head to be the kept ones), else — or when that finds the store changed — on a full reload. A failure
 * of `fn` writes nothing.
 */
async function withClient<T>(s: Store, identityId: string, fn: (o: Opened) => Promise<Outcome<T>> | Outcome<T>): Promise<T> {
  return withClientLock(s, identityId, async () => {
    const reused = await usableClient(s, identityId);
    if (reused !== undefined) {
      const r = await attemptClient(s, reused, fn, true);
      if (r !== STALE) return r;
    }
    const o = await openClient(s, identityId);
    const r = await attemptClient(s, o, fn, false);
    if (r === STALE) throw new VeilError('INTERNAL', 'a full reload was reported stale');
    return r;
  });
}

// ---------------------------------------------------------------------------
// Facts

/** An epoch (a u64 from the module) as a number: exact below 2^53, which a group reaches after 2^53 commits. */
function epochNumber(e: bigint | number): number {
  const n = Number(e);
  if (!Number.isSafeInteger(n)) throw new VeilError('INTERNAL', 'the group epoch is beyond 2^53');
  return n;
}

function member(m: { index: number; identity: Uint8Array; signatureKey: Uint8Array }): GroupMember {
  // Every member's credential was checked (certified) when it entered: 0x01 ‖ Enc(ID) ‖ certificate.
  const identity = m.identity.slice(1, 1 + ENC_ID_LENGTH);
  return { index: m.index, identity, identityId: sessionIdentityId(identity), signatureKey: m.signatureKey };
}

function meta(o: Opened, groupId: string): GroupMeta {
  const g = o.meta.groups[groupId];
  if (!g) throw new VeilError('NOT_A_MEMBER', `identity ${o.identityId} holds no group ${groupId}`);
  return g;
}

function infoOf(o: Opened, groupId: string): GroupInfo {
  const g = meta(o, groupId);
  const i = call(() => o.client.info(hexToBytes(groupId)) as ModuleInfo);
  return {
    kind: 'group', id: `${o.identityId}/${groupId}`, identity: o.identityId, groupId: i.groupId, suite: i.suite, epoch: epochNumber(i.epoch),
    ownIndex: i.ownIndex, members: i.members.map(member), commitPending: i.commitPending, active: i.active,
    policy: { ...g.policy }, sentSinceUpdate: g.sent, lastUpdateAt: g.lastUpdate, createdAt: g.createdAt,
  };
}

function memberAt(o: Opened, groupId: string, index: number | null): GroupMember | null {
  if (index === null) return null;
  const i = call(() => o.client.info(hexToBytes(groupId)) as ModuleInfo);
  const m = i.members.find((x) => x.index === index);
  return m ? member(m) : null;
}

// ---------------------------------------------------------------------------
// Requests

export async function keyPackages(s: Store, identity: unknown, suite: unknown, count: unknown, lastResort: unknown): Promise<Uint8Array[]> {
  const id = identityArg(identity);
  const cs = suiteArg(suite);
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_KEY_PACKAGES) throw new RangeError(`count must be an integer in 1…${MAX_KEY_PACKAGES}`);
  if (typeof lastResort !== 'boolean') throw new TypeError('lastResort must be a boolean');
  return withClient(s, id, (o) => {
    const out: Uint8Array[] = [];
    for (let k = 0; k < count; k++) out.push(call(() => o.client.createKeyPackage(cs, lastResort)));
    return { value: out, write: true };
  });
}

export async function create(s: Store, identity: unknown, suite: unknown, policy: unknown): Promise<GroupInfo> {
  const id = identityArg(identity);
  const cs = suiteArg(suite);
  const p = policyArg(policy);
  return withClient(s, id, (o) => {
    const gid = bytesToHex(call(() => o.client.createGroup(cs)));
    const now = nowSecs();
    o.meta.groups[gid] = { createdAt: now, policy: p, sent: 0, lastUpdate: now };
    return { value: infoOf(o, gid), write: true };
  });
}

export async function join(s: Store, identity: unknown, welcome: unknown, policy: unknown): Promise<GroupInfo> {
  const id = identityArg(identity);
  const w = bytes('welcome', welcome);
  const p = policyArg(policy);
  const digest = bytesToHex(sha256(w));
  return withClient(s, id, (o) => {
    if (o.meta.welcomes.includes(digest)) throw new VeilError('REPLAY_DETECTED', 'this welcome was already joined');
    const gid = bytesToHex(call(() => o.client.join(w)));
    if (o.meta.groups[gid]) throw new VeilError('REPLAY_DETECTED', `identity ${id} already holds group ${gid}`);
    const now = nowSecs();
    o.meta.groups[gid] = { createdAt: now, policy: p, sent: 0, lastUpdate: now };
    o.meta.welcomes = [...o.meta.welcomes, digest].slice(-MAX_WELCOMES);
    return { value: infoOf(o, gid), write: true };
  });
}

function commitOut(c: ModuleCommit): GroupCommit {
  return { commit: c.commit, ...(c.welcome ? { welcome: c.welcome } : {}) };
}

/** Makes the commit of `intent` in the group's current epoch and keeps it pending with its intent. */
function makeCommit(o: Opened, gid: string, intent: Intent): GroupCommit {
  const g = meta(o, gid);
  const idb = hexToBytes(gid);
  let c: ModuleCommit;
  switch (intent.kind) {
    case 'add':
      c = call(() => o.client.add(idb, intent.keyPackages.map(hexToBytes)) as ModuleCommit);
      break;
    case 'remove': {
      const members = (call(() => o.client.info(idb) as ModuleInfo)).members.map(member);
      const indices = members.filter((m) => intent.identities.includes(bytesToHex(m.identity))).map((m) => m.index);
      if (indices.length === 0) throw new VeilError('NOT_A_MEMBER', 'none of the members to remove is in the group');
      c = call(() => o.client.remove(idb, Uint32Array.from(indices)) as ModuleCommit);
      break;
    }
    case 'update':
      c = call(() => o.client.update(idb) as ModuleCommit);
      break;
  }
  g.pending = { commit: bytesToHex(c.commit), ...(c.welcome ? { welcome: bytesToHex(c.welcome) } : {}), intent };
  return commitOut(c);
}

export async function add(s: Store, group: unknown, packages: unknown): Promise<GroupCommit & { info: GroupInfo }> {
  const { identityId, groupId } = groupArg(group);
  if (!Array.isArray(packages) || packages.length === 0 || packages.length > MAX_ADDS) throw new RangeError(`keyPackages must be an array of 1…${MAX_ADDS} key packages`);
  const kps = packages.map((k, i) => bytesToHex(bytes(`keyPackages[${i}]`, k)));
  return withClient(s, identityId, (o) => {
    const c = makeCommit(o, groupId, { kind: 'add', keyPackages: kps });
    return { value: { ...c, info: infoOf(o, groupId) }, write: true };
  });
}

export async function remove(s: Store, group: unknown, members: unknown): Promise<GroupCommit & { info: GroupInfo }> {
  const { identityId, groupId } = groupArg(group);
  if (!Array.isArray(members) || members.length === 0 || !members.every((m) => Number.isInteger(m) && (m as number) >= 0 && (m as number) <= 0xffffffff)) {
    throw new RangeError('members must be a non-empty array of leaf indices');
  }
  return withClient(s, identityId, (o) => {
    const current = (call(() => o.client.info(hexToBytes(groupId)) as ModuleInfo)).members;
    const identities: string[] = [];
    for (const index of members as number[]) {
      const m = current.find((x) => x.index === index);
      if (!m) throw new VeilError('NOT_A_MEMBER', `leaf ${index} is not a member of the group`);
      identities.push(bytesToHex(member(m).identity));
    }
    const c = makeCommit(o, groupId, { kind: 'remove', identities });
    return { value: { ...c, info: infoOf(o, groupId) }, write: true };
  });
}

export async function update(s: Store, group: unknown): Promise<GroupCommit & { info: GroupInfo }> {
  const { identityId, groupId } = groupArg(group);
  return withClient(s, identityId, (o) => {
    const c = makeCommit(o, groupId, { kind: 'update' });
    return { value: { ...c, info: infoOf(o, groupId) }, write: true };
  });
}

/** Merges this member's pending commit (the delivery service accepted it) and keeps what it did. */
function merge(o: Opened, gid: string): void {
  const g = meta(o, gid);
  call(() => o.client.mergePending(hexToBytes(gid)));
  if (g.pending?.intent.kind === 'update' || g.pending?.intent.kind === 'remove') {
    // Both carry a fresh path for this member's leaf.
    g.sent = 0;
    g.lastUpdate = nowSecs();
  }
  delete g.pending;
}

export async function confirm(s: Store, group: unknown): Promise<GroupInfo> {
  const { identityId, groupId } = groupArg(group);
  return withClient(s, identityId, (o) => {
    merge(o, groupId);
    return { value: infoOf(o, groupId), write: true };
  });
}

export async function encrypt(s: Store, group: unknown, plaintext: unknown, aad: unknown): Promise<GroupEncrypted> {
  const { identityId, groupId } = groupArg(group);
  const pt = bytes('plaintext', plaintext);
  const ad = aad === undefined ? new Uint8Array(0) : bytes('aad', aad);
  return withClient<GroupEncrypted>(s, identityId, (o) => {
    const g = meta(o, groupId);
    const message = call(() => o.client.encrypt(hexToBytes(groupId), pt, ad));
    g.sent += 1;
    const due = g.sent >= g.policy.messages || nowSecs() - g.lastUpdate >= g.policy.days * 86_400;
    if (due && g.pending === undefined) {
      const c = makeCommit(o, groupId, { kind: 'update' });
      return { value: { message, commit: c.commit }, write: true };
    }
    return { value: { message }, write: true };
  });
}

/** Where `receive` stores an application message: the conversation of the keystore's history, the app's position, new metadata. */
interface HistoryTarget {
  conversation: string;
  position: number;
  meta?: Uint8Array;
}

function historyArg(h: unknown): HistoryTarget | undefined {
  if (h === undefined) return undefined;
  if (typeof h !== 'object' || h === null) throw new TypeError('history must be { conversation, position, meta? }');
  const { conversation, position, meta } = h as Record<string, unknown>;
  if (typeof conversation !== 'string') throw new TypeError('history.conversation must be a string');
  if (typeof position !== 'number' || !Number.isSafeInteger(position) || position < 0) throw new RangeError('history.position must be an integer ≥ 0');
  return { conversation, position, ...(meta === undefined ? {} : { meta: checkData('history.meta', meta) }) };
}

/**
 * `keystore/group-receive`. With `history`, an application message is stored as the conversation's next entry
 * (ts/group/history-entry.ts) and the metadata replaced, in the transaction that commits the group's new state:
 * both happen or neither, so a message is stored exactly once even if the page dies right after.
 */
export async function receive(s: Store, group: unknown, message: unknown, history?: unknown): Promise<GroupReceived> {
  const { identityId, groupId } = groupArg(group);
  const msg = bytes('message', message);
  const target = historyArg(history);
  if (target === undefined) return receiveInto(s, identityId, groupId, msg, undefined);
  return withConversation(s, target.conversation, (prepare) => receiveInto(s, identityId, groupId, msg, { target, prepare }));
}

async function receiveInto(
  s: Store, identityId: string, groupId: string, msg: Uint8Array, history: { target: HistoryTarget; prepare: PrepareAppend } | undefined,
): Promise<GroupReceived> {
  return withClient<GroupReceived>(s, identityId, async (o) => {
    const out = receiveIn(o, groupId, msg);
    if (history === undefined) return out;
    const v = out.value;
    const entry = v.kind !== 'application' ? [] : [encodeGroupHistoryMessage({
      kind: 'received', senderId: hexToBytes(v.sender.identityId), senderIndex: v.sender.index, epoch: v.epoch, time: Date.now(),
      position: history.target.position, aad: v.aad, bytes: v.bytes,
    })];
    const p = await history.prepare(entry, history.target.meta);
    return { ...out, value: { ...v, history: { first: p.first, next: p.next } }, also: (tx) => p.write(tx) };
  });
}

function receiveIn(o: Opened, groupId: string, msg: Uint8Array): Outcome<GroupReceived> {
  const g = meta(o, groupId);
  const epochBefore = epochNumber((call(() => o.client.info(hexToBytes(groupId)) as ModuleInfo)).epoch);
  // This member's own pending commit, fanned back by the delivery service: accepted.
  if (g.pending !== undefined && equalBytes(msg, hexToBytes(g.pending.commit))) {
    const sender = memberAt(o, groupId, (call(() => o.client.info(hexToBytes(groupId)) as ModuleInfo)).ownIndex);
    merge(o, groupId);
    const after = infoOf(o, groupId);
    return {
      value: { kind: 'commit', own: true, sender, epoch: after.epoch, added: [], removed: [], removedSelf: false, discardedOwn: false },
      write: true,
    };
  }
  const senderBefore = (index: number | null) => memberAt(o, groupId, index);
  const r = call(() => o.client.receive(hexToBytes(groupId), msg) as ModuleReceived);
  switch (r.kind) {
    case 'application': {
      const m = member({ index: r.sender, identity: r.senderIdentity, signatureKey: new Uint8Array(0) });
      const known = memberAt(o, groupId, r.sender);
      return { value: { kind: 'application', sender: known ?? m, bytes: r.bytes, aad: r.aad, epoch: epochBefore }, write: true };
    }
    case 'proposal':
      return { value: { kind: 'proposal', sender: senderBefore(r.sender) }, write: true };
    case 'commit': {
      const intent = g.pending?.intent;
      if (r.discardedOwn) delete g.pending;
      const added = r.added.map((c) => c.slice(1, 1 + ENC_ID_LENGTH));
      let reapplied: GroupCommit | undefined;
      let reapplyFailed: string | undefined;
      if (r.discardedOwn && intent !== undefined && !r.removedSelf) {
        try {
          reapplied = makeCommit(o, groupId, intent);
        } catch (e) {
          reapplyFailed = e instanceof VeilError ? e.code : 'INTERNAL';
        }
      }
      return {
        value: {
          kind: 'commit', own: false, sender: r.sender === null ? null : memberAt(o, groupId, r.sender), epoch: epochNumber(r.epoch), added, removed: r.removed,
          removedSelf: r.removedSelf, discardedOwn: r.discardedOwn,
          ...(reapplied ? { reapplied } : {}), ...(reapplyFailed ? { reapplyFailed } : {}),
        },
        write: true,
      };
    }
  }
}

export async function info(s: Store, group: unknown): Promise<GroupInfo> {
  const { identityId, groupId } = groupArg(group);
  return withClient(s, identityId, (o) => ({ value: infoOf(o, groupId), write: false }));
}

/** Every group (of `identity`, if given), oldest first. */
export async function list(s: Store, identity: unknown): Promise<GroupInfo[]> {
  let ids: string[];
  if (identity !== undefined) ids = [identityArg(identity)];
  else {
    try {
      ids = (await request(s.db.transaction(GROUP_STORE).objectStore(GROUP_STORE).getAllKeys())).filter((k): k is string => typeof k === 'string');
    } catch (e) {
      throw storageError(e);
    }
  }
  const out: GroupInfo[] = [];
  for (const id of ids) {
    out.push(...(await withClient(s, id, (o) => ({ value: Object.keys(o.meta.groups).map((gid) => infoOf(o, gid)), write: false }))));
  }
  return out.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
}

export async function deleteGroup(s: Store, group: unknown): Promise<true> {
  const { identityId, groupId } = groupArg(group);
  return withClient(s, identityId, (o) => {
    meta(o, groupId);
    call(() => o.client.deleteGroup(hexToBytes(groupId)));
    o.meta.groups = Object.fromEntries(Object.entries(o.meta.groups).filter(([k]) => k !== groupId));
    return { value: true as const, write: true };
  });
}
