/**
 * Routes: where each routable operation runs — `'native'` (WebCrypto) or
 * `'wasm'` (the Rust core). One vocabulary for the whole SDK: the routes of
 * `capabilities()` (this thread's primitives), of ML-KEM-768 key handles
 * (ts/mlkem-key.ts) and of the keystore's keys (`ks.capabilities().routes`,
 * `IdentityHandle.routes`).
 *
 * `init()` probes WebCrypto once (probe.ts: generate and import
 * non-extractable, plus a known-answer self-test) and fixes a route per
 * operation. The byte-level primitives stay synchronous and always use wasm;
 * the routes apply to the asynchronous paths — `primitives/call` inside a
 * veilkit worker (`WorkerPool.call`, {@link nativeCall}). Both routes return
 * identical bytes and the same errors (`RangeError` for lengths, `VeilError`
 * codes otherwise).
 *
 * Routed operations (ops.ts): `ecdhSharedSecret` (X25519), `signMessage` and
 * `verifySignature` (Ed25519), `mlKemEncapsulate` (ML-KEM-768), `derivePbkdf2`
 * (PBKDF2-HMAC-SHA256; native SHA-256 is ~3× the wasm one).
 *
 * `'auto'` takes the native route only where it passed the self-test and
 * measured faster than wasm in `npm run bench` (Chromium, per call, key import
 * included): ML-KEM-768 encapsulation, X25519, Ed25519 verification and PBKDF2.
 * Ed25519 signing stays on wasm under `'auto'`: with the secret imported on
 * every call (secrets are never cached) WebCrypto signs no faster than the wasm
 * core. `'native'` takes WebCrypto for all of them where it passed the
 * self-test (an engine whose answers differ from the core's stays on wasm).
 *
 * Not routed: the byte-level ML-KEM-768 keygen and decapsulation. Their
 * decapsulation key is the 2400-byte expanded form (FIPS 203 `dk`); WebCrypto
 * imports only the 64-byte seed (`raw-seed`, seed-only PKCS#8) and never exports
 * the expanded key, so neither the keygen output nor a decapsulation from `dk`
 * can be produced natively. The key handles of ts/mlkem-key.ts
 * (`generateMlKemKey`, `importMlKemSeed`) take that route instead: a
 * non-extractable WebCrypto key, decapsulated natively
 * (`routes.mlKemDecapsulationKey`). The handles of ts/keys.ts do the same for
 * Ed25519 signing, X25519, ML-KEM-768 encapsulation and ML-DSA-65 keys
 * (`routes.ed25519SigningKey`, `x25519Key`, `mlKemEncapsulationKey`,
 * `mlDsaSigningKey` — which also needs `raw-seed` import — and `mlDsaPublicKey`,
 * {@link handleRoute}): native under `'auto'` too, since the key is imported once.
 */
import { VeilError } from '../../protocol/errors.js';
import { bytes, exact, integer, oneOf, stringOrBytes, wipe } from '../validate.js';
import type { KeyType } from '../../protocol/keystore.protocol.js';
import { ed25519SignNative, ed25519VerifyNative, mlKemEncapsulateNative, pbkdf2Native, x25519Native } from './ops.js';
import type { AlgorithmSupport, WebCryptoSupport } from './probe.js';
import type { SeedKeySupport } from './probe-keys.js';
import { findSubtle } from './subtle.js';

/** Where an operation runs (or a keystore key lives): WebCrypto, or the wasm core. */
export type Route = 'native' | 'wasm';
/** `'auto'`: native where WebCrypto supports it (and passed the self-test), wasm elsewhere. */
export type RoutePreference = 'auto' | 'wasm' | 'native';
/** Which WebAssembly build is loaded. */
export type WasmBuild = 'simd' | 'threads';

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
  /** Ed25519 signing-key handles (`generateEd25519SigningKey`, `importEd25519Seed`, ts/keys.ts). */
  readonly ed25519SigningKey: Route;
  /** X25519 key handles (`generateX25519Key`, `importX25519Secret`, ts/keys.ts). */
  readonly x25519Key: Route;
  /** ML-KEM-768 encapsulation-key handles (`importMlKemEncapsulationKey`, ts/keys.ts). */
  readonly mlKemEncapsulationKey: Route;
  /** ML-DSA-65 signing-key handles (`generateMlDsaSigningKey`, `importMlDsaSeed`, ts/keys.ts). */
  readonly mlDsaSigningKey: Route;
  /** ML-DSA-65 public-key handles (`importMlDsaPublicKey`, ts/keys.ts). */
  readonly mlDsaPublicKey: Route;
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

export type RoutedPrimitive = Exclude<keyof Routes, 'mlKemDecapsulate' | 'mlKemKeygen' | 'mlKemDecapsulationKey' | 'ed25519SigningKey' | 'x25519Key' | 'mlKemEncapsulationKey' | 'mlDsaSigningKey' | 'mlDsaPublicKey'>;

// ---------------------------------------------------------------------------
// Choosing

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
 * The route of each operation for a preference. `'native'` takes WebCrypto
 * wherever it is supported and passed the self-test (so that both routes give
 * the same results); `'auto'` also requires a measured speed-up
 * ({@link AUTO_NATIVE}).
 */
export function chooseRoutes(pref: RoutePreference, wc: WebCryptoSupport): Routes {
  const pick = (op: RoutedPrimitive, a: AlgorithmSupport): Route => {
    if (pref === 'wasm' || !a.supported || !a.selfTest) return 'wasm';
    return pref === 'native' || AUTO_NATIVE[op] ? 'native' : 'wasm';
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
    ed25519SigningKey: handleRoute(pref, wc.ed25519, true),
    x25519Key: handleRoute(pref, wc.x25519, true),
    mlKemEncapsulationKey: handleRoute(pref, wc.mlKem768, false),
    mlDsaSigningKey: wc.mlDsa65.seedImport ? handleRoute(pref, wc.mlDsa65, true) : 'wasm',
    mlDsaPublicKey: handleRoute(pref, wc.mlDsa65, false),
  };
}

/**
 * The route preference a key handle is made with (ts/keys.ts, ts/mlkem-key.ts): `options.route`,
 * else the one `init()` was given; `TypeError` for options that are not an object or another route.
 */
export function handlePreference(options: { route?: RoutePreference } | undefined): RoutePreference {
  if (options !== undefined && (typeof options !== 'object' || options === null)) throw new TypeError('options must be an object');
  const pref = options?.route ?? capabilities().routePreference;
  if (pref !== 'auto' && pref !== 'wasm' && pref !== 'native') throw new TypeError(`route must be 'auto', 'wasm' or 'native'`);
  return pref;
}

/**
 * The route of a key handle (ts/keys.ts): native where WebCrypto has the algorithm and passed the
 * self-test (and, for a private key, keeps it non-extractable), under `'auto'` as under
 * `'native'`: a key imported once and used many times is where WebCrypto wins (no import per call).
 */
export function handleRoute(pref: RoutePreference, a: AlgorithmSupport, secret: boolean): Route {
  if (pref === 'wasm' || !a.supported || !a.selfTest) return 'wasm';
  return !secret || a.nonExtractable ? 'native' : 'wasm';
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

/**
 * The keystore's routes for the keys of a new identity (`ks.capabilities().routes`).
 * Ed25519, X25519, ML-KEM-768 and ML-DSA-65 are native when their seed-imported
 * key passed the self-test against the core (probe-keys.ts). The route of ML-DSA-65
 * decides the app, container-header and device-registry signatures, which are
 * hedged on both routes; the public bundle's deterministic signature (so that a restored identity
 * publishes a byte-identical bundle) is made by the core from the seed when the
 * identity is made or restored, whatever the route (worker/keystore/identities.ts).
 * X-Wing has no WebCrypto algorithm.
 */
export function keyRoutes(support: SeedKeySupport): Record<KeyType, Route> {
  const route = (ok: boolean): Route => (ok ? 'native' : 'wasm');
  return {
    'ed25519': route(support.ed25519),
    'x25519': route(support.x25519),
    'ml-kem-768': route(support['ml-kem-768']),
    'x-wing': 'wasm',
    'ml-dsa-65': route(support['ml-dsa-65']),
  };
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
// Dispatch

/**
 * Runs `name` natively when its route is `'native'`; returns `undefined` when
 * the call belongs to wasm. Arguments are checked exactly as the primitives
 * check them (`TypeError` / `RangeError` before any work).
 */
export function nativeCall(name: string, args: readonly unknown[]): Promise<unknown> | undefined {
  const routes = report?.routes;
  const s = findSubtle();
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
