/**
 * The webhook worker (D19), fed by the webhook queue (Lambda SQS event source with ReportBatchItemFailures).
 * The queue carries two kinds of message: events from the events topic (raw delivery), which the worker fans
 * out into one delivery message per matching endpoint of the event's partner, sent back to the same queue;
 * and those delivery messages, each one attempt to POST one event to one endpoint. A failed attempt comes
 * back after an exponential delay set through its visibility timeout; after the queue's maxReceiveCount it
 * goes to the DLQ. A third kind, `disposition-flush`, sends an apply channel's waiting dispositions to its
 * board (D22, P316), with the same backoff; a fourth, `disposition-stage`, a stage-only change the relay hands
 * over for that board (P345).
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { config, sqs } from '#platform/clients.js';
import { isSimulatedCrash } from '#platform/faults.js';
import { logger } from '#platform/logger.js';
import {
  DeliveryFailed,
  deliverWebhook,
  fanOut,
  MAX_RETRY_DELAY_SECONDS,
  parseEvent,
  webhookRetryDelaySeconds,
  type WebhookDeliveryMessage,
} from '#delivery/webhooks.js';
import {
  dispositionBatchSeconds,
  flushDispositions,
  isDispositionFlush,
  queueDisposition,
  queueStageDisposition,
  type DispositionFlushMessage,
} from '#delivery/dispositions.js';
import { isStageChange } from '#applications/application-events.js';

const processor = new BatchProcessor(EventType.SQS);

function isDelivery(body: unknown): body is WebhookDeliveryMessage {
  const m = body as Partial<WebhookDeliveryMessage>;
  return m?.kind === 'webhook-delivery' && Number.isSafeInteger(m.partner) && Number.isSafeInteger(m.endpoint) && !!parseEvent(m.event);
}

async function comeBackIn(record: SQSRecord, seconds: number): Promise<void> {
  await sqs()
    .send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: config().webhookQueueUrl,
        ReceiptHandle: record.receiptHandle,
        VisibilityTimeout: Math.min(Math.max(Math.round(seconds), 1), MAX_RETRY_DELAY_SECONDS),
      }),
    )
    .catch((error: Error) => logger.warn('could not delay the webhook retry', { messageId: record.messageId, error }));
}

async function send(messages: WebhookDeliveryMessage[]): Promise<void> {
  for (let i = 0; i < messages.length; i += 10) {
    const out = await sqs().send(
      new SendMessageBatchCommand({
        QueueUrl: config().webhookQueueUrl,
        Entries: messages.slice(i, i + 10).map((m, n) => ({ Id: String(n), MessageBody: JSON.stringify(m) })),
      }),
    );
    if (out.Failed?.length) throw new Error(`${out.Failed.length} webhook delivery messages were not queued`);
  }
}

/** Asks for a channel's disposition flush, after `delaySeconds` (the batch window, P316). */
async function askFlush(message: DispositionFlushMessage, delaySeconds: number): Promise<void> {
  await sqs().send(
    new SendMessageCommand({ QueueUrl: config().webhookQueueUrl, MessageBody: JSON.stringify(message), DelaySeconds: delaySeconds }),
  );
}

/** Set when a record hit a simulated crash: the invocation dies, as a process killed there would. */
let crashed: unknown;

async function handleRecord(record: SQSRecord): Promise<void> {
  const attempt = Number(record.attributes?.ApproximateReceiveCount ?? 1);
  const body = JSON.parse(record.body) as unknown;
  try {
    if (isDelivery(body)) {
      const outcome = await deliverWebhook({ ...body, event: parseEvent(body.event)! }, attempt);
      logger.info('webhook attempt', { webhook: body.endpoint, event: body.event.id, attempt, outcome });
      return;
    }
    if (isDispositionFlush(body)) {
      const flushed = await flushDispositions(body.channel, attempt);
      logger.info('disposition flush', { channel: body.channel, attempt, sent: flushed.sent, more: flushed.more });
      if (flushed.more) await askFlush(body, 0);
      return;
    }
    if (isStageChange(body)) {
      // A stage-only change the relay handed over (P345): its board hears it; no partner does.
      const flush = await queueStageDisposition(body);
      if (flush) await askFlush(flush, dispositionBatchSeconds());
      return;
    }
    const event = parseEvent(body);
    if (!event) {
      logger.error('not a webhook queue message; dropped', { messageId: record.messageId });
      return;
    }
    // The board the application came from (D22), then the partner's endpoints (D19); a failure repeats both.
    const flush = await queueDisposition(event);
    if (flush) await askFlush(flush, dispositionBatchSeconds());
    await send(await fanOut(event));
  } catch (error) {
    if (isSimulatedCrash(error)) {
      crashed = error;
      throw error;
    }
    const delay = error instanceof DeliveryFailed ? error.delaySeconds : webhookRetryDelaySeconds(attempt);
    logger.warn('webhook message failed; it comes back', { messageId: record.messageId, attempt, delay, reason: (error as Error).message });
    await comeBackIn(record, delay);
    throw error;
  }
}

export const handler = async (event: SQSEvent, context: Context) => {
  crashed = undefined;
  const response = await processPartialResponse(event, handleRecord, processor, { context, throwOnFullBatchFailure: false });
  if (crashed) throw crashed;
  return response;
};
