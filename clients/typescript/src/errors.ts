/**
 * Typed errors. Every failed request of the API answers in the D2 shape `{detail, code, errors?}`; the client
 * throws a HiringApiError carrying exactly those fields, as a subclass by status so that callers can
 * `catch (e) { if (e instanceof NotFoundError) … }`. A body that is not in that shape (a proxy's HTML page)
 * still becomes a HiringApiError, with code `unexpected_response`.
 */
import type { ApiErrorBody } from './types.js';

export class HiringApiError extends Error {
  override readonly name: string = 'HiringApiError';
  /** The HTTP status. */
  readonly status: number;
  /** D2 `code`: a stable snake_case code such as `invalid`, `not_found`, `throttled`. */
  readonly code: string;
  /** D2 `detail`: a human-readable sentence. */
  readonly detail: string;
  /** D2 `errors`: validation messages by field path (`candidate.email`) or parameter name; only on validation errors. */
  readonly errors: Readonly<Record<string, readonly string[]>> | undefined;
  /** The request id (header `X-Request-Id`, or `request_id` on a 500) to quote to support. */
  readonly requestId: string | undefined;
  /** `Retry-After` in seconds, when the response carried one (429, 409). */
  readonly retryAfterSeconds: number | undefined;
  /** The method and URL of the request (without query), for messages and logs. */
  readonly request: string;

  constructor(status: number, body: ApiErrorBody, meta: { requestId?: string; retryAfterSeconds?: number; request: string }) {
    super(`${meta.request} → ${status} ${body.code}: ${body.detail}`);
    this.status = status;
    this.code = body.code;
    this.detail = body.detail;
    this.errors = body.errors ? copyErrors(body.errors) : undefined;
    this.requestId = meta.requestId ?? body.request_id;
    this.retryAfterSeconds = meta.retryAfterSeconds;
    this.request = meta.request;
  }

  /** The D2 body, as the API sent it (`errors` as a copy). */
  toJSON(): ApiErrorBody {
    return { detail: this.detail, code: this.code, ...(this.errors ? { errors: this.errors as Record<string, string[]> } : {}) };
  }

  /** The validation messages for one field path or parameter name (empty when it has none). */
  messagesFor(field: string): readonly string[] {
    return (this.errors && Object.hasOwn(this.errors, field) ? this.errors[field] : undefined) ?? [];
  }
}

/** 400: invalid input; `errors` names the fields. */
export class ValidationError extends HiringApiError {
  override readonly name = 'ValidationError';
}
/** 401: the API key is missing or not valid. */
export class AuthenticationError extends HiringApiError {
  override readonly name = 'AuthenticationError';
}
/** 403: the key may not act for the company or call the route, or the company is not active (`company_inactive`). */
export class PermissionDeniedError extends HiringApiError {
  override readonly name = 'PermissionDeniedError';
}
/** 404: no such record for the `Company-Id` company (a record of another company is "not found" too). */
export class NotFoundError extends HiringApiError {
  override readonly name = 'NotFoundError';
}
/** 409: a request with the same `Idempotency-Key` is still running. */
export class ConflictError extends HiringApiError {
  override readonly name = 'ConflictError';
}
/** 413: the body is too large for this deployment. */
export class PayloadTooLargeError extends HiringApiError {
  override readonly name = 'PayloadTooLargeError';
}
/** 422: the same `Idempotency-Key` was used with another body. */
export class IdempotencyMismatchError extends HiringApiError {
  override readonly name = 'IdempotencyMismatchError';
}
/** 429: throttled; `retryAfterSeconds` says when to try again. Thrown once the client's retries are spent. */
export class RateLimitError extends HiringApiError {
  override readonly name = 'RateLimitError';
}
/** 5xx: the service failed; thrown once the client's retries are spent (or at once for a request that is not safe to repeat). */
export class ServerError extends HiringApiError {
  override readonly name = 'ServerError';
}

const BY_STATUS = new Map<number, typeof HiringApiError>([
  [400, ValidationError],
  [401, AuthenticationError],
  [403, PermissionDeniedError],
  [404, NotFoundError],
  [409, ConflictError],
  [413, PayloadTooLargeError],
  [422, IdempotencyMismatchError],
  [429, RateLimitError],
]);

/** The client refused to go on (not an answer of the API): for example a `next` link to another origin. */
export class HiringClientError extends Error {
  override readonly name = 'HiringClientError';
}

/**
 * The matching HiringApiError for a failed response whose body was already read (`body`: the parsed JSON, or
 * the text when it was not JSON). Never throws itself.
 */
export function apiError(response: Response, body: unknown, method: string): HiringApiError {
  const path = response.url ? new URL(response.url).pathname : '';
  const meta = {
    request: `${method.toUpperCase()} ${path}`,
    requestId: response.headers.get('x-request-id') ?? undefined,
    retryAfterSeconds: retryAfterSeconds(response.headers.get('retry-after')),
  };
  const d2: ApiErrorBody = isErrorBody(body)
    ? body
    : { code: 'unexpected_response', detail: `The response (HTTP ${response.status}) is not an error in the API's shape.` };
  const ErrorClass = BY_STATUS.get(response.status) ?? (response.status >= 500 ? ServerError : HiringApiError);
  return new ErrorClass(response.status, d2, meta);
}

/** Reads a failed response's body and returns the matching HiringApiError. */
export async function errorFromResponse(response: Response, method: string): Promise<HiringApiError> {
  const text = await response.text().catch(() => '');
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: apiError reports it as unexpected_response
  }
  return apiError(response, body, method);
}

function isErrorBody(value: unknown): value is ApiErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const { detail, code, errors } = value as Record<string, unknown>;
  if (typeof detail !== 'string' || typeof code !== 'string') return false;
  if (errors === undefined) return true;
  return (
    typeof errors === 'object' &&
    errors !== null &&
    Object.values(errors).every((messages) => Array.isArray(messages) && messages.every((m) => typeof m === 'string'))
  );
}

/** The server's field names stay data: copied into an object without a prototype. */
function copyErrors(errors: Record<string, string[]>): Record<string, readonly string[]> {
  const copy = Object.create(null) as Record<string, readonly string[]>;
  for (const [field, messages] of Object.entries(errors)) copy[field] = Object.freeze([...messages]);
  return Object.freeze(copy);
}

/** `Retry-After` as seconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}
