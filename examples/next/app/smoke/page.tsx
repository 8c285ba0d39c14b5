'use client';
// The bundler-matrix smoke page: runs lib/smoke.ts once in the browser and writes the outcome on
// <body data-smoke="pass"> or data-smoke="fail: <message>". veilkit is imported inside the effect,
// so nothing of it runs during server rendering.
import { useEffect, useState } from 'react';

export default function SmokePage() {
  const [steps, setSteps] = useState<string[]>([]);
  const [outcome, setOutcome] = useState('running');
  useEffect(() => {
    let live = true;
    void (async () => {
      try {
        const [veilkit, { smoke }] = await Promise.all([import('veilkit'), import('../../lib/smoke')]);
        const done = await smoke(veilkit);
        if (!live) return;
        setSteps(done);
        setOutcome('pass');
        document.body.dataset.smoke = 'pass';
      } catch (e) {
        const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
        if (!live) return;
        setOutcome(`fail: ${message}`);
        document.body.dataset.smoke = `fail: ${message}`;
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
