/**
 * Starting and stopping what WebKit runs on: an Xvfb X server and WebKitWebDriver on a free display
 * and a free port. Both are stopped by their own process id (the driver with its process group, which
 * holds the MiniBrowser and WebKit processes it started), also when the starting side fails or the
 * process exits early; nothing is left running.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** A running Xvfb + WebKitWebDriver pair. */
export interface WebKitServers {
  /** The driver's base URL, e.g. `http://127.0.0.1:4481`. */
  readonly url: string;
  /** The X display, e.g. `:81`. */
  readonly display: string;
  /** The two process ids (Xvfb, driver). */
  readonly pids: readonly number[];
  /** Stops both (idempotent). */
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Sends SIGTERM to `pid` (and its group when `group`), SIGKILL after 3 s; waits for the exit. */
async function kill(child: ChildProcess, group: boolean): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(group ? -pid : pid, s);
    } catch {
      /* already gone */
    }
  };
  const done = exited(child);
  signal('SIGTERM');
  const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 3000).unref());
  if ((await Promise.race([done.then(() => 'done' as const), timer])) === 'timeout') signal('SIGKILL');
  await done;
  // The group may outlive its leader (MiniBrowser, web processes): make sure it is gone too.
  if (group) signal('SIGKILL');
}

/** Starts Xvfb on a display it picks (`-displayfd`), reading the number it prints. */
function startXvfb(): Promise<{ child: ChildProcess; display: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], {
      stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
    });
    let out = '';
    const fail = (why: string) => {
      void kill(child, false);
      reject(new Error(`Xvfb did not start: ${why}`));
    };
    child.once('error', (e) => fail(e.message));
    child.once('exit', (code) => fail(`exited with ${code}`));
    const pipe = child.stdio[3];
    if (pipe === null || pipe === undefined || !('on' in pipe)) {
      fail('no display pipe');
      return;
    }
    pipe.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) {
        child.removeAllListeners('exit');
        resolve({ child, display: `:${out.trim()}` });
      }
    });
  });
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`WebKitWebDriver exited with ${child.exitCode}`);
    try {
      const r = await fetch(`${url}/status`);
      const body = (await r.json()) as { value?: { ready?: boolean } };
      if (body.value?.ready === true) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`WebKitWebDriver at ${url} was not ready within 20 s`);
}

const running = new Set<ChildProcess>();
let exitHook = false;

/** Kills everything still running, synchronously (the driver with its process group). */
function killAllSync(): void {
  for (const child of running) {
    try {
      if (child.pid !== undefined) process.kill(child.spawnargs[0] === 'WebKitWebDriver' ? -child.pid : child.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  running.clear();
}

/**
 * Kills what is still running when this process exits without stopping it: on `exit`, and on
 * SIGTERM/SIGHUP/SIGINT (which end Node without `exit` handlers; the driver's own process group does
 * not receive a signal sent to ours). The signal is raised again afterwards when nobody else handles it.
 */
function hookExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.once('exit', killAllSync);
  for (const signal of ['SIGTERM', 'SIGHUP', 'SIGINT'] as const) {
    process.once(signal, () => {
      killAllSync();
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  }
}

/** Starts Xvfb and WebKitWebDriver on a free display and port, ready for sessions. */
export async function startWebKitServers(): Promise<WebKitServers> {
  hookExit();
  const { child: xvfb, display } = await startXvfb();
  running.add(xvfb);
  let driver: ChildProcess | undefined;
  const stop = async () => {
    if (driver !== undefined) {
      await kill(driver, true);
      running.delete(driver);
    }
    await kill(xvfb, false);
    running.delete(xvfb);
  };
  try {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    driver = spawn('WebKitWebDriver', [`--port=${port}`], {
      env: { ...process.env, DISPLAY: display },
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true, // its own process group: MiniBrowser and the web processes go with it
    });
    running.add(driver);
    driver.stderr?.resume();
    await waitReady(url, driver);
    const pids = [xvfb.pid ?? 0, driver.pid ?? 0];
    let stopped: Promise<void> | undefined;
    return { url, display, pids, stop: () => (stopped ??= stop()) };
  } catch (e) {
    await stop();
    throw e;
  }
}
