/**
 * Applications: the request schema (source of validation, types and the OpenAPI document), creation with
 * attachments and the sync hand-off, the Application object with the D9 quirks and D10 anonymization,
 * reads and the filtered list.
 */
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { FromSchema } from 'json-schema-to-ts';
import {
  ATTACHMENT_TYPES,
  checkAttachments,
  deleteAttachmentObjects,
  storeAttachments,
  type FilePart,
  type IncomingAttachment,
  type StoredAttachment,
} from '#applications/attachments.js';
import { getChannel, getChannelBySlug, getChannels, type TalentChannel } from '#applications/channels.js';
import { config, db } from '#platform/clients.js';
import { now } from '#platform/clock.js';
import { getCompanyRecord, syncActive, type CompanyRecord } from '#companies/companies.js';
import { readCount } from '#platform/counts.js';
import { CompanyInactiveError, NotFoundError, ValidationError, type FieldErrors } from '#platform/errors.js';
import { nextId } from '#platform/ids.js';
import { findJobByExternalId, getJobs, type JobRecord } from '#jobs/jobs.js';
import { collections, indexKeys, keys } from '#platform/keys.js';
import { readPage, type CollectionQuery, type Condition } from '#platform/paged-query.js';
import { envelope, makeCursor, pageRequest, type LinkContext, type PageEnvelope } from '#platform/pagination.js';
import { getPartner } from '#companies/partners.js';
import { dateParam, enumParam, positiveIntParam, stringParam, type QueryParams } from '#platform/query-params.js';
import { publishEvent } from '#platform/events.js';
import { enqueueSync, sweepGraceSeconds } from '#platform/sync-queue.js';
import { toFieldErrors, ajv } from '#platform/validation.js';

export const GENDERS = ['male', 'female', 'diverse', 'not_specified'] as const;
export const ANSWER_TYPES = ['text', 'textarea', 'boolean', 'number', 'date', 'single_select', 'multi_select', 'file'] as const;
export const SYNC_STATUSES = ['SUCCESS', 'SUCCESS_FALLBACK', 'EXPECTED_FAILURE', 'FAILURE', 'NOTSENT'] as const;
export const EMAIL_SYNC_STATUSES = ['SUCCESS', 'FAILURE', 'NOTSENT'] as const;
export const EXTERNAL_APPLY_STATUSES = ['NOTSENT', 'CONTACTED', 'REMINDED', 'ENGAGED'] as const;
export const APPLICATION_STATUSES = ['active', 'anonymized', 'deleted'] as const;
export const ANONYMIZATION_AGE_DAYS = 180;
/** What of an application the item may hold besides its attachments' metadata (DynamoDB: 400 KB an item). */
export const MAX_APPLICATION_BYTES = 350_000;
const ATTACHMENT_RECORD_BYTES = 700;

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
    name: { type: 'string', minLength: 1, maxLength: 255 },
    content_type: { type: 'string', minLength: 1, maxLength: 255 },
    data: { type: 'string', minLength: 1, description: 'Base64 of the file.', contentEncoding: 'base64' },
  },
} as const;

export const applicationInSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['candidate'],
  description: 'One of `job` or `external_job_id` is required; if both are given they must name the same job.',
  properties: {
    job: { type: 'integer', minimum: 1 },
    talent_channel: { type: ['integer', 'null'], minimum: 1 },
    external_job_id: { type: 'string', minLength: 1, maxLength: 255 },
    application_url: { type: 'string', format: 'uri', maxLength: 2000 },
    agency_job_id: text(255),
    partner_job_id: text(255),
    partner_company_id: text(255),
    partner_application_id: text(255),
    candidate: candidateSchema,
    applied_at: { type: 'string', format: 'date-time' },
    notes: text(20000),
    channel: text(255),
    social_links: { type: 'object', maxProperties: 50, additionalProperties: { type: 'string', format: 'uri', maxLength: 2000 } },
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
    custom_fields: { type: 'object', maxProperties: 200 },
    attachments: { type: 'array', maxItems: 20, items: attachmentInSchema },
  },
} as const;

export type ApplicationIn = FromSchema<typeof applicationInSchema>;

const validateApplicationIn = ajv.compile(applicationInSchema);

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
  import_source: 'api';
  status: (typeof APPLICATION_STATUSES)[number];
  sync_status: (typeof SYNC_STATUSES)[number];
  email_sync_status: (typeof EMAIL_SYNC_STATUSES)[number];
  external_apply_status: (typeof EXTERNAL_APPLY_STATUSES)[number];
  failure_error: string | null;
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
  sync_attempts?: number;
  sync_claim_until?: string;
  email_claim_until?: string;
}

const INTERNAL_ATTRIBUTES = [
  'PK',
  'SK',
  'GSI1PK',
  'GSI1SK',
  'GSI2PK',
  'GSI2SK',
  'GSI3PK',
  'GSI3SK',
  'GSI4PK',
  'GSI4SK',
  'GSI5PK',
  'GSI5SK',
  'email_lc',
];

export function fromApplicationItem(item: Record<string, unknown>): ApplicationRecord {
  const record = { ...item };
  for (const name of INTERNAL_ATTRIBUTES) delete record[name];
  return record as unknown as ApplicationRecord;
}

export function toApplicationItem(r: ApplicationRecord): Record<string, unknown> {
  const email = String(r.candidate?.email ?? '');
  return {
    ...keys.application(r.id),
    GSI1PK: indexKeys.companyApplications(r.company),
    GSI1SK: indexKeys.createdSort(r.created_at, r.id),
    GSI2PK: indexKeys.applicationsByEmail(r.company, email),
    GSI2SK: indexKeys.createdSort(r.created_at, r.id),
    GSI3PK: indexKeys.applicationsByJob(r.company, r.job),
    GSI3SK: indexKeys.createdSort(r.created_at, r.id),
    ...(r.personal_data_deleted_at ? {} : { GSI4PK: indexKeys.personalData(r.id), GSI4SK: indexKeys.createdSort(r.created_at, r.id) }),
    ...(r.sync_due_at ? { GSI5PK: indexKeys.syncDue(r.id), GSI5SK: indexKeys.createdSort(r.sync_due_at, r.id) } : {}),
    email_lc: email.toLowerCase(),
    ...r,
  };
}

// ---------------------------------------------------------------------------------------------------
// Create

/** Validates a parsed body; returns the input and the attachments (Base64 ones and multipart files). */
export function parseApplication(
  fields: Record<string, unknown>,
  files: FilePart[],
): { input: ApplicationIn; attachments: IncomingAttachment[] } {
  const errors: FieldErrors = {};
  if (!validateApplicationIn(fields)) Object.assign(errors, toFieldErrors(validateApplicationIn.errors));
  const input = fields as ApplicationIn;
  const candidate = input.candidate as ApplicationIn['candidate'] | undefined;
  if (candidate && typeof candidate === 'object' && !candidate.full_name && !(candidate.first_name && candidate.last_name)) {
    errors['candidate.full_name'] = ['Give full_name, or first_name and last_name.'];
  }
  if (input.job === undefined && input.external_job_id === undefined) {
    errors.job = ['Give job or external_job_id.'];
  }
  // The format check admits forms (a leap second, an hour-only offset) that no clock can place.
  if (typeof input.applied_at === 'string' && !errors.applied_at && Number.isNaN(Date.parse(input.applied_at))) {
    errors.applied_at = ['Must be an ISO 8601 date-time such as 2026-05-01T10:00:00Z.'];
  }
  const attachments: IncomingAttachment[] = [
    ...(Array.isArray(input.attachments) ? input.attachments : []).map((a) => ({
      type: (a.type ?? 'other') as IncomingAttachment['type'],
      name: a.name,
      content_type: a.content_type,
      data: a.data,
    })),
    ...files.map((file) => ({
      type: ((ATTACHMENT_TYPES as readonly string[]).includes(file.field) ? file.field : 'other') as IncomingAttachment['type'],
      name: file.filename,
      content_type: file.contentType,
      data: file.data,
    })),
  ];
  // Attachment contents are checked only once their fields are well formed.
  if (!Object.keys(errors).some((path) => path.startsWith('attachments'))) Object.assign(errors, checkAttachments(attachments));
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return { input, attachments };
}

/** D8: the job named by `job` and/or `external_job_id` must exist in the company and be the same. */
async function resolveJob(companyId: number, input: ApplicationIn): Promise<JobRecord> {
  const byId = input.job !== undefined ? (await getJobs(companyId, [input.job])).get(input.job) : undefined;
  if (input.job !== undefined && !byId) throw new ValidationError({ job: ['No such job for this company.'] });
  const byExternal = input.external_job_id !== undefined ? await findJobByExternalId(companyId, input.external_job_id) : undefined;
  if (input.external_job_id !== undefined && !byExternal)
    throw new ValidationError({ external_job_id: ['No job with this external id for this company.'] });
  if (byId && byExternal && byId.id !== byExternal.id) throw new ValidationError({ external_job_id: ['Names another job than "job".'] });
  return (byId ?? byExternal)!;
}

async function resolveChannel(input: ApplicationIn): Promise<TalentChannel | undefined> {
  if (input.talent_channel != null) {
    const channel = await getChannel(input.talent_channel);
    if (!channel) throw new ValidationError({ talent_channel: ['No such talent channel.'] });
    return channel;
  }
  return input.channel ? getChannelBySlug(input.channel) : undefined;
}

export interface CreatedApplication {
  record: ApplicationRecord;
  job: JobRecord;
  channel: TalentChannel | undefined;
}

/**
 * Creates an application: resolves job and channel (400 if they do not fit), stores the attachments,
 * writes the application with its company total in one transaction (removing the objects again if that
 * fails), and hands the id to the sync queue when the company's candidate sync is active.
 */
export async function createApplication(
  company: CompanyRecord,
  partnerId: number,
  input: ApplicationIn,
  attachments: IncomingAttachment[],
): Promise<CreatedApplication> {
  // The company is read afresh: the access check's copy may be cached and its entitlements stale.
  const [job, channel, partner, current] = await Promise.all([
    resolveJob(company.id, input),
    resolveChannel(input),
    getPartner(partnerId),
    getCompanyRecord(company.id),
  ]);
  const entitled = current ?? company;
  // D17: a deactivated (or deleted) company refuses new applications; its records stay readable.
  if (entitled.status === 'deactivated' || entitled.status === 'deleted') throw new CompanyInactiveError();
  const id = await nextId('application');
  // D12: the worker has something to do when the ATS sync is active or the e-mail fallback is entitled.
  const syncDue = syncActive(entitled, 'candidate_sync') || entitled.entitlements.includes('email_fallback');
  const timestamp = now().toISOString();
  const record: ApplicationRecord = {
    id,
    company: company.id,
    job: job.id,
    talent_channel: channel?.id ?? null,
    external_id: null,
    external_job_id: input.external_job_id ?? null,
    application_url: input.application_url ?? null,
    agency_job_id: input.agency_job_id ?? null,
    partner_job_id: input.partner_job_id ?? null,
    partner_company_id: input.partner_company_id ?? null,
    partner_application_id: input.partner_application_id ?? null,
    candidate: input.candidate as Record<string, unknown>,
    applied_at: input.applied_at ? new Date(input.applied_at).toISOString() : timestamp,
    notes: input.notes ?? null,
    channel: input.channel ?? null,
    social_links: input.social_links ?? {},
    screening_questions: (input.screening_questions ?? []) as Record<string, string>[],
    custom_fields: input.custom_fields ?? {},
    attachments: [],
    import_source: 'api',
    status: 'active',
    sync_status: 'NOTSENT',
    email_sync_status: 'NOTSENT',
    external_apply_status: 'NOTSENT',
    failure_error: null,
    partner: partnerId,
    agency: partner?.kind === 'agency' ? partnerId : null,
    created_at: timestamp,
    updated_at: timestamp,
    ...(syncDue ? { sync_due_at: new Date(Date.parse(timestamp) + sweepGraceSeconds() * 1000).toISOString() } : {}),
  };
  // A DynamoDB item holds at most 400 KB: refuse, before anything is stored, what would not fit.
  const estimate = Buffer.byteLength(JSON.stringify(toApplicationItem(record))) + attachments.length * ATTACHMENT_RECORD_BYTES;
  if (estimate > MAX_APPLICATION_BYTES) {
    throw new ValidationError({
      body: [
        `The application without its files is ${Math.ceil(estimate / 1000)} KB; at most ${MAX_APPLICATION_BYTES / 1000} KB (notes, answers, custom fields and links) is accepted.`,
      ],
    });
  }
  const stored = await storeAttachments(company.id, id, attachments);
  record.attachments = stored;
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: config().tableName, Item: toApplicationItem(record), ConditionExpression: 'attribute_not_exists(PK)' } },
          {
            Update: {
              TableName: config().tableName,
              Key: keys.countOf(collections.companyApplications(company.id)),
              UpdateExpression: 'ADD #n :one',
              ExpressionAttributeNames: { '#n': 'count' },
              ExpressionAttributeValues: { ':one': 1 },
            },
          },
        ],
      }),
    );
  } catch (error) {
    await deleteAttachmentObjects(stored.map((a) => a.key));
    throw error;
  }
  if (syncDue) await enqueueSync(record.id);
  await publishEvent('application.created', company.id, {
    application_id: record.id,
    job_id: job.id,
    sync_status: record.sync_status,
    email_sync_status: record.email_sync_status,
  });
  return { record, job, channel };
}

// ---------------------------------------------------------------------------------------------------
// The Application object

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
  out.created_at = r.created_at;
  out.updated_at = r.updated_at;
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Reads

/** Strongly consistent: the worker and a client reading right after the create must see it. */
export async function getApplicationRecord(id: number): Promise<ApplicationRecord | undefined> {
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.application(id), ConsistentRead: true }));
  return out.Item ? fromApplicationItem(out.Item) : undefined;
}

/** One application of the company; another company's application is "not found". */
export async function getApplication(companyId: number, id: number): Promise<Record<string, unknown>> {
  const record = await getApplicationRecord(id);
  if (!record || record.company !== companyId) throw new NotFoundError();
  const [jobs, channel] = await Promise.all([
    getJobs(companyId, [record.job]),
    record.talent_channel ? getChannel(record.talent_channel) : undefined,
  ]);
  return toApplication(record, jobs.get(record.job), channel, 'single');
}

export const APPLICATION_FILTERS = [
  'email',
  'partner_application_id',
  'partner_job_id',
  'partner_company_id',
  'partner',
  'agency',
  'agency_job_id',
  'channel',
  'job',
  'sync_status',
  'applied_at',
  'created_at',
  'updated_at',
] as const;

export function applicationQuery(companyId: number, q: QueryParams): CollectionQuery {
  const conditions: Condition[] = [];
  const email = stringParam(q, 'email');
  const job = positiveIntParam(q, 'job');
  const partner = positiveIntParam(q, 'partner');
  const agency = positiveIntParam(q, 'agency');
  const syncStatus = enumParam(q, 'sync_status', SYNC_STATUSES);
  const appliedAt = dateParam(q, 'applied_at');
  const createdAt = dateParam(q, 'created_at');
  const updatedAt = dateParam(q, 'updated_at');
  for (const name of ['partner_application_id', 'partner_job_id', 'partner_company_id', 'agency_job_id', 'channel'] as const) {
    const value = stringParam(q, name);
    if (value !== undefined) conditions.push({ attr: name, op: 'eq', value });
  }
  if (partner !== undefined) conditions.push({ attr: 'partner', op: 'eq', value: partner });
  if (agency !== undefined) conditions.push({ attr: 'agency', op: 'eq', value: agency });
  if (syncStatus) conditions.push({ attr: 'sync_status', op: 'eq', value: syncStatus });
  if (appliedAt) conditions.push({ attr: 'applied_at', op: 'gte', value: appliedAt });
  if (updatedAt) conditions.push({ attr: 'updated_at', op: 'gte', value: updatedAt });
  // The most selective exact filter picks the index: e-mail, then job, else the company's collection.
  if (email !== undefined) {
    if (job !== undefined) conditions.push({ attr: 'job', op: 'eq', value: job });
    // D10: an anonymized application has no e-mail, so the filter must not find it before retention has run.
    const cutoff = new Date(now().getTime() - ANONYMIZATION_AGE_DAYS * 24 * 3600 * 1000).toISOString();
    const from = createdAt && createdAt > cutoff ? createdAt : cutoff;
    return { index: 'GSI2', partitionValue: indexKeys.applicationsByEmail(companyId, email), sortKeyFrom: from, conditions };
  }
  if (job !== undefined)
    return { index: 'GSI3', partitionValue: indexKeys.applicationsByJob(companyId, job), sortKeyFrom: createdAt, conditions };
  return {
    index: 'GSI1',
    partitionValue: indexKeys.companyApplications(companyId),
    sortKeyFrom: createdAt,
    conditions,
    total: () => readCount(collections.companyApplications(companyId)),
  };
}

export async function listApplications(
  companyId: number,
  q: QueryParams,
  link: LinkContext,
): Promise<PageEnvelope<Record<string, unknown>>> {
  const options = { scope: `applications:company:${companyId}`, filterParams: APPLICATION_FILTERS };
  const request = pageRequest(q, options);
  const page = await readPage(applicationQuery(companyId, q), request);
  const records = page.items.map(fromApplicationItem);
  const [jobs, channels] = await Promise.all([
    getJobs(
      companyId,
      records.map((r) => r.job),
    ),
    getChannels(records.map((r) => r.talent_channel).filter((id): id is number => id !== null)),
  ]);
  const next = page.position
    ? makeCursor(q, options, request.page + 1, request.pageSize, { position: page.position, count: page.count })
    : undefined;
  const results = records.map((r) =>
    toApplication(r, jobs.get(r.job), r.talent_channel ? channels.get(r.talent_channel) : undefined, 'list'),
  );
  return envelope(link, request, page.count, results, next);
}
