// MLS groups through the keystore (issue 29, docs/GROUPS.md#groups-in-the-keystore), in every engine:
// the flow over key packages and welcomes with verification codes, attacks on the wire (replays, past
// and future epochs, bit flips, bad and reused key packages, a replayed welcome), rollback of the
// sealed client, a commit conflict ordered by the delivery service, the update policy, a passphrase
// change and lock, nothing in the clear in IndexedDB, and two tabs of one member that never fork.
import { test, expect, type Page } from './test.js';

type GroupTests = typeof import('./fixtures/group-keystore-page.js');
declare global {
  interface Window { groupTests: GroupTests }
}

const PAGE = '/tests/playwright/fixtures/group-keystore.html';

async function load(page: Page): Promise<void> {
  await page.goto(PAGE);
  await expect(page).toHaveTitle('ready');
}

function names(tag: string, n = 3): string[] {
  const base = `${tag}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  return Array.from({ length: n }, (_, i) => `${base}-${'abc'[i]}`);
}

for (const [label, suite] of [['X-Wing (0x004D)', 0x004d], ['classical (0x0001)', 0x0001]] as const) {
  test(`a group over the keystore, ${label}: key packages, welcome, messages both ways, verification codes equal to the 1:1 session's, a removed member reads nothing, list / load in a fresh worker / delete`, async ({ page }) => {
    test.setTimeout(120_000);
    await load(page);
    const [a, b, c] = names('flow');
    const r = await page.evaluate(([x, y, z, s]) => window.groupTests.flow(x as string, y as string, z as string, s as number), [a, b, c, suite] as const);
    expect(r).toEqual({
      suite, createdEpoch: 0, createdMembers: 1, pendingSend: 'COMMIT_CONFLICT', echo1: true,
      r1: { text: 'hello bob', aad: 'ch-1', sender: true }, r2: 'hello alice', ownEcho: 'DUPLICATE_MESSAGE',
      codes: { symmetric: true, sessionEqual: true, selfHasNone: true, identityLength: 2017 },
      seen: { added: 1, own: false }, bobEcho: true, r3: ['hi all', 'hi all'],
      rmSeen: [{ own: true, removedSelf: false, removed: 0 }, { own: false, removedSelf: true, removed: 1 }, { own: false, removedSelf: false, removed: 1 }],
      bobAfter: expect.stringMatching(/^(WRONG_EPOCH|NOT_A_MEMBER)$/), carolAfter: 'bob is gone', bobActive: false,
      listed: true, loadedEpoch: true, loadedMembers: 2, deleted: true, afterDelete: 'NOT_A_MEMBER', bobList: 0,
    });
  });
}

test('attack: replayed, past- and future-epoch, bit-flipped commits, welcomes and messages change nothing; bad and consumed key packages and a replayed welcome are refused', async ({ page }) => {
  test.setTimeout(120_000);
  await load(page);
  const [a, b, c] = names('wire');
  const r = await page.evaluate(([x, y, z]) => window.groupTests.wireAttacks(x!, y!, z!), [a, b, c]);
  expect(r).toEqual({
    flippedWelcome: expect.stringMatching(/^(AUTHENTICATION_FAILED|MALFORMED_INPUT|INVALID_COMMIT|NO_MATCHING_KEY_PACKAGE)$/),
    replayedWelcome: 'REPLAY_DETECTED', future: 'WRONG_EPOCH', flippedCommit: expect.stringMatching(/^(AUTHENTICATION_FAILED|MALFORMED_INPUT)$/),
    unchanged: true, u1: 'commit', replayedCommit: 'WRONG_EPOCH', u2: 'commit', past: 'WRONG_EPOCH',
    flippedApp: expect.stringMatching(/^(AUTHENTICATION_FAILED|MALFORMED_INPUT)$/), genuine: 'genuine', replayedApp: 'DUPLICATE_MESSAGE',
    badKp: expect.stringMatching(/^(INVALID_KEY_PACKAGE|MALFORMED_INPUT)$/), reused: 'NO_MATCHING_KEY_PACKAGE', joinedOther: true, carolEpoch: expect.any(Number),
  });
});

test('attack: an older sealed client written back into IndexedDB, alone or with its head, is refused with STATE_ROLLBACK', async ({ page }) => {
  test.setTimeout(120_000);
  await load(page);
  const [a, b] = names('rollback', 2);
  const r = await page.evaluate(([x, y]) => window.groupTests.rollback(x!, y!), [a, b]);
  expect(r).toEqual({ recordOnly: 'STATE_ROLLBACK', info: 'STATE_ROLLBACK', withHead: 'STATE_ROLLBACK', list: 'STATE_ROLLBACK', fresh: 'STATE_ROLLBACK' });
});

test('commit conflict: the delivery service orders two commits of one epoch; the loser discards its own, makes its intent again in the new epoch, and both members stay in one epoch', async ({ page }) => {
  test.setTimeout(120_000);
  await load(page);
  const [a, b] = names('conflict', 2);
  const r = await page.evaluate(([x, y]) => window.groupTests.commitConflict(x!, y!), [a, b]);
  expect(r).toEqual({
    aliceOwn: true, bobGot: { discardedOwn: true, reapplied: true }, loser: 'WRONG_EPOCH', aliceRe: false, bobRe: true,
    sameEpoch: true, epochs: 3, read: 'after the conflict',
  });
});

test('the update policy makes an update commit by itself after N messages, merged when it comes back', async ({ page }) => {
  test.setTimeout(120_000);
  await load(page);
  const [a, b] = names('policy', 2);
  const r = await page.evaluate(([x, y]) => window.groupTests.updatePolicy(x!, y!), [a, b]);
  expect(r).toEqual({
    commits: [false, false, true], waiting: 'COMMIT_CONFLICT', pendingBefore: true, sentBefore: 3, got: ['m0', 'm1', 'm2'],
    bobSees: 'commit', own: true, sentAfter: 0, epochUp: true, read: 'next epoch', policy: { messages: 3, days: 7 },
  });
});

test('a passphrase change keeps the groups; a locked keystore refuses group requests (KEYSTORE_LOCKED)', async ({ page }) => {
  test.setTimeout(120_000);
  await load(page);
  const [a, b] = names('passphrase', 2);
  const r = await page.evaluate(([x, y]) => window.groupTests.passphraseAndLock(x!, y!), [a, b]);
  expect(r).toEqual({ got: 'after the change', locked: ['KEYSTORE_LOCKED', 'KEYSTORE_LOCKED', 'KEYSTORE_LOCKED'], after: 'while locked' });
});

test('attack: IndexedDB after a group chat holds no message text and no group state in the clear', async ({ page }) => {
  test.setTimeout(120_000);
  await load(page);
  const [a, b] = names('clear', 2);
  const r = await page.evaluate(([x, y]) => window.groupTests.nothingInTheClear(x!, y!), [a, b]);
  expect(r).toEqual({ found: [], groupRecords: true });
});

test('attack: two tabs of one member sending and committing at once never fork the group', async ({ page, context }) => {
  test.setTimeout(180_000);
  const [a, b] = names('tabs', 2);
  const other = await context.newPage();
  await Promise.all([load(page), load(other)]);
  const ids = await page.evaluate(([x, y]) => window.groupTests.twoTabsSetup(x!, y!), [a, b]);
  await Promise.all([page.evaluate(([n, id]) => window.groupTests.tabOpen(n!, id!), [a, ids.alice]), other.evaluate(([n, id]) => window.groupTests.tabOpen(n!, id!), [a, ids.alice])]);
  const [m1, m2] = await Promise.all([page.evaluate(() => window.groupTests.tabSend('one', 8)), other.evaluate(() => window.groupTests.tabSend('two', 8))]);
  // The delivery service forwards them in the order they were made (the resolve times: within OpenMLS's
  // out-of-order tolerance of the commit order). A fork would reuse a generation: DUPLICATE_MESSAGE.
  const ordered = [...m1, ...m2].sort((x, y) => x.at - y.at).map((x) => x.message);
  const r = await page.evaluate((x) => window.groupTests.tabReceive(x.n, x.id, x.ms), { n: b!, id: ids.bob, ms: ordered });
  const expected = [...Array.from({ length: 8 }, (_, i) => `one-${i}`), ...Array.from({ length: 8 }, (_, i) => `two-${i}`)].sort();
  expect(r.failures).toEqual([]);
  expect(r.got).toEqual(expected);
  // Both tabs commit at once: one commit is made, the other tab finds it pending (COMMIT_CONFLICT).
  const u = await Promise.all([page.evaluate(() => window.groupTests.tabUpdate()), other.evaluate(() => window.groupTests.tabUpdate())]);
  expect(u.map((x) => x.code).sort()).toEqual(['COMMIT_CONFLICT', 'resolved']);
  await other.close();
});
