/**
 * A small W3C WebDriver (classic) client over node:http, enough to drive WebKitGTK's MiniBrowser
 * through WebKitWebDriver: sessions, navigation, windows, script execution, elements. Every command of
 * one session runs after the previous one finished (WebDriver sessions are single-threaded: a second
 * command sent while an `execute/async` runs would be refused or reordered).
 */

import { request as httpRequest } from 'node:http';

/** The capabilities WebKitWebDriver needs to start MiniBrowser in automation mode. */
export const MINIBROWSER = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

/** A WebDriver error response, with the W3C error code (`no such element`, `javascript error`, …). */
export class WebDriverError extends Error {
  override readonly name = 'WebDriverError';
  constructor(readonly code: string, message: string) {
    super(`${code}: ${message}`);
  }
}

/** The W3C element reference key (WebDriver spec, "web element identifier"). */
const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';

/** A reference to an element returned by Find Element. */
export interface ElementRef { [ELEMENT]: string }

/**
 * One HTTP exchange with the driver. node:http rather than fetch: fetch (undici) gives up on a
 * response whose headers take over 300 s, and an `execute/async` running a long suite answers only
 * when the suite is done.
 */
function exchange(url: string, method: string, body: string | undefined): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers: { 'content-type': 'application/json; charset=utf-8' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body !== undefined) req.end(body);
    else req.end();
  });
}

async function request(url: string, method: string, body?: unknown): Promise<unknown> {
  const payload = body !== undefined ? JSON.stringify(body) : method === 'POST' ? '{}' : undefined;
  const response = await exchange(url, method, payload);
  const text = response.text;
  const ok = response.status >= 200 && response.status < 300;
  let parsed: { value?: unknown };
  try {
    parsed = text === '' ? {} : (JSON.parse(text) as { value?: unknown });
  } catch {
    throw new WebDriverError('invalid response', `${method} ${url}: HTTP ${response.status} ${text.slice(0, 200)}`);
  }
  const value = parsed.value;
  if (!ok) {
    const v = (value ?? {}) as { error?: string; message?: string };
    throw new WebDriverError(v.error ?? `HTTP ${response.status}`, v.message ?? text.slice(0, 500));
  }
  return value;
}

/** Options for a new session. */
export interface SessionOptions {
  /** Extra MiniBrowser arguments (after `--automation`). */
  browserArgs?: string[];
  /** Script timeout in milliseconds (execute/async); default 10 minutes (Playwright's test timeout governs). */
  scriptTimeout?: number;
}

/** One WebDriver session (one MiniBrowser process). */
export class WebDriverSession {
  private queue: Promise<unknown> = Promise.resolve();
  private current: string | undefined;

  private constructor(readonly driverUrl: string, readonly id: string) {}

  /** Starts MiniBrowser through the driver at `driverUrl` (e.g. `http://127.0.0.1:4481`). */
  static async create(driverUrl: string, options: SessionOptions = {}): Promise<WebDriverSession> {
    const value = (await request(`${driverUrl}/session`, 'POST', {
      capabilities: {
        alwaysMatch: {
          browserName: 'MiniBrowser',
          pageLoadStrategy: 'normal',
          timeouts: { script: options.scriptTimeout ?? 600_000, pageLoad: 120_000, implicit: 0 },
          'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation', ...(options.browserArgs ?? [])] },
        },
      },
    })) as { sessionId: string };
    return new WebDriverSession(driverUrl, value.sessionId);
  }

  /** Runs one command after every command queued before it. */
  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private raw(method: string, path: string, body?: unknown): Promise<unknown> {
    return request(`${this.driverUrl}/session/${this.id}${path}`, method, body);
  }

  /** Sends a command in window `handle` (switching to it first when another window is current). */
  command(handle: string | undefined, method: string, path: string, body?: unknown): Promise<unknown> {
    return this.enqueue(async () => {
      if (handle !== undefined && handle !== this.current) {
        await this.raw('POST', '/window', { handle });
        this.current = handle;
      }
      return this.raw(method, path, body);
    });
  }

  /** The handle of the window the session started with. */
  async initialWindow(): Promise<string> {
    const handle = (await this.command(undefined, 'GET', '/window')) as string;
    this.current = handle;
    return handle;
  }

  /** Every open window handle. */
  windows(): Promise<string[]> {
    return this.command(undefined, 'GET', '/window/handles') as Promise<string[]>;
  }

  /** Opens a new top-level window and returns its handle. */
  async newWindow(): Promise<string> {
    const value = (await this.command(undefined, 'POST', '/window/new', { type: 'window' })) as { handle: string };
    return value.handle;
  }

  /** Closes window `handle`. */
  async closeWindow(handle: string): Promise<void> {
    await this.command(handle, 'DELETE', '/window');
    this.current = undefined;
  }

  /** Ends the session (MiniBrowser exits). Never throws: the driver may already be gone. */
  async delete(): Promise<void> {
    await this.enqueue(() => this.raw('DELETE', '')).catch(() => undefined);
  }

  /** The element reference key, for building Element commands. */
  static elementId(ref: ElementRef): string {
    const id = (ref as Partial<ElementRef> | null)?.[ELEMENT];
    if (typeof id !== 'string') throw new WebDriverError('no such element', `Find Element answered without a "${ELEMENT}" key: ${JSON.stringify(ref)}`);
    return id;
  }
}
