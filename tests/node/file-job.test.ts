// The file operation's observable state (issue 15): `subscribe` / `getSnapshot` as React's
// useSyncExternalStore needs them — the same snapshot object until something changes, listeners
// on every progress step and at the end, a working unsubscribe, the error in a failed snapshot.
// The state machine is checked here on its own; tests/playwright/files.spec.ts checks it on a real
// encryptFile / decryptFile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VeilError } from '../../protocol/errors.js';
import { JobState, batchProgress, observe, pipeline, progress, type FileJob } from '../../ts/files/job.js';
import type { FileJobSnapshot } from '../../ts/files.js';

function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

test('FileOperation: snapshot identity is stable between changes; progress and completion notify; unsubscribe works', async () => {
  const state = new JobState<string>();
  const run = deferred<string>();
  const op = observe(state, run.promise, undefined);
  const { subscribe, getSnapshot } = op; // unbound, as useSyncExternalStore calls them
  const first = getSnapshot();
  assert.deepEqual(first, { status: 'running', progress: undefined, error: undefined, result: undefined });
  assert.equal(getSnapshot(), first, 'no change: the same object');
  assert.ok(Object.isFrozen(first));

  const seen: FileJobSnapshot<string>[] = [];
  let calls = 0;
  const unsubscribe = subscribe(() => seen.push(getSnapshot()));
  const other = subscribe(() => calls++);
  const user: number[] = [];
  const tick = progress((p) => user.push(p.bytesDone), 300, 3, state);
  tick(100, 1);
  const second = getSnapshot();
  assert.notEqual(second, first, 'progress: a new snapshot');
  assert.deepEqual(second.progress, { phase: 'chunks', bytesDone: 100, bytesTotal: 300, chunksDone: 1, chunksTotal: 3 });
  assert.equal(getSnapshot(), second);
  tick(100, 1);
  assert.deepEqual(user, [100, 200], 'the onProgress callback still gets every step');
  assert.equal(seen.length, 2);
  assert.equal(calls, 2);

  other();
  other(); // idempotent
  run.resolve('the blob');
  assert.equal(await op, 'the blob', 'still a promise of the result');
  const done = getSnapshot();
  assert.equal(done.status, 'done');
  assert.equal(done.result, 'the blob');
  assert.equal(done.error, undefined);
  assert.deepEqual(done.progress, { phase: 'chunks', bytesDone: 200, bytesTotal: 300, chunksDone: 2, chunksTotal: 3 }, 'the last progress is kept');
  assert.equal(seen.length, 3, 'the listener is called on completion');
  assert.equal(seen[2], done);
  assert.equal(calls, 2, 'an unsubscribed listener is not called');

  unsubscribe();
  tick(100, 1);
  assert.equal(getSnapshot(), done, 'a settled operation never changes');
  assert.equal(seen.length, 3);
});

test('FileOperation: a failure carries the VeilError; an abort is cancelled; a throwing listener is contained', async () => {
  const failedState = new JobState<string>();
  const failing = deferred<string>();
  const failedOp = observe(failedState, failing.promise, undefined);
  failedOp.subscribe(() => {
    throw new Error('listener bug');
  });
  const err = new VeilError('AUTHENTICATION_FAILED', 'authentication failed');
  failing.reject(err);
  await assert.rejects(failedOp, (e: unknown) => e === err);
  const failed = failedOp.getSnapshot();
  assert.equal(failed.status, 'failed');
  assert.equal(failed.error, err);
  assert.ok(failed.error instanceof VeilError && failed.error.code === 'AUTHENTICATION_FAILED');
  assert.equal(failed.result, undefined);

  const controller = new AbortController();
  const reason = new Error('user cancelled');
  const aborting = deferred<string>();
  const cancelledOp = observe(new JobState<string>(), aborting.promise, controller.signal);
  controller.abort(reason);
  aborting.reject(reason);
  await assert.rejects(cancelledOp);
  assert.equal(cancelledOp.getSnapshot().status, 'cancelled');
  assert.equal(cancelledOp.getSnapshot().error, reason);

  const domAbort = deferred<string>();
  const domOp = observe(new JobState<string>(), domAbort.promise, undefined);
  domAbort.reject(new DOMException('The operation was aborted', 'AbortError'));
  await assert.rejects(domOp);
  assert.equal(domOp.getSnapshot().status, 'cancelled');

  assert.throws(() => failedOp.subscribe('nope' as unknown as () => void), TypeError);
});

test('batchProgress: worker steps as they come, the rest at the end, never past the batch; empty steps are not reported', () => {
  const steps: [number, number, string][] = [];
  const tick = progress((p) => steps.push([p.bytesDone, p.chunksDone, p.phase]), 5 << 20, 5);
  const b = batchProgress(tick, 3 << 20, 3);
  b.onProgress({ bytes: 1 << 20, chunks: 1 });
  b.onProgress({ bytes: 1 << 20, chunks: 1 });
  b.finish();
  const c = batchProgress(tick, 2 << 20, 2);
  c.onProgress({ bytes: 2 << 20, chunks: 2 });
  c.onProgress({ bytes: 1 << 20, chunks: 1 }); // more than the batch: ignored
  c.finish(); // nothing left: no step
  assert.deepEqual(steps, [
    [1 << 20, 1, 'chunks'], [2 << 20, 2, 'chunks'], [3 << 20, 3, 'chunks'], [5 << 20, 5, 'chunks'],
  ]);
});

/** The part of a FileJob that `pipeline` uses: its window, abort signal, fail and error. */
function fakeJob(limit: number): FileJob {
  const controller = new AbortController();
  const job = {
    limit,
    signal: controller.signal,
    fail: (e: unknown) => {
      if (!controller.signal.aborted) controller.abort(e);
    },
    error: (e: unknown): unknown => (controller.signal.aborted ? (controller.signal.reason as unknown) : e),
  };
  return job as unknown as FileJob;
}

test('pipeline: a later task that fails first still lets every earlier result through, in order, then reports its error', async () => {
  const tasks = [deferred<string>(), deferred<string>(), deferred<string>(), deferred<string>()];
  const started: number[] = [];
  const consumed: string[] = [];
  const run = pipeline(fakeJob(3), tasks.length, (i) => {
    started.push(i);
    return tasks[i]?.promise ?? Promise.reject(new Error('no task'));
  }, (_i, v) => {
    consumed.push(v);
  });
  assert.deepEqual(started, [0, 1, 2], 'the window holds three');
  const bad = new VeilError('AUTHENTICATION_FAILED', 'chunk 2');
  tasks[2]?.reject(bad); // the third batch fails while the first two still run (the workers race)
  await new Promise((r) => setTimeout(r, 0));
  let settled = false;
  void run.then(() => (settled = true), () => (settled = true));
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(settled, false, 'not reported while earlier batches are pending');
  tasks[1]?.resolve('b');
  tasks[0]?.resolve('a');
  await assert.rejects(run, (e) => e === bad);
  assert.deepEqual(consumed, ['a', 'b'], 'both earlier batches are released, in order');
  assert.deepEqual(started, [0, 1, 2], 'nothing starts after the failed task');
});

test('pipeline: an earlier failure wins over a later one; an abort stops it at once', async () => {
  const tasks = [deferred<string>(), deferred<string>()];
  const consumed: string[] = [];
  const first = new Error('first');
  const run = pipeline(fakeJob(2), 2, (i) => tasks[i]?.promise ?? Promise.reject(new Error('no task')), (_i, v) => {
    consumed.push(v);
  });
  tasks[1]?.reject(new Error('second'));
  tasks[0]?.reject(first);
  await assert.rejects(run, (e) => e === first);
  assert.deepEqual(consumed, []);

  const job = fakeJob(2);
  const pending = deferred<string>();
  const stopped = pipeline(job, 2, () => pending.promise, () => {});
  const reason = new Error('stop');
  job.fail(reason);
  await assert.rejects(stopped, (e) => e === reason);
});
