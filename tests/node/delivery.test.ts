// The delivery service (ts/group/delivery.ts) in Node, on messages made by veilkit's group module:
// the first commit of an epoch wins and the loser is told the group's epoch; the same post twice is one
// entry; a welcome reaches exactly the devices whose key packages it names, with the commit's sequence
// number; the key package directory hands one package per device once and keeps the last; registry
// records only grow; bad input is a typed refusal; the HTTP handler answers the same over JSON.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, resolve } from 'node:path';
import { DeliveryService, memoryDeliveryStore, deliveryHandler, type DeliveryEvent } from '../../ts/group/delivery.js';
import { base64urlDecode, base64urlEncode } from '../../ts/bytes.js';
import { errorCode } from '../shared/outcome.js';
import type { GroupGlue, MlsClient } from '../shared/group-interop.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const glueDir = resolve(ROOT, 'dist/ts/wasm-group');
const glue = (await import(pathToFileURL(resolve(glueDir, 'veilkit_group.js')).href)) as GroupGlue;
glue.initSync({ module: readFileSync(resolve(glueDir, 'veilkit_group_bg.wasm')) });
const te = new TextEncoder();
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** A registry-shaped record: "VKDR" ‖ 1 ‖ Enc(U) (2,017 zero bytes here) ‖ u16 count (the server reads no more). */
function registry(count: number): Uint8Array {
  const r = new Uint8Array(4 + 1 + 2017 + 2 + 10);
  r.set(te.encode('VKDR'));
  r[4] = 1;
  r[2022] = count >> 8;
  r[2023] = count & 0xff;
  return r;
}

test('DeliveryService: epoch order, idempotent posts, welcomes by key package, the directory, registries', async () => {
  const [a, b, c] = ['alice', 'bob', 'carol'].map((n) => new glue.MlsClient(te.encode(n))) as [MlsClient, MlsClient, MlsClient];
  const store = memoryDeliveryStore();
  const ds = new DeliveryService(store);
  const events: DeliveryEvent[] = [];
  const off = ds.subscribe((e) => events.push(e));
  try {
    // Directory: bob's phone and laptop, carol's one device.
    assert.equal(await ds.publishKeyPackages('bob', 'bob-phone', [b.createKeyPackage(0x004d, false), b.createKeyPackage(0x004d, false)]), 2);
    assert.equal(await ds.publishKeyPackages('carol', 'carol-1', [c.createKeyPackage(0x004d, false)]), 1);
    assert.equal(await ds.publishKeyPackages('carol', 'carol-1', [c.createKeyPackage(0x004d, false)]), 2);
    assert.equal(await errorCode(ds.publishKeyPackages('bob', 'bob-phone', [te.encode('not a key package')])), 'MALFORMED_INPUT');
    assert.equal(await errorCode(ds.publishKeyPackages('bob/../x', 'd', [])), 'INVALID_PARAMETER');
    // Names that would reach Object.prototype in a server's tables are not names.
    for (const bad of ['__proto__', 'constructor', 'prototype']) {
      assert.equal(await errorCode(ds.publishKeyPackages(bad, 'd', [c.createKeyPackage(0x004d, false)])), 'INVALID_PARAMETER');
      assert.equal(await errorCode(ds.mailbox(bad)), 'INVALID_PARAMETER');
    }
    assert.equal(({} as Record<string, unknown>).d, undefined);
    // A key package republished under another device stays its first publisher's (its welcomes go there).
    const carolsOwn = c.createKeyPackage(0x004d, false);
    await ds.publishKeyPackages('carol', 'carol-1', [carolsOwn]);
    assert.equal(await ds.publishKeyPackages('mallory', 'mallory-1', [carolsOwn]), 0);
    assert.deepEqual(await ds.takeKeyPackages('mallory'), []);
    // A device of bob's named alone (a newly linked device, added to bob's groups by another of his devices).
    assert.equal(await ds.publishKeyPackages('bob', 'bob-laptop', [b.createKeyPackage(0x004d, false), b.createKeyPackage(0x004d, false)]), 2);
    assert.deepEqual((await ds.takeKeyPackages('bob', ['bob-laptop'])).map((k) => k.device), ['bob-laptop']);
    assert.deepEqual(await ds.takeKeyPackages('bob', ['bob-tablet']), []);
    assert.equal(await errorCode(ds.takeKeyPackages('bob', ['../x'])), 'INVALID_PARAMETER');
    const forBob = await ds.takeKeyPackages('bob');
    assert.deepEqual(forBob.map((k) => k.device).sort(), ['bob-laptop', 'bob-phone']);
    const forCarol = await ds.takeKeyPackages('carol');
    // Carol's last package stays (last resort): handed out again.
    assert.equal((await ds.takeKeyPackages('carol')).length, 1);
    assert.deepEqual(await ds.takeKeyPackages('nobody'), []);

    const id = a.createGroup(0x004d);
    const gid = hex(id);
    const add = a.add(id, [forBob[0]!.keyPackage, forCarol[0]!.keyPackage]);
    assert.ok(add.welcome);
    // A welcome with a message that is not a commit, or alone: refused.
    assert.equal(await errorCode(ds.post(gid, add.welcome)), 'MALFORMED_INPUT');
    assert.equal(await errorCode(ds.post('00'.repeat(16), add.commit)), 'INVALID_PARAMETER');
    const p1 = await ds.post(gid, add.commit, add.welcome);
    assert.deepEqual(p1, { accepted: true, seq: 1, epoch: 0, duplicate: false });
    // The same post again (an answer lost on the way): the same entry, no second welcome (each mailbox
    // takes a commit's welcome once; the post delivers it again if a failure came between log and mailbox).
    assert.deepEqual(await ds.post(gid, add.commit, add.welcome), { accepted: true, seq: 1, epoch: 0, duplicate: true });
    assert.equal((await ds.mailbox('bob-phone')).length, 1);
    a.mergePending(id);
    const bobBox = await ds.mailbox('bob-phone');
    assert.deepEqual(bobBox.map((m) => ({ seq: m.seq, groupId: m.groupId, commitSeq: m.commitSeq })), [{ seq: 1, groupId: gid, commitSeq: 1 }]);
    assert.equal((await ds.mailbox('carol-1')).length, 1);
    assert.deepEqual(await ds.mailbox('bob-laptop'), []);
    b.join(bobBox[0]!.welcome);
    c.join(add.welcome);

    // Two commits of epoch 1: bob's first wins; carol's is refused with the group's epoch.
    const ub = b.update(id);
    const uc = c.update(id);
    assert.deepEqual(await ds.post(gid, ub.commit), { accepted: true, seq: 2, epoch: 1, duplicate: false });
    assert.deepEqual(await ds.post(gid, uc.commit), { accepted: false, reason: 'WRONG_EPOCH', epoch: 2 });
    // A message of the old epoch is refused too.
    const stale = a.encrypt(id, te.encode('stale'), new Uint8Array(0));
    assert.deepEqual(await ds.post(gid, stale), { accepted: false, reason: 'WRONG_EPOCH', epoch: 2 });
    assert.deepEqual((await ds.read(gid, 0)).map((e) => [e.seq, e.epoch, e.contentType]), [[1, 0, 'commit'], [2, 1, 'commit']]);
    assert.deepEqual((await ds.read(gid, 1, 1)).map((e) => e.seq), [2]);
    assert.equal(await errorCode(ds.read(gid, -1)), 'INVALID_PARAMETER');
    assert.deepEqual(events.map((e) => e.kind), ['mailbox', 'mailbox', 'group', 'mailbox', 'mailbox', 'group']);

    // Registries: only a record with more changes replaces the stored one.
    assert.deepEqual(await ds.putRegistry('bob', registry(2)), { stored: true, count: 2 });
    assert.deepEqual(await ds.putRegistry('bob', registry(1)), { stored: false, count: 2 });
    assert.deepEqual(await ds.putRegistry('bob', registry(2)), { stored: false, count: 2 });
    assert.deepEqual(await ds.putRegistry('bob', registry(3)), { stored: true, count: 3 });
    assert.equal(await errorCode(ds.putRegistry('bob', te.encode('VKDX'))), 'MALFORMED_INPUT');
    assert.equal((await ds.getRegistry('bob'))?.length, registry(3).length);
    assert.equal(await ds.getRegistry('carol'), undefined);

    // Link channels: 32 hex digits, at most 8 messages of 64 KiB, read from a cursor, gone after ten minutes.
    const channel = 'ab'.repeat(16);
    assert.equal(await errorCode(ds.linkPost('AB'.repeat(16), te.encode('x'))), 'INVALID_PARAMETER');
    assert.equal(await errorCode(ds.linkPost(channel, new Uint8Array(64 * 1024 + 1))), 'INVALID_PARAMETER');
    for (let i = 1; i <= 8; i++) assert.equal(await ds.linkPost(channel, te.encode(`m${i}`)), i);
    assert.equal(await errorCode(ds.linkPost(channel, te.encode('m9'))), 'INVALID_PARAMETER');
    assert.deepEqual((await ds.linkRead(channel, 6)).map((e) => [e.seq, new TextDecoder().decode(e.message)]), [[7, 'm7'], [8, 'm8']]);
    store.state.links[channel]!.created -= 10 * 60_000 + 1;
    assert.deepEqual(await ds.linkRead(channel, 0), []);
  } finally {
    off();
    for (const x of [a, b, c]) x.free();
  }
});

test('deliveryHandler: the routes over JSON, 409 for a lost epoch, typed 400s, 404s', async () => {
  const [a, b] = ['alice', 'bob'].map((n) => new glue.MlsClient(te.encode(n))) as [MlsClient, MlsClient];
  const handler = deliveryHandler(new DeliveryService(), '/api/ds/');
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await handler(new Request(`http://x${path}`, { method, ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }) }));
    return { status: res.status, body: await res.json() as Record<string, unknown> };
  };
  try {
    const kp = b.createKeyPackage(0x004d, false);
    assert.deepEqual(await call('POST', '/api/ds/key-packages/bob/bob-1', { keyPackages: [base64urlEncode(kp)] }), { status: 200, body: { count: 1 } });
    assert.deepEqual(await call('POST', '/api/ds/key-packages/bob', { devices: ['bob-2'] }), { status: 200, body: { keyPackages: [] } });
    assert.equal((await call('POST', '/api/ds/key-packages/bob', { devices: 'bob-1' })).status, 400);
    const taken = await call('POST', '/api/ds/key-packages/bob', { devices: ['bob-1'] });
    const packages = taken.body.keyPackages as { device: string; keyPackage: string }[];
    assert.equal(packages[0]?.device, 'bob-1');
    const id = a.createGroup(0x004d);
    const gid = hex(id);
    const add = a.add(id, [base64urlDecode(packages[0]?.keyPackage ?? '') ?? new Uint8Array(0)]);
    assert.deepEqual(await call('POST', `/api/ds/groups/${gid}/messages`, { message: base64urlEncode(add.commit), welcome: base64urlEncode(add.welcome!) }),
      { status: 200, body: { accepted: true, seq: 1, epoch: 0, duplicate: false } });
    a.mergePending(id);
    b.join(add.welcome!);
    const stale = b.update(id);
    const first = a.update(id);
    assert.equal((await call('POST', `/api/ds/groups/${gid}/messages`, { message: base64urlEncode(first.commit) })).status, 200);
    assert.deepEqual(await call('POST', `/api/ds/groups/${gid}/messages`, { message: base64urlEncode(stale.commit) }),
      { status: 409, body: { accepted: false, reason: 'WRONG_EPOCH', epoch: 2 } });
    const read = await call('GET', `/api/ds/groups/${gid}/messages?after=0`);
    assert.deepEqual((read.body.entries as { seq: number }[]).map((e) => e.seq), [1, 2]);
    const box = await call('GET', '/api/ds/mailbox/bob-1?after=0');
    assert.equal((box.body.entries as { commitSeq: number }[])[0]?.commitSeq, 1);
    assert.deepEqual(await call('POST', `/api/ds/groups/${gid}/messages`, '{'), { status: 400, body: { error: 'INVALID_PARAMETER', message: 'the body is not JSON' } });
    assert.equal((await call('POST', `/api/ds/groups/${gid}/messages`, { message: 'not base64url!' })).body.error, 'INVALID_PARAMETER');
    assert.equal((await call('GET', '/api/ds/groups/xyz/messages')).body.error, 'INVALID_PARAMETER');
    assert.equal((await call('GET', `/api/ds/groups/${gid}/messages?after=-1`)).body.error, 'INVALID_PARAMETER');
    assert.equal((await call('GET', '/api/ds/nothing')).status, 404);
    assert.deepEqual(await call('GET', '/api/ds/groups/%E0/messages'), { status: 400, body: { error: 'INVALID_PARAMETER', message: 'the path is not valid percent-encoding' } });
    assert.equal((await call('GET', '/api/ds/mailbox/__proto__')).status, 400);
    assert.deepEqual(await call('GET', '/api/ds/registry/bob'), { status: 200, body: { record: null } });
    assert.equal((await call('DELETE', `/api/ds/groups/${gid}/messages`)).status, 404);
  } finally {
    a.free();
    b.free();
  }
});
