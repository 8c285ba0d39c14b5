'use client';
// The bundler matrix's smoke page: runs the shared smoke flow (lib/smoke.ts, a copy of
// tests/bundlers/smoke.ts) once in the browser and reports on <body> as the matrix's scratch apps do:
// data-smoke="pass" | "fail: <message>", data-wasm-build (the pool worker's build), data-page-build,
// data-threads, data-coi, data-step (the step running) and data-timings. veilkit is imported inside
// the effect, so nothing of it runs during server rendering.
import { useEffect, useState } from 'react';
import type { SmokeBuilds } from '../../lib/smoke';

export default function SmokePage() {
  const [steps, setSteps] = useState<string[]>([]);
  const [outcome, setOutcome] = useState('running');
  useEffect(() => {
    let live = true;
    const body = document.body;
    const builds: SmokeBuilds = {};
    const timings: string[] = [];
    const report = (): void => {
      body.dataset.pageBuild = builds.page ?? '';
      body.dataset.wasmBuild = builds.worker ?? '';
      body.dataset.threads = String(builds.workerThreads ?? '');
      body.dataset.coi = String(builds.crossOriginIsolated ?? '');
      body.dataset.timings = timings.join(', ');
    };
    void (async () => {
      try {
        const [veilkit, { smoke }] = await Promise.all([import('veilkit'), import('../../lib/smoke')]);
        const done = await smoke(veilkit, {
          builds,
          onStep: (s) => {
            body.dataset.step = s;
            report();
          },
          onStepDone: (s, ms) => {
            timings.push(`${s} ${ms} ms`);
          },
        });
        if (!live) return;
        report();
        setSteps(done);
        setOutcome('pass');
        body.dataset.smoke = 'pass';
      } catch (e) {
        const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
        if (!live) return;
        report();
        setOutcome(`fail: ${message}`);
        body.dataset.smoke = `fail: ${message}`;
      }
    })();
    return () => {
      live = false;
    };
  }, []);
  return (
    <main>
      <h1>veilkit smoke test</h1>
      <p id="outcome">{outcome}</p>
      <ol>{steps.map((s) => <li key={s}>{s}</li>)}</ol>
    </main>
  );
}
