// The device registry (docs/DEVICES.md) in Node: the bytes built by hand from the document, the
// verifier's rules, and the attacks of the server that stores and serves the registry (add its own
// device, swap the user, drop or reorder changes, roll back, fork, splice another user's change,
// pass an app signature off as a registry signature), each refused. Changes are signed here with
// raw keys; the keystore worker's signing path is tests/playwright/devices.spec.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as api from '../../ts/index.js';
import { VeilError } from '../../protocol/errors.js';
import { parseRegistry } from '../../ts/devices-format.js';
import { bigEndian } from '../shared/outcome.js';

const enc = new TextEncoder();
const LABEL = enc.encode('veilkit-device-registry-v1');
const ID_LABEL = enc.encode('veilkit-session-identity-v1');

interface Person { ed: Uint8Array; edPub: Uint8Array; ml: Uint8Array; mlPub: Uint8Array; enc: Uint8Array }

/** `device`'s consent to being a device of `user`: Ed25519 ‖ ML-DSA-65 over label ‖ 0x03 ‖ Enc(U) ‖ Enc(D). */
function consentOf(device: Person, user: Uint8Array): Uint8Array {
  const m = cat(LABEL, Uint8Array.of(3), user, device.enc);
  return cat(api.signMessage(device.ed, m), api.mlDsaSign(device.ml, m, { context: LABEL }));
}

function cat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const be = bigEndian;

function person(): Person {
  const [ed, edPub] = api.generateEd25519Keypair();
  const [ml, mlPub] = api.mlDsaKeygen();
  const [, x] = api.generateX25519Keypair();
  return { ed, edPub, ml, mlPub, enc: api.encodeVerificationIdentity({ ed25519: edPub, x25519: x, mlDsa65: mlPub }) };
}

function nth<T>(a: readonly T[], i: number): T {
  const v = a[i];
  if (v === undefined) throw new Error(`no element ${i}`);
  return v;
}

const idOf = (e: Uint8Array): Uint8Array => api.sha256(cat(ID_LABEL, e));
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const root = (user: Uint8Array): Uint8Array => api.sha256(cat(LABEL, Uint8Array.of(0), user));
const hashOf = (change: Uint8Array): Uint8Array => api.sha256(cat(LABEL, Uint8Array.of(1), change));

/**
 * A change signed by `signer` (docs/DEVICES.md §2), built from the document alone. An add carries
 * `consent`, else the consent of `device` (a Person) to `user` (default: the signer).
 */
function change(signer: Person, c: {
  action: 1 | 2; seq: number; time: number; prev: Uint8Array; device: Person; name?: string; id?: Uint8Array; consent?: Uint8Array; user?: Uint8Array;
}): Uint8Array {
  const id = c.id ?? idOf(c.device.enc);
  const name = enc.encode(c.name ?? '');
  const consent = c.consent ?? consentOf(c.device, c.user ?? signer.enc);
  const body = c.action === 1
    ? cat(Uint8Array.of(1), be(c.seq, 4), be(c.time, 8), c.prev, id, c.device.enc, consent, Uint8Array.of(name.length), name)
    : cat(Uint8Array.of(2), be(c.seq, 4), be(c.time, 8), c.prev, id);
  const signed = cat(LABEL, Uint8Array.of(2), body);
  return cat(body, api.signMessage(signer.ed, signed), api.mlDsaSign(signer.ml, signed, { context: LABEL }));
}

function registry(user: Uint8Array, changes: Uint8Array[]): Uint8Array {
  return cat(enc.encode('VKDR'), Uint8Array.of(1), user, be(changes.length, 2), ...changes);
}

/** A user with devices d1 and d2 added and d1 revoked: the three changes and their hashes. */
function story(): { user: Person; d1: Person; d2: Person; changes: Uint8Array[]; hashes: Uint8Array[] } {
  const user = person();
  const d1 = person();
  const d2 = person();
  const changes: Uint8Array[] = [];
  const hashes: Uint8Array[] = [];
  const push = (c: Uint8Array): void => {
    changes.push(c);
    hashes.push(hashOf(c));
  };
  push(change(user, { action: 1, seq: 1, time: 1_000, prev: root(user.enc), device: d1, name: 'laptop' }));
  push(change(user, { action: 1, seq: 2, time: 2_000, prev: nth(hashes, 0), device: d2, name: 'phone ☎' }));
  push(change(user, { action: 2, seq: 3, time: 3_000, prev: nth(hashes, 1), device: d1 }));
  return { user, d1, d2, changes, hashes };
}

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'accepted';
  } catch (e) {
    if (!(e instanceof VeilError)) return (e as Error).name;
    const d = e.details as { reason?: string; index?: number } | undefined;
    return d?.reason === undefined ? e.code : `${e.code}/${d.reason}@${String(d.index)}`;
  }
}

test('a registry built byte by byte from DEVICES.md verifies: active and revoked devices, times, names, head', async () => {
  await api.init();
  const { user, d1, d2, changes, hashes } = story();
  const r = registry(user.enc, changes);
  const view = await api.verifyDeviceRegistry(r, { user: user.enc });
  assert.equal(view.user.identityId, hex(idOf(user.enc)));
  assert.deepEqual(view.head, { count: 3, hash: hex(nth(hashes, 2)) });
  assert.equal(view.updatedAt, 3_000);
  assert.deepEqual(view.devices.map((d) => [d.identityId, d.name, d.addedAt, d.revokedAt]), [[hex(idOf(d2.enc)), 'phone ☎', 2_000, undefined]]);
  assert.deepEqual(nth(view.devices, 0).identity, d2.enc);
  assert.deepEqual(view.revoked.map((d) => [d.identityId, d.name, d.addedAt, d.revokedAt]), [[hex(idOf(d1.enc)), 'laptop', 1_000, 3_000]]);
  assert.equal(api.findDevice(view, hex(idOf(d2.enc)))?.name, 'phone ☎');
  assert.equal(api.findDevice(view, hex(idOf(d1.enc))), undefined);
  // Pinned at change 2, the same registry verifies to the same view (changes 1-2 checked by the pinned hash).
  const again = await api.verifyDeviceRegistry(r, { user: user.enc, pinned: { count: 2, hash: hex(nth(hashes, 1)) } });
  assert.deepEqual(again, view);
  assert.equal(api.DEVICE_REGISTRY.label, 'veilkit-device-registry-v1');
});

test('attack: the server appends a device of its own (signed with its keys, or with no valid signature) and it is refused', async () => {
  await api.init();
  const { user, changes, hashes } = story();
  const server = person();
  const mine = person();
  const forged = change(server, { action: 1, seq: 4, time: 4_000, prev: nth(hashes, 2), device: mine, name: 'laptop' });
  assert.equal(await refusal(api.verifyDeviceRegistry(registry(user.enc, [...changes, forged]), { user: user.enc })), 'REGISTRY_INVALID/BAD_SIGNATURE@4');
  // Half-forged: the user's real Ed25519 signature of another change cannot be moved; a real ML-DSA one neither.
  const genuine = change(user, { action: 1, seq: 4, time: 4_000, prev: nth(hashes, 2), device: person() });
  const halfBody = forged.subarray(0, forged.length - 64 - 3309);
  const mixed = cat(halfBody, genuine.subarray(genuine.length - 3309 - 64, genuine.length - 3309), forged.subarray(forged.length - 3309));
  assert.equal(await refusal(api.verifyDeviceRegistry(registry(user.enc, [...changes, mixed]), { user: user.enc })), 'REGISTRY_INVALID/BAD_SIGNATURE@4');
});

test('attack: the server serves a registry of its own user key (same devices) and the pinned user refuses it', async () => {
  await api.init();
  const { user, d2 } = story();
  const server = person();
  const fake = registry(server.enc, [change(server, { action: 1, seq: 1, time: 1, prev: root(server.enc), device: d2 })]);
  assert.equal(await refusal(api.verifyDeviceRegistry(fake, { user: user.enc })), 'REGISTRY_INVALID/USER_MISMATCH@0');
  // The user's Enc(ID) in the header with the server's changes: the signatures are the user's to make.
  const swapped = registry(user.enc, [change(server, { action: 1, seq: 1, time: 1, prev: root(user.enc), device: d2 })]);
  assert.equal(await refusal(api.verifyDeviceRegistry(swapped, { user: user.enc })), 'REGISTRY_INVALID/BAD_SIGNATURE@1');
});

test('attack: another user claims a device that is not theirs (its consent to its real user, or none) and it is refused', async () => {
  await api.init();
  const { user: alice, d2: phone } = story();
  const mallory = person();
  const claim = (consent: Uint8Array): Promise<string> => refusal(api.verifyDeviceRegistry(
    registry(mallory.enc, [change(mallory, { action: 1, seq: 1, time: 1, prev: root(mallory.enc), device: phone, consent })]), { user: mallory.enc },
  ));
  // Mallory signs the add herself; the phone's real consent names Alice, and Mallory cannot make one naming her.
  assert.equal(await claim(consentOf(phone, alice.enc)), 'REGISTRY_INVALID/BAD_CONSENT@1');
  assert.equal(await claim(consentOf(mallory, mallory.enc)), 'REGISTRY_INVALID/BAD_CONSENT@1');
  assert.equal(await claim(new Uint8Array(3373)), 'REGISTRY_INVALID/BAD_CONSENT@1');
  // Half of a real consent is not enough: Ed25519 from the phone, ML-DSA-65 forged (and the other way round).
  const real = consentOf(phone, mallory.enc);
  const other = consentOf(person(), mallory.enc);
  assert.equal(await claim(cat(real.subarray(0, 64), other.subarray(64))), 'REGISTRY_INVALID/BAD_CONSENT@1');
  assert.equal(await claim(cat(other.subarray(0, 64), real.subarray(64))), 'REGISTRY_INVALID/BAD_CONSENT@1');
  // With the phone's consent to her, the claim verifies: consent is what a device gives, once per user.
  assert.equal(await claim(real), 'accepted');
});

test('attack: the server hides the revocation (drops the newest change) from a client that saw it: STATE_ROLLBACK; a fork of the user key: FORK', async () => {
  await api.init();
  const { user, changes, hashes } = story();
  const dropped = registry(user.enc, changes.slice(0, 2));
  // Without a pin a prefix is a valid older registry (docs/DEVICES.md §4: what pins are for).
  assert.equal((await api.verifyDeviceRegistry(dropped, { user: user.enc })).devices.length, 2);
  const pinned = { count: 3, hash: hex(nth(hashes, 2)) };
  assert.equal(await refusal(api.verifyDeviceRegistry(dropped, { user: user.enc, pinned })), 'STATE_ROLLBACK');
  // Two different third changes, both signed by the user: a client pinned to one refuses the other.
  const other = change(user, { action: 1, seq: 3, time: 3_000, prev: nth(hashes, 1), device: person() });
  assert.equal(await refusal(api.verifyDeviceRegistry(registry(user.enc, [...changes.slice(0, 2), other]), { user: user.enc, pinned })), 'REGISTRY_INVALID/FORK@3');
  // A longer registry that forks below the pin is refused too.
  const longer = [...changes.slice(0, 2), other, change(user, { action: 1, seq: 4, time: 4_000, prev: hashOf(other), device: person() })];
  assert.equal(await refusal(api.verifyDeviceRegistry(registry(user.enc, longer), { user: user.enc, pinned })), 'REGISTRY_INVALID/FORK@3');
});

test('attack: the server drops, reorders or splices changes (from another user\'s registry) and the chain refuses them', async () => {
  await api.init();
  const { user, changes } = story();
  assert.equal(await refusal(api.verifyDeviceRegistry(registry(user.enc, [nth(changes, 0), nth(changes, 2)]), { user: user.enc })), 'REGISTRY_INVALID/BAD_SEQUENCE@2');
  assert.equal(await refusal(api.verifyDeviceRegistry(registry(user.enc, [nth(changes, 1), nth(changes, 0), nth(changes, 2)]), { user: user.enc })), 'REGISTRY_INVALID/BAD_SEQUENCE@1');
  // Dropping the middle change and renumbering would need the user's signature; the original signed prev links break.
  const other = story();
  const spliced = registry(user.enc, [nth(changes, 0), nth(other.changes, 1)]);
  assert.equal(await refusal(api.verifyDeviceRegistry(spliced, { user: user.enc })), 'REGISTRY_INVALID/BAD_PREV_HASH@2');
  // Another user's whole first change (its prev is that user's root) in this registry.
  assert.equal(await refusal(api.verifyDeviceRegistry(registry(user.enc, [nth(other.changes, 0)]), { user: user.enc })), 'REGISTRY_INVALID/BAD_PREV_HASH@1');
});

test('attack: an app signature over a change\'s body (the keystore\'s sign / signHybrid) is not a registry signature', async () => {
  await api.init();
  const { user, changes, hashes } = story();
  const device = person();
  const body = cat(Uint8Array.of(1), be(4, 4), be(4_000, 8), nth(hashes, 2), idOf(device.enc), device.enc, consentOf(device, user.enc), Uint8Array.of(0));
  for (const message of [body, cat(LABEL, Uint8Array.of(2), body)]) {
    // What `sign` / `signHybrid` produce: the app label first, the app context for ML-DSA-65.
    const signed = api.appSignatureMessage(message);
    const forged = cat(body, api.signMessage(user.ed, signed), api.mlDsaSign(user.ml, signed, { context: enc.encode('veilkit-app-signature-v1') }));
    assert.equal(await refusal(api.verifyDeviceRegistry(registry(user.enc, [...changes, forged]), { user: user.enc })), 'REGISTRY_INVALID/BAD_SIGNATURE@4');
  }
});

test('the rules: revoked devices never return, revoke names an active device, times never decrease, ids match, the user is no device', async () => {
  await api.init();
  const { user, d1, changes, hashes } = story();
  const next = (c: Parameters<typeof change>[1]): Promise<string> => refusal(api.verifyDeviceRegistry(registry(user.enc, [...changes, change(user, c)]), { user: user.enc }));
  const base = { seq: 4, time: 4_000, prev: nth(hashes, 2) };
  assert.equal(await next({ ...base, action: 1, device: d1 }), 'REGISTRY_INVALID/DUPLICATE_DEVICE@4');
  assert.equal(await next({ ...base, action: 2, device: d1 }), 'REGISTRY_INVALID/ALREADY_REVOKED@4');
  assert.equal(await next({ ...base, action: 2, device: person() }), 'REGISTRY_INVALID/UNKNOWN_DEVICE@4');
  assert.equal(await next({ ...base, time: 2_999, action: 1, device: person() }), 'REGISTRY_INVALID/TIMESTAMP_DECREASED@4');
  assert.equal(await next({ ...base, action: 1, device: person(), id: idOf(person().enc) }), 'REGISTRY_INVALID/DEVICE_ID_MISMATCH@4');
  assert.equal(await next({ ...base, action: 1, device: user }), 'REGISTRY_INVALID/USER_AS_DEVICE@4');
  assert.equal(await next({ ...base, seq: 5, action: 1, device: person() }), 'REGISTRY_INVALID/BAD_SEQUENCE@4');
  assert.equal(await next({ ...base, time: 3_000, action: 1, device: person(), name: 'x'.repeat(64) }), 'accepted');
});

test('the parser is canonical and total: every truncation, a trailing byte, bad lengths, names and flags are MALFORMED; any flipped byte is refused', async () => {
  await api.init();
  const { user, d2, changes } = story();
  const r = registry(user.enc, changes);
  const code = async (b: Uint8Array): Promise<string> => refusal(api.verifyDeviceRegistry(b, { user: user.enc }));
  for (const n of [0, 3, 4, 5, 2021, 2023, 2024, 2024 + 76, 2024 + 77, nth(changes, 0).length + 2024 - 1, r.length - 1]) {
    assert.match(await code(r.subarray(0, n)), /^REGISTRY_INVALID\/MALFORMED@/, `truncated to ${n}`);
  }
  assert.equal(await code(cat(r, Uint8Array.of(0))), 'REGISTRY_INVALID/MALFORMED@0');
  const withCount = (n: number): Uint8Array => cat(r.subarray(0, 2022), be(n, 2), r.subarray(2024));
  assert.equal(await code(withCount(0)), 'REGISTRY_INVALID/MALFORMED@0');
  assert.equal(await code(withCount(513)), 'REGISTRY_INVALID/MALFORMED@0');
  assert.equal(await code(withCount(2)), 'REGISTRY_INVALID/MALFORMED@0');
  assert.equal(await code(withCount(4)), 'REGISTRY_INVALID/MALFORMED@4');
  const bad = (c: Uint8Array): Promise<string> => code(registry(user.enc, [c]));
  const first = (o: { device?: Person; name?: string }): Uint8Array => change(user, { action: 1, seq: 1, time: 1, prev: root(user.enc), device: o.device ?? d2, ...(o.name === undefined ? {} : { name: o.name }) });
  assert.equal(await bad(first({ name: 'y'.repeat(65) })), 'REGISTRY_INVALID/MALFORMED@1');
  const classical = cat(Uint8Array.of(0), d2.enc.subarray(1));
  assert.equal(await bad(first({ device: { ...d2, enc: classical } })), 'REGISTRY_INVALID/MALFORMED@1');
  const badUtf8 = first({ name: 'ab' });
  badUtf8[77 + 2017 + 3373 + 1] = 0xc3; // a lone lead byte
  assert.equal(await bad(badUtf8), 'REGISTRY_INVALID/MALFORMED@1');
  const action3 = first({});
  action3[0] = 3;
  assert.equal(await bad(action3), 'REGISTRY_INVALID/MALFORMED@1');
  const time = first({});
  time.set([0x00, 0x20, 0, 0, 0, 0, 0, 0], 5); // 2^53
  assert.equal(await bad(time), 'REGISTRY_INVALID/MALFORMED@1');
  assert.equal(await code(cat(enc.encode('VKDX'), r.subarray(4))), 'REGISTRY_INVALID/MALFORMED@0');
  assert.equal(await code(cat(r.subarray(0, 4), Uint8Array.of(2), r.subarray(5))), 'REGISTRY_INVALID/MALFORMED@0');
  // Every byte of the header and of each body, and every 97th byte of the signatures: flipped, never accepted.
  const parsed = parseRegistry(r);
  let at = 2024;
  const positions: number[] = [];
  for (let i = 0; i < 2024; i += i < 40 || i > 2000 ? 1 : 13) positions.push(i);
  for (const c of parsed.changes) {
    for (let i = 0; i < c.body.length; i += i < 120 || i > c.body.length - 80 ? 1 : 17) positions.push(at + i);
    for (let i = c.body.length; i < c.bytes.length; i += 97) positions.push(at + i);
    at += c.bytes.length;
  }
  for (const p of positions) {
    const m = r.slice();
    m[p] = (m[p] ?? 0) ^ 0x01;
    const got = await code(m);
    assert.match(got, /^REGISTRY_INVALID\//, `byte ${p} flipped: ${got}`);
  }
});

test('argument checks before any work: the user is an Enc(ID) with ML-DSA-65, a pin is a head', async () => {
  await api.init();
  const { user, changes } = story();
  const r = registry(user.enc, changes);
  assert.equal(await refusal(api.verifyDeviceRegistry(r, { user: user.enc.subarray(1) })), 'INVALID_LENGTH');
  await assert.rejects(api.verifyDeviceRegistry(r, { user: user.enc, pinned: { count: 0, hash: '00'.repeat(32) } }), TypeError);
  await assert.rejects(api.verifyDeviceRegistry(r, { user: user.enc, pinned: { count: 1, hash: 'AB'.repeat(32) } }), TypeError);
  await assert.rejects(api.verifyDeviceRegistry('x' as never, { user: user.enc }), TypeError);
  await assert.rejects(api.verifyDeviceRegistry(r, null as never), TypeError);
});

test('link codes: 16 bytes as 26 base32 characters; typed with spaces, dashes or lower case; anything else INVALID_PARAMETER', async () => {
  await api.init();
  const { encodeLinkCode, decodeLinkCode, linkChannel } = await import('../../ts/link-format.js');
  for (let i = 0; i < 200; i++) {
    const s = crypto.getRandomValues(new Uint8Array(16));
    const code = encodeLinkCode(s);
    assert.match(code, /^[A-Z2-7]{26}$/);
    assert.deepEqual(decodeLinkCode(code), s);
    const typed = code.toLowerCase().replace(/(.{4})/g, '$1 - ');
    assert.deepEqual(decodeLinkCode(typed), s);
    assert.equal(await api.linkChannelOf(typed), linkChannel(s));
  }
  assert.equal(encodeLinkCode(new Uint8Array(16)), 'A'.repeat(26));
  assert.equal(encodeLinkCode(new Uint8Array(16).fill(0xff)), '7'.repeat(25) + '4');
  // The alphabet and bit order of RFC 4648 base32 (Python's base64.b32encode of the same 16 bytes, padding dropped).
  assert.equal(encodeLinkCode(enc.encode('foobarfoobarfoob')), 'MZXW6YTBOJTG633CMFZGM33PMI');
  const code = (c: string): string => {
    try {
      decodeLinkCode(c);
      return 'accepted';
    } catch (e) {
      return e instanceof VeilError ? `${e.code}/${String(e.details.reason)}` : (e as Error).name;
    }
  };
  assert.equal(code('A'.repeat(25)), 'INVALID_PARAMETER/LINK_CODE');
  assert.equal(code('A'.repeat(27)), 'INVALID_PARAMETER/LINK_CODE');
  assert.equal(code('A'.repeat(25) + '1'), 'INVALID_PARAMETER/LINK_CODE');
  assert.equal(code('A'.repeat(25) + 'B'), 'INVALID_PARAMETER/LINK_CODE'); // nonzero padding bits
  assert.equal(code(5 as never), 'TypeError');
});

test('in an isolated keystore, every device request is a manager request (an app page can neither add, revoke, consent nor link)', async () => {
  const { managerOnly } = await import('../../ts/keystore-isolated.js');
  const body = (type: string): never => ({ type }) as never;
  for (const t of [
    'keystore/registry-add', 'keystore/registry-revoke', 'keystore/registry-last', 'keystore/device-consent',
    'keystore/link-start', 'keystore/link-accept', 'keystore/link-answer', 'keystore/link-confirm', 'keystore/link-finish',
  ]) assert.equal(managerOnly(body(t)), true, t);
  assert.equal(managerOnly(body('keystore/sign')), false);
});

test('vectors/devices/registry.json: veilkit\'s verifier gives every case\'s stated result (the same file an independent verifier checks)', async () => {
  await api.init();
  const { readFileSync } = await import('node:fs');
  const file = JSON.parse(readFileSync(new URL('../../../vectors/devices/registry.json', import.meta.url), 'utf8')) as {
    cases: { name: string; user: string; pinned?: { count: number; hash: string }; registry: string; expected: { valid: boolean; reason?: string; index?: number; count?: number; head?: string; devices?: unknown[]; revoked?: unknown[] } }[];
  };
  assert.ok(file.cases.length >= 20);
  for (const c of file.cases) {
    const registry = Uint8Array.from(Buffer.from(c.registry, 'hex'));
    const user = Uint8Array.from(Buffer.from(c.user, 'hex'));
    const options = { user, ...(c.pinned === undefined ? {} : { pinned: c.pinned }) };
    if (c.expected.valid) {
      const v = await api.verifyDeviceRegistry(registry, options);
      assert.deepEqual({
        valid: true, count: v.head.count, head: v.head.hash,
        devices: v.devices.map((d) => ({ identityId: d.identityId, name: d.name, addedAt: d.addedAt })),
        revoked: v.revoked.map((d) => ({ identityId: d.identityId, name: d.name, addedAt: d.addedAt, revokedAt: d.revokedAt })),
      }, c.expected, c.name);
    } else {
      const want = c.expected.reason === 'STATE_ROLLBACK' ? 'STATE_ROLLBACK' : `REGISTRY_INVALID/${String(c.expected.reason)}@${String(c.expected.index)}`;
      assert.equal(await refusal(api.verifyDeviceRegistry(registry, options)), want, c.name);
    }
  }
});
