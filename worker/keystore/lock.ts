/**
 * The passphrase: setting, changing or removing it (every secret re-wrapped
 * under the new storage key and generation), unlock, lock and status.
 */
import * as P from '../../ts/primitives.js';
import { VeilError } from '../../ts/errors.js';
import { exact, wipe } from '../../ts/validate.js';
import { checkArgon2Budget, checkPassphraseKdf } from '../../ts/keystore-format.js';
import type { KdfBudget, KeystoreStatus, PassphraseKdfParams } from '../keystore.protocol.js';
import { checkFormat, commit, storageError, withLock } from './db.js';
import { request } from './idb.js';
import { bs } from '../../ts/bytes.js';
import { subtle } from '../../ts/webcrypto/subtle.js';
import { seal, unseal, withSecret, type LockRecord, type SecretRecord, type StateRecord } from './records.js';
import { announce, readState, sessionFor, type Store } from './store.js';
import { checkPassphrase } from './args.js';

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

async function allSecrets(s: Store): Promise<SecretRecord[]> {
  try {
    return (await request(s.db.transaction('secrets').objectStore('secrets').getAll())) as SecretRecord[];
  } catch (e) {
    throw storageError(e);
  }
}

export async function setPassphrase(s: Store, passphrase: string | null, params: PassphraseKdfParams | undefined, budget: KdfBudget | undefined): Promise<KeystoreStatus> {
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
      key = await storageKey(passphrase, salt, p);
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
    exact('salt', l.salt, 16);
    return checkPassphraseKdf(l.params);
  } catch {
    throw new VeilError('STORAGE_FAILED', 'the keystore\'s lock record is damaged');
  }
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
