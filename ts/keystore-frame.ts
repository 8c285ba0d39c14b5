/**
 * `veilkit/keystore-frame`: the two pages an isolated-origin keystore serves on its own origin
 * (docs/KEYSTORE.md#isolated-origin-mode).
 *
 * - The **frame** page (`serveKeystoreFrame`), embedded by the app through
 *   `Keystore.open({ name, isolated: { frameUrl } })`, keeps the store (its worker, its
 *   IndexedDB) on the keystore origin and answers the app over a `MessageChannel`, after
 *   checking the app's origin against an allow-list. It refuses the export paths to the app.
 * - The **manager** page (`connectKeystoreManager`), a top-level window on the keystore origin
 *   opened by `Keystore.openManager()`, reaches that frame through `window.opener` and gets
 *   the whole API, export paths included, for its own UI: what it shows stays on the keystore
 *   origin, out of the app's reach.
 *
 * Serve both with `Content-Security-Policy: frame-ancestors <the allow-list>` (frame) or
 * `frame-ancestors 'none'` (manager) and `Origin-Agent-Cluster: ?1`; put nothing else on the
 * keystore origin.
 */
import { Keystore, keystoreOnTransport, keystoreRun, type KeystoreOptions } from './keystore.js';
import { resolveKdfBudget } from './keystore-format.js';
import { checkName } from '../protocol/args.js';
import { VeilError } from '../protocol/errors.js';
import {
  DEFAULT_FRAME_TIMEOUT_MS, ISOLATED_PROTOCOL_VERSION, TokenBucket, awaitReady, checkOrigin, checkPortRequest, isConnectMessage, isKeyUse,
  managerOnly, needsCurrentPassphrase, resolveRateLimit, type ConnectMessage, type FrameHello, type PortMessage, type PortTransport,
  type RateLimit,
} from './keystore-isolated.js';
import { serializeError, transferables } from '../protocol/protocol.js';
import type { KdfBudget } from '../protocol/keystore.protocol.js';

export { ISOLATED_PROTOCOL_VERSION, DEFAULT_RATE_LIMIT, type RateLimit } from './keystore-isolated.js';
export type { Keystore } from './keystore.js';

/** Options of the isolated-origin keystore frame (the page served on the keystore's own origin). */
export interface KeystoreFrameOptions {
  /**
   * Origins allowed to embed and use this keystore, e.g. `['https://app.example']`: exact
   * serialized origins (no wildcards). Connections from any other origin get no answer at all.
   */
  readonly allowedOrigins: readonly string[];
  /** Options of the frame's `Keystore` (pool, persistence, KDF budget); `name` comes from the app. */
  readonly keystore?: Omit<KeystoreOptions, 'name' | 'isolated'>;
  /**
   * The app connection's key-use rate limit (`sign`, `signHybrid`, container header signatures,
   * `decapsulate`, `deriveSharedKey`, `openSealed`, `openSealedExport`): a token bucket, default
   * `DEFAULT_RATE_LIMIT` (100 at once, then 10 a second); over it `RATE_LIMITED` with
   * `details.retryAfterMs`. Manager connections are not limited.
   */
  readonly rateLimit?: Partial<RateLimit>;
}

/**
 * What the frame serves on one port: the app (export paths refused, passphrase changes and
 * deletions gated by the current passphrase, key uses rate-limited) or a manager window.
 */
function serve(port: MessagePort, keystore: Keystore, role: 'app' | 'manager', rateLimit: RateLimit): void {
  const send = (m: PortMessage): void => port.postMessage(m);
  const bucket = new TokenBucket(rateLimit);
  port.onmessage = (e: MessageEvent) => {
    // A malformed message gets one MALFORMED_INPUT reply (id null without a usable id) and runs nothing.
    const checked = checkPortRequest(e.data);
    if (!checked.ok) {
      send(checked.reply);
      return;
    }
    const { id, body } = checked.request;
    // Taken when the request arrives, before anything runs: a refused request does nothing.
    const wait = role === 'app' && isKeyUse(body) ? bucket.take() : 0;
    const p = (body as { port?: unknown }).port;
    const run = async (): Promise<unknown> => {
      if (role === 'app' && managerOnly(body)) {
        throw new VeilError('TOP_LEVEL_REQUIRED', `${body.type}${body.type === 'keystore/set-passphrase' ? ' (removing the passphrase)' : ''} runs only in the keystore manager, a top-level window on ${location.origin}`);
      }
      if (role === 'app' && needsCurrentPassphrase(body) && typeof (body as { currentPassphrase?: unknown }).currentPassphrase !== 'string') {
        throw new VeilError('TOP_LEVEL_REQUIRED', `${body.type} from the app needs the store's current passphrase ({ currentPassphrase }); a store without one: the keystore manager, a top-level window on ${location.origin}`);
      }
      if (wait > 0) {
        throw new VeilError('RATE_LIMITED', `${body.type}: this connection used its keys more than ${rateLimit.burst} times at once or ${rateLimit.perSecond} a second; the next key use passes in ${wait} ms`, { details: { retryAfterMs: wait } });
      }
      // The request's buffers and port came with this message: this frame owns them.
      const transfer: Transferable[] = transferables(body);
      if (p instanceof MessagePort) transfer.push(p);
      return keystoreRun(keystore, body, transfer);
    };
    run().then(
      (value) => send({ type: 'reply', id, ok: true, value }),
      (err: unknown) => {
        // Refused here (the worker never saw the port): tell its other end, as the worker does on failure.
        if (p instanceof MessagePort && err instanceof VeilError && (err.code === 'RATE_LIMITED' || err.code === 'TOP_LEVEL_REQUIRED')) p.postMessage({ failed: true });
        send({ type: 'reply', id, ok: false, error: serializeError(err) });
      },
    );
  };
  keystore.onChange((change) => send({ type: 'change', change }));
  send({ type: 'ready', version: 1, role });
}

/**
 * Runs the keystore frame in this page (an iframe on the keystore origin). Returns a function
 * that stops answering new connections. Throws a `TypeError` when this page is not framed.
 */
export function serveKeystoreFrame(options: KeystoreFrameOptions): () => void {
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  if (!Array.isArray(options.allowedOrigins)) throw new TypeError('allowedOrigins must be an array of origins');
  const allowed = new Set(options.allowedOrigins.map((o, i) => checkOrigin(`allowedOrigins[${i}]`, o)));
  if (allowed.has(location.origin)) throw new RangeError('allowedOrigins must not contain the keystore origin itself');
  if (window.parent === window) throw new TypeError('serveKeystoreFrame runs in an iframe (this page is top-level)');
  const keystoreOptions = options.keystore ?? {};
  const rateLimit = resolveRateLimit(options.rateLimit);
  let app: { name: string; keystore: Promise<Keystore> } | undefined;

  const onMessage = (e: MessageEvent): void => {
    const d: unknown = e.data;
    if (!isConnectMessage(d) || e.ports.length !== 1) return;
    const port = e.ports[0];
    if (port === undefined) return;
    if (e.source === window.parent && allowed.has(e.origin) && app === undefined) {
      // The app: once per frame (the frame belongs to one Keystore).
      const keystore = Keystore.open({ ...keystoreOptions, name: d.name });
      app = { name: d.name, keystore };
      keystore.then(
        (ks) => serve(port, ks, 'app', rateLimit),
        (err: unknown) => port.postMessage({ type: 'failed', version: 1, error: serializeError(err) } satisfies PortMessage),
      );
    } else if (e.origin === location.origin && isTopLevelManager(e.source) && app !== undefined && app.name === d.name) {
      // A manager window: same origin, top-level, opened by the app page.
      app.keystore.then((ks) => serve(port, ks, 'manager', rateLimit), () => port.close());
    } else {
      // Not allowed: no answer at all.
      port.close();
    }
  };
  window.addEventListener('message', onMessage);
  window.parent.postMessage({ type: 'veilkit/keystore-frame', version: 1 } satisfies FrameHello, '*');
  return () => window.removeEventListener('message', onMessage);
}

function isTopLevelManager(source: MessageEventSource | null): boolean {
  if (source === null || source === window || source === window.parent) return false;
  const w = source as Window;
  return typeof w.top === 'object' && w.top === w;
}

/** Options of the isolated-origin keystore frame's top-level management page. */
export interface KeystoreManagerOptions {
  /** The store's name (default: the `name=` of this page's `#` fragment, as `openManager` writes it). */
  readonly name?: string;
  /** How long to wait for the keystore frame (default 10,000 ms); then `KEYSTORE_UNAVAILABLE`. */
  readonly timeoutMs?: number;
  /** KDF budget of `unlock` / `exportBackup` / `importBackup` on this connection (default `DEFAULT_KDF_BUDGET`). */
  readonly kdfBudget?: KdfBudget;
}

/**
 * In the keystore manager window (top-level, on the keystore origin, opened by
 * `Keystore.openManager()`): connects to the app's keystore frame through `window.opener`
 * and returns a `Keystore` with the whole API, export paths included. Show what they return
 * on this page only. `TOP_LEVEL_REQUIRED` when this page is framed; `KEYSTORE_UNAVAILABLE`
 * when no keystore frame of that name answers.
 */
export async function connectKeystoreManager(options: KeystoreManagerOptions = {}): Promise<Keystore> {
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  if (window.top !== window) throw new VeilError('TOP_LEVEL_REQUIRED', 'the keystore manager runs only in a top-level window');
  const name = checkName(options.name ?? new URLSearchParams(location.hash.slice(1)).get('name') ?? '');
  const kdfBudget = resolveKdfBudget(options.kdfBudget);
  const timeoutMs = options.timeoutMs ?? DEFAULT_FRAME_TIMEOUT_MS;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) throw new RangeError('timeoutMs must be a positive integer');
  const opener = window.opener as Window | null;
  if (opener === null) throw new VeilError('KEYSTORE_UNAVAILABLE', 'this window has no opener: open it from the app with Keystore.openManager()');
  // Ask every frame of the app page; only same-origin (keystore-origin) frames receive it, and
  // only the one serving `name` answers. The first answer wins.
  const attempts: Promise<PortTransport>[] = [];
  for (let i = 0; i < opener.frames.length; i++) {
    const frame = opener.frames[i];
    if (frame === undefined || frame === null) continue;
    const channel = new MessageChannel();
    attempts.push(awaitReady(channel.port1, 'manager', timeoutMs, `the keystore frame "${name}"`, () => {}));
    frame.postMessage({ type: 'veilkit/keystore-connect', version: ISOLATED_PROTOCOL_VERSION, name } satisfies ConnectMessage, location.origin, [channel.port2]);
  }
  if (attempts.length === 0) throw new VeilError('KEYSTORE_UNAVAILABLE', 'the opener has no frames: is the app\'s keystore open?');
  const transport = await Promise.any(attempts).catch(() => {
    throw new VeilError('KEYSTORE_UNAVAILABLE', `no keystore frame "${name}" answered within ${timeoutMs} ms`);
  });
  // Close the ports of the frames that did not answer (their attempts then time out harmlessly).
  void Promise.allSettled(attempts).then((all) => all.forEach((r) => {
    if (r.status === 'fulfilled' && r.value !== transport) r.value.close();
  }));
  return keystoreOnTransport(name, transport, kdfBudget);
}
