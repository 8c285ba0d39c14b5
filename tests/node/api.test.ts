// Argument checks and error contract of the public API, in Node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as api from '../../ts/index.js';
import { API_CHECKS } from '../shared/api-checks.js';

test('init() called twice before it settles: both resolve', async (t) => {
  const a = api.init();
  const b = api.init();
  assert.ok(a instanceof Promise && b instanceof Promise);
  await Promise.all([a, b]);
  if (a !== b) t.diagnostic('init() returned two different promises (both resolved)');
});

for (const check of API_CHECKS) {
  test(check.name, async () => {
    await api.init();
    await check.run(api);
  });
}

test('BIP-39 NFKD happens in the facade: composed and decomposed passphrases give one seed, equal to an independent PBKDF2', async () => {
  await api.init();
  const { pbkdf2Sync } = await import('node:crypto');
  const phrase = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
  const composed = 'p\u00e4ssw\u00f6rd \ufb01 \u2460';
  const decomposed = 'pa\u0308sswo\u0308rd fi 1';
  const seed = api.mnemonicToSeed(phrase, composed);
  assert.deepEqual(seed, api.mnemonicToSeed(phrase, decomposed));
  assert.deepEqual(seed, new Uint8Array(pbkdf2Sync(phrase, `mnemonic${decomposed}`, 2048, 64, 'sha512')));
  // Fullwidth letters are NFKD-equivalent to the English words.
  const fullwidth = [...phrase].map((c) => (c >= 'a' && c <= 'z' ? String.fromCharCode(c.charCodeAt(0) - 0x61 + 0xff41) : c)).join('');
  assert.ok(api.validateMnemonic(fullwidth));
  assert.deepEqual(api.mnemonicToEntropy(fullwidth), new Uint8Array(16));
  assert.deepEqual(api.mnemonicToSeed(fullwidth, composed), seed);
});
