/**
 * Feeds a queue (the sync queue, or the job import queue) to its worker the way Lambda's SQS event source does: batches of up to the
 * function's batch size, the worker's partial batch failures left on the queue (they come back when their
 * visibility timeout, which the worker may have changed, runs out), successes deleted, and the queue's own
 * redrive policy moving a message to the DLQ after maxReceiveCount receives. `runOnce()` processes what
 * is visible now (tests drive it); `start()` polls in the background (npm start).
 */
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { config, sqs } from '#platform/clients.js';
import { backgroundFunctions } from '#delivery/background-functions.js';
import { isSimulatedCrash } from '#platform/faults.js';
import { logger } from '#platform/logger.js';

type QueueHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export interface QueuePoller {
  /** Receives one batch and runs the worker on it; resolves to the number of messages received. */
  runOnce(): Promise<number>;
  /**
   * Runs batches until the queue holds no message, visible or in flight (retries waiting out their
   * visibility timeout included), or `maxWaitMs` passes (120 s: a bound for a busy machine, not a wait);
   * resolves to the number of messages received.
   */
  drain(maxWaitMs?: number): Promise<number>;
  stop(): Promise<void>;
}

export function startQueuePoller(options: {
  background: boolean;
  idleMs?: number;
  queue?: 'syncQueue' | 'jobImportQueue' | 'webhookQueue';
}): QueuePoller {
  const kind = options.queue ?? 'syncQueue';
  const definition = backgroundFunctions.find((f) => f.trigger.kind === kind);
  if (!definition || definition.trigger.kind !== kind) throw new Error(`no ${kind} consumer in shared/background-functions.ts`);
  const batchSize = definition.trigger.batchSize;
  const queueUrlOf = () =>
    ({ syncQueue: config().syncQueueUrl, jobImportQueue: config().jobImportQueueUrl, webhookQueue: config().webhookQueueUrl })[kind];
  let handler: Promise<QueueHandler> | undefined;
  let running = options.background;
  let loop: Promise<void> | undefined;
  let inFlight: Promise<number> = Promise.resolve(0);

  async function batch(): Promise<number> {
    const queueUrl = queueUrlOf();
    const out = await sqs().send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: batchSize,
        WaitTimeSeconds: 0,
        MessageSystemAttributeNames: ['All'],
      }),
    );
    const messages = out.Messages ?? [];
    if (!messages.length) return 0;
    const event: SQSEvent = {
      Records: messages.map((m) => ({
        messageId: m.MessageId!,
        receiptHandle: m.ReceiptHandle!,
        body: m.Body ?? '',
        attributes: {
          ApproximateReceiveCount: m.Attributes?.ApproximateReceiveCount ?? '1',
          SentTimestamp: m.Attributes?.SentTimestamp ?? String(Date.now()),
          SenderId: m.Attributes?.SenderId ?? 'local',
          ApproximateFirstReceiveTimestamp: m.Attributes?.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
        },
        messageAttributes: {},
        md5OfBody: m.MD5OfBody ?? '',
        eventSource: 'aws:sqs',
        eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${queueUrl.split('/').pop()}`,
        awsRegion: 'us-east-1',
      })),
    };
    handler ??= import(`../functions/${definition!.handler}.js`).then((m: { handler: QueueHandler }) => m.handler);
    const deadline = Date.now() + (definition!.timeoutSeconds ?? 30) * 1000;
    const context = {
      functionName: definition!.id,
      awsRequestId: `poll-${Date.now()}`,
      getRemainingTimeInMillis: () => deadline - Date.now(),
    } as Context;
    let failed = new Set(messages.map((m) => m.MessageId!));
    try {
      const response = await (await handler)(event, context);
      failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch (error) {
      // Like Lambda: a function error fails the whole batch.
      logger.error(`${definition!.id} failed`, { error: error as Error });
      // A dead invocation (simulated crash) leaves its messages in flight until the visibility timeout;
      // LOCAL_CRASH_VISIBILITY_SECONDS shortens that timeout locally so that tests see the redelivery soon.
      const crashVisibility = Number(process.env.LOCAL_CRASH_VISIBILITY_SECONDS);
      if (isSimulatedCrash(error) && crashVisibility > 0) {
        await sqs().send(
          new ChangeMessageVisibilityBatchCommand({
            QueueUrl: queueUrl,
            Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle!, VisibilityTimeout: crashVisibility })),
          }),
        );
      }
    }
    const done = messages.filter((m) => !failed.has(m.MessageId!));
    if (done.length) {
      await sqs().send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
    }
    return messages.length;
  }

  function runOnce(): Promise<number> {
    // One batch at a time, like a function with reserved concurrency 1 locally.
    inFlight = inFlight.then(batch, batch);
    return inFlight;
  }

  if (running) {
    loop = (async () => {
      while (running) {
        const received = await runOnce().catch((error: Error) => {
          logger.error('queue poll failed', { error });
          return 0;
        });
        if (!received) await new Promise((r) => setTimeout(r, options.idleMs ?? 250));
      }
    })();
  }

  return {
    runOnce,
    async drain(maxWaitMs = 120_000) {
      const deadline = Date.now() + maxWaitMs;
      let total = 0;
      while (Date.now() < deadline) {
        const received = await runOnce();
        total += received;
        if (received) continue;
        const out = await sqs().send(
          new GetQueueAttributesCommand({
            QueueUrl: queueUrlOf(),
            AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
          }),
        );
        const left = Object.values(out.Attributes ?? {}).reduce((sum, n) => sum + Number(n), 0);
        if (!left) return total;
        await new Promise((r) => setTimeout(r, 100));
      }
      return total;
    },
    async stop() {
      running = false;
      await loop;
      await inFlight.catch(() => undefined);
    },
  };
}
