/**
 * The job's shape: its enumerations, the input schema a feed's postings are validated against (and the feed's
 * check), the content fields and their fingerprint (D14), the stored record, and the Job object of the
 * interface with the D11 quirks (`toJob`). No DynamoDB here: items are `job-store.ts`'s.
 */
import { createHash } from 'node:crypto';
import type { FromSchema } from 'json-schema-to-ts';
import { ValidationError, fieldErrors } from '#platform/errors.js';
import { lazyValidator, toFieldErrors, type CompiledValidator } from '#platform/field-errors.js';
import { freeFormArray, freeFormObject, rawValuesObject, storableNumber } from '#platform/schema-rules.js';

export const JOB_STATUSES = ['active', 'deleted', 'archived'] as const;
export const REMOTE_VALUES = ['remote', 'hybrid', 'on-site'] as const;
export const EMPLOYMENT_TYPES = [
  'contract',
  'freelance',
  'intern',
  'temporary',
  'permanent',
  'volunteer',
  'apprenticeship',
  'working_student',
  'minijob',
  'other',
] as const;
export const WORK_SCHEDULES = ['full_time', 'part_time', 'flexible'] as const;
export const SENORITY_VALUES = ['unexperienced', 'junior', 'mid_level', 'senior', 'lead', 'manager', 'director', 'executive'] as const;
export const CATEGORIES = [
  'accounting_finance',
  'administration',
  'architecture_construction',
  'arts_media_entertainment',
  'business_development',
  'cleaning_facilities',
  'consulting',
  'customer_service_support',
  'data_analytics',
  'design',
  'education_training',
  'engineering',
  'entertainment_travel',
  'event_management',
  'finance',
  'healthcare',
  'hospitality_tourism',
  'hr_recruitment',
  'installation_maintenance_repair',
  'it_support',
  'legal',
  'logistics_supply_chain',
  'management_executive',
  'marketing',
  'non_profit',
  'operations',
  'other',
  'personal_care_services',
  'pharmaceutical_life_sciences',
  'product_management',
  'project_management',
  'public_relations',
  'real_estate',
  'retail',
  'sales',
  'science_technology',
  'software_development',
  'social_services',
  'sports_fitness_recreation',
  'translation_localization',
  'warehouse',
] as const;

const str = { type: ['string', 'null'] } as const;
/** A value that becomes part of a slot's partition key (`language`, `country`): bounded so the key stays far below 2,048 bytes. */
const keyStr = { type: ['string', 'null'], maxLength: 255 } as const;
const num = { ...storableNumber, type: ['number', 'null'] } as const;
/** URLs we hand to job seekers: http(s) only, like every URL the interface accepts. */
const url = { type: ['string', 'null'], format: 'http-url', maxLength: 2000 } as const;
const oneOf = <T extends readonly string[]>(values: T) => ({ type: ['string', 'null'], enum: [...values, null] }) as const;

export const screeningQuestionSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'question'],
  properties: {
    id: { type: 'string' },
    question: { type: 'string' },
    answer_type: { type: 'string' },
    required: { type: 'boolean' },
    options: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['label', 'value'],
        properties: { label: { type: 'string' }, value: { type: 'string' } },
      },
    },
  },
} as const;

export const applicationFormFieldSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    label: { type: 'string' },
    type: { type: 'string' },
    subtype: { type: ['string', 'null'] },
    required: { type: 'boolean' },
    order: storableNumber,
    options: freeFormArray(),
  },
} as const;

export const descriptionSectionSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'order'],
  properties: {
    id: { type: 'string' },
    type: { type: 'string' },
    order: storableNumber,
    title: { type: 'string' },
    content: { type: 'string' },
  },
} as const;

/** A job as an ATS feed (or the admin import file) delivers it, in the spec's field names. */
export const jobInputSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['external_id'],
  properties: {
    external_id: { type: 'string', minLength: 1, maxLength: 255 },
    title: str,
    description: str,
    posting_url: url,
    application_url: url,
    application_email: str,
    status: oneOf(JOB_STATUSES),
    remote: oneOf(REMOTE_VALUES),
    language: keyStr,
    category: oneOf(CATEGORIES),
    employment_type: oneOf(EMPLOYMENT_TYPES),
    work_schedule: oneOf(WORK_SCHEDULES),
    senority: oneOf(SENORITY_VALUES),
    education: str,
    start_date: { type: ['string', 'null'], format: 'date' },
    contract_limitation: str,
    location_name: str,
    street: str,
    city: str,
    country: keyStr,
    postcode: str,
    longitude: num,
    latitude: num,
    salary: str,
    salary_from: num,
    salary_to: num,
    salary_currency: str,
    salary_frequency: str,
    contact_name: str,
    contact_email: str,
    contact_title: str,
    contact_phone: str,
    contact_salutation: str,
    banner_image: url,
    screening_questions: { type: 'array', items: screeningQuestionSchema },
    application_form_fields: { type: 'array', items: applicationFormFieldSchema },
    description_sections: { type: 'array', items: descriptionSectionSchema },
    custom_fields: freeFormObject(),
    raw_values: rawValuesObject(),
    import_source: str,
    /**
     * Internal (P276): the id or slug the ATS's apply call needs when it differs from `external_id` (Recruitee
     * applies by the offer's slug). Set by a connector's job mapping, stored with the job record, compared by the
     * import; never in the Job API response, the OpenAPI document or the typed client.
     */
    ats_apply_key: { type: 'string', minLength: 1, maxLength: 255 },
  },
} as const;

export type JobInput = FromSchema<typeof jobInputSchema>;

/** The content fields: the fingerprint covers exactly these (D14). */
export const JOB_CONTENT_FIELDS = [
  'external_id',
  'title',
  'description',
  'posting_url',
  'application_url',
  'application_email',
  'remote',
  'language',
  'category',
  'employment_type',
  'work_schedule',
  'senority',
  'education',
  'start_date',
  'contract_limitation',
  'location_name',
  'street',
  'city',
  'country',
  'postcode',
  'longitude',
  'latitude',
  'salary',
  'salary_from',
  'salary_to',
  'salary_currency',
  'salary_frequency',
  'contact_name',
  'contact_email',
  'contact_title',
  'contact_phone',
  'contact_salutation',
  'banner_image',
  'screening_questions',
  'application_form_fields',
  'description_sections',
  'custom_fields',
] as const;

type ContentField = (typeof JOB_CONTENT_FIELDS)[number];

export type JobRecord = { [K in ContentField]: unknown } & {
  id: number;
  company: number;
  status: (typeof JOB_STATUSES)[number];
  raw_values: Record<string, unknown>;
  import_source: string;
  /** Internal (P276): what the ATS's apply call names the job by, when not `external_id`; absent otherwise. Not in `toJob`. */
  ats_apply_key?: string;
  /**
   * The run the job last arrived on, as stored. A job that arrived unchanged is not written again (P192): unless
   * `run_frozen`, its run is the company's last complete run (`resolveRunIds`), kept on the jobs counter item.
   */
  run_id: string;
  /** Set on a job that did not arrive on the company's last complete run, or arrived on a partial one: `run_id` is its own. */
  run_frozen?: boolean;
  fingerprint: string;
  created_at: string;
  updated_at: string;
  last_content_update_at: string;
};

const ARRAY_FIELDS = new Set<string>(['screening_questions', 'application_form_fields', 'description_sections']);
const OBJECT_FIELDS = new Set<string>(['custom_fields']);

/**
 * The Job object of the interface, in the spec's field order. `listForm` applies the D11 list quirk;
 * `applyWebhooks` is the job's `apply_webhooks` (D15: `{}` unless the company is entitled to apply channels, P197).
 */
export function toJob(r: JobRecord, listForm: boolean, applyWebhooks: Record<string, string> = {}): Record<string, unknown> {
  const sections = (r.description_sections as { order: number }[]).map((s) => (listForm ? { ...s, order: String(s.order) } : s));
  return {
    id: r.id,
    external_id: r.external_id,
    company: r.company,
    title: r.title,
    description: r.description,
    posting_url: r.posting_url,
    application_url: r.application_url,
    application_email: r.application_email,
    status: r.status,
    remote: r.remote,
    language: r.language,
    category: r.category,
    employment_type: r.employment_type,
    work_schedule: r.work_schedule,
    senority: r.senority,
    education: r.education,
    start_date: r.start_date,
    contract_limitation: r.contract_limitation,
    location_name: r.location_name,
    street: r.street,
    city: r.city,
    country: r.country,
    postcode: r.postcode,
    longitude: r.longitude,
    latitude: r.latitude,
    salary: r.salary,
    salary_from: r.salary_from,
    salary_to: r.salary_to,
    salary_currency: r.salary_currency,
    salary_frequency: r.salary_frequency,
    contact_name: r.contact_name,
    contact_email: r.contact_email,
    contact_title: r.contact_title,
    contact_phone: r.contact_phone,
    contact_salutation: r.contact_salutation,
    banner_image: r.banner_image,
    screening_questions: r.screening_questions,
    application_form_fields: r.application_form_fields,
    description_sections: sections,
    custom_fields: r.custom_fields,
    raw_values: r.raw_values,
    import_source: r.import_source,
    run_id: r.run_id,
    fingerprint: r.fingerprint,
    apply_webhooks: applyWebhooks,
    created_at: r.created_at,
    updated_at: r.updated_at,
    last_content_update_at: r.last_content_update_at,
  };
}

// ---------------------------------------------------------------------------------------------------
// The feed (D14)

let validateJobInput: Promise<CompiledValidator> | undefined;

/**
 * The feed's validator, its generated module (54 kB) imported on first use (P288): bundled, it is a chunk that
 * only a function that parses a feed loads, when it first does; the job import starts loading it while its run's
 * first requests are on the way (`runJobImport`), so its cold start does not load it before the handler runs.
 */
export function loadJobFeedValidator(): Promise<CompiledValidator> {
  validateJobInput ??= import('#generated/jobs-validators.js').then(({ loadJobInputValidator }) => lazyValidator(loadJobInputValidator));
  // A failed import is tried again on the next feed, not remembered.
  validateJobInput.catch(() => (validateJobInput = undefined));
  return validateJobInput;
}

/** Job fields that hold URLs: stored and handed out only when they are http(s). */
const URL_FIELDS = ['posting_url', 'application_url', 'banner_image'] as const;

export function isHttpUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** Validates a whole feed; any invalid job rejects the run before anything is written. */
export async function parseJobFeed(feed: unknown): Promise<JobInput[]> {
  if (!Array.isArray(feed)) throw new ValidationError({ body: ['Must be a JSON array of jobs.'] });
  const validateJobInput = await loadJobFeedValidator();
  const errors = fieldErrors();
  const seen = new Set<string>();
  feed.forEach((job, i) => {
    if (!validateJobInput(job)) {
      for (const [path, messages] of Object.entries(toFieldErrors(validateJobInput.errors)))
        errors[`[${i}]${path === 'body' ? '' : `.${path}`}`] = messages;
    } else if (seen.has((job as JobInput).external_id)) {
      errors[`[${i}].external_id`] = ['Duplicate external_id in the feed.'];
    } else {
      seen.add((job as JobInput).external_id);
    }
  });
  (feed as JobInput[]).forEach((job, i) => {
    for (const field of URL_FIELDS) {
      const value = job?.[field];
      if (typeof value === 'string' && !isHttpUrl(value)) errors[`[${i}].${field}`] = ['Must be an http(s) URL.'];
    }
  });
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return feed as JobInput[];
}

/** JSON with object keys sorted and undefined members left out: equal content, equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** A posting's content fields, an absent one as its empty value (`[]`, `{}` or null). */
export function contentOf(input: JobInput): Record<ContentField, unknown> {
  const content = {} as Record<ContentField, unknown>;
  for (const field of JOB_CONTENT_FIELDS) {
    const value = (input as Record<string, unknown>)[field];
    content[field] = value ?? (ARRAY_FIELDS.has(field) ? [] : OBJECT_FIELDS.has(field) ? {} : null);
  }
  return content;
}

/** SHA-256 over the canonical JSON of the content fields (D14). */
export function fingerprintOf(content: Record<ContentField, unknown>): string {
  return createHash('sha256').update(canonicalJson(content)).digest('hex');
}
