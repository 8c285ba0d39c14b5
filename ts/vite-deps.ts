/**
 * Vite's dev-server dependency optimizer bundles a package into `node_modules/.vite/deps/` without the
 * files its modules locate with `new URL('./file', import.meta.url)` (the wasm, the worker), so those
 * URLs answer with the app's HTML page. Detected from the URL, to say what to do in the error.
 */

/** Appended to load errors when veilkit runs from Vite's optimized-deps directory. */
export const VITE_DEPS_HINT =
  "Vite's dependency optimizer pre-bundled veilkit into node_modules/.vite/deps/, where its wasm and worker files are not: " +
  "add `optimizeDeps: { exclude: ['veilkit'] }` to vite.config (see the README, Use with React / Vite / Next.js)";

/** Whether `url` is inside Vite's optimized-deps directory. */
export function inViteDeps(url: string): boolean {
  return url.includes('/.vite/deps/');
}
