/**
 * The keystore's self-test of seed-imported WebCrypto keys against the wasm
 * core (docs/KEYSTORE.md, "Key routes"): per key type, a key imported from a
 * fixed derived seed (subtle.ts `importSeedKey`, as the keystore imports its
 * keys) must agree with the core — the Ed25519 and ML-DSA-65 signatures verify
 * in wasm (ML-DSA-65 under a context string, and not without it), the X25519 shared secret and the ML-KEM-768 decapsulation match the
 * core's. Run once per worker, after `init()` (the page-level known-answer
 * tests are in probe.ts).
 */
import * as P from '../primitives.js';
import { bs, equalBytes } from '../bytes.js';
import { deriveKeySeed, publicKeyFromKeySeed } from '../keystore-format.js';
import { subtle, importSeedKey, type SeedKeyType } from './subtle.js';

/** Per key type: WebCrypto implements it here and agrees with the wasm core. */
export type SeedKeySupport = Record<SeedKeyType, boolean>;

let detected: Promise<SeedKeySupport> | undefined;

async function check(f: () => Promise<boolean>): Promise<boolean> {
  try {
    return await f();
  } catch {
    return false;
  }
}

/** Which key types WebCrypto implements here *and* agrees with the wasm core on (memoised per thread). */
export function detectSeedKeys(): Promise<SeedKeySupport> {
  detected ??= (async () => {
    const enc = new TextEncoder();
    const s = subtle();
    const seed = P.deriveHkdf(new Uint8Array(64), null, enc.encode('veilkit-keystore-selftest'), 64);
    const msg = enc.encode('veilkit keystore self-test');
    const result: SeedKeySupport = {
      'ed25519': await check(async () => {
        const k = deriveKeySeed(seed, 'ed25519');
        const sig = new Uint8Array(await s.sign({ name: 'Ed25519' }, await importSeedKey(s, 'ed25519', k), msg));
        return P.verifySignature(publicKeyFromKeySeed('ed25519', k), msg, sig);
      }),
      'x25519': await check(async () => {
        const k = deriveKeySeed(seed, 'x25519');
        const peerSecret = deriveKeySeed(seed, 'x-wing');
        const peer = await s.importKey('raw', bs(P.x25519PublicKey(peerSecret)), { name: 'X25519' }, true, []);
        const bits = new Uint8Array(await s.deriveBits({ name: 'X25519', public: peer }, await importSeedKey(s, 'x25519', k), 256));
        return equalBytes(bits, P.ecdhSharedSecret(peerSecret, publicKeyFromKeySeed('x25519', k)));
      }),
      'ml-kem-768': await check(async () => {
        const k = deriveKeySeed(seed, 'ml-kem-768');
        const { ciphertext, sharedSecret } = P.mlKemEncapsulate(publicKeyFromKeySeed('ml-kem-768', k));
        const ss = new Uint8Array(await s.decapsulateBits({ name: 'ML-KEM-768' }, await importSeedKey(s, 'ml-kem-768', k), bs(ciphertext)));
        return equalBytes(ss, sharedSecret);
      }),
      'ml-dsa-65': await check(async () => {
        // Every keystore ML-DSA-65 signature has a context string (app, header, registry): the
        // native one must verify in the core under that context, and only under it.
        const k = deriveKeySeed(seed, 'ml-dsa-65');
        const pk = publicKeyFromKeySeed('ml-dsa-65', k);
        const context = enc.encode('veilkit-keystore-selftest');
        const sig = new Uint8Array(await s.sign({ name: 'ML-DSA-65', context }, await importSeedKey(s, 'ml-dsa-65', k), msg));
        return P.mlDsaVerify(pk, msg, sig, { context }) && !P.mlDsaVerify(pk, msg, sig);
      }),
    };
    return result;
  })();
  return detected;
}
