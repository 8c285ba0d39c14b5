/**
 * A delivery service for veilkit groups (docs/GROUPS.md#delivery-service), plain TypeScript for a server: no wasm,
 * no keys. It stores and forwards ciphertext only, with the metadata GROUPS.md lists (group ids, epochs, content
 * types, key package references, user and device names the app chose):
 * - one ordered log per group: the first commit of an epoch wins, a later message of an older epoch is refused
 *   with the group's epoch (the sender catches up and sends again); posting the same message twice is
 *   idempotent (a sender whose answer was lost posts again and gets the same sequence number);
 * - a commit's welcome is accepted with it and put in the mailbox of each device whose key package it names;
 * - a key package directory: each device publishes its packages under its user; `take` hands one per device out
 *   once (the last one stays: the last-resort package);
 * - device registry records (docs/DEVICES.md), kept per user, only ever replaced by a longer one;
 * - device-link channels: the sealed messages of linking a device by code (docs/DEVICES.md §6), ten minutes each;
 * - `subscribe`: a notification per new log entry or mailbox entry (members read from their cursor).
 * State lives behind {@link DeliveryStore} (in memory here; a database implements the same methods atomically).
 * `deliveryHandler` serves it over HTTP (fetch API: a Next route handler, Deno, Bun, Node with a small adapter).
 */
import { VeilError } from '../../protocol/errors.js';
import { base64urlDecode, base64urlEncode, bytesToHex } from '../bytes.js';
import { inspectGroupMessage } from './wire.js';
import { registryChangeCount } from '../devices-header.js';

/** One message of a group's log. */
export interface DeliveryEntry {
  readonly seq: number;
  readonly epoch: number;
  readonly contentType: 'application' | 'proposal' | 'commit';
  readonly message: Uint8Array;
}

/** One welcome in a device's mailbox. */
export interface MailboxEntry {
  readonly seq: number;
  /** Hex MLS group id of the group it welcomes to. */
  readonly groupId: string;
  /** The sequence number of the commit that came with it: the joiner reads the group's log after it. */
  readonly commitSeq: number;
  readonly welcome: Uint8Array;
}

/** What {@link DeliveryService.post} did. */
export type DeliveryPost =
  | { readonly accepted: true; readonly seq: number; readonly epoch: number; readonly duplicate: boolean }
  | { readonly accepted: false; readonly reason: 'WRONG_EPOCH'; readonly epoch: number };

/** A notification of {@link DeliveryService.subscribe}. */
export type DeliveryEvent =
  | { readonly kind: 'group'; readonly groupId: string; readonly seq: number }
  | { readonly kind: 'mailbox'; readonly device: string; readonly seq: number };

/**
 * Where a delivery service keeps its state. Each method is atomic on its own (a database: one transaction).
 * Names (`user`, `device`) are the app's, checked by the service ({@link DELIVERY_NAME}).
 */
export interface DeliveryStore {
  /**
   * Appends to the group's log when the group is at `entry.epoch` (a new group starts at its first message's
   * epoch); a commit moves the group to the next epoch. A message already in the log (same `hash`) answers its
   * own entry. Else the group's epoch.
   */
  append(groupId: string, entry: Omit<DeliveryEntry, 'seq'>, hash: string): Promise<{ seq: number; duplicate: boolean } | { epoch: number }>;
  read(groupId: string, after: number, limit: number): Promise<DeliveryEntry[]>;
  mailboxPut(device: string, groupId: string, commitSeq: number, welcome: Uint8Array): Promise<number>;
  mailboxRead(device: string, after: number, limit: number): Promise<MailboxEntry[]>;
  /** Adds key packages of (user, device), each under its reference. */
  keyPackagesPut(user: string, device: string, packages: readonly { ref: string; keyPackage: Uint8Array }[]): Promise<number>;
  /** One key package of each of the user's devices, or of those named in `devices` (removed, unless it is the device's last one). */
  keyPackagesTake(user: string, devices?: readonly string[]): Promise<{ device: string; keyPackage: Uint8Array }[]>;
  /** The device a key package reference was published by. */
  keyPackageOwner(ref: string): Promise<string | undefined>;
  /** Replaces the user's registry record when `count` is larger than the stored one's; else the stored count. */
  registryPut(user: string, record: Uint8Array, count: number): Promise<{ stored: boolean; count: number }>;
  registryGet(user: string): Promise<Uint8Array | undefined>;
  /**
   * Appends to a device-link channel (docs/DEVICES.md §6) unless it holds {@link LINK_LIMITS}.messages already
   * or is older than {@link LINK_LIMITS}.ttlMs at `now` (then: undefined); the message's number.
   */
  linkPut(channel: string, message: Uint8Array, now: number): Promise<number | undefined>;
  /** The channel's messages after `after` (none once it expired at `now`). */
  linkRead(channel: string, after: number, now: number): Promise<{ seq: number; message: Uint8Array }[]>;
}

/** The state of {@link memoryDeliveryStore}, as plain data (what a test reads to check the server holds no plaintext). */
export interface MemoryDeliveryState {
  groups: Record<string, { epoch: number; entries: DeliveryEntry[]; hashes: Record<string, number> }>;
  mailboxes: Record<string, MailboxEntry[]>;
  keyPackages: Record<string, Record<string, { ref: string; keyPackage: Uint8Array }[]>>;
  owners: Record<string, string>;
  registries: Record<string, { record: Uint8Array; count: number }>;
  /** Device-link channels: sealed link messages, relayed for ten minutes. */
  links: Record<string, { created: number; messages: Uint8Array[] }>;
}

/** A table keyed by names the clients choose: no prototype, so no name reaches `Object.prototype`. */
function table<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** A {@link DeliveryStore} in memory (one server process); `state` is its whole content (tables without prototypes). */
export function memoryDeliveryStore(
  state: MemoryDeliveryState = { groups: table(), mailboxes: table(), keyPackages: table(), owners: table(), registries: table(), links: table() },
): DeliveryStore & { readonly state: MemoryDeliveryState } {
  return {
    state,
    async append(groupId, entry, hash) {
      const g = state.groups[groupId] ??= { epoch: entry.epoch, entries: [], hashes: table() };
      const seen = g.hashes[hash];
      if (seen !== undefined) return { seq: seen, duplicate: true };
      if (entry.epoch !== g.epoch) return { epoch: g.epoch };
      const seq = g.entries.length + 1;
      g.entries.push({ ...entry, seq });
      g.hashes[hash] = seq;
      if (entry.contentType === 'commit') g.epoch += 1;
      return { seq, duplicate: false };
    },
    async read(groupId, after, limit) {
      return state.groups[groupId]?.entries.slice(after, after + limit) ?? [];
    },
    async mailboxPut(device, groupId, commitSeq, welcome) {
      const box = state.mailboxes[device] ??= [];
      // Delivered again (a post retried after a failure between the log and the mailboxes): once.
      const known = box.find((m) => m.groupId === groupId && m.commitSeq === commitSeq);
      if (known !== undefined) return known.seq;
      box.push({ seq: box.length + 1, groupId, commitSeq, welcome });
      return box.length;
    },
    async mailboxRead(device, after, limit) {
      return state.mailboxes[device]?.slice(after, after + limit) ?? [];
    },
    async keyPackagesPut(user, device, packages) {
      const devices = state.keyPackages[user] ??= table();
      const list = devices[device] ??= [];
      for (const p of packages) {
        // A reference belongs to the device that published it first: nobody can republish another
        // device's key package under their own device to receive its welcomes.
        const owner = state.owners[p.ref];
        if (owner !== undefined && owner !== device) continue;
        if (owner === undefined) list.push(p);
        state.owners[p.ref] = device;
      }
      return list.length;
    },
    async keyPackagesTake(user, devices) {
      const out: { device: string; keyPackage: Uint8Array }[] = [];
      for (const [device, list] of Object.entries(state.keyPackages[user] ?? {})) {
        if (devices !== undefined && !devices.includes(device)) continue;
        const p = list.length > 1 ? list.shift() : list[0];
        if (p !== undefined) out.push({ device, keyPackage: p.keyPackage });
      }
      return out;
    },
    async keyPackageOwner(ref) {
      return state.owners[ref];
    },
    async registryPut(user, record, count) {
      const cur = state.registries[user];
      if (cur !== undefined && cur.count >= count) return { stored: false, count: cur.count };
      state.registries[user] = { record, count };
      return { stored: true, count };
    },
    async registryGet(user) {
      return state.registries[user]?.record;
    },
    async linkPut(channel, message, now) {
      for (const [c, l] of Object.entries(state.links)) if (now - l.created > LINK_LIMITS.ttlMs) Reflect.deleteProperty(state.links, c);
      const l = state.links[channel] ??= { created: now, messages: [] };
      if (l.messages.length >= LINK_LIMITS.messages) return undefined;
      l.messages.push(message);
      return l.messages.length;
    },
    async linkRead(channel, after, now) {
      const l = state.links[channel];
      if (l === undefined || now - l.created > LINK_LIMITS.ttlMs) return [];
      return l.messages.slice(after).map((message, i) => ({ seq: after + i + 1, message }));
    },
  };
}

/** User and device names a delivery service accepts (safe in URLs and logs): 1–64 of `[A-Za-z0-9_-]`, not `__proto__`, `constructor` or `prototype`. */
export const DELIVERY_NAME = /^(?!(?:__proto__|constructor|prototype)$)[A-Za-z0-9_-]{1,64}$/;
/** A device-link channel (docs/DEVICES.md §6): at most 8 messages of at most 64 KiB, relayed for ten minutes. */
export const LINK_LIMITS: { readonly messages: number; readonly message: number; readonly ttlMs: number } = Object.freeze({ messages: 8, message: 64 * 1024, ttlMs: 10 * 60_000 });

/** Most new members of one welcome the service delivers (as `Group.add`'s). */
const MAX_WELCOME_MEMBERS = 1000;

/** Limits of one request. */
export const DELIVERY_LIMITS: { readonly message: number; readonly keyPackages: number; readonly read: number; readonly registry: number } = Object.freeze({ message: 1 << 20, keyPackages: 100, read: 500, registry: 4 << 20 });

function name(what: string, v: unknown): string {
  if (typeof v !== 'string' || !DELIVERY_NAME.test(v)) throw new VeilError('INVALID_PARAMETER', `${what} must be 1 to 64 of A-Z a-z 0-9 _ -`);
  return v;
}

function groupHex(v: unknown): string {
  if (typeof v !== 'string' || !/^[0-9a-f]{2,512}$/.test(v) || v.length % 2 !== 0) throw new VeilError('INVALID_PARAMETER', 'groupId must be the lower-case hex MLS group id');
  return v;
}

function bounded(what: string, b: unknown, max: number): Uint8Array {
  if (!(b instanceof Uint8Array) || b.length === 0 || b.length > max) throw new VeilError('INVALID_PARAMETER', `${what} must be 1 to ${max} bytes`);
  return b;
}

function linkChannel(v: unknown): string {
  if (typeof v !== 'string' || !/^[0-9a-f]{32}$/.test(v)) throw new VeilError('INVALID_PARAMETER', 'a link channel is 32 lower-case hex digits');
  return v;
}

function cursor(what: string, v: unknown, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0 || v > max) throw new VeilError('INVALID_PARAMETER', `${what} must be an integer from 0 to ${max}`);
  return v;
}

async function digest(b: Uint8Array): Promise<string> {
  return bytesToHex(new Uint8Array(await crypto.subtle.digest('SHA-256', b.slice())));
}

/** The delivery service's rules over a {@link DeliveryStore}. */
export class DeliveryService {
  readonly store: DeliveryStore;
  readonly #listeners = new Set<(e: DeliveryEvent) => void>();

  constructor(store: DeliveryStore = memoryDeliveryStore()) {
    this.store = store;
  }

  /**
   * Orders a group message (its header names the group, which must be `groupId`). With a commit, `welcome` goes to
   * the mailboxes of the devices whose key packages it names, once the commit is accepted.
   */
  async post(groupId: string, message: Uint8Array, welcome?: Uint8Array): Promise<DeliveryPost> {
    const gid = groupHex(groupId);
    const msg = bounded('message', message, DELIVERY_LIMITS.message);
    const info = await inspectGroupMessage(msg);
    if (info.wireFormat !== 'public-message' && info.wireFormat !== 'private-message') throw new VeilError('MALFORMED_INPUT', `a ${info.wireFormat} is not a group message`);
    if (info.groupId !== gid) throw new VeilError('INVALID_PARAMETER', 'the message is for another group');
    let recipients: string[] = [];
    if (welcome !== undefined) {
      const w = await inspectGroupMessage(bounded('welcome', welcome, DELIVERY_LIMITS.message));
      if (w.wireFormat !== 'welcome' || info.contentType !== 'commit') throw new VeilError('MALFORMED_INPUT', 'a welcome goes with a commit');
      if (w.newMembers.length > MAX_WELCOME_MEMBERS) throw new VeilError('INVALID_PARAMETER', `a welcome adds at most ${MAX_WELCOME_MEMBERS} members here`);
      const owners = await Promise.all(w.newMembers.map((ref) => this.store.keyPackageOwner(ref)));
      recipients = [...new Set(owners.filter((o): o is string => o !== undefined))];
    }
    const r = await this.store.append(gid, { epoch: info.epoch, contentType: info.contentType, message: msg.slice() }, await digest(msg));
    if ('epoch' in r) return { accepted: false, reason: 'WRONG_EPOCH', epoch: r.epoch };
    // The welcome goes to the mailboxes also for a post repeated after a failure between the log and them
    // (each mailbox takes a commit's welcome once); one copy is shared by every mailbox.
    if (welcome !== undefined) {
      const copy = welcome.slice();
      for (const device of recipients) this.#emit({ kind: 'mailbox', device, seq: await this.store.mailboxPut(device, gid, r.seq, copy) });
    }
    if (!r.duplicate) this.#emit({ kind: 'group', groupId: gid, seq: r.seq });
    return { accepted: true, seq: r.seq, epoch: info.epoch, duplicate: r.duplicate };
  }

  /** The group's messages after `after`, at most `limit` (≤ 500), in order. */
  async read(groupId: string, after = 0, limit = DELIVERY_LIMITS.read): Promise<DeliveryEntry[]> {
    return this.store.read(groupHex(groupId), cursor('after', after), Math.max(1, cursor('limit', limit, DELIVERY_LIMITS.read)));
  }

  /** The device's welcomes after `after`. */
  async mailbox(device: string, after = 0, limit = DELIVERY_LIMITS.read): Promise<MailboxEntry[]> {
    return this.store.mailboxRead(name('device', device), cursor('after', after), Math.max(1, cursor('limit', limit, DELIVERY_LIMITS.read)));
  }

  /** Publishes key packages of a user's device (each must be a key package); how many the device has now. */
  async publishKeyPackages(user: string, device: string, keyPackages: readonly Uint8Array[]): Promise<number> {
    name('user', user);
    name('device', device);
    if (!Array.isArray(keyPackages) || keyPackages.length === 0 || keyPackages.length > DELIVERY_LIMITS.keyPackages) {
      throw new VeilError('INVALID_PARAMETER', `keyPackages must be 1 to ${DELIVERY_LIMITS.keyPackages} key packages`);
    }
    const packages = [];
    for (const k of keyPackages as readonly unknown[]) {
      const kp = bounded('keyPackage', k, DELIVERY_LIMITS.message);
      const i = await inspectGroupMessage(kp);
      if (i.wireFormat !== 'key-package' || i.ref === undefined) throw new VeilError('MALFORMED_INPUT', 'not a key package of a SHA-256 suite');
      packages.push({ ref: i.ref, keyPackage: kp.slice() });
    }
    return this.store.keyPackagesPut(user, device, packages);
  }

  /**
   * One key package of each of the user's devices, to add the user to a group; with `devices`, of those
   * devices only (at most 100 names): a device of the user adds a newly linked device to the user's groups.
   */
  async takeKeyPackages(user: string, devices?: readonly string[]): Promise<{ device: string; keyPackage: Uint8Array }[]> {
    if (devices !== undefined && (!Array.isArray(devices) || devices.length > DELIVERY_LIMITS.keyPackages)) {
      throw new VeilError('INVALID_PARAMETER', `devices must be an array of at most ${DELIVERY_LIMITS.keyPackages} device names`);
    }
    return this.store.keyPackagesTake(name('user', user), devices?.map((d: unknown) => name('device', d)));
  }

  /** Stores the user's device registry record if it has more changes than the stored one (members verify it). */
  async putRegistry(user: string, record: Uint8Array): Promise<{ stored: boolean; count: number }> {
    const r = bounded('record', record, DELIVERY_LIMITS.registry);
    return this.store.registryPut(name('user', user), r.slice(), registryChangeCount(r));
  }

  async getRegistry(user: string): Promise<Uint8Array | undefined> {
    return this.store.registryGet(name('user', user));
  }

  /**
   * Relays a device-link message (sealed by the two keystores; the service cannot read it) on `channel`, the
   * 32-hex-digit channel of the link's code (`linkChannelOf`). `INVALID_PARAMETER` when the channel is full
   * (8 messages) or expired (10 minutes).
   */
  async linkPost(channel: string, message: Uint8Array): Promise<number> {
    const seq = await this.store.linkPut(linkChannel(channel), bounded('message', message, LINK_LIMITS.message).slice(), Date.now());
    if (seq === undefined) throw new VeilError('INVALID_PARAMETER', 'this link channel is full or expired');
    return seq;
  }

  /** The link channel's messages after `after`. */
  async linkRead(channel: string, after = 0): Promise<{ seq: number; message: Uint8Array }[]> {
    return this.store.linkRead(linkChannel(channel), cursor('after', after, LINK_LIMITS.messages), Date.now());
  }

  /** Calls `listener` for each new log or mailbox entry; returns the unsubscribe function. */
  subscribe(listener: (e: DeliveryEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(e: DeliveryEvent): void {
    for (const l of this.#listeners) {
      try {
        l(e);
      } catch {
        // A listener's failure is its own.
      }
    }
  }
}

// ---------------------------------------------------------------------------
// HTTP (docs/GROUPS.md#delivery-service-http): JSON bodies, bytes as unpadded base64url.

function b64(v: unknown, what: string): Uint8Array {
  const b = typeof v === 'string' ? base64urlDecode(v) : undefined;
  if (b === undefined) throw new VeilError('INVALID_PARAMETER', `${what} must be unpadded base64url`);
  return b;
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });
}

function intParam(u: URL, key: string, fallback: number): number {
  const v = u.searchParams.get(key);
  if (v === null) return fallback;
  if (!/^\d{1,15}$/.test(v)) throw new VeilError('INVALID_PARAMETER', `${key} must be an integer`);
  return Number(v);
}

/**
 * A fetch-API handler for `service` under `prefix` (e.g. `/api/ds`): the routes of docs/GROUPS.md. Errors are JSON
 * `{ error: code, message }` with 400 (bad request), 404 (no route) or 409 (`WRONG_EPOCH`, with `epoch`).
 */
export function deliveryHandler(service: DeliveryService, prefix: string): (request: Request) => Promise<Response> {
  const base = prefix.replace(/\/$/, '');
  return async (request) => {
    const url = new URL(request.url);
    if (!url.pathname.startsWith(`${base}/`)) return json(404, { error: 'NOT_FOUND', message: 'no such route' });
    const m = request.method;
    try {
      let parts: string[];
      try {
        parts = url.pathname.slice(base.length + 1).split('/').map((p) => decodeURIComponent(p));
      } catch {
        throw new VeilError('INVALID_PARAMETER', 'the path is not valid percent-encoding');
      }
      const [p0, p1 = '', p2 = ''] = parts;
      const body = async (): Promise<Record<string, unknown>> => {
        const declared = Number(request.headers.get('content-length') ?? 'NaN');
        if (declared > 8 * DELIVERY_LIMITS.message) throw new VeilError('INVALID_PARAMETER', 'request too large');
        const text = await request.text();
        if (text.length > 8 * DELIVERY_LIMITS.message) throw new VeilError('INVALID_PARAMETER', 'request too large');
        const v: unknown = JSON.parse(text);
        if (typeof v !== 'object' || v === null) throw new VeilError('INVALID_PARAMETER', 'the body must be a JSON object');
        return v as Record<string, unknown>;
      };
      if (p0 === 'groups' && parts.length === 3 && p2 === 'messages') {
        if (m === 'POST') {
          const b = await body();
          const r = await service.post(p1, b64(b.message, 'message'), b.welcome === undefined ? undefined : b64(b.welcome, 'welcome'));
          return json(r.accepted ? 200 : 409, r);
        }
        if (m === 'GET') {
          const entries = await service.read(p1, intParam(url, 'after', 0), intParam(url, 'limit', DELIVERY_LIMITS.read));
          return json(200, { entries: entries.map((e) => ({ seq: e.seq, epoch: e.epoch, contentType: e.contentType, message: base64urlEncode(e.message) })) });
        }
      }
      if (p0 === 'mailbox' && parts.length === 2 && m === 'GET') {
        const entries = await service.mailbox(p1, intParam(url, 'after', 0), intParam(url, 'limit', DELIVERY_LIMITS.read));
        return json(200, { entries: entries.map((e) => ({ seq: e.seq, groupId: e.groupId, commitSeq: e.commitSeq, welcome: base64urlEncode(e.welcome) })) });
      }
      if (p0 === 'key-packages' && parts.length === 3 && m === 'POST') {
        const b = await body();
        if (!Array.isArray(b.keyPackages)) throw new VeilError('INVALID_PARAMETER', 'keyPackages must be an array');
        const count = await service.publishKeyPackages(p1, p2, b.keyPackages.map((k, i) => b64(k, `keyPackages[${i}]`)));
        return json(200, { count });
      }
      if (p0 === 'key-packages' && parts.length === 2 && m === 'POST') {
        const b = await body();
        const taken = await service.takeKeyPackages(p1, b.devices === undefined ? undefined : (b.devices as string[]));
        return json(200, { keyPackages: taken.map((t) => ({ device: t.device, keyPackage: base64urlEncode(t.keyPackage) })) });
      }
      if (p0 === 'registry' && parts.length === 2) {
        if (m === 'PUT') return json(200, await service.putRegistry(p1, b64((await body()).record, 'record')));
        if (m === 'GET') {
          const r = await service.getRegistry(p1);
          // No registry yet is an answer, not an error (a browser logs every 404 as a console error).
          return json(200, { record: r === undefined ? null : base64urlEncode(r) });
        }
      }
      if (p0 === 'links' && parts.length === 2) {
        if (m === 'POST') return json(200, { seq: await service.linkPost(p1, b64((await body()).message, 'message')) });
        if (m === 'GET') {
          const entries = await service.linkRead(p1, intParam(url, 'after', 0));
          return json(200, { entries: entries.map((e) => ({ seq: e.seq, message: base64urlEncode(e.message) })) });
        }
      }
      if (p0 === 'events' && parts.length === 1 && m === 'GET') return events(service, url, request.signal);
      return json(404, { error: 'NOT_FOUND', message: 'no such route' });
    } catch (e) {
      if (e instanceof VeilError) return json(400, { error: e.code, message: e.message });
      if (e instanceof SyntaxError) return json(400, { error: 'INVALID_PARAMETER', message: 'the body is not JSON' });
      return json(500, { error: 'INTERNAL', message: 'the delivery service failed' });
    }
  };
}

/** Server-sent events: `group` {groupId, seq} for the groups listed in `groups`, `mailbox` {device, seq} for those in `devices` (or `device`); a comment every 15 s. */
function events(service: DeliveryService, url: URL, signal: AbortSignal): Response {
  const groups = new Set((url.searchParams.get('groups') ?? '').split(',').filter((g) => g !== '').map(groupHex));
  const devices = new Set([...(url.searchParams.get('devices') ?? '').split(','), url.searchParams.get('device') ?? ''].filter((d) => d !== '').map((d) => name('device', d)));
  const enc = new TextEncoder();
  let stop = (): void => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const write = (s: string): void => {
        try {
          controller.enqueue(enc.encode(s));
        } catch {
          stop();
        }
      };
      write('retry: 1000\n\n');
      const off = service.subscribe((e) => {
        if (e.kind === 'group' && groups.has(e.groupId)) write(`event: group\ndata: ${JSON.stringify({ groupId: e.groupId, seq: e.seq })}\n\n`);
        if (e.kind === 'mailbox' && devices.has(e.device)) write(`event: mailbox\ndata: ${JSON.stringify({ device: e.device, seq: e.seq })}\n\n`);
      });
      const timer = setInterval(() => write(': ping\n\n'), 15_000);
      stop = () => {
        off();
        clearInterval(timer);
      };
      const end = (): void => {
        stop();
        try {
          controller.close();
        } catch {
          // Closed already.
        }
      };
      if (signal.aborted) end();
      else signal.addEventListener('abort', end);
    },
    cancel() {
      stop();
    },
  });
  return new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive' } });
}
