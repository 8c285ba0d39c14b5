// Messaging through the public API in Node: the known-answer tests of
// vectors/messaging/kat.json, the seed's full E2EE flow, adversarial cases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { sha256 } from '@noble/hashes/sha2.js';
import * as api from '../../ts/index.js';
import { ADVERSARIAL_CASE_COUNT, KAT_FAMILIES, fromHex, runAdversarial, runFlow, runKats, sasEmoji, toHex } from '../shared/messaging-suite.js';

// Compiled to dist/tests/node/, three levels below the repository root.
const ROOT = new URL('../../../', import.meta.url);
const load = (path: string): Promise<string> => readFile(fileURLToPath(new URL(path, ROOT)), 'utf8');

test('messaging known-answer tests (Node)', async (t) => {
  await api.init();
  const reports = await runKats(api, load);
  assert.deepEqual(
    reports.map((r) => r.family),
    Object.keys(KAT_FAMILIES),
  );
  for (const r of reports) {
    await t.test(r.family, () => {
      assert.deepEqual(r.failures, [], `${r.family}: ${r.failures.length} failure(s)`);
      assert.ok(r.expected > 0, `${r.family}: no cases`);
      assert.equal(r.checked, r.expected, `${r.family}: checked ${r.checked} of ${r.expected}`);
    });
  }
});

test('seed full E2EE flow (Node)', async () => {
  await api.init();
  const r = await runFlow(api);
  assert.equal(r.message, '');
  assert.ok(r.ok);
});

test('messaging adversarial cases (Node)', async (t) => {
  await api.init();
  const results = await runAdversarial(api);
  assert.equal(results.length, ADVERSARIAL_CASE_COUNT);
  for (const r of results) {
    await t.test(r.name, () => {
      assert.equal(r.message, '', r.name);
      assert.ok(r.ok, r.name);
    });
  }
});

// Issue 13: the regenerated / new KAT values and a live SAS exchange, re-derived with
// @noble/hashes (an implementation independent of the wasm core) straight from docs/PROTOCOL.md.
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const cat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
};
const u32 = (n: number): Uint8Array => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n);
  return b;
};
const u64 = (n: number): Uint8Array => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n));
  return b;
};
const lp32 = (b: Uint8Array): Uint8Array => cat(u32(b.length), b);
type Obj = Record<string, unknown>;
type Keys = { ed25519: string; x25519: string; mlDsa65: string | null };
const identity = (k: Keys): Uint8Array =>
  k.mlDsa65 === null ? cat(new Uint8Array([0]), fromHex(k.ed25519), fromHex(k.x25519)) : cat(new Uint8Array([1]), fromHex(k.ed25519), fromHex(k.mlDsa65), fromHex(k.x25519));

test('issue 13 KATs re-derived with @noble/hashes (Node)', async () => {
  await api.init();
  const doc = JSON.parse(await load('vectors/messaging/kat.json')) as { families: Record<string, { input: Obj; expected: Obj }[]> };
  const fam = (f: string): { input: Obj; expected: Obj }[] => doc.families[f] ?? [];
  // Transcript v2.
  for (const { input, expected } of fam('transcript')) {
    let chain = sha256(cat(enc('veilkit-transcript-v2/new'), lp32(fromHex(input.sessionId as string))));
    assert.equal(toHex(chain), expected.h0);
    (input.messages as Obj[]).forEach((m, k) => {
      const h = sha256(cat(enc('veilkit-transcript-v2/message'), lp32(fromHex(m.messageId as string)), lp32(fromHex(m.senderId as string)), u64(m.timestamp as number), lp32(fromHex(m.ciphertext as string))));
      assert.equal(toHex(h), (expected.messageHashes as string[])[k]);
      chain = sha256(cat(enc('veilkit-transcript-v2/update'), chain, h));
      assert.equal(toHex(chain), (expected.chain as string[])[k]);
    });
  }
  // Static verification code v2.
  assert.equal(fam('verificationCode').length, 2);
  for (const { input, expected } of fam('verificationCode')) {
    const a = identity(input.a as Keys);
    const b = identity(input.b as Keys);
    assert.equal(toHex(a), expected.identityA);
    assert.equal(toHex(b), expected.identityB);
    const [lo, hi] = Buffer.compare(a, b) <= 0 ? [a, b] : [b, a];
    const body = cat(lp32(fromHex(input.conversationId as string)), lp32(lo), lp32(hi));
    const h = (i: number): Uint8Array => sha256(cat(enc('veilkit-verification-v2'), new Uint8Array([i]), body));
    const d = cat(h(0), h(1));
    const groups = Array.from({ length: 12 }, (_, j) => {
      let v = 0n;
      for (const x of d.subarray(5 * j, 5 * j + 5)) v = (v << 8n) | BigInt(x);
      return (v % 100000n).toString().padStart(5, '0');
    });
    assert.equal(groups.join(' '), expected.numeric);
    assert.equal(toHex(h(2)), expected.fingerprint);
  }
  // SAS.
  assert.equal(fam('sas').length, 2);
  for (const { input, expected } of fam('sas')) {
    const init = identity(input.initiator as Keys);
    const resp = identity(input.responder as Keys);
    const tx = fromHex(input.txId as string);
    const c = sha256(cat(enc('veilkit-sas-commit-v1'), lp32(tx), lp32(resp), fromHex(input.responderNonce as string)));
    assert.equal(toHex(c), expected.commitment);
    const sas = sha256(cat(enc('veilkit-sas-v1'), lp32(tx), lp32(init), lp32(resp), fromHex(input.initiatorNonce as string), fromHex(input.responderNonce as string)));
    assert.equal(toHex(sas), expected.sas);
    assert.deepEqual(sasEmoji(sas), expected.emoji);
  }
  // Key log v2: every entry hash and the proof-of-possession message layout.
  for (const { expected } of fam('keyLog')) {
    const entries = JSON.parse(expected.json as string) as Record<string, string | number>[];
    let prev = new Uint8Array(32);
    entries.forEach((e, k) => {
      const b64 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'base64url'));
      assert.equal(e.version, 2);
      const user = b64(e.userId as string);
      const action = { add: 1, update: 2, revoke: 3 }[e.action as 'add'];
      const body = cat(enc('veilkit-keylog-v2'), new Uint8Array([action, user.length >> 8, user.length & 255]), user, b64(e.publicKey as string), u64(e.timestamp as number), prev);
      assert.equal(e.keySignature !== undefined, e.action !== 'revoke');
      assert.equal(api.verifySignature(b64(e.publicKey as string), cat(enc('veilkit-keylog-pop-v2'), body), b64((e.keySignature ?? e.signature) as string)), e.action !== 'revoke');
      prev = sha256(cat(body, b64(e.signature as string), e.keySignature === undefined ? new Uint8Array(0) : b64(e.keySignature as string)));
      assert.equal(toHex(prev), (expected.entryHashes as string[])[k]);
    });
  }
});

test('a live SAS exchange matches @noble/hashes (Node)', async () => {
  await api.init();
  const alice = { ed25519: new Uint8Array(32).fill(1), x25519: new Uint8Array(32).fill(2), mlDsa65: new Uint8Array(1952).fill(3) };
  const bob = { ed25519: new Uint8Array(32).fill(4), x25519: new Uint8Array(32).fill(5) };
  const init = new api.SasVerification({ role: 'initiator', ownIdentity: alice, peerIdentity: bob });
  const resp = new api.SasVerification({ role: 'responder', ownIdentity: bob, peerIdentity: alice });
  try {
    const tx = enc('live-tx');
    init.start(tx);
    const c = resp.start(tx);
    assert.ok(c !== null);
    const ni = init.receiveCommitment(c);
    const nr = resp.receiveNonce(ni);
    assert.ok(nr !== null);
    assert.equal(init.receiveNonce(nr), null);
    assert.equal(ni.length, 32);
    assert.notDeepEqual(ni, nr);
    const encA = cat(new Uint8Array([1]), alice.ed25519, alice.mlDsa65, alice.x25519);
    const encB = cat(new Uint8Array([0]), bob.ed25519, bob.x25519);
    assert.deepEqual(api.encodeVerificationIdentity(alice), encA);
    assert.equal(toHex(c), toHex(sha256(cat(enc('veilkit-sas-commit-v1'), lp32(tx), lp32(encB), nr))));
    const expected = sasEmoji(sha256(cat(enc('veilkit-sas-v1'), lp32(tx), lp32(encA), lp32(encB), ni, nr)));
    assert.deepEqual(init.emoji(), expected);
    assert.deepEqual(resp.emoji(), expected);
    init.confirm();
    assert.equal(init.state, 'verified');
  } finally {
    init.free();
    resp.free();
  }
});
