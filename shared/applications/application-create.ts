/**
 * Creating an application (the create route only): validation of the parsed body, job and channel
 * resolution, attachments to S3, the write with its company total, the sync hand-off and the event.
 * Apart from the reads (`application-list.ts`) so that the read routes do not bundle the validator, the S3
 * upload and the queue and topic clients; the item and its counters come from the store
 * (`application-store.ts`, `application-counters.ts`).
 */
import { createHash } from 'node:crypto';
import { GetCommand, TransactWriteCommand, UpdateCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import {
  ATTACHMENT_TYPES,
  checkAttachments,
  clearPendingUpload,
  deleteAttachmentObjects,
  type FilePart,
  type IncomingAttachment,
  type StagedFile,
} from '#applications/attachments.js';
import { storeAttachments, type AttachmentStaging } from '#applications/attachment-upload.js';
import { getChannel, getChannelBySlug, type TalentChannel } from '#applications/channels.js';
import {
  CounterFold,
  applicationCounterKey,
  counterTargets,
  hasFoldedValues,
  hasJobValues,
  counterUpdates,
  jobCounterKey,
  registerJobValues,
} from '#applications/application-counters.js';
import { applicationLookupItems, getApplicationRecord, toApplicationItem } from '#applications/application-store.js';
import { MAX_APPLICATION_BYTES, type ApplicationIn, type ApplicationRecord } from '#applications/applications.js';
import { batchGetItems, batchPut, primaryKeyOf } from '#platform/batch.js';
import { loadApplicationInValidator } from '#generated/applications-validators.js';
import { config, db } from '#platform/clients.js';
import { now } from '#platform/clock.js';
import { getCompanyRecord } from '#companies/company-store.js';
import { syncActive, type CompanyRecord } from '#companies/company-schema.js';
import { CompanyInactiveError, ValidationError, fieldErrors, isConditionFailure } from '#platform/errors.js';
import { createdEventAttribute } from '#applications/application-events.js';
import { ITEM_EVENT_ATTRIBUTE } from '#platform/events.js';
import { crashPoint, rethrowIfCrash } from '#platform/faults.js';
import { lazyValidator, toFieldErrors } from '#platform/field-errors.js';
import { nextId } from '#platform/ids.js';
import { findJobByExternalId, getJobs } from '#jobs/job-store.js';
import type { JobRecord } from '#jobs/job-schema.js';
import { getPartnerKind } from '#companies/partners.js';
import { enqueueSync, sweepGraceSeconds } from '#platform/sync-queue.js';
import { counterAdd } from '#platform/counts.js';
import { expiringAt, keys, type Key } from '#platform/keys.js';

const ATTACHMENT_RECORD_BYTES = 700;

// Pure: a bundle whose route never validates this leaves the generated validator out (tree-shaking).
const validateApplicationIn = /* @__PURE__ */ lazyValidator(loadApplicationInValidator);

/**
 * Validates a parsed body; returns the input and the attachments (Base64 ones and multipart files). `staged`
 * maps the placeholders a streamed JSON body has for its attachments' `data` to the bytes already staged.
 */
export function parseApplication(
  fields: Record<string, unknown>,
  files: FilePart[],
  staged?: Map<string, StagedFile>,
): { input: ApplicationIn; attachments: IncomingAttachment[] } {
  const errors = fieldErrors();
  const valid = validateApplicationIn(fields);
  if (!valid) Object.assign(errors, toFieldErrors(validateApplicationIn.errors));
  const input = fields as ApplicationIn;
  const candidate = input.candidate as unknown;
  if (isObject(candidate) && !candidate.full_name && !(candidate.first_name && candidate.last_name)) {
    errors['candidate.full_name'] = ['Give full_name, or first_name and last_name.'];
  }
  if (input.job === undefined && input.external_job_id === undefined) {
    errors.job = ['Give job or external_job_id.'];
  }
  // The format check admits forms (a leap second, an hour-only offset) that no clock can place.
  if (typeof input.applied_at === 'string' && !errors.applied_at && Number.isNaN(Date.parse(input.applied_at))) {
    errors.applied_at = ['Must be an ISO 8601 date-time such as 2026-05-01T10:00:00Z.'];
  }
  // Attachments are read only once the schema has vouched for their shape (`[null]` is not one).
  const attachments: IncomingAttachment[] = [
    ...(valid ? (input.attachments ?? []) : []).map((a) => ({
      type: (a.type ?? 'other') as IncomingAttachment['type'],
      name: a.name,
      content_type: a.content_type,
      data: staged?.get(a.data) ?? a.data,
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

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

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
  /** An earlier request with the same `Idempotency-Key` created it (P268). */
  replayed?: true;
}

/**
 * The screening answers as the spec shows them, each with `id`, `question`, `answer_type` and `answer` (P265): what
 * the partner left out comes from the job's question of the same id (the ATS's own text and type, which the
 * connectors type the answer by), else `question` and `answer` are empty and `answer_type` is `text`.
 */
function screeningAnswers(answers: NonNullable<ApplicationIn['screening_questions']>, job: JobRecord): Record<string, string>[] {
  // Stored as the import validated it (`screeningQuestionSchema`: `id` and `question` strings, `answer_type` optional).
  const questions = (job.screening_questions ?? []) as { id: string; question: string; answer_type?: string }[];
  const asked = new Map(questions.map((q) => [q.id, q]));
  return answers.map(({ id, question, answer_type, answer }) => {
    const known = asked.get(id);
    return {
      id,
      question: question ?? known?.question ?? '',
      answer_type: answer_type ?? known?.answer_type ?? 'text',
      answer: answer ?? '',
    };
  });
}

/** The record of a new application (D8, D12): what the create writes, before its attachments are stored. */
export function newApplicationRecord(a: {
  id: number;
  company: number;
  partner: { id: number; kind?: string };
  job: JobRecord;
  channel: TalentChannel | undefined;
  input: ApplicationIn;
  timestamp: string;
  syncDue: boolean;
  importSource?: ApplicationRecord['import_source'];
}): ApplicationRecord {
  return {
    id: a.id,
    company: a.company,
    job: a.job.id,
    talent_channel: a.channel?.id ?? null,
    external_id: null,
    external_job_id: a.input.external_job_id ?? null,
    application_url: a.input.application_url ?? null,
    agency_job_id: a.input.agency_job_id ?? null,
    partner_job_id: a.input.partner_job_id ?? null,
    partner_company_id: a.input.partner_company_id ?? null,
    partner_application_id: a.input.partner_application_id ?? null,
    candidate: a.input.candidate as Record<string, unknown>,
    applied_at: a.input.applied_at ? new Date(a.input.applied_at).toISOString() : a.timestamp,
    notes: a.input.notes ?? null,
    channel: a.input.channel ?? null,
    social_links: a.input.social_links ?? {},
    screening_questions: screeningAnswers(a.input.screening_questions ?? [], a.job),
    custom_fields: a.input.custom_fields ?? {},
    attachments: [],
    import_source: a.importSource ?? 'api',
    status: 'active',
    sync_status: 'NOTSENT',
    email_sync_status: 'NOTSENT',
    external_apply_status: 'NOTSENT',
    failure_error: null,
    partner: a.partner.id,
    agency: a.partner.kind === 'agency' ? a.partner.id : null,
    created_at: a.timestamp,
    updated_at: a.timestamp,
    ...(a.syncDue ? { sync_due_at: new Date(Date.parse(a.timestamp) + sweepGraceSeconds() * 1000).toISOString() } : {}),
  };
}

/**
 * Writes many new applications at once, for generating data (benchmarks, large fixtures): the same items
 * and counters as `createApplication`, but batched: items 25 to a call and the counters summed per batch,
 * so the counters are not in the items' transaction. No attachments, queue hand-off or events.
 */
export async function seedApplications(records: ApplicationRecord[]): Promise<void> {
  await batchPut(records.flatMap((r) => [toApplicationItem(r), ...applicationLookupItems(r)]));
  const sums = new Map<string, { key: { PK: string; SK: string }; amounts: Map<string, number> }>();
  const folds = new Map<number, CounterFold>();
  // Each job's counter item, read once, takes the job values folded into it (P181).
  const jobs = new Map(records.filter(hasJobValues).map((r) => [primaryKeyOf(jobCounterKey(r.company, r.job)), r]));
  const jobItems = await batchGetItems([...jobs.values()].map((r) => jobCounterKey(r.company, r.job)));
  const jobFolds = new Map([...jobs.keys()].map((key) => [key, new CounterFold(jobItems.get(key))]));
  for (const record of records) {
    if (!folds.has(record.company)) folds.set(record.company, new CounterFold(await readCounterItem(record.company, true)));
    const jobFold = jobFolds.get(primaryKeyOf(jobCounterKey(record.company, record.job)));
    for (const { key, attributes } of counterTargets(record, { fold: folds.get(record.company), jobFold })) {
      const entry = sums.get(primaryKeyOf(key)) ?? { key, amounts: new Map<string, number>() };
      sums.set(primaryKeyOf(key), entry);
      for (const [attribute, n] of attributes) entry.amounts.set(attribute, (entry.amounts.get(attribute) ?? 0) + n);
    }
  }
  for (const [key, fold] of jobFolds) await registerJobValues(jobs.get(key)!.job, fold);
  for (const { key, amounts } of sums.values()) await db().send(new UpdateCommand(counterAdd(key, amounts)));
}

/** The company's application counter item (where the folded totals are, P160). */
function readCounterItem(companyId: number, consistent = false): Promise<Record<string, unknown> | undefined> {
  return readItem(applicationCounterKey(companyId), consistent);
}

async function readItem(key: Key, consistent = false): Promise<Record<string, unknown> | undefined> {
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: key, ConsistentRead: consistent }));
  return out.Item;
}

/** What a caller other than the create route adds (the inbound apply endpoint, issue 23). */
export interface CreateOptions {
  /** `import_source` of the record; `api` when absent (the create route). */
  importSource?: ApplicationRecord['import_source'];
  /** Items written in the create's transaction, given the record (its id); a failed condition cancels the create. */
  alsoWrite?: (record: ApplicationRecord) => NonNullable<TransactWriteCommandInput['TransactItems']>;
  /**
   * The request's `Idempotency-Key` scope (partner, company, key). A claim item in the create's transaction names
   * the application for 24 h, so that a retry whose in-progress record expired after a crash (the idempotency
   * layer then runs the handler again) finds the application instead of creating a second one (P268).
   */
  claim?: string;
}

/** As long as an `Idempotency-Key` is remembered (D8). */
const CLAIM_SECONDS = 24 * 3600;
const claimKey = (scope: string) => keys.creationClaim(createHash('sha256').update(scope).digest('base64url'));

function claimPut(scope: string, id: number) {
  const at = Math.floor(now().getTime() / 1000);
  return {
    Put: {
      TableName: config().tableName,
      Item: { ...claimKey(scope), application_id: id, ...expiringAt(at + CLAIM_SECONDS) },
      // An expired claim may still be there (TTL deletes late): it is overwritten.
      ConditionExpression: 'attribute_not_exists(PK) OR expires_at <= :now',
      ExpressionAttributeValues: { ':now': at },
    },
  };
}

/** The application an earlier create with the same claim made, as the create returns it; undefined if none. */
async function claimedApplication(scope: string, companyId: number): Promise<CreatedApplication | undefined> {
  const claim = await readItem(claimKey(scope), true);
  if (!claim || Number(claim.expires_at) <= Math.floor(now().getTime() / 1000)) return undefined;
  const record = await getApplicationRecord(Number(claim.application_id));
  if (!record || record.company !== companyId) return undefined;
  const [jobs, channel] = await Promise.all([
    getJobs(companyId, [record.job]),
    record.talent_channel ? getChannel(record.talent_channel) : undefined,
  ]);
  const job = jobs.get(record.job);
  return job && { record, job, channel, replayed: true };
}

/**
 * Creates an application: resolves job and channel (400 if they do not fit), stores the attachments,
 * writes the application (carrying its `application.created` event, P240) with its company total in one
 * transaction (removing the objects again if that fails), and hands the id to the sync queue when due.
 */
export async function createApplication(
  company: CompanyRecord,
  partnerId: number,
  input: ApplicationIn,
  attachments: IncomingAttachment[],
  staging?: AttachmentStaging,
  options: CreateOptions = {},
): Promise<CreatedApplication> {
  // The company is read afresh: the access check's copy may be cached and its entitlements stale.
  // The company's counter item says where a folded filter's total (a channel's, a partner company id's) is kept (P160).
  const folding = hasFoldedValues(input);
  // A job value's total is folded into its job's counter item, which says whether it is there yet (P181).
  const jobValues = hasJobValues(input);
  const jobCounter = (jobId: number) => readItem(jobCounterKey(company.id, jobId));
  // The id is taken beside the reads (usually from the instance's block; a cold instance reserves one, a
  // round trip that need not wait for the others). A refused create leaves a gap, as ids may have (P156, P175).
  // Attachments staged while the body was read already name the id in their keys.
  const [job, channel, partnerKind, current, counter, id, jobCounterRead] = await Promise.all([
    resolveJob(company.id, input),
    resolveChannel(input),
    getPartnerKind(partnerId),
    getCompanyRecord(company.id),
    folding ? readCounterItem(company.id) : undefined,
    staging ? staging.applicationId() : nextId('application'),
    jobValues && input.job !== undefined ? jobCounter(input.job) : undefined,
  ]);
  const entitled = current ?? company;
  // D17: a deactivated (or deleted) company refuses new applications; its records stay readable.
  if (entitled.status === 'deactivated' || entitled.status === 'deleted') throw new CompanyInactiveError();
  // D12: the worker has something to do when the ATS sync is active or the e-mail fallback is entitled;
  // P206: or the external apply follow-up is (its first e-mail rides the same sync message).
  const syncDue =
    syncActive(entitled, 'candidate_sync') ||
    entitled.entitlements.includes('email_fallback') ||
    entitled.entitlements.includes('external_apply');
  const timestamp = now().toISOString();
  const record = newApplicationRecord({
    id,
    company: company.id,
    partner: { id: partnerId, kind: partnerKind },
    job,
    channel,
    input,
    timestamp,
    syncDue,
    importSource: options.importSource,
  });
  // A DynamoDB item holds at most 400 KB: refuse, before anything is stored, what would not fit.
  const estimate = Buffer.byteLength(JSON.stringify(toApplicationItem(record))) + attachments.length * ATTACHMENT_RECORD_BYTES;
  if (estimate > MAX_APPLICATION_BYTES) {
    throw new ValidationError({
      body: [
        `The application without its files is ${Math.ceil(estimate / 1000)} KB; at most ${MAX_APPLICATION_BYTES / 1000} KB (notes, answers, custom fields and links) is accepted.`,
      ],
    });
  }
  const jobFold = jobValues ? new CounterFold(jobCounterRead ?? (await jobCounter(job.id))) : undefined;
  const counters = counterUpdates(record, 1, { fold: folding ? new CounterFold(counter) : undefined, jobFold });
  const [stored] = await Promise.all([storeAttachments(company.id, id, attachments), registerJobValues(job.id, jobFold)]);
  crashPoint('create.after-upload');
  record.attachments = stored;
  // The application's first event rides on its item (P240): the relay publishes it from the table's stream.
  record.event_sequence = 1;
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: config().tableName,
              Item: { ...toApplicationItem(record), [ITEM_EVENT_ATTRIBUTE]: createdEventAttribute() },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          // Its lookup items, one per partner id it has (P241).
          ...applicationLookupItems(record).map((Item) => ({ Put: { TableName: config().tableName, Item } })),
          // Every total the application counts in moves in the same transaction (docs/access-patterns.md).
          ...counters,
          // Its objects stop being pending uploads (which the reconciler would delete) in the same commit.
          ...stored.map((a) => clearPendingUpload(a.key)),
          // The caller's own items (an apply delivery's replay markers, issue 23): committed with it or not at all.
          ...(options.alsoWrite?.(record) ?? []),
          ...(options.claim ? [claimPut(options.claim, record.id)] : []),
        ],
      }),
    );
  } catch (error) {
    rethrowIfCrash(error);
    await deleteAttachmentObjects(stored.map((a) => a.key));
    const earlier = options.claim && isConditionFailure(error) ? await claimedApplication(options.claim, company.id) : undefined;
    if (earlier) return earlier;
    throw error;
  }
  staging?.commit(stored.map((a) => a.key));
  crashPoint('create.after-transaction');
  // A crash here loses only the hand-off: the sweeper finds the application through the sync-due index.
  if (syncDue) await enqueueSync(record.id);
  return { record, job, channel };
}
