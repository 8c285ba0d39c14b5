import { defineConfig } from 'vite';

// Nothing veilkit-specific: only the test harness's port and COOP/COEP toggle. VEILKIT_COI=1 serves
// the page cross-origin isolated (dev server and preview alike), the setting the README shows.
const coi = process.env.VEILKIT_COI === '1';
const headers = coi ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } : {};
const port = Number(process.env.PORT ?? 5173);

export default defineConfig({
  server: { host: '127.0.0.1', port, strictPort: true, headers },
  preview: { host: '127.0.0.1', port, strictPort: true, headers },
});
