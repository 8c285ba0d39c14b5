// Argument checks and error contract of the public API, in Node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as api from '../../ts/index.js';
import { API_CHECKS } from '../shared/api-checks.js';

test('init() called twice before it settles: both resolve', async (t) => {
  const a = api.init();
  const b = api.init();
  assert.ok(a instanceof Promise && b instanceof Promise);
  await Promise.all([a, b]);
  if (a !== b) t.diagnostic('init() returned two different promises (both resolved)');
});

for (const check of API_CHECKS) {
  test(check.name, async () => {
    await api.init();
    await check.run(api);
  });
}
