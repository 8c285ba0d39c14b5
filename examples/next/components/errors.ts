/** A short, stable text for an error from veilkit (its `code`), or anything else that was thrown. */
export function describe(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { code, name, message } = error as { code?: unknown; name?: unknown; message?: unknown };
    if (typeof code === 'string') return typeof message === 'string' && message !== '' ? `${code}: ${message}` : code;
    if (typeof name === 'string' && typeof message === 'string') return `${name}: ${message}`;
  }
  return String(error);
}
