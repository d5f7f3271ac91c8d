/**
 * The middleware stack every route handler runs in (middy): request id, DynamoDB accounting, the D3
 * company-access check, JSON responses, and the one error middleware that turns typed errors into D2
 * responses. Handlers stay thin: parse, call a domain function, return a body.
 */
import { randomUUID } from 'node:crypto';
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { authorizeCompany, parseCompanyIdHeader, principalFromContext, type Principal } from '#companies/api-keys.js';
import type { CompanyRecord } from '#companies/company-schema.js';
import { ApiError, invalidField, UnauthorizedError } from '#platform/errors.js';
import { isSimulatedCrash } from '#platform/faults.js';
import { idempotencyError } from '#http/idempotency-errors.js';
import { header } from '#platform/headers.js';
import { logger } from '#platform/logger.js';
import { sourceStack } from '#platform/stack-trace.js';
import type { LinkContext } from '#platform/pagination.js';
import { queryParams, type QueryParams } from '#platform/query-params.js';
import { currentMetrics, formatMetrics, withRequestMetrics } from '#platform/request-metrics.js';
import { recordRequest } from '#platform/service-metrics.js';
import { routeById, type RouteDefinition } from '#http/routes.js';
import { linkBase, publicBase } from '#http/public-base.js';
import { SECURITY_HEADERS } from '#http/response-headers.js';

export interface ApiRequest {
  event: APIGatewayProxyEvent;
  route: RouteDefinition;
  requestId: string;
  principal: Principal;
  /** The company acted for (routes with the Company-Id header). */
  company: CompanyRecord | undefined;
  query: QueryParams;
  link: LinkContext;
  /** The service's public address, for absolute links into the service (`magic_link`). */
  publicBase: string;
}

export interface ApiResult {
  statusCode?: number;
  body: unknown;
  headers?: Record<string, string>;
}

type ApiHandler = (request: ApiRequest) => Promise<ApiResult>;

export { header, publicBase };

/** The request's own absolute URL (without query), for `next`/`previous` links (D4). */
export function linkContext(event: APIGatewayProxyEvent): LinkContext {
  const { origin, path } = linkBase(event);
  return { baseUrl: `${origin}${path}`, query: queryParams(event) };
}

/**
 * A positive integer path parameter, as the OpenAPI document declares it. A value that is no positive
 * integer is a 400 naming the parameter (issue 25: a client generated from the document cannot send one);
 * an integer too large to be an id names no record: `undefined`, a 404.
 */
export function idParam(event: APIGatewayProxyEvent, name = 'id'): number | undefined {
  const value = event.pathParameters?.[name] ?? '';
  if (!/^\d+$/.test(value) || !/[1-9]/.test(value)) throw invalidField(name, 'Must be a positive integer.');
  return value.length <= 15 ? Number(value) : undefined;
}

function respond(requestId: string, statusCode: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyResult {
  const metrics = currentMetrics();
  return {
    statusCode,
    headers: {
      'Content-Type': 'application/json',
      ...SECURITY_HEADERS,
      'X-Request-Id': requestId,
      ...(metrics && process.env.CAPACITY_HEADER === '1' ? { 'X-DynamoDB-Capacity': formatMetrics(metrics) } : {}),
      ...headers,
    },
    body: JSON.stringify(body),
  };
}

export function errorResponse(requestId: string, error: unknown): APIGatewayProxyResult {
  const known = error instanceof ApiError ? error : idempotencyError(error);
  if (known) return respond(requestId, known.statusCode, known.body(), known.headers);
  logger.error('unhandled error', { requestId, error: error as Error, sourceStack: sourceStack(error) });
  return respond(requestId, 500, {
    detail: `Internal server error. Quote request id ${requestId} when you contact support.`,
    code: 'internal_error',
    request_id: requestId,
  });
}

type ApiContext = Context & { api?: ApiRequest; requestId: string };

/**
 * Wraps a route handler (named by its route table id) in the service's middleware stack. `extra`
 * middlewares (such as idempotency) run after authentication and the company check.
 */
export function api(routeId: string, handler: ApiHandler, extra: MiddlewareObj[] = []) {
  const route = routeById(routeId);
  const wrapped = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ApiContext>().use({
    before: async (request) => {
      const { event } = request;
      const requestId = request.context.requestId;
      // Header names are case-insensitive; lower-casing them once lets later middlewares address them.
      // A null-prototype object: header names are the client's, `toString` and `__proto__` included.
      event.headers = Object.assign(
        Object.create(null) as Record<string, string | undefined>,
        Object.fromEntries(Object.entries(event.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
      );
      const principal = principalFromContext(event.requestContext?.authorizer);
      // The gateway only invokes a route after the authorizer; a missing principal means a misconfiguration.
      if (!principal) throw new UnauthorizedError();
      const company = route.companyHeader
        ? await authorizeCompany(principal, parseCompanyIdHeader(header(event, 'company-id')))
        : undefined;
      request.context.api = {
        event,
        route,
        requestId,
        principal,
        company,
        query: queryParams(event),
        link: linkContext(event),
        publicBase: publicBase(event),
      };
    },
    onError: async (request) => {
      // A simulated crash (fault-injection tests) kills the invocation: no answer, the error goes up to the runtime.
      if (isSimulatedCrash(request.error)) return;
      request.response = errorResponse(request.context.requestId, request.error);
    },
  });
  for (const middleware of extra) wrapped.use(middleware);
  wrapped.handler(async (_event, context) => {
    const request = context.api!;
    const result = await handler(request);
    return respond(request.requestId, result.statusCode ?? 200, result.body, result.headers);
  });
  return async (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> =>
    withRequestMetrics(async () => {
      const started = Date.now();
      const requestId = event.requestContext?.requestId ?? randomUUID();
      const response = await wrapped(event, { ...context, requestId });
      // A replayed (idempotent) response still names this request and reports this request's cost.
      const metrics = currentMetrics()!;
      response.headers = {
        ...(response.headers ?? {}),
        ...SECURITY_HEADERS,
        'X-Request-Id': requestId,
        ...(process.env.CAPACITY_HEADER === '1' ? { 'X-DynamoDB-Capacity': formatMetrics(metrics) } : {}),
      };
      const durationMs = Date.now() - started;
      recordRequest(route.id, response.statusCode, durationMs, metrics);
      logger.info('request', {
        route: route.id,
        status: response.statusCode,
        durationMs,
        requestId,
        dynamodb: {
          calls: metrics.calls,
          sequential: metrics.sequential,
          capacityUnits: metrics.capacityUnits,
          readUnits: metrics.readUnits,
          writeUnits: metrics.writeUnits,
        },
      });
      return response;
    });
}
