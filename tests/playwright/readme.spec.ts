// The README's Keys and Sessions snippets run in Chromium as written (tests/node/readme.test.ts runs the
// snippets that need no browser; these need IndexedDB and workers). Issue 17: the snippet used to restore the
// phrase where the identity already was and to promise "same public keys" without saying that the phrase
// does not carry the ML-DSA-65 setting. Every `…; // true` line must yield true; the prose around the
// snippet (KEY_EXISTS with the other setting, another id without `{ mlDsa: true }`) is checked too.
import { test, expect } from './test.js';
import { readFileSync } from 'node:fs';

/**
 * The first ```ts block of the README's `## <section>` section, made runnable in the test page: its
 * `import { … } from 'veilkit';` line becomes a dynamic import of the built package, and every
 * `…; // true` statement pushes its value to `__stated`.
 */
function readmeSnippet(section: string): { code: string; stated: number } {
  const readme = readFileSync('README.md', 'utf8');
  const start = readme.indexOf(`\n## ${section}\n`);
  if (start < 0) throw new Error(`README: no ${section} section`);
  const rest = readme.slice(start);
  const block = /```ts\n([\s\S]*?)```/.exec(rest.slice(0, rest.indexOf('\n## ', 1)))?.[1];
  if (block === undefined) throw new Error(`README: no ts block in the ${section} section`);
  let stated = 0;
  const lines = block.split('\n').map((line) => {
    const imp = /^import \{ ([\w, ]+) \} from 'veilkit';$/.exec(line.trim());
    if (imp !== null) return `const { ${imp[1]} } = await import('/dist/ts/index.js');`;
    const m = /^(.*?);\s*\/\/\s*true\s*$/.exec(line);
    if (m === null) return line;
    stated++;
    return `__stated.push(${m[1]});`;
  });
  return { code: lines.join('\n'), stated };
}

test('README Keys snippet: runs as written; a restore on another keystore with { mlDsa: true } gives the same id', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/tests/playwright/fixtures/threads.html');
  const { code, stated } = readmeSnippet('Keys');
  expect(stated).toBe(3);
  const r = await page.evaluate(`(async () => {
    const __stated = [];
    const { init, generateX25519Keypair, VeilError } = await import('/dist/ts/index.js');
    await init();
    const peerX25519Public = generateX25519Keypair()[1];
    ${code}
    const codeOf = async (p) => { try { await p; return 'resolved'; } catch (e) { return e instanceof VeilError ? e.code : String(e); } };
    const sameStore = await ks.restoreFromPhrase(phrase, { mlDsa: true });
    const otherSetting = await codeOf(ks.restoreFromPhrase(phrase));
    const third = await Keystore.open({ name: 'third-device' });
    const withoutMlDsa = await third.restoreFromPhrase(phrase);
    const result = {
      stated: __stated,
      sameStoreReturnsIt: sameStore.id === me.id,
      otherSetting,
      withoutMlDsa: { mlDsa: withoutMlDsa.mlDsa, sameId: withoutMlDsa.id === bundle.id },
      extractable: key.extractable,
      backupBytes: backup.length > 0,
    };
    ks.dispose(); other.dispose(); third.dispose();
    return result;
  })()`);
  expect(r).toEqual({
    stated: [true, true, true],
    sameStoreReturnsIt: true,
    otherSetting: 'KEY_EXISTS',
    withoutMlDsa: { mlDsa: false, sameId: false },
    extractable: false,
    backupBytes: true,
  });
});

test('README Sessions snippet: runs as written; each stated value holds, the session persists and a tampered reply is refused', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/tests/playwright/fixtures/threads.html');
  const { code, stated } = readmeSnippet('Sessions');
  expect(stated).toBe(3);
  const r = await page.evaluate(`(async () => {
    const __stated = [];
    const { init, VeilError } = await import('/dist/ts/index.js');
    await init();
    ${code}
    const codeOf = async (p) => { try { await p; return 'resolved'; } catch (e) { return e instanceof VeilError ? e.code : String(e); } };
    const tampered = reply.slice();
    tampered[tampered.length - 1] ^= 1;
    const more = await toAlice.encrypt(new TextEncoder().encode('again'), { aad });
    const bad = more.slice();
    bad[bad.length - 1] ^= 1;
    const result = {
      stated: __stated,
      peerIsAlice: (await toBob.info()).localIdentity.join() === peer.identity.join(),
      replayed: await codeOf(toBob.decrypt(reply, { aad })),
      tampered: await codeOf(toBob.decrypt(bad, { aad })),
      genuineAfter: new TextDecoder().decode((await toBob.decrypt(more, { aad })).plaintext),
      listed: (await Session.list(alice, a)).map((s) => s.id).includes(toBob.id),
      lastResortLeft: bundle.length > 0 && oneTime.length === 10,
    };
    alice.dispose(); bob.dispose();
    return result;
  })()`);
  expect(r).toEqual({
    stated: [true, true, true],
    peerIsAlice: true,
    replayed: 'DUPLICATE_MESSAGE',
    tampered: 'AUTHENTICATION_FAILED',
    genuineAfter: 'again',
    listed: true,
    lastResortLeft: true,
  });
});

test('README Groups snippet: runs as written; each stated value holds, a replayed welcome and a tampered message are refused', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/tests/playwright/fixtures/threads.html');
  const { code, stated } = readmeSnippet('Groups');
  expect(stated).toBe(3);
  const r = await page.evaluate(`(async () => {
    const __stated = [];
    const { init, VeilError } = await import('/dist/ts/index.js');
    await init();
    ${code}
    const codeOf = async (p) => { try { await p; return 'resolved'; } catch (e) { return e instanceof VeilError ? e.code : String(e); } };
    const bad = message.slice();
    bad[bad.length - 1] ^= 1;
    const again = await team.encrypt(new TextEncoder().encode('again'));
    const result = {
      stated: __stated,
      replayedWelcome: await codeOf(Group.join(bob, b, welcome)),
      tampered: await codeOf(joined.receive(bad)),
      genuineAfter: new TextDecoder().decode((await joined.receive(again.message)).bytes),
      suite: (await joined.info()).suite,
      listed: (await Group.list(alice, a)).map((g) => g.id).includes(team.id),
    };
    alice.dispose(); bob.dispose();
    return result;
  })()`);
  expect(r).toEqual({
    stated: [true, true, true],
    replayedWelcome: 'REPLAY_DETECTED',
    tampered: expect.stringMatching(/^(AUTHENTICATION_FAILED|MALFORMED_INPUT|DUPLICATE_MESSAGE)$/),
    genuineAfter: 'again',
    suite: 0x004d,
    listed: true,
  });
});

test('README Devices snippet: runs as written; each stated value holds, the relay\'s copy of the link is used up, a revoked phone leaves the registry', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/tests/playwright/fixtures/threads.html');
  const { code, stated } = readmeSnippet('Devices');
  expect(stated).toBe(2);
  const r = await page.evaluate(`(async () => {
    const __stated = [];
    const { VeilError, revokeDevice } = await import('/dist/ts/index.js');
    ${code}
    const codeOf = async (p) => { try { await p; return 'resolved'; } catch (e) { return e instanceof VeilError ? e.code : String(e); } };
    const replayed = await codeOf(confirmLink(laptop, accepted, hello, { registry }));
    const phoneId = view.devices[1].identityId;
    const after = await verifyDeviceRegistry(await revokeDevice(laptop, alice, registry, phoneId), { user: await deviceIdentity(laptop, alice), pinned: view.head });
    const result = { stated: __stated, replayed, after: after.devices.map((d) => d.name), revoked: after.revoked.map((d) => d.name) };
    laptop.dispose(); phone.dispose();
    return result;
  })()`);
  expect(r).toEqual({ stated: [true, true], replayed: 'KEY_NOT_FOUND', after: ['laptop'], revoked: ['phone'] });
});
