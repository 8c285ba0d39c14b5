/**
 * Playwright-shaped `BrowserContext` and `Page` objects over one WebDriver session (WebKitGTK's
 * MiniBrowser through WebKitWebDriver). They implement the part of Playwright's API the test corpus
 * and the bench scripts use; every other member throws `NotSupportedError` ("not supported by the
 * WebKit WebDriver adapter: page.X"), so a spec that needs more fails by name instead of misbehaving.
 *
 * What is implemented, and how:
 * - `page.goto` (relative to `baseURL`, waits for `load` — WebDriver's normal page-load strategy),
 *   `reload`, `url` (synchronous: the URL as of the last goto/reload/waitForLoadState), `title`, `close`, `evaluate(fn | expression, arg)` (the function's source is
 *   started by `execute/sync` and its result polled, so evaluates in two windows run concurrently; arguments and results go through ./codec.ts, so undefined, NaN, ±Infinity,
 *   -0, bigint, typed arrays, Date, Map, Set and Error survive; an exception in the page rejects with
 *   `page.evaluate: <name>: <message>` like Playwright), `waitForFunction`, `waitForLoadState`.
 * - Elements by CSS selector: `click` / `check` (real WebDriver clicks, so they count as user gestures),
 *   `fill`, `setInputFiles` (a `File` built in the page and assigned through `DataTransfer`),
 *   `locator(selector)` with `textContent`, `click`, and the state the WebKit `expect` matchers
 *   (./matchers.ts) poll.
 * - Events, best effort (WebDriver classic has no event stream): `console` and `pageerror` come from
 *   hooks installed in the page after each navigation and drained after each `evaluate` (messages from
 *   workers, and messages logged before the hooks are installed, are not captured); `download` comes
 *   from a hook on anchors with a `download` attribute and object URLs (the page's own save path; what
 *   the browser would write to disk is not observed); `context.waitForEvent('page')` polls the window
 *   handles for a new window. `requestfailed` and `crash` listeners are accepted and never called.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PAGE_CODEC, decode, encode } from './codec.js';
import { WebDriverSession, type ElementRef } from './webdriver.js';

/** Thrown by every Playwright member the adapter does not implement. */
export class NotSupportedError extends Error {
  override readonly name = 'NotSupportedError';
  constructor(member: string) {
    super(`not supported by the WebKit WebDriver adapter: ${member}`);
  }
}

/** Wraps `target` so that reading a member it lacks returns a function that throws NotSupportedError. */
function guarded<T extends object>(target: T, kind: string): T {
  return new Proxy(target, {
    get(obj, prop, receiver) {
      if (prop in obj || typeof prop === 'symbol' || prop === 'then' || prop === 'toJSON' || prop.startsWith('_') || prop === 'asymmetricMatch' || prop === 'nodeType' || prop === '$$typeof') {
        return Reflect.get(obj, prop, receiver) as unknown;
      }
      return () => {
        throw new NotSupportedError(`${kind}.${prop}`);
      };
    },
  });
}

type Listener = (value: unknown) => void;

/** Page-side hooks: console/pageerror capture and download capture (installed once per document). */
const HOOKS = `(() => {
  if (window.__veilkitHooks) return;
  window.__veilkitHooks = { log: [], downloads: [], blobs: new Map() };
  const h = window.__veilkitHooks;
  const text = (args) => args.map((a) => { try { return typeof a === 'string' ? a : a instanceof Error ? String(a) : JSON.stringify(a) ?? String(a); } catch { return String(a); } }).join(' ');
  for (const type of ['log', 'info', 'warn', 'error', 'debug']) {
    const original = console[type].bind(console);
    console[type] = (...args) => { h.log.push({ kind: 'console', type: type === 'warn' ? 'warning' : type, text: text(args) }); original(...args); };
  }
  addEventListener('error', (e) => h.log.push({ kind: 'pageerror', name: e.error?.name ?? 'Error', message: e.error?.message ?? e.message }));
  addEventListener('unhandledrejection', (e) => h.log.push({ kind: 'pageerror', name: e.reason?.name ?? 'Error', message: e.reason?.message ?? String(e.reason) }));
  const create = URL.createObjectURL.bind(URL);
  URL.createObjectURL = (blob) => { const url = create(blob); h.blobs.set(url, blob); return url; };
  const capture = (a) => {
    if (!(a instanceof HTMLAnchorElement) || !a.hasAttribute('download')) return false;
    const name = a.getAttribute('download') || a.href.split('/').pop() || 'download';
    const blob = h.blobs.get(a.href);
    const entry = { name, bytes: null, error: null };
    h.downloads.push(entry);
    (blob ? Promise.resolve(blob) : fetch(a.href).then((r) => r.blob()))
      .then((b) => b.arrayBuffer()).then((ab) => { entry.bytes = new Uint8Array(ab); }, (e) => { entry.error = String(e); });
    return true;
  };
  const click = HTMLAnchorElement.prototype.click;
  HTMLAnchorElement.prototype.click = function () { if (capture(this)) return; return click.call(this); };
  document.addEventListener('click', (e) => { const a = e.target instanceof Element ? e.target.closest('a[download]') : null; if (a && capture(a)) e.preventDefault(); }, true);
})()`;

/**
 * The script that starts an `evaluate`: runs the function (source inlined; arguments[0] = encoded
 * argument) without waiting for it, and returns a run id; the result lands in
 * `window.__veilkitRuns[id]`, which `evaluate` polls. Start-and-poll rather than one
 * `execute/async`: a WebDriver session runs one script at a time, so an `execute/async` in one window
 * would hold back every other window's evaluate (two pages racing each other would run one after
 * the other).
 */
function startScript(source: string, isFunction: boolean): string {
  const body = isFunction ? `const fn = (${source});\n return fn(C.decode(args[0]));` : `return (${source});`;
  return `const C = ${PAGE_CODEC};
const runs = (window.__veilkitRuns ??= { next: 0, results: {} });
const id = ++runs.next;
const drain = () => { const h = window.__veilkitHooks; if (!h) return []; const l = h.log; h.log = []; return l; };
const args = arguments;
(async function () { ${body} })()
  .then((v) => { try { runs.results[id] = { ok: C.encode(v), log: drain() }; } catch (e) { runs.results[id] = { err: { name: 'Error', message: 'result not serializable: ' + e }, log: drain() }; } },
        (e) => { runs.results[id] = { err: e instanceof Error ? { name: e.name, message: e.message, stack: String(e.stack || '') } : { name: '', message: typeof e === 'string' ? e : JSON.stringify(C.encode(e)) }, log: drain() }; });
return id;`;
}

/** Polls run `arguments[0]`: its result (and forgets it), null while running, 'gone' after a navigation. */
const POLL = `const runs = window.__veilkitRuns; if (!runs) return 'gone'; const r = runs.results[arguments[0]]; if (r === undefined) return null; delete runs.results[arguments[0]]; return r;`;

/** A download captured from the page. */
export interface WebKitDownload {
  suggestedFilename(): string;
  path(): Promise<string>;
}

/** Options of a context. */
export interface ContextOptions {
  baseURL?: string | undefined;
}

/** A WebDriver session shaped like Playwright's BrowserContext. */
export class WebKitContextImpl {
  readonly _pages: WebKitPageImpl[] = [];
  private closed = false;
  private readonly listeners = new Map<string, Listener[]>();

  constructor(readonly _session: WebDriverSession, readonly _options: ContextOptions, private readonly onClose: () => Promise<void> = async () => {}) {}

  /** Opens the session's first window as a page. */
  async _init(): Promise<WebKitPageImpl> {
    const handle = await this._session.initialWindow();
    return this._adopt(handle);
  }

  _adopt(handle: string): WebKitPageImpl {
    const page = guarded(new WebKitPageImpl(this, handle), 'page');
    this._pages.push(page);
    for (const l of this.listeners.get('page') ?? []) l(page);
    return page;
  }

  pages(): WebKitPageImpl[] {
    return [...this._pages];
  }

  async newPage(): Promise<WebKitPageImpl> {
    const handle = await this._session.newWindow();
    return this._adopt(handle);
  }

  on(event: string, listener: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }

  /** `page`: resolves with the next window that opens (polls the window handles). */
  async waitForEvent(event: string, options: { timeout?: number } = {}): Promise<WebKitPageImpl> {
    if (event !== 'page') throw new NotSupportedError(`context.waitForEvent('${event}')`);
    const known = new Set(this._pages.map((p) => p._handle));
    const deadline = Date.now() + (options.timeout ?? 30_000);
    while (Date.now() < deadline) {
      const handles = await this._session.windows();
      const fresh = handles.find((h) => !known.has(h));
      if (fresh !== undefined) return this._adopt(fresh);
      await sleep(100);
    }
    throw new Error(`context.waitForEvent('page'): no new window within ${options.timeout ?? 30_000} ms`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this._session.delete();
    await this.onClose();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** One window of the session, shaped like Playwright's Page. */
export class WebKitPageImpl {
  private readonly listeners = new Map<string, Listener[]>();
  private closed = false;
  private _url = 'about:blank';

  constructor(readonly _context: WebKitContextImpl, readonly _handle: string) {}

  private cmd(method: string, path: string, body?: unknown): Promise<unknown> {
    return this._context._session.command(this._handle, method, path, body);
  }

  context(): WebKitContextImpl {
    return this._context;
  }

  /** `page.request`: HTTP from Node (fetch), like Playwright's APIRequestContext for `get`; no cookies shared. */
  readonly request = guarded({
    get: async (url: string) => {
      const response = await fetch(new URL(url, this._context._options.baseURL));
      const body = Buffer.from(await response.arrayBuffer());
      const headers: Record<string, string> = {};
      response.headers.forEach((value, key) => {
        headers[key] = value;
      });
      return { status: () => response.status, ok: () => response.ok, headers: () => headers, body: () => Promise.resolve(body), text: () => Promise.resolve(body.toString('utf8')) };
    },
  }, 'page.request');

  on(event: string, listener: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }

  private emit(event: string, value: unknown): void {
    for (const l of this.listeners.get(event) ?? []) l(value);
  }

  private async installHooks(): Promise<void> {
    await this.cmd('POST', '/execute/sync', { script: HOOKS, args: [] }).catch(() => undefined);
  }

  async goto(url: string): Promise<{ url(): string; ok(): boolean; status(): number } | null> {
    const target = new URL(url, this._context._options.baseURL).href;
    await this.cmd('POST', '/url', { url: target });
    await this.installHooks();
    const finalUrl = this._currentUrl();
    const status = await this.evaluate<number, undefined>(() => {
      const nav = performance.getEntriesByType('navigation')[0] as (PerformanceEntry & { responseStatus?: number }) | undefined;
      return nav?.responseStatus ?? 0;
    });
    const resolved = await finalUrl;
    return {
      url: () => resolved,
      ok: () => status === 0 || (status >= 200 && status < 300),
      status: () => {
        if (status === 0) throw new NotSupportedError('response.status() (the navigation timing entry has no responseStatus)');
        return status;
      },
    };
  }

  async reload(): Promise<null> {
    await this.cmd('POST', '/refresh');
    await this.installHooks();
    await this._currentUrl();
    return null;
  }

  async waitForLoadState(): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const state = await this.evaluate(() => document.readyState).catch(() => 'loading');
      if (state === 'complete') {
        await this.installHooks();
        await this._currentUrl();
        return;
      }
      await sleep(100);
    }
    throw new Error('page.waitForLoadState: the document did not finish loading within 30 s');
  }

  /**
   * The URL as of the last `goto`, `reload`, `waitForLoadState` or URL matcher poll: synchronous like
   * Playwright's `page.url()`, but WebDriver has no navigation events, so a navigation the page makes
   * by itself shows here only after one of those (e.g. a popup's URL after `popup.waitForLoadState()`).
   */
  url(): string {
    return this._url;
  }

  /** Asks the driver for the current URL (and remembers it for `url()`). */
  async _currentUrl(): Promise<string> {
    this._url = (await this.cmd('GET', '/url')) as string;
    return this._url;
  }

  async title(): Promise<string> {
    return (await this.cmd('GET', '/title')) as string;
  }

  isClosed(): boolean {
    return this.closed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const pages = this._context._pages;
    pages.splice(pages.indexOf(this), 1);
    await this._context._session.closeWindow(this._handle).catch(() => undefined);
  }

  async evaluate<R, A>(fn: string | ((arg: A) => R | Promise<R>), arg?: A): Promise<R> {
    const isFunction = typeof fn === 'function';
    const id = (await this.cmd('POST', '/execute/sync', { script: startScript(isFunction ? fn.toString() : fn, isFunction), args: [encode(arg)] })) as number;
    type Outcome = {
      ok?: unknown;
      err?: { name: string; message: string; stack?: string };
      log?: { kind: string; type?: string; text?: string; name?: string; message?: string }[];
    } | null | 'gone';
    let result: Outcome = null;
    for (let wait = 2; result === null; wait = Math.min(wait * 2, 50)) {
      await sleep(wait);
      result = (await this.cmd('POST', '/execute/sync', { script: POLL, args: [id] })) as Outcome;
    }
    if (result === 'gone') throw new Error('page.evaluate: the page navigated or closed while evaluating');
    for (const entry of result.log ?? []) {
      if (entry.kind === 'console') this.emit('console', { type: () => entry.type ?? 'log', text: () => entry.text ?? '' });
      else if (entry.kind === 'pageerror') {
        const e = new Error(entry.message ?? '');
        e.name = entry.name ?? 'Error';
        this.emit('pageerror', e);
      }
    }
    if (result.err !== undefined) {
      const { name, message, stack } = result.err;
      const e = new Error(`page.evaluate: ${name === '' ? '' : `${name}: `}${message}`);
      if (stack !== undefined && stack !== '') e.stack = `${e.message}\n${stack}`;
      throw e;
    }
    return decode(result.ok) as R;
  }

  async waitForFunction<R, A>(fn: string | ((arg: A) => R | Promise<R>), arg?: A, options: { timeout?: number; polling?: number } = {}): Promise<{ jsonValue(): Promise<R> }> {
    const timeout = options.timeout ?? 30_000;
    const deadline = Date.now() + timeout;
    for (;;) {
      const value = await this.evaluate(fn, arg);
      if (value) return { jsonValue: () => Promise.resolve(value) };
      if (Date.now() > deadline) throw new Error(`page.waitForFunction: timeout ${timeout} ms exceeded`);
      await sleep(options.polling ?? 100);
    }
  }

  /** Finds the element `selector` matches, waiting up to `timeout` for it to exist. */
  async _find(selector: string, timeout = 30_000): Promise<string> {
    const deadline = Date.now() + timeout;
    for (;;) {
      try {
        const ref = (await this.cmd('POST', '/element', { using: 'css selector', value: selector })) as ElementRef;
        return WebDriverSession.elementId(ref);
      } catch (e) {
        if (Date.now() > deadline) throw e;
        await sleep(100);
      }
    }
  }

  /** A real click (WebDriver Element Click), retried while the element is not yet interactable. */
  async click(selector: string, options: { timeout?: number } = {}): Promise<void> {
    const timeout = options.timeout ?? 30_000;
    const deadline = Date.now() + timeout;
    for (;;) {
      try {
        const id = await this._find(selector, timeout);
        await this.cmd('POST', `/element/${id}/click`);
        return;
      } catch (e) {
        if (Date.now() > deadline) throw e;
        await sleep(100);
      }
    }
  }

  async check(selector: string): Promise<void> {
    const checked = await this.evaluate<boolean, string>((s) => document.querySelector<HTMLInputElement>(s)?.checked ?? false, selector);
    if (!checked) await this.click(selector);
  }

  async fill(selector: string, value: string): Promise<void> {
    await this._find(selector);
    await this.evaluate(({ s, v }) => {
      const el = document.querySelector(s) as HTMLInputElement | HTMLTextAreaElement;
      el.focus();
      const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
      Object.getOwnPropertyDescriptor(proto, 'value')?.set?.call(el, v);
      el.dispatchEvent(new Event('input', { bubbles: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
    }, { s: selector, v: value });
  }

  async setInputFiles(selector: string, files: { name: string; mimeType: string; buffer: Uint8Array } | { name: string; mimeType: string; buffer: Uint8Array }[]): Promise<void> {
    const list = (Array.isArray(files) ? files : [files]).map((f) => ({ name: f.name, type: f.mimeType, bytes: new Uint8Array(f.buffer.buffer, f.buffer.byteOffset, f.buffer.byteLength) }));
    await this._find(selector);
    await this.evaluate(({ s, l }) => {
      const input = document.querySelector(s) as HTMLInputElement;
      const dt = new DataTransfer();
      for (const f of l) dt.items.add(new File([f.bytes as Uint8Array<ArrayBuffer>], f.name, { type: f.type }));
      input.files = dt.files;
      input.dispatchEvent(new Event('input', { bubbles: true }));
      input.dispatchEvent(new Event('change', { bubbles: true }));
    }, { s: selector, l: list });
  }

  locator(selector: string): WebKitLocator {
    return guarded(new WebKitLocator(this, selector), 'locator');
  }

  /** `download` (see the file comment): resolves with the next download the page starts. */
  async waitForEvent(event: string, options: { timeout?: number } = {}): Promise<WebKitDownload> {
    if (event !== 'download') throw new NotSupportedError(`page.waitForEvent('${event}')`);
    await this.installHooks();
    const start = await this.evaluate<number, undefined>(() => (window as unknown as { __veilkitHooks: { downloads: unknown[] } }).__veilkitHooks.downloads.length);
    const deadline = Date.now() + (options.timeout ?? 60_000);
    while (Date.now() < deadline) {
      const got = await this.evaluate((i) => {
        const d = (window as unknown as { __veilkitHooks?: { downloads: { name: string; bytes: Uint8Array | null; error: string | null }[] } }).__veilkitHooks?.downloads[i];
        return d === undefined || (d.bytes === null && d.error === null) ? null : d;
      }, start);
      if (got !== null) {
        if (got.error !== null) throw new Error(`download failed in the page: ${got.error}`);
        const name = got.name;
        const bytes = got.bytes ?? new Uint8Array();
        return {
          suggestedFilename: () => name,
          path: () => {
            const file = join(mkdtempSync(join(tmpdir(), 'veilkit-wk-download-')), 'download');
            writeFileSync(file, bytes);
            return Promise.resolve(file);
          },
        };
      }
      await sleep(100);
    }
    throw new Error(`page.waitForEvent('download'): none within ${options.timeout ?? 60_000} ms`);
  }
}

/** What the WebKit matchers read from an element (./matchers.ts). */
export interface ElementState {
  exists: boolean;
  text: string;
  value: string;
  checked: boolean;
  disabled: boolean;
  attributes: Record<string, string>;
  property: unknown;
}

/** A CSS selector in a page, shaped like Playwright's Locator (the part the specs use). */
export class WebKitLocator {
  constructor(readonly _page: WebKitPageImpl, readonly _selector: string) {}

  async _state(property?: string): Promise<ElementState> {
    return this._page.evaluate(({ s, p }) => {
      const el = document.querySelector(s);
      if (el === null) return { exists: false, text: '', value: '', checked: false, disabled: false, attributes: {}, property: undefined };
      const attributes: Record<string, string> = {};
      for (const a of Array.from(el.attributes)) attributes[a.name] = a.value;
      const input = el as HTMLInputElement;
      return {
        exists: true,
        text: el.textContent ?? '',
        value: typeof input.value === 'string' ? input.value : '',
        checked: input.checked === true,
        disabled: input.disabled === true,
        attributes,
        property: p === undefined ? undefined : (el as unknown as Record<string, unknown>)[p],
      };
    }, { s: this._selector, p: property });
  }

  async textContent(): Promise<string | null> {
    await this._page._find(this._selector);
    const s = await this._state();
    return s.exists ? s.text : null;
  }

  click(): Promise<void> {
    return this._page.click(this._selector);
  }
}
