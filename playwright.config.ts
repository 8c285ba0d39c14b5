import { defineConfig } from '@playwright/test';
import { CHROMIUM } from './tests/shared/chromium.js';
import { ENGINE, FIREFOX } from './tests/shared/engines.js';

// VEILKIT_TEST_PORT lets two checkouts run their suites side by side (each serves its own files).
const PORT = Number(process.env.VEILKIT_TEST_PORT ?? 8787);
const BASE_URL = `http://127.0.0.1:${PORT}`;

export default defineConfig({
  testDir: 'tests/playwright',
  testMatch: '**/*.spec.ts',
  // One worker: the machine has two cores and the vector suites are CPU-bound.
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 120_000,
  reporter: 'list',
  // WebKit: one Xvfb + WebKitWebDriver pair for the run, started and stopped (by pid) here.
  ...(ENGINE === 'webkit' ? { globalSetup: './tests/shared/webkit/global-setup.ts' } : {}),
  outputDir: 'test-results',
  use: {
    baseURL: BASE_URL,
    headless: true,
    trace: 'off',
  },
  // One project: the engine VEILKIT_ENGINE names (tests/shared/engines.ts; chromium by default).
  // WebKit's `browserName` is never launched by Playwright: tests/playwright/test.ts replaces the
  // context and page fixtures with the WebDriver adapter.
  projects: [
    ENGINE === 'firefox'
      ? { name: 'firefox', use: FIREFOX }
      : ENGINE === 'webkit'
        ? { name: 'webkit', use: { browserName: 'webkit' } }
        : { name: 'chromium', use: CHROMIUM },
  ],
  webServer: {
    command: 'node tests/server.mjs',
    url: `${BASE_URL}/package.json`,
    env: { PORT: String(PORT) },
    reuseExistingServer: !process.env.CI,
    timeout: 30_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
