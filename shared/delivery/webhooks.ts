/**
 * Partner webhooks (D19): the delivery of the service's events (D13) to the partners' endpoints
 * (`webhook-endpoints.ts` registers and lists them), signed by the Standard Webhooks convention.
 *
 * - Fan-out: an event from the events topic becomes one delivery message per enabled, matching endpoint of
 *   the partner that owns the event's company; no other partner's endpoint ever sees it.
 * - Delivery: a POST of the envelope (ids and statuses only) with `webhook-id` (the event id, the same on
 *   every redelivery), `webhook-timestamp` and `webhook-signature` (`v1,` + HMAC-SHA256, signed by the
 *   `standardwebhooks` library). The address is resolved and checked before connecting, and the connection
 *   goes to the checked address (SSRF, `#platform/addresses.js`). Each attempt is recorded (time, status,
 *   latency, error) with an expiry; a failure comes back with exponential backoff over more than 24 hours;
 *   an endpoint failing without a success for 5 days is disabled and `webhook.endpoint_disabled` emitted.
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { request as httpsRequest } from 'node:https';
import { rootCertificates } from 'node:tls';
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { getCompanyRecord } from '#companies/company-store.js';
import { recordWebhookDelivery } from '#delivery/delivery-metrics.js';
import { addressPolicy, partnerWebhookEndpoints, secretContext, toEndpoint, type WebhookEndpoint } from '#delivery/webhook-endpoints.js';
import { isLoopbackAddress, RefusedAddressError, resolveChecked } from '#platform/addresses.js';
import { config, db } from '#platform/clients.js';
import { now } from '#platform/clock.js';
import { isConditionFailure } from '#platform/errors.js';
import { newEvent, outboxPut } from '#platform/events.js';
import { crashPoint } from '#platform/faults.js';
import { expiringAt, keys } from '#platform/keys.js';
import { openSecret, type SealedSecret } from '#platform/secrets.js';
import { MAX_QUEUE_DELAY_SECONDS } from '#platform/sync-queue.js';

/** An endpoint failing for this long without a success is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;
/** How long an attempt stays in the history (`webhook deliveries`). */
export const ATTEMPT_HISTORY_DAYS = 14;
/** The longest wait between two attempts: the longest a queue message can be delayed (P266). */
export const MAX_RETRY_DELAY_SECONDS = MAX_QUEUE_DELAY_SECONDS;

export const webhookRetryBaseSeconds = () => Number(process.env.WEBHOOK_RETRY_BASE_SECONDS ?? 60);
const timeoutMs = () => Number(process.env.WEBHOOK_TIMEOUT_MS ?? 10_000);

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

/** The wait before attempt `attempt + 1`: base × 2^(attempt−1), at most 11 hours; no jitter, partners can plan on it. */
export function webhookRetryDelaySeconds(attempt: number): number {
  return Math.min(webhookRetryBaseSeconds() * 2 ** Math.max(attempt - 1, 0), MAX_RETRY_DELAY_SECONDS);
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

export interface PostResult {
  status_code: number | null;
  latency_ms: number;
  error: string | null;
}

/**
 * POSTs `body` to `url` at a checked address, with a timeout; never follows redirects; reads no more than 64 kB back.
 * Also the sender of a `generic` channel's dispositions (P318).
 */
export async function post(url: URL, headers: Record<string, string>, body: string): Promise<PostResult> {
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
export function signedHeaders(secret: string, event: Pick<WebhookEvent, 'id'>, body: string, at: Date): Record<string, string> {
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

/**
 * After a failure: starts (or continues) the endpoint's failing run; disables it after 5 days, or at once when the
 * receiver answered 410 Gone (`gone`), and emits the event.
 */
async function markFailing(endpoint: WebhookEndpoint, event: WebhookEvent, at: string, gone = false): Promise<void> {
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
  if (!gone && new Date(at).getTime() - new Date(failingSince).getTime() < DISABLE_AFTER_MS) return;
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
  // Standard Webhooks: a 410 Gone says the receiver wants nothing more; the sender should disable the endpoint (P266).
  const gone = result.status_code === 410;
  await markFailing(endpoint, message.event, at, gone);
  if (gone) return dropped();
  throw new DeliveryFailed(webhookRetryDelaySeconds(attempt), `webhook ${endpoint.id}: ${result.error}`);
}
