// Seeded mutation fuzzing of the container header path the browser file layer
// takes (issue 8). Header parsing itself is Rust (cargo-fuzz `container_header`);
// this drives it the way worker/files.ts `openHeader` and ts/files.ts `readHeader`
// do — containerHeaderLength, ContainerReaderHandle, info() (the core's typed HeaderInfo), checkSignature,
// through the facade's `call` error mapping — and checks the TypeScript geometry
// (ts/files-format.ts) against what the reader reports. Every input yields a header
// or a VeilError with a container / primitive code; the prefix-growing loop ends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import * as P from '../../ts/primitives.js';
import * as wasm from '../../ts/wasm/veilkit.js';
import { xWingKeygen } from '../../ts/xwing.js';
import { call } from '../../ts/init.js';
import { VEIL_ERROR_CODES, VeilError } from '../../protocol/errors.js';
import { CONTAINER, chunkCount, chunkLength, containerLength, envelopeOffset } from '../../ts/files-format.js';
import { bytesToHex } from '../../ts/bytes.js';
import type { HeaderInfo } from '../../protocol/files.protocol.js';
import { Rng, Tally, mutations, placed, sameBytes, type MutationPlan } from '../shared/mutate.js';

const VECTOR_DIRS = ['vectors/container', 'vectors/container/browser'];
/** Distinct headers among the .vvlt files of VECTOR_DIRS. */
const SEED_HEADERS = 15;
/** Mutants of seed 0xc047a1 over those headers, plus the one oversized-plaintext header. */
const MUTATION_CASES = 33045;
const ROUND_TRIPS = 150;
/** Seed 0xc047a2: round trips run, and those over 64 chunks (finish() refusal checked only). */
const ROUND_TRIP_SPLIT = { n: 126, refused: 24 };

type Outcome =
  | { readonly kind: 'header'; readonly info: HeaderInfo; readonly infoJson: string; readonly signature: string; readonly headerHash: Uint8Array; readonly containerLength: number; readonly rounds: number }
  | { readonly kind: 'error'; readonly code: string };

/** worker/files.ts `openHeader`, minus the session bookkeeping. */
function openHeader(prefix: Uint8Array): { needed: number } | Extract<Outcome, { kind: 'header' }> {
  const len = call(() => wasm.containerHeaderLength(prefix));
  if (len < 0 || len > prefix.length) return { needed: Math.abs(len) };
  const reader = call(() => new wasm.ContainerReaderHandle(prefix));
  try {
    const info = reader.info();
    // A canonical text of the whole object (byte fields in hex), to compare two parses.
    const infoJson = JSON.stringify(info, (_k, v: unknown) => (v instanceof Uint8Array ? bytesToHex(v) : v));
    let signature: string;
    try {
      signature = call(() => reader.checkSignature(false, undefined, undefined));
    } catch (e) {
      if (!(e instanceof VeilError) || e.code !== 'INVALID_SIGNATURE') throw e;
      signature = 'invalid';
    }
    assert.equal(reader.headerLength(), len);
    return { kind: 'header', info, infoJson, signature, headerHash: reader.headerHash(), containerLength: reader.containerLength(), rounds: 0 };
  } finally {
    reader.free();
  }
}

/** ts/files/source.ts `readHeader`: start with 8 KiB (or the whole source), grow to what the header asks for. */
function readHeader(source: Uint8Array): Outcome {
  let n = Math.min(source.length, 8192);
  try {
    for (let round = 1; ; round++) {
      assert.ok(round <= 4, 'readHeader did not converge (the needed length must grow every round)');
      const bytes = source.slice(0, n);
      const r = openHeader(bytes);
      if (!('needed' in r)) return { ...r, rounds: round };
      if (bytes.length < n || r.needed <= bytes.length) return { kind: 'error', code: 'TRUNCATED' };
      n = r.needed;
    }
  } catch (e) {
    if (e instanceof assert.AssertionError) throw e;
    if (!(e instanceof VeilError)) throw new assert.AssertionError({ message: `expected a VeilError, got ${String(e)}` });
    return { kind: 'error', code: e.code };
  }
}

/** The header-hash preimage (FORMAT.md §6.2) from the public fields, independently of the core (here with node:crypto). */
function preimageFromInfo(r: HeaderInfo): Uint8Array {
  const m = Buffer.alloc(62);
  m.write('vollcrypt-file-header-v1', 0, 'latin1');
  m.write(CONTAINER.magic, 24, 'latin1');
  m[32] = 0;
  Buffer.from(r.fileId).copy(m, 33);
  m.writeUInt32BE(r.chunkSize, 49);
  m.writeBigUInt64BE(BigInt(r.plaintextSize), 53);
  m[61] = r.hashAlgorithm === 'blake3' ? 1 : 0;
  return new Uint8Array(m);
}

function sha256(m: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(m).digest());
}

/**
 * The properties `info()` carries, held by the compiler to the shape the glue declares
 * (crate/src/wasm/header_info.rs): a key missing here or not declared there fails to compile,
 * and {@link checkShape} fails when the object the bindings build differs from these.
 */
const INFO_KEYS = {
  version: true, mode: true, fileId: true, chunkSize: true, plaintextSize: true, merkleRoot: true, hashAlgorithm: true,
  dekCommitment: true, headerHash: true, headerHashPreimage: true, headerLength: true, leafTableLength: true, containerLength: true, chunkCount: true,
  wraps: true, signer: true, sealed: true,
} satisfies Record<keyof wasm.HeaderInfo, true>;
const WRAP_KEYS = {
  pbkdf2: { type: true, iterations: true, salt: true, wrapped: true },
  argon2id: { type: true, memoryKib: true, iterations: true, parallelism: true, salt: true, wrapped: true },
  group: { type: true, groupId: true, keyVersion: true, wrapped: true },
  recipient: { type: true, recipientId: true, keyVersion: true, ciphertext: true, wrapped: true },
  threshold: { type: true, t: true, n: true, shareSetId: true, wrapped: true },
} satisfies { [T in wasm.HeaderWrapInfo['type']]: Record<keyof Extract<wasm.HeaderWrapInfo, { type: T }>, true> };
const SIGNER_KEYS = { ed25519: true, mlDsa65: true, keyLogId: true, timestamp: true } satisfies Record<keyof wasm.HeaderSignerInfo, true>;
const SEALED_KEYS = { mode: true, reason: true, timestamp: true, sealer: true } satisfies Record<keyof wasm.HeaderSealedInfo, true>;

function sameKeys(o: object, keys: object, what: string): void {
  assert.deepEqual(Object.keys(o).sort(), Object.keys(keys).sort(), `${what}: properties differ from the declared shape`);
}

/** `info()` is exactly the declared object: its properties, and byte strings as Uint8Arrays of their length. */
function checkShape(info: wasm.HeaderInfo, kind: string): void {
  sameKeys(info, INFO_KEYS, kind);
  for (const [name, len] of [['fileId', 16], ['merkleRoot', 32], ['dekCommitment', 32], ['headerHash', 32], ['headerHashPreimage', 62]] as const) {
    assert.ok(info[name] instanceof Uint8Array && info[name].length === len, `${kind}: ${name}`);
  }
  for (const w of info.wraps) {
    sameKeys(w, WRAP_KEYS[w.type], `${kind}: ${w.type} wrap`);
    assert.ok(w.wrapped instanceof Uint8Array && w.wrapped.length === 40, `${kind}: ${w.type} wrap: wrapped`);
  }
  if (info.signer !== null) sameKeys(info.signer, SIGNER_KEYS, `${kind}: signer`);
  if (info.sealed !== null) sameKeys(info.sealed, SEALED_KEYS, `${kind}: sealed`);
}

/** What an accepted header must satisfy, whatever bytes it came from. */
function checkHeader(o: Extract<Outcome, { kind: 'header' }>, source: Uint8Array, kind: string): void {
  const { info } = o;
  checkShape(info, kind);
  for (const [name, v] of Object.entries({ chunkSize: info.chunkSize, plaintextSize: info.plaintextSize, headerLength: info.headerLength, containerLength: info.containerLength, chunkCount: info.chunkCount })) {
    assert.ok(Number.isSafeInteger(v) && v >= 0, `${kind}: ${name} ${v} is not a safe integer`);
  }
  assert.ok(info.headerLength >= CONTAINER.fixedHeaderLength && info.headerLength <= CONTAINER.maxHeaderLength && info.headerLength <= source.length, kind);
  assert.ok(info.chunkSize >= CONTAINER.minChunkSize && info.chunkSize <= CONTAINER.maxChunkSize, kind);
  // The TypeScript geometry (ts/files-format.ts) agrees with the reader.
  assert.equal(info.chunkCount, chunkCount(info.plaintextSize, info.chunkSize), `${kind}: chunkCount`);
  assert.equal(info.containerLength, containerLength(info.headerLength, info.plaintextSize, info.chunkSize), `${kind}: containerLength`);
  assert.equal(o.containerLength, info.containerLength, kind);
  if (info.chunkCount > 0) {
    const last = info.chunkCount - 1;
    assert.equal(info.leafTableLength, CONTAINER.leafLength * info.chunkCount, `${kind}: leafTableLength`);
    assert.equal(envelopeOffset(info.chunkSize, last) + chunkLength(info, last) + CONTAINER.envelopeOverhead, info.containerLength - info.headerLength - info.leafTableLength, kind);
  }
  // The header hash computed from the public fields is the reader's, and the one info() carries (which the page uses);
  // so is the preimage info() carries (the page hands it to the identity unlock's DEK-commitment check).
  assert.ok(sameBytes(sha256(preimageFromInfo(info)), o.headerHash), `${kind}: header hash from info differs`);
  assert.ok(sameBytes(info.headerHashPreimage, preimageFromInfo(info)), `${kind}: info().headerHashPreimage differs`);
  assert.ok(sameBytes(sha256(info.headerHashPreimage), o.headerHash), `${kind}: info().headerHashPreimage does not hash to the header hash`);
  assert.ok(sameBytes(info.headerHash, o.headerHash), `${kind}: info().headerHash differs`);
  assert.ok(info.fileId instanceof Uint8Array && info.fileId.length === 16, `${kind}: fileId`);
  assert.ok(['unsigned', 'ed25519', 'hybrid', 'invalid'].includes(o.signature), kind);
  assert.equal(o.signature === 'unsigned', info.signer === null, `${kind}: signature status vs signer`);
  // The header alone (no trailing bytes) parses to the same thing.
  const again = openHeader(source.slice(0, info.headerLength));
  assert.ok(!('needed' in again) && again.infoJson === o.infoJson && again.signature === o.signature, `${kind}: header alone parses differently`);
}

function seeds(): { name: string; file: Uint8Array; header: number }[] {
  const out: { name: string; file: Uint8Array; header: number }[] = [];
  for (const dir of VECTOR_DIRS) {
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.vvlt')).sort()) {
      const file = new Uint8Array(readFileSync(`${dir}/${f}`));
      const header = call(() => wasm.containerHeaderLength(file));
      if (out.some((s) => sameBytes(s.file.subarray(0, s.header), file.subarray(0, header)))) continue;
      out.push({ name: `${dir}/${f}`, file, header });
    }
  }
  return out;
}

test('fuzz: container header as the file layer reads it (seeded mutations of every vector)', { timeout: 60_000 }, async (t) => {
  await P.init();
  const started = performance.now();
  const allowed = new Set<string>([...(wasm.containerErrorCodes() as string[]), ...VEIL_ERROR_CODES.slice(0, VEIL_ERROR_CODES.indexOf('NOT_INITIALIZED'))]);
  const rng = new Rng(0xc0_47a1);
  const tally = new Tally();
  const list = seeds();
  // vectors/container/*.vvlt and vectors/container/browser/*.vvlt with distinct headers.
  assert.equal(list.length, SEED_HEADERS, 'distinct vector headers');
  let accepted = 0;
  for (const s of list) {
    // Mutate the header plus a little of the first envelope (the prefix readHeader sees).
    const seed = s.file.slice(0, Math.min(s.file.length, s.header + 48));
    const base = readHeader(seed);
    assert.equal(base.kind, 'header', s.name);
    if (base.kind === 'header') {
      checkHeader(base, seed, s.name);
      assert.notEqual(base.signature, 'invalid', s.name);
    }
    const big = s.header > 2000;
    const plan: MutationPlan = {
      bitFlips: big ? 100 : 200, fieldBytes: [8, 9, 10, 27, 30, 31, 38, 71, 72, 73, 76, 79, 80, 81, 84], overwrites: 30,
      truncations: big ? 40 : 120, everyTruncation: true, extensions: 8, random: 20, prefixGarbage: 30,
    };
    for (const c of mutations(rng, seed, plan)) {
      const input = placed(rng, c.input);
      const kind = `${s.name}: ${c.kind}`;
      const o = readHeader(input);
      if (o.kind === 'error') {
        assert.ok(allowed.has(o.code), `${kind}: unexpected code ${o.code}`);
        tally.add(o.code);
      } else {
        checkHeader(o, input, kind);
        accepted++;
        tally.add(`header (${o.signature})`);
      }
    }
  }
  t.diagnostic(`container header mutations: ${list.length} vectors, ${tally.toString()} in ${(performance.now() - started).toFixed(0)} ms`);
  // A header asking for a plaintext size JS cannot hold exactly (2^54 + 1 bytes at 16 MiB chunks:
  // fewer than 2^32 chunks, so the format allows it): the reader must refuse it, not round it.
  const pbkdf2 = list.find((s) => s.name.endsWith('password_pbkdf2.vvlt'));
  assert.ok(pbkdf2);
  const huge = pbkdf2.file.slice(0, pbkdf2.header);
  const v = new DataView(huge.buffer);
  v.setUint32(27, CONTAINER.maxChunkSize);
  v.setBigUint64(31, 2n ** 54n + 1n);
  const o = readHeader(huge);
  assert.equal(o.kind === 'error' ? o.code : `accepted (plaintextSize ${o.info.plaintextSize})`, 'INVALID_PLAINTEXT_SIZE');
  tally.add('INVALID_PLAINTEXT_SIZE');
  // The number of mutants is a function of the seed, the plan and the vector files only.
  assert.equal(tally.total, MUTATION_CASES, 'mutation cases for seed 0xc047a1');
  assert.ok(accepted >= 500 && (tally.counts.get('header (invalid)') ?? 0) >= 100, 'too few mutants reached the signature check');
});

test('container header round trip: encryptor header → reader info, DEK and header hash agree', { timeout: 60_000 }, async (t) => {
  await P.init();
  const started = performance.now();
  const rng = new Rng(0xc0_47a2);
  let n = 0;
  let refused = 0;
  for (let k = 0; k < ROUND_TRIPS; k++) {
    const chunkSize = rng.pick([CONTAINER.minChunkSize, 4096 + rng.below(60_000), CONTAINER.maxChunkSize]);
    const plaintextSize = rng.pick([0, 1, chunkSize, chunkSize + 1, rng.below(5 * chunkSize), 2 ** 40 + rng.below(1000)]);
    const hashAlg = rng.below(2);
    const groups = Array.from({ length: 1 + rng.below(3) }, () => ({ id: rng.bytes(16), version: rng.u32(), key: rng.bytes(32) }));
    const enc = call(() => new wasm.ContainerEncryptorHandle(plaintextSize, chunkSize, hashAlg));
    let header: Uint8Array;
    let dek: Uint8Array;
    let fileId: Uint8Array;
    let hash: Uint8Array;
    try {
      for (const g of groups) call(() => enc.addGroup(g.id, g.version, g.key.slice()));
      const headerLength = call(() => enc.headerLength());
      const prefixLength = call(() => enc.prefixLength());
      dek = call(() => enc.takeDek());
      fileId = enc.fileId();
      hash = enc.headerHash();
      const count = enc.chunkCount();
      assert.equal(prefixLength, headerLength + 32 * count);
      // The leaf of every chunk (any bytes: the header commits to their Merkle root).
      if (count > 0 && count <= 64) call(() => enc.pushChunkLeaves(0, rng.bytes(32 * count)));
      if (count > 64) {
        // Not round-tripped (counted below): every leaf would have to be pushed first.
        assert.throws(() => call(() => enc.finish()), (e: unknown) => e instanceof VeilError && e.code === 'INVALID_STATE');
        refused++;
        continue;
      }
      header = call(() => enc.finish());
      assert.equal(header.length, prefixLength);
    } finally {
      enc.free();
    }
    const o = readHeader(header);
    assert.equal(o.kind, 'header');
    if (o.kind !== 'header') continue;
    checkHeader(o, header, `round trip ${k}`);
    assert.equal(o.info.plaintextSize, plaintextSize);
    assert.equal(o.info.chunkSize, chunkSize);
    assert.equal(o.info.hashAlgorithm, hashAlg === 1 ? 'blake3' : 'sha256');
    assert.equal(bytesToHex(o.info.fileId), bytesToHex(fileId));
    assert.equal(o.info.version, 4);
    assert.equal(o.signature, 'unsigned');
    assert.deepEqual(o.info.wraps.map((w) => (w.type === 'group' ? [bytesToHex(w.groupId), w.keyVersion] : [])), groups.map((g) => [bytesToHex(g.id), g.version]));
    assert.ok(sameBytes(o.headerHash, hash));
    const g = rng.pick(groups);
    const reader = call(() => new wasm.ContainerReaderHandle(header));
    try {
      call(() => reader.unlockGroup(g.id, g.version, g.key.slice()));
      assert.ok(sameBytes(call(() => reader.takeDek()), dek), `round trip ${k}: DEK`);
      // The DEK is handed out once (crate/src/wasm: "takeDek() hands the DEK out once and wipes it").
      assert.throws(() => call(() => reader.takeDek()), (e: unknown) => e instanceof VeilError && e.code === 'INVALID_STATE');
    } finally {
      reader.free();
    }
    n++;
  }
  const ms = performance.now() - started;
  t.diagnostic(`container header round trips: ${n} headers in ${ms.toFixed(0)} ms`);
  t.diagnostic(
    `container header round trips: ${refused} of ${ROUND_TRIPS} skipped: over 64 chunks (plaintext sizes up to 2^40 bytes), ` +
      'the encryptor needs every 32-byte leaf before finish(); only its INVALID_STATE refusal without them is checked',
  );
  assert.equal(n + refused, ROUND_TRIPS);
  assert.deepEqual({ n, refused }, ROUND_TRIP_SPLIT, 'round trips run / skipped (over 64 chunks) for seed 0xc047a2');
});

test('containerRecipientId: the core default recipient id (FORMAT.md §4.1) the identity unlock matches wraps with', async () => {
  await P.init();
  const [, pk] = xWingKeygen(new Uint8Array(32).fill(7));
  const rid = call(() => wasm.containerRecipientId(pk));
  // Independently of the core: SHA-256("vollcrypt-file-recipient-id-v1" ‖ pk)[0..16].
  const oracle = new Uint8Array(createHash('sha256').update('vollcrypt-file-recipient-id-v1', 'latin1').update(pk).digest()).slice(0, 16);
  assert.ok(sameBytes(rid, oracle), 'recipient id differs from SHA-256(label ‖ pk)[0..16]');
  // The id a recipient wrap carries by default (ContainerEncryptorHandle.addRecipient without an id).
  const enc = call(() => new wasm.ContainerEncryptorHandle(1, CONTAINER.minChunkSize, 0));
  try {
    assert.ok(sameBytes(call(() => enc.addRecipient(pk, 1, undefined)), rid), 'addRecipient default id differs');
  } finally {
    enc.free();
  }
  // Only a 1216-byte public key.
  for (const bad of [pk.subarray(1), new Uint8Array(1217), new Uint8Array(0)]) {
    assert.throws(() => call(() => wasm.containerRecipientId(bad)), (e: unknown) => e instanceof VeilError && e.code === 'INVALID_LENGTH', `${bad.length} bytes`);
  }
});
