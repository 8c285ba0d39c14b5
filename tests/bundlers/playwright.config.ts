import { defineConfig } from '@playwright/test';
import { CHROMIUM } from '../shared/chromium.js';

// The bundler matrix (tests/bundlers/matrix.spec.ts, run by scripts/packed/10-bundlers.sh): one test
// per cell, each starting its own server (tests/bundlers/servers.ts) and stopping it by pid.
export default defineConfig({
  testDir: '.',
  testMatch: 'matrix.spec.ts',
  // One worker, cells in order: the machine has two cores, and two dev servers of one app would
  // share its dependency cache.
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  // A cell: server start (≤ 60 s) + smoke (≤ 90 s) + stop.
  timeout: 180_000,
  reporter: [['list'], ['json', { outputFile: '../../test-results/bundlers/results.json' }]],
  outputDir: '../../test-results/bundlers/output',
  use: {
    headless: true,
    trace: 'off',
  },
  projects: [
    {
      name: 'chromium',
      use: CHROMIUM,
    },
  ],
});
