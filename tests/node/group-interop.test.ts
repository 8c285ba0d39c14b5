// MLS interoperability with ts-mls 1.6.4 in Node (docs/GROUPS.md#interoperability): the scenarios
// of tests/shared/group-interop.ts, on veilkit's group module (dist/ts/wasm-group/, instantiated
// from its bytes) and ts-mls (installed apart in tests/interop/ts-mls/). The same scenarios run in
// the three browsers (tests/playwright/groups.spec.ts).
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, resolve } from 'node:path';
import { ownScenarios, scenarios, type GroupGlue, type TsMls } from '../shared/group-interop.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const glueDir = resolve(ROOT, 'dist/ts/wasm-group');
const glue = (await import(pathToFileURL(resolve(glueDir, 'veilkit_group.js')).href)) as GroupGlue;
glue.initSync({ module: readFileSync(resolve(glueDir, 'veilkit_group_bg.wasm')) });
const tsmls = (await import(pathToFileURL(resolve(ROOT, 'tests/interop/ts-mls/node_modules/ts-mls/dist/src/index.js')).href)) as TsMls;

for (const s of [...ownScenarios(glue), ...(await scenarios(glue, tsmls))]) test(s.name, s.run);
