// The encrypted message history (docs/KEYSTORE.md#message-history) in every engine: useChat's default
// storage leaves nothing readable in IndexedDB (an attacker's dump of every database, with the plaintext
// opt-in as the control); locked and wrong-passphrase stores read nothing; modified, swapped and moved
// records are AUTHENTICATION_FAILED; a batch crashed half-way loses nothing acknowledged; deletion removes
// the records; the last 50 of 2,000 entries touch 50 records (counted in the worker, not timed).
import { test, expect, type Page } from './test.js';

type HistoryTests = typeof import('./fixtures/history-page.js');
declare global {
  interface Window { historyTests: HistoryTests }
}

async function load(page: Page): Promise<void> {
  await page.goto('/tests/playwright/fixtures/history.html');
  await expect(page).toHaveTitle('ready');
}

const unique = (tag: string) => `h-${tag}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

test('attack: a dump of every IndexedDB database after a chat finds no message, conversation name or key bytes (the plaintext opt-in finds them all)', async ({ page }) => {
  test.setTimeout(180_000);
  await load(page);
  const base = unique('dump');
  const r = await page.evaluate((b) => window.historyTests.dumpAfterChat(b), base);
  // The dump read the keystores of both runs and the plaintext run's chat database.
  expect(r.databases).toEqual(expect.arrayContaining([`veilkit-keystore:${base}-a`, `veilkit-keystore:${base}-b`, `veilkit-chat:${base}-pa`]));
  expect(r.databases.filter((d) => d.startsWith('veilkit-chat:') && !d.includes(`${base}-p`))).toEqual([]);
  expect(r.historyRecords).toBeGreaterThanOrEqual(16 + 1);
  expect(r.hits).toEqual([]);
  expect(r.reloaded).toBe(true);
  // Every sealed entry is iv(12) ‖ a padded bucket (a power of two ≥ 64) ‖ tag(16).
  for (const n of r.historyLengths) expect(Math.log2(n - 28) % 1 === 0 && n - 28 >= 64).toBe(true);
  // Control: the same search over the old default's database finds every message (each at least once).
  expect(r.plaintextHits).toBeGreaterThanOrEqual(r.plaintextTexts);
  expect(r.keyHitsInPlaintextRun).toBe(0);
  // The plaintext conversation of an earlier veilkit was moved in and its database deleted.
  expect(r.migrated).toEqual([expect.stringContaining('legacy message')]);
  expect(r.legacyDbLeft).toBe(false);
});

test('locked or wrong passphrase reads nothing; a modified, swapped or moved record is AUTHENTICATION_FAILED; a passphrase change keeps the history', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.historyTests.lockAndTamper(n), unique('lock'));
  expect(r.first).toEqual({ first: 1, next: 4 });
  expect(r.locked).toEqual({ latest: 'KEYSTORE_LOCKED', append: 'KEYSTORE_LOCKED', deleteAll: 'KEYSTORE_LOCKED' });
  expect(r.wrong).toBe('AUTHENTICATION_FAILED');
  expect(r.afterWrong).toBe('KEYSTORE_LOCKED');
  expect(r.read).toEqual(['one', 'two', 'three']);
  expect(r.seqs).toEqual([1, 2, 3]);
  expect(r.otherWorker).toEqual(['one', 'two', 'three']);
  expect(r.tampered).toEqual({ code: 'AUTHENTICATION_FAILED', index: 2 });
  expect(r.beforeTampered).toEqual(['one']);
  expect(r.swapped).toBe('AUTHENTICATION_FAILED');
  expect(r.moved).toBe('AUTHENTICATION_FAILED');
  expect(r.restored).toEqual(['one', 'two', 'three']);
  expect(r.oldPassphrase).toBe('AUTHENTICATION_FAILED');
  expect(r.afterChange).toEqual(['one', 'two', 'three']);
});

test('a batch crashed half-way loses nothing acknowledged; the last 50 of 2,000 touch 50 records; deletion removes the records', async ({ page }) => {
  test.setTimeout(180_000);
  await load(page);
  const r = await page.evaluate((n) => window.historyTests.crashDeleteScale(n), unique('crash'));
  expect(r.acked).toEqual([1, 1001, 1001, 2001]);
  expect(r.last).toEqual({ n: 50, first: 1951, end: 2000, text: 'm2000' });
  expect(r.touchedLatest).toBe(50);
  expect(r.page).toEqual({ n: 50, first: 951, end: 1000 });
  expect(r.touchedBefore).toBe(50);
  expect(r.crashed).toBe('STORAGE_FAILED');
  expect(r.afterCrash).toEqual([1998, 1999, 2000]);
  expect(r.next).toEqual({ first: 2001, next: 2002 });
  expect(r.elsewhere).toEqual(['m2000', 'after the crash']);
  expect(r.lostAnywhere).toBe(false);
  expect(r.counts).toEqual({ before: [2003, 2], afterOne: [2002, 2], afterConversation: [2000, 1], afterAll: [0, 0] });
  expect(r.deleted).toBe(true);
  expect(r.deletedAgain).toBe(false);
  expect(r.smallAfter).toEqual([]);
  expect(r.keyBefore).toBe(true);
  expect(r.keyAfterAll).toBe(false);
  expect(r.bigAfter).toBe(0);
  expect(r.fresh).toEqual({ first: 1, next: 2 });
});

test('attack: the history in an encrypted backup — restored in a fresh keystore, merged, absent without the option; no plaintext in the bytes; tampered or conflicting imports change nothing', async ({ page }) => {
  test.setTimeout(180_000);
  await load(page);
  const r = await page.evaluate((n) => window.historyTests.backupWithHistory(n), unique('backup'));
  const bob = [
    { seq: 1, text: 'the eagle lands at midnight 7f3a' }, { seq: 2, text: 'second secret message 91cc' }, { seq: 3, text: 'ünïcödé third 00ff' },
  ];
  expect(r.source).toEqual({ bob, carol: [{ seq: 2, text: 'carol second 8cd9' }] });
  // The backup is the encrypted one and carries the history (it is larger), yet holds none of its text or names.
  expect(r.sizes.withHistory).toBeGreaterThan(r.sizes.without + 5 * 64);
  expect(r.plaintextHits).toEqual([]);
  expect(r.imported).toEqual({ identities: 1, history: { conversations: 2, entries: 4, skipped: 0 } });
  expect(r.restored).toEqual(r.source);
  expect(r.restoredMeta).toBe('meta of bob 5e5e');
  expect(r.again).toEqual({ identities: 0, history: { conversations: 2, entries: 0, skipped: 4 } });
  expect(r.merged).toEqual({ conversations: 2, entries: 1, skipped: 4 });
  expect(r.afterMerge).toEqual([...bob, { seq: 4, text: 'fourth, after the first backup' }]);
  expect(r.appendAfter).toEqual({ first: 5, next: 6 });
  expect(r.plain).toEqual({ identities: 1, history: null });
  expect(r.plainRead).toEqual([]);
  expect(r.cRaw).toEqual({ conversations: 0, entries: 0, historyKey: false });
  expect(r.tampered).toEqual(['INVALID_BACKUP', 'UNSUPPORTED_VERSION', 'AUTHENTICATION_FAILED', 'AUTHENTICATION_FAILED', 'AUTHENTICATION_FAILED', 'AUTHENTICATION_FAILED', 'AUTHENTICATION_FAILED', 'AUTHENTICATION_FAILED']);
  expect(r.dAfter).toEqual({ identities: 0, conversations: 0, entries: 0, historyKey: false });
  expect(r.conflict).toEqual({ code: 'KEY_EXISTS', reason: 'history' });
  expect(r.eAfterConflict).toEqual({ identities: 0, bob: [{ seq: 1, text: 'e has its own' }] });
  expect(r.identitiesOnly).toEqual({ identities: 1, history: null });
  expect(r.eAfter).toEqual({ identities: 1, bob: [{ seq: 1, text: 'e has its own' }], carol: [] });
  expect(r.badOption.code).toMatch(/^TypeError/);
});
