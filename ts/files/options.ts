/** Argument and option parsing: inputs, the encryption plan, KDF, recipients, groups, signature policy, unlock. */
import type { IdentityHandle, Keystore } from '../keystore.js';
import { CONTAINER } from '../files-format.js';
import { exact, integer } from '../validate.js';
import { KDF_BOUNDS } from '../kdf-bounds.js';
import type { EncryptPlan, SignaturePolicy, UnlockSpec } from '../../protocol/files.protocol.js';
import { FIXED_KEYS_FOR_TESTING } from './types.js';
import type {
  EncryptFileOptions, FileInput, FileUnlock, GroupKey, PasswordKdf, RecipientPublicKey, SignaturePolicyOptions,
} from './types.js';

export const MAX_SAFE = Number.MAX_SAFE_INTEGER;

function isStream(v: unknown): v is ReadableStream<Uint8Array> {
  return typeof ReadableStream === 'function' && v instanceof ReadableStream;
}

export function checkInput(name: string, v: unknown): FileInput {
  if (v instanceof Blob || isStream(v)) return v;
  throw new TypeError(`${name} must be a File, a Blob or a ReadableStream`);
}

function password(v: unknown): string {
  if (typeof v !== 'string') throw new TypeError('password must be a string');
  if (v.length === 0) throw new RangeError('password must not be empty');
  return v;
}

function kdfOf(kdf: PasswordKdf | undefined): EncryptPlan['passwords'][number]['kdf'] {
  if (kdf === undefined || kdf.algorithm === 'argon2id') {
    const k: Extract<PasswordKdf, { algorithm: 'argon2id' }> = kdf ?? { algorithm: 'argon2id' };
    const { memoryKib: m, iterations: t, parallelism: p } = KDF_BOUNDS.wrapArgon2id;
    return {
      algorithm: 'argon2id',
      memoryKib: integer('kdf.memoryKib', k.memoryKib ?? m.default, m.min, m.max),
      iterations: integer('kdf.iterations', k.iterations ?? t.default, t.min, t.max),
      parallelism: integer('kdf.parallelism', k.parallelism ?? p.default, p.min, p.max),
    };
  }
  if (kdf.algorithm === 'pbkdf2') {
    const i = KDF_BOUNDS.wrapPbkdf2Iterations;
    return { algorithm: 'pbkdf2', iterations: integer('kdf.iterations', kdf.iterations ?? i.default, i.min, i.max) };
  }
  throw new TypeError(`kdf.algorithm must be 'argon2id' or 'pbkdf2'`);
}

function recipientOf(r: RecipientPublicKey, i: number): EncryptPlan['recipients'][number] {
  const name = `recipients[${i}]`;
  if (r instanceof Uint8Array) return { publicKey: exact(name, r, CONTAINER.xWingPublicKeyLength), keyVersion: 0 };
  if (typeof r !== 'object' || r === null) throw new TypeError(`${name} must be an X-Wing public key or { publicKey }`);
  if ('xWing' in r) return { publicKey: exact(`${name}.xWing`, r.xWing, CONTAINER.xWingPublicKeyLength), keyVersion: 0 };
  return {
    publicKey: exact(`${name}.publicKey`, r.publicKey, CONTAINER.xWingPublicKeyLength),
    keyVersion: integer(`${name}.keyVersion`, r.keyVersion ?? 0, 0, 0xffff_ffff),
    ...(r.recipientId === undefined ? {} : { recipientId: exact(`${name}.recipientId`, r.recipientId, 16) }),
  };
}

function groupOf(g: GroupKey, name = 'group'): { id: Uint8Array; keyVersion: number; key: Uint8Array } {
  if (typeof g !== 'object' || g === null) throw new TypeError(`${name} must be { id, keyVersion, key }`);
  return {
    id: exact(`${name}.id`, g.id, 16),
    keyVersion: integer(`${name}.keyVersion`, g.keyVersion, 0, 0xffff_ffff),
    key: exact(`${name}.key`, g.key, 32),
  };
}

export function isKeystore(v: unknown): v is Keystore {
  return typeof v === 'object' && v !== null && typeof (v as Keystore).sign === 'function'
    && typeof (v as Keystore).decapsulate === 'function' && typeof (v as Keystore).getPublicBundle === 'function';
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** Everything of the plan but the size (known once the input is). */
export function planOf(o: EncryptFileOptions): Omit<EncryptPlan, 'plaintextSize' | 'signer'> {
  if (typeof o !== 'object' || o === null) throw new TypeError('options must be an object');
  const passwords = o.password === undefined ? [] : [{ password: password(o.password), kdf: kdfOf(o.kdf) }];
  if (o.password === undefined && o.kdf !== undefined) throw new TypeError('kdf needs a password');
  if (o.recipients !== undefined && !Array.isArray(o.recipients)) throw new TypeError('recipients must be an array');
  const recipients = (o.recipients ?? []).map(recipientOf);
  const groups = o.group === undefined ? [] : [groupOf(o.group)];
  const thresholds = o.threshold === undefined ? [] : [(() => {
    if (typeof o.threshold !== 'object' || o.threshold === null) throw new TypeError('threshold must be { t, n }');
    const n = integer('threshold.n', o.threshold.n, 2, 255);
    return { t: integer('threshold.t', o.threshold.t, 2, n), n };
  })()];
  if (passwords.length + recipients.length + groups.length + thresholds.length === 0) {
    throw new TypeError('options must name a protection: password, recipients, group and/or threshold');
  }
  if (passwords.length + recipients.length + groups.length + thresholds.length > 255) throw new RangeError('at most 255 wraps');
  const hash = o.hash ?? 'sha256';
  if (hash !== 'sha256' && hash !== 'blake3') throw new TypeError(`hash must be 'sha256' or 'blake3'`);
  if (o.sign !== undefined && o.signWithKeys !== undefined) throw new TypeError('give sign or signWithKeys, not both');
  const fixed = (o as { [FIXED_KEYS_FOR_TESTING]?: { dek: unknown; fileId: unknown } })[FIXED_KEYS_FOR_TESTING];
  return {
    chunkSize: integer('chunkSize', o.chunkSize ?? CONTAINER.defaultChunkSize, CONTAINER.minChunkSize, CONTAINER.maxChunkSize),
    hashAlgorithm: hash === 'blake3' ? 1 : 0,
    passwords,
    recipients,
    groups,
    thresholds,
    ...(fixed === undefined ? {} : { fixedKeys: { dek: exact('dek', fixed.dek, 32), fileId: exact('fileId', fixed.fileId, 16) } }),
  };
}

function pinOf(v: unknown): NonNullable<SignaturePolicy['expectedSigner']> {
  if (v instanceof Uint8Array) return { ed25519: exact('expectedSigner', v, 32) };
  if (typeof v !== 'object' || v === null) throw new TypeError('expectedSigner must be an Ed25519 public key or { ed25519, mlDsa65? }');
  const o = v as { ed25519?: unknown; mlDsa65?: unknown };
  return {
    ed25519: exact('expectedSigner.ed25519', o.ed25519, 32),
    ...(o.mlDsa65 === undefined ? {} : { mlDsa65: exact('expectedSigner.mlDsa65', o.mlDsa65, 1952) }),
  };
}

export function policyOf(o: SignaturePolicyOptions): SignaturePolicy {
  const s = o.signature ?? 'optional';
  if (s !== 'required' && s !== 'optional') throw new TypeError(`signature must be 'required' or 'optional'`);
  return { required: s === 'required', ...(o.expectedSigner === undefined ? {} : { expectedSigner: pinOf(o.expectedSigner) }) };
}

export type UnlockRoute = { readonly kind: 'worker'; readonly spec: UnlockSpec } | { readonly kind: 'identity'; readonly keystore: Keystore; readonly identity: IdentityHandle | string };

export function unlockOf(u: FileUnlock): UnlockRoute {
  if (typeof u === 'string') return { kind: 'worker', spec: { kind: 'password', password: password(u) } };
  if (Array.isArray(u)) return sharesOf(u);
  if (typeof u !== 'object' || u === null) throw new TypeError('unlock must be a password, shares, { group }, { keystore, identity } or { xWingSecretKey }');
  if ('password' in u) return { kind: 'worker', spec: { kind: 'password', password: password(u.password) } };
  if ('shares' in u) return sharesOf(u.shares);
  if ('group' in u) return { kind: 'worker', spec: { kind: 'group', ...groupOf(u.group, 'unlock.group') } };
  if ('keystore' in u) {
    if (!isKeystore(u.keystore)) throw new TypeError('unlock.keystore must be a Keystore');
    return { kind: 'identity', keystore: u.keystore, identity: u.identity };
  }
  if ('xWingSecretKey' in u) {
    return {
      kind: 'worker',
      spec: {
        kind: 'x-wing-secret-key', secretKey: exact('unlock.xWingSecretKey', u.xWingSecretKey, 32),
        ...(u.recipientId === undefined ? {} : { recipientId: exact('unlock.recipientId', u.recipientId, 16) }),
      },
    };
  }
  throw new TypeError('unlock must be a password, shares, { group }, { keystore, identity } or { xWingSecretKey }');
}

function sharesOf(shares: unknown): UnlockRoute {
  if (!Array.isArray(shares) || shares.length === 0 || !shares.every((s) => typeof s === 'string')) {
    throw new TypeError('shares must be a non-empty array of vcs_ strings');
  }
  return { kind: 'worker', spec: { kind: 'shares', shares } };
}
