/** The hand-off to the sync worker: a message carrying only the application id (never personal data). */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { config, sqs } from '#platform/clients.js';
import { logger } from '#platform/logger.js';

export interface SyncMessage {
  application_id: number;
}

/**
 * Queues an application for sync. A failed send is logged, not thrown: the application is stored and
 * the sweeper re-queues applications whose sync is due but not in flight.
 */
export async function enqueueSync(applicationId: number, delaySeconds = 0): Promise<boolean> {
  const message: SyncMessage = { application_id: applicationId };
  try {
    await sqs().send(
      new SendMessageCommand({ QueueUrl: config().syncQueueUrl, MessageBody: JSON.stringify(message), DelaySeconds: delaySeconds }),
    );
    return true;
  } catch (error) {
    logger.error('sync message not sent; the sweeper will re-queue it', { applicationId, error: error as Error });
    return false;
  }
}

/**
 * The longest wait a queue consumer may ask for. SQS caps a message's visibility at 12 hours counted from its
 * receipt and refuses a change past that (the message then comes back after the queue's default): 11 hours
 * leave an hour for the attempt itself (P266, P270).
 */
export const MAX_QUEUE_DELAY_SECONDS = 11 * 3600;

/** How long after a message is sent (or a retry is due) the sweeper waits before it re-queues. */
export function sweepGraceSeconds(): number {
  return Number(process.env.SYNC_SWEEP_GRACE_SECONDS ?? 600);
}

/**
 * How far behind its last run the sweeper reads again (P242): a sync-due entry written by a clock lagging the
 * sweeper's by up to this much, or not yet in the index, is still found. The grace period by default.
 */
export function sweepLookbackSeconds(): number {
  return Number(process.env.SYNC_SWEEP_LOOKBACK_SECONDS ?? sweepGraceSeconds());
}
