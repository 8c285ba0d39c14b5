/**
 * The user's device registry (docs/DEVICES.md): its bytes, the parser and the verifier. Page,
 * worker and tests share this module; only the keystore worker signs changes (worker/keystore/devices.ts).
 *
 * ```text
 * registry = "VKDR" ‖ u8(1) ‖ Enc(U) (2,017) ‖ u16(n) ‖ change_1 ‖ … ‖ change_n        (1 ≤ n ≤ 512)
 * change_i = body_i ‖ Ed25519 signature (64) ‖ ML-DSA-65 signature (3,309)
 * body_i   = u8(action) ‖ u32(i) ‖ u64(time, ms) ‖ prev_i (32) ‖ device id (32)
 *            [action 1, add only: ‖ Enc(D) (2,017) ‖ consent (64 + 3,309) ‖ u8(|name|) ‖ name (UTF-8, ≤ 64)]
 * consent  = the device's Ed25519 and ML-DSA-65 signatures over label ‖ 0x03 ‖ Enc(U) ‖ Enc(D) (ML-DSA context = label)
 * prev_1   = SHA-256(label ‖ 0x00 ‖ Enc(U)),  prev_i = h_(i-1),  h_i = SHA-256(label ‖ 0x01 ‖ change_i)
 * signed_i = label ‖ 0x02 ‖ body_i  (Ed25519 message; ML-DSA-65 message with context = label)
 * label    = "veilkit-device-registry-v1"
 * ```
 */
import { VeilError } from '../protocol/errors.js';
import { bytesToHex, concatBytes, equalBytes, hexToBytes } from './bytes.js';
import { sha256 } from './hash.js';
import { sessionIdentityId, sessionIdentityIdBytes } from './session/core.js';
import { verifySignature } from './ed25519.js';
import { mlDsaVerify } from './mldsa.js';
import { DEVICE_REGISTRY, REGISTRY_HEADER_LENGTH } from './devices-header.js';

export { DEVICE_REGISTRY } from './devices-header.js';

const enc = new TextEncoder();

/** `action` byte of a change. */
export const REGISTRY_ACTIONS = Object.freeze({ add: 1, revoke: 2 });

/** Why a registry was refused: `REGISTRY_INVALID` with `details.reason` and `details.index` (1-based change, or 0 for the registry as a whole). */
export type DeviceRegistryFailure =
  | 'MALFORMED' | 'USER_MISMATCH' | 'BAD_SEQUENCE' | 'BAD_PREV_HASH' | 'TIMESTAMP_DECREASED' | 'BAD_SIGNATURE'
  | 'DEVICE_ID_MISMATCH' | 'BAD_CONSENT' | 'DUPLICATE_DEVICE' | 'USER_AS_DEVICE' | 'UNKNOWN_DEVICE' | 'ALREADY_REVOKED' | 'FORK';

/** The head of a verified registry: pin it, and a later registry must extend it. */
export interface DeviceRegistryHead {
  /** Number of changes. */
  readonly count: number;
  /** Hex of `h_count`, the hash of the newest change. */
  readonly hash: string;
}

/** A device of the registry. */
export interface RegisteredDevice {
  /** Hex of SHA-256("veilkit-session-identity-v1" ‖ Enc(D)): a group member's `identityId`. */
  readonly identityId: string;
  /** The device identity's `Enc(ID)` (2,017 bytes). */
  readonly identity: Uint8Array;
  readonly name: string;
  /** The add change's time (ms since 1970). */
  readonly addedAt: number;
  /** The revoke change's time, for a revoked device. */
  readonly revokedAt?: number;
}

/** What a verified registry says. */
export interface DeviceRegistryView {
  /** The user identity's `Enc(ID)` and identity id. */
  readonly user: { readonly identity: Uint8Array; readonly identityId: string };
  readonly head: DeviceRegistryHead;
  /** Active devices, in the order they were added. */
  readonly devices: readonly RegisteredDevice[];
  /** Revoked devices, in the order they were revoked (never active again). */
  readonly revoked: readonly RegisteredDevice[];
  /** Time of the newest change. */
  readonly updatedAt: number;
}

/** `value` as a {@link DeviceRegistryHead} (`TypeError` for anything else): a caller's pin, checked before use. */
export function checkRegistryHead(value: unknown, name = 'pinned'): DeviceRegistryHead {
  if (typeof value !== 'object' || value === null) throw new TypeError(`${name} must be a registry head { count, hash }`);
  const { count, hash } = value as Record<string, unknown>;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > DEVICE_REGISTRY.maxChanges || typeof hash !== 'string' || !/^[0-9a-f]{64}$/.test(hash)) {
    throw new TypeError(`${name} must be a registry head { count: 1 … ${DEVICE_REGISTRY.maxChanges}, hash: 64 lowercase hex digits } from an earlier verification`);
  }
  return { count, hash };
}

/** One parsed change. */
export interface RegistryChange {
  readonly action: 1 | 2;
  readonly seq: number;
  readonly time: number;
  readonly prev: Uint8Array;
  readonly deviceId: Uint8Array;
  readonly device?: Uint8Array;
  readonly consent?: Uint8Array;
  readonly name?: string;
  readonly body: Uint8Array;
  readonly ed25519: Uint8Array;
  readonly mlDsa65: Uint8Array;
  /** The whole change (body and signatures), what `h_i` hashes. */
  readonly bytes: Uint8Array;
}

export interface ParsedRegistry {
  readonly user: Uint8Array;
  readonly changes: readonly RegistryChange[];
}

const LABEL = enc.encode(DEVICE_REGISTRY.label);
const MAGIC = enc.encode(DEVICE_REGISTRY.magic);
const ED25519_SIG = 64;
const MLDSA_SIG = 3309;
const HEADER = REGISTRY_HEADER_LENGTH;
const BODY_FIXED = 1 + 4 + 8 + 32 + 32;
const SIGS = ED25519_SIG + MLDSA_SIG;
/** A device's consent: its Ed25519 and ML-DSA-65 signatures over {@link consentBytes}. */
export const CONSENT_LENGTH = SIGS;
const MAX_TIME = Number.MAX_SAFE_INTEGER;
const utf8Strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function invalid(reason: DeviceRegistryFailure, index: number, message: string): VeilError {
  return new VeilError('REGISTRY_INVALID', `device registry: ${message}`, { details: { reason, index } });
}


/** `prev_1`: the root every registry of user `Enc(U)` starts from. */
export function registryRoot(user: Uint8Array): Uint8Array {
  return sha256(concatBytes([LABEL, Uint8Array.of(0), user]));
}

/** `h_i` of a whole change. */
export function changeHash(change: Uint8Array): Uint8Array {
  return sha256(concatBytes([LABEL, Uint8Array.of(1), change]));
}

/** The bytes both signatures of a change are made over. */
export function signedBytes(body: Uint8Array): Uint8Array {
  return concatBytes([LABEL, Uint8Array.of(2), body]);
}

/** What device `Enc(D)` signs to consent to being a device of user `Enc(U)`: `label ‖ 0x03 ‖ Enc(U) ‖ Enc(D)`. */
export function consentBytes(user: Uint8Array, device: Uint8Array): Uint8Array {
  return concatBytes([LABEL, Uint8Array.of(3), user, device]);
}

/** True when `consent` is device `Enc(D)`'s two signatures over {@link consentBytes} of `user`. */
export function verifyConsent(device: Uint8Array, user: Uint8Array, consent: Uint8Array): boolean {
  if (consent.length !== SIGS || !isIdentityEncoding(device)) return false;
  const m = consentBytes(user, device);
  return verifySignature(device.subarray(1, 33), m, consent.subarray(0, ED25519_SIG))
    && mlDsaVerify(device.subarray(33, 33 + 1952), m, consent.subarray(ED25519_SIG), { context: LABEL.slice() });
}

/** The ML-DSA-65 context of a change's signature. */
export function mlDsaContext(): Uint8Array {
  return LABEL.slice();
}

/** True for an `Enc(ID)` of the shape registries take: 2,017 bytes with flags 0x01. Its keys are checked by their use. */
export function isIdentityEncoding(b: Uint8Array): boolean {
  return b.length === DEVICE_REGISTRY.identityLength && b[0] === 0x01;
}

function u16(n: number): Uint8Array {
  return Uint8Array.of(n >>> 8, n & 0xff);
}

function u32(n: number): Uint8Array {
  return Uint8Array.of(n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
}

function u64(n: number): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(n));
  return out;
}

/** Body of a change (docs/DEVICES.md §2); the caller has checked every field. */
export function encodeBody(c: { action: 1 | 2; seq: number; time: number; prev: Uint8Array; device: Uint8Array | string; consent?: Uint8Array; name?: string }): Uint8Array {
  const parts: Uint8Array[] = [Uint8Array.of(c.action), u32(c.seq), u64(c.time), c.prev];
  if (c.action === REGISTRY_ACTIONS.add) {
    if (typeof c.device === 'string' || c.consent?.length !== SIGS) throw new TypeError('an add change carries the device Enc(ID) and its consent');
    const name = enc.encode(c.name ?? '');
    parts.push(sessionIdentityIdBytes(c.device), c.device, c.consent, Uint8Array.of(name.length), name);
  } else {
    if (typeof c.device !== 'string' || !/^[0-9a-f]{64}$/.test(c.device)) throw new TypeError('a revoke change carries the device identity id (64 hex digits)');
    parts.push(hexToBytes(c.device));
  }
  return concatBytes(parts);
}

/** The registry of `user` with `changes` (each body ‖ signatures). */
export function encodeRegistry(user: Uint8Array, changes: readonly Uint8Array[]): Uint8Array {
  return concatBytes([MAGIC, Uint8Array.of(DEVICE_REGISTRY.format), user, u16(changes.length), ...changes]);
}

/**
 * Parses a registry: canonical and total (every length checked before it is used, no trailing
 * bytes); checks the shape of each change but no signature, hash link or rule (see {@link verifyRegistry}).
 */
export function parseRegistry(input: Uint8Array): ParsedRegistry {
  const b = input;
  const maxLength = HEADER + DEVICE_REGISTRY.maxChanges * (BODY_FIXED + DEVICE_REGISTRY.identityLength + SIGS + 1 + DEVICE_REGISTRY.maxNameLength + SIGS);
  if (b.length < HEADER) throw invalid('MALFORMED', 0, `${b.length} bytes is shorter than its header`);
  if (b.length > maxLength) throw invalid('MALFORMED', 0, `${b.length} bytes is longer than any registry of ${DEVICE_REGISTRY.maxChanges} changes`);
  if (!equalBytes(b.subarray(0, 4), MAGIC)) throw invalid('MALFORMED', 0, 'it does not begin with VKDR');
  if (b[4] !== DEVICE_REGISTRY.format) throw invalid('MALFORMED', 0, `format ${String(b[4])} is not 1`);
  const user = b.slice(5, 5 + DEVICE_REGISTRY.identityLength);
  if (!isIdentityEncoding(user)) throw invalid('MALFORMED', 0, 'the user Enc(ID) does not have flags 0x01 (Ed25519, ML-DSA-65, X25519)');
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const n = view.getUint16(HEADER - 2);
  if (n < 1 || n > DEVICE_REGISTRY.maxChanges) throw invalid('MALFORMED', 0, `${n} changes (1 … ${DEVICE_REGISTRY.maxChanges})`);
  const changes: RegistryChange[] = [];
  let at = HEADER;
  for (let i = 1; i <= n; i++) {
    const start = at;
    const need = (k: number): void => {
      if (b.length - at < k) throw invalid('MALFORMED', i, 'the registry ends inside a change');
    };
    need(BODY_FIXED);
    const action = b[at];
    if (action !== REGISTRY_ACTIONS.add && action !== REGISTRY_ACTIONS.revoke) throw invalid('MALFORMED', i, `action ${String(action)} is neither add (1) nor revoke (2)`);
    const seq = view.getUint32(at + 1);
    const time64 = view.getBigUint64(at + 5);
    if (time64 > BigInt(MAX_TIME)) throw invalid('MALFORMED', i, 'its time is above 2^53 - 1');
    const time = Number(time64);
    const prev = b.slice(at + 13, at + 45);
    const deviceId = b.slice(at + 45, at + 77);
    at += BODY_FIXED;
    let device: Uint8Array | undefined;
    let consent: Uint8Array | undefined;
    let name: string | undefined;
    if (action === REGISTRY_ACTIONS.add) {
      need(DEVICE_REGISTRY.identityLength + SIGS + 1);
      device = b.slice(at, at + DEVICE_REGISTRY.identityLength);
      if (!isIdentityEncoding(device)) throw invalid('MALFORMED', i, 'the device Enc(ID) does not have flags 0x01');
      at += DEVICE_REGISTRY.identityLength;
      consent = b.slice(at, at + SIGS);
      at += SIGS;
      const len = b[at] ?? 0;
      at += 1;
      if (len > DEVICE_REGISTRY.maxNameLength) throw invalid('MALFORMED', i, `a name of ${len} bytes (at most ${DEVICE_REGISTRY.maxNameLength})`);
      need(len);
      try {
        name = utf8Strict.decode(b.subarray(at, at + len));
      } catch {
        throw invalid('MALFORMED', i, 'the name is not UTF-8');
      }
      at += len;
    }
    const bodyEnd = at;
    need(SIGS);
    const ed25519 = b.slice(at, at + ED25519_SIG);
    const mlDsa65 = b.slice(at + ED25519_SIG, at + SIGS);
    at += SIGS;
    changes.push({
      action: action === REGISTRY_ACTIONS.add ? 1 : 2, seq, time, prev, deviceId, body: b.slice(start, bodyEnd), ed25519, mlDsa65, bytes: b.slice(start, at),
      ...(device === undefined || consent === undefined ? {} : { device, consent, name: name ?? '' }),
    });
  }
  if (at !== b.length) throw invalid('MALFORMED', 0, `${b.length - at} bytes after the last change`);
  return { user, changes };
}

/** Options of {@link verifyRegistry}. */
export interface VerifyRegistryOptions {
  /** The user's `Enc(ID)` the caller already trusts (never the one in the registry). */
  user: Uint8Array;
  /** A head seen (and verified) before: the registry must extend it (`STATE_ROLLBACK` if shorter, `FORK` if it does not). */
  pinned?: DeviceRegistryHead;
}

/**
 * Verifies a registry against the pinned user identity: the user, then change by change the sequence
 * number, the hash link, non-decreasing times, both signatures and an added device's consent
 * (changes up to a pinned head are checked by its hash instead) and the rules (an add never reuses a device id, a revoke names an
 * active device). Throws `REGISTRY_INVALID` (reason, index) or `STATE_ROLLBACK`.
 */
export function verifyRegistry(input: Uint8Array, options: VerifyRegistryOptions): DeviceRegistryView {
  const { user, changes } = parseRegistry(input);
  if (!equalBytes(user, options.user)) throw invalid('USER_MISMATCH', 0, 'it is the registry of another user identity');
  const pinned = options.pinned;
  if (pinned !== undefined && pinned.count > changes.length) {
    throw new VeilError('STATE_ROLLBACK', `device registry: ${changes.length} changes, older than the pinned head of ${pinned.count}`, {
      details: { got: changes.length, needed: pinned.count },
    });
  }
  const edKey = user.subarray(1, 33);
  const mlKey = user.subarray(33, 33 + 1952);
  const userId = sessionIdentityId(user);
  const ctx = mlDsaContext();
  const active = new Map<string, RegisteredDevice>();
  const seen = new Set<string>();
  const revoked: RegisteredDevice[] = [];
  let prev = registryRoot(user);
  let lastTime = 0;
  for (const [k, c] of changes.entries()) {
    const i = c.seq;
    const index = k + 1;
    if (i !== index) throw invalid('BAD_SEQUENCE', index, `change ${index} carries sequence number ${i}`);
    if (!equalBytes(c.prev, prev)) throw invalid('BAD_PREV_HASH', index, `change ${index} does not link to change ${index - 1}`);
    if (c.time < lastTime) throw invalid('TIMESTAMP_DECREASED', index, `change ${index} is older than change ${index - 1}`);
    const h = changeHash(c.bytes);
    const trusted = pinned !== undefined && index <= pinned.count;
    if (!trusted) {
      const m = signedBytes(c.body);
      if (!verifySignature(edKey, m, c.ed25519) || !mlDsaVerify(mlKey, m, c.mlDsa65, { context: ctx })) {
        throw invalid('BAD_SIGNATURE', index, `change ${index} is not signed by the user identity`);
      }
    }
    if (pinned !== undefined && index === pinned.count && bytesToHex(h) !== pinned.hash) {
      throw invalid('FORK', index, `change ${index} is not the pinned one: the registry forks from what was seen before`);
    }
    const id = bytesToHex(c.deviceId);
    if (c.action === REGISTRY_ACTIONS.add) {
      const device = c.device ?? new Uint8Array(0);
      if (sessionIdentityId(device) !== id) throw invalid('DEVICE_ID_MISMATCH', index, `change ${index}: the device id is not the one of its Enc(ID)`);
      if (id === userId) throw invalid('USER_AS_DEVICE', index, `change ${index} adds the user identity as a device`);
      if (!trusted && !verifyConsent(device, user, c.consent ?? new Uint8Array(0))) {
        throw invalid('BAD_CONSENT', index, `change ${index}: the device did not consent to being a device of this user`);
      }
      if (seen.has(id)) throw invalid('DUPLICATE_DEVICE', index, `change ${index} adds a device the registry has added before`);
      seen.add(id);
      active.set(id, { identityId: id, identity: device, name: c.name ?? '', addedAt: c.time });
    } else {
      const d = active.get(id);
      if (d === undefined) throw invalid(seen.has(id) ? 'ALREADY_REVOKED' : 'UNKNOWN_DEVICE', index, `change ${index} revokes a device that is not active`);
      active.delete(id);
      revoked.push({ ...d, revokedAt: c.time });
    }
    prev = h;
    lastTime = c.time;
  }
  return {
    user: { identity: user, identityId: userId },
    head: { count: changes.length, hash: bytesToHex(prev) },
    devices: [...active.values()],
    revoked,
    updatedAt: lastTime,
  };
}
