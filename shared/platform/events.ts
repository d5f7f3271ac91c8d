/**
 * Events (D13). Two ways to the relay (`#delivery/event-relay.ts`), the only publisher to the SNS topic:
 * - Item-borne (issue 22 step 1, P240): an application event rides on the application item. The write that
 *   records the change also sets the item's `ev` attribute to the event in a compact form
 *   (`#applications/application-events.ts`); the table's stream (NEW_AND_OLD_IMAGES) hands the relay the
 *   record, which publishes the envelope when the event's `id` is not the old image's (so a later write of the
 *   item without a new event publishes nothing). No outbox item.
 * - The transactional outbox (issue 12, P115), for every other event: the change writes the event as an
 *   outbox item in its own DynamoDB transaction (`outboxPut`), or, for an event without another change, on its
 *   own (`publishEvent`); the relay publishes it, then deletes the item. An item-borne event whose publish
 *   failed is parked there too (the same item shape), so `hiring-admin outbox status`/`replay` see it.
 * Events are at least once, and consumers deduplicate on the stable `id`. Application events carry the
 * application's `sequence` (1 for `application.created`, then +1 per event, kept on the application item in
 * the same write), so consumers can also order them (a parked event may arrive after a later one, P240).
 *
 * Envelope: `{id, type, occurred_at, company, sequence?, data}`; ids and statuses only, never personal data.
 */
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { batchPut } from '#platform/batch.js';
import { config, db } from '#platform/clients.js';
import { isoNow } from '#platform/clock.js';
import { OUTBOX_SHARDS, keys } from '#platform/keys.js';

export type EventType =
  | 'application.created'
  | 'application.sync_status_changed'
  | 'application.email_sync_status_changed'
  /** Issue 23 item 3, P206: the follow-up moved (data: external_apply_status, previous_external_apply_status). */
  | 'application.external_apply_status_changed'
  /** D21, issue 43: the outcome read back from the ATS changed (data: id, outcome, previous_outcome; no stage name). */
  | 'application.outcome_changed'
  | 'job.created'
  | 'job.updated'
  | 'job.archived'
  /** A partner's webhook endpoint failed for 5 days and was disabled (D19); `company` is the one whose event failed last. */
  | 'webhook.endpoint_disabled'
  /** D20: a company asked, through its magic link, for an ATS without a connector yet (data: ats, status). */
  | 'company.ats_requested';

export interface ServiceEvent {
  id: string;
  type: EventType;
  occurred_at: string;
  company: number;
  /** Application events: the application's event number (1, 2, …), in the order of its changes. */
  sequence?: number;
  data: Record<string, string | number | boolean | null>;
}

/** A new event with a fresh id; `sequence` for application events. */
export function newEvent(type: EventType, company: number, data: ServiceEvent['data'], sequence?: number): ServiceEvent {
  return { id: randomUUID(), type, occurred_at: isoNow(), company, ...(sequence !== undefined ? { sequence } : {}), data };
}

/** The item attribute an item-borne event rides in (P240); never part of a record (`fromApplicationItem`). */
export { ITEM_EVENT_ATTRIBUTE } from '#platform/keys.js';

/** An application's events share a partition (by application id), a company's other events one by company. */
function shardOf(event: ServiceEvent): number {
  const owner = typeof event.data.application_id === 'number' ? event.data.application_id : event.company;
  return Math.abs(Math.trunc(owner)) % OUTBOX_SHARDS;
}

/** The outbox item of an event: the envelope as the relay will publish it, and nothing else. */
export function outboxItem(event: ServiceEvent, stored = JSON.stringify(event)): Record<string, unknown> {
  const sort = `${event.occurred_at}#${String(event.sequence ?? 0).padStart(10, '0')}#${event.id}`;
  return { ...keys.outbox(shardOf(event), sort), entity: 'outbox', event: stored };
}

/** The transaction item that puts `event` into the outbox, for the transaction of the change it reports. */
export function outboxPut(event: ServiceEvent) {
  return { Put: { TableName: config().tableName, Item: outboxItem(event), ConditionExpression: 'attribute_not_exists(PK)' } };
}

/**
 * Records an event that reports no other write (the outbox item is the whole change); the relay publishes it.
 * A change that is stored elsewhere must instead put `outboxPut(newEvent(…))` into its own transaction.
 */
export async function publishEvent(type: EventType, company: number, data: ServiceEvent['data']): Promise<ServiceEvent> {
  const event = newEvent(type, company, data);
  await db().send(new PutCommand({ TableName: config().tableName, Item: outboxItem(event) }));
  return event;
}

/** Records many events that report no other write, 25 outbox items to a batch. */
export async function publishEvents(events: { type: EventType; company: number; data: ServiceEvent['data'] }[]): Promise<void> {
  await batchPut(events.map((e) => outboxItem(newEvent(e.type, e.company, e.data))));
}

/**
 * The condition and values that move an application's event sequence from `previous` to `previous + 1`
 * (P116): the write that records a change carries its event (P240), and the sequence cannot skip or repeat
 * a number even if two writers raced.
 */
export function sequenceStep(previous: number): { condition: string; values: Record<string, number> } {
  return previous
    ? { condition: 'event_sequence = :previous', values: { ':previous': previous, ':sequence': previous + 1 } }
    : { condition: 'attribute_not_exists(event_sequence)', values: { ':sequence': 1 } };
}
