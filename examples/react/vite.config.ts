import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Cross-origin isolation (COOP/COEP) lets veilkit use its threads build; without it the SIMD build
// runs. On by default for `vite` and `vite preview`; VEILKIT_COI=0 serves the app without them.
// No other veilkit-specific setting: the package locates its wasm and workers itself.
const isolated = process.env.VEILKIT_COI !== '0';
const headers = isolated
  ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' }
  : {};

export default defineConfig({
  plugins: [react()],
  server: { host: '127.0.0.1', headers },
  preview: { host: '127.0.0.1', headers },
});
