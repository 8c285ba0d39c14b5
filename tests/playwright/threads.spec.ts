// Both wasm builds pass the same vector suites (the threads build where shared memory exists): the single-threaded
// SIMD build (init({ threads: false })) and the threads build (wasm-bindgen-rayon,
// chosen automatically in a cross-origin isolated worker), plus Argon2id with
// parallel lanes (each tag checked against hash-wasm's independent Argon2, computed
// here in Node), the batched KEM exports of the threads build and the public
// batch functions (ts/batch.ts) on both builds.
import { test, expect, type Page } from './test.js';
import { skipIf } from './skip.js';
import { EXPECTED, FAMILIES, expectedCases, formatReport, formatSkips, skippedCases } from '../shared/vector-suites.js';
import type { ThreadsWorkerMessage } from './fixtures/threads-worker.js';
import { argon2id as hashWasmArgon2id } from 'hash-wasm';
import { ARGON2_LANES_CASES, argon2LanesInputs } from '../shared/argon2-lanes.js';

/** The facade as the page loads it (served from dist/ by tests/server.mjs). */
type Veilkit = typeof import('../../ts/index.js');

declare global {
  /** Resolves with the worker's reports or error (threads.html consumes its `started` message). */
  interface Window { runThreads(n: number): Promise<Exclude<ThreadsWorkerMessage, { type: 'started' }> & { restarts: number }> }
}

const NO_SAB = 'no SharedArrayBuffer / shared WebAssembly memory in this cross-origin isolated page: the threads build cannot run (init() keeps the SIMD build, as documented)';

/** Whether the page can create shared WebAssembly memory (what the threads build needs). */
function sharedMemory(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    try {
      return typeof SharedArrayBuffer === 'function' && new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }).buffer instanceof SharedArrayBuffer;
    } catch {
      return false;
    }
  });
}

/** The Argon2id tags of ARGON2_LANES_CASES by an independent implementation (hash-wasm, in Node). */
async function argon2Oracle(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const c of ARGON2_LANES_CASES) {
    const { password, salt, secret } = argon2LanesInputs(c);
    const tag = await hashWasmArgon2id({
      password, salt, iterations: c.iterations, parallelism: c.parallelism, memorySize: c.memoryKib, hashLength: c.length, outputType: 'binary',
      ...(secret.length > 0 ? { secret } : {}),
    });
    out[c.name] = Buffer.from(tag).toString('hex');
  }
  return out;
}

for (const [label, n] of [['SIMD build (threads: false)', 0], ['threads build (2 threads)', 2]] as const) {
  test(`vector suites: ${label}`, async ({ page }) => {
    test.setTimeout(10 * 60_000);
    await page.goto('/tests/playwright/fixtures/threads.html');
    await expect(page).toHaveTitle('ready');
    if (n !== 0) skipIf(!(await sharedMemory(page)), NO_SAB);
    const r = await page.evaluate((k) => window.runThreads(k), n);
    if (r.type !== 'reports') throw new Error(r.message);
    if (r.restarts > 0) console.log(`${label}: the worker was started ${r.restarts + 1} times (a blocked threads start, README "Blocked threads start")`);
    console.log(`${label}: ${r.millis} ms, build ${r.capabilities.wasmBuild}, ${r.capabilities.threads} thread(s), argon2id p=4 16 MiB ${r.argon2P4Millis} ms`);
    for (const rep of r.reports) {
      console.log(`  ${formatReport(rep)}`);
      for (const line of formatSkips(rep)) console.log(`    ${line}`);
    }
    expect(r.capabilities.wasmBuild).toBe(n === 0 ? 'simd' : 'threads');
    expect(r.capabilities.threads).toBe(n === 0 ? 1 : n);
    expect(r.reports.map((x) => x.family)).toEqual([...FAMILIES]);
    for (const rep of r.reports) {
      expect.soft(rep.failures, `${rep.family} failures`).toEqual([]);
      expect.soft(rep.failed, `${rep.family}: cases failed`).toBe(0);
      expect.soft(rep.passed, `${rep.family}: cases passed`).toBe(expectedCases(rep.family));
      expect.soft(rep.tallies, `${rep.family}: cases run by kind`).toEqual(EXPECTED[rep.family].cases);
      expect.soft(skippedCases(rep), `${rep.family}: cases skipped`).toBe(EXPECTED[rep.family].skipped);
    }
    console.log(`  public batch functions: ${r.facadeBatch.checked} checks`);
    expect(r.facadeBatch.failures).toEqual([]);
    expect(r.facadeBatch.checked).toBe(20);
    // Parallel lanes: every tag equals hash-wasm's (an independent Argon2), on each build.
    expect(r.argon2Lanes, `${label}: Argon2id with parallel lanes vs hash-wasm`).toEqual(await argon2Oracle());
    if (n !== 0) {
      expect(r.batch?.failures).toEqual([]);
      expect(r.batch?.checked).toBe(17);
    }
  });
}

test('a window main thread keeps the SIMD build unless threads are asked for', async ({ page }) => {
  await page.goto('/tests/playwright/fixtures/threads.html');
  const caps = await page.evaluate(async () => {
    const url: string = '/dist/ts/index.js';
    const m = (await import(url)) as Veilkit;
    await m.init();
    return m.capabilities();
  });
  expect(caps.crossOriginIsolated).toBe(true);
  expect(caps.wasmBuild).toBe('simd');
});

test('a threads build that never finishes loading: threads: 2 rejects after threadsStartTimeoutMs, the automatic choice falls back to SIMD', async ({ page }) => {
  await page.goto('/tests/playwright/fixtures/threads.html');
  skipIf(!(await sharedMemory(page)), NO_SAB);
  const r = await page.evaluate(() => new Promise<unknown>((resolve) => {
    const worker = new Worker('/dist/tests/playwright/fixtures/threads-fallback-worker.js', { type: 'module' });
    worker.addEventListener('message', (event) => {
      resolve(event.data);
      worker.terminate();
    });
    worker.addEventListener('error', (event) => resolve(`worker error: ${event.message || 'failed to load'}`));
  })) as import('./fixtures/threads-fallback-worker.js').ThreadsFallbackMessage;
  expect(r.crossOriginIsolated).toBe(true);
  expect(r.explicit).toMatch(/^UNSUPPORTED_PLATFORM: the threads build could not be started: .*did not finish within 300 ms/);
  expect(r.automatic).toEqual({ wasmBuild: 'simd', threads: 1, works: true });
});
