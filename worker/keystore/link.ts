/**
 * Device linking in the keystore worker (docs/DEVICES.md §6). The X-Wing decapsulation key, the
 * shared secret and the link keys live only here, in memory, for one link of at most ten minutes;
 * the page carries the four messages and shows the code.
 */
import * as P from '../../ts/primitives.js';
import { VeilError } from '../../protocol/errors.js';
import { sessionIdentityId } from '../../ts/session/core.js';
import { utf8, wipe } from '../../ts/validate.js';
import { bytesToHex, concatBytes } from '../../ts/bytes.js';
import { CONSENT_LENGTH, DEVICE_REGISTRY, isIdentityEncoding, verifyRegistry } from '../../ts/devices-format.js';
import {
  DEVICE_LINK, decodeLinkCode, encodeLinkCode, linkChannel, linkKeys, linkPayload, linkPrefix, linkTranscript,
} from '../../ts/link-format.js';
import type { LinkAccepted, LinkConfirmed, LinkFinished, LinkStarted } from '../../protocol/keystore.protocol.js';
import { addDevice, deviceConsent, encodingOf } from './devices.js';
import type { Store } from './store.js';

const X_WING_PUBLIC = 1216;
const X_WING_CIPHERTEXT = 1120;
const GCM = 12 + 16;
/** The largest registry (docs/DEVICES.md §3): 512 adds with 64-byte names. */
const MAX_REGISTRY = 2024 + DEVICE_REGISTRY.maxChanges * 8905;
const enc = new TextEncoder();
// ignoreBOM: a name's leading U+FEFF is kept, as the registry parser keeps it (docs/DEVICES.md §3).
const dec = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

interface NewSide {
  readonly role: 'new';
  readonly store: string;
  readonly expires: number;
  /** Forgets (and wipes) the link at `expires`, whether or not another link call comes. */
  timer?: ReturnType<typeof setTimeout>;
  readonly s: Uint8Array;
  readonly dk: Uint8Array;
  readonly offer: Uint8Array;
  readonly identity: string;
  readonly device: Uint8Array;
  readonly name: string;
  /** After `answer`: the user's `Enc(ID)` from the accept and the key of the welcome. */
  answered?: { readonly user: Uint8Array; readonly en: Uint8Array };
  /** While `answer` runs (it awaits the consent's signatures): a second answer is refused. */
  answering?: boolean;
}

interface ExistingSide {
  readonly role: 'existing';
  readonly store: string;
  readonly expires: number;
  timer?: ReturnType<typeof setTimeout>;
  readonly user: string;
  readonly ne: Uint8Array;
  readonly en: Uint8Array;
}

type Pending = NewSide | ExistingSide;

const links = new Map<string, Pending>();

function forget(id: string, p: Pending): void {
  if (links.get(id) === p) links.delete(id);
  clearTimeout(p.timer);
  if (p.role === 'new') wipe(p.s, p.dk, ...(p.answered ? [p.answered.en] : []));
  else wipe(p.ne, p.en);
}

/** Holds a pending link until it is used or `DEVICE_LINK.lifetimeMs` have passed. */
function keep(id: string, p: Pending): void {
  p.timer = setTimeout(() => forget(id, p), Math.max(0, p.expires - Date.now()));
  links.set(id, p);
}

function newId(): string {
  return bytesToHex(crypto.getRandomValues(new Uint8Array(16)));
}

/** The pending link `id` of this store in `role`: `KEY_NOT_FOUND` when unknown, expired, used up or another role's. */
function take<R extends Pending['role']>(s: Store, id: unknown, role: R): Extract<Pending, { role: R }> {
  if (typeof id !== 'string') throw new TypeError('link must be a link id');
  const p = links.get(id);
  // A timer forgets each link at its expiry; one that is due but not yet forgotten is gone too.
  if (p !== undefined && p.expires <= Date.now()) forget(id, p);
  if (p === undefined || p.expires <= Date.now() || p.store !== s.name || p.role !== role) {
    throw new VeilError('KEY_NOT_FOUND', `link ${id} is not a pending link of this keystore (unknown, used, or older than ${DEVICE_LINK.lifetimeMs / 60_000} minutes)`);
  }
  return p as Extract<Pending, { role: R }>;
}

/** New device: a fresh X-Wing key and code for its device identity `device`. */
export async function start(s: Store, device: string, name: string): Promise<LinkStarted> {
  const n = utf8('name', name, 0, DEVICE_REGISTRY.maxNameLength);
  const d = await encodingOf(s, device);
  const secret = crypto.getRandomValues(new Uint8Array(DEVICE_LINK.secretLength));
  const [dk, ek] = P.xWingKeygen();
  const offer = concatBytes([linkPrefix('offer'), ek]);
  const id = newId();
  // The reply's buffers are transferred to the page: the link keeps its own copy of the offer.
  keep(id, {
    role: 'new', store: s.name, expires: Date.now() + DEVICE_LINK.lifetimeMs, s: secret, dk, offer: offer.slice(), identity: d.id, device: d.identity, name: n,
  });
  return { id, code: encodeLinkCode(secret), channel: linkChannel(secret), offer };
}

/** Existing device (holding the user identity `user`): answers the offer found on the code's channel. */
export async function accept(s: Store, user: string, code: string, offer: Uint8Array): Promise<LinkAccepted> {
  const secret = decodeLinkCode(code);
  try {
    const u = await encodingOf(s, user);
    const ek = linkPayload('offer', offer, { exact: X_WING_PUBLIC });
    const { ciphertext, sharedSecret } = P.xWingEncapsulate(ek);
    const keys = linkKeys(sharedSecret, secret, linkTranscript(offer, ciphertext));
    wipe(sharedSecret);
    const head = concatBytes([linkPrefix('accept'), ciphertext]);
    const acceptMessage = concatBytes([head, P.encryptAesGcm(keys.u, u.identity, head)]);
    wipe(keys.u);
    const id = newId();
    keep(id, { role: 'existing', store: s.name, expires: Date.now() + DEVICE_LINK.lifetimeMs, user, ne: keys.ne, en: keys.en });
    return { id, channel: linkChannel(secret), accept: acceptMessage };
  } finally {
    wipe(secret);
  }
}

/**
 * New device: opens the user's `Enc(ID)` in the accept (`AUTHENTICATION_FAILED` for an accept not made
 * with this code), consents to being that user's device and returns the hello (its `Enc(ID)`, consent
 * and name, for the accept's sender only). A failed accept ends the link.
 */
export async function answer(s: Store, id: string, acceptMessage: Uint8Array): Promise<Uint8Array> {
  const p = take(s, id, 'new');
  if (p.answered !== undefined || p.answering === true) throw new VeilError('INVALID_STATE', `link ${id} has answered an accept already`);
  p.answering = true;
  let keys: { u: Uint8Array; ne: Uint8Array; en: Uint8Array } | undefined;
  try {
    const body = linkPayload('accept', acceptMessage, { exact: X_WING_CIPHERTEXT + GCM + DEVICE_REGISTRY.identityLength });
    const ct = body.subarray(0, X_WING_CIPHERTEXT);
    const ss = P.xWingDecapsulate(p.dk, ct);
    keys = linkKeys(ss, p.s, linkTranscript(p.offer, ct));
    wipe(ss);
    const user = P.decryptAesGcm(keys.u, body.subarray(X_WING_CIPHERTEXT), acceptMessage.subarray(0, 5 + X_WING_CIPHERTEXT));
    if (!isIdentityEncoding(user)) throw new VeilError('MALFORMED_INPUT', 'link accept: the user is not an Enc(ID) with flags 0x01');
    const consent = await deviceConsent(s, p.identity, user);
    if (links.get(id) !== p) throw new VeilError('KEY_NOT_FOUND', `link ${id} expired while it answered`);
    p.answered = { user, en: keys.en };
    wipe(p.s, p.dk); // the code's secret and the X-Wing key are not needed after the answer
    const name = enc.encode(p.name);
    return concatBytes([linkPrefix('hello'), P.encryptAesGcm(keys.ne, concatBytes([p.device, consent, Uint8Array.of(name.length), name]), linkPrefix('hello'))]);
  } catch (e) {
    forget(id, p);
    if (keys !== undefined) wipe(keys.en);
    throw e;
  } finally {
    p.answering = false;
    if (keys !== undefined) wipe(keys.u, keys.ne);
  }
}

/**
 * Existing device: opens the hello (`AUTHENTICATION_FAILED` for one not made with this code and
 * accept), adds the device with its consent to the user's registry (signed here, docs/DEVICES.md §5)
 * and seals the new registry for the new device. The link is used up either way.
 */
export async function confirm(s: Store, id: string, hello: Uint8Array, registry: Uint8Array | undefined): Promise<LinkConfirmed> {
  const p = take(s, id, 'existing');
  links.delete(id); // used up now: a concurrent second confirm finds nothing
  try {
    const fixed = DEVICE_REGISTRY.identityLength + CONSENT_LENGTH + 1;
    const sealed = linkPayload('hello', hello, { min: GCM + fixed, max: GCM + fixed + DEVICE_REGISTRY.maxNameLength });
    const plain = P.decryptAesGcm(p.ne, sealed, linkPrefix('hello'));
    const device = plain.slice(0, DEVICE_REGISTRY.identityLength);
    const consent = plain.slice(DEVICE_REGISTRY.identityLength, DEVICE_REGISTRY.identityLength + CONSENT_LENGTH);
    const len = plain[fixed - 1];
    const nameBytes = plain.subarray(fixed);
    if (!isIdentityEncoding(device) || len !== nameBytes.length) {
      throw new VeilError('MALFORMED_INPUT', 'link hello: not Enc(ID) ‖ consent ‖ u8(L) ‖ name');
    }
    let name: string;
    try {
      name = dec.decode(nameBytes);
    } catch {
      throw new VeilError('MALFORMED_INPUT', 'link hello: the name is not UTF-8');
    }
    const next = await addDevice(s, p.user, registry, device, consent, name);
    const welcome = concatBytes([linkPrefix('welcome'), P.encryptAesGcm(p.en, next, linkPrefix('welcome'))]);
    return { registry: next, device: { identityId: sessionIdentityId(device), identity: device, name }, welcome };
  } finally {
    forget(id, p);
  }
}

/**
 * New device: opens the welcome and verifies the registry it carries against the user `Enc(ID)` of
 * the accept, with this device active in it. Returns that `Enc(ID)` (pin it) and the registry.
 */
export function finish(s: Store, id: string, welcome: Uint8Array): LinkFinished {
  const p = take(s, id, 'new');
  if (p.answering === true) throw new VeilError('INVALID_STATE', `link ${id} is answering an accept`);
  try {
    if (p.answered === undefined) throw new VeilError('INVALID_STATE', `link ${id} has not answered an accept yet`);
    const sealed = linkPayload('welcome', welcome, { min: GCM + 1, max: GCM + MAX_REGISTRY });
    const registry = P.decryptAesGcm(p.answered.en, sealed, linkPrefix('welcome'));
    const user = p.answered.user;
    const view = verifyRegistry(registry, { user });
    const own = sessionIdentityId(p.device);
    if (!view.devices.some((d) => d.identityId === own)) {
      throw new VeilError('REGISTRY_INVALID', 'link welcome: the registry does not list this device as active', { details: { reason: 'UNKNOWN_DEVICE', index: 0 } });
    }
    return { user: user.slice(), registry };
  } finally {
    forget(id, p);
  }
}
