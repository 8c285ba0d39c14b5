// 1 GiB generated in Chromium is encrypted and decrypted with bounded
// memory: the page's JS heap (CDP Performance.getMetrics JSHeapUsedSize) and
// the page + workers' heaps (CDP Runtime.getHeapUsage through auto-attached
// worker targets) are sampled throughout; both peaks must stay under 256 MiB, and so
// must performance.measureUserAgentSpecificMemory() (heaps plus ArrayBuffer stores,
// page and workers) requested half-way through encryption and decryption.
//
// The input is a ReadableStream generated on the fly, encrypted with encryptFileTo
// into an OPFS file (the workers' buffers are written straight to it) and that file
// decrypted as a stream: no step keeps data in an in-memory Blob, whose overflow
// Chromium pages to disk (a full run once failed with "NotReadableError: The
// requested file could not be read" reading such blobs back).
// The test launches its own browser with a fresh persistent profile (for the OPFS
// quota): no Blob, file or worker of another test lives in it.
import { type CDPSession } from '@playwright/test';
import { test, expect, launchPersistent } from './test.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import config from '../../playwright.config.js';
import type { UaMemory } from './fixtures/files-page.js';

type FilesTests = typeof import('./fixtures/files-page.js');
declare global {
  interface Window { filesTests: FilesTests }
}

const MIB = 1 << 20;
const LIMIT = 256 * MIB;

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

test('1 GiB generated on the fly is encrypted to a file and decrypted as a stream with peak JS heap under 256 MiB', async ({}, testInfo) => {
  test.setTimeout(600_000);
  const mib = Number(process.env.VEILKIT_LARGE_MIB ?? 1024);
  const dir = mkdtempSync(join(tmpdir(), 'veilkit-large-'));
  const context = await launchPersistent(dir, String(testInfo.project.use.baseURL));
  try {
    await run(context, mib);
  } finally {
    await context.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

async function run(context: import('@playwright/test').BrowserContext, mib: number): Promise<void> {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto('/tests/playwright/fixtures/files-page.html');
  await expect(page).toHaveTitle('ready');
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  const workers = workerHeaps(cdp);
  await workers.start();
  let pagePeak = 0;
  let totalPeak = 0;
  let maxWorkers = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const got = await cdp.send('Performance.getMetrics').catch(() => undefined);
      if (got === undefined) break;
      const { metrics } = got;
      const used = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0;
      const inWorkers = await workers.total();
      pagePeak = Math.max(pagePeak, used);
      totalPeak = Math.max(totalPeak, used + inWorkers);
      maxWorkers = Math.max(maxWorkers, workers.count);
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
  console.log(`files-large: ${mib} MiB, encrypt ${r.encryptMs} ms (${r.encryptMBps} MiB/s), decrypt ${r.decryptMs} ms (${r.decryptMBps} MiB/s); `
    + `peak JS heap: page ${(pagePeak / MIB).toFixed(1)} MiB, page + ${maxWorkers} workers ${(totalPeak / MIB).toFixed(1)} MiB; `
    + `measureUserAgentSpecificMemory mid-encrypt / mid-decrypt: ${r.uaMemory.map(showUa).join(' / ')}`);
  // Measurements that could not be taken are counted and printed with the reason, not dropped silently.
  console.log(`files-large: ${unmeasured.length} of ${r.uaMemory.length} measureUserAgentSpecificMemory measurement(s) skipped${unmeasured.map((m) => `; ${m.unavailable}`).join('')}`);
  console.log(`files-large: ${workers.unanswered} worker heap read(s) unanswered within 1 s (counted as 0 in their sample)`);
  expect(r.ok).toBe(true);
  expect(r.containerBytes).toBeGreaterThan(mib * MIB);
  expect(r.uaMemory).toHaveLength(2); // one request half-way through each phase
  expect(maxWorkers).toBeGreaterThan(0);
  expect(pagePeak).toBeLessThan(LIMIT);
  expect(totalPeak).toBeLessThan(LIMIT);
  // With ArrayBuffer backing stores (workers included), where the browser provides the measurement.
  for (const m of measured) expect(m.bytes).toBeLessThan(LIMIT);
}
