/**
 * Outcomes read back from the ATS (D21, issue 43; P298–P300). Once the ATS has accepted an application, the
 * sync worker starts watching it (`watchDelivered`) when the company's connector reads outcomes
 * (`outcomes.by === 'reading'`). The scheduled pass (`readOutcomes`, every `OUTCOME_POLL_MINUTES`) reads the
 * watched applications due at that pass through the DUE index (P320: every pass in their first day, every 6 hours
 * to day 7, daily to `OUTCOME_TRACK_DAYS`), one `readOutcome` call each, paced by the connector's `pacing`; a
 * changed reading is one write to the application, carrying the event `application.outcome_changed` when the
 * outcome moved; an unchanged one writes nothing. Reading stops at a final
 * outcome (the watch is deleted) and past the tracking window (the query no longer returns it). A ConnectorError
 * for one application is logged by kind and leaves it as it was for its next reading; the others go on. Credentials
 * rejected for reading pause the company's readings until it reconnects (P322).
 */
import { FINAL_OUTCOMES, type ApplicationRecord } from '#applications/applications.js';
import {
  recordOutcome,
  stopWatchingOutcome,
  watchOutcome,
  watchedApplications,
  watchedOutcomeIds,
  oldestWatched,
  outcomeWatchShards,
} from '#applications/outcome-store.js';
import { deliveryAllowed, type CompanyRecord } from '#companies/company-schema.js';
import { getCompanyRecord } from '#companies/company-store.js';
import { now } from '#platform/clock.js';
import { logger } from '#platform/logger.js';
import { ConnectorError, trackingOf, type AtsConnector, type AtsCredentials } from '#delivery/connectors/connector.js';
import { pace } from '#delivery/connectors/http.js';
import { outcomePollRate, rateMilliseconds } from '#delivery/background-functions.js';
import { connectorFor, loadConnector } from '#delivery/connectors/registry.js';
import { loadCredentials } from '#delivery/credentials.js';
import { pauseOutcomeReadings } from '#delivery/ats-connections.js';
import { redactInScope, withAtsCalls } from '#delivery/ats-calls.js';
import { candidateValues, deliveryRecords, writeDeliveryLog, type WorkReading } from '#delivery/delivery-log.js';
import { outcomeTrackDays, positiveSetting as positive } from '#applications/outcome-store.js';

// The tracking window lives with the watch (the ATS webhooks' references read it too, without this module).
export { outcomeTrackDays };

/**
 * The time between two reading passes (ms): `OUTCOME_POLL_MINUTES` (default 60), on AWS as the EventBridge rate
 * synthesized from it (whole minutes), locally as it is (fractions too, P300).
 */
export const outcomePollMs = () =>
  process.env.AWS_LAMBDA_FUNCTION_NAME ? rateMilliseconds(outcomePollRate()) : positive(process.env.OUTCOME_POLL_MINUTES, 60) * 60_000;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/**
 * How often an application is read as it ages (P320): every pass (`OUTCOME_POLL_MINUTES`) in its first day, every
 * 6 hours until it is a week old, then daily until `OUTCOME_TRACK_DAYS`. An interval shorter than the pass is the pass.
 */
export const OUTCOME_SCHEDULE: readonly { fromDays: number; everyMs: number }[] = [
  { fromDays: 0, everyMs: 0 },
  { fromDays: 1, everyMs: 6 * HOUR },
  { fromDays: 7, everyMs: DAY },
];

/** A range of `applied_at` read by a pass: from `from` (inclusive) to `to` (exclusive; none: up to now). */
export interface ReadingWindow {
  from: string;
  to?: string;
}

/**
 * The ranges of `applied_at` whose applications a pass at `at` reads (P320), newest first. The pass's anchor is
 * `at` rounded down to a multiple of the pass interval `pollMs`, so passes one interval apart have anchors one
 * interval apart. In a tier read every `everyMs`, an application is read by the pass whose anchor passes one of
 * the ages `fromDays + j × everyMs` (its age relative to the anchor lies in (that age, that age + pollMs]): the
 * next anchors' windows follow on without gap or overlap, so it is read exactly once per `everyMs`, with no
 * state and no write (a pass that does not run delays these readings by one interval, it loses none). Windows
 * end at the tracking window (`trackDays`) and, when known, at the oldest watched application (`oldest`).
 */
export function readingWindows(at: Date, pollMs: number, trackDays: number, oldest?: string): ReadingWindow[] {
  const anchor = Math.floor(at.getTime() / pollMs) * pollMs;
  const cutoff = at.getTime() - trackDays * DAY;
  const floor = Math.max(cutoff, oldest ? Date.parse(oldest) : -Infinity);
  const windows: ReadingWindow[] = [];
  const add = (from: number, to: number | undefined) => {
    const start = Math.max(from, cutoff);
    if (to !== undefined && to <= Math.max(start, floor)) return;
    windows.push({ from: new Date(start).toISOString(), ...(to !== undefined ? { to: new Date(to).toISOString() } : {}) });
  };
  OUTCOME_SCHEDULE.forEach((tier, i) => {
    const startAge = tier.fromDays * DAY;
    const endAge = Math.min(trackDays * DAY, (OUTCOME_SCHEDULE[i + 1]?.fromDays ?? Infinity) * DAY);
    if (startAge >= endAge) return;
    if (tier.everyMs <= pollMs) return add(anchor - endAge, i === 0 ? undefined : anchor - startAge);
    for (let age = startAge; age < endAge; age += tier.everyMs)
      add(anchor - Math.min(age + pollMs, endAge), i === 0 && age === 0 ? undefined : anchor - age);
  });
  return windows;
}

/**
 * Whether the company's ATS reads outcomes (D21), with the credentials its connection holds: a reading that needs an
 * optional credential (Recruitee's ATS API token, P351) only when the company gave it.
 */
export function readsOutcomes(company: Pick<CompanyRecord, 'ats' | 'ats_connection'>): boolean {
  const outcomes = connectorFor(company.ats)?.outcomes;
  const connection = company.ats_connection?.ats === company.ats ? company.ats_connection : undefined;
  return outcomes !== undefined && trackingOf(outcomes, connection?.optional_credentials).by === 'reading';
}

/**
 * The sync worker, once the ATS accepted the application (SUCCESS or SUCCESS_FALLBACK with the ATS's id): its
 * outcome is read from the next pass on (P300), when the company's connector reads outcomes.
 */
export async function watchDelivered(
  record: Pick<ApplicationRecord, 'id' | 'applied_at'>,
  company: Pick<CompanyRecord, 'ats' | 'ats_connection'>,
  delivered: { externalId: string | null; reference: string; jobExternalId: string },
): Promise<void> {
  if (!delivered.externalId || !readsOutcomes(company)) return;
  await watchOutcome(record, { reference: delivered.reference, job_external_id: delivered.jobExternalId }, outcomeTrackDays());
}

export interface OutcomePass {
  /** Applications read (a `readOutcome` call made). */
  read: number;
  /** Readings that changed the application (one write each). */
  changed: number;
  /** Readings that failed with a ConnectorError or otherwise (left for the next pass). */
  failed: number;
  /** Watches deleted: a final outcome, or nothing left to read (company, connector, application gone). */
  stopped: number;
  /** Companies whose readings this pass paused: the ATS rejected the credentials for them (P322). */
  paused: number;
}

const delivered = (r: ApplicationRecord) => (r.sync_status === 'SUCCESS' || r.sync_status === 'SUCCESS_FALLBACK') && Boolean(r.external_id);

/** What one company's readings need, loaded once a pass. */
interface CompanyReader {
  company: CompanyRecord;
  connector: AtsConnector;
  credentials: AtsCredentials;
}

/** One reading pass over the watched applications due at this pass (P320). */
export async function readOutcomes(): Promise<OutcomePass> {
  const result: OutcomePass = { read: 0, changed: 0, failed: 0, stopped: 0, paused: 0 };
  const at = now();
  const appliedAfter = new Date(at.getTime() - outcomeTrackDays() * DAY).toISOString();
  // Per company, its connector and credentials (or why it cannot be read this pass), loaded at its first application.
  const readers = new Map<number, CompanyReader | 'stop' | 'skip'>();
  for (const shard of outcomeWatchShards()) {
    // P320: only the ranges of `applied_at` due at this pass, none older than the shard's oldest watch (none at all
    // when the shard has no watch in the tracking window).
    const oldest = await oldestWatched(shard, appliedAfter);
    if (!oldest) continue;
    const windows = readingWindows(at, outcomePollMs(), outcomeTrackDays(), oldest);
    const ids: number[] = [];
    for (let w = 0; w < windows.length; w += 8)
      for (const found of await Promise.all(windows.slice(w, w + 8).map((window) => watchedOutcomeIds(shard, window)))) ids.push(...found);
    for (let i = 0; i < ids.length; i += 50) {
      for (const { watch, record } of await watchedApplications(ids.slice(i, i + 50))) {
        if (!record || record.personal_data_deleted_at || FINAL_OUTCOMES.includes(record.outcome!)) {
          await stopWatchingOutcome(watch.id);
          result.stopped += 1;
          continue;
        }
        if (!delivered(record)) continue;
        let reader = readers.get(record.company);
        if (!reader) readers.set(record.company, (reader = await companyReader(record.company)));
        if (reader === 'skip') continue;
        if (reader === 'stop') {
          await stopWatchingOutcome(watch.id);
          result.stopped += 1;
          continue;
        }
        await pace(reader.connector.slug, reader.connector.pacing);
        result.read += 1;
        // Issue 44 (D23): every reading's ATS calls are kept in the delivery log, unchanged ones too (P350: one
        // write per ATS call, as the issue allows; P307 logged only changes and failures).
        const { scope, result: read } = await withAtsCalls('readOutcome', () => {
          redactInScope(Object.values(reader.credentials));
          return reader.connector.readOutcome!(
            {
              externalId: record.external_id!,
              jobExternalId: watch.job_external_id,
              reference: watch.reference,
              appliedAt: record.applied_at,
            },
            reader.credentials,
            reader.company,
          );
        });
        const log = async (reading: WorkReading) =>
          writeDeliveryLog(record.id, await deliveryRecords(scope, 1, reading, candidateValues(record)));
        if (read.status === 'rejected') {
          const error = read.reason;
          result.failed += 1;
          await log({ error, retrying: true });
          // P322: credentials rejected for reading (401/403, a missing read scope or permission): the company's
          // readings pause until its credentials change, from this pass on; its submissions are left alone.
          if (error instanceof ConnectorError && error.kind === 'credentials_rejected') {
            readers.set(record.company, 'skip');
            if (await pauseOutcomeReadings(reader.company, error)) result.paused += 1;
          }
          // The ATS's own text can echo the candidate: the log names the error's kind only (as P284 for the sync).
          if (error instanceof ConnectorError)
            logger.warn('outcome reading failed', { applicationId: record.id, ats: reader.connector.slug, kind: error.kind });
          else
            logger.error('outcome reading failed unexpectedly', {
              applicationId: record.id,
              ats: reader.connector.slug,
              error: error as Error,
            });
          continue;
        }
        const reading = read.value;
        const unchanged = reading.outcome === (record.outcome ?? null) && reading.stage === (record.outcome_stage ?? null);
        // The change first, then its log record (an application anonymized meanwhile fails the change's condition).
        const recorded = !unchanged && (await recordOutcome(record, reading, now().toISOString()));
        await log({ retrying: false });
        if (!recorded) continue;
        result.changed += 1;
        if (FINAL_OUTCOMES.includes(reading.outcome)) {
          await stopWatchingOutcome(watch.id);
          result.stopped += 1;
        }
      }
    }
  }
  // A pass that found nothing to do is a debug line: `npm start` reads every 6 s (P300), and an operator's terminal
  // would fill with empty passes (P381).
  if (Object.values(result).some((count) => count > 0)) logger.info('outcome pass', { ...result });
  else logger.debug('outcome pass', { ...result });
  return result;
}

/**
 * A company's reader, or `stop` when its applications are no longer read (company deleted, its ATS no longer
 * reads outcomes), or `skip` for this pass (deliveries wait: deactivated; its credentials cannot be opened; its
 * readings are paused, P322).
 */
async function companyReader(companyId: number): Promise<CompanyReader | 'stop' | 'skip'> {
  const company = await getCompanyRecord(companyId);
  if (!company || company.status === 'deleted' || !readsOutcomes(company)) return 'stop';
  if (!deliveryAllowed(company)) return 'skip';
  if (company.ats_connection?.outcomes_paused) return 'skip'; // P322: until the credentials change
  const connector = await loadConnector(company.ats);
  if (!connector?.readOutcome) return 'stop';
  try {
    return { company, connector, credentials: await loadCredentials(company) };
  } catch (error) {
    logger.warn('outcome readings wait: credentials', { companyId, kind: error instanceof ConnectorError ? error.kind : 'error' });
    return 'skip';
  }
}
