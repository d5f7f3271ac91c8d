/**
 * Powertools idempotency's errors as D2 responses, recognised by name: the error middleware of every
 * route needs this, and must not load Powertools idempotency (and jmespath) into routes that never use it.
 */
import { ApiError } from '#platform/errors.js';

/** Powertools' errors as D2 responses. */
export function idempotencyError(error: unknown): ApiError | undefined {
  const name = (error as Error)?.name;
  if (name === 'IdempotencyValidationError') {
    return new ApiError(422, 'idempotency_key_reused', 'This Idempotency-Key was used with a different request body.');
  }
  if (name === 'IdempotencyAlreadyInProgressError') {
    return new ApiError(409, 'idempotency_in_progress', 'A request with this Idempotency-Key is still being processed; retry shortly.');
  }
  return undefined;
}
