// Typed errors on untrusted bytes (issue 34 item 4): every entry point of the public API that takes
// bytes from someone else — session bundles, initial messages and ratchet messages (ts/session/,
// what the keystore worker runs for Session.*), stored session states, sealed boxes and exporter
// encapsulations (ts/sealed.ts), the messaging constructions' ciphertexts, packets, SAS messages,
// identity encodings and JSON forms (ts/messaging/) — is fed seeded mutations of genuine inputs:
// every truncation 0 … n − 1, bit flips, overwrites, extensions, random bytes and valid prefixes
// with garbage. Each call must succeed or throw a VeilError with a known code; a RangeError,
// TypeError or plain Error is a failure, counted per entry point (TypedErrors, tests/shared/mutate.ts).
// Wrong *types* (not a Uint8Array) stay TypeErrors: those are programming errors, not attacks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as P from '../../ts/primitives.js';
import * as core from '../../ts/session/core.js';
import { SessionState } from '../../ts/session/state.js';
import { open, openExport, seal, sealExport } from '../../ts/sealed.js';
import { generateMlKemKey } from '../../ts/mlkem-key.js';
import {
  ReplayStore, SasVerification, authenticatedKemDecapsulate, authenticatedKemEncapsulate, decryptAesGcmChunked, decryptAesGcmPadded,
  encodeVerificationIdentity, encryptAesGcmChunked, encryptAesGcmPadded, generateVerificationCode, hybridKemDecapsulate,
  hybridKemEncapsulate, keyLogCreateEntry, keyLogCurrentKey, keyLogEntryHash, keyLogFromJson, keyLogToJson, keyLogVerifyChain, padMessage,
  registryAddDevice, registryEmpty, registryListActive, registryVerify, sealMessage, unpadMessage, unsealMessage, KEY_LOG_GENESIS_HASH,
} from '../../ts/messaging.js';
import { Rng, TypedErrors, mutations, placed, sameBytes, type Case, type MutationPlan } from '../shared/mutate.js';
import { SIM_NOW } from '../shared/session-sim.js';
import { peer, type Peer } from '../shared/session-fixtures.js';

const te = new TextEncoder();
const td = new TextDecoder();
const NOW = SIM_NOW;

/** Every length, some of everything else: the plan of the small inputs. */
const FULL: MutationPlan = {
  bitFlips: 300, overwrites: 60, truncations: 0, everyTruncation: true, extensions: 12, random: 40, prefixGarbage: 40,
};
/** The same, with fewer cases that reach expensive work (signature checks, decapsulations). */
const COSTLY: MutationPlan = {
  bitFlips: 120, overwrites: 30, truncations: 0, everyTruncation: true, extensions: 8, random: 20, prefixGarbage: 20,
};

/** The mutants that differ from the seed (a random overwrite can write the byte that was there). */
function* changed(seed: Uint8Array, cases: Iterable<Case>): Generator<Case> {
  for (const c of cases) if (!sameBytes(c.input, seed)) yield c;
}

/**
 * Runs every mutation of `seed` (at a random offset inside a larger buffer half of the time) through
 * `fn`, then the genuine input, which must succeed (last: a stateful receiver would refuse the mutants
 * as duplicates after it).
 */
function fuzz(typed: TypedErrors, rng: Rng, entry: string, seed: Uint8Array, plan: MutationPlan, fn: (b: Uint8Array) => unknown): void {
  for (const c of changed(seed, mutations(rng, seed, plan))) typed.run(entry, c.kind, () => fn(placed(rng, c.input)));
  assert.equal(typed.run(entry, 'genuine', () => fn(placed(rng, seed))), 'ok', `${entry}: the genuine input`);
}

async function fuzzAsync(typed: TypedErrors, rng: Rng, entry: string, seed: Uint8Array, plan: MutationPlan, fn: (b: Uint8Array) => Promise<unknown>): Promise<void> {
  for (const c of changed(seed, mutations(rng, seed, plan))) await typed.runAsync(entry, c.kind, () => fn(placed(rng, c.input)));
  assert.equal(await typed.runAsync(entry, 'genuine', () => fn(placed(rng, seed))), 'ok', `${entry}: the genuine input`);
}

/** Text inputs (JSON forms): the same mutations applied to the UTF-8 bytes, decoded leniently. */
function fuzzText(typed: TypedErrors, rng: Rng, entry: string, seed: string, plan: MutationPlan, fn: (s: string) => unknown): void {
  const bytes = te.encode(seed);
  for (const c of changed(bytes, mutations(rng, bytes, plan))) typed.run(entry, c.kind, () => fn(td.decode(c.input)));
  assert.equal(typed.run(entry, 'genuine', () => fn(seed)), 'ok', `${entry}: the genuine input`);
}

function report(t: { diagnostic: (m: string) => void }, typed: TypedErrors, started: number): void {
  for (const line of typed.toString().split('\n')) t.diagnostic(line);
  t.diagnostic(`${[...typed.entries.values()].reduce((n, c) => n + c.cases, 0)} cases in ${(performance.now() - started).toFixed(0)} ms`);
}

/**
 * Every entry point ran, and none threw anything but a VeilError with a known code. The mutants
 * reached typed failures (not only "ok"), except at `reporters`, which answer a verdict instead.
 */
function assertTyped(typed: TypedErrors, entries: readonly string[], reporters: readonly string[] = []): void {
  assert.deepEqual([...typed.entries.keys()].sort(), [...entries].sort(), 'entry points exercised');
  const bad = [...typed.entries].filter(([, c]) => c.untyped > 0).map(([e, c]) => `${e}: ${c.untyped} of ${c.cases} (${c.examples.join(' | ')})`);
  assert.deepEqual(bad, [], 'untyped errors on untrusted bytes');
  for (const [e, c] of typed.entries) {
    if (!reporters.includes(e)) assert.ok(c.cases - (c.outcomes.ok ?? 0) >= 20, `${e}: too few mutants failed`);
  }
}

// ---------------------------------------------------------------- sessions


function bundleOf(p: Peer, oneTime: boolean): Uint8Array {
  return core.encodeBundle({
    identity: p.identity.encoding, deviceId: 9, signedPrekey: p.spk.record, pqLastResort: p.pq.record,
    ...(oneTime ? { oneTimeX25519: p.opk.record, oneTimeMlkem: p.otk.record } : {}),
  });
}

const SESSION_ENTRIES = [
  'session verifyBundle', 'session initiate (peer bundle)', 'session initialMessageInfo', 'session respond',
  'session decrypt', 'SessionState.decrypt', 'session stateInfo', 'SessionState.fromBytes',
];

test('fuzz: session bundles, initial messages, ratchet messages and states fail only with typed errors', { timeout: 120_000 }, async (t) => {
  await P.init();
  const started = performance.now();
  const rng = new Rng(0x34_0401);
  const typed = new TypedErrors();
  const alice = peer(0x34_a1);
  const bob = peer(0x34_b0);
  const aad = te.encode('aad');

  // Bundles: the smallest (no one-time prekeys, every truncation) and the largest kind.
  const small = bundleOf(bob, false);
  const large = bundleOf(bob, true);
  fuzz(typed, rng, 'session verifyBundle', small, COSTLY, (b) => core.verifyBundle(b, NOW));
  fuzz(typed, rng, 'session verifyBundle', large, { ...COSTLY, everyTruncation: false, truncations: 300 }, (b) => core.verifyBundle(b, NOW));
  fuzz(typed, rng, 'session initiate (peer bundle)', small, { bitFlips: 40, overwrites: 10, truncations: 200, extensions: 4, random: 10, prefixGarbage: 10 },
    (b) => core.initiate(alice.seeds, 1, b, { now: NOW, aad }));

  // The initial message (one-time prekeys: the responder has their secrets) and Bob's answer to it.
  const init = core.initiate(alice.seeds, 1, large, { now: NOW, aad, plaintext: te.encode('hi') });
  const secrets = { signedPrekeySecret: bob.spk.secret, pqPrekeySecret: bob.otk.secret, oneTimePrekeySecret: bob.opk.secret };
  fuzz(typed, rng, 'session initialMessageInfo', init.initialMessage, FULL, (m) => core.initialMessageInfo(m));
  fuzz(typed, rng, 'session respond', init.initialMessage, { ...COSTLY, bitFlips: 80 },
    (m) => core.respond(bob.seeds, 9, m, { now: NOW, aad, ...secrets }));
  const r = core.respond(bob.seeds, 9, init.initialMessage, { now: NOW, aad, ...secrets });

  // Ratchet messages, each against the receiver's state just before it: Alice's second message
  // (her ek), Bob's first (ct ‖ ek: a PQ epoch), Alice's answer to it.
  const a1 = core.encrypt(init.state, te.encode('one'), { aad, now: NOW });
  const b1 = core.decrypt(r.state, a1.message, { aad, now: NOW });
  const b2 = core.encrypt(b1.state, te.encode('two'), { aad, now: NOW });
  const a2 = core.decrypt(a1.state, b2.message, { aad, now: NOW });
  const a3 = core.encrypt(a2.state, te.encode('three'), { aad, now: NOW });
  const pairs: [string, Uint8Array, Uint8Array][] = [['a1', r.state, a1.message], ['b2', a1.state, b2.message], ['a3', b2.state, a3.message]];
  for (const [name, state, message] of pairs) {
    fuzz(typed, rng, 'session decrypt', message, FULL, (m) => core.decrypt(state, m, { aad, now: NOW }));
    const h = SessionState.fromBytes(state);
    try {
      fuzz(typed, rng, 'SessionState.decrypt', message, { ...FULL, bitFlips: 100 }, (m) => h.decrypt(m, { aad, now: NOW }));
    } finally {
      h.dispose();
    }
    t.diagnostic(`message ${name}: ${message.length} bytes`);
  }
  // Stored states (authenticated by the keystore, but parsed like any input).
  fuzz(typed, rng, 'session stateInfo', a3.state, FULL, (s) => core.stateInfo(s));
  fuzz(typed, rng, 'SessionState.fromBytes', b2.state, FULL, (s) => SessionState.fromBytes(s).dispose());
  report(t, typed, started);
  assertTyped(typed, SESSION_ENTRIES);
});

// ---------------------------------------------------------------- sealed box

test('fuzz: sealed boxes, exporter encapsulations and ML-KEM key-handle ciphertexts fail only with typed errors', { timeout: 60_000 }, async (t) => {
  await P.init();
  const started = performance.now();
  const rng = new Rng(0x34_0402);
  const typed = new TypedErrors();
  const [sk, pk] = P.xWingKeygen(rng.bytes(32));
  const info = te.encode('app v1');
  const box = await seal(pk, te.encode('a token'), { info });
  await fuzzAsync(typed, rng, 'sealed open', box, FULL, (b) => open(b, { xWingSecretKey: sk }, { info }));
  const { enc } = await sealExport(pk, { info, length: 32 });
  await fuzzAsync(typed, rng, 'sealed openExport', enc, { ...FULL, bitFlips: 100 }, (e) => openExport(e, { xWingSecretKey: sk }, { info, length: 32 }));
  // The key handle's ciphertext is the sender's too.
  const kem = await generateMlKemKey();
  try {
    const { ciphertext } = P.mlKemEncapsulate(kem.encapsulationKey);
    await fuzzAsync(typed, rng, 'MlKemDecapsulationKey.decapsulate', ciphertext, { ...FULL, bitFlips: 60 }, (c) => kem.decapsulate(c));
  } finally {
    kem.dispose();
  }
  report(t, typed, started);
  assertTyped(typed, ['sealed open', 'sealed openExport', 'MlKemDecapsulationKey.decapsulate']);
});

// ---------------------------------------------------------------- messaging

test('fuzz: messaging ciphertexts, packets, SAS messages, identity encodings and JSON forms fail only with typed errors', { timeout: 60_000 }, async (t) => {
  await P.init();
  const started = performance.now();
  const rng = new Rng(0x34_0403);
  const typed = new TypedErrors();
  const [xa, xaPub] = P.generateX25519Keypair();
  const [xb, xbPub] = P.generateX25519Keypair();
  const [dk, ek] = P.mlKemKeygen();
  const [edSk, edPk] = P.generateEd25519Keypair();

  const { mlKemCiphertext } = hybridKemEncapsulate(xa, xbPub, ek);
  fuzz(typed, rng, 'hybridKemDecapsulate (ciphertext)', mlKemCiphertext, { ...FULL, bitFlips: 60 }, (c) => hybridKemDecapsulate(xb, xaPub, dk, c));
  const [akemCt] = authenticatedKemEncapsulate(xa, xbPub, ek, edSk);
  fuzz(typed, rng, 'authenticatedKemDecapsulate (ciphertext)', akemCt, { ...FULL, bitFlips: 120 }, (c) => authenticatedKemDecapsulate(xb, xaPub, dk, c, edPk));

  const packet = sealMessage(xbPub, te.encode('alice'), te.encode('hello'), edSk);
  fuzz(typed, rng, 'unsealMessage (packet)', packet, FULL, (p) => unsealMessage(p, xb, edPk));
  await fuzzAsync(typed, rng, 'unsealMessage (packet, resolver)', packet, { ...FULL, bitFlips: 60, everyTruncation: false, truncations: 120 },
    (p) => unsealMessage(p, xb, () => edPk));

  const key = rng.bytes(32);
  fuzz(typed, rng, 'unpadMessage', padMessage(te.encode('content')), FULL, (p) => unpadMessage(p));
  fuzz(typed, rng, 'decryptAesGcmPadded', encryptAesGcmPadded(key, te.encode('padded')), FULL, (c) => decryptAesGcmPadded(key, c));
  fuzz(typed, rng, 'decryptAesGcmChunked', encryptAesGcmChunked(key, rng.bytes(100), null, 32), { ...FULL, fieldBytes: [0, 3, 4, 7] },
    (c) => decryptAesGcmChunked(key, c));

  // Identity encodings as they arrive from a peer, and the SAS messages.
  const [, mlPk] = P.mlDsaKeygen(rng.bytes(32));
  const [, edB] = P.generateEd25519Keypair();
  const alice = encodeVerificationIdentity({ ed25519: edPk, x25519: xaPub });
  const bob = encodeVerificationIdentity({ ed25519: edB, x25519: xbPub, mlDsa65: mlPk });
  const conv = te.encode('conversation');
  fuzz(typed, rng, 'generateVerificationCode (identity encoding)', alice, FULL, (e) => generateVerificationCode(e, bob, conv));
  fuzz(typed, rng, 'generateVerificationCode (identity encoding)', bob, { ...FULL, bitFlips: 60, everyTruncation: false, truncations: 200 },
    (e) => generateVerificationCode(alice, e, conv));
  fuzz(typed, rng, 'SasVerification (peer identity encoding)', bob, { ...FULL, bitFlips: 60, everyTruncation: false, truncations: 200 },
    (e) => new SasVerification({ role: 'initiator', ownIdentity: alice, peerIdentity: e }).dispose());
  const tx = te.encode('tx-1');
  const responder = new SasVerification({ role: 'responder', ownIdentity: bob, peerIdentity: alice });
  const commitment = responder.start(tx);
  assert.ok(commitment);
  fuzz(typed, rng, 'SasVerification.receiveCommitment', commitment, FULL, (c) => {
    const s = new SasVerification({ role: 'initiator', ownIdentity: alice, peerIdentity: bob });
    try {
      s.start(tx);
      s.receiveCommitment(c);
    } finally {
      s.dispose();
    }
  });
  fuzz(typed, rng, 'SasVerification.receiveNonce', rng.bytes(32), FULL, (n) => {
    const s = new SasVerification({ role: 'responder', ownIdentity: bob, peerIdentity: alice });
    try {
      s.start(tx);
      s.receiveNonce(n);
    } finally {
      s.dispose();
    }
  });
  responder.dispose();

  // JSON forms: the key log, the device registry, the replay store.
  const userId = te.encode('alice');
  const e1 = keyLogCreateEntry(userId, edPk, 1000, KEY_LOG_GENESIS_HASH, 'add', edSk);
  const [edSk2, edPk2] = P.generateEd25519Keypair();
  const e2 = keyLogCreateEntry(userId, edPk2, 2000, keyLogEntryHash(e1), 'update', edSk, edSk2);
  const log = keyLogToJson([e1, e2]);
  const TEXT: MutationPlan = { ...FULL, bitFlips: 150 };
  fuzzText(typed, rng, 'keyLogFromJson', log, TEXT, (j) => keyLogFromJson(j));
  fuzzText(typed, rng, 'keyLogVerifyChain (JSON)', log, TEXT, (j) => keyLogVerifyChain(j));
  fuzzText(typed, rng, 'keyLogCurrentKey (JSON)', log, { ...TEXT, bitFlips: 60 }, (j) => keyLogCurrentKey(j, userId));
  const registry = registryAddDevice(registryEmpty(edPk), 'phone', 'Phone', 1000, rng.bytes(32), edSk);
  // A verdict, not an exception, for a registry that parses but does not verify.
  let rejected = 0;
  fuzzText(typed, rng, 'registryVerify (JSON)', registry, TEXT, (j) => {
    if (!registryVerify(j, edPk).valid) rejected++;
  });
  assert.ok(rejected > 300, `registryVerify rejected only ${rejected} mutants`);
  fuzzText(typed, rng, 'registryListActive (JSON)', registry, { ...TEXT, bitFlips: 60 }, (j) => registryListActive(j, edPk));
  const store = new ReplayStore({ windowSeconds: 600, maxEntries: 16 });
  store.insert(rng.bytes(32), 1000, 1000);
  store.insert(rng.bytes(32), 1001, 1001);
  fuzzText(typed, rng, 'ReplayStore.fromJson', store.toJson(), TEXT, (j) => ReplayStore.fromJson(j).dispose());
  store.dispose();
  report(t, typed, started);
  assertTyped(typed, [
    'hybridKemDecapsulate (ciphertext)', 'authenticatedKemDecapsulate (ciphertext)', 'unsealMessage (packet)', 'unsealMessage (packet, resolver)',
    'unpadMessage', 'decryptAesGcmPadded', 'decryptAesGcmChunked', 'generateVerificationCode (identity encoding)',
    'SasVerification (peer identity encoding)', 'SasVerification.receiveCommitment', 'SasVerification.receiveNonce',
    'keyLogFromJson', 'keyLogVerifyChain (JSON)', 'keyLogCurrentKey (JSON)', 'registryVerify (JSON)', 'registryListActive (JSON)', 'ReplayStore.fromJson',
  ], ['registryVerify (JSON)']);
});

// ---------------------------------------------------------------- types stay TypeErrors

test('a value that is not a Uint8Array is still a TypeError (a programming error, not malformed input)', async () => {
  await P.init();
  const s = { ed25519: new Uint8Array(32), mlDsa: new Uint8Array(32), x25519: new Uint8Array(32) };
  const notBytes = [undefined, null, 'bytes', [1, 2, 3], new ArrayBuffer(200)] as unknown as Uint8Array[];
  for (const x of notBytes) {
    assert.throws(() => core.verifyBundle(x, NOW), TypeError);
    assert.throws(() => core.initialMessageInfo(x), TypeError);
    assert.throws(() => core.decrypt(new Uint8Array(9), x, { now: NOW }), TypeError);
    assert.throws(() => core.respond(s, 1, x, { now: NOW, signedPrekeySecret: new Uint8Array(32), pqPrekeySecret: new Uint8Array(2400) }), TypeError);
    await assert.rejects(open(x, { xWingSecretKey: new Uint8Array(32) }), TypeError);
    assert.throws(() => decryptAesGcmChunked(new Uint8Array(32), x), TypeError);
  }
});
