// The message relay: stores a ciphertext frame for its recipient and pushes it to their stream.
import { relay, USER_NAME } from '../../../lib/store';
import { isChatFrame } from '../../../lib/wire';

export const dynamic = 'force-dynamic';

export async function POST(request: Request): Promise<Response> {
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    return Response.json({ error: 'JSON body expected' }, { status: 400 });
  }
  const { from, to, frame } = (body ?? {}) as { from?: unknown; to?: unknown; frame?: unknown };
  if (typeof from !== 'string' || !USER_NAME.test(from) || typeof to !== 'string' || !USER_NAME.test(to)) {
    return Response.json({ error: 'from and to must be user names' }, { status: 400 });
  }
  if (!isChatFrame(frame)) return Response.json({ error: 'frame must be a base64 chat frame' }, { status: 400 });
  const m = relay(from, to, frame);
  return Response.json({ seq: m.seq });
}
