/**
 * Partner webhook endpoints (D19): registering, listing, reading and deleting a partner's HTTPS endpoints,
 * and the history of delivery attempts to one. The delivery itself is `webhooks.ts`.
 *
 * Endpoints live in the partner's partition (`keys.webhook`), with a pointer by id (`keys.webhookId`) and an
 * entry in the all-webhooks collection (COLLECTION). The signing secret (`whsec_` + base64 of 32 random bytes) is
 * shown once at creation and stored sealed (envelope encryption, like ATS credentials, D18). A URL must be
 * https to a public address (`#platform/addresses.js`), or plain http to a loopback receiver where allowed.
 */
import { randomBytes } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { isLoopbackAddress, RefusedAddressError, resolveChecked, type AddressPolicy } from '#platform/addresses.js';
import { collectionItems, queryAll } from '#platform/batch.js';
import { config, db } from '#platform/clients.js';
import { now } from '#platform/clock.js';
import { fieldErrors, NotFoundError, ValidationError } from '#platform/errors.js';
import type { EventType } from '#platform/events.js';
import { nextId } from '#platform/ids.js';
import { indexKeys, keys, webhookCollectionEntry } from '#platform/keys.js';
import { sealSecret } from '#platform/secrets.js';
import { isHttpUrl } from '#platform/web-formats.js';

/** Every event type a webhook may subscribe to: all of D13's (the compiler checks the list is complete). */
export const WEBHOOK_EVENT_TYPES = [
  'application.created',
  'application.sync_status_changed',
  'application.email_sync_status_changed',
  'application.external_apply_status_changed',
  'application.outcome_changed',
  'job.created',
  'job.updated',
  'job.archived',
  'webhook.endpoint_disabled',
  'company.ats_requested',
] as const satisfies readonly EventType[];
type Unlisted = Exclude<EventType, (typeof WEBHOOK_EVENT_TYPES)[number]>;
const everyTypeListed: Unlisted extends never ? true : Unlisted = true;
void everyTypeListed;

/** Tests and local runs only: plain-http receivers on loopback addresses (never set on AWS). */
export const addressPolicy = (): AddressPolicy => ({ allowLoopback: process.env.WEBHOOK_ALLOW_LOOPBACK_HTTP === 'true' });

export interface WebhookEndpoint {
  id: number;
  partner: number;
  url: string;
  /** Event types delivered; null: all. */
  events: string[] | null;
  status: 'enabled' | 'disabled';
  created_at: string;
  /** When the current run of failures began (no success since); null while the endpoint succeeds. */
  failing_since: string | null;
  disabled_at: string | null;
}

export interface WebhookAttempt {
  at: string;
  event_id: string;
  event_type: string;
  /** The SQS receive count of the delivery message: 1 for the first attempt. */
  attempt: number;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
}

/** The encryption context of an endpoint's sealed secret. */
export const secretContext = (partner: number, id: number) => ({
  purpose: 'webhook-secret',
  partner: String(partner),
  webhook: String(id),
});

/** The endpoint an item holds. */
export function toEndpoint(item: Record<string, unknown>): WebhookEndpoint {
  return {
    id: item.id as number,
    partner: item.partner as number,
    url: item.url as string,
    events: (item.events as string[] | null) ?? null,
    status: item.status as WebhookEndpoint['status'],
    created_at: item.created_at as string,
    failing_since: (item.failing_since as string | undefined) ?? null,
    disabled_at: (item.disabled_at as string | undefined) ?? null,
  };
}

/** Problems with a webhook URL (empty when it may be registered): https, or http to loopback when allowed; a public address. */
export async function webhookUrlProblems(value: string, policy = addressPolicy()): Promise<string[]> {
  const httpsOnly = ['Must be an https URL (plain http is allowed only for loopback receivers, with WEBHOOK_ALLOW_LOOPBACK_HTTP=true).'];
  if (!isHttpUrl(value)) return httpsOnly;
  const url = new URL(value);
  if (url.hash) return ['Must not have a fragment.'];
  const https = url.protocol === 'https:';
  if (!https && !policy.allowLoopback) return httpsOnly;
  try {
    const addresses = await resolveChecked(url.hostname, policy);
    if (!https && !addresses.every((a) => isLoopbackAddress(a.address))) return httpsOnly;
  } catch (error) {
    if (!(error instanceof RefusedAddressError)) throw error;
    if (!https) return httpsOnly;
    if (error.unresolved) return [`The host does not resolve: ${error.message}.`];
    return [`Must point to a public internet address: ${error.message} (private, loopback, link-local and similar ranges are refused).`];
  }
  return [];
}

function eventTypeProblems(events: readonly string[]): string[] {
  if (!events.length) return ['Give at least one event type, or leave the filter out for all.'];
  const unknown = events.filter((e) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(e));
  if (unknown.length)
    return [`Unknown event type${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; known: ${WEBHOOK_EVENT_TYPES.join(', ')}.`];
  return [];
}

/** The whsec_ secret: 32 random bytes, base64 (Standard Webhooks). */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * Registers an endpoint for a partner; resolves to it with its signing secret, which is not stored in
 * the clear and never shown again. Bad input: a ValidationError naming `url` and/or `events`, or a
 * NotFoundError for an unknown partner; nothing is written then.
 */
export async function createWebhookEndpoint(input: {
  partner: number;
  url: string;
  events?: readonly string[];
}): Promise<WebhookEndpoint & { secret: string }> {
  const errors = fieldErrors();
  const urlProblems = await webhookUrlProblems(input.url);
  if (urlProblems.length) errors.url = urlProblems;
  const events = input.events ? [...new Set(input.events)] : null;
  const eventProblems = events ? eventTypeProblems(events) : [];
  if (eventProblems.length) errors.events = eventProblems;
  if (Object.keys(errors).length) throw new ValidationError(errors);

  const id = await nextId('webhook');
  const createdAt = now().toISOString();
  const endpoint: WebhookEndpoint = {
    id,
    partner: input.partner,
    url: input.url,
    events,
    status: 'enabled',
    created_at: createdAt,
    failing_since: null,
    disabled_at: null,
  };
  const secret = newSecret();
  const sealed = await sealSecret(secret, secretContext(input.partner, id));
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            ConditionCheck: {
              TableName: config().tableName,
              Key: keys.partner(input.partner),
              ConditionExpression: 'attribute_exists(PK)',
            },
          },
          {
            Put: {
              TableName: config().tableName,
              Item: {
                ...keys.webhook(input.partner, id),
                ...webhookCollectionEntry(createdAt, id),
                // failing_since and disabled_at are absent until set (if_not_exists reads a stored null as set).
                id,
                partner: input.partner,
                url: input.url,
                events,
                status: 'enabled',
                created_at: createdAt,
                sealed,
              },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          {
            Put: {
              TableName: config().tableName,
              Item: { ...keys.webhookId(id), partner: input.partner },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
        ],
      }),
    );
  } catch (error) {
    const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
    if (reasons?.[0]?.Code === 'ConditionalCheckFailed') throw new NotFoundError(`Partner ${input.partner} does not exist.`);
    throw error;
  }
  return { ...endpoint, secret };
}

/** A partner's endpoints (strongly consistent: the fan-out reads them here). */
export async function partnerWebhookEndpoints(partner: number): Promise<WebhookEndpoint[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.partner(partner).PK, ':prefix': 'WEBHOOK#' },
    ConsistentRead: true,
  });
  return items.map(toEndpoint);
}

/** Endpoints of one partner, or of every partner in creation order. */
export async function listWebhookEndpoints(partner?: number): Promise<WebhookEndpoint[]> {
  if (partner !== undefined) return partnerWebhookEndpoints(partner);
  return (await collectionItems(indexKeys.allWebhooks())).map(toEndpoint);
}

async function endpointPartner(id: number): Promise<number> {
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.webhookId(id), ConsistentRead: true }));
  if (!out.Item) throw new NotFoundError(`Webhook ${id} does not exist.`);
  return out.Item.partner as number;
}

export async function getWebhookEndpoint(id: number): Promise<WebhookEndpoint> {
  const partner = await endpointPartner(id);
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.webhook(partner, id), ConsistentRead: true }));
  if (!out.Item) throw new NotFoundError(`Webhook ${id} does not exist.`);
  return toEndpoint(out.Item);
}

/** Deletes an endpoint and its secret; deliveries still queued for it are dropped; its history expires. */
export async function deleteWebhookEndpoint(id: number): Promise<{ id: number; status: 'deleted' }> {
  const partner = await endpointPartner(id);
  await db().send(
    new TransactWriteCommand({
      TransactItems: [
        { Delete: { TableName: config().tableName, Key: keys.webhook(partner, id) } },
        { Delete: { TableName: config().tableName, Key: keys.webhookId(id) } },
      ],
    }),
  );
  return { id, status: 'deleted' };
}

/** The recent attempts of an endpoint, newest first. */
export async function listWebhookAttempts(id: number, limit = 50): Promise<WebhookAttempt[]> {
  await endpointPartner(id);
  const out = await db().send(
    new QueryCommand({
      TableName: config().tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.webhookId(id).PK, ':prefix': 'ATTEMPT#' },
      ScanIndexForward: false,
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).map((item) => ({
    at: item.at as string,
    event_id: item.event_id as string,
    event_type: item.event_type as string,
    attempt: item.attempt as number,
    status_code: (item.status_code as number | null) ?? null,
    latency_ms: item.latency_ms as number,
    error: (item.error as string | null) ?? null,
  }));
}
