// App signatures (docs/KEYSTORE.md#app-signatures) and the isolated keystore's key-use rate limit
// (docs/KEYSTORE.md#rate-limit), in Node: the exact signed bytes, the verifiers against signatures made
// with the primitives over those bytes, the separation from every protocol label, and the token
// bucket under a clock the test drives (counts only, no real time).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as api from '../../ts/index.js';
import { TokenBucket, resolveRateLimit, DEFAULT_RATE_LIMIT } from '../../ts/keystore-isolated.js';

const enc = new TextEncoder();
const LABEL = enc.encode('veilkit-app-signature-v1');

test('the signed bytes: "veilkit-app-signature-v1" ‖ u8(|context|) ‖ context ‖ message', async () => {
  await api.init();
  assert.equal(api.APP_SIGNATURE.label, 'veilkit-app-signature-v1');
  const m = enc.encode('hello');
  const ctx = enc.encode('my-app/v1');
  assert.deepEqual(api.appSignatureMessage(m), new Uint8Array([...LABEL, 0, ...m]));
  assert.deepEqual(api.appSignatureMessage(m, { context: ctx }), new Uint8Array([...LABEL, ctx.length, ...ctx, ...m]));
  assert.deepEqual(api.appSignatureMessage(new Uint8Array(0), { context: new Uint8Array(255) }).length, LABEL.length + 1 + 255);
  assert.throws(() => api.appSignatureMessage(m, { context: new Uint8Array(256) }), RangeError);
  assert.throws(() => api.appSignatureMessage('hello' as never), TypeError);
});

test('no protocol signed by an identity\'s keys begins with the app label, nor the app label with one of theirs', () => {
  // Every label whose bytes the keystore identity's keys sign (Ed25519: label first; ML-DSA-65: the context differs too).
  const protocol = ['veilkit-prekey-v1', 'veilkit-public-bundle-v1', 'vollcrypt-file-header-signature-v1', api.DEVICE_REGISTRY.label];
  const contexts = ['veilkit-prekey-v1', 'veilkit-public-bundle-v1', 'vollcrypt-file-header-v3', api.DEVICE_REGISTRY.label];
  for (const p of protocol) {
    const n = Math.min(p.length, api.APP_SIGNATURE.label.length);
    assert.notEqual(p.slice(0, n), api.APP_SIGNATURE.label.slice(0, n), p);
  }
  for (const c of contexts) assert.notEqual(c, api.APP_SIGNATURE.label);
});

test('verifyAppSignature / verifyHybridAppSignature accept signatures over the signed bytes only, in their context', async () => {
  await api.init();
  const [edSk, edPk] = api.generateEd25519Keypair();
  const [mlSk, mlPk] = api.mlDsaKeygen();
  const m = enc.encode('message');
  const ctx = enc.encode('ctx');
  const signed = api.appSignatureMessage(m, { context: ctx });
  const ed = api.signMessage(edSk, signed);
  const ml = api.mlDsaSign(mlSk, signed, { context: LABEL });
  assert.equal(api.verifyAppSignature(edPk, m, ed, { context: ctx }), true);
  assert.equal(api.verifyAppSignature(mlPk, m, ml, { algorithm: 'ml-dsa-65', context: ctx }), true);
  assert.equal(api.verifyHybridAppSignature({ ed25519: edPk, mlDsa65: mlPk }, m, { ed25519: ed, mlDsa65: ml }, { context: ctx }), true);
  // Another context, another message, a raw signature over the message, ML-DSA-65 under another context.
  assert.equal(api.verifyAppSignature(edPk, m, ed), false);
  assert.equal(api.verifyAppSignature(edPk, enc.encode('other'), ed, { context: ctx }), false);
  assert.equal(api.verifyAppSignature(edPk, m, api.signMessage(edSk, m), { context: ctx }), false);
  assert.equal(api.verifyAppSignature(mlPk, m, api.mlDsaSign(mlSk, signed), { algorithm: 'ml-dsa-65', context: ctx }), false);
  // Both halves are checked.
  const flipped = ml.slice();
  flipped[10]! ^= 1;
  assert.equal(api.verifyHybridAppSignature({ ed25519: edPk, mlDsa65: mlPk }, m, { ed25519: ed, mlDsa65: flipped }, { context: ctx }), false);
  assert.equal(api.verifyHybridAppSignature({ ed25519: edPk, mlDsa65: mlPk }, m, { ed25519: api.signMessage(edSk, m), mlDsa65: ml }, { context: ctx }), false);
  assert.throws(() => api.verifyHybridAppSignature({ ed25519: edPk }, m, { ed25519: ed, mlDsa65: ml }), TypeError);
  assert.throws(() => api.verifyAppSignature(edPk, m, ed, { algorithm: 'rsa' as never }), TypeError);
});

test('token bucket: the burst passes, the next waits the refill it names, idle time refills up to the burst only', () => {
  let now = 1000;
  const bucket = new TokenBucket({ burst: 100, perSecond: 10 }, () => now);
  let passed = 0;
  for (let i = 0; i < 100; i++) if (bucket.take() === 0) passed++;
  assert.equal(passed, 100);
  assert.equal(bucket.take(), 100);
  now += 99;
  assert.equal(bucket.take(), 1);
  now += 1;
  assert.equal(bucket.take(), 0);
  assert.equal(bucket.take(), 100);
  // An hour idle: back to the burst, not more.
  now += 3_600_000;
  passed = 0;
  for (let i = 0; i < 150; i++) if (bucket.take() === 0) passed++;
  assert.equal(passed, 100);
  // A clock that goes back refills nothing.
  now -= 10_000;
  assert.ok(bucket.take() > 0);
});

test('rate limit options: defaults, partial overrides, bounds', () => {
  assert.deepEqual(resolveRateLimit(undefined), { burst: 100, perSecond: 10 });
  assert.equal(resolveRateLimit(undefined), DEFAULT_RATE_LIMIT);
  assert.deepEqual(resolveRateLimit({ burst: 5 }), { burst: 5, perSecond: 10 });
  assert.deepEqual(resolveRateLimit({ perSecond: 0.5 }), { burst: 100, perSecond: 0.5 });
  for (const bad of [{ burst: 0 }, { burst: 1.5 }, { perSecond: 0 }, { perSecond: Number.NaN }, { perSecond: Infinity }]) {
    assert.throws(() => resolveRateLimit(bad), RangeError, JSON.stringify(bad));
  }
  assert.throws(() => resolveRateLimit(null), TypeError);
});
