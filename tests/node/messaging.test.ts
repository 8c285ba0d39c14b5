// Messaging through the public API in Node: the known-answer tests of
// vectors/messaging/kat.json, the seed's full E2EE flow, adversarial cases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import * as api from '../../ts/index.js';
import { ADVERSARIAL_CASE_COUNT, KAT_FAMILIES, runAdversarial, runFlow, runKats } from '../shared/messaging-suite.js';

// Compiled to dist/tests/node/, three levels below the repository root.
const ROOT = new URL('../../../', import.meta.url);
const load = (path: string): Promise<string> => readFile(fileURLToPath(new URL(path, ROOT)), 'utf8');

test('messaging known-answer tests (Node)', async (t) => {
  await api.init();
  const reports = await runKats(api, load);
  assert.deepEqual(
    reports.map((r) => r.family),
    Object.keys(KAT_FAMILIES),
  );
  for (const r of reports) {
    await t.test(r.family, () => {
      assert.deepEqual(r.failures, [], `${r.family}: ${r.failures.length} failure(s)`);
      assert.ok(r.expected > 0, `${r.family}: no cases`);
      assert.equal(r.checked, r.expected, `${r.family}: checked ${r.checked} of ${r.expected}`);
    });
  }
});

test('seed full E2EE flow (Node)', async () => {
  await api.init();
  const r = await runFlow(api);
  assert.equal(r.message, '');
  assert.ok(r.ok);
});

test('messaging adversarial cases (Node)', async (t) => {
  await api.init();
  const results = await runAdversarial(api);
  assert.equal(results.length, ADVERSARIAL_CASE_COUNT);
  for (const r of results) {
    await t.test(r.name, () => {
      assert.equal(r.message, '', r.name);
      assert.ok(r.ok, r.name);
    });
  }
});
