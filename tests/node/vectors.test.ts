// Known-answer vectors through the public API, in Node (wasm loaded from the file).
// Each family must pass exactly the pinned number of cases, kind by kind (EXPECTED in
// tests/shared/vector-suites.ts), fail none, and skip exactly the pinned number, printed
// with the reasons.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import * as main from '../../ts/index.js';
import * as hazmat from '../../ts/hazmat.js';

const api = { ...main, hazmat };
import {
  EXPECTED,
  FAMILIES,
  expectedCases,
  formatReport,
  formatSkips,
  runVectorSuites,
  skippedCases,
  type SuiteReport,
} from '../shared/vector-suites.js';

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
      for (const line of formatSkips(r)) t.diagnostic(line);
      assert.deepEqual(r.failures, [], `${r.family}: failure messages`);
      assert.equal(r.failed, 0, `${r.family}: cases failed`);
      assert.equal(r.passed, expectedCases(r.family), `${r.family}: cases passed (pinned ${expectedCases(r.family)})`);
      assert.deepEqual(r.tallies, EXPECTED[r.family].cases, `${r.family}: cases run by kind`);
      assert.equal(skippedCases(r), EXPECTED[r.family].skipped, `${r.family}: cases skipped`);
    });
  }
});
