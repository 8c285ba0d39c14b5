import { test, expect } from '@playwright/test';

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
  const r = await page.evaluate(() => window.poolTests.cancel());
  expect(r.runningAborted).toBe('AbortError');
  expect(r.queuedAborted).toBe('AbortError');
  expect(r.preAborted).toBe('AbortError');
  expect(r.elapsedMs).toBeLessThan(30_000); // a 60 s busy loop was cut short
  expect(r.afterOk).toBe(true);
});

test('affinity, idle termination, typed argument errors, dispose', async ({ page }) => {
  const r = await page.evaluate(() => window.poolTests.lifecycle());
  expect(r.affinityStable).toBe(true);
  expect(r.liveDuring).toBe(1);
  expect(r.idleLiveAfter).toBe(0);
  expect(r.afterIdleOk).toBe(true);
  expect(r.typeErrorName).toBe('TypeError');
  expect(r.disposedCode).toBe('INTERNAL');
});

test('a pool works from inside a worker', async ({ page }) => {
  const r = await page.evaluate(() => window.poolTests.fromWorker());
  expect(r.bad).toEqual([]);
  expect(r.ok).toBe(100);
});
