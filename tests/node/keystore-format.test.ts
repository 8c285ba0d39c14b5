// The keystore's documented derivation (docs/KEYSTORE.md#derivation) recomputed
// with Node's own crypto, and the public bundle encoding (docs/KEYSTORE.md#public-bundle).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPrivateKey, createPublicKey, hkdfSync, pbkdf2Sync } from 'node:crypto';
import * as P from '../../ts/primitives.js';
import { VeilError } from '../../protocol/errors.js';
import {
  DEFAULT_KDF_BUDGET, IDENTITY_DERIVATION, checkBackupEntry, decodePublicBundle, deriveKeySeed, encodeBundleBody, identityId,
  openBackup, publicKeyFromKeySeed, sealBackup, verifyPublicBundle, type BackupKek,
  BACKUP_HEADER_LENGTH, MAX_BACKUP_BYTES, MAX_BACKUP_HISTORY_BYTES, backupHistorySize, encodeBackupContents, encodeBackupHeader, encodeBackupPayload,
  historyBucket, openBackupContents, parseBackupContents, parseBackupPayload, sealBackupContents, type BackupContents,
} from '../../ts/keystore-format.js';
import { KEY_TYPES } from '../../protocol/keystore.protocol.js';
import { buildBundle } from '../shared/bundle.js';

const PHRASE = `${'abandon '.repeat(23)}art`;
/** Regression pin for the phrase above (recomputed independently below, except ML-KEM/X-Wing/ML-DSA public keys). */
const EXPECTED_ID = '95415769bc9a83cc670634f78bea1ff4adc09652b390bb8715510026042e6509';
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
  // The id: SHA-256("veilkit-identity-id-v2" ‖ flags ‖ Ed25519 ‖ X25519 ‖ ML-KEM-768 ‖ X-Wing ‖ ML-DSA-65), full 32 bytes.
  const { keys } = buildBundle(seed, true);
  const h = createHash('sha256').update('veilkit-identity-id-v2').update(Uint8Array.of(1));
  for (const t of ['ed25519', 'x25519', 'ml-kem-768', 'x-wing', 'ml-dsa-65'] as const) h.update(keys[t]!);
  const id = h.digest('hex');
  assert.equal(identityId(keys), id);
  assert.equal(id.length, 64);
  assert.equal(id, EXPECTED_ID);
});

test('identity id (attack): stripping the ML-DSA-65 key from a bundle changes its id and breaks its signature', async () => {
  await P.init();
  const seed = P.mnemonicToSeed(PHRASE);
  const full = buildBundle(seed, true);
  // The attacker keeps flags 0 and every byte it can: the body without the ML-DSA key, the Ed25519 signature.
  const body = encodeBundleBody({ ...full.keys, 'ml-dsa-65': undefined });
  const edSig = full.bytes.subarray(full.body.length, full.body.length + 64);
  const stripped = new Uint8Array([...body, ...edSig]);
  const decoded = decodePublicBundle(stripped);
  assert.equal(decoded.mlDsa65, undefined);
  assert.notEqual(decoded.id, decodePublicBundle(full.bytes).id);
  assert.equal(verifyPublicBundle(stripped), false);
  // An honest identity from the same phrase without ML-DSA-65 has its own id, too.
  assert.notEqual(decodePublicBundle(buildBundle(seed, false).bytes).id, EXPECTED_ID);
});

test('identity id (attack): two bundles sharing the Ed25519 key but not the other keys never share an id', async () => {
  await P.init();
  const victim = buildBundle(P.mnemonicToSeed(PHRASE), true).keys;
  const attacker = buildBundle(P.mnemonicToSeed(`${'zoo '.repeat(23)}vote`), true).keys;
  const ids = new Set<string>();
  ids.add(identityId(victim));
  // The victim's Ed25519 key with the attacker's agreement keys, one substitution at a time and all at once.
  for (const t of ['x25519', 'ml-kem-768', 'x-wing', 'ml-dsa-65'] as const) ids.add(identityId({ ...victim, [t]: attacker[t] }));
  ids.add(identityId({ ...attacker, 'ed25519': victim.ed25519 }));
  ids.add(identityId({ ...victim, 'ml-dsa-65': undefined }));
  assert.equal(ids.size, 7);
  for (const id of ids) assert.match(id, /^[0-9a-f]{64}$/);
});

test('KDF budget (attack): a backup asking for 1 GiB / t = 16 is refused before any key work; an explicit budget proceeds', async () => {
  await P.init();
  let calls = 0;
  const kek: BackupKek = () => {
    calls++;
    return new Uint8Array(32).fill(9);
  };
  const huge = sealBackup([], { memoryKib: 1_048_576, iterations: 16, parallelism: 1 }, new Uint8Array(16), kek);
  calls = 0;
  assert.throws(() => openBackup(huge, kek), (e: unknown) => e instanceof VeilError && e.code === 'KDF_BUDGET_EXCEEDED');
  assert.equal(calls, 0, 'no key derivation (no allocation) for an over-budget backup');
  assert.deepEqual(DEFAULT_KDF_BUDGET, { argon2MemoryKib: 262_144, argon2Iterations: 4, pbkdf2Iterations: 2_000_000, passwordWraps: 2 });
  // At the budget's edge it opens; one pass or one KiB over, it does not.
  for (const [params, ok] of [
    [{ memoryKib: 262_144, iterations: 4, parallelism: 1 }, true],
    [{ memoryKib: 262_145, iterations: 4, parallelism: 1 }, false],
    [{ memoryKib: 19_456, iterations: 5, parallelism: 1 }, false],
  ] as const) {
    const b = sealBackup([], params, new Uint8Array(16), kek);
    calls = 0;
    if (ok) assert.deepEqual(openBackup(b, kek), []);
    else assert.throws(() => openBackup(b, kek), (e: unknown) => e instanceof VeilError && e.code === 'KDF_BUDGET_EXCEEDED');
    assert.equal(calls, ok ? 1 : 0);
  }
  // Raised explicitly, the costly backup proceeds to the key derivation.
  calls = 0;
  assert.deepEqual(openBackup(huge, kek, { argon2MemoryKib: 1_048_576, argon2Iterations: 16 }), []);
  assert.equal(calls, 1);
});

test('backup entry cross-check: the seed must be the BIP-39 seed of the entropy and passphrase', async () => {
  await P.init();
  const entropy = P.mnemonicToEntropy(PHRASE);
  const entry = { mlDsa: false, createdAt: 0, label: '', entropy, seed: P.mnemonicToSeed(PHRASE, 'TREZOR'), bip39Passphrase: 'TREZOR' };
  checkBackupEntry(entry);
  for (const bad of [{ ...entry, bip39Passphrase: '' }, { ...entry, seed: P.mnemonicToSeed(`${'zoo '.repeat(23)}vote`, 'TREZOR') }]) {
    assert.throws(() => checkBackupEntry(bad), (e: unknown) => e instanceof VeilError && e.code === 'INVALID_BACKUP');
  }
});

test('public bundle: canonical encoding, signatures, sizes, tamper detection', async () => {
  await P.init();
  const seed = P.mnemonicToSeed(PHRASE);
  for (const mlDsa of [false, true]) {
    const { bytes, body, keys } = buildBundle(seed, mlDsa);
    assert.equal(bytes.length, mlDsa ? 7795 : 2534);
    const b = decodePublicBundle(bytes);
    assert.equal(b.id === EXPECTED_ID, mlDsa);
    assert.equal(b.id, identityId(keys));
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

test('backup payload 3 (docs/KEYSTORE.md#backup): the history section byte by byte, round trip, version 2 unchanged, structural refusals, size bounds before any work', async () => {
  await P.init();
  const te = new TextEncoder();
  const contents: BackupContents = {
    identities: [],
    history: {
      key: new Uint8Array(32).fill(7),
      conversations: [{ tag: new Uint8Array(32).fill(1), next: 4, meta: te.encode('m'), entries: [{ seq: 1, data: te.encode('ab') }, { seq: 3, data: new Uint8Array(100).fill(5) }] }],
    },
  };
  const p = encodeBackupContents(contents);
  const dv = new DataView(p.buffer, p.byteOffset, p.byteLength);
  assert.equal(p[0], 3, 'payload version 3');
  assert.equal(dv.getUint32(1), 0, 'identity count');
  assert.deepEqual(p.subarray(5, 37), new Uint8Array(32).fill(7), 'H');
  assert.equal(dv.getUint32(37), 1, 'conversation count');
  assert.deepEqual(p.subarray(41, 73), new Uint8Array(32).fill(1), 'tag');
  assert.equal(dv.getBigUint64(73), 4n, 'next');
  assert.equal(p[81], 1, 'flags: metadata present');
  assert.equal(dv.getUint32(82), 1, 'metadata length');
  assert.equal(p[86], 'm'.charCodeAt(0));
  assert.ok(p.subarray(87, 82 + 64).every((b) => b === 0), 'metadata padded with zeros to its 64-byte bucket');
  assert.equal(dv.getUint32(146), 2, 'entry count');
  assert.equal(dv.getBigUint64(150), 1n);
  assert.equal(dv.getUint32(158), 2);
  assert.equal(dv.getBigUint64(222), 3n);
  assert.equal(dv.getUint32(230), 100);
  assert.equal(historyBucket(100), 128);
  assert.equal(p.length, 230 + 128, 'no bytes after the last entry');
  assert.equal(backupHistorySize([{ meta: 1, entries: [2, 100] }]), p.length - 5);
  assert.deepEqual(parseBackupContents(p), contents, 'round trip');
  assert.throws(() => parseBackupPayload(p), (e: unknown) => e instanceof VeilError && e.code === 'INVALID_BACKUP', 'the identities-only reader refuses version 3');

  // Without a history the plaintext is version 2, byte for byte what older veilkit writes and reads.
  const id = { mlDsa: true, createdAt: 5, label: 'a', entropy: new Uint8Array(32).fill(2), seed: new Uint8Array(64).fill(3), bip39Passphrase: '' };
  assert.deepEqual(encodeBackupContents({ identities: [id] }), encodeBackupPayload([id]));
  assert.deepEqual(parseBackupContents(encodeBackupPayload([id])), { identities: [id] });

  // Structural damage inside the (authenticated) plaintext is INVALID_BACKUP.
  const bad = (name: string, f: (b: Uint8Array, v: DataView) => Uint8Array | undefined) => {
    const b = p.slice();
    const out = f(b, new DataView(b.buffer)) ?? b;
    assert.throws(() => parseBackupContents(out), (e: unknown) => e instanceof VeilError && e.code === 'INVALID_BACKUP', name);
  };
  bad('non-zero padding', (b) => { b[100] = 1; return undefined; });
  bad('sequence number ≥ next', (_b, v) => { v.setBigUint64(222, 4n); return undefined; });
  bad('sequence numbers not ascending', (_b, v) => { v.setBigUint64(222, 1n); return undefined; });
  bad('next = 0', (_b, v) => { v.setBigUint64(73, 0n); return undefined; });
  bad('unknown flags', (b) => { b[81] = 3; return undefined; });
  bad('entry longer than 1 MiB', (_b, v) => { v.setUint32(230, (1 << 20) + 1); return undefined; });
  bad('trailing byte', (b) => Uint8Array.from([...b, 0]));
  bad('truncated', (b) => b.subarray(0, b.length - 1));
  bad('payload version 4', (b) => { b[0] = 4; return undefined; });
  const two = encodeBackupContents({ identities: [], history: { key: new Uint8Array(32), conversations: [{ tag: new Uint8Array(32).fill(9), next: 1, entries: [] }, { tag: new Uint8Array(32).fill(8), next: 1, entries: [] }] } });
  assert.equal(two[41], 8, 'the writer sorts conversations by tag');
  const swapped = two.slice();
  swapped.set(two.subarray(41, 41 + 45), 41 + 45);
  swapped.set(two.subarray(41 + 45, 41 + 90), 41);
  assert.throws(() => parseBackupContents(swapped), (e: unknown) => e instanceof VeilError && e.code === 'INVALID_BACKUP', 'tags out of order');

  // Sealed and opened under the backup key; the identities-only opener (openBackup) refuses version 3.
  const key = new Uint8Array(32).fill(4);
  const sealed = sealBackupContents(contents, { memoryKib: 19_456, iterations: 2, parallelism: 1 }, new Uint8Array(16), () => key.slice());
  assert.deepEqual(openBackupContents(sealed, () => key.slice()), contents);
  assert.throws(() => openBackup(sealed, () => key.slice()), (e: unknown) => e instanceof VeilError && e.code === 'INVALID_BACKUP');

  // Over the bounds: the writer refuses from the lengths (RangeError) before it allocates the section; the reader
  // refuses a backup longer than MAX_BACKUP_BYTES before any key derivation.
  const mib = new Uint8Array(1 << 20);
  const many = Array.from({ length: 128 }, (_, i) => ({ seq: i + 1, data: mib }));
  assert.ok(backupHistorySize([{ entries: many.map((e) => e.data.length) }]) > MAX_BACKUP_HISTORY_BYTES);
  assert.throws(() => encodeBackupContents({ identities: [], history: { key: new Uint8Array(32), conversations: [{ tag: new Uint8Array(32), next: 200, entries: many }] } }), RangeError);
  const huge = new Uint8Array(MAX_BACKUP_BYTES + 1);
  huge.set(encodeBackupHeader({ memoryKib: 19_456, iterations: 2, parallelism: 1 }, new Uint8Array(16)), 0);
  assert.equal(BACKUP_HEADER_LENGTH, 32);
  let calls = 0;
  assert.throws(() => openBackupContents(huge, () => { calls++; return key.slice(); }), (e: unknown) => e instanceof VeilError && e.code === 'INVALID_BACKUP');
  assert.equal(calls, 0, 'no key derivation for an over-long backup');
});
