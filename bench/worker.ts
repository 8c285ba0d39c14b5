/**
 * One benchmark case per dedicated module worker: `worker.js?case=<id>`.
 * Bundled by bench/run.mjs (esbuild, code splitting: a worker loads only the
 * library its case needs). veilkit itself is loaded unbundled from /dist/ts/.
 *
 * Each case: set-up, warm-up (calibrates a batch to ~RUN_MS), then RUNS timed
 * batches; the reported figure is the median. Slow cases (Argon2id, PBKDF2)
 * time single operations instead.
 */
import { RUNS, measure, median, type CaseResult, type Prepared } from './measure.js';
import { SESSION_CASES, SESSION_WIRE } from './session.js';
import { KEYSTORE_CASE_IDS } from './session-keystore.js';
import { GROUP_KEYSTORE_CASE_IDS } from './group-keystore.js';
import { GROUP_CASES, GROUP_WIRE } from './groups.js';

const VEILKIT = '/dist/ts/index.js';
const VEILKIT_NATIVE = '/dist/ts/webcrypto/routes.js';
const VEILKIT_MESSAGING = '/dist/ts/messaging.js';
type Messaging = typeof import('../ts/messaging.js');

async function messaging(): Promise<{ vk: Veilkit; m: Messaging }> {
  const vk = await veilkit();
  const url = VEILKIT_MESSAGING;
  return { vk, m: (await import(/* @vite-ignore */ url)) as Messaging };
}
type Veilkit = typeof import('../ts/index.js');
type Native = typeof import('../ts/webcrypto/routes.js');

async function veilkit(options: { threads?: boolean | number; route?: 'auto' | 'wasm' | 'native' } = {}): Promise<Veilkit> {
  const url = VEILKIT;
  const vk = (await import(/* @vite-ignore */ url)) as Veilkit;
  await vk.init({ threads: false, route: 'wasm', ...options });
  return vk;
}

function batchOp(vk: Veilkit): () => Uint8Array[] {
  const items = Array.from({ length: 64 }, () => {
    const [dk, ek] = vk.mlKemKeygen();
    return { decapsulationKey: dk, ciphertext: vk.mlKemEncapsulate(ek).ciphertext };
  });
  return () => vk.mlKemDecapsulateBatch(items);
}

async function native(): Promise<Native> {
  await veilkit({ route: 'native' });
  const url = VEILKIT_NATIVE;
  return (await import(/* @vite-ignore */ url)) as Native;
}

async function sodium() {
  const mod = await import('libsodium-wrappers-sumo');
  const s = (mod as { default?: unknown }).default ?? mod;
  await (s as { ready: Promise<void> }).ready;
  return s as typeof import('libsodium-wrappers-sumo');
}

const subtle = (): SubtleCrypto & {
  encapsulateBits(a: { name: string }, k: CryptoKey): Promise<{ ciphertext: ArrayBuffer; sharedKey: ArrayBuffer }>;
  decapsulateBits(a: { name: string }, k: CryptoKey, ct: BufferSource): Promise<ArrayBuffer>;
} => crypto.subtle as never;

/**
 * A new 16-byte salt for every PBKDF2 derivation: Firefox's NSS keeps the last PBKDF2 result and answers a
 * repeat of the same password, salt and count from that cache (0.2 ms for 600k iterations), which would
 * measure the cache, not the derivation.
 */
const freshSalt = (): Uint8Array<ArrayBuffer> => crypto.getRandomValues(new Uint8Array(16));

const MSG = new Uint8Array(1024).map((_, i) => i & 0xff);
const rnd = (n: number) => crypto.getRandomValues(new Uint8Array(n));
const KEM = { name: 'ML-KEM-768' };
const KEM_USAGES = ['encapsulateBits', 'decapsulateBits'] as unknown as KeyUsage[];
const ARGON = { memoryKib: 64 * 1024, iterations: 3, length: 32 };
const PASSWORD = new TextEncoder().encode('correct horse battery staple');
const SALT16 = new Uint8Array(16).fill(7);


/** The independent HPKE implementation the sealed box interoperates with (same suite). */
async function hpkeLib() {
  const [{ Aes256Gcm, CipherSuite, HkdfSha256 }, { XWing }] = await Promise.all([import('@hpke/core'), import('@hpke/hybridkem-x-wing')]);
  return new CipherSuite({ kem: new XWing(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
}

/**
 * `hpke-seal-<size>` / `hpke-open-<size>`: veilkit's sealed box (ts/sealed.ts), `@hpke/core` +
 * `@hpke/hybridkem-x-wing` (same suite, single-shot: a fresh sender context per message), and
 * libsodium's classical `crypto_box_seal` (X25519 + XSalsa20-Poly1305) for scale.
 */
function hpkeCases(size: number): Record<string, () => Promise<Prepared>> {
  const tag = size >= 1024 ? `${size / 1024}k` : `${size}`;
  const pt = new Uint8Array(size).map((_, i) => i & 0xff);
  const info = new TextEncoder().encode('veilkit bench');
  return {
    [`hpke-seal-${tag}/veilkit-wasm`]: async () => {
      const vk = await veilkit();
      const [, pk] = vk.xWingKeygen();
      return { async: true, op: () => vk.seal(pk, pt, { info }) };
    },
    [`hpke-open-${tag}/veilkit-wasm`]: async () => {
      const vk = await veilkit();
      const [sk, pk] = vk.xWingKeygen();
      const box = await vk.seal(pk, pt, { info });
      return { async: true, op: () => vk.open(box, { xWingSecretKey: sk }, { info }) };
    },
    [`hpke-seal-${tag}/hpke-js`]: async () => {
      const suite = await hpkeLib();
      const kp = await suite.kem.generateKeyPair();
      return {
        async: true,
        op: async () => {
          const s = await suite.createSenderContext({ recipientPublicKey: kp.publicKey, info });
          return [s.enc, await s.seal(pt)];
        },
      };
    },
    [`hpke-open-${tag}/hpke-js`]: async () => {
      const suite = await hpkeLib();
      const kp = await suite.kem.generateKeyPair();
      const s = await suite.createSenderContext({ recipientPublicKey: kp.publicKey, info });
      const ct = await s.seal(pt);
      return {
        async: true,
        op: async () => (await suite.createRecipientContext({ recipientKey: kp, enc: s.enc, info })).open(ct),
      };
    },
    [`hpke-seal-${tag}/libsodium`]: async () => {
      const so = await sodium();
      const { publicKey } = so.crypto_box_keypair();
      return { op: () => so.crypto_box_seal(pt, publicKey), note: 'crypto_box_seal: X25519 + XSalsa20-Poly1305, classical' };
    },
    [`hpke-open-${tag}/libsodium`]: async () => {
      const so = await sodium();
      const { publicKey, privateKey } = so.crypto_box_keypair();
      const box = so.crypto_box_seal(pt, publicKey);
      return { op: () => so.crypto_box_seal_open(box, publicKey, privateKey), note: 'crypto_box_seal_open, classical' };
    },
  };
}

const CASES: Record<string, () => Promise<Prepared>> = {
  // ------------------------------------------------------------ ML-KEM-768
  'mlkem-keygen/veilkit-wasm': async () => {
    const vk = await veilkit();
    return { op: () => vk.mlKemKeygen() };
  },
  'mlkem-keygen/veilkit-native': async () => {
    const vk = await veilkit({ route: 'native' });
    return { async: true, op: () => vk.generateMlKemKey(), note: 'generateMlKemKey(): non-extractable WebCrypto key + raw-public export' };
  },
  'mlkem-keygen/webcrypto': async () => ({ async: true, op: () => subtle().generateKey(KEM, false, KEM_USAGES) }),
  'mlkem-keygen/noble': async () => {
    const { ml_kem768 } = await import('@noble/post-quantum/ml-kem.js');
    return { op: () => ml_kem768.keygen() };
  },
  'mlkem-keygen/libsodium': async () => {
    const s = await sodium();
    return { op: () => s.crypto_kem_mlkem768_keypair() };
  },
  'mlkem-encaps/veilkit-wasm': async () => {
    const vk = await veilkit();
    const [, ek] = vk.mlKemKeygen();
    return { op: () => vk.mlKemEncapsulate(ek) };
  },
  'mlkem-encaps/veilkit-native': async () => {
    const n = await native();
    const vk = (await import(/* @vite-ignore */ VEILKIT)) as Veilkit;
    const [, ek] = vk.mlKemKeygen();
    return { async: true, op: () => n.nativeCall('mlKemEncapsulate', [ek]), note: 'ts/webcrypto/ops.ts: ek import cached' };
  },
  'mlkem-encaps/veilkit-handle': async () => {
    const vk = await veilkit({ route: 'auto' });
    const [, ek] = vk.mlKemKeygen();
    const key = await vk.importMlKemEncapsulationKey(ek);
    return { async: true, op: () => key.encapsulate(), note: `importMlKemEncapsulationKey once, route ${key.route}` };
  },
  'mlkem-encaps/webcrypto': async () => {
    const kp = (await subtle().generateKey(KEM, false, KEM_USAGES)) as CryptoKeyPair;
    return { async: true, op: () => subtle().encapsulateBits(KEM, kp.publicKey) };
  },
  'mlkem-encaps/noble': async () => {
    const { ml_kem768 } = await import('@noble/post-quantum/ml-kem.js');
    const { publicKey } = ml_kem768.keygen();
    return { op: () => ml_kem768.encapsulate(publicKey) };
  },
  'mlkem-encaps/libsodium': async () => {
    const s = await sodium();
    const { publicKey } = s.crypto_kem_mlkem768_keypair();
    return { op: () => s.crypto_kem_mlkem768_enc(publicKey) };
  },
  'mlkem-encaps/veilkit-threads': async () => {
    const vk = await veilkit({ threads: 2 });
    const [, ek] = vk.mlKemKeygen();
    return { op: () => vk.mlKemEncapsulate(ek), note: 'threads build' };
  },
  // 64 independent decapsulations per op: mlKemDecapsulateBatch, one after another on the SIMD
  // build, in parallel on the threads build's rayon pool.
  'mlkem-decaps-batch64/veilkit-wasm': async () => {
    const vk = await veilkit();
    return { op: batchOp(vk), note: '64 decapsulations per op, SIMD build (sequential)' };
  },
  'mlkem-decaps-batch64/veilkit-threads': async () => {
    const vk = await veilkit({ threads: 2 });
    const caps = vk.capabilities();
    if (caps.wasmBuild !== 'threads') throw new Error('the threads build did not load');
    return { op: batchOp(vk), note: `64 decapsulations per op, threads build (${caps.threads} threads)` };
  },
  'mlkem-decaps/veilkit-native': async () => {
    const vk = await veilkit({ route: 'native' });
    const key = await vk.importMlKemSeed(rnd(64));
    const { ciphertext } = vk.mlKemEncapsulate(key.encapsulationKey);
    return { async: true, op: () => key.decapsulate(ciphertext), note: 'importMlKemSeed() handle: non-extractable WebCrypto key' };
  },
  'mlkem-decaps/veilkit-wasm': async () => {
    const vk = await veilkit();
    const [dk, ek] = vk.mlKemKeygen();
    const { ciphertext } = vk.mlKemEncapsulate(ek);
    return { op: () => vk.mlKemDecapsulate(dk, ciphertext) };
  },
  'mlkem-decaps/webcrypto': async () => {
    const kp = (await subtle().generateKey(KEM, false, KEM_USAGES)) as CryptoKeyPair;
    const { ciphertext } = await subtle().encapsulateBits(KEM, kp.publicKey);
    return { async: true, op: () => subtle().decapsulateBits(KEM, kp.privateKey, ciphertext) };
  },
  'mlkem-decaps/noble': async () => {
    const { ml_kem768 } = await import('@noble/post-quantum/ml-kem.js');
    const { publicKey, secretKey } = ml_kem768.keygen();
    const { cipherText } = ml_kem768.encapsulate(publicKey);
    return { op: () => ml_kem768.decapsulate(cipherText, secretKey) };
  },
  'mlkem-decaps/libsodium': async () => {
    const s = await sodium();
    const { publicKey, privateKey } = s.crypto_kem_mlkem768_keypair();
    const { ciphertext } = s.crypto_kem_mlkem768_enc(publicKey) as unknown as { ciphertext: Uint8Array };
    return { op: () => s.crypto_kem_mlkem768_dec(ciphertext, privateKey) };
  },
  // ------------------------------------------------------------ X-Wing
  'xwing-encaps/veilkit-wasm': async () => {
    const vk = await veilkit();
    const [, pk] = vk.xWingKeygen();
    return { op: () => vk.xWingEncapsulate(pk) };
  },
  'xwing-encaps/noble': async () => {
    const { ml_kem768_x25519 } = await import('@noble/post-quantum/hybrid.js');
    const { publicKey } = ml_kem768_x25519.keygen();
    return { op: () => ml_kem768_x25519.encapsulate(publicKey) };
  },
  'xwing-decaps/veilkit-wasm': async () => {
    const vk = await veilkit();
    const [sk, pk] = vk.xWingKeygen();
    const { ciphertext } = vk.xWingEncapsulate(pk);
    return { op: () => vk.xWingDecapsulate(sk, ciphertext) };
  },
  'xwing-decaps/noble': async () => {
    const { ml_kem768_x25519 } = await import('@noble/post-quantum/hybrid.js');
    const { publicKey, secretKey } = ml_kem768_x25519.keygen();
    const { cipherText } = ml_kem768_x25519.encapsulate(publicKey);
    return { op: () => ml_kem768_x25519.decapsulate(cipherText, secretKey) };
  },
  // ------------------------------------------------------------ ML-DSA-65 (1 KiB message)
  'mldsa-sign/veilkit-wasm': async () => {
    const vk = await veilkit();
    const [sk] = vk.mlDsaKeygen();
    return { op: () => vk.mlDsaSign(sk, MSG) };
  },
  'mldsa-sign/noble': async () => {
    const { ml_dsa65 } = await import('@noble/post-quantum/ml-dsa.js');
    const { secretKey } = ml_dsa65.keygen();
    return { op: () => ml_dsa65.sign(MSG, secretKey) };
  },
  'mldsa-sign/veilkit-handle': async () => {
    const vk = await veilkit({ route: 'auto' });
    const key = await vk.generateMlDsaSigningKey();
    return { async: true, op: () => key.sign(MSG), note: `generateMlDsaSigningKey, route ${key.route}` };
  },
  'mldsa-sign/webcrypto': async () => {
    const kp = (await subtle().generateKey({ name: 'ML-DSA-65' }, false, ['sign', 'verify'])) as CryptoKeyPair;
    return { async: true, op: () => subtle().sign({ name: 'ML-DSA-65' }, kp.privateKey, MSG), note: 'key generated once' };
  },
  'mldsa-verify/veilkit-wasm': async () => {
    const vk = await veilkit();
    const [sk, pk] = vk.mlDsaKeygen();
    const sig = vk.mlDsaSign(sk, MSG);
    return { op: () => vk.mlDsaVerify(pk, MSG, sig) };
  },
  'mldsa-verify/veilkit-handle': async () => {
    const vk = await veilkit({ route: 'auto' });
    const [sk, pk] = vk.mlDsaKeygen();
    const sig = vk.mlDsaSign(sk, MSG);
    const key = await vk.importMlDsaPublicKey(pk);
    return { async: true, op: () => key.verify(MSG, sig), note: `importMlDsaPublicKey, route ${key.route}` };
  },
  'mldsa-verify/webcrypto': async () => {
    const kp = (await subtle().generateKey({ name: 'ML-DSA-65' }, false, ['sign', 'verify'])) as CryptoKeyPair;
    const sig = await subtle().sign({ name: 'ML-DSA-65' }, kp.privateKey, MSG);
    return { async: true, op: () => subtle().verify({ name: 'ML-DSA-65' }, kp.publicKey, sig, MSG), note: 'key imported once' };
  },
  'mldsa-verify/noble': async () => {
    const { ml_dsa65 } = await import('@noble/post-quantum/ml-dsa.js');
    const { secretKey, publicKey } = ml_dsa65.keygen();
    const sig = ml_dsa65.sign(MSG, secretKey);
    return { op: () => ml_dsa65.verify(sig, MSG, publicKey) };
  },
  // ------------------------------------------------------------ X25519
  'x25519-dh/veilkit-wasm': async () => {
    const vk = await veilkit();
    const [a] = vk.generateX25519Keypair();
    const [, b] = vk.generateX25519Keypair();
    return { op: () => vk.ecdhSharedSecret(a, b) };
  },
  'x25519-dh/veilkit-native': async () => {
    const n = await native();
    const vk = (await import(/* @vite-ignore */ VEILKIT)) as Veilkit;
    const [a] = vk.generateX25519Keypair();
    const [, b] = vk.generateX25519Keypair();
    return { async: true, op: () => n.nativeCall('ecdhSharedSecret', [a, b]), note: 'secret imported per call' };
  },
  'x25519-dh/veilkit-handle': async () => {
    const vk = await veilkit({ route: 'auto' });
    const a = await vk.generateX25519Key();
    const [, b] = vk.generateX25519Keypair();
    return { async: true, op: () => a.sharedSecret(b), note: `generateX25519Key, route ${a.route}` };
  },
  'x25519-dh/webcrypto': async () => {
    const a = await subtle().generateKey({ name: 'X25519' }, false, ['deriveBits']);
    const b = await subtle().generateKey({ name: 'X25519' }, false, ['deriveBits']);
    return { async: true, op: () => subtle().deriveBits({ name: 'X25519', public: b.publicKey }, a.privateKey, 256), note: 'keys imported once' };
  },
  'x25519-dh/noble': async () => {
    const { x25519 } = await import('@noble/curves/ed25519.js');
    const a = x25519.utils.randomSecretKey();
    const b = x25519.getPublicKey(x25519.utils.randomSecretKey());
    return { op: () => x25519.getSharedSecret(a, b) };
  },
  'x25519-dh/libsodium': async () => {
    const s = await sodium();
    const a = rnd(32);
    const b = s.crypto_scalarmult_base(rnd(32));
    return { op: () => s.crypto_scalarmult(a, b) };
  },
  // ------------------------------------------------------------ Ed25519 (1 KiB message)
  'ed25519-sign/veilkit-wasm': async () => {
    const vk = await veilkit();
    const [sk] = vk.generateEd25519Keypair();
    return { op: () => vk.signMessage(sk, MSG) };
  },
  'ed25519-sign/veilkit-native': async () => {
    const n = await native();
    const vk = (await import(/* @vite-ignore */ VEILKIT)) as Veilkit;
    const [sk] = vk.generateEd25519Keypair();
    return { async: true, op: () => n.nativeCall('signMessage', [sk, MSG]), note: 'secret imported per call' };
  },
  'ed25519-sign/veilkit-handle': async () => {
    const vk = await veilkit({ route: 'auto' });
    const key = await vk.generateEd25519SigningKey();
    return { async: true, op: () => key.sign(MSG), note: `generateEd25519SigningKey, route ${key.route}` };
  },
  'ed25519-sign/veilkit-handle-wasm': async () => {
    const vk = await veilkit();
    const key = await vk.generateEd25519SigningKey({ route: 'wasm' });
    return { async: true, op: () => key.sign(MSG), note: 'generateEd25519SigningKey, route wasm' };
  },
  'ed25519-sign/webcrypto': async () => {
    const kp = await subtle().generateKey({ name: 'Ed25519' }, false, ['sign', 'verify']);
    return { async: true, op: () => subtle().sign({ name: 'Ed25519' }, kp.privateKey, MSG), note: 'key imported once' };
  },
  'ed25519-sign/noble': async () => {
    const { ed25519 } = await import('@noble/curves/ed25519.js');
    const sk = ed25519.utils.randomSecretKey();
    return { op: () => ed25519.sign(MSG, sk) };
  },
  'ed25519-sign/libsodium': async () => {
    const s = await sodium();
    const { privateKey } = s.crypto_sign_keypair();
    return { op: () => s.crypto_sign_detached(MSG, privateKey) };
  },
  'ed25519-verify/veilkit-wasm': async () => {
    const vk = await veilkit();
    const [sk, pk] = vk.generateEd25519Keypair();
    const sig = vk.signMessage(sk, MSG);
    return { op: () => vk.verifySignature(pk, MSG, sig) };
  },
  'ed25519-verify/veilkit-threads': async () => {
    const vk = await veilkit({ threads: 2 });
    const [sk, pk] = vk.generateEd25519Keypair();
    const sig = vk.signMessage(sk, MSG);
    return { op: () => vk.verifySignature(pk, MSG, sig), note: 'threads build' };
  },
  'ed25519-verify/veilkit-native': async () => {
    const n = await native();
    const vk = (await import(/* @vite-ignore */ VEILKIT)) as Veilkit;
    const [sk, pk] = vk.generateEd25519Keypair();
    const sig = vk.signMessage(sk, MSG);
    return { async: true, op: () => n.nativeCall('verifySignature', [pk, MSG, sig]), note: 'public key import cached' };
  },
  'ed25519-verify/webcrypto': async () => {
    const kp = await subtle().generateKey({ name: 'Ed25519' }, false, ['sign', 'verify']);
    const sig = await subtle().sign({ name: 'Ed25519' }, kp.privateKey, MSG);
    return { async: true, op: () => subtle().verify({ name: 'Ed25519' }, kp.publicKey, sig, MSG) };
  },
  'ed25519-verify/noble': async () => {
    const { ed25519 } = await import('@noble/curves/ed25519.js');
    const sk = ed25519.utils.randomSecretKey();
    const pk = ed25519.getPublicKey(sk);
    const sig = ed25519.sign(MSG, sk);
    return { op: () => ed25519.verify(sig, MSG, pk) };
  },
  'ed25519-verify/libsodium': async () => {
    const s = await sodium();
    const { privateKey, publicKey } = s.crypto_sign_keypair();
    const sig = s.crypto_sign_detached(MSG, privateKey);
    return { op: () => s.crypto_sign_verify_detached(sig, MSG, publicKey) };
  },
  // ------------------------------------------------------------ messaging (ts/messaging.ts), 1 KiB
  'sealed-seal/veilkit-wasm': async () => {
    const { vk, m } = await messaging();
    const [, recipient] = vk.generateX25519Keypair();
    const [signer] = vk.generateEd25519Keypair();
    const senderId = new TextEncoder().encode('alice@example');
    return { op: () => m.sealMessage(recipient, senderId, MSG, signer) };
  },
  'sealed-unseal/veilkit-wasm': async () => {
    const { vk, m } = await messaging();
    const [ourSk, ourPk] = vk.generateX25519Keypair();
    const [signer, signerPk] = vk.generateEd25519Keypair();
    const packet = m.sealMessage(ourPk, new TextEncoder().encode('alice@example'), MSG, signer);
    return { op: () => m.unsealMessage(packet, ourSk, signerPk) };
  },
  'session-encrypt/veilkit-wasm': async () => {
    const { m } = await messaging();
    const key = m.deriveWindowKey(m.deriveSrk(rnd(32), rnd(16)), 1);
    return { op: () => m.encryptAesGcmPadded(key, MSG), note: 'window key derived once; padded AES-256-GCM' };
  },
  'session-decrypt/veilkit-wasm': async () => {
    const { m } = await messaging();
    const key = m.deriveWindowKey(m.deriveSrk(rnd(32), rnd(16)), 1);
    const ct = m.encryptAesGcmPadded(key, MSG);
    return { op: () => m.decryptAesGcmPadded(key, ct), note: 'window key derived once; padded AES-256-GCM' };
  },
  // ------------------------------------------------------------ sealed box (HPKE X-Wing / HKDF-SHA256 / AES-256-GCM), 256 B and 64 KiB
  ...hpkeCases(256),
  ...hpkeCases(65536),
  ...hpkeCases(1 << 20),
  // ------------------------------------------------------------ Argon2id m = 64 MiB, t = 3
  'argon2id-p1/veilkit-wasm': async () => {
    const vk = await veilkit();
    return { slow: true, op: () => vk.argon2id(PASSWORD, SALT16, { ...ARGON, parallelism: 1 }) };
  },
  'argon2id-p1/veilkit-threads': async () => {
    const vk = await veilkit({ threads: 2 });
    return { slow: true, op: () => vk.argon2id(PASSWORD, SALT16, { ...ARGON, parallelism: 1 }), note: 'threads build' };
  },
  'argon2id-p1/hash-wasm': async () => {
    const { argon2id } = await import('hash-wasm');
    return {
      slow: true,
      async: true,
      op: () => argon2id({ password: PASSWORD, salt: SALT16, parallelism: 1, iterations: 3, memorySize: 65536, hashLength: 32, outputType: 'binary' }),
    };
  },
  'argon2id-p1/libsodium': async () => {
    const s = await sodium();
    const salt = new Uint8Array(s.crypto_pwhash_SALTBYTES).fill(7);
    return { slow: true, op: () => s.crypto_pwhash(32, PASSWORD, salt, 3, 64 * 1024 * 1024, s.crypto_pwhash_ALG_ARGON2ID13) };
  },
  'argon2id-p1/noble': async () => {
    const { argon2id } = await import('@noble/hashes/argon2.js');
    return { slow: true, op: () => argon2id(PASSWORD, SALT16, { t: 3, m: 65536, p: 1, dkLen: 32 }) };
  },
  'argon2id-p4/veilkit-wasm': async () => {
    const vk = await veilkit();
    return { slow: true, op: () => vk.argon2id(PASSWORD, SALT16, { ...ARGON, parallelism: 4 }), note: 'SIMD build, lanes in sequence' };
  },
  'argon2id-p4/veilkit-threads': async () => {
    const vk = await veilkit({ threads: 2 });
    const caps = vk.capabilities();
    if (caps.wasmBuild !== 'threads') throw new Error('the threads build did not load');
    return { slow: true, op: () => vk.argon2id(PASSWORD, SALT16, { ...ARGON, parallelism: 4 }), note: `threads build, ${caps.threads} threads` };
  },
  'argon2id-p4/hash-wasm': async () => {
    const { argon2id } = await import('hash-wasm');
    return {
      slow: true,
      async: true,
      op: () => argon2id({ password: PASSWORD, salt: SALT16, parallelism: 4, iterations: 3, memorySize: 65536, hashLength: 32, outputType: 'binary' }),
    };
  },
  // ------------------------------------------------------------ HKDF-SHA256 (32-byte IKM → 32 bytes)
  'hkdf/veilkit-wasm': async () => {
    const vk = await veilkit();
    const ikm = rnd(32);
    const salt = rnd(32);
    const info = new TextEncoder().encode('veilkit bench');
    return { op: () => vk.deriveHkdf(ikm, salt, info, 32) };
  },
  'hkdf/webcrypto': async () => {
    const ikm = rnd(32);
    const salt = rnd(32);
    const info = new TextEncoder().encode('veilkit bench');
    return {
      async: true,
      op: async () => {
        const k = await crypto.subtle.importKey('raw', ikm, 'HKDF', false, ['deriveBits']);
        return crypto.subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt, info }, k, 256);
      },
      note: 'importKey + deriveBits per derivation',
    };
  },
  'hkdf/noble': async () => {
    const { hkdf } = await import('@noble/hashes/hkdf.js');
    const { sha256 } = await import('@noble/hashes/sha2.js');
    const ikm = rnd(32);
    const salt = rnd(32);
    const info = new TextEncoder().encode('veilkit bench');
    return { op: () => hkdf(sha256, ikm, salt, info, 32) };
  },
  // ------------------------------------------------------------ PBKDF2-HMAC-SHA256, 600 000 iterations
  'pbkdf2/veilkit-wasm': async () => {
    const vk = await veilkit();
    return { slow: true, op: () => vk.derivePbkdf2(PASSWORD, freshSalt(), 600_000, 32) };
  },
  'pbkdf2/veilkit-native': async () => {
    const n = await native();
    return { slow: true, async: true, op: () => n.nativeCall('derivePbkdf2', [PASSWORD, freshSalt(), 600_000, 32]) };
  },
  'pbkdf2/webcrypto': async () => ({
    slow: true,
    async: true,
    op: async () => {
      const k = await crypto.subtle.importKey('raw', PASSWORD, 'PBKDF2', false, ['deriveBits']);
      return crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: freshSalt(), iterations: 600_000 }, k, 256);
    },
  }),
  'pbkdf2/hash-wasm': async () => {
    const { pbkdf2, createSHA256 } = await import('hash-wasm');
    return {
      slow: true,
      async: true,
      op: () => pbkdf2({ password: PASSWORD, salt: freshSalt(), iterations: 600_000, hashLength: 32, hashFunction: createSHA256(), outputType: 'binary' }),
    };
  },
  'pbkdf2/noble': async () => {
    const { pbkdf2 } = await import('@noble/hashes/pbkdf2.js');
    const { sha256 } = await import('@noble/hashes/sha2.js');
    return { slow: true, op: () => pbkdf2(sha256, PASSWORD, freshSalt(), { c: 600_000, dkLen: 32 }) };
  },
  // ------------------------------------------------------------ sessions (issue 16): bench/session.ts
  ...SESSION_CASES,
  ...GROUP_CASES,
};

/** Pool scaling: 1 vs 2 workers on independent ML-KEM encapsulations (wasm route), from inside this worker. */
async function poolScaling(id: string): Promise<CaseResult> {
  const size = id.endsWith('2') ? 2 : 1;
  const vk = await veilkit();
  const [, ek] = vk.mlKemKeygen();
  const pool = new vk.WorkerPool({ size, route: 'wasm', threads: false, idleTimeoutMs: 0 });
  // A window of 4 calls per worker in flight (the pool queues the rest; keeping the
  // queue short measures the workers, not the dispatcher's queue scan).
  const batch = async (n: number) => {
    let next = 0;
    const lane = async () => {
      while (next < n) {
        next++;
        await pool.call('mlKemEncapsulate', [ek]);
      }
    };
    await Promise.all(Array.from({ length: 4 * size }, lane));
  };
  try {
    await batch(400); // spawn + warm up every worker
    const samples: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const t0 = performance.now();
      await batch(1000);
      samples.push(1000 / ((performance.now() - t0) / 1000));
    }
    return { id, ok: true, unit: 'ops/s', value: median(samples), samples, note: `${size} worker(s), ${4 * size} calls in flight` };
  } finally {
    pool.dispose();
  }
}

/** Cold init(): fetch + compile + instantiate (+ WebCrypto probe; thread pool start for the threads build). */
async function coldInit(id: string): Promise<CaseResult> {
  const threads = id.endsWith('threads');
  const t0 = performance.now();
  const url = VEILKIT;
  const vk = (await import(/* @vite-ignore */ url)) as Veilkit;
  await vk.init({ threads: threads ? 2 : false });
  const ms = performance.now() - t0;
  return { id, ok: true, unit: 's', value: ms / 1000, samples: [ms / 1000], note: `${vk.capabilities().wasmBuild} build` };
}

// KEYSTORE_CASE_IDS and GROUP_KEYSTORE_CASE_IDS run on the page (bench/index.html), not in a case worker.
export const CASE_IDS = [...Object.keys(CASES), ...KEYSTORE_CASE_IDS, ...GROUP_KEYSTORE_CASE_IDS, ...Object.keys(SESSION_WIRE), ...Object.keys(GROUP_WIRE), 'pool/size-1', 'pool/size-2', 'init/cold-simd', 'init/cold-threads'];

/** The `capabilities().routes` entry a `<group>/veilkit-native` case measures. */
const NATIVE_ROUTE: Record<string, keyof import('../ts/webcrypto/routes.js').Routes> = {
  'mlkem-keygen': 'mlKemDecapsulationKey',
  'mlkem-decaps': 'mlKemDecapsulationKey',
  'mlkem-encaps': 'mlKemEncapsulate',
  'x25519-dh': 'ecdhSharedSecret',
  'ed25519-sign': 'signMessage',
  'ed25519-verify': 'verifySignature',
  pbkdf2: 'derivePbkdf2',
};

/**
 * A `veilkit-native` case where this engine's WebCrypto lacks the algorithm would silently measure
 * the wasm fallback (`route: 'native'` falls back per operation): report it as not loaded instead,
 * naming the route users get here.
 */
async function nativeRouteMissing(id: string): Promise<string | undefined> {
  const key = NATIVE_ROUTE[id.slice(0, id.indexOf('/'))];
  if (key === undefined) return undefined;
  const vk = await veilkit({ route: 'native' });
  const route = vk.capabilities().routes[key];
  return route === 'native' ? undefined : `no native route in this engine (capabilities().routes.${key} is '${route}' under route: 'native': WebCrypto lacks the algorithm or failed the self-test); users get the wasm route, measured as veilkit-wasm`;
}

/**
 * A `veilkit-threads` case whose engine could not start the threads build (no SharedArrayBuffer, as in
 * WebKit) ran the SIMD build: report that instead of a figure labelled "threads".
 */
async function threadsBuildCheck(result: CaseResult): Promise<CaseResult> {
  const url = VEILKIT;
  const vk = (await import(/* @vite-ignore */ url)) as Veilkit;
  const caps = vk.capabilities();
  if (caps.wasmBuild === 'threads') return result;
  return {
    id: result.id,
    ok: false,
    error: `the threads build did not load here (sharedArrayBuffer: ${String(caps.sharedArrayBuffer)}, crossOriginIsolated: ${String(caps.crossOriginIsolated)}); veilkit ran the SIMD build, measured as veilkit-wasm`,
  };
}

async function main(): Promise<void> {
  const id = new URL(self.location.href).searchParams.get('case') ?? '';
  let result: CaseResult;
  try {
    if (id === 'list') {
      postMessage(CASE_IDS);
      return;
    }
    if (id.startsWith('pool/')) result = await poolScaling(id);
    else if (id.startsWith('init/')) result = await coldInit(id);
    else {
      const wire = SESSION_WIRE[id] ?? GROUP_WIRE[id];
      const setup = CASES[id];
      if (wire) result = await wire();
      else if (!setup) throw new Error(`unknown case ${id}`);
      else {
        const missing = id.endsWith('/veilkit-native') ? await nativeRouteMissing(id) : undefined;
        result = missing !== undefined ? { id, ok: false, error: missing } : await measure(id, await setup());
        if (result.ok && id.endsWith('/veilkit-threads')) result = await threadsBuildCheck(result);
      }
    }
  } catch (e) {
    const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    result = { id, ok: false, error: id.endsWith('/webcrypto') ? `this engine's WebCrypto rejected the algorithm or key (${message})` : message };
  }
  if (result.ok && id.includes('/veilkit-')) result.route = id.endsWith('/veilkit-native') ? 'native' : 'wasm';
  postMessage(result);
}

void main();
