// The isolated-origin keystore (docs/KEYSTORE.md#isolated-origin-mode), in every engine. The app runs on
// http://127.0.0.1:PORT, the keystore on http://127.0.0.1:PORT+100 (another origin of the same
// site, the deployment docs/KEYSTORE.md recommends) or on http://localhost:PORT (another site).
// Attack-shaped: app page script tries to read the store directly, to call the export paths, to
// reach into the frame and into the manager window; an origin off the allow-list and a frame whose
// frame-ancestors names no one get no keystore. Third-party storage partitioning (another site):
// the store survives a browser restart when embedded by the same app site, the keystore origin's
// own first-party storage is what this Chromium gives it when third-party storage is allowed, and
// where the browser blocks third-party storage (this Chromium's default) the frame fails with
// STORAGE_FAILED instead of keeping keys elsewhere.
import { test, expect, type Page, launchPersistent, noPersistentProfile, engine } from './test.js';
import { skipIf } from './skip.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import config from '../../playwright.config.js';

type IsoTests = typeof import('./fixtures/isolated-app.js');
declare global {
  interface Window { isoTests: IsoTests }
}

const APP = '/tests/playwright/fixtures/isolated/app.isolated-app.html';
const BASE = String(config.use?.baseURL);
const KEYSTORE_ORIGIN = `http://127.0.0.1:${Number(new URL(BASE).port) + 100}`;
const CROSS_SITE_ORIGIN = BASE.replace('127.0.0.1', 'localhost');

function storeName(tag: string): string {
  return `${tag}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

async function load(page: Page): Promise<void> {
  await page.goto(`${BASE}${APP}`);
  await expect(page).toHaveTitle('ready');
}

test('the app uses an isolated store through the API; the export paths, passphrase removal, (no passphrase) setting one or deleting, and every device request are refused to it', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.isoTests.scenario(n), storeName('iso'));
  const refusedDevice = 'TOP_LEVEL_REQUIRED';
  expect(r).toEqual({
    devices: {
      addDevice: refusedDevice, revokeDevice: refusedDevice, deviceConsent: refusedDevice, lastSignedRegistry: refusedDevice, startLink: refusedDevice,
      acceptLink: refusedDevice,
    },
    idMatches: true, bundleOk: true, edOk: true, hybridOk: true, dhOk: true,
    shared: { extractable: false, usages: ['decrypt', 'encrypt'], exported: 'InvalidAccessError' },
    decapsulated: { extractable: false, usages: ['decrypt', 'encrypt'] },
    refused: {
      phrase: 'TOP_LEVEL_REQUIRED', backup: 'TOP_LEVEL_REQUIRED', importBackup: 'TOP_LEVEL_REQUIRED',
      setPassphrase: 'TOP_LEVEL_REQUIRED', removePassphrase: 'TOP_LEVEL_REQUIRED', deleteIdentity: 'TOP_LEVEL_REQUIRED',
    },
    status: { passphrase: false, locked: false, identities: 1 },
    // Change events cross the channel from the keystore origin.
    changes: ['identity-created'],
    frames: 1,
  });
});

test('app page script with direct access gets nothing: no database on its origin, no way into the frame', async ({ page }) => {
  await load(page);
  const name = storeName('direct');
  await page.evaluate((n) => window.isoTests.scenario(n), name);
  const r = await page.evaluate((n) => window.isoTests.directAccess(n), name);
  expect(r).toEqual({ dbs: [], stores: 0, frameDocument: 'SecurityError', frameStorage: 'SecurityError', frameSrcOrigin: KEYSTORE_ORIGIN });
  // A second connection forged by the app (as a manager window would connect) gets no answer at all.
  expect(await page.evaluate((n) => window.isoTests.forgeConnection(n, 2000), name)).toBe('no answer');
  // The same name without isolation is another (empty) store on the app origin.
  expect(await page.evaluate((n) => window.isoTests.sameNameHere(n), name)).toBe(0);
});

test('an origin off the frame\'s allow-list, and a frame whose frame-ancestors names no one, give KEYSTORE_UNAVAILABLE and leave no iframe', async ({ page }) => {
  await load(page);
  expect(await page.evaluate((n) => window.isoTests.refusedOpen(n, 'other.frame.html', 3000), storeName('other')))
    .toEqual({ code: 'KEYSTORE_UNAVAILABLE', framesBefore: 0, framesAfter: 0 });
  expect(await page.evaluate((n) => window.isoTests.refusedOpen(n, 'closed.unframable.html', 3000), storeName('closed')))
    .toEqual({ code: 'KEYSTORE_UNAVAILABLE', framesBefore: 0, framesAfter: 0 });
  // The keystore origin serves the documented headers.
  const frame = await page.request.get(`${KEYSTORE_ORIGIN}/tests/playwright/fixtures/isolated/keystore.frame.html`);
  expect(frame.headers()['content-security-policy']).toBe(`frame-ancestors ${BASE}`);
  expect(frame.headers()['origin-agent-cluster']).toBe('?1');
  const manager = await page.request.get(`${KEYSTORE_ORIGIN}/tests/playwright/fixtures/isolated/keystore.manager.html`);
  expect(manager.headers()['content-security-policy']).toBe("frame-ancestors 'none'");
});

test('the manager window (top-level on the keystore origin) sets a passphrase, exports the phrase and removes the passphrase; the app cannot read it', async ({ page, context }) => {
  await load(page);
  const name = storeName('manager');
  const r = await page.evaluate((n) => window.isoTests.scenario(n), name);
  expect(r.status.passphrase).toBe(false);
  const [popup] = await Promise.all([context.waitForEvent('page'), page.click('#manage')]);
  await popup.waitForLoadState();
  expect(new URL(popup.url()).origin).toBe(KEYSTORE_ORIGIN);
  await expect(popup.locator('#state')).toHaveText(/^connected manager-/);
  await popup.click('#set-passphrase');
  await expect(popup.locator('#status')).toContainText('"passphrase":true');
  expect(await page.evaluate(() => window.isoTests.status())).toEqual({ passphrase: true, locked: false, identities: 1 });
  await popup.click('#phrase-button');
  await expect(popup.locator('#phrase')).toHaveText(/^(\S+ ){23}\S+$/);
  const phrase = await popup.locator('#phrase').textContent();
  // The app page holds the manager's window but cannot read it.
  expect(await page.evaluate(() => window.isoTests.readManager())).toBe('SecurityError');
  // The phrase is the identity's: restoring it elsewhere gives the same id.
  expect(await page.evaluate(([n, p]) => window.isoTests.restoreHere(n, p), [storeName('restore'), phrase ?? ''] as const))
    .toBe((await page.evaluate(() => window.isoTests.currentIds()))[0]);
  await popup.click('#backup-button');
  await expect(popup.locator('#backup')).toHaveText(/^\{"bytes":\d+,"skipped":\["[0-9a-f]{64}"\],"imported":0\}$/);
  await popup.click('#remove-passphrase');
  await expect(popup.locator('#status')).toContainText('"passphrase":false');
  expect(await page.evaluate(() => window.isoTests.status())).toEqual({ passphrase: false, locked: false, identities: 1 });
  await popup.close();
});

test('attack: app-origin script cannot set a first passphrase or delete an identity of a store without one; the manager can set it', async ({ page, context }) => {
  await load(page);
  const name = storeName('gates');
  expect(await page.evaluate((n) => window.isoTests.gatesWithoutPassphrase(n), name)).toEqual({
    setPassphrase: 'TOP_LEVEL_REQUIRED', deleteIdentity: 'TOP_LEVEL_REQUIRED', status: { passphrase: false, locked: false, identities: 1 },
  });
  const [popup] = await Promise.all([context.waitForEvent('page'), page.click('#manage')]);
  await popup.waitForLoadState();
  await expect(popup.locator('#state')).toHaveText(/^connected gates-/);
  await popup.click('#set-passphrase');
  await expect(popup.locator('#status')).toContainText('"passphrase":true');
  await popup.close();
  // Now the app needs that passphrase to change it or to delete the identity; lock and unlock stay open to it.
  expect(await page.evaluate(() => window.isoTests.gatesWithPassphrase('manager passphrase'))).toEqual({
    lock: 'resolved', locked: 'KEYSTORE_LOCKED', unlockWrong: 'AUTHENTICATION_FAILED', unlock: 'resolved',
    setWithout: 'TOP_LEVEL_REQUIRED', setWrong: 'AUTHENTICATION_FAILED', setCurrent: 'resolved',
    relock: 'resolved', unlockOld: 'AUTHENTICATION_FAILED', unlockChanged: 'resolved',
    deleteWithout: 'TOP_LEVEL_REQUIRED', deleteWrong: 'AUTHENTICATION_FAILED', identitiesBefore: 1, deleteCurrent: 'resolved', identitiesAfter: 0,
  });
});

test('attack: a burst of key uses from the app is rate-limited per connection (RATE_LIMITED) and recovers after the refill it names', async ({ page }) => {
  await load(page);
  // The frame's default bucket: 100 key uses at once, then 10 a second (docs/KEYSTORE.md#rate-limit).
  const total = 150;
  const r = await page.evaluate(([n, t]) => window.isoTests.burst(n, t), [storeName('burst'), total] as const);
  // Tokens only grow with time, so the first 100 always pass; the refill during the burst lets a few more through.
  expect(r.firstLimitedAt).toBeGreaterThanOrEqual(100);
  expect(r.ok).toBeGreaterThanOrEqual(100);
  expect(r.limited).toBeGreaterThan(0);
  expect(r.ok + r.limited).toBe(total);
  expect(r).toMatchObject({
    other: [], retryAfterMs: true, recovered: 'resolved',
    othersLimited: { signHybrid: true, signMlDsa: true, decapsulate: true, openSealed: true, openSealedExport: true, deriveSharedKey: true },
  });
});

async function identityId(page: Page, name: string): Promise<string> {
  const ids = await page.evaluate((n) => window.isoTests.identities(n), name);
  expect(ids.length).toBe(1);
  return ids[0]!;
}

test('same site: the store survives a browser restart and is the keystore origin\'s own first-party store', async () => {
  skipIf(noPersistentProfile !== undefined, noPersistentProfile ?? '');
  const dir = mkdtempSync(join(tmpdir(), 'veilkit-iso-'));
  const launch = () => launchPersistent(dir, String(config.use?.baseURL));
  const name = storeName('persist');
  try {
    let ctx = await launch();
    let page = await ctx.newPage();
    await load(page);
    expect((await page.evaluate((n) => window.isoTests.scenario(n), name)).idMatches).toBe(true);
    const id = await identityId(page, name);
    await ctx.close();
    ctx = await launch();
    page = await ctx.newPage();
    await load(page);
    expect(await page.evaluate((n) => window.isoTests.identities(n), name)).toEqual([id]);
    // Same site: no partition; a top-level page on the keystore origin opens the same store.
    await page.goto(`${KEYSTORE_ORIGIN}/tests/playwright/fixtures/keystore-page.html`);
    await expect(page).toHaveTitle('ready');
    expect(await page.evaluate(async (n) => {
      const ks = await window.ksTests.Keystore.open({ name: n });
      try {
        return (await ks.listIdentities()).map((i) => i.id);
      } finally {
        ks.close();
      }
    }, name)).toEqual([id]);
    await ctx.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('another site, third-party storage blocked (Chromium\'s headless default; Firefox with third-party cookies blocked): the frame fails with STORAGE_FAILED and nothing is kept', async ({ page }) => {
  // WebKit never blocks a cross-site frame's IndexedDB: it partitions it by the top-level site (the
  // next test checks that), and WebKitGTK has no third-party storage blocking setting WebDriver can set.
  skipIf(engine === 'webkit', 'WebKit partitions third-party IndexedDB and has no setting to block it (WebKitGTK cookie policy covers cookies only); checked by the partitioned-store test instead');
  const expected = { code: 'STORAGE_FAILED', framesBefore: 0, framesAfter: 0 };
  if (engine !== 'firefox') {
    await load(page);
    expect(await page.evaluate((n) => window.isoTests.refusedOpen(n, 'keystore.frame.html', 10_000, 'cross'), storeName('blocked'))).toEqual(expected);
    return;
  }
  // Firefox's default partitions third-party storage instead of blocking it (the next test); its
  // blocking setting is network.cookie.cookieBehavior = 1 (all third-party cookies and storage),
  // in a fresh profile.
  const dir = mkdtempSync(join(tmpdir(), 'veilkit-iso-'));
  try {
    const ctx = await launchPersistent(dir, String(config.use?.baseURL), { firefoxUserPrefs: { 'network.cookie.cookieBehavior': 1 } });
    try {
      const p = await ctx.newPage();
      await load(p);
      expect(await p.evaluate((n) => window.isoTests.refusedOpen(n, 'keystore.frame.html', 10_000, 'cross'), storeName('blocked'))).toEqual(expected);
    } finally {
      await ctx.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});


/** The identities of store `name` as a top-level page on the keystore origin sees them (its first-party storage). */
async function firstPartyIdentities(page: Page, name: string): Promise<string[]> {
  await page.goto(`${CROSS_SITE_ORIGIN}/tests/playwright/fixtures/keystore-page.html`);
  await expect(page).toHaveTitle('ready');
  return page.evaluate(async (n) => {
    const ks = await window.ksTests.Keystore.open({ name: n });
    try {
      return (await ks.listIdentities()).map((i) => i.id);
    } finally {
      ks.close();
    }
  }, name);
}
test('another site, WebKit\'s default: the frame opens a store partitioned by the app\'s site, which the keystore origin\'s first-party storage does not see', async ({ page }) => {
  // The restart half of the allowed-storage test below needs a persistent profile WebKit does not
  // have; this is the same partitioning check within one session.
  skipIf(engine !== 'webkit', 'WebKit only: Chromium and Firefox run the blocked and allowed tests around it with a persistent profile');
  const name = storeName('webkit-partitioned');
  await load(page);
  expect((await page.evaluate((n) => window.isoTests.scenario(n, 'cross'), name)).idMatches).toBe(true);
  const [id] = await page.evaluate((n) => window.isoTests.identities(n, 'cross'), name);
  expect(id).toMatch(/^[0-9a-f]{64}$/);
  expect(await page.evaluate((n) => window.isoTests.identities(n, 'cross'), name)).toEqual([id]);
  expect(await firstPartyIdentities(page, name)).toEqual([]);
});

// What a cross-site frame keeps depends on the browser's third-party storage rule; docs/KEYSTORE.md
// lists it per engine. Chromium, with third-party cookies allowed, does not partition it; Firefox
// (its default, Total Cookie Protection) partitions it by the app's top-level site.
const PARTITIONS_THIRD_PARTY_STORAGE = engine !== 'chromium';
test('another site, third-party storage allowed: the store survives a restart (Chromium: the keystore origin\'s first-party storage; Firefox: a store partitioned by the app\'s site)', async () => {
  skipIf(noPersistentProfile !== undefined, noPersistentProfile ?? '');
  const dir = mkdtempSync(join(tmpdir(), 'veilkit-iso-'));
  // Third-party cookies (and so third-party storage) allowed, as in a default desktop profile
  // (Chromium's profile setting; Firefox allows partitioned third-party storage by default).
  mkdirSync(join(dir, 'Default'), { recursive: true });
  writeFileSync(join(dir, 'Default', 'Preferences'), JSON.stringify({ profile: { cookie_controls_mode: 0 } }));
  const launch = () => launchPersistent(dir, String(config.use?.baseURL));
  const name = storeName('partitioned');
  try {
    let ctx = await launch();
    let page = await ctx.newPage();
    await load(page);
    expect((await page.evaluate((n) => window.isoTests.scenario(n, 'cross'), name)).idMatches).toBe(true);
    const [id] = await page.evaluate((n) => window.isoTests.identities(n, 'cross'), name);
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    await ctx.close();
    ctx = await launch();
    page = await ctx.newPage();
    await load(page);
    expect(await page.evaluate((n) => window.isoTests.identities(n, 'cross'), name)).toEqual([id]);
    // First-party on the keystore origin: the same store where the engine does not partition, none
    // where it does (the frame's store lives in the app site's partition).
    expect(await firstPartyIdentities(page, name)).toEqual(PARTITIONS_THIRD_PARTY_STORAGE ? [] : [id]);
    await ctx.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

declare global {
  interface Window { ksTests: typeof import('./fixtures/keystore-page.js') }
}
