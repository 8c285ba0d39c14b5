/**
 * The isolated-origin keystore's wire (docs/KEYSTORE.md#isolated-origin-mode): the
 * messages between an app page, the keystore frame on another origin
 * (ts/keystore-frame.ts) and the keystore manager window, and the port transport
 * that carries keystore requests over a `MessageChannel`.
 *
 * The app side never holds key material: the frame answers it with exactly what
 * a same-origin `Keystore` answers (handles, public keys, bundles, signatures,
 * non-extractable `CryptoKey`s) and refuses the export paths with
 * `TOP_LEVEL_REQUIRED`.
 */
import { VeilError } from '../protocol/errors.js';
import { Listeners } from './listeners.js';
import { deserializeError } from './pool.js';
import { disposedError } from './dispose.js';
import { serializeError, type SerializedError } from '../protocol/protocol.js';
import type { KeystoreChange, KeystoreReplies, KeystoreRequest } from '../protocol/keystore.protocol.js';

/** Version of the message protocol between a page and its isolated-origin keystore frame. */
export const ISOLATED_PROTOCOL_VERSION = 1;

/** Default time an app page or manager waits for the keystore frame's answer. */
export const DEFAULT_FRAME_TIMEOUT_MS = 10_000;

/** A keystore request without its id and store name (the frame sets the name it was connected with). */
export type KeystoreBody = DistributiveOmit<KeystoreRequest, 'id' | 'name'>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Frame → its parent window, target origin `'*'` (it carries nothing): "my listener is installed". */
export interface FrameHello {
  readonly type: 'veilkit/keystore-frame';
  readonly version: 1;
}

/** App page or manager → frame (`postMessage` to the keystore origin), with one `MessagePort` transferred. */
export interface ConnectMessage {
  readonly type: 'veilkit/keystore-connect';
  readonly version: 1;
  readonly name: string;
}

/** Sent on the port by the connecting side. */
export interface PortRequest {
  readonly type: 'request';
  readonly id: number;
  readonly body: KeystoreBody;
}

/** Sent on the port by the frame. */
export type PortMessage =
  | { readonly type: 'ready'; readonly version: 1; readonly role: 'app' | 'manager' }
  | { readonly type: 'failed'; readonly version: 1; readonly error: SerializedError }
  | { readonly type: 'reply'; readonly id: number; readonly ok: true; readonly value: unknown }
  /** `id: null`: the answer to a malformed request without a usable id ({@link checkPortRequest}). */
  | { readonly type: 'reply'; readonly id: number | null; readonly ok: false; readonly error: SerializedError }
  | { readonly type: 'change'; readonly change: KeystoreChange };

/**
 * Requests the frame refuses on an app connection (`TOP_LEVEL_REQUIRED`): they run only on a
 * manager connection, from a top-level window on the keystore origin. Every device request is one:
 * an added device becomes the user wherever the registry is read, a revocation is permanent, a
 * consent lets another user list this device, and a link's code shown or typed on the app page would
 * let that page put its own device in (docs/DEVICES.md §5, §6). A compromised app page must not be
 * able to do any of it, any more than export the identity.
 */
const DEVICE_REQUESTS: ReadonlySet<string> = new Set([
  'keystore/registry-add', 'keystore/registry-revoke', 'keystore/registry-last', 'keystore/device-consent',
  'keystore/link-start', 'keystore/link-accept', 'keystore/link-answer', 'keystore/link-confirm', 'keystore/link-finish',
] satisfies KeystoreBody['type'][]);

export function managerOnly(body: KeystoreBody): boolean {
  return body.type === 'keystore/export-phrase' || body.type === 'keystore/export-backup'
    || body.type === 'keystore/import-backup' || DEVICE_REQUESTS.has(body.type) || (body.type === 'keystore/set-passphrase' && body.passphrase === null);
}

/**
 * Requests an app connection runs only with `currentPassphrase` (which the worker checks): setting
 * or changing the passphrase and deleting an identity — each could lock the user out or destroy
 * sessions. Without it the frame refuses them with `TOP_LEVEL_REQUIRED` (a store without a
 * passphrase has none to give: they run in the manager).
 */
export function needsCurrentPassphrase(body: KeystoreBody): boolean {
  return (body.type === 'keystore/set-passphrase' && body.passphrase !== null) || body.type === 'keystore/delete-identity';
}

/** Requests that use one of an identity's private keys for the caller: an app connection's rate-limited key uses. */
const KEY_USES: ReadonlySet<string> = new Set([
  'keystore/sign', 'keystore/sign-hybrid', 'keystore/sign-container-header', 'keystore/decapsulate',
  'keystore/open-sealed', 'keystore/open-sealed-export', 'keystore/derive-shared-key',
] satisfies KeystoreBody['type'][]);

export function isKeyUse(body: KeystoreBody): boolean {
  return KEY_USES.has(body.type);
}

/** An app connection's key-use rate limit: a token bucket of `burst` tokens refilled at `perSecond`. */
export interface RateLimit {
  /** Key uses at once (the bucket's size): an integer 1 to 1,000,000. */
  readonly burst: number;
  /** Tokens added per second: a number above 0, at most 1,000,000. */
  readonly perSecond: number;
}

/** The frame's default: 100 key uses at once, then 10 a second (36,000 an hour) per app connection. */
export const DEFAULT_RATE_LIMIT: RateLimit = Object.freeze({ burst: 100, perSecond: 10 });

export function resolveRateLimit(value: unknown): RateLimit {
  if (value === undefined) return DEFAULT_RATE_LIMIT;
  if (typeof value !== 'object' || value === null) throw new TypeError('rateLimit must be an object');
  const v = value as Partial<Record<keyof RateLimit, unknown>>;
  const burst = v.burst ?? DEFAULT_RATE_LIMIT.burst;
  const perSecond = v.perSecond ?? DEFAULT_RATE_LIMIT.perSecond;
  if (typeof burst !== 'number' || !Number.isSafeInteger(burst) || burst < 1 || burst > 1_000_000) throw new RangeError('rateLimit.burst must be an integer from 1 to 1,000,000');
  if (typeof perSecond !== 'number' || !(perSecond > 0 && perSecond <= 1_000_000)) throw new RangeError('rateLimit.perSecond must be above 0 and at most 1,000,000');
  return Object.freeze({ burst, perSecond });
}

/** A token bucket (`now` in milliseconds, monotonic): full at first, one token per key use. */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(private readonly limit: RateLimit, private readonly now: () => number = () => performance.now()) {
    this.tokens = limit.burst;
    this.last = now();
  }

  /** Takes a token: 0, or (none left) the milliseconds until the next one, and nothing is taken. */
  take(): number {
    const t = this.now();
    this.tokens = Math.min(this.limit.burst, this.tokens + (Math.max(0, t - this.last) * this.limit.perSecond) / 1000);
    this.last = t;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    // Whole milliseconds, rounded up (less a rounding error of the float arithmetic).
    return Math.max(1, Math.ceil(((1 - this.tokens) * 1000) / this.limit.perSecond - 1e-6));
  }
}

export function isConnectMessage(data: unknown): data is ConnectMessage {
  if (typeof data !== 'object' || data === null) return false;
  const d = data as Record<string, unknown>;
  return d.type === 'veilkit/keystore-connect' && d.version === ISOLATED_PROTOCOL_VERSION && typeof d.name === 'string';
}

/**
 * Checks a message the frame received on a port: `{ type: 'request', id, body }` with a safe-integer
 * `id` and a `body` whose `type` is a `keystore/*` request other than `keystore/open` (the worker
 * then looks its handler up as an own property). Anything else is answered with one
 * `VeilError('MALFORMED_INPUT')` reply — its `id`, or `null` when it has no usable one — and runs
 * nothing (protocol/protocol.ts, "Malformed messages").
 */
export function checkPortRequest(data: unknown): { readonly ok: true; readonly request: PortRequest } | { readonly ok: false; readonly reply: PortMessage } {
  const refuse = (id: number | null, why: string): { ok: false; reply: PortMessage } => ({
    ok: false, reply: { type: 'reply', id, ok: false, error: serializeError(new VeilError('MALFORMED_INPUT', `malformed keystore request: ${why}`)) },
  });
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return refuse(null, `not an object (${data === null ? 'null' : Array.isArray(data) ? 'an array' : typeof data})`);
  const d = data as Record<string, unknown>;
  const id = typeof d.id === 'number' && Number.isSafeInteger(d.id) ? d.id : null;
  if (d.type !== 'request') return refuse(id, 'type must be "request"');
  if (id === null) return refuse(null, 'id must be a safe integer');
  const body = d.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return refuse(id, 'body must be an object');
  const type = (body as { type?: unknown }).type;
  if (typeof type !== 'string') return refuse(id, 'body.type must be a string');
  if (!type.startsWith('keystore/') || type === 'keystore/open') return refuse(id, `unknown keystore request ${JSON.stringify(type.slice(0, 80))}`);
  return { ok: true, request: { type: 'request', id, body: body as KeystoreBody } };
}

function isPortMessage(data: unknown): data is PortMessage {
  return typeof data === 'object' && data !== null && typeof (data as { type?: unknown }).type === 'string';
}

/** Checks a serialized origin (`https://keys.example`, `http://localhost:8787`): scheme, host and port, nothing else. */
export function checkOrigin(name: string, value: unknown): string {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new RangeError(`${name} must be an origin such as https://keys.example`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== value) {
    throw new RangeError(`${name} must be an origin such as https://keys.example (scheme, host and port only): ${value}`);
  }
  return value;
}

/**
 * Keystore requests over a `MessagePort`: one reply per request, matched by id; change
 * events go to the subscribers. Closing rejects what is still pending.
 */
export class PortTransport {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
  private readonly listeners = new Listeners<KeystoreChange>();
  private closed = false;

  constructor(private readonly port: MessagePort, private readonly onClose: () => void) {
    port.onmessage = (e: MessageEvent) => this.receive(e.data);
    port.onmessageerror = () => this.fail(new VeilError('INTERNAL', 'a keystore reply could not be deserialized'));
  }

  private receive(data: unknown): void {
    if (!isPortMessage(data)) return;
    if (data.type === 'change') {
      this.listeners.emit(data.change);
      return;
    }
    // A reply with id null answers a malformed request of no one here.
    if (data.type !== 'reply' || data.id === null) return;
    const job = this.pending.get(data.id);
    if (!job) return;
    this.pending.delete(data.id);
    if (data.ok) job.resolve(data.value);
    else job.reject(deserializeError(data.error));
  }

  private fail(error: VeilError): void {
    for (const job of this.pending.values()) job.reject(error);
    this.pending.clear();
  }

  /** Resolves with the frame's `KeystoreReplies[type]` (its keystore runs the worker's typed handlers). */
  run<B extends KeystoreBody>(body: B, transfer?: Transferable[]): Promise<KeystoreReplies[B['type']]> {
    if (this.closed) return Promise.reject(disposedError('this Keystore'));
    const id = this.nextId++;
    return new Promise<KeystoreReplies[B['type']]>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      try {
        this.port.postMessage({ type: 'request', id, body } satisfies PortRequest, transfer ?? []);
      } catch (e) {
        this.pending.delete(id);
        reject(e);
      }
    });
  }

  subscribe(listener: (change: KeystoreChange) => void): () => void {
    return this.listeners.add(listener);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    this.fail(new VeilError('INTERNAL', 'the keystore connection has been closed'));
    this.port.close();
    this.onClose();
  }
}

/**
 * Waits on `port` for the frame's `ready` (resolves with the transport) or `failed` (rejects with
 * its error); `KEYSTORE_UNAVAILABLE` after `timeoutMs`. `cleanup` runs on every failure.
 */
export function awaitReady(port: MessagePort, role: 'app' | 'manager', timeoutMs: number, what: string, cleanup: () => void): Promise<PortTransport> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      port.onmessage = null;
      port.close();
      cleanup();
      reject(new VeilError('KEYSTORE_UNAVAILABLE', `${what} did not answer within ${timeoutMs} ms (not served there, not allowed to be framed here, or this origin is not on its allow-list)`));
    }, timeoutMs);
    port.onmessage = (e: MessageEvent) => {
      const m: unknown = e.data;
      if (!isPortMessage(m) || (m.type !== 'ready' && m.type !== 'failed')) return;
      clearTimeout(timer);
      port.onmessage = null;
      if (m.type === 'failed') {
        port.close();
        cleanup();
        reject(deserializeError(m.error));
      } else if (m.version !== ISOLATED_PROTOCOL_VERSION || m.role !== role) {
        port.close();
        cleanup();
        reject(new VeilError('KEYSTORE_UNAVAILABLE', `${what} speaks another protocol (version ${String(m.version)}, role ${String(m.role)})`));
      } else {
        resolve(new PortTransport(port, cleanup));
      }
    };
  });
}

/** Options of the isolated-origin mode (`KeystoreOptions.isolated`). */
export interface IsolatedKeystoreOptions {
  /**
   * The keystore frame page: an absolute URL on another origin (preferably another site), serving
   * `serveKeystoreFrame` from `veilkit/keystore-frame` with `frame-ancestors` naming this origin.
   */
  readonly frameUrl: string;
  /**
   * The keystore manager page on the same origin (`connectKeystoreManager`), opened by
   * `Keystore.openManager()` for the export paths. Optional: without it those paths are unavailable.
   */
  readonly managerUrl?: string;
  /** How long to wait for the frame's handshake (default 10,000 ms); then `KEYSTORE_UNAVAILABLE`. */
  readonly timeoutMs?: number;
}

export interface ResolvedIsolatedOptions {
  readonly frameUrl: URL;
  readonly managerUrl: URL | undefined;
  readonly timeoutMs: number;
}

export function resolveIsolatedOptions(options: unknown): ResolvedIsolatedOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('isolated must be an object');
  const o = options as Record<string, unknown>;
  if (typeof o.frameUrl !== 'string') throw new TypeError('isolated.frameUrl must be a string');
  const here = (globalThis as { location?: { origin?: string } }).location?.origin;
  const frameUrl = new URL(o.frameUrl);
  checkOrigin('isolated.frameUrl origin', frameUrl.origin);
  if (frameUrl.origin === here) throw new RangeError('isolated.frameUrl must be on another origin than this page');
  let managerUrl: URL | undefined;
  if (o.managerUrl !== undefined) {
    if (typeof o.managerUrl !== 'string') throw new TypeError('isolated.managerUrl must be a string');
    managerUrl = new URL(o.managerUrl);
    if (managerUrl.origin !== frameUrl.origin) throw new RangeError('isolated.managerUrl must be on the keystore frame\'s origin');
  }
  const timeoutMs = o.timeoutMs ?? DEFAULT_FRAME_TIMEOUT_MS;
  if (typeof timeoutMs !== 'number' || !Number.isSafeInteger(timeoutMs) || timeoutMs < 1) throw new RangeError('isolated.timeoutMs must be a positive integer');
  return { frameUrl, managerUrl, timeoutMs };
}

/**
 * App side: adds a hidden iframe on the keystore origin, waits for its hello, sends
 * `veilkit/keystore-connect` (target origin: the keystore origin) with one end of a new
 * `MessageChannel`, and resolves once the frame answers `ready` on it. The iframe is removed
 * when the transport closes or the handshake fails.
 */
export function connectKeystoreFrame(name: string, options: ResolvedIsolatedOptions): Promise<PortTransport> {
  const doc = (globalThis as { document?: Document }).document;
  if (doc === undefined) return Promise.reject(new VeilError('UNSUPPORTED_PLATFORM', 'the isolated-origin keystore needs a window (it embeds an iframe)'));
  const origin = options.frameUrl.origin;
  const iframe = doc.createElement('iframe');
  iframe.src = options.frameUrl.href;
  iframe.title = 'veilkit keystore';
  iframe.hidden = true;
  iframe.setAttribute('aria-hidden', 'true');
  const channel = new MessageChannel();
  const onHello = (e: MessageEvent): void => {
    if (e.source === null || e.source !== iframe.contentWindow || e.origin !== origin) return;
    const d = e.data as Partial<FrameHello> | null;
    if (d?.type !== 'veilkit/keystore-frame' || d.version !== ISOLATED_PROTOCOL_VERSION) return;
    globalThis.removeEventListener('message', onHello);
    iframe.contentWindow.postMessage({ type: 'veilkit/keystore-connect', version: 1, name } satisfies ConnectMessage, origin, [channel.port2]);
  };
  const cleanup = (): void => {
    globalThis.removeEventListener('message', onHello);
    iframe.remove();
  };
  globalThis.addEventListener('message', onHello);
  const ready = awaitReady(channel.port1, 'app', options.timeoutMs, `the keystore frame at ${origin}`, cleanup);
  doc.body.append(iframe);
  return ready;
}
