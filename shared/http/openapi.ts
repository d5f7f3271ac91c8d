/**
 * The OpenAPI 3.1 document, generated: operations from the route table (`routes`), query parameters from
 * the list filters (`COMPANY_FILTERS`, `JOB_FILTERS`, `APPLICATION_FILTERS`), request bodies from the
 * request schemas that validate them, responses from `response-schemas.ts`. Nothing here lists routes or
 * fields again: a new route or filter appears in the document without an edit here (with generic wording
 * until it gets its own entry in `OPERATIONS` or a filter type below). `npm run openapi` writes it to
 * docs/generated/openapi.json; the local runtime serves it at GET /openapi.json.
 */
import { readFileSync } from 'node:fs';
import { APPLICATION_FILTERS } from '#applications/application-list.js';
import { SYNC_STATUSES, applicationInSchema, attachmentInSchema, candidateSchema } from '#applications/applications.js';
import { ATTACHMENT_TYPES, CONTENT_TYPES, MAX_ATTACHMENTS } from '#applications/attachments.js';
import { COMPANY_FILTERS, parseCompanyFilter } from '#companies/company-list.js';
import { COMPANY_READ_ONLY_FIELDS, COMPANY_STATUSES, companyPatchSchema } from '#companies/company-schema.js';
import { IDEMPOTENCY_TTL_SECONDS } from '#http/idempotency.js';
import { JOB_FILTERS } from '#jobs/job-list.js';
import {
  JOB_STATUSES,
  REMOTE_VALUES,
  applicationFormFieldSchema,
  descriptionSectionSchema,
  screeningQuestionSchema,
} from '#jobs/job-schema.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '#platform/pagination.js';
import { BODY_CONTENT_TYPES } from '#http/request-body.js';
import {
  applicationListItemSchema,
  applicationPageSchema,
  applicationSchema,
  attachmentOutSchema,
  candidateListFormSchema,
  candidateSingleFormSchema,
  companyPageSchema,
  companySchema,
  descriptionSectionListFormSchema,
  errorSchema,
  jobListItemSchema,
  jobPageSchema,
  jobSchema,
} from '#http/response-schemas.js';
import { routes, type RouteDefinition } from '#http/routes.js';
import { SHARED_SCHEMAS } from '#platform/schema-rules.js';

type Json = Record<string, unknown>;

/** The size limit of the create body in the spec (the local adapter's MAX_BODY_BYTES). */
const BODY_LIMIT_TEXT = 'below 27.5 MB (about 20 MB of raw files after Base64 overhead)';

// ---------------------------------------------------------------------------------------------------
// Components: every schema object listed here is emitted once and referenced (by object identity) with
// `$ref` wherever another schema embeds it.

/**
 * The patch as the document shows it: the writable fields, plus the read-only Company fields, which a client
 * may send back with the object it read and which are ignored (P10; issue 25, P214). Any other field is a 400.
 */
const companyPatchDocument = {
  ...companyPatchSchema,
  properties: {
    ...companyPatchSchema.properties,
    ...Object.fromEntries(
      COMPANY_READ_ONLY_FIELDS.map((field) => [
        field,
        { readOnly: true, description: `Read-only: ignored when sent (\`${field}\` cannot be set through the interface).` },
      ]),
    ),
  },
};

const SCHEMAS: readonly [string, object][] = [
  ['Company', companySchema],
  ['CompanyPage', companyPageSchema],
  ['CompanyPatch', companyPatchDocument],
  ['Job', jobSchema],
  ['JobListItem', jobListItemSchema],
  ['JobPage', jobPageSchema],
  ['JobScreeningQuestion', screeningQuestionSchema],
  ['ApplicationFormField', applicationFormFieldSchema],
  ['DescriptionSection', descriptionSectionSchema],
  ['DescriptionSectionListForm', descriptionSectionListFormSchema],
  ['Application', applicationSchema],
  ['ApplicationListItem', applicationListItemSchema],
  ['ApplicationPage', applicationPageSchema],
  ['CandidateSingleForm', candidateSingleFormSchema],
  ['CandidateListForm', candidateListFormSchema],
  ['Attachment', attachmentOutSchema],
  ['ApplicationIn', applicationInSchema],
  ['CandidateIn', candidateSchema],
  ['CandidateLocation', candidateSchema.properties.location],
  ['AttachmentIn', attachmentInSchema],
  ['ScreeningAnswer', applicationInSchema.properties.screening_questions.items],
  ['Error', errorSchema],
  ...SHARED_SCHEMAS,
];

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** A deep copy of `schema` in which every embedded component (other than `self`) becomes a `$ref`. */
function withRefs(schema: unknown, self?: object): unknown {
  if (Array.isArray(schema)) return schema.map((item) => withRefs(item));
  if (schema === null || typeof schema !== 'object') return schema;
  if (schema !== self) {
    const component = SCHEMAS.find(([, s]) => s === schema);
    if (component) return schemaRef(component[0]);
  }
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, withRefs(value)]));
}

const HEADERS: Json = {
  RequestId: { description: 'The request id; quote it when you contact support.', required: true, schema: { type: 'string' } },
  WwwAuthenticate: { description: 'Always `Bearer`.', required: true, schema: { type: 'string', enum: ['Bearer'] } },
  RetryAfter: { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'integer', minimum: 0 } },
  IdempotentReplayed: {
    description: 'Present on a response replayed for a repeated `Idempotency-Key` with the same body.',
    schema: { type: 'string', enum: ['true'] },
  },
};
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
const requestIdHeader = { 'X-Request-Id': headerRef('RequestId') };

const PARAMETERS: Json = {
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
const parameterRef = (name: string) => ({ $ref: `#/components/parameters/${name}` });

/** The D2 error responses; each operation refers to the ones it can return. */
const ERROR_RESPONSES: Record<string, { name: string; description: string; example: Json; headers?: Json }> = {
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
    description: 'A request with the same `Idempotency-Key` is still being processed; retry shortly.',
    example: { detail: 'A request with this Idempotency-Key is still being processed; retry shortly.', code: 'idempotency_in_progress' },
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

function errorResponses(): Json {
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

const exact = (what: string): QueryParameter => ({ schema: { type: 'string' }, description: `Exact match on ${what}.` });
const contains = (what: string): QueryParameter => ({
  schema: { type: 'string' },
  description: `Case-insensitive substring match on ${what}.`,
});
const exactEnum = (values: readonly string[], what: string): QueryParameter => ({
  schema: { type: 'string', enum: [...values] },
  description: `Exact match on ${what}; another value is a 400.`,
});
const exactId = (what: string): QueryParameter => ({ schema: { type: 'integer', minimum: 1 }, description: `Exact match on ${what}.` });
const flag = (what: string): QueryParameter => ({
  schema: { type: 'boolean' },
  description: `Exact match on ${what}; \`true\`, \`false\`, \`1\` or \`0\`.`,
});
const since = (field: string): QueryParameter => ({
  schema: {
    anyOf: [
      { type: 'string', format: 'date' },
      { type: 'string', format: 'date-time' },
    ],
  },
  description: `Records whose \`${field}\` is on or after this date (\`YYYY-MM-DD\`, start of the day UTC) or ISO 8601 date-time; a malformed value is a 400.`,
});

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

/** Types and meaning of the filters; a filter missing here is documented as an exact string match. */
const FILTER_TYPES: Record<string, Record<string, QueryParameter>> = {
  companies: {
    name: contains('the name'),
    ats: exact('the ATS slug'),
    partner_company_id: exact('`partner_company_id`'),
    status: {
      ...exactEnum(COMPANY_STATUSES, 'the lifecycle status'),
      description: 'Lifecycle status; repeat the parameter to match any of several values. An unknown value is a 400.',
      repeatable: true,
    },
    search: {
      schema: { type: 'string' },
      description: 'Free-text search (case-insensitive) across name, ATS slug and `partner_company_id`.',
    },
    candidate_sync_active: flag('`candidate_sync_active`'),
    job_sync_active: flag('`job_sync_active`'),
    ordering: {
      schema: { type: 'string', enum: companyOrderingFields().flatMap((field) => [field, `-${field}`]), default: '-created_at' },
      description:
        'Sort field; a `-` prefix reverses. A comma list (`-status,name`) orders by several fields; unknown fields are ignored (D6). Ties break on `id`.',
    },
  },
  jobs: {
    external_id: exact("the job's ATS ID"),
    title: contains('the title'),
    status: exactEnum(JOB_STATUSES, 'the status'),
    remote: exactEnum(REMOTE_VALUES, 'the work mode'),
    language: exact('the language'),
    city: contains('the city'),
    country: exact('the country'),
    created_at: since('created_at'),
    updated_at: since('updated_at'),
    last_content_update_at: since('last_content_update_at'),
  },
  applications: {
    email: exact("the applicant's e-mail address"),
    partner_application_id: exact('`partner_application_id`'),
    partner_job_id: exact('`partner_job_id`'),
    partner_company_id: exact('`partner_company_id`'),
    partner: exactId('the ID of the partner that submitted the application'),
    agency: exactId('the ID of the agency that submitted the application'),
    agency_job_id: exact('`agency_job_id`'),
    channel: exact('`channel`'),
    job: exactId('the job ID'),
    sync_status: exactEnum(SYNC_STATUSES, 'the ATS sync state'),
    applied_at: since('applied_at'),
    created_at: since('created_at'),
    updated_at: since('updated_at'),
  },
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

function queryParameters(
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

// ---------------------------------------------------------------------------------------------------
// Request bodies

/** Fields of the application body that are objects or arrays: forms send them bracketed or as JSON strings. */
const structuredFields = Object.entries(applicationInSchema.properties)
  .filter(([, schema]) => 'type' in schema && (schema.type === 'object' || schema.type === 'array'))
  .map(([name, schema]) => [name, (schema as { type: string }).type] as const);

const filePart = {
  type: 'array',
  maxItems: MAX_ATTACHMENTS,
  items: { type: 'string', contentMediaType: 'application/octet-stream' },
} as const;

const multipartApplicationSchema = {
  type: 'object',
  required: applicationInSchema.required,
  description:
    'The fields of `ApplicationIn` (nested ones as `candidate[email]`-style fields or as JSON strings) plus file parts. ' +
    `A file part named after an attachment type (${ATTACHMENT_TYPES.map((t) => `\`${t}\``).join(', ')}) becomes an attachment of that type; ` +
    `a file part under any other name becomes an attachment of type \`other\`. At most ${MAX_ATTACHMENTS} files.`,
  properties: {
    ...applicationInSchema.properties,
    ...Object.fromEntries(ATTACHMENT_TYPES.map((type) => [type, { ...filePart, description: `Files to attach as \`${type}\`.` }])),
  },
};

const requestBodies: Record<string, (route: RouteDefinition) => Json> = {
  UpdateCompany: () => ({
    required: true,
    description:
      'Only the fields included are changed; `null` clears an optional field. The read-only Company fields are ignored when sent back, any ' +
      'other unknown field is a 400 (P10). `job_sync_active` and `candidate_sync_active` cannot be set.',
    content: { 'application/json': { schema: schemaRef('CompanyPatch') } },
  }),
  CreateApplication: () => ({
    required: true,
    description:
      `The application in one of ${BODY_CONTENT_TYPES.map((t) => `\`${t}\``).join(', ')}; the whole body must stay ${BODY_LIMIT_TEXT}. ` +
      'Form encodings carry nested fields as `candidate[email]`-style brackets or as JSON strings (D8). ' +
      'The candidate needs `email` and a name (`full_name`, or `first_name` and `last_name`); the job is named by `job` and/or ' +
      '`external_job_id` (one is required; both must name the same job of the `Company-Id` company). Attachment data must be ' +
      `Base64 of a permitted content type whose bytes match it: ${Object.keys(CONTENT_TYPES)
        .map((t) => `\`${t}\``)
        .join(', ')}.`,
    content: {
      'application/json': { schema: schemaRef('ApplicationIn') },
      'application/x-www-form-urlencoded': {
        schema: schemaRef('ApplicationIn'),
        encoding: Object.fromEntries(
          structuredFields.map(([name, type]) => [
            name,
            type === 'object' ? { style: 'deepObject', explode: true } : { contentType: 'application/json' },
          ]),
        ),
      },
      'multipart/form-data': {
        schema: withRefs(multipartApplicationSchema),
        encoding: Object.fromEntries(ATTACHMENT_TYPES.map((type) => [type, { contentType: Object.keys(CONTENT_TYPES).join(', ') }])),
      },
    },
  }),
};

// ---------------------------------------------------------------------------------------------------
// Operations

interface OperationSpec {
  description: string;
  query?: Json[];
  headers?: Json[];
  success: { status: '200' | '201'; description: string; schema: string; headers?: Json };
  /** Error statuses beyond those every operation has (see `errorStatuses`). */
  errors?: string[];
}

const OPERATIONS: Record<string, OperationSpec> = {
  ListCompanies: {
    description:
      'The companies the key may see: every company under the partner for a partner-scoped key, only its own company for a ' +
      'company-scoped key. Ordered by `ordering`, default newest first. No `Company-Id` header.',
    query: queryParameters(COMPANY_FILTERS, FILTER_TYPES.companies, ['page', 'page_size', 'cursor']),
    success: { status: '200', description: 'A page of companies.', schema: 'CompanyPage' },
  },
  UpdateCompany: {
    description: 'Partial update of the `Company-Id` company; the path `id` must be that company, otherwise 404 (D3).',
    success: { status: '200', description: 'The full Company after the update.', schema: 'Company' },
  },
  ListJobs: {
    description: 'The jobs of the `Company-Id` company, newest `created_at` first (ties by `id` descending, D6).',
    query: queryParameters(JOB_FILTERS, FILTER_TYPES.jobs, ['page', 'page_size', 'limit', 'cursor', 'pagination']),
    success: {
      status: '200',
      description: 'A page of jobs. In this list `description_sections[].order` is a string (spec quirk, D11).',
      schema: 'JobPage',
    },
  },
  GetJob: {
    description: 'One job of the `Company-Id` company.',
    success: { status: '200', description: 'The Job; `description_sections[].order` is a number here (D11).', schema: 'Job' },
  },
  CreateApplication: {
    description:
      "Stores an application for the `Company-Id` company and hands it to the ATS sync when the company's candidate sync is " +
      'active (D12); `sync_status` and `failure_error` on the application tell the outcome.',
    headers: [parameterRef('IdempotencyKey')],
    success: {
      status: '201',
      description:
        'The created application: submitted fields, attachments without `data`, `import_source` `api`; the candidate without ' +
        '`birthdate`, `language`, `nationality` (D9).',
      schema: 'Application',
      headers: { 'Idempotent-Replayed': headerRef('IdempotentReplayed') },
    },
    errors: ['409', '422'],
  },
  ListApplications: {
    description: 'The applications of the `Company-Id` company, newest `created_at` first (ties by `id` descending, D6).',
    query: queryParameters(APPLICATION_FILTERS, FILTER_TYPES.applications, ['page', 'page_size', 'cursor']),
    success: {
      status: '200',
      description: 'A page of applications; the candidate includes `birthdate`, `language`, `nationality` (D9).',
      schema: 'ApplicationPage',
    },
  },
  GetApplication: {
    description: 'One application of the `Company-Id` company. Personal data is omitted for records older than 180 days (D10).',
    success: {
      status: '200',
      description: 'The Application; the candidate without `birthdate`, `language`, `nationality` (D9).',
      schema: 'Application',
    },
  },
};

/** What a route without its own entry in OPERATIONS is documented as. */
function genericOperation(route: RouteDefinition): OperationSpec {
  return {
    description: `${route.summary}.`,
    success: { status: route.method === 'POST' ? '201' : '200', description: 'Success.', schema: '' },
  };
}

function pathParameters(path: string): Json[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    description:
      'A record id: a value that is no positive integer is a 400 naming the parameter; one that names no record of the `Company-Id` company is a 404.',
    schema: { type: 'integer', minimum: 1 },
  }));
}

function errorStatuses(route: RouteDefinition, spec: OperationSpec, hasBody: boolean): string[] {
  const statuses = ['400', '401', '403', '429', '500', ...(spec.errors ?? [])];
  if (/\{\w+\}/.test(route.path)) statuses.push('404');
  if (hasBody) statuses.push('413', '415');
  return [...new Set(statuses)].sort();
}

const tagOf = (route: RouteDefinition) => {
  const segment = route.path.split('/').find(Boolean) ?? 'service';
  return segment.charAt(0).toUpperCase() + segment.slice(1);
};

const TAG_DESCRIPTIONS: Record<string, string> = {
  Companies: 'Company records: owned by a partner, linked to an ATS by a slug.',
  Jobs: "Job postings imported from each company's ATS.",
  Applications: "Job applications, stored and synchronised to the company's ATS.",
};

function operation(route: RouteDefinition): Json {
  const spec = OPERATIONS[route.id] ?? genericOperation(route);
  const body = requestBodies[route.id]?.(route);
  const hasBody = body !== undefined || route.method === 'POST' || route.method === 'PATCH';
  const successContent = spec.success.schema
    ? { 'application/json': { schema: schemaRef(spec.success.schema) } }
    : { 'application/json': { schema: { type: 'object' } } };
  const responses: Json = {
    [spec.success.status]: {
      description: spec.success.description,
      headers: { ...requestIdHeader, ...(spec.success.headers ?? {}) },
      content: successContent,
    },
  };
  for (const status of errorStatuses(route, spec, hasBody))
    responses[status] = { $ref: `#/components/responses/${ERROR_RESPONSES[status].name}` };
  return {
    operationId: route.id,
    summary: route.summary,
    description: spec.description,
    tags: [tagOf(route)],
    parameters: [
      ...pathParameters(route.path),
      ...(route.companyHeader ? [parameterRef('CompanyId')] : []),
      ...(spec.headers ?? []),
      ...(spec.query ?? []),
    ],
    ...(body ? { requestBody: body } : {}),
    responses,
  };
}

const INTRODUCTION = `Companies, jobs and applications for job boards and recruiting partners.

- **Paths** are written as the interface specification writes them; each is also served with the trailing slash added or removed (\`/jobs\` and \`/jobs/\` are the same operation).
- **Authentication**: \`Authorization: Bearer <API_KEY>\` on every request. Every operation except List Companies also needs the \`Company-Id\` header (D3).
- **Errors** have one JSON shape, whoever answers (function or gateway): \`{"detail", "code", "errors"?}\` (D2), \`errors\` only for validation. Every response carries \`X-Request-Id\`. An unknown path is a 404; a method the path does not offer is a 405 with \`Allow\`.
- **Lists** are always paged (D4): \`page\`, \`page_size\` (default ${DEFAULT_PAGE_SIZE}, capped at ${MAX_PAGE_SIZE}); follow \`next\` until it is null. Unknown query parameters are ignored; a known one with an invalid value is a 400 naming it (D5).
- **Times** are UTC date-times with milliseconds and a trailing Z; dates are \`YYYY-MM-DD\` (D7).
- Decision numbers (D…, P…) refer to the design brief and docs/decisions.md.`;

function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** The OpenAPI 3.1 document of the service. */
export function openApiDocument(): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route);
  const tags = [...new Set(routes.map(tagOf))].map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? `${name}.` }));
  return {
    openapi: '3.1.0',
    info: { title: 'Hiring Integration Service', version: packageVersion(), description: INTRODUCTION },
    servers: [
      {
        url: '{base_url}',
        description: 'All addresses are relative to the base URL: the API Gateway stage URL, or the local runtime (`npm start`).',
        variables: {
          base_url: {
            default: 'http://127.0.0.1:3000',
            description: 'Scheme, host and (on API Gateway) stage path, without trailing slash.',
          },
        },
      },
    ],
    security: [{ bearerAuth: [] }],
    tags,
    paths,
    components: {
      schemas: Object.fromEntries(SCHEMAS.map(([name, schema]) => [name, withRefs(schema, schema)])),
      parameters: PARAMETERS,
      headers: HEADERS,
      responses: errorResponses(),
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API key issued in the partner app, scoped to a partner (all its companies) or to one company: `Authorization: Bearer <API_KEY>`.',
        },
      },
    },
  };
}
