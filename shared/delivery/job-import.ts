/**
 * The job import from the ATSs (D14, issue 9): a schedule fans out one queue message per company whose
 * job sync is active, and each message is one import run through the company's connector into the same
 * import code the admin file import uses (`importJobs`). A run that fails (ATS unreachable, malformed
 * feed, rejected credentials) changes no job and is counted; the third failed run in a row turns the
 * company `failing`, rejected credentials at once (D17); a successful run turns it `active` again.
 * Deactivated, deleted, invited and requested companies are not imported; they wait (D17).
 */
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { randomUUID } from 'node:crypto';
import {
  allCompanies,
  claimJobImportRun,
  markCompanyFailing,
  recordJobImportFailure,
  releaseJobImportRun,
  requireCompany,
} from '#companies/company-store.js';
import { deliveryAllowed, syncActive, type CompanyRecord } from '#companies/company-schema.js';
import { importJobs, readImportBase, type ImportResult } from '#jobs/job-store.js';
import { loadJobFeedValidator, parseJobFeed } from '#jobs/job-schema.js';
import { config, sqs } from '#platform/clients.js';
import { ApiError, CompanyInactiveError, ConflictError, ValidationError, invalidField } from '#platform/errors.js';
import { logger } from '#platform/logger.js';
import { ConnectorError } from '#delivery/connectors/connector.js';
import { connectorFor, loadConnector } from '#delivery/connectors/registry.js';
import { loadCredentials } from '#delivery/credentials.js';
import { recordJobImportRun } from '#delivery/delivery-metrics.js';
import { redactInScope, withAtsCalls, type AtsCallScope } from '#delivery/ats-calls.js';
import { deliveryRecords, writeJobImportRun } from '#delivery/delivery-log.js';
import { isoNow } from '#platform/clock.js';

export interface JobImportMessage {
  company_id: number;
}

/** A failed run, as a D2 error (the admin command prints it; the worker logs its code). */
export class JobImportFailedError extends ApiError {
  constructor(
    readonly reason: 'credentials_rejected' | 'ats_unreachable' | 'invalid_feed',
    detail: string,
    readonly failures: number,
  ) {
    super(400, `job_import_${reason}`, detail, { ats: [detail] });
  }
}

/** How long a run's claim on its company holds (one run per company at a time). */
const RUN_CLAIM_SECONDS = 15 * 60;

const importsWait = (company: CompanyRecord) =>
  new CompanyInactiveError(`Company ${company.id} is ${company.status}: its job imports wait until it is active again.`);

function checkImportable(company: CompanyRecord): void {
  if (!deliveryAllowed(company)) throw importsWait(company);
  if (!connectorFor(company.ats)) throw invalidField('ats', `The company's ATS (${company.ats ?? 'none'}) has no connector.`);
  if (!syncActive(company, 'job_sync'))
    throw invalidField('job_sync_active', 'Job sync is not active: the company needs the job_sync entitlement and a connected ATS.');
}

async function failRun(company: CompanyRecord, reason: JobImportFailedError['reason'], detail: string): Promise<never> {
  const failures = await recordJobImportFailure(company.id);
  // D17: rejected credentials break the connection: the company is failing at once.
  if (reason === 'credentials_rejected') await markCompanyFailing(company.id);
  recordJobImportRun(reason);
  logger.warn('job import run failed', { companyId: company.id, reason, failures });
  throw new JobImportFailedError(reason, `The job import of company ${company.id} failed: ${detail}`, failures);
}

/**
 * One import run from the company's ATS now (the queue worker and `hiring-admin jobs sync`). Returns
 * `{run_id, created, updated, unchanged, archived}`; a failed run throws JobImportFailedError.
 */
export async function runJobImport(
  companyId: number,
  options: { onProgress?: (done: number, total: number) => void } = {},
): Promise<ImportResult> {
  // The feed's validator loads while the run's first requests are on the way (P288), not awaited here: a failure
  // to load it is the feed parse's to report.
  loadJobFeedValidator().catch(() => undefined);
  // P328: the claim's write returns the company, so the run reads it no more. A claim not taken is told as the
  // company's state tells it: no such company (404), one whose imports wait, else a run holding it.
  const claimed = await claimJobImportRun(companyId, RUN_CLAIM_SECONDS);
  if (!claimed) {
    checkImportable(await requireCompany(companyId));
    throw new ConflictError(`A job import of company ${companyId} is already running.`, 'job_import_running');
  }
  const company = claimed.record;
  let released = false;
  try {
    checkImportable(company);
  } catch (error) {
    await releaseJobImportRun(companyId);
    throw error;
  }
  // P328: what the import compares the feed with (the company's jobs, its last complete run) is read while the
  // ATS is called, beside the credentials and the connector's module (P283); a failure to read it is the
  // import's to report, once the feed is there.
  const base = readImportBase(companyId);
  base.catch(() => undefined);
  const [credentials, loaded] = await Promise.allSettled([loadCredentials(company), loadConnector(company.ats)]);
  // Issue 44: the run's ATS calls are recorded and stored with the run (when, outcome, counts) once it has ended.
  const startedAt = isoNow();
  let calls: AtsCallScope | undefined;
  let callError: unknown;
  const logRun = async (outcome: string, counts: Omit<ImportResult, 'run_id'>, runId: string) =>
    writeJobImportRun(companyId, {
      run_id: runId,
      started_at: startedAt,
      finished_at: isoNow(),
      outcome,
      counts: { created: counts.created, updated: counts.updated, unchanged: counts.unchanged, archived: counts.archived },
      calls: calls ? await deliveryRecords(calls, 1, { error: callError, retrying: false }, []) : [],
    });
  const none = { created: 0, updated: 0, unchanged: 0, archived: 0 };
  try {
    if (loaded.status === 'rejected') throw loaded.reason;
    const connector = loaded.value!;
    let feed;
    try {
      if (credentials.status === 'rejected') throw credentials.reason;
      const listed = await withAtsCalls('listPublishedJobs', async () => {
        redactInScope(Object.values(credentials.value));
        return connector.listPublishedJobs(company, credentials.value);
      });
      calls = listed.scope;
      if (listed.result.status === 'rejected') throw listed.result.reason;
      feed = listed.result.value;
    } catch (error) {
      if (!(error instanceof ConnectorError)) throw error;
      callError = error;
      const reason = error.kind === 'credentials_rejected' ? 'credentials_rejected' : error.retryable ? 'ats_unreachable' : 'invalid_feed';
      await logRun(reason, none, randomUUID());
      return await failRun(company, reason, error.message);
    }
    // No feed (a sandbox company without one): nothing to import, nothing changes.
    if (feed === undefined) {
      recordJobImportRun('success');
      const result = { run_id: randomUUID(), ...none };
      await logRun('success', result, result.run_id);
      return result;
    }
    try {
      // P328: the run's log is written beside the job totals, and the company's write ends the claim.
      const result = await importJobs(companyId, feed, {
        source: 'api',
        onProgress: options.onProgress,
        run: { company: claimed, base, alongside: (done) => logRun('success', done, done.run_id) },
      });
      released = true;
      recordJobImportRun('success', result);
      return result;
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const first = Object.entries(error.errors ?? {})[0];
      await logRun('invalid_feed', none, randomUUID());
      return await failRun(
        company,
        'invalid_feed',
        `the feed does not map to valid jobs (${first ? `${first[0]}: ${first[1].join(' ')}` : error.detail}).`,
      );
    }
  } finally {
    if (!released) await releaseJobImportRun(companyId);
  }
}

/**
 * `hiring-admin jobs import`: an import of a feed the operator gives, under the same claim as a run from the ATS,
 * and refused as such a run is for a deactivated or deleted company (P272). Two runs of one company at a time would
 * each create the jobs new to it (two jobs of one `external_id`), write back jobs the other had changed as they
 * read them, and leave the totals of whichever ran last.
 */
export async function importJobFeed(
  companyId: number,
  feed: unknown,
  options: { complete?: boolean; onProgress?: (done: number, total: number) => void } = {},
): Promise<ImportResult> {
  await parseJobFeed(feed); // a bad file is told as such, whether or not a run holds the company
  // D17: a deactivated or deleted company's imports wait, from a file as from its ATS. An invited or requested one,
  // which has no ATS to import from yet, may be given its jobs from a file (it accepts applications to them).
  const company = await requireCompany(companyId);
  if (company.status === 'deactivated' || company.status === 'deleted') throw importsWait(company);
  if (!(await claimJobImportRun(companyId, RUN_CLAIM_SECONDS)))
    throw new ConflictError(`A job import of company ${companyId} is already running; try again once it has ended.`, 'job_import_running');
  try {
    return await importJobs(companyId, feed, options);
  } finally {
    await releaseJobImportRun(companyId);
  }
}

/** The queue worker's part: one run; a company that may not import (any more) is skipped. */
export async function importFromMessage(message: JobImportMessage): Promise<ImportResult | { skipped: string }> {
  try {
    return await runJobImport(message.company_id);
  } catch (error) {
    // Failed runs are counted and final: the next scheduled run is the retry. Unexpected errors propagate.
    if (error instanceof JobImportFailedError) return { skipped: error.code };
    if (error instanceof ApiError && error.statusCode !== 500) {
      logger.info('job import skipped', { companyId: message.company_id, code: error.code });
      return { skipped: error.code };
    }
    throw error;
  }
}

/** The schedule's part: one message per company with job sync active and a state that imports. */
export async function fanOutJobImports(): Promise<{ queued: number }> {
  const due = (await allCompanies()).filter((c) => syncActive(c, 'job_sync') && deliveryAllowed(c));
  for (let i = 0; i < due.length; i += 10) {
    const chunk = due.slice(i, i + 10);
    const out = await sqs().send(
      new SendMessageBatchCommand({
        QueueUrl: config().jobImportQueueUrl,
        Entries: chunk.map((c) => ({ Id: String(c.id), MessageBody: JSON.stringify({ company_id: c.id } satisfies JobImportMessage) })),
      }),
    );
    if (out.Failed?.length) logger.error('job import messages not sent', { companies: out.Failed.map((f) => f.Id) });
  }
  logger.info('job import fan-out', { queued: due.length });
  return { queued: due.length };
}
