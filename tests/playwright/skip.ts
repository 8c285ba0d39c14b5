// Skips that say why: every skip a spec takes goes through here, so it is printed with its
// reason (the list reporter shows test stdout) as well as counted in Playwright's summary.
import { test } from './test.js';

/** Skips the running test when `condition` holds, printing the test's title and the reason. */
export function skipIf(condition: boolean, reason: string): void {
  if (!condition) return;
  console.log(`SKIPPED ${test.info().titlePath.slice(1).join(' › ')}: ${reason}`);
  test.skip(true, reason);
}
