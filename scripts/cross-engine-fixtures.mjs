#!/usr/bin/env node
// Cross-engine data (vectors/container/browser/<engine>/): in each engine, veilkit writes containers
// (password Argon2id, X-Wing recipient with a BLAKE3 tree, group signed v6, 2-of-3 threshold, keystore
// identity signed v6) and a keystore backup (tests/playwright/fixtures/xengine-page.ts).
//
//   npx --no-install tsc -p tsconfig.json                 # the page module is read from dist/
//   node scripts/cross-engine-fixtures.mjs --write        # regenerate every engine's set (random bytes change)
//   node scripts/cross-engine-fixtures.mjs --check        # the matrix: every engine opens every engine's set
//
// Options: --engines chromium,firefox,webkit  --port 8805.
// Checked by tests/playwright/cross-engine.spec.ts (in the engine running it) and natively by
// crate/tests/container_browser_fixtures.rs.
import { mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, options, runIn, serve, stopAll } from './lib/drive-engines.mjs';

const args = process.argv.slice(2);
const opts = options(args);
try {
  const base = await serve(opts.port);
  const page = `${base}/tests/playwright/fixtures/xengine.html`;
  if (args.includes('--write')) {
    for (const engine of opts.engines) {
      const t0 = Date.now();
      const out = await runIn(engine, page, `return window.xengineTests.makeEngineSet(${JSON.stringify(engine)}, navigator.userAgent)`);
      const dir = join(ROOT, 'vectors/container/browser', engine);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      for (const [name, hex] of Object.entries(out.files)) writeFileSync(join(dir, name), Buffer.from(hex, 'hex'));
      writeFileSync(join(dir, 'fixtures.json'), `${JSON.stringify(out.manifest, null, 2)}\n`);
      console.log(`${engine}: wrote ${Object.keys(out.files).length} files to vectors/container/browser/${engine}/ (${Date.now() - t0} ms)`);
    }
  }
  if (args.includes('--check')) {
    let bad = 0;
    for (const engine of opts.engines) {
      const dirs = ['chromium', 'firefox', 'webkit'];
      const r = await runIn(engine, page, `return (async () => { const out = []; for (const d of ${JSON.stringify(dirs)}) out.push(await window.xengineTests.checkEngineSet('/vectors/container/browser/' + d)); return out; })()`);
      r.forEach((x, i) => {
        const ok = Object.values(x.containers).every((v) => v.startsWith('ok')) && x.backup.publicKeys && x.backup.signs;
        if (!ok) bad++;
        console.log(`${dirs[i]} → ${engine}: ${ok ? 'ok' : 'FAILED'} ${JSON.stringify(x)}`);
      });
    }
    process.exitCode = bad ? 1 : 0;
  }
} finally {
  stopAll();
}
