// PQ chat sessions through the byte-level wasm wrapper inside a module Worker in
// Chromium: the seeded two-party simulation of tests/shared/session-sim.ts
// (handshake, then 300 messages with drops, duplicates and reordering), the
// same code Node runs with 1,000 messages (tests/node/session-core.test.ts).
import { test, expect } from './test.js';
import { CHROMIUM_SIM } from '../shared/session-sim.js';
import type { SessionWorkerMessage } from './fixtures/session-worker.js';

const MESSAGES = CHROMIUM_SIM.messages;

test('session simulation in a module worker', async ({ page }) => {
  const pageLog: string[] = [];
  page.on('console', (m) => pageLog.push(`[console.${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => pageLog.push(`[pageerror] ${e.message}`));
  page.on('requestfailed', (r) => pageLog.push(`[requestfailed] ${r.url()} ${r.failure()?.errorText ?? ''}`));

  await page.goto('/tests/playwright/fixtures/session.html');
  const result = await page.evaluate<SessionWorkerMessage>('window.sessionResult');
  if (result.type !== 'report') throw new Error(`session worker failed: ${result.message}\n${pageLog.join('\n')}`);
  const r = result.report;
  console.log(`session simulation in a module worker: ${result.millis} ms, ${JSON.stringify({ ...r, failures: r.failures.length })}`);

  expect.soft(r.failures).toEqual([]);
  expect.soft(r.messages).toBe(MESSAGES);
  expect.soft(r.delivered + r.lost + r.dropped).toBe(MESSAGES);
  expect.soft(r.delivered).toBeGreaterThan(MESSAGES / 2);
  expect.soft(r.dropped).toBeGreaterThan(0);
  expect.soft(r.immediateDuplicates).toBeGreaterThan(0);
  expect.soft(r.lateDuplicates).toBeGreaterThan(0);
  expect.soft(r.directionChanges).toBeGreaterThan(30);
});
