/**
 * The one error type of the hooks' `error` fields: every failure a hook records is a
 * {@link VeilError} (`VeilError | undefined`), whatever threw it. The original value is the `cause`.
 */
import { VeilError, detailsOf, isVeilErrorCode, toVeilError } from '../../protocol/errors.js';

/**
 * `e` as a {@link VeilError}: a `VeilError` (or an error object with a known `code`, e.g. from a
 * worker) as it is; an `AbortError` (cancel, unmount, a closed conversation) → `ABORTED`; a
 * `TypeError` / `RangeError` (bad options, an action that is not possible yet) → `INVALID_OPTION`;
 * anything else → `INTERNAL`.
 */
export function hookError(e: unknown): VeilError {
  if (e instanceof VeilError) return e;
  if (typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'AbortError') {
    return new VeilError('ABORTED', (e as { message?: unknown }).message === undefined ? 'aborted' : String((e as { message?: unknown }).message), { cause: e });
  }
  const code: unknown = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
  if (e instanceof Error && isVeilErrorCode(code)) return new VeilError(code, e.message, { cause: e, details: detailsOf(e) });
  if (e instanceof TypeError || e instanceof RangeError) return new VeilError('INVALID_OPTION', e.message, { cause: e });
  return toVeilError(e);
}
