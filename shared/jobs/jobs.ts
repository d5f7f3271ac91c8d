/**
 * Jobs: the stored record, the Job object (with the D11 quirks), reads, the filtered list, and the
 * import run of D14 that creates, updates and archives a company's jobs from an ATS feed.
 */
import { createHash, randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetByKey, batchPut, queryAll } from '#platform/batch.js';
import type { FromSchema } from 'json-schema-to-ts';
import { config, db } from '#platform/clients.js';
import { isoNow } from '#platform/clock.js';
import { getCompanyRecord, setCompanyFields } from '#companies/companies.js';
import { NO_APPLY_LINKS, type ApplyLinks } from '#jobs/apply-links.js';
import { NotFoundError, ValidationError, fieldErrors } from '#platform/errors.js';
import { nextId } from '#platform/ids.js';
import { collections, compactCreatedSort, indexKeys, keys } from '#platform/keys.js';
import { readPage, type CollectionQuery, type Condition } from '#platform/paged-query.js';
import { broadDateWalk, chooseSource, countPartition, type SourceCandidate } from '#platform/paged-sources.js';
import { keyAttributes, partitionKeyOf, type IndexName } from '#platform/table.js';
import { envelope, makeCursor, pageRequest, type LinkContext, type PageEnvelope } from '#platform/pagination.js';
import { dateParam, enumParam, stringParam, type QueryParams } from '#platform/query-params.js';
import { counterReader, readCount } from '#platform/counts.js';
import { newEvent, outboxPut, type ServiceEvent } from '#platform/events.js';
import { lazyValidator, toFieldErrors } from '#platform/field-errors.js';
import { loadJobInputValidator } from '#generated/jobs-validators.js';
import { freeFormArray, freeFormObject, rawValuesObject, storableNumber } from '#platform/schema-rules.js';
import { itemBytes } from '#platform/item-size.js';

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
    language: str,
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
    country: str,
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

/** The layout of a job item's index attributes, stored on every item (`index_version`); there is one (P190). */
const JOB_INDEX_VERSION = 2;

/** Everything the item holds besides the record: every key attribute of the table, search copies, the layout. */
const INTERNAL_ATTRIBUTES = /* @__PURE__ */ internalAttributes();
function internalAttributes(): string[] {
  return [...keyAttributes(), 'title_lc', 'city_lc', 'index_version'];
}

/** Exact filters with a slot index of their own (docs/access-patterns.md); `external_id` has GSI2. */
export const JOB_FILTER_SLOTS = { status: 'SLOT1', remote: 'SLOT2', language: 'SLOT3', country: 'SLOT4' } as const satisfies Record<
  string,
  IndexName
>;
type JobSlotFilter = keyof typeof JOB_FILTER_SLOTS;
/** Slot filters whose per-value totals sit on the company's job counter item (enumerations). */
const JOB_TOTALS_FILTERS = ['status', 'remote'] as const;

const jobSlot = (companyId: number, filter: JobSlotFilter, value: string) =>
  indexKeys.filterSlot(collections.companyJobs(companyId), filter, value);
const jobValueCounterKey = (companyId: number, filter: JobSlotFilter, value: string) => keys.countOf(jobSlot(companyId, filter, value));

function fromItem(item: Record<string, unknown>): JobRecord {
  const record = { ...item };
  for (const name of INTERNAL_ATTRIBUTES) delete record[name];
  return record as unknown as JobRecord;
}

function toItem(r: JobRecord): Record<string, unknown> {
  const created = indexKeys.createdSort(r.created_at, r.id);
  const slots: Record<string, string> = {};
  for (const [filter, slot] of Object.entries(JOB_FILTER_SLOTS) as [JobSlotFilter, IndexName][]) {
    const value = r[filter];
    if (typeof value === 'string' && value) slots[partitionKeyOf(slot)] = jobSlot(r.company, filter, value);
  }
  return {
    ...keys.job(r.company, r.id),
    GSI1PK: indexKeys.companyJobs(r.company),
    SPK: indexKeys.companyJobs(r.company),
    GSI1SK: created,
    KSK: compactCreatedSort(created),
    GSI2PK: indexKeys.jobByExternalId(r.company, String(r.external_id)),
    ...slots,
    D1SK: indexKeys.dateSort(r.last_content_update_at, r.created_at, r.id),
    D2SK: indexKeys.dateSort(r.updated_at, r.created_at, r.id),
    index_version: JOB_INDEX_VERSION,
    // Lower-case copies serve the case-insensitive "contains" filters.
    title_lc: typeof r.title === 'string' ? r.title.toLowerCase() : undefined,
    city_lc: typeof r.city === 'string' ? r.city.toLowerCase() : undefined,
    ...r,
  };
}

/** One job of a company; another company's job is not found (the key includes the company). */
export async function getJob(companyId: number, id: number): Promise<JobRecord> {
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.job(companyId, id) }));
  if (!out.Item) throw new NotFoundError();
  return fromItem(out.Item);
}

/** One job as the interface shows it: its `run_id` resolved (P192), its `apply_webhooks` from `links` (P197). */
export async function getJobView(
  companyId: number,
  id: number,
  links: Promise<ApplyLinks> = Promise.resolve(NO_APPLY_LINKS),
): Promise<Record<string, unknown>> {
  links.catch(() => undefined);
  const [job] = await resolveRunIds(companyId, [await getJob(companyId, id)]);
  return toJob(job, false, (await links).forJob(job.id));
}

/** The company's last complete import run (P192), from the jobs counter item; undefined before the first. */
async function lastCompleteRun(companyId: number): Promise<string | undefined> {
  const out = await db().send(
    new GetCommand({
      TableName: config().tableName,
      Key: keys.countOf(collections.companyJobs(companyId)),
      ProjectionExpression: 'run_id',
    }),
  );
  return typeof out.Item?.run_id === 'string' ? out.Item.run_id : undefined;
}

/**
 * Gives each job its `run_id` as the interface defines it, the run it last arrived on (P192): a job not
 * `run_frozen` arrived on the company's last complete run, which is not written onto the unchanged jobs.
 */
export async function resolveRunIds(
  companyId: number,
  jobs: JobRecord[],
  lastRun: Promise<string | undefined> = lastCompleteRun(companyId),
): Promise<JobRecord[]> {
  const last = await lastRun;
  return last ? jobs.map((job) => (job.run_frozen ? job : { ...job, run_id: last })) : jobs;
}

/** A company's job by its ATS id, or undefined. */
export async function findJobByExternalId(companyId: number, externalId: string): Promise<JobRecord | undefined> {
  const out = await db().send(
    new QueryCommand({
      TableName: config().tableName,
      IndexName: 'GSI2',
      KeyConditionExpression: 'GSI2PK = :pk',
      ExpressionAttributeValues: { ':pk': indexKeys.jobByExternalId(companyId, externalId) },
      Limit: 1,
    }),
  );
  // GSI2 holds keys only (P195): the job itself is read by its key.
  const key = out.Items?.[0];
  if (!key) return undefined;
  const item = await db().send(new GetCommand({ TableName: config().tableName, Key: { PK: key.PK, SK: key.SK } }));
  return item.Item ? fromItem(item.Item) : undefined;
}

// ---------------------------------------------------------------------------------------------------
// List

export const JOB_FILTERS = [
  'external_id',
  'title',
  'status',
  'remote',
  'language',
  'city',
  'country',
  'created_at',
  'updated_at',
  'last_content_update_at',
] as const;

/** Below this many matches an exact filter's slot serves a contains filter too; above it the slim scan does. */
const SLOT_BEFORE_SCAN = 100;

/**
 * Plans a list of jobs: the most selective exact filter's slot (sizes from the counters), the slim
 * projection when a contains filter would otherwise read many whole jobs, a date range, or the company's
 * collection. `cursorIndex` keeps a walk on the index it started on.
 */
export async function jobQuery(
  companyId: number,
  q: QueryParams,
  walk: { cursorIndex?: unknown; skipping?: boolean } = {},
): Promise<CollectionQuery> {
  const { cursorIndex, skipping } = walk;
  const exact = new Map<JobSlotFilter, string>();
  const status = enumParam(q, 'status', JOB_STATUSES);
  const remote = enumParam(q, 'remote', REMOTE_VALUES);
  if (status) exact.set('status', status);
  if (remote) exact.set('remote', remote);
  for (const name of ['language', 'country'] as const) {
    const value = stringParam(q, name);
    if (value !== undefined) exact.set(name, value);
  }
  const title = stringParam(q, 'title');
  const city = stringParam(q, 'city');
  const createdAt = dateParam(q, 'created_at');
  const updatedAt = dateParam(q, 'updated_at');
  const contentAt = dateParam(q, 'last_content_update_at');
  const externalId = stringParam(q, 'external_id');
  const collection = collections.companyJobs(companyId);

  const conditions: Condition[] = [...exact].map(([attr, value]) => ({ attr, op: 'eq' as const, value }));
  if (title) conditions.push({ attr: 'title_lc', op: 'contains', value: title.toLowerCase() });
  if (city) conditions.push({ attr: 'city_lc', op: 'contains', value: city.toLowerCase() });
  if (updatedAt) conditions.push({ attr: 'updated_at', op: 'gte', value: updatedAt });
  if (contentAt) conditions.push({ attr: 'last_content_update_at', op: 'gte', value: contentAt });
  if (externalId !== undefined) conditions.push({ attr: 'external_id', op: 'eq', value: externalId });
  const others = (answered: string) => conditions.filter((c) => c.attr !== answered);

  const counted = counterReader([
    keys.countOf(collection),
    ...[...exact]
      .filter(([f]) => !(JOB_TOTALS_FILTERS as readonly string[]).includes(f))
      .map(([f, v]) => jobValueCounterKey(companyId, f, v)),
  ]);
  const candidates: SourceCandidate[] = [...exact].map(([filter, value]) => ({
    query: {
      index: JOB_FILTER_SLOTS[filter],
      partitionValue: jobSlot(companyId, filter, value),
      sortKeyFrom: createdAt,
      conditions: others(filter),
    },
    size: (JOB_TOTALS_FILTERS as readonly string[]).includes(filter)
      ? () => counted(keys.countOf(collection), `${filter}#${value}`)
      : () => counted(jobValueCounterKey(companyId, filter, value)),
  }));
  if (externalId !== undefined) {
    const query: CollectionQuery = {
      index: 'GSI2',
      partitionValue: indexKeys.jobByExternalId(companyId, externalId),
      sortKeyFrom: createdAt,
      conditions: others('external_id'),
    };
    candidates.push({ query, size: () => countPartition({ ...query, sortKeyFrom: undefined, conditions: [] }) });
  }
  const slim: CollectionQuery = { index: 'SLIM', partitionValue: collection, sortKeyFrom: createdAt, conditions };
  if (title || city) {
    // A contains filter reads the slim projection, unless an exact filter (or the cursor's walk) narrows
    // the jobs to a few whose whole items are cheaper.
    if (cursorIndex === 'SLIM' || !candidates.length) return slim;
    const chosen = await chooseSource(candidates, cursorIndex);
    const size = chosen?.total ? await chosen.total() : Infinity;
    return chosen && (size <= SLOT_BEFORE_SCAN || cursorIndex === chosen.index) ? chosen : slim;
  }
  const everything: CollectionQuery = { index: 'GSI1', partitionValue: collection, sortKeyFrom: createdAt, conditions };
  const chosen = await chooseSource(
    candidates,
    cursorIndex,
    createdAt || skipping ? undefined : { query: everything, total: () => readCount(collection) },
  );
  if (chosen) return chosen;
  if (updatedAt || contentAt) {
    const answered = contentAt ? 'last_content_update_at' : 'updated_at';
    const rest = others(answered);
    if (createdAt) rest.push({ attr: 'created_at', op: 'gte', value: createdAt });
    const range: CollectionQuery = {
      index: contentAt ? 'DATE1' : 'DATE2',
      partitionValue: collection,
      sortKeyFrom: contentAt ?? updatedAt,
      conditions: rest,
    };
    return (await broadDateWalk(range, everything, () => readCount(collection), { cursorIndex, skipping })) ?? range;
  }
  return { ...everything, total: () => readCount(collection) };
}

/** A page of the company's jobs; `links` (read beside the page) gives each its `apply_webhooks` (P197). */
export async function listJobs(
  companyId: number,
  q: QueryParams,
  link: LinkContext,
  links: Promise<ApplyLinks> = Promise.resolve(NO_APPLY_LINKS),
): Promise<PageEnvelope<Record<string, unknown>>> {
  links.catch(() => undefined);
  const options = { scope: `jobs:company:${companyId}`, limitAlias: true, filterParams: JOB_FILTERS };
  const request = pageRequest(q, options);
  // Read beside the page, not after it: no sequential call more (P192).
  const lastRun = lastCompleteRun(companyId);
  lastRun.catch(() => undefined);
  const page = await readPage(
    await jobQuery(companyId, q, { cursorIndex: request.cursor?.position.index, skipping: request.page > 1 && !request.cursor }),
    request,
  );
  const next = page.position
    ? makeCursor(q, options, request.page + 1, request.pageSize, { position: page.position, count: page.count })
    : undefined;
  const jobs = await resolveRunIds(companyId, page.items.map(fromItem), lastRun);
  const apply = await links;
  return envelope(
    link,
    request,
    page.count,
    jobs.map((job) => toJob(job, true, apply.forJob(job.id))),
    next,
  );
}

// ---------------------------------------------------------------------------------------------------
// Import (D14)

// Pure: a bundle whose route never validates this leaves the generated validator out (tree-shaking).
const validateJobInput = /* @__PURE__ */ lazyValidator(loadJobInputValidator);

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
export function parseJobFeed(feed: unknown): JobInput[] {
  if (!Array.isArray(feed)) throw new ValidationError({ body: ['Must be a JSON array of jobs.'] });
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

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

function contentOf(input: JobInput): Record<ContentField, unknown> {
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

export interface ImportResult {
  run_id: string;
  created: number;
  updated: number;
  unchanged: number;
  archived: number;
}

/** Every job of a company. */
async function companyJobs(companyId: number): Promise<JobRecord[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :job)',
    ExpressionAttributeValues: { ':pk': keys.company(companyId).PK, ':job': 'JOB#' },
  });
  return items.map(fromItem);
}

/**
 * The per-value totals of a company's jobs, set to what the run leaves behind. The import is the only
 * writer of jobs and knows every job of the company before and after, so it writes exact totals (values
 * that disappeared become 0) rather than deltas: no drift can accumulate (docs/decisions.md, P104).
 */
async function writeJobTotals(companyId: number, before: JobRecord[], after: JobRecord[], completeRun?: string): Promise<void> {
  const collection = collections.companyJobs(companyId);
  const totals = new Map<string, number>();
  for (const filter of JOB_TOTALS_FILTERS)
    for (const value of filter === 'status' ? JOB_STATUSES : REMOTE_VALUES) totals.set(`${filter}#${value}`, 0);
  const valueCounts = new Map<string, { filter: JobSlotFilter; value: string; count: number }>();
  for (const [jobs, weight] of [
    [before, 0],
    [after, 1],
  ] as const)
    for (const job of jobs) {
      for (const filter of JOB_TOTALS_FILTERS) {
        const value = job[filter];
        if (typeof value === 'string' && weight) totals.set(`${filter}#${value}`, (totals.get(`${filter}#${value}`) ?? 0) + 1);
      }
      for (const filter of ['language', 'country'] as const) {
        const value = job[filter];
        if (typeof value !== 'string' || !value) continue;
        const entry = valueCounts.get(`${filter}=${value}`) ?? { filter, value, count: 0 };
        entry.count += weight;
        valueCounts.set(`${filter}=${value}`, entry);
      }
    }
  const names = [...totals.keys()];
  // The collection's counter and the per-value ones are separate items, written side by side.
  const values = [...valueCounts.values()].map(({ filter, value, count }) => ({ ...jobValueCounterKey(companyId, filter, value), count }));
  await Promise.all([
    db().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: keys.countOf(collection),
        // A complete run is also the run its unchanged jobs arrived on (P192).
        UpdateExpression: `SET ${names.map((_, i) => `#t${i} = :t${i}`).join(', ')}${completeRun ? ', run_id = :run' : ''}`,
        ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#t${i}`, name])),
        ExpressionAttributeValues: {
          ...Object.fromEntries(names.map((name, i) => [`:t${i}`, totals.get(name)])),
          ...(completeRun ? { ':run': completeRun } : {}),
        },
      }),
    ),
    batchPut(values),
  ]);
}

/** One action of a TransactWriteItems. */
type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

/**
 * DynamoDB's limits on one TransactWriteItems: 100 actions, and 4 MB (4,194,304 bytes) for the aggregate
 * size of its items ("Transaction payload size cannot exceed 4MB"; an item itself is at most 400 KB, 409,600
 * bytes). An import run fills its transactions up to 100 actions and `TRANSACTION_BUDGET_BYTES` by
 * `actionBytes` (P185): 3.5 MiB, an eighth below the limit. Against DynamoDB Local the estimate is its count
 * to the byte for puts (items and condition expressions) and a few bytes above it for updates; the margin is
 * for AWS, whose documentation calls its sizes approximate. At most 400 KB an item, a transaction under the
 * budget still takes 8 jobs of the largest size.
 */
export const TRANSACTION_MAX_ACTIONS = 100;
export const TRANSACTION_BUDGET_BYTES = 3.5 * 1024 * 1024;

/** What one action adds to a transaction's size: a put its item; any other its key, expressions and values. */
export function actionBytes(action: TransactItem): number {
  const { Put, Update, Delete, ConditionCheck } = action;
  if (Put) return itemBytes(Put.Item ?? {}) + Buffer.byteLength(Put.ConditionExpression ?? '');
  const other = Update ?? Delete ?? ConditionCheck;
  if (!other) return 0;
  const expressions = [Update?.UpdateExpression, other.ConditionExpression, ...Object.entries(other.ExpressionAttributeNames ?? {}).flat()];
  return (
    itemBytes(other.Key ?? {}) +
    expressions.reduce<number>((sum, text) => sum + Buffer.byteLength(text ?? ''), 0) +
    itemBytes(other.ExpressionAttributeValues ?? {})
  );
}

/**
 * Groups `items` in order into transactions within DynamoDB's limits: each item's actions (`actionsOf`,
 * which must commit together) stay in one transaction, and `reserve` is what every transaction holds
 * besides, at its largest (the import's counter update as if for 100 jobs). The actions of an item are made
 * only when the item comes up, so a caller that writes each group before taking the next makes them just
 * before its write.
 * An item whose actions alone exceed the budget goes alone (DynamoDB then refuses what is over its limits).
 */
export function* transactionChunks<T>(
  items: Iterable<T>,
  actionsOf: (item: T) => TransactItem[],
  reserve: TransactItem[] = [],
): Generator<{ items: T[]; actions: TransactItem[] }> {
  const reserveActions = reserve.length;
  const reserveBytes = reserve.reduce((sum, action) => sum + actionBytes(action), 0);
  let chunk: { items: T[]; actions: TransactItem[] } = { items: [], actions: [] };
  let bytes = reserveBytes;
  for (const item of items) {
    const actions = actionsOf(item);
    const size = actions.reduce((sum, action) => sum + actionBytes(action), 0);
    const fits =
      reserveActions + chunk.actions.length + actions.length <= TRANSACTION_MAX_ACTIONS && bytes + size <= TRANSACTION_BUDGET_BYTES;
    if (chunk.items.length && !fits) {
      yield chunk;
      chunk = { items: [], actions: [] };
      bytes = reserveBytes;
    }
    chunk.items.push(item);
    chunk.actions.push(...actions);
    bytes += size;
  }
  if (chunk.items.length) yield chunk;
}

/**
 * One import run: new jobs are created, changed ones updated (content, fingerprint and
 * last_content_update_at move only when the fingerprint changes), every job in the feed gets the run's
 * id, and, when the feed is complete, jobs missing from it are archived.
 */
export async function importJobs(
  companyId: number,
  feed: unknown,
  options: {
    complete?: boolean;
    source?: string;
    /** Called as the run's writes proceed: jobs written so far of those to write (the admin tool's progress bar). */
    onProgress?: (done: number, total: number) => void;
  } = {},
): Promise<ImportResult> {
  const inputs = parseJobFeed(feed);
  const [company, before, lastRun] = await Promise.all([getCompanyRecord(companyId), companyJobs(companyId), lastCompleteRun(companyId)]);
  if (!company) throw new NotFoundError(`Company ${companyId} does not exist.`);
  const runId = randomUUID();
  const complete = options.complete !== false;
  // P192: a job that arrives unchanged on a complete run is not written: its run is the run the counter item
  // names. A job that does not arrive on one (or arrives on a partial run) keeps a run of its own, `run_frozen`.
  const arrived = (job: JobRecord): JobRecord => {
    const { run_frozen: _wasFrozen, ...rest } = job;
    return complete ? { ...rest, run_id: runId } : { ...rest, run_id: runId, run_frozen: true };
  };
  const frozen = (job: JobRecord): JobRecord => ({
    ...job,
    run_id: job.run_frozen ? job.run_id : (lastRun ?? job.run_id),
    run_frozen: true,
  });
  const now = isoNow();
  const existing = new Map(before.map((job) => [String(job.external_id), job]));
  const creates: JobRecord[] = [];
  const updates: JobRecord[] = [];
  const result: ImportResult = { run_id: runId, created: 0, updated: 0, unchanged: 0, archived: 0 };

  for (const input of inputs) {
    const content = contentOf(input);
    const fingerprint = fingerprintOf(content);
    const status = input.status ?? 'active';
    const source = input.import_source ?? options.source ?? 'api';
    const previous = existing.get(input.external_id);
    existing.delete(input.external_id);
    if (!previous) {
      const id = await nextId('job');
      creates.push({
        ...content,
        id,
        company: companyId,
        status,
        raw_values: input.raw_values ?? {},
        import_source: source,
        run_id: runId,
        ...(complete ? {} : { run_frozen: true }),
        fingerprint,
        created_at: now,
        updated_at: now,
        last_content_update_at: now,
      });
      continue;
    }
    const contentChanged = previous.fingerprint !== fingerprint;
    const changed =
      contentChanged ||
      previous.status !== status ||
      canonicalJson(previous.raw_values) !== canonicalJson(input.raw_values ?? {}) ||
      previous.import_source !== source;
    if (changed)
      updates.push(
        arrived({
          ...previous,
          ...(contentChanged ? content : {}),
          status,
          raw_values: input.raw_values ?? {},
          import_source: source,
          fingerprint,
          updated_at: now,
          last_content_update_at: contentChanged ? now : previous.last_content_update_at,
        }),
      );
    // Unchanged: written only to take it out of `run_frozen` (or, on a partial run, to record the run on it).
    else if (previous.run_frozen || !complete) updates.push(arrived(previous));
    if (changed) result.updated += 1;
    else result.unchanged += 1;
  }
  if (complete)
    for (const missing of existing.values()) {
      if (missing.status === 'active') {
        updates.push({ ...frozen(missing), status: 'archived', updated_at: now });
        result.archived += 1;
      } else if (!missing.run_frozen) updates.push(frozen(missing));
    }

  // D13 (P115): each job created, changed or archived by this run is written in a transaction with its
  // event in the outbox (unchanged jobs emit nothing). A transaction takes jobs in order while it stays
  // within 100 actions (49 created jobs, their 49 events and the counter; 50 changed jobs and their events)
  // and 3.5 MiB of items (P185): large jobs go in smaller transactions.
  const eventOf = (job: JobRecord, type: 'job.created' | 'job.updated' | 'job.archived'): ServiceEvent =>
    newEvent(type, companyId, { job_id: job.id, external_id: String(job.external_id), status: job.status, run_id: runId });
  const put = (job: JobRecord, condition?: string): TransactItem => ({
    Put: { TableName: config().tableName, Item: toItem(job), ...(condition ? { ConditionExpression: condition } : {}) },
  });
  const counterUpdate = (created: number): TransactItem => ({
    Update: {
      TableName: config().tableName,
      Key: keys.countOf(collections.companyJobs(companyId)),
      UpdateExpression: 'ADD #n :n',
      ExpressionAttributeNames: { '#n': 'count' },
      ExpressionAttributeValues: { ':n': created },
    },
  });
  // Creates go in transactions with the company's job counter, so the total never drifts from the items.
  const createChunks = transactionChunks(creates, (job) => [put(job, 'attribute_not_exists(PK)'), outboxPut(eventOf(job, 'job.created'))], [
    counterUpdate(TRANSACTION_MAX_ACTIONS),
  ]);
  const changed = updates.filter((job) => job.updated_at === now);
  const rewritten = updates.filter((job) => job.updated_at !== now);
  const toWrite = creates.length + updates.length;
  let written = 0;
  const wrote = (count: number) => options.onProgress?.((written += count), toWrite);
  wrote(0);
  for (const chunk of createChunks) {
    await db().send(new TransactWriteCommand({ TransactItems: [...chunk.actions, counterUpdate(chunk.items.length)] }));
    wrote(chunk.items.length);
  }
  result.created = creates.length;
  const changeChunks = transactionChunks(changed, (job) => [
    put(job),
    outboxPut(eventOf(job, job.status === 'archived' ? 'job.archived' : 'job.updated')),
  ]);
  for (const chunk of changeChunks) {
    await db().send(new TransactWriteCommand({ TransactItems: chunk.actions }));
    wrote(chunk.items.length);
  }
  await batchPut(rewritten.map(toItem));
  if (rewritten.length) wrote(rewritten.length);
  const after = new Map(before.map((job) => [job.id, job]));
  for (const job of [...creates, ...updates]) after.set(job.id, job);
  // The totals and the company's own fields are different items: written side by side.
  await Promise.all([
    writeJobTotals(companyId, before, [...after.values()], complete ? runId : undefined),
    // D14: a successful run ends a series of failures, and turns a `failing` company `active` again.
    setCompanyFields(companyId, {
      jobs_last_synced_at: now,
      job_import_failures: 0,
      ...(company.status === 'failing' ? { status: 'active' } : {}),
    }),
  ]);
  return result;
}

/** Jobs of one company by id, in one BatchGet per 100 (read-time copies on applications, D9). */
export async function getJobs(companyId: number, ids: number[]): Promise<Map<number, JobRecord>> {
  return batchGetByKey(ids, (id) => keys.job(companyId, id), fromItem);
}
