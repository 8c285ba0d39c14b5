import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { ROOT, shot, signUpAt, watch } from './helpers.js';

// The Next.js example through `next start` (one project per build: Turbopack, webpack): two users
// in two browser contexts chat through the app's route handlers (prekey directory, SSE relay), a
// reload keeps the conversation, a frame tampered with on its way to the relay is rejected, and the
// server's store holds nothing but public prekey bundles and ciphertext frames. Plus the file drop
// and the bundler-matrix smoke page.

/** The store file each server mirrors its state to (VEILKIT_NEXT_STORE, set by scripts/packed/30-next-example.sh). */
const storeFile = (project: string): string => join(ROOT, 'examples/next', `store-${project}.json`);

function signUp(context: BrowserContext, name: string): Promise<{ page: Page; problems: string[] }> {
  return signUpAt(context, '/direct', name, { testId: 'prekeys', text: 'Prekeys published.' }, 720);
}

async function openChat(page: Page, peer: string): Promise<void> {
  await page.getByLabel('peer name').fill(peer);
  await page.getByRole('button', { name: 'Open' }).click();
  await expect(page.getByRole('heading', { name: `With ${peer}` })).toBeVisible();
}

async function say(page: Page, text: string): Promise<void> {
  await page.getByLabel('message').fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByTestId('messages').locator('li[data-from=me]', { hasText: text })).toBeVisible({ timeout: 60_000 });
}

const heard = (page: Page, text: string) => page.getByTestId('messages').locator('li[data-from=peer]', { hasText: text });

interface StoreData {
  bundles: Record<string, { bundle: string; oneTime: string[] }>;
  messages: { seq: number; from: string; to: string; body: string; at: number }[];
  nextSeq: number;
}

test('two users chat through the Next server, which stores only public bundles and ciphertext', async ({ browser }, testInfo) => {
  const tag = Math.random().toString(36).slice(2, 8);
  const alice = `alice-${tag}`;
  const bob = `bob-${tag}`;
  const sent: string[] = [];
  const a = await browser.newContext();
  const b = await browser.newContext();
  try {
    const { page: pa, problems: pA } = await signUp(a, alice);
    const { page: pb, problems: pB } = await signUp(b, bob);

    // Alice starts the session from a one-time bundle of Bob's; Bob answers from the initial message.
    await openChat(pa, bob);
    sent.push(`hello ${bob}, this is ${alice} ${tag}`);
    await say(pa, sent[0]!);
    await openChat(pb, alice);
    await expect(heard(pb, sent[0]!)).toBeVisible({ timeout: 60_000 });
    sent.push(`hi ${alice}, got it ${tag}`);
    await say(pb, sent[1]!);
    await expect(heard(pa, sent[1]!)).toBeVisible({ timeout: 60_000 });
    await expect(pa.getByTestId('conversation')).toHaveAttribute('data-status', 'success');
    await expect(pb.getByTestId('conversation')).toHaveAttribute('data-status', 'success');

    // Both sides show the same verification code.
    await pa.getByText('Verification code').click();
    await pb.getByText('Verification code').click();
    const code = await pa.getByTestId('verification-digits').textContent();
    expect(code).toMatch(/^[\d ]{60,}$/);
    await expect(pb.getByTestId('verification-digits')).toHaveText(code!);
    await shot(pa, testInfo, 'chat');

    // A reload keeps the conversation (history and session), and it goes on.
    await pb.reload();
    await expect(pb.getByTestId('me')).toHaveText(bob, { timeout: 60_000 });
    await expect(heard(pb, sent[0]!)).toBeVisible({ timeout: 60_000 });
    await expect(pb.getByTestId('messages').locator('li[data-from=me]', { hasText: sent[1]! })).toBeVisible();
    sent.push(`still here after the reload ${tag}`);
    await say(pa, sent[2]!);
    await expect(heard(pb, sent[2]!)).toBeVisible({ timeout: 60_000 });

    // A frame altered between Alice and the relay (one bit of its last byte) is rejected by Bob.
    await pa.route('**/api/messages', async (route) => {
      const body = JSON.parse(route.request().postData() ?? '{}') as { frame: string };
      const frame = Buffer.from(body.frame, 'base64');
      frame[frame.length - 1]! ^= 1;
      await route.continue({ postData: JSON.stringify({ ...body, frame: frame.toString('base64') }) });
    });
    const tampered = `this one is tampered with ${tag}`;
    await say(pa, tampered);
    await expect(pb.getByTestId('chat-error')).toContainText('Rejected 1 incoming message', { timeout: 60_000 });
    await expect(pb.getByTestId('chat-error')).toContainText('AUTHENTICATION_FAILED');
    await expect(heard(pb, tampered)).toHaveCount(0);
    await shot(pb, testInfo, 'tampered');
    await pa.unroute('**/api/messages');
    // The session survives the rejected frame.
    sent.push(`after the tampered one ${tag}`);
    await say(pa, sent[3]!);
    await expect(heard(pb, sent[3]!)).toBeVisible({ timeout: 60_000 });

    // No hydration warning, no error on either page (the tampered frame is reported in the UI only).
    expect(pA.concat(pB)).toEqual([]);

    // The server's store: public prekey bundles and ciphertext frames, nothing else.
    const raw = readFileSync(storeFile(testInfo.project.name), 'utf8');
    const store = JSON.parse(raw) as StoreData;
    expect(Object.keys(store).sort()).toEqual(['bundles', 'messages', 'nextSeq']);
    for (const user of [alice, bob]) {
      const entry = store.bundles[user]!;
      expect(Object.keys(entry).sort()).toEqual(['bundle', 'oneTime']);
      const reusable = Buffer.from(entry.bundle, 'base64');
      expect(reusable.subarray(0, 5).toString('latin1')).toBe('VKPB\x01');
      expect(reusable.length).toBe(10_034); // docs/SESSIONS.md §3: no one-time prekeys, version list [1, 2]
      for (const one of entry.oneTime) {
        const bytes = Buffer.from(one, 'base64');
        expect(bytes.subarray(0, 5).toString('latin1')).toBe('VKPB\x01');
        expect(bytes.length).toBe(18_038); // with a one-time X25519 and a one-time ML-KEM-768 prekey, version list [1, 2]
      }
    }
    // Each user fetched one of the other's one-time bundles: handed out once, gone from the directory.
    expect(store.bundles[bob]!.oneTime).toHaveLength(9);
    expect(store.bundles[alice]!.oneTime).toHaveLength(9);
    const ours = store.messages.filter((m) => m.from.endsWith(tag));
    expect(ours).toHaveLength(sent.length + 1);
    const frames = ours.map((m) => {
      expect(Object.keys(m).sort()).toEqual(['at', 'body', 'from', 'seq', 'to']);
      return Buffer.from(m.body, 'base64');
    });
    expect(frames.map((f) => f[0])).toEqual([1, 2, 2, 2, 2]); // an initial message, then ratchet messages
    for (const text of [...sent, tampered]) {
      const utf8 = Buffer.from(text, 'utf8');
      for (const form of [text, utf8.toString('base64'), utf8.toString('hex'), utf8.toString('base64url')]) {
        expect(raw.includes(form), `store holds ${form}`).toBe(false);
      }
      for (const f of frames) expect(f.includes(utf8), `a frame holds "${text}" in clear`).toBe(false);
    }
  } finally {
    await a.close();
    await b.close();
  }
});

test('file drop: encrypt with a password, then decrypt back to the same bytes', async ({ page }, testInfo) => {
  const problems = watch(page);
  await page.setViewportSize({ width: 1000, height: 720 });
  await page.goto('/direct');
  const data = Buffer.alloc(3 * 1024 * 1024);
  for (let i = 0; i < data.length; i += 4) data.writeUInt32LE((i * 2654435761) >>> 0, i);
  await page.getByLabel('choose a file').setInputFiles({ name: 'notes.bin', mimeType: 'application/octet-stream', buffer: data });
  await page.getByLabel('file password').fill('correct horse battery staple');
  await page.getByRole('button', { name: 'Encrypt' }).click();
  await expect(page.getByTestId('progress')).toBeVisible();
  const sealedLink = page.getByTestId('file-done').getByRole('link');
  await expect(sealedLink).toHaveText('notes.bin.vvlt', { timeout: 60_000 });
  await shot(page, testInfo, 'files');
  const [download] = await Promise.all([page.waitForEvent('download'), sealedLink.click()]);
  const sealed = readFileSync(await download.path());
  expect(sealed.length).toBeGreaterThan(data.length);
  expect(sealed.includes(data.subarray(0, 4096))).toBe(false);

  await page.getByLabel('choose a file').setInputFiles({ name: 'notes.bin.vvlt', mimeType: 'application/octet-stream', buffer: sealed });
  await page.getByLabel('file password').fill('correct horse battery staple');
  await page.getByRole('button', { name: 'Decrypt' }).click();
  const plainLink = page.getByTestId('file-done').getByRole('link');
  await expect(plainLink).toHaveText('notes.bin', { timeout: 60_000 });
  const [again] = await Promise.all([page.waitForEvent('download'), plainLink.click()]);
  expect(readFileSync(await again.path()).equals(data)).toBe(true);
  expect(problems).toEqual([]);
});

test('smoke page (bundler matrix contract) passes', async ({ page }) => {
  const problems = watch(page);
  await page.goto('/smoke');
  await expect(page.locator('body')).toHaveAttribute('data-smoke', /.+/, { timeout: 90_000 });
  expect(await page.locator('body').getAttribute('data-smoke')).toBe('pass');
  expect(problems).toEqual([]);
});
