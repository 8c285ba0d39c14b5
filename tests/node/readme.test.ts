/**
 * The README's code snippets are executable documentation: every ```ts block
 * that imports from 'veilkit' and needs no browser API runs here, against the
 * built package. A snippet that throws fails this test.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = new URL('../../../', import.meta.url);
// Browser-only APIs (IndexedDB keystore, File/Blob streaming, workers).
const BROWSER_ONLY = /\b(Keystore|encryptFile|encryptFileTo|decryptFile|openContainer|inspectContainer|saveFile|WorkerPool)\b|\b(document|window)\./;

test('README snippets run in Node', async () => {
  const readme = await readFile(new URL('README.md', root), 'utf8');
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const runnable = blocks.filter((b) => /from 'veilkit'/.test(b) && !BROWSER_ONLY.test(b));
  assert.ok(runnable.length >= 2, `expected at least 2 runnable snippets, found ${runnable.length}`);
  const entry = new URL('dist/ts/index.js', root).href;
  const dir = await mkdtemp(join(tmpdir(), 'veilkit-readme-'));
  try {
    for (const [i, code] of runnable.entries()) {
      const file = join(dir, `snippet-${i}.mjs`);
      // console output of the snippets is not part of the test output
      const body = code.replaceAll("from 'veilkit'", `from '${entry}'`).replaceAll('console.log(', '(() => {})(');
      await writeFile(file, body);
      await assert.doesNotReject(import(pathToFileURL(file).href), `README snippet ${i} threw`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
