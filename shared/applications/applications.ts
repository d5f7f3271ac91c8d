/**
 * Applications: the request schema (source of validation, types and the OpenAPI document), the stored
 * record, and the Application object with the D9 quirks and D10 anonymization. The item layout, reads and
 * writes are the store's (`application-store.ts`, counters in `application-counters.ts`); one application
 * and the filtered list for the API are `application-list.ts`; creating one is `application-create.ts`,
 * which only the create route loads. This module names no index attribute.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { ATTACHMENT_TYPES, MAX_ATTACHMENT_NAME, type StoredAttachment } from '#applications/attachments.js';
import type { TalentChannel } from '#applications/channels.js';
import { now } from '#platform/clock.js';
import type { JobRecord } from '#jobs/job-schema.js';
import { LIMITS, freeFormObject, safeKeyNames } from '#platform/schema-rules.js';

export const GENDERS = ['male', 'female', 'diverse', 'not_specified'] as const;
export const ANSWER_TYPES = ['text', 'textarea', 'boolean', 'number', 'date', 'single_select', 'multi_select', 'file'] as const;
export const SYNC_STATUSES = ['SUCCESS', 'SUCCESS_FALLBACK', 'EXPECTED_FAILURE', 'FAILURE', 'NOTSENT'] as const;
export const EMAIL_SYNC_STATUSES = ['SUCCESS', 'FAILURE', 'NOTSENT'] as const;
export const EXTERNAL_APPLY_STATUSES = ['NOTSENT', 'CONTACTED', 'REMINDED', 'ENGAGED'] as const;
export const APPLICATION_STATUSES = ['active', 'anonymized', 'deleted'] as const;
/** What became of a delivered application in the ATS (D21, issue 43); null on the application until known. */
export const OUTCOMES = ['PENDING', 'HIRED', 'REJECTED', 'WITHDRAWN'] as const;
/** The outcomes after which nothing changes any more: reading stops there (D21). */
export const FINAL_OUTCOMES: readonly (typeof OUTCOMES)[number][] = ['HIRED', 'REJECTED', 'WITHDRAWN'];
export const ANONYMIZATION_AGE_DAYS = 180;
/** What of an application the item may hold besides its attachments' metadata (DynamoDB: 400 KB an item). */
export const MAX_APPLICATION_BYTES = 350_000;

const text = (max: number) => ({ type: 'string', maxLength: max }) as const;

export const candidateSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['email'],
  description: 'Requires `email` and a name: `full_name`, or `first_name` and `last_name`.',
  properties: {
    email: { type: 'string', format: 'email', maxLength: 254 },
    first_name: { type: 'string', minLength: 1, maxLength: 255 },
    last_name: { type: 'string', minLength: 1, maxLength: 255 },
    full_name: { type: 'string', minLength: 1, maxLength: 511 },
    gender: { type: 'string', enum: GENDERS },
    birthdate: { type: 'string', format: 'date' },
    language: text(64),
    nationality: text(64),
    phone: text(64),
    location: {
      type: 'object',
      additionalProperties: false,
      properties: { street: text(255), city: text(255), country: text(255), postcode: text(32) },
    },
    skills: { type: 'array', maxItems: 200, items: text(255) },
  },
} as const;

export const attachmentInSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'content_type', 'data'],
  properties: {
    type: { type: 'string', enum: ATTACHMENT_TYPES, default: 'other' },
    name: { type: 'string', minLength: 1, maxLength: MAX_ATTACHMENT_NAME },
    content_type: { type: 'string', format: 'media-type', maxLength: 255, description: 'A media type; stored normalised.' },
    data: { type: 'string', minLength: 1, description: 'Base64 of the file.', contentEncoding: 'base64' },
  },
} as const;

export const applicationInSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['candidate'],
  description: 'One of `job` or `external_job_id` is required; if both are given they must name the same job.',
  properties: {
    job: { type: 'integer', minimum: 1, maximum: LIMITS.maxNumber },
    talent_channel: { type: ['integer', 'null'], minimum: 1, maximum: LIMITS.maxNumber },
    external_job_id: { type: 'string', minLength: 1, maxLength: 255 },
    application_url: { type: 'string', format: 'http-url', maxLength: 2000 },
    agency_job_id: text(255),
    partner_job_id: text(255),
    partner_company_id: text(255),
    partner_application_id: text(255),
    candidate: candidateSchema,
    applied_at: { type: 'string', format: 'date-time' },
    notes: text(20000),
    channel: text(255),
    social_links: {
      type: 'object',
      maxProperties: 50,
      propertyNames: safeKeyNames,
      additionalProperties: { type: 'string', format: 'http-url', maxLength: 2000 },
    },
    screening_questions: {
      type: 'array',
      maxItems: 200,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id'],
        properties: { id: text(255), question: text(5000), answer_type: { type: 'string', enum: ANSWER_TYPES }, answer: text(20000) },
      },
    },
    custom_fields: freeFormObject(),
    attachments: { type: 'array', maxItems: 20, items: attachmentInSchema },
  },
} as const;

export type ApplicationIn = FromSchema<typeof applicationInSchema>;

/** The stored application. Attachment objects live in S3; `email_lc` serves the e-mail filter. */
export interface ApplicationRecord {
  id: number;
  company: number;
  job: number;
  talent_channel: number | null;
  external_id: string | null;
  external_job_id: string | null;
  application_url: string | null;
  agency_job_id: string | null;
  partner_job_id: string | null;
  partner_company_id: string | null;
  partner_application_id: string | null;
  candidate?: Record<string, unknown>;
  applied_at: string;
  notes?: string | null;
  channel: string | null;
  social_links?: Record<string, string>;
  screening_questions?: Record<string, string>[];
  custom_fields?: Record<string, unknown>;
  attachments?: StoredAttachment[];
  /** `api` through POST /applications/, `apply_webhook` through an apply channel's endpoint (issue 23). */
  import_source: 'api' | 'apply_webhook';
  status: (typeof APPLICATION_STATUSES)[number];
  sync_status: (typeof SYNC_STATUSES)[number];
  email_sync_status: (typeof EMAIL_SYNC_STATUSES)[number];
  external_apply_status: (typeof EXTERNAL_APPLY_STATUSES)[number];
  failure_error: string | null;
  /**
   * D21: the outcome read back from the ATS, its own stage name, and when either last changed; absent until the
   * first reading found one (a create writes none of them, so it costs no more, P298).
   */
  outcome?: (typeof OUTCOMES)[number] | null;
  outcome_stage?: string | null;
  outcome_updated_at?: string | null;
  /** The partner whose key submitted the application, and the same id when that partner is an agency. */
  partner: number;
  agency: number | null;
  created_at: string;
  updated_at: string;
  /** Set once the retention job has removed the personal data (D10). */
  personal_data_deleted_at?: string;
  /** While a sync or e-mail fallback is still due: when the sweeper should re-queue it if nothing happened. */
  sync_due_at?: string;
  /** Submission attempts so far, and until when the current attempt holds its claim. */
  /** The `sequence` of the application's latest event (P115), moved in the transaction that writes the event. */
  event_sequence?: number;
}

type View = 'single' | 'list';

/** D10: older than 180 days by `created_at`. */
export function isAnonymized(record: ApplicationRecord, at: Date = now()): boolean {
  return at.getTime() - Date.parse(record.created_at) > ANONYMIZATION_AGE_DAYS * 24 * 3600 * 1000;
}

function candidateOut(candidate: Record<string, unknown>, view: View): Record<string, unknown> {
  const out: Record<string, unknown> = {
    email: candidate.email ?? null,
    first_name: candidate.first_name ?? null,
    last_name: candidate.last_name ?? null,
    full_name: candidate.full_name ?? null,
    gender: candidate.gender ?? null,
  };
  // D9: the create and single-read responses leave these three out; the list shows them.
  if (view === 'list') {
    out.birthdate = candidate.birthdate ?? null;
    out.language = candidate.language ?? null;
    out.nationality = candidate.nationality ?? null;
  }
  out.phone = candidate.phone ?? null;
  const location = candidate.location as Record<string, unknown> | undefined;
  out.location = location
    ? {
        street: location.street ?? null,
        city: location.city ?? null,
        country: location.country ?? null,
        postcode: location.postcode ?? null,
      }
    : null;
  out.skills = candidate.skills ?? [];
  return out;
}

export function toApplication(
  r: ApplicationRecord,
  job: JobRecord | undefined,
  channel: TalentChannel | undefined,
  view: View,
): Record<string, unknown> {
  const anonymized = r.status === 'anonymized' || Boolean(r.personal_data_deleted_at) || isAnonymized(r);
  const out: Record<string, unknown> = {
    id: r.id,
    company: r.company,
    job: r.job,
    job_title: job?.title ?? null,
    job_external_id: job?.external_id ?? null,
    talent_channel: r.talent_channel,
    talent_channel_name: channel?.name ?? null,
    talent_channel_logo: channel?.logo ?? null,
    external_id: r.external_id,
    external_job_id: r.external_job_id,
    application_url: r.application_url,
    agency_job_id: r.agency_job_id,
    partner_job_id: r.partner_job_id,
    partner_company_id: r.partner_company_id,
    partner_application_id: r.partner_application_id,
  };
  if (!anonymized) out.candidate = candidateOut(r.candidate ?? {}, view);
  out.applied_at = r.applied_at;
  if (!anonymized) out.notes = r.notes ?? null;
  out.channel = r.channel;
  if (!anonymized) {
    out.social_links = r.social_links ?? {};
    out.screening_questions = r.screening_questions ?? [];
    out.custom_fields = r.custom_fields ?? {};
    out.attachments = (r.attachments ?? []).map((a) => ({ type: a.type, name: a.name, content_type: a.content_type }));
  }
  out.import_source = r.import_source;
  out.status = anonymized && r.status === 'active' ? 'anonymized' : r.status;
  out.sync_status = r.sync_status;
  out.email_sync_status = r.email_sync_status;
  out.external_apply_status = r.external_apply_status;
  out.failure_error = r.failure_error;
  // D21: anonymization keeps the outcome and drops the ATS's stage name with the personal data.
  out.outcome = r.outcome ?? null;
  if (!anonymized) out.outcome_stage = r.outcome_stage ?? null;
  out.outcome_updated_at = r.outcome_updated_at ?? null;
  out.created_at = r.created_at;
  out.updated_at = r.updated_at;
  return out;
}
