/**
 * What this worker knows of the newest state of each session, for the life of the worker
 * (docs/SESSIONS.md §7.2): the highest state counter and whether the session was deleted, learnt
 * only from authenticated sources — states it committed or opened, heads and tombstones whose tag
 * verified under the storage key (records.ts `sealHead`), including the newer head that made it
 * refuse a stale record, and heads other workers of the origin announced on the store's change
 * channel. IndexedDB can be rolled back by page script; this memory cannot, so a record and head
 * put back together from an earlier copy are refused by every worker that knew of something newer.
 *
 * Announced heads (`KeystoreChange.heads`) are checked before they count: page script can post on
 * the change channel too, but cannot make a tag. A worker that cannot check them yet (locked, or no
 * session key made so far) keeps at most {@link MAX_PENDING} of them and checks them when it next reads
 * a session; any beyond that are dropped, oldest first.
 */
import type { KeystoreChange, SessionHead } from '../../protocol/keystore.protocol.js';
import { headIsAuthentic, type HeadRecord } from './records.js';
import type { Session as Unlocked, Store } from './store.js';

/** The newest state of a session this worker knows of. */
export interface Known {
  readonly counter: number;
  readonly deleted: boolean;
}

/** By `<store name>/<session id>` (store names contain no `/`). */
const known = new Map<string, Known>();

/** Announced heads not yet checked, by store name (as they came off the channel: checked in {@link absorb}). */
const pending = new Map<string, unknown[]>();
const MAX_PENDING = 1000;

/** One check of pending heads after another, per store name (so that an operation can wait for every earlier one). */
const absorbing = new Map<string, Promise<void>>();

/** What this worker knows of session `id` of store `name`; exported for a test-only probe (tests/playwright/fixtures/sessions-test-worker.ts). */
export function knownHead(name: string, id: string): Known | undefined {
  return known.get(`${name}/${id}`);
}

/**
 * Whether a copy this worker kept of a record (a parsed session, an open MLS client) may still be used
 * (§7.2, the fast path): it was opened under the store's current unlock session, and, once the heads
 * other workers announced are checked, no newer counter and no deletion of head `id` is known. A `false`
 * means: drop the copy and reload.
 */
export async function keptIsCurrent(s: Store, unlocked: Unlocked, id: string, counter: number): Promise<boolean> {
  if (s.session !== unlocked) return false;
  await absorb(s, unlocked);
  const k = known.get(`${s.name}/${id}`);
  return !(k && (k.deleted || k.counter > counter));
}

/** Records an authenticated counter or deletion: the counter only grows, a deletion is final. */
export function learn(name: string, id: string, counter: number, deleted = false): void {
  const k = `${name}/${id}`;
  const cur = known.get(k);
  known.set(k, { counter: Math.max(cur?.counter ?? 0, counter), deleted: (cur?.deleted ?? false) || deleted });
}

/** The head as announced: what the `heads` store holds, with the generation its tag was made under. */
export function shared(head: Required<Pick<HeadRecord, 'id' | 'identityId' | 'counter' | 'tag'>> & { deleted?: boolean | undefined }, generation: number): SessionHead {
  return { id: head.id, identityId: head.identityId, counter: head.counter, ...(head.deleted ? { deleted: true as const } : {}), tag: head.tag, generation };
}

/** The shape of an announced head (its tag is checked separately). */
function isHead(h: unknown): h is SessionHead {
  if (typeof h !== 'object' || h === null) return false;
  const x = h as Record<string, unknown>;
  return typeof x.id === 'string' && typeof x.identityId === 'string' && Number.isSafeInteger(x.counter) && Number.isSafeInteger(x.generation)
    && x.tag instanceof Uint8Array && (x.deleted === undefined || x.deleted === true);
}

/** The change channel's listener (worker/keystore/store.ts): queues the heads of a session change and checks them if it can. */
export function heard(s: Store, change: KeystoreChange | null): void {
  const heads: unknown = change?.heads;
  if (change?.name !== s.name || !Array.isArray(heads) || heads.length === 0) return;
  const queue = pending.get(s.name) ?? [];
  queue.push(...(heads as unknown[]).slice(0, MAX_PENDING));
  queue.splice(0, Math.max(0, queue.length - MAX_PENDING));
  pending.set(s.name, queue);
  if (s.session) void absorb(s, s.session).catch(() => {});
}

/**
 * Checks the pending heads of store `s` under `unlocked` (its key and generation) and learns those whose tag
 * verifies; heads of a later generation stay pending, the rest are dropped. Resolves after every earlier check.
 */
export function absorb(s: Store, unlocked: Unlocked): Promise<void> {
  const prev = absorbing.get(s.name) ?? Promise.resolve();
  const next = prev.then(async () => {
    const queue = pending.get(s.name);
    if (!queue || queue.length === 0) return;
    pending.delete(s.name);
    const later: unknown[] = [];
    for (const h of queue) {
      if (!isHead(h)) continue;
      if (h.generation > unlocked.generation) later.push(h);
      else if (h.generation === unlocked.generation && (await headIsAuthentic(unlocked.key, h, unlocked.generation))) learn(s.name, h.id, h.counter, h.deleted === true);
    }
    if (later.length > 0) pending.set(s.name, [...later, ...(pending.get(s.name) ?? [])].slice(-MAX_PENDING));
  });
  const settled = next.catch(() => {});
  absorbing.set(s.name, settled);
  return settled;
}
