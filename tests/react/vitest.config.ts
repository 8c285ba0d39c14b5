// Vitest config of the `veilkit/react` hook tests (tests/react/*.test.ts): happy-dom by default
// (ssr.test.ts runs in Node), sources compiled by Vite, veilkit itself replaced by fakes per file.
// Run: npx --no-install vitest run --config tests/react/vitest.config.ts
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: import.meta.dirname,
  test: {
    include: ['*.test.ts'],
    environment: 'happy-dom',
    pool: 'forks',
    fileParallelism: false,
    restoreMocks: true,
  },
});
