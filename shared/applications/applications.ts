/**
 * Applications: the request schema (source of validation, types and the OpenAPI document), the stored
 * record, the Application object with the D9 quirks and D10 anonymization, reads and the filtered list.
 * Creating one is `application-create.ts`, which only the create route loads.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { FromSchema } from 'json-schema-to-ts';
import { ATTACHMENT_TYPES, type StoredAttachment } from '#applications/attachments.js';
import { getChannel, getChannels, type TalentChannel } from '#applications/channels.js';
import { config, db } from '#platform/clients.js';
import { now } from '#platform/clock.js';
import { counterAdd, counterReader, readCount } from '#platform/counts.js';
import { NotFoundError } from '#platform/errors.js';
import { getJobs } from '#jobs/job-store.js';
import type { JobRecord } from '#jobs/job-schema.js';
import { collections, compactCreatedSort, indexKeys, keys, type Key } from '#platform/keys.js';
import {
  broadDateWalk,
  chooseSource,
  countByComplements,
  countPartition,
  readPage,
  type CollectionQuery,
  type Complement,
  type Condition,
  type SourceCandidate,
} from '#platform/paged-query.js';
import { keyAttributes, partitionKeyOf, type IndexName } from '#platform/table.js';
import { envelope, makeCursor, pageRequest, type LinkContext, type PageEnvelope } from '#platform/pagination.js';
import { dateParam, enumParam, positiveIntParam, stringParam, type QueryParams } from '#platform/query-params.js';
import { LIMITS, freeFormObject, safeKeyNames } from '#platform/schema-rules.js';

export const GENDERS = ['male', 'female', 'diverse', 'not_specified'] as const;
export const ANSWER_TYPES = ['text', 'textarea', 'boolean', 'number', 'date', 'single_select', 'multi_select', 'file'] as const;
export const SYNC_STATUSES = ['SUCCESS', 'SUCCESS_FALLBACK', 'EXPECTED_FAILURE', 'FAILURE', 'NOTSENT'] as const;
export const EMAIL_SYNC_STATUSES = ['SUCCESS', 'FAILURE', 'NOTSENT'] as const;
export const EXTERNAL_APPLY_STATUSES = ['NOTSENT', 'CONTACTED', 'REMINDED', 'ENGAGED'] as const;
export const APPLICATION_STATUSES = ['active', 'anonymized', 'deleted'] as const;
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
    name: { type: 'string', minLength: 1, maxLength: 255 },
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

/**
 * The layout of an application item's index attributes, stored on every item (`index_version`). There is one
 * layout; a future change to it ships with its own backfill (docs/decisions.md, P190).
 */
export const APPLICATION_INDEX_VERSION = 3;

/** Everything the item holds besides the record: every key attribute of the table, search copies, the layout. */
const INTERNAL_ATTRIBUTES = /* @__PURE__ */ internalAttributes();
function internalAttributes(): string[] {
  return [...keyAttributes(), 'email_lc', 'index_version'];
}

/**
 * Exact filters with a slot index of their own (docs/access-patterns.md): a page of one filter's matches
 * reads its keys and the page's items. `email` and `job` have GSI2 and GSI3.
 */
export const APPLICATION_FILTER_SLOTS = {
  sync_status: 'SLOT1',
  partner: 'SLOT2',
  agency: 'SLOT3',
  channel: 'SLOT4',
  partner_application_id: 'SLOT5',
  partner_job_id: 'SLOT6',
  partner_company_id: 'SLOT7',
  agency_job_id: 'SLOT8',
} as const satisfies Record<string, IndexName>;
type SlotFilter = keyof typeof APPLICATION_FILTER_SLOTS;

/**
 * Optional filters of few values whose slot also holds the records *without* a value (`absentSlot`), so that
 * the records a filter does not match (its complement) can be read as keys: every other value's partition
 * plus this one (P177). `sync_status` and `partner` are always set.
 */
export const ABSENT_SLOT_FILTERS = ['agency', 'channel', 'partner_company_id'] as const;
/** Filters whose complement is readable: their values are all enumerable from the company's counter item. */
const COMPLEMENT_FILTERS = ['sync_status', 'partner', ...ABSENT_SLOT_FILTERS] as const;

/** Filters whose per-value totals are attributes of the company's application counter (few values each). */
const TOTALS_FILTERS = ['sync_status', 'partner', 'agency'] as const;
/**
 * Client-chosen values with few of them per company in practice (a company's channels, the partner's ids for
 * it): their totals are folded into the company's counter item while it holds fewer than `FOLD_LIMIT` such
 * values, and kept on a counter item of their own beyond (P160). A value's total is the sum of both places.
 */
const FOLDED_FILTERS = ['channel', 'partner_company_id'] as const;
/** Filters whose per-value totals are counter items of their own (a company has thousands of jobs). */
const COUNTED_FILTERS = ['job', ...FOLDED_FILTERS] as const;
/**
 * A partner's or agency's id for a job (one per job and sender): its totals are folded into the counter item
 * of the job the application is for, while that item holds fewer than `FOLD_LIMIT` such values. The value's
 * own item (`valueCounterKey`) lists those jobs (`jobs`, written before the first total moves onto a job's
 * item) and counts what was not folded (`unfolded`): the total is `unfolded` plus the value's attribute on
 * each listed job's item (P181).
 */
const JOB_VALUE_FILTERS = ['partner_job_id', 'agency_job_id'] as const;
type JobValueFilter = (typeof JOB_VALUE_FILTERS)[number];
/** Values folded into one company counter item at most, and the longest attribute name folded (P160). */
export const FOLD_LIMIT = 16;
const FOLD_MAX_ATTRIBUTE = 96;
/** The company counter's attribute that counts the values folded into it. */
const FOLDED_COUNT = 'folded';
type CountedFilter = (typeof TOTALS_FILTERS)[number] | (typeof COUNTED_FILTERS)[number];

const filterValue = (r: ApplicationRecord, filter: SlotFilter | CountedFilter) => r[filter] as string | number | null | undefined;

/** The slot partition of one filter value in a company's applications. */
export function applicationSlot(companyId: number, filter: SlotFilter, value: string | number): string {
  return indexKeys.filterSlot(collections.companyApplications(companyId), filter, value);
}

/** The index attributes that follow `updated_at`: every write that moves it sets these too. */
export function updatedAtIndex(r: Pick<ApplicationRecord, 'id' | 'created_at'>, updatedAt: string): { D2SK: string } {
  return { D2SK: indexKeys.dateSort(updatedAt, r.created_at, r.id) };
}

/** The index attribute that follows `sync_status`, and its value for `status`. */
export function syncStatusIndex(r: Pick<ApplicationRecord, 'company'>, status: string): { attribute: string; value: string } {
  return { attribute: partitionKeyOf(APPLICATION_FILTER_SLOTS.sync_status), value: applicationSlot(r.company, 'sync_status', status) };
}

/** The counter item of one filter value with a counter of its own (for a job value: its jobs and what was not folded). */
function valueCounterKey(companyId: number, filter: (typeof COUNTED_FILTERS)[number] | JobValueFilter, value: string | number) {
  return keys.countOf(indexKeys.filterSlot(collections.companyApplications(companyId), filter, value));
}

/** The attribute of the company's application counter that totals one value of a few-valued (or folded) filter. */
const totalsAttribute = (filter: CountedFilter | JobValueFilter, value: string | number) => `${filter}#${value}`;

/** The counter item of one job's applications (`count`, and the job values folded into it, P181). */
export function jobCounterKey(companyId: number, jobId: number): Key {
  return valueCounterKey(companyId, 'job', jobId);
}

/** The company's application counter item, for `CounterFold`. */
export function applicationCounterKey(companyId: number): Key {
  return keys.countOf(collections.companyApplications(companyId));
}

/**
 * Where the folded filters' totals go (P160): a value already on the company's counter item stays there, a
 * new one joins it while fewer than `FOLD_LIMIT` values are folded, and otherwise gets its own counter item.
 * Built from the counter item as read (absent: nothing folded yet); `place` remembers what it folded, so one
 * fold can serve a batch. A concurrent writer may fold past the limit by a few: the limit bounds the item's
 * size, not the totals, which are exact wherever each increment went.
 */
export class CounterFold {
  private readonly present: Set<string>;
  private folded: number;
  /**
   * Job values newly folded into this (job's) counter item: their own items must list the job before the
   * totals move (`registerJobValues`), so that a reader that finds a value on a job's item also finds the job.
   */
  readonly registrations: Key[] = [];
  constructor(item?: Record<string, unknown>) {
    this.present = new Set(Object.keys(item ?? {}));
    this.folded = Number(item?.[FOLDED_COUNT] ?? 0);
  }
  /** Whether the attribute goes onto the company item; `fresh` when it is new there (the fold count moves). */
  place(attribute: string): { onCompany: boolean; fresh: boolean } {
    if (this.present.has(attribute)) return { onCompany: true, fresh: false };
    if (this.folded >= FOLD_LIMIT || attribute.length > FOLD_MAX_ATTRIBUTE) return { onCompany: false, fresh: false };
    this.present.add(attribute);
    this.folded++;
    return { onCompany: true, fresh: true };
  }
}

/** Whether the record carries a value of a folded filter (the create then reads the company counter first). */
export function hasFoldedValues(r: Pick<ApplicationRecord, (typeof FOLDED_FILTERS)[number]>): boolean {
  return FOLDED_FILTERS.some((filter) => r[filter] !== null && r[filter] !== undefined);
}

/** Whether the record carries a job value (the create then reads its job's counter item first, P181). */
export function hasJobValues(r: Pick<ApplicationRecord, JobValueFilter>): boolean {
  return JOB_VALUE_FILTERS.some((filter) => r[filter] !== null && r[filter] !== undefined);
}

/**
 * Lists the job on the own items of the values newly folded into its counter item (`CounterFold.registrations`).
 * Written before the transaction that moves the totals, outside it (1 WCU each instead of 2): should that
 * transaction fail, the list names a job whose item holds nothing of the value, which adds 0 to its total.
 */
export async function registerJobValues(jobId: number, fold: CounterFold | undefined): Promise<void> {
  await Promise.all(
    (fold?.registrations ?? []).map((key) =>
      db().send(
        new UpdateCommand({
          TableName: config().tableName,
          Key: key,
          UpdateExpression: 'ADD jobs :job',
          ExpressionAttributeValues: { ':job': new Set([jobId]) },
        }),
      ),
    ),
  );
}

/**
 * Every counter an application counts in, and the amount of each attribute: the company's application counter
 * (`count`, the few-valued filters' totals and the folded values) and one item per other counted value.
 * Without a fold every folded value goes to its own item (a total is the sum of both places); the same goes
 * for the job values and their job's counter item (`jobFold`, P181). `partner_application_id` has no counter:
 * its total is a keys count of its slot (one partner's id for one application, P160).
 */
export function counterTargets(
  r: ApplicationRecord,
  options: { fold?: CounterFold; jobFold?: CounterFold } = {},
): { key: Key; attributes: Map<string, number> }[] {
  const company = new Map<string, number>([['count', 1]]);
  for (const filter of TOTALS_FILTERS) {
    const value = filterValue(r, filter);
    if (value !== null && value !== undefined) company.set(totalsAttribute(filter, value), 1);
  }
  const own: { key: Key; attributes: Map<string, number> }[] = [];
  for (const filter of COUNTED_FILTERS) {
    const value = filterValue(r, filter);
    if (value === null || value === undefined) continue;
    const folding = (FOLDED_FILTERS as readonly string[]).includes(filter) && options.fold;
    const placed = folding ? options.fold!.place(totalsAttribute(filter, value)) : { onCompany: false, fresh: false };
    if (placed.onCompany) {
      company.set(totalsAttribute(filter, value), 1);
      if (placed.fresh) company.set(FOLDED_COUNT, (company.get(FOLDED_COUNT) ?? 0) + 1);
    } else {
      own.push({ key: valueCounterKey(r.company, filter, value), attributes: new Map([['count', 1]]) });
    }
  }
  // A job value goes onto its job's counter item while that holds fewer than FOLD_LIMIT of them, else onto
  // its own item's `unfolded`; without a fold always the latter (P181).
  for (const filter of JOB_VALUE_FILTERS) {
    const value = r[filter];
    if (value === null || value === undefined) continue;
    const attribute = totalsAttribute(filter, value);
    const placed = options.jobFold ? options.jobFold.place(attribute) : { onCompany: false, fresh: false };
    const jobItem = own.find((t) => t.key.PK === jobCounterKey(r.company, r.job).PK);
    if (placed.onCompany && jobItem) {
      jobItem.attributes.set(attribute, 1);
      if (placed.fresh) {
        jobItem.attributes.set(FOLDED_COUNT, (jobItem.attributes.get(FOLDED_COUNT) ?? 0) + 1);
        options.jobFold!.registrations.push(valueCounterKey(r.company, filter, value));
      }
    } else {
      own.push({ key: valueCounterKey(r.company, filter, value), attributes: new Map([['unfolded', 1]]) });
    }
  }
  return [...(company.size ? [{ key: applicationCounterKey(r.company), attributes: company }] : []), ...own];
}

/** Transaction items that add `delta` to every counter an application counts in (create: +1). */
export function counterUpdates(r: ApplicationRecord, delta: number, options: { fold?: CounterFold; jobFold?: CounterFold } = {}) {
  return counterTargets(r, options).map(({ key, attributes }) => ({
    Update: counterAdd(key, new Map([...attributes].map(([a, n]) => [a, a === FOLDED_COUNT ? n : n * delta]))),
  }));
}

/** The transaction item that moves one application's `sync_status` total from one status to another. */
export function syncStatusCounterMove(companyId: number, from: string, to: string) {
  const moves = new Map([
    [totalsAttribute('sync_status', from), -1],
    [totalsAttribute('sync_status', to), 1],
  ]);
  return { Update: counterAdd(keys.countOf(collections.companyApplications(companyId)), moves) };
}

export function fromApplicationItem(item: Record<string, unknown>): ApplicationRecord {
  const record = { ...item };
  for (const name of INTERNAL_ATTRIBUTES) delete record[name];
  return record as unknown as ApplicationRecord;
}

export function toApplicationItem(r: ApplicationRecord): Record<string, unknown> {
  const email = String(r.candidate?.email ?? '');
  const created = indexKeys.createdSort(r.created_at, r.id);
  const slots: Record<string, string> = {};
  for (const [filter, slot] of Object.entries(APPLICATION_FILTER_SLOTS) as [SlotFilter, IndexName][]) {
    const value = filterValue(r, filter);
    if (value !== null && value !== undefined) slots[partitionKeyOf(slot)] = applicationSlot(r.company, filter, value);
    else if ((ABSENT_SLOT_FILTERS as readonly string[]).includes(filter))
      slots[partitionKeyOf(slot)] = indexKeys.absentSlot(collections.companyApplications(r.company), filter);
  }
  return {
    ...keys.application(r.id),
    GSI1PK: indexKeys.companyApplications(r.company),
    GSI1SK: created,
    KSK: compactCreatedSort(created),
    GSI2PK: indexKeys.applicationsByEmail(r.company, email),
    GSI3PK: indexKeys.applicationsByJob(r.company, r.job),
    ...(r.personal_data_deleted_at ? {} : { GSI4PK: indexKeys.personalData(r.id), GSI4SK: created }),
    ...(r.sync_due_at ? { GSI5PK: indexKeys.syncDue(r.id), GSI5SK: indexKeys.createdSort(r.sync_due_at, r.id) } : {}),
    ...slots,
    D1SK: indexKeys.dateSort(r.applied_at, r.created_at, r.id),
    ...updatedAtIndex(r, r.updated_at),
    email_lc: email.toLowerCase(),
    index_version: APPLICATION_INDEX_VERSION,
    ...r,
  };
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

/** The application's sync status and event sequence (consistent read), for a writer that lost a race. */
export async function applicationSyncState(
  id: number,
): Promise<{ sync_status?: string; email_sync_status?: string; event_sequence: number }> {
  const out = await db().send(
    new GetCommand({
      TableName: config().tableName,
      Key: keys.application(id),
      ConsistentRead: true,
      ProjectionExpression: 'sync_status, email_sync_status, event_sequence',
    }),
  );
  return {
    sync_status: out.Item?.sync_status as string | undefined,
    email_sync_status: out.Item?.email_sync_status as string | undefined,
    event_sequence: Number(out.Item?.event_sequence ?? 0),
  };
}

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

/**
 * The read-time copies of list pages (D9: `job_title`, `job_external_id`, the channel's name and logo) from a
 * per-instance cache: walking a company's applications would otherwise read the same jobs on every page.
 * A job's title or external id changes on a list at most `READ_TIME_COPY_TTL_MS` later (docs/decisions.md);
 * single reads always read afresh.
 */
export const READ_TIME_COPY_TTL_MS = 60_000;
const READ_TIME_COPY_LIMIT = 20_000;

function copyCache<K, V>(load: (missing: K[]) => Promise<Map<K, V>>) {
  const cache = new Map<K, { value: V; until: number }>();
  return async (ids: K[]): Promise<Map<K, V>> => {
    const at = Date.now();
    const result = new Map<K, V>();
    const missing: K[] = [];
    for (const id of new Set(ids)) {
      const hit = cache.get(id);
      if (hit && hit.until > at) result.set(id, hit.value);
      else missing.push(id);
    }
    if (missing.length) {
      if (cache.size > READ_TIME_COPY_LIMIT) cache.clear();
      for (const [id, value] of await load(missing)) {
        cache.set(id, { value, until: at + READ_TIME_COPY_TTL_MS });
        result.set(id, value);
      }
    }
    return result;
  };
}

// Pure: only the list route reads copies; other bundles drop the caches and what they load (tree-shaking).
const jobCopies = /* @__PURE__ */ copyCache<string, JobRecord>(async (missing) => {
  const byCompany = new Map<number, number[]>();
  for (const key of missing) {
    const [company, id] = key.split(':').map(Number);
    byCompany.set(company, [...(byCompany.get(company) ?? []), id]);
  }
  const out = new Map<string, JobRecord>();
  for (const [company, ids] of byCompany) for (const [id, job] of await getJobs(company, ids)) out.set(`${company}:${id}`, job);
  return out;
});
const channelCopies = /* @__PURE__ */ copyCache<number, TalentChannel>(getChannels);

const readTimeCopies = {
  async jobs(companyId: number, ids: number[]): Promise<Map<number, JobRecord>> {
    const found = await jobCopies(ids.map((id) => `${companyId}:${id}`));
    return new Map([...found].map(([key, job]) => [Number(key.split(':')[1]), job]));
  },
  channels: channelCopies,
};

/**
 * Plans a list of applications: the most selective exact filter's partition is walked (its size from a
 * counter), the other filters apply to its items; without an exact filter a date filter reads its range,
 * and otherwise the company's collection is paged. `cursorIndex` keeps a walk on the source it started on.
 */
export async function applicationQuery(
  companyId: number,
  q: QueryParams,
  walk: { cursorIndex?: unknown; skipping?: boolean } = {},
): Promise<CollectionQuery> {
  const { cursorIndex, skipping } = walk;
  const email = stringParam(q, 'email');
  const job = positiveIntParam(q, 'job');
  const syncStatus = enumParam(q, 'sync_status', SYNC_STATUSES);
  const appliedAt = dateParam(q, 'applied_at');
  const createdAt = dateParam(q, 'created_at');
  const updatedAt = dateParam(q, 'updated_at');
  const exact = new Map<SlotFilter, string | number>();
  for (const name of ['partner_application_id', 'partner_job_id', 'partner_company_id', 'agency_job_id', 'channel'] as const) {
    const value = stringParam(q, name);
    if (value !== undefined) exact.set(name, value);
  }
  for (const name of ['partner', 'agency'] as const) {
    const value = positiveIntParam(q, name);
    if (value !== undefined) exact.set(name, value);
  }
  if (syncStatus) exact.set('sync_status', syncStatus);

  const conditions: Condition[] = [...exact].map(([attr, value]) => ({ attr, op: 'eq' as const, value }));
  if (job !== undefined) conditions.push({ attr: 'job', op: 'eq', value: job });
  if (appliedAt) conditions.push({ attr: 'applied_at', op: 'gte', value: appliedAt });
  if (updatedAt) conditions.push({ attr: 'updated_at', op: 'gte', value: updatedAt });
  // D10: an anonymized application has no e-mail, so the filter must not find it before retention has run.
  const cutoff = new Date(now().getTime() - ANONYMIZATION_AGE_DAYS * 24 * 3600 * 1000).toISOString();
  if (email !== undefined) {
    conditions.push({ attr: 'email_lc', op: 'eq', value: email.toLowerCase() });
    conditions.push({ attr: 'created_at', op: 'gte', value: createdAt && createdAt > cutoff ? createdAt : cutoff });
  }
  const collection = collections.companyApplications(companyId);
  const others = (answered: string) => conditions.filter((c) => c.attr !== answered);

  const counted = counterReader([
    applicationCounterKey(companyId),
    ...[...COUNTED_FILTERS, ...JOB_VALUE_FILTERS].flatMap((f) => {
      const value = f === 'job' ? job : exact.get(f);
      return value === undefined ? [] : [valueCounterKey(companyId, f, value)];
    }),
  ]);
  const candidates: SourceCandidate[] = [];
  for (const [filter, value] of exact) {
    const query: CollectionQuery = {
      index: APPLICATION_FILTER_SLOTS[filter],
      partitionValue: applicationSlot(companyId, filter, value),
      sortKeyFrom: createdAt,
      conditions: others(filter),
    };
    if ((TOTALS_FILTERS as readonly string[]).includes(filter)) {
      candidates.push({ query, size: () => counted(applicationCounterKey(companyId), totalsAttribute(filter as CountedFilter, value)) });
    } else if ((FOLDED_FILTERS as readonly string[]).includes(filter)) {
      // Folded or on its own item (P160): the total is the sum of both places.
      const own = valueCounterKey(companyId, filter as (typeof FOLDED_FILTERS)[number], value);
      const size = async () =>
        (await counted(applicationCounterKey(companyId), totalsAttribute(filter as CountedFilter, value))) + (await counted(own));
      candidates.push({ query, size });
    } else if ((JOB_VALUE_FILTERS as readonly string[]).includes(filter)) {
      candidates.push({ query, size: () => jobValueTotal(companyId, filter as JobValueFilter, value, counted) });
    } else {
      // No counter (P160): the slot's keys are counted, only as far as the smallest counted filter needs.
      const whole = { ...query, sortKeyFrom: undefined, conditions: [] };
      candidates.push({ query, size: () => countPartition(whole), countUpTo: (limit) => countPartition(whole, limit) });
    }
  }
  if (job !== undefined) {
    const query: CollectionQuery = {
      index: 'GSI3',
      partitionValue: indexKeys.applicationsByJob(companyId, job),
      sortKeyFrom: createdAt,
      conditions: others('job'),
    };
    candidates.push({ query, size: () => counted(valueCounterKey(companyId, 'job', job)) });
  }
  if (email !== undefined) {
    // The e-mail range starts at the D10 cutoff; its partition is counted as keys (a candidate has a handful
    // of applications, fewer than a counter per address would be worth).
    const from = createdAt && createdAt > cutoff ? createdAt : cutoff;
    const query: CollectionQuery = {
      index: 'GSI2',
      partitionValue: indexKeys.applicationsByEmail(companyId, email),
      sortKeyFrom: from,
      conditions: others('email_lc').filter((c) => c.attr !== 'created_at'),
    };
    // Its size is the whole partition's (a candidate's size is its partition's total, P162).
    candidates.push({ query, size: () => countPartition({ ...query, sortKeyFrom: undefined, conditions: [] }) });
  }
  // Several exact filters of few values, each matching most records: counted from their complements (P177).
  if (cursorIndex === undefined && !skipping && !createdAt && exact.size >= 2 && conditions.length === exact.size) {
    const broad = await complementQuery(companyId, exact, candidates, counted);
    if (broad) return broad;
  }
  const chosen = await chooseSource(
    candidates,
    cursorIndex,
    createdAt || skipping
      ? undefined
      : { query: { index: 'GSI1', partitionValue: collection, conditions }, total: () => readCount(collection) },
  );
  if (chosen) return chosen;
  const dated = others('');
  if (appliedAt || updatedAt) {
    const index = appliedAt ? 'DATE1' : 'DATE2';
    const answered = appliedAt ? 'applied_at' : 'updated_at';
    const rest = dated.filter((c) => c.attr !== answered);
    if (createdAt) rest.push({ attr: 'created_at', op: 'gte', value: createdAt });
    const range: CollectionQuery = { index, partitionValue: collection, sortKeyFrom: appliedAt ?? updatedAt, conditions: rest };
    const walk: CollectionQuery = { index: 'GSI1', partitionValue: collection, sortKeyFrom: createdAt, conditions: dated };
    return (await broadDateWalk(range, walk, () => readCount(collection), { cursorIndex, skipping })) ?? range;
  }
  return { index: 'GSI1', partitionValue: collection, sortKeyFrom: createdAt, conditions: dated, total: () => readCount(collection) };
}

/**
 * A job value's total (P181): its own item's `unfolded` plus the value's attribute on the counter item of each
 * job it lists. Every application with the value has its own item (the create writes `jobs` or `unfolded`
 * there), so a value without one has no applications.
 */
async function jobValueTotal(
  companyId: number,
  filter: JobValueFilter,
  value: string | number,
  counted: ReturnType<typeof counterReader>,
): Promise<number> {
  const own = await counted.item(valueCounterKey(companyId, filter, value));
  if (!own) return 0;
  const jobs = [...((own.jobs as Set<number> | undefined) ?? [])].map((jobId) => jobCounterKey(companyId, Number(jobId)));
  const onJobs = counterReader(jobs);
  const folded = await Promise.all(jobs.map((key) => onJobs(key, totalsAttribute(filter, value))));
  return folded.reduce((sum, n) => sum + n, Number(own.unfolded ?? 0));
}

/**
 * A first page of several exact filters that each match most of a company (P177): the count is the company's
 * total minus the records outside any of them, read as the keys of every other value's slot partition and
 * of the filter's absent slot; the values come from the company's counter item. Used when those keys are
 * fewer than the smallest filter's matches (which the other path reads at least); the page then walks the
 * smallest filter's slot, its other conditions checked on the items. Undefined: count the usual way (a
 * filter without an enumerable complement, complements larger than the matches, or keys that do not add up).
 */
async function complementQuery(
  companyId: number,
  exact: Map<SlotFilter, string | number>,
  candidates: SourceCandidate[],
  counted: ReturnType<typeof counterReader>,
): Promise<CollectionQuery | undefined> {
  const filters = [...exact];
  if (!filters.every(([filter]) => (COMPLEMENT_FILTERS as readonly string[]).includes(filter))) return undefined;
  // Candidates were made in the order of `exact`, one each (no other condition).
  const sizes = await Promise.all(candidates.map((c) => c.size()));
  const counter = (await counted.item(applicationCounterKey(companyId))) ?? {};
  const total = Number(counter.count ?? 0);
  const smallest = sizes.indexOf(Math.min(...sizes));
  const outside = sizes.reduce((sum, size) => sum + Math.max(0, total - size), 0);
  if (outside >= sizes[smallest]) return undefined;
  const collection = collections.companyApplications(companyId);
  const complements: Complement[] = filters.map(([filter, value], i) => {
    const index = APPLICATION_FILTER_SLOTS[filter];
    const partitions: CollectionQuery[] = [];
    let valued = 0;
    for (const [attribute, amount] of Object.entries(counter)) {
      if (!attribute.startsWith(`${filter}#`) || typeof amount !== 'number') continue;
      valued += amount;
      const other = attribute.slice(filter.length + 1);
      if (other !== String(value) && amount > 0)
        partitions.push({ index, partitionValue: applicationSlot(companyId, filter, other), conditions: [] });
    }
    if ((ABSENT_SLOT_FILTERS as readonly string[]).includes(filter) && total > valued)
      partitions.push({ index, partitionValue: indexKeys.absentSlot(collection, filter), conditions: [] });
    return { partitions, size: Math.max(0, total - sizes[i]) };
  });
  const matches = await countByComplements(total, complements);
  if (matches === undefined) return undefined;
  const walked = candidates[smallest];
  return {
    ...walked.query,
    total: () => Promise.resolve(sizes[smallest]),
    matches: () => Promise.resolve(matches),
    readAhead: Math.min(4, sizes[smallest] / Math.max(matches, 1)),
  };
}

export async function listApplications(
  companyId: number,
  q: QueryParams,
  link: LinkContext,
): Promise<PageEnvelope<Record<string, unknown>>> {
  const options = { scope: `applications:company:${companyId}`, filterParams: APPLICATION_FILTERS };
  const request = pageRequest(q, options);
  const page = await readPage(
    await applicationQuery(companyId, q, { cursorIndex: request.cursor?.position.index, skipping: request.page > 1 && !request.cursor }),
    request,
  );
  const records = page.items.map(fromApplicationItem);
  const [jobs, channels] = await Promise.all([
    readTimeCopies.jobs(
      companyId,
      records.map((r) => r.job),
    ),
    readTimeCopies.channels(records.map((r) => r.talent_channel).filter((id): id is number => id !== null)),
  ]);
  const next = page.position
    ? makeCursor(q, options, request.page + 1, request.pageSize, { position: page.position, count: page.count })
    : undefined;
  const results = records.map((r) =>
    toApplication(r, jobs.get(r.job), r.talent_channel ? channels.get(r.talent_channel) : undefined, 'list'),
  );
  return envelope(link, request, page.count, results, next);
}
