/**
 * A worker's `veilkit/starting` message (protocol/protocol.ts StartingMessage). The fixtures that pin
 * how many worker→page messages they scanned for secrets scan these too but leave them out of the
 * count: how many there are depends on timing (the threads steps repeat every 0.5 s while they
 * last, ts/init-steps.ts).
 */
export function isStartStep(data: unknown): boolean {
  return typeof data === 'object' && data !== null && (data as { type?: unknown }).type === 'veilkit/starting';
}
