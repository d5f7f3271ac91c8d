/**
 * The OpenAPI 3.1 document, generated: operations from the route table (`routes`), query parameters from
 * the list filters (`COMPANY_FILTERS`, `JOB_FILTERS`, `APPLICATION_FILTERS`), request bodies from the
 * request schemas that validate them, responses from `response-schemas.ts`. Nothing here lists routes or
 * fields again: a new route or filter appears in the document without an edit here (with generic wording
 * until it gets its own entry in `OPERATIONS` or a filter type in `openapi-parameters.ts`, which also holds
 * the headers, parameters and error responses). `npm run openapi` writes it to docs/generated/openapi.json;
 * the local runtime serves it at GET /openapi.json.
 */
import { readFileSync } from 'node:fs';
import { APPLICATION_FILTERS } from '#applications/application-list.js';
import { applicationInSchema, attachmentInSchema, candidateSchema } from '#applications/applications.js';
import { ATTACHMENT_TYPES, CONTENT_TYPES, MAX_ATTACHMENTS } from '#applications/attachments.js';
import { COMPANY_FILTERS } from '#companies/company-list.js';
import { COMPANY_READ_ONLY_FIELDS, companyPatchSchema } from '#companies/company-schema.js';
import {
  BODY_LIMIT_TEXT,
  ERROR_RESPONSES,
  FILTER_TYPES,
  HEADERS,
  PARAMETERS,
  errorResponses,
  headerRef,
  parameterRef,
  pathParameters,
  queryParameters,
  requestIdHeader,
  schemaRef,
  type Json,
} from '#http/openapi-parameters.js';
import { JOB_FILTERS } from '#jobs/job-list.js';
import { applicationFormFieldSchema, descriptionSectionSchema, screeningQuestionSchema } from '#jobs/job-schema.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '#platform/pagination.js';
import { BODY_CONTENT_TYPES } from '#http/request-body.js';
import {
  applicationListItemSchema,
  applicationPageSchema,
  applicationSchema,
  attachmentOutSchema,
  screeningAnswerOutSchema,
  candidateListFormSchema,
  candidateSingleFormSchema,
  companyPageSchema,
  companySchema,
  deliveryPageSchema,
  deliverySchema,
  descriptionSectionListFormSchema,
  errorSchema,
  jobListItemSchema,
  jobPageSchema,
  jobSchema,
} from '#http/response-schemas.js';
import { routes, type RouteDefinition } from '#http/routes.js';
import { SHARED_SCHEMAS } from '#platform/schema-rules.js';

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
  ['Delivery', deliverySchema],
  ['DeliveryPage', deliveryPageSchema],
  ['CandidateSingleForm', candidateSingleFormSchema],
  ['CandidateListForm', candidateListFormSchema],
  ['Attachment', attachmentOutSchema],
  ['ApplicationIn', applicationInSchema],
  ['CandidateIn', candidateSchema],
  ['CandidateLocation', candidateSchema.properties.location],
  ['AttachmentIn', attachmentInSchema],
  ['ScreeningAnswer', applicationInSchema.properties.screening_questions.items],
  ['ScreeningAnswerOut', screeningAnswerOutSchema],
  ['Error', errorSchema],
  ...SHARED_SCHEMAS,
];

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
  ListApplicationDeliveries: {
    description:
      'Beyond the spec (D23): the ATS calls made for one application of the `Company-Id` company (submission, uploads, ' +
      "answers, outcome reads, each retry), newest first; another company's application is a 404. Kept for " +
      '`DELIVERY_LOG_DAYS` (default 30) and deleted with the personal data (D10): an anonymized application has none.',
    query: queryParameters([], {}, ['page', 'page_size', 'cursor']),
    success: { status: '200', description: 'A page of delivery records.', schema: 'DeliveryPage' },
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
