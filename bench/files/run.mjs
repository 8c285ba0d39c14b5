#!/usr/bin/env node
// npm run bench:files [-- --browser chromium|firefox|webkit] [-- --mib 256] [-- --reps 3] [-- --only <substring>[|<substring>…]]
//                     [-- --batch <MiB>] [-- --concurrency <n>]
//
// Browser file encryption benchmark (issue #5), never part of `npm test`: in
// one engine (`--browser`, default chromium; bench/engines.mjs launches it with the test
// corpus's settings and a temporary persistent profile for OPFS), against
// tests/server.mjs (cross-origin isolated), in one run:
//   - the ceiling: raw WebCrypto AES-GCM over the same 1 MiB chunks in memory;
//   - the I/O floor: the same File read and written to a Blob without any crypto;
//   - the raw WebCrypto chunk loop: the same File, 1 MiB AES-GCM chunks, a Blob out (the ratio's peer);
//   - veilkit encryptFile / decryptFile of a 256 MiB Blob, 1 worker and the full pool;
//   - openpgp.js password encryption of the same data over a web stream:
//     SEIPDv2 AES-GCM (config.aeadProtect) and the default SEIPDv1;
// prints MiB/s and the ratios veilkit/ceiling and veilkit/openpgp, and writes
// bench/files/results/latest.{json,md} (Chromium) or bench/files/results/<engine>/latest.{json,md}.
// A case that cannot run in the engine (openpgp.js not loading, no OPFS writable) is listed
// with its reason under "did not run", never dropped.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { browserArg, engineName, openEngine, resultsDir } from '../engines.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PORT = Number(process.env.BENCH_FILES_PORT ?? 8794);
const args = process.argv.slice(2);
const engine = browserArg(args, 'bench:files');
const arg = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
const mib = Number(arg('mib', 256));
const reps = Number(arg('reps', 3));
const only = arg('only', undefined);
const batch = arg('batch', undefined);
const concurrency = arg('concurrency', undefined);
const log = (...a) => console.log('bench:files:', ...a);

if (!existsSync(resolve(ROOT, 'dist/ts/files.js'))) {
  console.error('bench:files: dist/ is missing — run `npm run build` first');
  process.exit(1);
}

// Chromium: the corpus flags plus an exposed gc() to settle memory between runs (elsewhere gc() is absent and skipped).
const EXTRA_CHROMIUM_ARGS = ['--js-flags=--expose-gc'];

const server = spawn(process.execPath, [resolve(ROOT, 'tests/server.mjs')], { env: { ...process.env, PORT: String(PORT) }, stdio: ['ignore', 'pipe', 'inherit'] });
await new Promise((res, rej) => {
  server.stdout.on('data', (d) => {
    if (String(d).includes('serving')) res();
  });
  server.on('exit', (code) => rej(new Error(`server exited (${code})`)));
});
let session;
try {
  log(`launching ${engine}`);
  session = await openEngine(engine, { persistent: true, extraChromiumArgs: EXTRA_CHROMIUM_ARGS });
  const { page } = session;
  page.onConsole((text) => {
    if (text.startsWith('bench-files:')) log(text.slice(13));
  });
  page.onPageError((m) => log('page error:', m));
  const load = loadavg()[0];
  log(`${engine}: ${mib} MiB, ${reps} runs per case (median reported); load average ${load.toFixed(2)}`);
  const url = `http://127.0.0.1:${PORT}/bench/files/index.html?mib=${mib}&reps=${reps}${only ? `&only=${encodeURIComponent(only)}` : ''}${batch ? `&batch=${batch}` : ''}${concurrency ? `&concurrency=${concurrency}` : ''}`;
  await page.goto(url);
  await page.until(() => window.__benchFiles !== undefined, { timeoutMs: 30 * 60_000, pollMs: 1000 });
  const r = await page.evaluate(() => window.__benchFiles);
  if (!r.ok) throw new Error(`${engine}: ${r.error}`);
  r.engine = engine;
  r.loadAverage = [load, loadavg()[0]];
  r.date = new Date().toISOString();
  report(r);
} finally {
  await session?.close();
  server.kill();
}

function report(r) {
  const find = (prefix) => r.results.find((x) => x.name.startsWith(prefix));
  const ceiling = find('ceiling: WebCrypto AES-GCM, 1 MiB chunks in memory, one at a time');
  const ceilingPar = find('ceiling: WebCrypto AES-GCM, 1 MiB chunks in memory, ');
  const v2 = find('openpgp.js SEIPDv2 AES-GCM');
  const v1 = find('openpgp.js SEIPDv1');
  const io = find('I/O floor');
  const rows = r.results.map((x) => [x.name, x.mibps.toFixed(0), x.bestMibps.toFixed(0), x.ms.join(' ')]);
  const ratios = [];
  for (const x of r.results.filter((y) => y.name.startsWith('veilkit'))) {
    const bits = [];
    if (ceiling) bits.push(`/ceiling ${(x.mibps / ceiling.mibps).toFixed(2)}`);
    if (ceilingPar && ceilingPar !== ceiling) bits.push(`/ceiling-parallel ${(x.mibps / ceilingPar.mibps).toFixed(2)}`);
    const raw = find(`raw WebCrypto chunk loop: File → AES-GCM 1 MiB chunks → Blob (${x.name.includes('encryptFile') ? 'encrypt' : 'decrypt'})`);
    if (raw) bits.push(`**/raw-loop ${(x.mibps / raw.mibps).toFixed(2)}**`);
    if (io) bits.push(`/I/O-floor ${(x.mibps / io.mibps).toFixed(2)}`);
    if (x.name.includes('encryptFile')) {
      if (v2) bits.push(`/openpgp-v2 ${(x.mibps / v2.mibps).toFixed(2)}`);
      if (v1) bits.push(`/openpgp-v1 ${(x.mibps / v1.mibps).toFixed(2)}`);
    } else {
      const v2d = find('openpgp.js SEIPDv2 decrypt');
      if (v2d) bits.push(`/openpgp-v2-decrypt ${(x.mibps / v2d.mibps).toFixed(2)}`);
    }
    ratios.push([x.name, bits.join(', ')]);
  }
  const md = [
    `# veilkit file benchmark (${r.date})`,
    '',
    `${r.mib} MiB, ${r.reps} runs per case, median (best) MiB/s of plaintext; ${r.cores} logical cores; load average ${r.loadAverage.map((l) => l.toFixed(2)).join(' → ')}.`,
    `${engineName(engine, r.userAgent)}: ${r.userAgent}`,
    '',
    '| case | MiB/s (median) | best | runs (ms) |',
    '|---|---:|---:|---|',
    ...rows.map((c) => `| ${c.join(' | ')} |`),
    '',
    '| veilkit | ratios (median vs median) |',
    '|---|---|',
    ...ratios.map((c) => `| ${c.join(' | ')} |`),
    '',
    `Default-cost password setup (Argon2id m=64 MiB, t=3, p=4, single-threaded wasm, empty file): ${r.defaultArgon2idSetupMs.join(', ')} ms.`,
    'veilkit cases use the minimum Argon2id cost so that the KDF is not part of the throughput; openpgp.js uses its default S2K (iterated SHA-256).',
    'The in-memory ceiling has its chunks in memory already and writes nothing; every other case reads the same disk-backed File (OPFS) and writes a Blob (or drains a stream),',
    'and the I/O floor row is that reading and writing alone, with no crypto. The raw loop is the peer of "≥ 0.8× raw WebCrypto AES-GCM chunk loop at the same chunk size":',
    'the same File, the same 1 MiB chunks, WebCrypto AES-GCM under one key, the same Blob output, no key derivation, no format, no workers.',
    '',
    ...(r.notes?.length ? ['Notes for this engine:', '', ...r.notes.map((n) => `- ${n}`), ''] : []),
    ...(r.notRun?.length ? [`Did not run in ${engineName(engine, r.userAgent)}:`, '', ...r.notRun.map((n) => `- ${n.name}: ${n.reason}`), ''] : []),
  ].join('\n');
  console.log(`\n${md}`);
  const dir = resultsDir(resolve(ROOT, 'bench/files/results'), engine);
  mkdirSync(dir, { recursive: true });
  writeFileSync(resolve(dir, 'latest.json'), `${JSON.stringify(r, null, 2)}\n`);
  writeFileSync(resolve(dir, 'latest.md'), md);
}
