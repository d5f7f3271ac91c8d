/**
 * The sync lifecycle (D12): one application at a time, from the queue message to a final `sync_status`
 * and, where due, the e-mail fallback. No application is submitted twice:
 * - an attempt first claims the application with a conditional write (a duplicated or redelivered message
 *   that finds a live claim backs off);
 * - the ATS is given a stable reference (`his-application-<id>`), so when an attempt dies between the ATS
 *   call and the status write, the next attempt (after the claim expires) gets the first submission back
 *   instead of creating a second;
 * - final statuses are written only over `NOTSENT`, so a late attempt can never overwrite an outcome.
 * Until the work is done the application is sync-due (`sync_due_at`), which the sweeper reads through its index.
 */
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isAnonymized, type ApplicationRecord } from '#applications/applications.js';
import { syncStatusCounterMove } from '#applications/application-counters.js';
import {
  applicationSyncState,
  getApplicationRecord,
  leaveSyncDue,
  setSyncDue,
  setSyncSweepMarks,
  statusMoveUpdate,
  stillSyncDue,
  syncDuePage,
  syncSweepMarks,
} from '#applications/application-store.js';
import { isConditionFailure } from '#platform/errors.js';
import { attachmentUrl, openAttachment, readAttachment } from '#applications/attachments.js';
import { config, db } from '#platform/clients.js';
import { now } from '#platform/clock.js';
import { deliveryAllowed, syncActive, type CompanyRecord } from '#companies/company-schema.js';
import { getCompanyRecord, markCompanyFailing } from '#companies/company-store.js';
import { ConnectorError, type AtsConnector, type Submission } from '#delivery/connectors/connector.js';
import { loadConnector } from '#delivery/connectors/registry.js';
import { loadCredentials } from '#delivery/credentials.js';
import { recordSyncOutcome } from '#delivery/delivery-metrics.js';
import { redactInScope, withAtsCalls } from '#delivery/ats-calls.js';
import { candidateValues, deliveryLogOn, logAttempt, type WorkReading } from '#delivery/delivery-log.js';
import { sendMail } from '#delivery/email.js';
import { contactCandidate, externalApplyDue } from '#delivery/external-apply.js';
import { watchDelivered } from '#delivery/outcomes.js';
import { rememberDelivery } from '#delivery/ats-webhooks.js';
import { crashPoint, rethrowIfCrash } from '#platform/faults.js';
import { getJob } from '#jobs/job-store.js';
import type { JobRecord } from '#jobs/job-schema.js';
import { SYNC_DUE_SHARDS, keys } from '#platform/keys.js';
import { logger } from '#platform/logger.js';
import { enqueueSync, MAX_QUEUE_DELAY_SECONDS, sweepGraceSeconds, sweepLookbackSeconds } from '#platform/sync-queue.js';

export const maxSyncAttempts = () => Number(process.env.SYNC_MAX_ATTEMPTS ?? 4);
const claimSeconds = () => Number(process.env.SYNC_CLAIM_SECONDS ?? 120);
const retryBaseSeconds = () => Number(process.env.SYNC_RETRY_BASE_SECONDS ?? 30);

/** Thrown to have the message come back after `delaySeconds` (the worker sets its visibility timeout). */
export class RetryLater extends Error {
  constructor(
    readonly delaySeconds: number,
    reason: string,
  ) {
    super(reason);
    this.name = 'RetryLater';
  }
}

/** Exponential backoff with full jitter: up to base × 2^(attempt-1), capped at 15 minutes. */
export function retryDelaySeconds(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(retryBaseSeconds() * 2 ** Math.max(attempt - 1, 0), 900);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

const later = (seconds: number) => new Date(now().getTime() + seconds * 1000).toISOString();

type Outcome = {
  sync_status: 'SUCCESS' | 'SUCCESS_FALLBACK' | 'EXPECTED_FAILURE' | 'FAILURE';
  failure_error: string | null;
  external_id?: string;
};

/**
 * Claims the next submission attempt: the number of attempts with this one, or false when another attempt
 * holds a live claim or the submission is decided. The claim is an item of its own (P194), 1 write unit: it
 * is not released by the outcome but runs out, so an attempt that read NOTSENT before another decided finds
 * the claim live, or (once it has run out) the outcome, which is read again after claiming.
 */
async function claim(id: number, field: 'sync' | 'email'): Promise<number | false> {
  const current = now();
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: keys.submissionClaim(id, field),
        UpdateExpression: 'SET claim_until = :until, expires_at = :expires ADD attempts :one',
        ConditionExpression: 'attribute_not_exists(claim_until) OR claim_until < :now',
        ExpressionAttributeValues: {
          ':until': later(claimSeconds()),
          ':now': current.toISOString(),
          ':one': 1,
          // Kept for a week past the last attempt (DynamoDB's TTL, which may take days), then gone.
          ':expires': Math.floor(current.getTime() / 1000) + 7 * 86_400,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const fresh = await applicationSyncState(id);
    if ((field === 'sync' ? fresh?.sync_status : fresh?.email_sync_status) !== 'NOTSENT') return false;
    return Number(out.Attributes?.attempts ?? 1);
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/** Gives a claim back at once: the next attempt (a retry after backoff) need not wait for it to run out. */
async function releaseClaim(id: number, field: 'sync' | 'email'): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: config().tableName,
      Key: keys.submissionClaim(id, field),
      UpdateExpression: 'REMOVE claim_until',
    }),
  );
}

/** Writes a final sync outcome over NOTSENT carrying its event (D13, on the item since P240), with its totals in one transaction. */
async function decideSync(record: ApplicationRecord, outcome: Outcome, company: CompanyRecord): Promise<void> {
  // Nothing more due after this outcome (no e-mail fallback follows): the application stops being sync-due in
  // the same write, not in a second one (`settle`), which would rewrite the item once more. Its DUE entry
  // stays (P242): deleting it cost an index write; the sweeper skips it until its mark has passed it.
  const last = !emailFallbackDue(company, record, outcome.sync_status);
  const timestamp = now().toISOString();
  const update = (previous: number) =>
    statusMoveUpdate(record, {
      field: 'sync_status',
      from: 'NOTSENT',
      to: outcome.sync_status,
      at: timestamp,
      previous,
      also: { failure_error: outcome.failure_error, ...(outcome.external_id ? { external_id: outcome.external_id } : {}) },
      leaveSyncDue: last,
    });
  // The company's per-status totals move in the same transaction.
  const write = (previous: number) =>
    db().send(
      new TransactWriteCommand({
        TransactItems: [{ Update: update(previous) }, syncStatusCounterMove(record.company, 'NOTSENT', outcome.sync_status)],
      }),
    );
  let written = false;
  let previous = record.event_sequence ?? 0;
  for (let attempt = 0; !written && attempt < 4; attempt++) {
    const current = attempt === 0 ? undefined : await applicationSyncState(record.id);
    if (current && current.sync_status !== 'NOTSENT') return; // decided by another attempt
    if (current) previous = current.event_sequence;
    try {
      await write(previous);
      written = true;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  if (!written) throw new Error(`application ${record.id}: the outcome could not be written`);
  recordSyncOutcome(company.ats, outcome.sync_status, outcome.failure_error);
  record.sync_status = outcome.sync_status;
  record.failure_error = outcome.failure_error;
  record.event_sequence = previous + 1;
  if (last) delete record.sync_due_at;
}

/** Tells the sweeper when to look again at an application whose submission waits (a retry, an inactive company). */
async function releaseForRetry(record: ApplicationRecord, delaySeconds: number): Promise<void> {
  await setSyncDue(record.id, later(delaySeconds + sweepGraceSeconds()));
}

/** Nothing more to do: the application is no longer sync-due. */
const settle = (id: number) => leaveSyncDue(id);

/** The connector's view of one application to one job (exported for the tests). */
export function submissionFor(record: ApplicationRecord, company: CompanyRecord, job: JobRecord, reference: string): Submission {
  return {
    reference,
    company,
    jobExternalId: String(job.external_id),
    ...(job.ats_apply_key ? { jobApplyKey: job.ats_apply_key } : {}),
    candidate: record.candidate ?? {},
    screeningAnswers: record.screening_questions ?? [],
    customFields: record.custom_fields ?? {},
    socialLinks: record.social_links ?? {},
    notes: record.notes ?? null,
    appliedAt: record.applied_at,
    source: record.channel,
    attachments: (record.attachments ?? []).map((a) => ({
      type: a.type,
      name: a.name,
      content_type: a.content_type,
      size: a.size,
      open: () => openAttachment(a.key),
      url: () => attachmentUrl(a.key),
    })),
  };
}

function outcomeOf(error: ConnectorError): Outcome {
  if (error.kind === 'duplicate' || error.kind === 'job_not_published')
    return { sync_status: 'EXPECTED_FAILURE', failure_error: error.name };
  return { sync_status: 'FAILURE', failure_error: error.name };
}

export interface SyncHooks {
  /** Test seam: runs between the ATS call and the status write, to simulate a crash there. */
  afterSubmit?: () => Promise<void>;
}

async function syncToAts(record: ApplicationRecord, company: CompanyRecord, hooks: SyncHooks): Promise<void> {
  const attempts = await claim(record.id, 'sync');
  if (attempts === false) {
    const fresh = await getApplicationRecord(record.id);
    if (fresh && fresh.sync_status !== 'NOTSENT') {
      Object.assign(record, fresh);
      return;
    }
    throw new RetryLater(claimSeconds(), 'another attempt holds the claim');
  }
  // Issue 44 (D23): the attempt's ATS calls are recorded in a scope. Its log is written once the attempt's reading
  // is known, in parallel with the outcome's (or the retry's) own writes, not after them (P326): it adds no round
  // trip to the attempt. A write that fails is counted, never thrown (`writeDeliveryLog`). What fails before the
  // first call (the connector's load, the job, the credentials, an attachment) is in the scope too: one `prepare`
  // record (P325). A dead attempt (a crash) writes no log, as a process that died would not.
  let logging: Promise<boolean> | undefined;
  const { result } = await withAtsCalls('submitApplication', async (scope) => {
    const log = (reading: WorkReading) => {
      if (deliveryLogOn()) logging ??= logAttempt(record.id, scope, attempts, reading, candidateValues(record));
    };
    const submit = async (connector: AtsConnector, job: JobRecord, reference: string, status: 'SUCCESS' | 'SUCCESS_FALLBACK') => {
      // Opened for this call only; the credentials go nowhere but the connector (and the log's redaction list).
      const credentials = await loadCredentials(company);
      redactInScope(Object.values(credentials));
      const { externalId } = await connector.submitApplication(submissionFor(record, company, job, reference), credentials);
      // D21 (P300): its outcome is read from the next reading pass on; before the status write, so that a crash
      // between them loses nothing (the retry puts the same watch again).
      await watchDelivered(record, company, { externalId, reference, jobExternalId: String(job.external_id) });
      // P311: where outcomes come by webhooks, what the ATS's webhooks will name the application by.
      await rememberDelivery(record, company, { externalId, jobExternalId: String(job.external_id) });
      await hooks.afterSubmit?.();
      crashPoint('sync.after-ats-call');
      log({ retrying: false });
      return decideSync(record, { sync_status: status, failure_error: null, ...(externalId ? { external_id: externalId } : {}) }, company);
    };
    try {
      const connector = await loadConnector(company.ats);
      if (!connector) {
        const failureError = 'NoConnectorError';
        log({ retrying: false, failureError });
        return await decideSync(record, { sync_status: 'FAILURE', failure_error: failureError }, company);
      }
      const job = await getJob(company.id, record.job);
      try {
        return await submit(connector, job, `his-application-${record.id}`, 'SUCCESS');
      } catch (error) {
        rethrowIfCrash(error);
        const fallbackJob = company.fallback_job;
        if (!(error instanceof ConnectorError && error.kind === 'job_not_published' && fallbackJob && fallbackJob !== job.id)) throw error;
        // D12: a job no longer published goes to the company's fallback job, under its own reference.
        return await submit(connector, await getJob(company.id, fallbackJob), `his-application-${record.id}-fallback`, 'SUCCESS_FALLBACK');
      }
    } catch (error) {
      // A dead attempt neither releases its claim nor decides anything: the next one after the claim expires does.
      rethrowIfCrash(error);
      // The log's reading (a status write that then fails keeps the log's first reading: the ATS's answer stands).
      log({ error, retrying: retriesAfter(error, attempts) });
      return await failAttempt(record, company, error, attempts);
    }
  });
  await logging;
  if (result.status === 'rejected') throw result.reason;
}

/** Whether a failed attempt comes back: retryable failures (and unexpected ones) until the budget is spent. */
function retriesAfter(error: unknown, attempts: number): boolean {
  return (error instanceof ConnectorError ? error.retryable : true) && attempts < maxSyncAttempts();
}

/**
 * After a failed attempt: retryable failures (transient or rate-limited ATS errors, and anything
 * unexpected such as a storage error) come back with backoff until the budget is spent; then, and for
 * permanent errors at once, the outcome is decided.
 */
async function failAttempt(record: ApplicationRecord, company: CompanyRecord, error: unknown, attempts: number): Promise<void> {
  const known = error instanceof ConnectorError ? error : undefined;
  if (!known) logger.error('sync attempt failed unexpectedly', { applicationId: record.id, attempts, error: error as Error });
  if (retriesAfter(error, attempts)) {
    // An ATS's wait past what a queue message can be delayed is cut to it: the attempt then comes back when SQS can bring it (P270).
    const delay = Math.min(Math.max(known?.retryAfterSeconds ?? 0, retryDelaySeconds(attempts)), MAX_QUEUE_DELAY_SECONDS);
    await Promise.all([releaseClaim(record.id, 'sync'), releaseForRetry(record, delay)]);
    // The worker logs this reason: an ATS's own text (which can echo the candidate) stays out of it (P284).
    throw new RetryLater(delay, known ? `${known.name} (${known.kind})` : (error as Error).message);
  }
  // D17: rejected credentials break the company's connection: it turns `failing` until an operator reconnects it.
  if (known?.kind === 'credentials_rejected') await markCompanyFailing(record.company);
  return decideSync(record, known ? outcomeOf(known) : { sync_status: 'FAILURE', failure_error: 'SyncError' }, company);
}

function mailText(record: ApplicationRecord, job: JobRecord): string {
  const c = record.candidate ?? {};
  const name = String(c.full_name ?? [c.first_name, c.last_name].filter(Boolean).join(' '));
  const lines = [
    `New application for "${job.title ?? job.external_id}" (job ${job.external_id}).`,
    '',
    `Name: ${name}`,
    `E-mail: ${c.email ?? ''}`,
    ...(c.phone ? [`Phone: ${c.phone}`] : []),
    `Applied at: ${record.applied_at}`,
    ...(record.channel ? [`Source: ${record.channel}`] : []),
    ...(record.screening_questions ?? []).map((q) => `${q.question ?? q.id}: ${q.answer ?? ''}`),
    ...Object.entries(record.social_links ?? {}).map(([k, v]) => `${k}: ${v}`),
    ...(record.notes ? ['', record.notes] : []),
    '',
    `Application ${record.id}; it could not be delivered to your ATS, so it comes by e-mail.`,
  ];
  return lines.join('\n');
}

async function emailFallback(record: ApplicationRecord, company: CompanyRecord): Promise<void> {
  if ((await claim(record.id, 'email')) === false) {
    const fresh = await getApplicationRecord(record.id);
    if (fresh && fresh.email_sync_status !== 'NOTSENT') return;
    throw new RetryLater(claimSeconds(), 'another attempt holds the e-mail claim');
  }
  const job = await getJob(company.id, record.job);
  const to = (job.application_email as string | null) || company.contact_email;
  let status: 'SUCCESS' | 'FAILURE' = 'FAILURE';
  if (to) {
    try {
      const attachments = [];
      for (const a of record.attachments ?? [])
        attachments.push({ filename: a.name, contentType: a.content_type, content: await readAttachment(a.key) });
      await sendMail({
        to,
        subject: `Application: ${job.title ?? job.external_id}`,
        text: mailText(record, job),
        attachments,
        id: `application-${record.id}.company-${record.company}`,
      });
      crashPoint('sync.after-email-send');
      status = 'SUCCESS';
    } catch (error) {
      // A crash after the send leaves the status NOTSENT: the next attempt sends again, with the same Message-ID (P106).
      rethrowIfCrash(error);
      logger.error('e-mail fallback failed', { applicationId: record.id, error: error as Error });
    }
  }
  const emailAt = now().toISOString();
  let previous = record.event_sequence ?? 0;
  for (let attempt = 0; ; attempt++) {
    try {
      // One item, its event on it (P240): a plain update, not a transaction.
      await db().send(
        new UpdateCommand(statusMoveUpdate(record, { field: 'email_sync_status', from: 'NOTSENT', to: status, at: emailAt, previous })),
      );
      break;
    } catch (error) {
      if (!isConditionFailure(error) || attempt >= 3) throw error;
      const fresh = await getApplicationRecord(record.id);
      if (!fresh || fresh.email_sync_status !== 'NOTSENT') return; // decided by another attempt
      previous = fresh.event_sequence ?? 0;
    }
  }
  record.email_sync_status = status;
  record.event_sequence = previous + 1;
}

/** Processes one queue message's application. Throws RetryLater (or any error) to have it come back. */
export async function syncApplication(applicationId: number, hooks: SyncHooks = {}): Promise<void> {
  const record = await getApplicationRecord(applicationId);
  if (!record) {
    logger.warn('sync message for an unknown application', { applicationId });
    return;
  }
  const company = await getCompanyRecord(record.company);
  // D10: past 180 days an application reads as anonymized; its personal data goes nowhere, even before retention ran (P267).
  if (!company || record.personal_data_deleted_at || isAnonymized(record)) return settle(record.id);
  // D17: an invited, requested, deactivated or deleted company's syncs wait (NOTSENT, still due); the
  // sweeper brings them back every grace period and they go out once the company is active again.
  if (!deliveryAllowed(company)) {
    if (record.sync_status === 'NOTSENT' || record.email_sync_status === 'NOTSENT') await releaseForRetry(record, 0);
    return;
  }
  const candidateSync = syncActive(company, 'candidate_sync');
  if (candidateSync && record.sync_status === 'NOTSENT') await syncToAts(record, company, hooks);
  if (emailFallbackDue(company, record, record.sync_status)) await emailFallback(record, company);
  // P206: the external apply follow-up's first e-mail (entitled companies without ATS sync only).
  if (externalApplyDue(company, record)) await contactCandidate(record, company);
  // Already settled when the outcome's write settled it (decideSync).
  if (record.sync_due_at !== undefined) await settle(record.id);
}

/** D12: the e-mail fallback runs when the ATS sync is inactive, or after it failed; both need the entitlement. */
function emailFallbackDue(company: CompanyRecord, record: ApplicationRecord, syncStatus: string): boolean {
  return (
    company.entitlements.includes('email_fallback') &&
    record.email_sync_status === 'NOTSENT' &&
    (!syncActive(company, 'candidate_sync') || syncStatus === 'FAILURE')
  );
}

export interface SweepResult {
  requeued: number;
  /** Sync-due entries read: those from each shard's mark to now, settled ones included. */
  entries: number;
}

/**
 * The sweeper: re-queues applications whose sync is due but has not happened (a lost or dead-lettered message).
 * Settled applications leave their DUE entry behind (P242), so each shard is read from a mark, not from the
 * start: entries due after it and before now. The items are read again and only those still sync-due are
 * re-queued (a settled one is skipped). The mark then moves to now less the lookback (the grace period by
 * default), which covers an entry written by a clock that lags the sweeper's, or not yet in the index; when a
 * shard holds more than `limitPerShard` applications to re-queue, the mark stops at the last one handled.
 * The marks are one item, written once a sweep.
 */
export async function sweepDueSyncs(options: { limitPerShard?: number } = {}): Promise<SweepResult> {
  const current = now();
  const until = current.toISOString();
  const lookback = new Date(current.getTime() - sweepLookbackSeconds() * 1000).toISOString();
  const limit = options.limitPerShard ?? 100;
  const result: SweepResult = { requeued: 0, entries: 0 };
  const marks = await syncSweepMarks();
  const next: Record<string, string> = {};
  for (let shard = 0; shard < SYNC_DUE_SHARDS; shard++) {
    let after = marks[shard];
    let requeued = 0;
    let done = false;
    while (!done && requeued < limit) {
      const page = await syncDuePage(shard, after, until, limit);
      result.entries += page.entries.length;
      const due = await stillSyncDue(page.entries.map((entry) => entry.id));
      done = !page.more;
      for (const entry of page.entries) {
        after = entry.sort;
        // Look again after the grace period unless the message settles it first (false: settled meanwhile).
        if (due.has(entry.id) && (await setSyncDue(entry.id, later(sweepGraceSeconds())))) {
          requeued += 1;
          if (await enqueueSync(entry.id)) result.requeued += 1;
        }
        if (requeued >= limit) {
          done = entry === page.entries[page.entries.length - 1] && !page.more;
          break;
        }
      }
    }
    // Everything before now was read: start at now less the lookback next time; else where this sweep stopped.
    next[shard] = done || after === undefined || after > lookback ? lookback : after;
  }
  await setSyncSweepMarks(next);
  logger.info('sync sweep', { ...result });
  return result;
}
