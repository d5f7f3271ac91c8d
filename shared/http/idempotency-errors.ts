/**
 * Powertools idempotency's errors as D2 responses, recognised by name: the error middleware of every
 * route needs this, and must not load Powertools idempotency (and jmespath) into routes that never use it.
 */
import { ApiError } from '#platform/errors.js';

/** How long a concurrent duplicate is asked to wait before it retries (D8: it then gets the first response). */
export const IN_PROGRESS_RETRY_AFTER_SECONDS = 2;

/** Powertools' errors as D2 responses. */
export function idempotencyError(error: unknown): ApiError | undefined {
  const name = (error as Error)?.name;
  if (name === 'IdempotencyValidationError') {
    return new ApiError(422, 'idempotency_key_reused', 'This Idempotency-Key was used with a different request body.');
  }
  if (name === 'IdempotencyAlreadyInProgressError') {
    return new ApiError(
      409,
      'idempotency_in_progress',
      'A request with this Idempotency-Key is still being processed; retry shortly.',
      undefined,
      { 'Retry-After': String(IN_PROGRESS_RETRY_AFTER_SECONDS) },
    );
  }
  return undefined;
}
