// Seeded mutation fuzzing of the keystore's TypeScript parsers of outside bytes
// (issue 8): the public bundle (decodePublicBundle / verifyPublicBundle) and the
// backup (parseBackupHeader / parseBackupPayload / openBackup, which the worker's
// importBackup runs). Every input either yields a value or throws the documented
// error — never another exception, never a hang — and encode/decode round-trip.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as P from '../../ts/primitives.js';
import { encryptAesGcmWithIv } from '../../ts/hazmat.js';
import { VeilError } from '../../protocol/errors.js';
import { concatBytes } from '../../ts/bytes.js';
import {
  BACKUP_HEADER_LENGTH, MAX_BACKUP_LABEL_BYTES, MAX_BIP39_PASSPHRASE_BYTES, MAX_PASSPHRASE_KDF, MIN_PASSPHRASE_KDF,
  decodePublicBundle, encodeBackupHeader, encodeBackupPayload, encodeBundleBody, identityId,
  openBackup, parseBackupHeader, parseBackupPayload, sealBackup, verifyPublicBundle,
  type BackupEntry, type BackupKek, type PublicBundle,
} from '../../ts/keystore-format.js';
import type { KdfBudget, KeyType, PassphraseKdfParams } from '../../protocol/keystore.protocol.js';
import { Rng, Tally, isUntyped, mutations, outcomeOf, placed, sameBytes, type MutationPlan } from '../shared/mutate.js';
import { buildBundle } from '../shared/bundle.js';

// Exact case counts of each seeded run: every input is a function of the seed (no random IV,
// no hedged signature), so a run that generates or checks fewer cases fails.
const BUNDLE_CASES = 21806;
const BACKUP_CASES = 7509;
const PAYLOAD_CASES = 6202;

/** Inputs that are not a Uint8Array: TypeError, always. */
const NOT_BYTES: readonly unknown[] = [undefined, null, 0, 'VKPB', [86, 75, 80, 66], new ArrayBuffer(8), new DataView(new ArrayBuffer(8)), new Uint16Array(4), {}];

/** The code of a VeilError with a known code; anything else thrown (RangeError, TypeError, Error, an unknown code) fails the test. */
function veilCode(e: unknown): string {
  const outcome = outcomeOf(e);
  if (isUntyped(outcome)) throw new assert.AssertionError({ message: `expected a VeilError with a known code, got ${outcome}` });
  return outcome;
}

// ---------------------------------------------------------------- public bundle

function makeBundle(phrase: string, mlDsa: boolean): Uint8Array {
  return buildBundle(P.mnemonicToSeed(phrase), mlDsa).bytes;
}

/** Independent statement of docs/KEYSTORE.md#public-bundle: is `b` structurally a bundle? */
function bundleShapeOk(b: Uint8Array): boolean {
  if (b.length < 6 || b[0] !== 0x56 || b[1] !== 0x4b || b[2] !== 0x50 || b[3] !== 0x42 || b[4] !== 1) return false;
  if (b[5] !== 0 && b[5] !== 1) return false;
  return b.length === (b[5] === 1 ? 7795 : 2534);
}

function keysOf(d: PublicBundle): Partial<Record<KeyType, Uint8Array>> {
  const keys: Partial<Record<KeyType, Uint8Array>> = { 'ed25519': d.ed25519, 'x25519': d.x25519, 'ml-kem-768': d.mlKem768, 'x-wing': d.xWing };
  if (d.mlDsa65) keys['ml-dsa-65'] = d.mlDsa65;
  return keys;
}

/** Re-encodes a decoded bundle from its fields (the encode side of the round trip). */
function reencode(d: PublicBundle): Uint8Array {
  const parts = [encodeBundleBody(keysOf(d)), d.signatures.ed25519];
  if (d.signatures.mlDsa65) parts.push(d.signatures.mlDsa65);
  return new Uint8Array(Buffer.concat(parts));
}

// Single-bit flips and overwrites keep a bundle well-formed, so each costs a real verification
// (about 0.2 ms Ed25519, 1 ms ML-DSA-65 in Node); the malformed kinds are cheap and plentiful.
const BUNDLE_PLAN: MutationPlan = {
  bitFlips: 500, fieldBytes: [0, 1, 2, 3, 4, 5, 6, 37, 38, 70, 1254, 2470, 2534], overwrites: 150,
  truncations: 600, everyTruncation: true, extensions: 60, random: 150, prefixGarbage: 150,
};

test('fuzz: public bundle decode / verify (seeded mutations)', { timeout: 60_000 }, async (t) => {
  await P.init();
  const started = performance.now();
  const rng = new Rng(0x5eed_b0d1);
  const seeds = [
    makeBundle(`${'abandon '.repeat(23)}art`, false),
    makeBundle(`${'abandon '.repeat(23)}art`, true),
    makeBundle(`${'zoo '.repeat(23)}vote`, true),
  ];
  const tally = new Tally();
  const check = (input: Uint8Array, kind: string) => {
    const expectShape = bundleShapeOk(input);
    const isSeed = seeds.some((s) => sameBytes(s, input));
    const before = input.slice();
    let decoded: PublicBundle | undefined;
    try {
      decoded = decodePublicBundle(input);
    } catch (e) {
      assert.equal(veilCode(e), 'INVALID_PARAMETER', kind);
    }
    assert.equal(decoded !== undefined, expectShape, `${kind}: decode ${decoded ? 'accepted' : 'rejected'} a${expectShape ? ' well-formed' : ' malformed'} bundle`);
    if (decoded) {
      // Round trip: the fields re-encode to exactly the input; the id is the documented hash.
      assert.ok(sameBytes(reencode(decoded), input), `${kind}: re-encoding differs`);
      assert.ok(sameBytes(decoded.bytes, input), `${kind}: bytes differ`);
      assert.equal(decoded.id, identityId(keysOf(decoded)));
      assert.equal(decoded.mlDsa65 !== undefined, input[5] === 1);
    }
    // verify never throws on bytes; true only for the untouched, honestly signed seeds.
    const ok = verifyPublicBundle(input);
    assert.equal(ok, isSeed, `${kind}: verifyPublicBundle returned ${ok}`);
    if (decoded && tally.total % 8 === 0) assert.equal(verifyPublicBundle(decoded), isSeed, `${kind}: verify(decoded)`);
    assert.ok(sameBytes(input, before), `${kind}: input modified`);
    tally.add(decoded ? (isSeed ? 'valid' : 'well-formed, bad signature') : 'INVALID_PARAMETER');
  };
  for (const [i, seed] of seeds.entries()) {
    check(placed(rng, seed), `seed ${i}`);
    for (const c of mutations(rng, seed, BUNDLE_PLAN)) check(placed(rng, c.input), `seed ${i}: ${c.kind}`);
  }
  // Well-formed garbage: right magic, version, flags and length, random keys and signatures (invalid
  // points, malformed ML-DSA keys): decode accepts it, verify must say false, not throw.
  for (let k = 0; k < 300; k++) {
    const flags = rng.below(2);
    const b = rng.bytes(flags ? 7795 : 2534);
    b.set([0x56, 0x4b, 0x50, 0x42, 1, flags]);
    check(b, `well-formed random ${k}`);
  }
  // A seed's keys with another seed's signatures (same shape): well-formed, must not verify.
  const swapped = seeds[1]!.slice();
  swapped.set(seeds[2]!.subarray(2470), 2470);
  check(swapped, 'signatures of another identity');
  for (const x of NOT_BYTES) {
    assert.throws(() => decodePublicBundle(x as Uint8Array), TypeError);
    tally.add('TypeError');
  }
  const ms = performance.now() - started;
  t.diagnostic(`public bundle: ${tally.toString()} in ${ms.toFixed(0)} ms`);
  assert.equal(tally.total, BUNDLE_CASES, 'bundle mutation cases for seed 0x5eedb0d1');
  assert.ok((tally.counts.get('well-formed, bad signature') ?? 0) >= 300);
});

// ---------------------------------------------------------------- backup

const MIN: PassphraseKdfParams = { ...MIN_PASSPHRASE_KDF };
/** These tests exercise the format's whole parameter range, so they raise the KDF budget to it explicitly. */
const FORMAT_RANGE: KdfBudget = { argon2MemoryKib: MAX_PASSPHRASE_KDF.memoryKib, argon2Iterations: MAX_PASSPHRASE_KDF.iterations };
const PASSPHRASES = ['', '', 'TREZOR', 'ünïcödé 25th word', 'x'.repeat(MAX_BIP39_PASSPHRASE_BYTES)];
const LABELS = ['', 'laptop', 'Zoë’s phone 📱', 'ключ', '\u{FEFF}starts with a BOM', 'x'.repeat(MAX_BACKUP_LABEL_BYTES), '日本語'.repeat(100)];

function randomEntry(rng: Rng): BackupEntry {
  const createdAt = rng.pick([0, 1, 1_700_000_000_000 + rng.below(1e9), Number.MAX_SAFE_INTEGER, rng.u32() * 2 ** 21 + rng.below(2 ** 21)]);
  let label = rng.pick(LABELS);
  if (rng.below(3) === 0) {
    // Random well-formed text, including astral characters and U+FEFF anywhere.
    const chars: string[] = [];
    for (let i = rng.below(40); i > 0; i--) chars.push(String.fromCodePoint(rng.pick([rng.below(0x80), rng.below(0xd800), 0xfeff, 0x1f600 + rng.below(80), 0xe000 + rng.below(0x1000)])));
    label = chars.join('');
  }
  return { mlDsa: rng.below(2) === 1, createdAt, label, entropy: rng.bytes(32), seed: rng.bytes(64), bip39Passphrase: rng.pick(PASSPHRASES) };
}

function sameEntries(a: readonly BackupEntry[], b: readonly BackupEntry[]): boolean {
  return a.length === b.length && a.every((x, i) => {
    const y = b[i]!;
    return x.mlDsa === y.mlDsa && x.createdAt === y.createdAt && x.label === y.label && sameBytes(x.entropy, y.entropy) && sameBytes(x.seed, y.seed)
      && x.bip39Passphrase === y.bip39Passphrase;
  });
}

/** Independent statement of docs/KEYSTORE.md#backup: the error the header alone implies, or undefined when only the AEAD can decide. */
function headerVerdict(b: Uint8Array): 'INVALID_BACKUP' | 'UNSUPPORTED_VERSION' | undefined {
  if (b.length < 60) return 'INVALID_BACKUP';
  if (b[0] !== 0x56 || b[1] !== 0x4b || b[2] !== 0x42 || b[3] !== 0x4b) return 'INVALID_BACKUP';
  if (b[4] !== 2) return 'UNSUPPORTED_VERSION';
  if (b[5] !== 1 || b[15] !== 16) return 'INVALID_BACKUP';
  const v = new DataView(b.buffer, b.byteOffset, 16);
  const m = v.getUint32(6);
  const t = v.getUint32(10);
  const p = b[14]!;
  const within = (x: number, f: keyof PassphraseKdfParams) => x >= MIN_PASSPHRASE_KDF[f] && x <= MAX_PASSPHRASE_KDF[f];
  return within(m, 'memoryKib') && within(t, 'iterations') && within(p, 'parallelism') ? undefined : 'INVALID_BACKUP';
}

test('fuzz: backup header and ciphertext (seeded mutations of whole backups)', { timeout: 60_000 }, async (t) => {
  await P.init();
  const started = performance.now();
  const rng = new Rng(0xbac0_0001);
  const key = rng.bytes(32);
  let kekCalls = 0;
  const handedOut: Uint8Array[] = [];
  const kek: BackupKek = (salt, params) => {
    assert.equal(salt.length, 16);
    assert.ok(params.memoryKib >= MIN.memoryKib && params.iterations >= MIN.iterations);
    kekCalls++;
    const k = key.slice();
    handedOut.push(k);
    return k;
  };
  // The seed backups take their AES-GCM IV from the seeded Rng, so every byte of them (and so
  // the mutants: an "interesting value" equal to the byte already there is not tried) is the
  // same on every run. sealBackup draws a random IV; the seed is checked to be exactly what
  // sealBackup writes for the IV it drew.
  const seeds: { bytes: Uint8Array; entries: BackupEntry[] }[] = [];
  for (const n of [0, 1, 3]) {
    const entries = Array.from({ length: n }, () => randomEntry(rng));
    const params = n === 3 ? { memoryKib: MAX_PASSPHRASE_KDF.memoryKib, iterations: 16, parallelism: 16 } : MIN;
    const salt = rng.bytes(16);
    const header = encodeBackupHeader(params, salt);
    const payload = encodeBackupPayload(entries);
    const reference = sealBackup(entries, params, salt, kek);
    const referenceIv = reference.subarray(BACKUP_HEADER_LENGTH, BACKUP_HEADER_LENGTH + 12);
    assert.ok(sameBytes(reference, concatBytes([header, referenceIv, encryptAesGcmWithIv(key, referenceIv, payload, header)])), 'sealBackup = header ‖ iv ‖ AES-GCM(payload, aad = header)');
    const iv = rng.bytes(12);
    seeds.push({ bytes: concatBytes([header, iv, encryptAesGcmWithIv(key, iv, payload, header)]), entries });
  }
  const plan: MutationPlan = {
    bitFlips: 900, fieldBytes: [0, 3, 4, 5, 6, 9, 10, 13, 14, 15, 16, 31, 32, 43, 44], overwrites: 200,
    truncations: 200, everyTruncation: true, extensions: 40, random: 80, prefixGarbage: 80,
  };
  const tally = new Tally();
  const check = (input: Uint8Array, kind: string) => {
    const seed = seeds.find((s) => sameBytes(s.bytes, input));
    const verdict = headerVerdict(input);
    const calls = kekCalls;
    const before = input.slice();
    let out: BackupEntry[] | undefined;
    let code = 'ok';
    try {
      out = openBackup(input, kek, FORMAT_RANGE);
    } catch (e) {
      code = veilCode(e);
    }
    if (verdict) {
      assert.equal(code, verdict, kind);
      assert.equal(kekCalls, calls, `${kind}: key work for a backup the header already rejects`);
    } else if (seed) {
      assert.ok(out && sameEntries(out, seed.entries), `${kind}: entries differ`);
    } else {
      assert.equal(code, 'AUTHENTICATION_FAILED', kind);
    }
    // Every key handed to openBackup is wiped by it.
    for (const k of handedOut.splice(0)) assert.ok(k.every((x) => x === 0), `${kind}: key not wiped`);
    assert.ok(sameBytes(input, before), `${kind}: input modified`);
    if (!verdict) {
      const h = parseBackupHeader(input);
      assert.ok(sameBytes(h.header, input.subarray(0, BACKUP_HEADER_LENGTH)));
      assert.equal(h.sealed.length, input.length - BACKUP_HEADER_LENGTH);
    }
    tally.add(code);
  };
  for (const [i, s] of seeds.entries()) {
    check(placed(rng, s.bytes), `seed ${i}`);
    for (const c of mutations(rng, s.bytes, plan)) check(placed(rng, c.input), `seed ${i}: ${c.kind}`);
  }
  for (const x of NOT_BYTES) {
    assert.throws(() => openBackup(x, kek), TypeError);
    assert.throws(() => parseBackupHeader(x), TypeError);
    tally.add('TypeError');
  }
  const ms = performance.now() - started;
  t.diagnostic(`backup (whole): ${tally.toString()} in ${ms.toFixed(0)} ms`);
  assert.equal(tally.total, BACKUP_CASES, 'backup mutation cases for seed 0xbac00001');
  assert.ok((tally.counts.get('AUTHENTICATION_FAILED') ?? 0) > 1000 && (tally.counts.get('INVALID_BACKUP') ?? 0) > 500);
  assert.ok((tally.counts.get('UNSUPPORTED_VERSION') ?? 0) > 0);
});

test('fuzz: backup payload parser (seeded mutations behind a valid AEAD)', { timeout: 60_000 }, async (t) => {
  await P.init();
  const started = performance.now();
  const rng = new Rng(0xbac0_0002);
  const key = rng.bytes(32);
  const kek: BackupKek = () => key.slice();
  const header = encodeBackupHeader(MIN, rng.bytes(16));
  const seeds = [[], [randomEntry(rng)], [randomEntry(rng), randomEntry(rng), randomEntry(rng)]].map((e) => encodeBackupPayload(e));
  const plan: MutationPlan = {
    bitFlips: 700, fieldBytes: [0, 1, 2, 3, 4, 5, 6, 7, 13, 14, 15, 16], overwrites: 200,
    truncations: 200, everyTruncation: true, extensions: 40, random: 80, prefixGarbage: 80,
  };
  const tally = new Tally();
  let sealedChecks = 0;
  const check = (input: Uint8Array, kind: string) => {
    const before = input.slice();
    let out: BackupEntry[] | undefined;
    let code = 'ok';
    try {
      out = parseBackupPayload(input);
    } catch (e) {
      code = veilCode(e);
      assert.equal(code, 'INVALID_BACKUP', kind);
    }
    // Canonical: whatever parses re-encodes to exactly the input.
    if (out) assert.ok(sameBytes(encodeBackupPayload(out), input), `${kind}: parsed, but re-encodes differently`);
    assert.ok(sameBytes(input, before), `${kind}: input modified`);
    // The same plaintext sealed under the right key: openBackup (the worker's path) agrees.
    if (tally.total % 4 === 0) {
      const sealed = new Uint8Array(Buffer.concat([header, P.encryptAesGcm(key, input, header)]));
      let code2 = 'ok';
      let out2: BackupEntry[] | undefined;
      try {
        out2 = openBackup(sealed, kek, FORMAT_RANGE);
      } catch (e) {
        code2 = veilCode(e);
      }
      assert.equal(code2, code, `${kind}: openBackup disagrees with parseBackupPayload`);
      if (out && out2) assert.ok(sameEntries(out, out2));
      sealedChecks++;
    }
    tally.add(code);
  };
  for (const [i, seed] of seeds.entries()) {
    check(placed(rng, seed), `payload seed ${i}`);
    for (const c of mutations(rng, seed, plan)) check(placed(rng, c.input), `payload seed ${i}: ${c.kind}`);
  }
  // Hand-made edge cases: a count far beyond the data, a label of MAX + 1 bytes, invalid UTF-8,
  // a creation time JS cannot hold exactly, unknown flags.
  const one = encodeBackupPayload([{ mlDsa: false, createdAt: 5, label: 'a', entropy: new Uint8Array(32).fill(1), seed: new Uint8Array(64).fill(2), bip39Passphrase: 'p' }]);
  const edits: [string, (b: Uint8Array, v: DataView) => void][] = [
    ['count 2^32-1', (_b, v) => v.setUint32(1, 0xffffffff)],
    ['label length 1025', (_b, v) => v.setUint16(14, MAX_BACKUP_LABEL_BYTES + 1)],
    ['invalid UTF-8 label', (b) => { b[16] = 0xff; }],
    ['created at 2^53', (_b, v) => v.setBigUint64(6, 2n ** 53n)],
    ['created at 2^64-1', (_b, v) => v.setBigUint64(6, 2n ** 64n - 1n)],
    ['flags 2', (b) => { b[5] = 2; }],
    ['payload version 1', (b) => { b[0] = 1; }],
    ['payload version 3', (b) => { b[0] = 3; }],
    ['BIP-39 passphrase length 1025', (_b, v) => v.setUint16(113, MAX_BIP39_PASSPHRASE_BYTES + 1)],
    ['BIP-39 passphrase past the end', (_b, v) => v.setUint16(113, 2)],
    ['invalid UTF-8 BIP-39 passphrase', (b) => { b[115] = 0xff; }],
  ];
  for (const [name, edit] of edits) {
    const b = one.slice();
    edit(b, new DataView(b.buffer));
    assert.throws(() => parseBackupPayload(b), (e: unknown) => e instanceof VeilError && e.code === 'INVALID_BACKUP', name);
    tally.add('INVALID_BACKUP');
  }
  const ms = performance.now() - started;
  t.diagnostic(`backup payload: ${tally.toString()}, ${sealedChecks} also through openBackup, in ${ms.toFixed(0)} ms`);
  assert.equal(tally.total, PAYLOAD_CASES, 'payload mutation cases for seed 0xbac00002');
  assert.ok((tally.counts.get('ok') ?? 0) >= 3 && (tally.counts.get('INVALID_BACKUP') ?? 0) > 1000);
});

test('backup: encode / decode round trip (random entries), real Argon2id at the lowest cost', { timeout: 60_000 }, async (t) => {
  await P.init();
  const started = performance.now();
  const rng = new Rng(0xbac0_0003);
  let n = 0;
  for (let k = 0; k < 500; k++) {
    const entries = Array.from({ length: rng.below(5) }, () => randomEntry(rng));
    const payload = encodeBackupPayload(entries);
    assert.ok(sameEntries(parseBackupPayload(payload), entries), `payload round trip ${k}`);
    const key = rng.bytes(32);
    const params = { memoryKib: MIN.memoryKib + rng.below(1000), iterations: 2 + rng.below(15), parallelism: 1 + rng.below(16) };
    const salt = rng.bytes(16);
    const sealed = sealBackup(entries, params, salt, () => key.slice());
    const h = parseBackupHeader(sealed);
    assert.deepEqual(h.params, params);
    assert.ok(sameBytes(h.salt, salt));
    assert.ok(sameEntries(openBackup(sealed, () => key.slice(), FORMAT_RANGE), entries), `sealed round trip ${k}`);
    n++;
  }
  // Encoding refuses what it cannot represent (rather than wrapping a u16 or writing a short secret).
  const ok = { mlDsa: false, createdAt: 0, label: '', entropy: new Uint8Array(32), seed: new Uint8Array(64), bip39Passphrase: '' };
  assert.throws(() => encodeBackupPayload([{ ...ok, label: 'x'.repeat(MAX_BACKUP_LABEL_BYTES + 1) }]), RangeError);
  assert.throws(() => encodeBackupPayload([{ ...ok, seed: new Uint8Array(63) }]), RangeError);
  assert.throws(() => encodeBackupPayload([{ ...ok, bip39Passphrase: 'x'.repeat(MAX_BIP39_PASSPHRASE_BYTES + 1) }]), RangeError);
  assert.throws(() => encodeBackupHeader({ ...MIN, iterations: 1 }, new Uint8Array(16)), RangeError);
  // Known, accepted lossy case: a label with a lone surrogate is stored as U+FFFD (TextEncoder).
  const lone = parseBackupPayload(encodeBackupPayload([{ ...ok, label: 'a\uD800b' }]));
  assert.equal(lone[0]!.label, 'a\uFFFDb');
  // The worker's real key derivation: Argon2id(UTF-8(passphrase), salt, m, t, p, 32).
  const argon = (passphrase: string): BackupKek => (salt, params) => P.argon2id(passphrase, salt, { ...params, length: 32 });
  const entries = [randomEntry(rng), randomEntry(rng)];
  const sealed = sealBackup(entries, MIN, rng.bytes(16), argon('correct horse'));
  assert.ok(sameEntries(openBackup(sealed, argon('correct horse')), entries));
  assert.throws(() => openBackup(sealed, argon('wrong horse')), (e: unknown) => e instanceof VeilError && e.code === 'AUTHENTICATION_FAILED');
  const ms = performance.now() - started;
  t.diagnostic(`backup round trips: ${n} random entry lists (payload and sealed), 2 real Argon2id opens, in ${ms.toFixed(0)} ms`);
});
