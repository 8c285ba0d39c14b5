/**
 * Keystore formats shared by the page and the worker: the deterministic
 * derivation of an identity's keys from its BIP-39 seed, the signed public
 * bundle, and the constants of the encrypted backup. Specified in
 * docs/KEYSTORE.md; every function here needs `await init()`.
 */
import { VeilError } from './errors.js';
import { deriveHkdf } from './kdf.js';
import { sha256 } from './hash.js';
import { ed25519KeypairFromSeed, verifySignature } from './ed25519.js';
import { x25519PublicKey } from './x25519.js';
import { mlKemKeygen } from './mlkem.js';
import { xWingKeygen } from './xwing.js';
import { mlDsaKeygen, mlDsaVerify } from './mldsa.js';
import { bytes, wipe } from './validate.js';
import type { KeyType } from '../worker/keystore.protocol.js';

const enc = new TextEncoder();

/** HKDF-SHA256 `info` label and output length of each key type (salt: empty). */
export const IDENTITY_DERIVATION: Readonly<Record<KeyType, { readonly info: string; readonly length: number }>> = Object.freeze({
  'ed25519': { info: 'veilkit-identity-v1/ed25519', length: 32 },
  'x25519': { info: 'veilkit-identity-v1/x25519', length: 32 },
  'ml-kem-768': { info: 'veilkit-identity-v1/ml-kem-768', length: 64 },
  'x-wing': { info: 'veilkit-identity-v1/x-wing', length: 32 },
  'ml-dsa-65': { info: 'veilkit-identity-v1/ml-dsa-65', length: 32 },
});

/** The secret seed of one key type of the identity whose 64-byte BIP-39 seed is `seed`. Wipe it after use. */
export function deriveKeySeed(seed: Uint8Array, type: KeyType): Uint8Array {
  const s = bytes('seed', seed);
  if (s.length !== 64) throw new RangeError(`seed must be 64 bytes, got ${s.length}`);
  const { info, length } = IDENTITY_DERIVATION[type];
  return deriveHkdf(s, null, enc.encode(info), length);
}

/** The public key of a key type, computed from its derived secret seed. */
export function publicKeyFromKeySeed(type: KeyType, keySeed: Uint8Array): Uint8Array {
  let secret: Uint8Array;
  let pub: Uint8Array;
  switch (type) {
    case 'ed25519': [secret, pub] = ed25519KeypairFromSeed(keySeed); break;
    case 'x25519': return x25519PublicKey(keySeed);
    case 'ml-kem-768': [secret, pub] = mlKemKeygen(keySeed); break;
    case 'x-wing': [secret, pub] = xWingKeygen(keySeed); break;
    case 'ml-dsa-65': [secret, pub] = mlDsaKeygen(keySeed); break;
  }
  wipe(secret);
  return pub;
}

/** Identity id: lowercase hex of the first 16 bytes of SHA-256("veilkit-identity-id-v1" ‖ Ed25519 public key). */
export function identityId(ed25519PublicKey: Uint8Array): string {
  const digest = sha256(concat(enc.encode('veilkit-identity-id-v1'), ed25519PublicKey));
  return toHex(digest.subarray(0, 16));
}

// ---------------------------------------------------------------------------
// Public bundle

/** Domain-separation tag: prefix of the Ed25519 message and the ML-DSA-65 context. */
export const BUNDLE_DST = 'veilkit-public-bundle-v1';
export const BUNDLE_MAGIC = 'VKPB';
export const BUNDLE_VERSION = 1;
const BUNDLE_KEYS: readonly [KeyType, number][] = [['ed25519', 32], ['x25519', 32], ['ml-kem-768', 1184], ['x-wing', 1216]];
const ML_DSA_PK = 1952;
const ED_SIG = 64;
const ML_DSA_SIG = 3309;

/** An identity's public keys, signed by its own signing keys. `bytes` is the canonical encoding. */
export interface PublicBundle {
  readonly version: 1;
  /** Identity id (see {@link identityId}). */
  readonly id: string;
  readonly ed25519: Uint8Array;
  readonly x25519: Uint8Array;
  readonly mlKem768: Uint8Array;
  readonly xWing: Uint8Array;
  readonly mlDsa65?: Uint8Array;
  readonly signatures: { readonly ed25519: Uint8Array; readonly mlDsa65?: Uint8Array };
  /** Canonical encoding (docs/KEYSTORE.md#public-bundle); send this. */
  readonly bytes: Uint8Array;
}

/** The signed part of a bundle: magic, version, flags and the public keys. */
export function encodeBundleBody(keys: Readonly<Partial<Record<KeyType, Uint8Array>>>): Uint8Array {
  const withMlDsa = keys['ml-dsa-65'] !== undefined;
  const parts: Uint8Array[] = [enc.encode(BUNDLE_MAGIC), Uint8Array.of(BUNDLE_VERSION, withMlDsa ? 1 : 0)];
  for (const [type, len] of BUNDLE_KEYS) {
    const k = keys[type];
    if (!(k instanceof Uint8Array) || k.length !== len) throw new RangeError(`${type} public key must be ${len} bytes`);
    parts.push(k);
  }
  if (withMlDsa) {
    const k = keys['ml-dsa-65']!;
    if (k.length !== ML_DSA_PK) throw new RangeError(`ml-dsa-65 public key must be ${ML_DSA_PK} bytes`);
    parts.push(k);
  }
  return concat(...parts);
}

/** The Ed25519-signed message of a bundle body: UTF-8(BUNDLE_DST) ‖ body. */
export function bundleEd25519Message(body: Uint8Array): Uint8Array {
  return concat(enc.encode(BUNDLE_DST), body);
}

/** Parses a canonical bundle (structure only; see {@link verifyPublicBundle}). */
export function decodePublicBundle(encoded: Uint8Array): PublicBundle {
  const b = bytes('bundle', encoded);
  const bad = (why: string) => new VeilError('INVALID_PARAMETER', `not a veilkit public bundle: ${why}`);
  if (b.length < 6 || new TextDecoder().decode(b.subarray(0, 4)) !== BUNDLE_MAGIC) throw bad('bad magic');
  if (b[4] !== BUNDLE_VERSION) throw bad(`unsupported version ${b[4]}`);
  const flags = b[5]!;
  if ((flags & ~1) !== 0) throw bad('unknown flags');
  const withMlDsa = (flags & 1) === 1;
  const bodyLen = 6 + 32 + 32 + 1184 + 1216 + (withMlDsa ? ML_DSA_PK : 0);
  const total = bodyLen + ED_SIG + (withMlDsa ? ML_DSA_SIG : 0);
  if (b.length !== total) throw bad(`expected ${total} bytes, got ${b.length}`);
  let o = 6;
  const take = (n: number) => b.slice(o, (o += n));
  const ed25519 = take(32);
  const x25519 = take(32);
  const mlKem768 = take(1184);
  const xWing = take(1216);
  const mlDsa65 = withMlDsa ? take(ML_DSA_PK) : undefined;
  const edSig = take(ED_SIG);
  const mlDsaSig = withMlDsa ? take(ML_DSA_SIG) : undefined;
  return {
    version: 1, id: identityId(ed25519), ed25519, x25519, mlKem768, xWing,
    ...(mlDsa65 ? { mlDsa65 } : {}),
    signatures: { ed25519: edSig, ...(mlDsaSig ? { mlDsa65: mlDsaSig } : {}) },
    bytes: b.slice(),
  };
}

/** Whether a bundle's signatures (Ed25519, and ML-DSA-65 when present) verify under its own keys. */
export function verifyPublicBundle(bundle: PublicBundle | Uint8Array): boolean {
  let parsed: PublicBundle;
  try {
    parsed = decodePublicBundle(bundle instanceof Uint8Array ? bundle : bundle.bytes);
  } catch (e) {
    if (e instanceof VeilError) return false;
    throw e;
  }
  const withMlDsa = parsed.mlDsa65 !== undefined;
  const body = parsed.bytes.subarray(0, 6 + 32 + 32 + 1184 + 1216 + (withMlDsa ? ML_DSA_PK : 0));
  if (!verifySignature(parsed.ed25519, bundleEd25519Message(body), parsed.signatures.ed25519)) return false;
  if (withMlDsa && !mlDsaVerify(parsed.mlDsa65!, body, parsed.signatures.mlDsa65!, { context: enc.encode(BUNDLE_DST) })) return false;
  return true;
}

// ---------------------------------------------------------------------------
// Backup and passphrase lock

export const BACKUP_MAGIC = 'VKBK';
export const BACKUP_VERSION = 1;
/** Argon2id defaults for a passphrase (lock or backup): 64 MiB, 3 passes, 1 lane (the wasm core is single-threaded). */
export const DEFAULT_PASSPHRASE_KDF = Object.freeze({ memoryKib: 65536, iterations: 3, parallelism: 1 });
/** Lowest accepted cost (OWASP's Argon2id floor: 19 MiB, 2 passes). */
export const MIN_PASSPHRASE_KDF = Object.freeze({ memoryKib: 19456, iterations: 2, parallelism: 1 });
/** Highest accepted cost (bounds the work an untrusted backup can ask for). */
export const MAX_PASSPHRASE_KDF = Object.freeze({ memoryKib: 1_048_576, iterations: 16, parallelism: 16 });

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function toHex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}
