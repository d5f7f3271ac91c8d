/**
 * The event relay (issue 12, P115; P240): the only publisher to the events topic. It publishes each event's
 * envelope exactly as stored, with the message attributes `type` and `company`. Two sources:
 * - Item-borne events (P240): an application item's `ev` attribute, set by the write that records the change
 *   (`#applications/application-events.ts`: a compact form; the rest of the envelope is the item's own values). A stream
 *   record (NEW_AND_OLD_IMAGES) whose new image carries an event whose `id` is not the old image's is
 *   published; any other write of the item publishes nothing. If the publish fails, the relay parks the
 *   envelope as an outbox item (below), idempotently (its key derives from the event), and goes on; if the
 *   parking fails too, the record is reported as the batch's failure and retried.
 * - Outbox items (P115): the relay publishes the event, then deletes the item. A death between the two leaves
 *   the item, so the event is published again with the same `id`.
 * Events are at least once, and consumers deduplicate on `id`. A parked event may reach the topic after a
 * later event of its application; consumers order an application's events by `sequence`.
 *
 * - Stage changes (issue 43 item 1, P345): a write that moved an application's ATS stage alone (no event, no
 *   sequence number, nothing for partners) is handed to the webhook worker's queue as a `disposition-stage`
 *   message when the application came in through an apply channel, so that its job board hears it (D22).
 *   If that send fails, the record is reported as the batch's failure and retried (at least once).
 *
 * DynamoDB Streams feed it the records its filters select (`RELAY_STREAM_FILTERS`) in the order of each
 * partition: on AWS through Lambda's event source mapping, locally through the runtime's stream poller
 * (`local/stream-relay.ts`), which hands the same handler the same batches.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { PublishCommand } from '@aws-sdk/client-sns';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { DeleteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import {
  APPLICATION_EVENT_ATTRIBUTES,
  STAGE_CHANGE_ATTRIBUTES,
  applicationEventId,
  applicationEventOf,
  stageChangeOf,
  type StageChange,
} from '#applications/application-events.js';
import { config, db, sns, sqs } from '#platform/clients.js';
import { isConditionFailure } from '#platform/errors.js';
import { ITEM_EVENT_ATTRIBUTE, outboxItem, type ServiceEvent } from '#platform/events.js';
import { now } from '#platform/clock.js';
import { crashPoint, isSimulatedCrash, rethrowIfCrash } from '#platform/faults.js';
import { OUTBOX_PREFIX, OUTBOX_SHARDS } from '#platform/keys.js';
import { logger } from '#platform/logger.js';

/** What the relay needs of an outbox item: its key and the stored envelope. */
export interface OutboxEntry {
  PK: string;
  SK: string;
  event: string;
}

/** Publishes a stored envelope as it is, with the message attributes `type` and `company`. */
async function publish(message: string): Promise<ServiceEvent> {
  const topicArn = config().eventsTopicArn;
  if (!topicArn) throw new Error('EVENTS_TOPIC_ARN is not set: the outbox keeps its events');
  const event = JSON.parse(message) as ServiceEvent;
  await sns().send(
    new PublishCommand({
      TopicArn: topicArn,
      Message: message,
      MessageAttributes: {
        type: { DataType: 'String', StringValue: event.type },
        company: { DataType: 'Number', StringValue: String(event.company) },
      },
    }),
  );
  return event;
}

/** Publishes one outbox item's event, then deletes the item. */
export async function relayOutboxItem(entry: OutboxEntry): Promise<ServiceEvent> {
  const event = await publish(entry.event);
  crashPoint('relay.after-publish');
  await db().send(new DeleteCommand({ TableName: config().tableName, Key: { PK: entry.PK, SK: entry.SK } }));
  return event;
}

/**
 * The envelope of the event a stream record's item newly carries (P240), as the message to publish: from the
 * new image (the item as the write that set the event left it), unless the old image's event has the same id.
 */
export function itemBorneEvent(record: DynamoDBRecord): string | undefined {
  if (record.eventName !== 'INSERT' && record.eventName !== 'MODIFY') return undefined;
  const image = record.dynamodb?.NewImage;
  if (!image?.[ITEM_EVENT_ATTRIBUTE]) return undefined;
  const event = applicationEventOf(eventFields(image));
  const old = record.dynamodb?.OldImage;
  if (!event || (old?.[ITEM_EVENT_ATTRIBUTE] && applicationEventId(eventFields(old)) === event.id)) return undefined;
  return JSON.stringify(event);
}

type Image = NonNullable<NonNullable<DynamoDBRecord['dynamodb']>['NewImage']>;

/** The attributes `names` of an image (only these: the rest is not read, nor converted). */
function picked(image: Image, names: readonly string[]): Record<string, unknown> {
  const found = names.filter((name) => image[name] !== undefined).map((name) => [name, image[name]]);
  return unmarshall(Object.fromEntries(found) as Record<string, AttributeValue>);
}

/** The attributes of an image that an event is made of. */
const eventFields = (image: Image) => picked(image, APPLICATION_EVENT_ATTRIBUTES);

/** The stage change a stream record's write made (P345), if it made one a job board hears of. */
export function stageChangeOfRecord(record: DynamoDBRecord): StageChange | undefined {
  const { OldImage: old, NewImage: image } = record.dynamodb ?? {};
  if (record.eventName !== 'MODIFY' || !old || !image || !image.outcome_stage) return undefined;
  return stageChangeOf(picked(old, STAGE_CHANGE_ATTRIBUTES), picked(image, STAGE_CHANGE_ATTRIBUTES));
}

/** Hands a stage change to the webhook worker (its queue), which queues the disposition for the board (P345). */
async function sendStageChange(change: StageChange): Promise<void> {
  await sqs().send(new SendMessageCommand({ QueueUrl: config().webhookQueueUrl, MessageBody: JSON.stringify(change) }));
}

/**
 * Parks an item-borne event whose publish failed as an outbox item (the envelope as published), where the outbox
 * path publishes it (its own INSERT, a retry of the stream, or `hiring-admin outbox replay`). Its key derives
 * from the event, so a redelivered record parks nothing twice. Resolves to whether this call parked it.
 */
async function park(message: string): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: config().tableName,
        Item: outboxItem(JSON.parse(message) as ServiceEvent, message),
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Publishes an item-borne event's envelope; if that fails, parks it in the outbox (throws only if parking fails too). */
export async function relayItemEvent(message: string): Promise<ServiceEvent> {
  const event = JSON.parse(message) as ServiceEvent;
  try {
    await publish(message);
  } catch (error) {
    rethrowIfCrash(error);
    const parked = await park(message);
    logger.warn('event not published; parked in the outbox for its relay', {
      eventId: event.id,
      type: event.type,
      parked,
      error: error as Error,
    });
    return event;
  }
  crashPoint('relay.after-publish');
  return event;
}

/**
 * The stream handler's work: the batch's events in order, an outbox INSERT's or an item's new event. At the
 * first failure it stops and reports that record (DynamoDB Streams retries from there, so no later event of
 * the partition overtakes it); a simulated crash fails the whole invocation, as a real one would.
 */
export async function relayStreamRecords(records: DynamoDBRecord[]): Promise<DynamoDBBatchResponse> {
  for (const record of records) {
    const image = record.dynamodb?.NewImage;
    const pk = image?.PK?.S;
    const outbox =
      record.eventName === 'INSERT' && pk?.startsWith(OUTBOX_PREFIX) && image?.SK?.S && image.event?.S
        ? { PK: pk, SK: image.SK.S, event: image.event.S }
        : undefined;
    try {
      if (outbox) await relayOutboxItem(outbox);
      else {
        const borne = itemBorneEvent(record);
        if (borne) await relayItemEvent(borne);
        const stage = borne ? undefined : stageChangeOfRecord(record);
        if (stage) await sendStageChange(stage);
      }
    } catch (error) {
      rethrowIfCrash(error);
      logger.error('event not relayed; the batch is retried from it', {
        sequenceNumber: record.dynamodb?.SequenceNumber,
        error: error as Error,
      });
      return { batchItemFailures: [{ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' }] };
    }
  }
  return { batchItemFailures: [] };
}

/** What one outbox partition's pass did: events published (and deleted), and the failure it stopped at. */
export interface ShardPass {
  shard: number;
  published: number;
  error?: string;
}

/**
 * Publishes one outbox partition's items in key order through `relayOutboxItem`, stopping at the first
 * failure. `before`: only items whose `occurred_at` (the start of the sort key) is earlier than this ISO time.
 */
async function drainShard(shard: number, before?: string, progress = { published: 0 }, onPublished?: () => void): Promise<number> {
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db().send(
      new QueryCommand({
        TableName: config().tableName,
        KeyConditionExpression: before === undefined ? 'PK = :pk' : 'PK = :pk AND SK < :before',
        ExpressionAttributeValues: { ':pk': `${OUTBOX_PREFIX}${shard}`, ...(before === undefined ? {} : { ':before': before }) },
        ConsistentRead: true,
        Limit: 100,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of out.Items ?? []) {
      await relayOutboxItem(item as unknown as OutboxEntry);
      progress.published += 1;
      onPublished?.();
    }
    start = out.LastEvaluatedKey;
  } while (start);
  return progress.published;
}

/**
 * Every outbox partition side by side, each in key order up to its first failure; resolves to each
 * partition's outcome (a simulated crash rejects, after the other partitions have finished).
 */
async function passOverShards(before?: string, onPublished?: () => void): Promise<ShardPass[]> {
  const progress = Array.from({ length: OUTBOX_SHARDS }, () => ({ published: 0 }));
  const results = await Promise.allSettled(progress.map((p, shard) => drainShard(shard, before, p, onPublished)));
  const crash = results.find((r): r is PromiseRejectedResult => r.status === 'rejected' && isSimulatedCrash(r.reason));
  if (crash) throw crash.reason;
  return results.map((r, shard) => ({
    shard,
    published: progress[shard].published,
    ...(r.status === 'rejected' ? { error: r.reason instanceof Error ? r.reason.message : String(r.reason) } : {}),
  }));
}

/** The `occurred_at` at the start of an outbox item's sort key (`<occurred_at>#<sequence>#<id>`). */
const occurredAt = (sk: string) => sk.split('#')[0];
const ageSeconds = (at: string | null, nowMs: number) => (at === null ? null : Math.max(0, Math.floor((nowMs - Date.parse(at)) / 1000)));

export interface OutboxStatus {
  waiting: number;
  oldest_at: string | null;
  oldest_age_seconds: number | null;
  shards: { shard: number; waiting: number; oldest_at: string | null; oldest_age_seconds: number | null }[];
}

/**
 * What waits in the outbox (`hiring-admin outbox status`): items per partition (counted with
 * `Select=COUNT`, strongly consistent) and the oldest one's time and age. On AWS items wait only while the
 * stream relay works on them, or after their batch went to the relay's DLQ (P117); locally, until the
 * runtime's relay passes.
 */
export async function outboxStatus(): Promise<OutboxStatus> {
  const nowMs = now().getTime();
  const shards = await Promise.all(
    Array.from({ length: OUTBOX_SHARDS }, async (_, shard) => {
      const pk = { ':pk': `${OUTBOX_PREFIX}${shard}` };
      const first = await db().send(
        new QueryCommand({
          TableName: config().tableName,
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: pk,
          ConsistentRead: true,
          Limit: 1,
          ProjectionExpression: 'SK',
        }),
      );
      let waiting = 0;
      let start: Record<string, unknown> | undefined;
      do {
        const out = await db().send(
          new QueryCommand({
            TableName: config().tableName,
            KeyConditionExpression: 'PK = :pk',
            ExpressionAttributeValues: pk,
            ConsistentRead: true,
            Select: 'COUNT',
            ExclusiveStartKey: start,
          }),
        );
        waiting += out.Count ?? 0;
        start = out.LastEvaluatedKey;
      } while (start);
      const sk = first.Items?.[0]?.SK as string | undefined;
      const oldest = sk === undefined ? null : occurredAt(sk);
      return { shard, waiting, oldest_at: oldest, oldest_age_seconds: ageSeconds(oldest, nowMs) };
    }),
  );
  const oldest = shards.reduce<string | null>(
    (min, s) => (s.oldest_at !== null && (min === null || s.oldest_at < min) ? s.oldest_at : min),
    null,
  );
  return {
    waiting: shards.reduce((sum, s) => sum + s.waiting, 0),
    oldest_at: oldest,
    oldest_age_seconds: ageSeconds(oldest, nowMs),
    shards,
  };
}

/** How many outbox items are older than `before`, over every partition (`Select=COUNT`, strongly consistent). */
async function countWaiting(before: string): Promise<number> {
  const counts = await Promise.all(
    Array.from({ length: OUTBOX_SHARDS }, async (_, shard) => {
      let count = 0;
      let start: Record<string, unknown> | undefined;
      do {
        const out = await db().send(
          new QueryCommand({
            TableName: config().tableName,
            KeyConditionExpression: 'PK = :pk AND SK < :before',
            ExpressionAttributeValues: { ':pk': `${OUTBOX_PREFIX}${shard}`, ':before': before },
            ConsistentRead: true,
            Select: 'COUNT',
            ExclusiveStartKey: start,
          }),
        );
        count += out.Count ?? 0;
        start = out.LastEvaluatedKey;
      } while (start);
      return count;
    }),
  );
  return counts.reduce((sum, n) => sum + n, 0);
}

export interface OutboxReplay {
  /** Items older than this were replayed (all waiting items when `--older-than` is 0). */
  older_than: string;
  published: number;
  shards: ShardPass[];
  /** What still waits afterwards (newer items, items after a failure, items written meanwhile). */
  waiting: number;
}

/**
 * `hiring-admin outbox replay`: publishes the waiting outbox items whose event is at least `olderThanSeconds`
 * old through the relay's own path (`relayOutboxItem`: publish, then delete), each partition in key order up
 * to its first failure, like the relay. Idempotent: an item is deleted once published, so a second replay
 * finds nothing; an event that the stream relay publishes too arrives twice with the same `id`, which
 * consumers deduplicate on (P115).
 */
export async function replayOutbox(
  olderThanSeconds: number,
  options: {
    /** Called as events are published: published so far of those waiting at the start (the admin tool's progress bar). */
    onProgress?: (done: number, total: number) => void;
  } = {},
): Promise<OutboxReplay> {
  const before = new Date(now().getTime() - olderThanSeconds * 1000).toISOString();
  const { onProgress } = options;
  let total = 0;
  let done = 0;
  if (onProgress) {
    total = await countWaiting(before);
    onProgress(0, total);
  }
  // Events written meanwhile may be published too: the total grows with them rather than being overrun.
  const shards = await passOverShards(before, onProgress && (() => onProgress(++done, (total = Math.max(total, done)))));
  return {
    older_than: before,
    published: shards.reduce((sum, s) => sum + s.published, 0),
    shards,
    waiting: (await outboxStatus()).waiting,
  };
}
