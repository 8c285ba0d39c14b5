// Worker start failures (issue 17): a worker that never reports ready, or whose script cannot be loaded,
// fails the waiting call with VeilError('WORKER_START_FAILED') naming the worker URL and the cause,
// instead of hanging or saying `worker failed to start: undefined`. Node has no Web Worker: the pool
// runs on in-process fakes (`createWorker`), which is all it observes of a worker.
import { mock, test } from 'node:test';
import assert from 'node:assert/strict';
import * as api from '../../ts/index.js';
import { workerErrorCause } from '../../ts/pool-start.js';
import { blockingThreadsStart } from '../../ts/init-steps.js';

type Behaviour = 'ready' | 'silent' | 'load-error' | 'throw-on-load' | 'init-fails' | 'stuck-in-threads' | 'slow-threads';

/** The step a worker reports while the threads build starts its helper workers (ts/init-steps.ts). */
const HELPERS_STEP = "starting the threads build's helper workers";

/** A Worker stand-in whose start goes as `behaviour` says; after a successful start it answers every request with null. */
class FakeWorker extends EventTarget {
  terminated = false;
  /** The `veilkit/init` messages it got. */
  readonly inits: { threads?: boolean | number }[] = [];
  constructor(private readonly behaviour: Behaviour) {
    super();
    if (behaviour === 'load-error') {
      // What a browser dispatches when the module script 404s: a plain Event, no message, no location.
      setTimeout(() => this.dispatchEvent(new Event('error', { cancelable: true })), 0);
    } else if (behaviour === 'throw-on-load') {
      setTimeout(() => this.dispatchEvent(Object.assign(new Event('error', { cancelable: true }), {
        message: 'SyntaxError: Cannot use import statement outside a module',
        filename: 'https://app.example/assets/veilkit.worker-abc123.js',
        lineno: 3,
        colno: 1,
      })), 0);
    }
  }
  postMessage(message: { type: string; id?: number }): void {
    queueMicrotask(() => {
      if (message.type === 'veilkit/init') {
        this.inits.push(message as { threads?: boolean | number });
        const step = (s: string) => this.dispatchEvent(new MessageEvent('message', { data: { type: 'veilkit/starting', step: s } }));
        // What a blocked threads start looks like from outside: its last steps, then nothing.
        if (this.behaviour === 'stuck-in-threads') ['script loaded', 'loading the threads build', HELPERS_STEP].forEach(step);
        // Slow but alive: repeats its step every 500 ms (as veilkit.worker.ts does) for 20 s, then is ready.
        if (this.behaviour === 'slow-threads') {
          step(HELPERS_STEP);
          let ticks = 0;
          const tick = setInterval(() => {
            step(HELPERS_STEP);
            if (++ticks < 40) return;
            clearInterval(tick);
            step('probing WebCrypto');
            this.dispatchEvent(new MessageEvent('message', { data: { type: 'veilkit/ready', ok: true } }));
          }, 500);
        }
        if (this.behaviour === 'ready') this.dispatchEvent(new MessageEvent('message', { data: { type: 'veilkit/ready', ok: true } }));
        if (this.behaviour === 'init-fails') {
          this.dispatchEvent(new MessageEvent('message', {
            data: { type: 'veilkit/ready', ok: false, error: { name: 'VeilError', code: 'UNSUPPORTED_PLATFORM', message: 'could not load the wasm core: CompileError' } },
          }));
        }
        return;
      }
      this.dispatchEvent(new MessageEvent('message', { data: { id: message.id, ok: true, value: null } }));
    });
  }
  terminate(): void {
    this.terminated = true;
  }
}

function pool(behaviours: Behaviour[], options: api.PoolOptions = {}): { pool: api.WorkerPool; workers: FakeWorker[]; exits: api.WorkerExit[] } {
  const workers: FakeWorker[] = [];
  const exits: api.WorkerExit[] = [];
  const p = new api.WorkerPool({
    size: 1,
    idleTimeoutMs: 0,
    workerUrl: 'https://app.example/assets/veilkit.worker.js',
    onWorkerExit: (e) => exits.push(e),
    createWorker: () => {
      const w = new FakeWorker(behaviours[workers.length] ?? 'ready');
      workers.push(w);
      return w as unknown as Worker;
    },
    ...options,
  });
  return { pool: p, workers, exits };
}

function startFailed(e: unknown, reason: RegExp): boolean {
  assert.ok(e instanceof api.VeilError, `a VeilError, got ${String(e)}`);
  assert.equal(e.code, 'WORKER_START_FAILED');
  assert.equal(e.details.url, 'https://app.example/assets/veilkit.worker.js');
  assert.match(e.details.reason ?? '', reason);
  assert.ok(e.message.includes('https://app.example/assets/veilkit.worker.js'), e.message);
  assert.ok(e.message.includes(e.details.reason ?? '?'), e.message);
  assert.doesNotMatch(e.message, /undefined/);
  return true;
}

test('WORKER_START_FAILED is a stable error code', () => {
  assert.ok(api.VEIL_ERROR_CODES.includes('WORKER_START_FAILED'));
});

test('a worker that never reports ready: the call rejects after startTimeoutMs, the worker is terminated, the next call starts a fresh one', async () => {
  const { pool: p, workers, exits } = pool(['silent', 'ready'], { startTimeoutMs: 50 });
  await assert.rejects(p.run({ type: 'veilkit/ping' }), (e) => startFailed(e, /did not report ready within 50 ms/));
  assert.equal(workers[0]?.terminated, true);
  assert.deepEqual(exits, [{ slot: 0, reason: 'failed to start' }]);
  assert.equal(p.liveWorkers, 0);
  assert.equal(await p.run({ type: 'veilkit/ping' }), null, 'a later call gets a new worker');
  assert.equal(workers.length, 2);
  p.dispose();
});

test('a worker script that cannot be loaded (error event without a message): the cause says so, not "undefined"', async () => {
  const { pool: p, workers } = pool(['load-error']);
  await assert.rejects(p.run({ type: 'veilkit/ping' }), (e) => startFailed(e, /^the script could not be loaded/));
  assert.equal(workers[0]?.terminated, true);
  p.dispose();
});

test('a worker that throws while loading: the ErrorEvent message and location are in the error', async () => {
  const { pool: p } = pool(['throw-on-load']);
  await assert.rejects(p.run({ type: 'veilkit/ping' }), (e) =>
    startFailed(e, /^SyntaxError: Cannot use import statement outside a module \(https:\/\/app\.example\/assets\/veilkit\.worker-abc123\.js:3:1\)$/));
  p.dispose();
});

test('a worker whose init() fails keeps the worker\'s own error (more precise than a start failure)', async () => {
  const { pool: p } = pool(['init-fails']);
  await assert.rejects(p.run({ type: 'veilkit/ping' }), (e) => e instanceof api.VeilError && e.code === 'UNSUPPORTED_PLATFORM' && /CompileError/.test(e.message));
  p.dispose();
});

test('a custom createWorker without workerUrl is named as such', async () => {
  const p = new api.WorkerPool({ size: 1, startTimeoutMs: 20, createWorker: () => new FakeWorker('silent') as unknown as Worker });
  await assert.rejects(p.run({ type: 'veilkit/ping' }), (e) => e instanceof api.VeilError && e.details.url === '(custom createWorker)');
  p.dispose();
});

test('startTimeoutMs is checked; 0 waits forever (the call is still cancellable)', async () => {
  assert.throws(() => new api.WorkerPool({ startTimeoutMs: -1 }), RangeError);
  assert.throws(() => new api.WorkerPool({ startTimeoutMs: Number.NaN }), RangeError);
  const { pool: p } = pool(['silent'], { startTimeoutMs: 0 });
  const ac = new AbortController();
  const pending = p.run({ type: 'veilkit/ping' }, { signal: ac.signal });
  setTimeout(() => ac.abort(), 30);
  await assert.rejects(pending, (e) => e instanceof DOMException && e.name === 'AbortError');
  p.dispose();
});

test('workerErrorCause: message with location, message alone, and a bare load failure', () => {
  const ev = (fields: Record<string, unknown>) => Object.assign(new Event('error'), fields);
  assert.equal(workerErrorCause(ev({ message: 'boom', filename: 'w.js', lineno: 7, colno: 2 })), 'boom (w.js:7:2)');
  assert.equal(workerErrorCause(ev({ message: 'boom' })), 'boom');
  assert.match(workerErrorCause(ev({})), /^the script could not be loaded/);
  assert.match(workerErrorCause(ev({ message: '', filename: 'w.js' })), /^the script could not be loaded .*\(w\.js\)$/);
});

test('a worker blocked while the threads build starts its helpers (automatic threads) is replaced by a SIMD-build worker; the call succeeds', async () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const { pool: p, workers, exits } = pool(['stuck-in-threads', 'ready']);
    const call = p.run({ type: 'veilkit/ping' });
    await new Promise<void>((r) => queueMicrotask(r));
    await new Promise<void>((r) => queueMicrotask(r));
    assert.equal(workers.length, 1);
    mock.timers.tick(4_999);
    assert.equal(workers.length, 1, 'not before 5 s of silence (ten missed 500 ms repeats)');
    mock.timers.tick(1);
    assert.equal(workers[0]?.terminated, true);
    assert.deepEqual(exits, [{ slot: 0, reason: 'failed to start' }]);
    assert.equal(workers.length, 2);
    assert.equal(await call, null);
    assert.deepEqual(workers.map((w) => w.inits[0]?.threads), [undefined, false], 'the replacement starts without threads');
    p.dispose();
  } finally {
    mock.timers.reset();
  }
});

test('threads asked for explicitly: no SIMD replacement; the start failure names the last step the worker reported', async () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const { pool: p, workers } = pool(['stuck-in-threads'], { threads: true, startTimeoutMs: 20_000 });
    const call = p.run({ type: 'veilkit/ping' });
    const settled = assert.rejects(call, (e) => startFailed(e, /did not report ready within 20000 ms \(last step reported: starting the threads build's helper workers\)/)
      && e instanceof api.VeilError && e.details.step === HELPERS_STEP);
    await new Promise<void>((r) => queueMicrotask(r));
    await new Promise<void>((r) => queueMicrotask(r));
    mock.timers.tick(20_000);
    await settled;
    assert.equal(workers.length, 1);
    assert.deepEqual(workers[0]?.inits[0]?.threads, true);
    p.dispose();
  } finally {
    mock.timers.reset();
  }
});

test('a worker that loads the threads build slowly but keeps repeating its step is not replaced', async () => {
  mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
  try {
    const { pool: p, workers, exits } = pool(['slow-threads']);
    const call = p.run({ type: 'veilkit/ping' });
    await new Promise<void>((r) => queueMicrotask(r));
    await new Promise<void>((r) => queueMicrotask(r));
    for (let i = 0; i < 40; i++) mock.timers.tick(500);
    assert.equal(await call, null);
    assert.equal(workers.length, 1);
    assert.deepEqual(exits, []);
    p.dispose();
  } finally {
    mock.timers.reset();
  }
});

test('blockingThreadsStart names Firefox (its threads start can block a worker for good), not Chromium or WebKit', () => {
  assert.equal(blockingThreadsStart('Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0'), true);
  assert.equal(blockingThreadsStart('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36'), false);
  assert.equal(blockingThreadsStart('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15'), false);
  assert.equal(blockingThreadsStart(undefined), false);
});
