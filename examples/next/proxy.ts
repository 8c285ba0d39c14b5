// COOP/COEP on every response when the server is started with VEILKIT_COI=1 (read per request, so
// one build serves both ways). Cross-origin isolation lets veilkit use its threads build; without
// it the SIMD build runs. Both work.
import { NextResponse } from 'next/server';

export function proxy(): NextResponse {
  const response = NextResponse.next();
  if (process.env.VEILKIT_COI === '1') {
    response.headers.set('Cross-Origin-Opener-Policy', 'same-origin');
    response.headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
  }
  return response;
}
