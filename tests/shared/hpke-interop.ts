/**
 * Sealed box (ts/sealed.ts) against the independent HPKE implementation `@hpke/core` +
 * `@hpke/hybridkem-x-wing` (suite X-Wing / HKDF-SHA256 / AES-256-GCM), both directions, over
 * random plaintext sizes, infos and aads; exporter secrets; and the one opaque failure for any
 * tampered byte, a wrong info / aad / recipient. Shared by tests/node/hpke.test.ts and
 * tests/playwright/hpke.spec.ts (the library module is passed in: Node imports it, the page
 * loads an esbuild bundle of it).
 */
import type * as Api from '../../ts/index.js';

/** What the test needs of `@hpke/core` + `@hpke/hybridkem-x-wing`. */
export interface HpkeLib {
  CipherSuite: typeof import('@hpke/core').CipherSuite;
  Aes256Gcm: typeof import('@hpke/core').Aes256Gcm;
  HkdfSha256: typeof import('@hpke/core').HkdfSha256;
  XWing: typeof import('@hpke/hybridkem-x-wing').XWing;
}

export interface InteropReport {
  /** veilkit seal → library open, checked. */
  veilkitToLib: number;
  /** library seal → veilkit open, checked. */
  libToVeilkit: number;
  /** Exporter secrets compared (both directions). */
  exports: number;
  /** Tampered boxes / wrong inputs that failed with AUTHENTICATION_FAILED. */
  rejected: number;
  /** Plaintext sizes covered. */
  sizes: number[];
  failures: string[];
}

/** Deterministic PRNG (xorshift32) for sizes and contents, so a failure names a reproducible case. */
function prng(seed: number): (n: number) => number {
  let x = seed >>> 0 || 1;
  return (n: number) => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % n;
  };
}

function randomBytes(rand: (n: number) => number, len: number): Uint8Array {
  const b = new Uint8Array(len);
  for (let i = 0; i < len; i++) b[i] = rand(256);
  return b;
}

const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
const eq = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && hex(a) === hex(b);

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'no error';
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  }
}

/** Sizes: the edges and random ones up to 64 KiB. */
function sizesOf(rand: (n: number) => number, rounds: number): number[] {
  // 4095 | 4096: the sealed box's switch from the wasm AEAD to WebCrypto's (ts/sealed-native.ts NATIVE_AEAD_MIN).
  const fixed = [0, 1, 15, 16, 17, 255, 256, 1024, 4095, 4096, 65536, 300_001];
  const random = Array.from({ length: Math.max(0, rounds - fixed.length) }, () => rand(4) === 0 ? rand(65537) : rand(2049));
  return [...fixed, ...random];
}

/**
 * Runs the interop suite: `rounds` boxes each way (at least the 9 edge sizes), exports of random
 * lengths (1..255: @hpke/common 1.10.1 encodes I2OSP(L, 2) wrongly above 255, vectors/hpke/generate.mjs),
 * and the tamper matrix on one box from each side.
 */
export async function runInterop(api: typeof Api, lib: HpkeLib, rounds: number, seed = 19): Promise<InteropReport> {
  const rand = prng(seed);
  const kem = new lib.XWing();
  const suite = new lib.CipherSuite({ kem, kdf: new lib.HkdfSha256(), aead: new lib.Aes256Gcm() });
  const report: InteropReport = { veilkitToLib: 0, libToVeilkit: 0, exports: 0, rejected: 0, sizes: [], failures: [] };
  const fail = (msg: string) => report.failures.push(msg);
  const [sk, pk] = api.xWingKeygen();
  const libKey = await kem.generateKeyPairDerand(sk);
  const libPk = new Uint8Array(await suite.kem.serializePublicKey(libKey.publicKey));
  if (!eq(libPk, pk)) fail('the library derives a different public key from the same X-Wing seed');
  const sizes = sizesOf(rand, rounds);
  report.sizes = sizes;
  for (const [i, size] of sizes.entries()) {
    const pt = randomBytes(rand, size);
    const info = randomBytes(rand, rand(3) === 0 ? 0 : rand(200));
    const aad = randomBytes(rand, rand(3) === 0 ? 0 : rand(200));
    // veilkit → library
    const box = await api.seal(pk, pt, { info, aad });
    if (box.length !== size + api.SEALED_BOX.overhead) fail(`case ${i}: sealed length ${box.length}`);
    const enc = box.slice(0, api.SEALED_BOX.encLength);
    const recipient = await suite.createRecipientContext({ recipientKey: libKey, enc, info });
    try {
      const got = new Uint8Array(await recipient.open(box.slice(api.SEALED_BOX.encLength), aad));
      if (eq(got, pt)) report.veilkitToLib++;
      else fail(`case ${i}: library opened veilkit's box to different bytes`);
    } catch (e) {
      fail(`case ${i} (size ${size}): library failed to open veilkit's box: ${String(e)}`);
    }
    // library → veilkit
    const sender = await suite.createSenderContext({ recipientPublicKey: libKey.publicKey, info });
    const ct = new Uint8Array(await sender.seal(pt, aad));
    const libBox = new Uint8Array(sender.enc.byteLength + ct.length);
    libBox.set(new Uint8Array(sender.enc));
    libBox.set(ct, sender.enc.byteLength);
    try {
      const got = await api.open(libBox, { xWingSecretKey: sk }, { info, aad });
      if (eq(got, pt)) report.libToVeilkit++;
      else fail(`case ${i}: veilkit opened the library's box to different bytes`);
    } catch (e) {
      fail(`case ${i} (size ${size}): veilkit failed to open the library's box: ${String(e)}`);
    }
    // Exporter secrets, both directions (the library's sender context above, and veilkit's sealExport).
    const exporterContext = randomBytes(rand, rand(64));
    const length = 1 + rand(255);
    const mine = await api.openExport(new Uint8Array(sender.enc), { xWingSecretKey: sk }, { info, exporterContext, length });
    const theirs = new Uint8Array(await sender.export(exporterContext, length));
    if (eq(mine, theirs)) report.exports++;
    else fail(`case ${i}: export (L=${length}) of the library's context differs`);
    const sent = await api.sealExport(pk, { info, exporterContext, length });
    const rctx = await suite.createRecipientContext({ recipientKey: libKey, enc: sent.enc, info });
    if (eq(sent.secret, new Uint8Array(await rctx.export(exporterContext, length)))) report.exports++;
    else fail(`case ${i}: export (L=${length}) of veilkit's sealExport differs`);
  }
  // Tamper matrix: every byte position class of enc and ct, from both implementations' boxes.
  const pt = randomBytes(rand, 100);
  const info = randomBytes(rand, 20);
  const aad = randomBytes(rand, 20);
  const ours = await api.seal(pk, pt, { info, aad });
  const sender = await suite.createSenderContext({ recipientPublicKey: libKey.publicKey, info });
  const theirCt = new Uint8Array(await sender.seal(pt, aad));
  const theirs = new Uint8Array([...new Uint8Array(sender.enc), ...theirCt]);
  const [otherSk] = api.xWingKeygen();
  for (const [who, box] of [['veilkit', ours], ['library', theirs]] as const) {
    const positions = [0, 1, 500, 1087, 1088, 1100, 1119, 1120, 1121, 1219, box.length - 16, box.length - 1];
    for (let k = 0; k < 24; k++) positions.push(rand(box.length));
    for (const at of positions) {
      const bad = box.slice();
      bad[at]! ^= 1 << rand(8);
      const c = await code(api.open(bad, { xWingSecretKey: sk }, { info, aad }));
      if (c === 'AUTHENTICATION_FAILED') report.rejected++;
      else fail(`${who} box, byte ${at} flipped: ${c}`);
    }
    const wrongInfo = info.slice();
    wrongInfo[0]! ^= 1;
    const wrongAad = aad.slice();
    wrongAad[19]! ^= 0x80;
    for (const [what, p] of [
      ['wrong info', api.open(box, { xWingSecretKey: sk }, { info: wrongInfo, aad })],
      ['no info', api.open(box, { xWingSecretKey: sk }, { aad })],
      ['wrong aad', api.open(box, { xWingSecretKey: sk }, { info, aad: wrongAad })],
      ['no aad', api.open(box, { xWingSecretKey: sk }, { info })],
      ['wrong recipient', api.open(box, { xWingSecretKey: otherSk }, { info, aad })],
    ] as const) {
      const c = await code(p);
      if (c === 'AUTHENTICATION_FAILED') report.rejected++;
      else fail(`${who} box, ${what}: ${c}`);
    }
    // The library agrees that the tampered box is not authentic (a sanity check of the matrix).
    const bad = box.slice();
    bad[1200]! ^= 1;
    const rctx = await suite.createRecipientContext({ recipientKey: libKey, enc: bad.slice(0, 1120), info });
    if ((await code(rctx.open(bad.slice(1120), aad))) === 'no error') fail(`${who} box: the library opened a tampered box`);
  }
  return report;
}

/** The shape checks of the facade (no wasm call): wrong types and sizes are TypeError / RangeError before WebAssembly. */
export async function argumentChecks(api: typeof Api): Promise<string[]> {
  const failures: string[] = [];
  const [sk, pk] = api.xWingKeygen();
  /** `kind`: the error's name, or the code of a VeilError (untrusted bytes: a box or an `enc` from someone else). */
  const expectThrow = async (what: string, p: () => Promise<unknown>, kind: 'TypeError' | 'RangeError' | 'INVALID_LENGTH') => {
    try {
      await p();
      failures.push(`${what}: no error`);
    } catch (e) {
      const got = e instanceof api.VeilError ? e.code : (e as Error).name;
      if (got !== kind) failures.push(`${what}: ${got} ${(e as Error).message}`);
    }
  };
  const big = new Uint8Array(api.SEALED_BOX.maxInfoLength + 1);
  await expectThrow('short recipient', () => api.seal(pk.subarray(1), new Uint8Array(1)), 'RangeError');
  await expectThrow('recipient of wrong type', () => api.seal('pk' as unknown as Uint8Array, new Uint8Array(1)), 'TypeError');
  await expectThrow('info over 64 KiB', () => api.seal(pk, new Uint8Array(1), { info: big }), 'RangeError');
  await expectThrow('aad over 64 KiB', () => api.seal({ xWing: pk }, new Uint8Array(1), { aad: big }), 'RangeError');
  await expectThrow('plaintext over 16 MiB', () => api.seal(pk, new Uint8Array(api.SEALED_BOX.maxPlaintextLength + 1)), 'RangeError');
  await expectThrow('sealed too short', () => api.open(new Uint8Array(1135), { xWingSecretKey: sk }), 'INVALID_LENGTH');
  await expectThrow('secret key of 31 bytes', () => api.open(new Uint8Array(1136), { xWingSecretKey: sk.subarray(1) }), 'RangeError');
  await expectThrow('no key', () => api.open(new Uint8Array(1136), {} as Api.OpenKey), 'TypeError');
  await expectThrow('export length 0', () => api.sealExport(pk, { length: 0 }), 'RangeError');
  await expectThrow('export length 8161', () => api.sealExport(pk, { length: 8161 }), 'RangeError');
  await expectThrow('enc of 1119 bytes', () => api.openExport(new Uint8Array(1119), { xWingSecretKey: sk }, { length: 32 }), 'INVALID_LENGTH');
  // The caller's buffers are not modified.
  const pt = new Uint8Array([1, 2, 3]);
  const box = await api.seal(pk, pt);
  const copy = box.slice();
  await api.open(box, { xWingSecretKey: sk });
  if (!eq(pt, new Uint8Array([1, 2, 3])) || !eq(box, copy)) failures.push('a caller buffer was modified');
  // 8160-byte exports agree between the two sides (not comparable with the library: see runInterop).
  const e = await api.sealExport(pk, { length: 8160 });
  const r = await api.openExport(e.enc, { xWingSecretKey: sk }, { length: 8160 });
  if (!eq(e.secret, r) || r.length !== 8160) failures.push('8160-byte export differs between sender and recipient');
  return failures;
}
