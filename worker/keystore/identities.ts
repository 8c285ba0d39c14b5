/**
 * Identities: deriving an identity's keys and records from its phrase,
 * adding, listing, reading and deleting them, and loading a secret record
 * under the lock check of every operation.
 */
import * as P from '../../ts/primitives.js';
import { VeilError } from '../../protocol/errors.js';
import { wipe } from '../../ts/validate.js';
import { concatBytes } from '../../ts/bytes.js';
import {
  BUNDLE_DST, bundleEd25519Message, decodePublicBundle, deriveKeySeed, encodeBundleBody, identityId, publicKeyFromKeySeed,
  type PublicBundle,
} from '../../ts/keystore-format.js';
import { KEY_TYPES, type IdentityHandle, type KeyRoute, type KeyType } from '../../protocol/keystore.protocol.js';
import { GROUP_STORE, SESSION_STORES, checkFormat, commit, notFound, read, storageError, withLock } from './db.js';
import { eachCursor, request } from './idb.js';
import { capabilities } from './capabilities.js';
import { seal, withSecret, type IdentityRecord, type SecretRecord, type SecretType, type StateRecord } from './records.js';
import { announce, readState, sessionFor, type Session, type Store } from './store.js';

// ---------------------------------------------------------------------------
// Identities

const enc = new TextEncoder();

export function handleOf(r: IdentityRecord): IdentityHandle {
  return { kind: 'identity', id: r.id, label: r.label, createdAt: r.createdAt, mlDsa: r.mlDsa, routes: { ...r.routes } };
}

/** The plaintext of a recovery record: entropy(32) ‖ BIP-39 seed(64) ‖ UTF-8(BIP-39 passphrase). Wipe it after use. */
function recoveryPlaintext(entropy: Uint8Array, seed: Uint8Array, bip39Passphrase: string): Uint8Array {
  const pass = enc.encode(bip39Passphrase);
  try {
    return concatBytes([entropy, seed, pass]);
  } finally {
    wipe(pass);
  }
}

/** Derives every key of an identity from its 64-byte BIP-39 seed and prepares its records, wrapped for `session` (no writes). */
export async function buildIdentity(
  session: Session, seed: Uint8Array, entropy: Uint8Array, bip39Passphrase: string, label: string, mlDsa: boolean, createdAt: number,
): Promise<{ identity: IdentityRecord; secrets: SecretRecord[]; siblingId: string }> {
  const caps = await capabilities();
  const types = KEY_TYPES.filter((t) => mlDsa || t !== 'ml-dsa-65');
  const seeds = new Map<KeyType, Uint8Array>();
  const seedOf = (t: KeyType): Uint8Array => {
    const s = seeds.get(t);
    if (s === undefined) throw new VeilError('INTERNAL', `no ${t} seed was derived`);
    return s;
  };
  try {
    for (const t of types) seeds.set(t, deriveKeySeed(seed, t));
    const publicKeys: Partial<Record<KeyType, Uint8Array>> = {};
    for (const t of types) publicKeys[t] = publicKeyFromKeySeed(t, seedOf(t));
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
    const parts = [body, P.signMessage(seedOf('ed25519'), bundleEd25519Message(body))];
    if (mlDsa) parts.push(P.mlDsaSign(seedOf('ml-dsa-65'), body, { context: enc.encode(BUNDLE_DST), deterministic: true }));
    const routes: Partial<Record<KeyType, KeyRoute>> = {};
    const secrets: SecretRecord[] = [];
    for (const t of types) {
      routes[t] = caps.routes[t];
      const rid = `${id}/${t}`;
      secrets.push({ id: rid, identityId: id, type: t, wrapped: await seal(session.key, rid, t, session.generation, seedOf(t)) });
    }
    const recovery = recoveryPlaintext(entropy, seed, bip39Passphrase);
    try {
      const rid = `${id}/recovery`;
      secrets.push({ id: rid, identityId: id, type: 'recovery', wrapped: await seal(session.key, rid, 'recovery', session.generation, recovery) });
    } finally {
      wipe(recovery);
    }
    return { identity: { id, label, createdAt, mlDsa, routes, publicKeys, bundle: concatBytes(parts) }, secrets, siblingId };
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

export async function identityRecord(s: Store, id: unknown): Promise<IdentityRecord> {
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
export async function loadSecret(s: Store, id: unknown, type: SecretType): Promise<{ session: Session; identity: IdentityRecord; record: SecretRecord }> {
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

// ---------------------------------------------------------------------------
// Requests

export async function createIdentity(s: Store, label: string, mlDsa: boolean): Promise<IdentityHandle> {
  const checked = checkLabel(label);
  sessionFor(s, await readState(s)); // fail fast when locked, before any key material exists
  const phrase = P.generateMnemonic();
  return addIdentity(s, phrase, '', checked, mlDsa === true, Date.now(), 'fail');
}

export async function restorePhrase(s: Store, phrase: string, bip39Passphrase: string, label: string, mlDsa: boolean): Promise<IdentityHandle> {
  const checked = checkLabel(label);
  if (typeof bip39Passphrase !== 'string') throw new TypeError('passphrase must be a string');
  return addIdentity(s, phrase, bip39Passphrase, checked, mlDsa === true, Date.now(), 'return');
}

export async function listIdentities(s: Store): Promise<IdentityHandle[]> {
  let all: IdentityRecord[];
  try {
    all = (await request(s.db.transaction('identities').objectStore('identities').getAll())) as IdentityRecord[];
  } catch (e) {
    throw storageError(e);
  }
  return all.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1)).map(handleOf);
}

export async function publicBundle(s: Store, id: string): Promise<PublicBundle> {
  const r = await identityRecord(s, id);
  // The id is a hash of the bundle's keys: a bundle written under another identity's id is refused.
  let bundle: PublicBundle | undefined;
  try {
    bundle = decodePublicBundle(r.bundle);
  } catch { /* reported below */ }
  if (!bundle || bundle.id !== r.id) throw new VeilError('AUTHENTICATION_FAILED', `the stored public bundle of identity ${r.id} does not match its id`);
  return bundle;
}

export async function deleteIdentity(s: Store, id: string): Promise<true> {
  return withLock(s.name, async () => {
    const state = await readState(s);
    const session = sessionFor(s, state);
    const r = await identityRecord(s, id);
    const revision = await commit(s, state.revision, async (tx) => {
      await request(tx.objectStore('identities').delete(r.id));
      // Its secrets, everything of its sessions on this device (prekeys and the device record, sessions, replay
      // entries, heads) and its MLS client (every group and key package of it).
      for (const store of ['secrets', ...SESSION_STORES, GROUP_STORE] as const) {
        await eachCursor(tx.objectStore(store).index('byIdentity'), IDBKeyRange.only(r.id), (c) => {
          c.delete();
        });
      }
    });
    for (const k of [...session.native.keys()]) if (k.startsWith(`${r.id}/`)) session.native.delete(k);
    announce(s, { change: 'identity-deleted', revision, ids: [r.id] });
    return true as const;
  });
}

export async function exportPhrase(s: Store, id: string): Promise<string> {
  const { session, record } = await loadSecret(s, id, 'recovery');
  return withSecret(session, record, (rec) => P.entropyToMnemonic(rec.subarray(0, 32)));
}
