/**
 * Native WebCrypto where the browser has it, and the capability report.
 *
 * `init()` probes WebCrypto once (X25519, Ed25519, ML-KEM-768: generate and
 * import non-extractable, plus a known-answer self-test for the curves) and
 * fixes a route per operation: `'native'` (WebCrypto) or `'wasm'` (the Rust
 * core). The byte-level primitives stay synchronous and always use wasm; the
 * routes apply to the asynchronous paths — `primitives/call` inside a veilkit
 * worker (`WorkerPool.call`). Both routes return identical bytes and the same
 * errors (`RangeError` for lengths, `VeilError` codes otherwise).
 *
 * Routed operations:
 * - `ecdhSharedSecret`  — X25519 `deriveBits` (secret imported as PKCS#8, non-extractable).
 * - `signMessage`       — Ed25519 `sign` (a 64-byte secret is imported as a JWK, so a
 *                         public half that does not match the seed is rejected as in wasm).
 * - `verifySignature`   — Ed25519 `verify`, after the checks WebCrypto does not make
 *                         (canonical A, small-order A/R, S < L) so the result equals the
 *                         core's strict verification.
 * - `mlKemEncapsulate`  — ML-KEM-768 `encapsulateBits` (modulus check on import).
 * - `derivePbkdf2`      — PBKDF2-HMAC-SHA256 `deriveBits` (native SHA-256 is ~3× the wasm one).
 *
 * `'auto'` takes the native route only where it measured faster than wasm in
 * `npm run bench` (Chromium, per call, key import included): ML-KEM-768
 * encapsulation, X25519, Ed25519 verification and PBKDF2. Ed25519 signing stays
 * on wasm under `'auto'`: with the secret imported on every call (secrets are
 * never cached) WebCrypto signs no faster than the wasm core. `'native'` forces
 * WebCrypto for all of them.
 *
 * Not routed: the byte-level ML-KEM-768 keygen and decapsulation. Their decapsulation
 * key is the 2400-byte expanded form (FIPS 203 `dk`); WebCrypto imports only the
 * 64-byte seed (`raw-seed`, seed-only PKCS#8) and never exports the expanded key, so
 * neither the keygen output nor a decapsulation from `dk` can be produced natively.
 * The key handles of ts/mlkem-key.ts (`generateMlKemKey`, `importMlKemSeed`) take
 * that route instead: a non-extractable WebCrypto key, decapsulated natively
 * (`routes.mlKemDecapsulationKey`).
 */
import { VeilError } from './errors.js';
import { bytes, exact, integer, oneOf, stringOrBytes, wipe } from './validate.js';
import { base64urlEncode, copyBytes, equalBytes, hexToBytes } from './bytes.js';

/** Where an operation runs. */
export type Route = 'native' | 'wasm';
/** `'auto'`: native where WebCrypto supports it (and passed the self-test), wasm elsewhere. */
export type RoutePreference = 'auto' | 'wasm' | 'native';
/** Which WebAssembly build is loaded. */
export type WasmBuild = 'simd' | 'threads';

/** What WebCrypto offers for one algorithm. */
export interface AlgorithmSupport {
  /** `generateKey` works. */
  readonly supported: boolean;
  /** Private keys can be generated and imported with `extractable: false`. */
  readonly nonExtractable: boolean;
  /** The known-answer self-test matched (the curves) or a round trip worked (ML-KEM). */
  readonly selfTest: boolean;
}

export interface WebCryptoSupport {
  /** `crypto.subtle` exists (secure context). */
  readonly available: boolean;
  /** PBKDF2-HMAC-SHA256 (RFC 7914 §11 known answer). */
  readonly pbkdf2: AlgorithmSupport;
  readonly x25519: AlgorithmSupport;
  readonly ed25519: AlgorithmSupport;
  readonly mlKem768: AlgorithmSupport & {
    /** A decapsulation key can be imported from its 64-byte seed (`raw-seed`). */
    readonly seedImport: boolean;
    /** The 2400-byte expanded decapsulation key can be imported (PKCS#8 `expandedKey`). */
    readonly expandedImport: boolean;
  };
}

/** The route of each routable operation (names of the primitives). */
export interface Routes {
  readonly ecdhSharedSecret: Route;
  readonly signMessage: Route;
  readonly verifySignature: Route;
  readonly mlKemEncapsulate: Route;
  readonly derivePbkdf2: Route;
  /** Always `'wasm'` (see the module notes). */
  readonly mlKemDecapsulate: Route;
  /** Always `'wasm'` (see the module notes). */
  readonly mlKemKeygen: Route;
  /** ML-KEM-768 key handles (`generateMlKemKey`, `importMlKemSeed`, ts/mlkem-key.ts). */
  readonly mlKemDecapsulationKey: Route;
}

/** The capability report of this thread's veilkit instance (`capabilities()`). */
export interface Capabilities {
  /** The WebAssembly build in use. */
  readonly wasmBuild: WasmBuild;
  /** Threads in the wasm thread pool (1 for the SIMD build). */
  readonly threads: number;
  readonly crossOriginIsolated: boolean;
  readonly sharedArrayBuffer: boolean;
  /** The route preference `init()` was given. */
  readonly routePreference: RoutePreference;
  readonly routes: Routes;
  readonly webCrypto: WebCryptoSupport;
}

export type RoutedPrimitive = Exclude<keyof Routes, 'mlKemDecapsulate' | 'mlKemKeygen' | 'mlKemDecapsulationKey'>;

// ---------------------------------------------------------------------------
// WebCrypto access (ML-KEM's methods are not in every lib.dom yet)

interface EncapsulatedBits {
  ciphertext: ArrayBuffer;
  sharedKey: ArrayBuffer;
}
interface ModernSubtle {
  encapsulateBits?(algorithm: { name: string }, key: CryptoKey): Promise<EncapsulatedBits>;
  decapsulateBits?(algorithm: { name: string }, key: CryptoKey, ciphertext: BufferSource): Promise<ArrayBuffer>;
}
type Subtle = SubtleCrypto & ModernSubtle;

function subtle(): Subtle | undefined {
  const c = (globalThis as { crypto?: { subtle?: SubtleCrypto } }).crypto;
  return c?.subtle as Subtle | undefined;
}

const PKCS8_ED25519 = hexToBytes('302e020100300506032b657004220420');
const PKCS8_X25519 = hexToBytes('302e020100300506032b656e04220420');

function pkcs8(prefix: Uint8Array, seed: Uint8Array): Uint8Array<ArrayBuffer> {
  const der = new Uint8Array(prefix.length + 32) as Uint8Array<ArrayBuffer>;
  der.set(prefix);
  der.set(seed, prefix.length);
  return der;
}

// ---------------------------------------------------------------------------
// Detection

const NONE: AlgorithmSupport = { supported: false, nonExtractable: false, selfTest: false };

async function attempt<T>(f: () => Promise<T>): Promise<T | undefined> {
  try {
    return await f();
  } catch {
    return undefined;
  }
}

// RFC 7748 §6.1 (Alice's secret, Bob's public, shared secret).
const X25519_KAT = {
  secret: '77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a',
  public: 'de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f',
  shared: '4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742',
};
// RFC 8032 §7.1 TEST 1 (empty message).
const ED25519_KAT = {
  seed: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
  public: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
  sig: 'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
};

// RFC 7914 §11: PBKDF2-HMAC-SHA256, P = "passwd", S = "salt", c = 1, dkLen = 64.
const PBKDF2_KAT =
  '55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783';

async function probePbkdf2(s: Subtle): Promise<AlgorithmSupport> {
  const enc = new TextEncoder();
  const out = await attempt(() => pbkdf2Native(s, enc.encode('passwd'), enc.encode('salt'), 1, 64));
  if (!out) return NONE;
  return { supported: true, nonExtractable: true, selfTest: equalBytes(out, hexToBytes(PBKDF2_KAT)) };
}

async function probeX25519(s: Subtle): Promise<AlgorithmSupport> {
  const gen = await attempt(() => s.generateKey({ name: 'X25519' }, false, ['deriveBits']) as Promise<CryptoKeyPair>);
  if (!gen) return NONE;
  const selfTest = await attempt(async () => {
    const shared = await x25519Native(s, hexToBytes(X25519_KAT.secret), hexToBytes(X25519_KAT.public));
    return equalBytes(shared, hexToBytes(X25519_KAT.shared));
  });
  return { supported: true, nonExtractable: gen.privateKey.extractable === false, selfTest: selfTest === true };
}

async function probeEd25519(s: Subtle): Promise<AlgorithmSupport> {
  const gen = await attempt(() => s.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify']) as Promise<CryptoKeyPair>);
  if (!gen) return NONE;
  const selfTest = await attempt(async () => {
    const seed = hexToBytes(ED25519_KAT.seed);
    const pub = hexToBytes(ED25519_KAT.public);
    const sig = hexToBytes(ED25519_KAT.sig);
    const full = new Uint8Array(64);
    full.set(seed);
    full.set(pub, 32);
    const [a, b] = await Promise.all([ed25519SignNative(s, seed, new Uint8Array(0)), ed25519SignNative(s, full, new Uint8Array(0))]);
    const ok = await ed25519VerifyNative(s, pub, new Uint8Array(0), sig);
    // A 64-byte secret whose public half does not match must be refused.
    full.set(pub.map((x, i) => (i === 8 ? x ^ 1 : x)), 32);
    const mismatch = await attempt(() => ed25519SignNative(s, full, new Uint8Array(0)));
    return equalBytes(a, sig) && equalBytes(b, sig) && ok === true && mismatch === undefined;
  });
  return { supported: true, nonExtractable: gen.privateKey.extractable === false, selfTest: selfTest === true };
}

async function probeMlKem(s: Subtle): Promise<WebCryptoSupport['mlKem768']> {
  const none = { ...NONE, seedImport: false, expandedImport: false };
  if (typeof s.encapsulateBits !== 'function' || typeof s.decapsulateBits !== 'function') return none;
  const alg = { name: 'ML-KEM-768' };
  const both = ['encapsulateBits', 'decapsulateBits'] as unknown as KeyUsage[];
  const dec = ['decapsulateBits'] as unknown as KeyUsage[];
  const gen = await attempt(() => s.generateKey(alg, false, both) as Promise<CryptoKeyPair>);
  if (!gen) return none;
  const seedKey = await attempt(() => s.importKey('raw-seed' as 'raw', copyBytes(new Uint8Array(64).fill(1)), alg, false, dec));
  const selfTest = await attempt(async () => {
    const pair = (await s.generateKey(alg, true, both)) as CryptoKeyPair;
    const ek = new Uint8Array(await s.exportKey('raw-public' as 'raw', pair.publicKey));
    const { ciphertext, sharedSecret } = await mlKemEncapsulateNative(s, ek);
    const back = new Uint8Array(await s.decapsulateBits!(alg, pair.privateKey, copyBytes(ciphertext)));
    return ek.length === 1184 && ciphertext.length === 1088 && equalBytes(back, sharedSecret);
  });
  // PKCS#8 with the `expandedKey` choice ([OCTET STRING] of 2400 bytes), all zero: is the form accepted at all?
  const expanded = await attempt(async () => {
    const body = [0x02, 0x01, 0x00, ...hexToBytes('300b0609608648016503040402'), 0x04, 0x82, 0x09, 0x64, 0x04, 0x82, 0x09, 0x60];
    const der = new Uint8Array(4 + body.length + 2400);
    der.set([0x30, 0x82, ((body.length + 2400) >> 8) & 0xff, (body.length + 2400) & 0xff, ...body]);
    return s.importKey('pkcs8', der, alg, false, dec);
  });
  return {
    supported: true,
    nonExtractable: gen.privateKey.extractable === false && seedKey?.extractable === false,
    selfTest: selfTest === true,
    seedImport: seedKey !== undefined,
    expandedImport: expanded !== undefined,
  };
}

/** Probes WebCrypto (a few milliseconds; runs alongside the wasm download in `init()`). */
export async function detectWebCrypto(): Promise<WebCryptoSupport> {
  const s = subtle();
  if (!s) return { available: false, pbkdf2: NONE, x25519: NONE, ed25519: NONE, mlKem768: { ...NONE, seedImport: false, expandedImport: false } };
  const [pbkdf2, x25519, ed25519, mlKem768] = await Promise.all([probePbkdf2(s), probeX25519(s), probeEd25519(s), probeMlKem(s)]);
  return { available: true, pbkdf2, x25519, ed25519, mlKem768 };
}

/**
 * Where `'auto'` prefers WebCrypto (when supported and self-tested): the
 * operations that measured faster natively than in wasm, per call
 * (bench/results/latest.md; Chromium 156, 2 cores).
 */
const AUTO_NATIVE: Readonly<Record<RoutedPrimitive, boolean>> = {
  ecdhSharedSecret: true, // ~1.2× (PKCS#8 import of the secret on every call included)
  signMessage: false, // ~0.85× of wasm (PKCS#8 import + sign: two trips to WebCrypto's threads)
  verifySignature: true, // ~1.8× (public keys are cached)
  mlKemEncapsulate: true, // ~6.5×
  derivePbkdf2: true, // ~2.9×
};

/**
 * The route of each operation for a preference. `'native'` forces WebCrypto
 * wherever it is supported at all; `'auto'` requires the self-test and a
 * measured speed-up ({@link AUTO_NATIVE}).
 */
export function chooseRoutes(pref: RoutePreference, wc: WebCryptoSupport): Routes {
  const pick = (op: RoutedPrimitive, a: AlgorithmSupport): Route => {
    if (pref === 'wasm' || !a.supported) return 'wasm';
    if (pref === 'native') return 'native';
    return a.selfTest && AUTO_NATIVE[op] ? 'native' : 'wasm';
  };
  return {
    ecdhSharedSecret: pick('ecdhSharedSecret', wc.x25519),
    signMessage: pick('signMessage', wc.ed25519),
    verifySignature: pick('verifySignature', wc.ed25519),
    mlKemEncapsulate: pick('mlKemEncapsulate', wc.mlKem768),
    derivePbkdf2: pick('derivePbkdf2', wc.pbkdf2),
    mlKemDecapsulate: 'wasm',
    mlKemKeygen: 'wasm',
    mlKemDecapsulationKey: mlKemKeyRoute(pref, wc),
  };
}

/**
 * The route of ML-KEM-768 key handles (ts/mlkem-key.ts): native needs WebCrypto's
 * ML-KEM-768 with `raw-seed` import; `'auto'` also needs the self-test and
 * non-extractable keys (native handles are measured faster: bench/results/latest.md).
 */
export function mlKemKeyRoute(pref: RoutePreference, wc: WebCryptoSupport): Route {
  const m = wc.mlKem768;
  if (pref === 'wasm' || !m.supported || !m.seedImport) return 'wasm';
  if (pref === 'native') return 'native';
  return m.selfTest && m.nonExtractable ? 'native' : 'wasm';
}

// ---------------------------------------------------------------------------
// The report

let report: Capabilities | undefined;

/** Records this thread's report (called by `init()`). */
export function setCapabilities(value: Capabilities): void {
  report = Object.freeze({ ...value, routes: Object.freeze({ ...value.routes }) });
}

/**
 * What this veilkit instance runs on: the wasm build, the thread count,
 * cross-origin isolation, WebCrypto's support and the route of every routable
 * operation. Throws `VeilError('NOT_INITIALIZED')` before `init()` resolves.
 */
export function capabilities(): Capabilities {
  if (!report) throw new VeilError('NOT_INITIALIZED', 'call `await init()` before capabilities()');
  return report;
}

// ---------------------------------------------------------------------------
// The native operations

/** Public keys are imported once and kept (bounded, most recently used last); secrets never are. */
const PUBLIC_KEY_CACHE_SIZE = 64;
const publicKeys = new Map<string, { bytes: Uint8Array; key: CryptoKey }>();

async function importPublic(s: Subtle, algorithm: string, format: string, key: Uint8Array, usages: KeyUsage[]): Promise<CryptoKey> {
  // Index by the algorithm and the key's last 16 bytes (cheap), confirm with the full bytes.
  let id = algorithm;
  for (let i = Math.max(0, key.length - 16); i < key.length; i++) id += String.fromCharCode(key[i]!);
  const hit = publicKeys.get(id);
  if (hit && equalBytes(hit.bytes, key)) {
    publicKeys.delete(id);
    publicKeys.set(id, hit);
    return hit.key;
  }
  const bytes = copyBytes(key);
  const k = await s.importKey(format as 'raw', bytes, { name: algorithm }, true, usages);
  publicKeys.delete(id);
  publicKeys.set(id, { bytes, key: k });
  if (publicKeys.size > PUBLIC_KEY_CACHE_SIZE) publicKeys.delete(publicKeys.keys().next().value!);
  return k;
}

async function pbkdf2Native(s: Subtle, password: Uint8Array, salt: Uint8Array, iterations: number, len: number): Promise<Uint8Array> {
  const pw = copyBytes(password); // copied synchronously: the caller may wipe `password` when this returns
  let key: CryptoKey;
  try {
    key = await s.importKey('raw', pw, 'PBKDF2', false, ['deriveBits']);
  } finally {
    pw.fill(0);
  }
  return new Uint8Array(await s.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: copyBytes(salt), iterations }, key, len * 8));
}

async function x25519Native(s: Subtle, secret: Uint8Array, pub: Uint8Array): Promise<Uint8Array> {
  const der = pkcs8(PKCS8_X25519, secret);
  let priv: CryptoKey;
  try {
    priv = await s.importKey('pkcs8', der, { name: 'X25519' }, false, ['deriveBits']);
  } finally {
    der.fill(0);
  }
  const pk = await importPublic(s, 'X25519', 'raw', pub, []);
  try {
    return new Uint8Array(await s.deriveBits({ name: 'X25519', public: pk } as EcdhKeyDeriveParams, priv, 256));
  } catch (e) {
    // WebCrypto refuses an all-zero shared secret (a small-order public key), as the core does.
    if (e instanceof DOMException && e.name === 'OperationError') {
      throw new VeilError('WEAK_KEY', 'X25519: the shared secret is all zero (small-order public key)');
    }
    throw e;
  }
}

async function ed25519SignNative(s: Subtle, secret: Uint8Array, msg: Uint8Array): Promise<Uint8Array> {
  let key: CryptoKey;
  if (secret.length === 32) {
    const der = pkcs8(PKCS8_ED25519, secret);
    try {
      key = await s.importKey('pkcs8', der, { name: 'Ed25519' }, false, ['sign']);
    } finally {
      der.fill(0);
    }
  } else {
    // seed ‖ public: WebCrypto checks that `x` belongs to `d`.
    const jwk: JsonWebKey = { kty: 'OKP', crv: 'Ed25519', d: base64urlEncode(secret.subarray(0, 32)), x: base64urlEncode(secret.subarray(32)) };
    try {
      key = await s.importKey('jwk', jwk, { name: 'Ed25519' }, false, ['sign']);
    } catch (e) {
      if (e instanceof DOMException && e.name === 'DataError') {
        throw new VeilError('INVALID_KEY', 'Ed25519 secret key: public half does not match the seed');
      }
      throw e;
    } finally {
      jwk.d = '';
    }
  }
  return new Uint8Array(await s.sign({ name: 'Ed25519' }, key, copyBytes(msg)));
}

// Ed25519 encodings of small-order points (y, sign bit ignored) and the group order L, little-endian.
const SMALL_ORDER_Y = [
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0100000000000000000000000000000000000000000000000000000000000000',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
].map((h) => hexToBytes(h));
const ORDER_L = hexToBytes('edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010');

/** y ≥ p = 2^255 − 19 (the sign bit masked): a non-canonical encoding. */
function nonCanonicalY(p: Uint8Array): boolean {
  if ((p[31]! & 0x7f) !== 0x7f || p[0]! < 0xed) return false;
  for (let i = 1; i < 31; i++) if (p[i] !== 0xff) return false;
  return true;
}

function smallOrder(p: Uint8Array): boolean {
  const y = p.slice(0, 32);
  y[31]! &= 0x7f;
  return SMALL_ORDER_Y.some((s) => equalBytes(s, y));
}

/** Little-endian S < L. */
function scalarReduced(s: Uint8Array): boolean {
  for (let i = 31; i >= 0; i--) {
    if (s[i]! < ORDER_L[i]!) return true;
    if (s[i]! > ORDER_L[i]!) return false;
  }
  return false;
}

async function ed25519VerifyNative(s: Subtle, pub: Uint8Array, msg: Uint8Array, sig: Uint8Array): Promise<boolean> {
  // The core's strict rules that WebCrypto implementations do not all apply.
  const r = sig.subarray(0, 32);
  if (nonCanonicalY(pub) || smallOrder(pub) || nonCanonicalY(r) || smallOrder(r) || !scalarReduced(sig.subarray(32))) return false;
  let key: CryptoKey;
  try {
    key = await importPublic(s, 'Ed25519', 'raw', pub, ['verify']);
  } catch {
    return false; // not a point on the curve
  }
  return s.verify({ name: 'Ed25519' }, key, copyBytes(sig), copyBytes(msg));
}

async function mlKemEncapsulateNative(s: Subtle, ek: Uint8Array): Promise<{ ciphertext: Uint8Array; sharedSecret: Uint8Array }> {
  let key: CryptoKey;
  try {
    key = await importPublic(s, 'ML-KEM-768', 'raw-public', ek, ['encapsulateBits'] as unknown as KeyUsage[]);
  } catch (e) {
    if (e instanceof DOMException && e.name === 'DataError') {
      throw new VeilError('INVALID_KEY', 'ML-KEM-768 encapsulation key fails the modulus check');
    }
    throw e;
  }
  const out = await s.encapsulateBits!({ name: 'ML-KEM-768' }, key);
  return { ciphertext: new Uint8Array(out.ciphertext), sharedSecret: new Uint8Array(out.sharedKey) };
}

/**
 * Runs `name` natively when its route is `'native'`; returns `undefined` when
 * the call belongs to wasm. Arguments are checked exactly as the primitives
 * check them (`TypeError` / `RangeError` before any work).
 */
export function nativeCall(name: string, args: readonly unknown[]): Promise<unknown> | undefined {
  const routes = report?.routes;
  const s = subtle();
  if (!routes || !s || !(name in routes) || routes[name as keyof Routes] !== 'native') return undefined;
  switch (name as RoutedPrimitive) {
    case 'ecdhSharedSecret': {
      const secret = exact('ourSecret', args[0], 32);
      const pub = exact('theirPublic', args[1], 32);
      return x25519Native(s, secret, pub);
    }
    case 'signMessage': {
      const secret = oneOf('secretKey', args[0], [64, 32]);
      const msg = bytes('message', args[1]);
      return ed25519SignNative(s, secret, msg);
    }
    case 'verifySignature': {
      const pub = exact('publicKey', args[0], 32);
      const msg = bytes('message', args[1]);
      const sig = exact('signature', args[2], 64);
      return ed25519VerifyNative(s, pub, msg, sig);
    }
    case 'mlKemEncapsulate': {
      const ek = exact('encapsulationKey', args[0], 1184);
      return mlKemEncapsulateNative(s, ek);
    }
    case 'derivePbkdf2': {
      // The same checks, in the same order, as `derivePbkdf2` in ts/kdf.ts.
      const { data, owned } = stringOrBytes('password', args[0]);
      try {
        const salt = bytes('salt', args[1]);
        const iterations = integer('iterations', args[2], 1, 0xffff_ffff);
        const len = integer('keyLen', args[3], 1, 1024);
        return pbkdf2Native(s, data, salt, iterations, len);
      } finally {
        if (owned) wipe(data);
      }
    }
  }
}
