import { defineConfig } from '@playwright/test';
import { CHROMIUM } from '../../shared/chromium.js';

// The Next.js example (examples/next) under both of its builds, each served by `next start`:
// scripts/packed/30-next-example.sh builds it with Turbopack and with webpack, starts one server per
// build (ports below, store files below) and runs this config. One project per build.
export const NEXT_BUILDS = [
  { name: 'turbopack', port: Number(process.env.VEILKIT_NEXT_TURBOPACK_PORT ?? 8970) },
  { name: 'webpack', port: Number(process.env.VEILKIT_NEXT_WEBPACK_PORT ?? 8971) },
] as const;

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 180_000,
  reporter: 'list',
  outputDir: '../../../test-results/next-example',
  use: {
    headless: true,
    trace: 'off',
    actionTimeout: 60_000,
    ...CHROMIUM,
  },
  projects: NEXT_BUILDS.map(({ name, port }) => ({
    name,
    use: { baseURL: `http://127.0.0.1:${port}` },
  })),
});
