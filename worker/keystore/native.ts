/**
 * WebCrypto in the keystore: access to methods newer than the DOM typings,
 * import of derived seeds as non-extractable native keys, and the
 * known-answer self-test that decides which key types take the WebCrypto
 * route.
 */
import * as P from '../../ts/primitives.js';
import { VeilError } from '../../ts/errors.js';
import { wipe } from '../../ts/validate.js';
import { deriveKeySeed, publicKeyFromKeySeed } from '../../ts/keystore-format.js';
import { bs, concatBytes, equalBytes } from '../../ts/bytes.js';
import type { KeyRoute, KeyType, KeystoreCapabilities } from '../keystore.protocol.js';
import { SCHEMA_VERSION } from './db.js';

// ---------------------------------------------------------------------------
// WebCrypto access

export const enc = new TextEncoder();
export const subtle = (): SubtleCrypto => globalThis.crypto.subtle;
/** WebCrypto methods and formats newer than the DOM typings (raw-seed, decapsulate*). */
interface ModernSubtle {
  importKey(format: string, data: BufferSource, alg: unknown, extractable: boolean, usages: string[]): Promise<CryptoKey>;
  decapsulateBits(alg: unknown, key: CryptoKey, ciphertext: BufferSource): Promise<ArrayBuffer>;
  decapsulateKey(alg: unknown, key: CryptoKey, ciphertext: BufferSource, sharedKeyAlg: unknown, extractable: boolean, usages: string[]): Promise<CryptoKey>;
  sign(alg: unknown, key: CryptoKey, data: BufferSource): Promise<ArrayBuffer>;
}
export const modern = (): ModernSubtle => globalThis.crypto.subtle as unknown as ModernSubtle;

// ---------------------------------------------------------------------------
// Native (WebCrypto) keys and the capability self-test

const PKCS8_PREFIX: Record<'ed25519' | 'x25519', Uint8Array> = {
  ed25519: Uint8Array.from([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]),
  x25519: Uint8Array.from([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x6e, 0x04, 0x22, 0x04, 0x20]),
};

/** Imports a derived private key seed as a non-extractable WebCrypto key. */
export async function importNative(type: KeyType, keySeed: Uint8Array): Promise<CryptoKey> {
  switch (type) {
    case 'ed25519':
    case 'x25519': {
      const pkcs8 = concatBytes([PKCS8_PREFIX[type], keySeed]);
      try {
        return type === 'ed25519'
          ? await subtle().importKey('pkcs8', bs(pkcs8), { name: 'Ed25519' }, false, ['sign'])
          : await subtle().importKey('pkcs8', bs(pkcs8), { name: 'X25519' }, false, ['deriveBits']);
      } finally {
        wipe(pkcs8);
      }
    }
    case 'ml-kem-768':
      return modern().importKey('raw-seed', bs(keySeed), { name: 'ML-KEM-768' }, false, ['decapsulateBits', 'decapsulateKey']);
    case 'ml-dsa-65':
      return modern().importKey('raw-seed', bs(keySeed), { name: 'ML-DSA-65' }, false, ['sign']);
    case 'x-wing':
      throw new VeilError('INTERNAL', 'X-Wing has no WebCrypto route');
  }
}

type NativeAlg = 'ed25519' | 'x25519' | 'ml-kem-768' | 'ml-dsa-65';
let detected: Promise<Record<NativeAlg, boolean>> | undefined;

/** Which algorithms WebCrypto implements here *and* agrees with the wasm core on (a known-answer self-test from a fixed seed). */
function detectNative(): Promise<Record<NativeAlg, boolean>> {
  detected ??= (async () => {
    const seed = P.deriveHkdf(new Uint8Array(64), null, enc.encode('veilkit-keystore-selftest'), 64);
    const msg = enc.encode('veilkit keystore self-test');
    const probe = async (f: () => Promise<boolean>) => {
      try { return await f(); } catch { return false; }
    };
    const result: Record<NativeAlg, boolean> = {
      'ed25519': await probe(async () => {
        const s = deriveKeySeed(seed, 'ed25519');
        const sig = new Uint8Array(await subtle().sign({ name: 'Ed25519' }, await importNative('ed25519', s), msg));
        return P.verifySignature(publicKeyFromKeySeed('ed25519', s), msg, sig);
      }),
      'x25519': await probe(async () => {
        const s = deriveKeySeed(seed, 'x25519');
        const peerSecret = deriveKeySeed(seed, 'x-wing');
        const peer = await subtle().importKey('raw', bs(P.x25519PublicKey(peerSecret)), { name: 'X25519' }, true, []);
        const bits = new Uint8Array(await subtle().deriveBits({ name: 'X25519', public: peer }, await importNative('x25519', s), 256));
        return equalBytes(bits, P.ecdhSharedSecret(peerSecret, publicKeyFromKeySeed('x25519', s)));
      }),
      'ml-kem-768': await probe(async () => {
        const s = deriveKeySeed(seed, 'ml-kem-768');
        const { ciphertext, sharedSecret } = P.mlKemEncapsulate(publicKeyFromKeySeed('ml-kem-768', s));
        const ss = new Uint8Array(await modern().decapsulateBits({ name: 'ML-KEM-768' }, await importNative('ml-kem-768', s), bs(ciphertext)));
        return equalBytes(ss, sharedSecret);
      }),
      'ml-dsa-65': await probe(async () => {
        const s = deriveKeySeed(seed, 'ml-dsa-65');
        const sig = new Uint8Array(await modern().sign({ name: 'ML-DSA-65' }, await importNative('ml-dsa-65', s), msg));
        return P.mlDsaVerify(publicKeyFromKeySeed('ml-dsa-65', s), msg, sig);
      }),
    };
    return result;
  })();
  return detected;
}

/**
 * Routes for new identities. Ed25519, X25519 and ML-KEM-768 use WebCrypto when
 * it passes the self-test. ML-DSA-65 always uses wasm, even where WebCrypto has
 * it: bundle signatures must be deterministic (FIPS 204 deterministic
 * variant) so that a restored identity publishes a byte-identical bundle, and
 * WebCrypto signs hedged only. X-Wing has no WebCrypto algorithm.
 */
export async function capabilities(): Promise<KeystoreCapabilities> {
  const webCrypto = await detectNative();
  const route = (ok: boolean): KeyRoute => (ok ? 'webcrypto' : 'wasm');
  return {
    routes: {
      'ed25519': route(webCrypto.ed25519),
      'x25519': route(webCrypto.x25519),
      'ml-kem-768': route(webCrypto['ml-kem-768']),
      'x-wing': 'wasm',
      'ml-dsa-65': 'wasm',
    },
    webCrypto,
    webLocks: typeof (globalThis.navigator as Navigator | undefined)?.locks?.request === 'function',
    broadcastChannel: typeof BroadcastChannel === 'function',
    indexedDb: typeof indexedDB === 'object' && indexedDB !== null,
    schemaVersion: SCHEMA_VERSION,
  };
}
