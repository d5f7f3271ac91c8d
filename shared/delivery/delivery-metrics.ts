/**
 * The delivery side's metrics (see `#platform/service-metrics.js`): sync outcomes by ATS, status and
 * `failure_error`; partner webhook deliveries by result; job import runs by result with the jobs they changed.
 * Every dimension value comes from a closed set (registered connector slugs, statuses, error class names);
 * an unknown value is emitted as `other`, never as given.
 */
import { emitMetrics } from '#platform/service-metrics.js';
import { FAILURE_ERROR_NAMES } from '#delivery/connectors/connector.js';
import { connectorFor } from '#delivery/connectors/registry.js';

/** Every `failure_error` the sync worker records: the connector errors' names and its own two. */
export const SYNC_FAILURE_ERRORS: readonly string[] = [...Object.values(FAILURE_ERROR_NAMES), 'NoConnectorError', 'SyncError'];

/** The ATS dimension: a registered connector's slug, `none` without an ATS, `other` for anything else. */
export function atsDimension(ats: string | null | undefined): string {
  if (!ats) return 'none';
  return connectorFor(ats)?.slug ?? 'other';
}

/** One final sync outcome written (`SyncOutcomes`, dimensions ats, sync_status, failure_error). */
export function recordSyncOutcome(ats: string | null | undefined, syncStatus: string, failureError: string | null): void {
  const failure = failureError === null ? 'none' : SYNC_FAILURE_ERRORS.includes(failureError) ? failureError : 'other';
  emitMetrics({ ats: atsDimension(ats), sync_status: syncStatus, failure_error: failure }, [
    { name: 'SyncOutcomes', unit: 'Count', value: 1 },
  ]);
}

export type WebhookDeliveryResult = 'delivered' | 'failed' | 'dropped';

/** One webhook delivery attempt (`WebhookDeliveries`, dimension result). */
export function recordWebhookDelivery(result: WebhookDeliveryResult): void {
  emitMetrics({ result }, [{ name: 'WebhookDeliveries', unit: 'Count', value: 1 }]);
}

export type JobImportRunResult = 'success' | 'credentials_rejected' | 'ats_unreachable' | 'invalid_feed';

/** One job import run (`JobImportRuns`, dimension result) with the jobs it created, updated, archived and left unchanged. */
export function recordJobImportRun(
  result: JobImportRunResult,
  jobs: { created: number; updated: number; unchanged: number; archived: number } = { created: 0, updated: 0, unchanged: 0, archived: 0 },
): void {
  emitMetrics({ result }, [
    { name: 'JobImportRuns', unit: 'Count', value: 1 },
    { name: 'JobsCreated', unit: 'Count', value: jobs.created },
    { name: 'JobsUpdated', unit: 'Count', value: jobs.updated },
    { name: 'JobsArchived', unit: 'Count', value: jobs.archived },
    { name: 'JobsUnchanged', unit: 'Count', value: jobs.unchanged },
  ]);
}

/** Delivery log records (issue 44) that could not be written (`DeliveryLogWriteFailures`): the sync went on without them. */
export function recordDeliveryLogWriteFailure(records: number): void {
  emitMetrics({}, [{ name: 'DeliveryLogWriteFailures', unit: 'Count', value: records }]);
}
