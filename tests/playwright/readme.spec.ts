// The README's Keys snippet runs in Chromium as written (tests/node/readme.test.ts runs the snippets that
// need no browser; this one needs IndexedDB and workers). Issue 17: the snippet used to restore the
// phrase where the identity already was and to promise "same public keys" without saying that the phrase
// does not carry the ML-DSA-65 setting. Every `…; // true` line must yield true; the prose around the
// snippet (KEY_EXISTS with the other setting, another id without `{ mlDsa: true }`) is checked too.
import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';

/** The first ```ts block of the README's "## Keys" section, made runnable in the test page. */
function keysSnippet(): { code: string; stated: number } {
  const readme = readFileSync('README.md', 'utf8');
  const section = readme.slice(readme.indexOf('\n## Keys\n'));
  const block = /```ts\n([\s\S]*?)```/.exec(section.slice(0, section.indexOf('\n## ', 1)))?.[1];
  if (block === undefined) throw new Error('README: no ts block in the Keys section');
  let stated = 0;
  const lines = block.split('\n').map((line) => {
    if (line.trim() === "import { Keystore } from 'veilkit';") return "const { Keystore } = await import('/dist/ts/index.js');";
    const m = /^(.*?);\s*\/\/\s*true\s*$/.exec(line);
    if (m === null) return line;
    stated++;
    return `__stated.push(${m[1]});`;
  });
  return { code: lines.join('\n'), stated };
}

test('README Keys snippet: runs as written; a restore on another keystore with { mlDsa: true } gives the same id', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/tests/playwright/fixtures/threads.html');
  const { code, stated } = keysSnippet();
  expect(stated).toBe(1);
  const r = await page.evaluate(`(async () => {
    const __stated = [];
    const { init, generateX25519Keypair, VeilError } = await import('/dist/ts/index.js');
    await init();
    const peerX25519Public = generateX25519Keypair()[1];
    ${code}
    const codeOf = async (p) => { try { await p; return 'resolved'; } catch (e) { return e instanceof VeilError ? e.code : String(e); } };
    const sameStore = await ks.restoreFromPhrase(phrase, { mlDsa: true });
    const otherSetting = await codeOf(ks.restoreFromPhrase(phrase));
    const third = await Keystore.open({ name: 'third-device' });
    const withoutMlDsa = await third.restoreFromPhrase(phrase);
    const result = {
      stated: __stated,
      sameStoreReturnsIt: sameStore.id === me.id,
      otherSetting,
      withoutMlDsa: { mlDsa: withoutMlDsa.mlDsa, sameId: withoutMlDsa.id === bundle.id },
      extractable: key.extractable,
      backupBytes: backup.length > 0,
    };
    ks.dispose(); other.dispose(); third.dispose();
    return result;
  })()`);
  expect(r).toEqual({
    stated: [true],
    sameStoreReturnsIt: true,
    otherSetting: 'KEY_EXISTS',
    withoutMlDsa: { mlDsa: false, sameId: false },
    extractable: false,
    backupBytes: true,
  });
});
