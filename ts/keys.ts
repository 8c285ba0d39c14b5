/**
 * Key handles for the asymmetric keys of the byte API: Ed25519 signing keys,
 * X25519 keys, ML-KEM-768 encapsulation (public) keys and ML-DSA-65 signing
 * and public keys, next to the ML-KEM-768 decapsulation keys of ts/mlkem-key.ts.
 *
 * A handle is made once (generated, or imported from its seed / secret /
 * public bytes) and used many times. On the native route the key is a
 * WebCrypto `CryptoKey` — private keys **non-extractable**, with only the usage
 * the handle needs — imported once, so each use is one WebCrypto call: the
 * byte API's routed calls import the secret on every call (routes.ts), which is
 * why signing stays on wasm there. On the wasm route an Ed25519 key is the
 * core's signer in wasm memory (its public key derived once, so a signature
 * costs what libsodium's does; freed and wiped by `dispose()`), an X25519 secret
 * stays in the handle's private field (JS memory, wiped by `dispose()`), as
 * does an ML-DSA-65 seed.
 *
 * Both routes give the same bytes and the same errors as the byte API
 * (`signMessage`, `ecdhSharedSecret`, `mlKemEncapsulate`); the same vectors
 * check them (tests/playwright/native.spec.ts). Import checks happen once:
 * an Ed25519 seed's public key is derived by the core at import, an ML-KEM
 * encapsulation key is modulus-checked at import (`INVALID_KEY`).
 *
 * ML-DSA-65 signatures are hedged (FIPS 204's default) on both routes — WebCrypto
 * signs only hedged — so they differ from call to call; both routes' signatures
 * verify on both routes, and verification gives the byte API's verdicts
 * (Wycheproof's vectors, tests/playwright/native.spec.ts). Deterministic
 * signatures stay in the byte API (`mlDsaSign(seed, m, { deterministic: true })`).
 *
 * Route: `capabilities().routes.ed25519SigningKey` / `x25519Key` /
 * `mlKemEncapsulationKey` / `mlDsaSigningKey` / `mlDsaPublicKey`, or
 * `options.route` per handle.
 */
import * as wasm from './wasm/veilkit.js';
import { VeilError } from '../protocol/errors.js';
import { call } from './init.js';
import { disposeSymbol } from './dispose.js';
import { KeySlot } from './key-slot.js';
import { ED25519_PUBLIC_KEY_LENGTH, ED25519_SEED_LENGTH } from './ed25519.js';
import { X25519_KEY_LENGTH, ecdhSharedSecret, generateX25519Keypair, x25519PublicKey } from './x25519.js';
import { ML_KEM_768, mlKemEncapsulate } from './mlkem.js';
import { ML_DSA_65, mlDsaContext, mlDsaKeygen, mlDsaSign, mlDsaVerify } from './mldsa.js';
import type { EncapsulationResult } from './split.js';
import { capabilities, chooseRoutes, handlePreference, type Route, type RoutePreference } from './webcrypto/routes.js';
import { importMlKemPublic, mlKemEncapsulateWith, x25519DeriveNative } from './webcrypto/ops.js';
import { importSeedKey, subtle } from './webcrypto/subtle.js';
import { bytes, exact, untrustedExact, wipe } from './validate.js';
import { bufferSource, copyBytes } from './bytes.js';

/** Options of the key-handle constructors: which route holds the key (`native` WebCrypto or `wasm`). */
export interface KeyHandleOptions {
  /** Overrides the route `init()` chose for this thread (`'native'` falls back to wasm where WebCrypto cannot). */
  route?: RoutePreference;
}

type HandleKind = 'ed25519SigningKey' | 'x25519Key' | 'mlKemEncapsulationKey' | 'mlDsaSigningKey' | 'mlDsaPublicKey';

/** The route a new handle of `kind` gets: the one `capabilities().routes` reports, for the handle's preference. */
function routeFor(kind: HandleKind, options: KeyHandleOptions | undefined): Route {
  return chooseRoutes(handlePreference(options), capabilities().webCrypto)[kind];
}

// ---------------------------------------------------------------------------
// Ed25519

/** An Ed25519 signing key held as a handle (never as bytes on the native route). */
export class Ed25519SigningKey {
  /** Where this key lives and signs. */
  readonly route: Route;
  readonly #publicKey: Uint8Array;
  /** On wasm, the core's signer in wasm memory (its public key derived once: a signature is one fixed-base multiplication). */
  readonly #key: KeySlot<wasm.Ed25519SignerHandle>;

  /** @internal Use `generateEd25519SigningKey` or `importEd25519Seed`. */
  constructor(route: Route, publicKey: Uint8Array, key: CryptoKey | wasm.Ed25519SignerHandle) {
    this.route = route;
    this.#publicKey = publicKey;
    this.#key = new KeySlot(route, key, (signer) => signer.free(), 'this Ed25519 key');
  }

  /** The 32-byte public key (a copy). */
  get publicKey(): Uint8Array {
    return this.#publicKey.slice();
  }

  /** The non-extractable WebCrypto key (usage `sign`) on the native route; `undefined` on wasm and once disposed. */
  get webCryptoKey(): CryptoKey | undefined {
    return this.#key.webCryptoKey;
  }

  /** The 64-byte RFC 8032 signature of `message`: the same bytes as `signMessage` with this key's seed. */
  async sign(message: Uint8Array): Promise<Uint8Array> {
    const key = this.#key.held();
    const m = bytes('message', message);
    if ('native' in key) return new Uint8Array(await subtle().sign({ name: 'Ed25519' }, key.native, bufferSource(m)));
    return call(() => key.wasm.sign(m));
  }

  /** Forgets the key (frees the wasm route's signer, which wipes it; drops the WebCrypto key). Idempotent; `sign` then rejects with `INVALID_STATE`. */
  dispose(): void {
    this.#key.release();
  }

  /** Same as {@link Ed25519SigningKey.dispose} (`using key = await generateEd25519SigningKey()`). */
  [disposeSymbol](): void {
    this.dispose();
  }
}

/** A fresh Ed25519 signing key. On the native route WebCrypto generates it and the private key never exists as bytes. */
export async function generateEd25519SigningKey(options?: KeyHandleOptions): Promise<Ed25519SigningKey> {
  const route = routeFor('ed25519SigningKey', options);
  if (route === 'wasm') {
    const seed = crypto.getRandomValues(new Uint8Array(ED25519_SEED_LENGTH));
    try {
      return await importEd25519Seed(seed, { route: 'wasm' });
    } finally {
      wipe(seed);
    }
  }
  const s = subtle();
  const pair = (await s.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify'])) as CryptoKeyPair;
  const pk = new Uint8Array(await s.exportKey('raw', pair.publicKey));
  if (pk.length !== ED25519_PUBLIC_KEY_LENGTH) throw new VeilError('INTERNAL', 'WebCrypto exported an Ed25519 public key of another length');
  return new Ed25519SigningKey('native', pk, pair.privateKey);
}

/**
 * The Ed25519 signing key of a 32-byte seed (the RFC 8032 private key), as a handle. The public key
 * is derived by the core once, here. The caller's seed is not modified (wipe it yourself when done).
 */
export async function importEd25519Seed(seed: Uint8Array, options?: KeyHandleOptions): Promise<Ed25519SigningKey> {
  const s32 = exact('seed', seed, ED25519_SEED_LENGTH);
  const route = routeFor('ed25519SigningKey', options);
  // The core derives the public key, once, on both routes (wasm copies the seed into its memory).
  const signer = call(() => new wasm.Ed25519SignerHandle(s32));
  const publicKey = signer.publicKey();
  if (route === 'wasm') return new Ed25519SigningKey('wasm', publicKey, signer);
  signer.free();
  return new Ed25519SigningKey('native', publicKey, await importSeedKey(subtle(), 'ed25519', s32));
}

// ---------------------------------------------------------------------------
// X25519

/** An X25519 key held as a handle (never as bytes on the native route). */
export class X25519Key {
  /** Where this key lives and agrees. */
  readonly route: Route;
  readonly #publicKey: Uint8Array;
  /** On wasm, the 32-byte secret. */
  readonly #key: KeySlot<Uint8Array>;

  /** @internal Use `generateX25519Key` or `importX25519Secret`. */
  constructor(route: Route, publicKey: Uint8Array, key: CryptoKey | Uint8Array) {
    this.route = route;
    this.#publicKey = publicKey;
    this.#key = new KeySlot(route, key, wipe, 'this X25519 key');
  }

  /** The 32-byte public key (a copy). */
  get publicKey(): Uint8Array {
    return this.#publicKey.slice();
  }

  /** The non-extractable WebCrypto key (usage `deriveBits`) on the native route; `undefined` on wasm and once disposed. */
  get webCryptoKey(): CryptoKey | undefined {
    return this.#key.webCryptoKey;
  }

  /**
   * The 32-byte X25519 shared secret with `theirPublic`: the same bytes as `ecdhSharedSecret`; a
   * small-order public key (an all-zero secret) is `VeilError('WEAK_KEY')`, one that is not 32
   * bytes `VeilError('INVALID_LENGTH')` (it is the peer's).
   */
  async sharedSecret(theirPublic: Uint8Array): Promise<Uint8Array> {
    const key = this.#key.held();
    const pub = untrustedExact('theirPublic', theirPublic, X25519_KEY_LENGTH, 'INVALID_LENGTH');
    if ('native' in key) return x25519DeriveNative(subtle(), key.native, pub);
    return ecdhSharedSecret(key.wasm, pub);
  }

  /** Forgets the key (wipes the wasm route's secret, drops the WebCrypto key). Idempotent; `sharedSecret` then rejects with `INVALID_STATE`. */
  dispose(): void {
    this.#key.release();
  }

  /** Same as {@link X25519Key.dispose}. */
  [disposeSymbol](): void {
    this.dispose();
  }
}

/** A fresh X25519 key. On the native route WebCrypto generates it and the private key never exists as bytes. */
export async function generateX25519Key(options?: KeyHandleOptions): Promise<X25519Key> {
  const route = routeFor('x25519Key', options);
  if (route === 'wasm') {
    const [secret, publicKey] = generateX25519Keypair();
    return new X25519Key('wasm', publicKey, secret);
  }
  const s = subtle();
  const pair = (await s.generateKey({ name: 'X25519' }, false, ['deriveBits'])) as CryptoKeyPair;
  const pk = new Uint8Array(await s.exportKey('raw', pair.publicKey));
  if (pk.length !== X25519_KEY_LENGTH) throw new VeilError('INTERNAL', 'WebCrypto exported an X25519 public key of another length');
  return new X25519Key('native', pk, pair.privateKey);
}

/** The X25519 key of a 32-byte secret, as a handle. The caller's secret is not modified. */
export async function importX25519Secret(secret: Uint8Array, options?: KeyHandleOptions): Promise<X25519Key> {
  const s32 = exact('secret', secret, X25519_KEY_LENGTH);
  const route = routeFor('x25519Key', options);
  const publicKey = x25519PublicKey(s32);
  if (route === 'wasm') return new X25519Key('wasm', publicKey, copyBytes(s32));
  return new X25519Key('native', publicKey, await importSeedKey(subtle(), 'x25519', s32));
}

// ---------------------------------------------------------------------------
// ML-KEM-768 encapsulation keys

/** An ML-KEM-768 encapsulation (public) key, checked and imported once. */
export class MlKemEncapsulationKey {
  /** Where encapsulation runs. */
  readonly route: Route;
  readonly #bytes: Uint8Array;
  readonly #webCryptoKey: CryptoKey | undefined;

  /** @internal Use `importMlKemEncapsulationKey`. */
  constructor(route: Route, ek: Uint8Array, key: CryptoKey | undefined) {
    this.route = route;
    this.#bytes = ek;
    this.#webCryptoKey = key;
  }

  /** The 1184 bytes (a copy). */
  get bytes(): Uint8Array {
    return this.#bytes.slice();
  }

  /** The WebCrypto public key (usage `encapsulateBits`) on the native route. */
  get webCryptoKey(): CryptoKey | undefined {
    return this.#webCryptoKey;
  }

  /** A fresh `{ ciphertext (1088 bytes), sharedSecret (32 bytes) }` to this key, as `mlKemEncapsulate` makes it. */
  async encapsulate(): Promise<EncapsulationResult> {
    if (this.#webCryptoKey) return mlKemEncapsulateWith(subtle(), this.#webCryptoKey);
    return mlKemEncapsulate(this.#bytes);
  }
}

/**
 * An ML-KEM-768 encapsulation key of 1184 bytes (someone else's: a wrong length is
 * `VeilError('INVALID_LENGTH')`, a key that fails the FIPS 203 modulus check `VeilError('INVALID_KEY')`,
 * both here, once). The caller's bytes are copied.
 */
export async function importMlKemEncapsulationKey(encapsulationKey: Uint8Array, options?: KeyHandleOptions): Promise<MlKemEncapsulationKey> {
  const ek = copyBytes(untrustedExact('encapsulationKey', encapsulationKey, ML_KEM_768.encapsulationKeyLength, 'INVALID_LENGTH'));
  const route = routeFor('mlKemEncapsulationKey', options);
  if (route === 'wasm') {
    // The modulus check now, not at the first encapsulation: one throwaway encapsulation.
    const probe = mlKemEncapsulate(ek);
    wipe(probe.sharedSecret);
    return new MlKemEncapsulationKey('wasm', ek, undefined);
  }
  return new MlKemEncapsulationKey('native', ek, await importMlKemPublic(subtle(), ek));
}

// ---------------------------------------------------------------------------
// ML-DSA-65

/** Options of `MlDsaSigningKey.sign` and `MlDsaPublicKey.verify`: the FIPS 204 context string (≤ 255 bytes, default empty). */
export interface MlDsaContextOptions {
  context?: Uint8Array | undefined;
}

function contextOf(options: MlDsaContextOptions | undefined): Uint8Array<ArrayBuffer> {
  if (options !== undefined && (typeof options !== 'object' || options === null)) throw new TypeError('options must be an object');
  return copyBytes(mlDsaContext(options?.context));
}

/** The WebCrypto algorithm parameters of an ML-DSA-65 signature with `context` (none when empty). */
function mlDsaParams(context: Uint8Array<ArrayBuffer>): { name: string; context?: Uint8Array<ArrayBuffer> } {
  return context.length === 0 ? { name: 'ML-DSA-65' } : { name: 'ML-DSA-65', context };
}

/** An ML-DSA-65 signing key held as a handle (never as bytes on the native route). */
export class MlDsaSigningKey {
  /** Where this key lives and signs. */
  readonly route: Route;
  readonly #publicKey: Uint8Array;
  /** On wasm, a copy of the 32-byte seed ξ. */
  readonly #key: KeySlot<Uint8Array>;

  /** @internal Use `generateMlDsaSigningKey` or `importMlDsaSeed`. */
  constructor(route: Route, publicKey: Uint8Array, key: CryptoKey | Uint8Array) {
    this.route = route;
    this.#publicKey = publicKey;
    this.#key = new KeySlot(route, key, wipe, 'this ML-DSA-65 key');
  }

  /** The 1952-byte public key (a copy). */
  get publicKey(): Uint8Array {
    return this.#publicKey.slice();
  }

  /** The non-extractable WebCrypto key (usage `sign`) on the native route; `undefined` on wasm and once disposed. */
  get webCryptoKey(): CryptoKey | undefined {
    return this.#key.webCryptoKey;
  }

  /**
   * A hedged 3309-byte FIPS 204 signature of `message` under `options.context` (≤ 255 bytes,
   * else `RangeError`). It verifies with `mlDsaVerify(publicKey, message, signature, { context })`.
   */
  async sign(message: Uint8Array, options?: MlDsaContextOptions): Promise<Uint8Array> {
    const key = this.#key.held();
    const m = bytes('message', message);
    const context = contextOf(options);
    if ('native' in key) return new Uint8Array(await subtle().sign(mlDsaParams(context), key.native, bufferSource(m)));
    return mlDsaSign(key.wasm, m, { context });
  }

  /** Forgets the key (wipes the wasm route's seed, drops the WebCrypto key). Idempotent; `sign` then rejects with `INVALID_STATE`. */
  dispose(): void {
    this.#key.release();
  }

  /** Same as {@link MlDsaSigningKey.dispose}. */
  [disposeSymbol](): void {
    this.dispose();
  }
}

/** A fresh ML-DSA-65 signing key. On the native route WebCrypto generates it and the private key never exists as bytes. */
export async function generateMlDsaSigningKey(options?: KeyHandleOptions): Promise<MlDsaSigningKey> {
  const route = routeFor('mlDsaSigningKey', options);
  if (route === 'wasm') {
    const [seed, publicKey] = mlDsaKeygen();
    return new MlDsaSigningKey('wasm', publicKey, seed);
  }
  const s = subtle();
  const pair = (await s.generateKey({ name: 'ML-DSA-65' }, false, ['sign', 'verify'])) as CryptoKeyPair;
  const pk = new Uint8Array(await s.exportKey('raw-public', pair.publicKey));
  if (pk.length !== ML_DSA_65.publicKeyLength) throw new VeilError('INTERNAL', 'WebCrypto exported an ML-DSA-65 public key of another length');
  return new MlDsaSigningKey('native', pk, pair.privateKey);
}

/**
 * The ML-DSA-65 signing key of a 32-byte seed ξ (FIPS 204 `ML-DSA.KeyGen_internal`, as `mlDsaKeygen(seed)`),
 * as a handle. The public key is derived by the core once, here. The caller's seed is not modified.
 */
export async function importMlDsaSeed(seed: Uint8Array, options?: KeyHandleOptions): Promise<MlDsaSigningKey> {
  const s32 = exact('seed', seed, ML_DSA_65.secretKeyLength);
  const route = routeFor('mlDsaSigningKey', options);
  const [secret, publicKey] = mlDsaKeygen(s32);
  if (route === 'wasm') return new MlDsaSigningKey('wasm', publicKey, secret);
  wipe(secret);
  return new MlDsaSigningKey('native', publicKey, await importSeedKey(subtle(), 'ml-dsa-65', s32));
}

/** An ML-DSA-65 public key, checked and imported once. */
export class MlDsaPublicKey {
  /** Where verification runs. */
  readonly route: Route;
  readonly #bytes: Uint8Array;
  readonly #webCryptoKey: CryptoKey | undefined;

  /** @internal Use `importMlDsaPublicKey`. */
  constructor(route: Route, pk: Uint8Array, key: CryptoKey | undefined) {
    this.route = route;
    this.#bytes = pk;
    this.#webCryptoKey = key;
  }

  /** The 1952 bytes (a copy). */
  get bytes(): Uint8Array {
    return this.#bytes.slice();
  }

  /** The WebCrypto public key (usage `verify`) on the native route. */
  get webCryptoKey(): CryptoKey | undefined {
    return this.#webCryptoKey;
  }

  /**
   * Whether `signature` is this key's FIPS 204 signature of `message` under `options.context`: the
   * same verdict as `mlDsaVerify` (`false` for any invalid signature, one of the wrong length too).
   */
  async verify(message: Uint8Array, signature: Uint8Array, options?: MlDsaContextOptions): Promise<boolean> {
    const m = bytes('message', message);
    const sig = bytes('signature', signature);
    const context = contextOf(options);
    if (!this.#webCryptoKey) return mlDsaVerify(this.#bytes, m, sig, { context });
    if (sig.length !== ML_DSA_65.signatureLength) return false;
    return subtle().verify(mlDsaParams(context), this.#webCryptoKey, bufferSource(sig), bufferSource(m));
  }
}

/**
 * An ML-DSA-65 public key of 1952 bytes (someone else's: a wrong length is `VeilError('INVALID_LENGTH')`).
 * The caller's bytes are copied.
 */
export async function importMlDsaPublicKey(publicKey: Uint8Array, options?: KeyHandleOptions): Promise<MlDsaPublicKey> {
  const pk = copyBytes(untrustedExact('publicKey', publicKey, ML_DSA_65.publicKeyLength, 'INVALID_LENGTH'));
  const route = routeFor('mlDsaPublicKey', options);
  if (route === 'wasm') return new MlDsaPublicKey('wasm', pk, undefined);
  return new MlDsaPublicKey('native', pk, await subtle().importKey('raw-public', pk, { name: 'ML-DSA-65' }, true, ['verify']));
}
