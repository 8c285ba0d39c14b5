// The prekey directory. PUT publishes a user's bundles (the reusable one plus one-time bundles);
// GET hands out one bundle to an initiator: each one-time bundle once, then the reusable one.
import { publishBundles, takeBundle, USER_NAME } from '../../../../lib/store';
import { isPrekeyBundle, MAX_ONE_TIME } from '../../../../lib/wire';

export const dynamic = 'force-dynamic';

export async function PUT(request: Request, ctx: RouteContext<'/api/bundles/[user]'>): Promise<Response> {
  const { user } = await ctx.params;
  if (!USER_NAME.test(user)) return Response.json({ error: 'bad user name' }, { status: 400 });
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    return Response.json({ error: 'JSON body expected' }, { status: 400 });
  }
  const { bundle, oneTime } = (body ?? {}) as { bundle?: unknown; oneTime?: unknown };
  if (!isPrekeyBundle(bundle)) return Response.json({ error: 'bundle must be a base64 prekey bundle' }, { status: 400 });
  if (!Array.isArray(oneTime) || oneTime.length > MAX_ONE_TIME || !oneTime.every(isPrekeyBundle)) {
    return Response.json({ error: `oneTime must be at most ${MAX_ONE_TIME} base64 prekey bundles` }, { status: 400 });
  }
  publishBundles(user, { bundle, oneTime: oneTime as string[] });
  return Response.json({ ok: true, oneTime: oneTime.length });
}

export async function GET(_request: Request, ctx: RouteContext<'/api/bundles/[user]'>): Promise<Response> {
  const { user } = await ctx.params;
  if (!USER_NAME.test(user)) return Response.json({ error: 'bad user name' }, { status: 400 });
  const found = takeBundle(user);
  if (!found) return Response.json({ error: `${user} has not published prekeys` }, { status: 404 });
  return Response.json(found, { headers: { 'Cache-Control': 'no-store' } });
}
