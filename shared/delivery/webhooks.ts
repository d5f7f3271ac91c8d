/**
 * Partner webhooks (D19): a partner's HTTPS endpoints, and the delivery of the service's events (D13) to
 * them, signed by the Standard Webhooks convention.
 *
 * - Endpoints live in the partner's partition (`keys.webhook`), with a pointer by id (`keys.webhookId`) and
 *   an entry in the all-webhooks collection (GSI1). The signing secret (`whsec_` + base64 of 32 random
 *   bytes) is shown once at creation and stored sealed (envelope encryption, like ATS credentials, D18).
 * - Fan-out: an event from the events topic becomes one delivery message per enabled, matching endpoint of
 *   the partner that owns the event's company; no other partner's endpoint ever sees it.
 * - Delivery: a POST of the envelope (ids and statuses only) with `webhook-id` (the event id, the same on
 *   every redelivery), `webhook-timestamp` and `webhook-signature` (`v1,` + HMAC-SHA256, signed by the
 *   `standardwebhooks` library). The address is resolved and checked before connecting, and the connection
 *   goes to the checked address (SSRF, `#platform/addresses.js`). Each attempt is recorded (time, status,
 *   latency, error) with an expiry; a failure comes back with exponential backoff over more than 24 hours;
 *   an endpoint failing without a success for 5 days is disabled and `webhook.endpoint_disabled` emitted.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { request as httpsRequest } from 'node:https';
import { rootCertificates } from 'node:tls';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { getCompanyRecord } from '#companies/company-store.js';
import { recordWebhookDelivery } from '#delivery/delivery-metrics.js';
import { isLoopbackAddress, RefusedAddressError, resolveChecked, type AddressPolicy } from '#platform/addresses.js';
import { queryAll } from '#platform/batch.js';
import { config, db } from '#platform/clients.js';
import { now } from '#platform/clock.js';
import { fieldErrors, NotFoundError, ValidationError, isConditionFailure } from '#platform/errors.js';
import { newEvent, outboxPut, type EventType } from '#platform/events.js';
import { crashPoint } from '#platform/faults.js';
import { nextId } from '#platform/ids.js';
import { expiringAt, indexKeys, keys } from '#platform/keys.js';
import { openSecret, sealSecret, type SealedSecret } from '#platform/secrets.js';
import { isHttpUrl } from '#platform/web-formats.js';

/** Every event type a webhook may subscribe to: all of D13's (the compiler checks the list is complete). */
export const WEBHOOK_EVENT_TYPES = [
  'application.created',
  'application.sync_status_changed',
  'application.email_sync_status_changed',
  'application.external_apply_status_changed',
  'job.created',
  'job.updated',
  'job.archived',
  'webhook.endpoint_disabled',
  'company.ats_requested',
] as const satisfies readonly EventType[];
type Unlisted = Exclude<EventType, (typeof WEBHOOK_EVENT_TYPES)[number]>;
const everyTypeListed: Unlisted extends never ? true : Unlisted = true;
void everyTypeListed;

/** An endpoint failing for this long without a success is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;
/** How long an attempt stays in the history (`webhook deliveries`). */
export const ATTEMPT_HISTORY_DAYS = 14;
/** SQS caps a message's visibility timeout at 12 hours: the longest wait between two attempts. */
export const MAX_RETRY_DELAY_SECONDS = 12 * 3600;

export const webhookRetryBaseSeconds = () => Number(process.env.WEBHOOK_RETRY_BASE_SECONDS ?? 60);
const timeoutMs = () => Number(process.env.WEBHOOK_TIMEOUT_MS ?? 10_000);
/** Tests and local runs only: plain-http receivers on loopback addresses (never set on AWS). */
export const addressPolicy = (): AddressPolicy => ({ allowLoopback: process.env.WEBHOOK_ALLOW_LOOPBACK_HTTP === 'true' });

/**
 * Tests and local runs only: a PEM file of extra CA certificates trusted for https receivers, besides
 * Node's bundled roots (never set on AWS; the stack test checks). Read once per path.
 */
let extraCa: { file: string; ca: string[] } | undefined;
function trustedCas(): string[] | undefined {
  const file = process.env.WEBHOOK_EXTRA_CA_FILE;
  if (!file) return undefined;
  if (extraCa?.file !== file) extraCa = { file, ca: [...rootCertificates, readFileSync(file, 'utf8')] };
  return extraCa.ca;
}

/** The wait before attempt `attempt + 1`: base × 2^(attempt−1), at most 12 hours; no jitter, partners can plan on it. */
export function webhookRetryDelaySeconds(attempt: number): number {
  return Math.min(webhookRetryBaseSeconds() * 2 ** Math.max(attempt - 1, 0), MAX_RETRY_DELAY_SECONDS);
}

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

/** The event as delivered: the D13 envelope (and the outbox's `sequence`), nothing else. */
export interface WebhookEvent {
  id: string;
  type: string;
  occurred_at: string;
  company: number;
  data: Record<string, string | number | boolean | null>;
  sequence?: number;
}

/** A message of the webhook queue: an event to fan out (from the topic), or one delivery to one endpoint. */
export interface WebhookDeliveryMessage {
  kind: 'webhook-delivery';
  partner: number;
  endpoint: number;
  event: WebhookEvent;
}

const secretContext = (partner: number, id: number) => ({ purpose: 'webhook-secret', partner: String(partner), webhook: String(id) });

function toEndpoint(item: Record<string, unknown>): WebhookEndpoint {
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
                GSI1PK: indexKeys.allWebhooks(),
                GSI1SK: indexKeys.createdSort(createdAt, id),
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
  const items = await queryAll({
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': indexKeys.allWebhooks() },
  });
  return items.map(toEndpoint);
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

// ---------------------------------------------------------------------------------------------------
// Fan-out and delivery

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The event in a webhook queue message body: raw delivery from the topic, or an SNS notification
 * envelope around it. Only the envelope's own fields are kept (ids and statuses, never more).
 */
export function parseEvent(body: unknown): WebhookEvent | undefined {
  let value = body;
  if (isRecord(value) && value.Type === 'Notification' && typeof value.Message === 'string') value = JSON.parse(value.Message) as unknown;
  if (!isRecord(value) || typeof value.id !== 'string' || typeof value.type !== 'string' || typeof value.occurred_at !== 'string')
    return undefined;
  if (!Number.isSafeInteger(value.company) || !isRecord(value.data)) return undefined;
  const data = Object.create(null) as WebhookEvent['data'];
  for (const [name, field] of Object.entries(value.data))
    if (field === null || ['string', 'number', 'boolean'].includes(typeof field)) data[name] = field as string | number | boolean | null;
  return {
    id: value.id,
    type: value.type,
    occurred_at: value.occurred_at,
    company: value.company as number,
    data: { ...data },
    ...(Number.isSafeInteger(value.sequence) ? { sequence: value.sequence as number } : {}),
  };
}

/** One delivery message per enabled endpoint of the event's company's partner that takes the event's type. */
export async function fanOut(event: WebhookEvent): Promise<WebhookDeliveryMessage[]> {
  const company = await getCompanyRecord(event.company);
  if (!company) return [];
  const endpoints = await partnerWebhookEndpoints(company.partner);
  return endpoints
    .filter((e) => e.status === 'enabled' && (!e.events || e.events.includes(event.type)))
    .map((e) => ({ kind: 'webhook-delivery', partner: company.partner, endpoint: e.id, event }));
}

/** Thrown after a failed attempt: the message comes back after `delaySeconds`. */
export class DeliveryFailed extends Error {
  constructor(
    readonly delaySeconds: number,
    reason: string,
  ) {
    super(reason);
    this.name = 'DeliveryFailed';
  }
}

interface PostResult {
  status_code: number | null;
  latency_ms: number;
  error: string | null;
}

/** POSTs `body` to `url` at a checked address, with a timeout; never follows redirects; reads no more than 64 kB back. */
async function post(url: URL, headers: Record<string, string>, body: string): Promise<PostResult> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  let addresses: { address: string; family: number }[];
  try {
    addresses = await resolveChecked(url.hostname, addressPolicy());
    if (url.protocol !== 'https:' && !(addressPolicy().allowLoopback && addresses.every((a) => isLoopbackAddress(a.address))))
      throw new RefusedAddressError('plain http is allowed to loopback receivers only');
  } catch (error) {
    return { status_code: null, latency_ms: latency(), error: `refused: ${(error as Error).message}` };
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<PostResult, 'latency_ms'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, latency_ms: latency() });
    };
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'hiring-integration-service-webhooks/1',
        },
        // The connection goes to the address just checked, not to a second DNS answer; TLS still checks the
        // certificate against the URL's host name (the SNI and identity check use `hostname`, not the address).
        ...(url.protocol === 'https:' && !isIP(url.hostname.replace(/^\[|\]$/g, '')) ? { servername: url.hostname } : {}),
        ...(url.protocol === 'https:' && trustedCas() ? { ca: trustedCas() } : {}),
        lookup: ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) =>
          options?.all ? callback(null, addresses) : callback(null, addresses[0].address, addresses[0].family)) as never,
        agent: false,
      },
      (res: IncomingMessage) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > 65_536) res.destroy();
        });
        const done = () => {
          const code = res.statusCode ?? 0;
          finish({ status_code: code, error: code >= 200 && code < 300 ? null : `HTTP ${code}` });
        };
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      finish({ status_code: null, error: `timeout after ${timeoutMs()} ms` });
      req.destroy();
    }, timeoutMs());
    req.on('error', (error: NodeJS.ErrnoException) => finish({ status_code: null, error: error.code ?? error.message }));
    req.end(body);
  });
}

/** The headers of one attempt (Standard Webhooks). */
export function signedHeaders(secret: string, event: WebhookEvent, body: string, at: Date): Record<string, string> {
  return {
    'webhook-id': event.id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(event.id, at, body),
  };
}

async function recordAttempt(
  endpoint: WebhookEndpoint,
  event: WebhookEvent,
  attempt: number,
  at: string,
  result: PostResult,
): Promise<void> {
  const expires = Math.floor(new Date(at).getTime() / 1000) + ATTEMPT_HISTORY_DAYS * 24 * 3600;
  const attemptId = randomUUID();
  await db().send(
    new PutCommand({
      TableName: config().tableName,
      Item: {
        ...keys.webhookAttempt(endpoint.id, at, attemptId),
        ...expiringAt(expires),
        at,
        event_id: event.id,
        event_type: event.type,
        attempt,
        ...result,
      },
    }),
  );
}

/** After a success: the endpoint is healthy again. */
async function markHealthy(endpoint: WebhookEndpoint): Promise<void> {
  await db()
    .send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: keys.webhook(endpoint.partner, endpoint.id),
        UpdateExpression: 'REMOVE failing_since',
        ConditionExpression: 'attribute_exists(PK) AND attribute_exists(failing_since)',
      }),
    )
    .catch((error: unknown) => {
      if (!isConditionFailure(error)) throw error;
    });
}

/** After a failure: starts (or continues) the endpoint's failing run; disables it after 5 days and emits the event. */
async function markFailing(endpoint: WebhookEndpoint, event: WebhookEvent, at: string): Promise<void> {
  let failingSince: string;
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: keys.webhook(endpoint.partner, endpoint.id),
        UpdateExpression: 'SET failing_since = if_not_exists(failing_since, :at)',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':at': at },
        ReturnValues: 'ALL_NEW',
      }),
    );
    failingSince = out.Attributes!.failing_since as string;
  } catch (error) {
    if (isConditionFailure(error)) return; // deleted meanwhile
    throw error;
  }
  if (new Date(at).getTime() - new Date(failingSince).getTime() < DISABLE_AFTER_MS) return;
  // The disabling and its event are one transaction (the outbox, P115): both happen, or neither.
  const disabled = newEvent('webhook.endpoint_disabled', event.company, {
    webhook_id: endpoint.id,
    partner_id: endpoint.partner,
    failing_since: failingSince,
  });
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: config().tableName,
              Key: keys.webhook(endpoint.partner, endpoint.id),
              UpdateExpression: 'SET #status = :disabled, disabled_at = :at',
              ConditionExpression: 'attribute_exists(PK) AND #status = :enabled',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':disabled': 'disabled', ':enabled': 'enabled', ':at': at },
            },
          },
          outboxPut(disabled),
        ],
      }),
    );
  } catch (error) {
    if (isConditionFailure(error)) return; // disabled (or deleted) by another attempt: one event only
    throw error;
  }
}

/**
 * One attempt to deliver an event to an endpoint. Resolves when delivered, or when there is nothing to do
 * (the endpoint was deleted or disabled); throws `DeliveryFailed` with the backoff after a failed attempt.
 * `attempt` is the message's receive count.
 */
function dropped(): 'dropped' {
  recordWebhookDelivery('dropped');
  return 'dropped';
}

export async function deliverWebhook(message: WebhookDeliveryMessage, attempt: number): Promise<'delivered' | 'dropped'> {
  const out = await db().send(
    new GetCommand({ TableName: config().tableName, Key: keys.webhook(message.partner, message.endpoint), ConsistentRead: true }),
  );
  if (!out.Item) return dropped();
  const endpoint = toEndpoint(out.Item);
  if (endpoint.status !== 'enabled') return dropped();
  const secret = await openSecret(out.Item.sealed as SealedSecret, secretContext(endpoint.partner, endpoint.id));
  const body = JSON.stringify(message.event);
  const sentAt = now();
  const result = await post(new URL(endpoint.url), signedHeaders(secret, message.event, body, sentAt), body);
  crashPoint('webhook.after-post');
  const at = sentAt.toISOString();
  await recordAttempt(endpoint, message.event, attempt, at, result);
  recordWebhookDelivery(result.error ? 'failed' : 'delivered');
  if (!result.error) {
    await markHealthy(endpoint);
    return 'delivered';
  }
  await markFailing(endpoint, message.event, at);
  throw new DeliveryFailed(webhookRetryDelaySeconds(attempt), `webhook ${endpoint.id}: ${result.error}`);
}
