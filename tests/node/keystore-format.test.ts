// The keystore's documented derivation (docs/KEYSTORE.md#derivation) recomputed
// with Node's own crypto, and the public bundle encoding (docs/KEYSTORE.md#public-bundle).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPrivateKey, createPublicKey, hkdfSync, pbkdf2Sync } from 'node:crypto';
import * as P from '../../ts/primitives.js';
import {
  IDENTITY_DERIVATION, decodePublicBundle, deriveKeySeed, identityId,
  publicKeyFromKeySeed, verifyPublicBundle,
} from '../../ts/keystore-format.js';
import { KEY_TYPES } from '../../worker/keystore.protocol.js';
import { buildBundle } from '../shared/bundle.js';

const PHRASE = `${'abandon '.repeat(23)}art`;
/** Regression pin for the phrase above (recomputed independently below, except ML-KEM/X-Wing/ML-DSA public keys). */
const EXPECTED_ID = '404dc1cbc898b555a8a18350773da0f0';
/** Regression pin: SHA-256 of its full bundle (with ML-DSA-65), which covers every public key. */
const EXPECTED_BUNDLE_SHA256 = '2bb01d15961f7a76947724d1a58794a2c93473f4f125c1dfc3c86137474ff5bf';

function nodePublic(type: 'ed25519' | 'x25519', seed: Uint8Array): Uint8Array {
  const prefix = type === 'ed25519' ? '302e020100300506032b657004220420' : '302e020100300506032b656e04220420';
  const key = createPrivateKey({ key: Buffer.concat([Buffer.from(prefix, 'hex'), seed]), format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(key).export({ format: 'der', type: 'spki' });
  return new Uint8Array(spki.subarray(spki.length - 32));
}

test('derivation: BIP-39 seed and HKDF labels match an independent implementation', async () => {
  await P.init();
  const seed = P.mnemonicToSeed(PHRASE);
  assert.deepEqual(Buffer.from(seed), pbkdf2Sync(PHRASE.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512'));
  assert.deepEqual(Object.keys(IDENTITY_DERIVATION).sort(), [...KEY_TYPES].sort());
  for (const t of KEY_TYPES) {
    const { info, length } = IDENTITY_DERIVATION[t];
    assert.equal(info, `veilkit-identity-v1/${t}`);
    const mine = deriveKeySeed(seed, t);
    assert.deepEqual(Buffer.from(mine), Buffer.from(hkdfSync('sha256', seed, new Uint8Array(0), info, length)), t);
  }
  for (const t of ['ed25519', 'x25519'] as const) {
    assert.deepEqual(publicKeyFromKeySeed(t, deriveKeySeed(seed, t)), nodePublic(t, deriveKeySeed(seed, t)), t);
  }
  const edPk = publicKeyFromKeySeed('ed25519', deriveKeySeed(seed, 'ed25519'));
  const id = createHash('sha256').update('veilkit-identity-id-v1').update(edPk).digest().subarray(0, 16).toString('hex');
  assert.equal(identityId(edPk), id);
  assert.equal(id, EXPECTED_ID);
});

test('public bundle: canonical encoding, signatures, sizes, tamper detection', async () => {
  await P.init();
  const seed = P.mnemonicToSeed(PHRASE);
  for (const mlDsa of [false, true]) {
    const { bytes, body, keys } = buildBundle(seed, mlDsa);
    assert.equal(bytes.length, mlDsa ? 7795 : 2534);
    const b = decodePublicBundle(bytes);
    assert.equal(b.id, EXPECTED_ID);
    assert.deepEqual(b.xWing, keys['x-wing']);
    assert.equal(b.mlDsa65 !== undefined, mlDsa);
    assert.equal(verifyPublicBundle(bytes), true);
    if (mlDsa) assert.equal(createHash('sha256').update(bytes).digest('hex'), EXPECTED_BUNDLE_SHA256);
    for (const at of [0, 6, 100, body.length + 1, bytes.length - 1]) {
      const bad = bytes.slice();
      bad[at]! ^= 1;
      assert.equal(verifyPublicBundle(bad), false, `flip at ${at}`);
    }
    assert.equal(verifyPublicBundle(bytes.subarray(0, bytes.length - 1)), false);
  }
});
