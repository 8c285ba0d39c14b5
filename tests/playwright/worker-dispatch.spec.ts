// Malformed messages to every message entry (issue 34 item 6, protocol/protocol.ts "Malformed messages"):
// the veilkit worker (its core, keystore and files handlers are one table) and the isolated keystore
// frame's port. Attack-shaped: page script posts null, non-objects, messages without an id or a type,
// unknown types and the names Object.prototype carries (`constructor`, `__proto__`, `toString` …). Each
// must get exactly one typed error reply — VeilError MALFORMED_INPUT, with the message's id or null —
// and the entry must serve a good request right afterwards. Before veilkit/ready the worker answers
// NOT_INITIALIZED.
import { test, expect } from './test.js';
import type { Answer, EntryResult } from './fixtures/dispatch-page.js';

type DispatchTests = typeof import('./fixtures/dispatch-page.js');
declare global {
  interface Window { dispatchTests: DispatchTests }
}

test.beforeEach(async ({ page }) => {
  await page.goto('/tests/playwright/fixtures/dispatch.html');
  await expect(page).toHaveTitle('ready');
});

/** The id a malformed message's reply must carry: its own when it is a safe integer, else null. */
function expectedId(msg: unknown): number | null {
  const id = typeof msg === 'object' && msg !== null ? (msg as { id?: unknown }).id : undefined;
  return typeof id === 'number' && Number.isSafeInteger(id) ? id : null;
}

function check(r: EntryResult, messages: readonly (readonly [string, unknown])[]): void {
  const want: [string, Answer][] = messages.map(([name, msg]) => [name, { id: expectedId(msg), outcome: 'VeilError MALFORMED_INPUT' }]);
  expect(r.answers).toEqual(want);
  expect(r.servedAfter).toEqual(messages.map(([name]) => [name, true]));
}

test('the veilkit worker answers every malformed message with MALFORMED_INPUT and keeps serving; before ready, NOT_INITIALIZED', async ({ page }) => {
  const r = await page.evaluate(() => window.dispatchTests.workerEntry());
  const messages = await page.evaluate(() => window.dispatchTests.MALFORMED.map(([n, m]) => [n, m] as const));
  console.log(JSON.stringify(r));
  expect(r.beforeReady).toEqual({ id: 900, outcome: 'VeilError NOT_INITIALIZED' });
  check(r, messages);
});

test('the isolated keystore frame answers every malformed port message with MALFORMED_INPUT and keeps serving', async ({ page }) => {
  const name = `dispatch-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const r = await page.evaluate((n) => window.dispatchTests.frameEntry(n), name);
  const messages = await page.evaluate(() => window.dispatchTests.MALFORMED_PORT.map(([n, m]) => [n, m] as const));
  console.log(JSON.stringify(r));
  check(r, messages);
});
