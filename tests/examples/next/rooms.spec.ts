import { readFileSync, readdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { expect, test, type BrowserContext, type Page, type TestInfo } from '@playwright/test';
import { ROOT, shot, signUpAt, watch } from './helpers.js';

// The rooms app (examples/next, `/`): three users, one of them on two devices, in four browser contexts
// through the app's delivery service (app/api/ds, veilkit/server). A room is created, two users are invited by
// name and join from their mailboxes; everyone sends 20 messages from each device; a device reloads
// mid-conversation; Alice links her phone mid-conversation (a code typed on her laptop), the laptop adds it to
// the room, and it reads from its join on; an attachment goes through the server as a file container and opens
// to the same bytes; Alice revokes the phone and it reads nothing after; a member is removed and reads nothing
// after. Every page shows the same messages in the same order; the server's whole store (mirrored to a file)
// and its files hold no plaintext and not the attachment's key.

const dsFile = (project: string): string => join(ROOT, 'examples/next', `ds-${project}.json`);
/** Where each server streams attachments (VEILKIT_NEXT_FILES, set by scripts/packed/30-next-example.sh). */
const filesDir = (project: string): string => join(ROOT, 'examples/next', `files-${project}`);

async function signUp(context: BrowserContext, name: string): Promise<{ page: Page; problems: string[] }> {
  const r = await signUpAt(context, '/', name, { testId: 'key-packages', text: 'Key packages published.' }, 900);
  // The first device of a new user: the user identity and the device registry, published.
  await expect(r.page.getByTestId('device-role')).toHaveAttribute('data-role', 'primary', { timeout: 60_000 });
  return r;
}

/** A second device of `name`: "Link to my account" shows a code; typed on `primary`, the link runs over the service's link channel. */
async function linkDevice(context: BrowserContext, name: string, primary: Page, testInfo: TestInfo): Promise<{ page: Page; problems: string[]; device: string }> {
  const page = await context.newPage();
  await page.setViewportSize({ width: 1000, height: 900 });
  const problems = watch(page);
  await page.goto('/');
  await page.getByLabel('your name').fill(name);
  await page.getByRole('button', { name: 'Link to my account' }).click();
  const device = (await page.getByTestId('device').textContent({ timeout: 60_000 })) ?? '';
  const code = page.getByTestId('link-code');
  await expect(code).toHaveText(/^[A-Z2-7]{26}$/, { timeout: 60_000 });
  await shot(page, testInfo, 'link');
  await primary.getByLabel('link code').fill((await code.textContent()) ?? '');
  await primary.getByLabel('link code').press('Enter');
  await expect(primary.getByTestId('devices-note')).toHaveText(`linked ${device}`, { timeout: 60_000 });
  await expect(page.getByTestId('device-role')).toHaveAttribute('data-role', 'linked', { timeout: 60_000 });
  return { page, problems, device };
}

const messages = (page: Page) => page.getByTestId('messages').locator('li');

async function say(page: Page, text: string): Promise<void> {
  await page.getByLabel('message').fill(text);
  // Enter submits the form: a click could land elsewhere when an arriving message moves the button meanwhile.
  await page.getByLabel('message').press('Enter');
  await expect(page.getByTestId('messages').locator('li[data-from=me]', { hasText: text })).toBeVisible({ timeout: 60_000 });
}

async function openRoom(page: Page, room: string): Promise<void> {
  await page.getByTestId('rooms').locator(`button[data-room="${room}"]`).click({ timeout: 60_000 });
  await expect(page.getByRole('heading', { name: `Room ${room}` })).toBeVisible({ timeout: 60_000 });
}

/** The texts shown, in order (a received message starts with "<name>: " or "<name> (revoked device): "). */
async function shown(page: Page): Promise<string[]> {
  return (await messages(page).allInnerTexts()).map((t) => t.replace(/^[^:]+: /, '').replace(/ …$/, ''));
}

test('rooms: three users, one on two devices: create, invite two, 20 messages from each device, a reload and a link mid-conversation, an attachment, a revoked device and a removed member read nothing after, the server holds no plaintext and no key', async ({ browser }, testInfo) => {
  test.skip(testInfo.project.name === 'webpack', 'the rooms story runs once, on the Turbopack build: the webpack build serves the same client code, which chat.spec.ts and /smoke check in both builds');
  test.setTimeout(600_000);
  const tag = Math.random().toString(36).slice(2, 7);
  const [alice, bob, carol] = [`alice-${tag}`, `bob-${tag}`, `carol-${tag}`];
  const room = `plans ${tag}`;
  const contexts = await Promise.all([browser.newContext(), browser.newContext(), browser.newContext(), browser.newContext()]);
  try {
    const [a, b, c] = await Promise.all([signUp(contexts[0], alice), signUp(contexts[1], bob), signUp(contexts[2], carol)]);

    await a.page.getByLabel('room name').fill(room);
    await a.page.getByRole('button', { name: 'Create room' }).click();
    await expect(a.page.getByRole('heading', { name: `Room ${room}` })).toBeVisible({ timeout: 60_000 });
    for (const user of [bob, carol]) {
      await a.page.getByLabel('invite user').fill(user);
      await a.page.getByLabel('invite user').press('Enter');
      await expect(a.page.getByTestId('members').locator('li')).toHaveCount(user === bob ? 2 : 3, { timeout: 60_000 });
    }
    // The invited devices find their welcome in their mailbox (a server-sent event) and join.
    await openRoom(b.page, room);
    await openRoom(c.page, room);

    // 20 messages from each of the four devices; the phone is linked in round 5 and sends from then on.
    const sent: string[] = [];
    const count = new Map<Page, number>();
    let phone: { page: Page; problems: string[]; device: string } | undefined;
    let beforeLink = 0;
    for (let i = 0; sent.length < 80; i++) {
      if (i === 5) {
        beforeLink = sent.length;
        // Alice links her phone: it shows a code, her laptop types it; the laptop adds the phone to the room.
        phone = await linkDevice(contexts[3], alice, a.page, testInfo);
        await expect(a.page.getByTestId('members').locator('li')).toHaveCount(4, { timeout: 60_000 });
        await openRoom(phone.page, room);
        // Bob sees Alice with two devices: the registry he pinned for her lists both.
        await expect(b.page.getByTestId('members').locator(`li[data-member="${alice}"]`)).toHaveCount(2, { timeout: 60_000 });
      }
      const devices: [Page, string][] = [[a.page, alice], [b.page, bob], [c.page, carol], ...(phone === undefined ? [] : [[phone.page, `${alice}-phone`] as [Page, string]])];
      for (const [p, who] of devices) {
        const n = count.get(p) ?? 0;
        if (n === 20) continue;
        count.set(p, n + 1);
        const text = `${who.replace(/-[a-z0-9]+(-phone)?$/, '$1')} says ${n} (${tag})`;
        sent.push(text);
        await say(p, text);
      }
      if (i === 10) {
        // Bob reloads mid-conversation: the room, its history and its cursor come back from the keystore.
        await b.page.reload();
        await expect(b.page.getByRole('heading', { name: `Room ${room}` })).toBeVisible({ timeout: 60_000 });
        await expect(messages(b.page)).toHaveCount(sent.length, { timeout: 60_000 });
      }
    }
    if (phone === undefined) throw new Error('the phone was not linked');
    const all = [a.page, b.page, c.page];
    for (const p of all) await expect(messages(p)).toHaveCount(80, { timeout: 120_000 });
    await expect(messages(phone.page)).toHaveCount(80 - beforeLink, { timeout: 120_000 });
    for (const p of [...all, phone.page]) await expect(p.getByTestId('messages').locator('li[data-status=pending]')).toHaveCount(0, { timeout: 60_000 });
    // One order for everyone: the delivery service's log. The phone reads from its join on: the messages
    // sent before the link are not on it, and every one after is, in the same order.
    const order = await shown(a.page);
    expect(new Set(order)).toEqual(new Set(sent));
    expect(await shown(b.page)).toEqual(order);
    expect(await shown(c.page)).toEqual(order);
    expect(await shown(phone.page)).toEqual(order.slice(beforeLink));
    await shot(a.page, testInfo, 'rooms');

    // An attachment: encrypted in Alice's browser into a file container, uploaded (ciphertext only), its
    // reference and key sent in the room; Bob downloads and decrypts it to the same bytes.
    const data = randomBytes(300_000);
    // Every 32-byte random value Alice's page draws from now on: the attachment's key is one of them.
    await a.page.evaluate(() => {
      const draw = crypto.getRandomValues.bind(crypto);
      const drawn: number[][] = [];
      (window as unknown as { drawn: number[][] }).drawn = drawn;
      const record = (array: ArrayBufferView): void => {
        if (array instanceof Uint8Array && array.length === 32) drawn.push(Array.from(array));
      };
      crypto.getRandomValues = (array) => {
        const r = draw(array);
        if (array !== null) record(array);
        return r;
      };
    });
    await a.page.getByLabel('attach a file').setInputFiles({ name: `notes-${tag}.bin`, mimeType: 'application/octet-stream', buffer: data });
    await expect(a.page.getByTestId('attach-status')).toHaveText(`sent notes-${tag}.bin`, { timeout: 60_000 });
    const item = b.page.getByTestId('messages').locator('li[data-kind=file]', { hasText: `notes-${tag}.bin` });
    await expect(item).toBeVisible({ timeout: 60_000 });
    const [download] = await Promise.all([b.page.waitForEvent('download'), item.getByRole('button', { name: `download notes-${tag}.bin` }).click()]);
    expect(download.suggestedFilename()).toBe(`notes-${tag}.bin`);
    expect(readFileSync(await download.path()).equals(data)).toBe(true);
    // The server's copy is a veilkit container, not the file.
    const dir = filesDir(testInfo.project.name);
    const stored = readdirSync(dir).map((f) => readFileSync(join(dir, f)));
    const sealed = stored.filter((f) => f.length > data.length);
    expect(sealed.length).toBeGreaterThan(0);
    for (const f of stored) expect(f.includes(data.subarray(1000, 1064))).toBe(false);
    const keys = (await a.page.evaluate(() => (window as unknown as { drawn: number[][] }).drawn)).map((k) => Buffer.from(k));
    expect(keys.length).toBeGreaterThan(0);
    for (const f of stored) for (const k of keys) expect(f.includes(k)).toBe(false);

    // Alice revokes the phone on her laptop: the registry marks it revoked for good and the laptop's next
    // commit removes it from the room. The phone learns it from the log and reads nothing sent after.
    // The laptop's own entry has no Revoke button: the device holding the user identity is not revoked.
    await expect(a.page.getByTestId('device-list').getByRole('button', { name: /^revoke / })).toHaveCount(1);
    await a.page.getByRole('button', { name: `revoke ${phone.device}` }).click();
    await expect(a.page.getByTestId('devices-note')).toHaveText(`revoked ${phone.device}`, { timeout: 60_000 });
    await expect(a.page.getByTestId('device-list').locator(`li[data-revoked="${phone.device}"]`)).toHaveCount(1);
    await expect(a.page.getByTestId('members').locator('li')).toHaveCount(3, { timeout: 60_000 });
    await expect(phone.page.getByTestId('removed')).toBeVisible({ timeout: 60_000 });
    const afterRevoke = `after the phone was revoked (${tag})`;
    await say(b.page, afterRevoke);
    await expect(a.page.getByTestId('messages').locator('li', { hasText: afterRevoke })).toBeVisible({ timeout: 60_000 });
    await expect(c.page.getByTestId('messages').locator('li', { hasText: afterRevoke })).toBeVisible({ timeout: 60_000 });
    await phone.page.waitForTimeout(1000);
    await expect(phone.page.getByTestId('messages').locator('li', { hasText: afterRevoke })).toHaveCount(0);
    await expect(phone.page.getByRole('button', { name: 'Send' })).toHaveCount(0);
    // Inviting Alice again adds no device of hers that her registry does not list: the phone's key packages
    // are still in the directory, and are passed over.
    await b.page.getByLabel('invite user').fill(alice);
    await b.page.getByLabel('invite user').press('Enter');
    await expect(b.page.getByTestId('room-error')).toContainText('NO_MATCHING_KEY_PACKAGE', { timeout: 60_000 });
    await expect(b.page.getByTestId('members').locator('li')).toHaveCount(3);

    // Alice removes Carol: Carol's device learns it from the log and reads nothing sent after.
    await a.page.getByRole('button', { name: `remove ${carol}` }).click();
    await expect(a.page.getByTestId('members').locator('li')).toHaveCount(2, { timeout: 60_000 });
    await expect(c.page.getByTestId('removed')).toBeVisible({ timeout: 60_000 });
    const after = `after carol left (${tag})`;
    await say(a.page, after);
    await expect(b.page.getByTestId('messages').locator('li', { hasText: after })).toBeVisible({ timeout: 60_000 });
    await c.page.waitForTimeout(1000);
    await expect(c.page.getByTestId('messages').locator('li', { hasText: after })).toHaveCount(0);
    await expect(c.page.getByRole('button', { name: 'Send' })).toHaveCount(0);

    for (const x of [a, b, c, phone]) expect(x.problems).toEqual([]);

    // The server's whole store: ciphertext and public metadata; none of the texts, as text or hex.
    const raw = readFileSync(dsFile(testInfo.project.name), 'utf8');
    const state = JSON.parse(raw) as { groups: Record<string, { entries: unknown[] }>; mailboxes: Record<string, unknown[]> };
    expect(Object.keys(state).sort()).toEqual(['groups', 'keyPackages', 'links', 'mailboxes', 'owners', 'registries']);
    for (const t of [...sent, afterRevoke, after, room]) {
      expect(raw.includes(t)).toBe(false);
      expect(raw.includes(Buffer.from(t).toString('hex'))).toBe(false);
    }
    // Nor the attachment's key (sent only inside an MLS message), in any encoding.
    for (const k of keys) for (const form of [k.toString('hex'), k.toString('base64'), k.toString('base64url')]) expect(raw.includes(form)).toBe(false);
    expect(Object.values(state.groups).some((g) => g.entries.length >= 84)).toBe(true);
  } finally {
    for (const x of contexts) await x.close();
  }
});
