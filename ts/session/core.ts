/**
 * Byte-level wrappers over the session bindings (crate/src/wasm/session/,
 * docs/SESSIONS.md §6): the Rust core's handshake and triple ratchet with
 * serialized states. Used by the keystore worker, tests and benches; not
 * exported from the package index.
 *
 * Every input is checked (types, lengths) before WebAssembly; failures of the
 * core are `VeilError`s with the Rust codes. Bytes from elsewhere (bundles,
 * initial messages, messages, stored states) of an impossible length are
 * `VeilError('MALFORMED_INPUT')`, as the core would answer, never a
 * `RangeError`: an attacker controls them (argument misuse stays
 * `TypeError` / `RangeError`). Secret outputs (`state`,
 * prekey `secret`, `plaintext`) are fresh arrays the caller owns and wipes;
 * caller buffers are never mutated. `now` is seconds since the Unix epoch. On
 * failure nothing is returned and the caller keeps its state bytes unchanged.
 */
import * as wasm from '../wasm/veilkit.js';
import { call } from '../init.js';
import { bytes, exact, integer, optionalBytes, untrusted, wipe } from '../validate.js';
import { int, optInt, optPart, part, splitParts } from './parts.js';
import { bytesToHex, concatBytes, equalBytes } from '../bytes.js';
import { sha256 } from '../hash.js';
import { VeilError } from '../../protocol/errors.js';

/** Sizes of the session encodings, in bytes (docs/SESSIONS.md §2–§5). */
export const SESSION_SIZES = Object.freeze({
  seed: 32,
  identityEncoding: 2017,
  identityId: 32,
  x25519PrekeyRecord: 3426,
  mlKemPrekeyRecord: 4578,
  x25519Secret: 32,
  mlKemDecapsulationKey: 2400,
  /** Smallest bundle (one-entry version list, no one-time prekeys). */
  bundleMin: 10033,
  /** Largest bundle (16-entry version list, both one-time prekeys). */
  bundleMax: 18052,
  /** Smallest initial message (one-entry version lists; the ratchet message adds to it). */
  initialMessageMin: 3232,
  /** Smallest ratchet message (50-byte header, 12-byte nonce, 64-byte padded block, 16-byte tag). */
  messageMin: 142,
  maxVersions: 16,
  replayDigest: 32,
});

const U32_MAX = 0xffff_ffff;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** The three 32-byte seeds of a session identity (the keystore's; the X25519 seed is the scalar). */
export interface IdentitySeeds {
  ed25519: Uint8Array;
  mlDsa: Uint8Array;
  x25519: Uint8Array;
}

/** Prekey kinds (docs/SESSIONS.md §2.2). */
export type PrekeyKind = 'x25519-signed' | 'x25519-one-time' | 'mlkem-last-resort' | 'mlkem-one-time';

const KIND_BYTES: Readonly<Record<PrekeyKind, number>> = {
  'x25519-signed': 1,
  'x25519-one-time': 2,
  'mlkem-last-resort': 3,
  'mlkem-one-time': 4,
};

/** Bounds of a new ratchet state (docs/SESSIONS.md §5.6); absent fields take the defaults. */
export interface SessionLimits {
  /** 1 … 100,000 (default 2,000). */
  maxJump?: number;
  /** 1 … 100,000 (default 2,000). */
  maxSkippedKeys?: number;
  /** 1 … 64 (default 5). */
  maxReceivingChains?: number;
  /** At least 1 (default 30 days). */
  maxSkippedAgeSecs?: number;
}

/** A verified bundle's public facts. */
export interface BundleInfo {
  identity: Uint8Array;
  identityId: Uint8Array;
  deviceId: number;
  versions: Uint8Array;
  signedPrekeyId: number;
  pqLastResortId: number;
  oneTimeX25519Id?: number;
  oneTimeMlkemId?: number;
  /** The earliest `expires` of its prekeys. */
  expires: number;
}

/** The clear fields of an initial message (parsed, not verified). */
export interface InitialMessageInfo {
  version: number;
  initiatorIdentity: Uint8Array;
  initiatorDeviceId: number;
  responderIdentityId: Uint8Array;
  responderDeviceId: number;
  signedPrekeyId: number;
  pqPrekeyKind: 'mlkem-last-resort' | 'mlkem-one-time';
  pqPrekeyId: number;
  oneTimePrekeyId?: number;
  /** SHA-256(EK_A ‖ CT), only when no one-time prekey is used (the replay-cache key). */
  replayDigest?: Uint8Array;
}

/**
 * Public facts of a serialized ratchet state. The state (format 3, docs/SESSIONS.md §5.9) does not hold
 * the identity encodings, only `identitiesHash` = `H_ID` = SHA-256(Enc(ID_init) ‖ Enc(ID_resp)): whoever
 * keeps the encodings beside it checks them with {@link checkIdentities}.
 */
export interface StateInfo {
  counter: number;
  role: 'initiator' | 'responder';
  version: number;
  pqEpoch: number;
  /** `H_ID` (32 bytes). */
  identitiesHash: Uint8Array;
  skippedKeys: number;
  receivingChains: number;
}

// ---------------------------------------------------------------- argument checks

function object(name: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null) throw new TypeError(`${name} must be an object`);
  return value as Record<string, unknown>;
}

/** The 96-byte `ed25519 ‖ mlDsa ‖ x25519` seeds (a fresh buffer the caller of this helper wipes). */
function seedsOf(seeds: IdentitySeeds): Uint8Array {
  const s = object('seeds', seeds);
  const ed = exact('seeds.ed25519', s.ed25519, SESSION_SIZES.seed);
  const ml = exact('seeds.mlDsa', s.mlDsa, SESSION_SIZES.seed);
  const x = exact('seeds.x25519', s.x25519, SESSION_SIZES.seed);
  const out = new Uint8Array(3 * SESSION_SIZES.seed);
  out.set(ed, 0);
  out.set(ml, 32);
  out.set(x, 64);
  return out;
}

const u32 = (name: string, v: unknown): number => integer(name, v, 0, U32_MAX);
const safe = (name: string, v: unknown): number => integer(name, v, 0, MAX_SAFE);

function optional<T>(value: unknown, check: (v: unknown) => T): T | undefined {
  return value === undefined ? undefined : check(value);
}

function identityEncoding(name: string, v: unknown): Uint8Array {
  return exact(name, v, SESSION_SIZES.identityEncoding);
}

function limitsOf(v: unknown): [number | undefined, number | undefined, number | undefined, number | undefined] {
  if (v === undefined) return [undefined, undefined, undefined, undefined];
  const l = object('limits', v);
  return [
    optional(l.maxJump, (x) => integer('limits.maxJump', x, 1, 100_000)),
    optional(l.maxSkippedKeys, (x) => integer('limits.maxSkippedKeys', x, 1, 100_000)),
    optional(l.maxReceivingChains, (x) => integer('limits.maxReceivingChains', x, 1, 64)),
    optional(l.maxSkippedAgeSecs, (x) => integer('limits.maxSkippedAgeSecs', x, 1, MAX_SAFE)),
  ];
}

function kindOf(kind: unknown): number {
  if (typeof kind !== 'string') throw new TypeError('kind must be a PrekeyKind string');
  // Own properties only: 'constructor' or 'toString' must not find Object.prototype's.
  const b = Object.hasOwn(KIND_BYTES, kind) ? (KIND_BYTES as Readonly<Record<string, number>>)[kind] : undefined;
  if (b === undefined) throw new RangeError(`kind must be one of ${Object.keys(KIND_BYTES).join(', ')}, got ${kind}`);
  return b;
}

/** Runs `f` with the 96-byte seeds, wiping them afterwards. */
function withSeeds<T>(seeds: IdentitySeeds, f: (s: Uint8Array) => T): T {
  const s = seedsOf(seeds);
  try {
    return f(s);
  } finally {
    wipe(s);
  }
}

// ---------------------------------------------------------------- identity, prekeys, bundles

const SESSION_IDENTITY_LABEL = new TextEncoder().encode('veilkit-session-identity-v1');

/** The identity id of an `Enc(ID)`: SHA-256("veilkit-session-identity-v1" ‖ Enc(ID)) (docs/SESSIONS.md §2.1), 32 bytes. */
export function sessionIdentityIdBytes(encoding: Uint8Array): Uint8Array {
  return sha256(concatBytes([SESSION_IDENTITY_LABEL, encoding]));
}

/** Hex of {@link sessionIdentityIdBytes}: the id sessions, groups and device registries show for an identity. */
export function sessionIdentityId(encoding: Uint8Array): string {
  return bytesToHex(sessionIdentityIdBytes(encoding));
}

/** `Enc(ID)` (2,017 bytes) and the identity id (32 bytes) of the seeds. */
export function sessionIdentity(seeds: IdentitySeeds): { encoding: Uint8Array; id: Uint8Array } {
  return withSeeds(seeds, (s) => {
    const [encoding, id] = splitParts(call(() => wasm.sessionIdentity(s)), 2);
    return { encoding: part(encoding), id: part(id) };
  });
}

/**
 * A new prekey of `kind`, signed by the identity (Ed25519 and ML-DSA-65):
 * the signed record (docs/SESSIONS.md §2.2) and its secret (32-byte X25519
 * scalar, or the 2,400-byte ML-KEM-768 decapsulation key).
 */
export function generatePrekey(
  seeds: IdentitySeeds,
  kind: PrekeyKind,
  keyId: number,
  created: number,
  expires: number,
): { record: Uint8Array; secret: Uint8Array } {
  const k = kindOf(kind);
  const id = u32('keyId', keyId);
  const c = safe('created', created);
  const e = safe('expires', expires);
  if (c >= e) throw new RangeError(`created must be before expires, got ${c} >= ${e}`);
  return withSeeds(seeds, (s) => {
    const [record, secret] = splitParts(call(() => wasm.sessionGeneratePrekey(s, k, id, c, e)), 2);
    return { record: part(record), secret: part(secret) };
  });
}

/** The canonical bundle bytes (signatures are checked by {@link verifyBundle}, not here). */
export function encodeBundle(b: {
  identity: Uint8Array;
  deviceId: number;
  versions?: Uint8Array;
  signedPrekey: Uint8Array;
  pqLastResort: Uint8Array;
  oneTimeX25519?: Uint8Array;
  oneTimeMlkem?: Uint8Array;
}): Uint8Array {
  const o = object('bundle', b);
  const identity = identityEncoding('bundle.identity', o.identity);
  const deviceId = u32('bundle.deviceId', o.deviceId);
  const versions = optional(o.versions, (v) => {
    const x = bytes('bundle.versions', v);
    if (x.length < 1 || x.length > SESSION_SIZES.maxVersions) {
      throw new RangeError(`bundle.versions must be 1 to ${SESSION_SIZES.maxVersions} bytes, got ${x.length}`);
    }
    return x;
  });
  const spk = exact('bundle.signedPrekey', o.signedPrekey, SESSION_SIZES.x25519PrekeyRecord);
  const pq = exact('bundle.pqLastResort', o.pqLastResort, SESSION_SIZES.mlKemPrekeyRecord);
  const otx = optional(o.oneTimeX25519, (v) => exact('bundle.oneTimeX25519', v, SESSION_SIZES.x25519PrekeyRecord));
  const otk = optional(o.oneTimeMlkem, (v) => exact('bundle.oneTimeMlkem', v, SESSION_SIZES.mlKemPrekeyRecord));
  return call(() => wasm.sessionEncodeBundle(identity, deviceId, versions, spk, pq, otx, otk));
}

function bundleBytes(v: unknown): Uint8Array {
  return untrusted('bundle', v, SESSION_SIZES.bundleMin, SESSION_SIZES.bundleMax);
}

/** Parses and verifies a bundle at `now` (optionally against the pinned `Enc(ID)`); throws like {@link initiate}. */
export function verifyBundle(bundle: Uint8Array, now: number, pinned?: Uint8Array): BundleInfo {
  const b = bundleBytes(bundle);
  const n = safe('now', now);
  const p = optional(pinned, (v) => identityEncoding('pinned', v));
  const r = splitParts(call(() => wasm.sessionVerifyBundle(b, n, p)), 9);
  const info: BundleInfo = {
    identity: part(r[0]),
    identityId: part(r[1]),
    deviceId: int(r[2]),
    versions: part(r[3]),
    signedPrekeyId: int(r[4]),
    pqLastResortId: int(r[5]),
    expires: int(r[8]),
  };
  const otx = optInt(r[6]);
  const otk = optInt(r[7]);
  if (otx !== undefined) info.oneTimeX25519Id = otx;
  if (otk !== undefined) info.oneTimeMlkemId = otk;
  return info;
}

// ---------------------------------------------------------------- handshake

function initialMessageBytes(v: unknown): Uint8Array {
  return untrusted('initialMessage', v, SESSION_SIZES.initialMessageMin);
}

/** The clear fields of an initial message (parse only: `MALFORMED_INPUT`). */
export function initialMessageInfo(message: Uint8Array): InitialMessageInfo {
  const m = initialMessageBytes(message);
  const r = splitParts(call(() => wasm.sessionInitialMessageInfo(m)), 10);
  const kind = int(r[6]);
  const info: InitialMessageInfo = {
    version: int(r[0]),
    initiatorIdentity: part(r[1]),
    initiatorDeviceId: int(r[2]),
    responderIdentityId: part(r[3]),
    responderDeviceId: int(r[4]),
    signedPrekeyId: int(r[5]),
    pqPrekeyKind: kind === KIND_BYTES['mlkem-one-time'] ? 'mlkem-one-time' : 'mlkem-last-resort',
    pqPrekeyId: int(r[7]),
  };
  const opk = optInt(r[8]);
  const digest = optPart(r[9]);
  if (opk !== undefined) info.oneTimePrekeyId = opk;
  if (digest !== undefined) info.replayDigest = digest;
  return info;
}

/**
 * Starts a session with the device of `peerBundle`: verifies it at `o.now`,
 * derives the keys, builds the initiator's state and puts the first ratchet
 * message (encrypting `o.plaintext`, default empty, with `o.aad`) into the
 * initial message.
 */
export function initiate(
  seeds: IdentitySeeds,
  deviceId: number,
  peerBundle: Uint8Array,
  o: { now: number; pinned?: Uint8Array; plaintext?: Uint8Array; aad?: Uint8Array; limits?: SessionLimits },
): { state: Uint8Array; initialMessage: Uint8Array; counter: number; peerIdentity: Uint8Array; localIdentity: Uint8Array; peerDeviceId: number; version: number } {
  const dev = u32('deviceId', deviceId);
  const b = bundleBytes(peerBundle);
  const opts = object('options', o);
  const now = safe('options.now', opts.now);
  const pinned = optional(opts.pinned, (v) => identityEncoding('options.pinned', v));
  const plaintext = optionalBytes('options.plaintext', opts.plaintext);
  const aad = optionalBytes('options.aad', opts.aad);
  const [mj, mk, mc, ma] = limitsOf(opts.limits);
  return withSeeds(seeds, (s) => {
    // The binding takes ownership of a copy of `plaintext` (wiped in wasm); the caller's array is not touched.
    const r = splitParts(call(() => wasm.sessionInitiate(s, dev, b, now, pinned, plaintext, aad, mj, mk, mc, ma)), 7);
    return {
      state: part(r[0]),
      initialMessage: part(r[1]),
      counter: int(r[2]),
      peerIdentity: part(r[3]),
      localIdentity: part(r[6]),
      peerDeviceId: int(r[4]),
      version: int(r[5]),
    };
  });
}

/**
 * Answers an initial message with the prekey secrets it names (looked up by
 * the caller through {@link initialMessageInfo}), builds the responder's
 * state and decrypts the first ratchet message with `o.aad`. The replay
 * check is the caller's: it looks `replayDigest` up before calling, and
 * stores it (and deletes the `consumed` one-time prekeys) with the session.
 */
export function respond(
  seeds: IdentitySeeds,
  deviceId: number,
  initialMessage: Uint8Array,
  o: {
    now: number;
    pinned?: Uint8Array;
    signedPrekeySecret: Uint8Array;
    pqPrekeySecret: Uint8Array;
    oneTimePrekeySecret?: Uint8Array;
    aad?: Uint8Array;
    limits?: SessionLimits;
  },
): {
  state: Uint8Array;
  counter: number;
  plaintext: Uint8Array;
  peerIdentity: Uint8Array;
  localIdentity: Uint8Array;
  peerDeviceId: number;
  version: number;
  consumed: { oneTimeX25519?: number; oneTimeMlkem?: number };
  replayDigest?: Uint8Array;
} {
  const dev = u32('deviceId', deviceId);
  const m = initialMessageBytes(initialMessage);
  const opts = object('options', o);
  const now = safe('options.now', opts.now);
  const pinned = optional(opts.pinned, (v) => identityEncoding('options.pinned', v));
  const spk = exact('options.signedPrekeySecret', opts.signedPrekeySecret, SESSION_SIZES.x25519Secret);
  const pq = exact('options.pqPrekeySecret', opts.pqPrekeySecret, SESSION_SIZES.mlKemDecapsulationKey);
  const opk = optional(opts.oneTimePrekeySecret, (v) => exact('options.oneTimePrekeySecret', v, SESSION_SIZES.x25519Secret));
  const aad = optionalBytes('options.aad', opts.aad);
  const [mj, mk, mc, ma] = limitsOf(opts.limits);
  return withSeeds(seeds, (s) => {
    const r = splitParts(call(() => wasm.sessionRespond(s, dev, m, now, pinned, spk, pq, opk, aad, mj, mk, mc, ma)), 10);
    const consumed: { oneTimeX25519?: number; oneTimeMlkem?: number } = {};
    const cx = optInt(r[6]);
    const ck = optInt(r[7]);
    if (cx !== undefined) consumed.oneTimeX25519 = cx;
    if (ck !== undefined) consumed.oneTimeMlkem = ck;
    const out: ReturnType<typeof respond> = {
      state: part(r[0]),
      plaintext: part(r[1]),
      counter: int(r[2]),
      peerIdentity: part(r[3]),
      localIdentity: part(r[9]),
      peerDeviceId: int(r[4]),
      version: int(r[5]),
      consumed,
    };
    const digest = optPart(r[8]);
    if (digest !== undefined) out.replayDigest = digest;
    return out;
  });
}

// ---------------------------------------------------------------- ratchet

function stateBytes(v: unknown): Uint8Array {
  return untrusted('state', v, 1);
}

/**
 * Encrypts `plaintext` with `o.aad`; returns the new state (the old bytes stay
 * valid only as a record of the past: keep one live copy). `o.now` is checked
 * but not used by the core's `encrypt` (skipped-key ages are measured on decrypt).
 */
export function encrypt(
  state: Uint8Array,
  plaintext: Uint8Array,
  o: { aad?: Uint8Array; now: number },
): { state: Uint8Array; counter: number; message: Uint8Array } {
  const s = stateBytes(state);
  const p = bytes('plaintext', plaintext);
  const opts = object('options', o);
  safe('options.now', opts.now);
  const aad = optionalBytes('options.aad', opts.aad);
  const r = splitParts(call(() => wasm.sessionEncrypt(s, p, aad)), 3);
  return { state: part(r[0]), message: part(r[1]), counter: int(r[2]) };
}

/** Decrypts `message` with `o.aad` at `o.now`; only a success returns a new state. */
export function decrypt(
  state: Uint8Array,
  message: Uint8Array,
  o: { aad?: Uint8Array; now: number },
): { state: Uint8Array; counter: number; plaintext: Uint8Array } {
  const s = stateBytes(state);
  const m = untrusted('message', message, SESSION_SIZES.messageMin);
  const opts = object('options', o);
  const now = safe('options.now', opts.now);
  const aad = optionalBytes('options.aad', opts.aad);
  const r = splitParts(call(() => wasm.sessionDecrypt(s, m, aad, now)), 3);
  return { state: part(r[0]), plaintext: part(r[1]), counter: int(r[2]) };
}

/** Public facts of a serialized state (`MALFORMED_INPUT` / `INVALID_STATE` if it does not parse). */
export function stateInfo(state: Uint8Array): StateInfo {
  const s = stateBytes(state);
  const r = splitParts(call(() => wasm.sessionStateInfo(s)), 7);
  return {
    counter: int(r[0]),
    role: int(r[1]) === 1 ? 'initiator' : 'responder',
    version: int(r[2]),
    pqEpoch: int(r[3]),
    identitiesHash: part(r[4]),
    skippedKeys: int(r[5]),
    receivingChains: int(r[6]),
  };
}

/** The serialized-state format of `state` (byte 4 after the magic `VKRS`), or `undefined` if it is too short or has another magic. */
export function stateFormat(state: Uint8Array): number | undefined {
  const s = bytes('state', state);
  if (s.length < 5 || s[0] !== 0x56 || s[1] !== 0x4b || s[2] !== 0x52 || s[3] !== 0x53) return undefined;
  return s[4];
}

/** The current serialized-state format (3: identities bound by `H_ID`, not stored); format 2 stored both encodings. */
export const STATE_FORMAT = 3;

/**
 * Converts a state of format 2 (which stored both identity encodings) into the current format, with the same
 * counter and secrets, and returns the identities it carried (to be kept beside the new state). Any other
 * format, or a state that does not parse: `MALFORMED_INPUT` / `INVALID_STATE` / `INVALID_KEY`.
 */
export function migrateState(state: Uint8Array): { state: Uint8Array; initiatorIdentity: Uint8Array; responderIdentity: Uint8Array } {
  const s = stateBytes(state);
  const r = splitParts(call(() => wasm.sessionStateMigrate(s)), 3);
  return { state: part(r[0]), initiatorIdentity: part(r[1]), responderIdentity: part(r[2]) };
}

/**
 * Checks identity encodings kept beside a state (a session record) against its `H_ID`: both 2,017 bytes
 * (fixed lengths: the boundary between them cannot move under one hash) and
 * SHA-256(initiator ‖ responder) equal to `info.identitiesHash` (constant-time compare). Else
 * `IDENTITY_MISMATCH`: a record whose identities were replaced or swapped.
 */
export function checkIdentities(info: Pick<StateInfo, 'identitiesHash'>, initiatorIdentity: unknown, responderIdentity: unknown): void {
  const ok = initiatorIdentity instanceof Uint8Array && responderIdentity instanceof Uint8Array
    && initiatorIdentity.length === SESSION_SIZES.identityEncoding && responderIdentity.length === SESSION_SIZES.identityEncoding
    && equalBytes(sha256(concatBytes([initiatorIdentity, responderIdentity])), info.identitiesHash);
  if (!ok) throw new VeilError('IDENTITY_MISMATCH', 'the stored identities do not match the session state (H_ID)');
}
