/**
 * The middleware stack every route handler runs in (middy): request id, DynamoDB accounting, the D3
 * company-access check, JSON responses, and the one error middleware that turns typed errors into D2
 * responses. Handlers stay thin: parse, call a domain function, return a body.
 */
import { randomUUID } from 'node:crypto';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { authorizeCompany, parseCompanyIdHeader, principalFromContext, type Principal } from './api-keys.js';
import type { CompanyRecord } from './companies.js';
import { ApiError, BadRequestError, UnauthorizedError, UnsupportedMediaTypeError, invalidField } from './errors.js';
import { logger } from './logger.js';
import type { LinkContext } from './pagination.js';
import { queryParams, type QueryParams } from './query-params.js';
import { currentMetrics, formatMetrics, withRequestMetrics } from './request-metrics.js';
import { routeById, type RouteDefinition } from './routes.js';

export interface ApiRequest {
  event: APIGatewayProxyEvent;
  route: RouteDefinition;
  requestId: string;
  principal: Principal;
  /** The company acted for (routes with the Company-Id header). */
  company: CompanyRecord | undefined;
  query: QueryParams;
  link: LinkContext;
}

export interface ApiResult {
  statusCode?: number;
  body: unknown;
  headers?: Record<string, string>;
}

type ApiHandler = (request: ApiRequest) => Promise<ApiResult>;

export function header(event: Pick<APIGatewayProxyEvent, 'headers'>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) if (key.toLowerCase() === wanted) return value ?? undefined;
  return undefined;
}

/** The request's own absolute URL (without query), for `next`/`previous` links (D4). */
export function linkContext(event: APIGatewayProxyEvent): LinkContext {
  const host = header(event, 'x-forwarded-host') ?? header(event, 'host') ?? event.requestContext?.domainName ?? 'localhost';
  const proto = header(event, 'x-forwarded-proto') ?? 'https';
  // requestContext.path is the path as the client called it (with the stage on an execute-api domain).
  const path = event.requestContext?.path ?? event.path;
  return { baseUrl: `${proto}://${host}${path}`, query: queryParams(event) };
}

/** Parses a JSON request body; the content type must be JSON (415 otherwise) and the JSON well formed. */
export function jsonBody(event: APIGatewayProxyEvent): unknown {
  const contentType = (header(event, 'content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (contentType !== 'application/json') throw new UnsupportedMediaTypeError(contentType || undefined, ['application/json']);
  const text = event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64').toString('utf8') : (event.body ?? '');
  if (!text.trim()) throw invalidField('body', 'A JSON object is required.');
  try {
    return JSON.parse(text);
  } catch {
    throw new BadRequestError('The request body is not valid JSON.', 'malformed_json');
  }
}

/** A positive integer path parameter; anything else cannot name a record, so it is a 404. */
export function idParam(event: APIGatewayProxyEvent, name = 'id'): number | undefined {
  const value = event.pathParameters?.[name];
  return value && /^\d{1,15}$/.test(value) && Number(value) > 0 ? Number(value) : undefined;
}

function respond(requestId: string, statusCode: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyResult {
  const metrics = currentMetrics();
  return {
    statusCode,
    headers: {
      'Content-Type': 'application/json',
      'X-Request-Id': requestId,
      ...(metrics && process.env.CAPACITY_HEADER === '1' ? { 'X-DynamoDB-Capacity': formatMetrics(metrics) } : {}),
      ...headers,
    },
    body: JSON.stringify(body),
  };
}

export function errorResponse(requestId: string, error: unknown): APIGatewayProxyResult {
  if (error instanceof ApiError) return respond(requestId, error.statusCode, error.body(), error.headers);
  logger.error('unhandled error', { requestId, error: error as Error });
  return respond(requestId, 500, { detail: `Internal server error. Quote request id ${requestId} when you contact support.`, code: 'internal_error', request_id: requestId });
}

/** Wraps a route handler (named by its route table id) in the service's middleware stack. */
export function api(routeId: string, handler: ApiHandler) {
  const route = routeById(routeId);
  const wrapped = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context & { api?: ApiRequest }>()
    .use({
      before: async (request) => {
        const { event } = request;
        const requestId = event.requestContext?.requestId ?? randomUUID();
        const principal = principalFromContext(event.requestContext?.authorizer);
        // The gateway only invokes a route after the authorizer; a missing principal means a misconfiguration.
        if (!principal) throw new UnauthorizedError();
        const company = route.companyHeader ? await authorizeCompany(principal, parseCompanyIdHeader(header(event, 'company-id'))) : undefined;
        request.context.api = { event, route, requestId, principal, company, query: queryParams(event), link: linkContext(event) };
      },
      onError: async (request) => {
        const requestId = request.context.api?.requestId ?? request.event.requestContext?.requestId ?? randomUUID();
        request.response = errorResponse(requestId, request.error);
      },
    })
    .handler(async (_event, context) => {
      const request = context.api!;
      const result = await handler(request);
      return respond(request.requestId, result.statusCode ?? 200, result.body, result.headers);
    });
  return async (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> =>
    withRequestMetrics(async () => {
      const started = Date.now();
      const response = await wrapped(event, context);
      const metrics = currentMetrics()!;
      logger.info('request', {
        route: route.id,
        status: response.statusCode,
        durationMs: Date.now() - started,
        requestId: response.headers?.['X-Request-Id'],
        dynamodb: { calls: metrics.calls, capacityUnits: metrics.capacityUnits },
      });
      return response;
    });
}
