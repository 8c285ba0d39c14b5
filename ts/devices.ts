/**
 * Users and their devices (docs/DEVICES.md). A *user identity* is a keystore identity (with
 * ML-DSA-65) that stays on the device where it was made (or restored from its phrase); each device
 * has its own identity, the one it joins groups and sessions with. The user's *device registry*
 * lists the device identities, each change signed by the user identity in the keystore worker;
 * whoever talks to the user verifies it against the user identity they pinned.
 *
 * ```ts
 * const user = await ks.createIdentity({ label: 'alice', mlDsa: true });
 * const laptop = await ks.createIdentity({ label: 'alice laptop', mlDsa: true });
 * let registry = await addDevice(ks, user, laptop, { name: 'laptop' });
 * // publish registry; a peer that pinned alice's Enc(ID):
 * const view = await verifyDeviceRegistry(registry, { user: aliceEncId, pinned: lastHead });
 * ```
 */
import { Keystore, keystoreRun } from './keystore.js';
import { init } from './init.js';
import { VeilError } from '../protocol/errors.js';
import { bytes, utf8 } from './validate.js';
import { encodeVerificationIdentity } from './messaging/verification.js';
import { CONSENT_LENGTH, DEVICE_REGISTRY, checkRegistryHead, verifyRegistry, type DeviceRegistryHead, type DeviceRegistryView, type RegisteredDevice } from './devices-format.js';
import { DEVICE_LINK, decodeLinkCode, linkChannel } from './link-format.js';
import type { GroupInfo, GroupMember } from '../protocol/group.protocol.js';
import type { IdentityHandle, LinkAccepted, LinkConfirmed, LinkFinished, LinkStarted } from '../protocol/keystore.protocol.js';

export { DEVICE_LINK };
export type { LinkAccepted, LinkConfirmed, LinkFinished, LinkStarted };

export {
  DEVICE_REGISTRY, type DeviceRegistryFailure, type DeviceRegistryHead, type DeviceRegistryView, type RegisteredDevice,
} from './devices-format.js';

function checkKeystore(ks: Keystore): Keystore {
  if (!(ks instanceof Keystore)) throw new TypeError('ks must be a Keystore');
  return ks;
}

function identityId(identity: IdentityHandle | string, name: string): string {
  if (typeof identity === 'string') return identity;
  if (typeof identity === 'object' && identity !== null && typeof identity.id === 'string') return identity.id;
  throw new TypeError(`${name} must be an IdentityHandle or an identity id`);
}

function identityEncoding(name: string, value: unknown): Uint8Array {
  const b = bytes(name, value);
  if (b.length !== DEVICE_REGISTRY.identityLength || b[0] !== 0x01) {
    throw new VeilError('INVALID_LENGTH', `${name} must be an Enc(ID) of ${DEVICE_REGISTRY.identityLength} bytes with flags 0x01, got ${b.length} bytes`, {
      details: { got: b.length },
    });
  }
  return b;
}


/**
 * The `Enc(ID)` (2,017 bytes) of a keystore identity made with `mlDsa: true`: what a registry lists
 * for a device, and a group member's `identity`. `PQ_IDENTITY_REQUIRED` for an identity without ML-DSA-65.
 */
export async function deviceIdentity(ks: Keystore, identity: IdentityHandle | string): Promise<Uint8Array> {
  const b = await checkKeystore(ks).getPublicBundle(identityId(identity, 'identity'));
  if (b.mlDsa65 === undefined) {
    throw new VeilError('PQ_IDENTITY_REQUIRED', `identity ${b.id} has no ML-DSA-65 key: users and devices are identities made with mlDsa: true`);
  }
  await init();
  return encodeVerificationIdentity({ ed25519: b.ed25519, x25519: b.x25519, mlDsa65: b.mlDsa65 });
}

/** Options of {@link addDevice}. */
export interface AddDeviceOptions {
  /** The current registry (absent: start the user's registry with this device). */
  registry?: Uint8Array;
  /** A name the user recognises (UTF-8, at most 64 bytes; public to whoever stores the registry). */
  name?: string;
  /**
   * A head the caller knows the registry must extend, from another device of the user: needed after
   * restoring the user identity on this keystore, which then has no head of its own (docs/DEVICES.md §5).
   */
  pinned?: DeviceRegistryHead;
}

/** A device of another keystore: its `Enc(ID)` ({@link deviceIdentity}) and its consent to this user ({@link deviceConsent}). */
export interface RemoteDevice {
  readonly identity: Uint8Array;
  readonly consent: Uint8Array;
}

/**
 * On the device that will be added: its consent to being a device of the user whose `Enc(ID)` is
 * `user` (its Ed25519 and ML-DSA-65 signatures, 3,373 bytes, docs/DEVICES.md §2), made by the keystore
 * identity `device`. Linking (§6) makes and carries it by itself.
 */
export async function deviceConsent(ks: Keystore, device: IdentityHandle | string, user: Uint8Array): Promise<Uint8Array> {
  checkKeystore(ks);
  return (await keystoreRun(ks, { type: 'keystore/device-consent', device: identityId(device, 'device'), user: identityEncoding('user', user).slice() })) as Uint8Array;
}

/**
 * Adds a device to the registry of `user`, signed by the user identity in the keystore worker: the
 * new registry. `device` is an identity of this keystore (its consent is made here) or a
 * {@link RemoteDevice} (`INVALID_SIGNATURE` if its consent is not to this user). The worker verifies
 * `registry` against `user` first (`REGISTRY_INVALID`); a device in it already, revoked or not:
 * `KEY_EXISTS`. In an isolated keystore this runs only on a manager connection (`TOP_LEVEL_REQUIRED`).
 */
export async function addDevice(ks: Keystore, user: IdentityHandle | string, device: IdentityHandle | string | RemoteDevice, options: AddDeviceOptions = {}): Promise<Uint8Array> {
  checkKeystore(ks);
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  const name = utf8('name', options.name ?? '', 0, DEVICE_REGISTRY.maxNameLength);
  const registry = options.registry === undefined ? undefined : bytes('registry', options.registry).slice();
  const pinned = options.pinned === undefined ? {} : { pinned: checkRegistryHead(options.pinned) };
  let target: { device: string } | { device: Uint8Array; consent: Uint8Array };
  if (typeof device === 'string' || (typeof device === 'object' && device !== null && 'kind' in device)) {
    target = { device: identityId(device, 'device') };
  } else if (typeof device === 'object' && device !== null && 'identity' in device && 'consent' in device) {
    const consent = bytes('device.consent', device.consent);
    if (consent.length !== CONSENT_LENGTH) {
      throw new VeilError('INVALID_LENGTH', `device.consent must be ${CONSENT_LENGTH} bytes (deviceConsent), got ${consent.length}`, { details: { got: consent.length } });
    }
    target = { device: identityEncoding('device.identity', device.identity).slice(), consent: consent.slice() };
  } else {
    throw new TypeError('device must be an IdentityHandle, an identity id, or { identity, consent }');
  }
  return (await keystoreRun(ks, {
    type: 'keystore/registry-add', user: identityId(user, 'user'), deviceName: name, ...target, ...pinned, ...(registry === undefined ? {} : { registry }),
  })) as Uint8Array;
}

/**
 * Revokes an active device (its identity id, or a device of a verified view): the new registry. A
 * revoked device never comes back; remove it from the user's groups in the next commit (docs/DEVICES.md §4).
 */
export async function revokeDevice(
  ks: Keystore, user: IdentityHandle | string, registry: Uint8Array, device: string | RegisteredDevice, options: { pinned?: DeviceRegistryHead } = {},
): Promise<Uint8Array> {
  checkKeystore(ks);
  const id = typeof device === 'object' && device !== null ? device.identityId : device;
  if (typeof id !== 'string' || !/^[0-9a-f]{64}$/.test(id)) throw new TypeError('device must be a device identity id (64 lowercase hex digits) or a RegisteredDevice');
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  const pinned = options.pinned === undefined ? {} : { pinned: checkRegistryHead(options.pinned) };
  return (await keystoreRun(ks, { type: 'keystore/registry-revoke', user: identityId(user, 'user'), registry: bytes('registry', registry).slice(), device: id, ...pinned })) as Uint8Array;
}

/**
 * The registry this keystore signed last for the user identity (null if none): the keystore signs
 * only on top of it, so an app that lost its copy (a page closed before publishing, a server that
 * dropped it) gets it back here.
 */
export async function lastSignedRegistry(ks: Keystore, user: IdentityHandle | string): Promise<Uint8Array | null> {
  checkKeystore(ks);
  return (await keystoreRun(ks, { type: 'keystore/registry-last', user: identityId(user, 'user') })) as Uint8Array | null;
}

/** Options of {@link verifyDeviceRegistry}. */
export interface VerifyDeviceRegistryOptions {
  /** The user's `Enc(ID)` as the caller already trusts it (verified out of band, or pinned on first use): never the one in the registry. */
  user: Uint8Array;
  /** The head of the last registry of this user the caller verified: a registry that does not extend it is refused. */
  pinned?: DeviceRegistryHead;
}

/**
 * Verifies a registry (from the app's server, say) against the pinned user identity: the devices it
 * lists as active and revoked, and its head (store it and pass it as `pinned` next time). `REGISTRY_INVALID`
 * with `details.reason` (docs/DEVICES.md §3) and `details.index`; `STATE_ROLLBACK` when it is older than `pinned`.
 */
export async function verifyDeviceRegistry(registry: Uint8Array, options: VerifyDeviceRegistryOptions): Promise<DeviceRegistryView> {
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be { user, pinned? }');
  const r = bytes('registry', registry);
  const user = identityEncoding('user', options.user);
  const pinned = options.pinned === undefined ? undefined : checkRegistryHead(options.pinned);
  await init();
  return verifyRegistry(r, { user, ...(pinned === undefined ? {} : { pinned }) });
}

/** The active device of `view` with identity id `identityId` (a group member's), if any. */
export function findDevice(view: DeviceRegistryView, identityId: string): RegisteredDevice | undefined {
  return view.devices.find((d) => d.identityId === identityId);
}

// ---------------------------------------------------------------------------
// Linking a new device (docs/DEVICES.md §6)

/**
 * On the **new** device: starts linking its device identity `device` (made with `mlDsa: true`).
 * Show `code` to the user (typed or as a QR code) on this screen only; send `offer` on the relay
 * channel `channel`; then {@link answerLink} the accept that comes back. The worker keeps the link's
 * keys for ten minutes, in memory.
 */
export async function startLink(ks: Keystore, device: IdentityHandle | string, options: { name?: string } = {}): Promise<LinkStarted> {
  checkKeystore(ks);
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  const name = utf8('name', options.name ?? '', 0, DEVICE_REGISTRY.maxNameLength);
  return (await keystoreRun(ks, { type: 'keystore/link-start', device: identityId(device, 'device'), deviceName: name })) as LinkStarted;
}

/**
 * On the device holding the **user identity**: the user typed or scanned the new device's `code`;
 * `offer` is what arrived on `linkChannel(code)`. Send `accept` on that channel; then
 * {@link confirmLink} the hello that comes back.
 */
export async function acceptLink(ks: Keystore, user: IdentityHandle | string, code: string, offer: Uint8Array): Promise<LinkAccepted> {
  checkKeystore(ks);
  decodeLinkCode(code);
  return (await keystoreRun(ks, { type: 'keystore/link-accept', user: identityId(user, 'user'), code, offer: bytes('offer', offer).slice() })) as LinkAccepted;
}

/** On the new device: the hello to send back for the accept (it carries the device's `Enc(ID)`, sealed). */
export async function answerLink(ks: Keystore, link: LinkStarted | string, accept: Uint8Array): Promise<Uint8Array> {
  checkKeystore(ks);
  return (await keystoreRun(ks, { type: 'keystore/link-answer', link: linkId(link), accept: bytes('accept', accept).slice() })) as Uint8Array;
}

/**
 * On the device holding the user identity: opens the hello, adds the new device to the user's
 * registry (`registry`: the current one, verified first) and returns the new registry (publish it),
 * the device added (show its name), and the welcome (send it on the channel). A hello not made by the
 * holder of the code: `AUTHENTICATION_FAILED`, and nothing is signed. One try per link.
 */
export async function confirmLink(ks: Keystore, link: LinkAccepted | string, hello: Uint8Array, options: { registry?: Uint8Array } = {}): Promise<LinkConfirmed> {
  checkKeystore(ks);
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  const registry = options.registry === undefined ? undefined : bytes('registry', options.registry).slice();
  return (await keystoreRun(ks, {
    type: 'keystore/link-confirm', link: linkId(link), hello: bytes('hello', hello).slice(), ...(registry === undefined ? {} : { registry }),
  })) as LinkConfirmed;
}

/**
 * On the new device: opens the welcome and verifies its registry (this device active in it). Returns
 * the user's `Enc(ID)` (pin it: it is authenticated by the code) and the verified registry view.
 */
export async function finishLink(ks: Keystore, link: LinkStarted | string, welcome: Uint8Array): Promise<LinkFinished & { view: DeviceRegistryView }> {
  checkKeystore(ks);
  const r = (await keystoreRun(ks, { type: 'keystore/link-finish', link: linkId(link), welcome: bytes('welcome', welcome).slice() })) as LinkFinished;
  return { ...r, view: await verifyDeviceRegistry(r.registry, { user: r.user }) };
}

/** Where the four messages of a link travel (the delivery service's link channels: `httpDelivery`). */
export interface LinkRelay {
  linkPost(channel: string, message: Uint8Array): Promise<number>;
  linkRead(channel: string, after: number): Promise<{ seq: number; message: Uint8Array }[]>;
}

/** Options of {@link linkNewDevice} and {@link linkExistingDevice}. */
export interface LinkOverRelayOptions {
  /** Stops waiting (the link's keys expire in the worker by themselves). */
  signal?: AbortSignal;
  /** How often the channel is read (default 500 ms). */
  pollMs?: number;
}

/** Message number `n` (1 offer, 2 accept, 3 hello, 4 welcome) of the channel, once it is there. */
async function relayed(relay: LinkRelay, channel: string, n: number, o: LinkOverRelayOptions): Promise<Uint8Array> {
  const until = Date.now() + DEVICE_LINK.lifetimeMs;
  for (;;) {
    if (o.signal?.aborted) throw new VeilError('ABORTED', 'the link was cancelled');
    const got = (await relay.linkRead(channel, n - 1)).find((e) => e.seq === n);
    if (got !== undefined) return got.message;
    if (Date.now() > until) throw new VeilError('INVALID_STATE', 'the link expired before the other device answered');
    await new Promise((r) => setTimeout(r, o.pollMs ?? 500));
  }
}

/**
 * The new device's side of a link over a relay: starts the link for `device` (its own identity, `mlDsa: true`),
 * posts the offer, calls `onCode(code)` (show it), answers the accept, and finishes with the welcome. Resolves with
 * the user's `Enc(ID)` (pin it) and the verified registry listing this device.
 */
export async function linkNewDevice(
  ks: Keystore, device: IdentityHandle | string, relay: LinkRelay, options: LinkOverRelayOptions & { name?: string; onCode: (code: string) => void },
): Promise<LinkFinished & { view: DeviceRegistryView }> {
  const link = await startLink(ks, device, options.name === undefined ? {} : { name: options.name });
  await relay.linkPost(link.channel, link.offer);
  options.onCode(link.code);
  const hello = await answerLink(ks, link, await relayed(relay, link.channel, 2, options));
  await relay.linkPost(link.channel, hello);
  return finishLink(ks, link, await relayed(relay, link.channel, 4, options));
}

/**
 * The side of the device holding the user identity: `code` is what the user typed; reads the offer, accepts,
 * confirms the hello (adding the device to `options.registry`, the user's current registry) and posts the welcome.
 * Resolves with the new registry (publish it) and the device added.
 */
export async function linkExistingDevice(
  ks: Keystore, user: IdentityHandle | string, code: string, relay: LinkRelay, options: LinkOverRelayOptions & { registry?: Uint8Array } = {},
): Promise<LinkConfirmed> {
  const channel = await linkChannelOf(code);
  const accepted = await acceptLink(ks, user, code, await relayed(relay, channel, 1, options));
  await relay.linkPost(channel, accepted.accept);
  const hello = await relayed(relay, channel, 3, options);
  const confirmed = await confirmLink(ks, accepted, hello, options.registry === undefined ? {} : { registry: options.registry });
  await relay.linkPost(channel, confirmed.welcome);
  return confirmed;
}

/** The relay channel of a code (what {@link acceptLink}'s device listens on to find the offer). */
export async function linkChannelOf(code: string): Promise<string> {
  const s = decodeLinkCode(code);
  await init();
  return linkChannel(s);
}

function linkId(link: unknown): string {
  const id = typeof link === 'object' && link !== null ? (link as { id?: unknown }).id : link;
  if (typeof id !== 'string' || !/^[0-9a-f]{32}$/.test(id)) throw new TypeError('link must be a link (startLink / acceptLink) or its id');
  return id;
}

// ---------------------------------------------------------------------------
// Users in groups (docs/DEVICES.md §7): every device of a user is a member of the user's groups

/** One user of a group: the members that are its active devices, and its active devices that are not members. */
export interface GroupUser {
  readonly user: DeviceRegistryView['user'];
  readonly members: readonly GroupMember[];
  /** Active devices of the user not in the group: a device of this user adds them (their key packages). */
  readonly missing: readonly RegisteredDevice[];
}

/** A group's members sorted by user. */
export interface GroupRoster {
  /** In the order of `registries`. */
  readonly users: readonly GroupUser[];
  /** Members no given registry lists as an active device: revoked devices and strangers. Show them apart, or remove them. */
  readonly unknown: readonly GroupMember[];
}

function checkViews(registries: unknown): readonly DeviceRegistryView[] {
  if (!Array.isArray(registries)) throw new TypeError('registries must be an array of verified registry views (verifyDeviceRegistry)');
  for (const v of registries as unknown[]) {
    const view = v as Partial<DeviceRegistryView> | null;
    if (typeof view !== 'object' || view === null || !Array.isArray(view.devices) || !Array.isArray(view.revoked) || typeof view.user !== 'object') {
      throw new TypeError('registries must be an array of verified registry views (verifyDeviceRegistry)');
    }
  }
  return registries as readonly DeviceRegistryView[];
}

function checkMembers(members: unknown): readonly GroupMember[] {
  if (!Array.isArray(members) || !(members as unknown[]).every((m) => typeof m === 'object' && m !== null && typeof (m as GroupMember).identityId === 'string')) {
    throw new TypeError('members must be the members of a GroupInfo');
  }
  return members as readonly GroupMember[];
}

/**
 * Sorts a group's members by user, from the users' verified registries: whose device each member is,
 * which of each user's devices are missing, and which members belong to no user given (`unknown`).
 * A device that consented to two users' registries is listed under both.
 */
export function groupRoster(members: readonly GroupMember[], registries: readonly DeviceRegistryView[]): GroupRoster {
  const ms = checkMembers(members);
  const views = checkViews(registries);
  const claimed = new Set<string>();
  const users = views.map((v) => {
    const active = new Set(v.devices.map((d) => d.identityId));
    const mine = ms.filter((m) => active.has(m.identityId));
    for (const m of mine) claimed.add(m.identityId);
    const present = new Set(mine.map((m) => m.identityId));
    return { user: v.user, members: mine, missing: v.devices.filter((d) => !present.has(d.identityId)) };
  });
  return { users, unknown: ms.filter((m) => !claimed.has(m.identityId)) };
}

/**
 * What a device of the user whose verified registry is `view` commits to bring group `info` in line
 * with it: `add` its active devices that are not members (with a key package of each, `Group.add`),
 * `remove` the members that are its revoked devices (`Group.remove`). Run it after linking or revoking.
 */
export function deviceChanges(info: Pick<GroupInfo, 'members'>, view: DeviceRegistryView): { add: RegisteredDevice[]; remove: GroupMember[] } {
  if (typeof info !== 'object' || info === null) throw new TypeError('info must be a GroupInfo');
  const ms = checkMembers(info.members);
  const [v] = checkViews([view]);
  if (v === undefined) throw new TypeError('view must be a verified registry view');
  const present = new Set(ms.map((m) => m.identityId));
  const revoked = new Set(v.revoked.map((d) => d.identityId));
  return { add: v.devices.filter((d) => !present.has(d.identityId)), remove: ms.filter((m) => revoked.has(m.identityId)) };
}
