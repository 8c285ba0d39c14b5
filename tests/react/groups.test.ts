// useGroups and useGroupChat (ts/react/groups.ts) over the fake runtime: the provider's delivery is the
// one the chat is opened with; a created group's chat starts at the log's beginning; a welcome in the
// device's mailbox is joined once (a second check, or the same welcome again, joins nothing) and its chat
// starts after the commit that added the device; a mailbox event checks again; one GroupChat per group is
// shared by every hook that shows it; send / invite go to it; an event of the group's stream syncs it.
import { describe, expect, test, vi } from 'vitest';
import { createElement, type ReactNode } from 'react';
import { act, renderHook, waitFor } from '@testing-library/react';
import { installFakeRuntime, type FakeRuntime } from './fakes.js';
import { VeilProvider, useGroupChat, useGroups, useIdentity, type VeilDelivery } from '../../ts/react/index.js';

vi.mock('../../ts/react/runtime.js', async () => (await import('./fakes.js')).fakeRuntimeModule);

let f: FakeRuntime;
installFakeRuntime((r) => {
  f = r;
});

const enc = new TextEncoder();
const dec = new TextDecoder();

function fakeDelivery() {
  const mailbox: { seq: number; groupId: string; commitSeq: number; welcome: Uint8Array }[] = [];
  const listeners: { groups: readonly string[]; device: string | undefined; on: (e: { kind: string; groupId?: string; seq?: number; device?: string }) => void }[] = [];
  const d = {
    post: vi.fn(async () => ({ accepted: true as const, seq: 1, epoch: 0, duplicate: false })),
    read: vi.fn(async () => []),
    mailbox: vi.fn(async (_device: string, after: number) => mailbox.filter((m) => m.seq > after)),
    takeKeyPackages: vi.fn(async (user: string) => (user === 'bob' ? [{ device: 'bob-phone', keyPackage: enc.encode('kp-bob-phone') }, { device: 'bob-laptop', keyPackage: enc.encode('kp-bob-laptop') }] : [])),
    publishKeyPackages: vi.fn(async () => 1),
    events: vi.fn((groups: readonly string[], device: string | undefined, on: (e: { kind: string }) => void) => {
      const l = { groups, device, on };
      listeners.push(l);
      return () => {
        listeners.splice(listeners.indexOf(l), 1);
      };
    }),
  };
  return {
    d, mailbox, listeners,
    welcome(groupId: string, commitSeq: number) {
      mailbox.push({ seq: mailbox.length + 1, groupId, commitSeq, welcome: enc.encode(groupId) });
      for (const l of [...listeners]) if (l.device !== undefined) l.on({ kind: 'mailbox', device: l.device, seq: mailbox.length });
    },
    groupEvent(groupId: string) {
      for (const l of [...listeners]) if (l.groups.includes(groupId)) l.on({ kind: 'group', groupId, seq: 1 });
    },
  };
}

function render(keystore: string, delivery: VeilDelivery, groupId?: string) {
  const wrapper = ({ children }: { children: ReactNode }) => createElement(VeilProvider, { keystore, delivery }, children);
  return renderHook(({ gid }: { gid: string | undefined }) => ({
    id: useIdentity(), groups: useGroups({ user: 'alice', device: 'alice-laptop' }), chat: useGroupChat(gid), other: useGroupChat(gid),
  }), { wrapper, initialProps: { gid: groupId } });
}

describe('useGroups / useGroupChat', () => {
  test('create, send, invite, a welcome joined once from the mailbox, one chat per group, group events sync', async () => {
    const ds = fakeDelivery();
    const h = render('alice-g', ds.d);
    await waitFor(() => expect(h.result.current.id.status).toBe('success'));
    await act(async () => {
      await h.result.current.id.create({ label: 'alice' });
    });
    await waitFor(() => expect(h.result.current.groups.status).toBe('success'));
    expect(h.result.current.groups.groups).toEqual([]);
    let created = '';
    await act(async () => {
      created = (await h.result.current.groups.create()).id;
    });
    expect(h.result.current.groups.groups.map((g) => g.id)).toEqual([created]);
    // The created group's chat was opened over the provider's delivery, from the log's start.
    expect(f.groupChats).toHaveLength(1);
    expect(f.groupChats[0]?.delivery).toBe(ds.d);
    expect(f.groupChats[0]?.after).toBe(0);

    h.rerender({ gid: created });
    await waitFor(() => expect(h.result.current.chat.status).toBe('success'));
    // Both hooks show the same GroupChat: one was opened.
    expect(f.runtime.openGroupChat).toHaveBeenCalledTimes(1);
    const chat = f.groupChats[0]!;
    await act(async () => {
      await h.result.current.chat.send('hello');
    });
    expect(h.result.current.chat.messages.map((m) => [dec.decode(m.bytes), m.status])).toEqual([['hello', 'pending']]);
    expect(h.result.current.other.messages).toHaveLength(1);
    act(() => chat.deliver());
    expect(h.result.current.chat.messages.map((m) => m.status)).toEqual(['sent']);
    // Inviting a user adds one key package of each of their devices.
    await act(async () => {
      await h.result.current.chat.invite('bob');
    });
    expect(chat.add).toHaveBeenCalledWith([enc.encode('kp-bob-phone'), enc.encode('kp-bob-laptop')]);
    await expect(h.result.current.chat.invite('nobody')).rejects.toMatchObject({ code: 'NO_MATCHING_KEY_PACKAGE' });
    // An event of the group's stream syncs the chat.
    const before = chat.sync.mock.calls.length;
    act(() => ds.groupEvent(chat.groupId));
    expect(chat.sync.mock.calls.length).toBeGreaterThan(before);

    // A welcome arrives: joined, its chat starts after the commit that added this device.
    await act(async () => {
      ds.welcome('g-welcome', 7);
    });
    await waitFor(() => expect(h.result.current.groups.groups).toHaveLength(2));
    const joined = f.groupChats.find((c) => c.groupId === 'g-welcome');
    expect(joined?.after).toBe(7);
    // Checking again (the cursor is kept in the keystore's history) joins nothing twice.
    let again: unknown[] = [];
    await act(async () => {
      again = await h.result.current.groups.checkMailbox();
    });
    expect(again).toEqual([]);
    expect(f.runtime.joinGroup).toHaveBeenCalledTimes(1);
    h.unmount();
    expect(ds.listeners).toHaveLength(0);
  });

  test('without a delivery service the chat stays idle and actions are INVALID_STATE', async () => {
    const wrapper = ({ children }: { children: ReactNode }) => createElement(VeilProvider, { keystore: 'nodelivery' }, children);
    const h = renderHook(() => useGroupChat('x/y'), { wrapper });
    await waitFor(() => expect(f.keystores).toHaveLength(1));
    expect(h.result.current.status).toBe('idle');
    await expect(h.result.current.send('x')).rejects.toMatchObject({ code: 'INVALID_STATE' });
  });
});
