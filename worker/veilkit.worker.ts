/**
 * Worker entry. Start it as a module worker:
 * `new Worker(new URL('./veilkit.worker.js', import.meta.url), { type: 'module' })`
 * and send `{ type: 'veilkit/init' }`; it answers `{ type: 'veilkit/ready', ok }`
 * and then serves {@link Request}s one reply each.
 */
import * as primitives from '../ts/primitives.js';
import { capabilities, nativeCall } from '../ts/webcrypto/routes.js';
import {
  WORKER_PRIMITIVES, transferables, serializeError,
  type DebugHangStarted, type HandlerTable, type InitRequest, type ReadyMessage, type Replies, type Reply, type Request,
  type StartingMessage,
} from './protocol.js';
import { START_TICK_MS, THREADS_STEPS, onInitStep, superviseStart } from '../ts/init-steps.js';
import { keystoreHandlers } from './keystore.js';
import { filesHandlers } from './files.js';

interface WorkerScope {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  addEventListener(type: 'message', listener: (e: MessageEvent) => void): void;
  removeEventListener(type: 'message', listener: (e: MessageEvent) => void): void;
}
const scope = globalThis as unknown as WorkerScope;
const allowed: ReadonlySet<string> = new Set(WORKER_PRIMITIVES);
let debug = false;
/** Identifies this worker instance (lets tests observe affinity and replacement). */
const workerId = Math.random().toString(36).slice(2);

/**
 * One handler per request type, answering with `Replies[type]` (worker/protocol.ts): a request
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

async function handle(req: Request): Promise<unknown> {
  const handler = handlers[req.type] as ((r: Request) => unknown) | undefined;
  if (handler === undefined) throw new TypeError(`unknown request type ${String(req.type)}`);
  return handler(req);
}

async function onRequest(e: MessageEvent): Promise<void> {
  const req = e.data as Request;
  let reply: Reply;
  try {
    reply = { id: req.id, ok: true, value: await handle(req) };
  } catch (err) {
    reply = { id: req.id, ok: false, error: serializeError(err) };
  }
  scope.postMessage(reply, reply.ok ? transferables(reply.value) : []);
}

function onInit(e: MessageEvent): void {
  const msg = e.data as InitRequest;
  if (msg?.type !== 'veilkit/init') return;
  scope.removeEventListener('message', onInit);
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
      scope.addEventListener('message', (ev) => void onRequest(ev));
      scope.postMessage({ type: 'veilkit/ready', ok: true } satisfies ReadyMessage);
    },
    (err: unknown) => {
      done();
      scope.postMessage({ type: 'veilkit/ready', ok: false, error: serializeError(err) } satisfies ReadyMessage);
    },
  );
}

scope.addEventListener('message', onInit);
// A WorkerPool starts this worker and replaces it if its threads start blocks (ts/pool.ts).
superviseStart();
// The module graph loaded and ran: the first step a pool can see.
scope.postMessage({ type: 'veilkit/starting', step: 'script loaded' } satisfies StartingMessage);
