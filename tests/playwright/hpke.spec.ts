// Sealed box (HPKE base mode, X-Wing, HKDF-SHA256, AES-256-GCM) in every engine: interop both
// directions with @hpke/core + @hpke/hybridkem-x-wing (bundled for the page by esbuild here),
// exporter secrets, the tamper matrix and argument checks (tests/shared/hpke-interop.ts), and a
// keystore-held X-Wing key opening boxes from both implementations inside the keystore worker.
import { test, expect, engine } from './test.js';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { InteropReport } from '../shared/hpke-interop.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const LIB_URL = '/dist/tests/playwright/hpke-lib.js';

test.beforeAll(async () => {
  await build({
    entryPoints: [resolve(ROOT, 'tests/playwright/fixtures/hpke-lib-entry.ts')],
    outfile: resolve(ROOT, 'dist/tests/playwright/hpke-lib.js'),
    bundle: true, format: 'esm', platform: 'browser', target: 'es2022', logLevel: 'warning',
  });
});

test('sealed box interoperates with @hpke/core + @hpke/hybridkem-x-wing', async ({ page }) => {
  await page.goto('/tests/playwright/fixtures/hpke.html');
  await expect(page).toHaveTitle('ready');
  const r = await page.evaluate(async () => {
    const w = window as unknown as { hpke: { api: unknown; lib: unknown; suite: { runInterop: (a: unknown, l: unknown, n: number) => Promise<InteropReport>; argumentChecks: (a: unknown) => Promise<string[]> } } };
    const { api, lib, suite } = w.hpke;
    return { interop: await suite.runInterop(api, lib, 40), checks: await suite.argumentChecks(api) };
  });
  console.log(`hpke interop (${engine}): ${r.interop.veilkitToLib} veilkit→lib, ${r.interop.libToVeilkit} lib→veilkit, ${r.interop.exports} exports, ${r.interop.rejected} rejected`);
  expect(r.interop.failures).toEqual([]);
  expect(r.interop.veilkitToLib).toBe(40);
  expect(r.interop.libToVeilkit).toBe(40);
  expect(r.interop.exports).toBe(80);
  expect(r.interop.rejected).toBe(82);
  expect(r.checks).toEqual([]);
});

test('a keystore identity opens sealed boxes from both implementations in its worker', async ({ page }) => {
  await page.goto('/tests/playwright/fixtures/keystore-page.html');
  await expect(page).toHaveTitle('ready');
  const name = `hpke-${Date.now()}`;
  const r = await page.evaluate(([n, url]) => (window as unknown as { ksTests: { sealedBoxWithKeystore: (n: string, u: string) => Promise<Record<string, unknown>> } }).ksTests.sealedBoxWithKeystore(n, url), [name, LIB_URL] as const);
  expect(r).toEqual({
    ours: true, theirs: true, exports: true,
    tampered: 'AUTHENTICATION_FAILED', wrongInfo: 'AUTHENTICATION_FAILED', otherIdentity: 'AUTHENTICATION_FAILED', short: 'INVALID_LENGTH',
  });
});
