// GET an attachment's ciphertext, streamed from disk.
import { read } from '../../../../lib/files';

export const dynamic = 'force-dynamic';

export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const file = read((await params).id);
  if (file === undefined) return Response.json({ error: 'no such file' }, { status: 404 });
  return new Response(file.stream, { headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': String(file.size), 'Cache-Control': 'no-store' } });
}
