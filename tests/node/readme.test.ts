/**
 * The README's code snippets are executable documentation: every ```ts block
 * that imports from 'veilkit' and needs no browser API runs here, against the
 * built package. A snippet that throws fails this test, and so does a result the
 * README states that the snippet does not produce: a statement followed by a
 * JSON-literal comment (`console.log(x); // "hello"`, `verifySignature(…); // true`)
 * must run exactly once and yield exactly that value (what it logs, or the
 * expression's value). The skipped snippets are counted and printed with the
 * reason, with the stated values they leave unchecked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = new URL('../../../', import.meta.url);
// Browser-only APIs (IndexedDB keystore, File/Blob streaming, workers).
const BROWSER_ONLY = /\b(Keystore|encryptFile|encryptFileTo|decryptFile|openContainer|inspectContainer|saveFile|WorkerPool)\b|\b(document|window)\./;
/** A trailing comment that is exactly a JSON literal: the value the statement yields. */
const LITERAL = String.raw`("(?:[^"\\]|\\.)*"|true|false|null|-?\d+(?:\.\d+)?)`;
/** `… console.log(ARGS); // LITERAL` (the call may follow other code on the line). */
const LOGGED = new RegExp(String.raw`^(.*?)console\.log\((.*)\);\s*//\s*${LITERAL}\s*$`);
/** `EXPRESSION; // LITERAL` as a whole statement. */
const STATEMENT = new RegExp(String.raw`^(\s*)(?!(?:const|let|var|return|if|for|while|import|export)\b)(.+?);\s*//\s*${LITERAL}\s*$`);
/** Any line ending in a literal comment (each must be matched by one of the two above). */
const ANY_LITERAL = new RegExp(String.raw`;\s*//\s*${LITERAL}\s*$`);

interface Expectation {
  id: number;
  snippet: number;
  line: string;
  want: unknown;
}

interface Recorder {
  /** The value a checked statement produced, by expectation id (one entry per time it ran). */
  hits: Map<number, unknown[]>;
  /** Arguments of every other console.log call of the snippets. */
  logs: unknown[][];
  hit(id: number, ...values: unknown[]): void;
  log(...values: unknown[]): void;
}

declare global {
  var __veilkitReadme: Recorder | undefined;
}

/** Rewrites one snippet: checked statements report to the recorder, other console.log calls are captured. */
function instrument(code: string, snippet: number, expectations: Expectation[]): string {
  const lines = code.split('\n').map((line) => {
    const logged = LOGGED.exec(line);
    const statement = logged === null ? STATEMENT.exec(line) : null;
    const m = logged ?? statement;
    if (m === null) {
      assert.ok(!ANY_LITERAL.test(line), `README snippet ${snippet}: a stated value this test cannot check: ${line.trim()}`);
      return line;
    }
    const id = expectations.length;
    expectations.push({ id, snippet, line: line.trim(), want: JSON.parse(m[3]!) as unknown });
    return `${m[1]}globalThis.__veilkitReadme.hit(${id}, ${m[2]});`;
  });
  return lines.join('\n').replaceAll('console.log(', 'globalThis.__veilkitReadme.log(');
}

test('README snippets run in Node and give the values the README states', async (t) => {
  const readme = await readFile(new URL('README.md', root), 'utf8');
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const skipped: string[] = [];
  const runnable: { index: number; code: string }[] = [];
  for (const [index, code] of blocks.entries()) {
    const browser = BROWSER_ONLY.exec(code);
    const unchecked = code.split('\n').filter((l) => ANY_LITERAL.test(l)).length;
    const leaves = unchecked > 0 ? `; ${unchecked} stated value(s) left unchecked` : '';
    if (!/from 'veilkit'/.test(code)) skipped.push(`README ts block ${index}: does not import from 'veilkit'${leaves}`);
    else if (browser !== null) skipped.push(`README ts block ${index}: browser-only API (${browser[0]})${leaves}`);
    else runnable.push({ index, code });
  }
  t.diagnostic(`README: ${blocks.length} ts blocks, ${runnable.length} run, ${skipped.length} skipped`);
  for (const reason of skipped) t.diagnostic(`skipped: ${reason}`);
  // Today: the quick start, the messaging and the sealed-box snippets run; keys, sessions, groups, devices and files need a browser
  // (tests/playwright/readme.spec.ts runs the keys, sessions, groups and devices snippets in every engine).
  assert.deepEqual({ blocks: blocks.length, run: runnable.map((r) => r.index), skipped: skipped.length }, { blocks: 8, run: [0, 1, 3], skipped: 5 });

  const entry = new URL('dist/ts/index.js', root).href;
  const expectations: Expectation[] = [];
  const recorder: Recorder = {
    hits: new Map(),
    logs: [],
    hit(id, ...values) {
      // console.log(a, b) states one value per call: a single argument.
      assert.equal(values.length, 1, `expectation ${id}: one value per checked statement`);
      this.hits.set(id, [...(this.hits.get(id) ?? []), values[0]]);
    },
    log(...values) {
      this.logs.push(values);
    },
  };
  globalThis.__veilkitReadme = recorder;
  const dir = await mkdtemp(join(tmpdir(), 'veilkit-readme-'));
  try {
    for (const { index, code } of runnable) {
      const file = join(dir, `snippet-${index}.mjs`);
      const body = instrument(code.replaceAll("from 'veilkit'", `from '${entry}'`), index, expectations);
      await writeFile(file, body);
      await assert.doesNotReject(import(pathToFileURL(file).href), `README snippet ${index} threw`);
    }
  } finally {
    globalThis.__veilkitReadme = undefined;
    await rm(dir, { recursive: true, force: true });
  }

  for (const e of expectations) {
    const got = recorder.hits.get(e.id) ?? [];
    t.diagnostic(`snippet ${e.snippet}: ${e.line} → ${got.map((v) => JSON.stringify(v)).join(', ') || '(not reached)'}`);
    assert.deepEqual(got, [e.want], `README snippet ${e.snippet}: ${e.line}`);
  }
  // The quick start states "hello", true and "AUTHENTICATION_FAILED"; the sealed box "a token".
  assert.deepEqual(
    expectations.map((e) => e.want),
    ['hello', true, 'AUTHENTICATION_FAILED', 'a token'],
  );
  t.diagnostic(`other console.log calls of the snippets (no stated value): ${recorder.logs.length}`);
});
