// Known-answer vector suites run through the PUBLIC TypeScript API.
//
// Shared by the Node tests (tests/node/vectors.test.ts, fs loader) and the
// browser tests (tests/playwright/fixtures/vector-worker.ts and threads-worker.ts,
// fetch loader), so every runtime checks exactly the same cases with the same rules.
//
// Every case is tallied under a kind ("valid", "refused: wrong IV length", …) and counted
// as passed (every check held) or failed (a check failed, nothing was checked, or the
// harness threw). The numbers a run must reach are pinned in EXPECTED below, written
// down from the vector files, not computed by the loops that run them: a loader or a
// filter that drops cases shows up as fewer passes than pinned. Wycheproof files are
// also checked against their own `numberOfTests`.

export type VeilkitApi = typeof import('../../ts/index.js');

/** Cases deliberately not run, with the reason. */
export interface Skip {
  count: number;
  reason: string;
}

export interface SuiteReport {
  family: Family;
  /** Cases whose every check held. */
  passed: number;
  /** Cases with a failed check, no check at all, a harness error, or a suite-level failure. */
  failed: number;
  /** Cases run, by kind (passed + failed). */
  tallies: Record<string, number>;
  /** At most MAX_FAILURES messages; the last one says how many were left out. */
  failures: string[];
  /** Cases not run, each with its reason (in neither passed nor failed). */
  skipped: Skip[];
}

export type Loader = (path: string) => Promise<string>;

const MAX_FAILURES = 20;
/** Argon2id cases needing more memory than this are skipped (with a reason). */
const ARGON2_MAX_MEMORY_KIB = 1024 * 1024;

/** The vector files each family reads (paths relative to the repository root). */
export const VECTOR_FILES = {
  aesGcm: 'vectors/aes-gcm/aes_gcm_test.json',
  x25519: 'vectors/x25519/x25519_test.json',
  ed25519: 'vectors/ed25519/ed25519_test.json',
  hkdf: 'vectors/hkdf-sha256/hkdf_sha256_test.json',
  mlKemKeygen: 'vectors/ml-kem-768/mlkem_768_keygen_seed_test.json',
  mlKemEncaps: 'vectors/ml-kem-768/mlkem_768_encaps_test.json',
  mlKemDecaps: 'vectors/ml-kem-768/mlkem_768_test.json',
  xWing: 'vectors/x-wing/xwing_test-vectors.json',
  mlDsaSignSeed: 'vectors/ml-dsa-65/mldsa_65_sign_seed_test.json',
  mlDsaSignNoseed: 'vectors/ml-dsa-65/mldsa_65_sign_noseed_test.json',
  mlDsaVerify: 'vectors/ml-dsa-65/mldsa_65_verify_test.json',
  mlDsaKeygen: 'vectors/ml-dsa-65/acvp_ML-DSA-key-gen.json',
  mlDsaSigGen: 'vectors/ml-dsa-65/acvp_ML-DSA-sig-gen.json',
  mlDsaSigVer: 'vectors/ml-dsa-65/acvp_ML-DSA-sig-ver.json',
  argon2id: 'vectors/argon2id/argon2id_v13_vectors.json',
} as const;

export const FAMILIES = [
  'AES-GCM',
  'X25519',
  'Ed25519',
  'HKDF-SHA256',
  'ML-KEM-768',
  'X-Wing',
  'ML-DSA-65',
  'Argon2id',
] as const;
export type Family = (typeof FAMILIES)[number];

/** What each family must report: cases run by kind (all must pass) and cases skipped. */
export interface Expectation {
  cases: Readonly<Record<string, number>>;
  skipped: number;
}

/**
 * Pinned from the vector files (the Wycheproof `numberOfTests`, the ACVP group sizes, the
 * array lengths), kind by kind; crate/tests pins the same splits natively.
 */
export const EXPECTED: Readonly<Record<Family, Expectation>> = {
  // aes_gcm_test.json: 316 tests = 105 with 256-bit keys (66 with a 96-bit IV, 39 with other
  // IV lengths) + 211 with 128/192-bit keys.
  'AES-GCM': {
    cases: {
      'AES-256, 96-bit IV: valid': 39,
      'AES-256, 96-bit IV: invalid → AUTHENTICATION_FAILED': 27,
      'AES-256, other IV length → RangeError': 39,
      'AES-128/192 key → RangeError': 211,
    },
    skipped: 0,
  },
  // x25519_test.json: 518 tests.
  X25519: {
    cases: { 'shared secret': 487, 'all-zero shared secret → WEAK_KEY': 31 },
    skipped: 0,
  },
  // ed25519_test.json: 151 tests.
  Ed25519: {
    cases: { valid: 88, 'invalid → false': 51, 'invalid, signature not 64 bytes → RangeError': 12 },
    skipped: 0,
  },
  // hkdf_sha256_test.json: 86 tests.
  'HKDF-SHA256': {
    cases: { valid: 83, 'keyLen 8161 → RangeError': 3 },
    skipped: 0,
  },
  // keygen_seed 100 + encaps 265 + mlkem_768_test 201 = 566.
  'ML-KEM-768': {
    cases: {
      'keygen from seed': 100,
      'encapsulation: valid': 133,
      'encapsulation: key fails the modulus check → INVALID_KEY': 112,
      'encapsulation: key not 1184 bytes → RangeError': 20,
      'decapsulation: valid': 161,
      'decapsulation: seed not 64 bytes → RangeError': 20,
      'decapsulation: ciphertext not 1088 bytes → RangeError': 20,
    },
    skipped: 0,
  },
  // xwing_test-vectors.json: 3 vectors.
  'X-Wing': { cases: { 'keygen + encapsulation + decapsulation': 3 }, skipped: 0 },
  // sign_seed 105 (88 with a message) + verify 210 + ACVP key-gen ML-DSA-65 25 = 323 run;
  // skipped: 17 external-μ cases of sign_seed, sign_noseed 78, ACVP sig-gen 20 + sig-ver 15.
  'ML-DSA-65': {
    cases: {
      'sign (seed): valid': 84,
      'sign (seed): invalid → RangeError': 4,
      'verify: valid': 79,
      'verify: invalid → false': 122,
      'verify: invalid key length or context → RangeError': 9,
      'ACVP keygen': 25,
    },
    skipped: 17 + 78 + 20 + 15,
  },
  // argon2id_v13_vectors.json: 9 vectors, all within the 1 GiB cap.
  Argon2id: { cases: { tag: 9 }, skipped: 0 },
};

/** Sum of a family's pinned cases. */
export function expectedCases(family: Family): number {
  return Object.values(EXPECTED[family].cases).reduce((n, k) => n + k, 0);
}

/** Sum of a report's skipped cases. */
export function skippedCases(r: SuiteReport): number {
  return r.skipped.reduce((n, k) => n + k.count, 0);
}

// ---------------------------------------------------------------------------
// Wycheproof file shapes (only the fields used here)

interface WycheproofFile<G> {
  algorithm: string;
  numberOfTests?: number;
  testGroups: G[];
}
interface WpTest {
  tcId: number | string;
  comment?: string;
  flags?: string[];
  result: 'valid' | 'invalid' | 'acceptable';
}
interface AeadGroup {
  keySize: number;
  ivSize: number;
  tagSize: number;
  tests: (WpTest & { key: string; iv: string; aad: string; msg: string; ct: string; tag: string })[];
}
interface XdhGroup {
  curve: string;
  tests: (WpTest & { public: string; private: string; shared: string })[];
}
interface EddsaGroup {
  publicKey: { pk: string };
  tests: (WpTest & { msg: string; sig: string })[];
}
interface HkdfGroup {
  tests: (WpTest & { ikm: string; salt: string; info: string; size: number | string; okm: string })[];
}
interface MlKemKeygenGroup {
  parameterSet: string;
  tests: (WpTest & { seed: string; ek: string; dk: string })[];
}
interface MlKemEncapsGroup {
  parameterSet: string;
  tests: (WpTest & { m: string; ek: string; c: string; K: string })[];
}
interface MlKemDecapsGroup {
  parameterSet: string;
  tests: (WpTest & { seed: string; ek?: string; c: string; K: string })[];
}
interface MlDsaSignGroup {
  privateSeed: string;
  publicKey?: string;
  tests: (WpTest & { msg?: string; ctx?: string; rnd?: string; sig: string })[];
}
interface MlDsaVerifyGroup {
  publicKey: string;
  tests: (WpTest & { msg: string; ctx?: string; sig: string })[];
}
interface AcvpMlDsaKeygenGroup {
  parameterSet: string;
  tests: { tcId: number; seed: string; pk: string }[];
}
interface AcvpMlDsaGroup {
  parameterSet: string;
  tests: unknown[];
}
interface XWingVector {
  seed: string;
  sk: string;
  pk: string;
  eseed: string;
  ct: string;
  ss: string;
}
interface Argon2Vector {
  name: string;
  password: string;
  salt: string;
  secret: string;
  ad: string;
  t: number;
  m_kib: number;
  p: number;
  tagLen: number;
  tag: string;
}

// ---------------------------------------------------------------------------
// Helpers

export function fromHex(hex: string): Uint8Array {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) {
    throw new Error(`bad hex string (length ${hex.length})`);
  }
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function toHex(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

function short(hex: string): string {
  return hex.length > 48 ? `${hex.slice(0, 24)}…${hex.slice(-16)} (${hex.length / 2} bytes)` : hex;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

function describeError(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    return `${e.name}${typeof code === 'string' ? `[${code}]` : ''}: ${e.message}`;
  }
  return `non-Error thrown: ${String(e)}`;
}

/** What a rejected case must throw. */
type Rejection =
  | { kind: 'range'; names: RegExp } // wrong length: RangeError naming the argument (facade contract)
  | { kind: 'veil'; code: string }; // VeilError with exactly this code

class Case {
  /** Checks made (each bytes/equal/rejects/ok call). */
  checks = 0;
  /** Checks that failed. */
  failedChecks = 0;

  constructor(
    private readonly report: SuiteReport,
    private readonly sink: { total: number },
    private readonly label: string,
  ) {}

  fail(message: string): void {
    this.failedChecks++;
    this.sink.total++;
    if (this.report.failures.length < MAX_FAILURES) this.report.failures.push(`${this.label}: ${message}`);
  }

  bytes(what: string, got: unknown, wantHex: string): void {
    this.checks++;
    if (!(got instanceof Uint8Array)) {
      this.fail(`${what}: expected a Uint8Array, got ${Object.prototype.toString.call(got)}`);
      return;
    }
    const gotHex = toHex(got);
    if (gotHex !== wantHex.toLowerCase()) this.fail(`${what}: expected ${short(wantHex)}, got ${short(gotHex)}`);
  }

  equal<T>(what: string, got: T, want: T): void {
    this.checks++;
    if (got !== want) this.fail(`${what}: expected ${String(want)}, got ${String(got)}`);
  }

  /** Runs fn; any throw is a failure. Returns undefined on throw. */
  ok<T>(what: string, fn: () => T): T | undefined {
    this.checks++;
    try {
      return fn();
    } catch (e) {
      this.fail(`${what} threw ${describeError(e)}`);
      return undefined;
    }
  }

  rejects(api: VeilkitApi, what: string, rejection: Rejection, fn: () => unknown): void {
    this.checks++;
    let result: unknown;
    try {
      result = fn();
    } catch (e) {
      switch (rejection.kind) {
        case 'range':
          if (!(e instanceof RangeError)) this.fail(`${what}: expected RangeError, got ${describeError(e)}`);
          else if (!rejection.names.test(e.message)) {
            this.fail(`${what}: RangeError should name the argument (${rejection.names}), got "${e.message}"`);
          }
          return;
        case 'veil': {
          const code = e instanceof api.VeilError ? e.code : undefined;
          if (code !== rejection.code) this.fail(`${what}: expected VeilError[${rejection.code}], got ${describeError(e)}`);
          return;
        }
      }
    }
    const shown = result instanceof Uint8Array ? short(toHex(result)) : typeof result;
    this.fail(`${what}: expected a throw, returned ${shown}`);
  }
}

class Suite {
  readonly report: SuiteReport;
  private readonly sink = { total: 0 };

  constructor(family: Family) {
    this.report = { family, passed: 0, failed: 0, tallies: {}, failures: [], skipped: [] };
  }

  /**
   * Runs one case of the given kind. It passes only if it made at least one check and
   * every check held; a throw escaping `body` is that case's failure.
   */
  run(label: string, kind: string, body: (c: Case) => void): void {
    const c = new Case(this.report, this.sink, label);
    try {
      body(c);
    } catch (e) {
      c.fail(`harness error: ${describeError(e)}`);
    }
    if (c.checks === 0 && c.failedChecks === 0) c.fail('no check was made');
    this.report.tallies[kind] = (this.report.tallies[kind] ?? 0) + 1;
    if (c.failedChecks === 0) this.report.passed++;
    else this.report.failed++;
  }

  skip(count: number, reason: string): void {
    this.report.skipped.push({ count, reason });
  }

  /** A failure outside any case (file missing, bad JSON, a file shorter than it says …). */
  fatal(message: string): void {
    new Case(this.report, this.sink, 'suite').fail(message);
    this.report.failed++;
  }

  /** A Wycheproof file must hold as many tests as its `numberOfTests` says. */
  wycheproof<G extends { tests: unknown[] }>(path: string, file: WycheproofFile<G>): void {
    const n = file.testGroups.reduce((k, g) => k + g.tests.length, 0);
    if (file.numberOfTests !== n) this.fatal(`${basename(path)}: numberOfTests is ${String(file.numberOfTests)}, the groups hold ${n}`);
  }

  finish(): SuiteReport {
    const { failures } = this.report;
    if (this.sink.total > failures.length) {
      failures[MAX_FAILURES - 1] = `… ${this.sink.total - (MAX_FAILURES - 1)} more failures not shown (${this.sink.total} in all)`;
    }
    return this.report;
  }
}

async function loadJson<T>(load: Loader, path: string): Promise<T> {
  const text = await load(path);
  return JSON.parse(text) as T;
}

function tc(file: string, t: WpTest): string {
  const comment = t.comment ? ` (${t.comment})` : '';
  return `${file} tcId ${t.tcId}${comment}`;
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

const AES_GCM_IV_BITS = 96;

// ---------------------------------------------------------------------------
// Families

/**
 * AES-GCM, every Wycheproof case. 256-bit keys: 96-bit IVs give KAT + tamper checks, other IV
 * sizes must be refused (RangeError naming the iv); 128/192-bit keys must be refused
 * (RangeError naming the key: veilkit is AES-256 only, as crate/tests/sym_aead.rs checks).
 */
async function aesGcm(api: VeilkitApi, load: Loader, s: Suite): Promise<void> {
  const path = VECTOR_FILES.aesGcm;
  const file = await loadJson<WycheproofFile<AeadGroup>>(load, path);
  s.wycheproof(path, file);
  for (const g of file.testGroups) {
    for (const t of g.tests) {
      const key = fromHex(t.key);
      const iv = fromHex(t.iv);
      const aad = fromHex(t.aad);
      const msg = fromHex(t.msg);
      const sealed = fromHex(t.ct + t.tag);
      if (g.keySize !== 256) {
        s.run(tc(basename(path), t), 'AES-128/192 key → RangeError', (c) => {
          c.equal('key length', key.length * 8, g.keySize);
          c.rejects(api, `encryptAesGcmWithIv with a ${g.keySize}-bit key`, { kind: 'range', names: /^key\b/ }, () =>
            api.encryptAesGcmWithIv(key, iv, msg, aad),
          );
          c.rejects(api, `decryptAesGcmWithIv with a ${g.keySize}-bit key`, { kind: 'range', names: /^key\b/ }, () =>
            api.decryptAesGcmWithIv(key, iv, sealed, aad),
          );
        });
        continue;
      }
      if (g.ivSize !== AES_GCM_IV_BITS) {
        s.run(tc(basename(path), t), 'AES-256, other IV length → RangeError', (c) => {
          c.rejects(api, `encryptAesGcmWithIv with a ${g.ivSize}-bit IV`, { kind: 'range', names: /^iv\b/ }, () =>
            api.encryptAesGcmWithIv(key, iv, msg, aad),
          );
          c.rejects(api, `decryptAesGcmWithIv with a ${g.ivSize}-bit IV`, { kind: 'range', names: /^iv\b/ }, () =>
            api.decryptAesGcmWithIv(key, iv, sealed, aad),
          );
        });
        continue;
      }
      if (t.result === 'invalid') {
        s.run(tc(basename(path), t), 'AES-256, 96-bit IV: invalid → AUTHENTICATION_FAILED', (c) => {
          c.rejects(api, 'decryptAesGcmWithIv', { kind: 'veil', code: 'AUTHENTICATION_FAILED' }, () =>
            api.decryptAesGcmWithIv(key, iv, sealed, aad),
          );
          // The envelope form (iv ‖ ct ‖ tag) must reject the same bytes.
          c.rejects(api, 'decryptAesGcm', { kind: 'veil', code: 'AUTHENTICATION_FAILED' }, () =>
            api.decryptAesGcm(key, concat(iv, sealed), aad),
          );
        });
        continue;
      }
      s.run(tc(basename(path), t), `AES-256, 96-bit IV: ${t.result}`, (c) => {
        c.equal('tag size', g.tagSize, 128);
        const enc = c.ok('encryptAesGcmWithIv', () => api.encryptAesGcmWithIv(key, iv, msg, aad));
        if (enc !== undefined) c.bytes('encryptAesGcmWithIv', enc, t.ct + t.tag);
        const dec = c.ok('decryptAesGcmWithIv', () => api.decryptAesGcmWithIv(key, iv, sealed, aad));
        if (dec !== undefined) c.bytes('decryptAesGcmWithIv', dec, t.msg);
        const dec2 = c.ok('decryptAesGcm(iv‖ct‖tag)', () => api.decryptAesGcm(key, concat(iv, sealed), aad));
        if (dec2 !== undefined) c.bytes('decryptAesGcm(iv‖ct‖tag)', dec2, t.msg);
        if (aad.length === 0) {
          const noAad = c.ok('encryptAesGcmWithIv without aad', () => api.encryptAesGcmWithIv(key, iv, msg));
          if (noAad !== undefined) c.bytes('encryptAesGcmWithIv without aad', noAad, t.ct + t.tag);
        }
      });
    }
  }
}

/**
 * X25519: every Wycheproof case. The file has no `invalid` case (low-order and twist points
 * are `acceptable`/`valid` with their RFC 7748 output): an all-zero shared secret must throw
 * VeilError WEAK_KEY (ts/x25519.ts), every other case must give the expected secret.
 */
async function x25519(api: VeilkitApi, load: Loader, s: Suite): Promise<void> {
  const path = VECTOR_FILES.x25519;
  const file = await loadJson<WycheproofFile<XdhGroup>>(load, path);
  s.wycheproof(path, file);
  const zero = '00'.repeat(32);
  for (const g of file.testGroups) {
    for (const t of g.tests) {
      const priv = fromHex(t.private);
      const pub = fromHex(t.public);
      if (g.curve !== 'curve25519' || t.result === 'invalid') {
        s.run(tc(basename(path), t), 'unexpected case', (c) => c.fail(`no ${g.curve} ${t.result} case is expected in this file`));
      } else if (t.shared.toLowerCase() === zero) {
        s.run(tc(basename(path), t), 'all-zero shared secret → WEAK_KEY', (c) =>
          c.rejects(api, 'ecdhSharedSecret (all-zero shared secret)', { kind: 'veil', code: 'WEAK_KEY' }, () =>
            api.ecdhSharedSecret(priv, pub),
          ),
        );
      } else {
        s.run(tc(basename(path), t), 'shared secret', (c) => {
          const shared = c.ok('ecdhSharedSecret', () => api.ecdhSharedSecret(priv, pub));
          if (shared !== undefined) c.bytes('ecdhSharedSecret', shared, t.shared);
        });
      }
    }
  }
}

/**
 * Ed25519: every Wycheproof case. valid → true; invalid → false; a signature that is not 64
 * bytes → RangeError naming the signature (ts/ed25519.ts: "throws only for wrong argument
 * types/lengths").
 */
async function ed25519(api: VeilkitApi, load: Loader, s: Suite): Promise<void> {
  const path = VECTOR_FILES.ed25519;
  const file = await loadJson<WycheproofFile<EddsaGroup>>(load, path);
  s.wycheproof(path, file);
  for (const g of file.testGroups) {
    const pk = fromHex(g.publicKey.pk);
    for (const t of g.tests) {
      const msg = fromHex(t.msg);
      const sig = fromHex(t.sig);
      if (t.result === 'valid') {
        s.run(tc(basename(path), t), 'valid', (c) => {
          c.equal('verifySignature', c.ok('verifySignature', () => api.verifySignature(pk, msg, sig)), true);
        });
      } else if (t.result === 'invalid' && sig.length !== 64) {
        s.run(tc(basename(path), t), 'invalid, signature not 64 bytes → RangeError', (c) =>
          c.rejects(api, `verifySignature (${sig.length}-byte signature)`, { kind: 'range', names: /^signature\b/ }, () =>
            api.verifySignature(pk, msg, sig),
          ),
        );
      } else {
        s.run(tc(basename(path), t), `${t.result} → false`, (c) => {
          c.equal('verifySignature', c.ok('verifySignature', () => api.verifySignature(pk, msg, sig)), false);
        });
      }
    }
  }
}

/** HKDF-SHA256: every Wycheproof case; the invalid ones ask for 8161 bytes: RangeError naming keyLen. */
async function hkdf(api: VeilkitApi, load: Loader, s: Suite): Promise<void> {
  const path = VECTOR_FILES.hkdf;
  const file = await loadJson<WycheproofFile<HkdfGroup>>(load, path);
  s.wycheproof(path, file);
  for (const g of file.testGroups) {
    for (const t of g.tests) {
      const ikm = fromHex(t.ikm);
      const salt = fromHex(t.salt);
      const info = fromHex(t.info);
      const size = Number(t.size);
      if (t.result === 'invalid') {
        s.run(tc(basename(path), t), `keyLen ${size} → RangeError`, (c) =>
          c.rejects(api, `deriveHkdf(keyLen ${size})`, { kind: 'range', names: /^keyLen\b/ }, () => api.deriveHkdf(ikm, salt, info, size)),
        );
        continue;
      }
      s.run(tc(basename(path), t), t.result, (c) => {
        const okm = c.ok('deriveHkdf', () => api.deriveHkdf(ikm, salt, info, size));
        if (okm !== undefined) c.bytes('deriveHkdf', okm, t.okm);
        // An absent salt is HashLen zero bytes, which HMAC treats like the empty salt.
        if (salt.length === 0 || info.length === 0) {
          const nulls = c.ok('deriveHkdf with null salt/info', () =>
            api.deriveHkdf(ikm, salt.length === 0 ? null : salt, info.length === 0 ? null : info, size),
          );
          if (nulls !== undefined) c.bytes('deriveHkdf with null salt/info', nulls, t.okm);
        }
      });
    }
  }
}

const MLKEM768_EK = 1184;
const MLKEM768_CT = 1088;
const MLKEM_SEED = 64;

/** ML-KEM-768: seed keygen, derandomised encapsulation (modulus check), seed keygen + decapsulation. */
async function mlKem(api: VeilkitApi, load: Loader, s: Suite): Promise<void> {
  const keygenPath = VECTOR_FILES.mlKemKeygen;
  const encapsPath = VECTOR_FILES.mlKemEncaps;
  const decapsPath = VECTOR_FILES.mlKemDecaps;
  const keygen = await loadJson<WycheproofFile<MlKemKeygenGroup>>(load, keygenPath);
  const encaps = await loadJson<WycheproofFile<MlKemEncapsGroup>>(load, encapsPath);
  const decaps = await loadJson<WycheproofFile<MlKemDecapsGroup>>(load, decapsPath);
  s.wycheproof(keygenPath, keygen);
  s.wycheproof(encapsPath, encaps);
  s.wycheproof(decapsPath, decaps);
  const unexpected = (label: string, g: { parameterSet: string }): void =>
    s.run(label, 'unexpected case', (c) => c.fail(`parameter set ${g.parameterSet}`));

  for (const g of keygen.testGroups) {
    for (const t of g.tests) {
      if (g.parameterSet !== 'ML-KEM-768') {
        unexpected(tc(basename(keygenPath), t), g);
        continue;
      }
      s.run(tc(basename(keygenPath), t), 'keygen from seed', (c) => {
        c.equal('result', t.result, 'valid');
        const kp = c.ok('mlKemKeygen(seed)', () => api.mlKemKeygen(fromHex(t.seed)));
        if (kp === undefined) return;
        c.bytes('decapsulation key', kp[0], t.dk);
        c.bytes('encapsulation key', kp[1], t.ek);
      });
    }
  }

  for (const g of encaps.testGroups) {
    for (const t of g.tests) {
      if (g.parameterSet !== 'ML-KEM-768') {
        unexpected(tc(basename(encapsPath), t), g);
        continue;
      }
      const ek = fromHex(t.ek);
      const m = fromHex(t.m);
      if (t.result === 'invalid' && ek.length === MLKEM768_EK) {
        s.run(tc(basename(encapsPath), t), 'encapsulation: key fails the modulus check → INVALID_KEY', (c) =>
          c.rejects(api, 'mlKemEncapsulateDerand', { kind: 'veil', code: 'INVALID_KEY' }, () => api.mlKemEncapsulateDerand(ek, m)),
        );
      } else if (t.result === 'invalid') {
        s.run(tc(basename(encapsPath), t), 'encapsulation: key not 1184 bytes → RangeError', (c) =>
          c.rejects(api, `mlKemEncapsulateDerand (${ek.length}-byte ek)`, { kind: 'range', names: /^encapsulationKey\b/ }, () =>
            api.mlKemEncapsulateDerand(ek, m),
          ),
        );
      } else {
        s.run(tc(basename(encapsPath), t), 'encapsulation: valid', (c) => {
          const out = c.ok('mlKemEncapsulateDerand', () => api.mlKemEncapsulateDerand(ek, m));
          if (out === undefined) return;
          c.bytes('ciphertext', out.ciphertext, t.c);
          c.bytes('sharedSecret', out.sharedSecret, t.K);
        });
      }
    }
  }

  for (const g of decaps.testGroups) {
    for (const t of g.tests) {
      if (g.parameterSet !== 'ML-KEM-768') {
        unexpected(tc(basename(decapsPath), t), g);
        continue;
      }
      const seed = fromHex(t.seed);
      const ct = fromHex(t.c);
      if (seed.length !== MLKEM_SEED) {
        s.run(tc(basename(decapsPath), t), 'decapsulation: seed not 64 bytes → RangeError', (c) => {
          c.equal('result', t.result, 'invalid');
          c.rejects(api, `mlKemKeygen (${seed.length}-byte seed)`, { kind: 'range', names: /^seed\b/ }, () => api.mlKemKeygen(seed));
        });
        continue;
      }
      if (ct.length !== MLKEM768_CT) {
        s.run(tc(basename(decapsPath), t), 'decapsulation: ciphertext not 1088 bytes → RangeError', (c) => {
          c.equal('result', t.result, 'invalid');
          const kp = c.ok('mlKemKeygen(seed)', () => api.mlKemKeygen(seed));
          if (kp === undefined) return;
          c.rejects(api, `mlKemDecapsulate (${ct.length}-byte ciphertext)`, { kind: 'range', names: /^ciphertext\b/ }, () =>
            api.mlKemDecapsulate(kp[0], ct),
          );
        });
        continue;
      }
      // Well-formed seed and ciphertext: a forged ciphertext decapsulates to the implicit-rejection
      // key, which the file gives as K; no case of this file is `invalid` with both lengths right.
      s.run(tc(basename(decapsPath), t), 'decapsulation: valid', (c) => {
        c.equal('result', t.result, 'valid');
        const kp = c.ok('mlKemKeygen(seed)', () => api.mlKemKeygen(seed));
        if (kp === undefined) return;
        const [dk, ek] = kp;
        if (t.ek) c.bytes('encapsulation key', ek, t.ek);
        const k = c.ok('mlKemDecapsulate', () => api.mlKemDecapsulate(dk, ct));
        if (k !== undefined) c.bytes('sharedSecret', k, t.K);
      });
    }
  }
}

/** X-Wing: seed keygen, derandomised encapsulation and decapsulation for each vector. */
async function xWing(api: VeilkitApi, load: Loader, s: Suite): Promise<void> {
  const path = VECTOR_FILES.xWing;
  const vectors = await loadJson<XWingVector[]>(load, path);
  vectors.forEach((v, i) => {
    s.run(`${basename(path)} #${i}`, 'keygen + encapsulation + decapsulation', (c) => {
      const kp = c.ok('xWingKeygen(seed)', () => api.xWingKeygen(fromHex(v.seed)));
      if (kp !== undefined) {
        c.bytes('secretKey', kp[0], v.sk);
        c.bytes('publicKey', kp[1], v.pk);
      }
      const enc = c.ok('xWingEncapsulateDerand', () => api.xWingEncapsulateDerand(fromHex(v.pk), fromHex(v.eseed)));
      if (enc !== undefined) {
        c.bytes('ciphertext', enc.ciphertext, v.ct);
        c.bytes('sharedSecret', enc.sharedSecret, v.ss);
      }
      const ss = c.ok('xWingDecapsulate', () => api.xWingDecapsulate(fromHex(v.sk), fromHex(v.ct)));
      if (ss !== undefined) c.bytes('xWingDecapsulate', ss, v.ss);
    });
  });
}

/**
 * ML-DSA-65 through the wasm build (libcrux's portable code; natively the crate
 * may take its AVX2 path, so this is the run that covers the portable one):
 * Wycheproof seed signing (hedged and deterministic) and verification, ACVP
 * key generation. Skipped and counted, with the reason: the Wycheproof "Internal" cases
 * (μ given, no message; veilkit has no external-μ entry point), the
 * expanded-key (`noseed`) file and ACVP sigGen/sigVer (no byte API for
 * expanded keys or the internal interface; `crate/tests/asym_mldsa.rs` runs them natively).
 */
async function mlDsa(api: VeilkitApi, load: Loader, s: Suite): Promise<void> {
  const signPath = VECTOR_FILES.mlDsaSignSeed;
  const verifyPath = VECTOR_FILES.mlDsaVerify;
  const keygenPath = VECTOR_FILES.mlDsaKeygen;
  const sign = await loadJson<WycheproofFile<MlDsaSignGroup>>(load, signPath);
  const verify = await loadJson<WycheproofFile<MlDsaVerifyGroup>>(load, verifyPath);
  const keygen = await loadJson<{ testGroups: AcvpMlDsaKeygenGroup[] }>(load, keygenPath);
  const noseed = await loadJson<WycheproofFile<MlDsaSignGroup>>(load, VECTOR_FILES.mlDsaSignNoseed);
  const sigGen = await loadJson<{ testGroups: AcvpMlDsaGroup[] }>(load, VECTOR_FILES.mlDsaSigGen);
  const sigVer = await loadJson<{ testGroups: AcvpMlDsaGroup[] }>(load, VECTOR_FILES.mlDsaSigVer);
  s.wycheproof(signPath, sign);
  s.wycheproof(verifyPath, verify);
  s.wycheproof(VECTOR_FILES.mlDsaSignNoseed, noseed);
  const acvp65 = (f: { testGroups: AcvpMlDsaGroup[] }): number =>
    f.testGroups.filter((g) => g.parameterSet === 'ML-DSA-65').reduce((n, g) => n + g.tests.length, 0);
  const internal = sign.testGroups.reduce((n, g) => n + g.tests.filter((t) => t.msg === undefined).length, 0);
  s.skip(internal, `${basename(signPath)}: Internal cases (μ given, no message): no external-μ entry point`);
  s.skip(noseed.numberOfTests ?? Number.NaN, `${basename(VECTOR_FILES.mlDsaSignNoseed)}: expanded secret keys, no byte API (run natively)`);
  s.skip(acvp65(sigGen), `${basename(VECTOR_FILES.mlDsaSigGen)} (ML-DSA-65): Sign_internal on expanded keys, no byte API (run natively)`);
  s.skip(acvp65(sigVer), `${basename(VECTOR_FILES.mlDsaSigVer)} (ML-DSA-65): Verify_internal, no byte API (run natively)`);
  const none = new Uint8Array(0);

  for (const g of sign.testGroups) {
    const seed = fromHex(g.privateSeed);
    for (const t of g.tests) {
      if (t.msg === undefined) continue;
      const msg = fromHex(t.msg);
      const context = t.ctx === undefined ? none : fromHex(t.ctx);
      const rnd = t.rnd === undefined ? new Uint8Array(32) : fromHex(t.rnd);
      const flags = t.flags ?? [];
      if (t.result === 'invalid') {
        s.run(tc(basename(signPath), t), 'sign (seed): invalid → RangeError', (c) => {
          const names = flags.includes('IncorrectPrivateKeyLength') ? /^secretKey\b/ : flags.includes('InvalidContext') ? /context/ : null;
          if (names === null) {
            c.fail(`unexpected invalid case ${flags.join(',')}`);
            return;
          }
          c.rejects(api, `mlDsaSignDerand (${seed.length}-byte seed, ${context.length}-byte context)`, { kind: 'range', names }, () =>
            api.mlDsaSignDerand(seed, msg, rnd, { context }),
          );
        });
        continue;
      }
      s.run(tc(basename(signPath), t), `sign (seed): ${t.result}`, (c) => {
        const sig = c.ok('mlDsaSignDerand', () => api.mlDsaSignDerand(seed, msg, rnd, { context }));
        if (sig !== undefined) c.bytes('signature', sig, t.sig);
        if (t.rnd === undefined) {
          const det = c.ok('mlDsaSign (deterministic)', () => api.mlDsaSign(seed, msg, { context, deterministic: true }));
          if (det !== undefined) c.bytes('deterministic signature', det, t.sig);
        }
        if (g.publicKey !== undefined) {
          const kp = c.ok('mlDsaKeygen(seed)', () => api.mlDsaKeygen(seed));
          if (kp !== undefined) c.bytes('public key', kp[1], g.publicKey);
          c.equal('mlDsaVerify', c.ok('mlDsaVerify', () => api.mlDsaVerify(fromHex(g.publicKey ?? ''), msg, fromHex(t.sig), { context })), true);
        }
      });
    }
  }

  for (const g of verify.testGroups) {
    const pk = fromHex(g.publicKey);
    for (const t of g.tests) {
      const msg = fromHex(t.msg);
      const sig = fromHex(t.sig);
      const context = t.ctx === undefined ? none : fromHex(t.ctx);
      const flags = t.flags ?? [];
      if (t.result === 'invalid' && (flags.includes('IncorrectPublicKeyLength') || flags.includes('InvalidContext'))) {
        const names = flags.includes('IncorrectPublicKeyLength') ? /^publicKey\b/ : /context/;
        s.run(tc(basename(verifyPath), t), 'verify: invalid key length or context → RangeError', (c) =>
          c.rejects(api, `mlDsaVerify (${pk.length}-byte key, ${context.length}-byte context)`, { kind: 'range', names }, () =>
            api.mlDsaVerify(pk, msg, sig, { context }),
          ),
        );
        continue;
      }
      const want = t.result === 'valid';
      s.run(tc(basename(verifyPath), t), want ? 'verify: valid' : 'verify: invalid → false', (c) => {
        c.equal('mlDsaVerify', c.ok('mlDsaVerify', () => api.mlDsaVerify(pk, msg, sig, { context })), want);
      });
    }
  }

  for (const g of keygen.testGroups) {
    if (g.parameterSet !== 'ML-DSA-65') continue; // ML-DSA-44/87 groups: other parameter sets, not veilkit's
    for (const t of g.tests) {
      s.run(`${basename(keygenPath)} tcId ${t.tcId}`, 'ACVP keygen', (c) => {
        const kp = c.ok('mlDsaKeygen(seed)', () => api.mlDsaKeygen(fromHex(t.seed)));
        if (kp !== undefined) c.bytes('public key', kp[1], t.pk);
      });
    }
  }
}

/** Argon2id v1.3: every vector whose memory cost is at most 1 GiB (the others are skipped and counted). */
async function argon2id(api: VeilkitApi, load: Loader, s: Suite): Promise<void> {
  const path = VECTOR_FILES.argon2id;
  const file = await loadJson<{ version: number; tests: Argon2Vector[] }>(load, path);
  const tooBig = file.tests.filter((v) => v.m_kib > ARGON2_MAX_MEMORY_KIB);
  if (tooBig.length > 0) s.skip(tooBig.length, `${tooBig.map((v) => v.name).join(', ')}: need more than 1 GiB`);
  for (const v of file.tests) {
    if (v.m_kib > ARGON2_MAX_MEMORY_KIB) continue;
    s.run(`${basename(path)} "${v.name}"`, 'tag', (c) => {
      const secret = fromHex(v.secret);
      const ad = fromHex(v.ad);
      const tag = c.ok('argon2id', () =>
        api.argon2id(fromHex(v.password), fromHex(v.salt), {
          memoryKib: v.m_kib,
          iterations: v.t,
          parallelism: v.p,
          length: v.tagLen,
          ...(secret.length > 0 ? { secret } : {}),
          ...(ad.length > 0 ? { associatedData: ad } : {}),
        }),
      );
      if (tag !== undefined) c.bytes('argon2id', tag, v.tag);
    });
  }
}

const RUNNERS: Record<Family, (api: VeilkitApi, load: Loader, s: Suite) => Promise<void>> = {
  'AES-GCM': aesGcm,
  X25519: x25519,
  Ed25519: ed25519,
  'HKDF-SHA256': hkdf,
  'ML-KEM-768': mlKem,
  'X-Wing': xWing,
  'ML-DSA-65': mlDsa,
  Argon2id: argon2id,
};

/**
 * Runs every family (or the listed ones) and returns one report per family.
 * Never throws for a family's problem: it lands in that family's `failures`.
 */
export async function runVectorSuites(api: VeilkitApi, load: Loader, families: readonly Family[] = FAMILIES): Promise<SuiteReport[]> {
  const reports: SuiteReport[] = [];
  for (const family of families) {
    const suite = new Suite(family);
    try {
      await RUNNERS[family](api, load, suite);
    } catch (e) {
      suite.fatal(describeError(e));
    }
    reports.push(suite.finish());
  }
  return reports;
}

/**
 * Everything wrong with a report, measured against the pinned EXPECTED (empty when the family
 * is fine): failed cases, passes or kinds other than pinned, skipped cases other than pinned.
 */
export function reportProblems(r: SuiteReport): string[] {
  const want = EXPECTED[r.family];
  const problems: string[] = [];
  if (r.failed !== 0) problems.push(`${r.failed} case(s) failed`);
  if (r.passed !== expectedCases(r.family)) problems.push(`${r.passed} case(s) passed, ${expectedCases(r.family)} pinned`);
  for (const kind of new Set([...Object.keys(want.cases), ...Object.keys(r.tallies)])) {
    const got = r.tallies[kind] ?? 0;
    const pinned = want.cases[kind] ?? 0;
    if (got !== pinned) problems.push(`"${kind}": ${got} case(s) run, ${pinned} pinned`);
  }
  if (skippedCases(r) !== want.skipped) problems.push(`${skippedCases(r)} case(s) skipped, ${want.skipped} pinned`);
  return [...problems, ...r.failures];
}

/** One line per family, for logs. */
export function formatReport(r: SuiteReport): string {
  const status = reportProblems(r).length === 0 ? 'ok  ' : 'FAIL';
  const skipped = r.skipped.length > 0 ? `, ${skippedCases(r)} skipped` : '';
  return `${status} ${r.family}: ${r.passed} passed, ${r.failed} failed of ${expectedCases(r.family)} pinned${skipped}`;
}

/** The skip reasons of a report, one line each with its count. */
export function formatSkips(r: SuiteReport): string[] {
  return r.skipped.map((k) => `${r.family}: ${k.count} skipped: ${k.reason}`);
}
