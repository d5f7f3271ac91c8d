/**
 * Events (D13) on the SNS topic: envelope `{id, type, occurred_at, company, data}`, ids and statuses only,
 * never personal data. Published after the change is stored; a failed publish is logged and does not undo
 * the change (consumers that must not miss a change can reconcile through the API's `updated_at` filter).
 */
import { randomUUID } from 'node:crypto';
import { PublishCommand } from '@aws-sdk/client-sns';
import { config, sns } from '#platform/clients.js';
import { isoNow } from '#platform/clock.js';
import { logger } from '#platform/logger.js';

export type EventType =
  | 'application.created'
  | 'application.sync_status_changed'
  | 'application.email_sync_status_changed'
  | 'job.created'
  | 'job.updated'
  | 'job.archived'
  /** D20: a company asked, through its magic link, for an ATS without a connector yet (data: ats, status). */
  | 'company.ats_requested';

export interface ServiceEvent {
  id: string;
  type: EventType;
  occurred_at: string;
  company: number;
  data: Record<string, string | number | boolean | null>;
}

export async function publishEvent(type: EventType, company: number, data: ServiceEvent['data']): Promise<ServiceEvent> {
  const event: ServiceEvent = { id: randomUUID(), type, occurred_at: isoNow(), company, data };
  if (!config().eventsTopicArn) return event;
  try {
    await sns().send(
      new PublishCommand({
        TopicArn: config().eventsTopicArn,
        Message: JSON.stringify(event),
        MessageAttributes: {
          type: { DataType: 'String', StringValue: type },
          company: { DataType: 'Number', StringValue: String(company) },
        },
      }),
    );
  } catch (error) {
    logger.error('event not published', { type, company, error: error as Error });
  }
  return event;
}

/** Publishes many events, ten at a time. */
export async function publishEvents(events: { type: EventType; company: number; data: ServiceEvent['data'] }[]): Promise<void> {
  for (let i = 0; i < events.length; i += 10) {
    await Promise.all(events.slice(i, i + 10).map((e) => publishEvent(e.type, e.company, e.data)));
  }
}
