// No panic crosses the wasm boundary (issue 8). Every export of the RAW
// wasm-bindgen glue (functions, class constructors, static and instance
// methods, getters; enumerated from the module, typed from its .d.ts) is called
// with wrong lengths, empty, 16 MiB and garbage inputs, and with wrong JS types.
// Each call must succeed or throw a VeilError with a known code (wrong JS types
// may also get the glue's own TypeError) — never a WebAssembly.RuntimeError —
// and the module must still work afterwards (known SHA-256, Ed25519 round trip).
// Skipped exports and members are listed, with reasons, in boundary-plan.ts.
import { test, expect } from './test.js';

type Boundary = typeof import('./fixtures/boundary-page.js');
declare global {
  interface Window { boundaryTests: Boundary }
}

test('no panic crosses the wasm boundary (raw glue, every export)', async ({ page }) => {
  test.setTimeout(20 * 60_000);
  await page.goto('/tests/playwright/fixtures/boundary.html');
  await expect(page).toHaveTitle('ready');
  const r = await page.evaluate(() => window.boundaryTests.run());

  const calls = r.stats.reduce((n, s) => n + s.calls, 0);
  console.log(`boundary: ${r.exports.length} exports, ${r.callables.length} callables, ${calls} calls in ${r.millis} ms (${r.workers} worker(s), ${r.instances} instance(s))`);
  console.log(`  skipped exports: ${Object.entries(r.skipped).map(([k, v]) => `${k} (${v})`).join('; ')}`);
  console.log(`  not probed: ${Object.entries(r.skippedMembers).map(([k, v]) => `${k} (${v})`).join('; ')}`);
  if (r.undeclared.length) console.log(`  not in the .d.ts (probed untyped): ${r.undeclared.join(', ')}`);
  for (const s of r.stats) {
    const codes = Object.entries(s.codes).map(([k, v]) => `${k}×${v}`).join(' ');
    console.log(`  ${s.id.padEnd(36)} ${String(s.calls).padStart(5)} calls, ${String(s.ok).padStart(5)} ok  ${codes}`);
  }
  for (const f of r.failures) console.log(`  FAIL ${f.kind}: ${f.call.slice(0, 120)} — ${f.message}`);

  // Coverage: every callable ran, and every export that is not skipped is a callable.
  expect(r.stats.map((s) => s.id).sort()).toEqual([...r.callables].sort());
  for (const s of r.stats) expect.soft(s.calls, `${s.id} was called`).toBeGreaterThan(0);
  for (const name of r.exports) {
    if (name in r.skipped) continue;
    expect.soft(r.callables.some((c) => c === name || c === `new ${name}` || c.startsWith(`${name}.`) || c.startsWith(`${name}#`)), `export ${name} is probed`).toBe(true);
  }
  expect(r.failures).toEqual([]);
});
