// Group chat over the delivery service (issue 30, docs/GROUPS.md#group-chat), in every engine: three
// devices through the test server's delivery service (ts/group/delivery.ts over HTTP, `httpDelivery`);
// a device offline while forty messages and an update commit go by reads them all, in the log's order,
// once; lost answers, doubled reads and a history write that dies inside the group's commit lose and
// double nothing; a removed member reads nothing after; the server's store holds no plaintext.
import { test, expect, type Page } from './test.js';

type GroupChatTests = typeof import('./fixtures/group-chat-page.js');
declare global {
  interface Window { groupChatTests: GroupChatTests }
}

const PAGE = '/tests/playwright/fixtures/group-chat.html';

async function load(page: Page): Promise<void> {
  await page.goto(PAGE);
  await expect(page).toHaveTitle('ready');
}

test('a device offline while 40 messages and an update commit go by reads them all, in the log\'s order, exactly once; the server stores no plaintext', async ({ page }) => {
  test.setTimeout(240_000);
  await load(page);
  const r = await page.evaluate(() => window.groupChatTests.offlineDay('offline'));
  expect(r).toEqual({
    sentCount: 40, carolCount: 40, carolAll: true, carolUnique: true, storedCount: 40, ordered: true, storedKinds: ['received'],
    afterSecondSync: 40, reopenedCount: 40, reopenedSame: true, sameOrder: true,
    epochs: [2, 2, 2], skipped: [0, 0, 0], aliceOwnSent: 20, leaked: [], refused: 1, serverHasGroup: true,
  });
});

test('faults: a lost answer is posted again and stored once, doubled reads apply once, a history write that dies inside the group\'s commit leaves both as they were', async ({ page }) => {
  test.setTimeout(120_000);
  await load(page);
  const r = await page.evaluate(() => window.groupChatTests.faults('faults'));
  expect(r).toEqual({
    firstSend: 'resolved', lost: 1, logMessages: 2,
    aliceTexts: ['the answer to this post is lost', 'second'], aliceStatuses: ['sent', 'sent'],
    crashed: expect.stringMatching(/^(STORAGE_FAILED|AbortError)$/), cursorAfterCrash: 0,
    bobTexts: ['the answer to this post is lost', 'second'], bobStored: ['the answer to this post is lost', 'second'], bobSkipped: 0,
    twoTabs: ['the answer to this post is lost', 'second', 'third', 'from tab 1', 'from tab 2'], twoTabsSame: true, appLog: 5, aliceAfter: 5,
  });
});

test('a removed member learns it from the log and reads nothing sent after; sending is refused', async ({ page }) => {
  test.setTimeout(120_000);
  await load(page);
  const r = await page.evaluate(() => window.groupChatTests.removal('removal'));
  expect(r).toEqual({
    carolActive: false, carolTexts: ['before'], bobTexts: ['before', 'after'], members: 2, carolSkipped: 0, sendAfterRemoval: 'NOT_A_MEMBER',
  });
});

test('a device links over the delivery service\'s link channel: the registry lists it, the service keeps the longer registry, the code is used up', async ({ page, context }) => {
  test.setTimeout(120_000);
  await load(page);
  // Two devices: two browser contexts in Chromium and Firefox; WebKit's WebDriver adapter has one context,
  // so there the new device is a second page with its own keystore (as devices.spec.ts).
  const browser = test.info().project.name === 'webkit' ? null : context.browser();
  const other = browser === null ? undefined : await browser.newContext({ baseURL: new URL(page.url()).origin });
  const n = other === undefined ? await context.newPage() : await other.newPage();
  try {
    await load(n);
    const tag = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const code = await n.evaluate((name) => window.groupChatTests.linkStartNew(name), `link-new-${tag}`);
    expect(code).toMatch(/^[A-Z2-7]{26}$/);
    const existing = await page.evaluate(([name, user, c]) => window.groupChatTests.linkExisting(name!, user!, c!), [`link-old-${tag}`, `user-${tag}`, code]);
    const finished = await n.evaluate(() => window.groupChatTests.linkFinishNew());
    expect(existing).toEqual({
      added: 'phone', published: { stored: true, count: 2 }, devices: ['laptop:active', 'phone:active'], user: finished.user,
      again: 'AUTHENTICATION_FAILED', stale: { stored: false, count: 2 },
    });
    expect(finished.devices).toEqual(['laptop:active', 'phone:active']);
  } finally {
    await (other ?? n).close();
  }
});
