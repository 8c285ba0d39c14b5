/**
 * The browser side of {@link deliveryHandler}'s HTTP routes (docs/GROUPS.md#delivery-service): a
 * {@link GroupDelivery} for {@link GroupChat}, the key package directory, device mailboxes (welcomes), device
 * registry records, and server-sent events that say when to read. Every call is one request; a network failure
 * rejects with a `TypeError` (the fetch's, or for a 5xx or an answer that is not JSON: GroupChat keeps its outbox
 * and tries again), a refusal with a `VeilError`.
 */
import { VeilError, VEIL_ERROR_CODES, type VeilErrorCode } from '../../protocol/errors.js';
import { base64urlDecode, base64urlEncode } from '../bytes.js';
import type { GroupDelivery } from './chat.js';
import type { DeliveryEntry, MailboxEntry } from './delivery.js';

/** A delivery service over HTTP: {@link GroupDelivery} and the rest of the routes. */
export interface HttpDelivery extends GroupDelivery {
  readonly url: string;
  mailbox(device: string, after: number): Promise<MailboxEntry[]>;
  publishKeyPackages(user: string, device: string, keyPackages: readonly Uint8Array[]): Promise<number>;
  /** One key package of each of the user's devices (or of the devices named). */
  takeKeyPackages(user: string, devices?: readonly string[]): Promise<{ device: string; keyPackage: Uint8Array }[]>;
  putRegistry(user: string, record: Uint8Array): Promise<{ stored: boolean; count: number }>;
  getRegistry(user: string): Promise<Uint8Array | undefined>;
  /** Relays a device-link message on `channel` (a {@link LinkRelay} for `linkNewDevice` / `linkExistingDevice`). */
  linkPost(channel: string, message: Uint8Array): Promise<number>;
  linkRead(channel: string, after: number): Promise<{ seq: number; message: Uint8Array }[]>;
  /**
   * Server-sent events for `groups` (hex ids) and `device`'s mailbox: `onEvent` with what changed, and
   * `{ kind: 'open' }` on every (re)connection — read everything from the cursors then. Returns the close function.
   * All subscriptions of one `httpDelivery` share one `EventSource`.
   */
  events(groups: readonly string[], device: string | undefined, onEvent: (e: DeliveryNotice) => void): () => void;
}

/** A notification of {@link HttpDelivery.events}. */
export type DeliveryNotice =
  | { readonly kind: 'open' }
  | { readonly kind: 'group'; readonly groupId: string; readonly seq: number }
  | { readonly kind: 'mailbox'; readonly device: string; readonly seq: number };

const CODES: ReadonlySet<string> = new Set(VEIL_ERROR_CODES);

interface Subscription {
  readonly groups: readonly string[];
  readonly device: string | undefined;
  readonly onEvent: (e: DeliveryNotice) => void;
}

/** A notice's data, or undefined when it is malformed (ignored: the next read from the cursor finds what it announced). */
function notice(data: string): { groupId?: unknown; device?: unknown; seq: number } | undefined {
  try {
    const d = JSON.parse(data) as Record<string, unknown>;
    return typeof d.seq === 'number' && Number.isSafeInteger(d.seq) && d.seq > 0 ? { groupId: d.groupId, device: d.device, seq: d.seq } : undefined;
  } catch {
    return undefined;
  }
}

function decode(v: unknown): Uint8Array {
  const b = typeof v === 'string' ? base64urlDecode(v) : undefined;
  if (b === undefined) throw new VeilError('MALFORMED_INPUT', 'the delivery service answered bytes that are not base64url');
  return b;
}

function seqOf(v: unknown): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) throw new VeilError('MALFORMED_INPUT', 'the delivery service answered a bad sequence number');
  return v;
}

/** The delivery service at `url` (e.g. `/api/ds`, or an absolute URL). */
export function httpDelivery(url: string): HttpDelivery {
  if (typeof url !== 'string' || url.length === 0) throw new TypeError('url must be the delivery service\'s base URL');
  const base = url.replace(/\/$/, '');
  const seg = encodeURIComponent;
  // Every subscription shares one EventSource (a browser allows six connections per host over HTTP/1.1):
  // reopened, on the next tick, with the union of what the subscriptions want.
  const subscriptions = new Set<Subscription>();
  let source: EventSource | undefined;
  let scheduled = false;
  let retryMs = 0;
  function reconnect(): void {
    if (scheduled) return;
    scheduled = true;
    queueMicrotask(() => {
      scheduled = false;
      source?.close();
      source = undefined;
      if (subscriptions.size === 0) return;
      const groups = new Set<string>();
      const devices = new Set<string>();
      for (const s of subscriptions) {
        for (const g of s.groups) groups.add(g);
        if (s.device !== undefined) devices.add(s.device);
      }
      const q = new URLSearchParams({ groups: [...groups].join(','), devices: [...devices].join(',') });
      const es = new EventSource(`${base}/events?${q}`);
      source = es;
      const each = (f: (s: Subscription) => void): void => {
        for (const s of [...subscriptions]) {
          try {
            f(s);
          } catch {
            // A subscriber's failure is its own.
          }
        }
      };
      es.addEventListener('open', () => {
        retryMs = 0;
        each((s) => s.onEvent({ kind: 'open' }));
      });
      // The browser retries a dropped stream by itself, but gives up for good on an answer that is not a
      // stream (a 502 during a deploy, a 4xx): open it again, 1 s … 30 s later.
      es.addEventListener('error', () => {
        if (es.readyState !== EventSource.CLOSED || source !== es) return;
        retryMs = Math.min(30_000, Math.max(1000, retryMs * 2));
        setTimeout(() => {
          if (source === es) reconnect();
        }, retryMs);
      });
      es.addEventListener('group', (ev: MessageEvent<string>) => {
        const d = notice(ev.data);
        if (d === undefined || typeof d.groupId !== 'string') return;
        const e: DeliveryNotice = { kind: 'group', groupId: d.groupId, seq: d.seq };
        each((s) => {
          if (s.groups.includes(e.groupId)) s.onEvent(e);
        });
      });
      es.addEventListener('mailbox', (ev: MessageEvent<string>) => {
        const d = notice(ev.data);
        if (d === undefined || typeof d.device !== 'string') return;
        const e: DeliveryNotice = { kind: 'mailbox', device: d.device, seq: d.seq };
        each((s) => {
          if (s.device === e.device) s.onEvent(e);
        });
      });
    });
  }
  async function call(method: string, path: string, body?: unknown): Promise<{ status: number; value: Record<string, unknown> }> {
    const res = await fetch(`${base}${path}`, {
      method, cache: 'no-store', ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    // A server error or an answer that is not the service's (a proxy's 502 page): not a refusal, try again later.
    if (res.status >= 500) throw new TypeError(`the delivery service is unavailable (${res.status})`);
    let value: unknown;
    try {
      value = await res.json();
    } catch {
      throw new TypeError(`the delivery service answered ${res.status} without JSON`);
    }
    if (typeof value !== 'object' || value === null) throw new VeilError('MALFORMED_INPUT', 'the delivery service answered JSON that is not an object');
    const v = value as Record<string, unknown>;
    if (res.status >= 400 && !(res.status === 409 && v.accepted === false) && !(res.status === 404 && method === 'GET' && path.startsWith('/registry/'))) {
      const code = typeof v.error === 'string' && CODES.has(v.error) ? v.error as VeilErrorCode : 'MALFORMED_INPUT';
      throw new VeilError(code, `the delivery service refused ${method} ${path}: ${typeof v.message === 'string' ? v.message.slice(0, 200) : res.status}`);
    }
    return { status: res.status, value: v };
  }
  return {
    url: base,
    async post(groupId, message, welcome) {
      const { value } = await call('POST', `/groups/${seg(groupId)}/messages`, { message: base64urlEncode(message), ...(welcome ? { welcome: base64urlEncode(welcome) } : {}) });
      if (value.accepted === true) return { accepted: true, seq: seqOf(value.seq), epoch: Number(value.epoch), duplicate: value.duplicate === true };
      if (value.accepted === false && value.reason === 'WRONG_EPOCH' && Number.isSafeInteger(value.epoch)) return { accepted: false, reason: 'WRONG_EPOCH', epoch: value.epoch as number };
      throw new VeilError('MALFORMED_INPUT', 'the delivery service answered a post it did not accept or refuse');
    },
    async read(groupId, after, limit = 100) {
      const { value } = await call('GET', `/groups/${seg(groupId)}/messages?after=${after}&limit=${limit}`);
      if (!Array.isArray(value.entries)) throw new VeilError('MALFORMED_INPUT', 'the delivery service answered no entries');
      return value.entries.map((e: Record<string, unknown>): DeliveryEntry => ({
        seq: seqOf(e.seq), epoch: Number(e.epoch), contentType: e.contentType as DeliveryEntry['contentType'], message: decode(e.message),
      }));
    },
    async mailbox(device, after) {
      const { value } = await call('GET', `/mailbox/${seg(device)}?after=${after}`);
      if (!Array.isArray(value.entries)) throw new VeilError('MALFORMED_INPUT', 'the delivery service answered no entries');
      return value.entries.map((e: Record<string, unknown>): MailboxEntry => ({ seq: seqOf(e.seq), groupId: String(e.groupId), commitSeq: seqOf(e.commitSeq), welcome: decode(e.welcome) }));
    },
    async publishKeyPackages(user, device, keyPackages) {
      const { value } = await call('POST', `/key-packages/${seg(user)}/${seg(device)}`, { keyPackages: keyPackages.map((k) => base64urlEncode(k)) });
      return Number(value.count);
    },
    async takeKeyPackages(user, devices) {
      const { value } = await call('POST', `/key-packages/${seg(user)}`, devices === undefined ? {} : { devices });
      if (!Array.isArray(value.keyPackages)) throw new VeilError('MALFORMED_INPUT', 'the delivery service answered no key packages');
      return value.keyPackages.map((k: Record<string, unknown>) => ({ device: String(k.device), keyPackage: decode(k.keyPackage) }));
    },
    async putRegistry(user, record) {
      const { value } = await call('PUT', `/registry/${seg(user)}`, { record: base64urlEncode(record) });
      return { stored: value.stored === true, count: Number(value.count) };
    },
    async linkPost(channel, message) {
      const { value } = await call('POST', `/links/${seg(channel)}`, { message: base64urlEncode(message) });
      return seqOf(value.seq);
    },
    async linkRead(channel, after) {
      const { value } = await call('GET', `/links/${seg(channel)}?after=${after}`);
      if (!Array.isArray(value.entries)) throw new VeilError('MALFORMED_INPUT', 'the delivery service answered no entries');
      return value.entries.map((e: Record<string, unknown>) => ({ seq: seqOf(e.seq), message: decode(e.message) }));
    },
    async getRegistry(user) {
      const { status, value } = await call('GET', `/registry/${seg(user)}`);
      return status === 404 || value.record === null ? undefined : decode(value.record);
    },
    events(groups, device, onEvent) {
      const sub: Subscription = { groups: [...groups], device, onEvent };
      subscriptions.add(sub);
      reconnect();
      return () => {
        if (subscriptions.delete(sub)) reconnect();
      };
    },
  };
}
