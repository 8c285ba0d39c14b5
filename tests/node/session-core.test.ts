// PQ chat sessions through the byte-level wasm wrapper (ts/session/core.ts) in
// Node: argument checks before wasm, the handshake round trip with and without
// one-time prekeys, refusals (bad bundle signature, a missing one-time prekey
// secret, tampering, wrong aad, a jump over the limit) and the randomized
// two-party simulation of tests/shared/session-sim.ts (1,000 messages).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { init } from '../../ts/init.js';
import { VeilError } from '../../protocol/errors.js';
import * as core from '../../ts/session/core.js';
import { signMessage } from '../../ts/ed25519.js';
import { mlDsaSign } from '../../ts/mldsa.js';
import { SIM_NOW, handshake, prng, runSessionSimulation } from '../shared/session-sim.js';
import { code, peer, type Peer } from '../shared/session-fixtures.js';
import { sha256 } from '../../ts/hash.js';
import { concatBytes } from '../../ts/bytes.js';
import { asFormat2 } from '../shared/state-format2.js';

const te = new TextEncoder();
const td = new TextDecoder();
const NOW = SIM_NOW;
const DAY = 86_400;


function bundleOf(p: Peer, deviceId: number, oneTime: { x25519?: boolean; mlkem?: boolean } = {}): Uint8Array {
  return core.encodeBundle({
    identity: p.identity.encoding,
    deviceId,
    signedPrekey: p.spk.record,
    pqLastResort: p.pq.record,
    ...(oneTime.x25519 === true ? { oneTimeX25519: p.opk.record } : {}),
    ...(oneTime.mlkem === true ? { oneTimeMlkem: p.otk.record } : {}),
  });
}

/** The secrets a responder looks up for an initial message. */
function secretsFor(p: Peer, info: core.InitialMessageInfo): { signedPrekeySecret: Uint8Array; pqPrekeySecret: Uint8Array; oneTimePrekeySecret?: Uint8Array } {
  return {
    signedPrekeySecret: p.spk.secret,
    pqPrekeySecret: info.pqPrekeyKind === 'mlkem-one-time' ? p.otk.secret : p.pq.secret,
    ...(info.oneTimePrekeyId === undefined ? {} : { oneTimePrekeySecret: p.opk.secret }),
  };
}

const seeds32 = (): core.IdentitySeeds => ({ ed25519: new Uint8Array(32), mlDsa: new Uint8Array(32), x25519: new Uint8Array(32) });

// Runs before init(): a check that reached wasm would throw NOT_INITIALIZED instead.
test('argument checks throw TypeError / RangeError (malformed untrusted bytes: MALFORMED_INPUT) before anything reaches wasm', () => {
  const s = seeds32();
  assert.throws(() => core.sessionIdentity({ ...s, mlDsa: new Uint8Array(31) }), RangeError);
  assert.throws(() => core.sessionIdentity({ ...s, x25519: [1, 2] as unknown as Uint8Array }), TypeError);
  assert.throws(() => core.sessionIdentity(null as unknown as core.IdentitySeeds), TypeError);
  assert.throws(() => core.generatePrekey(s, 'x25519-signed', 2 ** 32, 1, 2), RangeError);
  assert.throws(() => core.generatePrekey(s, 'x25519-signed', 1.5, 1, 2), TypeError);
  assert.throws(() => core.generatePrekey(s, 'rsa' as core.PrekeyKind, 1, 1, 2), RangeError);
  assert.throws(() => core.generatePrekey(s, 'x25519-signed', 1, 2, 2), RangeError);
  assert.throws(() => core.generatePrekey(s, 'x25519-signed', 1, -1, 2), RangeError);
  const id = new Uint8Array(2017);
  const spk = new Uint8Array(3426);
  const pq = new Uint8Array(4578);
  assert.throws(() => core.encodeBundle({ identity: new Uint8Array(2016), deviceId: 1, signedPrekey: spk, pqLastResort: pq }), RangeError);
  assert.throws(() => core.encodeBundle({ identity: id, deviceId: 1, signedPrekey: pq, pqLastResort: pq }), RangeError);
  assert.throws(() => core.encodeBundle({ identity: id, deviceId: 1, signedPrekey: spk, pqLastResort: spk }), RangeError);
  assert.throws(() => core.encodeBundle({ identity: id, deviceId: -1, signedPrekey: spk, pqLastResort: pq }), RangeError);
  assert.throws(() => core.encodeBundle({ identity: id, deviceId: 1, versions: new Uint8Array(0), signedPrekey: spk, pqLastResort: pq }), RangeError);
  assert.throws(() => core.encodeBundle({ identity: id, deviceId: 1, signedPrekey: spk, pqLastResort: pq, oneTimeX25519: pq }), RangeError);
  // Untrusted bytes of an impossible length are malformed input (issue 34 item 4), refused before wasm too.
  assert.equal(code(() => core.verifyBundle(new Uint8Array(10_032), NOW)), 'MALFORMED_INPUT');
  assert.equal(code(() => core.verifyBundle(new Uint8Array(18_053), NOW)), 'MALFORMED_INPUT');
  assert.throws(() => core.verifyBundle(new Uint8Array(10_033), NOW, new Uint8Array(32)), RangeError);
  assert.throws(() => core.verifyBundle(new Uint8Array(10_033), Number.NaN), TypeError);
  assert.equal(code(() => core.initialMessageInfo(new Uint8Array(3231))), 'MALFORMED_INPUT');
  assert.equal(code(() => core.initiate(s, 1, new Uint8Array(10_032), { now: NOW })), 'MALFORMED_INPUT');
  const bundle = new Uint8Array(10_033);
  assert.throws(() => core.initiate(s, 1, bundle, { now: -1 }), RangeError);
  assert.throws(() => core.initiate(s, 1, bundle, { now: NOW, plaintext: 'x' as unknown as Uint8Array }), TypeError);
  assert.throws(() => core.initiate(s, 1, bundle, { now: NOW, limits: { maxJump: 0 } }), RangeError);
  assert.throws(() => core.initiate(s, 1, bundle, { now: NOW, limits: { maxReceivingChains: 65 } }), RangeError);
  const im = new Uint8Array(3232);
  const ok = { now: NOW, signedPrekeySecret: new Uint8Array(32), pqPrekeySecret: new Uint8Array(2400) };
  assert.throws(() => core.respond(s, 1, im, { ...ok, signedPrekeySecret: new Uint8Array(33) }), RangeError);
  assert.throws(() => core.respond(s, 1, im, { ...ok, pqPrekeySecret: new Uint8Array(1184) }), RangeError);
  assert.throws(() => core.respond(s, 1, im, { ...ok, oneTimePrekeySecret: new Uint8Array(0) }), RangeError);
  assert.throws(() => core.respond(s, 1, im, { ...ok, aad: 'x' as unknown as Uint8Array }), TypeError);
  assert.equal(code(() => core.encrypt(new Uint8Array(0), new Uint8Array(1), { now: NOW })), 'MALFORMED_INPUT');
  assert.throws(() => core.encrypt(new Uint8Array(9), 'x' as unknown as Uint8Array, { now: NOW }), TypeError);
  assert.throws(() => core.encrypt(new Uint8Array(9), new Uint8Array(1), { now: 1.5 }), TypeError);
  assert.equal(code(() => core.decrypt(new Uint8Array(9), new Uint8Array(141), { now: NOW })), 'MALFORMED_INPUT');
  assert.equal(code(() => core.respond(s, 1, new Uint8Array(3231), ok)), 'MALFORMED_INPUT');
  assert.equal(code(() => core.stateInfo(new Uint8Array(0))), 'MALFORMED_INPUT');
  // With valid arguments the call does reach wasm (and fails there, before init).
  assert.equal(code(() => core.sessionIdentity(s)), 'NOT_INITIALIZED');
});

test('handshake round trip, with and without one-time prekeys; replayDigest only without them', async () => {
  await init();
  const a = peer(1);
  const b = peer(2);
  for (const oneTime of [{}, { x25519: true }, { mlkem: true }, { x25519: true, mlkem: true }]) {
    const label = JSON.stringify(oneTime);
    const bundle = bundleOf(b, 77, oneTime);
    const info = core.verifyBundle(bundle, NOW, b.identity.encoding);
    assert.deepEqual(info.identity, b.identity.encoding);
    assert.deepEqual(info.identityId, b.identity.id);
    assert.equal(info.deviceId, 77);
    assert.deepEqual(info.versions, Uint8Array.of(1, 2));
    assert.equal(info.signedPrekeyId, 10);
    assert.equal(info.pqLastResortId, 11);
    assert.equal(info.oneTimeX25519Id, oneTime.x25519 === true ? 12 : undefined, label);
    assert.equal(info.oneTimeMlkemId, oneTime.mlkem === true ? 13 : undefined, label);
    assert.equal(info.expires, NOW + 30 * DAY);

    const plaintext = te.encode(`first ${label}`);
    const plaintextCopy = plaintext.slice();
    const aad = te.encode('conversation 1');
    const init1 = core.initiate(a.seeds, 5, bundle, { now: NOW, pinned: b.identity.encoding, plaintext, aad });
    assert.deepEqual(plaintext, plaintextCopy, 'caller buffer not mutated');
    assert.deepEqual(init1.peerIdentity, b.identity.encoding);
    assert.equal(init1.peerDeviceId, 77);
    assert.equal(init1.version, 2); // both bundles list [1, 2]: format 2 (SESSIONS.md §5.11)
    assert.equal(init1.counter, 1);

    const mi = core.initialMessageInfo(init1.initialMessage);
    assert.equal(mi.version, 2);
    assert.deepEqual(mi.initiatorIdentity, a.identity.encoding);
    assert.equal(mi.initiatorDeviceId, 5);
    assert.deepEqual(mi.responderIdentityId, b.identity.id);
    assert.equal(mi.responderDeviceId, 77);
    assert.equal(mi.signedPrekeyId, 10);
    assert.equal(mi.pqPrekeyKind, oneTime.mlkem === true ? 'mlkem-one-time' : 'mlkem-last-resort', label);
    assert.equal(mi.pqPrekeyId, oneTime.mlkem === true ? 13 : 11);
    assert.equal(mi.oneTimePrekeyId, oneTime.x25519 === true ? 12 : undefined);
    const noOneTime = oneTime.x25519 !== true && oneTime.mlkem !== true;
    assert.equal(mi.replayDigest !== undefined, noOneTime, `${label}: replayDigest present iff no one-time prekey`);
    if (mi.replayDigest !== undefined) assert.equal(mi.replayDigest.length, 32);

    const r = core.respond(b.seeds, 77, init1.initialMessage, { now: NOW, pinned: a.identity.encoding, aad, ...secretsFor(b, mi) });
    assert.equal(td.decode(r.plaintext), `first ${label}`);
    assert.deepEqual(r.peerIdentity, a.identity.encoding);
    assert.equal(r.peerDeviceId, 5);
    assert.equal(r.version, 2);
    assert.equal(r.counter, 1);
    assert.deepEqual(r.consumed, {
      ...(oneTime.x25519 === true ? { oneTimeX25519: 12 } : {}),
      ...(oneTime.mlkem === true ? { oneTimeMlkem: 13 } : {}),
    });
    assert.deepEqual(r.replayDigest, mi.replayDigest);

    const back = core.encrypt(r.state, te.encode('reply'), { aad, now: NOW });
    assert.equal(back.counter, 2);
    const d = core.decrypt(init1.state, back.message, { aad, now: NOW });
    assert.equal(td.decode(d.plaintext), 'reply');
    assert.equal(d.counter, 2);

    const si = core.stateInfo(d.state);
    const sr = core.stateInfo(back.state);
    assert.equal(si.role, 'initiator');
    assert.equal(sr.role, 'responder');
    assert.equal(si.counter, 2);
    assert.equal(si.version, 2);
    // State format 3: the state binds both identities by H_ID; each side's handshake returns its own Enc(ID).
    const hId = sha256(concatBytes([a.identity.encoding, b.identity.encoding]));
    assert.deepEqual(si.identitiesHash, hId);
    assert.deepEqual(sr.identitiesHash, hId);
    assert.deepEqual(init1.localIdentity, a.identity.encoding);
    assert.deepEqual(r.localIdentity, b.identity.encoding);
    assert.deepEqual(r.peerIdentity, a.identity.encoding);
    core.checkIdentities(si, a.identity.encoding, b.identity.encoding);
    assert.equal(si.pqEpoch, 0, 'protocol 2: epoch 1 needs 37 ek chunks and 34 ct chunks (SESSIONS.md §5.11)');
    assert.equal(si.receivingChains, 1);
    assert.equal(si.skippedKeys, 0);
  }
});

test('the shared handshake helper agrees (no one-time prekeys, replay digest)', async () => {
  await init();
  const failures: string[] = [];
  handshake(core, prng(9), false, failures);
  handshake(core, prng(10), true, failures);
  assert.deepEqual(failures, []);
});

test('a bundle with a bad prekey signature is refused (BUNDLE_INVALID); pins and expiry are checked', async () => {
  await init();
  const a = peer(3);
  const b = peer(4);
  const bundle = bundleOf(b, 1);
  // Signed prekey record at 4 + 1 + 2017 + 4 + 2 = 2028; its Ed25519 signature after a 21-byte head and a 32-byte key.
  for (const offset of [2028 + 21 + 32 + 5, 2028 + 21 + 32 + 64 + 100]) {
    const bad = bundle.slice();
    bad[offset] = (bad[offset] ?? 0) ^ 1;
    assert.equal(code(() => core.verifyBundle(bad, NOW)), 'BUNDLE_INVALID');
    assert.equal(code(() => core.initiate(a.seeds, 1, bad, { now: NOW })), 'BUNDLE_INVALID');
  }
  assert.equal(code(() => core.verifyBundle(bundle, NOW, a.identity.encoding)), 'IDENTITY_MISMATCH');
  assert.equal(code(() => core.verifyBundle(bundle, NOW + 30 * DAY)), 'PREKEY_EXPIRED');
  // A record in the wrong slot.
  assert.equal(
    code(() => core.encodeBundle({ identity: b.identity.encoding, deviceId: 1, signedPrekey: b.opk.record, pqLastResort: b.pq.record })),
    'BUNDLE_INVALID',
  );
  // A classical identity encoding (flags 0) is refused.
  const classical = b.identity.encoding.slice();
  classical[0] = 0;
  assert.notEqual(code(() => core.encodeBundle({ identity: classical, deviceId: 1, signedPrekey: b.spk.record, pqLastResort: b.pq.record })), '');
});

/**
 * `record` with other dates, signed again with the identity's own seeds (the signed bytes of
 * docs/SESSIONS.md §2.2: label ‖ the record's 21-byte head ‖ identity id ‖ key): what whoever gets
 * the identity to sign once can make, whatever the keystore's policy.
 */
function redated(p: Peer, record: Uint8Array, created: bigint, expires: bigint): Uint8Array {
  const out = record.slice();
  const view = new DataView(out.buffer);
  view.setBigUint64(5, created);
  view.setBigUint64(13, expires);
  const keyEnd = 21 + (out[0] === 1 || out[0] === 2 ? 32 : 1184);
  const label = te.encode('veilkit-prekey-v1');
  const signed = new Uint8Array([...label, ...out.subarray(0, 21), ...p.identity.id, ...out.subarray(21, keyEnd)]);
  out.set(signMessage(p.seeds.ed25519, signed), keyEnd);
  out.set(mlDsaSign(p.seeds.mlDsa, signed, { context: label, deterministic: true }), keyEnd + 64);
  return out;
}

// Issue 34 item 1: a prekey signed once with `expires` = 2^64 − 1 used to verify, so it outlived the
// signing for good. The core caps `expires − created` at 90 days and `created` at `now` + 1 day
// (crate/tests/prekey_lifetime.rs); this runs against the wasm build.
test('a bundle whose prekey expires at 2^64 − 1, or lives over 90 days, is refused (BUNDLE_INVALID)', async () => {
  await init();
  const a = peer(21);
  const b = peer(22);
  const created = BigInt(NOW - DAY);
  const withSpk = (spk: Uint8Array) => core.encodeBundle({ identity: b.identity.encoding, deviceId: 3, signedPrekey: spk, pqLastResort: b.pq.record });
  const withPq = (pq: Uint8Array) => core.encodeBundle({ identity: b.identity.encoding, deviceId: 3, signedPrekey: b.spk.record, pqLastResort: pq });
  // The re-signing is sound: the same dates, signed again, still verify; 90 days is the cap, included.
  assert.equal(core.verifyBundle(withSpk(redated(b, b.spk.record, created, BigInt(NOW + 30 * DAY))), NOW).expires, NOW + 30 * DAY);
  assert.equal(core.verifyBundle(withPq(redated(b, b.pq.record, created, created + 90n * 86_400n)), NOW).expires, NOW + 30 * DAY);
  for (const expires of [2n ** 64n - 1n, created + 90n * 86_400n + 1n]) {
    for (const bundle of [withSpk(redated(b, b.spk.record, created, expires)), withPq(redated(b, b.pq.record, created, expires))]) {
      assert.equal(code(() => core.verifyBundle(bundle, NOW)), 'BUNDLE_INVALID', `expires ${expires}`);
      assert.equal(code(() => core.initiate(a.seeds, 1, bundle, { now: NOW })), 'BUNDLE_INVALID', `expires ${expires}`);
    }
  }
  // A short lifetime moved far into the future is refused too.
  const future = BigInt(NOW + 3650 * DAY);
  assert.equal(code(() => core.verifyBundle(withSpk(redated(b, b.spk.record, future, future + 86_400n)), NOW)), 'BUNDLE_INVALID');
  // Signing refuses the over-long lifetime.
  assert.equal(code(() => core.generatePrekey(b.seeds, 'x25519-signed', 30, NOW, NOW + 90 * DAY + 1)), 'INVALID_PARAMETER');
});

test('a one-time prekey whose secret is gone: PREKEY_NOT_FOUND (consumption is the caller\'s job)', async () => {
  await init();
  const a = peer(5);
  const b = peer(6);
  const bundle = bundleOf(b, 2, { x25519: true, mlkem: true });
  const i = core.initiate(a.seeds, 1, bundle, { now: NOW });
  const mi = core.initialMessageInfo(i.initialMessage);
  const secrets = secretsFor(b, mi);
  // The keystore deleted the one-time X25519 prekey when its first session was stored.
  const withoutOneTime = { signedPrekeySecret: secrets.signedPrekeySecret, pqPrekeySecret: secrets.pqPrekeySecret };
  assert.equal(code(() => core.respond(b.seeds, 2, i.initialMessage, { now: NOW, ...withoutOneTime })), 'PREKEY_NOT_FOUND');
  // The wrong ML-KEM secret (the last-resort one for a one-time encapsulation) fails authentication.
  assert.equal(code(() => core.respond(b.seeds, 2, i.initialMessage, { now: NOW, ...secrets, pqPrekeySecret: b.pq.secret })), 'AUTHENTICATION_FAILED');
  // Addressed to another device.
  assert.equal(code(() => core.respond(b.seeds, 3, i.initialMessage, { now: NOW, ...secrets })), 'IDENTITY_MISMATCH');
  // The wrapper is one-shot: with the secrets it answers (so the caller must delete consumed prekeys).
  const r = core.respond(b.seeds, 2, i.initialMessage, { now: NOW, ...secrets });
  assert.deepEqual(r.consumed, { oneTimeX25519: 12, oneTimeMlkem: 13 });
  assert.equal(r.replayDigest, undefined);
});

test('tampered messages fail with the state unchanged; the genuine one still decrypts; wrong aad fails', async () => {
  await init();
  const a = peer(7);
  const b = peer(8);
  const aad = te.encode('aad');
  const i = core.initiate(a.seeds, 1, bundleOf(b, 9), { now: NOW, aad });
  const mi = core.initialMessageInfo(i.initialMessage);
  // Wrong aad on the first message: the responder refuses it.
  assert.equal(code(() => core.respond(b.seeds, 9, i.initialMessage, { now: NOW, ...secretsFor(b, mi), aad: te.encode('other') })), 'AUTHENTICATION_FAILED');
  const r = core.respond(b.seeds, 9, i.initialMessage, { now: NOW, ...secretsFor(b, mi), aad });
  let aState = i.state;
  // Format 2 (both bundles list [1, 2]): the responder's first message carries no PQ chunk yet
  // (it has fewer than 37 chunks of ek_1; SESSIONS.md §5.11).
  const m = core.encrypt(r.state, te.encode('one'), { aad, now: NOW }).message;
  const stateBefore = aState.slice();
  // version, ratchet key, PN, N, epoch, PQ kind, PQ data, nonce, ciphertext, tag.
  const offsets = [0, 1, 33, 37, 41, 49, 50, 50 + 12 + 100, m.length - 16 - 12 - 64, m.length - 20, m.length - 1];
  for (const off of offsets) {
    const bad = m.slice();
    bad[off] = (bad[off] ?? 0) ^ 0x40;
    const c = code(() => core.decrypt(aState, bad, { aad, now: NOW }));
    assert.ok(['AUTHENTICATION_FAILED', 'MALFORMED_INPUT', 'TOO_FAR_AHEAD', 'INVALID_KEY'].includes(c), `offset ${off}: ${c}`);
    assert.deepEqual(aState, stateBefore, `offset ${off}: caller state bytes unchanged`);
  }
  assert.equal(code(() => core.decrypt(aState, m.subarray(0, m.length - 1), { aad, now: NOW })), 'MALFORMED_INPUT', 'truncated');
  assert.equal(code(() => core.decrypt(aState, m, { now: NOW })), 'AUTHENTICATION_FAILED', 'missing aad');
  assert.equal(code(() => core.decrypt(aState, m, { aad: te.encode('aae'), now: NOW })), 'AUTHENTICATION_FAILED', 'wrong aad');
  assert.equal(core.stateInfo(aState).counter, 1, 'no failed call advanced the counter');
  const d = core.decrypt(aState, m, { aad, now: NOW });
  assert.equal(td.decode(d.plaintext), 'one');
  aState = d.state;
  assert.equal(code(() => core.decrypt(aState, m, { aad, now: NOW })), 'DUPLICATE_MESSAGE');
  // A state that does not parse.
  const junk = aState.slice();
  junk[0] = (junk[0] ?? 0) ^ 1;
  assert.equal(code(() => core.stateInfo(junk)), 'MALFORMED_INPUT');
  assert.equal(code(() => core.encrypt(junk, new Uint8Array(1), { now: NOW })), 'MALFORMED_INPUT');
});

test('limits: a jump over maxJump is TOO_FAR_AHEAD with { jump, limit }, state unchanged', async () => {
  await init();
  const a = peer(11);
  const b = peer(12);
  const i = core.initiate(a.seeds, 1, bundleOf(b, 9), { now: NOW, limits: { maxJump: 2 } });
  const mi = core.initialMessageInfo(i.initialMessage);
  const r = core.respond(b.seeds, 9, i.initialMessage, { now: NOW, ...secretsFor(b, mi), limits: { maxJump: 2, maxSkippedKeys: 10, maxReceivingChains: 2, maxSkippedAgeSecs: 60 } });
  let s = i.state;
  const sent: Uint8Array[] = [];
  for (let n = 0; n < 4; n++) {
    const e = core.encrypt(s, Uint8Array.of(n), { now: NOW });
    s = e.state;
    sent.push(e.message);
  }
  // The first message (N = 0) went in the initial message; N = 4 skips 3 keys.
  const last = sent[3] as Uint8Array;
  let caught: unknown;
  try {
    core.decrypt(r.state, last, { now: NOW });
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof VeilError);
  assert.equal(caught.code, 'TOO_FAR_AHEAD');
  assert.deepEqual({ jump: caught.details.jump, limit: caught.details.limit }, { jump: 3, limit: 2 });
  const d = core.decrypt(r.state, sent[1] as Uint8Array, { now: NOW });
  assert.deepEqual(d.plaintext, Uint8Array.of(1));
  assert.equal(core.stateInfo(d.state).skippedKeys, 1);
});

test('state format 3: identities checked against H_ID (a swapped or replaced peer identity is IDENTITY_MISMATCH); a format-2 state migrates with its identities', async () => {
  await init();
  const [a, b] = [peer(1), peer(2)];
  const init1 = core.initiate(a.seeds, 5, bundleOf(b, 77), { now: NOW, pinned: b.identity.encoding });
  const info = core.stateInfo(init1.state);
  assert.equal(core.stateFormat(init1.state), core.STATE_FORMAT);
  assert.ok(init1.state.length < 4_096, `no identity encoding inside (${init1.state.length} bytes)`);
  core.checkIdentities(info, a.identity.encoding, b.identity.encoding);
  const mallory = peer(3);
  const shifted = [concatBytes([a.identity.encoding, b.identity.encoding.subarray(0, 1)]), b.identity.encoding.subarray(1)] as const;
  for (const [name, i, r] of [
    ['peer replaced', a.identity.encoding, mallory.identity.encoding],
    ['swapped', b.identity.encoding, a.identity.encoding],
    ['boundary moved', shifted[0], shifted[1]],
    ['missing', a.identity.encoding, undefined],
  ] as const) {
    assert.equal(code(() => { core.checkIdentities(info, i, r); }), 'IDENTITY_MISMATCH', name);
  }
  // Format 2 is refused by every state entry point and migrated by migrateState.
  const old = asFormat2(init1.state, a.identity.encoding, b.identity.encoding);
  assert.equal(core.stateFormat(old), 2);
  assert.equal(code(() => core.stateInfo(old)), 'MALFORMED_INPUT');
  const m = core.migrateState(old);
  // The same state, except that the own pending ML-KEM key stays expanded (tag 2: its seed is not recoverable).
  assert.deepEqual(asFormat2(m.state, a.identity.encoding, b.identity.encoding), old);
  assert.equal(m.state.length, init1.state.length + 2400 - 64);
  const [mi, ii] = [core.stateInfo(m.state), core.stateInfo(init1.state)];
  assert.deepEqual([mi.counter, mi.role, mi.version, mi.identitiesHash], [ii.counter, ii.role, ii.version, ii.identitiesHash]);
  assert.deepEqual(m.initiatorIdentity, a.identity.encoding);
  assert.deepEqual(m.responderIdentity, b.identity.encoding);
  assert.equal(code(() => core.migrateState(init1.state)), 'MALFORMED_INPUT');
  // The migrated state keeps working.
  const e = core.encrypt(m.state, te.encode('after migration'), { now: NOW });
  assert.equal(e.counter, init1.counter + 1);
});

test('randomized two-party simulation: 1,000 messages with drops, duplicates and reordering', async () => {
  await init();
  const report = runSessionSimulation(core, 0x5e55_0001, 1000);
  assert.deepEqual(report.failures, []);
  assert.equal(report.messages, 1000);
  assert.equal(report.delivered + report.lost + report.dropped, 1000);
  assert.ok(report.delivered > 500, `delivered ${report.delivered}`);
  assert.ok(report.dropped > 0 && report.immediateDuplicates > 0 && report.lateDuplicates > 0, JSON.stringify(report));
  assert.ok(report.directionChanges > 100, `direction changes ${report.directionChanges}`);
});
