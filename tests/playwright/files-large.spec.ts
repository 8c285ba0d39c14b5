// 1 GiB generated in the page is encrypted and decrypted with bounded memory, in every engine:
// - everywhere (Linux): the browser's processes as the operating system sees them (proportional set
//   size of every process of the test's browser, tests/shared/process-memory.ts), sampled throughout;
//   from the point an eighth of the encryption is done (workers, KDF and pipeline buffers in place)
//   the peak growth must stay under 768 MiB, three quarters of the data (a copy of it held anywhere
//   would exceed that; the level before the run is printed too; Firefox: under the data size, as its
//   collector's sawtooth is ~500 MiB, FIREFOX_PROCESS_LIMIT);
// - where the engine has the Chrome DevTools Protocol (Chromium): the page's JS heap (CDP
//   Performance.getMetrics JSHeapUsedSize) and the page + workers' heaps (CDP Runtime.getHeapUsage
//   through auto-attached worker targets) are sampled too; both peaks must stay under 256 MiB;
// - where the page has performance.measureUserAgentSpecificMemory() (Chromium, cross-origin
//   isolated): heaps plus ArrayBuffer stores, page and workers, requested half-way through
//   encryption and decryption, each under 256 MiB.
// A measurement an engine cannot take is printed with the reason; at least the process one is
// required.
//
// The input is a ReadableStream generated on the fly, encrypted with encryptFileTo
// into an OPFS file (the workers' buffers are written straight to it) and that file
// decrypted as a stream: no step keeps data in an in-memory Blob, whose overflow
// Chromium pages to disk (a full run once failed with "NotReadableError: The
// requested file could not be read" reading such blobs back).
// The test launches its own browser with a fresh persistent profile (for the OPFS
// quota, and so that its processes are found by the profile directory on their command line):
// no Blob, file or worker of another test lives in it. WebKit has no persistent profile (test.ts
// noPersistentProfile): there the test opens its own MiniBrowser session (a fresh ephemeral
// context) and finds its processes as the run's WebKitWebDriver's process tree (the driver named by
// its --port argument; MiniBrowser and its WebKitWebProcess / WebKitNetworkProcess children). WebKit's
// wasm is slow (~16 MiB/s encrypt), so its default size is 256 MiB (VEILKIT_LARGE_MIB still wins)
// and its process bound is three quarters of the data as everywhere: 192 MiB for 256 MiB. The
// test needs OPFS for the sealed data and skips, with the reason, where WebKit lacks it (WebKitGTK
// 2.50's MiniBrowser under WebKitWebDriver has no navigator.storage).
import { type CDPSession } from '@playwright/test';
import { test, expect, launchPersistent, engine } from './test.js';
import { skipIf } from './skip.js';
import { processMemoryUnavailable, treeMemory } from '../shared/process-memory.js';
import { openWebKit, webkitDriverProcessArg } from '../shared/webkit/fixtures.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UaMemory } from './fixtures/files-page.js';

type FilesTests = typeof import('./fixtures/files-page.js');
declare global {
  interface Window { filesTests: FilesTests }
}

const MIB = 1 << 20;
const LIMIT = 256 * MIB;
/** Growth of the browser's processes: three quarters of the default 1 GiB, so a copy of the data held anywhere in the browser (page, workers, Blob store, write buffers) exceeds it; above the JS-heap LIMIT because it also counts the engine's own lazily collected buffers.*/
const PROCESS_LIMIT = 768 * MIB;
/**
 * Firefox's bound: the data size. The content process holding the workers lets freed buffers stand
 * between collections, a sawtooth of ~500 MiB (sampled: 400 → 990 MiB and back every ~2 s at 100
 * MiB/s, with the JS GC heap-growth prefs lowered or not), so the peak minus the level at "warm"
 * measured 484–806 MiB for the same build depending on where in the sawtooth "warm" fell (a CI run
 * failed the 768 MiB bound at 806 MiB). A copy of the data kept from warm on (7/8 of it) on top of
 * that sawtooth still exceeds this bound.
 */
const FIREFOX_PROCESS_LIMIT = 1024 * MIB;
/** WebKit's default size (its wasm encrypts at ~16 MiB/s: 1 GiB would take over a minute each way). */
const WEBKIT_DEFAULT_MIB = 256;

/** Heap usage of every worker target auto-attached to `cdp` (old-style target sessions, so that Playwright's own stay untouched). */
function workerHeaps(cdp: CDPSession) {
  const sessions = new Set<string>();
  const pending = new Map<number, (used: number) => void>();
  let nextId = 1;
  /** Heap reads a worker did not answer within 1 s (counted as 0 in that sample, and reported). */
  let unanswered = 0;
  cdp.on('Target.attachedToTarget', (e) => {
    if (e.targetInfo.type === 'worker') sessions.add(e.sessionId);
  });
  cdp.on('Target.detachedFromTarget', (e) => {
    sessions.delete(e.sessionId);
  });
  cdp.on('Target.receivedMessageFromTarget', (e) => {
    const msg = JSON.parse(e.message) as { id?: number; result?: { usedSize?: number } };
    if (msg.id !== undefined) pending.get(msg.id)?.(msg.result?.usedSize ?? 0);
  });
  return {
    async start() {
      await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
    },
    async total(): Promise<number> {
      const reads = [...sessions].map((sessionId) => new Promise<number>((resolve) => {
        const id = nextId++;
        const timer = setTimeout(() => {
          pending.delete(id);
          unanswered++;
          resolve(0);
        }, 1000);
        pending.set(id, (used) => {
          clearTimeout(timer);
          pending.delete(id);
          resolve(used);
        });
        cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method: 'Runtime.getHeapUsage' }) }).catch(() => {
          // The worker went away between the listing and the read: no heap left to count.
          clearTimeout(timer);
          pending.delete(id);
          resolve(0);
        });
      }));
      return (await Promise.all(reads)).reduce((a, b) => a + b, 0);
    },
    get count() {
      return sessions.size;
    },
    get unanswered() {
      return unanswered;
    },
  };
}

test('1 GiB generated on the fly is encrypted to a file and decrypted as a stream with bounded memory (browser processes, JS heaps where measurable: each under 256 MiB)', async ({}, testInfo) => {
  test.setTimeout(600_000);
  const mib = Number(process.env.VEILKIT_LARGE_MIB ?? (engine === 'webkit' ? WEBKIT_DEFAULT_MIB : 1024));
  if (engine === 'webkit') {
    const driverArg = webkitDriverProcessArg();
    expect(driverArg, 'the WebKit global setup publishes the driver URL').toBeDefined();
    const { context, page, close } = await openWebKit({ baseURL: String(testInfo.project.use.baseURL) });
    try {
      // The test writes the sealed data to OPFS (in memory it would defeat the bound it checks).
      await page.goto('/tests/playwright/fixtures/files-page.html');
      const opfs = await page.evaluate(() => ({ storage: typeof navigator.storage, getDirectory: typeof navigator.storage?.getDirectory, secure: isSecureContext, ua: navigator.userAgent }));
      // The process measurement itself works here: the driver, its MiniBrowser and their children.
      const tree = treeMemory(driverArg ?? '', true);
      console.log(`files-large: webkit browser processes (driver tree): ${tree.processes}, ${(tree.bytes / MIB).toFixed(1)} MiB`);
      if (processMemoryUnavailable() === undefined) expect(tree.processes).toBeGreaterThanOrEqual(3);
      skipIf(opfs.getDirectory !== 'function', `this WebKit (MiniBrowser under WebKitWebDriver, ${opfs.ua}) has no Origin Private File System: navigator.storage is ${opfs.storage} (secure context: ${String(opfs.secure)}), and the sealed data cannot be kept outside memory without it`);
      // Three quarters of the data, as PROCESS_LIMIT is for the default 1 GiB.
      await run(context, mib, { marker: driverArg ?? '', exact: true }, Math.min(PROCESS_LIMIT, (mib * MIB * 3) / 4));
    } finally {
      await close();
    }
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'veilkit-large-'));
  const context = await launchPersistent(dir, String(testInfo.project.use.baseURL));
  try {
    await run(context, mib, { marker: dir, exact: false }, engine === 'firefox' ? FIREFOX_PROCESS_LIMIT : PROCESS_LIMIT);
  } finally {
    await context.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** `browser`: what names the browser's root processes on their command line (tests/shared/process-memory.ts). */
async function run(context: import('@playwright/test').BrowserContext, mib: number, browser: { marker: string; exact: boolean }, processLimit: number): Promise<void> {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto('/tests/playwright/fixtures/files-page.html');
  await expect(page).toHaveTitle('ready');
  // The browser's processes (any engine): found by the profile directory (WebKit: the driver) on their command line.
  const procUnavailable = processMemoryUnavailable();
  const baseline = procUnavailable === undefined ? treeMemory(browser.marker, browser.exact) : { bytes: 0, processes: 0 };
  let procPeak = baseline.bytes;
  let maxProcesses = baseline.processes;
  // JS heaps through the Chrome DevTools Protocol, where the engine has it.
  let cdp: CDPSession | undefined;
  let cdpUnavailable: string | undefined;
  try {
    cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
  } catch (e) {
    cdp = undefined;
    cdpUnavailable = `${engine} has no Chrome DevTools Protocol session (${(e as Error).message.split('\n')[0]}): no per-page and per-worker JS heap metrics`;
  }
  const workers = cdp === undefined ? undefined : workerHeaps(cdp);
  await workers?.start();
  let pagePeak = 0;
  let totalPeak = 0;
  let maxWorkers = 0;
  let sampling = true;
  // From the page's "files-large: warm" on (an eighth of the encryption done: workers, KDF and
  // pipeline buffers in place), memory must not grow with the data: the peak after it minus the level
  // at it is the growth checked (the level before the run is printed too).
  let warm: number | undefined;
  let warmPeak = 0;
  page.on('console', (m) => {
    if (m.text() === 'files-large: warm' && procUnavailable === undefined) warm = treeMemory(browser.marker, browser.exact).bytes;
  });
  const sampler = (async () => {
    while (sampling) {
      if (procUnavailable === undefined) {
        const now = treeMemory(browser.marker, browser.exact);
        procPeak = Math.max(procPeak, now.bytes);
        if (warm !== undefined) warmPeak = Math.max(warmPeak, now.bytes);
        maxProcesses = Math.max(maxProcesses, now.processes);
      }
      if (cdp !== undefined && workers !== undefined) {
        const got = await cdp.send('Performance.getMetrics').catch(() => undefined);
        if (got !== undefined) {
          const used = got.metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0;
          const inWorkers = await workers.total();
          pagePeak = Math.max(pagePeak, used);
          totalPeak = Math.max(totalPeak, used + inWorkers);
          maxWorkers = Math.max(maxWorkers, workers.count);
        }
      }
      // WebKit's adapter delivers console messages when an evaluate answers: a no-op evaluate
      // delivers "files-large: warm" while the long one runs.
      if (engine === 'webkit') await page.evaluate(() => 0).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  page.on('crash', () => console.log('files-large: the page crashed'));
  const r = await page.evaluate((n) => window.filesTests.largeFile(n), mib).finally(() => {
    sampling = false;
  });
  await sampler;
  const measured = r.uaMemory.filter((m): m is { bytes: number } => 'bytes' in m);
  const unmeasured = r.uaMemory.filter((m): m is { unavailable: string } => 'unavailable' in m);
  const showUa = (m: UaMemory) => ('bytes' in m ? `${(m.bytes / MIB).toFixed(1)} MiB` : 'n/a');
  const procGrowth = warm === undefined ? Number.POSITIVE_INFINITY : warmPeak - warm;
  console.log(`files-large: ${engine}, ${mib} MiB, encrypt ${r.encryptMs} ms (${r.encryptMBps} MiB/s), decrypt ${r.decryptMs} ms (${r.decryptMBps} MiB/s); `
    + (procUnavailable === undefined
      ? `browser processes (${maxProcesses}): ${(baseline.bytes / MIB).toFixed(1)} MiB before the run, ${((warm ?? 0) / MIB).toFixed(1)} MiB warm, peak ${(procPeak / MIB).toFixed(1)} MiB, growth after warm ${(procGrowth / MIB).toFixed(1)} MiB (bound ${(processLimit / MIB).toFixed(0)} MiB); `
      : `browser processes: not measured (${procUnavailable}); `)
    + (cdp !== undefined
      ? `peak JS heap: page ${(pagePeak / MIB).toFixed(1)} MiB, page + ${maxWorkers} workers ${(totalPeak / MIB).toFixed(1)} MiB; `
      : `JS heaps: not measured (${cdpUnavailable}); `)
    + `measureUserAgentSpecificMemory mid-encrypt / mid-decrypt: ${r.uaMemory.map(showUa).join(' / ')}`);
  // Measurements that could not be taken are counted and printed with the reason, not dropped silently.
  console.log(`files-large: ${unmeasured.length} of ${r.uaMemory.length} measureUserAgentSpecificMemory measurement(s) skipped${unmeasured.map((m) => `; ${m.unavailable}`).join('')}`);
  if (workers !== undefined) console.log(`files-large: ${workers.unanswered} worker heap read(s) unanswered within 1 s (counted as 0 in their sample)`);
  expect(r.ok).toBe(true);
  expect(r.containerBytes).toBeGreaterThan(mib * MIB);
  expect(r.uaMemory).toHaveLength(2); // one request half-way through each phase
  // The engine-neutral measure, wherever /proc exists (and then the browser's processes must be found);
  // without it the CDP heaps must have been measured: some bound is always checked.
  expect(procUnavailable === undefined || cdp !== undefined).toBe(true);
  if (procUnavailable === undefined) {
    expect(baseline.processes).toBeGreaterThan(0);
    expect(procGrowth).toBeLessThan(processLimit);
  }
  if (cdp !== undefined) {
    expect(maxWorkers).toBeGreaterThan(0);
    expect(pagePeak).toBeLessThan(LIMIT);
    expect(totalPeak).toBeLessThan(LIMIT);
  }
  // With ArrayBuffer backing stores (workers included), where the browser provides the measurement.
  for (const m of measured) expect(m.bytes).toBeLessThan(LIMIT);
}
