// The `groups` benchmark's report (bench/groups.ts cases, run by bench/run.mjs): times per
// operation of veilkit's group module and ts-mls 1.6.4 in the same run, their ratio (> 1: veilkit
// faster), the issue's targets (>= 3x on every commit-side case, >= 1.5x on application messages),
// wire bytes side by side, and the group module's size next to @xmtp/browser-sdk's wasm.
import { readFileSync, existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// @xmtp/browser-sdk 5.1.0's wasm is in its dependency @xmtp/wasm-bindings 1.5.4:
// dist/bindings_wasm_bg.wasm (libxmtp: OpenMLS and the XMTP client), fetched with `npm pack` and
// measured once with gzip -9 (docs/GROUPS.md "Benchmarks"); another package's figure is not
// rebuilt here.
const XMTP = { version: '5.1.0 (@xmtp/wasm-bindings 1.5.4)', file: 'dist/bindings_wasm_bg.wasm', raw: 9_064_994, gzip: 3_223_139 };

const CASES = [
  // ts-mls's createGroup takes a ready key package as the creator's leaf: it generates no key pair
  // and signs nothing, where OpenMLS's create generates the leaf's HPKE key pair and signs the leaf
  // node. The second row times ts-mls with its key package made in the operation (two HPKE key
  // pairs, a signature key pair, two signatures: more work than veilkit's). Like for like lies between.
  ['grp-create', 'create a group (ts-mls: on a ready key package, no key generated, nothing signed)', 'commit'],
  ['grp-create', 'create a group (ts-mls: generateKeyPackageWithKey + createGroup, as an app starts one)', 'commit', 'grp-create-kp'],
  ['grp-add-10', 'add one to 10 (commit + welcome)', 'commit'],
  ['grp-add-100', 'add one to 100', 'commit'],
  ['grp-add-1000', 'add one to 1,000', 'commit'],
  ['grp-process-10', 'process that commit, group of 10', 'commit'],
  ['grp-process-100', 'process it, group of 100', 'commit'],
  ['grp-process-1000', 'process it, group of 1,000', 'commit'],
  ['grp-encrypt-1k', 'encrypt 1 KiB', 'message'],
  ['grp-decrypt-1k', 'decrypt 1 KiB', 'message'],
];
const TARGET = { commit: 3, message: 1.5 };

/** Seconds per operation of a result (ops/s or s). */
const seconds = (r) => (!r?.ok ? undefined : r.unit === 's' ? r.value : 1 / r.value);
const ms = (s) => (s === undefined ? '—' : s >= 0.1 ? `${(s * 1e3).toFixed(0)} ms` : s >= 0.001 ? `${(s * 1e3).toFixed(2)} ms` : `${(s * 1e6).toFixed(1)} µs`);
const x = (r) => (r === undefined ? '—' : `${r.toFixed(r >= 10 ? 0 : 1)}×`);

export function groupsReport(results, { date, browser, method, engine }) {
  const by = new Map(results.map((r) => [r.id, r]));
  const rows = [];
  for (const suite of ['xwing', 'classic']) {
    for (const [id, title, kind, tsId = id] of CASES) {
      const v = seconds(by.get(`${id}/${suite}/veilkit`));
      const t = seconds(by.get(`${tsId}/${suite}/ts-mls`));
      const ratio = v !== undefined && t !== undefined ? t / v : undefined;
      rows.push({
        id: tsId === id ? id : `${id} vs ${tsId}`, suite, title, kind, veilkitSeconds: v, tsMlsSeconds: t, veilkitVsTsMls: ratio,
        target: TARGET[kind], meetsTarget: ratio === undefined ? undefined : ratio >= TARGET[kind],
        errors: [by.get(`${id}/${suite}/veilkit`), by.get(`${tsId}/${suite}/ts-mls`)].filter((r) => r && !r.ok).map((r) => `${r.id}: ${r.error}`),
      });
    }
  }
  const wire = {};
  for (const suite of ['xwing', 'classic']) {
    wire[suite] = { veilkit: by.get(`grp-wire/${suite}/veilkit`)?.details, tsMls: by.get(`grp-wire/${suite}/ts-mls`)?.details };
  }
  const wasm = resolve(ROOT, 'dist/ts/wasm-group/veilkit_group_bg.wasm');
  const size = existsSync(wasm) ? { raw: readFileSync(wasm).length, gzip: gzipSync(readFileSync(wasm), { level: 9 }).length } : undefined;
  // The keystore path (bench/group-keystore.ts): the page API through the keystore's worker, beside the
  // module's own time for the same operation in this run (no target: the issue's are the module's).
  const ks = (id) => seconds(by.get(`${id}/xwing/veilkit-keystore`));
  const keystorePath = [
    ['grp-ks-encrypt-1k', 'group.encrypt 1 KiB, group of 10, sender in 1 group', 'grp-encrypt-1k'],
    ['grp-ks-encrypt-1k-8-groups', 'group.encrypt 1 KiB, group of 10, sender in 8 groups of 10', 'grp-encrypt-1k'],
    ['grp-ks-decrypt-1k', 'group.receive 1 KiB, group of 10', 'grp-decrypt-1k'],
  ].map(([id, title, moduleId]) => ({ id, title, keystoreSeconds: ks(id), moduleSeconds: seconds(by.get(`${moduleId}/xwing/veilkit`)) }));
  const ksErrors = keystorePath.map((r) => by.get(`${r.id}/xwing/veilkit-keystore`)).filter((r) => r && !r.ok).map((r) => `${r.id}: ${r.error}`);
  const json = { date, browser, method, rows, keystorePath, wire, groupModule: size, xmtpBrowserSdk: XMTP, results };

  const suiteName = { xwing: 'X-Wing (veilkit 0x004D; ts-mls 0x0053)', classic: '0x0001 (both)' };
  const table = (suite) => [
    `### ${suiteName[suite]}`, '',
    '| case | veilkit | ts-mls | veilkit vs ts-mls | target |',
    '|---|---|---|---|---|',
    ...rows.filter((r) => r.suite === suite).map((r) => `| ${r.title} | ${ms(r.veilkitSeconds)} | ${ms(r.tsMlsSeconds)} | ${x(r.veilkitVsTsMls)} | ${r.meetsTarget === undefined ? '—' : `${r.meetsTarget ? 'met' : 'missed'} (≥ ${r.target}×)`} |`),
    '',
  ];
  const w = (d, k) => (d?.[k] === undefined ? '—' : `${d[k].toLocaleString('en-US')} B`);
  const wireRows = ['xwing', 'classic'].flatMap((suite) => [
    `| ${suiteName[suite]}: add-one commit, group of 10 / 100 | ${w(wire[suite].veilkit, 'commit10')} / ${w(wire[suite].veilkit, 'commit100')} | ${w(wire[suite].tsMls, 'commit10')} / ${w(wire[suite].tsMls, 'commit100')} |`,
    `| ${suiteName[suite]}: its welcome, group of 10 / 100 | ${w(wire[suite].veilkit, 'welcome10')} / ${w(wire[suite].veilkit, 'welcome100')} | ${w(wire[suite].tsMls, 'welcome10')} / ${w(wire[suite].tsMls, 'welcome100')} |`,
    `| ${suiteName[suite]}: 1 KiB application message | ${w(wire[suite].veilkit, 'message1k')} | ${w(wire[suite].tsMls, 'message1k')} |`,
  ]);
  const errors = [...rows.flatMap((r) => r.errors), ...ksErrors];
  const ksRows = keystorePath.filter((r) => r.keystoreSeconds !== undefined).map((r) => `| ${r.title} | ${ms(r.keystoreSeconds)} | ${ms(r.moduleSeconds)} |`);
  const md = [
    `# Groups benchmark (${date.slice(0, 10)})`, '',
    `${engine} headless, ${browser.cores} cores, each case in its own dedicated worker. ${method}`, '',
    'veilkit: the group wasm module (OpenMLS 0.9.2 with veilkit\'s crypto provider; Ed25519 in wasm). ts-mls 1.6.4 with its',
    'default crypto (noble post-quantum and curves, the browser\'s native WebCrypto Ed25519 for signatures where it has it,',
    'WebCrypto where @hpke/core uses it). Time per operation; the ratio is ts-mls\'s time over',
    'veilkit\'s (> 1: veilkit faster). Commit-side cases time single operations (after a warm-up: 15 samples in groups of 10 and 100, 5 at 1,000).', '',
    ...table('xwing'), ...table('classic'),
    ...(ksRows.length ? [
      '### Through the keystore (X-Wing)', '',
      'The page\'s `Group` API as an application calls it: a round trip to the keystore\'s worker, the member\'s client',
      'state (every group of the identity, one record) sealed and committed to IndexedDB with strict durability before',
      'the answer. Beside it, the module alone for the same operation in this run (group of 2 there).', '',
      '| case | through the keystore | module alone |', '|---|---|---|', ...ksRows, '',
    ] : []),
    '### Wire bytes', '',
    '| | veilkit | ts-mls |', '|---|---|---|', ...wireRows, '',
    '### Module size', '',
    `veilkit group module: ${size ? `${size.gzip.toLocaleString('en-US')} B gzip -9 (${size.raw.toLocaleString('en-US')} B raw)` : 'not built'}; `
      + `@xmtp/browser-sdk ${XMTP.version} \`${XMTP.file}\`: ${XMTP.gzip.toLocaleString('en-US')} B gzip -9 (${XMTP.raw.toLocaleString('en-US')} B raw)`
      + `${size ? `, ${(XMTP.gzip / size.gzip).toFixed(1)}× veilkit's` : ''}.`,
    ...(errors.length ? ['', '### Cases that did not run', '', ...errors.map((e) => `- ${e}`)] : []),
  ].join('\n');
  return { json, md };
}
