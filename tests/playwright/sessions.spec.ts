// Chat sessions in the keystore (issue 16, docs/SESSIONS.md §7) in Chromium: handshake and
// messages between two keystores, failures that change nothing, prekey reuse and replay, two
// tabs on one session, persistence across reload and restart, rollback, verification codes,
// deletion, and no secret bytes in any worker→page message.
import { test, expect, type Page, launchPersistent, noPersistentProfile } from './test.js';
import { skipIf } from './skip.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

type SessTests = typeof import('./fixtures/sessions-page.js');
declare global {
  interface Window { sessTests: SessTests }
}

const PAGE = '/tests/playwright/fixtures/sessions-page.html';

async function load(page: Page): Promise<void> {
  await page.goto(PAGE);
  await expect(page).toHaveTitle('ready');
}

/** Store names unique to this test run. */
function names(tag: string, n = 2): string[] {
  const base = `${tag}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  return Array.from({ length: n }, (_, i) => `${base}-${'abc'[i]}`);
}

test('two keystores complete a handshake and exchange messages both ways with aad', async ({ page }) => {
  await load(page);
  const [a, b] = names('hs');
  const r = await page.evaluate(([x, y]) => window.sessTests.handshakeAndExchange(x!, y!), [a, b]);
  expect(r.first).toBe('hello bob');
  expect(r.rounds).toEqual(['bob 1', 'alice 1', 'bob 2', 'alice 2', 'bob 3', 'alice 3', 'burst 2', 'burst 0', 'burst 1']);
  expect(r.roles).toEqual(['initiator', 'responder']);
  expect(r.peers).toBe(true);
  expect(r.peerDevice).toBe(true);
  expect(r.identities).toEqual([true, true]);
  expect(r.counters).toEqual([true, true]);
});

test('a wrong aad fails and the session still works', async ({ page }) => {
  await load(page);
  const [a, b] = names('aad');
  const r = await page.evaluate(([x, y]) => window.sessTests.wrongAad(x!, y!), [a, b]);
  expect(r).toEqual({ wrong: 'AUTHENTICATION_FAILED', missing: 'AUTHENTICATION_FAILED', unchanged: true, ok: 'with aad', back: 'still works' });
});

test('a tampered message fails with the state unchanged and the genuine one decrypts afterwards', async ({ page }) => {
  await load(page);
  const [a, b] = names('tamper');
  const r = await page.evaluate(([x, y]) => window.sessTests.tamperedMessage(x!, y!), [a, b]);
  // A byte of the ratchet key, of the PQ data (ek), of the ciphertext, of the tag: one opaque error each.
  expect(r.codes).toEqual(['AUTHENTICATION_FAILED', 'AUTHENTICATION_FAILED', 'AUTHENTICATION_FAILED', 'AUTHENTICATION_FAILED']);
  // One byte short: the AEAD part is no longer a whole padded block plus tag.
  expect(r.truncated).toBe('MALFORMED_INPUT');
  expect(r.unchanged).toBe(true);
  expect(r.genuine).toBe('genuine');
});

test('a replayed message fails with DUPLICATE_MESSAGE and changes nothing', async ({ page }) => {
  await load(page);
  const [a, b] = names('replay');
  const r = await page.evaluate(([x, y]) => window.sessTests.replayedMessage(x!, y!), [a, b]);
  expect(r).toEqual({ replay: ['DUPLICATE_MESSAGE', 'DUPLICATE_MESSAGE'], unchanged: true });
});

test('a reused one-time bundle is refused (PREKEY_NOT_FOUND), a repeated initial message without one-time prekeys is refused (REPLAY_DETECTED), each consuming nothing', async ({ page }) => {
  await load(page);
  const [a, b] = names('prekeys');
  const r = await page.evaluate(([x, y]) => window.sessTests.prekeyReuseAndReplay(x!, y!), [a, b]);
  expect(r).toEqual({
    tampered: 'AUTHENTICATION_FAILED', ok1: 'one-time', reused: 'PREKEY_NOT_FOUND', sameMessage: 'PREKEY_NOT_FOUND', ok2: 'last resort',
    replay: 'REPLAY_DETECTED', tamperedConsumedNothing: true, firstConsumed: { sessions: 1, prekeys: 2, replay: 0 },
    reuseConsumedNothing: true, lastResortRecorded: { sessions: 1, prekeys: 0, replay: 1 }, replayConsumedNothing: true,
  });
});

test('two tabs sending concurrently on one session never fork it', async ({ page, context }) => {
  const [a, b] = names('tabs');
  const other = await context.newPage();
  await Promise.all([load(page), load(other)]);
  const ids = await page.evaluate(([x, y]) => window.sessTests.twoTabsSetup(x!, y!), [a, b]);
  await Promise.all([page.evaluate(([n, id]) => window.sessTests.tabOpen(n!, id!), [a, ids.alice]), other.evaluate(([n, id]) => window.sessTests.tabOpen(n!, id!), [a, ids.alice])]);
  const [m1, m2] = await Promise.all([page.evaluate(() => window.sessTests.tabSend('one', 15)), other.evaluate(() => window.sessTests.tabSend('two', 15))]);
  // Each tab hears every commit on the change channel: its own 15 and the other tab's 15.
  const heard = await Promise.all([page.evaluate(() => window.sessTests.tabHeard(30)), other.evaluate(() => window.sessTests.tabHeard(30))]);
  expect(heard).toEqual([30, 30]);
  const r = await page.evaluate((x) => window.sessTests.tabReceive(x.n, x.id, x.ms), { n: b!, id: ids.bob, ms: [...m1, ...m2] });
  const expected = [...Array.from({ length: 15 }, (_, i) => `one-${i}`), ...Array.from({ length: 15 }, (_, i) => `two-${i}`)].sort();
  // The peer decrypts all 30 exactly once; every message has its own number in one chain (a fork would reuse numbers).
  expect(r.failures).toEqual([]);
  expect(r.plaintexts).toEqual(expected);
  expect(r.again).toEqual(['DUPLICATE_MESSAGE']);
  expect(new Set(r.numbers).size).toBe(30);
  expect(r.chains).toBe(1);
  await other.close();
});

test('a passphrase change racing session operations loses nothing; a locked store refuses them', async ({ page }) => {
  await load(page);
  const [a, b] = names('passphrase');
  const r = await page.evaluate(([x, y]) => window.sessTests.passphraseAndLock(x!, y!), [a, b]);
  expect(r).toEqual({
    got: Array.from({ length: 10 }, (_, i) => `m${i}`), locked: ['KEYSTORE_LOCKED', 'KEYSTORE_LOCKED', 'KEYSTORE_LOCKED'],
    after: 'unlocked', removed: 'no passphrase',
  });
});

test('sessions survive a page reload', async ({ page }) => {
  const [a, b] = names('reload');
  await load(page);
  const s = await page.evaluate(([x, y]) => window.sessTests.persistSetup(x!, y!), [a, b]);
  await page.reload();
  await expect(page).toHaveTitle('ready');
  const r = await page.evaluate(([x, y, i, j]) => window.sessTests.persistCheck(x!, y!, i!, j!), [a, b, s.alice, s.bob]);
  expect(r.lists).toEqual([[s.alice], [s.bob]]);
  expect(r.counters).toEqual(s.counters);
  expect(r.got).toEqual(['after a', 'after b']);
});

test('sessions survive a browser restart (persistent context)', async ({}, testInfo) => {
  skipIf(noPersistentProfile !== undefined, noPersistentProfile ?? '');
  const dir = mkdtempSync(join(tmpdir(), 'veilkit-profile-'));
  const baseURL = String(testInfo.project.use.baseURL);
  const [a, b] = names('restart');
  const open = () => launchPersistent(dir, baseURL);
  try {
    let context = await open();
    let page = context.pages()[0] ?? (await context.newPage());
    await load(page);
    const s = await page.evaluate(([x, y]) => window.sessTests.persistSetup(x!, y!), [a, b]);
    await context.close();

    context = await open();
    page = context.pages()[0] ?? (await context.newPage());
    await load(page);
    const r = await page.evaluate(([x, y, i, j]) => window.sessTests.persistCheck(x!, y!, i!, j!), [a, b, s.alice, s.bob]);
    await context.close();
    expect(r.lists).toEqual([[s.alice], [s.bob]]);
    expect(r.counters).toEqual(s.counters);
    expect(r.got).toEqual(['after a', 'after b']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('rollback: an older wrapped record written back is refused with STATE_ROLLBACK', async ({ page }) => {
  await load(page);
  const [a, b] = names('rollback');
  const r = await page.evaluate(([x, y]) => window.sessTests.rollback(x!, y!), [a, b]);
  expect(r).toEqual({
    encryptCode: 'STATE_ROLLBACK', infoCode: 'STATE_ROLLBACK', listCode: 'STATE_ROLLBACK', freshWorker: 'STATE_ROLLBACK',
    relabelled: 'AUTHENTICATION_FAILED', oldCounter: expect.any(Number),
  });
});

test('attack: a session record rolled back together with its head is refused by the worker that committed the newer state and by one that heard it announced; no message is decrypted twice', async ({ page }) => {
  await load(page);
  const [a, b] = names('rb-head');
  const r = await page.evaluate(([x, y]) => window.sessTests.attackRollbackWithHead(x!, y!), [a, b]);
  expect(r).toEqual({
    first: 'plaintext:one', heard: true, committing: 'STATE_ROLLBACK', other: 'STATE_ROLLBACK', info: 'STATE_ROLLBACK', list: 'STATE_ROLLBACK', stored: true,
  });
});

test('attack: a worker that refused a stale record remembers the newer head it saw and refuses the record with its older head too', async ({ page }) => {
  await load(page);
  const [a, b] = names('rb-refused');
  const r = await page.evaluate(([x, y]) => window.sessTests.attackRollbackAfterRefusal(x!, y!), [a, b]);
  expect(r).toEqual({ first: 'plaintext:one', recordOnly: 'STATE_ROLLBACK', withHead: 'STATE_ROLLBACK', list: 'STATE_ROLLBACK' });
});

test('attack: a deleted session stays deleted when page script deletes its tombstone and writes it back (deleting worker, a worker that heard it; a fresh worker: see the limit)', async ({ page }) => {
  await load(page);
  const [a, b] = names('rb-deleted');
  const r = await page.evaluate(([x, y]) => window.sessTests.attackDeletedSession(x!, y!), [a, b]);
  expect(r).toEqual({
    heard: true,
    // Without a head, a record of this format is refused even by a worker that knows nothing.
    recordOnly: { deleting: 'KEY_NOT_FOUND', heard: 'KEY_NOT_FOUND', fresh: 'STATE_ROLLBACK', listed: 0 },
    // With the authentic head it had before the deletion, only a worker that saw the deletion refuses it: a worker
    // started afterwards cannot tell this from the state before the deletion (docs/SESSIONS.md §7.2, "What stays undetected").
    withHead: { deleting: 'KEY_NOT_FOUND', heard: 'KEY_NOT_FOUND', fresh: 'resolved', listed: 0 },
  });
});

test('attack: clear fields of a session record edited while the store is locked do not reach info() or list()', async ({ page }) => {
  await load(page);
  const [a, b] = names('rb-fields');
  const r = await page.evaluate(([x, y]) => window.sessTests.attackPlainFields(x!, y!), [a, b]);
  expect(r.idIsHashOfPeerIdentity).toBe(true);
  expect(r.info).toEqual(r.before);
  expect(r.list).toEqual(r.before);
});

test('a session stored by the previous veilkit (record version 1, head without a tag) opens with its fields and is upgraded; its old copy is then refused', async ({ page }) => {
  await load(page);
  const [a, b] = names('legacy');
  const r = await page.evaluate(([x, y]) => window.sessTests.legacySession(x!, y!), [a, b]);
  expect(r).toEqual({ opened: true, upgraded: true, works: ['after a', 'after b'], downgrade: 'STATE_ROLLBACK' });
});

test('attack: a session record whose stored peer identity was replaced or swapped is refused (IDENTITY_MISMATCH) everywhere; the genuine record works again', async ({ page }) => {
  await load(page);
  const [a, b, c] = names('ids', 3);
  const r = await page.evaluate(([x, y, z]) => window.sessTests.attackSwappedIdentity(x!, y!, z!), [a, b, c]);
  const refused = ['IDENTITY_MISMATCH', 'IDENTITY_MISMATCH', 'IDENTITY_MISMATCH', 'IDENTITY_MISMATCH'];
  expect(r).toEqual({ stored: true, outcomes: [refused, refused], restored: 'after', peerIsBob: true });
});

test('a session whose state is of format 2 (identities inside) opens with the same info, is rewritten as format 3 with the identities in the record, and keeps working', async ({ page }) => {
  await load(page);
  const [a, b] = names('fmt2');
  const r = await page.evaluate(([x, y]) => window.sessTests.formatTwoSession(x!, y!), [a, b]);
  // Format 2 is longer by both length-prefixed identities instead of H_ID and by the expanded own ML-KEM key instead of its seed.
  expect(r).toEqual({ v2Longer: 2 * 2019 - 32 + 2400 - 64, opened: true, migrated: true, works: ['after a', 'after b'] });
});

test('the verification code is the same on both sides and differs for another peer', async ({ page }) => {
  await load(page);
  const [a, b, c] = names('verify', 3);
  const r = await page.evaluate(([x, y, z]) => window.sessTests.verificationCodes(x!, y!, z!), [a, b, c]);
  expect(r).toEqual({ same: true, sameOther: true, differs: true, direct: true, format: true });
});

test('Session.delete removes the session (and a written-back record stays deleted, also after deleteIdentity)', async ({ page }) => {
  await load(page);
  const [a, b] = names('delete');
  const r = await page.evaluate(([x, y]) => window.sessTests.deleteSession(x!, y!), [a, b]);
  expect(r).toEqual({
    before: 2, after: [r.otherId], otherId: expect.any(String), load: 'KEY_NOT_FOUND', viaHandle: 'KEY_NOT_FOUND', disposed: 'INVALID_STATE',
    again: 'KEY_NOT_FOUND', resurrected: 'KEY_NOT_FOUND', listed: [r.otherId], otherWorks: 'other', bobKept: 2,
    afterIdentity: 0, identityGone: ['KEY_NOT_FOUND', 0],
  });
});

test('no worker→page message of a session carries secret bytes (seeds, prekey secrets, ratchet state)', async ({ page }) => {
  await load(page);
  const [a, b] = names('nosecrets');
  const r = await page.evaluate(([x, y]) => window.sessTests.noSessionSecretsOnPage(x!, y!), [a, b]);
  console.log(`no session secrets on the page: ${r.scanned} messages, ${r.states} states, ${r.secretFields} secret fields, ${r.windows} windows`);
  expect(r.hits).toEqual([]);
  // The scenario's fixed sequence: its worker→page messages, and the states unwrapped after each step (both stores).
  expect({ scanned: r.scanned, states: r.states }).toEqual({ scanned: 32, states: 38 });
  expect(r.windows).toBeGreaterThan(1000);
});

test('decryptMany: a tampered and a repeated message fail alone with their typed errors, the others decrypt, and neither changes the state', async ({ page }) => {
  await load(page);
  const [a, b] = names('batch');
  const r = await page.evaluate(([x, y]) => window.sessTests.batchWithBadMessages(x!, y!), [a, b]);
  expect(r).toEqual({
    outcome: ['plaintext:b0', 'plaintext:b1', 'AUTHENTICATION_FAILED', 'plaintext:b3', 'plaintext:b4', 'DUPLICATE_MESSAGE'],
    advancedOncePerGoodMessage: true, genuine: 'b2', empty: 0,
  });
});

test('attack: a decryptMany whose commit fails releases no plaintext and consumes nothing', async ({ page }) => {
  await load(page);
  const [a, b] = names('batch-fault');
  const r = await page.evaluate(([x, y]) => window.sessTests.batchCommitFails(x!, y!), [a, b]);
  expect(r).toEqual({ failed: 'STORAGE_QUOTA_EXCEEDED', leaked: false, unchanged: true, retried: ['secret-one', 'secret-two', 'secret-three'] });
});

test('attack: a second worker committing between two operations of a worker that has the state cached is detected, not overwritten', async ({ page }) => {
  await load(page);
  const [a, b] = names('writer');
  const r = await page.evaluate(([x, y]) => window.sessTests.concurrentWriter(x!, y!), [a, b]);
  expect(r).toEqual({ first: 'plaintext:one', other: 'plaintext:two', next: 'plaintext:three', newer: true, again: 'DUPLICATE_MESSAGE' });
});
