/**
 * Worker entry. Start it as a module worker:
 * `new Worker(new URL('./veilkit.worker.js', import.meta.url), { type: 'module' })`
 * and send `{ type: 'veilkit/init' }`; it answers `{ type: 'veilkit/ready', ok }`
 * and then serves {@link Request}s one reply each. Every other message gets one
 * reply too: a malformed one `MALFORMED_INPUT`, one before ready `NOT_INITIALIZED`
 * (protocol/protocol.ts, "Malformed messages").
 */
import * as primitives from '../ts/primitives.js';
import { capabilities, nativeCall } from '../ts/webcrypto/routes.js';
import { VeilError } from '../protocol/errors.js';
import {
  WORKER_PRIMITIVES, checkRequest, hasHandler, transferables, serializeError,
  type DebugHangStarted, type HandlerTable, type InitRequest, type ReadyMessage, type Replies, type Reply, type Request,
  type StartingMessage,
} from '../protocol/protocol.js';
import { START_TICK_MS, THREADS_STEPS, onInitStep, superviseStart } from '../ts/init-steps.js';
import { keystoreHandlers } from './keystore.js';
import { filesHandlers } from './files.js';

interface WorkerScope {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  addEventListener(type: 'message', listener: (e: MessageEvent) => void): void;
}
const scope = globalThis as unknown as WorkerScope;
const allowed: ReadonlySet<string> = new Set(WORKER_PRIMITIVES);
let debug = false;
/** Identifies this worker instance (lets tests observe affinity and replacement). */
const workerId = Math.random().toString(36).slice(2);

/**
 * One handler per request type, answering with `Replies[type]` (protocol/protocol.ts): a request
 * without a handler, or a handler returning the wrong type, is a type error. Areas (keystore,
 * files …) add their handlers here.
 */
const handlers: HandlerTable<Request, Replies> = {
  ...keystoreHandlers,
  ...filesHandlers,
  'veilkit/ping': () => ({ pong: true as const, workerId }),
  'veilkit/capabilities': () => capabilities(),
  'primitives/call': (req) => {
    if (!allowed.has(req.name)) throw new TypeError(`unknown primitive ${String(req.name)}`);
    // WebCrypto where this worker's route for the operation is native (ts/webcrypto/routes.ts).
    const native = nativeCall(req.name, req.args);
    if (native !== undefined) return native;
    const fn = primitives[req.name] as (...a: unknown[]) => unknown;
    return fn(...req.args);
  },
  'debug/crash': () => {
    if (!debug) throw new TypeError('debug requests are disabled');
    // An uncaught exception outside the message handler: the page sees the worker die.
    setTimeout(() => {
      throw new Error('debug/crash: deliberate worker crash');
    }, 0);
    return new Promise<never>(() => {});
  },
  'debug/hang': (req) => {
    if (!debug) throw new TypeError('debug requests are disabled');
    scope.postMessage({ type: 'debug/hang-started', id: req.id } satisfies DebugHangStarted);
    const end = Date.now() + req.ms;
    while (Date.now() < end) {
      // busy: only termination releases this worker
    }
    return 'done' as const;
  },
};

/** The table's handlers by name, looked up only after {@link hasHandler} said the name is its own. */
const byName = handlers as unknown as Readonly<Record<string, (r: Request) => unknown>>;

/** Posts a reply; one that cannot be cloned or transferred becomes an `INTERNAL` error reply, so the caller still hears back. */
function post(reply: Reply): void {
  try {
    scope.postMessage(reply, reply.ok ? transferables(reply.value) : []);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    const reason = err instanceof Error && err.name !== '' ? err.name : 'Error'; // DataCloneError, usually
    scope.postMessage({ id: reply.id, ok: false, error: serializeError(new VeilError('INTERNAL', `the reply could not be sent: ${why}`, { details: { reason } })) } satisfies Reply);
  }
}

async function onRequest(e: MessageEvent): Promise<void> {
  // Own handlers only: a type such as 'constructor' or 'toString' must not reach Object.prototype's.
  const checked = checkRequest(e.data, (type) => hasHandler(handlers, type));
  if (!checked.ok) {
    post(checked.reply);
    return;
  }
  const req = e.data as Request;
  const handler = byName[checked.type];
  let reply: Reply;
  try {
    if (handler === undefined) throw new VeilError('INTERNAL', `no handler for ${checked.type}`);
    reply = { id: checked.id, ok: true, value: await handler(req) };
  } catch (err) {
    reply = { id: checked.id, ok: false, error: serializeError(err) };
  }
  post(reply);
}

/** `new` until `veilkit/init` arrives, `starting` while init() runs (or after it failed), then `serving`. */
let phase: 'new' | 'starting' | 'serving' = 'new';

/** The one message listener: init first, then requests; anything before ready is answered NOT_INITIALIZED. */
function onMessage(e: MessageEvent): void {
  if (phase === 'serving') {
    void onRequest(e);
    return;
  }
  const msg: unknown = e.data;
  if (phase === 'new' && typeof msg === 'object' && msg !== null && (msg as { type?: unknown }).type === 'veilkit/init') {
    phase = 'starting';
    start(msg as InitRequest);
    return;
  }
  const id = typeof msg === 'object' && msg !== null ? (msg as { id?: unknown }).id : undefined;
  post({
    id: typeof id === 'number' && Number.isSafeInteger(id) ? id : null, ok: false,
    error: serializeError(new VeilError('NOT_INITIALIZED', 'this worker serves requests only after veilkit/init has answered veilkit/ready ok')),
  });
}

function start(msg: InitRequest): void {
  debug = msg.debug === true;
  const options: primitives.InitOptions = {
    ...(msg.wasmUrl === undefined ? {} : { wasm: msg.wasmUrl }),
    ...(msg.route === undefined ? {} : { route: msg.route }),
    ...(msg.threads === undefined ? {} : { threads: msg.threads }),
  };
  // Each loading step of init() goes to the pool, which names the last one if ready never comes.
  // The threads steps are repeated while they last: silence there means this thread is blocked.
  let tick: ReturnType<typeof setInterval> | undefined;
  const report = (step: string) => scope.postMessage({ type: 'veilkit/starting', step } satisfies StartingMessage);
  const done = () => {
    onInitStep(undefined);
    if (tick !== undefined) clearInterval(tick);
  };
  onInitStep((step) => {
    report(step);
    if (tick !== undefined) clearInterval(tick);
    tick = THREADS_STEPS.has(step) ? setInterval(() => report(step), START_TICK_MS) : undefined;
  });
  primitives.init(options).then(
    () => {
      done();
      phase = 'serving';
      scope.postMessage({ type: 'veilkit/ready', ok: true } satisfies ReadyMessage);
    },
    (err: unknown) => {
      done();
      scope.postMessage({ type: 'veilkit/ready', ok: false, error: serializeError(err) } satisfies ReadyMessage);
    },
  );
}

scope.addEventListener('message', onMessage);
// A WorkerPool starts this worker and replaces it if its threads start blocks (ts/pool.ts).
superviseStart();
// The module graph loaded and ran: the first step a pool can see.
scope.postMessage({ type: 'veilkit/starting', step: 'script loaded' } satisfies StartingMessage);
