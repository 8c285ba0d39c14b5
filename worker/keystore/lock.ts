/**
 * The passphrase: setting, changing or removing it (every secret re-wrapped
 * under the new storage key and generation), unlock, lock and status.
 */
import * as P from '../../ts/primitives.js';
import { VeilError } from '../../protocol/errors.js';
import { exact, wipe } from '../../ts/validate.js';
import { checkArgon2Budget, checkPassphraseKdf } from '../../ts/keystore-format.js';
import type { KdfBudget, KeystoreStatus, PassphraseKdfParams } from '../../protocol/keystore.protocol.js';
import { GROUP_STORE, checkFormat, commit, storageError, withLock } from './db.js';
import { rewrapClient, type GroupClientRecord } from '../group/records.js';
import { request } from './idb.js';
import { bs } from '../../ts/bytes.js';
import { subtle } from '../../ts/webcrypto/subtle.js';
import {
  rewrapHead, rewrapSession, seal, sealPrekey, unseal, unsealPrekey, withSecret,
  type DeviceStateRecord, type HeadRecord, type LockRecord, type PrekeyRecord, type SecretRecord, type SessionRecord, type StateRecord,
} from './records.js';
import { announce, readState, sessionFor, type Store } from './store.js';
import { checkPassphrase } from '../../protocol/args.js';
import { dropStore } from './kept.js';

// ---------------------------------------------------------------------------
// Passphrases (lock and backup)

/** Argon2id(UTF-8(passphrase), salt, params) → 32 bytes. The caller checked the parameters against the KDF budget. */
export function passphraseKey(passphrase: unknown, salt: Uint8Array, params: PassphraseKdfParams): Uint8Array {
  return P.argon2id(checkPassphrase(passphrase), salt, { ...params, length: 32 });
}

/** The storage key S = Argon2id(passphrase) as a non-extractable AES-GCM key; the derived bytes are wiped. */
async function storageKey(passphrase: unknown, salt: Uint8Array, params: PassphraseKdfParams): Promise<CryptoKey> {
  const material = passphraseKey(passphrase, salt, params);
  try {
    return await subtle().importKey('raw', bs(material), { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
  } finally {
    wipe(material);
  }
}

/** Every wrapped record, read in one transaction: identity secrets, prekey secrets (not the device records), session states and heads. */
async function allWrapped(s: Store): Promise<{ secrets: SecretRecord[]; prekeys: PrekeyRecord[]; sessions: SessionRecord[]; heads: HeadRecord[]; groups: GroupClientRecord[] }> {
  try {
    const tx = s.db.transaction(['secrets', 'prekeys', 'sessions', 'heads', GROUP_STORE]);
    const [secrets, prekeys, sessions, heads, groups] = await Promise.all([
      request(tx.objectStore('secrets').getAll()) as Promise<SecretRecord[]>,
      request(tx.objectStore('prekeys').getAll()) as Promise<(PrekeyRecord | DeviceStateRecord)[]>,
      request(tx.objectStore('sessions').getAll()) as Promise<SessionRecord[]>,
      request(tx.objectStore('heads').getAll()) as Promise<HeadRecord[]>,
      request(tx.objectStore(GROUP_STORE).getAll()) as Promise<GroupClientRecord[]>,
    ]);
    return { secrets, prekeys: prekeys.filter((r): r is PrekeyRecord => r.kind !== 'device'), sessions, heads, groups };
  } catch (e) {
    throw storageError(e);
  }
}

/**
 * Inside the commit: the wrapped prekeys and sessions must be exactly those re-wrapped (session operations and
 * one-time prekey consumption do not take the keystore's Web Lock). Otherwise nothing is written: a record
 * changed or added meanwhile would be left under the old generation, a deleted one-time prekey would come back.
 */
async function unchanged(tx: IDBTransaction, store: 'prekeys' | 'sessions' | typeof GROUP_STORE, read: readonly { id: string; wrapped: Uint8Array }[]): Promise<boolean> {
  const now = ((await request(tx.objectStore(store).getAll())) as { id: string; kind?: string; wrapped?: Uint8Array }[])
    .filter((r) => r.kind !== 'device');
  if (now.length !== read.length) return false;
  const before = new Map(read.map((r) => [r.id, r.wrapped]));
  return now.every((r) => {
    const w = before.get(r.id);
    return w !== undefined && r.wrapped instanceof Uint8Array && equalBytes(w, r.wrapped);
  });
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export async function setPassphrase(
  s: Store, passphrase: string | null, params: PassphraseKdfParams | undefined, budget: KdfBudget | undefined, current?: unknown,
): Promise<KeystoreStatus> {
  if (passphrase !== null && (typeof passphrase !== 'string' || passphrase.length === 0)) throw new TypeError('passphrase must be a non-empty string or null');
  const p = checkPassphraseKdf(params);
  // The writer keeps within the reader's budget, so that this store always unlocks.
  if (passphrase !== null) checkArgon2Budget(p, budget);
  if (current !== undefined) checkPassphrase(current);
  return withLock(s.name, async () => {
    const state = await readState(s);
    if (current !== undefined) await checkAgainst(state, current, budget);
    const old = sessionFor(s, state);
    const generation = state.generation + 1;
    let key = s.deviceKey;
    let lock: LockRecord | undefined;
    if (passphrase !== null) {
      const salt = crypto.getRandomValues(new Uint8Array(16));
      key = await storageKey(passphrase, salt, p);
      lock = { salt, params: p, check: await seal(key, 'state', 'lock-check', generation, new Uint8Array(0)) };
    }
    // Re-wrap every secret — identity seeds, prekey secrets, session states, MLS clients — under the new key and generation,
    // then commit them with the new lock at once. Session writes do not take this Web Lock: if one lands between
    // the read and the commit, the commit is refused and the re-wrap starts over (a few times, then STORAGE_FAILED).
    let revision: number | undefined;
    for (let attempt = 0; revision === undefined; attempt++) {
      const all = await allWrapped(s);
      const secrets: SecretRecord[] = [];
      for (const r of all.secrets) {
        secrets.push({ ...r, wrapped: await withSecret(old, r, (secret) => seal(key, r.id, r.type, generation, secret)) });
      }
      const prekeys: PrekeyRecord[] = [];
      for (const r of all.prekeys) {
        const secret = await unsealPrekey(old, r);
        try {
          prekeys.push({ ...r, wrapped: await sealPrekey(key, r.id, generation, secret) });
        } finally {
          wipe(secret);
        }
      }
      const sessions: SessionRecord[] = [];
      for (const r of all.sessions) sessions.push(await rewrapSession(old, { key, generation }, r));
      // MLS clients (worker/group/records.ts), under the same counter: their heads are re-tagged below.
      const groups: GroupClientRecord[] = [];
      for (const r of all.groups) groups.push(await rewrapClient(old, { key, generation }, r));
      // Authenticated heads and tombstones get new tags (version-1 heads and damaged tags stay as they are).
      const heads: HeadRecord[] = [];
      for (const h of all.heads) {
        const n = await rewrapHead(old, { key, generation }, h);
        if (n) heads.push(n);
      }
      const changed = new VeilError('STORAGE_FAILED', 'sessions or prekeys kept changing during the passphrase change; nothing was changed');
      try {
        revision = await commit(s, state.revision, async (tx) => {
          if (!(await unchanged(tx, 'prekeys', all.prekeys)) || !(await unchanged(tx, 'sessions', all.sessions)) || !(await unchanged(tx, GROUP_STORE, all.groups))) throw changed;
          for (const r of secrets) await request(tx.objectStore('secrets').put(r));
          for (const r of prekeys) await request(tx.objectStore('prekeys').put(r));
          for (const r of sessions) await request(tx.objectStore('sessions').put(r));
          for (const r of groups) await request(tx.objectStore(GROUP_STORE).put(r));
          for (const h of heads) await request(tx.objectStore('heads').put(h));
          return { generation, lock };
        });
      } catch (e) {
        if (e !== changed || attempt >= 4) throw e;
      }
    }
    s.session = lock ? { generation, lockEpoch: state.lockEpoch, key, passphrase: true, native: old.native } : undefined;
    dropStore(s.name); // kept session states and MLS clients of the old generation
    announce(s, { change: 'passphrase-changed', revision, ids: [] });
    return status(s);
  });
}

function validLock(l: LockRecord): PassphraseKdfParams {
  try {
    exact('salt', l.salt, 16);
    return checkPassphraseKdf(l.params);
  } catch {
    throw new VeilError('STORAGE_FAILED', 'the keystore\'s lock record is damaged');
  }
}

/** Whether `passphrase` is the passphrase of `state` (`AUTHENTICATION_FAILED` if not, or if the store has none). */
async function checkAgainst(state: StateRecord, passphrase: unknown, budget: KdfBudget | undefined): Promise<void> {
  checkPassphrase(passphrase);
  if (!state.lock) throw new VeilError('AUTHENTICATION_FAILED', 'this store has no passphrase, so currentPassphrase cannot match it');
  const params = validLock(state.lock);
  // The parameters come from storage: bounded before any work.
  checkArgon2Budget(params, budget);
  const key = await storageKey(passphrase, state.lock.salt, params);
  await unseal(key, 'state', 'lock-check', state.generation, state.lock.check); // wrong passphrase: AUTHENTICATION_FAILED
}

/**
 * When `current` is given (`currentPassphrase` of `keystore/delete-identity`; an isolated keystore's
 * app connection must give it): it must be the store's passphrase, else `AUTHENTICATION_FAILED` (a
 * store without a passphrase has none to give). Returns `s`.
 */
export async function checkCurrentPassphrase(s: Store, current: unknown, budget: KdfBudget | undefined): Promise<Store> {
  if (current !== undefined) await checkAgainst(await readState(s), current, budget);
  return s;
}

export async function unlock(s: Store, passphrase: string, budget: KdfBudget | undefined): Promise<KeystoreStatus> {
  const state = await readState(s);
  if (!state.lock) return status(s);
  checkPassphrase(passphrase);
  const params = validLock(state.lock);
  // The parameters come from storage that page script can write: bounded before any work.
  checkArgon2Budget(params, budget);
  const key = await storageKey(passphrase, state.lock.salt, params);
  await unseal(key, 'state', 'lock-check', state.generation, state.lock.check); // wrong passphrase: AUTHENTICATION_FAILED
  s.session = { generation: state.generation, lockEpoch: state.lockEpoch, key, passphrase: true, native: new Map() };
  return status(s);
}

export async function lock(s: Store): Promise<KeystoreStatus> {
  const result = await withLock(s.name, async () => {
    const state = await readState(s);
    s.session = undefined;
    if (!state.lock) return undefined;
    // A committed epoch, not only a broadcast: a worker that misses the message still finds itself locked.
    return commit(s, state.revision, async () => ({ lockEpoch: state.lockEpoch + 1 }));
  });
  s.session = undefined;
  dropStore(s.name);
  if (result !== undefined) announce(s, { change: 'locked', revision: result, ids: [] });
  return status(s);
}

export async function status(s: Store): Promise<KeystoreStatus> {
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
