// inspectGroupMessage (ts/group/wire.ts), what a delivery service reads of MLS messages, on messages
// made by veilkit's group module in Node (both suites): key package references equal to the ones
// OpenMLS puts in its welcomes, group ids, epochs and content types of commits and application
// messages; and typed refusals of truncated, mis-versioned or non-minimal input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, resolve } from 'node:path';
import { inspectGroupMessage } from '../../ts/group/wire.js';
import { errorCode } from '../shared/outcome.js';
import type { GroupGlue, MlsClient } from '../shared/group-interop.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const glueDir = resolve(ROOT, 'dist/ts/wasm-group');
const glue = (await import(pathToFileURL(resolve(glueDir, 'veilkit_group.js')).href)) as GroupGlue;
glue.initSync({ module: readFileSync(resolve(glueDir, 'veilkit_group_bg.wasm')) });
const te = new TextEncoder();
const td = new TextDecoder();
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

const code = errorCode;

for (const suite of [0x004d, 0x0001]) {
  test(`suite 0x${suite.toString(16).padStart(4, '0')}: key packages, welcome, commits and messages read as the group module made them`, async () => {
    const [a, b, c] = ['alice', 'bob', 'carol'].map((n) => new glue.MlsClient(te.encode(n))) as [MlsClient, MlsClient, MlsClient];
    try {
      const kpB = b.createKeyPackage(suite, false);
      const kpC = c.createKeyPackage(suite, false);
      const infoB = await inspectGroupMessage(kpB);
      const infoC = await inspectGroupMessage(kpC);
      assert.equal(infoB.wireFormat, 'key-package');
      assert.ok(infoB.wireFormat === 'key-package' && infoC.wireFormat === 'key-package');
      assert.equal(infoB.cipherSuite, suite);
      assert.match(infoB.ref ?? '', /^[0-9a-f]{64}$/);
      assert.notEqual(infoB.ref, infoC.ref);
      // A credential not of veilkit's certified form claims no identity id.
      assert.equal(infoB.identityId, undefined);
      // One of that form (0x01 ‖ Enc(ID) ‖ certificate): the id of its Enc(ID), SHA-256("veilkit-session-identity-v1" ‖ Enc(ID)),
      // read, not verified (Group.add verifies the certificate).
      const encId = new Uint8Array(2017).fill(7);
      encId[0] = 0x01;
      const credential = new Uint8Array([0x01, ...encId, ...new Uint8Array(64).fill(9)]);
      const d = new glue.MlsClient(credential);
      try {
        const infoD = await inspectGroupMessage(d.createKeyPackage(suite, false));
        const expected = hex(new Uint8Array(await crypto.subtle.digest('SHA-256', new Uint8Array([...te.encode('veilkit-session-identity-v1'), ...encId]))));
        assert.ok(infoD.wireFormat === 'key-package');
        assert.equal(infoD.identityId, expected);
        // One byte short of the form: no claim.
        const e = new glue.MlsClient(credential.subarray(0, credential.length - 1));
        try {
          const infoE = await inspectGroupMessage(e.createKeyPackage(suite, false));
          assert.ok(infoE.wireFormat === 'key-package');
          assert.equal(infoE.identityId, undefined);
        } finally {
          e.free();
        }
      } finally {
        d.free();
      }

      const id = a.createGroup(suite);
      const add = a.add(id, [kpB, kpC]);
      const commit = await inspectGroupMessage(add.commit);
      assert.ok(commit.wireFormat === 'public-message' || commit.wireFormat === 'private-message');
      assert.deepEqual({ groupId: commit.groupId, epoch: commit.epoch, contentType: commit.contentType }, { groupId: hex(id), epoch: 0, contentType: 'commit' });
      a.mergePending(id);
      assert.ok(add.welcome);
      const welcome = await inspectGroupMessage(add.welcome);
      // The references a delivery service computes are the ones OpenMLS wrote into the welcome.
      assert.deepEqual(welcome, { wireFormat: 'welcome', cipherSuite: suite, newMembers: [infoB.ref, infoC.ref] });
      b.join(add.welcome);
      c.join(add.welcome);

      const m = b.encrypt(id, te.encode('hello'), te.encode('aad'));
      assert.deepEqual(await inspectGroupMessage(m), { wireFormat: 'private-message', groupId: hex(id), epoch: 1, contentType: 'application' });
      const up = c.update(id);
      const upInfo = await inspectGroupMessage(up.commit);
      assert.ok(upInfo.wireFormat === 'public-message' || upInfo.wireFormat === 'private-message');
      assert.equal('epoch' in upInfo ? upInfo.epoch : -1, 1);
      assert.equal('contentType' in upInfo ? upInfo.contentType : '', 'commit');

      // Refusals: every prefix of a key package and of a message is MALFORMED_INPUT, as are trailing bytes after a key package.
      for (let n = 0; n < kpB.length; n += n < 64 ? 1 : 97) assert.equal(await code(inspectGroupMessage(kpB.subarray(0, n))), 'MALFORMED_INPUT', `key package cut at ${n}`);
      for (let n = 0; n < 16; n++) assert.equal(await code(inspectGroupMessage(m.subarray(0, n))), 'MALFORMED_INPUT', `message cut at ${n}`);
      assert.equal(await code(inspectGroupMessage(Uint8Array.from([...kpB, 0]))), 'MALFORMED_INPUT');
      const v2 = m.slice();
      v2[1] = 2;
      assert.equal(await code(inspectGroupMessage(v2)), 'MALFORMED_INPUT');
      const wf = m.slice();
      wf[3] = 6;
      assert.equal(await code(inspectGroupMessage(wf)), 'MALFORMED_INPUT');
      // The group id's length in a two-byte form it does not need (non-minimal): refused.
      const gid = m.subarray(5, 5 + (m[4] ?? 0));
      const padded = Uint8Array.from([...m.subarray(0, 4), 0x40, gid.length, ...m.subarray(5)]);
      assert.equal(await code(inspectGroupMessage(padded)), 'MALFORMED_INPUT');
      await assert.rejects(inspectGroupMessage('x' as never), TypeError);
    } finally {
      for (const x of [a, b, c]) x.free();
    }
  });
}

test('GroupLog: the first commit of an epoch wins, the loser is told the epoch, catches up from the log and commits again; a stale message is refused and sent again; every member ends in the same epoch', async () => {
  const { GroupLog } = await import('../../ts/group/log.js');
  const suite = 0x004d;
  const [a, b, c] = ['alice', 'bob', 'carol'].map((n) => new glue.MlsClient(te.encode(n))) as [MlsClient, MlsClient, MlsClient];
  try {
    const log = new GroupLog();
    const id = a.createGroup(suite);
    const gid = hex(id);
    const add = a.add(id, [b.createKeyPackage(suite, false), c.createKeyPackage(suite, false)]);
    assert.deepEqual(await log.post(add.commit), { accepted: true, groupId: gid, seq: 1, epoch: 0, contentType: 'commit' });
    a.mergePending(id);
    assert.ok(add.welcome);
    b.join(add.welcome);
    c.join(add.welcome);
    assert.equal(log.epoch(gid), 1);
    // Bob and Carol commit in the same epoch; Carol's reaches the log first.
    const fromBob = b.update(id);
    const fromCarol = c.update(id);
    assert.deepEqual(await log.post(fromCarol.commit), { accepted: true, groupId: gid, seq: 2, epoch: 1, contentType: 'commit' });
    assert.deepEqual(await log.post(fromBob.commit), { accepted: false, groupId: gid, reason: 'WRONG_EPOCH', epoch: 2, messageEpoch: 1 });
    // Alice's message of epoch 1, sent before she read Carol's commit: refused, sent again after catching up.
    const stale = a.encrypt(id, te.encode('hi'), new Uint8Array(0));
    assert.deepEqual(await log.post(stale), { accepted: false, groupId: gid, reason: 'WRONG_EPOCH', epoch: 2, messageEpoch: 1 });
    const cursors = new Map<MlsClient, number>([[a, 1], [b, 1], [c, 1]]);
    const catchUp = (who: MlsClient): string[] => {
      const seen: string[] = [];
      for (const e of log.read(gid, cursors.get(who))) {
        cursors.set(who, e.seq);
        if (who === c && e.seq === 2) {
          c.mergePending(id); // its own commit, accepted
          seen.push('own commit');
          continue;
        }
        const r = who.receive(id, e.message);
        seen.push(r.kind === 'application' ? td.decode(r.bytes) : r.kind === 'commit' && r.discardedOwn ? 'commit (own discarded)' : r.kind);
      }
      return seen;
    };
    assert.deepEqual(catchUp(a), ['commit']);
    assert.deepEqual(catchUp(b), ['commit (own discarded)']);
    assert.deepEqual(catchUp(c), ['own commit']);
    const again = a.encrypt(id, te.encode('hi again'), new Uint8Array(0));
    assert.deepEqual(await log.post(again), { accepted: true, groupId: gid, seq: 3, epoch: 2, contentType: 'application' });
    cursors.set(a, 3); // its own message: the group module refuses its own messages fanned back (DUPLICATE_MESSAGE)
    const bobAgain = b.update(id);
    assert.deepEqual(await log.post(bobAgain.commit), { accepted: true, groupId: gid, seq: 4, epoch: 2, contentType: 'commit' });
    assert.deepEqual(catchUp(c), ['hi again', 'commit']);
    assert.deepEqual(catchUp(a), ['commit']);
    b.mergePending(id);
    cursors.set(b, 4);
    assert.deepEqual([a, b, c].map((x) => Number(x.info(id).epoch)), [3, 3, 3]);
    assert.equal(log.epoch(gid), 3);
    // Paging, and what is not a group message.
    assert.deepEqual(log.read(gid, 1, 2).map((e) => e.seq), [2, 3]);
    assert.deepEqual(log.read('00', 0), []);
    assert.equal(await code(log.post(add.welcome)), 'MALFORMED_INPUT');
    assert.equal(await code(log.post(b.createKeyPackage(suite, false))), 'MALFORMED_INPUT');
    assert.throws(() => log.read(gid, -1), RangeError);
  } finally {
    for (const x of [a, b, c]) x.free();
  }
});
