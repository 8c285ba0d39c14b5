// Runs a script in a page of each browser engine, outside Playwright's test runner (used by
// scripts/browser-support.mjs and scripts/cross-engine-fixtures.mjs), through bench/engines.mjs.
// The static server started here is stopped by its process id.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Options from argv: --port (static server), --engines. */
export function options(argv) {
  const opt = (name, dflt) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : dflt;
  };
  return {
    engines: opt('engines', 'chromium,firefox,webkit').split(','),
    port: Number(opt('port', process.env.VEILKIT_TEST_PORT ?? '8805')),
  };
}

const started = [];
function start(cmd, argv, env = {}) {
  const child = spawn(cmd, argv, { cwd: ROOT, env: { ...process.env, ...env }, stdio: 'ignore' });
  started.push(child);
  return child;
}
/** Stops every process this module started (by pid), newest first. */
export function stopAll() {
  for (const c of started.splice(0).reverse()) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
}
process.on('exit', stopAll);

async function waitFor(url, what) {
  for (let i = 0; i < 150; i++) {
    try {
      const r = await fetch(url);
      if (r.status < 500) return;
    } catch { /* not up yet */ }
    await sleep(100);
  }
  throw new Error(`${what} did not come up at ${url}`);
}

/** Starts tests/server.mjs on `port`; resolves with its base URL. */
export async function serve(port) {
  start('node', ['tests/server.mjs'], { PORT: String(port) });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/package.json`, 'tests/server.mjs');
  return base;
}

/**
 * Opens `url` in `engine` (through bench/engines.mjs's openEngine, the one launcher of the scripts
 * and benchmarks: the corpus's settings, the Firefox BiDi relay, the WebKit WebDriver adapter, which
 * starts and stops Xvfb and WebKitWebDriver by pid), waits for the title 'ready' and runs `body` (the
 * text of a function body returning a promise of JSON) there; resolves with its value.
 */
export async function runIn(engine, url, body) {
  const { openEngine } = await import('../../bench/engines.mjs');
  const { page, close } = await openEngine(engine);
  try {
    await page.goto(url);
    await page.until(() => document.title === 'ready', { timeoutMs: 30_000, pollMs: 100 });
    return await page.evaluate(new Function(body));
  } finally {
    await close();
  }
}
