// The React example (examples/react), built from the packed package and served by `vite preview`
// (tests/examples/react/playwright.config.ts): the file drop (a real DataTransfer drop, 5 MiB there
// and back to identical bytes, cancel mid-file), the keys page round trip, and the chat between
// two panes (equal verification codes, marked verified, the relay's own session held as an identity
// change and rejected, a tampered message rejected) and across two tabs.
// Screenshots of each screen go to the test output; with VEILKIT_DOCS_SCREENSHOTS=1 they are also
// copied to docs/images/react-*.png (the README's pictures).
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page, type TestInfo } from '@playwright/test';

const MiB = 1024 * 1024;
const DOCS_IMAGES = join(dirname(fileURLToPath(import.meta.url)), '../../../docs/images');

async function screenshot(page: Page, info: TestInfo, name: string): Promise<void> {
  const path = info.outputPath(`${name}.png`);
  await page.screenshot({ path, fullPage: true });
  if (process.env.VEILKIT_DOCS_SCREENSHOTS === '1') {
    mkdirSync(DOCS_IMAGES, { recursive: true });
    copyFileSync(path, join(DOCS_IMAGES, `${name}.png`));
  }
}

/** Waits until the provider has loaded veilkit (any build) and returns the build in use. */
async function ready(page: Page): Promise<string> {
  const status = page.getByTestId('veil-status');
  await expect(status).toHaveAttribute('data-build', /^(simd|threads)$/, { timeout: 60_000 });
  return (await status.getAttribute('data-build')) ?? '';
}

/**
 * Drops a file on the drop zone the way a browser does: a DataTransfer holding a File, in
 * dragenter / dragover / drop events. `source` is either random bytes of a size (returns their
 * SHA-256), a size made of one repeated 1 MiB random part (cheap for huge files), or the Blob behind
 * a download link (its object URL).
 */
async function drop(page: Page, name: string, source: { random: number } | { repeatedMiB: number } | { href: string }): Promise<string> {
  return page.evaluate(async ({ name, source }) => {
    const toHex = (b: ArrayBuffer) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
    let file: File;
    let hash = '';
    if ('random' in source) {
      const bytes = new Uint8Array(source.random);
      for (let i = 0; i < bytes.length; i += 65_536) crypto.getRandomValues(bytes.subarray(i, i + 65_536));
      hash = toHex(await crypto.subtle.digest('SHA-256', bytes));
      file = new File([bytes], name);
    } else if ('repeatedMiB' in source) {
      const part = new Blob([crypto.getRandomValues(new Uint8Array(65_536)).buffer]);
      const mib = new Blob(Array.from({ length: 16 }, () => part));
      file = new File(Array.from({ length: source.repeatedMiB }, () => mib), name);
    } else {
      const blob = await (await fetch(source.href)).blob();
      hash = toHex(await crypto.subtle.digest('SHA-256', await blob.arrayBuffer()));
      file = new File([blob], name);
    }
    const dt = new DataTransfer();
    dt.items.add(file);
    const zone = document.querySelector('[data-testid=dropzone]');
    if (zone === null) throw new Error('no drop zone');
    for (const type of ['dragenter', 'dragover', 'drop']) {
      zone.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
    }
    return hash;
  }, { name, source });
}

/** SHA-256 (hex) of the Blob behind a link's object URL, read in the page. */
async function hashOfLink(page: Page, testId: string): Promise<string> {
  const href = await page.getByTestId(testId).getAttribute('href');
  expect(href).toMatch(/^blob:/);
  return page.evaluate(async (href) => {
    const bytes = await (await fetch(href)).arrayBuffer();
    return Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)), (x) => x.toString(16).padStart(2, '0')).join('');
  }, href ?? '');
}

test('file drop: a 5 MiB file dropped, encrypted with progress, downloaded, dropped back, inspected and decrypted to identical bytes', async ({ page }, info) => {
  await page.goto('/#files');
  const build = await ready(page);
  info.annotations.push({ type: 'wasm build', description: build });

  const original = await drop(page, 'random.bin', { random: 5 * MiB });
  await expect(page.getByTestId('file-name')).toHaveText('random.bin');
  await page.getByTestId('password').fill('correct horse battery staple');
  await page.getByTestId('encrypt').click();
  await expect(page.getByTestId('file-status')).toHaveAttribute('data-status', 'success', { timeout: 60_000 });
  // The progress bar reached the whole file, with a rate.
  await expect(page.getByTestId('progress-bar')).toHaveAttribute('data-done', String(5 * MiB));
  await expect(page.getByTestId('rate')).toContainText('MB/s');

  // The download carries the container.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-container').click()]);
  expect(download.suggestedFilename()).toBe('random.bin.vvlt');
  const saved = readFileSync(await download.path());
  const containerHash = await hashOfLink(page, 'download-container');
  expect(createHash('sha256').update(saved).digest('hex')).toBe(containerHash);
  expect(saved.subarray(0, 8).toString('latin1')).toBe('VOLLVALT');

  // Dropped back: inspected without a key.
  const href = await page.getByTestId('download-container').getAttribute('href');
  await drop(page, 'random.bin.vvlt', { href: href ?? '' });
  await expect(page.getByTestId('container-panel')).toBeVisible();
  await expect(page.getByTestId('chunk-count')).toHaveText('5');
  await expect(page.getByTestId('wraps')).toContainText('Argon2id');
  await expect(page.getByTestId('signer')).toHaveText('unsigned');
  await expect(page.getByTestId('merkle-root')).toHaveText(/^[0-9a-f]{64}$/);

  // A wrong password is refused; the right one gives the original bytes back.
  await page.getByTestId('decrypt-password').fill('wrong password');
  await page.getByTestId('decrypt').click();
  await expect(page.getByTestId('file-status')).toHaveAttribute('data-status', 'error', { timeout: 60_000 });
  await expect(page.getByTestId('download-plain')).toHaveCount(0);
  await page.getByTestId('decrypt-password').fill('correct horse battery staple');
  await page.getByTestId('decrypt').click();
  await expect(page.getByTestId('file-status')).toHaveAttribute('data-status', 'success', { timeout: 60_000 });
  await expect(page.getByTestId('progress-bar')).toHaveAttribute('data-done', String(5 * MiB));
  await expect(page.getByTestId('download-plain')).toHaveText(/random\.bin/);
  expect(await hashOfLink(page, 'download-plain')).toBe(original);

  // Random access: every chunk authenticated, the Merkle root matches.
  await page.getByTestId('verify').click();
  await expect(page.getByTestId('verify-report')).toContainText('intact: 5 chunks authenticated', { timeout: 60_000 });
  await screenshot(page, info, 'react-files');
});

test('file drop: cancelling mid-file stops the job, shows it cancelled and offers no download', async ({ page }) => {
  await page.goto('/#files');
  await ready(page);
  await drop(page, 'big.bin', { repeatedMiB: 2048 });
  await page.getByTestId('password').fill('pw');
  await page.getByTestId('encrypt').click();
  // Wait for the chunk phase (after the Argon2id derivation): some bytes done, not all.
  await expect.poll(async () => Number(await page.getByTestId('progress-bar').getAttribute('data-done') ?? '0'), { timeout: 60_000 })
    .toBeGreaterThan(0);
  await page.getByTestId('cancel').click();
  await expect(page.getByTestId('file-status')).toHaveAttribute('data-status', 'error');
  await expect(page.getByTestId('file-status')).toContainText('cancelled');
  const done = Number(await page.getByTestId('progress-bar').getAttribute('data-done'));
  expect(done).toBeLessThan(2048 * MiB);
  await expect(page.getByTestId('download-container')).toHaveCount(0);
  await expect(page.getByTestId('cancel')).toHaveCount(0);
});

test('keys: create an identity, the phrase shown once, lock and unlock, export and import a backup, then encrypt a file to it', async ({ page }, info) => {
  await page.goto('/#keys');
  await ready(page);
  await page.getByTestId('label').fill('alice');
  await page.getByTestId('create').click();
  const phrase = (await page.getByTestId('phrase').textContent({ timeout: 60_000 })) ?? '';
  expect(phrase.trim().split(/\s+/)).toHaveLength(24);
  const id = (await page.getByTestId('identity-id').textContent()) ?? '';
  expect(id).toMatch(/^[0-9a-f]{64}$/);
  await expect(page.getByTestId('identity-label')).toHaveText('alice');
  await screenshot(page, info, 'react-keys');

  // Shown once: gone when dismissed, and not back after a reload.
  await page.getByTestId('phrase-done').click();
  await expect(page.getByTestId('phrase-box')).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId('identity-id')).toHaveText(id, { timeout: 60_000 });
  await expect(page.getByTestId('phrase-box')).toHaveCount(0);
  expect(await page.content()).not.toContain(phrase.trim());

  // Lock with a passphrase, then unlock.
  await page.getByTestId('passphrase').fill('keystore passphrase');
  await page.getByTestId('lock').click();
  await expect(page.getByTestId('lock-state')).toHaveAttribute('data-locked', 'true', { timeout: 60_000 });
  await expect(page.getByTestId('export-backup')).toBeDisabled();
  await page.getByTestId('unlock').click();
  await expect(page.getByTestId('lock-state')).toHaveAttribute('data-locked', 'false', { timeout: 60_000 });

  // Export a backup, delete the identity, import the backup: the same identity is back.
  await page.getByTestId('backup-passphrase').fill('backup passphrase');
  await page.getByTestId('export-backup').click();
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), page.getByTestId('download-backup').click()]);
  const backupPath = await download.path();
  await page.getByTestId('delete').click();
  await expect(page.getByTestId('create')).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('identity-id')).toHaveCount(0);
  await page.getByTestId('backup-file').setInputFiles(backupPath);
  await page.getByTestId('import-backup').click();
  await expect(page.getByTestId('identity-id')).toHaveText(id, { timeout: 60_000 });
  await expect(page.getByTestId('keys-status')).toHaveText('backup imported');

  // The identity as a file recipient (and signer): encrypted to it, opened with it.
  await page.goto('/#files');
  await ready(page);
  const original = await drop(page, 'note.txt', { random: 64 * 1024 });
  await page.getByTestId('mode-recipient').check();
  await expect(page.getByTestId('sign')).toBeChecked();
  await page.getByTestId('encrypt').click();
  await expect(page.getByTestId('file-status')).toHaveAttribute('data-status', 'success', { timeout: 60_000 });
  await page.getByTestId('inspect-result').click();
  await expect(page.getByTestId('wraps')).toContainText('recipient');
  await expect(page.getByTestId('signer')).toHaveAttribute('data-signature', 'hybrid');
  await page.getByTestId('decrypt').click();
  await expect(page.getByTestId('file-status')).toHaveAttribute('data-status', 'success', { timeout: 60_000 });
  await expect(page.getByTestId('signature-info')).toHaveText('signature: hybrid');
  expect(await hashOfLink(page, 'download-plain')).toBe(original);
});

test('chat: two panes establish a session from a prekey bundle, equal verification codes, the relay\'s own session held as an identity change, a tampered message rejected', async ({ page }, info) => {
  await page.goto('/#chat');
  await ready(page);
  const alice = page.getByTestId('pane-alice');
  const bob = page.getByTestId('pane-bob');
  await expect(page.getByTestId('wire')).toContainText('prekey bundle:', { timeout: 60_000 });

  await alice.getByTestId('draft').fill('hello bob');
  await alice.getByTestId('send').click();
  await expect(bob.getByTestId('messages')).toContainText('hello bob', { timeout: 60_000 });
  await bob.getByTestId('draft').fill('hi alice');
  await bob.getByTestId('send').click();
  await expect(alice.getByTestId('messages')).toContainText('hi alice', { timeout: 60_000 });

  // The same verification code on both sides.
  const digits = (await alice.getByTestId('code-digits').textContent()) ?? '';
  expect(digits).toMatch(/\d{5}/);
  await expect(bob.getByTestId('code-digits')).toHaveText(digits);
  const emoji = (await alice.getByTestId('code-emoji').textContent()) ?? '';
  expect(emoji.length).toBeGreaterThan(0);
  await expect(bob.getByTestId('code-emoji')).toHaveText(emoji);
  // Bound on first use, unverified until the user says the codes match.
  await expect(bob.getByTestId('unverified')).toBeVisible();
  await bob.getByTestId('mark-verified').click();
  await expect(bob.getByTestId('verified')).toBeVisible();

  // The relay starts a session of its own with Bob (its identity, Bob's public bundle): Bob sees an
  // identity change, not its text; his next message still goes to Alice; he rejects the change.
  await page.getByTestId('relay-inject').click();
  const change = bob.getByTestId('identity-change');
  await expect(change).toBeVisible({ timeout: 60_000 });
  await expect(change).toContainText('alice was verified');
  await expect(change.getByTestId('change-digits')).not.toHaveText(digits);
  await expect(bob.getByTestId('messages')).not.toContainText('new phone');
  await bob.getByTestId('draft').fill('still you, alice?');
  await bob.getByTestId('send').click();
  await expect(alice.getByTestId('messages')).toContainText('still you, alice?', { timeout: 60_000 });
  await change.getByTestId('reject-change').click();
  await expect(change).toHaveCount(0);
  await expect(bob.getByTestId('verified')).toBeVisible();
  await expect(bob.getByTestId('messages')).not.toContainText('new phone');

  // A bit flipped in transit: Bob rejects that message, and the next one still arrives.
  await alice.getByTestId('tamper').check();
  await alice.getByTestId('draft').fill('tampered in transit');
  await alice.getByTestId('send').click();
  await expect(bob.getByTestId('rejected')).toHaveAttribute('data-count', '1', { timeout: 60_000 });
  await expect(bob.getByTestId('rejected')).toContainText('rejected');
  await expect(alice.getByTestId('tamper')).not.toBeChecked();
  await alice.getByTestId('draft').fill('this one is intact');
  await alice.getByTestId('send').click();
  await expect(bob.getByTestId('messages')).toContainText('this one is intact', { timeout: 60_000 });
  await expect(bob.getByTestId('messages')).not.toContainText('tampered in transit');
  await screenshot(page, info, 'react-chat');
});

test('chat across two tabs over a BroadcastChannel', async ({ context }) => {
  const bobTab = await context.newPage();
  await bobTab.goto('/#chat-tab?me=bob');
  await ready(bobTab);
  const aliceTab = await context.newPage();
  await aliceTab.goto('/#chat-tab?me=alice');
  await ready(aliceTab);
  const alice = aliceTab.getByTestId('pane-alice');
  const bob = bobTab.getByTestId('pane-bob');
  await expect(alice.getByTestId('send')).toBeDisabled();
  await alice.getByTestId('draft').fill('across tabs');
  await expect(alice.getByTestId('send')).toBeEnabled({ timeout: 60_000 });
  await alice.getByTestId('send').click();
  await expect(bob.getByTestId('messages')).toContainText('across tabs', { timeout: 60_000 });
  await bob.getByTestId('draft').fill('received');
  await bob.getByTestId('send').click();
  await expect(alice.getByTestId('messages')).toContainText('received', { timeout: 60_000 });
  const digits = (await alice.getByTestId('code-digits').textContent()) ?? '';
  expect(digits).toMatch(/\d{5}/);
  await expect(bob.getByTestId('code-digits')).toHaveText(digits);
});
