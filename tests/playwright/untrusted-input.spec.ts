// Untrusted bytes through the public API in Chromium (issue 34 item 4): initial messages, bundles and
// ratchet messages given to Session (answered by the keystore worker), sealed boxes, exporter
// encapsulations, KEM ciphertexts and backups given to a keystore identity, and containers given to
// decryptFile / openContainer / inspectContainer (pool workers) — every truncation or a sample of them,
// bit flips, random bytes and valid prefixes with garbage (tests/playwright/fixtures/untrusted-page.ts).
// Attack-shaped: a sender or relay controls these bytes; every failure must be a VeilError with a known
// code on the page, whichever side of the worker boundary raised it. The Node test
// (tests/node/fuzz-untrusted-input.test.ts) runs every truncation of the same parsers in-process.
import { test, expect } from './test.js';
import { formatTyped, type EntryCounts } from '../shared/mutate.js';

type UntrustedTests = typeof import('./fixtures/untrusted-page.js');
declare global {
  interface Window { untrustedTests: UntrustedTests }
}

test.beforeEach(async ({ page }) => {
  await page.goto('/tests/playwright/fixtures/untrusted.html');
  await expect(page).toHaveTitle('ready');
});

function check(report: Record<string, EntryCounts>, entries: readonly string[]): void {
  console.log(formatTyped(report));
  expect(Object.keys(report).sort()).toEqual([...entries].sort());
  const untyped = Object.fromEntries(Object.entries(report).map(([e, c]) => [e, c.untyped === 0 ? 0 : `${c.untyped}: ${c.examples.join(' | ')}`]));
  expect(untyped).toEqual(Object.fromEntries(entries.map((e) => [e, 0])));
  for (const [e, c] of Object.entries(report)) expect(c.cases - (c.outcomes.ok ?? 0), `${e}: mutants that failed`).toBeGreaterThan(20);
}

test('Session.respond, Session.initiate and session.decrypt fail only with typed errors on mutated bytes', async ({ page }) => {
  test.setTimeout(240_000);
  const r = await page.evaluate(() => window.untrustedTests.sessions());
  check(r, ['Session.respond (initial message)', 'Session.initiate (peer bundle)', 'Session.decrypt (message)']);
});

test('sealed boxes, exporter encs, KEM ciphertexts and backups given to a keystore identity fail only with typed errors', async ({ page }) => {
  test.setTimeout(240_000);
  const r = await page.evaluate(() => window.untrustedTests.keystore());
  check(r, [
    'open (sealed box, keystore identity)', 'Keystore.openSealed (sealed box)', 'openExport (enc, keystore identity)', 'Keystore.openSealedExport (enc)',
    'Keystore.decapsulate (x-wing ciphertext)', 'Keystore.decapsulate (ml-kem-768 ciphertext)', 'Keystore.importBackup (backup)',
  ]);
});

test('containers given to decryptFile, openContainer and inspectContainer fail only with typed errors', async ({ page }) => {
  test.setTimeout(240_000);
  const r = await page.evaluate(() => window.untrustedTests.files());
  check(r, ['decryptFile (Blob)', 'decryptFile (stream, streaming release)', 'openContainer', 'inspectContainer (bytes)', 'inspectContainer (Blob)']);
});
