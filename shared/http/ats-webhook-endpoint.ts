/**
 * `POST /ats-webhooks/{token}` (issue 43 item 2, P310–P312): where Greenhouse and Lever send their signed webhooks
 * about the applications we delivered. No partner key and no authorizer: the random token of the URL names the
 * company, and the vendor's signature (`#delivery/ats-webhooks.js`) is the authority. Answers in the D2 shape:
 * 404 an unknown token, 401 a forged or stale signature, 409 a replay, 400 a malformed body, 413 a body over
 * 1 MB; 200 `{"result": "recorded" | "unchanged" | "ignored"}` otherwise. Like the apply endpoint, a small wrapper
 * of its own that logs route and status only, never the path (it carries the token), the headers or the body.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { receiveAtsWebhook } from '#delivery/ats-webhooks.js';
import { ApiError, PayloadTooLargeError } from '#platform/errors.js';
import { logger } from '#platform/logger.js';
import { currentMetrics, formatMetrics, withRequestMetrics } from '#platform/request-metrics.js';
import { recordRequest } from '#platform/service-metrics.js';
import { rawBody } from '#http/json-body.js';
import { jsonResult } from '#http/response-headers.js';

/** Greenhouse's and Lever's events are a few kB (Greenhouse's carry the candidate's profile): 1 MB is ample. */
export const MAX_ATS_WEBHOOK_BYTES = 1_000_000;

export function atsWebhookHandler(routeId: string) {
  return (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => withRequestMetrics(() => handle(event));

  async function handle(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
    const started = Date.now();
    const requestId = event.requestContext?.requestId ?? randomUUID();
    let statusCode = 200;
    let body: unknown;
    try {
      const raw = rawBody(event);
      const bytes = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
      if (bytes.length > MAX_ATS_WEBHOOK_BYTES) throw new PayloadTooLargeError(MAX_ATS_WEBHOOK_BYTES);
      // Header names are the sender's: looked up in a Map, never used as keys of our objects.
      const byName = new Map(Object.entries(event.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value ?? undefined]));
      body = { result: await receiveAtsWebhook(event.pathParameters?.token, (name) => byName.get(name), bytes) };
    } catch (error) {
      if (error instanceof ApiError) {
        statusCode = error.statusCode;
        body = error.body();
      } else {
        statusCode = 500;
        logger.error('ats webhook failed', { route: routeId, requestId, error: { name: (error as Error).name } });
        body = {
          detail: `Internal server error. Quote request id ${requestId} when you contact support.`,
          code: 'internal_error',
          request_id: requestId,
        };
      }
    }
    const durationMs = Date.now() - started;
    recordRequest(routeId, statusCode, durationMs, currentMetrics());
    logger.info('request', { route: routeId, status: statusCode, durationMs, requestId });
    // What the webhook cost in DynamoDB capacity, as the API routes report it (locally and in tests).
    const metrics = currentMetrics();
    return jsonResult(
      statusCode,
      body,
      requestId,
      metrics && process.env.CAPACITY_HEADER === '1' ? { 'X-DynamoDB-Capacity': formatMetrics(metrics) } : {},
    );
  }
}
