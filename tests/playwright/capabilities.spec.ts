// `capabilities()` against the independent probe (tests/shared/probe.ts), in whichever engine runs
// this file: the wasm build (threads only where a shared wasm memory exists under cross-origin
// isolation: WebKit is isolated but has no SharedArrayBuffer and must get the SIMD build), the
// WebCrypto support and the route of every operation and keystore key; and the README "Browser
// support" row of this engine (scripts/browser-support.mjs) is what the probe says here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect, engine } from './test.js';
import type { EngineProbe } from '../shared/probe.js';
import { atLeast, engineVersion, expectedRoutes, expectedWorkerBuild, readmeRow, renderRow } from '../shared/browser-support.js';

type CapsTests = typeof import('./fixtures/capabilities-page.js');
declare global {
  interface Window { capsTests: CapsTests }
}

test('capabilities() and the keystore report what the engine really has, and the README row says the same', async ({ page }) => {
  await page.goto('/tests/playwright/fixtures/capabilities.html');
  await expect(page).toHaveTitle('ready');
  const probe: EngineProbe = await page.evaluate(() => window.capsTests.probe());
  const reported = await page.evaluate(() => window.capsTests.reported());
  if ('error' in probe.worker) throw new Error(`worker probe: ${probe.worker.error}`);
  if ('error' in reported.worker) throw new Error(`worker init: ${reported.worker.error}`);
  const p = probe.page;
  const w = probe.worker;
  console.log(`${engine}: ${JSON.stringify(probe)}`);
  expect(p.wasmSimd && w.wasmSimd, 'veilkit needs wasm SIMD128').toBe(true);

  // Page and worker: the platform facts as the probe found them.
  for (const [where, caps, pr] of [['page', reported.page, p], ['worker', reported.worker, w]] as const) {
    expect({ where, coi: caps.crossOriginIsolated, sab: caps.sharedArrayBuffer }).toEqual({ where, coi: pr.crossOriginIsolated, sab: pr.sharedArrayBuffer });
    const wc = caps.webCrypto;
    expect({
      where,
      pbkdf2: wc.pbkdf2.supported && wc.pbkdf2.selfTest,
      x25519: wc.x25519.supported && wc.x25519.selfTest && wc.x25519.nonExtractable,
      ed25519: wc.ed25519.supported && wc.ed25519.nonExtractable,
      ed25519SelfTest: wc.ed25519.selfTest,
      mlKem768: wc.mlKem768.supported && wc.mlKem768.selfTest && wc.mlKem768.nonExtractable,
      mlKem768SeedImport: wc.mlKem768.seedImport,
      mlDsa65: wc.mlDsa65.supported && wc.mlDsa65.selfTest && wc.mlDsa65.nonExtractable && wc.mlDsa65.seedImport,
    }).toEqual({
      where,
      pbkdf2: pr.webCrypto.pbkdf2,
      x25519: pr.webCrypto.x25519,
      ed25519: pr.webCrypto.ed25519,
      ed25519SelfTest: pr.webCrypto.ed25519 && pr.webCrypto.ed25519CoreRules,
      mlKem768: pr.webCrypto.mlKem768,
      mlKem768SeedImport: pr.webCrypto.mlKem768SeedImport,
      mlDsa65: pr.webCrypto.mlDsa65,
    });
    expect({ where, routes: caps.routes }).toEqual({ where, routes: expectedRoutes(pr).routes });
    expect(caps.routePreference).toBe('auto');
  }
  // The default build: SIMD on a page's main thread; threads in a worker exactly where a shared memory works.
  expect({ build: reported.page.wasmBuild, threads: reported.page.threads }).toEqual({ build: 'simd', threads: 1 });
  // A worker of the page's own, and a WorkerPool's worker (the one a pool replaced after a blocked
  // threads start runs the SIMD build, as documented).
  for (const [where, caps, pool] of [['own worker', reported.worker, false], ['pool worker', reported.poolWorker, true]] as const) {
    const expected = pool && reported.poolReplaced ? 'simd' : expectedWorkerBuild(w, probe.userAgent, pool);
    expect({ where, build: caps.wasmBuild }).toEqual({ where, build: expected });
    if (caps.wasmBuild === 'simd') expect(caps.threads).toBe(1);
    else expect(caps.threads).toBeGreaterThan(1);
  }

  // The keystore (its worker) reports the key routes and storage features the probe found.
  const ks = reported.keystore;
  expect(ks.routes).toEqual(expectedRoutes(w).keystore);
  expect(ks.webCrypto).toEqual({
    'ed25519': w.webCrypto.ed25519, 'x25519': w.webCrypto.x25519, 'ml-kem-768': w.webCrypto.mlKem768 && w.webCrypto.mlKem768SeedImport, 'ml-dsa-65': w.webCrypto.mlDsa65,
  });
  expect({ indexedDb: ks.indexedDb, webLocks: ks.webLocks, broadcastChannel: ks.broadcastChannel }).toEqual({ indexedDb: w.indexedDb, webLocks: w.webLocks, broadcastChannel: w.broadcastChannel });

  // README.md "Browser support": this engine's row is the probe's, tested on at least that version.
  const readme = readFileSync(join(process.cwd(), 'README.md'), 'utf8');
  const row = readmeRow(readme, engine);
  expect(row, `README.md has no Browser support row for ${engine}: run node scripts/browser-support.mjs --write`).toBeDefined();
  const version = engineVersion(engine, probe.userAgent);
  const want = renderRow(engine, version, probe);
  expect(row!.slice(2), 'README.md Browser support row differs from the probe: node scripts/browser-support.mjs --write').toEqual(want.slice(2));
  expect(row![0]).toBe(want[0]);
  expect(atLeast(version, row![1]!), `${engine} ${version} is older than the README's minimum ${row![1]}`).toBe(true);
});

test("route 'native': Ed25519 signing refuses a 64-byte secret whose public half is not its seed's (INVALID_KEY), as wasm does", async ({ page }) => {
  await page.goto('/tests/playwright/fixtures/capabilities.html');
  await expect(page).toHaveTitle('ready');
  const r = await page.evaluate(async () => {
    const url: string = '/dist/ts/index.js';
    const m = (await import(url)) as typeof import('../../ts/index.js');
    await m.init({ threads: false });
    const outcome = (p: Promise<unknown>): Promise<string> => p.then(
      (v) => (v instanceof Uint8Array ? `${v.length} bytes` : String(v)),
      (e: unknown) => (e instanceof m.VeilError ? `VeilError[${e.code}]` : String(e)),
    );
    const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
    const native = new m.WorkerPool({ size: 1, route: 'native', threads: false, idleTimeoutMs: 0 });
    const wasm = new m.WorkerPool({ size: 1, route: 'wasm', threads: false, idleTimeoutMs: 0 });
    try {
      const routes = await native.run({ type: 'veilkit/capabilities' });
      const [sk, pk] = m.ed25519KeypairFromSeed(crypto.getRandomValues(new Uint8Array(32)));
      const [, otherPk] = m.generateEd25519Keypair();
      const msg = new TextEncoder().encode('attack at dawn');
      const withPublic = (pub: Uint8Array): Uint8Array => { const k = sk.slice(); k.set(pub, 32); return k; };
      const flipped = pk.slice();
      flipped[8]! ^= 1;
      const signed = await native.call('signMessage', [sk, msg]);
      // Attacks: the seed with another key's public half, with one bit of its own flipped, with a
      // non-canonical y (≥ p) and with the encoding of a small-order point (the identity: WebKitGTK's
      // page crashes if WebCrypto verifies under it, so the strict checks must come first).
      const attacks: Record<string, Uint8Array> = {
        'another key': otherPk, 'one bit flipped': flipped,
        'y >= p': new Uint8Array(32).fill(0xff).map((x, i) => (i === 31 ? 0x7f : x)),
        'small order (identity)': new Uint8Array(32).map((_, i) => (i === 0 ? 1 : 0)),
      };
      const out: Record<string, { native: string; wasm: string }> = {};
      for (const [name, pub] of Object.entries(attacks)) {
        out[name] = { native: await outcome(native.call('signMessage', [withPublic(pub), msg])), wasm: await outcome(wasm.call('signMessage', [withPublic(pub), msg])) };
      }
      return { route: routes.routes.signMessage, selfTest: routes.webCrypto.ed25519.selfTest, same: hex(signed) === hex(m.signMessage(sk, msg)), verifies: m.verifySignature(pk, msg, signed), out };
    } finally {
      native.dispose();
      wasm.dispose();
    }
  });
  console.log(`${engine}: ${JSON.stringify(r)}`);
  // Every engine here has WebCrypto Ed25519; 'native' takes it where it passed the self-test
  // (WebKitGTK's verification edge cases fail it: there this checks the wasm route). The test above
  // checks the self-test against the independent probe.
  expect(r.route).toBe(r.selfTest ? 'native' : 'wasm');
  expect({ same: r.same, verifies: r.verifies }).toEqual({ same: true, verifies: true });
  for (const [name, o] of Object.entries(r.out)) expect({ name, ...o }).toEqual({ name, native: 'VeilError[INVALID_KEY]', wasm: 'VeilError[INVALID_KEY]' });
});
