// Server-sent events to a recipient: every frame addressed to `user` (optionally only those
// `from` one peer) with a seq above `after`, then each new one as it arrives.
import { follow, USER_NAME } from '../../../../lib/store';

export const dynamic = 'force-dynamic';

export function GET(request: Request): Response {
  const url = new URL(request.url);
  const user = url.searchParams.get('user') ?? '';
  const from = url.searchParams.get('from');
  const after = Number(url.searchParams.get('after') ?? '0');
  if (!USER_NAME.test(user) || (from !== null && !USER_NAME.test(from)) || !Number.isSafeInteger(after) || after < 0) {
    return Response.json({ error: 'user (and from) must be user names, after a seq' }, { status: 400 });
  }
  const encoder = new TextEncoder();
  let stop = (): void => undefined;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const write = (text: string): void => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          stop();
        }
      };
      write('retry: 1000\n\n');
      const unfollow = follow(user, after, (m) => {
        if (from !== null && m.from !== from) return;
        write(`id: ${m.seq}\ndata: ${JSON.stringify({ seq: m.seq, from: m.from, frame: m.body })}\n\n`);
      });
      const ping = setInterval(() => write(': ping\n\n'), 15_000);
      stop = () => {
        clearInterval(ping);
        unfollow();
      };
      request.signal.addEventListener('abort', () => {
        stop();
        try {
          controller.close();
        } catch {
          // already closed
        }
      });
    },
    cancel() {
      stop();
    },
  });
  return new Response(stream, {
    headers: {
      'Content-Type': 'text/event-stream; charset=utf-8',
      // no-transform: next start's gzip would otherwise buffer the stream.
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
    },
  });
}
