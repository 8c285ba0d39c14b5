// Messaging through the public API inside a module Worker in Chromium: the
// known-answer tests of vectors/messaging/kat.json, the seed's full E2EE flow
// and adversarial cases. One page load runs everything; each family / case is
// its own step with soft assertions.
import { test, expect } from './test.js';
import { ADVERSARIAL_CASE_COUNT, KAT_FAMILIES } from '../shared/messaging-suite.js';
import type { MessagingWorkerMessage } from './fixtures/messaging-worker.js';

test('messaging KATs, E2EE flow and adversarial cases in a module worker', async ({ page }) => {
  const pageLog: string[] = [];
  page.on('console', (m) => pageLog.push(`[console.${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => pageLog.push(`[pageerror] ${e.message}`));
  page.on('requestfailed', (r) => pageLog.push(`[requestfailed] ${r.url()} ${r.failure()?.errorText ?? ''}`));

  await page.goto('/tests/playwright/fixtures/messaging.html');
  const result = await page.evaluate<MessagingWorkerMessage>('window.messagingResult');
  if (result.type !== 'report') throw new Error(`messaging worker failed: ${result.message}\n${pageLog.join('\n')}`);
  const { kat, flow, adversarial } = result.report;
  console.log(`messaging suite in a module worker: ${result.millis} ms`);

  expect.soft(kat.map((r) => r.family)).toEqual(Object.keys(KAT_FAMILIES));
  for (const family of Object.keys(KAT_FAMILIES)) {
    await test.step(`KAT: ${family}`, () => {
      const r = kat.find((x) => x.family === family);
      expect.soft(r, `report for ${family}`).toBeDefined();
      if (r === undefined) return;
      expect.soft(r.failures, `${family} failures`).toEqual([]);
      expect.soft(r.checked, `${family}: cases checked`).toBe(r.expected);
    });
  }
  await test.step(flow.name, () => {
    expect.soft(flow.message, flow.name).toBe('');
    expect.soft(flow.ok, flow.name).toBe(true);
  });
  expect.soft(adversarial.length, 'adversarial cases run').toBe(ADVERSARIAL_CASE_COUNT);
  for (const r of adversarial) {
    await test.step(`adversarial: ${r.name}`, () => {
      expect.soft(r.message, r.name).toBe('');
      expect.soft(r.ok, r.name).toBe(true);
    });
  }
});
