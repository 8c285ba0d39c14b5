// POST an encrypted attachment (a veilkit file container): streamed to disk, answered with its id.
import { MAX_FILE, store } from '../../../lib/files';

export const dynamic = 'force-dynamic';

export async function POST(request: Request): Promise<Response> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (request.body === null || declared > MAX_FILE) return Response.json({ error: 'a body of at most 256 MiB' }, { status: 400 });
  const stored = await store(request.body);
  if (stored === undefined) return Response.json({ error: 'a body of at most 256 MiB' }, { status: 400 });
  return Response.json(stored);
}
