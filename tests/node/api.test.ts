// Argument checks and error contract of the public API, in Node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as main from '../../ts/index.js';
import * as hazmat from '../../ts/hazmat.js';

const api = { ...main, hazmat };
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
  const fullwidth = Array.from(phrase).map((c) => (c >= 'a' && c <= 'z' ? String.fromCharCode(c.charCodeAt(0) - 0x61 + 0xff41) : c)).join('');
  assert.ok(api.validateMnemonic(fullwidth));
  assert.deepEqual(api.mnemonicToEntropy(fullwidth), new Uint8Array(16));
  assert.deepEqual(api.mnemonicToSeed(fullwidth, composed), seed);
});

test('ML-KEM key handles without WebCrypto ML-KEM (Node): wasm route, same bytes as the byte API, destroy wipes', async () => {
  await api.init();
  assert.equal(api.capabilities().routes.mlKemDecapsulationKey, api.capabilities().webCrypto.mlKem768.supported ? 'native' : 'wasm');
  const seed = new Uint8Array(64).map((_, i) => i);
  const seedCopy = seed.slice();
  const [dk, ek] = api.mlKemKeygen(seed);
  for (const key of [await api.importMlKemSeed(seed, { route: 'wasm' }), await api.generateMlKemKey({ route: 'wasm' })]) {
    assert.equal(key.route, 'wasm');
    assert.equal(key.webCryptoKey, undefined);
    const { ciphertext, sharedSecret } = api.mlKemEncapsulate(key.encapsulationKey);
    assert.deepEqual(await key.decapsulate(ciphertext), sharedSecret);
    // The handle hands out copies of its public key.
    key.encapsulationKey.fill(0);
    assert.notDeepEqual(key.encapsulationKey, new Uint8Array(1184));
    key.destroy();
    await assert.rejects(key.decapsulate(ciphertext), (e: unknown) => e instanceof api.VeilError && e.code === 'INVALID_STATE');
  }
  const key = await api.importMlKemSeed(seed, { route: 'wasm' });
  assert.deepEqual(key.encapsulationKey, ek);
  const { ciphertext } = api.mlKemEncapsulate(ek);
  assert.deepEqual(await key.decapsulate(ciphertext), api.mlKemDecapsulate(dk, ciphertext));
  // A tampered ciphertext gives the implicit-rejection key on both paths.
  const bad = ciphertext.slice();
  bad[0]! ^= 1;
  assert.deepEqual(await key.decapsulate(bad), api.mlKemDecapsulate(dk, bad));
  assert.deepEqual(seed, seedCopy, "the caller's seed is untouched");
  await assert.rejects(api.importMlKemSeed(new Uint8Array(63)), RangeError);
  // A ciphertext is the sender's bytes: a wrong length is INVALID_LENGTH, not a RangeError (issue 34 item 4).
  await assert.rejects(key.decapsulate(new Uint8Array(1087)), (e: unknown) => e instanceof api.VeilError && e.code === 'INVALID_LENGTH');
  await assert.rejects(api.importMlKemSeed(seed, { route: 'fast' as never }), TypeError);
});
