// Zeroization evidence (issue 8): after keygen / sign / agree / decapsulate /
// derive sequences on a fresh instance of the raw wasm glue, no 16-byte window
// of any secret remains anywhere in linear memory (stack, data, heap, freed
// chunks). See SECURITY.md "Zeroization" for what this does and does not show.
import { test, expect } from './test.js';

type Zeroize = typeof import('./fixtures/zeroize-page.js');
declare global {
  interface Window { zeroizeTests: Zeroize }
}

const SCENARIOS = ['ed25519', 'x25519', 'mlkem', 'pq', 'hpke', 'bip39', 'symmetric'] as const;

/**
 * What each scenario must search for: the secrets it recomputes and the 16-byte windows of
 * them (the halves of a 32-byte secret, a stride over longer ones; fixtures/zeroize-page.ts
 * `windows`). Fixed by the scenarios' code, not by the random keys: a scenario that silently
 * stops collecting a secret (and so searches for less) fails here.
 */
const SEARCHED: Record<(typeof SCENARIOS)[number] | 'messaging' | 'container' | 'CONTAINER_WRAPS_SCENARIO' | 'CONTAINER_HYBRID_SIGNER_SCENARIO', { secrets: number; windows: number }> = {
  ed25519: { secrets: 16, windows: 32 },
  x25519: { secrets: 7, windows: 14 },
  mlkem: { secrets: 6, windows: 46 },
  pq: { secrets: 5, windows: 10 },
  hpke: { secrets: 3, windows: 9 },
  // bip39: 4 secrets (entropy, phrase, seed, fresh phrase); its windows depend on the phrases' lengths.
  bip39: { secrets: 4, windows: -1 },
  symmetric: { secrets: 10, windows: 23 },
  messaging: { secrets: 16, windows: 60 },
  container: { secrets: 13, windows: 43 },
  CONTAINER_WRAPS_SCENARIO: { secrets: 27, windows: 57 },
  CONTAINER_HYBRID_SIGNER_SCENARIO: { secrets: 16, windows: 92 },
};
/**
 * The windows of a secret of `n` bytes, as fixtures/zeroize-page.ts `windows` picks them (every
 * 16 bytes up to 64 bytes, then a 64-byte stride, plus the last 16): for the bip39 scenario,
 * whose phrases (random words) have no fixed length.
 */
function windowsOf(n: number): number {
  if (n < 16) return 0;
  const starts = new Set<number>();
  for (let at = 0; at + 16 <= n; at += n <= 64 ? 16 : 64) starts.add(at);
  starts.add(n - 16);
  return starts.size;
}

/** What the session scenario searches for and how many states and snapshots it has (fixed by its sequence). */
// Format 2 (SESSIONS.md §5.11): fewer ML-KEM key pairs in the scenario (one ek per epoch, not one per
// direction change), plus the pending epoch keys and the previous peer direction key of the chunk block.
// The own pending ML-KEM key is its seed d ‖ z in state format 3 (two 32-byte secrets, fewer windows than dk_PKE ‖ z).
const SEARCHED_SESSION = { secrets: 115, windows: 451, states: 16, snapshots: 25 };

/** Memory snapshots the container scenarios take right after individual calls (each scanned too). */
const SNAPSHOTS = { container: 5, CONTAINER_WRAPS_SCENARIO: 9, CONTAINER_HYBRID_SIGNER_SCENARIO: 5 } as const;

test.beforeEach(async ({ page }) => {
  await page.goto('/tests/playwright/fixtures/zeroize.html');
  await expect(page).toHaveTitle('ready');
});

for (const name of SCENARIOS) {
  test(`no secret bytes left in wasm memory: ${name}`, async ({ page }) => {
    const r = await page.evaluate((n) => window.zeroizeTests.SCENARIOS[n]!(), name);
    console.log(`${r.name}: ${r.secrets} secrets, ${r.windows} windows, ${r.memoryBytes} bytes of memory, stack depth ${r.stackDepth}, ${r.hits.length} hits`);
    for (const h of r.hits) console.log(`  ${h.secret} [+${h.at}] at ${h.offset} (${h.region})`);
    const lengths = r.secretLengths ?? {};
    const windows = name === 'bip39' ? Object.values(lengths).reduce((n, len) => n + windowsOf(len), 0) : SEARCHED[name].windows;
    if (name === 'bip39') expect(Object.entries(lengths).filter(([k]) => !k.includes('phrase'))).toEqual([['entropy', 32], ['seed', 64]]);
    expect({ secrets: r.secrets, windows: r.windows }).toEqual({ secrets: SEARCHED[name].secrets, windows });
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
  expect({ secrets: r.secrets, windows: r.windows }).toEqual(SEARCHED.messaging);
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
  expect({ secrets: r.secrets, windows: r.windows }).toEqual(SEARCHED.container);
  expect(r.snapshots).toBe(SNAPSHOTS.container);
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
    expect({ secrets: r.secrets, windows: r.windows }).toEqual(SEARCHED[s.run]);
    expect(r.snapshots).toBe(SNAPSHOTS[s.run]);
    expect(r.hits).toEqual([]);
  });
}

test('no secret bytes left in wasm memory: session (identities, prekeys, initiate, respond, encrypt, decrypt, state info)', async ({ page }) => {
  const r = await page.evaluate(() => window.zeroizeTests.SESSION_SCENARIO());
  console.log(`${r.name}: ${r.secrets} secrets, ${r.windows} windows, ${r.memoryBytes} bytes of memory, stack depth ${r.stackDepth}, ${r.states} states, ${r.selfClamped.secrets} self-clamped scalars, confirmed ${r.confirmed.join(', ')}, ${r.snapshots} snapshots, ${r.hits.length} hits`);
  for (const h of r.hits) console.log(`  ${h.secret} [+${h.at}] at ${h.offset} (${h.region})`);
  // The recomputed secrets are the session's: identity keys match Enc(ID), the recomputed message
  // keys open the messages, Bob's stored skipped keys are the skipped messages' keys.
  expect(r.confirmed).toEqual(['identity keys', 'message keys open the messages', 'skipped keys']);
  // A scalar that clamping leaves unchanged (X25519, Ed25519) is one secret, not two: count it as the pair it stands for.
  expect({ secrets: r.secrets + r.selfClamped.secrets, windows: r.windows + r.selfClamped.windows, states: r.states, snapshots: r.snapshots })
    .toEqual(SEARCHED_SESSION);
  expect(r.hits).toEqual([]);
});

test('session exports: measured stack depth (wipe off) fits the wipe each one gets', async ({ page }) => {
  const { depths, wipes } = await page.evaluate(async () => ({ depths: await window.zeroizeTests.SESSION_STACK_DEPTHS(), wipes: window.zeroizeTests.SESSION_WIPES }));
  for (const [name, d] of Object.entries(depths)) console.log(`  ${name}: ${d} bytes (${(d / 1024).toFixed(1)} KiB), wipe ${wipes[name]! / 1024} KiB`);
  expect(Object.keys(depths).sort()).toEqual(Object.keys(wipes).sort());
  for (const [name, d] of Object.entries(depths)) {
    expect(d, name).toBeGreaterThan(0);
    expect(d, name).toBeLessThanOrEqual(wipes[name]!);
  }
});

test('sealed-box exports: measured stack depth (wipe off) fits the wipe each one gets', async ({ page }) => {
  const { depths, wipes } = await page.evaluate(async () => ({ depths: await window.zeroizeTests.HPKE_STACK_DEPTHS(), wipes: window.zeroizeTests.HPKE_WIPES }));
  for (const [name, d] of Object.entries(depths)) console.log(`  ${name}: ${d} bytes (${(d / 1024).toFixed(1)} KiB), wipe ${wipes[name]! / 1024} KiB`);
  expect(Object.keys(depths).sort()).toEqual(Object.keys(wipes).sort());
  for (const [name, d] of Object.entries(depths)) {
    expect(d, name).toBeGreaterThan(0);
    expect(d, name).toBeLessThanOrEqual(wipes[name]!);
  }
});

/**
 * The categories of secrets the group scenario collects from the exported states (fixed by the
 * scenario and OpenMLS's records; a scan that silently stops collecting one fails here).
 */
const GROUP_CATEGORIES = [
  'EpochKeyPairs[].private_key.key',
  'EpochSecrets.epoch_authenticator.secret.value',
  'EpochSecrets.exporter_secret.secret.value',
  'EpochSecrets.external_secret.secret.value',
  'EpochSecrets.init_secret.secret.value',
  'EpochSecrets.resumption_psk.secret.value',
  'KeyPackage.private_encryption_key.key',
  'KeyPackage.private_init_key',
  'MessageSecrets.message_secrets.confirmation_key.secret.value',
  'MessageSecrets.message_secrets.membership_key.secret.value',
  'MessageSecrets.message_secrets.secret_tree.application_sender_ratchets[].DecryptionRatchet.ratchet_head.secret.value',
  'MessageSecrets.message_secrets.secret_tree.application_sender_ratchets[].EncryptionRatchet.secret.value',
  'MessageSecrets.message_secrets.secret_tree.handshake_sender_ratchets[].DecryptionRatchet.ratchet_head.secret.value',
  'MessageSecrets.message_secrets.secret_tree.handshake_sender_ratchets[].EncryptionRatchet.secret.value',
  'MessageSecrets.message_secrets.secret_tree.leaf_nodes[].secret.value',
  'MessageSecrets.message_secrets.secret_tree.parent_nodes[].secret.value',
  'MessageSecrets.message_secrets.sender_data_secret.secret.value',
  'ResumptionPsk.resumption_psk[][].secret.value',
  'client signature seed',
  'identity Ed25519 seed',
];

for (const suite of [0x0001, 0x004d]) {
  test(`no secret bytes left in wasm memory: group module, suite 0x${suite.toString(16).padStart(4, '0')} (certified members, key packages, create, add, join, messages, update, remove, free)`, async ({ page }) => {
    const r = await page.evaluate((s) => window.zeroizeTests.GROUP_SCENARIO(s), suite);
    const wipe = await page.evaluate(() => window.zeroizeTests.GROUP_STACK_WIPE);
    console.log(`${r.name}: ${r.categories.length} categories, ${r.secrets} secrets (bytes and JSON text), ${r.windows} windows, ${r.memoryBytes} bytes of memory, deepest stack reach ${r.stackDepth} (${r.deepest}; wipe ${wipe}), current-epoch hits while live ${r.currentHitsWhileLive}, superseded hits while live ${r.supersededHits.length}, hits after free ${r.hits.length}`);
    for (const h of [...r.supersededHits, ...r.hits]) console.log(`  ${h.secret} [+${h.at}] at ${h.offset} (${h.region})`);
    expect(r.categories).toEqual(GROUP_CATEGORIES);
    // Positive control: while the clients are alive, the scan finds the current epoch's secrets.
    expect(r.currentHitsWhileLive).toBeGreaterThan(0);
    // Forward secrecy in memory: nothing of a superseded epoch, a consumed key package or an identity seed.
    expect(r.supersededHits).toEqual([]);
    expect(r.hits).toEqual([]);
    // Every call's reach is its wipe plus a few frames: no export's body goes below the wipe.
    expect(r.stackDepth).toBeGreaterThanOrEqual(wipe);
    expect(r.stackDepth).toBeLessThanOrEqual(wipe + 4096);
  });
}
