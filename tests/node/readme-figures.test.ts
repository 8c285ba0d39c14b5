// The README's generated figures (issue 28): every `<!-- fig:NAME -->…<!-- /fig -->` span equals
// what scripts/readme-figures.mjs makes from its source (bench/results/wasm-size.json, written by
// scripts/build.sh); a hand-edited figure fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

interface Figures {
  regenerate: (text: string) => { text: string; problems: string[] };
}

test('every marked README figure matches its source; an edited one is reported', async () => {
  const { regenerate } = await import(pathToFileURL(`${root}scripts/readme-figures.mjs`).href) as Figures;
  const readme = readFileSync(`${root}README.md`, 'utf8');
  assert.match(readme, /<!-- fig:wasm-gzip -->/, 'the README marks its wasm size figure');
  assert.deepEqual(regenerate(readme).problems, []);
  const edited = readme.replace(/(<!-- fig:wasm-gzip -->\d+) KiB/, (_m, a: string) => `${a}1 KiB`);
  assert.notEqual(edited, readme);
  const r = regenerate(edited);
  assert.equal(r.problems.length, 1);
  assert.match(r.problems[0] ?? '', /^wasm-gzip: README says/);
  assert.equal(r.text, readme, 'regenerating restores the figure');
  assert.deepEqual(regenerate(`${readme}<!-- fig:nonesuch -->1<!-- /fig -->`).problems, ['unknown figure nonesuch']);
});
