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

/** The package's main entry, with its `veilkit/hazmat` entry (caller-chosen IVs / randomness) as `hazmat`. */
export type VeilkitApi = typeof import('../../ts/index.js') & { readonly hazmat: typeof import('../../ts/hazmat.js') };

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
  aesKw: 'vectors/aes-kw/aes_wrap_test.json',
  aesKwRfc: 'vectors/aes-kw/rfc3394_section4.json',
  aesKwNistAe: 'vectors/aes-kw/KW_AE_256.txt',
  aesKwNistAd: 'vectors/aes-kw/KW_AD_256.txt',
  sha256Short: 'vectors/sha256-hmac/SHA256ShortMsg.rsp',
  sha256Long: 'vectors/sha256-hmac/SHA256LongMsg.rsp',
  sha256Monte: 'vectors/sha256-hmac/SHA256Monte.rsp',
  hmac: 'vectors/sha256-hmac/hmac_sha256_test.json',
  hmacRfc: 'vectors/sha256-hmac/rfc-4231-sha256.txt',
  blake3: 'vectors/blake3/test_vectors.json',
  bip39: 'vectors/bip39/trezor_vectors.json',
  pbkdf2: 'vectors/pbkdf2-sha256/pbkdf2_hmacsha256_test.json',
  pbkdf2Rfc: 'vectors/pbkdf2-sha256/rfc7914_section11.json',
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
  'AES-KW',
  'SHA-256',
  'HMAC-SHA256',
  'BLAKE3',
  'PBKDF2-SHA256',
  'BIP-39',
  'Shamir',
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
  // aes_wrap_test.json: 165 tests = 68 with a 256-bit KEK + 97 with 128/192-bit KEKs;
  // rfc3394_section4.json: 6 (3 with a 256-bit KEK); KW_AE_256.txt 500; KW_AD_256.txt 500 (100 FAIL).
  'AES-KW': {
    cases: {
      'Wycheproof: valid': 13,
      'Wycheproof: invalid → AUTHENTICATION_FAILED': 36,
      'Wycheproof: invalid length → RangeError': 18,
      'Wycheproof: acceptable 8-byte key → RangeError': 1,
      'Wycheproof: AES-128/192 KEK → RangeError': 97,
      'RFC 3394 §4': 3,
      'RFC 3394 §4: AES-128/192 KEK → RangeError': 3,
      'NIST KW-AE': 500,
      'NIST KW-AD: unwrap': 400,
      'NIST KW-AD: FAIL → AUTHENTICATION_FAILED': 100,
    },
    skipped: 0,
  },
  // SHAVS: ShortMsg 65 (Len 0 … 512 bits), LongMsg 64, Monte 100 checkpoints.
  'SHA-256': { cases: { 'NIST ShortMsg': 65, 'NIST LongMsg': 64, 'NIST Monte checkpoint': 100 }, skipped: 0 },
  // hmac_sha256_test.json: 174 tests (128- and 256-bit tags); RFC 4231: 6 cases in the file.
  'HMAC-SHA256': {
    cases: { 'Wycheproof: valid': 66, 'Wycheproof: invalid → false': 108, 'RFC 4231': 6 },
    skipped: 0,
  },
  // test_vectors.json: 35 input lengths, each hash / keyed_hash / derive_key at 131 and 32 bytes.
  BLAKE3: { cases: { 'hash + keyed_hash + derive_key': 35 }, skipped: 0 },
  // pbkdf2_hmacsha256_test.json: 60 tests; rfc7914_section11.json: 2.
  'PBKDF2-SHA256': { cases: { 'Wycheproof: valid': 60, 'RFC 7914 §11': 2 }, skipped: 0 },
  // trezor_vectors.json: 24 English vectors (passphrase "TREZOR"); the other languages are skipped
  // (veilkit has the English wordlist only) and counted.
  'BIP-39': { cases: { 'Trezor English': 24 }, skipped: 264 },
  // No standard vector set exists for GF(2^8) Shamir sharing: seeded random share sets, each
  // checked against an independent Lagrange interpolation written here (shamirOracle).
  Shamir: {
    cases: {
      'combine = independent interpolation': 50,
      'split: every threshold subset interpolates to the secret': 30,
      'duplicate or zero x → INVALID_SHARES': 2,
      'shares of different lengths → RangeError': 1,
    },
    skipped: 0,
  },
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
            api.hazmat.encryptAesGcmWithIv(key, iv, msg, aad),
          );
          c.rejects(api, `decryptAesGcmWithIv with a ${g.keySize}-bit key`, { kind: 'range', names: /^key\b/ }, () =>
            api.hazmat.decryptAesGcmWithIv(key, iv, sealed, aad),
          );
        });
        continue;
      }
      if (g.ivSize !== AES_GCM_IV_BITS) {
        s.run(tc(basename(path), t), 'AES-256, other IV length → RangeError', (c) => {
          c.rejects(api, `encryptAesGcmWithIv with a ${g.ivSize}-bit IV`, { kind: 'range', names: /^iv\b/ }, () =>
            api.hazmat.encryptAesGcmWithIv(key, iv, msg, aad),
          );
          c.rejects(api, `decryptAesGcmWithIv with a ${g.ivSize}-bit IV`, { kind: 'range', names: /^iv\b/ }, () =>
            api.hazmat.decryptAesGcmWithIv(key, iv, sealed, aad),
          );
        });
        continue;
      }
      if (t.result === 'invalid') {
        s.run(tc(basename(path), t), 'AES-256, 96-bit IV: invalid → AUTHENTICATION_FAILED', (c) => {
          c.rejects(api, 'decryptAesGcmWithIv', { kind: 'veil', code: 'AUTHENTICATION_FAILED' }, () =>
            api.hazmat.decryptAesGcmWithIv(key, iv, sealed, aad),
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
        const enc = c.ok('encryptAesGcmWithIv', () => api.hazmat.encryptAesGcmWithIv(key, iv, msg, aad));
        if (enc !== undefined) c.bytes('encryptAesGcmWithIv', enc, t.ct + t.tag);
        const dec = c.ok('decryptAesGcmWithIv', () => api.hazmat.decryptAesGcmWithIv(key, iv, sealed, aad));
        if (dec !== undefined) c.bytes('decryptAesGcmWithIv', dec, t.msg);
        const dec2 = c.ok('decryptAesGcm(iv‖ct‖tag)', () => api.decryptAesGcm(key, concat(iv, sealed), aad));
        if (dec2 !== undefined) c.bytes('decryptAesGcm(iv‖ct‖tag)', dec2, t.msg);
        if (aad.length === 0) {
          const noAad = c.ok('encryptAesGcmWithIv without aad', () => api.hazmat.encryptAesGcmWithIv(key, iv, msg));
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
          c.rejects(api, 'mlKemEncapsulateDerand', { kind: 'veil', code: 'INVALID_KEY' }, () => api.hazmat.mlKemEncapsulateDerand(ek, m)),
        );
      } else if (t.result === 'invalid') {
        s.run(tc(basename(encapsPath), t), 'encapsulation: key not 1184 bytes → RangeError', (c) =>
          c.rejects(api, `mlKemEncapsulateDerand (${ek.length}-byte ek)`, { kind: 'range', names: /^encapsulationKey\b/ }, () =>
            api.hazmat.mlKemEncapsulateDerand(ek, m),
          ),
        );
      } else {
        s.run(tc(basename(encapsPath), t), 'encapsulation: valid', (c) => {
          const out = c.ok('mlKemEncapsulateDerand', () => api.hazmat.mlKemEncapsulateDerand(ek, m));
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
      const enc = c.ok('xWingEncapsulateDerand', () => api.hazmat.xWingEncapsulateDerand(fromHex(v.pk), fromHex(v.eseed)));
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
            api.hazmat.mlDsaSignDerand(seed, msg, rnd, { context }),
          );
        });
        continue;
      }
      s.run(tc(basename(signPath), t), `sign (seed): ${t.result}`, (c) => {
        const sig = c.ok('mlDsaSignDerand', () => api.hazmat.mlDsaSignDerand(seed, msg, rnd, { context }));
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

// ---------------------------------------------------------------------------
// NIST CAVP text files (.rsp / .txt): `#` comments, `[K = V]` section headers, `K = V` fields,
// bare `FAIL` lines. A record starts at each field named `start`; fields before the first
// record (SHAVS Monte `Seed`) are kept with the headers. The same rules as crate/tests/sym_util.

interface RspRecord {
  header: Record<string, string>;
  fields: Record<string, string>;
  fail: boolean;
}

function parseRsp(text: string, start: string): RspRecord[] {
  let header: Record<string, string> = {};
  const out: RspRecord[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('[') && line.endsWith(']')) {
      const inner = line.slice(1, -1);
      const eq = inner.indexOf('=');
      header = { ...header, [(eq < 0 ? inner : inner.slice(0, eq)).trim()]: eq < 0 ? '' : inner.slice(eq + 1).trim() };
      continue;
    }
    if (line === 'FAIL') {
      const last = out[out.length - 1];
      if (last === undefined) throw new Error('FAIL before any record');
      last.fail = true;
      continue;
    }
    const eq = line.indexOf('=');
    if (eq < 0) throw new Error(`unparsable line: ${line}`);
    const k = line.slice(0, eq).trim();
    const v = line.slice(eq + 1).trim();
    if (k === start) out.push({ header: { ...header }, fields: {}, fail: false });
    const rec = out[out.length - 1];
    if (rec === undefined) header = { ...header, [k]: v };
    else rec.fields[k] = v;
  }
  return out;
}

function field(r: RspRecord, name: string): string {
  const v = r.fields[name];
  if (v === undefined) throw new Error(`missing field ${name}`);
  return v;
}

interface KwGroup {
  keySize: number;
  tests: (WpTest & { key: string; msg: string; ct: string })[];
}

/** Wrap-key lengths the facade accepts (ts/keywrap.ts): at least 16 bytes, a multiple of 8. */
const kwKeyOk = (n: number): boolean => n >= 16 && n % 8 === 0;
/** Wrapped lengths unwrapKey accepts: at least 24 bytes, a multiple of 8. */
const kwWrappedOk = (n: number): boolean => n >= 24 && n % 8 === 0;

/**
 * AES-256-KW (RFC 3394): every Wycheproof case (AES-128/192 KEKs must be refused: veilkit wraps
 * under AES-256 only), the RFC 3394 §4 examples, NIST SP 800-38F KW-AE and KW-AD (AES-256) —
 * the cases crate/tests/sym_keywrap.rs runs natively.
 */
async function aesKw(api: VeilkitApi, load: Loader, s: Suite): Promise<void> {
  const path = VECTOR_FILES.aesKw;
  const file = await loadJson<WycheproofFile<KwGroup>>(load, path);
  s.wycheproof(path, file);
  const kek = { kind: 'range', names: /^kek\b/ } as const;
  for (const g of file.testGroups) {
    for (const t of g.tests) {
      const k = fromHex(t.key);
      const msg = fromHex(t.msg);
      const ct = fromHex(t.ct);
      const label = tc(basename(path), t);
      if (g.keySize !== 256) {
        s.run(label, 'Wycheproof: AES-128/192 KEK → RangeError', (c) => {
          c.equal('KEK length', k.length * 8, g.keySize);
          c.rejects(api, `unwrapKey with a ${g.keySize}-bit KEK`, kek, () => api.unwrapKey(k, ct));
        });
      } else if (t.result === 'valid') {
        s.run(label, 'Wycheproof: valid', (c) => {
          const w = c.ok('wrapKey', () => api.wrapKey(k, msg));
          if (w !== undefined) c.bytes('wrapKey', w, t.ct);
          const u = c.ok('unwrapKey', () => api.unwrapKey(k, ct));
          if (u !== undefined) c.bytes('unwrapKey', u, t.msg);
        });
      } else if (t.result === 'acceptable') {
        // tc 109 (ShortKey): RFC 3394 allows one 8-byte semiblock; SP 800-38F and veilkit need ≥ 16 bytes.
        s.run(label, 'Wycheproof: acceptable 8-byte key → RangeError', (c) => {
          c.equal('flags', (t.flags ?? []).join(','), 'ShortKey');
          c.rejects(api, `wrapKey (${msg.length}-byte key)`, { kind: 'range', names: /^keyToWrap\b/ }, () => api.wrapKey(k, msg));
          c.rejects(api, `unwrapKey (${ct.length}-byte blob)`, { kind: 'range', names: /^wrappedKey\b/ }, () => api.unwrapKey(k, ct));
        });
      } else {
        const byLength = !kwWrappedOk(ct.length);
        s.run(label, byLength ? 'Wycheproof: invalid length → RangeError' : 'Wycheproof: invalid → AUTHENTICATION_FAILED', (c) => {
          c.rejects(
            api,
            `unwrapKey (${ct.length}-byte blob)`,
            byLength ? { kind: 'range', names: /^wrappedKey\b/ } : { kind: 'veil', code: 'AUTHENTICATION_FAILED' },
            () => api.unwrapKey(k, ct),
          );
          // Wrapping the message must not reproduce the invalid ciphertext.
          if (kwKeyOk(msg.length)) {
            const w = c.ok('wrapKey', () => api.wrapKey(k, msg));
            if (w !== undefined) c.equal('wrapKey differs from the invalid ciphertext', toHex(w) !== t.ct.toLowerCase(), true);
          } else {
            c.rejects(api, `wrapKey (${msg.length}-byte key)`, { kind: 'range', names: /^keyToWrap\b/ }, () => api.wrapKey(k, msg));
          }
        });
      }
    }
  }

  const rfc = await loadJson<{ tests: { section: string; kek: string; keyData: string; wrapped: string }[] }>(load, VECTOR_FILES.aesKwRfc);
  for (const t of rfc.tests) {
    const k = fromHex(t.kek);
    const key = fromHex(t.keyData);
    if (k.length !== 32) {
      s.run(`RFC 3394 §${t.section}`, 'RFC 3394 §4: AES-128/192 KEK → RangeError', (c) =>
        c.rejects(api, `wrapKey with a ${k.length * 8}-bit KEK`, kek, () => api.wrapKey(k, key)),
      );
      continue;
    }
    s.run(`RFC 3394 §${t.section}`, 'RFC 3394 §4', (c) => {
      const w = c.ok('wrapKey', () => api.wrapKey(k, key));
      if (w !== undefined) c.bytes('wrapKey', w, t.wrapped);
      const u = c.ok('unwrapKey', () => api.unwrapKey(k, fromHex(t.wrapped)));
      if (u !== undefined) c.bytes('unwrapKey', u, t.keyData);
    });
  }

  for (const r of parseRsp(await load(VECTOR_FILES.aesKwNistAe), 'COUNT')) {
    s.run(`${basename(VECTOR_FILES.aesKwNistAe)} [${r.header['PLAINTEXT LENGTH']}] COUNT ${field(r, 'COUNT')}`, 'NIST KW-AE', (c) => {
      const k = fromHex(field(r, 'K'));
      const pt = fromHex(field(r, 'P'));
      c.equal('FAIL', r.fail, false);
      c.equal('plaintext length', String(pt.length * 8), r.header['PLAINTEXT LENGTH']);
      const w = c.ok('wrapKey', () => api.wrapKey(k, pt));
      if (w !== undefined) c.bytes('wrapKey', w, field(r, 'C'));
      const u = c.ok('unwrapKey', () => api.unwrapKey(k, fromHex(field(r, 'C'))));
      if (u !== undefined) c.bytes('unwrapKey', u, field(r, 'P'));
    });
  }
  for (const r of parseRsp(await load(VECTOR_FILES.aesKwNistAd), 'COUNT')) {
    const label = `${basename(VECTOR_FILES.aesKwNistAd)} [${r.header['PLAINTEXT LENGTH']}] COUNT ${field(r, 'COUNT')}`;
    const k = fromHex(field(r, 'K'));
    const wrapped = fromHex(field(r, 'C'));
    if (r.fail) {
      s.run(label, 'NIST KW-AD: FAIL → AUTHENTICATION_FAILED', (c) =>
        c.rejects(api, 'unwrapKey', { kind: 'veil', code: 'AUTHENTICATION_FAILED' }, () => api.unwrapKey(k, wrapped)),
      );
    } else {
      s.run(label, 'NIST KW-AD: unwrap', (c) => {
        const u = c.ok('unwrapKey', () => api.unwrapKey(k, wrapped));
        if (u !== undefined) c.bytes('unwrapKey', u, field(r, 'P'));
      });
    }
  }
}

/** SHA-256: NIST SHAVS ShortMsg, LongMsg (byte-oriented) and the Monte Carlo test. */
async function sha256Suite(api: VeilkitApi, load: Loader, s: Suite): Promise<void> {
  for (const [path, kind] of [[VECTOR_FILES.sha256Short, 'NIST ShortMsg'], [VECTOR_FILES.sha256Long, 'NIST LongMsg']] as const) {
    for (const r of parseRsp(await load(path), 'Len')) {
      const bits = Number(field(r, 'Len'));
      s.run(`${basename(path)} Len ${bits}`, kind, (c) => {
        c.equal('[L]', r.header['L'], '32');
        // `Len = 0` is written with a placeholder `Msg = 00`.
        const msg = bits === 0 ? new Uint8Array(0) : fromHex(field(r, 'Msg'));
        c.equal('message length', msg.length * 8, bits);
        const md = c.ok('sha256', () => api.sha256(msg));
        if (md !== undefined) c.bytes('sha256', md, field(r, 'MD'));
      });
    }
  }
  // SHAVS Monte Carlo: MD0 = MD1 = MD2 = Seed, then 1000 × MD_i = SHA256(MD_{i-3} ‖ MD_{i-2} ‖ MD_{i-1});
  // checkpoint j is MD_1002, which seeds checkpoint j + 1.
  const monte = parseRsp(await load(VECTOR_FILES.sha256Monte), 'COUNT');
  let seed = fromHex(monte[0]?.header['Seed'] ?? '');
  monte.forEach((r, j) => {
    s.run(`${basename(VECTOR_FILES.sha256Monte)} COUNT ${field(r, 'COUNT')}`, 'NIST Monte checkpoint', (c) => {
      c.equal('COUNT', field(r, 'COUNT'), String(j));
      let [a, b, d] = [seed, seed, seed];
      const buf = new Uint8Array(96);
      for (let i = 0; i < 1000; i++) {
        buf.set(a, 0);
        buf.set(b, 32);
        buf.set(d, 64);
        [a, b, d] = [b, d, api.sha256(buf)];
      }
      seed = d;
      c.bytes(`checkpoint ${j}`, d, field(r, 'MD'));
    });
  });
}

interface MacGroup {
  tagSize: number;
  tests: (WpTest & { key: string; msg: string; tag: string })[];
}

/** HMAC-SHA256: Wycheproof (128- and 256-bit tags, through hmacSha256 and verifyHmacSha256) and RFC 4231. */
async function hmacSuite(api: VeilkitApi, load: Loader, s: Suite): Promise<void> {
  const path = VECTOR_FILES.hmac;
  const file = await loadJson<WycheproofFile<MacGroup>>(load, path);
  s.wycheproof(path, file);
  for (const g of file.testGroups) {
    const tagLen = g.tagSize / 8;
    for (const t of g.tests) {
      const key = fromHex(t.key);
      const msg = fromHex(t.msg);
      const tag = fromHex(t.tag);
      if (t.result === 'valid') {
        s.run(tc(basename(path), t), 'Wycheproof: valid', (c) => {
          const mac = c.ok('hmacSha256', () => api.hmacSha256(key, msg));
          if (mac !== undefined) c.bytes(`hmacSha256 (first ${tagLen} bytes)`, mac.subarray(0, tagLen), t.tag);
          c.equal('verifyHmacSha256', c.ok('verifyHmacSha256', () => api.verifyHmacSha256(key, msg, tag)), true);
        });
      } else {
        s.run(tc(basename(path), t), 'Wycheproof: invalid → false', (c) => {
          c.equal('tag length', tag.length, tagLen);
          c.equal('verifyHmacSha256', c.ok('verifyHmacSha256', () => api.verifyHmacSha256(key, msg, tag)), false);
        });
      }
    }
  }
  for (const r of parseRsp(await load(VECTOR_FILES.hmacRfc), 'Len')) {
    s.run(`${basename(VECTOR_FILES.hmacRfc)} Len ${field(r, 'Len')}`, 'RFC 4231', (c) => {
      const key = fromHex(field(r, 'Key'));
      const msg = fromHex(field(r, 'Msg'));
      const md = fromHex(field(r, 'MD'));
      const mac = c.ok('hmacSha256', () => api.hmacSha256(key, msg));
      if (mac !== undefined) c.bytes('hmacSha256', mac, field(r, 'MD'));
      c.equal('verifyHmacSha256 (32-byte tag)', c.ok('verifyHmacSha256', () => api.verifyHmacSha256(key, msg, md)), true);
      c.equal('verifyHmacSha256 (16-byte tag)', c.ok('verifyHmacSha256', () => api.verifyHmacSha256(key, msg, md.subarray(0, 16))), true);
    });
  }
}

/** BLAKE3 official vectors: hash, keyed_hash and derive_key, 131-byte extended output and the 32-byte default. */
async function blake3Suite(api: VeilkitApi, load: Loader, s: Suite): Promise<void> {
  const path = VECTOR_FILES.blake3;
  const file = await loadJson<{ key: string; context_string: string; cases: { input_len: number; hash: string; keyed_hash: string; derive_key: string }[] }>(load, path);
  const key = new TextEncoder().encode(file.key);
  for (const v of file.cases) {
    s.run(`${basename(path)} input_len ${v.input_len}`, 'hash + keyed_hash + derive_key', (c) => {
      c.equal('key length', key.length, 32);
      const input = Uint8Array.from({ length: v.input_len }, (_, i) => i % 251);
      for (const [what, want, fn] of [
        ['hash', v.hash, (n: number) => api.blake3(input, { length: n })],
        ['keyed_hash', v.keyed_hash, (n: number) => api.blake3(input, { length: n, key })],
        ['derive_key', v.derive_key, (n: number) => api.blake3DeriveKey(file.context_string, input, n)],
      ] as const) {
        c.equal(`${what} vector length`, want.length, 2 * 131);
        const full = c.ok(`${what} (131 bytes)`, () => fn(131));
        if (full !== undefined) c.bytes(`${what} (131 bytes)`, full, want);
        const short32 = c.ok(`${what} (32 bytes)`, () => fn(32));
        if (short32 !== undefined) c.bytes(`${what} (32 bytes)`, short32, want.slice(0, 64));
      }
      const dflt = c.ok('blake3 default length', () => api.blake3(input));
      if (dflt !== undefined) c.bytes('blake3 default length', dflt, v.hash.slice(0, 64));
    });
  }
}

interface Pbkdf2Group {
  tests: (WpTest & { password: string; salt: string; iterationCount: number; dkLen: number; dk: string })[];
}

/** PBKDF2-HMAC-SHA256 through the wasm build: every Wycheproof case and RFC 7914 §11 (string passwords). */
async function pbkdf2Suite(api: VeilkitApi, load: Loader, s: Suite): Promise<void> {
  const path = VECTOR_FILES.pbkdf2;
  const file = await loadJson<WycheproofFile<Pbkdf2Group>>(load, path);
  s.wycheproof(path, file);
  for (const g of file.testGroups) {
    for (const t of g.tests) {
      s.run(tc(basename(path), t), `Wycheproof: ${t.result}`, (c) => {
        const dk = c.ok('derivePbkdf2', () => api.derivePbkdf2(fromHex(t.password), fromHex(t.salt), t.iterationCount, t.dkLen));
        if (dk !== undefined) c.bytes('derivePbkdf2', dk, t.dk);
      });
    }
  }
  const rfc = await loadJson<{ tests: { password: string; salt: string; iterations: number; dkLen: number; dk: string }[] }>(load, VECTOR_FILES.pbkdf2Rfc);
  for (const t of rfc.tests) {
    s.run(`RFC 7914 §11 "${t.password}" / ${t.iterations}`, 'RFC 7914 §11', (c) => {
      // A string password is UTF-8 encoded by the facade; the salt goes in as bytes.
      const dk = c.ok('derivePbkdf2', () => api.derivePbkdf2(t.password, new TextEncoder().encode(t.salt), t.iterations, t.dkLen));
      if (dk !== undefined) c.bytes('derivePbkdf2', dk, t.dk);
    });
  }
}

/** BIP-39: the Trezor English vectors (entropy ↔ phrase, seed with the passphrase "TREZOR"). */
async function bip39Suite(api: VeilkitApi, load: Loader, s: Suite): Promise<void> {
  const path = VECTOR_FILES.bip39;
  const file = await loadJson<Record<string, [string, string, string, string][]>>(load, path);
  const others = Object.entries(file).filter(([lang]) => lang !== 'english');
  const otherCases = others.reduce((n, [, v]) => n + v.length, 0);
  if (otherCases > 0) s.skip(otherCases, `${basename(path)}: ${others.map(([l]) => l).join(', ')}: veilkit has the English wordlist only`);
  (file['english'] ?? []).forEach(([entropy, phrase, seed], i) => {
    s.run(`${basename(path)} english #${i}`, 'Trezor English', (c) => {
      const words = c.ok('entropyToMnemonic', () => api.entropyToMnemonic(fromHex(entropy)));
      c.equal('entropyToMnemonic', words, phrase);
      const back = c.ok('mnemonicToEntropy', () => api.mnemonicToEntropy(phrase));
      if (back !== undefined) c.bytes('mnemonicToEntropy', back, entropy);
      c.equal('validateMnemonic', c.ok('validateMnemonic', () => api.validateMnemonic(phrase)), true);
      const sd = c.ok('mnemonicToSeed', () => api.mnemonicToSeed(phrase, 'TREZOR'));
      if (sd !== undefined) c.bytes('mnemonicToSeed', sd, seed);
    });
  });
}

// ---------------------------------------------------------------------------
// Shamir over GF(2^8) (AES polynomial x^8 + x^4 + x^3 + x + 1), independently of crate/src/shamir.rs.

/** Seeded Shamir cases generated (EXPECTED pins what must pass). */
const SHAMIR_COMBINE_CASES = 50;
const SHAMIR_SPLIT_CASES = 30;

function gfMul(a: number, b: number): number {
  let r = 0;
  for (let i = 0; i < 8; i++) {
    if (b & 1) r ^= a;
    const carry = a & 0x80;
    a = (a << 1) & 0xff;
    if (carry) a ^= 0x1b;
    b >>= 1;
  }
  return r;
}

function gfInv(a: number): number {
  // a^254 = a^-1 for a ≠ 0.
  let r = 1;
  for (let i = 0; i < 254; i++) r = gfMul(r, a);
  return r;
}

/** The secret of shares `x ‖ y`: Lagrange interpolation at 0, byte by byte. */
function shamirOracle(shares: readonly Uint8Array[]): Uint8Array {
  const xs = shares.map((sh) => sh[0]!);
  const out = new Uint8Array(shares[0]!.length - 1);
  const basis = xs.map((xi, i) => {
    let num = 1;
    let den = 1;
    xs.forEach((xj, j) => {
      if (j === i) return;
      num = gfMul(num, xj);
      den = gfMul(den, xj ^ xi);
    });
    return gfMul(num, gfInv(den));
  });
  for (let b = 0; b < out.length; b++) {
    let acc = 0;
    shares.forEach((sh, i) => {
      acc ^= gfMul(sh[b + 1]!, basis[i]!);
    });
    out[b] = acc;
  }
  return out;
}

/** xorshift32: a fixed seed gives the same share sets in every runtime. */
function seeded(seed: number): (n: number) => number {
  let x = seed >>> 0;
  return (n) => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % n;
  };
}

/** Distinct non-zero x coordinates. */
function distinctXs(rand: (n: number) => number, n: number): number[] {
  const xs = new Set<number>();
  while (xs.size < n) xs.add(1 + rand(255));
  return [...xs];
}

/**
 * Shamir sharing through the wasm build: shamirCombine on seeded random share sets against
 * the interpolation above; shamirSplit's shares (any threshold subset interpolates to the
 * secret, independently and through shamirCombine); the documented refusals.
 */
async function shamirSuite(api: VeilkitApi, _load: Loader, s: Suite): Promise<void> {
  const rand = seeded(0x5ea_a1e5);
  for (let k = 0; k < SHAMIR_COMBINE_CASES; k++) {
    const t = 2 + rand(5);
    const len = 1 + rand(48);
    const shares = distinctXs(rand, t).map((x) => Uint8Array.from({ length: 1 + len }, (_, i) => (i === 0 ? x : rand(256))));
    s.run(`shamir combine #${k} (t=${t}, ${len} bytes)`, 'combine = independent interpolation', (c) => {
      const got = c.ok('shamirCombine', () => api.shamirCombine(shares));
      if (got !== undefined) c.bytes('shamirCombine', got, toHex(shamirOracle(shares)));
    });
  }
  for (let k = 0; k < SHAMIR_SPLIT_CASES; k++) {
    const n = 2 + rand(8);
    const t = 2 + rand(n - 1);
    const secret = Uint8Array.from({ length: 1 + rand(64) }, () => rand(256));
    const from = rand(n - t + 1);
    s.run(`shamir split #${k} (${t} of ${n}, ${secret.length} bytes)`, 'split: every threshold subset interpolates to the secret', (c) => {
      const shares = c.ok('shamirSplit', () => api.shamirSplit(secret, t, n));
      if (shares === undefined) return;
      c.equal('share count', shares.length, n);
      c.equal('share lengths', shares.every((sh) => sh.length === 1 + secret.length), true);
      c.equal('distinct non-zero x', new Set(shares.map((sh) => sh[0])).size === n && shares.every((sh) => sh[0] !== 0), true);
      const subset = shares.slice(from, from + t);
      c.bytes('interpolation of a threshold subset', shamirOracle(subset), toHex(secret));
      const back = c.ok('shamirCombine', () => api.shamirCombine([...subset].reverse()));
      if (back !== undefined) c.bytes('shamirCombine of a threshold subset', back, toHex(secret));
    });
  }
  const a = Uint8Array.of(1, 10, 20);
  const b = Uint8Array.of(2, 30, 40);
  s.run('shamir duplicate x', 'duplicate or zero x → INVALID_SHARES', (c) =>
    c.rejects(api, 'shamirCombine (x = 1 twice)', { kind: 'veil', code: 'INVALID_SHARES' }, () => api.shamirCombine([a, Uint8Array.of(1, 50, 60)])),
  );
  s.run('shamir zero x', 'duplicate or zero x → INVALID_SHARES', (c) =>
    c.rejects(api, 'shamirCombine (x = 0)', { kind: 'veil', code: 'INVALID_SHARES' }, () => api.shamirCombine([Uint8Array.of(0, 1, 2), b])),
  );
  s.run('shamir lengths', 'shares of different lengths → RangeError', (c) =>
    c.rejects(api, 'shamirCombine (3- and 2-byte shares)', { kind: 'range', names: /^shares\[1\]/ }, () => api.shamirCombine([a, Uint8Array.of(2, 30)])),
  );
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
  'AES-KW': aesKw,
  'SHA-256': sha256Suite,
  'HMAC-SHA256': hmacSuite,
  BLAKE3: blake3Suite,
  'PBKDF2-SHA256': pbkdf2Suite,
  'BIP-39': bip39Suite,
  Shamir: shamirSuite,
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
