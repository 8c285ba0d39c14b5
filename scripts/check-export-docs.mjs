// Lists the public exports of every package entry point (package.json `exports`; read from the
// sources their .d.ts are built from: dist/ts/x.d.ts ← ts/x.ts) that carry no doc comment, and exits
// 1 if there is any (issue 28: 54 root exports showed nothing on hover). `npm run lint` runs it. An export's documentation is the JSDoc of one of its declarations (a re-export follows
// the alias to the declaration); an interface's or class's members are not checked here.
// Uses TypeScript's JS API (the `typescript` package, TypeScript 6: tsc 7 has no JS API yet).
import ts from 'typescript';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
const entries = Object.entries(manifest.exports)
  .filter(([, e]) => typeof e === 'object' && e !== null && typeof e.types === 'string')
  .map(([name, e]) => ({ name: name === '.' ? 'veilkit' : `veilkit/${name.slice(2)}`, file: `${root}${e.types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts')}` }));

const program = ts.createProgram(entries.map((e) => e.file), { noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler });
const checker = program.getTypeChecker();

function documented(symbol) {
  const s = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  if (s.getDocumentationComment(checker).length > 0) return true;
  // JSDoc with only tags (`@deprecated`, `@internal`) counts too.
  return (s.declarations ?? []).some((d) => ts.getJSDocCommentsAndTags(d).length > 0);
}

const missing = [];
let total = 0;
for (const entry of entries) {
  const source = program.getSourceFile(entry.file);
  if (source === undefined) {
    console.error(`check-export-docs: ${entry.file} not found (package.json exports → source)`);
    process.exit(2);
  }
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (moduleSymbol === undefined) continue;
  for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
    total++;
    if (!documented(symbol)) missing.push(`${entry.name}: ${symbol.getName()}`);
  }
}
if (missing.length > 0) {
  console.error(`check-export-docs: ${missing.length} of ${total} public exports have no doc comment:\n  ${missing.join('\n  ')}`);
  process.exit(1);
}
console.log(`check-export-docs: all ${total} public exports of ${entries.length} entry points are documented`);
