/**
 * The outbox relay (issue 12, P115): the only publisher to the events topic. It publishes an outbox item's
 * event (the envelope exactly as stored, with the message attributes `type` and `company`) and then deletes
 * the item. A death between the two leaves the item, so the event is published again with the same `id`:
 * events are at least once, and consumers deduplicate on `id`.
 *
 * On AWS, DynamoDB Streams feed it the outbox items' INSERTs (an event-source filter selects them) in the
 * order of each partition; locally (dynalite has no streams) the runtime drains the outbox partitions in
 * key order with `drainOutbox`.
 */
import { PublishCommand } from '@aws-sdk/client-sns';
import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { config, db, sns } from '#platform/clients.js';
import type { ServiceEvent } from '#platform/events.js';
import { crashPoint, rethrowIfCrash } from '#platform/faults.js';
import { OUTBOX_PREFIX, OUTBOX_SHARDS } from '#platform/keys.js';
import { logger } from '#platform/logger.js';

/** What the relay needs of an outbox item: its key and the stored envelope. */
export interface OutboxEntry {
  PK: string;
  SK: string;
  event: string;
}

/** Publishes one outbox item's event, then deletes the item. */
export async function relayOutboxItem(entry: OutboxEntry): Promise<ServiceEvent> {
  const topicArn = config().eventsTopicArn;
  if (!topicArn) throw new Error('EVENTS_TOPIC_ARN is not set: the outbox keeps its events');
  const event = JSON.parse(entry.event) as ServiceEvent;
  await sns().send(
    new PublishCommand({
      TopicArn: topicArn,
      Message: entry.event,
      MessageAttributes: {
        type: { DataType: 'String', StringValue: event.type },
        company: { DataType: 'Number', StringValue: String(event.company) },
      },
    }),
  );
  crashPoint('relay.after-publish');
  await db().send(new DeleteCommand({ TableName: config().tableName, Key: { PK: entry.PK, SK: entry.SK } }));
  return event;
}

/**
 * The stream handler's work: the batch's outbox INSERTs in order. At the first failure it stops and reports
 * that record (DynamoDB Streams retries from there, so no later event of the partition overtakes it); a
 * simulated crash fails the whole invocation, as a real one would.
 */
export async function relayStreamRecords(records: DynamoDBRecord[]): Promise<DynamoDBBatchResponse> {
  for (const record of records) {
    const image = record.dynamodb?.NewImage;
    const pk = image?.PK?.S;
    if (record.eventName !== 'INSERT' || !pk?.startsWith(OUTBOX_PREFIX) || !image?.SK?.S || !image.event?.S) continue;
    try {
      await relayOutboxItem({ PK: pk, SK: image.SK.S, event: image.event.S });
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

/**
 * The local relay's pass: every outbox partition in key order (partitions side by side, each one item after
 * the other, stopping at its first failure). Resolves to the number of events published; a failure (or a
 * simulated crash) rejects after the other partitions have finished, leaving the failed item for the next pass.
 */
export async function drainOutbox(): Promise<number> {
  const results = await Promise.allSettled(
    Array.from({ length: OUTBOX_SHARDS }, async (_, shard) => {
      let published = 0;
      let start: Record<string, unknown> | undefined;
      do {
        const out = await db().send(
          new QueryCommand({
            TableName: config().tableName,
            KeyConditionExpression: 'PK = :pk',
            ExpressionAttributeValues: { ':pk': `${OUTBOX_PREFIX}${shard}` },
            ConsistentRead: true,
            Limit: 100,
            ExclusiveStartKey: start,
          }),
        );
        for (const item of out.Items ?? []) {
          await relayOutboxItem(item as unknown as OutboxEntry);
          published += 1;
        }
        start = out.LastEvaluatedKey;
      } while (start);
      return published;
    }),
  );
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return results.reduce((sum, r) => sum + (r.status === 'fulfilled' ? r.value : 0), 0);
}
