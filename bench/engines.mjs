// The one engine-launch helper of both bench runners (bench/run.mjs, bench/files/run.mjs) and of the
// scripts that drive engines outside the test runner (scripts/lib/drive-engines.mjs):
// `--browser chromium|firefox|webkit` (default chromium) opens a page in that engine with the
// settings the test corpus uses (tests/shared/engines.ts, compiled to dist/tests/shared/):
//   - chromium: Debian's /usr/bin/chromium through Playwright (tests/shared/chromium.ts flags);
//   - firefox: Firefox ESR over WebDriver BiDi, Playwright's `moz-firefox` channel, through the
//     relay tests/shared/firefox-bidi.mjs (FIREFOX of tests/shared/engines.ts);
//   - webkit: WebKitGTK's MiniBrowser through WebKitWebDriver, with the adapter of
//     tests/shared/webkit/ (`openWebKit`), which starts and stops Xvfb and the driver itself.
// The runners use only `goto`, `evaluate` and `until` (a polling wait built on `evaluate`), so the
// three engines are driven the same way; `onConsole` is best effort in WebKit (WebDriver classic has
// no console events: the adapter hands over the page's console lines after each evaluate).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ENGINES = ['chromium', 'firefox', 'webkit'];

/** `--browser <engine>` from argv (default chromium); exits with a message on anything else. */
export function browserArg(args, tool) {
  const i = args.indexOf('--browser');
  const engine = i < 0 ? 'chromium' : args[i + 1];
  if (!ENGINES.includes(engine)) {
    console.error(`${tool}: --browser takes ${ENGINES.join(', ')}; got ${JSON.stringify(engine)}`);
    process.exit(1);
  }
  return engine;
}

async function shared(file) {
  const path = resolve(ROOT, 'dist/tests/shared', file);
  if (!existsSync(path)) throw new Error(`${path} is missing — run \`npm run build\` (tsc emits dist/tests/shared/)`);
  return import(pathToFileURL(path).href);
}

/**
 * Opens one page in `engine`. `persistent`: a fresh temporary profile directory (OPFS needs a
 * persistent profile in headless Chromium), removed on close. `extraChromiumArgs`: added to the
 * corpus flags (the files bench exposes gc()). Returns `{ engine, page, close }` where `page` has
 * `goto(url)`, `evaluate(fn, arg)`, `until(fn, { timeoutMs, pollMs })` and `onConsole(cb)`.
 */
export async function openEngine(engine, { persistent = false, extraChromiumArgs = [] } = {}) {
  if (engine === 'webkit') return openWebKitEngine();
  const { chromium, firefox } = await import('@playwright/test');
  const { FIREFOX: FIREFOX_DIST, persistentLaunch: persistentDist } = await shared('engines.js');
  const { CHROMIUM } = await shared('chromium.js');
  // engines.ts names the relay next to itself; tsc does not copy .mjs files into dist/, so point it
  // at the source tree's relay (the settings are otherwise those of the compiled module).
  const RELAY = resolve(ROOT, 'tests/shared/firefox-bidi.mjs');
  const FIREFOX = { ...FIREFOX_DIST, launchOptions: { ...FIREFOX_DIST.launchOptions, executablePath: RELAY } };
  const persistentLaunch = (e) => {
    const l = persistentDist(e);
    return e === 'firefox' ? { ...l, options: { ...l.options, executablePath: RELAY } } : l;
  };
  let profile;
  let browser;
  let context;
  let pwPage;
  if (persistent) {
    profile = mkdtempSync(join(tmpdir(), `veilkit-bench-${engine}-`));
    const { options } = persistentLaunch(engine);
    const type = engine === 'firefox' ? firefox : chromium;
    const args = engine === 'chromium' ? [...options.args, ...extraChromiumArgs] : options.args;
    context = await type.launchPersistentContext(profile, { ...options, args });
    pwPage = context.pages()[0] ?? (await context.newPage());
  } else if (engine === 'firefox') {
    browser = await firefox.launch({ channel: FIREFOX.channel, ...FIREFOX.launchOptions, headless: true });
    pwPage = await browser.newPage();
  } else {
    browser = await chromium.launch({ ...CHROMIUM.launchOptions, args: [...CHROMIUM.launchOptions.args, ...extraChromiumArgs], headless: true });
    pwPage = await browser.newPage();
  }
  const page = {
    goto: (url) => pwPage.goto(url),
    evaluate: (fn, arg) => pwPage.evaluate(fn, arg),
    until: (fn, opts) => until((f) => pwPage.evaluate(f), fn, opts),
    onConsole: (cb) => pwPage.on('console', (m) => cb(m.text())),
    onPageError: (cb) => pwPage.on('pageerror', (e) => cb(e.message)),
  };
  return {
    engine,
    page,
    close: async () => {
      try {
        await (context ?? browser)?.close();
      } finally {
        if (profile) rmSync(profile, { recursive: true, force: true });
      }
    },
  };
}

async function openWebKitEngine() {
  const mod = await shared('webkit/fixtures.js').catch((e) => {
    throw new Error(`WebKit: the WebDriver adapter (tests/shared/webkit/, openWebKit) is not available: ${e.message}`);
  });
  if (typeof mod.openWebKit !== 'function') throw new Error('WebKit: tests/shared/webkit/fixtures.ts exports no openWebKit (merge branch wk)');
  const wk = await mod.openWebKit();
  const page = {
    goto: (url) => wk.page.goto(url),
    evaluate: (fn, arg) => wk.page.evaluate(fn, arg),
    until: (fn, opts) => until((f) => wk.page.evaluate(f), fn, opts),
    // Best effort: the adapter replays the page's console/pageerror entries after each evaluate.
    onConsole: (cb) => wk.page.on('console', (m) => cb(m.text())),
    onPageError: (cb) => wk.page.on('pageerror', (e) => cb(e.message)),
  };
  return { engine: 'webkit', page, close: () => wk.close() };
}

/** Polls `fn` in the page until it returns a truthy value (returned), or throws after `timeoutMs`. */
async function until(evaluate, fn, { timeoutMs = 60_000, pollMs = 250 } = {}) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await evaluate(fn);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${String(fn).slice(0, 80)}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** Where a runner writes its results: `dir` itself for Chromium (the paths the docs cite), `dir/<engine>/` otherwise. */
export function resultsDir(dir, engine) {
  return engine === 'chromium' ? dir : join(dir, engine);
}

/** A short engine name + version from a user agent string. */
export function engineName(engine, userAgent = '') {
  if (engine === 'firefox') return userAgent.match(/Firefox\/[\d.]+/)?.[0] ?? 'Firefox';
  if (engine === 'webkit') return `WebKitGTK MiniBrowser (UA ${userAgent.match(/AppleWebKit\/[\d.]+/)?.[0] ?? '?'})`;
  return userAgent.match(/Chrom\w+\/[\d.]+/)?.[0] ?? 'Chromium';
}
