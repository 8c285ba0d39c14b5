// Zeroization evidence (issue 8): after keygen / sign / agree / decapsulate /
// derive sequences on a fresh instance of the raw wasm glue, no 16-byte window
// of any secret remains anywhere in linear memory (stack, data, heap, freed
// chunks). See SECURITY.md "Zeroization" for what this does and does not show.
import { test, expect } from '@playwright/test';

type Zeroize = typeof import('./fixtures/zeroize-page.js');
declare global {
  interface Window { zeroizeTests: Zeroize }
}

const SCENARIOS = ['ed25519', 'x25519', 'mlkem', 'pq', 'bip39', 'symmetric'] as const;

test.beforeEach(async ({ page }) => {
  await page.goto('/tests/playwright/fixtures/zeroize.html');
  await expect(page).toHaveTitle('ready');
});

for (const name of SCENARIOS) {
  test(`no secret bytes left in wasm memory: ${name}`, async ({ page }) => {
    const r = await page.evaluate((n) => window.zeroizeTests.SCENARIOS[n]!(), name);
    console.log(`${r.name}: ${r.secrets} secrets, ${r.windows} windows, ${r.memoryBytes} bytes of memory, stack depth ${r.stackDepth}, ${r.hits.length} hits`);
    for (const h of r.hits) console.log(`  ${h.secret} [+${h.at}] at ${h.offset} (${h.region})`);
    expect(r.windows).toBeGreaterThan(0);
    expect(r.hits).toEqual([]);
  });
}

test('control: the scan finds bytes that are not wiped', async ({ page }) => {
  const r = await page.evaluate(() => window.zeroizeTests.control());
  console.log(`${r.name}: ${r.hits.length} hits (${[...new Set(r.hits.map((h) => h.region))].join(', ')})`);
  expect(r.hits.length).toBeGreaterThan(0);
});

test('no secret bytes left in wasm memory: messaging', async ({ page }) => {
  const r = await page.evaluate(() => window.zeroizeTests.MESSAGING_SCENARIO());
  console.log(`${r.name}: ${r.secrets} secrets, ${r.windows} windows, stack depth ${r.stackDepth}, ${r.hits.length} hits`);
  for (const h of r.hits) console.log(`  ${h.secret} [+${h.at}] at ${h.offset} (${h.region})`);
  expect(r.hits).toEqual([]);
});

test('no secret bytes left in wasm memory: container (password + X-Wing recipient, encrypt, open, unlock, takeDek, free)', async ({ page }) => {
  const r = await page.evaluate(() => window.zeroizeTests.CONTAINER_SCENARIO());
  console.log(`${r.name}: ${r.secrets} secrets, ${r.windows} windows, ${r.memoryBytes} bytes of memory, stack depth ${r.stackDepth}, DEK hits while a reader held it ${r.dekHitsWhileHeld}, confirmed ${r.confirmed.join(', ')}, ${r.snapshots ?? 0} mid-sequence snapshots, ${r.hits.length} hits`);
  for (const h of r.hits) console.log(`  ${h.secret} [+${h.at}] at ${h.offset} (${h.region})`);
  // Positive control: while the unlocked reader holds the DEK, the scan finds it there.
  expect(r.dekHitsWhileHeld).toBeGreaterThan(0);
  // Every recomputed secret was confirmed against the container, so the scan looks for the right bytes.
  expect(r.confirmed).toEqual(['argon2id KEK', 'x-wing shared secret', 'x-wing KEK', 'x-wing expansion']);
  expect(r.snapshots).toBeGreaterThan(0);
  expect(r.hits).toEqual([]);
});

const EXTENDED = [
  {
    title: 'container (PBKDF2 + group + 2-of-3 threshold wraps, Ed25519 setSigner, unlock by each, takeDek, free)',
    run: 'CONTAINER_WRAPS_SCENARIO',
    confirmed: ['pbkdf2 KEK', 'group KEK', 'threshold secret', 'threshold KEK', 'ed25519 signer and signed message'],
    held: ['ed25519 seed (encryptor, before finish)', 'dek (password-unlocked reader)'],
  },
  {
    title: 'container (group wrap, Ed25519 + ML-DSA-65 setSigner, hybrid signature check, takeDek, free)',
    run: 'CONTAINER_HYBRID_SIGNER_SCENARIO',
    confirmed: ['group KEK', 'ed25519 signer and signed message', 'ml-dsa signer and signed message'],
    held: ['ed25519 seed (encryptor, before finish)', 'ml-dsa seed (encryptor, before finish)', 'dek (group-unlocked reader)'],
  },
] as const;

for (const s of EXTENDED) {
  test(`no secret bytes left in wasm memory: ${s.title}`, async ({ page }) => {
    const r = await page.evaluate((fn) => window.zeroizeTests[fn](), s.run);
    const held = Object.entries(r.heldHits ?? {}).map(([k, v]) => `${k}: ${v}`).join('; ');
    console.log(`${r.name}: ${r.secrets} secrets, ${r.windows} windows, ${r.memoryBytes} bytes of memory, stack depth ${r.stackDepth}, hits while held (${held}), confirmed ${r.confirmed.join(', ')}, ${r.snapshots ?? 0} mid-sequence snapshots, ${r.hits.length} hits`);
    for (const h of r.hits) console.log(`  ${h.secret} [+${h.at}] at ${h.offset} (${h.region})`);
    // Positive controls: while a live handle holds a secret (the signer seeds before finish,
    // the DEK in an unlocked reader), the scan finds it.
    expect(Object.keys(r.heldHits ?? {})).toEqual([...s.held]);
    for (const k of s.held) expect(r.heldHits?.[k], k).toBeGreaterThan(0);
    // Every recomputed secret was confirmed against the container, so the scan looks for the right bytes.
    expect(r.confirmed).toEqual([...s.confirmed]);
    expect(r.windows).toBeGreaterThan(0);
    expect(r.snapshots).toBeGreaterThan(0);
    expect(r.hits).toEqual([]);
  });
}
