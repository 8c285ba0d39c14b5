// The file demo (examples/vanilla, `npm run demo`) driven end to end: `/`
// leads to it; a file is chosen, protected by a password or for a recipient
// (a keystore identity), encrypted with a progress bar and MB/s, downloaded;
// the container is dropped back and the original comes out, byte for byte.
import { test, expect, type Page } from './test.js';
import { readFileSync } from 'node:fs';

const ORIGINAL = Buffer.from(Array.from({ length: 3 * 1024 * 1024 + 4321 }, (_, i) => (i * 131 + (i >> 9)) & 0xff));

async function download(page: Page, click: () => Promise<void>): Promise<{ name: string; bytes: Buffer }> {
  const [d] = await Promise.all([page.waitForEvent('download'), click()]);
  const path = await d.path();
  return { name: d.suggestedFilename(), bytes: readFileSync(path) };
}

async function open(page: Page): Promise<void> {
  await page.goto('/?save=download');
  await expect(page).toHaveURL(/\/examples\/vanilla\/\?save=download$/);
  await expect(page.locator('html')).toHaveAttribute('data-ready', 'true');
}

test('`/` redirects to the demo', async ({ page }) => {
  const r = await page.goto('/');
  expect(r?.url()).toMatch(/\/examples\/vanilla\/$/);
  await expect(page).toHaveTitle(/veilkit/);
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
});

test('password: drop a file, encrypt with progress and MB/s, download, drop it back, get the original', async ({ page }) => {
  await open(page);
  await page.setInputFiles('#file', { name: 'report.bin', mimeType: 'application/octet-stream', buffer: ORIGINAL });
  await expect(page.locator('#drop-title')).toHaveText('report.bin');
  await expect(page.locator('#go')).toBeDisabled();
  await page.fill('#password', 'correct horse battery staple');
  await expect(page.locator('#go')).toHaveText('Encrypt');
  const sealed = await download(page, () => page.click('#go'));
  expect(sealed.name).toBe('report.bin.vvlt');
  expect(sealed.bytes.subarray(0, 8).toString('latin1')).toBe('VOLLVALT');
  expect(sealed.bytes.length).toBeGreaterThan(ORIGINAL.length);
  await expect(page.locator('#progress')).toHaveJSProperty('value', 1);
  await expect(page.locator('#rate')).toHaveText(/3\.15 MB of 3\.15 MB · [\d.]+ MB\/s/);
  await expect(page.locator('#status')).toHaveText(/Encrypted 3\.15 MB/);

  // Drop it back (a fresh page: nothing kept in memory).
  await open(page);
  await page.setInputFiles('#file', { name: sealed.name, mimeType: 'application/octet-stream', buffer: sealed.bytes });
  await expect(page.locator('#drop-detail')).toContainText('VOLLVALT container');
  await expect(page.locator('#info')).toContainText('version 4 · password · argon2id');
  await expect(page.locator('#go')).toHaveText('Decrypt');
  await page.fill('#password', 'wrong password');
  await page.click('#go');
  await expect(page.locator('#status')).toHaveText(/Failed: AUTHENTICATION_FAILED/);
  await page.fill('#password', 'correct horse battery staple');
  const plain = await download(page, () => page.click('#go'));
  expect(plain.name).toBe('report.bin');
  expect(plain.bytes.equals(ORIGINAL)).toBe(true);
  await expect(page.locator('#status')).toHaveText(/Decrypted and verified 3\.15 MB/);
});

test('recipient: encrypt for a keystore identity, decrypt with it', async ({ page }) => {
  await open(page);
  await page.setInputFiles('#file', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('post-quantum hello\n'.repeat(1000)) });
  await page.check('input[name=mode][value=recipient]');
  await page.click('#identity');
  // The first keystore use on a fresh profile opens IndexedDB, compiles the keystore worker's
  // wasm and generates the identity (ML-DSA-65 + X-Wing): under a loaded CI machine's Firefox
  // that has taken longer than the default 5 s. A keystore error shows in #status: fail on it
  // with its text rather than wait out the timeout.
  // (waitForFunction, not locator.or: the WebKit WebDriver adapter has no locator.or.)
  await page.waitForFunction(() => (document.getElementById('identity-status')?.textContent ?? '').includes('identity')
    || (document.getElementById('status')?.textContent ?? '').includes('Keystore:'), undefined, { timeout: 30_000 });
  await expect(page.locator('#status')).not.toContainText('Keystore:');
  await expect(page.locator('#identity-status')).toContainText('identity');
  await expect(page.locator('#recipient')).toHaveValue(/^[0-9a-f]{2432}$/);
  const sealed = await download(page, () => page.click('#go'));
  expect(sealed.name).toBe('notes.txt.vvlt');
  // Same browser profile (the identity lives in its keystore): drop the container back.
  await page.setInputFiles('#file', { name: sealed.name, mimeType: 'application/octet-stream', buffer: sealed.bytes });
  await expect(page.locator('#info')).toContainText('version 4 · recipient · recipient');
  await expect(page.locator('input[name=mode][value=recipient]')).toBeChecked();
  const plain = await download(page, () => page.click('#go'));
  expect(plain.name).toBe('notes.txt');
  expect(plain.bytes.toString()).toBe('post-quantum hello\n'.repeat(1000));
});
