// The session part of `npm run bench` (issue 16): turns the `sess-*` case results of one
// Chromium run (bench/session.ts) into bench/results/sessions.json and sessions.md, in the style
// of latest.{json,md}. Called by bench/run.mjs; figures are per operation (lower is better),
// ratios are speed ratios (higher is better for veilkit).

/** Implementations: veilkit's rows and the classical peers (the fastest peer is the reference). */
const VEILKIT = [
  ['veilkit-core', 'veilkit (ts/session/core.ts, wasm, in the worker)'],
  ['veilkit-handle', 'veilkit SessionState handle (state in wasm memory, like Olm; ts/session/state.ts, in the worker)'],
  ['veilkit-keystore', 'veilkit Session API from the page (keystore worker round trip + strict IndexedDB commit)'],
];
const PEERS = [
  ['libsignal-ts', 'libsignal-protocol-typescript 0.0.16'],
  ['olm', 'Olm (@towns-protocol/olm 3.2.28, libolm wasm)'],
];
const GROUPS = [
  ['sess-initiate', 'Initiate: bundle / one-time key → session + first message (1 KiB)'],
  ['sess-respond', 'Respond: first message → session + its plaintext'],
  ['sess-message', 'Encrypt + decrypt 1 KiB, one direction (steady state)'],
  ['sess-encrypt', 'Encrypt 1 KiB only (same state; decrypt ≈ the row above minus this)'],
  ['sess-turn', 'Round trip A→B, B→A (short messages): two direction changes'],
  ['sess-save', 'Save a session (serialize)'],
  ['sess-load', 'Load a session (deserialize)'],
];
const SKIPPED = [
  'Olm through `@matrix-org/matrix-sdk-crypto-wasm`: it exposes only the `OlmMachine` (to-device events as JSON, its own crypto store, key claims fed back as server responses); no Olm `Session` encrypt/decrypt is reachable, so it cannot be driven per message at this call level. libolm itself is measured (`@towns-protocol/olm`).',
  '`vodozemac`: no npm/wasm build (only Rust crates and Python bindings), so it cannot run in this Chromium run.',
  'veilkit core save on its own: at the byte level the state never leaves its serialized form (every `encrypt`/`decrypt` takes and returns the bytes, so serialization is inside the per-message figure; the SessionState handle row measures `toBytes` alone; native `to_bytes`: `cargo bench -p veilkit --bench session`); through the keystore it is the strict IndexedDB commit inside every `encrypt`/`decrypt`.',
];

const perOp = (r) => (r === undefined ? undefined : r.unit === 's' ? r.value : 1 / r.value);

export function fmtTime(s) {
  if (s === undefined) return '—';
  if (s >= 1) return `${s.toFixed(2)} s`;
  if (s >= 1e-3) return `${(s * 1e3).toFixed(2)} ms`;
  return `${(s * 1e6).toFixed(1)} µs`;
}
const x = (r) => (r === undefined ? '—' : `${r.toFixed(2)}×`);
const n = (v) => (v === undefined ? '—' : v.toLocaleString('en-US'));

/**
 * @param {Array<{id: string, ok: boolean, unit?: string, value?: number, note?: string, details?: Record<string, number>}>} results
 * @param {{ date: string, browser: { userAgent: string, cores: number, crossOriginIsolated: boolean }, method: string, extraSkipped?: string[] }} meta
 * @returns {{ json: object, md: string }}
 */
export function sessionReport(results, meta) {
  const ok = Object.fromEntries(results.filter((r) => r.ok).map((r) => [r.id, r]));
  const secs = (g, i) => perOp(ok[`${g}/${i}`]);
  const rows = [];
  for (const [g, title] of GROUPS) {
    const impls = [...VEILKIT, ...PEERS].map(([i]) => i).filter((i) => ok[`${g}/${i}`]);
    if (impls.length === 0) continue;
    const peers = PEERS.map(([i]) => i).filter((i) => secs(g, i) !== undefined);
    const fastest = peers.reduce((b, i) => (b === undefined || secs(g, i) < secs(g, b) ? i : b), undefined);
    const ratio = (i) => (fastest && secs(g, i) ? secs(g, fastest) / secs(g, i) : undefined);
    rows.push({
      group: g,
      title,
      secondsPerOp: Object.fromEntries(impls.map((i) => [i, secs(g, i)])),
      notes: Object.fromEntries(impls.map((i) => [i, ok[`${g}/${i}`].note])),
      fastestClassical: fastest,
      veilkitCoreVsFastest: ratio('veilkit-core'),
      veilkitHandleVsFastest: ratio('veilkit-handle'),
      veilkitKeystoreVsFastest: ratio('veilkit-keystore'),
    });
  }
  const row = (g) => rows.find((r) => r.group === g);
  const wire = Object.fromEntries([...VEILKIT, ...PEERS].map(([i]) => [i, ok[`sess-wire/${i}`]?.details]).filter(([, d]) => d));
  const rtt = perOp(ok['sess-rtt/worker-echo']);
  const turn = row('sess-turn')?.secondsPerOp['veilkit-core'];
  const perDirection = turn === undefined ? undefined : turn / 2;
  const turnHandle = row('sess-turn')?.secondsPerOp['veilkit-handle'];
  const perDirectionHandle = turnHandle === undefined ? undefined : turnHandle / 2;

  const targets = [];
  const target = (name, measured, want, cmp, unit) => {
    const met = measured === undefined ? undefined : cmp === '>=' ? measured >= want : measured <= want;
    targets.push({ name, measured, want: `${cmp} ${want}${unit === 's' ? ' s' : ''}`, unit, met });
  };
  target('encrypt + decrypt 1 KiB: veilkit core speed / fastest classical peer (same call level)',
    row('sess-message')?.veilkitCoreVsFastest, 1, '>=', 'ratio');
  if (row('sess-message')?.veilkitHandleVsFastest !== undefined) {
    target('encrypt + decrypt 1 KiB: veilkit SessionState handle speed / fastest classical peer (state in wasm memory, the call level of Olm)',
      row('sess-message').veilkitHandleVsFastest, 1, '>=', 'ratio');
  }
  target('one PQ direction change (half the A→B, B→A round trip)', perDirection, 1e-3, '<=', 's');
  if (perDirectionHandle !== undefined) {
    target('one PQ direction change, SessionState handle (half its A→B, B→A round trip)', perDirectionHandle, 1e-3, '<=', 's');
  }
  target('session load, veilkit core (from_bytes of a state with its own ek pending)', row('sess-load')?.secondsPerOp['veilkit-core'], 1e-3, '<=', 's');
  if (row('sess-save')?.secondsPerOp['veilkit-handle'] !== undefined) {
    target('session save, SessionState handle (toBytes of a state with its own ek pending)', row('sess-save').secondsPerOp['veilkit-handle'], 1e-3, '<=', 's');
  }
  if (row('sess-load')?.secondsPerOp['veilkit-handle'] !== undefined) {
    target('session load, SessionState handle (fromBytes of a state with its own ek pending)', row('sess-load').secondsPerOp['veilkit-handle'], 1e-3, '<=', 's');
  }
  if (row('sess-load')?.secondsPerOp['veilkit-keystore'] !== undefined) {
    target('session load through the keystore (Session.load from the page)', row('sess-load').secondsPerOp['veilkit-keystore'], 1e-3, '<=', 's');
  }

  // The keystore path against its floor (issue 28): a bare strict IndexedDB commit measured in the same run.
  const bare = perOp(ok['sess-x-idb-commit/veilkit-keystore']);
  const keystorePath = {
    bareStrictCommit: bare,
    encrypt: perOp(ok['sess-encrypt/veilkit-keystore']),
    decrypt: perOp(ok['sess-decrypt/veilkit-keystore']),
    encryptDecryptPair: row('sess-message')?.secondsPerOp['veilkit-keystore'],
    decryptManyPerMessage: perOp(ok['sess-decrypt-many/veilkit-keystore']),
    encryptManyPerMessage: perOp(ok['sess-encrypt-many/veilkit-keystore']),
    handleEncryptDecryptPair: row('sess-message')?.secondsPerOp['veilkit-handle'],
    handleEncrypt: row('sess-encrypt')?.secondsPerOp['veilkit-handle'],
  };
  const vsBare = (v) => (v === undefined || bare === undefined ? undefined : v / bare);
  if (bare !== undefined) {
    if (keystorePath.encrypt !== undefined) target('keystore session.encrypt / bare strict IndexedDB commit (same run)', vsBare(keystorePath.encrypt), 1.5, '<=', 'ratio');
    if (keystorePath.decrypt !== undefined) target('keystore session.decrypt / bare strict IndexedDB commit (same run)', vsBare(keystorePath.decrypt), 1.5, '<=', 'ratio');
  }
  if (keystorePath.decryptManyPerMessage !== undefined) target('keystore session.decryptMany, per message (batches of 50)', keystorePath.decryptManyPerMessage, 3e-4, '<=', 's');

  const skipped = [...SKIPPED, ...(meta.extraSkipped ?? [])];
  const json = {
    date: meta.date,
    browser: meta.browser,
    method: meta.method,
    implementations: Object.fromEntries([...VEILKIT, ...PEERS]),
    rows,
    perDirectionChangeSeconds: perDirection,
    perDirectionChangeHandleSeconds: perDirectionHandle,
    workerRoundTripSeconds: rtt,
    keystorePath,
    veilkitLoadPeerEkSeconds: perOp(ok['sess-x-load-peer-ek/veilkit-core']),
    aesGcm2KiBSeconds: { noAd: perOp(ok['sess-x-gcm/veilkit-core']), sessionAd: perOp(ok['sess-x-gcm-ad/veilkit-core']) },
    wire,
    targets,
    skipped,
    results: results.filter((r) => r.id.startsWith('sess-')),
  };

  const present = [...VEILKIT, ...PEERS].filter(([i]) => rows.some((r) => r.secondsPerOp[i] !== undefined) || wire[i]);
  const md = [];
  md.push(`# veilkit session benchmark (${meta.date.slice(0, 10)})`, '');
  md.push(`${meta.browser.userAgent.match(/Chrom\w+\/[\d.]+/)?.[0] ?? 'Chromium'} headless, ${meta.browser.cores} cores, crossOriginIsolated=${meta.browser.crossOriginIsolated}. ${meta.method}`, '');
  md.push('Every implementation runs inside a dedicated worker, called directly (no postMessage per operation). Times per operation (lower is better); "vs fastest classical" is the fastest classical peer\'s time over veilkit\'s (a speed ratio: above 1 veilkit is faster). veilkit core\'s figures include what it does per operation: parsing the serialized state and serializing the new one, wiping the old bytes, every PQ step (the SessionState handle keeps the parsed state between calls instead).', '');
  md.push(`| case | ${present.map(([, t]) => t).join(' | ')} | veilkit vs fastest classical |`);
  md.push(`|---|${present.map(() => '---').join('|')}|---|`);
  for (const r of rows) {
    const handle = r.veilkitHandleVsFastest === undefined ? '' : `; handle ${x(r.veilkitHandleVsFastest)}`;
    const keystore = r.veilkitKeystoreVsFastest === undefined ? '' : `; Session API ${x(r.veilkitKeystoreVsFastest)}`;
    const core = r.veilkitCoreVsFastest === undefined ? '' : `core ${x(r.veilkitCoreVsFastest)}`;
    const vs = r.fastestClassical ? `${[core, handle.slice(2), keystore.slice(2)].filter(Boolean).join('; ')} (vs ${r.fastestClassical})` : '—';
    md.push(`| ${r.title} | ${present.map(([i]) => fmtTime(r.secondsPerOp[i])).join(' | ')} | ${vs} |`);
  }
  md.push('');
  md.push(`One direction change (veilkit: a new sending chain with ML-KEM encapsulation + ML-KEM key generation, the peer's decapsulation, a DH ratchet step on each side): ${fmtTime(perDirection)} (half the round trip above)${perDirectionHandle === undefined ? '' : `; through SessionState handles ${fmtTime(perDirectionHandle)}`}.`, '');
  if (rows.some((r) => r.secondsPerOp['veilkit-handle'] !== undefined)) {
    md.push('The SessionState handle row is the same veilkit conversation at the call level of Olm\'s `Session`: each side parsed once (`SessionState.fromBytes`) and kept in wasm memory, so `encrypt`/`decrypt` neither parse nor serialize the state; saving is a separate `toBytes()` (its row), as Olm\'s `pickle`. The keystore worker still stores the state after every change, so the Session API row does not change with it.', '');
  }
  const loadPeerEk = perOp(ok['sess-x-load-peer-ek/veilkit-core']);
  if (loadPeerEk !== undefined) {
    md.push(`veilkit's load row is a state with its own ML-KEM ek pending and its own ratchet key (state format 3 stores the own ML-KEM key pair as its 64-byte seed, so a load runs ML-KEM key generation; the keystore worker keeps parsed states cached, so it pays this only on a cache miss; the X25519 public key is recomputed from its secret; every core \`encrypt\`/\`decrypt\` of that party pays the parse too); a state holding the peer's ek and no ratchet secret loads in ${fmtTime(loadPeerEk)}.`, '');
  }
  const gcm = perOp(ok['sess-x-gcm/veilkit-core']);
  const gcmAd = perOp(ok['sess-x-gcm-ad/veilkit-core']);
  if (gcm !== undefined && gcmAd !== undefined) {
    md.push(`AES-256-GCM in wasm (software AES) over a 2 KiB padded block: ${fmtTime(gcm)} alone, ${fmtTime(gcmAd)} with the 6,383-byte associated data a session message had before the H_ID refinement (both identity encodings and a header carrying ct ‖ ek; today 2,381 bytes: H_ID instead of the encodings, docs/SESSIONS.md §5.2) — the measurement behind that change; a message pays AES-GCM once to seal and once to open.`, '');
  }
  md.push(`Worker round trip, measured separately (postMessage of 1 KiB to a nested dedicated worker and a 4,398-byte reply, structured clone both ways, no crypto): ${fmtTime(rtt)}. A page calling a session in the keystore worker pays this once per operation on top of the figures above.`, '');
  if (rows.some((r) => r.secondsPerOp['veilkit-keystore'] !== undefined)) {
    md.push('The Session API row is the whole path an application pays: a round trip from the page to the keystore\'s worker, its Web Locks, the IndexedDB read, unwrapping (AES-GCM) the stored state, the ratchet, wrapping the new state and a `durability: \'strict\'` commit before the answer. Saving a session is that commit, inside every `encrypt`/`decrypt` (there is no separate save); respond is the median of single operations, each consuming a one-time bundle.', '');
  }
  if (bare !== undefined) {
    md.push('Keystore path against its floor (same run; "× bare" = time over one bare `durability: \'strict\'` IndexedDB read + put of 8 KiB on the page):', '');
    md.push('| path | per message | × bare |', '|---|---|---|');
    const kp = [
      ['bare strict IndexedDB commit (no keystore)', keystorePath.bareStrictCommit],
      ['session.encrypt (keystore)', keystorePath.encrypt],
      ['session.decrypt (keystore)', keystorePath.decrypt],
      ['encrypt + peer decrypt (keystore, two commits)', keystorePath.encryptDecryptPair],
      ['session.decryptMany, batches of 50 (one commit each)', keystorePath.decryptManyPerMessage],
      ['session.encryptMany, batches of 50 (one commit each)', keystorePath.encryptManyPerMessage],
      ['SessionState handle encrypt + decrypt (in memory, no storage)', keystorePath.handleEncryptDecryptPair],
    ];
    for (const [name, v] of kp) if (v !== undefined) md.push(`| ${name} | ${fmtTime(v)} | ${x(vsBare(v))} |`);
    md.push('');
  }
  md.push('Bytes on the wire (binary; Olm\'s messages travel as unpadded base64 inside JSON, 4/3 of this):', '');
  const W = [
    ['initialMessage1KiB', 'first message (carrying 1 KiB)'],
    ['steadyMessage1KiB', '1 KiB message, steady state (largest of 4 in a row after 200 warm-up messages)'],
    ['afterDirectionChange1KiB', '1 KiB message after a direction change'],
    ['firstChainMessage1KiB', '1 KiB message in the initiator\'s first chain (before any reply)'],
    ['shortMessageAfterTurn', '1-byte message after a direction change'],
    ['firstChainPqBytes', 'PQ bytes on a message of the initiator\'s first chain (protocol 2: a 34-byte ek chunk)'],
    ['steadyPqBytes', 'PQ bytes on the steady-state message above (protocol 2: 0 or a 34-byte chunk)'],
    ['pqBytesPerEpoch', 'KEM data per epoch (ek + ct; protocol 2 sends each once, in 37 + 34 erasure-coded chunks)'],
    ['stateBytes', 'serialized session state (veilkit: state bytes; libsignal: record string; Olm: pickle, base64)'],
  ];
  const wi = present.filter(([i]) => wire[i]);
  md.push(`| | ${wi.map(([, t]) => t).join(' | ')} |`, `|---|${wi.map(() => '---').join('|')}|`);
  for (const [k, t] of W) {
    if (!wi.some(([i]) => wire[i][k] !== undefined)) continue;
    md.push(`| ${t} | ${wi.map(([i]) => n(wire[i][k])).join(' | ')} |`);
  }
  md.push('');
  md.push('| target (issue 16) | measured | wanted | met |', '|---|---|---|---|');
  for (const t of targets) {
    const m = t.measured === undefined ? '—' : t.unit === 's' ? fmtTime(t.measured) : `${t.measured.toFixed(2)}×`;
    const want = t.unit === 's' ? `<= ${fmtTime(Number(t.want.split(' ')[1]))}` : `${t.want}×`;
    md.push(`| ${t.name} | ${m} | ${want} | ${t.met === undefined ? '—' : t.met ? 'yes' : '**no**'} |`);
  }
  md.push('');
  md.push('Notes per case:', '');
  for (const r of rows) {
    for (const [i, note] of Object.entries(r.notes)) if (note) md.push(`- ${r.group}/${i}: ${note}`);
  }
  md.push('');
  md.push('Not measured:', '', ...skipped.map((s) => `- ${s}`), '');
  const failed = results.filter((r) => r.id.startsWith('sess-') && !r.ok);
  if (failed.length) md.push('Failed cases:', '', ...failed.map((r) => `- ${r.id}: ${r.error}`), '');
  return { json, md: md.join('\n') };
}
