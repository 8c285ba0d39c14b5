/**
 * The native (WebCrypto) operations of the routable primitives. Each returns
 * the same bytes and throws the same errors as the wasm core
 * (`VeilError('WEAK_KEY')`, `VeilError('INVALID_KEY')`, a `false` verification);
 * arguments are checked by the caller (routes.ts `nativeCall`, the probe's
 * known-answer tests).
 *
 * - X25519: `deriveBits`, the secret imported as PKCS#8, non-extractable; a
 *   public key the engine refuses at import is left to the core (the same
 *   result as wasm: its shared secret or `WEAK_KEY`).
 * - Ed25519 signing: the 32-byte seed as PKCS#8; of a 64-byte `seed ‖ public`
 *   the signature must verify under the public half, so a public half that does
 *   not match the seed is rejected as in wasm (`INVALID_KEY`).
 * - Ed25519 verification: after the checks WebCrypto does not make (canonical A
 *   and R, small-order A/R, S < L), so the result equals the core's strict one.
 * - ML-KEM-768 encapsulation: `encapsulateBits` (modulus check on import).
 * - PBKDF2-HMAC-SHA256: `deriveBits` (an empty password: the core, which
 *   WebKit's import refuses).
 *
 * Public keys are imported once and cached (bounded); secrets never are.
 */
import { VeilError } from '../../protocol/errors.js';
import { copyBytes, equalBytes, hexToBytes } from '../bytes.js';
import { importSeedKey, type Subtle } from './subtle.js';
import { ecdhSharedSecret } from '../x25519.js';
import { derivePbkdf2 } from '../kdf.js';

/** Public keys are imported once and kept (bounded, most recently used last); secrets never are. */
const PUBLIC_KEY_CACHE_SIZE = 64;
const publicKeys = new Map<string, { bytes: Uint8Array; key: CryptoKey }>();

async function importPublic(s: Subtle, algorithm: string, format: string, key: Uint8Array, usages: string[]): Promise<CryptoKey> {
  // Index by the algorithm and the key's last 16 bytes (cheap), confirm with the full bytes.
  let id = algorithm;
  for (const b of key.subarray(Math.max(0, key.length - 16))) id += String.fromCharCode(b);
  const hit = publicKeys.get(id);
  if (hit && equalBytes(hit.bytes, key)) {
    publicKeys.delete(id);
    publicKeys.set(id, hit);
    return hit.key;
  }
  const bytes = copyBytes(key);
  const k = await s.importKey(format, bytes, { name: algorithm }, true, usages);
  publicKeys.delete(id);
  publicKeys.set(id, { bytes, key: k });
  if (publicKeys.size > PUBLIC_KEY_CACHE_SIZE) {
    const oldest = publicKeys.keys().next();
    if (!oldest.done) publicKeys.delete(oldest.value);
  }
  return k;
}

/** PBKDF2-HMAC-SHA256 of `len` bytes. */
export async function pbkdf2Native(s: Subtle, password: Uint8Array, salt: Uint8Array, iterations: number, len: number): Promise<Uint8Array> {
  // WebKitGTK 2.50 refuses an empty password (DataError at import; Wycheproof pbkdf2 tcId 51): the core derives that one.
  if (password.length === 0) return derivePbkdf2(password, salt, iterations, len);
  const pw = copyBytes(password); // copied synchronously: the caller may wipe `password` when this returns
  let key: CryptoKey;
  try {
    key = await s.importKey('raw', pw, 'PBKDF2', false, ['deriveBits']);
  } finally {
    pw.fill(0);
  }
  return new Uint8Array(await s.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: copyBytes(salt), iterations }, key, len * 8));
}

/** p = 2^255 − 19, little-endian. */
const FIELD_P = hexToBytes('edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f');

/**
 * The canonical encoding of an X25519 u-coordinate (RFC 7748 §5: bit 255 masked, then reduced mod p,
 * which only changes u in [p, 2^255)). A copy.
 */
export function canonicalX25519(pub: Uint8Array): Uint8Array<ArrayBuffer> {
  const u = copyBytes(pub);
  const last = u[31];
  if (last !== undefined) u[31] = last & 0x7f;
  for (let i = 31; i >= 0; i--) {
    const a = u[i] ?? 0;
    const p = FIELD_P[i] ?? 0;
    if (a < p) return u; // u < p: canonical
    if (a > p) break;
  }
  // p ≤ u < 2^255: u − p = u + 19 − 2^255 (little-endian add of 19, the carry out of bit 255 dropped).
  let carry = 19;
  for (let i = 0; i < 32; i++) {
    const v = (u[i] ?? 0) + carry;
    u[i] = v & 0xff;
    carry = v >> 8;
  }
  const top = u[31];
  if (top !== undefined) u[31] = top & 0x7f;
  return u;
}

/**
 * X25519 with a private key that is a non-extractable WebCrypto key (ts/keys.ts `X25519Key`): the
 * public key canonicalized first (an engine may refuse a non-canonical one at import, which the
 * core accepts), and a public key the engine still refuses is a small-order one, whose shared
 * secret is all zero: `WEAK_KEY`, as the core says.
 */
export async function x25519DeriveNative(s: Subtle, priv: CryptoKey, pub: Uint8Array): Promise<Uint8Array> {
  let pk: CryptoKey;
  try {
    pk = await importPublic(s, 'X25519', 'raw', canonicalX25519(pub), []);
  } catch (e) {
    if (e instanceof DOMException && e.name === 'DataError') throw weakX25519();
    throw e;
  }
  try {
    return new Uint8Array(await s.deriveBits({ name: 'X25519', public: pk }, priv, 256));
  } catch (e) {
    if (e instanceof DOMException && e.name === 'OperationError') throw weakX25519();
    throw e;
  }
}

function weakX25519(): VeilError {
  return new VeilError('WEAK_KEY', 'X25519: the shared secret is all zero (small-order public key)');
}

/** X25519 shared secret of a 32-byte secret and a 32-byte public key. */
export async function x25519Native(s: Subtle, secret: Uint8Array, pub: Uint8Array): Promise<Uint8Array> {
  const priv = await importSeedKey(s, 'x25519', secret);
  let pk: CryptoKey;
  try {
    pk = await importPublic(s, 'X25519', 'raw', pub, []);
  } catch (e) {
    // Firefox refuses some public keys already at import (DataError; 32 bytes were checked by the
    // caller): small-order ones, and also some that the core (RFC 7748) accepts, e.g. Wycheproof
    // x25519 tcId 94 and 95. The core decides those: its shared secret, or WEAK_KEY.
    if (e instanceof DOMException && e.name === 'DataError') return ecdhSharedSecret(secret, pub);
    throw e;
  }
  try {
    return new Uint8Array(await s.deriveBits({ name: 'X25519', public: pk }, priv, 256));
  } catch (e) {
    // WebCrypto refuses an all-zero shared secret (a small-order public key), as the core does.
    if (e instanceof DOMException && e.name === 'OperationError') {
      throw new VeilError('WEAK_KEY', 'X25519: the shared secret is all zero (small-order public key)');
    }
    throw e;
  }
}

/**
 * Ed25519 signature with a 32-byte seed or a 64-byte `seed ‖ public`. A 64-byte secret's public
 * half must be its seed's, as in the core: the signature (made with the seed) must verify under
 * that half, or `INVALID_KEY` and no signature. Not a JWK import with `x`, which Firefox accepts
 * (and signs with) when `x` belongs to another seed.
 */
export async function ed25519SignNative(s: Subtle, secret: Uint8Array, msg: Uint8Array): Promise<Uint8Array> {
  const key = await importSeedKey(s, 'ed25519', secret.subarray(0, 32));
  const data = copyBytes(msg);
  const sig = new Uint8Array(await s.sign({ name: 'Ed25519' }, key, data));
  if (secret.length === 32) return sig;
  // With the core's strict rules first: a small-order or non-canonical half never reaches WebCrypto
  // (WebKitGTK 2.50's page crashes verifying under the identity point).
  if (!(await ed25519VerifyNative(s, secret.subarray(32), data, sig))) throw mismatchedPublicHalf();
  return sig;
}

function mismatchedPublicHalf(): VeilError {
  return new VeilError('INVALID_KEY', 'Ed25519 secret key: public half does not match the seed');
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
  const first = p[0];
  const last = p[31];
  if (first === undefined || last === undefined) return false; // not 32 bytes: the length check refuses it
  if ((last & 0x7f) !== 0x7f || first < 0xed) return false;
  for (let i = 1; i < 31; i++) if (p[i] !== 0xff) return false;
  return true;
}

function smallOrder(p: Uint8Array): boolean {
  const y = p.slice(0, 32);
  const last = y[31];
  if (last !== undefined) y[31] = last & 0x7f;
  return SMALL_ORDER_Y.some((s) => equalBytes(s, y));
}

/** Little-endian S < L. */
function scalarReduced(s: Uint8Array): boolean {
  for (let i = 31; i >= 0; i--) {
    // Little-endian: a byte past the end of a shorter array is a zero high byte.
    const a = s[i] ?? 0;
    const l = ORDER_L[i] ?? 0;
    if (a < l) return true;
    if (a > l) return false;
  }
  return false;
}

/** Ed25519 verification with the core's strict rules. */
export async function ed25519VerifyNative(s: Subtle, pub: Uint8Array, msg: Uint8Array, sig: Uint8Array): Promise<boolean> {
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

/** ML-KEM-768 encapsulation to a 1184-byte encapsulation key. */
export async function mlKemEncapsulateNative(s: Subtle, ek: Uint8Array): Promise<{ ciphertext: Uint8Array; sharedSecret: Uint8Array }> {
  return mlKemEncapsulateWith(s, await importMlKemPublic(s, ek));
}

/** A 1184-byte ML-KEM-768 encapsulation key as a WebCrypto public key (`INVALID_KEY`: the modulus check failed). */
export async function importMlKemPublic(s: Subtle, ek: Uint8Array): Promise<CryptoKey> {
  try {
    return await importPublic(s, 'ML-KEM-768', 'raw-public', ek, ['encapsulateBits']);
  } catch (e) {
    if (e instanceof DOMException && e.name === 'DataError') {
      throw new VeilError('INVALID_KEY', 'ML-KEM-768 encapsulation key fails the modulus check');
    }
    throw e;
  }
}

/** ML-KEM-768 encapsulation to an imported public key. */
export async function mlKemEncapsulateWith(s: Subtle, key: CryptoKey): Promise<{ ciphertext: Uint8Array; sharedSecret: Uint8Array }> {
  const out = await s.encapsulateBits({ name: 'ML-KEM-768' }, key);
  return { ciphertext: new Uint8Array(out.ciphertext), sharedSecret: new Uint8Array(out.sharedKey) };
}
