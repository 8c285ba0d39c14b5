import { test, expect } from './test.js';

type PoolTests = typeof import('./fixtures/pool-page.js');
declare global {
  interface Window { poolTests: PoolTests }
}

test.beforeEach(async ({ page }) => {
  await page.goto('/tests/playwright/fixtures/pool.html');
  await expect(page).toHaveTitle('ready');
});

test('1,000 concurrent mixed calls are all answered correctly', async ({ page }) => {
  const r = await page.evaluate(() => window.poolTests.mixed(1000, 2));
  expect(r.bad).toEqual([]);
  expect(r.ok).toBe(1000);
  expect(r.workersUsed).toBe(2);
});

test('a crashed worker fails only its own call and is replaced', async ({ page }) => {
  const r = await page.evaluate(() => window.poolTests.crash());
  expect(r.crashCode).toBe('WASM_PANIC');
  expect(r.othersOk).toBe(20);
  expect(r.afterOk).toBe(true);
  expect(r.replaced).toBe(true);
});

test('abort releases running and queued work', async ({ page }) => {
  // A 60 s busy loop, aborted once the worker reports it running: a hang ends at the runner's timeout.
  const r = await page.evaluate(() => window.poolTests.cancel());
  expect(r).toEqual({
    runningAborted: 'AbortError',
    queuedAborted: 'AbortError',
    // The hanging worker is terminated on abort; its replacement when the pool is disposed.
    exits: [{ slot: 0, reason: 'aborted' }, { slot: 0, reason: 'disposed' }],
    replaced: true,
    afterOk: true,
    preAborted: 'AbortError',
  });
});

test('affinity, idle termination, typed argument errors, dispose', async ({ page }) => {
  // Idle termination is awaited as the pool's onWorkerExit event (150 ms idle timeout).
  const r = await page.evaluate(() => window.poolTests.lifecycle());
  expect(r).toEqual({
    affinityStable: true,
    liveDuring: 1,
    idleLiveAfter: 0,
    exits: [{ slot: 0, reason: 'idle' }],
    afterIdleOk: true,
    typeErrorName: 'TypeError',
    disposedCode: 'INTERNAL',
  });
});

test('a pool works from inside a worker', async ({ page }) => {
  const r = await page.evaluate(() => window.poolTests.fromWorker());
  expect(r.bad).toEqual([]);
  expect(r.ok).toBe(100);
});
