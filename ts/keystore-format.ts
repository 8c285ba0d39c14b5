/**
 * Keystore formats shared by the page and the worker: the deterministic
 * derivation of an identity's keys from its BIP-39 seed, the signed public
 * bundle, and the constants of the encrypted backup. Specified in
 * docs/KEYSTORE.md; every function here needs `await init()`.
 *
 * Size: the three formats of docs/KEYSTORE.md (derivation, public bundle,
 * backup) that page and worker share; one module so both import one copy.
 */
import { VeilError } from '../protocol/errors.js';
import { isInitialized } from './init.js';
import { bytesToHex, concatBytes, equalBytes } from './bytes.js';
import { KDF_BOUNDS } from './kdf-bounds.js';
import { deriveHkdf } from './kdf.js';
import { sha256 } from './hash.js';
import { ed25519KeypairFromSeed, verifySignature } from './ed25519.js';
import { x25519PublicKey } from './x25519.js';
import { mlKemKeygen } from './mlkem.js';
import { xWingKeygen } from './xwing.js';
import { mlDsaKeygen, mlDsaVerify } from './mldsa.js';
import { decryptAesGcm, encryptAesGcm } from './aead.js';
import { entropyToMnemonic, mnemonicToSeed } from './bip39.js';
import { bytes, exact, integer, wipe } from './validate.js';
import type { KdfBudget, KeyType, PassphraseKdfParams } from '../protocol/keystore.protocol.js';

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

/** An identity's public keys by type; `'ml-dsa-65'` absent or `undefined`: an identity without ML-DSA-65. */
export type BundleKeys = Readonly<Partial<Record<KeyType, Uint8Array | undefined>>>;

/** Domain-separation label of the identity id. */
export const IDENTITY_ID_DST = 'veilkit-identity-id-v2';

/**
 * Identity id: lowercase hex of SHA-256(UTF-8("veilkit-identity-id-v2") ‖ flags ‖
 * Ed25519 ‖ X25519 ‖ ML-KEM-768 ‖ X-Wing ‖ [ML-DSA-65]) — the bundle body
 * after its magic and version, so every public key and the ML-DSA flag are
 * bound (64 hex characters, compared in full).
 */
export function identityId(keys: BundleKeys): string {
  return identityIdOfBody(encodeBundleBody(keys));
}

function identityIdOfBody(body: Uint8Array): string {
  return bytesToHex(sha256(concatBytes([enc.encode(IDENTITY_ID_DST), body.subarray(5)])));
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
  /** Identity id (see {@link identityId}): 64 hex characters over the flags and every public key. */
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
export function encodeBundleBody(keys: BundleKeys): Uint8Array {
  const withMlDsa = keys['ml-dsa-65'] !== undefined;
  const parts: Uint8Array[] = [enc.encode(BUNDLE_MAGIC), Uint8Array.of(BUNDLE_VERSION, withMlDsa ? 1 : 0)];
  for (const [type, len] of BUNDLE_KEYS) {
    const k = keys[type];
    parts.push(exact(`${type} public key`, k, len));
  }
  if (withMlDsa) {
    parts.push(exact('ml-dsa-65 public key', keys['ml-dsa-65'], ML_DSA_PK));
  }
  return concatBytes(parts);
}

/** The Ed25519-signed message of a bundle body: UTF-8(BUNDLE_DST) ‖ body. */
export function bundleEd25519Message(body: Uint8Array): Uint8Array {
  return concatBytes([enc.encode(BUNDLE_DST), body]);
}

/** Parses a canonical bundle (structure only; see {@link verifyPublicBundle}). */
export function decodePublicBundle(encoded: Uint8Array): PublicBundle {
  const b = bytes('bundle', encoded);
  const bad = (why: string) => new VeilError('INVALID_PARAMETER', `not a veilkit public bundle: ${why}`);
  if (b.length < 6 || new TextDecoder().decode(b.subarray(0, 4)) !== BUNDLE_MAGIC) throw bad('bad magic');
  if (b[4] !== BUNDLE_VERSION) throw bad(`unsupported version ${b[4]}`);
  const flags = b[5];
  if (flags === undefined || (flags & ~1) !== 0) throw bad('unknown flags');
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
    version: 1, id: identityIdOfBody(b.subarray(0, bodyLen)), ed25519, x25519, mlKem768, xWing,
    ...(mlDsa65 ? { mlDsa65 } : {}),
    signatures: { ed25519: edSig, ...(mlDsaSig ? { mlDsa65: mlDsaSig } : {}) },
    bytes: b.slice(),
  };
}

/**
 * Whether a bundle's signatures (Ed25519, and ML-DSA-65 when present) verify under its own keys:
 * `false` for a forged, tampered or malformed bundle. Needs `await init()` first and throws
 * `VeilError('NOT_INITIALIZED')` otherwise (never a silent `false`, which would make every genuine
 * peer look forged). A bundle that went through JSON has lost its `Uint8Array`s: send `bundle.bytes`
 * (e.g. base64) and pass the decoded bytes here or to {@link decodePublicBundle}.
 */
export function verifyPublicBundle(bundle: PublicBundle | Uint8Array): boolean {
  if (!isInitialized()) throw new VeilError('NOT_INITIALIZED', 'call `await init()` before verifyPublicBundle');
  let parsed: PublicBundle;
  try {
    parsed = decodePublicBundle(bundle instanceof Uint8Array ? bundle : bundle.bytes);
  } catch (e) {
    // Only "not a bundle" means forged; anything else (a poisoned instance, …) is not an answer.
    if (e instanceof VeilError && e.code === 'INVALID_PARAMETER') return false;
    throw e;
  }
  const mlDsaKey = parsed.mlDsa65;
  const mlDsaSig = parsed.signatures.mlDsa65;
  const body = parsed.bytes.subarray(0, 6 + 32 + 32 + 1184 + 1216 + (mlDsaKey !== undefined ? ML_DSA_PK : 0));
  if (!verifySignature(parsed.ed25519, bundleEd25519Message(body), parsed.signatures.ed25519)) return false;
  if (mlDsaKey === undefined) return true;
  return mlDsaSig !== undefined && mlDsaVerify(mlDsaKey, body, mlDsaSig, { context: enc.encode(BUNDLE_DST) });
}

// ---------------------------------------------------------------------------
// KDF budget

/**
 * The default per-derivation KDF budget of every reader (keystore unlock,
 * backup import; the container reader uses the same numbers): Argon2id at
 * most 256 MiB and 4 passes, PBKDF2 at most 2,000,000 iterations. Raised only
 * by an explicit `kdfBudget` option.
 */
export const DEFAULT_KDF_BUDGET: Readonly<Required<KdfBudget>> = KDF_BOUNDS.defaultBudget;

/** `budget` with the defaults filled in: `TypeError` unless an object of positive integers. */
export function resolveKdfBudget(budget: KdfBudget | undefined): Required<KdfBudget> {
  if (budget === undefined) return { ...DEFAULT_KDF_BUDGET };
  if (typeof budget !== 'object' || budget === null) throw new TypeError('kdfBudget must be an object');
  const field = (f: keyof KdfBudget): number => {
    const v = budget[f];
    if (v === undefined) return DEFAULT_KDF_BUDGET[f];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) throw new TypeError(`kdfBudget.${f} must be a positive integer`);
    return v;
  };
  return {
    argon2MemoryKib: field('argon2MemoryKib'), argon2Iterations: field('argon2Iterations'), pbkdf2Iterations: field('pbkdf2Iterations'),
    passwordWraps: field('passwordWraps'),
  };
}

/**
 * Refuses Argon2id parameters over the budget with `VeilError('KDF_BUDGET_EXCEEDED')`.
 * Call it before any derivation or allocation.
 */
export function checkArgon2Budget(params: PassphraseKdfParams, budget: KdfBudget | undefined): void {
  const b = resolveKdfBudget(budget);
  if (params.memoryKib > b.argon2MemoryKib || params.iterations > b.argon2Iterations) {
    throw new VeilError(
      'KDF_BUDGET_EXCEEDED',
      `Argon2id m = ${params.memoryKib} KiB, t = ${params.iterations} exceeds the KDF budget (m ≤ ${b.argon2MemoryKib} KiB, t ≤ ${b.argon2Iterations}); pass a larger kdfBudget to accept it`,
    );
  }
}

// ---------------------------------------------------------------------------
// Backup and passphrase lock

export const BACKUP_MAGIC = 'VKBK';
export const BACKUP_VERSION = 2;
const PASSPHRASE = KDF_BOUNDS.passphraseArgon2id;
const passphraseCost = (pick: 'min' | 'max' | 'default'): Readonly<PassphraseKdfParams> =>
  Object.freeze({ memoryKib: PASSPHRASE.memoryKib[pick], iterations: PASSPHRASE.iterations[pick], parallelism: PASSPHRASE.parallelism[pick] });
/** Argon2id defaults for a passphrase (lock or backup): 64 MiB, 3 passes, 1 lane (the wasm core is single-threaded). From `KDF_BOUNDS.passphraseArgon2id`. */
export const DEFAULT_PASSPHRASE_KDF = passphraseCost('default');
/** Lowest accepted cost (OWASP's Argon2id floor: 19 MiB, 2 passes). */
export const MIN_PASSPHRASE_KDF = passphraseCost('min');
/** Highest encodable cost (structural bound of the format; the KDF budget is the bound that applies by default). */
export const MAX_PASSPHRASE_KDF = passphraseCost('max');

/** Checks passphrase KDF parameters (`undefined`: the defaults): `TypeError` unless integers, `RangeError` outside the accepted range. */
export function checkPassphraseKdf(p: PassphraseKdfParams | undefined): PassphraseKdfParams {
  const v = p ?? DEFAULT_PASSPHRASE_KDF;
  if (typeof v !== 'object' || v === null) throw new TypeError('params must be an object');
  const check = (field: keyof PassphraseKdfParams) => integer(`params.${field}`, v[field], PASSPHRASE[field].min, PASSPHRASE[field].max);
  return { memoryKib: check('memoryKib'), iterations: check('iterations'), parallelism: check('parallelism') };
}

/** Length of the backup header (the AES-GCM AAD): magic 4, version 1, KDF 1, m 4, t 4, p 1, salt length 1, salt 16. */
export const BACKUP_HEADER_LENGTH = 32;
/** Longest label a backup entry may carry (UTF-8 bytes). */
export const MAX_BACKUP_LABEL_BYTES = 1024;
/** Longest BIP-39 passphrase a backup entry may carry (UTF-8 bytes). */
export const MAX_BIP39_PASSPHRASE_BYTES = 1024;
const BACKUP_ENTROPY = 32;
const BACKUP_SEED = 64;

/** One identity of a backup (docs/KEYSTORE.md#backup). `entropy` and `seed` are secret: wipe them after use. */
export interface BackupEntry {
  readonly mlDsa: boolean;
  /** Creation time, ms since the epoch. */
  readonly createdAt: number;
  readonly label: string;
  /** 32-byte BIP-39 entropy. */
  readonly entropy: Uint8Array;
  /** 64-byte BIP-39 seed. */
  readonly seed: Uint8Array;
  /** The BIP-39 passphrase ("25th word") the seed was made with (`''` for identities from `createIdentity`). */
  readonly bip39Passphrase: string;
}

/** Payload version of a backup that also carries the message history (docs/KEYSTORE.md#backup); version 2 carries identities only. */
export const BACKUP_PAYLOAD_HISTORY = 3;
/** Longest history entry or metadata a backup may carry (bytes; the history's own per-entry limit). */
export const MAX_HISTORY_ENTRY_BYTES = 1 << 20;
/** Most bytes a backup's history section may take (128 MiB): the writer checks it from the stored records' sizes before it opens one, the reader through {@link MAX_BACKUP_BYTES}. */
export const MAX_BACKUP_HISTORY_BYTES = 128 * 1024 * 1024;
/** Longest backup a reader accepts, checked before the KDF or any allocation: the history bound plus 32 MiB for identities (about 15,000). */
export const MAX_BACKUP_BYTES = MAX_BACKUP_HISTORY_BYTES + 32 * 1024 * 1024;

/**
 * The padded size of `n` history bytes (docs/KEYSTORE.md#message-history): `4 + n` rounded up to a power of
 * two from 64 up to 64 KiB, above that to a multiple of 64 KiB. Used by the history records and the backup.
 */
export function historyBucket(n: number): number {
  const framed = n + 4;
  if (framed > 65536) return Math.ceil(framed / 65536) * 65536;
  let b = 64;
  while (b < framed) b *= 2;
  return b;
}

/** One history entry of a backup: its sequence number and data (secret: wipe after use). */
export interface BackupHistoryEntry {
  /** Sequence number in its conversation (≥ 1). */
  readonly seq: number;
  /** The entry's bytes. */
  readonly data: Uint8Array;
}

/** One conversation of a backup's history, named by its tag (the HMAC of its name under the history key; names are never stored). */
export interface BackupConversation {
  /** The 32-byte conversation tag. */
  readonly tag: Uint8Array;
  /** The conversation's next sequence number. */
  readonly next: number;
  /** The conversation's metadata, if set. */
  readonly meta?: Uint8Array;
  /** Its entries, in ascending sequence order. */
  readonly entries: readonly BackupHistoryEntry[];
}

/** A backup's history section: the history key `H` (secret) and every conversation. */
export interface BackupHistory {
  /** The 32-byte history key. */
  readonly key: Uint8Array;
  /** Every conversation. */
  readonly conversations: readonly BackupConversation[];
}

/** The decrypted contents of a backup. */
export interface BackupContents {
  /** Every identity (payload versions 2 and 3). */
  readonly identities: readonly BackupEntry[];
  /** The message history (payload version 3 only). */
  readonly history?: BackupHistory;
}

/** The parsed header of a backup; `header` (the AAD) and `sealed` (IV ‖ ciphertext ‖ tag) are views into the input. */
export interface BackupHeader {
  readonly params: PassphraseKdfParams;
  readonly salt: Uint8Array;
  readonly header: Uint8Array;
  readonly sealed: Uint8Array;
}

/** Derives the backup key from the header's salt and Argon2id parameters (the caller's passphrase). `openBackup` / `sealBackup` wipe what it returns. */
export type BackupKek = (salt: Uint8Array, params: PassphraseKdfParams) => Uint8Array;

function invalidBackup(why: string): VeilError {
  return new VeilError('INVALID_BACKUP', `not a valid veilkit keystore backup: ${why}`);
}

/** The 32-byte backup header for `params` and a 16-byte `salt`. */
export function encodeBackupHeader(params: PassphraseKdfParams, salt: Uint8Array): Uint8Array {
  const p = checkPassphraseKdf(params);
  exact('salt', salt, 16);
  const header = new Uint8Array(BACKUP_HEADER_LENGTH);
  header.set(enc.encode(BACKUP_MAGIC), 0);
  header[4] = BACKUP_VERSION;
  header[5] = 1; // KDF: Argon2id v1.3
  const hv = new DataView(header.buffer);
  hv.setUint32(6, p.memoryKib);
  hv.setUint32(10, p.iterations);
  header[14] = p.parallelism;
  header[15] = 16;
  header.set(salt, 16);
  return header;
}

/**
 * Parses the header of a backup without any key work: `TypeError` unless a
 * `Uint8Array`; `VeilError('UNSUPPORTED_VERSION')` for another format version
 * (version 1 included); `VeilError('INVALID_BACKUP')` for a short input, bad
 * magic, KDF, salt length or Argon2id parameters outside the format's range.
 * The KDF budget is checked separately ({@link checkArgon2Budget}, done by {@link openBackup}).
 */
export function parseBackupHeader(input: unknown): BackupHeader {
  const backup = bytes('backup', input);
  if (backup.length < BACKUP_HEADER_LENGTH + 28) throw invalidBackup('too short');
  if (new TextDecoder().decode(backup.subarray(0, 4)) !== BACKUP_MAGIC) throw invalidBackup('bad magic');
  if (backup[4] !== BACKUP_VERSION) throw new VeilError('UNSUPPORTED_VERSION', `unsupported keystore backup version ${backup[4]} (this veilkit reads version ${BACKUP_VERSION})`);
  if (backup[5] !== 1) throw invalidBackup(`unknown KDF ${backup[5]}`);
  if (backup[15] !== 16) throw invalidBackup('salt must be 16 bytes');
  const hv = new DataView(backup.buffer, backup.byteOffset, BACKUP_HEADER_LENGTH);
  let params: PassphraseKdfParams;
  try {
    params = checkPassphraseKdf({ memoryKib: hv.getUint32(6), iterations: hv.getUint32(10), parallelism: hv.getUint8(14) });
  } catch (e) {
    throw invalidBackup(`Argon2id parameters out of range (${(e as Error).message})`);
  }
  return {
    params, salt: backup.subarray(16, BACKUP_HEADER_LENGTH),
    header: backup.subarray(0, BACKUP_HEADER_LENGTH), sealed: backup.subarray(BACKUP_HEADER_LENGTH),
  };
}

/** The plaintext of a backup (payload version 2). `RangeError` for an entry that cannot be encoded. Wipe the result. */
export function encodeBackupPayload(entries: readonly BackupEntry[]): Uint8Array {
  const head = new Uint8Array(5);
  head[0] = BACKUP_VERSION; // payload version
  new DataView(head.buffer).setUint32(1, entries.length);
  const parts: Uint8Array[] = [head];
  const passphrases: Uint8Array[] = [];
  try {
    for (const e of entries) {
      if (e.entropy.length !== BACKUP_ENTROPY || e.seed.length !== BACKUP_SEED) throw new RangeError('a backup entry needs 32 bytes of entropy and a 64-byte seed');
      const label = enc.encode(e.label);
      if (label.length > MAX_BACKUP_LABEL_BYTES) throw new RangeError(`label must be at most ${MAX_BACKUP_LABEL_BYTES} UTF-8 bytes`);
      if (typeof e.bip39Passphrase !== 'string') throw new TypeError('bip39Passphrase must be a string');
      const pass = enc.encode(e.bip39Passphrase);
      passphrases.push(pass);
      if (pass.length > MAX_BIP39_PASSPHRASE_BYTES) throw new RangeError(`bip39Passphrase must be at most ${MAX_BIP39_PASSPHRASE_BYTES} UTF-8 bytes`);
      const fixed = new Uint8Array(1 + 8 + 2);
      const dv = new DataView(fixed.buffer);
      fixed[0] = e.mlDsa ? 1 : 0;
      dv.setBigUint64(1, BigInt(Math.max(0, Math.floor(e.createdAt))));
      dv.setUint16(9, label.length);
      const passLen = new Uint8Array(2);
      new DataView(passLen.buffer).setUint16(0, pass.length);
      parts.push(fixed, label, e.entropy, e.seed, passLen, pass);
    }
    return concatBytes(parts);
  } finally {
    wipe(...passphrases);
  }
}

/**
 * Parses a decrypted backup plaintext of payload version 2 (identities only):
 * `VeilError('INVALID_BACKUP')` for any structural error, a version-3 payload
 * included ({@link parseBackupContents} reads both; nothing it allocated is left
 * unwiped then). The entries' `entropy` and `seed` are copies: wipe them after use.
 */
export function parseBackupPayload(payload: Uint8Array): BackupEntry[] {
  if (payload.length < 5 || payload[0] !== BACKUP_VERSION) throw invalidBackup('unsupported payload version');
  return [...parseBackupContents(payload).identities];
}

function parseIdentities(payload: Uint8Array, dv: DataView, entries: BackupEntry[]): number {
  const count = dv.getUint32(1);
  let o = 5;
  // ignoreBOM: a label that starts with U+FEFF keeps it (the default decoder would drop it).
  const utf8 = (at: number, n: number) => new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(payload.subarray(at, at + n));
  for (let i = 0; i < count; i++) {
    if (o + 11 > payload.length) throw invalidBackup('truncated payload');
    const flags = payload[o];
    if (flags === undefined || (flags & ~1) !== 0) throw invalidBackup('unknown identity flags');
    const created = dv.getBigUint64(o + 1);
    // A time JS cannot hold exactly would come back as another number (and re-encode differently).
    if (created > BigInt(Number.MAX_SAFE_INTEGER)) throw invalidBackup('creation time out of range');
    const createdAt = Number(created);
    const labelLen = dv.getUint16(o + 9);
    o += 11;
    if (labelLen > MAX_BACKUP_LABEL_BYTES || o + labelLen + 98 > payload.length) throw invalidBackup('truncated payload');
    const label = utf8(o, labelLen);
    o += labelLen;
    const secretsAt = o;
    o += 96;
    const passLen = dv.getUint16(o);
    o += 2;
    if (passLen > MAX_BIP39_PASSPHRASE_BYTES || o + passLen > payload.length) throw invalidBackup('truncated payload');
    const bip39Passphrase = utf8(o, passLen);
    o += passLen;
    entries.push({
      mlDsa: (flags & 1) === 1, createdAt, label, bip39Passphrase,
      entropy: payload.slice(secretsAt, secretsAt + 32), seed: payload.slice(secretsAt + 32, secretsAt + 96),
    });
  }
  return o;
}

/** Reads one padded blob (`u32 len ‖ data ‖ zeros`, {@link historyBucket}(len) bytes) at `o`; returns the data (a copy) and the next offset. */
function readPadded(payload: Uint8Array, dv: DataView, o: number): [Uint8Array, number] {
  if (o + 4 > payload.length) throw invalidBackup('truncated history');
  const len = dv.getUint32(o);
  if (len > MAX_HISTORY_ENTRY_BYTES) throw invalidBackup('history entry too long');
  const end = o + historyBucket(len);
  if (end > payload.length) throw invalidBackup('truncated history');
  for (let i = o + 4 + len; i < end; i++) if (payload[i] !== 0) throw invalidBackup('history padding is not zero');
  return [payload.slice(o + 4, o + 4 + len), end];
}

function parseHistory(payload: Uint8Array, dv: DataView, at: number): BackupHistory {
  if (payload.length - at > MAX_BACKUP_HISTORY_BYTES) throw invalidBackup('history section over MAX_BACKUP_HISTORY_BYTES');
  if (at + 36 > payload.length) throw invalidBackup('truncated history');
  const conversations: BackupConversation[] = [];
  const history: BackupHistory = { key: payload.slice(at, at + 32), conversations };
  try {
    const count = dv.getUint32(at + 32);
    let o = at + 36;
    let prevTag: string | undefined;
    for (let i = 0; i < count; i++) {
      if (o + 32 + 8 + 1 > payload.length) throw invalidBackup('truncated history');
      const tag = payload.slice(o, o + 32);
      const hex = bytesToHex(tag);
      if (prevTag !== undefined && hex <= prevTag) throw invalidBackup('history conversations not in ascending tag order');
      prevTag = hex;
      const next = dv.getBigUint64(o + 32);
      if (next < 1n || next > BigInt(Number.MAX_SAFE_INTEGER)) throw invalidBackup('history sequence number out of range');
      const flags = payload[o + 40];
      if (flags === undefined || (flags & ~1) !== 0) throw invalidBackup('unknown history conversation flags');
      o += 41;
      let meta: Uint8Array | undefined;
      if (flags === 1) [meta, o] = readPadded(payload, dv, o);
      const entries: BackupHistoryEntry[] = [];
      conversations.push({ tag, next: Number(next), entries, ...(meta ? { meta } : {}) });
      if (o + 4 > payload.length) throw invalidBackup('truncated history');
      const n = dv.getUint32(o);
      o += 4;
      let prev = 0;
      for (let j = 0; j < n; j++) {
        if (o + 8 > payload.length) throw invalidBackup('truncated history');
        const seq = dv.getBigUint64(o);
        if (seq <= BigInt(prev) || seq >= next) throw invalidBackup('history sequence numbers must ascend within 1 … next − 1');
        prev = Number(seq);
        let data: Uint8Array;
        [data, o] = readPadded(payload, dv, o + 8);
        entries.push({ seq: prev, data });
      }
    }
    if (o !== payload.length) throw invalidBackup('trailing bytes');
    return history;
  } catch (e) {
    wipeBackupHistory(history);
    throw e;
  }
}

/** Wipes every secret of a backup's history section: its key, entries and metadata. */
export function wipeBackupHistory(h: BackupHistory): void {
  wipe(h.key);
  for (const c of h.conversations) {
    if (c.meta) wipe(c.meta);
    for (const e of c.entries) wipe(e.data);
  }
}

/**
 * Parses a decrypted backup plaintext, payload version 2 (identities) or 3
 * (identities, then the message history): `VeilError('INVALID_BACKUP')` for
 * any structural error (nothing it allocated is left unwiped then). Wipe the
 * identities' `entropy` / `seed` and the history ({@link wipeBackupHistory}) after use.
 */
export function parseBackupContents(payload: Uint8Array): BackupContents {
  const entries: BackupEntry[] = [];
  try {
    const dv = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
    const version = payload[0];
    if (payload.length < 5 || (version !== BACKUP_VERSION && version !== BACKUP_PAYLOAD_HISTORY)) throw invalidBackup('unsupported payload version');
    const o = parseIdentities(payload, dv, entries);
    if (version === BACKUP_VERSION) {
      if (o !== payload.length) throw invalidBackup('trailing bytes');
      return { identities: entries };
    }
    return { identities: entries, history: parseHistory(payload, dv, o) };
  } catch (e) {
    for (const x of entries) wipe(x.entropy, x.seed);
    if (e instanceof VeilError) throw e;
    throw invalidBackup(String(e));
  }
}

/** The encoded size of a history section (what {@link MAX_BACKUP_HISTORY_BYTES} bounds), from the entries' lengths only. */
export function backupHistorySize(conversations: readonly { readonly meta?: number | undefined; readonly entries: readonly number[] }[]): number {
  let n = 36;
  for (const c of conversations) {
    n += 32 + 8 + 1 + 4 + (c.meta === undefined ? 0 : historyBucket(c.meta));
    for (const e of c.entries) n += 8 + historyBucket(e);
  }
  return n;
}

function encodeHistory(h: BackupHistory): Uint8Array {
  if (h.key.length !== 32) throw new RangeError('the history key must be 32 bytes');
  const size = backupHistorySize(h.conversations.map((c) => ({ meta: c.meta?.length, entries: c.entries.map((e) => e.data.length) })));
  if (size > MAX_BACKUP_HISTORY_BYTES) throw new RangeError(`the message history needs ${size} bytes in the backup, over MAX_BACKUP_HISTORY_BYTES (${MAX_BACKUP_HISTORY_BYTES})`);
  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  out.set(h.key, 0);
  dv.setUint32(32, h.conversations.length);
  let o = 36;
  const padded = (d: Uint8Array) => {
    if (d.length > MAX_HISTORY_ENTRY_BYTES) throw new RangeError(`a history entry must be at most ${MAX_HISTORY_ENTRY_BYTES} bytes`);
    dv.setUint32(o, d.length);
    out.set(d, o + 4);
    o += historyBucket(d.length);
  };
  const sorted = [...h.conversations].sort((a, b) => (bytesToHex(a.tag) < bytesToHex(b.tag) ? -1 : 1));
  for (const c of sorted) {
    if (c.tag.length !== 32) throw new RangeError('a conversation tag must be 32 bytes');
    out.set(c.tag, o);
    dv.setBigUint64(o + 32, BigInt(c.next));
    out[o + 40] = c.meta ? 1 : 0;
    o += 41;
    if (c.meta) padded(c.meta);
    dv.setUint32(o, c.entries.length);
    o += 4;
    let prev = 0;
    for (const e of c.entries) {
      if (!Number.isSafeInteger(e.seq) || e.seq <= prev || e.seq >= c.next) throw new RangeError('history sequence numbers must ascend within 1 … next − 1');
      prev = e.seq;
      dv.setBigUint64(o, BigInt(e.seq));
      o += 8;
      padded(e.data);
    }
  }
  return out;
}

/** The plaintext of a backup: payload version 2 without `history`, 3 with it. `RangeError` for what cannot be encoded. Wipe the result. */
export function encodeBackupContents(c: BackupContents): Uint8Array {
  const identities = encodeBackupPayload(c.identities);
  if (!c.history) return identities;
  const history = encodeHistory(c.history);
  try {
    identities[0] = BACKUP_PAYLOAD_HISTORY;
    return concatBytes([identities, history]);
  } finally {
    wipe(identities, history);
  }
}

/**
 * Requires an entry's seed to be the BIP-39 seed of its entropy and BIP-39
 * passphrase (one PBKDF2-HMAC-SHA512 of 2048 iterations): a backup whose
 * recovery phrase would not restore the keys it installs is `INVALID_BACKUP`.
 */
export function checkBackupEntry(entry: BackupEntry): void {
  const phrase = entropyToMnemonic(entry.entropy);
  const seed = mnemonicToSeed(phrase, entry.bip39Passphrase);
  try {
    if (!equalBytes(seed, entry.seed)) throw invalidBackup('an entry\'s seed is not the BIP-39 seed of its recovery entropy');
  } finally {
    wipe(seed);
  }
}

/**
 * Decrypts and parses a backup: {@link parseBackupHeader}, the KDF budget
 * ({@link checkArgon2Budget}: `KDF_BUDGET_EXCEEDED` before any key work),
 * then the key from `kek(salt, params)` (wiped here), AES-256-GCM with the
 * header as AAD (any modified byte or a wrong passphrase:
 * `VeilError('AUTHENTICATION_FAILED')`), then {@link parseBackupPayload}.
 * Wipe the entries' secrets after use.
 */
export function openBackup(backup: unknown, kek: BackupKek, budget?: KdfBudget): BackupEntry[] {
  const { params, salt, header, sealed } = parseBackupHeader(backup);
  checkArgon2Budget(params, budget);
  const key = kek(salt, params);
  let payload: Uint8Array;
  try {
    payload = decryptAesGcm(key, sealed, header); // wrong passphrase: AUTHENTICATION_FAILED
  } finally {
    wipe(key);
  }
  try {
    return parseBackupPayload(payload);
  } finally {
    wipe(payload);
  }
}

/**
 * {@link openBackup} for both payload versions: the identities and, in a
 * version-3 payload, the message history. Backups longer than
 * {@link MAX_BACKUP_BYTES} are `INVALID_BACKUP` before any key work. Wipe the
 * result's secrets after use.
 */
export function openBackupContents(backup: unknown, kek: BackupKek, budget?: KdfBudget): BackupContents {
  const { params, salt, header, sealed } = parseBackupHeader(backup);
  if (header.length + sealed.length > MAX_BACKUP_BYTES) throw invalidBackup(`longer than MAX_BACKUP_BYTES (${MAX_BACKUP_BYTES})`);
  checkArgon2Budget(params, budget);
  const key = kek(salt, params);
  let payload: Uint8Array;
  try {
    payload = decryptAesGcm(key, sealed, header); // wrong passphrase or any modified byte: AUTHENTICATION_FAILED
  } finally {
    wipe(key);
  }
  try {
    return parseBackupContents(payload);
  } finally {
    wipe(payload);
  }
}

/** Encrypts a backup of `contents` under `kek(salt, params)` (wiped here); the inverse of {@link openBackupContents}. */
export function sealBackupContents(contents: BackupContents, params: PassphraseKdfParams, salt: Uint8Array, kek: BackupKek): Uint8Array {
  const header = encodeBackupHeader(params, salt);
  const payload = encodeBackupContents(contents);
  try {
    const key = kek(header.subarray(16, BACKUP_HEADER_LENGTH), checkPassphraseKdf(params));
    try {
      return concatBytes([header, encryptAesGcm(key, payload, header)]);
    } finally {
      wipe(key);
    }
  } finally {
    wipe(payload);
  }
}

/** Encrypts a backup of `entries` under `kek(salt, params)` (wiped here); the inverse of {@link openBackup}. */
export function sealBackup(entries: readonly BackupEntry[], params: PassphraseKdfParams, salt: Uint8Array, kek: BackupKek): Uint8Array {
  // Without a history, encodeBackupContents is encodeBackupPayload: the same version-2 bytes.
  return sealBackupContents({ identities: entries }, params, salt, kek);
}
