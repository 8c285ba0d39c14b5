#!/usr/bin/env node
// History open time (issue 28): the last 50 messages of a 100,000-message conversation in the
// keystore's encrypted history (docs/KEYSTORE.md#message-history), read through `keystore.history(…)`
// from the page, in one engine (`--browser chromium|firefox|webkit`, default chromium; `--total N`,
// `--n N`). Needs the tsc build (dist/). Run: node bench/history.mjs
import { spawn } from 'node:child_process';
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openEngine } from './engines.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : dflt;
};
const engine = arg('browser', 'chromium');
const total = Number(arg('total', '100000'));
const n = Number(arg('n', '50'));
const PORT = Number(process.env.BENCH_PORT ?? 8779);
const BASE = `http://127.0.0.1:${PORT}`;

const server = spawn(process.execPath, [resolve(ROOT, 'tests/server.mjs')], { env: { ...process.env, PORT: String(PORT) }, stdio: ['ignore', 'pipe', 'inherit'] });
await new Promise((ok, fail) => {
  server.stdout.on('data', (d) => String(d).includes('serving') && ok());
  server.on('exit', (c) => fail(new Error(`test server exited (${c}); is port ${PORT} free? set BENCH_PORT`)));
});
let session;
try {
  session = await openEngine(engine);
  const { page } = session;
  await page.goto(`${BASE}/bench/history.html`);
  await page.until(() => document.title === 'ready');
  const name = `bench-history-${Date.now().toString(36)}`;
  const r = await page.evaluate(([nm, t, k]) => window.historyBench.historyOpen(nm, t, k), [name, total, n]);
  const f = (ms) => `${ms.toFixed(1)} ms`;
  console.log(`${engine}: history of ${r.total} entries (filled in ${f(r.fillMs)}, ${(r.fillMs * 1000 / r.total).toFixed(0)} µs/entry in batches of 1,000)`);
  console.log(`open the last ${r.n} (read ${r.read}, last seq ${r.lastSeq}): fresh worker ${f(r.coldMs)}, warm ${f(r.warmMs)} (median of 9)`);
} finally {
  await session?.close();
  server.kill();
}
