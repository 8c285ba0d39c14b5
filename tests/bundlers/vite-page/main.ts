// The page of both Vite scratch apps (scripts/packed/10-bundlers.sh copies it to vite6/src/main.ts and
// vite8/src/main.ts, with index.html beside it): imports veilkit by name, runs the shared smoke flow
// (src/smoke.ts, copied from tests/bundlers/smoke.ts) and reports on <body>:
// data-smoke="pass" | "fail: <message>", data-wasm-build (the pool worker's build), data-step (the
// step running, so that a hang names it), data-timings (each step's duration).
import * as veilkit from 'veilkit';
import { smoke, type SmokeBuilds } from './smoke';

const body = document.body;
const log = document.getElementById('log');
const builds: SmokeBuilds = {};
const timings: string[] = [];

function report(): void {
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
  (e: unknown) => {
    report();
    const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    if (log) log.textContent = message;
    body.dataset.smoke = `fail: ${message}`;
  },
);
