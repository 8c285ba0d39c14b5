/**
 * Playwright globalSetup for VEILKIT_ENGINE=webkit: starts Xvfb and WebKitWebDriver on a free display
 * and port for the whole run, hands the driver URL to the workers (environment), and returns the
 * teardown that stops both by process id (servers.ts also kills them if the runner exits first).
 */
import { DRIVER_ENV } from './fixtures.js';
import { startWebKitServers } from './servers.js';

export default async function globalSetup(): Promise<() => Promise<void>> {
  const servers = await startWebKitServers();
  process.env[DRIVER_ENV] = servers.url;
  console.log(`WebKit: WebKitWebDriver ${servers.url} on Xvfb ${servers.display} (pids ${servers.pids.join(', ')})`);
  return async () => {
    await servers.stop();
    process.env[DRIVER_ENV] = '';
  };
}
