// Writes vectors/devices/registry.json: device registries (docs/DEVICES.md §2) made with veilkit's
// encoder and the primitives, one valid story and one case per refusal of §3, each with the result
// §3 gives. Run from the repository root after a build: node vectors/devices/make.mjs
// Checked by tests/node/devices.test.ts (veilkit's verifier) and vectors/devices/crosscheck_pyca.py
// (an independent verifier written from DEVICES.md alone).
import { writeFileSync } from 'node:fs';
import * as api from '../../dist/ts/index.js';
import * as F from '../../dist/ts/devices-format.js';
import { sessionIdentityId } from '../../dist/ts/session/core.js';

await api.init();
const enc = new TextEncoder();
const LABEL = enc.encode(F.DEVICE_REGISTRY.label);
const hex = (b) => Buffer.from(b).toString('hex');
const cat = (...p) => Buffer.concat(p.map((x) => Buffer.from(x)));

function person() {
  const [ed, edPub] = api.generateEd25519Keypair();
  const [ml, mlPub] = api.mlDsaKeygen();
  const [, x] = api.generateX25519Keypair();
  return { ed, ml, enc: api.encodeVerificationIdentity({ ed25519: edPub, x25519: x, mlDsa65: mlPub }) };
}
const consentOf = (d, user) => {
  const m = F.consentBytes(user, d.enc);
  return cat(api.signMessage(d.ed, m), api.mlDsaSign(d.ml, m, { context: LABEL }));
};
function change(signer, c) {
  const body = c.action === 1
    ? F.encodeBody({ action: 1, seq: c.seq, time: c.time, prev: c.prev, device: c.device.enc, consent: c.consent ?? consentOf(c.device, c.user ?? signer.enc), name: c.name ?? '' })
    : F.encodeBody({ action: 2, seq: c.seq, time: c.time, prev: c.prev, device: sessionIdentityId(c.device.enc) });
  const m = F.signedBytes(body);
  return cat(body, api.signMessage(signer.ed, m), api.mlDsaSign(signer.ml, m, { context: LABEL }));
}
const h = (c) => F.changeHash(c);

const user = person();
const d1 = person();
const d2 = person();
const c1 = change(user, { action: 1, seq: 1, time: 1_700_000_000_000, prev: F.registryRoot(user.enc), device: d1, name: 'laptop' });
const c2 = change(user, { action: 1, seq: 2, time: 1_700_000_100_000, prev: h(c1), device: d2, name: 'téléphone' });
const c3 = change(user, { action: 2, seq: 3, time: 1_700_000_200_000, prev: h(c2), device: d1 });
const base = [c1, c2, c3];
const reg = (changes, u = user.enc) => F.encodeRegistry(u, changes);
const next = (c) => change(user, { seq: 4, time: 1_700_000_300_000, prev: h(c3), ...c });
const cases = [];
const add = (name, registry, expected, verifyUser = user.enc, pinned = undefined) => cases.push({
  name, user: hex(verifyUser), ...(pinned === undefined ? {} : { pinned }), registry: hex(registry), expected,
});

const view = F.verifyRegistry(reg(base), { user: user.enc });
add('valid: two adds and a revoke', reg(base), {
  valid: true, count: view.head.count, head: view.head.hash,
  devices: view.devices.map((d) => ({ identityId: d.identityId, name: d.name, addedAt: d.addedAt })),
  revoked: view.revoked.map((d) => ({ identityId: d.identityId, name: d.name, addedAt: d.addedAt, revokedAt: d.revokedAt })),
});
const other = person();
add('another user pinned', reg(base), { valid: false, reason: 'USER_MISMATCH', index: 0 }, other.enc);
add('a change signed by another key', reg([...base, change(other, { action: 1, seq: 4, time: 1_700_000_300_000, prev: h(c3), device: person(), user: user.enc })]), { valid: false, reason: 'BAD_SIGNATURE', index: 4 });
add('a device that consented to another user', reg([...base, next({ action: 1, device: person(), user: other.enc })]), { valid: false, reason: 'BAD_CONSENT', index: 4 });
add('a revoked device added again', reg([...base, next({ action: 1, device: d1 })]), { valid: false, reason: 'DUPLICATE_DEVICE', index: 4 });
add('an active device added again', reg([...base, next({ action: 1, device: d2 })]), { valid: false, reason: 'DUPLICATE_DEVICE', index: 4 });
add('a revoked device revoked again', reg([...base, next({ action: 2, device: d1 })]), { valid: false, reason: 'ALREADY_REVOKED', index: 4 });
add('a device never added revoked', reg([...base, next({ action: 2, device: person() })]), { valid: false, reason: 'UNKNOWN_DEVICE', index: 4 });
add('the user as its own device', reg([...base, next({ action: 1, device: user })]), { valid: false, reason: 'USER_AS_DEVICE', index: 4 });
add('a time before the previous change', reg([...base, next({ action: 1, device: person(), time: 1_700_000_199_999 })]), { valid: false, reason: 'TIMESTAMP_DECREASED', index: 4 });
add('a sequence number skipped', reg([...base, next({ action: 1, device: person(), seq: 5 })]), { valid: false, reason: 'BAD_SEQUENCE', index: 4 });
add('a change dropped from the middle', reg([c1, c3]), { valid: false, reason: 'BAD_SEQUENCE', index: 2 });
add('a change linked to the wrong previous change', reg([...base, next({ action: 1, device: person(), prev: h(c2) })]), { valid: false, reason: 'BAD_PREV_HASH', index: 4 });
{
  // The device id of another device in front of this Enc(D), signed: DEVICE_ID_MISMATCH.
  const d = person();
  const body = Buffer.from(F.encodeBody({ action: 1, seq: 4, time: 1_700_000_300_000, prev: h(c3), device: d.enc, consent: consentOf(d, user.enc), name: '' }));
  Buffer.from(sessionIdentityId(person().enc), 'hex').copy(body, 45);
  const m = F.signedBytes(body);
  add('a device id that is not its Enc(ID)\'s', reg([...base, cat(body, api.signMessage(user.ed, m), api.mlDsaSign(user.ml, m, { context: LABEL }))]), { valid: false, reason: 'DEVICE_ID_MISMATCH', index: 4 });
}
add('a trailing byte', cat(reg(base), [0]), { valid: false, reason: 'MALFORMED', index: 0 });
add('truncated inside change 3', reg(base).subarray(0, reg(base).length - 1), { valid: false, reason: 'MALFORMED', index: 3 });
add('a name of 65 bytes', reg([...base, next({ action: 1, device: person(), name: 'x'.repeat(64) })]).fill(65, 2024 + c1.length + c2.length + c3.length + 77 + 2017 + 3373, 2024 + c1.length + c2.length + c3.length + 77 + 2017 + 3373 + 1), { valid: false, reason: 'MALFORMED', index: 4 });

// Pinned heads (§3 steps 3, 4.4, 4.5): the same registry pinned at change 2, an older one, a fork.
const pin2 = { count: 2, hash: hex(h(c2)) };
const pin3 = { count: 3, hash: hex(h(c3)) };
add('valid, pinned at change 2', reg(base), cases[0].expected, user.enc, pin2);
add('older than the pinned head', reg([c1, c2]), { valid: false, reason: 'STATE_ROLLBACK', index: 0 }, user.enc, pin3);
const c3b = change(user, { action: 1, seq: 3, time: 1_700_000_200_000, prev: h(c2), device: person() });
add('another change 3 than the pinned one (a fork)', reg([c1, c2, c3b, change(user, { action: 2, seq: 4, time: 1_700_000_300_000, prev: h(c3b), device: d2 })]), { valid: false, reason: 'FORK', index: 3 }, user.enc, pin3);

writeFileSync(new URL('./registry.json', import.meta.url), `${JSON.stringify({
  about: 'Device registries of docs/DEVICES.md §2 with the result of its §3 verification against `user`. Made by vectors/devices/make.mjs (veilkit\'s encoder, fresh keys each run).',
  cases,
}, null, 1)}\n`);
console.log(`vectors/devices/registry.json: ${cases.length} cases`);
