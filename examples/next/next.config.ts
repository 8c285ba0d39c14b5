import type { NextConfig } from 'next';

// No veilkit-specific configuration: the package's workers and wasm are found by the bundler
// (Turbopack or webpack) from the package's own `new URL('./…', import.meta.url)` references.
// NEXT_DIST_DIR lets the tests keep a Turbopack and a webpack build side by side.
const config: NextConfig = {
  distDir: process.env.NEXT_DIST_DIR ?? '.next',
  reactStrictMode: true,
  // This app lives inside the veilkit repository (another lockfile above it): pin its root.
  turbopack: { root: import.meta.dirname },
  outputFileTracingRoot: import.meta.dirname,
};

export default config;
