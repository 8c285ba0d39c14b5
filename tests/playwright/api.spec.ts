// Argument checks and error contract of the public API on the main thread.
// One page load runs every shared check; each check is its own step with soft
// assertions.
import { test, expect } from './test.js';
import { API_CHECKS, type ApiCheckResult } from '../shared/api-checks.js';

type ApiPageResult =
  | { type: 'results'; results: ApiCheckResult[]; samePromise: boolean; crossOriginIsolated: boolean }
  | { type: 'error'; message: string };

test('API argument checks and errors (main thread)', async ({ page }) => {
  const pageLog: string[] = [];
  page.on('console', (m) => pageLog.push(`[console.${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => pageLog.push(`[pageerror] ${e.message}`));

  await page.goto('/tests/playwright/fixtures/api.html');
  const result = await page.evaluate<ApiPageResult>('window.apiResult');
  if (result.type !== 'results') throw new Error(`API page failed: ${result.message}\n${pageLog.join('\n')}`);
  if (!result.samePromise) test.info().annotations.push({ type: 'note', description: 'init() returned two different promises' });

  expect.soft(result.results.map((r) => r.name)).toEqual(API_CHECKS.map((c) => c.name));
  for (const check of API_CHECKS) {
    await test.step(check.name, () => {
      const r = result.results.find((x) => x.name === check.name);
      expect.soft(r, `result for "${check.name}"`).toBeDefined();
      expect.soft(r?.message ?? '', check.name).toBe('');
      expect.soft(r?.ok, check.name).toBe(true);
    });
  }
});
