/**
 * Dispositions to job boards (D22, issue 43 item 4; P315–P319): an application that came in through an apply
 * channel reports its status back to that channel, at least once, oldest change first, retried for more than 24 h.
 *
 * Built into the partner webhooks' machinery (D19) rather than beside it:
 * - A change of the ATS's stage alone is no event (D21: partners hear outcome moves only); the relay hands it to
 *   the same worker as a `disposition-stage` message (P345), queued like an outcome change.
 * - The webhook worker's fan-out sees every event of the topic. For an application's `sync_status_changed`
 *   (the ATS has it: `NEW`; or a delivery failure) and `outcome_changed` (the ATS moved it), when the application
 *   came in through an apply channel that reports dispositions, `queueDisposition` writes the disposition into the
 *   channel's queue (`keys.disposition`: one partition per channel, sorted by the change's time) and, when none is
 *   due yet, marks a flush due and asks for one `disposition-flush` message on the webhook queue, delayed by
 *   `DISPOSITION_BATCH_SECONDS` (P316): changes within that window share a request.
 * - `flushDispositions` (the same worker, on that message) takes the channel's lease, sends what waits, oldest
 *   first, in requests of at most 25 (Indeed) or one signed POST each (`generic`), and deletes what was taken. A
 *   failure stops the flush where it is (nothing later overtakes it) and the message comes back with the
 *   webhooks' backoff (P130/P266: over 24 h before the DLQ).
 * Only the board's own ids and statuses leave (application, job, the board's `partner_application_id`, status,
 * the ATS's stage name, time): no personal data, never a secret.
 */
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { StageChange } from '#applications/application-events.js';
import { dispositionFormat, loadDispositionTarget, type ApplyFormat, type DispositionTarget } from '#companies/apply-channels.js';
import { INDEED_BATCH_LIMIT, IndeedSendError, sendIndeedDispositions } from '#delivery/indeed-dispositions.js';
import { DeliveryFailed, post, signedHeaders, webhookRetryDelaySeconds, type WebhookEvent } from '#delivery/webhooks.js';
import { batchDelete } from '#platform/batch.js';
import { config, db } from '#platform/clients.js';
import { now } from '#platform/clock.js';
import { isConditionFailure } from '#platform/errors.js';
import { expiringAt, keys } from '#platform/keys.js';
import { logger } from '#platform/logger.js';

/** How long changes gather before they go out (at most; P316). */
export const dispositionBatchSeconds = () => Math.min(Math.max(Math.round(Number(process.env.DISPOSITION_BATCH_SECONDS ?? 60)), 0), 900);
/** A queued disposition not delivered within this long expires (the retries give up after about 2 days, P130). */
const KEEP_DAYS = 14;
/** A flush holds its channel's lease for at most this long (twice the worker's timeout), so a crash never blocks it. */
const LEASE_SECONDS = 120;
/** Requests per flush; what is left goes on in the next message at once (the worker's 60 s timeout). */
const REQUESTS_PER_FLUSH = 8;

/**
 * The board-neutral statuses we report (P319). `generic` channels get them as they are; Indeed gets its own
 * (`indeedStatus`). `NOT_DELIVERED`: the ATS refused the application for another reason (sync `FAILURE`).
 */
export type DispositionStatus =
  'NEW' | 'PENDING' | 'HIRED' | 'REJECTED' | 'WITHDRAWN' | 'DROPPED_DUPLICATE' | 'DROPPED_JOB_EXPIRED' | 'NOT_DELIVERED';

/** The message that asks for a channel's flush. */
export interface DispositionFlushMessage {
  kind: 'disposition-flush';
  channel: number;
}

export const isDispositionFlush = (body: unknown): body is DispositionFlushMessage =>
  (body as Partial<DispositionFlushMessage>)?.kind === 'disposition-flush' &&
  Number.isSafeInteger((body as DispositionFlushMessage).channel);

/** A queued disposition, as stored and as a `generic` board receives its `data`. */
export interface Disposition {
  application: number;
  partner_application_id: string | null;
  job: number;
  status: DispositionStatus;
  stage: string | null;
  occurred_at: string;
}

/** The status an event reports, if it reports one (P319). */
export function dispositionStatusOf(event: WebhookEvent): DispositionStatus | undefined {
  if (event.type === 'application.outcome_changed') {
    const outcome = event.data.outcome;
    return outcome === 'PENDING' || outcome === 'HIRED' || outcome === 'REJECTED' || outcome === 'WITHDRAWN' ? outcome : undefined;
  }
  if (event.type !== 'application.sync_status_changed') return undefined;
  switch (event.data.sync_status) {
    case 'SUCCESS':
    case 'SUCCESS_FALLBACK':
      return 'NEW';
    case 'EXPECTED_FAILURE':
      return event.data.failure_error === 'DuplicateApplicationError'
        ? 'DROPPED_DUPLICATE'
        : event.data.failure_error === 'JobNotPublishedError'
          ? 'DROPPED_JOB_EXPIRED'
          : 'NOT_DELIVERED';
    case 'FAILURE':
      return 'NOT_DELIVERED';
    default:
      return undefined;
  }
}

/** Indeed's words for a stage of an application still in progress, from the ATS's stage name (P319). */
const PENDING_STAGES: [RegExp, string][] = [
  [/background/i, 'BACKGROUND_CHECK'],
  [/offer/i, 'OFFER_MADE'],
  [/interview/i, 'INTERVIEW'],
  [/assess|test|assignment/i, 'ASSESS_QUALIFICATIONS'],
  [/screen/i, 'SCREEN'],
  [/contact/i, 'CONTACTED'],
  [/review/i, 'REVIEW'],
];

/** The `IndeedDispositionStatus` of a disposition, or undefined where none fits (then nothing goes to Indeed). */
export function indeedStatus(status: DispositionStatus, stage: string | null): string | undefined {
  switch (status) {
    case 'NEW':
    case 'HIRED':
    case 'WITHDRAWN':
    case 'DROPPED_DUPLICATE':
    case 'DROPPED_JOB_EXPIRED':
      return status;
    case 'REJECTED':
      return 'NOT_SELECTED';
    case 'PENDING':
      return PENDING_STAGES.find(([pattern]) => stage !== null && pattern.test(stage))?.[1] ?? 'UNABLE_TO_MAP';
    case 'NOT_DELIVERED':
      return undefined;
  }
}

const SOURCE_FIELDS = ['company', 'job', 'import_source', 'talent_channel', 'partner_application_id', 'outcome', 'outcome_stage'];

/** What the fan-out needs of the application: where it came from and the board's id (one small read). */
async function applicationSource(id: number) {
  const out = await db().send(
    new GetCommand({
      TableName: config().tableName,
      Key: keys.application(id),
      ProjectionExpression: SOURCE_FIELDS.map((_, n) => `#f${n}`).join(', '),
      ExpressionAttributeNames: Object.fromEntries(SOURCE_FIELDS.map((name, n) => [`#f${n}`, name])),
    }),
  );
  return out.Item as
    | {
        company: number;
        job: number;
        import_source?: string;
        talent_channel?: number | null;
        partner_application_id?: string | null;
        outcome?: string;
        outcome_stage?: string;
      }
    | undefined;
}

/**
 * The fan-out's part (P316): queues the disposition an event reports, if the application came in through an apply
 * channel that reports them, and resolves to the flush message to send (delayed by the batch window) when this
 * disposition is the first to wait since the last flush began. Idempotent per event (its key derives from it).
 */
export async function queueDisposition(event: WebhookEvent): Promise<DispositionFlushMessage | undefined> {
  const status = dispositionStatusOf(event);
  if (!status) return undefined;
  const id = Number(event.type === 'application.outcome_changed' ? event.data.id : event.data.application_id);
  if (!Number.isSafeInteger(id)) return undefined;
  const source = await applicationSource(id);
  // Only what came in through the channel's own endpoint: a partner may name any talent channel on a create.
  if (!source || source.company !== event.company || source.import_source !== 'apply_webhook' || !source.talent_channel) return undefined;
  const channel = source.talent_channel;
  const format: ApplyFormat | undefined = await dispositionFormat(channel);
  if (!format) return undefined;
  // The stage belongs to this change only while the application still holds its outcome.
  const stage = status !== 'NEW' && source.outcome === event.data.outcome ? (source.outcome_stage ?? null) : null;
  const partnerId = source.partner_application_id ?? null;
  if (format === 'indeed' && (!partnerId || !indeedStatus(status, stage))) return undefined;
  const disposition: Disposition = {
    application: id,
    partner_application_id: partnerId,
    job: Number(source.job),
    status,
    stage,
    occurred_at: event.occurred_at,
  };
  return enqueue(channel, disposition, String(event.sequence ?? 0).padStart(8, '0'), event.id);
}

/**
 * The webhook worker's part for a stage-only change the relay handed it (P345): the same disposition as an outcome
 * change's, with the outcome (unchanged) as the status and the new stage (Indeed's raw status, and what its status
 * maps from while PENDING), queued and batched the same way. Read from the write's new image, so no application
 * read; only the channel's setting.
 */
export async function queueStageDisposition(change: StageChange): Promise<DispositionFlushMessage | undefined> {
  const status = change.outcome as DispositionStatus;
  if (!['PENDING', 'HIRED', 'REJECTED', 'WITHDRAWN'].includes(status)) return undefined;
  const format = await dispositionFormat(change.channel);
  if (!format) return undefined;
  if (format === 'indeed' && (!change.partner_application_id || !indeedStatus(status, change.stage))) return undefined;
  const disposition: Disposition = {
    application: change.application,
    partner_application_id: change.partner_application_id,
    job: change.job,
    status,
    stage: change.stage,
    occurred_at: change.occurred_at,
  };
  // After the event numbered `sequence` (same time is impossible: each is its own write); `s` keeps the keys apart.
  return enqueue(change.channel, disposition, `${String(change.sequence).padStart(8, '0')}s`, change.id);
}

/**
 * Writes a disposition into its channel's queue (oldest first by its time) and resolves to the flush message to
 * send when it is the first to wait since the last flush began (P316). Idempotent: the key derives from the change.
 */
async function enqueue(
  channel: number,
  disposition: Disposition,
  order: string,
  eventId: string,
): Promise<DispositionFlushMessage | undefined> {
  const sort = `${disposition.occurred_at}#${String(disposition.application).padStart(16, '0')}#${order}`;
  await db().send(
    new PutCommand({
      TableName: config().tableName,
      Item: {
        ...keys.disposition(channel, sort),
        ...disposition,
        event_id: eventId,
        ...expiringAt(Math.floor(now().getTime() / 1000) + KEEP_DAYS * 86_400),
      },
    }),
  );
  // A flush is due already (and will take this one) unless this disposition is the first since one began.
  const first = await updateState(channel, 'SET flush_due = :at', 'attribute_not_exists(flush_due)', { ':at': now().toISOString() });
  return first ? { kind: 'disposition-flush', channel } : undefined;
}

/** A conditional update of the channel's flush state (P316); false when its condition did not hold. */
async function updateState(channel: number, update: string, condition: string, values: Record<string, unknown>): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: keys.dispositionState(channel),
        UpdateExpression: update,
        ConditionExpression: condition,
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

interface Queued extends Disposition {
  PK: string;
  SK: string;
  event_id: string;
}

async function waiting(channel: number, limit: number): Promise<Queued[]> {
  const out = await db().send(
    new QueryCommand({
      TableName: config().tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :q)',
      ExpressionAttributeValues: { ':pk': keys.dispositionState(channel).PK, ':q': 'Q#' },
      ConsistentRead: true,
      Limit: limit,
    }),
  );
  return (out.Items ?? []) as Queued[];
}

/** Sends one request's worth; resolves to the dispositions it is done with (sent, or refused for good). */
async function sendSome(target: DispositionTarget, items: Queued[]): Promise<{ done: Queued[]; error?: string }> {
  if (target.format === 'indeed') {
    try {
      const { failed } = await sendIndeedDispositions(
        target,
        items.map((d) => ({
          identifiedBy: { indeedApplyID: d.partner_application_id! },
          dispositionStatus: indeedStatus(d.status, d.stage)!,
          rawDispositionStatus: d.stage ?? d.status,
          statusChangeDateTime: d.occurred_at,
        })),
      );
      // Refused one by one (an id Indeed does not know): repeating them cannot help; counted, not kept.
      if (failed.length) logger.warn('Indeed refused dispositions', { channel: target.channel_id, refused: failed.length });
      return { done: items };
    } catch (error) {
      if (error instanceof IndeedSendError && !error.retry) {
        logger.error('Indeed refused a disposition request; its dispositions are dropped', { channel: target.channel_id, error });
        return { done: items };
      }
      return { done: [], error: (error as Error).message };
    }
  }
  const done: Queued[] = [];
  for (const d of items) {
    const data: Disposition = {
      application: d.application,
      partner_application_id: d.partner_application_id,
      job: d.job,
      status: d.status,
      stage: d.stage,
      occurred_at: d.occurred_at,
    };
    const body = JSON.stringify({ type: 'application.disposition', timestamp: d.occurred_at, data });
    const result = await post(new URL(target.url), signedHeaders(target.secret, { id: `disp_${d.event_id}` }, body, now()), body);
    if (result.error) return { done, error: `disposition POST: ${result.error}` };
    done.push(d);
  }
  return { done };
}

/**
 * One flush of a channel's queue (P316): under the channel's lease, requests of what waits, oldest first, until
 * nothing waits or `REQUESTS_PER_FLUSH` went out (then `more`: the worker asks for the next flush at once).
 * Throws `DeliveryFailed` (the message comes back with the backoff of attempt `attempt`) when the board did not
 * take a request, or another flush holds the lease.
 */
export async function flushDispositions(channel: number, attempt: number): Promise<{ sent: number; more: boolean }> {
  const at = now();
  const lease = at.getTime() + LEASE_SECONDS * 1000;
  const leased = await updateState(
    channel,
    'SET lease_until = :until REMOVE flush_due',
    'attribute_not_exists(lease_until) OR lease_until < :now',
    { ':until': lease, ':now': at.getTime() },
  );
  if (!leased) throw new DeliveryFailed(Math.max(dispositionBatchSeconds(), 5), 'another flush holds the lease');
  let sent = 0;
  try {
    const target = await loadDispositionTarget(channel);
    for (let request = 0; request < REQUESTS_PER_FLUSH; request++) {
      const items = await waiting(channel, INDEED_BATCH_LIMIT);
      if (!items.length) return { sent, more: false };
      // A channel that stopped reporting: what waited for it goes (nothing else would send it).
      const { done, error } = target ? await sendSome(target, items) : { done: items, error: undefined };
      if (done.length) await batchDelete(done.map((d) => ({ PK: d.PK, SK: d.SK })));
      sent += target ? done.length : 0;
      if (error) throw new DeliveryFailed(webhookRetryDelaySeconds(attempt), `channel ${channel}: ${error}`);
    }
    return { sent, more: (await waiting(channel, 1)).length > 0 };
  } finally {
    // Gives back only its own lease (one that ran out may have been taken by another flush meanwhile).
    await updateState(channel, 'REMOVE lease_until', 'lease_until = :until', { ':until': lease });
  }
}
