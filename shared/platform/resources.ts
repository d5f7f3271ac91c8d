/**
 * The messaging and storage resources besides the table, with the settings both the CDK stack and the
 * local runtime use. Names are suffixes: the stack prefixes them by stage, the local runtime by `his-local`.
 */
export const resources = {
  /** Sync queue: the worker's timeout × 6 ≤ visibility timeout; redrive to the DLQ after maxReceiveCount. */
  syncQueue: { name: 'sync', visibilityTimeoutSeconds: 180, maxReceiveCount: 5 },
  syncDeadLetterQueue: { name: 'sync-dlq', retentionSeconds: 14 * 24 * 3600 },
  /** Job import queue (D14): one message per company and run; the import worker's timeout × 6 ≤ visibility. */
  jobImportQueue: { name: 'job-import', visibilityTimeoutSeconds: 1800, maxReceiveCount: 3 },
  jobImportDeadLetterQueue: { name: 'job-import-dlq', retentionSeconds: 14 * 24 * 3600 },
  /**
   * Webhook queue (D19): subscribed to the events topic (raw delivery), and the worker's own delivery
   * messages (one per event and endpoint). Retries wait through the message's visibility (≥ 24 h in all,
   * see `webhookRetryDelaySeconds`); after maxReceiveCount receives a message goes to the DLQ.
   */
  webhookQueue: { name: 'webhooks', visibilityTimeoutSeconds: 360, maxReceiveCount: 12 },
  webhookDeadLetterQueue: { name: 'webhooks-dlq', retentionSeconds: 14 * 24 * 3600 },
  eventsTopic: { name: 'events' },
  /** Where the event relay's stream batches go once their retries are spent (P115): pointers to the outbox items left. */
  eventRelayDeadLetterQueue: { name: 'event-relay-dlq', retentionSeconds: 14 * 24 * 3600 },
  attachmentsBucket: { name: 'attachments' },
} as const;

export const LOCAL_PREFIX = 'his-local';
