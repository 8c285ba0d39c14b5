#!/usr/bin/env node
// A static server for the no-bundler page (no dependencies): serves this directory (index.html,
// main.js, smoke.js and the installed node_modules/veilkit) on 127.0.0.1:PORT with the right MIME
// types for modules and wasm. VEILKIT_COI=1 adds COOP/COEP (cross-origin isolation), else none.
import { createServer } from 'node:http';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)));
const PORT = Number.parseInt(process.env.PORT ?? '8920', 10);
const COI = process.env.VEILKIT_COI === '1';
const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
};
const HEADERS = {
  'Cache-Control': 'no-store',
  ...(COI ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } : {}),
};

createServer(async (req, res) => {
  const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
  const file = resolve(join(ROOT, path === '/' ? 'index.html' : path));
  const type = MIME[extname(file)];
  if (!file.startsWith(ROOT + sep) || type === undefined || path.split('/').some((p) => p.startsWith('.'))) {
    res.writeHead(404, HEADERS).end();
    return;
  }
  try {
    if (!(await stat(file)).isFile()) throw new Error('not a file');
  } catch {
    res.writeHead(404, HEADERS).end();
    return;
  }
  res.writeHead(200, { ...HEADERS, 'Content-Type': type });
  createReadStream(file).pipe(res);
}).listen(PORT, '127.0.0.1', () => console.log(`importmap: http://127.0.0.1:${PORT}/${COI ? ' (COOP/COEP)' : ''}`));
