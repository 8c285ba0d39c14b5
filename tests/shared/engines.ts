/**
 * The three browser engines the test corpus runs in, and how each is launched. One Playwright config
 * (playwright.config.ts) serves all three: VEILKIT_ENGINE (chromium by default) picks the project, so
 * `VEILKIT_ENGINE=firefox npx playwright test` runs the whole corpus in Firefox. `npm test` runs the
 * three as separate steps (scripts/test.sh).
 *
 * - chromium: Debian's /usr/bin/chromium through Playwright (tests/shared/chromium.ts).
 * - firefox: Debian's Firefox ESR over WebDriver BiDi, Playwright's `moz-firefox` channel; the
 *   executable Playwright starts is tests/shared/firefox-bidi.mjs, a relay in front of
 *   /usr/bin/firefox-esr (see that file for why).
 * - webkit: WebKitGTK's MiniBrowser under Xvfb, driven by WebKitWebDriver (W3C WebDriver classic);
 *   tests/shared/webkit/ adapts it to the part of Playwright's Page API the specs use.
 */
import { fileURLToPath } from 'node:url';
import { CHROMIUM } from './chromium.js';

/** A browser engine of the test corpus. */
export type Engine = 'chromium' | 'firefox' | 'webkit';

/** Every engine, in the order `npm test` runs them. */
export const ENGINES: readonly Engine[] = ['chromium', 'firefox', 'webkit'];

function engineFromEnv(): Engine {
  const value = process.env.VEILKIT_ENGINE ?? 'chromium';
  const found = ENGINES.find((e) => e === value);
  if (found === undefined) throw new Error(`VEILKIT_ENGINE must be one of ${ENGINES.join(', ')}; got ${JSON.stringify(value)}`);
  return found;
}

/** The engine this process tests (VEILKIT_ENGINE, default chromium). */
export const ENGINE: Engine = engineFromEnv();

/** Playwright's launch settings for Firefox ESR over BiDi. */
export const FIREFOX: {
  browserName: 'firefox';
  channel: 'moz-firefox';
  launchOptions: { executablePath: string; args: string[] };
} = {
  browserName: 'firefox',
  channel: 'moz-firefox',
  launchOptions: {
    executablePath: fileURLToPath(new URL('./firefox-bidi.mjs', import.meta.url)),
    args: [],
  },
};

/** What a persistent-profile launch needs (the browser-restart tests). */
export interface PersistentLaunch {
  /** Playwright browser type name (`chromium` or `firefox`). */
  browserName: 'chromium' | 'firefox';
  /** Passed to `launchPersistentContext` besides the profile directory. */
  options: { executablePath: string; args: string[]; channel?: string; headless: true };
}

/** Persistent-context launch settings for a Playwright-driven engine (WebKit has its own, tests/shared/webkit/). */
export function persistentLaunch(engine: 'chromium' | 'firefox'): PersistentLaunch {
  if (engine === 'firefox') {
    return { browserName: 'firefox', options: { ...FIREFOX.launchOptions, channel: FIREFOX.channel, headless: true } };
  }
  return { browserName: 'chromium', options: { ...CHROMIUM.launchOptions, headless: true } };
}
