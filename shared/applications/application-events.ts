/**
 * An application's events on its item (issue 22 step 1, P240). The write that records a change sets the
 * item's `ev` attribute (`ITEM_EVENT_ATTRIBUTE`) to the event in a compact form, and the relay, reading the
 * write's stream record, publishes the event's envelope exactly as the outbox carried it before
 * (`{id, type, occurred_at, company, sequence, data}`, ids and statuses only).
 *
 * Stored form: `c` for `application.created`; `<code>|<previous>` for a status move (`s` sync, `e` e-mail,
 * `x` external apply; the moved field's status before the move). Everything else of the envelope is the item's
 * own values as that same write left them, which the stream record's new image carries: `company`,
 * `event_sequence` (the `sequence`), `id` and `job`, the statuses, `failure_error`, and `updated_at` (the
 * write's time, `occurred_at`). The event id is derived, not stored: a UUID (version 8) from the SHA-256 of the
 * company, the application, its `created_at` and the sequence, so it is stable however often the record is
 * read, and unique because a sequence number is taken once (P116). So an event costs the item about 11 bytes,
 * not the envelope's 270: the test application's item stays under 1 KB (1005 bytes without it, P240).
 */
import { createHash } from 'node:crypto';
import type { EventType, ServiceEvent } from '#platform/events.js';
import { ITEM_EVENT_ATTRIBUTE } from '#platform/keys.js';

/** The status fields whose moves are events, and the event of each. */
const MOVES = {
  sync_status: { code: 's', type: 'application.sync_status_changed' },
  email_sync_status: { code: 'e', type: 'application.email_sync_status_changed' },
  external_apply_status: { code: 'x', type: 'application.external_apply_status_changed' },
  // D21 (P299): the outcome read back from the ATS; `o|` when there was none before (previous_outcome null).
  outcome: { code: 'o', type: 'application.outcome_changed' },
} as const satisfies Record<string, { code: string; type: EventType }>;
export type MovedField = keyof typeof MOVES;

const CREATED = 'c';
const FIELD_OF_CODE = new Map(Object.entries(MOVES).map(([field, m]) => [m.code as string, field as MovedField]));

/** The item's ids and times every change of it is told by (an event's envelope, a stage change). */
const CHANGE_ATTRIBUTES = ['id', 'company', 'job', 'created_at', 'updated_at', 'event_sequence'] as const;

/** The item attributes an event is made of (what `applicationEventOf` and `applicationEventId` read). */
export const APPLICATION_EVENT_ATTRIBUTES = [
  ITEM_EVENT_ATTRIBUTE,
  ...CHANGE_ATTRIBUTES,
  'sync_status',
  'email_sync_status',
  'external_apply_status',
  'failure_error',
  'outcome',
] as const;

/** The stored form of an `application.created` event. */
export function createdEventAttribute(): string {
  return CREATED;
}

/** The stored form of the event of a status move of `field` from `previous`. */
export function moveEventAttribute(field: MovedField, previous: string): string {
  return `${MOVES[field].code}|${previous}`;
}

/** The id of the event numbered `event_sequence` of the application `item` (a UUID, version 8, RFC 9562). */
export function applicationEventId(item: Record<string, unknown>): string {
  const name = `his-application-event|${String(item.company)}|${String(item.id)}|${String(item.created_at)}|${String(item.event_sequence)}`;
  const bytes = createHash('sha256').update(name).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x80;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const h = bytes.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The envelope of the event an application item carries, from the item as the write that set the event left
 * it (the stream record's new image); undefined when it carries none. Keys in the order the outbox had them.
 */
export function applicationEventOf(item: Record<string, unknown>): ServiceEvent | undefined {
  const stored = item[ITEM_EVENT_ATTRIBUTE];
  if (typeof stored !== 'string') return undefined;
  const [code, previous] = stored.split('|');
  const field = FIELD_OF_CODE.get(code);
  if (field ? previous === undefined : code !== CREATED)
    throw new Error(`application ${String(item.id)}: unreadable event ${JSON.stringify(stored)}`);
  const ids = { application_id: Number(item.id), job_id: Number(item.job) };
  const data: ServiceEvent['data'] = !field
    ? { ...ids, sync_status: String(item.sync_status), email_sync_status: String(item.email_sync_status) }
    : field === 'outcome'
      ? // Issue 43: exactly these three, never the ATS's stage name.
        { id: Number(item.id), outcome: String(item.outcome), previous_outcome: previous || null }
      : {
          ...ids,
          [field]: String(item[field]),
          [`previous_${field}`]: previous,
          ...(field === 'sync_status' ? { failure_error: (item.failure_error as string | null | undefined) ?? null } : {}),
        };
  return {
    id: applicationEventId(item),
    type: field ? MOVES[field].type : 'application.created',
    occurred_at: String(item.updated_at),
    company: Number(item.company),
    sequence: Number(item.event_sequence),
    data,
  };
}

/**
 * A change of the ATS's stage alone (issue 43 item 1, P345): what a job board hears of it. Not an event: it takes
 * no sequence number and reaches no partner (`application.outcome_changed` is for outcome moves only, D21); the
 * relay hands it to the webhook worker, which queues it as a disposition for the apply channel the application
 * came in through (D22, P316). Ids, the outcome and the stage name only, never personal data.
 */
export interface StageChange {
  kind: 'disposition-stage';
  company: number;
  application: number;
  job: number;
  channel: number;
  partner_application_id: string | null;
  outcome: string;
  stage: string;
  occurred_at: string;
  /** The application's event sequence at the change (orders it after the event before it in the channel's queue). */
  sequence: number;
  /** Stable per change (the application and the write's time), so a redelivered stream record queues it once. */
  id: string;
}

export const isStageChange = (body: unknown): body is StageChange => {
  const m = body as Partial<StageChange> | null;
  return (
    m?.kind === 'disposition-stage' &&
    [m.company, m.application, m.job, m.channel, m.sequence].every(Number.isSafeInteger) &&
    typeof m.outcome === 'string' &&
    typeof m.stage === 'string' &&
    typeof m.occurred_at === 'string' &&
    typeof m.id === 'string'
  );
};

/** The image attributes a stage change is read from (the relay converts only these). */
export const STAGE_CHANGE_ATTRIBUTES = [
  ...CHANGE_ATTRIBUTES,
  'import_source',
  'talent_channel',
  'partner_application_id',
  'outcome',
  'outcome_stage',
] as const;

/**
 * The stage change a write of an application item made (from its old and new images, P345): the outcome stayed
 * (and was known) and the stage moved to a new name, on an application that came in through an apply channel's
 * own endpoint (only those report to a board, P316). Undefined otherwise: an outcome move is an event of its own,
 * and a stage that went (anonymization drops it, D21) is nothing to report.
 */
export function stageChangeOf(before: Record<string, unknown>, after: Record<string, unknown>): StageChange | undefined {
  const stage = after.outcome_stage;
  if (typeof after.outcome !== 'string' || after.outcome !== before.outcome) return undefined;
  if (typeof stage !== 'string' || stage === before.outcome_stage) return undefined;
  if (after.import_source !== 'apply_webhook' || typeof after.talent_channel !== 'number') return undefined;
  const name = `his-application-stage|${String(after.company)}|${String(after.id)}|${String(after.created_at)}|${String(after.updated_at)}`;
  return {
    kind: 'disposition-stage',
    company: Number(after.company),
    application: Number(after.id),
    job: Number(after.job),
    channel: after.talent_channel,
    partner_application_id: typeof after.partner_application_id === 'string' ? after.partner_application_id : null,
    outcome: after.outcome,
    stage,
    occurred_at: String(after.updated_at),
    sequence: Number(after.event_sequence ?? 0),
    id: `stage-${createHash('sha256').update(name).digest('hex').slice(0, 32)}`,
  };
}
