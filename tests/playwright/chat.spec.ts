// useChat's conversation logic on the real keystore and sessions (issue 34 item 2), in Chromium:
// both sides initiate in the same instant and exchange 21 messages each way; they converge on one
// session and every message is read exactly once. The hook's other cases run against fakes in
// tests/react/chat-identity.test.ts.
import { test, expect, engine } from './test.js';
import { skipIf } from './skip.js';

type ChatTests = typeof import('./fixtures/chat-page.js');
declare global {
  interface Window { chatTests: ChatTests }
}

test('crossing initiations converge on the lower identity id\'s session; 21 messages each way, each read exactly once', async ({ page }) => {
  skipIf(engine !== 'chromium', 'engine-independent TypeScript over the Session API, which sessions.spec.ts runs in every engine; one engine keeps CI time down');
  await page.goto('/tests/playwright/fixtures/chat-page.html');
  await expect(page).toHaveTitle('ready');
  const base = `chat-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const r = await page.evaluate(([a, b]) => window.chatTests.crossing(a!, b!, 20, 3), [`${base}-a`, `${base}-b`]);
  const all = (x: string) => Array.from({ length: 21 }, (_, i) => `${x}${String(i)}`);
  expect(r.firstKinds).toEqual([1, 1]);
  expect(r.errors).toEqual([undefined, undefined]);
  expect(r.rejected).toEqual([0, 0]);
  expect(r.peerTexts).toEqual([all('b'), all('a')]);
  expect(r.idsAgree).toBe(true);
  expect(r.roles).toEqual(r.aliceLower ? ['initiator', 'responder'] : ['responder', 'initiator']);
  expect(r.sameCode).toBe(true);
  // Each side keeps its current session and the losing one (archived).
  expect(r.sessions).toEqual([2, 2]);
});
