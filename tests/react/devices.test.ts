// useDevices and the registry-bound invite (ts/react/devices.ts, ts/react/registries.ts) over the fake runtime:
// the first device sets the user up (a user identity besides the device identity, which stays current; the
// registry published); linking publishes the longer registry and adds the new device, found by its registry
// name, to each of the user's groups with a key package that claims it (a stranger's package under that name
// is passed over); revoking publishes the registry and removes the device from each group. Inviting a user
// adds only devices its registry lists, pinned on first use: a registry of another user identity, or older than
// the pin, is refused and nothing is added.
import { describe, expect, test, vi } from 'vitest';
import { createElement, type ReactNode } from 'react';
import { act, renderHook, waitFor } from '@testing-library/react';
import { fakeRegistry, installFakeRuntime, sessionIdentityId, type FakeRegistry, type FakeRuntime } from './fakes.js';
import { VeilProvider, useDevices, useGroupChat, useGroups, useIdentity, type VeilDelivery } from '../../ts/react/index.js';

vi.mock('../../ts/react/runtime.js', async () => (await import('./fakes.js')).fakeRuntimeModule);

let f: FakeRuntime;
installFakeRuntime((r) => {
  f = r;
});

const enc = new TextEncoder();

/** A delivery service holding registries (the longer one wins, like veilkit/server) and key packages by user and device. */
function fakeDelivery() {
  const registries = new Map<string, Uint8Array>();
  const directory = new Map<string, Map<string, Uint8Array[]>>();
  const d = {
    post: vi.fn(async () => ({ accepted: true as const, seq: 1, epoch: 0, duplicate: false })),
    read: vi.fn(async () => []),
    putRegistry: vi.fn(async (user: string, record: Uint8Array) => {
      const count = (b: Uint8Array | undefined) => (b === undefined ? 0 : (JSON.parse(new TextDecoder().decode(b)) as FakeRegistry).count);
      const stored = count(record) > count(registries.get(user));
      if (stored) registries.set(user, record);
      return { stored, count: count(registries.get(user)) };
    }),
    getRegistry: vi.fn(async (user: string) => registries.get(user)),
    takeKeyPackages: vi.fn(async (user: string, devices?: readonly string[]) => {
      const out: { device: string; keyPackage: Uint8Array }[] = [];
      for (const [device, list] of directory.get(user) ?? []) {
        if (devices !== undefined && !devices.includes(device)) continue;
        const kp = list.shift();
        if (kp !== undefined) out.push({ device, keyPackage: kp });
      }
      return out;
    }),
    linkPost: vi.fn(async () => 1),
    linkRead: vi.fn(async () => []),
  };
  return {
    d, registries,
    publish(user: string, device: string, ...identityIds: string[]) {
      const u = directory.get(user) ?? new Map<string, Uint8Array[]>();
      directory.set(user, u);
      u.set(device, [...(u.get(device) ?? []), ...identityIds.map((id) => enc.encode(`kp-${id}`))]);
    },
  };
}

function render(keystore: string, delivery: VeilDelivery) {
  const wrapper = ({ children }: { children: ReactNode }) => createElement(VeilProvider, { keystore, delivery }, children);
  return renderHook(({ gid }: { gid: string | undefined }) => ({
    id: useIdentity(), devices: useDevices({ user: 'alice', device: 'alice-laptop' }), groups: useGroups(), chat: useGroupChat(gid),
  }), { wrapper, initialProps: { gid: undefined as string | undefined } });
}

/** A new group of the hook's identity, shown by its useGroupChat: its fake GroupChat. */
async function openRoom(h: ReturnType<typeof render>) {
  let gid = '';
  await act(async () => {
    gid = (await h.result.current.groups.create()).id;
  });
  h.rerender({ gid });
  await waitFor(() => expect(h.result.current.chat.status).toBe('success'));
  const chat = f.groupChats.find((c) => c.id === gid);
  if (chat === undefined) throw new Error('no chat opened');
  return chat;
}

describe('useDevices', () => {
  test('set up, link a device into the groups, revoke it out of them', async () => {
    const ds = fakeDelivery();
    const h = render('alice-d', ds.d);
    await waitFor(() => expect(h.result.current.id.status).toBe('success'));
    await act(async () => {
      await h.result.current.id.create({ label: 'alice' });
    });
    await waitFor(() => expect(h.result.current.devices.status).toBe('success'));
    const handle = h.result.current.id.identity!.id;
    // Registries and groups show a device by the id of its Enc(ID), not by its keystore handle's id.
    const laptop = sessionIdentityId(enc.encode(`enc:${handle}`));
    expect(h.result.current.devices.role).toBe('none');
    await expect(h.result.current.devices.link('CODE')).rejects.toMatchObject({ code: 'INVALID_STATE' });

    await act(async () => {
      await h.result.current.devices.setUp();
    });
    // The user identity is a second keystore identity; the device identity stays the current one.
    const ks = f.keystores[0]!;
    expect(ks.identities.map((i) => i.label)).toEqual(['alice', 'user:alice']);
    const user = ks.identities[1]!.id;
    await waitFor(() => expect(h.result.current.id.identity?.id).toBe(handle));
    expect(h.result.current.devices.thisDevice).toBe(laptop);
    expect(h.result.current.devices.role).toBe('primary');
    expect(h.result.current.devices.user).toBe('alice');
    expect(h.result.current.devices.devices.map((d) => [d.identityId, d.name])).toEqual([[laptop, 'alice-laptop']]);
    expect(ds.d.putRegistry).toHaveBeenCalledTimes(1);
    expect(ds.d.putRegistry.mock.calls[0]?.[0]).toBe('alice');
    await expect(h.result.current.devices.setUp()).rejects.toMatchObject({ code: 'INVALID_STATE' });

    // A room of this device.
    const chat = await openRoom(h);
    chat.set({ members: [{ index: 0, identityId: laptop }] });

    // The phone published under its registry name, and so did a stranger under the same name.
    ds.publish('alice', 'alice-phone', 'mallory-id', 'phone-id');
    let linked: { name: string } | undefined;
    await act(async () => {
      linked = await h.result.current.devices.link(' CODE ');
    });
    expect(linked?.name).toBe('alice-phone');
    const linkCall = f.runtime.devices.linkExistingDevice.mock.calls[0];
    expect(linkCall?.slice(0, 4)).toEqual([ks, user, 'CODE', ds.d]);
    expect(linkCall?.[4].registry).toBeInstanceOf(Uint8Array);
    expect(linkCall?.[4].pollMs).toBe(150);
    expect(ds.registries.get('alice')).toEqual(f.runtime.devices.signed.get(user));
    expect(h.result.current.devices.devices.map((d) => d.name)).toEqual(['alice-laptop', 'alice-phone']);
    // Added to the group with the key package that claims it, found by its registry name; the stranger's is passed over.
    expect(ds.d.takeKeyPackages).toHaveBeenCalledWith('alice', ['alice-phone']);
    expect(chat.add).toHaveBeenCalledTimes(0);
    ds.publish('alice', 'alice-phone', 'phone-id');
    await act(async () => {
      await h.result.current.devices.syncGroups();
    });
    expect(chat.add).toHaveBeenCalledWith([enc.encode('kp-phone-id')]);

    // Revoked: the registry says so for good, and the group's next commit removes the phone.
    chat.set({ members: [{ index: 0, identityId: laptop }, { index: 1, identityId: 'phone-id' }] });
    await expect(h.result.current.devices.revoke(laptop)).rejects.toMatchObject({ code: 'INVALID_STATE' });
    await act(async () => {
      await h.result.current.devices.revoke('phone-id');
    });
    expect(chat.remove).toHaveBeenCalledWith({ index: 1, identityId: 'phone-id' });
    expect(h.result.current.devices.devices.map((d) => d.name)).toEqual(['alice-laptop']);
    expect(h.result.current.devices.revoked.map((d) => d.name)).toEqual(['alice-phone']);
    // A service handing back an older registry does not bring the phone back.
    ds.registries.set('alice', fakeRegistry({ user: `enc:${user}`, count: 2, devices: [{ identityId: laptop, name: 'alice-laptop' }, { identityId: 'phone-id', name: 'alice-phone' }], revoked: [] }));
    await act(async () => {
      await h.result.current.devices.refresh();
    });
    expect(h.result.current.devices.revoked.map((d) => d.name)).toEqual(['alice-phone']);
    expect(h.result.current.devices.error).toBeUndefined();
    // ...and the first device publishes the registry it signed again.
    expect(ds.registries.get('alice')).toEqual(f.runtime.devices.signed.get(user));
    // A service that lost it gets it back too; a linked device's view is kept while nothing verifies.
    ds.registries.delete('alice');
    await act(async () => {
      await h.result.current.devices.refresh();
    });
    expect(ds.registries.get('alice')).toEqual(f.runtime.devices.signed.get(user));
    h.unmount();
  });

  test('a name that has a registry already is not set up again: no second user identity', async () => {
    const ds = fakeDelivery();
    ds.registries.set('alice', fakeRegistry({ user: 'enc:someone', count: 1, devices: [{ identityId: 'x', name: 'alice-old' }], revoked: [] }));
    const h = render('alice-taken', ds.d);
    await waitFor(() => expect(h.result.current.id.status).toBe('success'));
    await act(async () => {
      await h.result.current.id.create({ label: 'alice' });
    });
    await waitFor(() => expect(h.result.current.devices.status).toBe('success'));
    await expect(h.result.current.devices.setUp()).rejects.toMatchObject({ code: 'KEY_EXISTS' });
    expect(f.keystores[0]?.identities.map((i) => i.label)).toEqual(['alice']);
    expect(ds.d.putRegistry).not.toHaveBeenCalled();
    expect(h.result.current.devices.role).toBe('none');
    h.unmount();
  });

  test('invite adds only the devices of the pinned registry; another user identity or an older registry is refused', async () => {
    const ds = fakeDelivery();
    const bob = { user: 'enc:bob-user', count: 2, devices: [{ identityId: 'bob-phone-id', name: 'bob-phone' }], revoked: [{ identityId: 'bob-old-id', name: 'bob-old' }] };
    ds.registries.set('bob', fakeRegistry(bob));
    ds.publish('bob', 'bob-phone', 'bob-phone-id', 'bob-phone-id');
    ds.publish('bob', 'bob-old', 'bob-old-id', 'bob-old-id');
    ds.publish('bob', 'bob-mallory', 'mallory-id', 'mallory-id');
    const h = render('carol-d', ds.d);
    await waitFor(() => expect(h.result.current.id.status).toBe('success'));
    await act(async () => {
      await h.result.current.id.create({ label: 'carol' });
    });
    const chat = await openRoom(h);
    await act(async () => {
      await h.result.current.chat.invite('bob');
    });
    expect(chat.add).toHaveBeenCalledTimes(1);
    expect(chat.add).toHaveBeenCalledWith([enc.encode('kp-bob-phone-id')]);
    // Bob's phone is a member now: inviting bob again adds nothing.
    chat.set({ members: [{ index: 1, identityId: 'bob-phone-id' }] });
    await expect(h.result.current.chat.invite('bob')).rejects.toMatchObject({ code: 'NO_MATCHING_KEY_PACKAGE' });
    // The service swaps in a registry of another user identity listing Mallory's device: refused.
    ds.registries.set('bob', fakeRegistry({ ...bob, user: 'enc:mallory-user', count: 3, devices: [{ identityId: 'mallory-id', name: 'bob-mallory' }] }));
    await expect(h.result.current.chat.invite('bob')).rejects.toMatchObject({ code: 'REGISTRY_INVALID' });
    // Or hands back an older one of Bob's (before the old device was revoked): refused.
    ds.registries.set('bob', fakeRegistry({ ...bob, count: 1, devices: [...bob.devices, ...bob.revoked], revoked: [] }));
    await expect(h.result.current.chat.invite('bob')).rejects.toMatchObject({ code: 'STATE_ROLLBACK' });
    // Or drops it: a pinned user without a registry is not invited blind.
    ds.registries.delete('bob');
    await expect(h.result.current.chat.invite('bob')).rejects.toMatchObject({ code: 'INVALID_STATE' });
    expect(chat.add).toHaveBeenCalledTimes(1);
    h.unmount();
  });
});
