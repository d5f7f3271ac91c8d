/**
 * JSON schemas of the response bodies: the Company, Job and Application objects (single and list forms,
 * D9/D11), the page envelope (D4) and the error body (D2). They describe what `toCompany`, `toJob` and
 * `toApplication` produce, field by field in their order; the OpenAPI document is generated from them and
 * the contract tests validate real responses against them. Enumerations and sub-objects come from the
 * request schemas and domain constants, never repeated here. Nullable fields are `type: [..., 'null']`.
 */
import { ATTACHMENT_TYPES } from '#applications/attachments.js';
import {
  APPLICATION_STATUSES,
  EMAIL_SYNC_STATUSES,
  EXTERNAL_APPLY_STATUSES,
  OUTCOMES,
  GENDERS,
  SYNC_STATUSES,
  applicationInSchema,
  candidateSchema,
} from '#applications/applications.js';
import { COMPANY_STATUSES, companyPatchSchema } from '#companies/company-schema.js';
import { JOB_STATUSES, descriptionSectionSchema, jobInputSchema } from '#jobs/job-schema.js';

/** An object whose properties are all present (every serializer writes each field, null when unset). */
function record<P extends Record<string, object>>(properties: P) {
  return { type: 'object', additionalProperties: false, required: Object.keys(properties) as (keyof P & string)[], properties } as const;
}

/** Like `record`, but the named properties may be absent (D10 anonymization). */
function recordWithOptional<P extends Record<string, object>, O extends keyof P & string>(properties: P, optional: readonly O[]) {
  const required = Object.keys(properties).filter((k) => !(optional as readonly string[]).includes(k)) as Exclude<keyof P & string, O>[];
  return { type: 'object', additionalProperties: false, required, properties } as const;
}

const id = { type: 'integer', minimum: 1 } as const;
const nullableId = { type: ['integer', 'null'], minimum: 1 } as const;
const timestamp = { type: 'string', format: 'date-time', description: 'UTC, milliseconds, trailing Z (D7).' } as const;
const nullableTimestamp = { type: ['string', 'null'], format: 'date-time' } as const;
const nullableString = { type: ['string', 'null'] } as const;
const nullableEnum = <T extends readonly string[]>(values: T) => ({ type: ['string', 'null'], enum: [...values, null] }) as const;

// ---------------------------------------------------------------------------------------------------
// Company

const patch = companyPatchSchema.properties;

export const companySchema = record({
  id,
  name: { type: 'string' },
  slug: { type: 'string', description: 'URL-friendly slug; read-only.' },
  ats: { type: ['string', 'null'], description: 'Slug of the linked ATS integration.' },
  ats_name: { type: ['string', 'null'], description: 'Human-readable name of the linked ATS; read-only.' },
  partner: { ...id, description: 'ID of the owning partner; read-only.' },
  partner_company_id: patch.partner_company_id,
  website: patch.website,
  logo: patch.logo,
  primary_color: patch.primary_color,
  street: patch.street,
  city: patch.city,
  country: patch.country,
  postcode: patch.postcode,
  job_sync_active: { type: 'boolean', description: 'Derived from entitlements and the ATS connection (D15); cannot be set.' },
  candidate_sync_active: { type: 'boolean', description: 'Derived from entitlements and the ATS connection (D15); cannot be set.' },
  contact_name: patch.contact_name,
  contact_email: patch.contact_email,
  contact_phone: patch.contact_phone,
  jobs_last_synced_at: { ...nullableTimestamp, description: 'Time of the last successful job sync.' },
  status: { type: 'string', enum: COMPANY_STATUSES },
  is_test: { type: 'boolean' },
  magic_link: { type: ['string', 'null'], description: 'URL of the active magic link, if any.' },
  created_at: timestamp,
  updated_at: timestamp,
});

// ---------------------------------------------------------------------------------------------------
// Job

const job = jobInputSchema.properties;

function jobSchemaWith<S extends object>(descriptionSection: S) {
  return record({
    id,
    external_id: { type: 'string', description: "The job's ID in the external ATS." },
    company: id,
    title: job.title,
    description: job.description,
    posting_url: job.posting_url,
    application_url: job.application_url,
    application_email: job.application_email,
    status: { type: 'string', enum: JOB_STATUSES },
    remote: job.remote,
    language: job.language,
    category: job.category,
    employment_type: job.employment_type,
    work_schedule: job.work_schedule,
    senority: { ...job.senority, description: 'Spelled exactly so (D11).' },
    education: job.education,
    start_date: job.start_date,
    contract_limitation: job.contract_limitation,
    location_name: job.location_name,
    street: job.street,
    city: job.city,
    country: job.country,
    postcode: job.postcode,
    longitude: job.longitude,
    latitude: job.latitude,
    salary: job.salary,
    salary_from: job.salary_from,
    salary_to: job.salary_to,
    salary_currency: job.salary_currency,
    salary_frequency: job.salary_frequency,
    contact_name: job.contact_name,
    contact_email: job.contact_email,
    contact_title: job.contact_title,
    contact_phone: job.contact_phone,
    contact_salutation: job.contact_salutation,
    banner_image: job.banner_image,
    screening_questions: job.screening_questions,
    application_form_fields: job.application_form_fields,
    description_sections: { type: 'array', items: descriptionSection },
    custom_fields: job.custom_fields,
    raw_values: { ...job.raw_values, description: 'Values received from the ATS before mapping, as stored; diagnostic only.' },
    import_source: { type: 'string', description: 'How the job arrived, for example `api`, `crawler`, `clickout`.' },
    run_id: { type: 'string', description: 'The import run the job last arrived on.' },
    fingerprint: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'SHA-256 over the content fields (D14).' },
    apply_webhooks: {
      type: 'object',
      propertyNames: { pattern: '^[a-z0-9][a-z0-9_-]{0,63}$' },
      additionalProperties: { type: 'string', format: 'uri', pattern: '^https?://[^?#]+/apply/[a-z0-9][a-z0-9_-]{0,63}/[A-Za-z0-9_-]+$' },
      description:
        "Apply webhook URLs keyed by channel slug (D15): for each apply channel the company is entitled to (`apply:<slug>`), the URL that channel's job board posts this job's applications to, `{base}/apply/{channel}/{token}`. The token names the job and the channel, cannot be guessed, and changes when the channel's tokens are revoked. `{}` when the company is entitled to no apply channel.",
    },
    created_at: timestamp,
    updated_at: timestamp,
    last_content_update_at: { ...timestamp, description: 'When the content last changed (D14).' },
  });
}

/** A description section as the job list shows it: `order` is a string there (spec quirk, D11). */
export const descriptionSectionListFormSchema = {
  ...descriptionSectionSchema,
  description: 'In the job list `order` is a string, in the single-job response a number (spec quirk, D11).',
  properties: { ...descriptionSectionSchema.properties, order: { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]+)?$' } },
} as const;

/** The Job of GET /jobs/{id}. */
export const jobSchema = jobSchemaWith(descriptionSectionSchema);
/** A Job in the results of GET /jobs: identical but for `description_sections[].order` (D11). */
export const jobListItemSchema = jobSchemaWith(descriptionSectionListFormSchema);

// ---------------------------------------------------------------------------------------------------
// Application

const candidateIn = candidateSchema.properties;
const applicationIn = applicationInSchema.properties;

function candidateOutSchema<L extends boolean>(listForm: L) {
  const head = {
    email: { type: ['string', 'null'], format: 'email' },
    first_name: nullableString,
    last_name: nullableString,
    full_name: nullableString,
    gender: nullableEnum(GENDERS),
  } as const;
  const listOnly = {
    birthdate: { type: ['string', 'null'], format: 'date' },
    language: nullableString,
    nationality: nullableString,
  } as const;
  const tail = {
    phone: nullableString,
    // Every part is returned, null where the candidate gave none (issue 25: the document said string).
    location: {
      anyOf: [
        record({ street: nullableString, city: nullableString, country: nullableString, postcode: nullableString }),
        { type: 'null' },
      ],
    },
    skills: candidateIn.skills,
  } as const;
  return {
    ...record(listForm ? { ...head, ...listOnly, ...tail } : { ...head, ...tail }),
    description: listForm
      ? 'The candidate as the application list shows it, with `birthdate`, `language` and `nationality` (D9).'
      : 'The candidate as the create and single-read responses show it: without `birthdate`, `language` and `nationality` (spec quirk, D9).',
  };
}

/** The candidate in the create and single-read responses (D9). */
export const candidateSingleFormSchema = candidateOutSchema(false);
/** The candidate in the application list (D9). */
export const candidateListFormSchema = candidateOutSchema(true);

/** A screening answer in a response: all four strings, as the spec shows them (P265: what the partner left out is completed). */
export const screeningAnswerOutSchema = record({
  id: { type: 'string' },
  question: { type: 'string' },
  answer_type: { type: 'string', description: "The partner's, else the job's question's, else `text`." },
  answer: { type: 'string' },
});

/** An attachment in a response: its data is never returned. */
export const attachmentOutSchema = record({
  type: { type: 'string', enum: ATTACHMENT_TYPES },
  name: { type: 'string' },
  content_type: { type: 'string' },
});

/** The personal data left out of an anonymized application (D10). */
export const ANONYMIZED_FIELDS = [
  'candidate',
  'notes',
  'social_links',
  'screening_questions',
  'custom_fields',
  'attachments',
  'outcome_stage',
] as const;

function applicationSchemaWith<C extends object>(candidate: C, description: string) {
  const schema = recordWithOptional(
    {
      id,
      company: id,
      job: { ...id, description: 'The job applied for.' },
      job_title: { type: ['string', 'null'], description: 'Copied from the job at read time.' },
      job_external_id: { type: ['string', 'null'], description: "The job's ATS ID, copied at read time." },
      talent_channel: { ...nullableId, description: 'Resolved from `channel` when omitted on create; null when unknown (D9).' },
      talent_channel_name: nullableString,
      talent_channel_logo: nullableString,
      external_id: { type: ['string', 'null'], description: "The application's ID in the company's ATS; set once synced." },
      external_job_id: { type: ['string', 'null'] },
      application_url: { type: ['string', 'null'], format: 'uri' },
      agency_job_id: nullableString,
      partner_job_id: nullableString,
      partner_company_id: nullableString,
      partner_application_id: nullableString,
      candidate,
      applied_at: timestamp,
      notes: nullableString,
      channel: nullableString,
      social_links: applicationIn.social_links,
      screening_questions: { type: 'array', items: screeningAnswerOutSchema },
      custom_fields: applicationIn.custom_fields,
      attachments: { type: 'array', items: attachmentOutSchema },
      import_source: {
        type: 'string',
        description:
          '`api` for applications created through the create endpoint, `apply_webhook` for those a job board posted to a job’s `apply_webhooks` URL.',
      },
      status: { type: 'string', enum: APPLICATION_STATUSES },
      sync_status: { type: 'string', enum: SYNC_STATUSES },
      email_sync_status: { type: 'string', enum: EMAIL_SYNC_STATUSES },
      external_apply_status: { type: 'string', enum: EXTERNAL_APPLY_STATUSES },
      failure_error: { type: ['string', 'null'], description: 'Error type when the sync failed, for example `DuplicateApplicationError`.' },
      outcome: {
        ...nullableEnum(OUTCOMES),
        description:
          'Beyond the spec (D21): what became of the application in the ATS, read back after delivery; null until known or where the ATS does not report it. `HIRED`, `REJECTED` and `WITHDRAWN` are final.',
      },
      outcome_stage: {
        ...nullableString,
        description: "Beyond the spec (D21): the ATS's own name of the application's stage, or null; left out once anonymized.",
      },
      outcome_updated_at: {
        ...nullableTimestamp,
        description: 'Beyond the spec (D21): when `outcome` or `outcome_stage` last changed; null until then.',
      },
      created_at: timestamp,
      updated_at: timestamp,
    },
    ANONYMIZED_FIELDS,
  );
  return { ...schema, description } as const;
}

const anonymizedNote =
  'An application older than 180 days has `status` `anonymized` and omits `candidate`, `attachments`, `notes`, `social_links`, `screening_questions` and `custom_fields` (D10).';

/** The Application of the create and single-read responses. */
export const applicationSchema = applicationSchemaWith(
  candidateSingleFormSchema,
  `The create and single-read form (D9). ${anonymizedNote}`,
);
/** An Application in the results of GET /applications/. */
export const applicationListItemSchema = applicationSchemaWith(
  candidateListFormSchema,
  `The list form: the candidate includes \`birthdate\`, \`language\` and \`nationality\` (D9). ${anonymizedNote}`,
);

// ---------------------------------------------------------------------------------------------------
// Page envelope (D4) and error body (D2)

/** The page envelope of every list response around the given item schema. */
export function pageOf<I extends object>(item: I) {
  return record({
    count: { type: 'integer', minimum: 0, description: 'Total of the matching records across all pages.' },
    next: {
      type: ['string', 'null'],
      format: 'uri',
      description: 'Absolute URL of the next page, keeping every query parameter; null on the last page.',
    },
    previous: { type: ['string', 'null'], format: 'uri', description: 'Absolute URL of the previous page; null on the first page.' },
    results: { type: 'array', items: item },
  });
}

export const companyPageSchema = pageOf(companySchema);
export const jobPageSchema = pageOf(jobListItemSchema);
export const applicationPageSchema = pageOf(applicationListItemSchema);

/** Issue 44 (D23): one ATS call made for an application, as `GET /applications/{id}/deliveries` lists it. */
export const deliverySchema = record({
  attempt: { type: 'integer', minimum: 1, description: 'The submission attempt the call belongs to (1 for the first).' },
  at: { ...timestamp, description: 'When the request left (UTC, milliseconds, trailing Z).' },
  operation: {
    type: 'string',
    description:
      'The connector operation: `submitApplication`, `readOutcome`; `prepare` for an attempt that failed before any ATS call (no method, URL or status).',
  },
  method: {
    type: ['string', 'null'],
    description: 'The HTTP method (for the in-process sandbox ATS: of its simulated call); null on a `prepare` record.',
  },
  url: {
    type: ['string', 'null'],
    description: "Host and path of the ATS's URL; never its query or credentials. Null on a `prepare` record.",
  },
  status: { type: ['integer', 'null'], description: "The ATS's HTTP status; null when no answer came (a timeout, a network error)." },
  duration_ms: { type: 'integer', minimum: 0 },
  result: {
    type: 'string',
    enum: ['accepted', 'retry', 'failed'],
    description: 'Our reading of the call: accepted, to be retried, or failed for good.',
  },
  failure_error: { ...nullableString, description: 'On the call that failed its attempt: the `failure_error` it led to.' },
  error_code: { ...nullableString, description: "The ATS's own error code, where its answer has one." },
  response_excerpt: {
    type: 'string',
    description: "The start of the ATS's answer, at most 1 KB, with the candidate's contact data and names, tokens and secrets redacted.",
  },
  fields_sent: {
    type: 'array',
    items: { type: 'string' },
    description: 'The names of the fields sent (nested ones as dotted paths), never their values.',
  },
});
export const deliveryPageSchema = pageOf(deliverySchema);

/** D2: every error, whoever answers it (function or gateway). */
export const errorSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['detail', 'code'],
  properties: {
    detail: { type: 'string', description: 'A human-readable sentence.' },
    code: { type: 'string', pattern: '^[a-z][a-z0-9_]*$', description: 'A stable snake_case code, for example `invalid`, `not_found`.' },
    errors: {
      type: 'object',
      description: 'Validation errors only: messages by field path (`candidate.email`, `attachments[0].data`) or parameter name.',
      additionalProperties: { type: 'array', items: { type: 'string' } },
    },
    request_id: { type: 'string', description: 'On 500 only: the request id to quote to support.' },
  },
} as const;
