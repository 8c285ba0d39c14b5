/**
 * WebKit (WebKitGTK's MiniBrowser driven by WebKitWebDriver, W3C WebDriver classic) as Playwright
 * `context` and `page` fixtures, `launchWebKitPersistent` for the restart tests, and `openWebKit` for
 * scripts outside the test runner (bench).
 *
 * Servers: under the test runner, ./global-setup.ts starts one Xvfb + WebKitWebDriver pair for the
 * run and publishes the driver URL in VEILKIT_WEBKIT_DRIVER; each context is a new WebDriver session,
 * i.e. a new MiniBrowser process with its own (ephemeral) website data, like a fresh Playwright
 * context. Without that variable (a spec run some other way, or `openWebKit`) the servers are started
 * for the context and stopped when it closes.
 */
import type {
  BrowserContext, Page, PlaywrightTestArgs, PlaywrightTestOptions, PlaywrightWorkerArgs, PlaywrightWorkerOptions, TestFixture,
} from '@playwright/test';
import { WebKitContextImpl, type WebKitPageImpl } from './page.js';
import { startWebKitServers } from './servers.js';
import { WebDriverSession } from './webdriver.js';

import { NotSupportedError } from './page.js';

export { NotSupportedError };
export { webkitMatchers } from './matchers.js';

/** Every fixture value a test-scoped fixture can depend on. */
type Args = PlaywrightTestArgs & PlaywrightTestOptions & PlaywrightWorkerArgs & PlaywrightWorkerOptions;

/** The environment variable carrying the driver URL from the global setup to the workers. */
export const DRIVER_ENV = 'VEILKIT_WEBKIT_DRIVER';

/** A new MiniBrowser session as a context (servers from the global setup, or its own). */
async function newContext(baseURL: string | undefined, browserArgs: string[] = []): Promise<{ context: WebKitContextImpl; page: WebKitPageImpl }> {
  const shared = process.env[DRIVER_ENV];
  const servers = shared === undefined || shared === '' ? await startWebKitServers() : undefined;
  try {
    const session = await WebDriverSession.create(servers?.url ?? shared ?? '', { browserArgs });
    const context = new WebKitContextImpl(session, { baseURL }, async () => servers?.stop());
    const page = await context._init();
    return { context, page };
  } catch (e) {
    await servers?.stop();
    throw e;
  }
}

/** The `context` fixture in WebKit: one MiniBrowser session per test, closed after it. */
export const webkitContext: TestFixture<BrowserContext, Args> = async ({ baseURL }, use) => {
  const { context } = await newContext(baseURL);
  try {
    await use(context as unknown as BrowserContext);
  } finally {
    await context.close();
  }
};

/** The `page` fixture in WebKit: the context's first window. */
export const webkitPage: TestFixture<Page, Args> = async ({ context }, use) => {
  const impl = context as unknown as WebKitContextImpl;
  const page = impl.pages()[0] ?? (await impl.newPage());
  await use(page as unknown as Page);
};

/**
 * Why WebKit has no persistent profile here: checked by starting MiniBrowser twice with
 * XDG_DATA_HOME/XDG_CACHE_HOME pointing at one directory — IndexedDB and localStorage written in the
 * first run were gone in the second.
 */
export const WEBKIT_NO_PROFILE =
  'WebKitWebDriver drives MiniBrowser only in automation mode, whose website data (IndexedDB, localStorage) is ephemeral: nothing survives a browser restart';

/**
 * A WebKit browser on a kept profile directory: not available (see WEBKIT_NO_PROFILE); rejects with
 * NotSupportedError rather than hand out a context whose data would silently vanish on restart.
 */
export function launchWebKitPersistent(userDataDir: string, baseURL: string): Promise<BrowserContext> {
  return Promise.reject(new NotSupportedError(`launchPersistent(${userDataDir}, ${baseURL}): ${WEBKIT_NO_PROFILE}`));
}

/**
 * The argument that names the run's WebKitWebDriver on its command line (`--port=<port>`, from the
 * driver URL the global setup published), or undefined without one. The driver's process tree is
 * every MiniBrowser it launched and their WebKitWebProcess / WebKitNetworkProcess children, so
 * tests/shared/process-memory.ts measures WebKit's browser processes from it.
 */
export function webkitDriverProcessArg(): string | undefined {
  const shared = process.env[DRIVER_ENV];
  return shared === undefined || shared === '' ? undefined : `--port=${new URL(shared).port}`;
}

/** WebKit for scripts outside the test runner: a page at `baseURL` and a `close` that stops everything. */
export async function openWebKit(options: { baseURL?: string } = {}): Promise<{ page: Page; context: BrowserContext; close: () => Promise<void> }> {
  const { context, page } = await newContext(options.baseURL);
  return { page: page as unknown as Page, context: context as unknown as BrowserContext, close: () => context.close() };
}
