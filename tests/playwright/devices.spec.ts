// The device registry through the keystore (issue 30, docs/DEVICES.md), in every engine: the user
// identity signs adds and revokes in the worker on top of a registry it verified, the page verifies
// with a pinned head, the keystore refuses to sign on a tampered or foreign registry or to bring a
// revoked device back, and app signatures cannot be passed off as registry signatures.
import { test, expect, engine, type Page } from './test.js';

type DeviceTests = typeof import('./fixtures/devices-page.js');
declare global {
  interface Window { deviceTests: DeviceTests }
}

const PAGE = '/tests/playwright/fixtures/devices.html';

async function load(page: Page): Promise<void> {
  await page.goto(PAGE);
  await expect(page).toHaveTitle('ready');
}

function storeName(tag: string): string {
  return `${tag}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

test('a user registry signed in the keystore: add two devices, revoke one, verify against pinned heads; what the worker refuses to sign (a stale base, two adds at once: it never forks)', async ({ page }) => {
  test.setTimeout(120_000);
  await load(page);
  const r = await page.evaluate((n) => window.deviceTests.flow(n), storeName('devices'));
  expect(r).toEqual({
    wrongConsent: { toOtherUser: 'INVALID_SIGNATURE', ofOtherDevice: 'INVALID_SIGNATURE', short: 'INVALID_LENGTH' },
    sameAsGroup: true,
    first: ['laptop'],
    second: ['laptop', 'phone'],
    third: { devices: ['phone'], revoked: ['laptop'], count: 3 },
    laptopId: true,
    readdRevoked: 'KEY_EXISTS',
    readdActive: 'KEY_EXISTS',
    revokeAgain: 'KEY_NOT_FOUND',
    userAsDevice: 'INVALID_PARAMETER',
    selfConsent: 'INVALID_PARAMETER',
    classicUser: 'PQ_IDENTITY_REQUIRED',
    classicDevice: 'PQ_IDENTITY_REQUIRED',
    // The worker pins the head it signed: the newest change's bytes differ from it.
    tamperedBase: 'REGISTRY_INVALID/FORK',
    otherUsersRegistry: 'REGISTRY_INVALID/USER_MISMATCH',
    rolledBack: 'STATE_ROLLBACK',
    shortDevice: 'INVALID_LENGTH',
    longName: 'RangeError',
    staleBase: 'STATE_ROLLBACK',
    noBase: 'INVALID_STATE',
    concurrent: { won: 1, lost: ['STATE_ROLLBACK'], count: 4, sameAsWinner: true },
    restored: { sameUser: true, lastHere: null, pinnedOlder: 'STATE_ROLLBACK' },
  });
});

test('attack: page script has the keystore sign a change\'s exact signed bytes (sign / signHybrid) and appends it: refused', async ({ page }) => {
  test.setTimeout(60_000);
  await load(page);
  const r = await page.evaluate((n) => window.deviceTests.forged(n), storeName('devices-forged'));
  expect(r).toEqual({ signHybrid: 'REGISTRY_INVALID/BAD_SIGNATURE', sign: 'REGISTRY_INVALID/BAD_SIGNATURE' });
});

// Linking (docs/DEVICES.md §6). Two devices: in Chromium and Firefox two browser contexts (separate
// storage, separate workers); WebKit's WebDriver adapter has one context, so there the new device is a
// second page with its own keystore (its own worker and database). The test is the relay: it carries
// every message between the pages and records them.

type Bytes = number[];

async function devicePair(page: Page, context: import('./test.js').BrowserContext): Promise<{ e: Page; n: Page; close: () => Promise<void> }> {
  await load(page);
  const browser = engine === 'webkit' ? null : context.browser();
  if (browser === null) {
    const n = await context.newPage();
    await load(n);
    return { e: page, n, close: () => n.close() };
  }
  const other = await browser.newContext({ baseURL: new URL(page.url()).origin });
  const n = await other.newPage();
  await load(n);
  return { e: page, n, close: () => other.close() };
}

function contains(haystack: Bytes, needle: Bytes): boolean {
  if (needle.length === 0) return false;
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

test('link a new device with its code through a relay that records everything: both sides end with the same user and registry; the recording holds no identity, name or registry', async ({ page, context }) => {
  test.setTimeout(120_000);
  const { e, n, close } = await devicePair(page, context);
  try {
    const existing = await e.evaluate((x) => window.deviceTests.linkExisting(x), storeName('link-e'));
    const started = await n.evaluate(([x, d]) => window.deviceTests.linkNew(x, d), [storeName('link-n'), 'alice phone (Firefox)'] as const);
    const recorded: { channel: string; message: Bytes }[] = [];
    const relay = (channel: string, message: Bytes): Bytes => {
      recorded.push({ channel, message });
      return message;
    };
    expect(started.code).toMatch(/^[A-Z2-7]{26}$/);
    const offer = relay(started.channel, started.offer);
    const accepted = await e.evaluate(([c, o]) => window.deviceTests.linkAccept(c, o), [started.code, offer] as const);
    if (typeof accepted === 'string') throw new Error(`accept: ${accepted}`);
    expect(accepted.channel).toBe(started.channel);
    const hello = await n.evaluate((a) => window.deviceTests.linkAnswer(a), relay(accepted.channel, accepted.accept));
    if (typeof hello === 'string') throw new Error(`answer: ${hello}`);
    const confirmed = await e.evaluate((h) => window.deviceTests.linkConfirm(h), relay(started.channel, hello));
    if (typeof confirmed === 'string') throw new Error(`confirm: ${confirmed}`);
    expect(confirmed.name).toBe('alice phone (Firefox)');
    expect(confirmed.devices).toEqual(['laptop', 'alice phone (Firefox)']);
    const finished = await n.evaluate((w) => window.deviceTests.linkFinish(w), relay(started.channel, confirmed.welcome));
    if (typeof finished === 'string') throw new Error(`finish: ${finished}`);
    expect(finished).toEqual({ user: existing.user, devices: ['laptop', 'alice phone (Firefox)'], self: true });

    // The relay saw 4 messages of the shapes DEVICES.md §6 gives, and none of the secrets' public consequences.
    expect(recorded.map((r) => r.message.length)).toEqual([5 + 1216, 5 + 1120 + 12 + 2017 + 16, 5 + 12 + 2017 + 3373 + 1 + 21 + 16, 5 + 12 + confirmed.registry.length + 16]);
    const name = Array.from(new TextEncoder().encode('alice phone'));
    for (const { message } of recorded) {
      for (const [what, needle] of [['user Enc(ID)', existing.user.slice(0, 64)], ['new device Enc(ID)', started.identity.slice(1, 65)], ['registry', confirmed.registry.slice(2100, 2164)], ['name', name]] as const) {
        expect(contains(message, needle), `${what} in a recorded message`).toBe(false);
      }
    }
    // The recording replayed: the used link takes nothing more (one try per link).
    expect(await e.evaluate((h) => window.deviceTests.linkConfirm(h), recorded[2]?.message ?? [])).toBe('KEY_NOT_FOUND');
    expect(await n.evaluate((w) => window.deviceTests.linkFinish(w), recorded[3]?.message ?? [])).toBe('KEY_NOT_FOUND');
  } finally {
    await e.evaluate(() => window.deviceTests.linkDispose());
    await n.evaluate(() => window.deviceTests.linkDispose());
    await close();
  }
});

test('attack: a relay in the middle puts its own device in (its own offer for the user\'s code, a made-up hello, its own accept with a guessed code, a flipped bit): every step is refused, nothing is signed, the user\'s registry is unchanged', async ({ page, context }) => {
  test.setTimeout(120_000);
  const { e, n, close } = await devicePair(page, context);
  const m = await context.newPage();
  await load(m);
  try {
    await e.evaluate((x) => window.deviceTests.linkExisting(x), storeName('mitm-e'));
    const before = await e.evaluate(() => window.deviceTests.linkRegistry());
    const victim = await n.evaluate(([x, d]) => window.deviceTests.linkNew(x, d), [storeName('mitm-n'), 'phone'] as const);
    // 1. The relay swaps the new device's offer for one of its own device (it has its own link and code).
    const mine = await m.evaluate(([x, d]) => window.deviceTests.linkNew(x, d), [storeName('mitm-m'), 'phone'] as const);
    const accepted = await e.evaluate(([c, o]) => window.deviceTests.linkAccept(c, o), [victim.code, mine.offer] as const);
    if (typeof accepted === 'string') throw new Error(`accept: ${accepted}`);
    // Its device cannot read the accept (the user's Enc(ID) is sealed under a key of the code), so it has no hello to give;
    const attackerReadsAccept = await m.evaluate((a) => window.deviceTests.linkAnswer(a), accepted.accept);
    // forwarded to the real new device, the swapped accept does not open there either;
    const victimOnSwappedAccept = await n.evaluate((a) => window.deviceTests.linkAnswer(a), accepted.accept);
    // and whatever hello the relay makes up is refused.
    const madeUp = [0x56, 0x4b, 0x4c, 0x31, 3, ...Array.from({ length: 12 + 2017 + 3373 + 1 + 5 + 16 }, (_, i) => (i * 131 + 7) & 0xff)];
    const forgedHello = await e.evaluate((h) => window.deviceTests.linkConfirm(h), madeUp);
    // 2. The relay answers a new device's offer itself, guessing the code (it never saw it).
    const second = await n.evaluate(([x, d]) => window.deviceTests.linkNew(x, d), [storeName('mitm-n1'), 'phone'] as const);
    await m.evaluate((x) => window.deviceTests.linkExisting(x), storeName('mitm-m2'));
    const attackerAccept = await m.evaluate(([c, o]) => window.deviceTests.linkAccept(c, o), ['A'.repeat(26), second.offer] as const);
    if (typeof attackerAccept === 'string') throw new Error(`attacker accept: ${attackerAccept}`);
    const guessedCode = await n.evaluate((a) => window.deviceTests.linkAnswer(a), attackerAccept.accept);
    // 3. A hello with one bit flipped, on a fresh link with the right code.
    const fresh = await n.evaluate(([x, d]) => window.deviceTests.linkNew(x, d), [storeName('mitm-n2'), 'phone'] as const);
    const ok = await e.evaluate(([c, o]) => window.deviceTests.linkAccept(c, o), [fresh.code, fresh.offer] as const);
    if (typeof ok === 'string') throw new Error(`accept: ${ok}`);
    const hello = await n.evaluate((a) => window.deviceTests.linkAnswer(a), ok.accept);
    if (typeof hello === 'string') throw new Error(`answer: ${hello}`);
    hello[hello.length - 20] = (hello[hello.length - 20] ?? 0) ^ 1;
    const flipped = await e.evaluate((h) => window.deviceTests.linkConfirm(h), hello);
    expect({ attackerReadsAccept, victimOnSwappedAccept, forgedHello, guessedCode, flipped }).toEqual({
      attackerReadsAccept: 'AUTHENTICATION_FAILED', victimOnSwappedAccept: 'AUTHENTICATION_FAILED', forgedHello: 'AUTHENTICATION_FAILED',
      guessedCode: 'AUTHENTICATION_FAILED', flipped: 'AUTHENTICATION_FAILED',
    });
    expect(await e.evaluate(() => window.deviceTests.linkRegistry())).toEqual(before);
  } finally {
    for (const p of [e, n, m]) await p.evaluate(() => window.deviceTests.linkDispose());
    await m.close();
    await close();
  }
});

test('DEVICES.md §2 and §6 are enough: an independent new device and an independent existing device (primitives only) link with the keystore', async ({ page }) => {
  test.setTimeout(120_000);
  await load(page);
  const n = await page.evaluate((x) => window.deviceTests.independentNew(x), storeName('indep-n'));
  expect(n).toEqual({ channel: true, acceptLength: 5 + 1120 + 12 + 2017 + 16, userInWelcome: true, registryInWelcome: true, devices: ['laptop', 'independent'] });
  const e = await page.evaluate((x) => window.deviceTests.independentExisting(x), storeName('indep-e'));
  expect(e).toEqual({ helloLength: 5 + 12 + 2017 + 3373 + 1 + 5 + 16, consentValid: true, deviceIsPhone: true, deviceName: 'phone', user: true, devices: ['phone'] });
});

test('conversations on every device: a linked phone is added to Alice\'s room and reads from its join on; revoked, it is removed in the next commit and reads nothing after; Bob\'s roster sorts members by user and shows a stranger apart', async ({ page }) => {
  test.setTimeout(180_000);
  await load(page);
  const r = await page.evaluate((x) => window.deviceTests.multiDevice(x), storeName('multi'));
  expect(r).toEqual({
    earlyAtBob: 'before the phone',
    earlyAtPhone: 'WRONG_EPOCH',
    linked: { user: true, devices: ['laptop', 'phone'] },
    toAdd: ['phone'], toAddRemove: 0,
    rosterAtBob: [2, 1], unknownAtBob: 0, missingAtBob: [0, 0],
    senderUser: true,
    delivered: { laptop: 'hello both of you', phone: 'hello both of you', laptopFromPhone: 'from the phone' },
    toRemove: [true], toRemoveAdd: 0,
    phoneRemoved: true,
    afterAtLaptop: 'after the revocation',
    afterAtPhone: 'NOT_A_MEMBER',
    rosterAfter: [1, 1], unknownAfter: 0,
    stranger: 1, strangerIsMallory: true,
  });
});
