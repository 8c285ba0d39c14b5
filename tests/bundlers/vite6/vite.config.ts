import { defineConfig } from 'vite';

// The harness's port and COOP/COEP toggle, plus the one veilkit line the README asks of Vite 6
// (dev server only): its dependency optimizer copies veilkit's modules into node_modules/.vite/deps/
// without the wasm and worker files they locate with `new URL(…, import.meta.url)`.
// VEILKIT_COI=1 serves the page cross-origin isolated (dev server and preview alike).
// VEILKIT_MATRIX_NO_EXCLUDE=1 leaves the line out: the matrix checks that init() then names it.
const coi = process.env.VEILKIT_COI === '1';
const headers = coi ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } : {};
const port = Number(process.env.PORT ?? 5173);
const exclude = process.env.VEILKIT_MATRIX_NO_EXCLUDE === '1' ? [] : ['veilkit'];

export default defineConfig({
  optimizeDeps: { exclude },
  server: { host: '127.0.0.1', port, strictPort: true, headers },
  preview: { host: '127.0.0.1', port, strictPort: true, headers },
});
