// Key handles (ts/keys.ts) in Node, whose WebCrypto has Ed25519 and X25519: both routes give the
// byte API's bytes on random inputs, the caller's buffers stay as they were, a disposed handle
// refuses, and the canonical X25519 encoding the native route imports is RFC 7748's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as api from '../../ts/index.js';
import { canonicalX25519 } from '../../ts/webcrypto/ops.js';
import { bytesToHex, hexToBytes } from '../../ts/bytes.js';

const rnd = (n: number) => crypto.getRandomValues(new Uint8Array(n));

test('canonicalX25519: bit 255 masked, then u mod p (only u in [p, 2^255) changes)', () => {
  const p = 'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f';
  const hex = (h: string) => bytesToHex(canonicalX25519(hexToBytes(h)));
  assert.equal(hex(p), '00'.repeat(32), 'p → 0');
  assert.equal(hex(`ee${'ff'.repeat(30)}7f`), `01${'00'.repeat(31)}`, 'p + 1 → 1');
  assert.equal(hex(`ff${'ff'.repeat(30)}7f`), `12${'00'.repeat(31)}`, '2^255 − 1 → 18');
  assert.equal(hex(`ec${'ff'.repeat(30)}7f`), `ec${'ff'.repeat(30)}7f`, 'p − 1 stays');
  assert.equal(hex(`09${'00'.repeat(30)}80`), `09${'00'.repeat(31)}`, 'bit 255 is masked');
  assert.equal(hex(`ef${'ff'.repeat(30)}ff`), `02${'00'.repeat(31)}`, 'masked, then reduced');
  const input = hexToBytes(p);
  canonicalX25519(input);
  assert.equal(bytesToHex(input), p, 'the input is not modified');
});

for (const route of ['wasm', 'native'] as const) {
  test(`key handles on the ${route} route: the byte API's bytes, the caller's buffers untouched, dispose refuses`, async () => {
    await api.init();
    const wc = api.capabilities().webCrypto;
    const want = (ok: boolean) => (route === 'native' && ok ? 'native' : 'wasm');
    for (let i = 0; i < 16; i++) {
      const seed = rnd(32);
      const seedCopy = seed.slice();
      const msg = rnd(i * 37);
      const signer = await api.importEd25519Seed(seed, { route });
      assert.equal(signer.route, want(wc.ed25519.supported && wc.ed25519.selfTest && wc.ed25519.nonExtractable));
      assert.deepEqual(await signer.sign(msg), api.signMessage(seed, msg));
      assert.deepEqual(signer.publicKey, api.ed25519KeypairFromSeed(seed)[1]);
      assert.deepEqual(seed, seedCopy);

      const secret = rnd(32);
      const [, theirs] = api.generateX25519Keypair();
      const x = await api.importX25519Secret(secret, { route });
      assert.equal(x.route, want(wc.x25519.supported && wc.x25519.selfTest && wc.x25519.nonExtractable));
      assert.deepEqual(await x.sharedSecret(theirs), api.ecdhSharedSecret(secret, theirs));
      assert.deepEqual(x.publicKey, api.x25519PublicKey(secret));
      // A non-canonical encoding of the same point (u + p, which fits below 2^255 when u < 19) agrees with the core.
      const small = new Uint8Array(32);
      small[0] = 9;
      const plusP = hexToBytes('f6ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f'); // 9 + p
      assert.deepEqual(await x.sharedSecret(plusP), api.ecdhSharedSecret(secret, plusP));
      assert.deepEqual(await x.sharedSecret(plusP), await x.sharedSecret(small));
      // A small-order point: WEAK_KEY on both routes.
      await assert.rejects(x.sharedSecret(new Uint8Array(32)), (e) => e instanceof api.VeilError && e.code === 'WEAK_KEY');
      x.dispose();
      await assert.rejects(x.sharedSecret(theirs), (e) => e instanceof api.VeilError && e.code === 'INVALID_STATE');
      signer.dispose();
      signer.dispose();
      await assert.rejects(signer.sign(msg), (e) => e instanceof api.VeilError && e.code === 'INVALID_STATE');
      assert.equal(signer.webCryptoKey, undefined);
    }
    const gen = await api.generateEd25519SigningKey({ route });
    const m = rnd(100);
    assert.ok(api.verifySignature(gen.publicKey, m, await gen.sign(m)));
    const [dk, ek] = api.mlKemKeygen();
    const ekHandle = await api.importMlKemEncapsulationKey(ek, { route });
    const { ciphertext, sharedSecret } = await ekHandle.encapsulate();
    assert.deepEqual(api.mlKemDecapsulate(dk, ciphertext), sharedSecret);
    const bad = ek.slice();
    bad.set([0xff, 0xff], 0); // a coefficient ≥ q: the FIPS 203 modulus check fails, at import
    await assert.rejects(api.importMlKemEncapsulationKey(bad, { route }), (e) => e instanceof api.VeilError && e.code === 'INVALID_KEY');
  });
}

test('a disposed handle is INVALID_STATE whatever it is given', async () => {
  await api.init();
  for (const route of ['wasm', 'native'] as const) {
    const s = await api.generateEd25519SigningKey({ route });
    s.dispose();
    await assert.rejects(s.sign('not bytes' as unknown as Uint8Array), (e) => e instanceof api.VeilError && e.code === 'INVALID_STATE');
    const x = await api.generateX25519Key({ route });
    x.dispose();
    await assert.rejects(x.sharedSecret(new Uint8Array(3)), (e) => e instanceof api.VeilError && e.code === 'INVALID_STATE');
  }
});

test('ML-DSA-65 handles: the byte API\'s public key, signatures both ways, the caller\'s buffers untouched, dispose wipes', async () => {
  await api.init();
  // Node 20's WebCrypto has no ML-DSA-65, so both preferences give the wasm route here (Chromium's
  // native route: native.spec.ts); a Node with ML-DSA-65 runs the native one under 'native'.
  const m = api.capabilities().webCrypto.mlDsa65;
  const nativeOk = m.supported && m.selfTest && m.nonExtractable && m.seedImport;
  for (const route of ['wasm', 'native'] as const) {
    const seed = rnd(32);
    const seedCopy = seed.slice();
    const key = await api.importMlDsaSeed(seed, { route });
    assert.equal(key.route, nativeOk && route === 'native' ? 'native' : 'wasm');
    const [, pk] = api.mlDsaKeygen(seed);
    assert.deepEqual(key.publicKey, pk);
    const msg = rnd(333);
    const context = rnd(255);
    const sig = await key.sign(msg, { context });
    assert.deepEqual(seed, seedCopy);
    assert.ok(api.mlDsaVerify(pk, msg, sig, { context }));
    const pub = await api.importMlDsaPublicKey(pk, { route });
    const ctxCopy = context.slice();
    assert.equal(await pub.verify(msg, sig, { context }), true);
    assert.equal(await pub.verify(msg, sig), false, 'another context');
    assert.equal(await pub.verify(msg, api.mlDsaSign(seed, msg, { context, deterministic: true }), { context }), true);
    sig[7]! ^= 1;
    assert.equal(await pub.verify(msg, sig, { context }), false, 'altered signature');
    assert.equal(await pub.verify(msg, sig.subarray(1), { context }), false, 'short signature');
    assert.deepEqual(context, ctxCopy);
    await assert.rejects(key.sign(msg, { context: new Uint8Array(256) }), RangeError);
    await assert.rejects(api.importMlDsaPublicKey(pk.subarray(1), { route }), (e) => e instanceof api.VeilError && e.code === 'INVALID_LENGTH');
    key.dispose();
    await assert.rejects(key.sign(msg), (e) => e instanceof api.VeilError && e.code === 'INVALID_STATE');
    const gen = await api.generateMlDsaSigningKey({ route });
    const s2 = await gen.sign(msg);
    assert.equal(s2.length, 3309);
    assert.ok(api.mlDsaVerify(gen.publicKey, msg, s2));
    gen.dispose();
  }
});

test('wasm-route handles work where there is no global CryptoKey (a page outside a secure context)', async () => {
  await api.init();
  const saved = Object.getOwnPropertyDescriptor(globalThis, 'CryptoKey');
  assert.ok(saved, 'Node has a global CryptoKey to remove');
  delete (globalThis as { CryptoKey?: unknown }).CryptoKey;
  try {
    const msg = rnd(64);
    const ed = await api.importEd25519Seed(rnd(32), { route: 'wasm' });
    assert.ok(api.verifySignature(ed.publicKey, msg, await ed.sign(msg)));
    const [, theirs] = api.generateX25519Keypair();
    const x = await api.importX25519Secret(rnd(32), { route: 'wasm' });
    assert.equal((await x.sharedSecret(theirs)).length, 32);
    const dsa = await api.importMlDsaSeed(rnd(32), { route: 'wasm' });
    assert.ok(api.mlDsaVerify(dsa.publicKey, msg, await dsa.sign(msg)));
    const kem = await api.generateMlKemKey({ route: 'wasm' });
    const { ciphertext, sharedSecret } = api.mlKemEncapsulate(kem.encapsulationKey);
    assert.deepEqual(await kem.decapsulate(ciphertext), sharedSecret);
    for (const h of [ed, x, dsa, kem]) {
      assert.equal(h.webCryptoKey, undefined);
      h.dispose();
    }
    await assert.rejects(dsa.sign(msg), (e) => e instanceof api.VeilError && e.code === 'INVALID_STATE');
  } finally {
    Object.defineProperty(globalThis, 'CryptoKey', saved);
  }
});
