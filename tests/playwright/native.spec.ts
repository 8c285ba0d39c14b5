// Native WebCrypto routes vs the wasm core (ts/native.ts): the same vectors
// through a WorkerPool forced onto each route, identical bytes across routes,
// and the capability report.
import { test, expect } from '@playwright/test';
import type { RouteReport } from './fixtures/native-page.js';

type NativeTests = typeof import('./fixtures/native-page.js');
declare global {
  interface Window { nativeTests: NativeTests }
}

test.describe.configure({ mode: 'serial' });

const reports = new Map<string, RouteReport>();

test.beforeEach(async ({ page }) => {
  await page.goto('/tests/playwright/fixtures/native.html');
  await expect(page).toHaveTitle('ready');
});

for (const route of ['wasm', 'native', 'auto'] as const) {
  test(`route '${route}': routed primitives pass the vectors through the pool`, async ({ page }) => {
    test.setTimeout(5 * 60_000);
    const r = await page.evaluate((rt) => window.nativeTests.runRoute(rt), route);
    reports.set(route, r);
    console.log(`route ${route}: ${r.millis} ms, checked ${JSON.stringify(r.checked)}, routes ${JSON.stringify(r.capabilities.routes)}`);
    expect(r.failures).toEqual([]);
    expect(r.checked['x25519']).toBeGreaterThan(500);
    expect(r.checked['ed25519 cctv']).toBeGreaterThan(900);
    expect(r.checked['ml-kem keygen+encaps+decaps']).toBe(100);
    expect(r.checked['pbkdf2']).toBe(60);
    const caps = r.capabilities;
    expect(caps.routePreference).toBe(route);
    expect(caps.wasmBuild).toBe('simd'); // the pool was told threads: false
    expect(caps.crossOriginIsolated).toBe(true);
    // Chromium ships all three; the forced native route must really be native.
    expect(caps.webCrypto.x25519.supported && caps.webCrypto.ed25519.supported && caps.webCrypto.mlKem768.supported).toBe(true);
    const want = route === 'wasm' ? 'wasm' : 'native';
    // 'auto' keeps Ed25519 signing on wasm (WebCrypto with a key import per call is no faster).
    const sign = route === 'native' ? 'native' : 'wasm';
    expect(caps.routes).toEqual({
      ecdhSharedSecret: want, signMessage: sign, verifySignature: want, mlKemEncapsulate: want, derivePbkdf2: want,
      mlKemDecapsulate: 'wasm', mlKemKeygen: 'wasm',
    });
  });
}

test('identical results across routes (every case, incl. the CCTV Ed25519 edge cases)', async () => {
  const wasm = reports.get('wasm');
  const native = reports.get('native');
  test.skip(!wasm || !native, 'needs the two route runs above');
  const diffs = wasm!.transcript.map((line, i) => (line === native!.transcript[i] ? undefined : `${line} ≠ ${native!.transcript[i]}`)).filter(Boolean);
  expect(native!.transcript.length).toBe(wasm!.transcript.length);
  expect(diffs).toEqual([]);
});

test('random inputs and flipped signatures agree across routes', async ({ page }) => {
  test.setTimeout(5 * 60_000);
  const r = await page.evaluate(() => window.nativeTests.crossCheck(200));
  expect(r.mismatches).toEqual([]);
  expect(r.compared).toBe(1000);
});

test('capabilities(): WebCrypto report, non-extractable keys and ML-KEM seed import', async ({ page }) => {
  const r = await page.evaluate(async () => {
    const m = await import('/dist/ts/index.js' as string);
    await m.init({ threads: false });
    return m.capabilities();
  });
  expect(r.wasmBuild).toBe('simd');
  expect(r.threads).toBe(1);
  expect(r.webCrypto.available).toBe(true);
  for (const alg of ['pbkdf2', 'x25519', 'ed25519', 'mlKem768'] as const) {
    expect(r.webCrypto[alg]).toMatchObject({ supported: true, nonExtractable: true, selfTest: true });
  }
  expect(r.webCrypto.mlKem768.seedImport).toBe(true);
  expect(r.webCrypto.mlKem768.expandedImport).toBe(false);
});
