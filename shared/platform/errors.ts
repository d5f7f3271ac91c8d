/**
 * Typed errors. Domain code throws these; the one error middleware turns them into D2 responses
 * `{detail, code, errors?}`. Anything else becomes a 500 that reveals nothing but the request id.
 */
export type FieldErrors = Record<string, string[]>;

/**
 * An empty FieldErrors without a prototype: field paths come from clients (`toString`, `__proto__`), and
 * on a plain object they would read or replace the prototype's members instead of adding an entry.
 */
export function fieldErrors(entries: Iterable<readonly [string, string[]]> = []): FieldErrors {
  const out = Object.create(null) as FieldErrors;
  for (const [field, messages] of entries) out[field] = messages;
  return out;
}

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    readonly detail: string,
    readonly errors?: FieldErrors,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = new.target.name;
  }

  body(): Record<string, unknown> {
    return this.errors ? { detail: this.detail, code: this.code, errors: this.errors } : { detail: this.detail, code: this.code };
  }
}

export class ValidationError extends ApiError {
  constructor(errors: FieldErrors, detail = describe(errors)) {
    super(400, 'invalid', detail, fieldErrors(Object.entries(errors)));
  }
}

/** A 400 about one named field or parameter. */
export function invalidField(field: string, message: string): ValidationError {
  return new ValidationError(fieldErrors([[field, [message]]]));
}

export class BadRequestError extends ApiError {
  constructor(detail: string, code = 'bad_request') {
    super(400, code, detail);
  }
}

export class UnauthorizedError extends ApiError {
  constructor(detail = 'Authentication credentials were not provided or are not valid.') {
    super(401, 'not_authenticated', detail, undefined, { 'WWW-Authenticate': 'Bearer' });
  }
}

export class ForbiddenError extends ApiError {
  constructor(detail = 'This API key may not act for that company.') {
    super(403, 'permission_denied', detail);
  }
}

/** D17: the company is deactivated (for new applications) or deleted (for every Company-Id route). */
export class CompanyInactiveError extends ApiError {
  constructor(detail = 'This company is not active: it accepts no new applications.') {
    super(403, 'company_inactive', detail);
  }
}

export class NotFoundError extends ApiError {
  constructor(detail = 'Not found.') {
    super(404, 'not_found', detail);
  }
}

export class MethodNotAllowedError extends ApiError {
  constructor(method: string, allowed: string[]) {
    super(405, 'method_not_allowed', `Method "${method}" is not allowed here.`, undefined, { Allow: allowed.join(', ') });
  }
}

export class PayloadTooLargeError extends ApiError {
  constructor(limitBytes: number) {
    super(413, 'payload_too_large', `The request body must be smaller than ${limitBytes} bytes.`);
  }
}

export class UnsupportedMediaTypeError extends ApiError {
  constructor(contentType: string | undefined, allowed: string[]) {
    super(415, 'unsupported_media_type', `Unsupported content type "${contentType ?? ''}"; use one of ${allowed.join(', ')}.`);
  }
}

export class ConflictError extends ApiError {
  constructor(detail: string, code = 'conflict') {
    super(409, code, detail);
  }
}

function describe(errors: FieldErrors): string {
  const fields = Object.keys(errors);
  if (fields.length === 1) return `Invalid value for "${fields[0]}": ${errors[fields[0]].join(' ')}`;
  return `Invalid values for ${fields.map((f) => `"${f}"`).join(', ')}.`;
}

/**
 * Whether a DynamoDB write failed on its own condition: a ConditionalCheckFailedException, or a transaction
 * cancelled because one of its conditions failed (and not, say, for a conflict or throttling).
 */
export function isConditionFailure(error: unknown): boolean {
  const { name, CancellationReasons } = error as { name?: string; CancellationReasons?: { Code?: string }[] };
  if (name === 'ConditionalCheckFailedException') return true;
  return name === 'TransactionCanceledException' && (CancellationReasons ?? []).some((r) => r.Code === 'ConditionalCheckFailed');
}
