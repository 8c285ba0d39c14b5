// Keystore (issue #6) in Chromium: persistence, non-extractable keys, recovery,
// backup, passphrase lock, multi-tab races, storage faults, schema migrations,
// and no secret bytes in any worker→page message.
import { test, expect, type Page, launchPersistent, noPersistentProfile, engine } from './test.js';
import { skipIf } from './skip.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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


/**
 * A whole KeystoreStatus: the fields a test states, plus a revision (a counter whose value
 * depends on the store's history) and `persisted` (false: Playwright's contexts do not grant
 * persistent storage).
 */
function status(s: { passphrase: boolean; locked: boolean; identities: number }): Record<string, unknown> {
  return { ...s, revision: expect.any(Number), persisted: false };
}

test('capabilities name a route per key type; no private key is stored; the device key and returned keys are non-extractable', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.ksTests.extractability(n), storeName('extract'));
  expect(Object.keys(r.caps.routes).sort()).toEqual(['ed25519', 'ml-dsa-65', 'ml-kem-768', 'x-wing', 'x25519']);
  expect(r.caps.routes['x-wing']).toBe('wasm');
  // What this engine's WebCrypto generates, probed here independently of the SDK: capabilities()
  // reports exactly that (Chromium 13x+ has all four; Firefox ESR 153 has no ML-KEM-768 / ML-DSA-65).
  const engineHas = await page.evaluate(async () => {
    const gen = async (name: string, usages: KeyUsage[]) => crypto.subtle.generateKey({ name }, false, usages).then(() => true, () => false);
    return {
      'ed25519': await gen('Ed25519', ['sign', 'verify']), 'x25519': await gen('X25519', ['deriveBits']),
      'ml-kem-768': await gen('ML-KEM-768', ['encapsulateBits', 'decapsulateBits'] as unknown as KeyUsage[]),
      'ml-dsa-65': await gen('ML-DSA-65', ['sign', 'verify']),
    };
  });
  if (engine === 'chromium') expect(engineHas).toEqual({ 'ed25519': true, 'x25519': true, 'ml-kem-768': true, 'ml-dsa-65': true });
  // The self-test must agree with the wasm core where WebCrypto has the algorithm.
  expect(r.caps.webCrypto).toEqual(engineHas);
  for (const t of ['ed25519', 'x25519', 'ml-kem-768', 'ml-dsa-65'] as const) {
    // Native where WebCrypto has it and the self-test passed, else wasm (the one vocabulary: 'native' | 'wasm').
    expect(r.caps.routes[t]).toBe(engineHas[t] ? 'native' : 'wasm');
    expect(r.routes[t]).toBe(r.caps.routes[t]);
  }
  expect(r.caps.webLocks && r.caps.broadcastChannel && r.caps.indexedDb).toBe(true);
  // Every CryptoKey in IndexedDB (the device key only: no private key is stored) and every returned key.
  expect(r.storedKeys.map((k) => k.what).sort()).toEqual(['decapsulated', 'derived', 'device']);
  expect(r.storedPrivateKeys).toBe(0);
  for (const k of r.storedKeys) {
    expect(k.extractable, k.what).toBe(false);
    for (const c of k.exportFails) expect(c, `${k.what} exportKey`).not.toBe('resolved');
  }
  // Every secret is stored as wrapped seed bytes, whatever its route: each key type and the recovery material.
  expect(r.wrappedTypes).toEqual(['ed25519', 'ml-dsa-65', 'ml-kem-768', 'recovery', 'x-wing', 'x25519']);
  expect(r.secretRecords).toBe(6);
});

test('sign (app signatures, bound to label and context), deriveSharedKey and decapsulate interoperate with an independent peer', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.ksTests.operations(n), storeName('ops'));
  expect(r).toEqual({
    edOk: true, mlDsaOk: true,
    appDomain: { rawEd25519: false, rawMlDsa: false, signedBytesEd25519: true, signedBytesMlDsa: true, otherContext: false, contextTooLong: 'RangeError' },
    dhOk: true, kemOk: [true, true], weak: 'WEAK_KEY', unknown: 'KEY_NOT_FOUND', badLen: 'INVALID_LENGTH', bundleOk: true,
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
  skipIf(noPersistentProfile !== undefined, noPersistentProfile ?? '');
  const dir = mkdtempSync(join(tmpdir(), 'veilkit-profile-'));
  const baseURL = String(testInfo.project.use.baseURL);
  const name = storeName('restart');
  const open = () => launchPersistent(dir, baseURL);
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
  expect(r.vector).toEqual({ id: '95415769bc9a83cc670634f78bea1ff4adc09652b390bb8715510026042e6509', sha256: '2bb01d15961f7a76947724d1a58794a2c93473f4f125c1dfc3c86137474ff5bf' });
});

test('backup round trip; wrong passphrase, tampering and garbage change nothing', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.ksTests.backup(n), storeName('backup'));
  expect(r.header).toEqual({ magic: 'VKBK', version: 2, kdf: 1, m: 19456, t: 2, p: 1 });
  expect(r.wrong).toBe('AUTHENTICATION_FAILED');
  expect(r.tamperedCode).toBe('AUTHENTICATION_FAILED');
  expect(r.garbage).toBe('INVALID_BACKUP');
  expect(r.weakCode).toBe('INVALID_BACKUP');
  expect(r.unchanged).toBe(true);
  expect([...r.imported].sort()).toEqual([...r.ids].sort());
  expect([...r.skipped].sort()).toEqual([...r.ids].sort());
  expect(r.bundlesEqual).toEqual([true, true]);
  expect(r.phrasesEqual).toBe(true);
  expect(r.labels).toEqual(['one', 'two ✓']);
});

test('passphrase lock: typed errors while locked, wrong passphrase changes nothing, relocks on reload', async ({ page }) => {
  const name = storeName('lock');
  await load(page);
  const r = await page.evaluate((n) => window.ksTests.passphrase(n), name);
  expect(r.set).toEqual(status({ passphrase: true, locked: false, identities: 1 }));
  expect(r.signedUnlocked).toBe(3309);
  expect(r.locked).toEqual(status({ passphrase: true, locked: true, identities: 1 }));
  expect(r.lockedCodes).toEqual({ sign: 'KEYSTORE_LOCKED', mlDsa: 'KEYSTORE_LOCKED', phrase: 'KEYSTORE_LOCKED', create: 'KEYSTORE_LOCKED', remove: 'KEYSTORE_LOCKED' });
  expect(r.listWhileLocked).toBe(1);
  expect(r.wrong).toBe('AUTHENTICATION_FAILED');
  expect(r.stillLocked).toBe(true);
  expect(r.signedAfterUnlock).toBe(true);
  await page.reload();
  await expect(page).toHaveTitle('ready');
  const after = await page.evaluate((n) => window.ksTests.passphraseAfterReload(n), name);
  expect(after.status).toEqual(status({ passphrase: true, locked: true, identities: 1 }));
  expect(after.signLocked).toBe('KEYSTORE_LOCKED');
  expect(after.removed).toEqual(status({ passphrase: false, locked: false, identities: 1 }));
  expect(after.afterRemove).toEqual(status({ passphrase: false, locked: false, identities: 1 }));
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
  expect(r.status).toEqual({ passphrase: false, locked: false, identities: 1, revision: r.before.revision, persisted: false });
  expect(r.afterwards).toBe(true);
  expect(r.final.identities).toBe(2);
});

test('the shipped worker has no fault injection, even with veilkit/init { debug: true }', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.ksTests.shippedWorkerHasNoFaults(n), storeName('nofaults'));
  expect(r.legacy).toBe('MALFORMED_INPUT');
  expect(r.testHook).toBe('MALFORMED_INPUT');
  expect(r.created).toBe('resolved');
  expect(r.identities).toBe(1);
});

test('schema: a version-1 database is migrated, a newer one is refused and left untouched', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.ksTests.schema(n), storeName('schema'));
  expect(r.migrated.version).toBe(5);
  // Every store of the current schema exists after the migration (version 5 added `groups`).
  expect(r.migrated.stores).toEqual(['conversations', 'groups', 'heads', 'history', 'identities', 'meta', 'prekeys', 'replay', 'secrets', 'sessions']);
  expect(r.migrated.indexes).toContain('byIdentity');
  // The v1 record comes through unchanged, with the byIdentity index's key added.
  expect(r.migrated.record).toEqual({ id: 'abc/recovery', identityId: 'abc', type: 'recovery', route: 'wasm', wrapped: new Uint8Array([1, 2, 3]) });
  expect(r.status).toEqual(status({ passphrase: false, locked: false, identities: 0 }));
  expect(r.futureCode).toBe('STORAGE_VERSION_MISMATCH');
  expect(r.kept).toEqual({ version: 99, value: 42 });
  // A store in the previous record format (usable private CryptoKeys in it) is refused, not read or rewritten.
  expect(r.oldFormatCode).toBe('UNSUPPORTED_VERSION');
  expect(r.oldState).toEqual({ key: 'state', revision: 7, generation: 0 });
});

test('no worker→page message carries secret bytes (only the documented export paths do)', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.ksTests.noSecretsOnPage(n), storeName('nosecrets'));
  console.log(`no secrets on the page: ${r.scanned} messages, ${r.scannedBytes} bytes, ${r.windows} windows scanned`);
  expect(r.hits).toEqual([]);
  expect(r.exported).toBe(1);
  // The scenario's fixed sequence of calls: its messages, their bytes and the secret windows searched.
  // (Sealed box: +3 replies, 37 bytes — a 5-byte plaintext, a failed open, a 32-byte export.)
  expect({ scanned: r.scanned, scannedBytes: r.scannedBytes, windows: r.windows }).toEqual({ scanned: 25, scannedBytes: 31_848, windows: 1320 });
  expect(r.cryptoKeys.length).toBe(3);
  for (const k of r.cryptoKeys) expect(k.extractable).toBe(false);
  // AES-GCM from deriveSharedKey and decapsulate, the HKDF base key (`output: 'hkdf'`) with deriveKey only.
  expect(r.cryptoKeys.map((k) => k.usages.join(',')).sort()).toEqual(['decrypt,encrypt', 'decrypt,encrypt', 'deriveKey']);
});

// Security review (issue 13): each test performs the attack and sees it fail.

test('attack: page script opening the database of a locked store gets no usable key and no secret bytes', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.ksTests.lockedStoreAttack(n), storeName('attack-locked'));
  console.log(`locked store attack: ${r.attempts} attempts, ${r.controlSuccesses} control successes`);
  expect(r.status).toEqual(status({ passphrase: true, locked: true, identities: 1 }));
  expect(r.lockedSign).toBe('KEYSTORE_LOCKED');
  expect(r.storedPrivateKeys).toBe(0);
  expect(r.privateUsageKeys).toBe(0);
  expect(r.keys).toBe(1); // the device key, which wraps nothing while a passphrase is set
  expect(r.attempts).toBe(52);
  expect(r.successes).toBe(0);
  expect(r.secretHits).toBe(0);
  // Control: without a passphrase, the same script does decrypt the records (documented: same principal as the app).
  expect(r.controlPrivateUsageKeys).toBe(0);
  expect(r.controlSuccesses).toBe(5);
});

test('attack: wrapped records (and a public bundle) swapped between ids fail with a typed error', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.ksTests.swappedRecords(n), storeName('attack-swap'));
  expect(r).toEqual({ otherIdentity: 'AUTHENTICATION_FAILED', otherType: 'AUTHENTICATION_FAILED', untouched: true, otherBundle: 'AUTHENTICATION_FAILED' });
});

test('attack: a stale generation, a rolled-back state and a missed lock are refused', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.ksTests.staleGeneration(n), storeName('attack-stale'));
  expect(r).toEqual({
    signsBefore: true, missedLock: 'KEYSTORE_LOCKED', lockedStatus: true, staleRecord: 'AUTHENTICATION_FAILED', staleState: 'AUTHENTICATION_FAILED',
  });
});

test('attack: KDF parameters over the budget (backup 1 GiB / t = 16, lock record) are refused; an explicit budget proceeds', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.ksTests.kdfBudget(n), storeName('attack-kdf'));
  expect(r).toEqual({
    hugeCode: 'KDF_BUDGET_EXCEEDED', hugeUnchanged: true,
    exportDefault: 'KDF_BUDGET_EXCEEDED', importDefault: 'KDF_BUDGET_EXCEEDED', importRaised: 1,
    setDefault: 'KDF_BUDGET_EXCEEDED', unlockHuge: 'KDF_BUDGET_EXCEEDED', unlockT5Default: 'KDF_BUDGET_EXCEEDED',
    unlockT5Raised: 'AUTHENTICATION_FAILED', badBudget: 'TypeError',
  });
});

test('attack: a backup whose recovery entropy does not give its seed is refused', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.ksTests.backupCrossCheck(n), storeName('attack-mixed'));
  expect(r).toEqual({ mixedCode: 'INVALID_BACKUP', unchanged: true, imported: 1, callerBufferKept: true });
});

test('attack: the page cannot read HKDF bits from a decapsulated key (deriveKey only)', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.ksTests.hkdfKeyUsages(n), storeName('attack-hkdf'));
  expect(r).toEqual({
    'ml-kem-768': { usages: ['deriveKey'], deriveBits: 'InvalidAccessError' },
    'x-wing': { usages: ['deriveKey'], deriveBits: 'InvalidAccessError' },
  });
});

test('signHybrid: Ed25519 and ML-DSA-65 app signatures over the same message, both checked; refused without ML-DSA-65', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.ksTests.hybridSigning(n), storeName('hybrid'));
  expect(r).toEqual({ ed25519: true, mlDsa65: true, hybrid: true, flipped: false, classic: 'KEY_NOT_FOUND' });
});
