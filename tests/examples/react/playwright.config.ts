import { defineConfig } from '@playwright/test';
import { CHROMIUM } from '../../shared/chromium.js';

// The React example (examples/react) as built by scripts/packed/20-react-example.sh (or
// `cd examples/react && npm run build`), served by `vite preview` with COOP/COEP (its
// vite.config.ts; VEILKIT_COI=0 serves it without them). Port: VEILKIT_REACT_PORT (8950).
const PORT = Number(process.env.VEILKIT_REACT_PORT ?? 8950);
const BASE_URL = `http://127.0.0.1:${PORT}`;

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  // One worker: two cores, and every test starts workers of its own.
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 120_000,
  reporter: 'list',
  outputDir: '../../../test-results/examples-react',
  use: {
    baseURL: BASE_URL,
    headless: true,
    trace: 'off',
    acceptDownloads: true,
    viewport: { width: 1100, height: 760 },
  },
  projects: [
    {
      name: 'chromium',
      use: CHROMIUM,
    },
  ],
  webServer: {
    // The vite binary itself (not `npm run preview`), so that stopping the server stops vite.
    command: `node node_modules/vite/bin/vite.js preview --host 127.0.0.1 --port ${PORT} --strictPort`,
    cwd: '../../../examples/react',
    url: BASE_URL,
    reuseExistingServer: false,
    timeout: 30_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
