/**
 * The delivery log (issue 44, D23): every ATS call made for an application, one item per call beside the
 * application (`keys.deliveryLog`), written after the attempt in one BatchWrite per 25 calls (one write request per
 * call, 1 write unit for a record up to 1 KB), redacted (`#delivery/log-redaction.js`, P305), expiring after
 * `DELIVERY_LOG_DAYS` (default 30) and deleted with the application's personal data (D10). A write that fails never
 * fails the sync: it is logged without the records and counted (`DeliveryLogWriteFailures`).
 *
 * A job import run's ATS calls are kept the same way under its company (`keys.jobImportRun`): one item for the
 * run (when, outcome, counts) and one per call.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchDelete, batchPut, queryAll } from '#platform/batch.js';
import { config, db } from '#platform/clients.js';
import { DELIVERY_LOG_PREFIX, JOB_IMPORT_RUN_PREFIX, expiringAt, keys } from '#platform/keys.js';
import { logger } from '#platform/logger.js';
import { envelope, invalidCursor, pageRequest, type LinkContext, type PageEnvelope, type PageRequest } from '#platform/pagination.js';
import type { QueryParams } from '#platform/query-params.js';
import { NotFoundError } from '#platform/errors.js';
import { getApplicationRecord } from '#applications/application-store.js';
import { isAnonymized, type ApplicationRecord } from '#applications/applications.js';
import type { AtsCallScope } from '#delivery/ats-calls.js';
import { ConnectorError } from '#delivery/connectors/connector.js';
import { recordDeliveryLogWriteFailure } from '#delivery/delivery-metrics.js';
import { errorCodeOf, redactExcerpt } from '#delivery/log-redaction.js';

export const deliveryLogDays = () => Number(process.env.DELIVERY_LOG_DAYS ?? 30);

let logOn = true;
/** Whether attempts build and write their log: always, except while `npm run bench:bill` times a sync without it (P326). */
export const deliveryLogOn = () => logOn;
/** Bench seam (P326): turns the building and writing of the sync's log off and on again, within one process. */
export function setDeliveryLog(on: boolean): void {
  logOn = on;
}

export type DeliveryResult = 'accepted' | 'retry' | 'failed';

/** One ATS call as the API, the CLI and the store show it. */
export interface DeliveryRecord {
  attempt: number;
  at: string;
  operation: string;
  /** Null on a `prepare` record: the attempt failed before any ATS call (P325). */
  method: string | null;
  url: string | null;
  status: number | null;
  duration_ms: number;
  result: DeliveryResult;
  failure_error: string | null;
  error_code: string | null;
  response_excerpt: string;
  fields_sent: string[];
}

/** How the unit of work ended: its error (undefined when it succeeded), and whether a retry follows. */
export interface WorkReading {
  error?: unknown;
  retrying: boolean;
  /** The `failure_error` when it is not the error's own name (`NoConnectorError`, decided without an error). */
  failureError?: string;
}

/** The `failure_error` a unit of work led to: the connector error's name, `SyncError` for an unexpected one. */
function failureErrorOf(reading: WorkReading): string | null {
  if (reading.failureError) return reading.failureError;
  if (reading.error === undefined) return null;
  return reading.error instanceof ConnectorError ? reading.error.name : 'SyncError';
}

/**
 * P325: a unit of work that failed before its first ATS call (no credentials stored, an attachment that cannot be
 * read or that the ATS's limits refuse, no connector) is one record, `operation: 'prepare'`, without method, URL or
 * status: the log then answers "did it reach the ATS?" with no. Its excerpt is our own reason (a connector error's
 * message, which names no candidate value and is redacted all the same; an unexpected error's name only).
 */
function preparationRecord(scope: AtsCallScope, attempt: number, reading: WorkReading, redact: unknown[]): DeliveryRecord {
  const reason = reading.error instanceof ConnectorError ? reading.error.message : reading.error instanceof Error ? reading.error.name : '';
  return {
    attempt,
    at: new Date(scope.started).toISOString(),
    operation: 'prepare',
    method: null,
    url: null,
    status: null,
    duration_ms: Math.max(0, Date.now() - scope.started),
    result: reading.retrying ? 'retry' : 'failed',
    failure_error: failureErrorOf(reading),
    error_code: null,
    response_excerpt: redactExcerpt(reason, [...redact, ...scope.secrets]),
    fields_sent: [],
  };
}

const pad = (n: number) => String(n).padStart(4, '0');
const RECORD_FIELDS = [
  'attempt',
  'at',
  'operation',
  'method',
  'url',
  'status',
  'duration_ms',
  'result',
  'failure_error',
  'error_code',
  'response_excerpt',
  'fields_sent',
] as const;

/** A call's reading by its status alone: 2xx accepted; no answer, 429 or 5xx a retry; anything else failed. */
function resultOfStatus(status: number | undefined): DeliveryResult {
  if (status !== undefined && status >= 200 && status < 300) return 'accepted';
  return status === undefined || status === 429 || status >= 500 ? 'retry' : 'failed';
}

/**
 * The records of a scope's calls: each read by its status, except the last call of a unit of work that failed,
 * which carries the work's reading (`retry` when a retry follows, else `failed`) and the `failure_error` it led to;
 * a unit of work that failed before any call, one `prepare` record (P325).
 * `redact` lists the values no excerpt may hold (the candidate's contact data and names, credentials).
 */
export async function deliveryRecords(
  scope: AtsCallScope,
  attempt: number,
  reading: WorkReading,
  redact: unknown[],
): Promise<DeliveryRecord[]> {
  const failureError = failureErrorOf(reading);
  if (!scope.calls.length) return failureError === null ? [] : [preparationRecord(scope, attempt, reading, redact)];
  return Promise.all(
    scope.calls.map(async (call, index) => {
      const raw = await call.response;
      const deciding = failureError !== null && index === scope.calls.length - 1;
      return {
        attempt,
        at: new Date(call.at).toISOString(),
        operation: scope.operation,
        method: call.method,
        url: redactExcerpt(call.url, [...scope.secrets, ...call.secrets], 512),
        status: call.status ?? null,
        duration_ms: call.duration_ms,
        result: deciding ? (reading.retrying ? 'retry' : 'failed') : resultOfStatus(call.status),
        failure_error: deciding ? failureError : null,
        error_code: errorCodeOf(raw) === null ? null : redactExcerpt(errorCodeOf(raw)!, [...redact, ...scope.secrets, ...call.secrets], 64),
        response_excerpt: redactExcerpt(raw, [...redact, ...scope.secrets, ...call.secrets]),
        fields_sent: call.fields_sent,
      } satisfies DeliveryRecord;
    }),
  );
}

/** The candidate's values (e-mail, phone, names, any other string) that no delivery log excerpt may hold (P305). */
export function candidateValues(record: ApplicationRecord): unknown[] {
  const candidate = record.candidate ?? {};
  const name = [candidate.first_name, candidate.last_name].filter(Boolean).join(' ');
  return [...Object.values(candidate), name];
}

const expiry = () => expiringAt(Math.floor(Date.now() / 1000) + deliveryLogDays() * 86_400);

/** Puts items (one write request each); a failure is logged without them and counted, never thrown. */
async function putQuietly(items: Record<string, unknown>[], about: Record<string, unknown>): Promise<boolean> {
  if (!items.length) return true;
  try {
    await batchPut(items);
    return true;
  } catch (error) {
    recordDeliveryLogWriteFailure(items.length);
    logger.warn('delivery log not written', { ...about, records: items.length, error: (error as Error).name });
    return false;
  }
}

/** Stores an attempt's records beside the application, after the attempt; false when the write failed (counted). */
export async function writeDeliveryLog(applicationId: number, records: DeliveryRecord[]): Promise<boolean> {
  const expires = expiry();
  const items = records.map((record, index) => ({
    ...keys.deliveryLog(applicationId, `${record.at}#${pad(record.attempt)}#${pad(index)}`),
    ...record,
    ...expires,
  }));
  return putQuietly(items, { applicationId });
}

/**
 * Builds a unit of work's records and stores them (P326: the sync starts this beside its own writes); resolves false
 * when they were not stored, never rejects: a failure to build them is counted and logged like a failed write.
 */
export async function logAttempt(
  applicationId: number,
  scope: AtsCallScope,
  attempt: number,
  reading: WorkReading,
  redact: unknown[],
): Promise<boolean> {
  let records: DeliveryRecord[];
  try {
    records = await deliveryRecords(scope, attempt, reading, redact);
  } catch (error) {
    recordDeliveryLogWriteFailure(Math.max(scope.calls.length, 1));
    logger.warn('delivery log not written', { applicationId, error: (error as Error).name });
    return false;
  }
  return writeDeliveryLog(applicationId, records);
}

const recordOf = (item: Record<string, unknown>): DeliveryRecord => {
  const record = Object.create(null) as Record<string, unknown>;
  for (const field of RECORD_FIELDS) record[field] = item[field] ?? null;
  record.fields_sent = Array.isArray(item.fields_sent) ? item.fields_sent : [];
  return { ...record } as unknown as DeliveryRecord;
};

const logQuery = (applicationId: number) => ({
  KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
  ExpressionAttributeValues: { ':pk': keys.application(applicationId).PK, ':prefix': DELIVERY_LOG_PREFIX },
});

/**
 * One page of an application's log, newest first, with the total and the position after it (the last sort key
 * read). Without a cursor the log is read whole (an application's calls are few: attempts × calls per attempt);
 * with one, only the page from its position.
 */
export async function deliveryLogPage(
  applicationId: number,
  request: PageRequest,
): Promise<{ count: number; records: DeliveryRecord[]; position?: Record<string, string> }> {
  const { page, pageSize, cursor } = request;
  if (cursor) {
    const sk = cursor.position.sk;
    if (typeof sk !== 'string' || !sk.startsWith(DELIVERY_LOG_PREFIX)) throw invalidCursor();
    const out = await db().send(
      new QueryCommand({
        TableName: config().tableName,
        ...logQuery(applicationId),
        ScanIndexForward: false,
        Limit: pageSize,
        ExclusiveStartKey: keys.deliveryLog(applicationId, sk.slice(DELIVERY_LOG_PREFIX.length)),
      }),
    );
    const items = out.Items ?? [];
    const last = items[items.length - 1];
    return { count: cursor.count, records: items.map(recordOf), ...(last ? { position: { sk: String(last.SK) } } : {}) };
  }
  const items = await queryAll({ ...logQuery(applicationId), ScanIndexForward: false });
  const pageItems = items.slice((page - 1) * pageSize, page * pageSize);
  const last = pageItems[pageItems.length - 1];
  return { count: items.length, records: pageItems.map(recordOf), ...(last ? { position: { sk: String(last.SK) } } : {}) };
}

/**
 * `GET /applications/{id}/deliveries` (D23): the application's log, newest first, paged like the spec's lists
 * (`page`, `page_size`, a sealed `cursor` in `next`). Another company's application, or none, is a 404, as for
 * `GET /applications/{id}`; an anonymized application's log is empty (D10: deleted with its personal data, and
 * never shown once it reads as anonymized).
 */
export async function listDeliveries(
  companyId: number,
  applicationId: number,
  q: QueryParams,
  link: LinkContext,
): Promise<PageEnvelope<DeliveryRecord>> {
  const record = await getApplicationRecord(applicationId);
  if (!record || record.company !== companyId) throw new NotFoundError();
  const options = { scope: `deliveries:company:${companyId}:application:${applicationId}`, filterParams: [] };
  const request = pageRequest(q, options);
  if (record.personal_data_deleted_at || isAnonymized(record)) return envelope(link, options, request, { count: 0 }, []);
  const page = await deliveryLogPage(applicationId, request);
  return envelope(link, options, request, page, page.records);
}

/**
 * `hiring-admin applications deliveries ID` (issue 44): an application's whole log, newest first, with its sync
 * status; an operator's read, so any company's application. A missing application is a 404.
 */
export async function applicationDeliveries(
  applicationId: number,
): Promise<{ application: number; company: number; sync_status: string; failure_error: string | null; deliveries: DeliveryRecord[] }> {
  const record = await getApplicationRecord(applicationId);
  if (!record) throw new NotFoundError(`Application ${applicationId} does not exist.`);
  const items = await queryAll({ ...logQuery(applicationId), ScanIndexForward: false, ConsistentRead: true });
  return {
    application: record.id,
    company: record.company,
    sync_status: record.sync_status,
    failure_error: record.failure_error ?? null,
    deliveries: items.map(recordOf),
  };
}

/** D10: deletes an application's log with its personal data; how many records went. */
export async function deleteDeliveryLog(applicationId: number): Promise<number> {
  const items = await queryAll({ ...logQuery(applicationId), ProjectionExpression: 'PK, SK' });
  await batchDelete(items as { PK: unknown; SK: unknown }[]);
  return items.length;
}

/** One job import run as `hiring-admin jobs runs` shows it. */
export interface JobImportRunRecord {
  run_id: string;
  started_at: string;
  finished_at: string;
  outcome: string;
  counts: { created: number; updated: number; unchanged: number; archived: number };
  calls: DeliveryRecord[];
}

/** Stores a run and its calls under the company (never thrown: a failure is counted). */
export async function writeJobImportRun(companyId: number, run: JobImportRunRecord): Promise<boolean> {
  const sort = `${run.started_at}#${run.run_id}`;
  const expires = expiry();
  const { calls, ...summary } = run;
  const items = [
    { ...keys.jobImportRun(companyId, sort), ...summary, calls: calls.length, ...expires },
    ...calls.map((call, index) => ({ ...keys.jobImportRun(companyId, `${sort}#CALL#${pad(index)}`), ...call, ...expires })),
  ];
  return putQuietly(items, { companyId });
}

/** A company's last `limit` job import runs, newest first, each with its calls in the order they were made. */
export async function jobImportRuns(companyId: number, limit = 10): Promise<JobImportRunRecord[]> {
  const runs: JobImportRunRecord[] = [];
  const calls = new Map<string, DeliveryRecord[]>();
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db().send(
      new QueryCommand({
        TableName: config().tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.company(companyId).PK, ':prefix': JOB_IMPORT_RUN_PREFIX },
        ScanIndexForward: false,
        ExclusiveStartKey: start,
      }),
    );
    // In reverse order a run's calls come before the run's own item.
    for (const item of out.Items ?? []) {
      const sk = String(item.SK);
      const at = sk.indexOf('#CALL#');
      if (at >= 0) {
        const run = sk.slice(0, at);
        calls.set(run, [recordOf(item), ...(calls.get(run) ?? [])]);
        continue;
      }
      const { run_id, started_at, finished_at, outcome, counts } = item as Record<string, unknown>;
      runs.push({
        run_id: String(run_id),
        started_at: String(started_at),
        finished_at: String(finished_at),
        outcome: String(outcome),
        counts: counts as JobImportRunRecord['counts'],
        calls: calls.get(sk) ?? [],
      });
      if (runs.length >= limit) return runs;
    }
    start = out.LastEvaluatedKey;
  } while (start);
  return runs;
}
