// Known-answer vectors through the public API, in Node (wasm loaded from the file).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import * as api from '../../ts/index.js';
import { FAMILIES, formatReport, runVectorSuites, type SuiteReport } from '../shared/vector-suites.js';

// Compiled to dist/tests/node/, three levels below the repository root.
const ROOT = new URL('../../../', import.meta.url);
const load = (path: string): Promise<string> => readFile(fileURLToPath(new URL(path, ROOT)), 'utf8');

test('known-answer vectors (Node)', async (t) => {
  await api.init();
  const reports: SuiteReport[] = await runVectorSuites(api, load);
  assert.deepEqual(
    reports.map((r) => r.family),
    [...FAMILIES],
  );
  for (const r of reports) {
    await t.test(r.family, () => {
      t.diagnostic(formatReport(r));
      for (const reason of r.skipped) t.diagnostic(`${r.family} skipped: ${reason}`);
      assert.deepEqual(r.failures, [], `${r.family}: ${r.failures.length} failure message(s)`);
      assert.ok(r.expected > 0, `${r.family}: no vectors selected`);
      assert.equal(r.checked, r.expected, `${r.family}: checked ${r.checked} of ${r.expected}`);
    });
  }
});
