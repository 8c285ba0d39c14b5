/**
 * `useGroups()` and `useGroupChat(groupId)`: MLS group chats of the provider's current identity over a delivery
 * service (the provider's `delivery`, e.g. `httpDelivery('/api/ds')`), views of the framework-free
 * {@link GroupChat} (docs/GROUPS.md#group-chat, docs/REACT.md#group-chat). One `GroupChat` per keystore and group,
 * shared by every hook that shows it; nothing is opened during render or on the server.
 */
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { createVeilStore, type VeilStatus, type VeilStore } from './store.js';
import { hookError } from './errors.js';
import { runtime } from './runtime.js';
import { VeilError } from '../../protocol/errors.js';
import { useClient } from './hooks.js';
import type { VeilClient } from './client.js';
import type { Keystore, IdentityHandle } from '../keystore.js';
import type { GroupChat, GroupChatState, GroupDelivery } from '../group/chat.js';
import type { GroupInfo, GroupMember } from '../group/group.js';
import type { HttpDelivery } from '../group/delivery-client.js';
import { serialize, userKeyPackages } from './registries.js';

/** A delivery service for the group hooks: {@link GroupDelivery}, and what `useGroups` uses when it has it (mailboxes, the key package directory, events). */
export type VeilDelivery = GroupDelivery & Partial<Pick<
  HttpDelivery, 'mailbox' | 'events' | 'takeKeyPackages' | 'publishKeyPackages' | 'putRegistry' | 'getRegistry' | 'linkPost' | 'linkRead'
>>;

const chats = new WeakMap<Keystore, Map<string, Promise<GroupChat>>>();

/** The keystore's one GroupChat of `groupId` (opened on first use; `after`: where a new conversation starts). */
export function chatFor(ks: Keystore, groupId: string, delivery: GroupDelivery, after?: number): Promise<GroupChat> {
  let m = chats.get(ks);
  if (m === undefined) {
    m = new Map();
    chats.set(ks, m);
  }
  let c = m.get(groupId);
  if (c === undefined) {
    c = runtime.openGroupChat(ks, groupId, delivery, after === undefined ? {} : { after });
    const map = m;
    c.catch(() => map.delete(groupId));
    m.set(groupId, c);
  }
  return c;
}

export function useStore<T extends object>(store: VeilStore<T>): Readonly<T> {
  return useSyncExternalStore(store.subscribe, store.getSnapshot, store.getServerSnapshot);
}

/**
 * The provider's current identity, the same object while its id stays: a refreshed identity object (same id) must
 * not re-run a hook's effects (re-subscribe, re-read).
 */
export function useIdentityOnce(client: VeilClient): IdentityHandle | undefined {
  const s = useStore(client.identity);
  const ref = useRef(s.identity);
  if (ref.current?.id !== s.identity?.id) ref.current = s.identity;
  return ref.current;
}

export function deliveryOf(client: VeilClient, given: VeilDelivery | undefined, hook: string): VeilDelivery | undefined {
  const d = given ?? client.delivery;
  if (d !== undefined && (typeof d !== 'object' || d === null || typeof d.post !== 'function' || typeof d.read !== 'function')) {
    throw new TypeError(`${hook}: delivery must have post(groupId, message, welcome?) and read(groupId, after, limit?)`);
  }
  return d;
}

export function need<T>(v: T | undefined, what: string): T {
  if (v === undefined) throw new VeilError('INVALID_STATE', `${what} is not ready yet`);
  return v;
}

// ---------------------------------------------------------------------------
// useGroupChat

/** `useGroupChat`'s state: the conversation ({@link GroupChatState}: messages, members, ownIndex, epoch, active, skipped, syncing) and how opening it went. */
export interface GroupChatHookState extends Omit<GroupChatState, 'error' | 'cursor'> {
  readonly status: VeilStatus;
  /** Opening failed, or the last sync's failure (a network failure: the chat tries again). */
  readonly error: VeilError | undefined;
}

/** What `useGroupChat` returns. */
export interface UseGroupChatResult extends GroupChatHookState {
  /** Queues a message (stored before it resolves: a reload still sends it), then sends it. */
  send(message: string | Uint8Array): Promise<void>;
  /**
   * Adds every device of `user`: one key package of each from the delivery service's directory, only of the
   * devices its device registry lists when the service has one (verified against the user's pin, made on first
   * use; docs/DEVICES.md §7).
   */
  invite(user: string): Promise<void>;
  /** Adds members from key packages. */
  add(keyPackages: readonly Uint8Array[]): Promise<void>;
  /** Removes members (leaf indices or members). */
  remove(...members: (number | GroupMember)[]): Promise<void>;
  /** Sends a failed message again. */
  retry(id: string): Promise<void>;
  /** Drops a failed message. */
  discard(id: string): Promise<boolean>;
  /** Reads the log and sends the outbox now (it also runs on every event of the delivery service). */
  sync(): Promise<void>;
}

const GROUP_CHAT_IDLE: GroupChatHookState = {
  status: 'idle', error: undefined, messages: [], members: [], ownIndex: -1, epoch: 0, active: true, skipped: 0, syncing: false,
};

/**
 * The group chat `groupId` (a `GroupInfo.id`, `<identity id>/<group id hex>`, from `useGroups().groups`) of the
 * provider's keystore over its `delivery` (or `options.delivery`): messages from the encrypted history, pending
 * and failed sends, members; read again on every event of the delivery service (`delivery.events`).
 */
export function useGroupChat(groupId: string | undefined, options: { delivery?: VeilDelivery } = {}): UseGroupChatResult {
  const client = useClient('useGroupChat');
  const delivery = deliveryOf(client, options.delivery, 'useGroupChat');
  const { keystore } = useStore(client.veil);
  const { identity } = useStore(client.identity);
  // Read by invite (whose registry pins are this identity's); not a reason to open the chat again.
  const identityRef = useRef(identity);
  identityRef.current = identity;
  const [store] = useState(() => createVeilStore<GroupChatHookState>(GROUP_CHAT_IDLE));
  const [chat, setChat] = useState<GroupChat | undefined>(undefined);
  useEffect(() => {
    store.reset();
    setChat(undefined);
    if (keystore === undefined || groupId === undefined || delivery === undefined) return;
    let live = true;
    let off: (() => void)[] = [];
    store.set({ status: 'pending' });
    chatFor(keystore, groupId, delivery).then((c) => {
      if (!live) return;
      const show = (): void => {
        const s = c.state;
        store.set({
          status: 'success', messages: s.messages, members: s.members, ownIndex: s.ownIndex, epoch: s.epoch, active: s.active, skipped: s.skipped, syncing: s.syncing,
          error: s.error === undefined ? undefined : hookError(s.error),
        });
      };
      off.push(c.subscribe(show));
      show();
      setChat(c);
      c.sync().catch(() => {});
      if (typeof delivery.events === 'function') off.push(delivery.events([c.groupId], undefined, () => {
        c.sync().catch(() => {});
      }));
    }).catch((e: unknown) => {
      if (live) store.set({ status: 'error', error: hookError(e) });
    });
    return () => {
      live = false;
      for (const f of off) f();
      off = [];
    };
  }, [keystore, groupId, delivery, store]);
  const state = useStore(store);
  const actions = useMemo(() => {
    const on = <A extends unknown[], R>(f: (c: GroupChat, ...a: A) => Promise<R>) => (...a: A): Promise<R> => {
      if (chat === undefined) return Promise.reject(new VeilError('INVALID_STATE', 'useGroupChat is not ready: no keystore, group or delivery yet'));
      return f(chat, ...a);
    };
    return {
      send: on((c, m: string | Uint8Array) => c.send(m)),
      add: on((c, kps: readonly Uint8Array[]) => c.add(kps)),
      invite: on(async (c, user: string) => {
        if (delivery === undefined || typeof delivery.takeKeyPackages !== 'function') throw new TypeError('invite needs a delivery with takeKeyPackages (httpDelivery)');
        const ks = need(keystore, 'the keystore');
        await c.add(await userKeyPackages(ks, need(identityRef.current, 'the identity'), delivery, user, { members: c.state.members.map((m) => m.identityId) }));
      }),
      remove: on((c, ...m: (number | GroupMember)[]) => c.remove(...m)),
      retry: on((c, id: string) => c.retry(id)),
      discard: on((c, id: string) => c.discard(id)),
      sync: on((c) => c.sync()),
    };
  }, [chat, delivery, keystore]);
  return useMemo(() => ({ ...state, ...actions }), [state, actions]);
}

// ---------------------------------------------------------------------------
// useGroups

/** `useGroups`'s state. */
export interface GroupsState {
  readonly status: VeilStatus;
  readonly error: VeilError | undefined;
  /** The current identity's groups, oldest first. */
  readonly groups: readonly GroupInfo[];
}

/** What `useGroups` returns. */
export interface UseGroupsResult extends GroupsState {
  /** A new group with the current identity as its only member; its chat is ready for `useGroupChat(info.id)`. */
  create(): Promise<GroupInfo>;
  /** Publishes `count` (default 5) key packages of the current identity under `options.user` / `options.device`. */
  publishKeyPackages(count?: number): Promise<number>;
  /** Joins every group a welcome in `options.device`'s mailbox is for (also run on each mailbox event). */
  checkMailbox(): Promise<GroupInfo[]>;
  /** Reads the list again. */
  refresh(): Promise<void>;
}

/** Options of {@link useGroups}. */
export interface UseGroupsOptions {
  delivery?: VeilDelivery;
  /** The app's name of this user (the key package directory files this device's packages under it). */
  user?: string;
  /** The app's name of this device: its mailbox receives the welcomes to groups it is added to. */
  device?: string;
}

const GROUPS_IDLE: GroupsState = { status: 'idle', error: undefined, groups: [] };

/** Where a device's mailbox cursor is kept: the metadata of this keystore history conversation. */
function mailboxConversation(identity: IdentityHandle, device: string): string {
  return `veilkit-mailbox:${identity.id}:${device}`;
}

/**
 * The current identity's group chats: the list, `create`, publishing key packages, and joining from welcomes in
 * this device's mailbox (checked on mount and on every mailbox event of the delivery service).
 */
export function useGroups(options: UseGroupsOptions = {}): UseGroupsResult {
  const client = useClient('useGroups');
  const delivery = deliveryOf(client, options.delivery, 'useGroups');
  const { keystore } = useStore(client.veil);
  const identity = useIdentityOnce(client);
  const { user, device } = options;
  const [store] = useState(() => createVeilStore<GroupsState>(GROUPS_IDLE));
  const refresh = useCallback(async (): Promise<void> => {
    if (keystore === undefined || identity === undefined) return;
    try {
      const groups = await runtime.listGroups(keystore, identity);
      store.set({ status: 'success', error: undefined, groups: Object.freeze(groups) });
    } catch (e) {
      store.set({ status: 'error', error: hookError(e) });
    }
  }, [keystore, identity, store]);
  const checkMailbox = useCallback(async (): Promise<GroupInfo[]> => {
    const ks = need(keystore, 'the keystore');
    const me = need(identity, 'the identity');
    const d = need(delivery, 'the delivery service');
    if (device === undefined || typeof d.mailbox !== 'function') return [];
    const history = ks.history(mailboxConversation(me, device));
    return serialize(`mailbox:${ks.name}:${me.id}:${device}`, async () => {
      const meta = await history.meta();
      let after = meta === undefined ? 0 : Number(new TextDecoder().decode(meta));
      if (!Number.isSafeInteger(after) || after < 0) after = 0;
      const joined: GroupInfo[] = [];
      const mailbox = d.mailbox;
      if (mailbox === undefined) return joined;
      for (const w of await mailbox(device, after)) {
        try {
          const g = await runtime.joinGroup(ks, me, w.welcome);
          await chatFor(ks, g.id, d, w.commitSeq);
          joined.push(g);
        } catch (e) {
          // A welcome that cannot be joined (used already, not for this identity, forged, another suite) is
          // passed over: the cursor moves on. Only what may pass (the network, a locked or busy keystore) stops
          // the check, to be tried again.
          if (!(e instanceof VeilError) || ['KEYSTORE_LOCKED', 'STORAGE_FAILED', 'WORKER_START_FAILED', 'ABORTED'].includes(e.code)) throw e;
        }
        await history.append([], { meta: new TextEncoder().encode(String(w.seq)) });
      }
      await refresh();
      return joined;
    });
  }, [keystore, identity, delivery, device, refresh]);
  useEffect(() => {
    store.reset();
    if (keystore === undefined || identity === undefined) return;
    store.set({ status: 'pending' });
    void refresh();
    if (delivery === undefined || device === undefined) return;
    const check = (): void => {
      checkMailbox().catch((e: unknown) => store.set({ status: 'error', error: hookError(e) }));
    };
    check();
    if (typeof delivery.events !== 'function') return;
    return delivery.events([], device, (e) => {
      if (e.kind === 'open' || e.kind === 'mailbox') check();
    });
  }, [keystore, identity, delivery, device, store, refresh, checkMailbox]);
  const create = useCallback(async (): Promise<GroupInfo> => {
    const ks = need(keystore, 'the keystore');
    const info = await runtime.createGroup(ks, need(identity, 'the identity'));
    if (delivery !== undefined) await chatFor(ks, info.id, delivery, 0);
    await refresh();
    return info;
  }, [keystore, identity, delivery, refresh]);
  const publishKeyPackages = useCallback(async (count = 5): Promise<number> => {
    const ks = need(keystore, 'the keystore');
    const d = need(delivery, 'the delivery service');
    if (typeof d.publishKeyPackages !== 'function') throw new TypeError('publishKeyPackages needs a delivery with publishKeyPackages (httpDelivery)');
    if (user === undefined || device === undefined) throw new TypeError('publishKeyPackages needs useGroups({ user, device })');
    return d.publishKeyPackages(user, device, await ks.createKeyPackages(need(identity, 'the identity'), { count }));
  }, [keystore, identity, delivery, user, device]);
  const state = useStore(store);
  return useMemo(() => ({ ...state, create, publishKeyPackages, checkMailbox, refresh }), [state, create, publishKeyPackages, checkMailbox, refresh]);
}
