// The stateful session handle (ts/session/state.ts, crate/src/wasm/session/state.rs) in Node:
// argument checks before wasm, the same results as the byte-level path of ts/session/core.ts
// (decrypt is deterministic, so the states compare byte for byte), a failed decrypt leaving the
// state usable, toBytes -> fromBytes continuing the session, and a disposed handle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { init } from '../../ts/init.js';
import * as core from '../../ts/session/core.js';
import { SessionState } from '../../ts/session/state.js';
import { SIM_NOW, handshake, prng } from '../shared/session-sim.js';
import { code } from '../shared/session-fixtures.js';

const te = new TextEncoder();
const td = new TextDecoder();
const NOW = SIM_NOW;

/** Initiator and responder states after a handshake (the responder can send). */
function pair(seed: number): { a: Uint8Array; b: Uint8Array } {
  const failures: string[] = [];
  const h = handshake(core, prng(seed), false, failures);
  assert.deepEqual(failures, []);
  return { a: h.initiator.state, b: h.responder.state };
}

// Runs before init(): a check that reached wasm would throw NOT_INITIALIZED instead.
test('argument checks throw TypeError / RangeError before anything reaches wasm', () => {
  // An empty state is malformed input (issue 34 item 4), refused before wasm all the same.
  assert.equal(code(() => SessionState.fromBytes(new Uint8Array(0))), 'MALFORMED_INPUT');
  assert.throws(() => SessionState.fromBytes('x' as unknown as Uint8Array), TypeError);
  assert.equal(code(() => SessionState.fromBytes(new Uint8Array(1))), 'NOT_INITIALIZED');
});

test('the handle agrees with the byte-level path (same states after decrypt, messages that decrypt either way)', async () => {
  await init();
  const { a, b } = pair(21);
  const aad = te.encode('conversation 21');
  using ha = SessionState.fromBytes(a);
  using hb = SessionState.fromBytes(b);
  assert.deepEqual(ha.toBytes(), a, 'fromBytes -> toBytes re-encodes the same bytes');
  assert.deepEqual(hb.toBytes(), b);
  let sa = a;
  let sb = b;
  // Both directions many times: a protocol-2 PQ epoch completes after up to 71 messages each way in
  // ping-pong (docs/SESSIONS.md §5.11), so 60 rounds of 3 messages each way cover at least two.
  for (let round = 0; round < 60; round++) {
    for (const [from, to, label] of [
      ['b', 'a', 'B->A'],
      ['a', 'b', 'A->B'],
    ] as const) {
      for (let i = 0; i < 3; i++) {
        const text = `${label} round ${round} message ${i}`;
        const plaintext = te.encode(text);
        const copy = plaintext.slice();
        const sender = from === 'a' ? ha : hb;
        const receiver = to === 'a' ? ha : hb;
        const message = sender.encrypt(plaintext, { aad, now: NOW });
        assert.deepEqual(plaintext, copy, 'caller buffer not mutated');
        // The byte-level receiver state decrypts the handle's message to the same state as the handle.
        const before = to === 'a' ? sa : sb;
        const d = core.decrypt(before, message, { aad, now: NOW });
        assert.equal(td.decode(receiver.decrypt(message, { aad, now: NOW })), text);
        assert.equal(td.decode(d.plaintext), text);
        assert.deepEqual(receiver.toBytes(), d.state, `${text}: receiver states equal`);
        assert.equal(receiver.counter(), d.counter);
        if (to === 'a') sa = d.state;
        else sb = d.state;
        // The sender's byte-level copy follows the handle's state.
        if (from === 'a') sa = ha.toBytes();
        else sb = hb.toBytes();
        assert.equal(core.stateInfo(from === 'a' ? sa : sb).counter, sender.counter());
      }
    }
  }
  // A message from the byte-level path decrypts in the handle, too.
  const e = core.encrypt(sb, te.encode('from bytes'), { aad, now: NOW });
  assert.equal(td.decode(ha.decrypt(e.message, { aad, now: NOW })), 'from bytes');
  assert.ok(core.stateInfo(ha.toBytes()).pqEpoch >= 2, 'several PQ epochs went by');
});

test('a failed decrypt leaves the state exactly as it was; the genuine message still decrypts', async () => {
  await init();
  const { a, b } = pair(22);
  const aad = te.encode('c');
  using ha = SessionState.fromBytes(a);
  using hb = SessionState.fromBytes(b);
  // The first message of a new chain (a DH step and a PQ ct): the most state a failure could touch.
  const message = hb.encrypt(te.encode('genuine'), { aad, now: NOW });
  const before = ha.toBytes();
  const counter = ha.counter();
  for (const i of [0, 40, 100, message.length - 20, message.length - 1]) {
    const t = message.slice();
    t[i] = (t[i] ?? 0) ^ 0x01;
    const c = code(() => ha.decrypt(t, { aad, now: NOW }));
    assert.ok(['AUTHENTICATION_FAILED', 'MALFORMED_INPUT', 'TOO_FAR_AHEAD', 'INVALID_KEY'].includes(c), `byte ${i}: ${c}`);
    assert.deepEqual(ha.toBytes(), before, `byte ${i}: state unchanged`);
    assert.equal(ha.counter(), counter);
  }
  assert.equal(code(() => ha.decrypt(message, { aad: te.encode('d'), now: NOW })), 'AUTHENTICATION_FAILED');
  assert.deepEqual(ha.toBytes(), before, 'wrong aad: state unchanged');
  assert.equal(td.decode(ha.decrypt(message, { aad, now: NOW })), 'genuine');
  assert.equal(ha.counter(), counter + 1);
  assert.equal(code(() => ha.decrypt(message, { aad, now: NOW })), 'DUPLICATE_MESSAGE');
  assert.equal(ha.counter(), counter + 1, 'a replay changes nothing');
  // Argument errors on a live handle do not reach wasm; a message too short to be one is MALFORMED_INPUT.
  assert.equal(code(() => ha.decrypt(new Uint8Array(141), { aad, now: NOW })), 'MALFORMED_INPUT');
  assert.equal(ha.counter(), counter + 1, 'a short message changes nothing');
  assert.throws(() => ha.encrypt(new Uint8Array(1), { now: -1 }), RangeError);
  assert.throws(() => ha.encrypt(new Uint8Array(1), null as unknown as { now: number }), TypeError);
  assert.throws(() => ha.encrypt(new Uint8Array(1), { now: NOW, aad: 'x' as unknown as Uint8Array }), TypeError);
});

test('toBytes -> fromBytes continues the session; a state that does not parse is refused', async () => {
  await init();
  const { a, b } = pair(23);
  const aad = te.encode('c');
  const ha = SessionState.fromBytes(a);
  const hb = SessionState.fromBytes(b);
  const m1 = hb.encrypt(te.encode('one'), { aad, now: NOW });
  assert.equal(td.decode(ha.decrypt(m1, { aad, now: NOW })), 'one');
  // Save both (own ML-KEM ek pending on one side), drop the handles, load again.
  const [sa, sb] = [ha.toBytes(), hb.toBytes()];
  ha.dispose();
  hb.dispose();
  using la = SessionState.fromBytes(sa);
  using lb = SessionState.fromBytes(sb);
  assert.deepEqual(la.toBytes(), sa);
  const m2 = la.encrypt(te.encode('two'), { aad, now: NOW });
  assert.equal(td.decode(lb.decrypt(m2, { aad, now: NOW })), 'two');
  const m3 = lb.encrypt(te.encode('three'), { aad, now: NOW });
  assert.equal(td.decode(la.decrypt(m3, { aad, now: NOW })), 'three');
  assert.equal(code(() => SessionState.fromBytes(new Uint8Array(9))), 'MALFORMED_INPUT');
  const trailing = new Uint8Array(sa.length + 1);
  trailing.set(sa);
  assert.equal(code(() => SessionState.fromBytes(trailing)), 'MALFORMED_INPUT');
});

test('a disposed handle throws INVALID_STATE from every method; dispose is idempotent', async () => {
  await init();
  const { a } = pair(24);
  const h = SessionState.fromBytes(a);
  h.dispose();
  h.dispose();
  h.free();
  const msg = new Uint8Array(200);
  for (const [name, fn] of [
    ['encrypt', () => h.encrypt(new Uint8Array(1), { now: NOW })],
    ['decrypt', () => h.decrypt(msg, { now: NOW })],
    ['toBytes', () => h.toBytes()],
    ['counter', () => h.counter()],
  ] as const) {
    assert.equal(code(fn), 'INVALID_STATE', name);
  }
  const scoped = SessionState.fromBytes(a);
  {
    using u = scoped;
    assert.ok(u.counter() >= 1);
  }
  assert.equal(code(() => scoped.toBytes()), 'INVALID_STATE', '`using` disposed it');
});
