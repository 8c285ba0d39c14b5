/**
 * The bundler matrix: the packed package (.pack/veilkit.tgz) installed into scratch apps
 * (tests/bundlers/vite6, vite8, importmap) and the Next example, each page running the shared smoke
 * flow (tests/bundlers/smoke.ts) in Chromium. One test per cell — bundler × mode × headers — named
 * after it, so that a failing cell names itself. Each test starts its own server (a dev server,
 * `vite preview`, the import-map page's static server, `next start`), with COOP/COEP toggled at serve
 * time by `VEILKIT_COI=1` (one build per app), and stops it by pid when it ends.
 *
 * Run by scripts/packed/10-bundlers.sh, which installs and builds the apps first
 * (`npx playwright test -c tests/bundlers/playwright.config.ts --grep-invert @next`, `--grep <cell>`
 * for one cell); the cells tagged @next by scripts/packed/30-next-example.sh after its builds.
 */
import { test, expect, type Page } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BUNDLERS = join(ROOT, 'tests/bundlers');
/** Where scripts/packed/10-bundlers.sh keeps each app's build log (named in a cell's failure). */
const LOGS = join(ROOT, 'test-results/bundlers');

/** How long a server may take to answer, and the smoke flow to report (ms). No hang passes silently. */
const SERVER_START_MS = 60_000;
const SMOKE_MS = 90_000;

/** The build a cross-origin-isolated cell's pool worker must report: what the README promises. */
type CoiBuild = 'threads' | 'simd';

interface Cell {
  /** The test's title: `<app> <mode> <headers>`. */
  readonly name: string;
  readonly cwd: string;
  /** Node script and its arguments (run with this Node, in `cwd`). */
  readonly command: readonly string[];
  /** More environment for the server. */
  readonly env?: Readonly<Record<string, string>>;
  readonly port: number;
  /** The page that runs the smoke flow. */
  readonly path: string;
  readonly coi: boolean;
  /** A file the cell needs (the app's build output), with what to say when it is missing. */
  readonly needs?: { readonly file: string; readonly why: string };
  /** Cross-origin isolated: the pool worker's build. */
  readonly coiBuild: CoiBuild;
  /** A cell that must fail, with this text in its message (a documented setting left out). */
  readonly failsWith?: string;
  readonly tag?: string;
}

const vite = (app: 'vite6' | 'vite8', basePort: number): Cell[] => {
  const cwd = join(BUNDLERS, app);
  const bin = 'node_modules/vite/bin/vite.js';
  const built = { file: join(cwd, 'dist/index.html'), why: `\`vite build\` of tests/bundlers/${app} failed (log: test-results/bundlers/${app}-build.log)` };
  // README (Use with React / Vite / Next.js): with COOP/COEP, workers load the threads build.
  const coiBuild = 'threads';
  return [
    { name: `${app} dev`, cwd, command: [bin], port: basePort, path: '/', coi: false, coiBuild },
    { name: `${app} dev coop-coep`, cwd, command: [bin], port: basePort + 1, path: '/', coi: true, coiBuild },
    { name: `${app} build+preview`, cwd, command: [bin, 'preview'], port: basePort + 2, path: '/', coi: false, needs: built, coiBuild },
    { name: `${app} build+preview coop-coep`, cwd, command: [bin, 'preview'], port: basePort + 3, path: '/', coi: true, needs: built, coiBuild },
  ];
};

/**
 * The Next 16 example's /smoke page under `next start`, one build per bundler (Turbopack, webpack;
 * NEXT_DIST_DIR keeps both). Built by scripts/packed/30-next-example.sh, which runs these cells
 * (`--grep @next`) after its build; scripts/packed/10-bundlers.sh runs every other cell.
 */
const next = (bundler: 'turbopack' | 'webpack', basePort: number): Cell[] => {
  const cwd = join(ROOT, 'examples/next');
  const distDir = `.next-${bundler}`;
  const needs = { file: join(cwd, distDir, 'BUILD_ID'), why: `the ${bundler} build of examples/next is missing (scripts/packed/30-next-example.sh builds it, then runs these cells)` };
  const base = { cwd, env: { NEXT_DIST_DIR: distDir }, path: '/smoke', needs, coiBuild: 'threads', tag: '@next' } as const;
  return [false, true].map((coi, i) => ({
    ...base,
    name: `next ${bundler} start${coi ? ' coop-coep' : ''}`,
    command: ['node_modules/next/dist/bin/next', 'start', '-H', '127.0.0.1', '-p', String(basePort + i)],
    port: basePort + i,
    coi,
  }));
};

const importmap = join(BUNDLERS, 'importmap');
const CELLS: readonly Cell[] = [
  ...vite('vite8', 8900),
  ...vite('vite6', 8910),
  // The README's one Vite 6 line left out: init() must fail naming it (not hang, not a bare CompileError).
  {
    name: 'vite6 dev without optimizeDeps line', cwd: join(BUNDLERS, 'vite6'), command: ['node_modules/vite/bin/vite.js'],
    env: { VEILKIT_MATRIX_NO_EXCLUDE: '1' }, port: 8914, path: '/', coi: false, coiBuild: 'threads', failsWith: "optimizeDeps: { exclude: ['veilkit'] }",
  },
  { name: 'importmap static', cwd: importmap, command: ['server.mjs'], port: 8920, path: '/', coi: false, coiBuild: 'threads' },
  { name: 'importmap static coop-coep', cwd: importmap, command: ['server.mjs'], port: 8921, path: '/', coi: true, coiBuild: 'threads' },
  ...next('turbopack', 8930),
  ...next('webpack', 8932),
];

interface Server {
  readonly child: ChildProcess;
  /** The last few KB of its output, for failure messages. */
  output(): string;
}

function startServer(cell: Cell): Server {
  const child = spawn(process.execPath, [...cell.command], {
    cwd: cell.cwd,
    env: { ...process.env, ...cell.env, PORT: String(cell.port), VEILKIT_COI: cell.coi ? '1' : '0', NO_COLOR: '1', FORCE_COLOR: '0' },
    // Its own process group, so that stopping it also stops anything it started.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (b: Buffer): void => {
    out = (out + b.toString()).slice(-4096);
  };
  // For scripts/packed/10-bundlers.sh: a run killed before its teardown leaves these behind.
  if (child.pid !== undefined) {
    mkdirSync(LOGS, { recursive: true });
    appendFileSync(join(LOGS, 'servers.pids'), `${child.pid}\n`);
  }
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, output: () => out };
}

async function stopServer(server: Server): Promise<void> {
  const { child } = server;
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const signal = (s: NodeJS.Signals): void => {
    try {
      process.kill(-(child.pid ?? 0), s); // the group this test started (detached above)
    } catch {
      // Already gone.
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** Resolves once `url` answers 200; rejects if the server exits or takes longer than SERVER_START_MS. */
async function waitForServer(server: Server, url: string): Promise<void> {
  const deadline = Date.now() + SERVER_START_MS;
  for (;;) {
    if (server.child.exitCode !== null) throw new Error(`the server exited (${server.child.exitCode}) before answering:\n${server.output()}`);
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      if (r.ok) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`no answer from ${url} within ${SERVER_START_MS} ms:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The page's report on <body> (tests/bundlers/*\/src/main.ts, importmap/main.js). */
async function report(page: Page): Promise<Record<string, string | undefined>> {
  return page.evaluate(() => Object.fromEntries(Object.entries(document.body.dataset)));
}

for (const cell of CELLS) {
  test(cell.name, cell.tag === undefined ? {} : { tag: cell.tag }, async ({ page }, testInfo) => {
    if (cell.needs !== undefined && !existsSync(cell.needs.file)) {
      throw new Error(`${cell.name}: ${cell.needs.file} is missing: ${cell.needs.why}`);
    }
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));

    const server = startServer(cell);
    try {
      const url = `http://127.0.0.1:${cell.port}${cell.path}`;
      await waitForServer(server, url);
      await page.goto(url);
      try {
        // A locator survives the reload a dev server may do after optimizing dependencies.
        await page.locator('body[data-smoke]').waitFor({ state: 'attached', timeout: SMOKE_MS });
      } catch {
        const r = await report(page).catch((): Record<string, string | undefined> => ({}));
        throw new Error(`${cell.name}: no result within ${SMOKE_MS} ms (hung in step "${r.step ?? '?'}")\n${problems.join('\n')}`);
      }
      const r = await report(page);
      testInfo.annotations.push(
        { type: 'wasmBuild', description: r.wasmBuild ?? '' },
        { type: 'threads', description: r.threads ?? '' },
        { type: 'pageBuild', description: r.pageBuild ?? '' },
        { type: 'timings', description: r.timings ?? '' },
      );
      const context = `${cell.name}: step "${r.step ?? '?'}"\n${problems.join('\n')}`;
      if (cell.failsWith !== undefined) {
        expect(r.smoke, context).toMatch(/^fail: /);
        expect(r.smoke, `${cell.name}: the error names the fix`).toContain(cell.failsWith);
        return;
      }
      expect(r.smoke, context).toBe('pass');
      expect(r.coi, `${cell.name}: crossOriginIsolated`).toBe(String(cell.coi));
      // A window's main thread keeps the SIMD build (init() docs); the pool worker is where threads run.
      expect(r.pageBuild, `${cell.name}: the page's build`).toBe('simd');
      if (!cell.coi) {
        expect(r.wasmBuild, `${cell.name}: the pool worker's build without COOP/COEP`).toBe('simd');
      } else {
        expect(r.wasmBuild, `${cell.name}: the pool worker's build with COOP/COEP (timings: ${r.timings ?? '?'})`).toBe(cell.coiBuild);
      }
    } finally {
      await stopServer(server);
    }
  });
}
