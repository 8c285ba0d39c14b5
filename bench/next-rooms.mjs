#!/usr/bin/env node
// Group chat through the Next example's server (issue 30 figures), Chromium: four devices (`--devices`; four browser
// contexts, each its own keystore) in one room of the rooms app (examples/next, `/`). One device sends
// `--messages` (default 200) messages of `--size` bytes (default 1,024), one at a time, each after the
// previous one is shown on the other three; for each, the time from the click on "Send" to the message
// shown (in the DOM) on each of the other three (the pages' clocks are the machine's). Also the delivery
// service's stored bytes per message (its store file, VEILKIT_NEXT_DS_STORE, before and after). Then the sender's
// user links one more device (a fifth context) and the time of linking is measured: from "Link to my account" on
// the new browser (device identity, key packages, the link) and from "Link device" on the first one (the link
// itself, the registry published, the room's commit adding the device) to the new device linked and in the room.
//
// Needs the example built and served with its store mirrored, e.g. (from examples/next):
//   NEXT_DIST_DIR=.next-turbopack VEILKIT_NEXT_DS_STORE=$PWD/ds-bench.json node node_modules/next/dist/bin/next start -p 8970
// then: node bench/next-rooms.mjs --url http://127.0.0.1:8970 --store examples/next/ds-bench.json
import { readFileSync, statSync } from 'node:fs';
import { chromium } from '@playwright/test';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : dflt;
};
const url = arg('url', 'http://127.0.0.1:8970');
const storeFile = arg('store', undefined);
const count = Number(arg('messages', '200'));
const size = Number(arg('size', '1024'));
const { CHROMIUM } = await import('../dist/tests/shared/chromium.js');

const browser = await chromium.launch({ ...CHROMIUM.launchOptions, headless: true });
const tag = Math.random().toString(36).slice(2, 7);
const devices = Number(arg('devices', '4'));
const users = 'abcdefgh'.slice(0, devices).split('').map((x) => `${x}${tag}`);
const room = `bench ${tag}`;

async function signUp(name) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url);
  await page.getByLabel('your name').fill(name);
  await page.getByRole('button', { name: 'Create identity' }).click();
  await page.getByText('Key packages published.').waitFor({ timeout: 60_000 });
  await page.locator('[data-testid=device-role][data-role=primary]').waitFor({ timeout: 60_000 });
  return page;
}

/** Bytes of the store's JSON, with bytes as hex: ciphertext bytes are (hex length) / 2. */
function storedMessageBytes() {
  if (storeFile === undefined) return undefined;
  const s = JSON.parse(readFileSync(storeFile, 'utf8'));
  let n = 0;
  for (const g of Object.values(s.groups)) for (const e of g.entries) n += e.message.hex.length / 2;
  return { messages: n, file: statSync(storeFile).size };
}

try {
  const pages = [];
  for (const u of users) pages.push(await signUp(u));
  const [sender, ...others] = pages;
  await sender.getByLabel('room name').fill(room);
  await sender.getByRole('button', { name: 'Create room' }).click();
  await sender.getByRole('heading', { name: `Room ${room}` }).waitFor();
  for (const u of users.slice(1)) {
    await sender.getByLabel('invite user').fill(u);
    await sender.getByRole('button', { name: 'Invite' }).click();
  }
  for (const p of others) {
    await p.locator(`button[data-room="${room}"]`).click({ timeout: 60_000 });
    await p.getByRole('heading', { name: `Room ${room}` }).waitFor();
  }
  // Each receiving page records when each text first appears.
  for (const p of others) {
    await p.evaluate(() => {
      const seen = new Map();
      window.benchSeen = seen;
      new MutationObserver(() => {
        for (const li of document.querySelectorAll('[data-testid=messages] li')) {
          const t = li.textContent ?? '';
          const m = /#(\d+)#/.exec(t);
          if (m && !seen.has(m[1])) seen.set(m[1], Date.now());
        }
      }).observe(document.body, { childList: true, subtree: true, characterData: true });
    });
  }
  const before = storedMessageBytes();
  const sentAt = [];
  const filler = 'x'.repeat(Math.max(0, size - 16));
  for (let i = 0; i < count; i++) {
    const text = `#${i}#${filler}`.slice(0, size);
    await sender.getByLabel('message').fill(text);
    // The click and its time in the page, in one task.
    sentAt.push(await sender.evaluate(() => {
      const button = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Send');
      const t = Date.now();
      button.click();
      return t;
    }));
    for (const p of others) await p.waitForFunction((k) => window.benchSeen.has(String(k)), i, { timeout: 60_000, polling: 'raf' });
  }
  const after = storedMessageBytes();
  const delays = [];
  for (const p of others) {
    const seen = await p.evaluate(() => Object.fromEntries(window.benchSeen));
    for (let i = 0; i < count; i++) delays.push(seen[String(i)] - sentAt[i]);
  }
  // Link a new device of the sender's user, mid-conversation.
  const phone = await (await browser.newContext()).newPage();
  await phone.goto(url);
  await phone.getByLabel('your name').fill(users[0]);
  const linkStart = Date.now();
  await phone.getByRole('button', { name: 'Link to my account' }).click();
  const codeEl = phone.getByTestId('link-code');
  await phone.waitForFunction(() => /^[A-Z2-7]{26}$/.test(document.querySelector('[data-testid=link-code]')?.textContent ?? ''), null, { timeout: 60_000 });
  const codeShown = Date.now();
  await sender.getByLabel('link code').fill((await codeEl.textContent()) ?? '');
  const typed = Date.now();
  await sender.getByRole('button', { name: 'Link device' }).click();
  await phone.locator('[data-testid=device-role][data-role=linked]').waitFor({ timeout: 60_000 });
  const linked = Date.now();
  await phone.locator(`button[data-room="${room}"]`).waitFor({ timeout: 60_000 });
  const inRoom = Date.now();

  delays.sort((x, y) => x - y);
  const q = (f) => delays[Math.min(delays.length - 1, Math.floor(f * delays.length))];
  console.log(`next-rooms: ${count} messages of ${size} B from one device to ${devices - 1} others through ${url} (Chromium, one browser, ${devices} contexts)`);
  console.log(`send → shown on another device: median ${q(0.5)} ms, p95 ${q(0.95)} ms, max ${delays.at(-1)} ms (${delays.length} deliveries)`);
  if (before && after) {
    const per = (after.messages - before.messages) / count;
    console.log(`delivery service: ${per.toFixed(0)} stored message bytes per ${size}-byte message (${(per / size).toFixed(2)}×; the store's JSON file grew ${((after.file - before.file) / count).toFixed(0)} B per message, bytes as hex)`);
  }
  console.log(`link a device (the app, Chromium): code shown ${codeShown - linkStart} ms after "Link to my account" (device identity, 10 key packages, the link started); `
    + `from "Link device" on the first device: linked ${linked - typed} ms, in the room ${inRoom - typed} ms (its commit, the welcome, the join, the room's name)`);
} finally {
  await browser.close();
}
