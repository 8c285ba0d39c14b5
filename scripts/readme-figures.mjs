// Figures the README quotes, generated from their sources instead of typed by hand (issue 28: the
// wasm size figure was stale). A figure is a marked span in README.md:
//   <!-- fig:NAME -->text<!-- /fig -->
// and FIGURES below says how NAME's text is made from a source file.
//   node scripts/readme-figures.mjs --measure   records the wasm sizes of the build in dist/ into
//                                               bench/results/wasm-size.json (scripts/build.sh runs it)
//   node scripts/readme-figures.mjs             rewrites every marked span of README.md from the sources
//   node scripts/readme-figures.mjs --check     exits 1 if a span differs from its source, or a
//                                               figure is unknown (tests/node/readme-figures.test.ts)
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const SIZES = `${root}bench/results/wasm-size.json`;

const n = (x) => x.toLocaleString('en-US');
const kib = (x) => `${Math.round(x / 1024)} KiB`;

function sizes() {
  if (!existsSync(SIZES)) throw new Error(`${SIZES} is missing: run node scripts/readme-figures.mjs --measure after a build`);
  return JSON.parse(readFileSync(SIZES, 'utf8'));
}

function budget() {
  const m = /^SIMD_GZIP_BUDGET=(\d+)$/m.exec(readFileSync(`${root}scripts/build.sh`, 'utf8'));
  if (m === null) throw new Error('scripts/build.sh sets no SIMD_GZIP_BUDGET');
  return Number(m[1]);
}

/** Each figure: its source (for messages) and its text. */
export const FIGURES = {
  'wasm-gzip': {
    source: 'bench/results/wasm-size.json, scripts/build.sh SIMD_GZIP_BUDGET',
    text: () => {
      const s = sizes();
      const simd = `${kib(s.simd.gzip)} SIMD (${n(s.simd.gzip)} B, ${s.build} build; the build-enforced budget is ${n(budget())} B)`;
      const threads = s.threads === null ? 'threads build not measured in that build' : `${kib(s.threads.gzip)} threads (${n(s.threads.gzip)} B)`;
      return `${simd}, ${threads}`;
    },
  },
};

const SPAN = /<!-- fig:([a-z0-9-]+) -->([\s\S]*?)<!-- \/fig -->/g;

/** README text with every span regenerated; `problems` lists unknown figures and (check) differences. */
export function regenerate(text) {
  const problems = [];
  const out = text.replace(SPAN, (whole, name, old) => {
    const fig = FIGURES[name];
    if (fig === undefined) {
      problems.push(`unknown figure ${name}`);
      return whole;
    }
    const now = fig.text();
    if (now !== old) problems.push(`${name}: README says "${old}", ${fig.source} gives "${now}"`);
    return `<!-- fig:${name} -->${now}<!-- /fig -->`;
  });
  return { text: out, problems };
}

function measure() {
  const one = (path) => {
    if (!existsSync(path)) return null;
    // gzip(1) -9, the measure scripts/build.sh holds to its budget (zlib's level 9 differs by ~2 KB).
    return { raw: readFileSync(path).length, gzip: execFileSync('gzip', ['-9', '-c', path], { maxBuffer: 1 << 28 }).length };
  };
  const simd = one(`${root}dist/ts/wasm/veilkit_bg.wasm`);
  if (simd === null) throw new Error('no dist/ts/wasm/veilkit_bg.wasm: build first');
  const record = { build: process.env.VEILKIT_TESTING === '1' ? 'testing' : 'release', simd, threads: one(`${root}dist/ts/wasm-threads/veilkit_bg.wasm`) };
  writeFileSync(SIZES, `${JSON.stringify(record, null, 2)}\n`);
  console.log(`readme-figures: ${SIZES}: ${JSON.stringify(record)}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const mode = process.argv[2];
  if (mode === '--measure') measure();
  else {
    const readme = `${root}README.md`;
    const { text, problems } = regenerate(readFileSync(readme, 'utf8'));
    if (mode === '--check') {
      if (problems.length > 0) {
        console.error(`readme-figures: ${problems.length} figure(s) differ from their source:\n  ${problems.join('\n  ')}\n(run node scripts/readme-figures.mjs)`);
        process.exit(1);
      }
      console.log('readme-figures: every marked figure matches its source');
    } else {
      writeFileSync(readme, text);
      console.log(`readme-figures: README.md regenerated (${problems.length} change(s))`);
    }
  }
}
