/**
 * What this device knows of users and their device registries (docs/DEVICES.md), for `useDevices`,
 * `useUserDevices` and `useGroupChat().invite`: kept in the keystore's encrypted history, in the metadata of the
 * conversation `veilkit-devices:<identity id>` (JSON, version 1).
 */
import { runtime } from './runtime.js';
import { VeilError } from '../../protocol/errors.js';
import { base64urlDecode, base64urlEncode } from '../bytes.js';
import type { VeilDelivery } from './groups.js';
import type { Keystore, IdentityHandle } from '../keystore.js';
import type { DeviceRegistryHead, DeviceRegistryView, RegisteredDevice } from '../devices-format.js';

const queues = new Map<string, Promise<unknown>>();

/** Runs `fn` after the previous call with the same key (in this page). */
export function serialize<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const prev = queues.get(key) ?? Promise.resolve();
  const run = prev.then(fn, fn);
  const tail = run.catch(() => {});
  queues.set(key, tail);
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  return run;
}

/** A pinned user: its `Enc(ID)` (base64url) and the head of its newest registry verified here. */
export interface Pin {
  enc: string;
  head: DeviceRegistryHead | undefined;
}

/** What this device keeps (sealed history metadata, JSON). */
export interface DevicesRecord {
  v: 1;
  /** This device's user: its app name and pin, and the user identity's id when this keystore holds it. */
  own?: { user: string; pin: Pin; userIdentity?: string };
  /** Other users' pins, by app name (first registry seen, extended after). */
  peers: Record<string, Pin>;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

function conversation(identity: IdentityHandle): string {
  return `veilkit-devices:${identity.id}`;
}

function isHead(v: unknown): v is DeviceRegistryHead {
  return typeof v === 'object' && v !== null && typeof (v as DeviceRegistryHead).count === 'number' && typeof (v as DeviceRegistryHead).hash === 'string';
}

function isPin(v: unknown): v is Pin {
  return typeof v === 'object' && v !== null && typeof (v as Pin).enc === 'string' && ((v as Pin).head === undefined || isHead((v as Pin).head));
}

export async function readRecord(ks: Keystore, me: IdentityHandle): Promise<DevicesRecord> {
  const meta = await ks.history(conversation(me)).meta();
  const empty: DevicesRecord = { v: 1, peers: Object.create(null) as Record<string, Pin> };
  if (meta === undefined) return empty;
  let v: unknown;
  try {
    v = JSON.parse(dec.decode(meta));
  } catch {
    throw new VeilError('INVALID_STATE', `the devices record of identity ${me.id} is not JSON`);
  }
  const r = v as Partial<DevicesRecord>;
  if (typeof r !== 'object' || r === null || r.v !== 1 || typeof r.peers !== 'object' || r.peers === null) {
    throw new VeilError('INVALID_STATE', `the devices record of identity ${me.id} is not version 1`);
  }
  const peers = Object.create(null) as Record<string, Pin>;
  for (const [k, p] of Object.entries(r.peers)) if (isPin(p)) peers[k] = p;
  const own = r.own !== undefined && typeof r.own.user === 'string' && isPin(r.own.pin)
    ? { user: r.own.user, pin: r.own.pin, ...(typeof r.own.userIdentity === 'string' ? { userIdentity: r.own.userIdentity } : {}) }
    : undefined;
  return { v: 1, peers, ...(own === undefined ? {} : { own }) };
}

/** Reads the record, changes it with `f` and writes it back, one change at a time per keystore and identity. */
export function updateRecord<T>(ks: Keystore, me: IdentityHandle, f: (r: DevicesRecord) => Promise<T>): Promise<T> {
  return serialize(`devices:${ks.name}:${me.id}`, async () => {
    const r = await readRecord(ks, me);
    const out = await f(r);
    await ks.history(conversation(me)).append([], { meta: enc.encode(JSON.stringify(r)) });
    return out;
  });
}

export function needDelivery<K extends keyof VeilDelivery>(d: VeilDelivery | undefined, ...methods: K[]): VeilDelivery & Required<Pick<VeilDelivery, K>> {
  if (d === undefined) throw new VeilError('INVALID_STATE', 'no delivery service: give the provider a delivery (httpDelivery)');
  for (const m of methods) {
    if (typeof d[m] !== 'function') throw new TypeError(`a delivery with ${String(m)} is needed (httpDelivery)`);
  }
  return d as VeilDelivery & Required<Pick<VeilDelivery, K>>;
}

/**
 * Verifies `registry` of `user` against the pin (or pins it on first use) and moves the pin to its head. A
 * registry older than the pin: `STATE_ROLLBACK`; another user identity than the pinned one: `REGISTRY_INVALID`.
 */
export async function verifyPinned(pin: Pin | undefined, registry: Uint8Array): Promise<{ view: DeviceRegistryView; pin: Pin }> {
  const user = pin === undefined ? runtime.devices.registryUser(registry) : base64urlDecode(pin.enc);
  if (user === undefined) throw new VeilError('INVALID_STATE', 'a pinned user identity in the devices record is not base64url');
  const view = await runtime.devices.verifyDeviceRegistry(registry, { user, ...(pin?.head === undefined ? {} : { pinned: pin.head }) });
  return { view, pin: { enc: pin?.enc ?? base64urlEncode(user), head: view.head } };
}

/**
 * The verified registry of the app user `user`, pinned in `record.peers` on first use (trust on first use:
 * compare the user's verification code out of band to be sure) and extended after. `undefined` if the delivery
 * service has no registry for a user never pinned; a pinned user without one: `INVALID_STATE`.
 */
export async function peerView(ks: Keystore, me: IdentityHandle, d: VeilDelivery, user: string): Promise<DeviceRegistryView | undefined> {
  const service = needDelivery(d, 'getRegistry');
  const registry = await service.getRegistry(user);
  return updateRecord(ks, me, async (r) => {
    const pin = r.own?.user === user ? r.own.pin : r.peers[user];
    if (registry === undefined) {
      if (pin === undefined) return undefined;
      throw new VeilError('INVALID_STATE', `the delivery service has no device registry of ${user}, whose registry this device verified before`);
    }
    const v = await verifyPinned(pin, registry);
    if (r.own?.user === user) r.own.pin = v.pin;
    else r.peers[user] = v.pin;
    return v.view;
  });
}

/**
 * One key package of each active device of `user` (from the delivery service's directory), only of the devices
 * its verified registry lists when it has one (`peerView`): a device published under the user's name by anyone
 * else is not added. `only`: just these devices (found by their registry names); `members`: identity ids already
 * in the group, passed over. `NO_MATCHING_KEY_PACKAGE` when none is left.
 */
export async function userKeyPackages(
  ks: Keystore, me: IdentityHandle, d: VeilDelivery, user: string, o: { only?: readonly RegisteredDevice[]; members?: readonly string[] } = {},
): Promise<Uint8Array[]> {
  const service = needDelivery(d, 'takeKeyPackages');
  const view = typeof service.getRegistry === 'function' ? await peerView(ks, me, service, user) : undefined;
  const allowed = o.only ?? view?.devices;
  const taken = await service.takeKeyPackages(user, o.only?.map((x) => x.name));
  const out: Uint8Array[] = [];
  for (const t of taken) {
    if (allowed !== undefined || o.members !== undefined) {
      const info = await runtime.devices.inspect(t.keyPackage).catch(() => undefined);
      const claimed = info?.wireFormat === 'key-package' ? info.identityId : undefined;
      if (allowed !== undefined && (claimed === undefined || !allowed.some((x) => x.identityId === claimed))) continue;
      if (claimed !== undefined && o.members?.includes(claimed) === true) continue;
    }
    out.push(t.keyPackage);
  }
  if (out.length === 0) {
    throw new VeilError('NO_MATCHING_KEY_PACKAGE', `no key package of ${user}'s ${view === undefined ? '' : 'registered '}devices that are not members already`);
  }
  return out;
}
