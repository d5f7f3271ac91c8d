/**
 * Greenhouse Job Board API: the job as it is read (list and retrieve), mapped to our Job fields, and the
 * parts of a job the application needs (its questions by id, its GDPR consent requirements). Source:
 * https://developers.greenhouse.io/job-board.html#list-jobs and #retrieve-a-job (the public repository
 * grnhse/greenhouse-api-docs, source/includes/job-board/_jobs.md); docs/connectors/greenhouse.md has the table.
 */
import type { JobInput } from '#jobs/job-schema.js';
import {
  categoryFrom,
  commitmentSchedule,
  commitmentType,
  decodeEntities,
  httpUrl,
  locationParts,
  remoteFrom,
  text,
} from '#delivery/connectors/mapping.js';

export type GreenhouseField = { name?: unknown; type?: unknown; values?: { label?: unknown; value?: unknown }[] };
export type GreenhouseQuestion = { required?: unknown; label?: unknown; description?: unknown; fields?: GreenhouseField[] };
/** One `data_compliance` entry of a job (https://developers.greenhouse.io/job-board.html#retrieve-a-job). */
export type GreenhouseCompliance = {
  type?: unknown;
  requires_consent?: unknown;
  requires_processing_consent?: unknown;
  requires_retention_consent?: unknown;
  retention_period?: unknown;
};
export type GreenhouseJob = Record<string, unknown> & {
  id?: unknown;
  location?: { name?: unknown };
  departments?: { name?: unknown }[];
  offices?: { name?: unknown; location?: unknown }[];
  metadata?: { name?: unknown; value?: unknown }[] | null;
  questions?: GreenhouseQuestion[];
  data_compliance?: GreenhouseCompliance[];
  pay_input_ranges?: { min_cents?: unknown; max_cents?: unknown; currency_type?: unknown; title?: unknown; blurb?: unknown }[];
};

const ANSWER_TYPES: Record<string, string> = {
  input_text: 'text',
  input_hidden: 'text',
  textarea: 'textarea',
  input_file: 'file',
  multi_value_single_select: 'single_select',
  multi_value_multi_select: 'multi_select',
};

/** `question_123` and `question_123[]` → `123`; standard fields (first_name, resume) → undefined. */
export const questionId = (name: string) => /^question_(\d+)(\[\])?$/.exec(name)?.[1];

export const options = (field: GreenhouseField) =>
  (field.values ?? []).map((v) => ({ label: String(v?.label ?? ''), value: String(v?.value ?? '') }));

/** A single select whose options are exactly 0 and 1: Greenhouse's yes/no question. */
export const isYesNo = (field: GreenhouseField) => {
  const values = options(field);
  return field.type === 'multi_value_single_select' && values.length === 2 && values.every((v) => /^(0|1)$/.test(v.value));
};

/** The custom questions of a job by id (a question's `question_{id}` field), in the job's order. */
export function questionFields(job: GreenhouseJob): Map<string, { field: GreenhouseField; label: string }> {
  const out = new Map<string, { field: GreenhouseField; label: string }>();
  for (const question of Array.isArray(job.questions) ? job.questions : [])
    for (const field of question?.fields ?? []) {
      const id = questionId(String(field?.name ?? ''));
      if (id && !out.has(id)) out.set(id, { field, label: String(question.label ?? '') });
    }
  return out;
}

/** The consent keys of `data_compliance[...]` and the job flag that asks for each (P280). */
export const CONSENT_FLAGS = {
  gdpr_consent_given: 'requires_consent',
  gdpr_processing_consent_given: 'requires_processing_consent',
  gdpr_retention_consent_given: 'requires_retention_consent',
} as const;
export const DEMOGRAPHIC_CONSENT = 'gdpr_demographic_data_consent_given';
export type ConsentKey = keyof typeof CONSENT_FLAGS | typeof DEMOGRAPHIC_CONSENT;

/**
 * The consent answers a job asks for (P280). `requires_consent` is the single consent Greenhouse says it will
 * deprecate ("use if your organization doesn't have single-purpose consent configured, otherwise use separate
 * values for processing and retention"): with a single-purpose flag set, the separate answers are required and
 * the single one is not; alone, it asks for `gdpr_consent_given`.
 */
export function requiredConsents(job: GreenhouseJob): (keyof typeof CONSENT_FLAGS)[] {
  const entries = (Array.isArray(job.data_compliance) ? job.data_compliance : []).filter((e) => e && typeof e === 'object');
  const asked = (flag: keyof GreenhouseCompliance) => entries.some((e) => e[flag] === true);
  const separate = asked('requires_processing_consent') || asked('requires_retention_consent');
  const out: (keyof typeof CONSENT_FLAGS)[] = [];
  if (asked('requires_consent') && !separate) out.push('gdpr_consent_given');
  if (asked('requires_processing_consent')) out.push('gdpr_processing_consent_given');
  if (asked('requires_retention_consent')) out.push('gdpr_retention_consent_given');
  return out;
}

function screeningQuestions(job: GreenhouseJob): NonNullable<JobInput['screening_questions']> {
  const out: NonNullable<JobInput['screening_questions']> = [];
  for (const question of job.questions ?? []) {
    for (const field of question.fields ?? []) {
      const id = questionId(String(field.name ?? ''));
      if (!id) continue;
      const type = String(field.type ?? '');
      out.push({
        id,
        question: text(question.label) ?? id,
        answer_type: isYesNo(field) ? 'boolean' : Object.hasOwn(ANSWER_TYPES, type) ? ANSWER_TYPES[type] : 'text',
        required: question.required === true,
        options: options(field),
      });
    }
  }
  return out;
}

function formFields(job: GreenhouseJob): NonNullable<JobInput['application_form_fields']> {
  const out: NonNullable<JobInput['application_form_fields']> = [];
  for (const question of job.questions ?? []) {
    for (const field of question.fields ?? []) {
      const name = String(field.name ?? '');
      if (!name) continue;
      out.push({
        id: name,
        name,
        label: text(question.label) ?? name,
        type: String(field.type ?? ''),
        subtype: null,
        required: question.required === true,
        order: out.length + 1,
        options: options(field),
      });
    }
  }
  // The consent answers the job asks for (P280): the partner gives them in `custom_fields.consent_decisions`.
  for (const key of requiredConsents(job))
    out.push({
      id: `data_compliance[${key}]`,
      name: `data_compliance[${key}]`,
      label: 'GDPR consent',
      type: 'consent',
      subtype: null,
      required: true,
      order: out.length + 1,
      options: [],
    });
  return out;
}

/** The documented `data_compliance` entries, copied field by field (never the raw object). */
function dataCompliance(job: GreenhouseJob) {
  return (Array.isArray(job.data_compliance) ? job.data_compliance : [])
    .filter((e) => e && typeof e === 'object')
    .map((e) => ({
      type: text(e.type),
      requires_consent: e.requires_consent === true,
      requires_processing_consent: e.requires_processing_consent === true,
      requires_retention_consent: e.requires_retention_consent === true,
      retention_period: typeof e.retention_period === 'number' && Number.isFinite(e.retention_period) ? e.retention_period : null,
    }));
}

const cents = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value / 100 : null);
/** `language` is a short code in Greenhouse's examples ("en"); anything else is not a language we can file. */
const language = (value: unknown) => (typeof value === 'string' && /^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})?$/.test(value) ? value : null);

/** One job (with questions and pay ranges) → our Job fields (docs/connectors/greenhouse.md has the table). */
export function mapGreenhouseJob(job: GreenhouseJob): JobInput {
  const locationName = text(job.location?.name);
  const { city, country } = locationParts(locationName);
  const pay = job.pay_input_ranges?.[0];
  const metadata = (job.metadata ?? []).filter((m) => m && typeof m.name === 'string');
  const meta = (pattern: RegExp) => text(metadata.find((m) => pattern.test(String(m.name)))?.value);
  const commitment = meta(/employment type|commitment/i);
  const content = typeof job.content === 'string' ? decodeEntities(job.content) : null;
  const compliance = dataCompliance(job);
  return {
    external_id: String(job.id),
    title: text(job.title),
    description: content,
    description_sections: content ? [{ id: 'content', type: 'html', order: 1, title: 'Description', content }] : [],
    posting_url: httpUrl(job.absolute_url),
    application_url: httpUrl(job.absolute_url),
    location_name: locationName,
    city,
    country,
    remote: remoteFrom(locationName, ...(job.offices ?? []).map((o) => text(o?.name))),
    language: language(job.language),
    employment_type: commitment ? commitmentType(commitment) : null,
    work_schedule: commitment ? commitmentSchedule(commitment) : null,
    category: categoryFrom(...(job.departments ?? []).map((d) => d?.name)),
    salary: pay ? (text(pay.title) ?? text(pay.blurb)) : null,
    salary_from: pay ? cents(pay.min_cents) : null,
    salary_to: pay ? cents(pay.max_cents) : null,
    salary_currency: pay ? text(pay.currency_type) : null,
    screening_questions: screeningQuestions(job),
    application_form_fields: formFields(job),
    custom_fields: {
      ...(text(job.requisition_id) ? { requisition_id: text(job.requisition_id) } : {}),
      ...(job.internal_job_id !== undefined && job.internal_job_id !== null ? { internal_job_id: String(job.internal_job_id) } : {}),
      ...((job.departments ?? []).length ? { departments: (job.departments ?? []).map((d) => String(d?.name ?? '')) } : {}),
      ...(compliance.length ? { data_compliance: compliance } : {}),
    },
    raw_values: job,
    import_source: 'api',
  };
}
