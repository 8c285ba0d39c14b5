/**
 * What every spec imports instead of '@playwright/test': the same `test` and `expect`, with the
 * `context` and `page` fixtures of the engine under test (tests/shared/engines.ts). In Chromium and
 * Firefox they are Playwright's own; in WebKit they come from the WebDriver adapter
 * (tests/shared/webkit/), which implements the part of the Page API the specs use and throws a
 * named error for the rest.
 */
import { test as base, expect as baseExpect, chromium, firefox, type BrowserContext } from '@playwright/test';
import { ENGINE, persistentLaunch, type Engine } from '../shared/engines.js';
import { webkitContext, webkitPage, launchWebKitPersistent, webkitMatchers, WEBKIT_NO_PROFILE } from '../shared/webkit/fixtures.js';

/**
 * `expect`; in WebKit extended with web-first matchers (toHaveTitle, toHaveText, …) that work on the
 * adapter's pages and locators (Playwright's own only accept Playwright objects).
 */
export const expect: typeof baseExpect = ENGINE === 'webkit' ? baseExpect.extend(webkitMatchers) : baseExpect;
export type { Page, BrowserContext } from '@playwright/test';

/** The engine this run tests. */
export const engine: Engine = ENGINE;

/** `test` with the engine's fixtures. */
export const test = ENGINE === 'webkit' ? base.extend({ context: webkitContext, page: webkitPage }) : base;

/**
 * Why this engine cannot keep a browser profile across a restart (`launchPersistent`), or undefined
 * when it can. The restart tests skip with this reason.
 */
export const noPersistentProfile: string | undefined = ENGINE === 'webkit' ? WEBKIT_NO_PROFILE : undefined;

/**
 * A browser with a profile kept in `userDataDir` (the restart tests close it and open it again on the
 * same directory). `baseURL` resolves relative `goto` paths.
 */
export async function launchPersistent(userDataDir: string, baseURL: string): Promise<BrowserContext> {
  if (ENGINE === 'webkit') return launchWebKitPersistent(userDataDir, baseURL);
  const { browserName, options } = persistentLaunch(ENGINE);
  const type = browserName === 'firefox' ? firefox : chromium;
  return type.launchPersistentContext(userDataDir, { ...options, baseURL });
}
