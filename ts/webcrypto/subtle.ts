/**
 * Access to WebCrypto (`crypto.subtle`) with the typings of the methods and
 * formats newer than the DOM lib (ML-KEM's `encapsulateBits` /
 * `decapsulateBits` / `decapsulateKey`, ML-DSA's `context`, the `raw-seed` and
 * `raw-public` formats), and the import of a 32- or 64-byte private seed as a
 * non-extractable key. One home for every veilkit module that calls WebCrypto
 * with these algorithms: the native routes (ops.ts, probe.ts), the ML-KEM key
 * handles (ts/mlkem-key.ts) and the keystore worker (worker/keystore/).
 */
import { base64urlEncode, hexToBytes } from '../bytes.js';
import { ed25519KeypairFromSeed } from '../ed25519.js';
import { x25519PublicKey } from '../x25519.js';

/** `encapsulateBits`' result. */
export interface EncapsulatedBits {
  ciphertext: ArrayBuffer;
  sharedKey: ArrayBuffer;
}

/** WebCrypto methods and formats newer than the DOM typings. */
export interface ModernSubtle {
  importKey(format: string, data: BufferSource, algorithm: { name: string }, extractable: boolean, usages: string[]): Promise<CryptoKey>;
  exportKey(format: string, key: CryptoKey): Promise<ArrayBuffer>;
  generateKey(algorithm: { name: string }, extractable: boolean, usages: string[]): Promise<CryptoKeyPair>;
  encapsulateBits(algorithm: { name: string }, key: CryptoKey): Promise<EncapsulatedBits>;
  decapsulateBits(algorithm: { name: string }, key: CryptoKey, ciphertext: BufferSource): Promise<ArrayBuffer>;
  decapsulateKey(
    algorithm: { name: string }, key: CryptoKey, ciphertext: BufferSource, sharedKeyAlgorithm: { name: string }, extractable: boolean, usages: string[],
  ): Promise<CryptoKey>;
  sign(algorithm: { name: string; context?: Uint8Array | undefined }, key: CryptoKey, data: BufferSource): Promise<ArrayBuffer>;
  verify(algorithm: { name: string; context?: Uint8Array | undefined }, key: CryptoKey, signature: BufferSource, data: BufferSource): Promise<boolean>;
}

/** `crypto.subtle` with the DOM typings and the newer methods (which a browser may still lack: probe before use). */
export type Subtle = SubtleCrypto & ModernSubtle;

/** `crypto.subtle`, or `undefined` outside a secure context. */
export function findSubtle(): Subtle | undefined {
  const c = (globalThis as { crypto?: { subtle?: SubtleCrypto } }).crypto;
  return c?.subtle as Subtle | undefined;
}

/** `crypto.subtle` where it is required (worker code: a veilkit worker runs in a secure context). */
export function subtle(): Subtle {
  return globalThis.crypto.subtle as Subtle;
}

// ---------------------------------------------------------------------------
// Private keys from seeds

/** The key types whose private key WebCrypto imports from a veilkit seed. */
export type SeedKeyType = 'ed25519' | 'x25519' | 'ml-kem-768' | 'ml-dsa-65';

/** PKCS#8 (RFC 8410) prefixes of a 32-byte Ed25519 / X25519 private key. */
const PKCS8_PREFIX: Readonly<Record<'ed25519' | 'x25519', Uint8Array>> = {
  ed25519: hexToBytes('302e020100300506032b657004220420'),
  x25519: hexToBytes('302e020100300506032b656e04220420'),
};

const SEED_KEY: Readonly<Record<SeedKeyType, { name: string; format: 'pkcs8' | 'raw-seed'; usages: string[] }>> = {
  'ed25519': { name: 'Ed25519', format: 'pkcs8', usages: ['sign'] },
  'x25519': { name: 'X25519', format: 'pkcs8', usages: ['deriveBits'] },
  'ml-kem-768': { name: 'ML-KEM-768', format: 'raw-seed', usages: ['decapsulateBits', 'decapsulateKey'] },
  'ml-dsa-65': { name: 'ML-DSA-65', format: 'raw-seed', usages: ['sign'] },
};

/**
 * Imports a private key from its seed as a **non-extractable** WebCrypto key:
 * Ed25519 / X25519 from their 32-byte secret (PKCS#8, the DER wiped after the
 * import; a JWK with the core's public key where the engine refuses the
 * PKCS#8), ML-KEM-768 (`d ‖ z`) and ML-DSA-65 (`ξ`) from their seed
 * (`raw-seed`). The caller's seed is not modified.
 */
export async function importSeedKey(s: Subtle, type: SeedKeyType, seed: Uint8Array): Promise<CryptoKey> {
  const { name, format, usages } = SEED_KEY[type];
  const prefix = type === 'ed25519' || type === 'x25519' ? PKCS8_PREFIX[type] : new Uint8Array(0);
  const data = new Uint8Array(prefix.length + seed.length);
  data.set(prefix);
  data.set(seed, prefix.length);
  try {
    return await s.importKey(format, data, { name }, false, usages);
  } catch (e) {
    // Every 32-byte string is an Ed25519 / X25519 private key, so a refusal is the engine's:
    // WebKitGTK 2.50 refuses PKCS#8 keys whose first byte is 0 (1 key in 256) and takes the same key
    // as a JWK.
    if ((type === 'ed25519' || type === 'x25519') && seed.length === 32 && e instanceof DOMException && e.name === 'DataError') {
      return await importJwk(s, type, seed, name, usages);
    }
    throw e;
  } finally {
    data.fill(0);
  }
}

/** An Ed25519 / X25519 private key as a non-extractable JWK (`d` and the public `x` the core derives). */
async function importJwk(s: Subtle, type: 'ed25519' | 'x25519', seed: Uint8Array, name: string, usages: string[]): Promise<CryptoKey> {
  let pub: Uint8Array;
  if (type === 'ed25519') {
    const [secretKey, publicKey] = ed25519KeypairFromSeed(seed);
    secretKey.fill(0);
    pub = publicKey;
  } else {
    pub = x25519PublicKey(seed);
  }
  const jwk: JsonWebKey = { kty: 'OKP', crv: name, d: base64urlEncode(seed), x: base64urlEncode(pub) };
  try {
    return await s.importKey('jwk', jwk, { name }, false, usages as KeyUsage[]);
  } finally {
    jwk.d = '';
  }
}
