/**
 * The OpenAPI document's parameters, headers and error responses (part of `openapi.ts`): the components
 * every operation refers to (the `Company-Id` and `Idempotency-Key` headers, the response headers, the D2
 * error responses), the query parameters of the list operations, typed and described from the list filters
 * (`filterParameterTypes`, `FILTER_TYPES`, with the paging parameters), and the path parameters.
 */
import { APPLICATION_FILTER_DECLARATIONS } from '#applications/application-filters.js';
import { parseCompanyFilter } from '#companies/company-list.js';
import { COMPANY_FILTER_DECLARATIONS } from '#companies/company-filters.js';
import { IDEMPOTENCY_TTL_SECONDS } from '#http/idempotency.js';
import { companySchema } from '#http/response-schemas.js';
import { JOB_FILTER_DECLARATIONS } from '#jobs/job-filters.js';
import { valueRule, type FilterDeclaration } from '#platform/filters.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '#platform/pagination.js';

export type Json = Record<string, unknown>;

/** The size limit of the create body in the spec (the local adapter's MAX_BODY_BYTES). */
export const BODY_LIMIT_TEXT = 'below 27.5 MB (about 20 MB of raw files after Base64 overhead)';

/** A reference to a component schema (`openapi.ts` lists them). */
export const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

// ---------------------------------------------------------------------------------------------------
// Components: headers, header parameters, error responses

export const HEADERS: Json = {
  RequestId: { description: 'The request id; quote it when you contact support.', required: true, schema: { type: 'string' } },
  WwwAuthenticate: { description: 'Always `Bearer`.', required: true, schema: { type: 'string', enum: ['Bearer'] } },
  RetryAfter: { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'integer', minimum: 0 } },
  IdempotentReplayed: {
    description: 'Present on a response replayed for a repeated `Idempotency-Key` with the same body.',
    schema: { type: 'string', enum: ['true'] },
  },
};
export const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
export const requestIdHeader = { 'X-Request-Id': headerRef('RequestId') };

export const PARAMETERS: Json = {
  CompanyId: {
    name: 'Company-Id',
    in: 'header',
    required: true,
    description:
      'The company the request acts for (D3). Missing or not a positive integer: 400. A company the key may not act for, ' +
      'or one that does not exist: 403. A deleted company: 403 with code `company_inactive` (D17).',
    schema: { type: 'integer', minimum: 1 },
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      `Makes a retry safe (D8, Stripe semantics): for ${IDEMPOTENCY_TTL_SECONDS / 3600} h the same key with the same body returns the first ` +
      'response again (header `Idempotent-Replayed: true`); the same key with another body is a 422; while the first request ' +
      'is still running, a 409.',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
  },
};
export const parameterRef = (name: string) => ({ $ref: `#/components/parameters/${name}` });

/** The D2 error responses; each operation refers to the ones it can return. */
export const ERROR_RESPONSES: Record<string, { name: string; description: string; example: Json; headers?: Json }> = {
  '400': {
    name: 'BadRequest',
    description:
      'Invalid input: malformed body, a field or query parameter with an invalid value, a missing or malformed `Company-Id` header. Validation errors list messages by field in `errors`.',
    example: {
      detail: 'Invalid value for "status": "open" is not one of active, deleted, archived.',
      code: 'invalid',
      errors: { status: ['"open" is not one of active, deleted, archived.'] },
    },
  },
  '401': {
    name: 'Unauthorized',
    description: 'The API key is missing or not valid.',
    example: { detail: 'Authentication credentials were not provided or are not valid.', code: 'not_authenticated' },
    headers: { 'WWW-Authenticate': headerRef('WwwAuthenticate') },
  },
  '403': {
    name: 'Forbidden',
    description:
      'The API key may not act for the `Company-Id` company (D3), or may not call this route (`permission_denied`); or the company is not active (D17, `company_inactive`): deleted, on every route with `Company-Id`; deactivated, when creating an application.',
    example: { detail: 'This API key may not act for that company.', code: 'permission_denied' },
  },
  '404': {
    name: 'NotFound',
    description: 'No such record for the `Company-Id` company; a record of another company is also "not found" (D3).',
    example: { detail: 'Not found.', code: 'not_found' },
  },
  '409': {
    name: 'Conflict',
    description: 'A request with the same `Idempotency-Key` is still being processed; retry after `Retry-After` seconds.',
    example: { detail: 'A request with this Idempotency-Key is still being processed; retry shortly.', code: 'idempotency_in_progress' },
    headers: { 'Retry-After': headerRef('RetryAfter') },
  },
  '413': {
    name: 'PayloadTooLarge',
    description: `The request body is too large: the spec's limit is ${BODY_LIMIT_TEXT}; a deployment on AWS without the large-body ingest takes JSON bodies below 5.5 MB and multipart bodies below 4.5 MB (the detail says which applies).`,
    example: { detail: 'The request body must be smaller than 27500000 bytes.', code: 'payload_too_large' },
  },
  '415': {
    name: 'UnsupportedMediaType',
    description: 'The `Content-Type` is not one the operation accepts.',
    example: { detail: 'Unsupported content type "text/plain"; use one of application/json.', code: 'unsupported_media_type' },
  },
  '422': {
    name: 'UnprocessableContent',
    description: 'The `Idempotency-Key` was already used with a different request body.',
    example: { detail: 'This Idempotency-Key was used with a different request body.', code: 'idempotency_key_reused' },
  },
  '429': {
    name: 'TooManyRequests',
    description: 'Throttled, or the quota is used up; retry after `Retry-After` seconds.',
    example: { detail: 'Too many requests; retry after the number of seconds in Retry-After.', code: 'throttled' },
    headers: { 'Retry-After': headerRef('RetryAfter') },
  },
  '500': {
    name: 'InternalError',
    description: 'An unexpected error; the body names the request id and nothing else.',
    example: {
      detail: 'Internal server error. Quote request id 5f0c… when you contact support.',
      code: 'internal_error',
      request_id: '5f0c…',
    },
  },
};

export function errorResponses(): Json {
  return Object.fromEntries(
    Object.values(ERROR_RESPONSES).map(({ name, description, example, headers }) => [
      name,
      {
        description,
        headers: { ...requestIdHeader, ...(headers ?? {}) },
        content: { 'application/json': { schema: schemaRef('Error'), example } },
      },
    ]),
  );
}

// ---------------------------------------------------------------------------------------------------
// Query parameters

interface QueryParameter {
  schema: Json;
  description: string;
  /** A parameter that may be repeated (serialized as `name=a&name=b`). */
  repeatable?: boolean;
  deprecated?: boolean;
}

/** An undeclared parameter of a list: documented as an exact match on text. */
const exact = (what: string): QueryParameter => ({ schema: valueRule('string').document, description: `Exact match on ${what}.` });
/**
 * Company orderings: the Company fields `parseCompanyFilter` accepts as an `ordering` term (asked, not
 * listed again, so the document follows the code).
 */
function companyOrderingFields(): string[] {
  return Object.keys(companySchema.properties).filter((field) => {
    const [term] = parseCompanyFilter({ ordering: [field] }).ordering;
    return term.field === field && !term.descending;
  });
}

/** `ordering` as a comma list of those fields, each with an optional `-`, spaces around a term allowed (P273). */
function companyOrderingPattern(): string {
  const term = `\\s*-?(${companyOrderingFields().join('|')})\\s*`;
  return `^${term}(,${term})*$`;
}

/** What a declared filter's parameter means, from its kind and value. */
function filterDescription({ name, kind, value, about = `\`${name}\``, repeatable }: FilterDeclaration): string {
  if (kind === 'contains') return `Case-insensitive substring match on ${about}.`;
  if (kind === 'search') return `Free-text search (case-insensitive) across ${about}.`;
  if (kind === 'gte')
    return `Records whose \`${name}\` is on or after this date (\`YYYY-MM-DD\`, start of the day UTC) or ISO 8601 date-time; a malformed value is a 400.`;
  if (typeof value !== 'string')
    return repeatable
      ? `${about[0].toUpperCase()}${about.slice(1)}; repeat the parameter to match any of several values. An unknown value is a 400.`
      : `Exact match on ${about}; another value is a 400.`;
  if (value === 'boolean') return `Exact match on ${about}; \`true\`, \`false\`, \`1\` or \`0\`.`;
  return `Exact match on ${about}.`;
}

/** The declared filters' parameters (P292): typed by their value's rule (`filters.ts`), described from their kind. */
export function filterParameterTypes(declarations: readonly FilterDeclaration[]): Record<string, QueryParameter> {
  const types: Record<string, QueryParameter> = Object.create(null);
  for (const d of declarations) {
    types[d.name] = {
      schema: valueRule(d.value).document,
      description: filterDescription(d),
      ...(d.repeatable ? { repeatable: true } : {}),
    };
  }
  return types;
}

/** Types and meaning of the filters; a filter missing here is documented as an exact string match. */
export const FILTER_TYPES: Record<string, Record<string, QueryParameter>> = {
  // Declared once with the list's filters (issue 22, item 3); `ordering` is no filter.
  companies: {
    ...filterParameterTypes(COMPANY_FILTER_DECLARATIONS),
    ordering: {
      schema: { type: 'string', pattern: companyOrderingPattern(), default: '-created_at', examples: ['-created_at', '-status,name'] },
      description:
        'Sort field; a `-` prefix reverses. A comma list (`-status,name`) orders by several fields; unknown fields are ignored (D6). Ties break on `id`.',
    },
  },
  jobs: filterParameterTypes(JOB_FILTER_DECLARATIONS),
  // Declared once with the list's filters (issue 22, item 3): the planner reads the same declarations.
  applications: filterParameterTypes(APPLICATION_FILTER_DECLARATIONS),
};

const PAGING: Record<string, QueryParameter> = {
  page: {
    schema: { type: 'integer', minimum: 1, default: 1 },
    description: 'Page number; a page past the end is empty. Not a positive integer: 400.',
  },
  page_size: {
    schema: { type: 'integer', minimum: 1, default: DEFAULT_PAGE_SIZE },
    description: `Records per page; values above ${MAX_PAGE_SIZE} are capped at ${MAX_PAGE_SIZE}. Not a positive integer: 400.`,
  },
  limit: {
    schema: { type: 'integer', minimum: 1, default: DEFAULT_PAGE_SIZE },
    description: `Alias of \`page_size\` (which wins when both are given); capped at ${MAX_PAGE_SIZE}.`,
  },
  cursor: {
    schema: { type: 'string' },
    description:
      'Opaque position carried by `next` links; pass it back only as given. A forged or corrupt cursor is a 400 (`invalid_cursor`); one minted for other filters is ignored.',
  },
  pagination: {
    schema: { type: 'boolean' },
    description: 'Accepted and ignored: responses are always paged (D4, the announced change has taken effect).',
    deprecated: true,
  },
};

export function queryParameters(
  filters: readonly string[],
  types: Record<string, QueryParameter>,
  paging: readonly (keyof typeof PAGING)[],
): Json[] {
  const filterParameters = filters.map((name): [string, QueryParameter] => [name, types[name] ?? exact(`\`${name}\``)]);
  const pagingParameters = paging.map((name): [string, QueryParameter] => [name, PAGING[name]]);
  return [...filterParameters, ...pagingParameters].map(([name, p]) => ({
    name,
    in: 'query',
    required: false,
    description: p.description,
    ...(p.deprecated ? { deprecated: true } : {}),
    ...(p.repeatable ? { style: 'form', explode: true, schema: { type: 'array', items: p.schema } } : { schema: p.schema }),
  }));
}

export function pathParameters(path: string): Json[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    description:
      'A record id: a value that is no positive integer is a 400 naming the parameter; one that names no record of the `Company-Id` company is a 404.',
    schema: { type: 'integer', minimum: 1 },
  }));
}
