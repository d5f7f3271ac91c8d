/**
 * The sync worker, fed by the sync queue (Lambda SQS event source with ReportBatchItemFailures). Each
 * message carries only an application id. A message that fails comes back after an exponential,
 * jittered delay set through its visibility timeout; after the queue's maxReceiveCount it goes to the DLQ
 * (and the sweeper still finds its application through the sync-due index).
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { config, sqs } from '#platform/clients.js';
import { logger } from '#platform/logger.js';
import { sourceStack } from '#platform/stack-trace.js';
import { RetryLater, retryDelaySeconds, syncApplication } from '#delivery/sync.js';
import { isSimulatedCrash, type SimulatedCrash } from '#platform/faults.js';
import { MAX_QUEUE_DELAY_SECONDS, type SyncMessage } from '#platform/sync-queue.js';

const processor = new BatchProcessor(EventType.SQS);

function parse(record: SQSRecord): number {
  const message = JSON.parse(record.body) as Partial<SyncMessage>;
  if (!Number.isSafeInteger(message.application_id) || Number(message.application_id) < 1) throw new Error('not a sync message');
  return Number(message.application_id);
}

/** At least a second: a zero timeout would make the message visible at once (and trips a fauxqs bug locally). */
async function comeBackIn(record: SQSRecord, seconds: number): Promise<void> {
  await sqs()
    .send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: config().syncQueueUrl,
        ReceiptHandle: record.receiptHandle,
        VisibilityTimeout: Math.min(Math.max(Math.round(seconds), 1), MAX_QUEUE_DELAY_SECONDS),
      }),
    )
    .catch((error: Error) => logger.warn('could not delay the retry', { messageId: record.messageId, error }));
}

async function handleRecord(record: SQSRecord): Promise<void> {
  const receiveCount = Number(record.attributes?.ApproximateReceiveCount ?? 1);
  try {
    await syncApplication(parse(record));
  } catch (error) {
    // A dead invocation changes no visibility: the message comes back after the queue's own timeout.
    if (isSimulatedCrash(error)) throw error;
    const delay = error instanceof RetryLater ? error.delaySeconds : retryDelaySeconds(receiveCount);
    logger.warn('sync attempt failed; the message comes back', {
      messageId: record.messageId,
      receiveCount,
      delay,
      reason: (error as Error).message,
      sourceStack: sourceStack(error),
    });
    await comeBackIn(record, delay);
    throw error;
  }
}

export const handler = async (event: SQSEvent, context: Context) => {
  let crash: SimulatedCrash | undefined;
  const response = await processPartialResponse(
    event,
    async (record: SQSRecord) =>
      handleRecord(record).catch((error: unknown) => {
        if (isSimulatedCrash(error)) crash = error;
        throw error;
      }),
    processor,
    { context, throwOnFullBatchFailure: false },
  );
  // A simulated crash (fault-injection tests) is the death of the whole invocation, as `kill -9` would be.
  if (crash) throw crash;
  return response;
};
