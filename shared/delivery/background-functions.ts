/**
 * The functions no route invokes: queue consumers and scheduled jobs, the only list of them. The CDK
 * stack creates each function with its trigger and grants from it; the local runtime feeds the queue
 * consumers with its poller and runs the scheduled ones with its scheduler.
 */
import type { FunctionAccess } from '#platform/function-access.js';
import { ITEM_EVENT_ATTRIBUTE, OUTBOX_PREFIX } from '#platform/keys.js';

/**
 * A Lambda event filter pattern over stream records (the subset used here: lists of exact values, `{ prefix }`
 * and `{ exists }`): the stack hands it to the event source mapping, and the local stream poller applies it.
 */
export type FilterRule = string | { prefix: string } | { exists: boolean };
export type EventFilterPattern = { [field: string]: EventFilterPattern | FilterRule[] };

/**
 * The relay's filters (Lambda ORs the filters of a mapping): the outbox items' INSERTs (P115), and the writes
 * of an item that carries an event (P240: an application item's `ev`; the relay publishes it only when its id
 * is not the old image's). Every other record (counters, claims, companies, …) never reaches the relay.
 */
export const RELAY_STREAM_FILTERS: readonly EventFilterPattern[] = [
  { eventName: ['INSERT'], dynamodb: { Keys: { PK: { S: [{ prefix: OUTBOX_PREFIX }] } } } },
  { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { [ITEM_EVENT_ATTRIBUTE]: { S: [{ exists: true }] } } } },
];

/** One rule against a leaf value, as Lambda's filter syntax defines it (`exists` only on leaves). */
function matchesRule(value: unknown, rule: FilterRule): boolean {
  if (typeof rule === 'string') return value === rule;
  if ('prefix' in rule) return typeof value === 'string' && value.startsWith(rule.prefix);
  // `exists: true` matches a present leaf; `exists: false` one that is absent.
  return rule.exists === (value !== undefined && value !== null);
}

/** Whether a record matches a filter pattern, as Lambda's event filtering decides. */
export function matchesFilter(record: unknown, pattern: EventFilterPattern): boolean {
  return Object.entries(pattern).every(([field, expected]) => {
    const value =
      record !== null && typeof record === 'object' && Object.hasOwn(record, field)
        ? (record as Record<string, unknown>)[field]
        : undefined;
    if (!Array.isArray(expected)) return matchesFilter(value, expected);
    return expected.some((rule) => matchesRule(value, rule));
  });
}

/** Whether a record matches any of an event source's filters (Lambda ORs them). */
export const matchesAnyFilter = (record: unknown, patterns: readonly EventFilterPattern[]) =>
  patterns.some((pattern) => matchesFilter(record, pattern));

export type BackgroundTrigger =
  /** Fed by the sync queue, with partial batch failures reported per message. */
  | { kind: 'syncQueue'; batchSize: number; maxBatchingWindowSeconds?: number; maxConcurrency?: number }
  /** Fed by the job import queue (D14): one message per company and run. */
  | { kind: 'jobImportQueue'; batchSize: number; maxConcurrency?: number }
  /** Fed by the table's DynamoDB stream, the records `filters` select (P115, P240), with partial batch failures and a DLQ. */
  | {
      kind: 'outboxStream';
      batchSize: number;
      maxBatchingWindowSeconds?: number;
      retryAttempts: number;
      filters: readonly EventFilterPattern[];
    }
  /** Fed by the webhook queue (D19): events from the topic to fan out, and one delivery per endpoint. */
  | { kind: 'webhookQueue'; batchSize: number; maxConcurrency?: number }
  /** An EventBridge rate expression: `rate(5 minutes)`, `rate(1 hour)`. */
  | { kind: 'schedule'; expression: string };

export interface BackgroundFunctionDefinition {
  /** Stable name, also the function's logical name. */
  id: string;
  /** Module under `functions/`, without extension, exporting `handler`. */
  handler: string;
  description: string;
  trigger: BackgroundTrigger;
  access: FunctionAccess;
  /** Seconds; a queue consumer's timeout must fit six times into the queue's visibility timeout. */
  timeoutSeconds?: number;
  memorySize?: number;
  /** Locally, this environment variable (minutes) overrides a schedule's rate (JOB_IMPORT_INTERVAL_MINUTES). */
  localIntervalMinutesVariable?: string;
}

export const backgroundFunctions: readonly BackgroundFunctionDefinition[] = [
  {
    id: 'SyncWorker',
    handler: 'sync-worker',
    description: 'Submit applications to the ATS, record the outcome, send the e-mail fallback (D12)',
    trigger: { kind: 'syncQueue', batchSize: 10, maxBatchingWindowSeconds: 1 },
    // The cursor secret keys the references ATS webhooks name a delivered application by (P311).
    access: { table: 'write', attachments: 'read', email: 'send', ats: true, credentials: 'decrypt', cursorSecret: true },
    // Six times this fits into the sync queue's visibility timeout.
    timeoutSeconds: 30,
    memorySize: 1024,
  },
  {
    id: 'EventRelay',
    handler: 'event-relay',
    description: 'Publish the events on application items and in the outbox to the events topic (P115, P240)',
    // Locally the runtime's stream poller feeds it the same way (local/stream-relay.ts).
    trigger: { kind: 'outboxStream', batchSize: 100, maxBatchingWindowSeconds: 1, retryAttempts: 10, filters: RELAY_STREAM_FILTERS },
    // Hands a stage-only change of an apply channel's application to the webhook worker's queue (P345).
    access: { table: 'outbox', events: 'publish', webhookQueue: 'send' },
    timeoutSeconds: 60,
  },
  {
    id: 'JobImportScheduler',
    handler: 'scheduled/job-import-fan-out',
    description: 'Queue one job import per company with job sync active (D14)',
    trigger: { kind: 'schedule', expression: 'rate(1 hour)' },
    access: { table: 'read', jobImportQueue: 'send' },
    timeoutSeconds: 120,
    localIntervalMinutesVariable: 'JOB_IMPORT_INTERVAL_MINUTES',
  },
  {
    id: 'JobImportWorker',
    handler: 'job-import-worker',
    description: "Import one company's published jobs from its ATS (D14)",
    // One company per invocation; at most a few imports at once, so no ATS sees a burst from us.
    trigger: { kind: 'jobImportQueue', batchSize: 1, maxConcurrency: 5 },
    access: { table: 'write', ats: true, credentials: 'decrypt' },
    // Six times this fits into the job import queue's visibility timeout.
    timeoutSeconds: 300,
    memorySize: 1024,
  },
  {
    id: 'WebhookWorker',
    handler: 'webhook-worker',
    description: "Deliver events to partners' webhook endpoints, signed, with retries (D19)",
    trigger: { kind: 'webhookQueue', batchSize: 10, maxConcurrency: 10 },
    // Sends the fan-out's delivery messages to its own queue; opens the sealed signing secrets; emits
    // webhook.endpoint_disabled through the outbox (P115). Also queues and flushes the dispositions apply channels
    // report to their job boards (D22, P316; Indeed's API at INDEED_API_URL). No ATS, no attachments, no e-mail, no SNS.
    access: { table: 'write', webhookQueue: 'send', credentials: 'decrypt' },
    // Six times this fits into the webhook queue's visibility timeout; one POST times out after 10 s.
    timeoutSeconds: 60,
  },
  {
    id: 'SyncSweeper',
    handler: 'scheduled/sync-sweeper',
    description: 'Re-queue applications whose sync is due but has no message in flight',
    trigger: { kind: 'schedule', expression: 'rate(5 minutes)' },
    access: { table: 'write', syncQueue: 'send' },
    timeoutSeconds: 120,
  },
  {
    id: 'OutcomeReader',
    handler: 'scheduled/outcome-reader',
    description: 'Read the outcome of delivered applications back from their ATS (D21, P298)',
    trigger: { kind: 'schedule', expression: outcomePollRate() },
    access: { table: 'write', ats: true, credentials: 'decrypt' },
    timeoutSeconds: 900,
    memorySize: 1024,
    localIntervalMinutesVariable: 'OUTCOME_POLL_MINUTES',
  },
  {
    id: 'ExternalApplyReminder',
    handler: 'scheduled/external-apply-reminder',
    description: 'Send the one external apply reminder of each contacted application past its due time (P207)',
    trigger: { kind: 'schedule', expression: 'rate(1 hour)' },
    access: { table: 'write', email: 'send', cursorSecret: true },
    timeoutSeconds: 300,
  },
  {
    id: 'AttachmentReconciler',
    handler: 'scheduled/attachment-reconciler',
    description: 'Delete attachment objects uploaded for a create that never committed (pending-upload markers past due)',
    trigger: { kind: 'schedule', expression: 'rate(1 hour)' },
    access: { table: 'write', attachments: 'delete' },
    timeoutSeconds: 300,
  },
  {
    id: 'Retention',
    handler: 'scheduled/retention',
    description: 'Delete the personal data of applications older than 180 days (D10)',
    trigger: { kind: 'schedule', expression: 'rate(1 hour)' },
    access: { table: 'write', attachments: 'delete' },
    timeoutSeconds: 300,
  },
];

/**
 * The outcome reading pass's rate (D21, P298): `OUTCOME_POLL_MINUTES` (default 60) as the stack is synthesized,
 * whole minutes, at least one. Locally the scheduler takes the variable as it is (fractions too, P300).
 */
export function outcomePollRate(): string {
  const value = Number(process.env.OUTCOME_POLL_MINUTES ?? 60);
  const minutes = Number.isFinite(value) && value > 0 ? Math.max(1, Math.round(value)) : 60;
  return minutes === 1 ? 'rate(1 minute)' : `rate(${minutes} minutes)`;
}

/** Milliseconds between runs of a `rate(N unit)` expression. */
export function rateMilliseconds(expression: string): number {
  const match = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression);
  if (!match) throw new Error(`not a rate expression: ${expression}`);
  const unit = { minute: 60_000, hour: 3_600_000, day: 86_400_000 }[match[2].replace(/s$/, '') as 'minute' | 'hour' | 'day'];
  return Number(match[1]) * unit;
}
