// Keystore prekeys for sessions (issue 16) in Chromium: signed bundles of the identity's own keys,
// one-time bundles, key ids never reused, rotation, PQ identities only, secrets re-wrapped by a
// passphrase change and never in IndexedDB in the clear, consumption and the replay cache, deletion
// with the identity, backups without prekeys, and the schema 2 → 3 migration.
import { test, expect, type Page } from './test.js';

type PrekeyTests = typeof import('./fixtures/prekeys-page.js');
declare global {
  interface Window { prekeyTests: PrekeyTests }
}

const PAGE = '/tests/playwright/fixtures/prekeys.html';

async function load(page: Page): Promise<void> {
  await page.goto(PAGE);
  await expect(page).toHaveTitle('ready');
}

function storeName(tag: string): string {
  return `${tag}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

test('prekey bundles verify, carry the identity\'s own keys and device id; one-time key ids never repeat; rotation replaces both signed prekeys', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.prekeyTests.bundles(n), storeName('prekeys'));
  expect(r.identityIsOwn).toBe(true);
  expect(r.deviceIds).toBe(1);
  expect(r.deviceMatches).toBe(true);
  // docs/SESSIONS.md §3: 10,034 bytes without one-time prekeys, 18,038 with both (version list [1, 2]).
  expect(r.sizes).toEqual([10_034, 18_038]);
  expect(r.counts).toEqual([3, 0, 2, 1]);
  expect(r.baseWithoutOneTime).toBe(true);
  expect(r.oneTimeWithBoth).toBe(true);
  expect(r.sameUntilRotated).toBe(true);
  expect(r.sameBaseBytes).toBe(true);
  expect(r.oneTimeShareBase).toBe(true);
  expect(r.rotatedNewer).toBe(true);
  // 2 signed + 2 last-resort (before and after the rotation) + 2 × 6 one-time keys, all distinct.
  expect(r.idsTotal).toBe(16);
  expect(r.idsDistinct).toBe(true);
  expect(r.parsedIds).toBe(true);
  // kind:lifetime in days — signed X25519 and last-resort ML-KEM 30, one-time 90.
  expect(r.lifetimes).toEqual(['1:30', '2:90', '3:30', '4:90']);
  // A call that makes nothing new commits nothing.
  expect(r.revisions).toEqual([0, 1, 1, 2, 3]);
  expect(r.prekeyChanges).toEqual([true, true, true]);
  expect(r.stored).toEqual({ device: 1, prekeys: 16, replaced: ['mlkem-last-resort', 'x25519-signed'], wrapped: true });
});

test('prekey calls check their arguments on the page and in the worker', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.prekeyTests.argumentChecks(n), storeName('prekey-args'));
  expect(r).toEqual({
    tooMany: 'RangeError', negative: 'RangeError', fraction: 'TypeError', string: 'TypeError', noOptions: 'TypeError',
    nullOptions: 'TypeError', rotate: 'TypeError', identity: 'TypeError', unknown: 'KEY_NOT_FOUND',
    workerTooMany: 'RangeError', workerRotate: 'TypeError', unchanged: true, max: 100,
  });
});

test('an identity without ML-DSA-65 gets no prekeys (PQ_IDENTITY_REQUIRED)', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.prekeyTests.classic(n), storeName('prekey-classic'));
  expect(r).toEqual({
    create: 'PQ_IDENTITY_REQUIRED', replenish: 'PQ_IDENTITY_REQUIRED', device: 'PQ_IDENTITY_REQUIRED', seeds: 'PQ_IDENTITY_REQUIRED',
    unchanged: true, stored: 0,
  });
});

test('prekey secrets: re-wrapped by a passphrase change, refused while locked, never in IndexedDB in the clear; consumption and replay', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.prekeyTests.secrets(n), storeName('prekey-secrets'));
  expect(r.matchBefore).toEqual([true, true, true]);
  expect(r.matchAfter).toEqual([true, true, true]);
  expect(r.rewrapped).toBe(true);
  // The session identity seeds are the keystore identity's keys (the X25519 seed is the scalar).
  expect(r.seedsAreOwn).toEqual({ x25519: true, ed25519: true, mlDsa: true });
  expect(r.locked).toEqual({ secrets: 'KEYSTORE_LOCKED', create: 'KEYSTORE_LOCKED', seeds: 'KEYSTORE_LOCKED' });
  // Every 16-byte window of the secret parts of 4 ML-KEM dks (dk_PKE and z), 4 X25519 prekey scalars and 6 identity seeds.
  expect(r.windows).toBeGreaterThan(4_500);
  expect(r.clearHits).toBe(0);
  expect(r.consume1).toEqual({ seen: false, committed: true });
  expect(r.consume2).toEqual({ seen: false, committed: false, failure: 'PREKEY_NOT_FOUND' });
  expect(r.usedSecrets).toBe('PREKEY_NOT_FOUND');
  expect(r.otherOneTime).toBe(true);
  expect(r.wrongConsumed).toBe('TypeError');
  expect(r.replay1).toEqual({ seen: false, committed: true });
  expect(r.replay2).toEqual({ seen: true, committed: false, failure: 'REPLAY_DETECTED' });
  expect(r.otherDigest).toEqual({ seen: false, committed: true });
  expect(r.lastResortStill).toBe(true);
});

test('rotation policy: prekeys replaced 30 days ago and expired one-time pairs are deleted with their replay entries; an expired current prekey is replaced', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.prekeyTests.purge(n), storeName('prekey-purge'));
  expect(r).toEqual({
    committed: true, notRotated: true, oldSigned: false, oldLastResort: true, expiredPair: [false, false], livePair: [true, true],
    oldReplay: false, currentReplay: true, oldAnswers: 'PREKEY_NOT_FOUND', expired: 'replaced',
  });
});

test('session states: sealed to identity, session id and counter; re-wrapped by a passphrase change; never in IndexedDB in the clear', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.prekeyTests.sessionSealing(n), storeName('session-seal'));
  expect(r).toEqual({
    opens: true, otherCounter: 'AUTHENTICATION_FAILED', otherIdentity: 'AUTHENTICATION_FAILED', otherSession: 'AUTHENTICATION_FAILED',
    clear: 0, rewrapped: true, opensAfter: true, locked: 'KEYSTORE_LOCKED',
  });
});

test('deleteIdentity removes its prekeys, sessions, replay entries and heads; a restored identity is a new device; backups carry no prekeys', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.prekeyTests.deletion(n), storeName('prekey-delete'));
  // device record + 2 signed + 2 × 2 one-time; one session, replay entry and head each.
  expect(r.beforeA).toEqual({ prekeys: 7, sessions: 1, replay: 1, heads: 1 });
  expect(r.afterA).toEqual({ prekeys: 0, sessions: 0, replay: 0, heads: 0 });
  expect(r.afterB).toEqual({ prekeys: 7, sessions: 1, replay: 1, heads: 1 });
  expect(r.bStillAnswers).toBe(2400);
  expect(r.sameId).toBe(true);
  expect(r.newDevice).toBe(true);
  expect(r.oldSecret).toBe('PREKEY_NOT_FOUND');
  expect(r.importedIdentities).toBe(2);
  expect(r.importedRecords).toEqual([0, 0, 0, 0]);
  expect(r.importedDeviceDiffers).toBe(true);
});

test('schema: a version-2 database is migrated to 3, 4 and 5 with its identities kept and usable', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.prekeyTests.migration(n), storeName('schema3'));
  expect(r.versions).toEqual([2, 5]);
  expect(r.storesBefore).toEqual(['identities', 'meta', 'secrets']);
  expect(r.indexes).toEqual({
    meta: [], identities: [], secrets: ['byIdentity'], prekeys: ['byIdentity'], sessions: ['byIdentity'], replay: ['byIdentity'], heads: ['byIdentity'],
    conversations: [], history: [], groups: ['byIdentity'],
  });
  expect(r.keptRecords).toBe(true);
  expect(r.identities).toEqual([true]);
  expect(r.signs).toBe(true);
  expect(r.bundleVerifies).toBe(true);
  expect(r.schemaVersion).toBe(5);
});
