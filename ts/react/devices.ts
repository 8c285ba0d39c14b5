/**
 * `useDevices()` and `useUserDevices(users)`: the provider's identity as one device of a user (docs/DEVICES.md,
 * docs/REACT.md#devices). A user's devices are listed in a registry signed by the user identity, which stays in
 * the keystore of the device that set the user up (the *primary* device: it links and revokes); a linked device
 * holds only its own identity and the user's pinned `Enc(ID)`. Registries travel through the provider's delivery
 * service (`putRegistry` / `getRegistry`), links through its link channels; after a link or a revoke the
 * primary device brings each of its groups in line with the registry (`deviceChanges`: adds the new device
 * with one of its key packages, removes the revoked one in the next commit).
 *
 * Conventions: a device's registry name is its delivery-service device name (its mailbox and key package
 * directory entry), so `takeKeyPackages(user, [name])` finds its key packages. What this device knows of users
 * (its own user, the pins of other users' registries) is kept in the keystore's encrypted history, in the
 * metadata of the conversation `veilkit-devices:<identity id>`.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import { createVeilStore, type VeilStatus } from './store.js';
import { hookError } from './errors.js';
import { runtime } from './runtime.js';
import { VeilError } from '../../protocol/errors.js';
import { base64urlEncode } from '../bytes.js';
import { useClient } from './hooks.js';
import { chatFor, deliveryOf, need, useIdentityOnce, useStore, type VeilDelivery } from './groups.js';
import { needDelivery, peerView, readRecord, serialize, updateRecord, userKeyPackages, verifyPinned, type DevicesRecord } from './registries.js';
import type { Keystore, IdentityHandle } from '../keystore.js';
import type { DeviceRegistryView, RegisteredDevice } from '../devices-format.js';
import type { GroupChat } from '../group/chat.js';

// ---------------------------------------------------------------------------
// useDevices

/** `useDevices`'s state. */
export interface DevicesState {
  readonly status: VeilStatus;
  readonly error: VeilError | undefined;
  /**
   * `'primary'`: this keystore holds the user identity (it links and revokes devices); `'linked'`: a device
   * linked from the primary one; `'none'`: not set up (`setUp()` or `startLink()`).
   */
  readonly role: 'none' | 'primary' | 'linked';
  /** The app name of this device's user. */
  readonly user: string | undefined;
  /** The user's active devices (verified registry), in the order they were added. */
  readonly devices: readonly RegisteredDevice[];
  /** The user's revoked devices. */
  readonly revoked: readonly RegisteredDevice[];
  /** This device's identity id as registries and groups show it (a group member's `identityId`, of its `Enc(ID)`). */
  readonly thisDevice: string | undefined;
  /** True once the user's registry lists this device as revoked: it reads nothing sent after its removal. */
  readonly revokedHere: boolean;
  /** The code to show while this device waits to be linked (`startLink`). */
  readonly linkCode: string | undefined;
}

/** What `useDevices` returns. */
export interface UseDevicesResult extends DevicesState {
  /** On the user's first device: makes the user identity (kept in this keystore) and the registry listing this device, and publishes it. */
  setUp(): Promise<void>;
  /**
   * On a new device: starts linking it to the user (`options.user`); `linkCode` shows the code to type on the
   * primary device. Resolves once linked.
   */
  startLink(options?: { signal?: AbortSignal }): Promise<void>;
  /** On the primary device: links the device showing `code`, publishes the new registry and adds the device to the user's groups. */
  link(code: string): Promise<RegisteredDevice>;
  /** On the primary device: revokes a device (for good), publishes the registry and removes it from the user's groups in their next commit. */
  revoke(device: string | RegisteredDevice): Promise<void>;
  /** Brings each group of this device in line with the user's registry (adds missing devices, removes revoked ones): run by link and revoke. */
  syncGroups(): Promise<void>;
  /** Reads the registry again. */
  refresh(): Promise<void>;
}

/** Options of {@link useDevices}. */
export interface UseDevicesOptions {
  delivery?: VeilDelivery;
  /** The app's name of this user (where its registry and key packages are filed). */
  user?: string;
  /** The app's name of this device (its registry name, mailbox and key package entry). */
  device?: string;
}

const DEVICES_IDLE: DevicesState = {
  status: 'idle', error: undefined, role: 'none', user: undefined, devices: [], revoked: [], thisDevice: undefined, revokedHere: false, linkCode: undefined,
};

/** How often each side reads the link channel while a link runs (ten minutes at most): the link's four messages arrive within a few reads. */
const LINK_POLL_MS = 150;

const deviceIds = new WeakMap<Keystore, Map<string, Promise<string>>>();

/** The identity id a registry and a group show for the keystore identity `me` (of its `Enc(ID)`; not the handle's id). */
function deviceId(ks: Keystore, me: IdentityHandle): Promise<string> {
  let m = deviceIds.get(ks);
  if (m === undefined) deviceIds.set(ks, (m = new Map<string, Promise<string>>()));
  let p = m.get(me.id);
  if (p === undefined) {
    p = runtime.devices.deviceIdentity(ks, me).then((e) => runtime.sessionIdentityId(e));
    const map = m;
    p.catch(() => map.delete(me.id));
    m.set(me.id, p);
  }
  return p;
}

/**
 * This device's user and the user's devices: set up, link, revoke (docs/REACT.md#devices). The registry is
 * read from the delivery service (verified against the pinned user; the primary device also keeps the last one
 * it signed) on mount, on the delivery service's open and mailbox events, and after each action.
 */
export function useDevices(options: UseDevicesOptions = {}): UseDevicesResult {
  const client = useClient('useDevices');
  const delivery = deliveryOf(client, options.delivery, 'useDevices');
  const { keystore } = useStore(client.veil);
  const identity = useIdentityOnce(client);
  const { user, device } = options;
  const [store] = useState(() => createVeilStore<DevicesState>(DEVICES_IDLE));

  const show = useCallback((view: DeviceRegistryView | undefined, record: DevicesRecord, self: string): void => {
    const own = record.own;
    // No registry verified this time (the service unreachable, or serving an older or forged one): what was shown stays.
    const shown = store.getSnapshot();
    const keep = view === undefined && own !== undefined && shown.user === own.user;
    store.set({
      status: 'success', error: undefined,
      role: own === undefined ? 'none' : own.userIdentity !== undefined ? 'primary' : 'linked',
      user: own?.user, thisDevice: self,
      ...(keep ? {} : {
        devices: Object.freeze([...(view?.devices ?? [])]), revoked: Object.freeze([...(view?.revoked ?? [])]),
        revokedHere: view?.revoked.some((d) => d.identityId === self) ?? false,
      }),
    });
  }, [store]);

  /** The user's newest registry: the delivery service's if it verifies and is not older, else (primary) the last one signed here. */
  const ownView = useCallback(async (ks: Keystore, me: IdentityHandle): Promise<{ view: DeviceRegistryView | undefined; registry: Uint8Array | undefined; record: DevicesRecord }> => {
    return updateRecord(ks, me, async (r) => {
      const own = r.own;
      if (own === undefined) return { view: undefined, registry: undefined, record: r };
      const signed = own.userIdentity === undefined ? null : await runtime.devices.lastSignedRegistry(ks, own.userIdentity);
      let best: { view: DeviceRegistryView; registry: Uint8Array } | undefined;
      if (signed !== null) best = { view: (await verifyPinned(own.pin, signed)).view, registry: signed };
      const published = typeof delivery?.getRegistry === 'function' ? await delivery.getRegistry(own.user).catch(() => undefined) : undefined;
      let current = false;
      if (published !== undefined) {
        try {
          const v = await verifyPinned(best === undefined ? own.pin : { enc: own.pin.enc, head: best.view.head }, published);
          best = { view: v.view, registry: published };
          current = true;
        } catch (e) {
          // An older or forged registry from the service is not shown; the one verified before stays.
          const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
          if (code !== 'STATE_ROLLBACK' && code !== 'REGISTRY_INVALID') throw e;
        }
      }
      if (best !== undefined) own.pin = { enc: own.pin.enc, head: best.view.head };
      // The first device signed a registry the service does not have (a publish that failed, a service that lost
      // it): published again, or peers would not see the newest devices and revocations.
      if (signed !== null && !current && typeof delivery?.putRegistry === 'function') {
        await delivery.putRegistry(own.user, signed).catch(() => {});
      }
      return { view: best?.view, registry: best?.registry, record: r };
    });
  }, [delivery]);

  const refresh = useCallback(async (): Promise<void> => {
    if (keystore === undefined || identity === undefined) return;
    try {
      const { view, record } = await ownView(keystore, identity);
      show(view, record, await deviceId(keystore, identity));
    } catch (e) {
      store.set({ status: 'error', error: hookError(e) });
    }
  }, [keystore, identity, ownView, show, store]);

  useEffect(() => {
    store.reset();
    if (keystore === undefined || identity === undefined) return;
    store.set({ status: 'pending' });
    void refresh();
    if (delivery === undefined || typeof delivery.events !== 'function') return;
    return delivery.events([], device, (e) => {
      if (e.kind === 'open' || e.kind === 'mailbox') void refresh();
    });
  }, [keystore, identity, delivery, device, store, refresh]);

  const act = useCallback(async <T>(f: (ks: Keystore, me: IdentityHandle) => Promise<T>): Promise<T> => {
    try {
      const r = await f(need(keystore, 'the keystore'), need(identity, 'the identity'));
      await refresh();
      return r;
    } catch (e) {
      store.set({ error: hookError(e) });
      throw e;
    }
  }, [keystore, identity, refresh, store]);

  const names = useCallback((): { user: string; device: string } => {
    if (user === undefined || device === undefined) throw new TypeError('useDevices({ user, device }) names this user and device');
    return { user, device };
  }, [user, device]);

  // One at a time per keystore and identity in this page: two syncs deciding on the same members would add a device twice.
  const syncWith = useCallback((ks: Keystore, me: IdentityHandle, user: string, view: DeviceRegistryView): Promise<void> => serialize(`devices-sync:${ks.name}:${me.id}`, async () => {
    const d = needDelivery(delivery, 'takeKeyPackages');
    const self = await deviceId(ks, me);
    // A revoked device changes no group: the user's other devices remove it.
    if (view.revoked.some((x) => x.identityId === self)) return;
    const groups = await runtime.listGroups(ks, me);
    const failures: unknown[] = [];
    for (const g of groups) {
      try {
        const chat: GroupChat = await chatFor(ks, g.id, d);
        await chat.sync();
        if (!chat.state.active) continue;
        const { add, remove } = runtime.devices.deviceChanges({ members: chat.state.members }, view);
        const others = remove.filter((m) => m.index !== chat.state.ownIndex);
        if (others.length > 0) await chat.remove(...others);
        if (add.length > 0) {
          const kps = await userKeyPackages(ks, me, d, user, { only: add }).catch((e: unknown) => {
            if (e instanceof VeilError && e.code === 'NO_MATCHING_KEY_PACKAGE') return [];
            throw e;
          });
          if (kps.length > 0) await chat.add(kps);
        }
      } catch (e) {
        failures.push(e);
      }
    }
    if (failures.length > 0) throw failures[0];
  }), [delivery]);

  const syncGroups = useCallback((): Promise<void> => act(async (ks, me) => {
    const { view, record } = await ownView(ks, me);
    if (view !== undefined && record.own !== undefined) await syncWith(ks, me, record.own.user, view);
  }), [act, ownView, syncWith]);

  const setUp = useCallback((): Promise<void> => act(async (ks, me) => {
    const { user: name, device: deviceName } = names();
    const d = needDelivery(delivery, 'putRegistry', 'getRegistry');
    const registry = await updateRecord(ks, me, async (r) => {
      if (r.own !== undefined) throw new VeilError('INVALID_STATE', `this device is a device of ${r.own.user} already`);
      // A name with a registry is someone's already (or this user's, from another browser: link this one instead).
      if (await d.getRegistry(name) !== undefined) {
        throw new VeilError('KEY_EXISTS', `the delivery service has a device registry for ${name} already: link this device to that user, or choose another name`);
      }
      const u = await ks.createIdentity({ label: `user:${name}`, mlDsa: true });
      const signed = await runtime.devices.addDevice(ks, u, me, { name: deviceName });
      const userEnc = await runtime.devices.deviceIdentity(ks, u);
      const view = await runtime.devices.verifyDeviceRegistry(signed, { user: userEnc });
      // Kept before it is published: a publish that fails is made again by the next refresh.
      r.own = { user: name, pin: { enc: base64urlEncode(userEnc), head: view.head }, userIdentity: u.id };
      return signed;
    });
    const put = await d.putRegistry(name, registry);
    if (!put.stored) throw new VeilError('KEY_EXISTS', `the delivery service kept another registry for ${name}: someone set that name up at the same time`);
  }), [act, names, delivery]);

  const startLink = useCallback((o: { signal?: AbortSignal } = {}): Promise<void> => act(async (ks, me) => {
    const { user: name, device: deviceName } = names();
    const d = needDelivery(delivery, 'linkPost', 'linkRead');
    const existing = await readRecord(ks, me);
    if (existing.own !== undefined) throw new VeilError('INVALID_STATE', `this device is a device of ${existing.own.user} already`);
    try {
      const done = await runtime.devices.linkNewDevice(ks, me, d, {
        name: deviceName, onCode: (code: string) => store.set({ linkCode: code }), pollMs: LINK_POLL_MS, ...(o.signal === undefined ? {} : { signal: o.signal }),
      });
      // The code proves who linked this device, not that it was the user named `name`: whoever typed the code first
      // did. The service's registry for `name` must be of the same user identity.
      const published = typeof d.getRegistry === 'function' ? await d.getRegistry(name) : undefined;
      if (published === undefined) throw new VeilError('REGISTRY_INVALID', `no device registry of ${name} on the delivery service to check the link against`, { details: { reason: 'USER_MISMATCH', index: 0 } });
      await runtime.devices.verifyDeviceRegistry(published, { user: done.user }).catch((e: unknown) => {
        throw new VeilError('REGISTRY_INVALID', `this device was linked by a user identity that is not ${name}'s: ${e instanceof Error ? e.message : String(e)}`, { details: { reason: 'USER_MISMATCH', index: 0 } });
      });
      await updateRecord(ks, me, async (r) => {
        r.own = { user: name, pin: { enc: base64urlEncode(done.user), head: done.view.head } };
      });
    } finally {
      store.set({ linkCode: undefined });
    }
  }), [act, names, delivery, store]);

  const primary = useCallback(async (ks: Keystore, me: IdentityHandle): Promise<{ userIdentity: string; user: string; registry: Uint8Array }> => {
    const { registry, record } = await ownView(ks, me);
    const id = record.own?.userIdentity;
    if (record.own === undefined || id === undefined || registry === undefined) {
      throw new VeilError('INVALID_STATE', 'only the device holding the user identity (the one that set the user up) links and revokes devices');
    }
    return { userIdentity: id, user: record.own.user, registry };
  }, [ownView]);

  const link = useCallback((code: string): Promise<RegisteredDevice> => act(async (ks, me) => {
    if (typeof code !== 'string') throw new TypeError('code must be the code the new device shows');
    const d = needDelivery(delivery, 'linkPost', 'linkRead', 'putRegistry');
    const p = await primary(ks, me);
    const confirmed = await runtime.devices.linkExistingDevice(ks, p.userIdentity, code.trim(), d, { registry: p.registry, pollMs: LINK_POLL_MS });
    // A publish that fails is made again by ownView (this keystore signed it): the device joins the groups anyway.
    await d.putRegistry(p.user, confirmed.registry).catch(() => {});
    const { view } = await ownView(ks, me);
    const added = view?.devices.find((x) => x.identityId === confirmed.device.identityId);
    if (view === undefined || added === undefined) throw new VeilError('INVALID_STATE', 'the linked device is not in the registry');
    await syncWith(ks, me, p.user, view);
    return added;
  }), [act, delivery, primary, ownView, syncWith]);

  const revoke = useCallback((target: string | RegisteredDevice): Promise<void> => act(async (ks, me) => {
    const d = needDelivery(delivery, 'putRegistry');
    const p = await primary(ks, me);
    const id = typeof target === 'object' && target !== null ? target.identityId : target;
    if (id === await deviceId(ks, me)) throw new VeilError('INVALID_STATE', 'the device holding the user identity does not revoke itself');
    const registry = await runtime.devices.revokeDevice(ks, p.userIdentity, p.registry, id);
    await d.putRegistry(p.user, registry).catch(() => {});
    const { view } = await ownView(ks, me);
    if (view !== undefined) await syncWith(ks, me, p.user, view);
  }), [act, delivery, primary, ownView, syncWith]);

  const state = useStore(store);
  return useMemo(() => ({ ...state, setUp, startLink, link, revoke, syncGroups, refresh }), [state, setUp, startLink, link, revoke, syncGroups, refresh]);
}

// ---------------------------------------------------------------------------
// useUserDevices

/** What `useUserDevices` returns: each named user's verified registry (absent: none, or not verified). */
export interface UseUserDevicesResult {
  readonly views: ReadonlyMap<string, DeviceRegistryView>;
  /** The user whose verified registry lists `identityId` (a group member's) as an active device, if any of the users given. */
  userOf(identityId: string): string | undefined;
  /** That active device (its registry name). */
  deviceOf(identityId: string): RegisteredDevice | undefined;
}

/**
 * The verified device registries of the app users `users` (pinned on first use, like `invite`): to show a group
 * member as its user only when that user's registry lists it. Read on mount and whenever `users` or
 * `options.revision` (say, the group's epoch: a device was added or removed) changes.
 */
export function useUserDevices(users: readonly string[], options: { delivery?: VeilDelivery; revision?: string | number } = {}): UseUserDevicesResult {
  const client = useClient('useUserDevices');
  const delivery = deliveryOf(client, options.delivery, 'useUserDevices');
  const { keystore } = useStore(client.veil);
  const identity = useIdentityOnce(client);
  const key = [...new Set(users)].sort().join('\n');
  const [views, setViews] = useState<ReadonlyMap<string, DeviceRegistryView>>(() => new Map());
  useEffect(() => {
    if (keystore === undefined || identity === undefined || delivery === undefined || typeof delivery.getRegistry !== 'function' || key === '') return;
    let live = true;
    void (async () => {
      const m = new Map<string, DeviceRegistryView>();
      for (const u of key.split('\n')) {
        const v = await peerView(keystore, identity, delivery, u).catch(() => undefined);
        if (v !== undefined) m.set(u, v);
      }
      if (live) setViews(m);
    })();
    return () => {
      live = false;
    };
  }, [keystore, identity, delivery, key, options.revision]);
  return useMemo(() => ({
    views,
    userOf: (identityId: string) => {
      for (const [u, v] of views) if (v.devices.some((d) => d.identityId === identityId)) return u;
      return undefined;
    },
    deviceOf: (identityId: string) => {
      for (const v of views.values()) {
        const d = v.devices.find((x) => x.identityId === identityId);
        if (d !== undefined) return d;
      }
      return undefined;
    },
  }), [views]);
}
