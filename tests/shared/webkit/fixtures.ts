/**
 * WebKit (WebKitGTK MiniBrowser via WebKitWebDriver) as Playwright `context` and `page` fixtures.
 * Placeholder until the adapter lands: every use fails with a named error, so a WebKit run reports
 * the missing adapter instead of launching Playwright's own WebKit (not installable here).
 */
import type {
  BrowserContext, Page, PlaywrightTestArgs, PlaywrightTestOptions, PlaywrightWorkerArgs, PlaywrightWorkerOptions, TestFixture,
} from '@playwright/test';

/** Every fixture value a test-scoped fixture can depend on. */
type Args = PlaywrightTestArgs & PlaywrightTestOptions & PlaywrightWorkerArgs & PlaywrightWorkerOptions;

const MISSING = 'the WebKit WebDriver adapter (tests/shared/webkit/) is not implemented yet';

/** The `context` fixture in WebKit. */
export const webkitContext: TestFixture<BrowserContext, Args> = async () => {
  await Promise.resolve();
  throw new Error(MISSING);
};

/** The `page` fixture in WebKit. */
export const webkitPage: TestFixture<Page, Args> = async () => {
  await Promise.resolve();
  throw new Error(MISSING);
};

/** A WebKit browser on a kept profile directory. */
export function launchWebKitPersistent(userDataDir: string, baseURL: string): Promise<BrowserContext> {
  return Promise.reject(new Error(`${MISSING} (launchWebKitPersistent ${userDataDir} ${baseURL})`));
}
