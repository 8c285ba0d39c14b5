// Keystore (issue #6) in Chromium: persistence, non-extractable keys, recovery,
// backup, passphrase lock, multi-tab races, storage faults, schema migrations,
// and no secret bytes in any worker→page message.
import { test, expect, chromium, type Page } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import config from '../../playwright.config.js';

type KsTests = typeof import('./fixtures/keystore-page.js');
declare global {
  interface Window { ksTests: KsTests }
}

const PAGE = '/tests/playwright/fixtures/keystore-page.html';

async function load(page: Page): Promise<void> {
  await page.goto(PAGE);
  await expect(page).toHaveTitle('ready');
}

/** A store name unique to this test run (IndexedDB persists in the test's browser context only, but be safe). */
function storeName(tag: string): string {
  return `${tag}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

test('capabilities name a route per key type; stored and returned keys are non-extractable', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.ksTests.extractability(n), storeName('extract'));
  expect(Object.keys(r.caps.routes).sort()).toEqual(['ed25519', 'ml-dsa-65', 'ml-kem-768', 'x-wing', 'x25519']);
  expect(r.caps.routes['x-wing']).toBe('wasm');
  expect(r.caps.routes['ml-dsa-65']).toBe('wasm');
  // Chromium 13x+ implements these natively; the self-test must agree with the wasm core.
  expect(r.caps.webCrypto).toMatchObject({ 'ed25519': true, 'x25519': true });
  for (const t of ['ed25519', 'x25519', 'ml-kem-768'] as const) {
    expect(r.routes[t]).toBe(r.caps.routes[t]);
  }
  expect(r.caps.webLocks && r.caps.broadcastChannel && r.caps.indexedDb).toBe(true);
  // Every CryptoKey in IndexedDB (device key + native private keys) and every returned key.
  expect(r.storedKeys.map((k) => k.what)).toEqual(expect.arrayContaining(['device', 'ed25519', 'x25519', 'derived', 'decapsulated']));
  for (const k of r.storedKeys) {
    expect(k.extractable, k.what).toBe(false);
    for (const c of k.exportFails) expect(c, `${k.what} exportKey`).not.toBe('resolved');
  }
  // Everything else is stored wrapped only: the wasm-route keys and the recovery material.
  expect(r.wrappedTypes).toEqual(expect.arrayContaining(['ml-dsa-65', 'recovery', 'x-wing']));
  expect(r.secretRecords).toBe(6);
});

test('sign, deriveSharedKey and decapsulate interoperate with an independent peer', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.ksTests.operations(n), storeName('ops'));
  expect(r).toEqual({
    edOk: true, mlDsaOk: true, dhOk: true, kemOk: [true, true], weak: 'WEAK_KEY', unknown: 'KEY_NOT_FOUND', badLen: 'RangeError', bundleOk: true,
  });
});

test('keys survive a page reload', async ({ page }) => {
  const name = storeName('reload');
  await load(page);
  const ids = await page.evaluate((n) => window.ksTests.createIdentities(n, ['alice', 'bob'], true), name);
  const before = await page.evaluate((n) => window.ksTests.snapshot(n), name);
  await page.reload();
  await expect(page).toHaveTitle('ready');
  const after = await page.evaluate((n) => window.ksTests.snapshot(n), name);
  expect(after.ids).toEqual(ids);
  expect(after).toEqual(before);
  expect(after.signaturesOk).toBe(true);
});

test('keys survive a browser context restart (persistent context)', async ({}, testInfo) => {
  const dir = mkdtempSync(join(tmpdir(), 'veilkit-profile-'));
  const launchOptions = config.projects?.[0]?.use?.launchOptions ?? {};
  const baseURL = String(testInfo.project.use.baseURL);
  const name = storeName('restart');
  const open = () => chromium.launchPersistentContext(dir, { executablePath: '/usr/bin/chromium', args: launchOptions.args ?? [], headless: true, baseURL });
  try {
    let context = await open();
    let page = context.pages()[0] ?? (await context.newPage());
    await load(page);
    const ids = await page.evaluate((n) => window.ksTests.createIdentities(n, ['carol', 'dave']), name);
    const before = await page.evaluate((n) => window.ksTests.snapshot(n), name);
    await context.close();

    context = await open();
    page = context.pages()[0] ?? (await context.newPage());
    await load(page);
    const after = await page.evaluate((n) => window.ksTests.snapshot(n), name);
    await context.close();
    expect(after.ids).toEqual(ids);
    expect(after.bundles).toEqual(before.bundles);
    expect(after.signaturesOk).toBe(true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('restoreFromPhrase recreates a byte-identical public bundle', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.ksTests.restore(n), storeName('restore'));
  expect(r.words).toBe(24);
  expect(r.afterDelete).toBe(0);
  expect(r.goneCode).toBe('KEY_NOT_FOUND');
  expect(r.sameId).toBe(true);
  expect(r.equal).toBe(true);
  expect(r.equalElsewhere).toBe(true);
  expect(r.verifies).toBe(true);
  expect(r.idempotent).toBe(true);
  expect(r.mismatch).toBe('KEY_EXISTS');
  expect(r.badPhrase).toBe('INVALID_MNEMONIC');
  expect(r.sizes).toEqual([7795, 2534]);
  expect(r.vector).toEqual({ id: '404dc1cbc898b555a8a18350773da0f0', sha256: '2bb01d15961f7a76947724d1a58794a2c93473f4f125c1dfc3c86137474ff5bf' });
});

test('backup round trip; wrong passphrase, tampering and garbage change nothing', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.ksTests.backup(n), storeName('backup'));
  expect(r.header).toEqual({ magic: 'VKBK', version: 1, kdf: 1, m: 19456, t: 2, p: 1 });
  expect(r.wrong).toBe('AUTHENTICATION_FAILED');
  expect(r.tamperedCode).toBe('AUTHENTICATION_FAILED');
  expect(r.garbage).toBe('INVALID_BACKUP');
  expect(r.weakCode).toBe('INVALID_BACKUP');
  expect(r.unchanged).toBe(true);
  expect(r.imported.sort()).toEqual([...r.ids].sort());
  expect(r.skipped.sort()).toEqual([...r.ids].sort());
  expect(r.bundlesEqual).toEqual([true, true]);
  expect(r.phrasesEqual).toBe(true);
  expect(r.labels).toEqual(['one', 'two ✓']);
});

test('passphrase lock: typed errors while locked, wrong passphrase changes nothing, relocks on reload', async ({ page }) => {
  const name = storeName('lock');
  await load(page);
  const r = await page.evaluate((n) => window.ksTests.passphrase(n), name);
  expect(r.set).toMatchObject({ passphrase: true, locked: false });
  expect(r.signedUnlocked).toBe(3309);
  expect(r.locked).toMatchObject({ passphrase: true, locked: true });
  expect(r.lockedCodes).toEqual({ sign: 'KEYSTORE_LOCKED', mlDsa: 'KEYSTORE_LOCKED', phrase: 'KEYSTORE_LOCKED', create: 'KEYSTORE_LOCKED', remove: 'KEYSTORE_LOCKED' });
  expect(r.listWhileLocked).toBe(1);
  expect(r.wrong).toBe('AUTHENTICATION_FAILED');
  expect(r.stillLocked).toBe(true);
  expect(r.signedAfterUnlock).toBe(true);
  await page.reload();
  await expect(page).toHaveTitle('ready');
  const after = await page.evaluate((n) => window.ksTests.passphraseAfterReload(n), name);
  expect(after.status).toMatchObject({ passphrase: true, locked: true, identities: 1 });
  expect(after.signLocked).toBe('KEYSTORE_LOCKED');
  expect(after.removed).toMatchObject({ passphrase: false, locked: false });
  expect(after.afterRemove).toMatchObject({ passphrase: false, locked: false, identities: 1 });
  expect(after.signs).toBe(true);
});

test('two pages of the same origin racing 100 writes each lose nothing', async ({ page, context }) => {
  const name = storeName('race');
  const other = await context.newPage();
  await Promise.all([load(page), load(other)]);
  const start = await page.evaluate((n) => window.ksTests.summary(n), name);
  await Promise.all([page.evaluate((n) => window.ksTests.raceOpen(n), name), other.evaluate((n) => window.ksTests.raceOpen(n), name)]);
  const [a, b] = await Promise.all([
    page.evaluate(() => window.ksTests.race('a', 100, 200)),
    other.evaluate(() => window.ksTests.race('b', 100, 200)),
  ]);
  expect(a.created).toBe(100);
  expect(b.created).toBe(100);
  // Each page hears every committed change: its own 100 and the other page's 100.
  expect(a.distinctRevisions).toBe(200);
  expect(b.distinctRevisions).toBe(200);
  const [endA, endB] = await Promise.all([page.evaluate((n) => window.ksTests.summary(n), name), other.evaluate((n) => window.ksTests.summary(n), name)]);
  expect(endA).toEqual(endB);
  expect(endA.count).toBe(200);
  expect(endA.distinctIds).toBe(200);
  expect(endA.revision).toBe(start.revision + 200);
  const expected = [...Array.from({ length: 100 }, (_, i) => `a-${i}`), ...Array.from({ length: 100 }, (_, i) => `b-${i}`)].sort();
  expect(endA.labels).toEqual(expected);
  await other.close();
});

test('simulated DataCloneError and quota errors are typed and leave the previous state intact', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.ksTests.faults(n), storeName('faults'));
  expect(r.results.DataCloneError.code).toBe('create:STORAGE_UNSUPPORTED,delete:STORAGE_UNSUPPORTED,passphrase:STORAGE_UNSUPPORTED');
  expect(r.results.QuotaExceededError.code).toBe('create:STORAGE_QUOTA_EXCEEDED,delete:STORAGE_QUOTA_EXCEEDED,passphrase:STORAGE_QUOTA_EXCEEDED');
  for (const f of ['DataCloneError', 'QuotaExceededError'] as const) {
    expect(r.results[f].after).toEqual(r.before);
    expect(r.results[f].firstStillSigns).toBe(true);
  }
  expect(r.status).toMatchObject({ passphrase: false, locked: false, identities: 1, revision: r.before.revision });
  expect(r.afterwards).toBe(true);
  expect(r.final.identities).toBe(2);
  expect(r.debugRefused).toBe('TypeError');
});

test('schema: a version-1 database is migrated, a newer one is refused and left untouched', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.ksTests.schema(n), storeName('schema'));
  expect(r.migrated.version).toBe(2);
  expect(r.migrated.indexes).toContain('byIdentity');
  expect(r.migrated.record).toMatchObject({ id: 'abc/recovery', identityId: 'abc' });
  expect(r.status).toMatchObject({ passphrase: false, locked: false });
  expect(r.futureCode).toBe('STORAGE_VERSION_MISMATCH');
  expect(r.kept).toEqual({ version: 99, value: 42 });
});

test('no worker→page message carries secret bytes (only the documented export paths do)', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.ksTests.noSecretsOnPage(n), storeName('nosecrets'));
  expect(r.hits).toEqual([]);
  expect(r.exported).toBe(1);
  expect(r.scanned).toBeGreaterThan(20);
  expect(r.scannedBytes).toBeGreaterThan(10_000);
  expect(r.windows).toBeGreaterThan(1200);
  expect(r.cryptoKeys.length).toBe(3);
  for (const k of r.cryptoKeys) expect(k.extractable).toBe(false);
});
