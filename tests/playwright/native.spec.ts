// Native WebCrypto routes vs the wasm core (ts/webcrypto/): the same vectors
// through a WorkerPool forced onto each route, identical bytes across routes,
// and the capability report.
import { test, expect } from './test.js';
import type { Page } from '@playwright/test';
import type { RouteReport } from './fixtures/native-page.js';
import { skipIf } from './skip.js';

/** The facade as the page loads it (served from dist/ by tests/server.mjs). */
type Veilkit = typeof import('../../ts/index.js');

type NativeTests = typeof import('./fixtures/native-page.js');
declare global {
  interface Window { nativeTests: NativeTests }
}

test.describe.configure({ mode: 'serial' });

const reports = new Map<string, RouteReport>();

/** The native algorithms this engine's WebCrypto lacks (capabilities() after init, in the page). */
let missingNative: string[] | undefined;

test.beforeEach(async ({ page }) => {
  await page.goto('/tests/playwright/fixtures/native.html');
  await expect(page).toHaveTitle('ready');
  if (missingNative === undefined) {
    const found = await page.evaluate(async () => {
      const url: string = '/dist/ts/index.js';
      const m = (await import(url)) as Veilkit;
      await m.init({ threads: false });
      const w = m.capabilities().webCrypto;
      return { missing: (['x25519', 'ed25519', 'mlKem768', 'mlDsa65'] as const).filter((a) => !w[a].supported), ed25519SelfTest: w.ed25519.selfTest };
    });
    missingNative = found.missing;
    ed25519SelfTest = found.ed25519SelfTest;
  }
  // Every test here compares the native WebCrypto routes with wasm (the wasm route alone is what
  // vectors.spec.ts and the other suites run in every engine). Without WebCrypto X25519 or Ed25519
  // nothing here is native; without ML-KEM-768 (Firefox, WebKit) its cases run on wasm under every
  // route, and the ML-KEM key-handle test skips on its own; without ML-DSA-65 (Firefox, WebKit) its
  // handles run on wasm under every route.
  const core = missingNative.filter((a) => a !== 'mlKem768' && a !== 'mlDsa65');
  skipIf(core.length > 0, `this engine's WebCrypto lacks ${core.join(', ')}: the native routes this spec compares with wasm cannot run`);
});

/** ML-DSA-65 where a non-extractable key signs and verifies, asked of the page's WebCrypto directly (not through veilkit). */
function engineHasMlDsa(page: Page): Promise<boolean> {
  return page.evaluate(async () => {
    const pair = await (crypto.subtle.generateKey({ name: 'ML-DSA-65' }, false, ['sign', 'verify']) as Promise<CryptoKeyPair>).catch(() => undefined);
    if (!pair) return false;
    const msg = new Uint8Array(3);
    return pair.privateKey.extractable === false && crypto.subtle.verify({ name: 'ML-DSA-65' }, pair.publicKey, await crypto.subtle.sign({ name: 'ML-DSA-65' }, pair.privateKey, msg), msg);
  });
}

/** Whether this engine's WebCrypto has ML-KEM-768 (Chromium); set by beforeEach. */
const nativeMlKem = (): boolean => missingNative !== undefined && !missingNative.includes('mlKem768');
/**
 * Whether this engine's Ed25519 passed veilkit's self-test (not WebKitGTK's: it decides verification
 * edge cases unlike the core), so that a route takes it; capabilities.spec checks the self-test
 * against the independent probe. Set by beforeEach.
 */
let ed25519SelfTest: boolean | undefined;

for (const route of ['wasm', 'native', 'auto'] as const) {
  test(`route '${route}': routed primitives pass the vectors through the pool`, async ({ page }) => {
    test.setTimeout(5 * 60_000);
    const r = await page.evaluate((rt) => window.nativeTests.runRoute(rt), route);
    reports.set(route, r);
    console.log(`route ${route}: ${r.millis} ms, checked ${JSON.stringify(r.checked)}, routes ${JSON.stringify(r.capabilities.routes)}`);
    expect(r.failures).toEqual([]);
    // Every case of each file (Wycheproof numberOfTests, the CCTV array): x25519_test.json 518,
    // ed25519_test.json 151, cctv_ed25519vectors.json 914 (43 accepted by their flags, 871
    // rejected), mlkem_768_keygen_seed_test.json 100, mlkem_768_encaps_test.json 265,
    // pbkdf2_hmacsha256_test.json 60; plus 64 generated Ed25519 signing cases.
    expect(r.checked).toEqual({
      x25519: 518,
      'ed25519 verify': 151,
      'ed25519 cctv accepted': 43,
      'ed25519 cctv rejected': 871,
      'ed25519 sign': 64,
      'ml-kem keygen+encaps+decaps': 100,
      'ml-kem encaps': 265,
      pbkdf2: 60,
    });
    const caps = r.capabilities;
    expect(caps.routePreference).toBe(route);
    expect(caps.wasmBuild).toBe('simd'); // the pool was told threads: false
    expect(caps.crossOriginIsolated).toBe(true);
    // The forced native route must really be native where WebCrypto has the algorithm.
    expect({ x25519: caps.webCrypto.x25519.supported, ed25519: caps.webCrypto.ed25519.supported, mlKem768: caps.webCrypto.mlKem768.supported })
      .toEqual({ x25519: true, ed25519: true, mlKem768: nativeMlKem() });
    const want = route === 'wasm' ? 'wasm' : 'native';
    const kem = nativeMlKem() ? want : 'wasm';
    const dsa = missingNative?.includes('mlDsa65') === false ? want : 'wasm';
    const ed = ed25519SelfTest === true ? want : 'wasm';
    // 'auto' keeps Ed25519 signing on wasm (WebCrypto with a key import per call is no faster).
    const sign = route === 'native' ? ed : 'wasm';
    expect(caps.routes).toEqual({
      ecdhSharedSecret: want, signMessage: sign, verifySignature: ed, mlKemEncapsulate: kem, derivePbkdf2: want,
      mlKemDecapsulate: 'wasm', mlKemKeygen: 'wasm', mlKemDecapsulationKey: kem,
      ed25519SigningKey: ed, x25519Key: want, mlKemEncapsulationKey: kem, mlDsaSigningKey: dsa, mlDsaPublicKey: dsa,
    });
  });
}

test('identical results across routes (every case, incl. the CCTV Ed25519 edge cases)', async () => {
  const wasm = reports.get('wasm');
  const native = reports.get('native');
  skipIf(wasm === undefined || native === undefined, "needs the 'wasm' and 'native' route runs above (serial), which did not run");
  if (wasm === undefined || native === undefined) return;
  const diffs = wasm.transcript.map((line, i) => (line === native.transcript[i] ? undefined : `${line} ≠ ${native.transcript[i]}`)).filter(Boolean);
  expect(native.transcript.length).toBe(wasm.transcript.length);
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
    const url: string = '/dist/ts/index.js';
    const m = (await import(url)) as Veilkit;
    await m.init({ threads: false });
    return m.capabilities();
  });
  expect(r.wasmBuild).toBe('simd');
  expect(r.threads).toBe(1);
  expect(r.webCrypto.available).toBe(true);
  for (const alg of ['pbkdf2', 'x25519', 'ed25519'] as const) {
    expect({ alg, ...r.webCrypto[alg] }).toEqual({ alg, supported: true, nonExtractable: true, selfTest: alg !== 'ed25519' || ed25519SelfTest === true });
  }
  expect(r.webCrypto.mlKem768).toEqual(nativeMlKem()
    ? { supported: true, nonExtractable: true, selfTest: true, seedImport: true, expandedImport: false }
    : { supported: false, nonExtractable: false, selfTest: false, seedImport: false, expandedImport: false });
  expect(r.webCrypto.mlDsa65).toEqual(await engineHasMlDsa(page)
    ? { supported: true, nonExtractable: true, selfTest: true, seedImport: true }
    : { supported: false, nonExtractable: false, selfTest: false, seedImport: false });
});

test('ML-KEM key handles: both routes pass the Wycheproof decapsulation vectors with identical bytes', async ({ page }) => {
  skipIf(!nativeMlKem(), "this engine's WebCrypto lacks ML-KEM-768: key handles have only the wasm route (the files, keystore and session suites run it)");
  test.setTimeout(2 * 60_000);
  const r = await page.evaluate(async () => {
    const url: string = '/dist/ts/index.js';
    const m = (await import(url)) as Veilkit;
    await m.init({ threads: false });
    const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
    const bin = (h: string) => Uint8Array.from(h.match(/../g) ?? [], (x) => Number.parseInt(x, 16));
    interface MlKemDecapsFile {
      testGroups: { parameterSet: string; tests: { tcId: number; seed: string; c: string; ek?: string; K: string; result: string }[] }[];
    }
    const file = (await (await fetch('/vectors/ml-kem-768/mlkem_768_test.json')).json()) as MlKemDecapsFile;
    const failures: string[] = [];
    const checked: Record<string, number> = { wasm: 0, native: 0 };
    const transcripts: Record<string, string[]> = { wasm: [], native: [] };
    const errName = (e: unknown) => `${(e as Error).name}${(e as { code?: string }).code ? `[${(e as { code?: string }).code}]` : ''}`;
    for (const route of ['wasm', 'native'] as const) {
      for (const g of file.testGroups) {
        if (g.parameterSet !== 'ML-KEM-768') continue;
        for (const t of g.tests) {
          const seed = bin(t.seed);
          const ct = bin(t.c);
          let line: string;
          try {
            const key = await m.importMlKemSeed(seed, { route });
            if (key.route !== route) failures.push(`${route} tcId ${t.tcId}: got route ${key.route}`);
            if (t.ek && hex(key.encapsulationKey) !== t.ek) failures.push(`${route} tcId ${t.tcId}: encapsulation key`);
            const k = await key.decapsulate(ct);
            line = hex(k);
            if (t.result === 'valid' && line !== t.K) failures.push(`${route} tcId ${t.tcId}: shared secret`);
            if (t.result === 'invalid') failures.push(`${route} tcId ${t.tcId}: invalid case accepted`);
            key.destroy();
          } catch (e) {
            line = errName(e);
            if (t.result === 'valid') failures.push(`${route} tcId ${t.tcId}: threw ${line}`);
            // A ciphertext of the wrong length is the sender's bytes (INVALID_LENGTH, issue 34 item 4); a bad seed is the caller's (RangeError).
            else if (ct.length !== 1088 ? line !== 'VeilError[INVALID_LENGTH]' : !(e instanceof RangeError)) {
              failures.push(`${route} tcId ${t.tcId}: expected ${ct.length !== 1088 ? 'INVALID_LENGTH' : 'RangeError'}, got ${line}`);
            }
          }
          transcripts[route]!.push(line);
          checked[route]!++;
        }
      }
    }
    // Generated keys: encapsulate (wasm byte primitive) to the handle's public key, decapsulate through the handle.
    const generated: Record<string, unknown> = {};
    for (const route of ['wasm', 'native'] as const) {
      const key = await m.generateMlKemKey({ route });
      const { ciphertext, sharedSecret } = m.mlKemEncapsulate(key.encapsulationKey);
      const back = await key.decapsulate(ciphertext);
      const destroyed = await key.decapsulate(ciphertext).then(() => 'ok', errName);
      key.destroy();
      const afterDestroy = await key.decapsulate(ciphertext).then(() => 'ok', errName);
      generated[route] = {
        route: key.route, agrees: hex(back) === hex(sharedSecret), beforeDestroy: destroyed, afterDestroy,
        webCryptoKey: key.webCryptoKey === undefined ? 'none' : 'kept',
      };
    }
    const native = await m.importMlKemSeed(new Uint8Array(64).fill(7), { route: 'native' });
    const wk = native.webCryptoKey as CryptoKey;
    const misuse = [
      await m.importMlKemSeed(new Uint8Array(63)).then(() => 'ok', errName),
      await native.decapsulate(new Uint8Array(1087)).then(() => 'ok', errName),
      await native.decapsulate('not bytes' as unknown as Uint8Array).then(() => 'ok', errName),
    ];
    return {
      failures, checked, generated, misuse,
      differ: transcripts.wasm!.filter((l, i) => l !== transcripts.native![i]).length,
      nativeKey: { type: wk.type, extractable: wk.extractable, algorithm: wk.algorithm.name, usages: [...wk.usages].sort() },
      defaultRoute: m.capabilities().routes.mlKemDecapsulationKey,
    };
  });
  console.log(`ML-KEM key handles: ${JSON.stringify(r.checked)} vectors per route, ${r.differ} differing outputs`);
  expect(r.failures).toEqual([]);
  // mlkem_768_test.json: 201 tests (numberOfTests), each through both routes.
  expect(r.checked).toEqual({ wasm: 201, native: 201 });
  expect(r.differ).toBe(0);
  expect(r.defaultRoute).toBe('native');
  for (const route of ['wasm', 'native']) {
    expect(r.generated[route]).toEqual({
      route, agrees: true, beforeDestroy: 'ok', afterDestroy: 'VeilError[INVALID_STATE]',
      webCryptoKey: 'none',
    });
  }
  expect(r.nativeKey).toEqual({ type: 'private', extractable: false, algorithm: 'ML-KEM-768', usages: ['decapsulateBits', 'decapsulateKey'] });
  // A short ciphertext is the sender's bytes: INVALID_LENGTH (issue 34 item 4); the seed is the caller's argument.
  expect(r.misuse).toEqual(['RangeError', 'VeilError[INVALID_LENGTH]', 'TypeError']);
});

test('key handles (X25519, Ed25519 signing, ML-KEM-768 encapsulation keys): both routes pass the vectors with identical results; native keys are non-extractable', async ({ page }) => {
  test.setTimeout(5 * 60_000);
  const r = await page.evaluate(() => window.nativeTests.keyHandles());
  expect(r.failures).toEqual([]);
  // x25519_test.json: 518 cases; 64 generated Ed25519 seeds; mlkem_768_encaps_test.json: 265 keys; 25 keygen vectors.
  for (const route of ['wasm', 'native']) {
    expect({ route, x: r.checked[`${route} x25519`], sign: r.checked[`${route} ed25519 sign`], ek: r.checked[`${route} ml-kem encapsulation keys`], encaps: r.checked[`${route} ml-kem encapsulate`] })
      .toEqual({ route, x: 518, sign: 64, ek: 265, encaps: 25 });
  }
  const diffs = r.transcripts.wasm.map((line, i) => (line === r.transcripts.native[i] ? undefined : `${line} ≠ ${r.transcripts.native[i]}`)).filter(Boolean);
  expect(r.transcripts.native.length).toBe(r.transcripts.wasm.length);
  expect(diffs).toEqual([]);
  expect(r.transcripts.wasm).toContain('sign after dispose VeilError[INVALID_STATE]');
  expect(r.transcripts.wasm).toContain('x25519 disposed VeilError[INVALID_STATE]');
  // [X25519, Ed25519, ML-KEM encapsulation key]: 'native' is native where WebCrypto passed the self-test.
  expect(r.routes.wasm).toEqual(['wasm', 'wasm', 'wasm']);
  const ed = ed25519SelfTest === true ? 'native' : 'wasm';
  const kem = nativeMlKem() ? 'native' : 'wasm';
  expect(r.routes.native).toEqual(['native', ed, kem]);
  expect(r.defaults).toEqual({ ed25519SigningKey: ed, x25519Key: 'native', mlKemEncapsulationKey: kem });
  expect(r.nativeKeys).toEqual([
    ...(ed === 'native' ? [{ type: 'private', extractable: false, algorithm: 'Ed25519', usages: ['sign'] }] : []),
    { type: 'private', extractable: false, algorithm: 'X25519', usages: ['deriveBits'] },
  ]);
  expect(r.crossRoute).toEqual([true, true, true]);
  expect(r.misuse).toEqual(['RangeError', 'TypeError', 'VeilError[INVALID_LENGTH]', 'VeilError[INVALID_LENGTH]', 'TypeError']);
});

test('ML-DSA-65 key handles: both routes give the Wycheproof verdicts and ACVP public keys; signatures verify across routes; native keys are non-extractable', async ({ page }) => {
  test.setTimeout(3 * 60_000);
  const r = await page.evaluate(() => window.nativeTests.mlDsaHandles());
  expect(r.failures).toEqual([]);
  // mldsa_65_verify_test.json: 210 cases; 8 ACVP ML-DSA-65 keygen seeds.
  expect(r.checked).toEqual({ 'wasm ml-dsa verify': 210, 'native ml-dsa verify': 210, 'wasm ml-dsa keygen+sign': 8, 'native ml-dsa keygen+sign': 8 });
  const diffs = r.transcripts.wasm.map((line, i) => (line === r.transcripts.native[i] ? undefined : `${line} ≠ ${r.transcripts.native[i]}`)).filter(Boolean);
  expect(diffs).toEqual([]);
  expect(r.transcripts.wasm).toContain('ml-dsa verify 1 true');
  // Native where this engine's WebCrypto has ML-DSA-65 and passed the self-test (Chromium), under 'auto' too.
  const native = r.supported ? 'native' : 'wasm';
  expect(r.supported).toBe(await engineHasMlDsa(page));
  expect(r.routes).toEqual({ wasm: ['wasm', 'wasm'], native: [native, native] });
  expect(r.defaults).toEqual({ mlDsaSigningKey: native, mlDsaPublicKey: native });
  expect(r.nativeKeys).toEqual(r.supported ? [{ type: 'private', extractable: false, algorithm: 'ML-DSA-65', usages: ['sign'] }] : []);
  expect(r.crossRoute).toEqual({ 'wasm imported': true, 'native imported': true, 'wasm generated': true, 'native generated': true });
  expect(r.disposed).toEqual(['wasm VeilError[INVALID_STATE] true', 'native VeilError[INVALID_STATE] true']);
  // The seed and the context are the caller's arguments; a public key or signature of the wrong length is someone else's.
  expect(r.misuse).toEqual(['RangeError', 'TypeError', 'VeilError[INVALID_LENGTH]', 'RangeError', 'TypeError', 'false', 'TypeError', 'TypeError']);
});
