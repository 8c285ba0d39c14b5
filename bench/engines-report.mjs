#!/usr/bin/env node
// node bench/engines-report.mjs [--check]
//
// The README's per-engine performance table, generated from the result files of
// `npm run bench -- --browser <engine>` (bench/results/latest.json for Chromium,
// bench/results/<engine>/latest.json otherwise) and `npm run bench:files -- --browser <engine>`
// (bench/files/results/[<engine>/]latest.json). Writes bench/results/engines.md and replaces the
// text between the `<!-- bench:engines:start -->` and `<!-- bench:engines:end -->` markers of
// README.md with it. `--check`: exit 1 if README.md differs from what the result files give.
//
// Every figure and ratio of a column comes from one run in that engine: veilkit's best route there
// (labelled: wasm, wasm threads build, or native WebCrypto) against the fastest peer measured in the
// same run (WebCrypto, libsodium-sumo, noble, hash-wasm; for files the raw WebCrypto chunk loop and
// openpgp.js). Peers and routes that did not load are listed under the table with the reason.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { engineName, resultsDir } from './engines.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ENGINES = ['chromium', 'firefox', 'webkit'];
const TITLE = { chromium: 'Chromium', firefox: 'Firefox', webkit: 'WebKit' };
const CASES = [
  ['mlkem-keygen', 'ML-KEM-768 keygen'], ['mlkem-encaps', 'ML-KEM-768 encapsulate'], ['mlkem-decaps', 'ML-KEM-768 decapsulate'],
  ['xwing-encaps', 'X-Wing encapsulate'], ['xwing-decaps', 'X-Wing decapsulate'],
  ['mldsa-sign', 'ML-DSA-65 sign (1 KiB)'], ['mldsa-verify', 'ML-DSA-65 verify (1 KiB)'],
  ['argon2id-p1', 'Argon2id 64 MiB, t=3, p=1'], ['argon2id-p4', 'Argon2id 64 MiB, t=3, p=4'],
];
const PEERS = ['webcrypto', 'libsodium', 'noble', 'hash-wasm'];
const PEER_NAME = { webcrypto: 'WebCrypto', libsodium: 'libsodium', noble: 'noble', 'hash-wasm': 'hash-wasm' };
const VEILKIT = { 'veilkit-wasm': 'wasm', 'veilkit-threads': 'wasm, threads build', 'veilkit-native': 'native', 'veilkit-handle': 'key handle', 'veilkit-handle-wasm': 'key handle, wasm' };

const readJson = (f) => (existsSync(f) ? JSON.parse(readFileSync(f, 'utf8')) : undefined);
const runs = Object.fromEntries(ENGINES.map((e) => [e, {
  prim: readJson(resolve(resultsDir(resolve(ROOT, 'bench/results'), e), 'latest.json')),
  files: readJson(resolve(resultsDir(resolve(ROOT, 'bench/files/results'), e), 'latest.json')),
}]));
const present = ENGINES.filter((e) => runs[e].prim || runs[e].files);

function fmt(v, unit) {
  if (unit === 's') return v >= 1 ? `${v.toFixed(2)} s` : `${(v * 1000).toFixed(0)} ms`;
  if (unit === 'MiB/s') return `${v.toFixed(0)} MiB/s`;
  return v >= 1000 ? `${(v / 1000).toFixed(1)}k/s` : `${v.toFixed(v >= 100 ? 0 : 1)}/s`;
}
const speedOf = (r) => (r.unit === 's' ? 1 / r.value : r.value);

/** One primitive cell pair for an engine: veilkit's best route, and the ratio to the fastest peer. */
function primCells(engine, group) {
  const run = runs[engine].prim;
  if (!run) return ['not run', '—'];
  const here = run.results.filter((r) => r.id.startsWith(`${group}/`));
  if (here.length === 0) return ['not run', '—'];
  // Result files from before the runner checked the build: where the threads build did not load in a
  // run, its veilkit-threads figures are the SIMD build's and are not counted as threads.
  const noThreads = run.results.some((r) => !r.ok && r.id.endsWith('/veilkit-threads') && /threads build did not load/.test(r.error));
  const ok = here.filter((r) => r.ok && !(noThreads && r.id.endsWith('/veilkit-threads')));
  const best = (ids) => ok.filter((r) => ids.includes(r.id.slice(group.length + 1))).sort((a, b) => speedOf(b) - speedOf(a))[0];
  const vk = best(Object.keys(VEILKIT));
  const peer = best(PEERS);
  if (!vk) return ['did not run', '—'];
  const route = VEILKIT[vk.id.slice(group.length + 1)];
  const vkCell = `${fmt(vk.value, vk.unit)} (${route})`;
  if (!peer) return [vkCell, 'no peer loaded'];
  const name = PEER_NAME[peer.id.slice(group.length + 1)];
  return [vkCell, `${(speedOf(vk) / speedOf(peer)).toFixed(2)}× (${name} ${fmt(peer.value, peer.unit)})`];
}

/** File cells: veilkit with the full pool vs the fastest of the raw WebCrypto loop and openpgp.js. */
function fileCells(engine, dir) {
  const run = runs[engine].files;
  if (!run) return ['not run', '—'];
  const find = (p) => run.results.find((x) => x.name.startsWith(p));
  const vk = find(dir === 'encrypt' ? 'veilkit encryptFile, full pool' : 'veilkit decryptFile (verified → Blob), full pool');
  const peers = dir === 'encrypt'
    ? [['raw WebCrypto loop', find('raw WebCrypto chunk loop: File → AES-GCM 1 MiB chunks → Blob (encrypt)')], ['openpgp.js v2', find('openpgp.js SEIPDv2 AES-GCM')], ['openpgp.js v1', find('openpgp.js SEIPDv1')]]
    : [['raw WebCrypto loop', find('raw WebCrypto chunk loop: File → AES-GCM 1 MiB chunks → Blob (decrypt)')], ['openpgp.js v2', find('openpgp.js SEIPDv2 decrypt')]];
  const fastest = peers.filter(([, r]) => r).sort((a, b) => b[1].mibps - a[1].mibps)[0];
  if (!vk) return ['did not run', '—'];
  const vkCell = `${fmt(vk.mibps, 'MiB/s')} (${run.mib} MiB, ${vk.name.match(/\((\d+) workers\)/)?.[1] ?? '?'} workers)`;
  if (!fastest) return [vkCell, 'no peer ran'];
  return [vkCell, `${(vk.mibps / fastest[1].mibps).toFixed(2)}× (${fastest[0]} ${fmt(fastest[1].mibps, 'MiB/s')})`];
}

const head = ['case', ...present.flatMap((e) => [`${TITLE[e]}: veilkit (route)`, `${TITLE[e]}: vs fastest peer`])];
const lines = [
  `| ${head.join(' | ')} |`,
  `|${head.map(() => '---').join('|')}|`,
  ...CASES.map(([g, title]) => `| ${title} | ${present.flatMap((e) => primCells(e, g)).join(' | ')} |`),
  `| encryptFile, full pool | ${present.flatMap((e) => fileCells(e, 'encrypt')).join(' | ')} |`,
  `| decryptFile (verified), full pool | ${present.flatMap((e) => fileCells(e, 'decrypt')).join(' | ')} |`,
];

/** A one-line reason for the README (the result files keep the full text). */
function short(error) {
  const e = error.replace(/\s+/g, ' ');
  if (e.startsWith('no native route')) return 'no native route (WebCrypto lacks the algorithm here), so users get the wasm route';
  if (e.startsWith("this engine's WebCrypto rejected")) return `WebCrypto has no such algorithm here (${e.slice(e.indexOf('(') + 1, -1)})`;
  return e.length > 160 ? `${e.slice(0, 157)}…` : e;
}

const notes = [];
for (const e of present) {
  const { prim, files } = runs[e];
  const ua = prim?.browser?.userAgent ?? files?.userAgent ?? '';
  const bits = [];
  if (prim) bits.push(`\`bench/results/${e === 'chromium' ? '' : `${e}/`}latest.md\` (${prim.date.slice(0, 10)}, ${prim.results.some((r) => r.rounds) ? `${prim.results.find((r) => r.rounds).rounds.length} rounds` : '1 round'})`);
  if (files) bits.push(`\`bench/files/results/${e === 'chromium' ? '' : `${e}/`}latest.md\` (${files.date.slice(0, 10)}, ${files.mib} MiB, median of ${files.reps})`);
  const missing = (prim?.results ?? []).filter((r) => !r.ok && CASES.some(([g]) => r.id.startsWith(`${g}/`)));
  const byImpl = new Map();
  for (const r of missing) {
    const impl = r.id.slice(r.id.indexOf('/') + 1);
    const reason = short(r.error);
    const key = `${impl}\u0000${reason}`;
    byImpl.set(key, [...(byImpl.get(key) ?? []), r.id.slice(0, r.id.indexOf('/'))]);
  }
  const dnl = [...byImpl.entries()].map(([k, gs]) => {
    const [impl, reason] = k.split('\u0000');
    return `${impl} (${gs.join(', ')}): ${reason}`;
  });
  for (const n of files?.notRun ?? []) dnl.push(`file case "${n.name}": ${n.reason}`);
  for (const n of files?.notes ?? []) dnl.push(`files: ${n}`);
  notes.push(`- **${TITLE[e]}** (${engineName(e, ua)}): ${bits.join('; ')}.${dnl.length ? ` Did not load: ${dnl.map((d) => `${d}`).join('; ')}.` : ' Every peer and route loaded.'}`);
}

const table = [
  '<!-- bench:engines:start (generated by `node bench/engines-report.mjs` from the result files named below; do not edit by hand) -->',
  ...lines,
  '',
  'Speeds per second or time per operation; "vs fastest peer" is the speed ratio of veilkit\'s best route in that engine to the',
  'fastest peer measured in the same engine in the same run (> 1: veilkit faster). Files: MiB/s of plaintext through a pool of',
  '`navigator.hardwareConcurrency` workers (the figure the engine reports on this 2-core VM), the',
  'peer being the faster of a raw WebCrypto AES-GCM chunk loop over the same File and openpgp.js 6 (SEIPDv2 AES-GCM, or v1).',
  '',
  ...notes,
  '<!-- bench:engines:end -->',
].join('\n');

writeFileSync(resolve(ROOT, 'bench/results/engines.md'), `# veilkit per-engine benchmark\n\n${table}\n`);
const readmePath = resolve(ROOT, 'README.md');
const readme = readFileSync(readmePath, 'utf8');
const start = readme.indexOf('<!-- bench:engines:start');
const end = readme.indexOf('<!-- bench:engines:end -->');
if (start < 0 || end < 0) {
  console.error('bench:engines: README.md has no bench:engines markers');
  process.exit(1);
}
const next = readme.slice(0, start) + table + readme.slice(end + '<!-- bench:engines:end -->'.length);
if (process.argv.includes('--check')) {
  if (next !== readme) {
    console.error('bench:engines: README.md is not what bench/results give; run node bench/engines-report.mjs');
    process.exit(1);
  }
  console.log('bench:engines: README.md matches the result files');
} else {
  writeFileSync(readmePath, next);
  console.log(table);
}
