// A ChatTransport over this app's server: frames go out with fetch (POST /api/messages) and come in
// as server-sent events (GET /api/messages/stream). The relay keeps frames, so a recipient who was
// offline gets them on connect; the last frame handed to the chat is remembered per conversation
// (localStorage) so a reload resumes after it instead of replaying frames the ratchet already used.
import type { ChatTransport } from 'veilkit/react';
import { fromBase64, toBase64 } from './base64';

export function sseTransport(self: string, peer: string): ChatTransport {
  const cursorKey = `veilkit-next:cursor:${self}:${peer}`;
  return {
    async send(bytes: Uint8Array): Promise<void> {
      const response = await fetch('/api/messages', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ from: self, to: peer, frame: toBase64(bytes) }),
      });
      if (!response.ok) throw new Error(`relay refused the message: ${response.status} ${await response.text()}`);
    },
    subscribe(onBytes: (bytes: Uint8Array) => void): () => void {
      let cursor = Number(localStorage.getItem(cursorKey) ?? '0') || 0;
      const query = new URLSearchParams({ user: self, from: peer, after: String(cursor) });
      const source = new EventSource(`/api/messages/stream?${query.toString()}`);
      source.onmessage = (event: MessageEvent<string>) => {
        const { seq, frame } = JSON.parse(event.data) as { seq: number; frame: string };
        if (seq <= cursor) return; // a reconnect (Last-Event-ID) may repeat the newest frame
        cursor = seq;
        localStorage.setItem(cursorKey, String(seq));
        onBytes(fromBase64(frame));
      };
      return () => source.close();
    },
  };
}
