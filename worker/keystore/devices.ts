/**
 * Signing the user's device registry (docs/DEVICES.md): the user identity's keys sign a change only
 * on top of a registry this worker has verified against that identity, and only a change this
 * worker built (an add of a well-formed device `Enc(ID)`, a revoke of an active device).
 */
import { VeilError } from '../../protocol/errors.js';
import { sessionIdentityId } from '../../ts/session/core.js';
import { utf8 } from '../../ts/validate.js';
import { bytesToHex, concatBytes, hexToBytes } from '../../ts/bytes.js';
import { encodeVerificationIdentity } from '../../ts/messaging/verification.js';
import {
  CONSENT_LENGTH, DEVICE_REGISTRY, REGISTRY_ACTIONS, changeHash, checkRegistryHead, consentBytes, encodeBody, encodeRegistry, isIdentityEncoding, mlDsaContext,
  parseRegistry, registryRoot, signedBytes, verifyConsent, verifyRegistry, type DeviceRegistryHead, type DeviceRegistryView,
} from '../../ts/devices-format.js';
import { identityRecord } from './identities.js';
import { signWith } from './keys.js';
import { commit, read, withLock } from './db.js';
import { request } from './idb.js';
import { readState, type Store } from './store.js';

/** The `Enc(ID)` of a keystore identity with ML-DSA-65 (`PQ_IDENTITY_REQUIRED` otherwise). */
export async function encodingOf(s: Store, user: string): Promise<{ id: string; identity: Uint8Array }> {
  const r = await identityRecord(s, user);
  const { ed25519, x25519 } = r.publicKeys;
  const mlDsa65 = r.publicKeys['ml-dsa-65'];
  if (!r.mlDsa || mlDsa65 === undefined || ed25519 === undefined || x25519 === undefined) {
    throw new VeilError('PQ_IDENTITY_REQUIRED', `identity ${r.id} has no ML-DSA-65 key: users and devices are identities made with mlDsa: true (both keys sign)`);
  }
  return { id: r.id, identity: encodeVerificationIdentity({ ed25519, x25519, mlDsa65 }) };
}

/** The `meta` record of the head this keystore last signed for a user identity. */
interface SignedHeadRecord {
  key: string;
  count: number;
  hash: string;
  /** The whole registry signed last: the app can get it back (`keystore/registry-last`) if its copy was lost. */
  registry: Uint8Array;
}

const headKey = (userId: string): string => `registry-head/${userId}`;

function checkHead(h: unknown): DeviceRegistryHead | undefined {
  return h === undefined ? undefined : checkRegistryHead(h);
}

/** `keystore/registry-last`: the registry this keystore signed last for the user identity, or null. */
export async function lastSigned(s: Store, user: string): Promise<Uint8Array | null> {
  const u = await encodingOf(s, user);
  const r = (await read(s.db, 'meta', headKey(u.id))) as SignedHeadRecord | undefined;
  return r === undefined ? null : r.registry.slice();
}

/**
 * Appends one signed change to `registry` (verified first; none: a new registry). Under the store's
 * lock, the registry must extend the head this keystore signed last for the user (`STATE_ROLLBACK`
 * for an older one, `REGISTRY_INVALID`/`FORK` for another history; none while one exists:
 * `INVALID_STATE`), and the new head is committed with the signature: the user identity never signs
 * two different changes at the same position, so its registry cannot fork from this keystore.
 */
async function append(
  s: Store, u: { id: string; identity: Uint8Array }, registry: Uint8Array | undefined, pinnedByCaller: DeviceRegistryHead | undefined,
  change: (view: DeviceRegistryView | undefined, prev: Uint8Array, seq: number, time: number) => Uint8Array,
): Promise<Uint8Array> {
  return withLock(s.name, async () => {
    const state = await readState(s);
    const last = (await read(s.db, 'meta', headKey(u.id))) as SignedHeadRecord | undefined;
    if (registry === undefined && last !== undefined) {
      throw new VeilError('INVALID_STATE', `this keystore has signed a registry of ${last.count} changes for the user identity: pass the newest registry`);
    }
    const pinned = last === undefined ? {} : { pinned: { count: last.count, hash: last.hash } };
    if (registry === undefined && pinnedByCaller !== undefined) {
      throw new VeilError('INVALID_STATE', `a head of ${pinnedByCaller.count} changes is pinned: pass the registry it belongs to`);
    }
    const view = registry === undefined ? undefined : verifyRegistry(registry, { user: u.identity, ...pinned });
    // A head the caller knows from another device (after restoring the user identity here, say).
    if (registry !== undefined && pinnedByCaller !== undefined) verifyRegistry(registry, { user: u.identity, pinned: pinnedByCaller });
    const count = view?.head.count ?? 0;
    if (count >= DEVICE_REGISTRY.maxChanges) {
      throw new VeilError('INVALID_STATE', `the device registry is full (${DEVICE_REGISTRY.maxChanges} changes)`, { details: { limit: DEVICE_REGISTRY.maxChanges } });
    }
    const prev = view === undefined ? registryRoot(u.identity) : hexToBytes(view.head.hash);
    // Times never decrease: a clock set back signs the previous change's time.
    const time = Math.max(Date.now(), view?.updatedAt ?? 0);
    const body = change(view, prev, count + 1, time);
    const m = signedBytes(body);
    const mlDsa65 = await signWith(s, u.id, 'ml-dsa-65', m, mlDsaContext());
    const ed25519 = await signWith(s, u.id, 'ed25519', m, undefined);
    const signed = concatBytes([body, ed25519, mlDsa65]);
    const previous = registry === undefined ? [] : parseRegistry(registry).changes.map((c) => c.bytes);
    const next = encodeRegistry(u.identity, [...previous, signed]);
    const head: SignedHeadRecord = { key: headKey(u.id), count: count + 1, hash: bytesToHex(changeHash(signed)), registry: next.slice() };
    await commit(s, state.revision, async (tx) => {
      await request(tx.objectStore('meta').put(head));
      return undefined;
    });
    return next;
  });
}

/** The consent of the keystore identity `d` to being a device of `user`: its Ed25519 and ML-DSA-65 signatures. */
async function signConsent(s: Store, d: { id: string; identity: Uint8Array }, user: Uint8Array): Promise<Uint8Array> {
  const m = consentBytes(user, d.identity);
  const mlDsa65 = await signWith(s, d.id, 'ml-dsa-65', m, mlDsaContext());
  const ed25519 = await signWith(s, d.id, 'ed25519', m, undefined);
  return concatBytes([ed25519, mlDsa65]);
}

/**
 * A device's consent to being a device of user `Enc(U)` `user`: its Ed25519 and ML-DSA-65 signatures
 * over `label ‖ 0x03 ‖ Enc(U) ‖ Enc(D)` (docs/DEVICES.md §2), made with the keystore identity `device`.
 */
export async function deviceConsent(s: Store, device: string, user: Uint8Array): Promise<Uint8Array> {
  if (!(user instanceof Uint8Array) || !isIdentityEncoding(user)) {
    throw new VeilError('INVALID_LENGTH', `user must be an Enc(ID) of ${DEVICE_REGISTRY.identityLength} bytes with flags 0x01`);
  }
  const d = await encodingOf(s, device);
  if (sessionIdentityId(d.identity) === sessionIdentityId(user)) throw new VeilError('INVALID_PARAMETER', 'an identity is not a device of itself');
  return signConsent(s, d, user);
}

/**
 * `keystore/registry-add`: adds a device named `name` (a new registry when `registry` is absent).
 * `device` is a keystore identity id of this store (its consent is made here) or another device's
 * `Enc(ID)` with the consent it made (`INVALID_SIGNATURE` if that is not its consent to this user).
 */
export async function addDevice(
  s: Store, user: string, registry: Uint8Array | undefined, device: Uint8Array | string, consent: Uint8Array | undefined, name: string,
  pinned?: DeviceRegistryHead,
): Promise<Uint8Array> {
  const u = await encodingOf(s, user);
  const local = typeof device === 'string' ? await encodingOf(s, device) : undefined;
  if (local === undefined) {
    if (!(device instanceof Uint8Array) || !isIdentityEncoding(device)) {
      throw new VeilError('INVALID_LENGTH', `device must be an Enc(ID) of ${DEVICE_REGISTRY.identityLength} bytes with flags 0x01 (an identity made with mlDsa: true)`);
    }
    if (!(consent instanceof Uint8Array) || consent.length !== CONSENT_LENGTH) {
      throw new VeilError('INVALID_LENGTH', `consent must be the device's ${CONSENT_LENGTH}-byte consent (deviceConsent)`);
    }
  }
  const encoding = local?.identity ?? (device as Uint8Array);
  const n = utf8('name', name, 0, DEVICE_REGISTRY.maxNameLength);
  const id = sessionIdentityId(encoding);
  if (id === sessionIdentityId(u.identity)) throw new VeilError('INVALID_PARAMETER', 'the user identity is not one of its own devices: add a device identity');
  let agreed: Uint8Array;
  if (local !== undefined) {
    agreed = await signConsent(s, local, u.identity);
  } else {
    agreed = consent as Uint8Array;
    if (!verifyConsent(encoding, u.identity, agreed)) {
      throw new VeilError('INVALID_SIGNATURE', `the consent is not device ${id}'s consent to being a device of this user`);
    }
  }
  return append(s, u, registry, checkHead(pinned), (view, prev, seq, time) => {
    if (view !== undefined && (view.devices.some((d) => d.identityId === id) || view.revoked.some((d) => d.identityId === id))) {
      throw new VeilError('KEY_EXISTS', `device ${id} is already in the registry (a revoked device is never added again)`);
    }
    return encodeBody({ action: REGISTRY_ACTIONS.add, seq, time, prev, device: encoding, consent: agreed, name: n });
  });
}

/** `keystore/registry-revoke`: revokes the active device whose identity id is `device`. */
export async function revokeDevice(s: Store, user: string, registry: Uint8Array, device: string, pinned?: DeviceRegistryHead): Promise<Uint8Array> {
  if (typeof device !== 'string' || !/^[0-9a-f]{64}$/.test(device)) throw new TypeError('device must be a device identity id (64 lowercase hex digits)');
  return append(s, await encodingOf(s, user), registry, checkHead(pinned), (view, prev, seq, time) => {
    if (view === undefined || !view.devices.some((d) => d.identityId === device)) {
      throw new VeilError('KEY_NOT_FOUND', `device ${device} is not an active device of the registry`);
    }
    return encodeBody({ action: REGISTRY_ACTIONS.revoke, seq, time, prev, device });
  });
}
