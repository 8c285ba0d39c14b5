#!/usr/bin/env node
// npm run bench [-- --browser chromium|firefox|webkit] [-- --only <substring>[,<substring>…]]
//               [-- --group sessions|primitives|hpke|groups] [-- --native]
//
// Side-by-side benchmark in one browser engine (`--browser`, default chromium; launched by
// bench/engines.mjs with the test corpus's settings), against tests/server.mjs
// (cross-origin isolated). Every case runs in its own dedicated worker; all
// libraries in one run. Writes bench/results/latest.json and latest.md (Chromium) or
// bench/results/<engine>/latest.{json,md} (Firefox, WebKit). A case whose library or route
// does not exist in the engine is reported as "did not load: <reason>", never dropped; every
// veilkit result carries the route it measured (`route`: 'wasm' | 'native').
// `--native` first runs the criterion bench (cargo bench -p veilkit --bench
// primitives) and adds the wasm/native ratio. Never part of `npm test`.
// The session cases (`sess-*`, bench/session.ts: veilkit's ratchet beside libsignal-ts and Olm)
// are reported in bench/results/sessions.json and sessions.md (bench/session-report.mjs);
// `--group sessions` runs only them (latest.* is then left as it is), `--group primitives` the rest.
// The sealed-box cases (`hpke-*`: veilkit beside @hpke/core + X-Wing and libsodium crypto_box_seal)
// go to bench/results/hpke.json and hpke.md; `--group hpke` runs only them.
// The MLS group cases (`grp-*`, bench/groups.ts: veilkit's group module beside ts-mls 1.6.4) go to
// bench/results/groups.json and groups.md; `--group groups` runs only them.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { browserArg, engineName, openEngine, resultsDir } from './engines.mjs';
import { sessionReport } from './session-report.mjs';
import { groupsReport } from './groups-report.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PORT = Number(process.env.BENCH_PORT ?? 8779);
const BASE = `http://127.0.0.1:${PORT}`;
const args = process.argv.slice(2);
const engine = browserArg(args, 'bench');
const only = args.includes('--only') ? args[args.indexOf('--only') + 1].split(',') : undefined;
const OUT = resultsDir(resolve(ROOT, 'bench/results'), engine);
const withNative = args.includes('--native');
const group = args.includes('--group') ? args[args.indexOf('--group') + 1] : undefined;
if (group !== undefined && !['sessions', 'primitives', 'hpke', 'groups'].includes(group)) {
  console.error('bench: --group takes sessions, primitives, hpke or groups');
  process.exit(1);
}
const GROUP_PREFIX = { hpke: 'hpke-', groups: 'grp-', sessions: 'sess-' };
const inGroup = (id) => group === undefined || (group === 'primitives'
  ? !Object.values(GROUP_PREFIX).some((p) => id.startsWith(p))
  : id.startsWith(GROUP_PREFIX[group]));
// --rounds N: run the whole case list N times, one round after another, and keep each case's
// median across rounds (this shared VM drifts by ±30% over minutes; rounds spread that over
// every library alike instead of landing on whichever case ran during a slow spell).
const rounds = args.includes('--rounds') ? Number(args[args.lastIndexOf('--rounds') + 1]) : 1; // the last one: npm's script gives 3, `-- --rounds 1` overrides
if (!Number.isInteger(rounds) || rounds < 1) {
  console.error('bench: --rounds needs a positive integer');
  process.exit(1);
}
const log = (...a) => console.log('bench:', ...a);

// The session cases need only the SIMD build (a VEILKIT_THREADS=0 build will do for them).
const needsThreads = group !== 'sessions' && group !== 'hpke' && group !== 'groups';
if (!existsSync(resolve(ROOT, 'dist/ts/index.js')) || (needsThreads && !existsSync(resolve(ROOT, 'dist/ts/wasm-threads/veilkit_bg.wasm')))) {
  console.error('bench: dist/ is missing — run `npm run build` first');
  process.exit(1);
}

// ------------------------------------------------------------------ bundle the case worker
log('bundling bench/worker.ts, bench/session-keystore.ts and bench/group-keystore.ts (esbuild)');
await build({
  entryPoints: [resolve(ROOT, 'bench/worker.ts'), resolve(ROOT, 'bench/session-keystore.ts'), resolve(ROOT, 'bench/group-keystore.ts')],
  outdir: resolve(ROOT, 'bench/dist'),
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  external: ['/dist/*'],
  // ts-mls (bench/groups.ts) is installed apart: tests/interop/ts-mls/.
  nodePaths: [resolve(ROOT, 'tests/interop/ts-mls/node_modules')],
  logLevel: 'warning',
});

// ------------------------------------------------------------------ native criterion bench (optional)
function criterionEstimates() {
  const dir = resolve(process.env.CARGO_TARGET_DIR ?? resolve(ROOT, 'target'), 'criterion');
  const read = (group, name) => {
    const f = resolve(dir, group, name, 'new/estimates.json');
    if (!existsSync(f)) return undefined;
    return JSON.parse(readFileSync(f, 'utf8')).median.point_estimate / 1e9; // seconds
  };
  const s = (g, n) => read(g, n.replaceAll('/', '_'));
  return {
    'mlkem-keygen': s('kem', 'ml-kem-768 keygen'),
    'mlkem-encaps': s('kem', 'ml-kem-768 encaps'),
    'mlkem-decaps': s('kem', 'ml-kem-768 decaps'),
    'xwing-encaps': s('kem', 'x-wing encaps'),
    'xwing-decaps': s('kem', 'x-wing decaps'),
    'mldsa-sign': s('sig', 'ml-dsa-65 sign'),
    'mldsa-verify': s('sig', 'ml-dsa-65 verify'),
    'ed25519-sign': s('sig', 'ed25519 sign'),
    'ed25519-verify': s('sig', 'ed25519 verify'),
    'x25519-dh': s('sig', 'x25519 dh'),
    hkdf: s('kdf', 'hkdf-sha256 32B'),
    pbkdf2: s('kdf', 'pbkdf2-sha256 600k'),
    'argon2id-p1': read('kdf', 'argon2id m=64MiB t=3/p=1'),
    'argon2id-p4': read('kdf', 'argon2id m=64MiB t=3/p=4'),
  };
}
if (withNative) {
  log('cargo bench -p veilkit --bench primitives (native, criterion)');
  const r = spawnSync('cargo', ['bench', '-p', 'veilkit', '--bench', 'primitives'], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

// ------------------------------------------------------------------ server + browser
const server = spawn(process.execPath, [resolve(ROOT, 'tests/server.mjs')], { env: { ...process.env, PORT: String(PORT) }, stdio: ['ignore', 'pipe', 'inherit'] });
await new Promise((ok, fail) => {
  server.stdout.on('data', (d) => String(d).includes('serving') && ok());
  server.on('exit', (c) => fail(new Error(`test server exited (${c}); is port ${PORT} free? set BENCH_PORT`)));
});
const results = [];
let session;
try {
  log(`launching ${engine}`);
  session = await openEngine(engine);
  const { page } = session;
  page.onPageError((m) => log('pageerror', m));
  await page.goto(`${BASE}/bench/index.html`);
  await page.until(() => document.title === 'ready');
  const ids = (await page.evaluate(() => window.runCase('list'))).filter((id) => (!only || only.some((o) => id.includes(o))) && inGroup(id));
  const meta = await page.evaluate(() => ({ userAgent: navigator.userAgent, cores: navigator.hardwareConcurrency, crossOriginIsolated }));
  meta.engine = engine;
  log(`${engineName(engine, meta.userAgent)}: ${ids.length} cases, ${meta.cores} cores, crossOriginIsolated=${meta.crossOriginIsolated}`);
  const perId = new Map(ids.map((id) => [id, []]));
  for (let round = 1; round <= rounds; round++) {
    if (rounds > 1) log(`round ${round} of ${rounds}`);
    for (const id of ids) {
      // cold init: the median of 5 fresh workers
      const reps = id.startsWith('init/') ? 5 : 1;
      const runs = [];
      for (let i = 0; i < reps; i++) runs.push(await page.evaluate((c) => window.runCase(c), id));
      const r = runs[0];
      if (reps > 1 && runs.every((x) => x.ok)) {
        const xs = runs.map((x) => x.value).sort((a, b) => a - b);
        Object.assign(r, { value: xs[reps >> 1], samples: xs });
      }
      perId.get(id).push(r);
      log(r.ok ? `${id.padEnd(34)} ${fmt(r.value, r.unit)}${r.note ? `  (${r.note})` : ''}` : `${id.padEnd(34)} did not load: ${r.error}`);
    }
  }
  for (const id of ids) {
    const rs = perId.get(id);
    const failed = rs.find((x) => !x.ok);
    if (failed || rs.length === 1) {
      results.push(failed ?? rs[0]);
      continue;
    }
    const sorted = [...rs].sort((a, b) => a.value - b.value);
    results.push({ ...sorted[sorted.length >> 1], rounds: rs.map((x) => x.value) });
  }
  var browserMeta = meta;
} finally {
  await session?.close();
  server.kill();
}

// ------------------------------------------------------------------ session report
const method = `one dedicated worker per case; warm-up 400 ms; 7 timed batches of ~250 ms (slow cases: 1 warm-up + 5 single ops, 15 for the group commit cases in groups of 10 and 100, which first run ≥ 400 ms of untimed warm-up operations); median${rounds > 1 ? `; the whole list run ${rounds} times, one round after another, and each case's median across rounds kept` : ''}. Async APIs awaited one call at a time.`;
if (results.some((r) => r.id.startsWith('sess-'))) {
  const { json, md } = sessionReport(results, { date: new Date().toISOString(), browser: browserMeta, method });
  mkdirSync(OUT, { recursive: true });
  writeFileSync(resolve(OUT, 'sessions.json'), `${JSON.stringify(json, null, 2)}\n`);
  writeFileSync(resolve(OUT, 'sessions.md'), `${md}\n`);
  log(`wrote ${OUT}/sessions.json and sessions.md`);
  console.log(`\n${md}`);
}
if (results.some((r) => r.id.startsWith('hpke-'))) {
  const by = Object.fromEntries(results.filter((r) => r.ok && r.id.startsWith('hpke-')).map((r) => [r.id, r.value]));
  const cases = [['hpke-seal-256', 'seal 256 B'], ['hpke-open-256', 'open 256 B'], ['hpke-seal-64k', 'seal 64 KiB'], ['hpke-open-64k', 'open 64 KiB'], ['hpke-seal-1024k', 'seal 1 MiB'], ['hpke-open-1024k', 'open 1 MiB']];
  const us = (ops) => (ops === undefined ? '—' : `${(1e6 / ops).toFixed(1)} µs`);
  const ratio = (a, b) => (a !== undefined && b !== undefined ? a / b : undefined);
  const rowsH = cases.map(([id, title]) => {
    const v = by[`${id}/veilkit-wasm`];
    const h = by[`${id}/hpke-js`];
    const so = by[`${id}/libsodium`];
    // ops/s, so veilkit / peer > 1 means veilkit is faster.
    return { id, title, opsPerSecond: { veilkit: v, hpkeJs: h, libsodium: so }, veilkitVsHpkeJs: ratio(v, h), veilkitVsLibsodium: ratio(v, so) };
  });
  const json = { date: new Date().toISOString(), browser: browserMeta, method, rows: rowsH, results: results.filter((r) => r.id.startsWith('hpke-')) };
  const xr = (r) => (r === undefined ? '—' : `${r.toFixed(2)}×`);
  const md = [
    `# Sealed box benchmark (${json.date.slice(0, 10)})`, '',
    `${engineName(engine, browserMeta.userAgent)} headless, ${browserMeta.cores} cores. ${method}`, '',
    'veilkit `seal` / `open` (HPKE base mode, X-Wing, HKDF-SHA256, AES-256-GCM; the KEM and key schedule in the wasm SIMD build, the AEAD in WebCrypto from 4 KiB on) beside `@hpke/core` 1.9.0 +',
    '`@hpke/hybridkem-x-wing` 0.7.0 (same suite, pure JS KEM + WebCrypto AES-GCM) and libsodium-wrappers-sumo `crypto_box_seal`',
    '(X25519 + XSalsa20-Poly1305: classical, no post-quantum part). Time per operation; ratios are speeds (> 1: veilkit faster).', '',
    '| case | veilkit | @hpke/core + X-Wing | libsodium crypto_box_seal | veilkit vs @hpke | veilkit vs libsodium |',
    '|---|---|---|---|---|---|',
    ...rowsH.map((r) => `| ${r.title} | ${us(r.opsPerSecond.veilkit)} | ${us(r.opsPerSecond.hpkeJs)} | ${us(r.opsPerSecond.libsodium)} | ${xr(r.veilkitVsHpkeJs)} | ${xr(r.veilkitVsLibsodium)} |`),
  ].join('\n');
  mkdirSync(OUT, { recursive: true });
  writeFileSync(resolve(OUT, 'hpke.json'), `${JSON.stringify(json, null, 2)}\n`);
  writeFileSync(resolve(OUT, 'hpke.md'), `${md}\n`);
  log(`wrote ${OUT}/hpke.json and hpke.md`);
  console.log(`\n${md}`);
}
if (results.some((r) => r.id.startsWith('grp-'))) {
  const { json, md } = groupsReport(results.filter((r) => r.id.startsWith('grp-')), { date: new Date().toISOString(), browser: browserMeta, method, engine: engineName(engine, browserMeta.userAgent) });
  mkdirSync(OUT, { recursive: true });
  writeFileSync(resolve(OUT, 'groups.json'), `${JSON.stringify(json, null, 2)}\n`);
  writeFileSync(resolve(OUT, 'groups.md'), `${md}\n`);
  log(`wrote ${OUT}/groups.json and groups.md`);
  console.log(`\n${md}`);
}
if (results.every((r) => r.id.startsWith('sess-') || r.id.startsWith('hpke-') || r.id.startsWith('grp-'))) process.exit(0);

// ------------------------------------------------------------------ report
function fmt(v, unit) {
  if (v === undefined) return '—';
  if (unit === 's') return v >= 1 ? `${v.toFixed(2)} s` : `${(v * 1000).toFixed(1)} ms`;
  if (unit === 'bytes') return `${v} bytes`;
  return v >= 1000 ? `${(v / 1000).toFixed(1)}k ops/s` : `${v.toFixed(1)} ops/s`;
}
const byId = Object.fromEntries(results.filter((r) => r.ok).map((r) => [r.id, r]));
const speed = (id) => { // higher is better, in ops/s
  const r = byId[id];
  if (!r) return undefined;
  return r.unit === 's' ? 1 / r.value : r.value;
};
const GROUPS = [
  ['mlkem-keygen', 'ML-KEM-768 keygen'], ['mlkem-encaps', 'ML-KEM-768 encaps'], ['mlkem-decaps', 'ML-KEM-768 decaps'],
  ['xwing-encaps', 'X-Wing encaps'], ['xwing-decaps', 'X-Wing decaps'],
  ['mldsa-sign', 'ML-DSA-65 sign (1 KiB)'], ['mldsa-verify', 'ML-DSA-65 verify (1 KiB)'],
  ['x25519-dh', 'X25519 DH'], ['ed25519-sign', 'Ed25519 sign (1 KiB)'], ['ed25519-verify', 'Ed25519 verify (1 KiB)'],
  ['argon2id-p1', 'Argon2id m=64 MiB t=3 p=1'], ['argon2id-p4', 'Argon2id m=64 MiB t=3 p=4'],
  ['hkdf', 'HKDF-SHA256 (32 B)'], ['pbkdf2', 'PBKDF2-SHA256 600k'],
  ['sealed-seal', 'Sealed sender seal (1 KiB)'], ['sealed-unseal', 'Sealed sender unseal (1 KiB)'],
  ['session-encrypt', 'Session encrypt (1 KiB, padded AES-GCM)'], ['session-decrypt', 'Session decrypt (1 KiB)'],
];
const PEERS = ['webcrypto', 'libsodium', 'noble', 'hash-wasm'];
const VEILKIT = ['veilkit-wasm', 'veilkit-native', 'veilkit-threads', 'veilkit-handle', 'veilkit-handle-wasm'];
const native = withNative || existsSync(resolve(ROOT, 'target/criterion')) ? criterionEstimates() : {};

const rows = [];
for (const [g, title] of GROUPS) {
  const impls = results.filter((r) => r.ok && r.id.startsWith(`${g}/`)).map((r) => r.id.slice(g.length + 1));
  if (impls.length === 0) continue;
  const peers = impls.filter((i) => PEERS.includes(i));
  const fastestPeer = peers.reduce((best, i) => (best === undefined || speed(`${g}/${i}`) > speed(`${g}/${best}`) ? i : best), undefined);
  const vks = impls.filter((i) => VEILKIT.includes(i));
  const bestVk = vks.reduce((best, i) => (best === undefined || speed(`${g}/${i}`) > speed(`${g}/${best}`) ? i : best), undefined);
  const ratio = (a, b) => (a && b ? speed(`${g}/${a}`) / speed(`${g}/${b}`) : undefined);
  const nativeSecs = native[g];
  rows.push({
    group: g, title, unit: byId[`${g}/${impls[0]}`].unit,
    values: Object.fromEntries(impls.map((i) => [i, byId[`${g}/${i}`].value])),
    fastestAvailable: fastestPeer, veilkitBest: bestVk,
    veilkitVsFastest: ratio(bestVk, fastestPeer),
    wasmVsPeer: Object.fromEntries(peers.map((p) => [p, ratio('veilkit-wasm', p)])),
    bestVsPeer: Object.fromEntries(peers.map((p) => [p, ratio(bestVk, p)])),
    wasmOverNativeRust: nativeSecs && speed(`${g}/veilkit-wasm`) ? (1 / speed(`${g}/veilkit-wasm`)) / nativeSecs : undefined,
  });
}
const pool1 = speed('pool/size-1');
const pool2 = speed('pool/size-2');
// Targets of issue 7 (ratios in this run; speeds, so "time ≤ k×" is "speed ≥ 1/k×").
const row = (g) => rows.find((r) => r.group === g);
const T = [];
const target = (name, measured, want, cmp = '>=') => {
  const met = measured === undefined ? undefined : cmp === '>=' ? measured >= want : measured <= want;
  T.push({ name, measured, want: `${cmp} ${want}`, met });
};
for (const g of ['mlkem-keygen', 'mlkem-encaps', 'mlkem-decaps']) {
  target(`${g}: veilkit best / fastest available`, row(g)?.veilkitVsFastest, 0.8);
  target(`${g}: wasm / libsodium-sumo`, row(g)?.wasmVsPeer.libsodium, 1.2);
  target(`${g}: wasm / noble`, row(g)?.wasmVsPeer.noble, 4);
}
for (const g of ['xwing-encaps', 'xwing-decaps', 'mldsa-sign', 'mldsa-verify']) target(`${g}: wasm / noble`, row(g)?.wasmVsPeer.noble, 3);
for (const g of ['x25519-dh', 'ed25519-sign', 'ed25519-verify']) {
  target(`${g}: veilkit best / fastest available`, row(g)?.veilkitVsFastest, 0.8);
  target(`${g}: wasm / libsodium-sumo`, row(g)?.wasmVsPeer.libsodium, 1.0);
}
const secs = (id) => byId[id]?.value;
const div = (a, b) => (a !== undefined && b !== undefined ? a / b : undefined);
target('argon2id p=1: veilkit time / libsodium-sumo time', div(secs('argon2id-p1/veilkit-wasm'), secs('argon2id-p1/libsodium')), 1.0, '<=');
target('argon2id p=4: threads time / own single-threaded time', div(secs('argon2id-p4/veilkit-threads'), secs('argon2id-p4/veilkit-wasm')), 0.6, '<=');
target('hkdf: veilkit best / WebCrypto', div(speed(`hkdf/${row('hkdf')?.veilkitBest}`), speed('hkdf/webcrypto')), 0.9);
target('pbkdf2 600k: veilkit best / WebCrypto', div(speed(`pbkdf2/${row('pbkdf2')?.veilkitBest}`), speed('pbkdf2/webcrypto')), 0.9);
target('pool: 2 workers / 1 worker (independent KEM ops)', div(pool2, pool1), 1.7);
// Issue 31: key handles (ts/keys.ts) against the browser's own keys, and the wasm signer against libsodium.
for (const g of ['x25519-dh', 'ed25519-sign', 'mlkem-encaps', 'mldsa-sign', 'mldsa-verify']) target(`${g}: key handle / WebCrypto (issue 31)`, div(speed(`${g}/veilkit-handle`), speed(`${g}/webcrypto`)), 0.9);
target('ed25519-sign: wasm key handle / libsodium-sumo (issue 31)', div(speed('ed25519-sign/veilkit-handle-wasm'), speed('ed25519-sign/libsodium')), 1.0);
const readSize = (f) => {
  const b = readFileSync(resolve(ROOT, f));
  return { raw: b.length, gzip: gzipSync(b, { level: 9 }).length };
};
const report = {
  date: new Date().toISOString(),
  browser: browserMeta,
  method,
  skipped: [
    'file encrypt/decrypt 256 MiB (vs a raw WebCrypto chunk loop and openpgp.js): measured by `npm run bench:files` (bench/files/results/latest.md), in its own run (`npm run bench:files -- --browser <engine>`)',
    'X-Wing in libsodium-wrappers-sumo 0.8.4: not exported (ML-KEM-768 is)',
    'libsodium HKDF: not exported by libsodium-wrappers-sumo 0.8.4',
    'chat sessions (issue 16: initiate, respond, 1 KiB messages, direction changes, save/load, wire bytes; vs libsignal-protocol-typescript and Olm): bench/results/sessions.md, written by the same run',
  ],
  results,
  rows,
  pool: { size1: pool1, size2: pool2, ratio: pool1 && pool2 ? pool2 / pool1 : undefined },
  init: { coldSimdSeconds: byId['init/cold-simd']?.value, coldThreadsSeconds: byId['init/cold-threads']?.value },
  wasmSize: { simd: readSize('dist/ts/wasm/veilkit_bg.wasm'), threads: readSize('dist/ts/wasm-threads/veilkit_bg.wasm') },
  nativeRustSeconds: native,
  targets: T,
};
mkdirSync(OUT, { recursive: true });
writeFileSync(resolve(OUT, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);

const x = (r) => (r === undefined ? '—' : `${r.toFixed(2)}×`);
const md = [];
md.push(`# veilkit benchmark (${report.date.slice(0, 10)})`, '');
md.push(`${engineName(engine, browserMeta.userAgent)} headless, ${browserMeta.cores} cores, crossOriginIsolated=${browserMeta.crossOriginIsolated}. ${report.method}`, '');
md.push('Ratios are speed ratios (higher is better for veilkit): "vs fastest" compares veilkit\'s best route with the fastest of native WebCrypto and every peer.', '');
md.push('| case | veilkit wasm | veilkit native route | veilkit key handle | WebCrypto | libsodium-sumo | noble | hash-wasm | veilkit best vs fastest | wasm vs libsodium | wasm vs noble | wasm / native Rust |');
md.push('|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  const v = (i) => fmt(r.values[i], r.unit);
  const wasmCol = r.values['veilkit-threads'] !== undefined ? `${v('veilkit-wasm')} (threads: ${v('veilkit-threads')})` : v('veilkit-wasm');
  const handleCol = r.values['veilkit-handle-wasm'] !== undefined ? `${v('veilkit-handle')} (wasm route: ${v('veilkit-handle-wasm')})` : v('veilkit-handle');
  md.push(`| ${r.title} | ${wasmCol} | ${v('veilkit-native')} | ${handleCol} | ${v('webcrypto')} | ${v('libsodium')} | ${v('noble')} | ${v('hash-wasm')} | ${x(r.veilkitVsFastest)} (vs ${r.fastestAvailable ?? '—'}) | ${x(r.wasmVsPeer.libsodium)} | ${x(r.wasmVsPeer.noble)} | ${r.wasmOverNativeRust ? `${r.wasmOverNativeRust.toFixed(2)}× slower` : '—'} |`);
}
md.push('');
md.push('| target (issue 7) | measured | wanted | met |', '|---|---|---|---|');
for (const t of T) md.push(`| ${t.name} | ${t.measured === undefined ? '—' : `${t.measured.toFixed(2)}×`} | ${t.want}× | ${t.met === undefined ? '—' : t.met ? 'yes' : '**no**'} |`);
const gzKB = report.wasmSize.simd.gzip / 1000;
md.push(`| SIMD wasm gzip -9 | ${gzKB.toFixed(0)} KB | <= 350 KB | ${gzKB <= 350 ? 'yes' : '**no**'} |`);
md.push('');
const b64 = [speed('mlkem-decaps-batch64/veilkit-wasm'), speed('mlkem-decaps-batch64/veilkit-threads')];
md.push(`Batched ML-KEM-768 decapsulation (mlKemDecapsulateBatch, 64 per call): SIMD build ${fmt(b64[0] && b64[0] * 64, 'ops/s')}, threads build ${fmt(b64[1] && b64[1] * 64, 'ops/s')} → ${x(div(b64[1], b64[0]))}.`, '');
md.push(`Pool scaling (independent ML-KEM encapsulations, wasm route): 1 worker ${fmt(pool1, 'ops/s')}, 2 workers ${fmt(pool2, 'ops/s')} → ${x(report.pool.ratio)}.`, '');
md.push(`Cold \`init()\` (fetch + compile + instantiate + WebCrypto probe, fresh worker, median of 5): SIMD ${fmt(report.init.coldSimdSeconds, 's')}, threads ${fmt(report.init.coldThreadsSeconds, 's')}.`, '');
md.push(`wasm size: SIMD ${(report.wasmSize.simd.raw / 1024).toFixed(0)} KiB raw / ${(report.wasmSize.simd.gzip / 1024).toFixed(0)} KiB gzip -9; threads ${(report.wasmSize.threads.raw / 1024).toFixed(0)} KiB / ${(report.wasmSize.threads.gzip / 1024).toFixed(0)} KiB.`, '');
md.push('Not measured:', '', ...report.skipped.map((s) => `- ${s}`), '');
const failed = results.filter((r) => !r.ok);
if (failed.length) md.push(`Did not load in ${engineName(engine, browserMeta.userAgent)} (library, route or API missing in this engine, or the case failed):`, '', ...failed.map((r) => `- ${r.id}: ${r.error}`), '');
writeFileSync(resolve(OUT, 'latest.md'), `${md.join('\n')}\n`);
log(`wrote ${OUT}/latest.json and latest.md`);
console.log(`\n${md.join('\n')}`);
