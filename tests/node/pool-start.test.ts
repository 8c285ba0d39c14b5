// Worker start failures (issue 17): a worker that never reports ready, or whose script cannot be loaded,
// fails the waiting call with VeilError('WORKER_START_FAILED') naming the worker URL and the cause,
// instead of hanging or saying `worker failed to start: undefined`. Node has no Web Worker: the pool
// runs on in-process fakes (`createWorker`), which is all it observes of a worker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as api from '../../ts/index.js';
import { workerErrorCause } from '../../ts/pool-start.js';

type Behaviour = 'ready' | 'silent' | 'load-error' | 'throw-on-load' | 'init-fails';

/** A Worker stand-in whose start goes as `behaviour` says; after a successful start it answers every request with null. */
class FakeWorker extends EventTarget {
  terminated = false;
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
