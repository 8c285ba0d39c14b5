#!/usr/bin/env node
// The README "Browser support" table, from the capability probe (tests/shared/probe.ts) run in each
// engine: Chromium and Firefox ESR through Playwright, WebKitGTK's MiniBrowser through
// WebKitWebDriver under Xvfb (both started here and stopped by process id).
//
//   npx --no-install tsc -p tsconfig.json      # the probe and renderer are read from dist/
//   node scripts/browser-support.mjs            # print the table; exit 1 if README.md differs
//   node scripts/browser-support.mjs --write    # write it into README.md between the markers
//   node scripts/browser-support.mjs --json     # the raw probe (and veilkit's report) per engine
//
// Options: --engines chromium,firefox,webkit  --port 8805 (static server; +100 is also taken)
//          --display 85 --driver-port 4485 (WebKit).
// tests/playwright/capabilities.spec.ts checks, in whichever engine runs it, that the README row
// for that engine is what the probe says there.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : dflt;
};
const ENGINES = opt('engines', 'chromium,firefox,webkit').split(',');
const PORT = Number(opt('port', process.env.VEILKIT_TEST_PORT ?? '8805'));
const DISPLAY = opt('display', '85');
const DRIVER_PORT = Number(opt('driver-port', '4485'));
const BASE = `http://127.0.0.1:${PORT}`;
const PAGE = `${BASE}/tests/playwright/fixtures/capabilities.html`;

const support = await import(new URL('../dist/tests/shared/browser-support.js', import.meta.url).href);
const started = [];
function start(cmd, argv, env = {}) {
  const child = spawn(cmd, argv, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  child.errText = () => err;
  started.push(child);
  return child;
}
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
function stopAll() {
  for (const c of started.reverse()) if (c.exitCode === null) c.kill('SIGTERM');
}
process.on('exit', stopAll);

/** `capsTests.probe()` and `.reported()` of the capabilities page, as JSON. */
const SCRIPT = 'return Promise.all([window.capsTests.probe(), window.capsTests.reported()]).then(([probe, reported]) => ({ probe, reported }))';

async function viaPlaywright(engine) {
  const pw = await import('@playwright/test');
  const { CHROMIUM } = await import(new URL('../dist/tests/shared/chromium.js', import.meta.url).href);
  // The Firefox settings of tests/shared/engines.ts (its relay path is relative to the .ts source).
  const browser = engine === 'firefox'
    ? await pw.firefox.launch({ executablePath: `${ROOT}tests/shared/firefox-bidi.mjs`, channel: 'moz-firefox', headless: true })
    : await pw.chromium.launch({ ...CHROMIUM.launchOptions, headless: true });
  try {
    const page = await browser.newPage();
    await page.goto(PAGE);
    await page.waitForFunction(() => document.title === 'ready');
    return await page.evaluate(new Function(SCRIPT));
  } finally {
    await browser.close();
  }
}

async function viaWebDriver() {
  start('Xvfb', [`:${DISPLAY}`, '-screen', '0', '1280x800x24', '-nolisten', 'tcp']);
  await sleep(500);
  start('WebKitWebDriver', [`--port=${DRIVER_PORT}`], { DISPLAY: `:${DISPLAY}` });
  const wd = `http://127.0.0.1:${DRIVER_PORT}`;
  await waitFor(`${wd}/status`, 'WebKitWebDriver');
  const call = async (method, path, body) => {
    const r = await fetch(`${wd}${path}`, { method, headers: { 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
    const j = await r.json();
    if (!r.ok) throw new Error(`WebDriver ${method} ${path}: ${JSON.stringify(j.value)}`);
    return j.value;
  };
  const session = await call('POST', '/session', {
    capabilities: { alwaysMatch: { browserName: 'MiniBrowser', 'webkitgtk:browserOptions': { binary: '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser', args: ['--automation'] } } },
  });
  const sid = session.sessionId;
  try {
    await call('POST', `/session/${sid}/timeouts`, { script: 60_000 });
    await call('POST', `/session/${sid}/url`, { url: PAGE });
    for (let i = 0; i < 100 && (await call('GET', `/session/${sid}/title`)) !== 'ready'; i++) await sleep(100);
    return await call('POST', `/session/${sid}/execute/async`, {
      script: `const done = arguments[arguments.length - 1]; (() => { ${SCRIPT}; })().then(done, (e) => done({ error: String(e) }));`,
      args: [],
    });
  } finally {
    await call('DELETE', `/session/${sid}`).catch(() => {});
  }
}

try {
  if (!existsSync(new URL('../dist/tests/playwright/fixtures/capabilities-page.js', import.meta.url))) {
    throw new Error('dist/ is missing the probe: run `npx --no-install tsc -p tsconfig.json` (and scripts/build.sh once) first');
  }
  start('node', ['tests/server.mjs'], { PORT: String(PORT) });
  await waitFor(`${BASE}/package.json`, 'tests/server.mjs');
  const results = {};
  for (const engine of ENGINES) {
    const r = engine === 'webkit' ? await viaWebDriver() : await viaPlaywright(engine);
    if (r === null || r.error) throw new Error(`${engine}: ${r?.error ?? 'no result'}`);
    results[engine] = { version: support.engineVersion(engine, r.probe.userAgent), ...r };
  }
  if (args.includes('--json')) {
    console.log(JSON.stringify(results, null, 2));
  } else {
    const table = support.renderTable(ENGINES.map((e) => support.renderRow(e, results[e].version, results[e].probe)));
    console.log(table);
    const path = `${ROOT}/README.md`;
    const readme = readFileSync(path, 'utf8');
    const next = support.replaceTable(readme, table);
    if (args.includes('--write')) {
      writeFileSync(path, next);
      console.log('README.md: table written');
    } else if (next !== readme) {
      console.error('README.md differs from the probe: run `node scripts/browser-support.mjs --write`');
      process.exitCode = 1;
    }
  }
} finally {
  stopAll();
}
