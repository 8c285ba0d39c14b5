/**
 * The veilkit file demo (plain TypeScript, no framework): drop a file →
 * password or recipient protection → progress with MB/s → download the
 * container; drop the container back → the original.
 *
 * Served by `npm run demo` (tests/server.mjs, cross-origin isolated). The
 * recipient mode keeps every secret in the browser's keystore worker: the
 * demo identity's X-Wing key decapsulates there, the page only sees
 * non-extractable CryptoKeys.
 */
import {
  Keystore, VeilError, decryptFile, encryptFile, inspectContainer, saveFile,
  type FileProgress, type FileUnlock, type IdentityHandle, type PublicBundle,
} from '../../ts/index.js';

const $ = <T extends HTMLElement>(id: string, type: new () => T): T => {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} missing`);
  if (!(el instanceof type)) throw new Error(`#${id} is not a ${type.name}`);
  return el;
};

const drop = $('drop', HTMLElement);
const fileInput = $('file', HTMLInputElement);
const dropTitle = $('drop-title', HTMLElement);
const dropDetail = $('drop-detail', HTMLElement);
const protection = $('protection', HTMLFieldSetElement);
const passwordBox = $('password-box', HTMLElement);
const recipientBox = $('recipient-box', HTMLElement);
const password = $('password', HTMLInputElement);
const recipient = $('recipient', HTMLInputElement);
const identityButton = $('identity', HTMLButtonElement);
const identityStatus = $('identity-status', HTMLElement);
const go = $('go', HTMLButtonElement);
const status = $('status', HTMLElement);
const progress = $('progress', HTMLProgressElement);
const rate = $('rate', HTMLElement);
const info = $('info', HTMLElement);

/** `?save=download` forces the object-URL download (tests); default: the save picker where available. */
const saveMethod = new URLSearchParams(location.search).get('save') === 'download' ? 'download' : 'auto';
const MAGIC = 'VOLLVALT';

let current: File | undefined;
let isContainer = false;
let busy: AbortController | undefined;
let keystore: Keystore | undefined;
let identity: IdentityHandle | undefined;
let bundle: PublicBundle | undefined;

function mode(): 'password' | 'recipient' {
  return (document.querySelector<HTMLInputElement>('input[name=mode]:checked')?.value ?? 'password') as 'password' | 'recipient';
}

function say(text: string, error = false): void {
  status.textContent = text;
  status.classList.toggle('error', error);
}

function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(bytes < 1e7 ? 2 : 1)} MB`;
}

function hexToBytes(hex: string): Uint8Array {
  const clean = hex.replace(/[^0-9a-f]/gi, '');
  const out = new Uint8Array(clean.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(clean.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function toHex(b: Uint8Array): string {
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
}

/** Progress bar and MB/s (plaintext bytes over wall time, the password's KDF included). */
function tracker(): (p: FileProgress) => void {
  const start = performance.now();
  progress.value = 0;
  rate.textContent = '';
  return (p) => {
    if (p.phase === 'kdf') {
      rate.textContent = 'deriving the key from the password…';
      return;
    }
    const seconds = (performance.now() - start) / 1000;
    progress.value = p.bytesTotal === 0 ? 1 : p.bytesDone / p.bytesTotal;
    rate.textContent = `${mb(p.bytesDone)} of ${mb(p.bytesTotal)} · ${seconds > 0 ? (p.bytesDone / 1e6 / seconds).toFixed(1) : '–'} MB/s`;
  };
}

function refresh(): void {
  passwordBox.hidden = mode() !== 'password';
  recipientBox.hidden = mode() !== 'recipient';
  const keyReady = mode() === 'password' ? password.value.length > 0 : isContainer ? identity !== undefined : identity !== undefined || recipient.value.trim().length > 0;
  go.disabled = busy !== undefined || current === undefined || !keyReady;
  go.textContent = busy ? 'Cancel' : isContainer ? 'Decrypt' : 'Encrypt';
  if (busy) go.disabled = false;
}

async function choose(file: File): Promise<void> {
  current = file;
  const head = new TextDecoder().decode(await file.slice(0, 8).arrayBuffer());
  isContainer = head === MAGIC;
  dropTitle.textContent = file.name;
  dropDetail.textContent = `${mb(file.size)} · ${isContainer ? 'VOLLVALT container — will be decrypted' : 'will be encrypted'}`;
  info.hidden = true;
  progress.value = 0;
  rate.textContent = '';
  say('');
  if (isContainer) {
    try {
      const c = await inspectContainer(file);
      const h = c.header;
      info.textContent = [
        `version ${h.version} · ${h.mode} · ${h.wraps.map((w) => w.type).join(', ') || 'no wraps'}`,
        `plaintext ${mb(h.plaintextSize)} in ${h.chunkCount} chunks of ${h.chunkSize / 1024} KiB · Merkle ${h.hashAlgorithm}`,
        `signature: ${c.signature}${c.sealed ? ' · SEALED' : ''}${c.lengthValid === false ? ' · length does not match the header' : ''}`,
      ].join('\n');
      info.hidden = false;
      const radio = document.querySelector<HTMLInputElement>(`input[name=mode][value=${h.mode === 'recipient' ? 'recipient' : 'password'}]`);
      if (radio) radio.checked = true;
    } catch (e) {
      say(`Not a readable container: ${describe(e)}`, true);
    }
  }
  refresh();
}

function describe(e: unknown): string {
  if (e instanceof VeilError) {
    const hints: Partial<Record<string, string>> = {
      AUTHENTICATION_FAILED: 'wrong password or key, or the file was modified',
      TRUNCATED: 'the file is incomplete',
      NO_MATCHING_WRAP: 'this container is not protected that way (or not for this identity)',
      SEALED: 'the container is sealed',
    };
    return `${e.code}${hints[e.code] ? ` (${hints[e.code]})` : ''}`;
  }
  if (e instanceof DOMException && e.name === 'AbortError') return 'cancelled';
  return e instanceof Error ? e.message : String(e);
}

async function ensureIdentity(): Promise<void> {
  keystore ??= await Keystore.open({ name: 'veilkit-demo' });
  if (!identity) {
    const existing = await keystore.listIdentities();
    identity = existing.find((i) => i.label === 'demo') ?? (await keystore.createIdentity({ label: 'demo' }));
  }
  bundle = await keystore.getPublicBundle(identity);
  identityStatus.textContent = `identity ${identity.id.slice(0, 12)}… (its X-Wing key stays in the keystore worker)`;
  recipient.value = toHex(bundle.xWing);
  refresh();
}

async function run(): Promise<void> {
  if (!current) return;
  const file = current;
  const controller = new AbortController();
  busy = controller;
  refresh();
  const onProgress = tracker();
  const started = performance.now();
  try {
    if (!isContainer) {
      say('Encrypting…');
      const protect = mode() === 'password'
        ? { password: password.value }
        : { recipients: [identity && bundle && recipient.value === toHex(bundle.xWing) ? bundle : hexToBytes(recipient.value)] };
      const sealed = await encryptFile(file, { ...protect, signal: controller.signal, onProgress, type: 'application/vnd.veilkit.vvlt' });
      const seconds = (performance.now() - started) / 1000;
      say(`Encrypted ${mb(file.size)} in ${seconds.toFixed(2)} s — saving ${file.name}.vvlt`);
      await saveFile(sealed, `${file.name}.vvlt`, { method: saveMethod });
    } else {
      say('Decrypting…');
      let unlock: FileUnlock;
      if (mode() === 'password') unlock = password.value;
      else if (keystore && identity) unlock = { keystore, identity };
      else throw new Error('no identity yet: choose "use my identity" first');
      const plain = await decryptFile(file, unlock, { signal: controller.signal, onProgress });
      const name = file.name.endsWith('.vvlt') ? file.name.slice(0, -5) : `${file.name}.decrypted`;
      const seconds = (performance.now() - started) / 1000;
      say(`Decrypted and verified ${mb(plain.size)} in ${seconds.toFixed(2)} s — saving ${name}`);
      await saveFile(plain, name, { method: saveMethod });
    }
    progress.value = 1;
  } catch (e) {
    say(`Failed: ${describe(e)}`, true);
  } finally {
    busy = undefined;
    refresh();
  }
}

drop.addEventListener('click', () => fileInput.click());
drop.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' || e.key === ' ') fileInput.click();
});
drop.addEventListener('dragover', (e) => {
  e.preventDefault();
  drop.classList.add('over');
});
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  const f = e.dataTransfer?.files[0];
  if (f) void choose(f);
});
fileInput.addEventListener('change', () => {
  const f = fileInput.files?.[0];
  if (f) void choose(f);
  fileInput.value = '';
});
protection.addEventListener('change', refresh);
password.addEventListener('input', refresh);
recipient.addEventListener('input', refresh);
identityButton.addEventListener('click', () => {
  identityButton.disabled = true;
  ensureIdentity().catch((e: unknown) => say(`Keystore: ${describe(e)}`, true)).finally(() => {
    identityButton.disabled = false;
  });
});
go.addEventListener('click', () => {
  if (busy) busy.abort();
  else void run();
});
refresh();
document.documentElement.dataset.ready = 'true';
