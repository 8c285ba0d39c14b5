/**
 * How every Playwright config of the repository launches Chromium (playwright.config.ts, the bundler
 * matrix and the two examples): Debian's build (Playwright's own browser download is not possible
 * here), headless, with background services off.
 */
export const CHROMIUM: { browserName: 'chromium'; launchOptions: { executablePath: string; args: string[] } } = {
  browserName: 'chromium',
  launchOptions: {
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  },
};
