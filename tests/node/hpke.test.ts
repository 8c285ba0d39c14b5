// Sealed box (HPKE, X-Wing) in Node: interop both directions with @hpke/core +
// @hpke/hybridkem-x-wing, exporter secrets, the tamper matrix, argument checks
// (tests/shared/hpke-interop.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Aes256Gcm, CipherSuite, HkdfSha256 } from '@hpke/core';
import { XWing } from '@hpke/hybridkem-x-wing';
import * as api from '../../ts/index.js';
import { argumentChecks, runInterop } from '../shared/hpke-interop.js';

test('sealed box interoperates with @hpke/core + @hpke/hybridkem-x-wing (Node)', async () => {
  await api.init();
  const r = await runInterop(api, { CipherSuite, Aes256Gcm, HkdfSha256, XWing }, 40);
  console.log(`hpke interop (Node): ${r.veilkitToLib} veilkit→lib, ${r.libToVeilkit} lib→veilkit, ${r.exports} exports, ${r.rejected} rejected`);
  assert.deepEqual(r.failures, []);
  assert.equal(r.sizes.length, 40);
  assert.equal(r.veilkitToLib, 40);
  assert.equal(r.libToVeilkit, 40);
  assert.equal(r.exports, 80);
  // Two boxes x (12 fixed + 24 random positions + 5 wrong inputs).
  assert.equal(r.rejected, 82);
});

test('sealed box argument checks and buffer ownership (Node)', async () => {
  await api.init();
  assert.deepEqual(await argumentChecks(api), []);
});

/** docs/SEALED.md §7: the signed message of a sender-authenticated box (recipient bound, lengths before info and aad). */
function signedMessage(recipient: Uint8Array, info: Uint8Array, aad: Uint8Array, box: Uint8Array): Uint8Array {
  const u32 = (n: number) => new Uint8Array([n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);
  const parts = [new TextEncoder().encode('veilkit-sealed-box-signed-v1'), api.sha256(recipient), u32(info.length), info, u32(aad.length), aad, box];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

test('sender authentication composition (docs/SEALED.md §7): seal, then a hybrid signature binding the recipient', async () => {
  await api.init();
  const [, bob] = api.xWingKeygen();
  const [, carol] = api.xWingKeygen();
  const [edSk, edPk] = api.generateEd25519Keypair();
  const [dsaSk, dsaPk] = api.mlDsaKeygen();
  const info = new TextEncoder().encode('app v1');
  const aad = new TextEncoder().encode('to bob');
  const box = await api.seal(bob, new TextEncoder().encode('from alice'), { info, aad });
  const m = signedMessage(bob, info, aad, box);
  const sig = { ed25519: api.signMessage(edSk, m), mlDsa65: api.mlDsaSign(dsaSk, m) };
  const verifies = (msg: Uint8Array) => api.verifySignature(edPk, msg, sig.ed25519) && api.mlDsaVerify(dsaPk, msg, sig.mlDsa65);
  assert.equal(verifies(signedMessage(bob, info, aad, box)), true);
  // Re-addressed (carol rebuilds the message with her own key), info / aad moved between fields, or a changed box: rejected.
  assert.equal(verifies(signedMessage(carol, info, aad, box)), false);
  assert.equal(verifies(signedMessage(bob, new Uint8Array(0), new Uint8Array([...info, ...aad]), box)), false);
  const bad = box.slice();
  bad[2000 % bad.length]! ^= 1;
  assert.equal(verifies(signedMessage(bob, info, aad, bad)), false);
});

test('the sealed box\'s WebCrypto AEAD path and the wasm core open each other\'s boxes byte for byte, at and around the switch', async () => {
  await api.init();
  const { sealNative, openNative, NATIVE_AEAD_MIN } = await import('../../ts/sealed-native.js');
  const { openWithSecretKey } = await import('../../ts/sealed.js');
  const wasm = await import('../../ts/wasm/veilkit.js');
  const subtle = globalThis.crypto.subtle;
  const [sk, pk] = api.xWingKeygen();
  for (const n of [0, 1, NATIVE_AEAD_MIN - 1, NATIVE_AEAD_MIN, 70_000]) {
    const pt = crypto.getRandomValues(new Uint8Array(Math.min(n, 65536)));
    const info = new Uint8Array(n % 7).fill(3);
    const aad = new Uint8Array(n % 5).fill(4);
    const native = await sealNative(subtle, pk, info, aad, pt);
    assert.equal(native.length, pt.length + api.SEALED_BOX.overhead);
    assert.deepEqual(openWithSecretKey(sk, native, info, aad), pt, `wasm opens the native box (${n})`);
    const core = wasm.hpkeSeal(pk, info, aad, pt);
    assert.deepEqual(await openNative(subtle, sk, core, info, aad), pt, `the native path opens the core's box (${n})`);
    // Tampering anywhere (enc, body, tag), a wrong info or aad: the one opaque failure, on the native path too.
    for (const at of [0, 1119, 1120, native.length - 1]) {
      const bad = native.slice();
      bad[at] = (bad[at] ?? 0) ^ 1;
      await assert.rejects(openNative(subtle, sk, bad, info, aad), (e) => e instanceof api.VeilError && e.code === 'AUTHENTICATION_FAILED');
    }
    await assert.rejects(openNative(subtle, sk, native, new Uint8Array([9]), aad), (e) => e instanceof api.VeilError && e.code === 'AUTHENTICATION_FAILED');
    await assert.rejects(openNative(subtle, sk, native, info, new Uint8Array([9])), (e) => e instanceof api.VeilError && e.code === 'AUTHENTICATION_FAILED');
  }
});

test('seal / open read the caller\'s buffers when called: changing them before the promise settles changes nothing (both paths)', async () => {
  await api.init();
  const [sk, pk] = api.xWingKeygen();
  for (const n of [100, 65536]) {
    const pt = crypto.getRandomValues(new Uint8Array(n));
    const want = pt.slice();
    const aad = new Uint8Array([1, 2, 3]);
    const sealing = api.seal(pk, pt, { aad });
    pt.fill(0);
    aad.fill(9);
    const box = await sealing;
    const keep = box.slice();
    const opening = api.open(box, { xWingSecretKey: sk }, { aad: new Uint8Array([1, 2, 3]) });
    box.fill(0);
    assert.deepEqual(await opening, want, `size ${n}`);
    assert.deepEqual(await api.open(keep, { xWingSecretKey: sk }, { aad: new Uint8Array([1, 2, 3]) }), want);
  }
});
