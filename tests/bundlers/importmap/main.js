// The no-bundler page: imports veilkit by name through the import map, runs the shared smoke flow
// (smoke.js: tests/bundlers/smoke.ts with its types stripped by scripts/packed/10-bundlers.sh) and
// reports on <body> like the Vite apps (data-smoke, data-wasm-build, data-step, data-timings).
import * as veilkit from 'veilkit';
import { smoke } from './smoke.js';

const body = document.body;
const log = document.getElementById('log');
const builds = {};
const timings = [];

function report() {
  body.dataset.pageBuild = builds.page ?? '';
  body.dataset.wasmBuild = builds.worker ?? '';
  body.dataset.threads = String(builds.workerThreads ?? '');
  body.dataset.coi = String(builds.crossOriginIsolated ?? '');
  body.dataset.timings = timings.join(', ');
}

smoke(veilkit, {
  builds,
  onStep: (s) => { body.dataset.step = s; report(); },
  onStepDone: (s, ms) => { timings.push(`${s} ${ms} ms`); },
}).then(
  (steps) => {
    report();
    if (log) log.textContent = steps.join('\n');
    body.dataset.smoke = 'pass';
  },
  (e) => {
    report();
    const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    if (log) log.textContent = message;
    body.dataset.smoke = `fail: ${message}`;
  },
);
