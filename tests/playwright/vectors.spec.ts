// Known-answer vectors through the public API inside a module Worker in Chromium.
// One page load runs every family; each family is its own step with soft
// assertions, so one failing family never hides the others. Counts are the pinned
// ones of tests/shared/vector-suites.ts (EXPECTED), not the worker's own.
import { test, expect } from './test.js';
import { EXPECTED, FAMILIES, expectedCases, formatReport, formatSkips, skippedCases } from '../shared/vector-suites.js';
import type { VectorWorkerMessage } from './fixtures/vector-worker.js';

test('vector suites in a module worker', async ({ page }) => {
  test.setTimeout(10 * 60_000);
  const pageLog: string[] = [];
  page.on('console', (m) => pageLog.push(`[console.${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => pageLog.push(`[pageerror] ${e.message}`));
  page.on('requestfailed', (r) => pageLog.push(`[requestfailed] ${r.url()} ${r.failure()?.errorText ?? ''}`));

  await page.goto('/tests/playwright/fixtures/vectors.html');
  const result = await page.evaluate<VectorWorkerMessage>('window.vectorResult');
  if (result.type !== 'reports') throw new Error(`vector worker failed: ${result.message}\n${pageLog.join('\n')}`);

  console.log(`vector suites in a module worker: ${result.millis} ms, crossOriginIsolated=${result.crossOriginIsolated}`);
  for (const r of result.reports) {
    console.log(`  ${formatReport(r)}`);
    for (const line of formatSkips(r)) console.log(`    ${line}`);
  }

  expect.soft(result.crossOriginIsolated, 'worker is cross-origin isolated (COOP/COEP)').toBe(true);
  expect.soft(result.reports.map((r) => r.family)).toEqual([...FAMILIES]);
  for (const family of FAMILIES) {
    await test.step(`vectors: ${family}`, () => {
      const r = result.reports.find((x) => x.family === family);
      expect.soft(r, `report for ${family}`).toBeDefined();
      if (r === undefined) return;
      for (const line of formatSkips(r)) test.info().annotations.push({ type: 'skipped-vector', description: line });
      expect.soft(r.failures, `${family} failures`).toEqual([]);
      expect.soft(r.failed, `${family}: cases failed`).toBe(0);
      expect.soft(r.passed, `${family}: cases passed`).toBe(expectedCases(family));
      expect.soft(r.tallies, `${family}: cases run by kind`).toEqual(EXPECTED[family].cases);
      expect.soft(skippedCases(r), `${family}: cases skipped`).toBe(EXPECTED[family].skipped);
    });
  }
});
