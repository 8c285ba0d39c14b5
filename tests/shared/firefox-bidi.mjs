#!/usr/bin/env node
// Playwright drives Firefox over WebDriver BiDi (channel 'moz-firefox'): it starts the "browser
// executable", waits for the line "WebDriver BiDi listening on ws://…" and connects there. Playwright
// 1.65 sends BiDi commands on every new context that Firefox ESR 153 does not implement yet
// (emulation.setMediaFeaturesOverride); Firefox answers "unknown command" and newContext fails.
//
// This file is the executablePath Playwright is given for Firefox (tests/shared/engines.ts). It starts
// /usr/bin/firefox-esr (VEILKIT_FIREFOX overrides) with Playwright's arguments, puts a WebSocket
// relay between Playwright and Firefox, prints the relay's address in place of Firefox's, and answers
// the commands listed in EMULATION_ONLY with an empty success itself. Those commands only emulate
// display settings no test depends on. It also gives link-started downloads the id Playwright needs
// (see withDownloadId below). Every other command, event and error passes through unchanged.
// Signals are forwarded to Firefox and this process exits with it, so Playwright's process handling
// (graceful browser.close, then SIGKILL by pid) works as with Firefox itself.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { WebSocketServer, WebSocket } from 'ws';

/** BiDi commands answered here with `{}` (each only sets a display emulation; see above). */
const EMULATION_ONLY = new Set(['emulation.setMediaFeaturesOverride']);

const firefox = spawn(process.env.VEILKIT_FIREFOX ?? '/usr/bin/firefox-esr', process.argv.slice(2), {
  stdio: ['ignore', 'inherit', 'pipe'],
});
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
  process.on(signal, () => firefox.kill(signal));
}
firefox.on('exit', (code, signal) => process.exit(code ?? (signal === null ? 0 : 1)));

// Firefox ESR 153 sends browsingContext.downloadWillBegin and downloadEnd with `navigation: null` and
// no `download` id for a download started by a link (an <a download> click on a blob: URL, which is
// how web apps save files). Playwright 1.65 identifies a download by one of those two and ignores
// events with neither, so page.waitForEvent('download') never fired. The relay gives such a pair an
// id of its own in `navigation`: a downloadWillBegin gets a new one, remembered by context and URL;
// the downloadEnd of the same context and URL gets the same one. Events that carry an id pass
// unchanged.
const downloadIds = new Map();
let nextDownload = 1;
function withDownloadId(data) {
  if (!data.includes('browsingContext.download')) return data;
  let message;
  try {
    message = JSON.parse(data.toString());
  } catch {
    return data;
  }
  const method = message.method;
  const params = message.params;
  if (message.type !== 'event' || (method !== 'browsingContext.downloadWillBegin' && method !== 'browsingContext.downloadEnd')) return data;
  if (params === null || typeof params !== 'object' || params.download != null || params.navigation != null) return data;
  const key = `${params.context} ${params.url}`;
  let id;
  if (method === 'browsingContext.downloadWillBegin') {
    id = `veilkit-relay-download-${nextDownload++}`;
    downloadIds.set(key, id);
  } else {
    id = downloadIds.get(key);
    downloadIds.delete(key);
    if (id === undefined) return data;
  }
  return JSON.stringify({ ...message, params: { ...params, navigation: id } });
}

const http = createServer();
const relay = new WebSocketServer({ server: http });
let upstreamBase = '';

relay.on('connection', (client, request) => {
  const upstream = new WebSocket(upstreamBase + (request.url ?? '/'), { maxPayload: 1 << 30 });
  const queued = [];
  upstream.on('open', () => {
    for (const m of queued.splice(0)) upstream.send(m);
  });
  upstream.on('message', (data, isBinary) => client.send(isBinary ? data : withDownloadId(data), { binary: isBinary }));
  upstream.on('close', () => client.close());
  upstream.on('error', () => client.close());
  client.on('message', (data, isBinary) => {
    const text = data.toString();
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      message = undefined;
    }
    if (message !== undefined && EMULATION_ONLY.has(message.method)) {
      client.send(JSON.stringify({ type: 'success', id: message.id, result: {} }));
      return;
    }
    if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary: isBinary });
    else queued.push(text);
  });
  client.on('close', () => upstream.close());
  client.on('error', () => upstream.close());
});

let buffered = '';
firefox.stderr.on('data', (chunk) => {
  buffered += chunk.toString();
  let newline;
  while ((newline = buffered.indexOf('\n')) >= 0) {
    const line = buffered.slice(0, newline);
    buffered = buffered.slice(newline + 1);
    const match = /WebDriver BiDi listening on (ws:\/\/[^\s/]+)/.exec(line);
    if (match === null) {
      process.stderr.write(line + '\n');
      continue;
    }
    upstreamBase = match[1];
    http.listen(0, '127.0.0.1', () => {
      const address = http.address();
      process.stderr.write(`WebDriver BiDi listening on ws://127.0.0.1:${address.port}\n`);
    });
  }
});
