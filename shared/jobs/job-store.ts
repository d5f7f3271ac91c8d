/**
 * @entity-store: one of the modules that may name index attributes (test/unit/architecture.test.ts).
 * The job store (issue 22, item 3): the only code that writes job items. The entity's declaration (`JOB_ENTITY`,
 * P290) names the indexes a job item is in (COLLECTION, SLIM, LOOKUP, the filter slots, APPLIED/UPDATED) and what
 * each key is built from; the layout derives the item and the company's job counters from the record (`toItem`,
 * `jobSlot`, `writeJobTotals`); the reads by key and the import run of D14 that
 * creates, updates and archives a company's jobs from an ATS feed, in transactions within DynamoDB's limits.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetByKey, batchPut, queryAll, transactionChunks, TRANSACTION_MAX_ACTIONS, type TransactItem } from '#platform/batch.js';
import { config, db } from '#platform/clients.js';
import { isoNow } from '#platform/clock.js';
import { getCompanyRecord, setCompanyFields, type StoredCompany } from '#companies/company-store.js';
import type { CompanyRecord } from '#companies/company-schema.js';
import { NotFoundError, ValidationError, fieldErrors } from '#platform/errors.js';
import { nextId } from '#platform/ids.js';
import { collections, indexKeys, keys } from '#platform/keys.js';
import { keyAttributes } from '#platform/table.js';
import { defineEntity, type IndexUse, type Part } from '#platform/entities.js';
import { newEvent, outboxPut, type ServiceEvent } from '#platform/events.js';
import { ITEM_MAX_BYTES, itemBytes } from '#platform/item-size.js';
import { JOB_FILTER_SLOTS, JOB_OWN_TOTALS_FILTERS, JOB_TOTAL_VALUES, JOB_TOTALS_FILTERS, type JobSlotFilter } from '#jobs/job-filters.js';
import { canonicalJson, contentOf, fingerprintOf, parseJobFeed, type JobRecord } from '#jobs/job-schema.js';

// ---------------------------------------------------------------------------------------------------
// Layout: a job item from its record

/** The layout of a job item's index attributes, stored on every item (`index_version`); there is one (P190). */
const JOB_INDEX_VERSION = 2;

/** Everything the item holds besides the record: every key attribute of the table, search copies, the layout. */
const INTERNAL_ATTRIBUTES = /* @__PURE__ */ internalAttributes();
function internalAttributes(): string[] {
  return [...keyAttributes(), 'title_lc', 'city_lc', 'index_version'];
}

/** The partition of one exact filter value among a company's jobs (its slot index). */
export const jobSlot = (companyId: number, filter: JobSlotFilter, value: string) =>
  indexKeys.filterSlot(collections.companyJobs(companyId), filter, value);
/** The counter item of one value of a slot filter with totals of its own (`language`, `country`) among a company's jobs. */
export const jobValueCounterKey = (companyId: number, filter: JobSlotFilter, value: string) =>
  keys.countOf(jobSlot(companyId, filter, value));

/** The record of a job item: without its key, index and bookkeeping attributes. */
export function fromItem(item: Record<string, unknown>): JobRecord {
  const record = { ...item };
  for (const name of INTERNAL_ATTRIBUTES) delete record[name];
  return record as unknown as JobRecord;
}

const collectionOf: Part<JobRecord> = { fields: ['company'], build: (r) => indexKeys.companyJobs(r.company) };
const collectionSort: Part<JobRecord> = { fields: ['created_at', 'id'], build: (r) => indexKeys.collectionSort(r.created_at, r.id) };
const lowerCase = (field: 'title' | 'city'): Part<JobRecord> => ({
  fields: [field],
  build: (r) => {
    const value = r[field];
    return typeof value === 'string' ? value.toLowerCase() : undefined;
  },
});

/**
 * The job entity (P290): every index a job item is in and what each key is built from; a job is always written
 * whole (`toItem`), so every write derives them all.
 */
export const JOB_ENTITY = defineEntity<JobRecord>({
  entity: 'job',
  indexes: [
    { pattern: "the company's jobs", index: 'COLLECTION', pk: collectionOf, sk: collectionSort },
    // SLIM is keyed by a copy of the collection's partition, set on jobs only (P199).
    { pattern: "the company's jobs, slim", index: 'SLIM', pk: collectionOf, sk: collectionSort },
    {
      pattern: 'external_id',
      index: 'LOOKUP',
      pk: { fields: ['company', 'external_id'], build: (r) => indexKeys.jobByExternalId(r.company, String(r.external_id)) },
      sk: collectionSort,
    },
    ...[...JOB_FILTER_SLOTS].map(([filter, index]): IndexUse<JobRecord> => ({
      pattern: filter,
      index,
      pk: {
        fields: ['company', filter],
        build: (r) => {
          const value = r[filter];
          return typeof value === 'string' && value ? jobSlot(r.company, filter, value) : undefined;
        },
      },
      sk: collectionSort,
    })),
    {
      pattern: 'last_content_update_at',
      index: 'APPLIED',
      pk: collectionOf,
      sk: {
        fields: ['last_content_update_at', 'created_at', 'id'],
        build: (r) => indexKeys.dateSort(r.last_content_update_at, r.created_at, r.id),
      },
    },
    {
      pattern: 'updated_at',
      index: 'UPDATED',
      pk: collectionOf,
      sk: { fields: ['updated_at', 'created_at', 'id'], build: (r) => indexKeys.dateSort(r.updated_at, r.created_at, r.id) },
    },
  ],
  // Lower-case copies serve the case-insensitive "contains" filters.
  attributes: { title_lc: lowerCase('title'), city_lc: lowerCase('city') },
});

/** The job item of a record: its keys, every index attribute and the search copies, derived from it. */
function toItem(r: JobRecord): Record<string, unknown> {
  return { ...keys.job(r.company, r.id), ...JOB_ENTITY.item(r), index_version: JOB_INDEX_VERSION, ...r };
}

// ---------------------------------------------------------------------------------------------------
// Reads by key

/** One job of a company; another company's job is not found (the key includes the company). */
export async function getJob(companyId: number, id: number): Promise<JobRecord> {
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.job(companyId, id) }));
  if (!out.Item) throw new NotFoundError();
  return fromItem(out.Item);
}

/** Jobs of one company by id, in one BatchGet per 100 (read-time copies on applications, D9). */
export async function getJobs(companyId: number, ids: number[]): Promise<Map<number, JobRecord>> {
  return batchGetByKey(ids, (id) => keys.job(companyId, id), fromItem);
}

/** The company's last complete import run (P192), from the jobs counter item; undefined before the first. */
export async function lastCompleteRun(companyId: number): Promise<string | undefined> {
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
      IndexName: 'LOOKUP',
      KeyConditionExpression: 'GSI2PK = :pk',
      ExpressionAttributeValues: { ':pk': indexKeys.jobByExternalId(companyId, externalId) },
      Limit: 1,
    }),
  );
  // LOOKUP holds keys only (P195): the job itself is read by its key.
  const key = out.Items?.[0];
  if (!key) return undefined;
  const item = await db().send(new GetCommand({ TableName: config().tableName, Key: { PK: key.PK, SK: key.SK } }));
  return item.Item ? fromItem(item.Item) : undefined;
}

// ---------------------------------------------------------------------------------------------------
// Import (D14)

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
  for (const [filter, enumerated] of JOB_TOTAL_VALUES) for (const value of enumerated) totals.set(`${filter}#${value}`, 0);
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
      for (const filter of JOB_OWN_TOTALS_FILTERS) {
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

/**
 * Why a job's item would be refused by DynamoDB (P272), else undefined: the job must fit 400 KB as later runs may
 * write it, archived and `run_frozen` (its other bookkeeping has a fixed width), or an archive would fail mid-run.
 * Names the largest field, which is the one to shorten (`title_lc` and `city_lc` are copies of `title` and `city`).
 */
function tooLarge(job: JobRecord): [field: string, message: string] | undefined {
  const bytes = itemBytes(toItem({ ...job, status: 'archived', run_frozen: true }));
  if (bytes <= ITEM_MAX_BYTES) return undefined;
  const [field, size] = Object.entries(job)
    .map(([name, value]) => [name, itemBytes({ [name]: value })] as const)
    .reduce((a, b) => (b[1] > a[1] ? b : a));
  return [
    field,
    `Job "${job.external_id}" is too large: ${bytes} bytes stored, DynamoDB takes ${ITEM_MAX_BYTES} (400 KB); this field has ${size}.`,
  ];
}

/** The record without its ATS apply key (P276): an update sets the feed's key, or none when the feed has none. */
function withoutApplyKey(job: JobRecord): JobRecord {
  const { ats_apply_key: _key, ...rest } = job;
  return rest;
}

/** What an import run reads of a company's jobs before it decides what to write. */
export interface ImportBase {
  before: JobRecord[];
  /** The company's last complete run (P192), the run of its jobs not `run_frozen`. */
  lastRun: string | undefined;
}

/** The company's jobs and its last complete run, read side by side. */
export async function readImportBase(companyId: number): Promise<ImportBase> {
  const [before, lastRun] = await Promise.all([companyJobs(companyId), lastCompleteRun(companyId)]);
  return { before, lastRun };
}

/**
 * A run from the ATS under its claim (P328), which has read what it can before its feed came: the company as
 * claimed (with its revision), and its import base, read while the ATS was called. The run's claim ends with the
 * company's write, after every other write of the run; `alongside` (the run's log) is written beside the totals.
 */
export interface ClaimedImportRun {
  company: StoredCompany;
  base: Promise<ImportBase>;
  alongside?: (result: ImportResult) => Promise<unknown>;
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
    run?: ClaimedImportRun;
  } = {},
): Promise<ImportResult> {
  const inputs = await parseJobFeed(feed);
  const { run } = options;
  const [company, { before, lastRun }] = await Promise.all([
    run ? run.company.record : getCompanyRecord(companyId),
    run ? run.base : readImportBase(companyId),
  ]);
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
        ...(input.ats_apply_key ? { ats_apply_key: input.ats_apply_key } : {}),
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
      previous.import_source !== source ||
      (previous.ats_apply_key ?? null) !== (input.ats_apply_key ?? null);
    if (changed)
      updates.push(
        arrived({
          ...withoutApplyKey(previous),
          ...(contentChanged ? content : {}),
          status,
          raw_values: input.raw_values ?? {},
          import_source: source,
          ...(input.ats_apply_key ? { ats_apply_key: input.ats_apply_key } : {}),
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
  // P272: every job of the feed that is written must fit an item, checked before anything is written: DynamoDB
  // would refuse its transaction after the earlier ones had committed.
  const toStore = new Map([...creates, ...updates].map((job) => [String(job.external_id), job]));
  const oversize = fieldErrors();
  inputs.forEach((input, i) => {
    const problem = toStore.has(input.external_id) ? tooLarge(toStore.get(input.external_id)!) : undefined;
    if (problem) oversize[`[${i}].${problem[0]}`] = [problem[1]];
  });
  if (Object.keys(oversize).length) throw new ValidationError(oversize);

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
  const totals = writeJobTotals(companyId, before, [...after.values()], complete ? runId : undefined);
  // D14: a successful run ends a series of failures, and turns a company still `failing` `active` again; one an
  // operator deactivated or deleted meanwhile keeps that status (read afresh with the write, P267).
  const succeeded = (current: CompanyRecord) => ({
    jobs_last_synced_at: now,
    job_import_failures: 0,
    ...(current.status === 'failing' ? ({ status: 'active' } as const) : {}),
  });
  if (!run) {
    // The totals and the company's own fields are different items: written side by side.
    await Promise.all([totals, setCompanyFields(companyId, succeeded)]);
    return result;
  }
  // P328: a claimed run writes its log beside the totals, then the company, which ends the claim in the same
  // write: the next run may start once this one's totals (and their `run_id`, P192) are written. The company as
  // claimed is tried first: a change since fails its revision condition and is read afresh.
  await Promise.all([totals, run.alongside?.(result)]);
  await setCompanyFields(companyId, succeeded, { stored: run.company, remove: ['job_import_running_until'] });
  return result;
}
