#!/usr/bin/env node
// Tiny static file server for the browser tests and the demo (no dependencies).
//
// Serves the repository root on 127.0.0.1 only (PORT, default 8787) with the
// cross-origin isolation headers (COOP/COEP/CORP), correct MIME types for
// modules and wasm, no caching, no access outside the root and no dot-files.
//
// The isolated-origin keystore tests need a second origin: the server also
// listens on PORT + 100 (KEYSTORE_PORT). The app runs on http://127.0.0.1:PORT,
// the keystore on http://127.0.0.1:KEYSTORE_PORT (same site, another origin) or
// on http://localhost:PORT (another site). Pages named by suffix get the
// headers docs/KEYSTORE.md asks of each role:
//   *.frame.html        keystore frame: framable by the app only (frame-ancestors),
//                       CORP cross-origin (the app page is COEP), own agent cluster
//   *.unframable.html   a keystore frame that names no ancestor (frame-ancestors 'none')
//   *.manager.html      keystore manager: never framed, no COOP (it must keep its opener)
//   *.isolated-app.html app page: COOP same-origin-allow-popups (keeps its popups' opener)
import { createServer } from 'node:http';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const HOST = '127.0.0.1';
const PORT = Number.parseInt(process.env.PORT ?? '8787', 10);
const KEYSTORE_PORT = PORT + 100;

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.rsp': 'text/plain; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.gz': 'application/gzip',
};

const BASE_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

/** Headers for a file, by its name (see the top of this file). */
function headersFor(file) {
  const app = `http://127.0.0.1:${PORT}`;
  if (file.endsWith('.frame.html')) {
    return { ...BASE_HEADERS, 'Cross-Origin-Resource-Policy': 'cross-origin', 'Content-Security-Policy': `frame-ancestors ${app}`, 'Origin-Agent-Cluster': '?1' };
  }
  if (file.endsWith('.unframable.html')) {
    return { ...BASE_HEADERS, 'Cross-Origin-Resource-Policy': 'cross-origin', 'Content-Security-Policy': "frame-ancestors 'none'", 'Origin-Agent-Cluster': '?1' };
  }
  if (file.endsWith('.manager.html')) {
    const { 'Cross-Origin-Opener-Policy': _coop, ...rest } = BASE_HEADERS;
    return { ...rest, 'Content-Security-Policy': "frame-ancestors 'none'", 'Origin-Agent-Cluster': '?1' };
  }
  if (file.endsWith('.isolated-app.html')) return { ...BASE_HEADERS, 'Cross-Origin-Opener-Policy': 'same-origin-allow-popups' };
  return BASE_HEADERS;
}

function send(res, status, body) {
  res.writeHead(status, { ...BASE_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(`${body}\n`);
}

/** Maps a URL path to a file path inside ROOT, or null if it escapes the root. */
function toFilePath(urlPath) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  // No dot-files or dot-directories (.git, .ci, .cargo …).
  if (decoded.split(/[\\/]/).some((segment) => segment.startsWith('.'))) return null;
  const candidate = resolve(join(ROOT, decoded));
  if (candidate !== ROOT && !candidate.startsWith(ROOT + sep)) return null;
  return candidate;
}

// The group delivery service of the group chat tests (ts/group/delivery.ts, built into dist/ts): /api/ds/…,
// one in-memory store per server process; GET /api/ds-state answers the whole store (the tests read it to
// check that the server holds no plaintext and no key). Loaded on first use, so the server starts without a build.
let delivery;
function deliveryRoutes() {
  // One promise for every request: two first requests at once share one store.
  delivery ??= import('../dist/ts/group/delivery.js').then((m) => {
    const store = m.memoryDeliveryStore();
    return { store, handler: m.deliveryHandler(new m.DeliveryService(store), '/api/ds') };
  });
  delivery.catch(() => {
    delivery = undefined;
  });
  return delivery;
}

function stateJson(value) {
  return JSON.stringify(value, (_k, v) => (v instanceof Uint8Array ? { bytes: Buffer.from(v).toString('hex') } : v));
}

async function handleDelivery(req, res, url) {
  let d;
  try {
    d = await deliveryRoutes();
  } catch {
    send(res, 503, 'the delivery service needs a build (dist/ts)');
    return;
  }
  if (url.pathname === '/api/ds-state') {
    res.writeHead(200, { ...BASE_HEADERS, 'Content-Type': 'application/json' });
    res.end(stateJson(d.store.state));
    return;
  }
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  const request = new Request(url, {
    method: req.method, headers: { 'content-type': req.headers['content-type'] ?? 'application/octet-stream' }, signal: abort.signal,
    ...(req.method === 'GET' || req.method === 'HEAD' ? {} : { body: Buffer.concat(chunks) }),
  });
  const response = await d.handler(request);
  res.writeHead(response.status, { ...BASE_HEADERS, ...Object.fromEntries(response.headers) });
  if (response.body === null) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  res.on('close', () => reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // The client went away.
  }
  res.end();
}

async function handle(req, res) {
  if (req.url?.startsWith('/api/ds')) {
    await handleDelivery(req, res, new URL(req.url, `http://${HOST}:${PORT}`)).catch(() => res.destroy());
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    send(res, 405, 'method not allowed');
    return;
  }
  let pathname;
  try {
    pathname = new URL(req.url ?? '/', `http://${HOST}`).pathname;
  } catch {
    send(res, 400, 'bad request');
    return;
  }
  if (pathname === '/') {
    // The demo (npm run demo): examples/vanilla/.
    res.writeHead(302, { ...BASE_HEADERS, Location: `/examples/vanilla/${new URL(req.url ?? '/', `http://${HOST}`).search}` });
    res.end();
    return;
  }
  let file = toFilePath(pathname);
  if (file === null) {
    send(res, 403, 'forbidden');
    return;
  }
  try {
    let info = await stat(file);
    if (info.isDirectory()) {
      file = join(file, 'index.html');
      info = await stat(file);
    }
    if (!info.isFile()) {
      send(res, 404, 'not found');
      return;
    }
    res.writeHead(200, {
      ...headersFor(file),
      'Content-Type': MIME[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'Content-Length': info.size,
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    createReadStream(file)
      .on('error', () => res.destroy())
      .pipe(res);
  } catch {
    send(res, 404, 'not found');
  }
}

const server = createServer(handle);
const keystoreServer = createServer(handle);
server.listen(PORT, HOST, () => {
  console.log(`veilkit test server: serving ${ROOT} at http://${HOST}:${PORT}/ (and :${KEYSTORE_PORT} for the keystore origin)`);
});
keystoreServer.listen(KEYSTORE_PORT, HOST);

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    keystoreServer.close();
    server.close(() => process.exit(0));
  });
}
