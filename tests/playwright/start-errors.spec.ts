// Start failures name what failed and why (issue 17), in a real browser: a worker script that 404s, a
// worker that never reports ready, and a wasm URL that answers with an HTML page (what a dev server's
// fallback route returns when it does not serve the file).
import { test, expect } from './test.js';

test.beforeEach(async ({ page }) => {
  await page.goto('/tests/playwright/fixtures/threads.html');
});

test('WorkerPool: a 404 worker script and a worker that never reports ready fail with WORKER_START_FAILED naming the URL and the cause', async ({ page }) => {
  const r = await page.evaluate(async () => {
    const url: string = '/dist/ts/index.js';
    const m = (await import(url)) as typeof import('../../ts/index.js');
    const failure = async (options: import('../../ts/index.js').PoolOptions) => {
      const pool = new m.WorkerPool({ size: 1, ...options });
      try {
        await pool.run({ type: 'veilkit/ping' });
        return { code: 'resolved', url: '', reason: '', message: '' };
      } catch (e) {
        if (!(e instanceof m.VeilError)) return { code: String(e), url: '', reason: '', message: '' };
        return { code: e.code, url: e.details.url ?? '', reason: e.details.reason ?? '', message: e.message, live: pool.liveWorkers };
      } finally {
        pool.dispose();
      }
    };
    const missing = new URL('/dist/worker/no-such.worker.js', location.href).href;
    // A module that loads fine but never answers the pool's init message.
    const silent = new URL('/dist/ts/bytes.js', location.href).href;
    return {
      missing: await failure({ workerUrl: missing }),
      silent: await failure({ workerUrl: silent, startTimeoutMs: 500 }),
    };
  });
  expect(r.missing).toMatchObject({ code: 'WORKER_START_FAILED', url: expect.stringMatching(/\/dist\/worker\/no-such\.worker\.js$/), live: 0 });
  expect(r.missing.reason).toMatch(/^the script could not be loaded/);
  expect(r.missing.message).toContain(r.missing.url);
  expect(r.missing.message).not.toContain('undefined');
  expect(r.silent).toMatchObject({ code: 'WORKER_START_FAILED', url: expect.stringMatching(/\/dist\/ts\/bytes\.js$/), live: 0 });
  expect(r.silent.reason).toMatch(/^it did not report ready within 500 ms/);
});

test('init({ wasm }) given an HTML page: UNSUPPORTED_PLATFORM naming the URL and saying an HTML page came back', async ({ page }) => {
  const message = await page.evaluate(async () => {
    const url: string = '/dist/ts/index.js';
    const m = (await import(url)) as typeof import('../../ts/index.js');
    try {
      await m.init({ wasm: new URL('/tests/playwright/fixtures/threads.html', location.href) });
      return 'resolved';
    } catch (e) {
      return e instanceof m.VeilError ? `${e.code}: ${e.message}` : String(e);
    }
  });
  expect(message).toMatch(/^UNSUPPORTED_PLATFORM: could not load the wasm core from http:\/\/127\.0\.0\.1:\d+\/tests\/playwright\/fixtures\/threads\.html: .*the server answered with an HTML page/);
});
