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
