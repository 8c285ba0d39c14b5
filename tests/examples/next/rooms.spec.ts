import { readFileSync, readdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { ROOT, shot, signUpAt } from './helpers.js';

// The rooms app (examples/next, `/`): three users in three browser contexts through the app's delivery
// service (app/api/ds, veilkit/server): a room is created, two users are invited by name and join from
// their mailboxes, everyone sends 20 messages, a device reloads mid-conversation, a member is removed and
// reads nothing after; every page shows the same messages in the same order; an attachment goes through the
// server as a file container and opens to the same bytes; the server's whole store (mirrored to a file)
// holds no plaintext.

const dsFile = (project: string): string => join(ROOT, 'examples/next', `ds-${project}.json`);
/** Where each server streams attachments (VEILKIT_NEXT_FILES, set by scripts/packed/30-next-example.sh). */
const filesDir = (project: string): string => join(ROOT, 'examples/next', `files-${project}`);

function signUp(context: BrowserContext, name: string): Promise<{ page: Page; problems: string[] }> {
  return signUpAt(context, '/', name, { testId: 'key-packages', text: 'Key packages published.' }, 760);
}

const messages = (page: Page) => page.getByTestId('messages').locator('li');

async function say(page: Page, text: string): Promise<void> {
  await page.getByLabel('message').fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByTestId('messages').locator('li[data-from=me]', { hasText: text })).toBeVisible({ timeout: 60_000 });
}

async function openRoom(page: Page, room: string): Promise<void> {
  await page.getByTestId('rooms').locator(`button[data-room="${room}"]`).click({ timeout: 60_000 });
  await expect(page.getByRole('heading', { name: `Room ${room}` })).toBeVisible({ timeout: 60_000 });
}

/** The texts shown, in order (a received message starts with "<name>: "). */
async function shown(page: Page): Promise<string[]> {
  return (await messages(page).allInnerTexts()).map((t) => t.replace(/^[a-z0-9_-]+: /, '').replace(/ …$/, ''));
}

test('rooms: create, invite two by name, 20 messages from each, a reload mid-conversation, an attachment, a removed member reads nothing after, the server holds no plaintext', async ({ browser }, testInfo) => {
  test.skip(testInfo.project.name === 'webpack', 'the rooms story runs once, on the Turbopack build: the webpack build serves the same client code, which chat.spec.ts and /smoke check in both builds');
  test.setTimeout(420_000);
  const tag = Math.random().toString(36).slice(2, 7);
  const [alice, bob, carol] = [`alice-${tag}`, `bob-${tag}`, `carol-${tag}`];
  const room = `plans ${tag}`;
  const contexts = await Promise.all([browser.newContext(), browser.newContext(), browser.newContext()]);
  try {
    const [a, b, c] = await Promise.all([signUp(contexts[0], alice), signUp(contexts[1], bob), signUp(contexts[2], carol)]);
    const pages = [a.page, b.page, c.page];

    await a.page.getByLabel('room name').fill(room);
    await a.page.getByRole('button', { name: 'Create room' }).click();
    await expect(a.page.getByRole('heading', { name: `Room ${room}` })).toBeVisible({ timeout: 60_000 });
    for (const user of [bob, carol]) {
      await a.page.getByLabel('invite user').fill(user);
      await a.page.getByRole('button', { name: 'Invite' }).click();
      await expect(a.page.getByTestId('members').locator('li')).toHaveCount(user === bob ? 2 : 3, { timeout: 60_000 });
    }
    // The invited devices find their welcome in their mailbox (a server-sent event) and join.
    await openRoom(b.page, room);
    await openRoom(c.page, room);

    const sent: string[] = [];
    for (let i = 0; i < 20; i++) {
      for (const [p, who] of [[a.page, alice], [b.page, bob], [c.page, carol]] as const) {
        const text = `${who.split('-')[0]} says ${i} (${tag})`;
        sent.push(text);
        await say(p, text);
      }
      if (i === 9) {
        // Bob reloads mid-conversation: the room, its history and its cursor come back from the keystore.
        await b.page.reload();
        await expect(b.page.getByRole('heading', { name: `Room ${room}` })).toBeVisible({ timeout: 60_000 });
        await expect(messages(b.page)).toHaveCount(sent.length, { timeout: 60_000 });
      }
    }
    for (const p of pages) {
      await expect(messages(p)).toHaveCount(60, { timeout: 120_000 });
      await expect(p.getByTestId('messages').locator('li[data-status=pending]')).toHaveCount(0, { timeout: 60_000 });
    }
    // One order for everyone: the delivery service's log.
    const order = await shown(a.page);
    expect(new Set(order)).toEqual(new Set(sent));
    expect(await shown(b.page)).toEqual(order);
    expect(await shown(c.page)).toEqual(order);
    await shot(a.page, testInfo, 'rooms');

    // An attachment: encrypted in Alice's browser into a file container, uploaded (ciphertext only), its
    // reference and key sent in the room; Bob downloads and decrypts it to the same bytes.
    const data = randomBytes(300_000);
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

    for (const x of [a, b, c]) expect(x.problems).toEqual([]);

    // The server's whole store: ciphertext and public metadata; none of the texts, as text or hex.
    const raw = readFileSync(dsFile(testInfo.project.name), 'utf8');
    const state = JSON.parse(raw) as { groups: Record<string, { entries: unknown[] }>; mailboxes: Record<string, unknown[]> };
    expect(Object.keys(state).sort()).toEqual(['groups', 'keyPackages', 'links', 'mailboxes', 'owners', 'registries']);
    for (const t of [...sent, after, room]) {
      expect(raw.includes(t)).toBe(false);
      expect(raw.includes(Buffer.from(t).toString('hex'))).toBe(false);
    }
    expect(Object.values(state.groups).some((g) => g.entries.length >= 62)).toBe(true);
  } finally {
    for (const x of contexts) await x.close();
  }
});
