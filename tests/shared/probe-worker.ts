// Module worker of the capability probe (tests/shared/probe.ts): probes itself and posts the result.
import { probeContext } from './probe.js';

const scope = globalThis as unknown as DedicatedWorkerGlobalScope;
probeContext().then(
  (r) => scope.postMessage(r),
  (e: unknown) => scope.postMessage({ error: String(e) }),
);
