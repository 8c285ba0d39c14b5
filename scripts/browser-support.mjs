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
// Options: --engines chromium,firefox,webkit  --port 8805 (static server). WebKit's Xvfb and
// WebKitWebDriver are started on a free display and port and stopped by pid (tests/shared/webkit/).
// tests/playwright/capabilities.spec.ts checks, in whichever engine runs it, that the README row
// for that engine is what the probe says there.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { ROOT, options, runIn, serve, stopAll } from './lib/drive-engines.mjs';

const args = process.argv.slice(2);
const opts = options(args);
const ENGINES = opts.engines;
const support = await import(new URL('../dist/tests/shared/browser-support.js', import.meta.url).href);

/** `capsTests.probe()` and `.reported()` of the capabilities page, as JSON. */
const SCRIPT = 'return Promise.all([window.capsTests.probe(), window.capsTests.reported()]).then(([probe, reported]) => ({ probe, reported }))';

if (args.includes('--write') && ENGINES.join(',') !== 'chromium,firefox,webkit') {
  console.error('--write needs all three engines (the table has one row per engine)');
  process.exit(2);
}
try {
  if (!existsSync(new URL('../dist/tests/playwright/fixtures/capabilities-page.js', import.meta.url))) {
    throw new Error('dist/ is missing the probe: run `npx --no-install tsc -p tsconfig.json` (and scripts/build.sh once) first');
  }
  const base = await serve(opts.port);
  const results = {};
  for (const engine of ENGINES) {
    const r = await runIn(engine, `${base}/tests/playwright/fixtures/capabilities.html`, SCRIPT);
    if (!r?.probe) throw new Error(`${engine}: no result`);
    results[engine] = { version: support.engineVersion(engine, r.probe.userAgent), ...r };
  }
  if (args.includes('--json')) {
    console.log(JSON.stringify(results, null, 2));
  } else {
    const table = support.renderTable(ENGINES.map((e) => support.renderRow(e, results[e].version, results[e].probe)));
    console.log(table);
    const path = `${ROOT}README.md`;
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
