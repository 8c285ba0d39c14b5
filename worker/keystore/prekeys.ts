/**
 * Prekeys of the session layer (docs/KEYSTORE.md#sessions-and-prekeys, docs/SESSIONS.md §2–4):
 * an identity's session seeds, its device id and key-id counter, generating, rotating and
 * purging its signed prekeys, and the helpers the session code uses to answer an initial
 * message (secrets, replay cache, consumption in the session's transaction).
 */
import { VeilError } from '../../protocol/errors.js';
import { integer, wipe } from '../../ts/validate.js';
import {
  encodeBundle, generatePrekey, sessionIdentity, type IdentitySeeds, type InitialMessageInfo, type PrekeyKind,
} from '../../ts/session/core.js';
import type { IdentityHandle, PrekeyBundles } from '../../protocol/keystore.protocol.js';
import { checkFormat, commit, notFound, storageError, withLock } from './db.js';
import { abort, done, eachCursor, request } from './idb.js';
import {
  deviceRecordId, prekeyRecordId, replayRecordId, sealPrekey, unseal, unsealPrekey,
  type DeviceStateRecord, type IdentityRecord, type PrekeyRecord, type ReplayRecord, type SecretRecord, type StateRecord,
} from './records.js';
import { announce, readState, sessionFor, type Session, type Store } from './store.js';

// ---------------------------------------------------------------------------
// Policy (docs/KEYSTORE.md#prekey-rotation; the table of docs/SESSIONS.md §2.2)

const DAY = 86_400;

/** Rotation and expiry of prekeys, in seconds; one-time prekeys per call. */
export const PREKEY_POLICY = {
  /** `expires − created` of signed X25519 and last-resort ML-KEM prekeys. */
  signedLifetime: 30 * DAY,
  /** A signed or last-resort prekey is replaced once it is this old (by the next create/replenish call). */
  rotateAfter: 7 * DAY,
  /** A replaced signed or last-resort prekey's secret (and its replay entries) is deleted this long after it was replaced. */
  keepReplaced: 30 * DAY,
  /** `expires − created` of one-time prekeys; unused ones are deleted at expiry. */
  oneTimeLifetime: 90 * DAY,
  /** The most one-time bundles one `createPrekeyBundle` / `replenishPrekeys` call makes. */
  maxOneTimePerCall: 100,
} as const;

const MAX_KEY_ID = 0xffff_ffff;

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function idOf(identity: IdentityHandle | string): string {
  if (typeof identity === 'string') return identity;
  if (typeof identity === 'object' && identity !== null && typeof (identity as { id?: unknown }).id === 'string') return identity.id;
  throw new TypeError('identity must be an identity handle or id');
}

function pqRequired(id: string): VeilError {
  return new VeilError('PQ_IDENTITY_REQUIRED', `identity ${id} has no ML-DSA-65 key: sessions need an identity made with mlDsa: true`);
}

function isPrekey(r: PrekeyRecord | DeviceStateRecord): r is PrekeyRecord {
  return r.kind !== 'device';
}

// ---------------------------------------------------------------------------
// Helpers for the session code (SESSION-API §B)

/**
 * The session identity seeds of a keystore identity: its Ed25519 seed, ML-DSA-65 seed `ξ` and X25519
 * secret (the derived 32 bytes, used as the scalar: `sessionIdentity(seeds)` has the identity's own public
 * keys). Fresh buffers the caller wipes. `KEYSTORE_LOCKED`, `KEY_NOT_FOUND`, `PQ_IDENTITY_REQUIRED`
 * (no ML-DSA-65 key).
 */
export async function identitySeeds(s: Store, identity: IdentityHandle | string): Promise<IdentitySeeds> {
  const id = idOf(identity);
  let state: StateRecord | undefined;
  let record: IdentityRecord | undefined;
  let secrets: (SecretRecord | undefined)[];
  try {
    const tx = s.db.transaction(['meta', 'identities', 'secrets']);
    const store = tx.objectStore('secrets');
    [state, record, ...secrets] = await Promise.all([
      request(tx.objectStore('meta').get('state')) as Promise<StateRecord | undefined>,
      request(tx.objectStore('identities').get(id)) as Promise<IdentityRecord | undefined>,
      ...(['ed25519', 'ml-dsa-65', 'x25519'] as const).map((t) => request(store.get(`${id}/${t}`)) as Promise<SecretRecord | undefined>),
    ]);
  } catch (e) {
    throw storageError(e);
  }
  const session = sessionFor(s, checkFormat(state));
  if (!record) throw notFound(`identity ${id}`);
  if (!record.mlDsa) throw pqRequired(id);
  const out: Uint8Array[] = [];
  try {
    for (const r of secrets) {
      if (!r) throw notFound(`a key of identity ${id}`);
      out.push(await unseal(session.key, r.id, r.type, session.generation, r.wrapped));
    }
  } catch (e) {
    wipe(...out);
    throw e;
  }
  const [ed25519, mlDsa, x25519] = out as [Uint8Array, Uint8Array, Uint8Array];
  return { ed25519, mlDsa, x25519 };
}

/** A random u32 other than 0. */
function randomDeviceId(): number {
  const b = new Uint32Array(1);
  do crypto.getRandomValues(b);
  while (b[0] === 0);
  return b[0] ?? 1;
}

async function readDevice(s: Store, identityId: string): Promise<{ identity: IdentityRecord | undefined; device: DeviceStateRecord | undefined }> {
  const tx = s.db.transaction(['identities', 'prekeys']);
  const [identity, device] = await Promise.all([
    request(tx.objectStore('identities').get(identityId)) as Promise<IdentityRecord | undefined>,
    request(tx.objectStore('prekeys').get(deviceRecordId(identityId))) as Promise<DeviceStateRecord | undefined>,
  ]);
  return { identity, device };
}

/**
 * This device's id for the identity: a random u32 (not 0) made on first use and kept until the identity is
 * deleted (one transaction: concurrent first uses agree). `KEY_NOT_FOUND`, `PQ_IDENTITY_REQUIRED`.
 */
export async function deviceOf(s: Store, identityId: string): Promise<number> {
  return (await deviceRecord(s, identityId)).deviceId;
}

async function deviceRecord(s: Store, identityId: string): Promise<DeviceStateRecord> {
  if (typeof identityId !== 'string') throw new TypeError('identity must be an identity handle or id');
  try {
    const first = await readDevice(s, identityId);
    if (!first.identity) throw notFound(`identity ${identityId}`);
    if (!first.identity.mlDsa) throw pqRequired(identityId);
    if (first.device) return first.device;
    const tx = s.db.transaction(['identities', 'prekeys'], 'readwrite');
    const finished = done(tx);
    finished.catch(() => {});
    try {
      const identity = (await request(tx.objectStore('identities').get(identityId))) as IdentityRecord | undefined;
      if (!identity) throw notFound(`identity ${identityId}`);
      const present = (await request(tx.objectStore('prekeys').get(deviceRecordId(identityId)))) as DeviceStateRecord | undefined;
      const device: DeviceStateRecord = present ?? {
        id: deviceRecordId(identityId), identityId, kind: 'device', deviceId: randomDeviceId(), nextKeyId: 1, createdAt: Date.now(),
      };
      if (!present) await request(tx.objectStore('prekeys').add(device));
      await finished;
      return device;
    } catch (e) {
      abort(tx);
      throw e;
    }
  } catch (e) {
    throw storageError(e);
  }
}

/**
 * The secrets an initial message names (fresh buffers the caller wipes): the signed X25519 prekey's
 * scalar, the ML-KEM-768 prekey's dk (one-time or last-resort, as named) and, if named, the one-time
 * X25519 prekey's scalar. Expired prekeys still answer until they are deleted (messages in flight).
 * `KEYSTORE_LOCKED`; `PREKEY_NOT_FOUND` if one is gone (a one-time prekey used before, a deleted one).
 */
export async function prekeySecrets(
  s: Store, identityId: string, info: InitialMessageInfo,
): Promise<{ signed: Uint8Array; pq: Uint8Array; oneTime?: Uint8Array }> {
  const ids = [
    prekeyRecordId(identityId, 'x25519-signed', info.signedPrekeyId),
    prekeyRecordId(identityId, info.pqPrekeyKind, info.pqPrekeyId),
    ...(info.oneTimePrekeyId === undefined ? [] : [prekeyRecordId(identityId, 'x25519-one-time', info.oneTimePrekeyId)]),
  ];
  let state: StateRecord | undefined;
  let records: (PrekeyRecord | undefined)[];
  try {
    const tx = s.db.transaction(['meta', 'prekeys']);
    const store = tx.objectStore('prekeys');
    [state, ...records] = await Promise.all([
      request(tx.objectStore('meta').get('state')) as Promise<StateRecord | undefined>,
      ...ids.map((id) => request(store.get(id)) as Promise<PrekeyRecord | undefined>),
    ]);
  } catch (e) {
    throw storageError(e);
  }
  const session = sessionFor(s, checkFormat(state));
  const out: Uint8Array[] = [];
  try {
    for (const [i, r] of records.entries()) {
      if (!r) throw new VeilError('PREKEY_NOT_FOUND', `prekey ${ids[i] ?? ''} is not on this device (used or deleted)`);
      out.push(await unsealPrekey(session, r));
    }
  } catch (e) {
    wipe(...out);
    throw e;
  }
  const [signed, pq, oneTime] = out as [Uint8Array, Uint8Array, Uint8Array | undefined];
  return oneTime === undefined ? { signed, pq } : { signed, pq, oneTime };
}

/** Whether this device has accepted the initial message's replay key before (only messages without one-time prekeys have one). */
export async function replaySeen(s: Store, identityId: string, info: InitialMessageInfo): Promise<boolean> {
  if (info.replayDigest === undefined) return false;
  const id = replayRecordId(identityId, info.signedPrekeyId, info.pqPrekeyId, info.replayDigest);
  try {
    return (await request(s.db.transaction('replay').objectStore('replay').get(id))) !== undefined;
  } catch (e) {
    throw storageError(e);
  }
}

const consumeFailures = new WeakMap<IDBTransaction, VeilError>();

/** Why {@link consumeInTransaction} aborted `tx`, if it did (`PREKEY_NOT_FOUND` or `REPLAY_DETECTED`). */
export function consumeFailure(tx: IDBTransaction): VeilError | undefined {
  return consumeFailures.get(tx);
}

function failConsume(tx: IDBTransaction, error: VeilError): void {
  if (!consumeFailures.has(tx)) consumeFailures.set(tx, error);
  abort(tx);
}

/**
 * Issues, in the session's transaction `tx` (stores `prekeys` and `replay` included), the deletion of the
 * one-time prekeys `respond` consumed and the replay entry of a message without one-time prekeys. Atomic
 * against concurrent answers: if a consumed prekey is already gone or the replay entry already exists, `tx`
 * is aborted (nothing of it commits; {@link consumeFailure} says why). `consumed` must name exactly the
 * one-time prekeys of `info`, `replayDigest` exactly `info.replayDigest` (else `TypeError`, before any request).
 */
export function consumeInTransaction(
  tx: IDBTransaction, identityId: string, info: InitialMessageInfo,
  consumed: { oneTimeX25519?: number; oneTimeMlkem?: number }, replayDigest?: Uint8Array,
): void {
  const expectX = info.oneTimePrekeyId;
  const expectM = info.pqPrekeyKind === 'mlkem-one-time' ? info.pqPrekeyId : undefined;
  if (consumed.oneTimeX25519 !== expectX || consumed.oneTimeMlkem !== expectM) {
    throw new TypeError('consumed does not name the one-time prekeys of the initial message');
  }
  const digest = info.replayDigest;
  if ((digest === undefined) !== (replayDigest === undefined) || (digest && replayDigest && !equalBytes(digest, replayDigest))) {
    throw new TypeError('replayDigest is not the initial message\'s replay digest');
  }
  const prekeys = tx.objectStore('prekeys');
  const del = (kind: PrekeyKind, keyId: number) => {
    const id = prekeyRecordId(identityId, kind, keyId);
    const g = prekeys.get(id);
    g.onsuccess = () => {
      if (g.result === undefined) failConsume(tx, new VeilError('PREKEY_NOT_FOUND', `one-time prekey ${id} was used already`));
      else prekeys.delete(id);
    };
  };
  if (expectX !== undefined) del('x25519-one-time', expectX);
  if (expectM !== undefined) del('mlkem-one-time', expectM);
  if (digest !== undefined) {
    const r: ReplayRecord = {
      id: replayRecordId(identityId, info.signedPrekeyId, info.pqPrekeyId, digest), identityId,
      signedPrekeyId: info.signedPrekeyId, pqPrekeyId: info.pqPrekeyId, createdAt: Date.now(),
    };
    const add = tx.objectStore('replay').add(r);
    add.onerror = (e) => {
      e.preventDefault();
      failConsume(tx, new VeilError('REPLAY_DETECTED', 'this initial message was accepted before'));
    };
  }
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

// ---------------------------------------------------------------------------
// Generation, rotation and purging

/** A new signed prekey, its secret sealed (and wiped). */
async function makePrekey(
  session: Session, seeds: IdentitySeeds, identityId: string, kind: PrekeyKind, keyId: number, created: number, lifetime: number,
): Promise<PrekeyRecord> {
  const expires = created + lifetime;
  const { record, secret } = generatePrekey(seeds, kind, keyId, created, expires);
  try {
    const id = prekeyRecordId(identityId, kind, keyId);
    const wrapped = await sealPrekey(session.key, id, session.generation, secret);
    return { id, identityId, kind, keyId, createdAt: created, expiresAt: expires, record, wrapped };
  } finally {
    wipe(secret);
  }
}

/** The newest not-replaced prekey of a kind (key ids only grow). */
function current(all: readonly PrekeyRecord[], kind: 'x25519-signed' | 'mlkem-last-resort'): PrekeyRecord | undefined {
  let best: PrekeyRecord | undefined;
  for (const r of all) if (r.kind === kind && r.replacedAt === undefined && (!best || r.keyId > best.keyId)) best = r;
  return best;
}

function due(r: PrekeyRecord | undefined, now: number, rotate: boolean): boolean {
  return rotate || r === undefined || now >= r.createdAt + PREKEY_POLICY.rotateAfter || now >= r.expiresAt;
}

/** Whether a prekey is deleted now: replaced long enough ago, or an unused one-time prekey past its expiry. */
function purgeable(r: PrekeyRecord, now: number): boolean {
  if (r.kind === 'x25519-one-time' || r.kind === 'mlkem-one-time') return now >= r.expiresAt;
  return r.replacedAt !== undefined && now >= r.replacedAt + PREKEY_POLICY.keepReplaced;
}

/**
 * `keystore/create-prekey-bundle` and `keystore/replenish-prekeys`: makes the signed X25519 and last-resort
 * ML-KEM prekeys if there are none or they are due (`rotate`: now), `oneTime` one-time pairs, deletes what
 * the policy says is over, and returns the canonical bundle without one-time prekeys plus one bundle per new
 * one-time pair. One transaction; announced as `prekeys-changed` when something changed.
 */
export async function prekeyBundles(s: Store, identity: string, oneTime: unknown, rotate: unknown): Promise<PrekeyBundles> {
  const id = idOf(identity);
  const n = integer('oneTime', oneTime, 0, PREKEY_POLICY.maxOneTimePerCall);
  if (typeof rotate !== 'boolean') throw new TypeError('rotate must be a boolean');
  sessionFor(s, await readState(s)); // fail fast when locked
  const deviceId = (await deviceRecord(s, id)).deviceId;
  return withLock(s.name, async () => {
    const state = await readState(s);
    const session = sessionFor(s, state);
    const seeds = await identitySeeds(s, id);
    try {
      let all: (PrekeyRecord | DeviceStateRecord)[];
      try {
        all = (await request(s.db.transaction('prekeys').objectStore('prekeys').index('byIdentity').getAll(IDBKeyRange.only(id)))) as (PrekeyRecord | DeviceStateRecord)[];
      } catch (e) {
        throw storageError(e);
      }
      const device = all.find((r): r is DeviceStateRecord => r.kind === 'device');
      if (!device) throw notFound(`the device record of identity ${id}`);
      const prekeys = all.filter(isPrekey);
      const now = nowSeconds();
      let nextKeyId = device.nextKeyId;
      const allocate = (): number => {
        if (!Number.isSafeInteger(nextKeyId) || nextKeyId < 1 || nextKeyId > MAX_KEY_ID) {
          throw new VeilError('INVALID_STATE', `identity ${id} has used every prekey id on this device`);
        }
        return nextKeyId++;
      };
      const added: PrekeyRecord[] = [];
      const updated: PrekeyRecord[] = [];
      const active: Partial<Record<'x25519-signed' | 'mlkem-last-resort', PrekeyRecord>> = {};
      // The signed and last-resort prekeys are replaced together, when either is due.
      const kinds = ['x25519-signed', 'mlkem-last-resort'] as const;
      const replace = kinds.some((kind) => due(current(prekeys, kind), now, rotate));
      for (const kind of kinds) {
        const cur = current(prekeys, kind);
        if (!replace && cur) {
          active[kind] = cur;
          continue;
        }
        const made = await makePrekey(session, seeds, id, kind, allocate(), now, PREKEY_POLICY.signedLifetime);
        added.push(made);
        active[kind] = made;
        if (cur) updated.push({ ...cur, replacedAt: now });
      }
      const pairs: [PrekeyRecord, PrekeyRecord][] = [];
      for (let i = 0; i < n; i++) {
        const x = await makePrekey(session, seeds, id, 'x25519-one-time', allocate(), now, PREKEY_POLICY.oneTimeLifetime);
        const m = await makePrekey(session, seeds, id, 'mlkem-one-time', allocate(), now, PREKEY_POLICY.oneTimeLifetime);
        added.push(x, m);
        pairs.push([x, m]);
      }
      const replacedNow = new Set(updated.map((r) => r.id));
      const purged = prekeys.filter((r) => !replacedNow.has(r.id) && purgeable(r, now));
      const purgedIds = new Set(purged.map((r) => r.id));
      // Replay entries live as long as both their signed and last-resort prekeys.
      const kept = [...prekeys.filter((r) => !purgedIds.has(r.id)), ...added];
      const signedIds = new Set(kept.filter((r) => r.kind === 'x25519-signed').map((r) => r.keyId));
      const lastResortIds = new Set(kept.filter((r) => r.kind === 'mlkem-last-resort').map((r) => r.keyId));
      if (added.length > 0 || purged.length > 0) {
        const revision = await commit(s, state.revision, async (tx) => {
          const store = tx.objectStore('prekeys');
          const stored = (await request(store.get(device.id))) as DeviceStateRecord | undefined;
          if (stored?.deviceId !== device.deviceId || stored.nextKeyId !== device.nextKeyId) {
            throw new VeilError('STORAGE_FAILED', 'the keystore changed during the operation; nothing was changed');
          }
          await request(store.put({ ...stored, nextKeyId } satisfies DeviceStateRecord));
          for (const r of added) await request(store.add(r));
          for (const r of updated) await request(store.put(r));
          for (const r of purged) await request(store.delete(r.id));
          await eachCursor(tx.objectStore('replay').index('byIdentity'), IDBKeyRange.only(id), (c) => {
            const v = c.value as ReplayRecord;
            if (!signedIds.has(v.signedPrekeyId) || !lastResortIds.has(v.pqPrekeyId)) c.delete();
          });
          return undefined;
        });
        announce(s, { change: 'prekeys-changed', revision, ids: [id] });
      }
      const signed = active['x25519-signed'];
      const lastResort = active['mlkem-last-resort'];
      if (!signed || !lastResort) throw new VeilError('INTERNAL', 'no signed or last-resort prekey');
      const encoding = sessionIdentity(seeds).encoding;
      const base = { identity: encoding, deviceId, signedPrekey: signed.record, pqLastResort: lastResort.record };
      return {
        bundle: encodeBundle(base),
        oneTime: pairs.map(([x, m]) => encodeBundle({ ...base, oneTimeX25519: x.record, oneTimeMlkem: m.record })),
      };
    } finally {
      wipe(seeds.ed25519, seeds.mlDsa, seeds.x25519);
    }
  });
}
