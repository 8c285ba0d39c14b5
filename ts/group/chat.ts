/**
 * A group conversation over a delivery service (docs/GROUPS.md#group-chat): a {@link Group} in the keystore, its
 * messages in the keystore's encrypted history, and a {@link GroupDelivery} (the example server's
 * {@link httpDelivery}, or the app's own). Framework-free; `veilkit/react`'s `useGroupChat` is a view of it.
 *
 * Exactly once, in order, across reloads and days offline:
 * - the conversation's cursor (the last log entry applied), its outbox and its own pending commits live in the
 *   history's metadata (sealed like an entry);
 * - a received message is stored by `Group.receive(…, { history })`: the entry, the new cursor and the group's new
 *   state in one commit. A page that dies anywhere re-reads the log from the cursor: nothing is lost, nothing
 *   stored twice;
 * - a message to send is kept in the outbox before anything else; its ciphertext is kept before it is posted (so
 *   the message that comes back through the log is recognised as this member's own and moved to the history with
 *   the new cursor in one write); the delivery service accepts the same post twice as one.
 * - a post refused with `WRONG_EPOCH` (another commit won the epoch) catches up from the log and encrypts again.
 */
import { VeilError } from '../../protocol/errors.js';
import { base64urlDecode, base64urlEncode, equalBytes, hexToBytes } from '../bytes.js';
import { bytes } from '../validate.js';
import type { ConversationHistory } from '../history.js';
import type { Group, GroupMember, GroupReceived } from './group.js';
import { decodeGroupHistoryMessage, encodeGroupHistoryMessage } from './history-entry.js';
import type { DeliveryEntry, DeliveryPost } from './delivery.js';

/** What {@link GroupChat} needs of a delivery service: post to a group's log, read it from a cursor. */
export interface GroupDelivery {
  post(groupId: string, message: Uint8Array, welcome?: Uint8Array): Promise<DeliveryPost>;
  read(groupId: string, after: number, limit?: number): Promise<DeliveryEntry[]>;
}

/** A message of the conversation, as shown. */
export interface GroupChatMessage {
  /** `h<seq>` for a stored message (its history sequence number), `o<n>` for one in the outbox. */
  readonly id: string;
  /** `pending`: in the outbox, not yet in the group's log; `failed`: the delivery service refused it (see `error`). */
  readonly status: 'received' | 'sent' | 'pending' | 'failed';
  /** The sender's identity id (hex; this member's own for `sent`, `pending`, `failed`). */
  readonly senderId: string;
  /** Its sequence number in the group's log (absent while pending). */
  readonly position?: number;
  /** ms since 1970: received, accepted, or queued. */
  readonly time: number;
  readonly bytes: Uint8Array;
  readonly error?: string;
}

/** What a {@link GroupChat} shows. */
export interface GroupChatState {
  readonly messages: readonly GroupChatMessage[];
  readonly members: readonly GroupMember[];
  /** This member's leaf index (its entry in `members`). */
  readonly ownIndex: number;
  readonly epoch: number;
  /** The last entry of the group's log applied. */
  readonly cursor: number;
  /** False once this member was removed. */
  readonly active: boolean;
  /** Log entries refused (forged, replayed, of an epoch gone) and skipped. */
  readonly skipped: number;
  readonly syncing: boolean;
  /** The last sync's failure (a network error: the outbox is kept and sent again). */
  readonly error?: Error;
}

/** Options of {@link GroupChat.open}. */
export interface GroupChatOptions {
  /** The history conversation (default `group:<group.id>`). */
  conversation?: string;
  /** Messages loaded from the history (default 200; older ones: `history.before`). */
  load?: number;
  /** Log entries read per request (default 100). */
  batch?: number;
  /**
   * Where a new conversation starts reading the log: the sequence number of the commit that added this member
   * (a mailbox entry's `commitSeq`), so that it does not read the epochs before it joined. Default 0. Ignored once
   * the conversation has a cursor.
   */
  after?: number;
}

interface OutboxItem {
  id: number;
  time: number;
  bytes: string;
  ct?: string;
  error?: string;
}

interface PendingCommit {
  commit: string;
  welcome?: string;
}

interface Meta {
  v: 1;
  cursor: number;
  next: number;
  skipped: number;
  outbox: OutboxItem[];
  commits: PendingCommit[];
}

/** Most messages waiting in the outbox, and their bytes together (the metadata is at most 1 MiB). */
export const GROUP_OUTBOX_LIMITS = Object.freeze({ messages: 200, bytes: 256 * 1024 });

/** Codes of a log entry that can never be read by this member: skipped (counted), never retried. */
const SKIP: ReadonlySet<string> = new Set([
  'DUPLICATE_MESSAGE', 'WRONG_EPOCH', 'AUTHENTICATION_FAILED', 'MALFORMED_INPUT', 'INVALID_COMMIT', 'INVALID_CREDENTIAL', 'INVALID_KEY_PACKAGE',
  'WRONG_GROUP', 'UNSUPPORTED_CIPHER_SUITE', 'NO_PENDING_COMMIT',
]);

const enc = new TextEncoder();
const dec = new TextDecoder();

function b64(b: Uint8Array): string {
  return base64urlEncode(b);
}

function unb64(s: string): Uint8Array {
  const b = base64urlDecode(s);
  if (b === undefined) throw new VeilError('AUTHENTICATION_FAILED', 'the group chat metadata is damaged');
  return b;
}

function parseMeta(raw: Uint8Array | undefined): Meta {
  if (raw === undefined) return { v: 1, cursor: 0, next: 1, skipped: 0, outbox: [], commits: [] };
  let m: unknown;
  try {
    m = JSON.parse(dec.decode(raw));
  } catch {
    throw new VeilError('AUTHENTICATION_FAILED', 'the group chat metadata is damaged');
  }
  const o = m as Partial<Meta>;
  if (typeof o !== 'object' || o === null || o.v !== 1 || !Number.isSafeInteger(o.cursor) || !Number.isSafeInteger(o.next) || !Number.isSafeInteger(o.skipped)
    || !Array.isArray(o.outbox) || !Array.isArray(o.commits)) {
    throw new VeilError('AUTHENTICATION_FAILED', 'the group chat metadata is damaged');
  }
  return o as Meta;
}

/** A commit (and its welcome) as kept in the metadata until it comes back through the log. */
function pendingCommit(c: { commit: Uint8Array; welcome?: Uint8Array }): PendingCommit {
  return { commit: b64(c.commit), ...(c.welcome ? { welcome: b64(c.welcome) } : {}) };
}

function metaBytes(m: Meta): Uint8Array {
  return enc.encode(JSON.stringify(m));
}

/** A group conversation: see the module's comment. */
export class GroupChat {
  readonly group: Group;
  readonly delivery: GroupDelivery;
  readonly history: ConversationHistory;
  readonly conversation: string;
  /** Hex MLS group id (the delivery service's name for the group). */
  readonly groupId: string;
  #meta: Meta;
  #stored: GroupChatMessage[];
  #state: GroupChatState;
  #queue: Promise<unknown> = Promise.resolve();
  #listeners = new Set<() => void>();
  #batch: number;
  #selfId: string;
  #closed = false;
  #removed = false;
  /** The metadata as last read or written (compared with the stored one before each task). */
  #raw: Uint8Array | undefined;
  #load: number;
  #again = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #backoff = 0;

  private constructor(
    group: Group, delivery: GroupDelivery, history: ConversationHistory, meta: Meta, raw: Uint8Array | undefined, stored: GroupChatMessage[], batch: number, load: number,
  ) {
    this.group = group;
    this.delivery = delivery;
    this.history = history;
    this.conversation = history.conversation;
    this.groupId = group.id.slice(group.id.indexOf('/') + 1);
    this.#meta = meta;
    this.#raw = raw;
    this.#stored = stored;
    this.#batch = batch;
    this.#load = load;
    const info = group.cachedInfo;
    this.#selfId = info.members.find((m) => m.index === info.ownIndex)?.identityId ?? '';
    this.#state = this.#compute(false, undefined);
  }

  /** Opens the conversation of `group` (its history and cursor from the keystore); call `sync()` to catch up. */
  static async open(group: Group, delivery: GroupDelivery, o: GroupChatOptions = {}): Promise<GroupChat> {
    if (typeof delivery !== 'object' || delivery === null || typeof delivery.post !== 'function' || typeof delivery.read !== 'function') {
      throw new TypeError('delivery must have post(groupId, message, welcome?) and read(groupId, after, limit?)');
    }
    const conversation = o.conversation ?? `group:${group.id}`;
    const history = group.keystore.history(conversation);
    await group.info();
    let raw = await history.meta();
    const meta = parseMeta(raw);
    if (raw === undefined && o.after !== undefined) {
      if (!Number.isSafeInteger(o.after) || o.after < 0) throw new RangeError('after must be a sequence number (an integer ≥ 0)');
      meta.cursor = o.after;
      // Stored at once: a reload before the first message still starts there.
      raw = metaBytes(meta);
      await history.append([], { meta: raw });
    }
    const load = o.load ?? 200;
    return new GroupChat(group, delivery, history, meta, raw, await GroupChat.#latest(history, load), o.batch ?? 100, load);
  }

  /** The last `n` stored messages, as shown. */
  static async #latest(history: ConversationHistory, n: number): Promise<GroupChatMessage[]> {
    return (await history.latest(n)).map((e) => GroupChat.#shown(e.seq, e.data));
  }

  static #shown(seq: number, data: Uint8Array): GroupChatMessage {
    const m = decodeGroupHistoryMessage(data);
    return { id: `h${seq}`, status: m.kind, senderId: m.senderId, position: m.position, time: m.time, bytes: m.bytes };
  }

  /** The current state (a new object after each change: compare by identity). */
  get state(): GroupChatState {
    return this.#state;
  }

  /** Calls `listener` after each change of {@link state}; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #compute(syncing: boolean, error: Error | undefined): GroupChatState {
    const info = this.group.cachedInfo;
    const pending = this.#meta.outbox.map((i): GroupChatMessage => ({
      id: `o${i.id}`, status: i.error === undefined ? 'pending' : 'failed', senderId: this.#selfId, time: i.time, bytes: unb64(i.bytes),
      ...(i.error === undefined ? {} : { error: i.error }),
    }));
    return {
      messages: [...this.#stored, ...pending], members: info.members, ownIndex: info.ownIndex, epoch: info.epoch, cursor: this.#meta.cursor, active: info.active && !this.#removed,
      skipped: this.#meta.skipped, syncing, ...(error === undefined ? {} : { error }),
    };
  }

  #changed(syncing: boolean, error?: Error): void {
    this.#state = this.#compute(syncing, error);
    for (const l of this.#listeners) {
      try {
        l();
      } catch {
        // A listener's failure is its own.
      }
    }
  }

  /**
   * Runs `fn` after the previous task of this object, under a Web Lock of the conversation (two tabs, or two
   * GroupChat objects of one conversation, never interleave), with the metadata read again first: another tab's
   * writes are seen, never overwritten.
   */
  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const task = async (): Promise<T> => {
      const locks = (globalThis.navigator as Navigator | undefined)?.locks;
      const body = async (): Promise<T> => {
        await this.#reload();
        return fn();
      };
      if (locks === undefined) return body();
      return locks.request(`veilkit-group-chat:${this.group.keystore.name}:${this.conversation}`, { mode: 'exclusive' }, body);
    };
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => {});
    return run;
  }

  /** The stored metadata again; if another tab changed it, the stored messages too. */
  async #reload(): Promise<void> {
    const raw = await this.history.meta();
    if (raw === undefined && this.#raw === undefined) return;
    if (raw !== undefined && this.#raw !== undefined && equalBytes(raw, this.#raw)) return;
    this.#meta = parseMeta(raw);
    this.#raw = raw;
    this.#stored = await GroupChat.#latest(this.history, this.#load);
    await this.group.info();
  }

  async #save(meta: Meta, entries: Uint8Array[] = []): Promise<number> {
    const raw = metaBytes(meta);
    const r = await this.history.append(entries, { meta: raw });
    this.#meta = meta;
    this.#raw = raw;
    return r.first;
  }

  /**
   * Queues a message: resolves once it is in the outbox (stored, so a reload still sends it; usually already
   * encrypted, in one write with its ciphertext) and starts sending it.
   * `state.messages` shows it `pending` until it comes back through the group's log as `sent`.
   */
  send(message: Uint8Array | string): Promise<void> {
    if (this.#closed) return Promise.reject(new VeilError('INVALID_STATE', 'this GroupChat is closed'));
    const data = typeof message === 'string' ? enc.encode(message) : bytes('message', message).slice();
    return this.#serial(async () => {
      if (!this.#state.active) throw new VeilError('NOT_A_MEMBER', 'this member was removed from the group');
      const m = this.#meta;
      const queued = m.outbox.reduce((n, i) => n + i.bytes.length, 0);
      if (m.outbox.length >= GROUP_OUTBOX_LIMITS.messages || queued + data.length * 4 / 3 > GROUP_OUTBOX_LIMITS.bytes) {
        throw new VeilError('INVALID_STATE', 'the outbox is full: wait until the delivery service is reachable');
      }
      let item: OutboxItem = { id: m.next, time: Date.now(), bytes: b64(data) };
      let commits = m.commits;
      // Encrypted now, stored with its ciphertext in one write, when nothing queued before it waits to be
      // encrypted (so messages go out in the order they were sent); else encrypted by the flush.
      if (commits.length === 0 && m.outbox.every((i) => i.ct !== undefined && i.error === undefined)) {
        try {
          const out = await this.group.encrypt(data);
          item = { ...item, ct: b64(out.message) };
          if (out.commit) commits = [...commits, { commit: b64(out.commit) }];
        } catch (e) {
          if (!(e instanceof VeilError && e.code === 'COMMIT_CONFLICT')) throw e;
        }
      }
      await this.#save({ ...m, next: m.next + 1, outbox: [...m.outbox, item], commits });
      this.#changed(true);
    }).then(() => {
      this.sync().catch(() => {});
    });
  }

  /** Adds members from their key packages (a commit, and a welcome for them). Resolves once the commit is in the log. */
  add(keyPackages: readonly Uint8Array[]): Promise<void> {
    return this.#commit(() => this.group.add(keyPackages));
  }

  /** Removes members (leaf indices or members). Resolves once the commit is in the log. */
  remove(...members: (number | GroupMember)[]): Promise<void> {
    return this.#commit(() => this.group.remove(...members));
  }

  /** A fresh leaf for this member (post-compromise security). Resolves once the commit is in the log. */
  update(): Promise<void> {
    return this.#commit(() => this.group.update());
  }

  async #commit(make: () => Promise<{ commit: Uint8Array; welcome?: Uint8Array }>): Promise<void> {
    await this.#serial(async () => {
      await this.#pull();
      const c = await make();
      await this.#save({ ...this.#meta, commits: [...this.#meta.commits, pendingCommit(c)] });
      await this.#flush();
      if (this.#meta.commits.length > 0) throw this.#state.error ?? new VeilError('COMMIT_CONFLICT', 'the commit is not in the group\'s log yet: it is sent again on the next sync');
    });
  }

  /** Sends a failed message again. */
  retry(id: string): Promise<void> {
    return this.#serial(async () => {
      const m = this.#meta;
      // The same ciphertext is posted again (the delivery service may hold it already: then it is one entry);
      // it is encrypted again only if the service refuses it for its epoch.
      await this.#save({ ...m, outbox: m.outbox.map((i) => (`o${i.id}` === id ? { id: i.id, time: i.time, bytes: i.bytes, ...(i.ct === undefined ? {} : { ct: i.ct }) } : i)) });
      this.#changed(true);
    }).then(() => this.sync());
  }

  /** Drops a failed (or pending, not yet encrypted) message from the outbox. */
  discard(id: string): Promise<boolean> {
    return this.#serial(async () => {
      const m = this.#meta;
      const item = m.outbox.find((i) => `o${i.id}` === id);
      if (item === undefined || (item.ct !== undefined && item.error === undefined)) return false;
      await this.#save({ ...m, outbox: m.outbox.filter((i) => i !== item) });
      this.#changed(false);
      return true;
    });
  }

  /**
   * Reads the group's log from the cursor and applies every entry, then sends the outbox and own commits. Runs
   * after the other calls; a call while one runs makes it run once more. A network failure is kept in
   * `state.error` and the sync tried again with a growing delay (2 s … 60 s).
   */
  sync(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#again = true;
    return this.#serial(async () => {
      if (!this.#again) return;
      this.#again = false;
      this.#changed(true, this.#state.error);
      try {
        // Send first (a message waiting is what the user looks at), then read; a post of a past epoch is
        // refused, and the flush catches up and sends it again.
        await this.#flush();
        await this.#pull();
        this.#backoff = 0;
        this.#changed(false);
      } catch (e) {
        const err = e instanceof Error ? e : new Error(String(e));
        this.#changed(false, err);
        if (!this.#closed && this.#timer === undefined && !(e instanceof VeilError && e.code === 'KEYSTORE_LOCKED')) {
          this.#backoff = Math.min(60_000, Math.max(2000, this.#backoff * 2));
          this.#timer = setTimeout(() => {
            this.#timer = undefined;
            this.sync().catch(() => {});
          }, this.#backoff);
        }
        throw err;
      }
    });
  }

  async #pull(): Promise<void> {
    for (;;) {
      if (this.#removed || !this.group.cachedInfo.active) return;
      const entries = await this.delivery.read(this.groupId, this.#meta.cursor, this.#batch);
      for (const e of entries) {
        // Removed: the rest of the log is not for this member.
        if (this.#removed) return;
        // Delivered again (a retried read): applied already.
        if (e.seq <= this.#meta.cursor) continue;
        if (e.seq !== this.#meta.cursor + 1) throw new VeilError('MALFORMED_INPUT', `the delivery service skipped from ${this.#meta.cursor} to ${e.seq}`);
        await this.#apply(e);
      }
      if (entries.length < this.#batch) return;
    }
  }

  async #apply(e: DeliveryEntry): Promise<void> {
    const m = this.#meta;
    const own = m.outbox.find((i) => i.ct !== undefined && equalBytes(unb64(i.ct), e.message));
    if (own !== undefined) {
      const info = this.group.cachedInfo;
      const entry = encodeGroupHistoryMessage({
        kind: 'sent', senderId: hexToBytes(this.#selfId), senderIndex: info.ownIndex, epoch: e.epoch, time: Date.now(), position: e.seq,
        aad: new Uint8Array(0), bytes: unb64(own.bytes),
      });
      const seq = await this.#save({ ...m, cursor: e.seq, outbox: m.outbox.filter((i) => i !== own) }, [entry]);
      this.#stored.push(GroupChat.#shown(seq, entry));
      this.#changed(true);
      return;
    }
    const next: Meta = { ...m, cursor: e.seq, commits: m.commits.filter((c) => !equalBytes(unb64(c.commit), e.message)) };
    if (e.contentType === 'proposal') {
      // veilkit members never send proposals alone; one kept pending would stop this member's messages until
      // someone commits (OpenMLS sends nothing over pending proposals): skipped, as any entry it cannot use.
      await this.#save({ ...next, skipped: next.skipped + 1 });
      this.#changed(true);
      return;
    }
    const nextRaw = metaBytes(next);
    let r: GroupReceived;
    try {
      r = await this.group.receive(e.message, { history: { conversation: this.conversation, position: e.seq, meta: nextRaw } });
    } catch (err) {
      if (!(err instanceof VeilError) || !SKIP.has(err.code)) throw err;
      await this.#save({ ...next, skipped: next.skipped + 1 });
      this.#changed(true);
      return;
    }
    this.#meta = next;
    this.#raw = nextRaw;
    if (r.kind === 'application' && r.history !== undefined) {
      // As stored (the entry's time is the worker's clock; shown here with the page's).
      this.#stored.push({ id: `h${r.history.first}`, status: 'received', senderId: r.sender.identityId, position: e.seq, time: Date.now(), bytes: r.bytes });
    }
    if (r.kind === 'commit') {
      if (r.discardedOwn) {
        const rest = this.#meta.commits.slice(1);
        await this.#save({ ...this.#meta, commits: r.reapplied ? [pendingCommit(r.reapplied), ...rest] : rest });
      }
      if (r.removedSelf) this.#removed = true;
      else await this.group.info();
    }
    this.#changed(true);
  }

  async #flush(): Promise<void> {
    let refused = 0;
    for (;;) {
      const m = this.#meta;
      if (!this.#state.active) return;
      const commit = m.commits[0];
      if (commit !== undefined) {
        const r = await this.delivery.post(this.groupId, unb64(commit.commit), commit.welcome === undefined ? undefined : unb64(commit.welcome));
        await this.#pull();
        if (this.#meta.commits[0]?.commit === commit.commit) {
          if (r.accepted) throw new VeilError('INVALID_STATE', `the delivery service accepted the commit at ${r.seq} but its log does not show it yet`);
          if (++refused > 5) throw new VeilError('WRONG_EPOCH', 'the delivery service refused the commit five times');
        }
        continue;
      }
      const item = m.outbox.find((i) => i.error === undefined);
      if (item === undefined) return;
      let ct = item.ct;
      if (ct === undefined) {
        const out = await this.group.encrypt(unb64(item.bytes));
        const made = b64(out.message);
        ct = made;
        await this.#save({
          ...m, outbox: m.outbox.map((i) => (i === item ? { ...i, ct: made } : i)),
          commits: out.commit ? [...m.commits, { commit: b64(out.commit) }] : m.commits,
        });
      }
      let r: DeliveryPost;
      try {
        r = await this.delivery.post(this.groupId, unb64(ct));
      } catch (err) {
        if (err instanceof VeilError && err.code !== 'WRONG_EPOCH') {
          const cur = this.#meta;
          await this.#save({ ...cur, outbox: cur.outbox.map((i) => (i.id === item.id ? { ...i, error: err.code } : i)) });
          this.#changed(true);
          continue;
        }
        throw err;
      }
      if (!r.accepted) {
        if (++refused > 5) throw new VeilError('WRONG_EPOCH', 'the delivery service refused the message five times');
        const cur = this.#meta;
        // Never accepted: encrypted again after catching up.
        await this.#save({ ...cur, outbox: cur.outbox.map((i) => (i.id === item.id ? { id: i.id, time: i.time, bytes: i.bytes } : i)) });
      }
      await this.#pull();
    }
  }

  /** Stops the retry timer and refuses further sends (the stored conversation stays). */
  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#listeners.clear();
  }
}
