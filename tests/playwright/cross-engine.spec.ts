// Cross-engine data: the containers and keystore backup each engine wrote
// (vectors/container/browser/<engine>/, made by `node scripts/cross-engine-fixtures.mjs --write`) open in whichever engine runs this file; crate/tests/container_browser_fixtures.rs opens
// the same containers natively.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect, engine } from './test.js';
import { ENGINES } from '../shared/engines.js';

type XTests = typeof import('./fixtures/xengine-page.js');
declare global {
  interface Window { xengineTests: XTests }
}

const dirOf = (e: string) => join(process.cwd(), 'vectors/container/browser', e);

test('containers and a keystore backup written in each engine open here (every engine\'s committed set)', async ({ page }) => {
  await page.goto('/tests/playwright/fixtures/xengine.html');
  await expect(page).toHaveTitle('ready');
  // Every engine's set is committed; a missing one is a failure, not a skip.
  for (const from of ENGINES) expect(existsSync(join(dirOf(from), 'fixtures.json')), `vectors/container/browser/${from}/fixtures.json`).toBe(true);
  const results: Record<string, unknown> = {};
  for (const from of ENGINES) {
    const r = await page.evaluate((d) => window.xengineTests.checkEngineSet(d), `/vectors/container/browser/${from}`);
    console.log(`${from} → ${engine}: ${JSON.stringify(r.backup.routes)} ms ${JSON.stringify(r.millis)}`);
    results[from] = { containers: r.containers, backup: { ...r.backup, routes: undefined } };
  }
  const want = {
    containers: {
      'password_argon2id.vvlt': 'ok v4 unsigned',
      'xwing_recipient_blake3.vvlt': 'ok v4 unsigned',
      'group_signed_v6.vvlt': 'ok v6 hybrid',
      'threshold_2of3.vvlt': 'ok v4 unsigned',
      // Opened by the identity restored from the backup (the password opens it natively).
      'identity_signed_v6.vvlt': 'ok v6 hybrid',
    },
    backup: { imported: 1, publicKeys: true, signs: true, routes: undefined },
  };
  expect(results).toEqual(Object.fromEntries(ENGINES.map((e) => [e, want])));
});
