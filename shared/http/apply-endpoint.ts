/**
 * `POST /apply/{channel}/{token}` (issue 23 item 2, P202–P204): where job boards post applications. No partner
 * key and no authorizer: the token of the URL (`verifyApplyToken`: company, job, channel, current generation,
 * company still entitled) and the channel's signature over the raw body are the authority. Each channel format
 * reads its own body and answers in its own way:
 * - `generic`: our application JSON without `job`, signed by Standard Webhooks (`webhook-id`,
 *   `webhook-timestamp`, `webhook-signature`, the channel's `whsec_` secret, verified by the `standardwebhooks`
 *   library as for our outgoing webhooks); errors in the D2 shape.
 * - `indeed`: Indeed Apply's JSON, `X-Indeed-Signature` (`#http/indeed-apply.js`).
 *
 * Checks run in this order, each before anything is stored: size (413), token and channel (404), signature
 * (401), a replay (the earlier answer), the job (404, 410), the body (400), then the create.
 *
 * Not the API's middy stack (no principal, no Company-Id): a small wrapper of its own that answers JSON and logs
 * route, format and status only, never the path (it carries the token), the headers or the body.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { Webhook } from 'standardwebhooks';
import { applyTarget, createFromDelivery, findEarlierDelivery } from '#applications/apply-deliveries.js';
import { getApplication } from '#applications/application-list.js';
import { toApplication } from '#applications/applications.js';
import { loadApplyChannelSecret, type ApplyFormat } from '#companies/apply-channels.js';
import { verifyApplyToken, type VerifiedApplyToken } from '#jobs/apply-links.js';
import { ApiError, NotFoundError, PayloadTooLargeError } from '#platform/errors.js';
import { logger } from '#platform/logger.js';
import { currentMetrics, withRequestMetrics } from '#platform/request-metrics.js';
import { recordRequest } from '#platform/service-metrics.js';
import { jsonObject, rawBody } from '#http/json-body.js';
import { InvalidSignatureError, type ApplyFormatHandler, type ApplyResponse } from '#http/apply-format.js';
import { indeedFormat } from '#http/indeed-apply.js';
import { jsonResult } from '#http/response-headers.js';

/**
 * The largest body taken, on every runtime alike: the Lambda path's JSON limit (`LAMBDA_PATH_BODY_LIMITS.text`
 * in lib/lambda-body-limits.ts, 5.5 MB; the WAF answers larger ones on AWS before a function runs).
 */
export const MAX_APPLY_BODY_BYTES = 5_500_000;

const genericFormat: ApplyFormatHandler = {
  verify(secret, headers, body) {
    const id = headers('webhook-id');
    const timestamp = headers('webhook-timestamp');
    const signature = headers('webhook-signature');
    if (!id || !timestamp || !signature) throw new InvalidSignatureError('Send webhook-id, webhook-timestamp and webhook-signature.');
    try {
      // The library checks the timestamp (5 minutes either way) and each `v1,` signature in constant time.
      new Webhook(secret).verify(
        body.toString('utf8'),
        { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature },
        { jsonParse: false },
      );
    } catch {
      throw new InvalidSignatureError();
    }
  },
  read(body, headers) {
    return { fields: jsonObject(body), identity: { deliveryId: headers('webhook-id') } };
  },
  created: ({ application }) => ({ statusCode: 201, body: application }),
  // A replay is answered like a success (a Standard Webhooks sender retries anything else): 200, the earlier application.
  duplicate: async (applicationId, companyId) => ({ statusCode: 200, body: await getApplication(companyId, applicationId) }),
  error: (error) => ({ statusCode: error.statusCode, body: error.body() }),
};

const FORMATS: Record<ApplyFormat, ApplyFormatHandler> = { generic: genericFormat, indeed: indeedFormat };

/** Handles one delivery; throws typed errors, which `applyHandler` answers in the channel's format. */
async function receive(
  event: APIGatewayProxyEvent,
  target: VerifiedApplyToken,
  format: ApplyFormatHandler,
  body: Buffer,
): Promise<ApplyResponse> {
  // Header names are the client's: looked up by name in a copy without a prototype, never used as keys of our objects.
  const byName = new Map(Object.entries(event.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value ?? undefined]));
  const headers = (name: string) => byName.get(name);
  format.verify(await loadApplyChannelSecret(target.channel.channel_id), headers, body);
  const { fields, identity } = format.read(body, headers);
  const earlier = await findEarlierDelivery(target, identity);
  if (earlier !== undefined) return format.duplicate(earlier, target.companyId);
  const { company } = await applyTarget(target);
  const outcome = await createFromDelivery(target, company, fields, [], identity);
  if ('duplicateOf' in outcome) return format.duplicate(outcome.duplicateOf, target.companyId);
  const { record, job, channel } = outcome.created;
  return format.created({ id: record.id, application: toApplication(record, job, channel, 'single') });
}

/** The Lambda handler of the apply route. */
export function applyHandler(routeId: string) {
  return (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => withRequestMetrics(() => handle(event));

  async function handle(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
    const started = Date.now();
    const requestId = event.requestContext?.requestId ?? randomUUID();
    let format: ApplyFormatHandler = genericFormat;
    let formatName: ApplyFormat | undefined;
    let result: ApplyResponse;
    try {
      const raw = rawBody(event);
      const body = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
      if (body.length >= MAX_APPLY_BODY_BYTES) throw new PayloadTooLargeError(MAX_APPLY_BODY_BYTES);
      const target = await verifyApplyToken(event.pathParameters?.token);
      // The slug of the path must be the token's channel: one channel's URL never takes another's format.
      if (!target || target.channel.slug !== event.pathParameters?.channel) throw new NotFoundError();
      formatName = target.channel.format;
      format = FORMATS[formatName];
      result = await receive(event, target, format, body);
    } catch (error) {
      if (error instanceof ApiError) result = format.error(error);
      else {
        logger.error('apply delivery failed', { route: routeId, requestId, error: { name: (error as Error).name } });
        result = {
          statusCode: 500,
          body: {
            detail: `Internal server error. Quote request id ${requestId} when you contact support.`,
            code: 'internal_error',
            request_id: requestId,
          },
        };
      }
    }
    const durationMs = Date.now() - started;
    recordRequest(routeId, result.statusCode, durationMs, currentMetrics());
    logger.info('request', { route: routeId, format: formatName, status: result.statusCode, durationMs, requestId });
    return jsonResult(result.statusCode, result.body, requestId);
  }
}
