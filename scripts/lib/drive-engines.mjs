// Runs a script in a page of each browser engine, outside Playwright's test runner (used by
// scripts/browser-support.mjs and scripts/cross-engine-fixtures.mjs): Chromium and Firefox ESR
// through Playwright's library, WebKitGTK's MiniBrowser through WebKitWebDriver under Xvfb. Every
// process started here (the static server, Xvfb, WebKitWebDriver) is stopped by its process id.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Options from argv: --port (static server, +100 also taken), --display, --driver-port, --engines. */
export function options(argv) {
  const opt = (name, dflt) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : dflt;
  };
  return {
    engines: opt('engines', 'chromium,firefox,webkit').split(','),
    port: Number(opt('port', process.env.VEILKIT_TEST_PORT ?? '8805')),
    display: opt('display', '85'),
    driverPort: Number(opt('driver-port', '4485')),
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
 * Opens `url` in `engine`, waits for the title 'ready' and runs `body` (the text of a function body
 * returning a promise of JSON) there; resolves with its value.
 */
export async function runIn(engine, url, body, { display, driverPort }) {
  if (engine === 'webkit') return viaWebDriver(url, body, display, driverPort);
  const pw = await import('@playwright/test');
  const { CHROMIUM } = await import(new URL('../../dist/tests/shared/chromium.js', import.meta.url).href);
  // Firefox as tests/shared/engines.ts launches it (its relay path is relative to the .ts source).
  const browser = engine === 'firefox'
    ? await pw.firefox.launch({ executablePath: `${ROOT}tests/shared/firefox-bidi.mjs`, channel: 'moz-firefox', headless: true })
    : await pw.chromium.launch({ ...CHROMIUM.launchOptions, headless: true });
  try {
    const page = await browser.newPage();
    await page.goto(url);
    await page.waitForFunction(() => document.title === 'ready');
    return await page.evaluate(new Function(body));
  } finally {
    await browser.close();
  }
}

let driver;
async function viaWebDriver(url, body, display, driverPort) {
  if (!driver) {
    start('Xvfb', [`:${display}`, '-screen', '0', '1280x800x24', '-nolisten', 'tcp']);
    await sleep(500);
    start('WebKitWebDriver', [`--port=${driverPort}`], { DISPLAY: `:${display}` });
    driver = `http://127.0.0.1:${driverPort}`;
    await waitFor(`${driver}/status`, 'WebKitWebDriver');
  }
  const call = async (method, path, data) => {
    const r = await fetch(`${driver}${path}`, { method, headers: { 'content-type': 'application/json' }, ...(data ? { body: JSON.stringify(data) } : {}) });
    const j = await r.json();
    if (!r.ok) throw new Error(`WebDriver ${method} ${path}: ${JSON.stringify(j.value)}`);
    return j.value;
  };
  const { sessionId } = await call('POST', '/session', {
    capabilities: { alwaysMatch: { browserName: 'MiniBrowser', 'webkitgtk:browserOptions': { binary: '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser', args: ['--automation'] } } },
  });
  try {
    await call('POST', `/session/${sessionId}/timeouts`, { script: 120_000 });
    await call('POST', `/session/${sessionId}/url`, { url });
    for (let i = 0; i < 100 && (await call('GET', `/session/${sessionId}/title`)) !== 'ready'; i++) await sleep(100);
    const r = await call('POST', `/session/${sessionId}/execute/async`, {
      script: `const done = arguments[arguments.length - 1]; (() => { ${body}; })().then((v) => done({ ok: v }), (e) => done({ error: String(e && e.stack || e) }));`,
      args: [],
    });
    if (r?.error) throw new Error(`webkit: ${r.error}`);
    return r?.ok;
  } finally {
    await call('DELETE', `/session/${sessionId}`).catch(() => {});
  }
}
