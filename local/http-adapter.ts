/**
 * The local stand-in for API Gateway (REST API, proxy integration, payload format 1.0): it turns an HTTP
 * request into a proxy event, runs the REQUEST authorizer (its result cached per Authorization header like
 * the gateway's), then the route's handler, and answers itself where the gateway would: 401 when the
 * authorizer denies, 403 for a Deny policy, 404/405 for unknown routes, 413 above the body limit.
 *
 * The lean body path (issue 15): the create route's body is not read here. Its event has no body but a
 * stream of it (`#http/streamed-body.js`), which the route reads once, sending attachments to S3 as they
 * arrive; so the authorizer runs before the body is read, and what the route leaves unread is drained.
 *
 * A test-only clock per request (P183): once a test has called `acceptClockHeader()` in its process, a request
 * with `X-Fake-Now: <ISO date-time>` runs (authorizer and route) with the service clock starting at that
 * instant, and concurrent requests keep theirs. Nothing but tests turns it on, so `npm start` and the container
 * (which runs this adapter on AWS) ignore the header; inside Lambda `runWithClock` ignores it as well.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, APIGatewayAuthorizerResult, Context } from 'aws-lambda';
import {
  BadRequestError,
  ForbiddenError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  UnauthorizedError,
  invalidField,
} from '#platform/errors.js';
import { isSimulatedCrash } from '#platform/faults.js';
import { runWithClock } from '#platform/clock.js';
import { isHostHeader } from '#platform/web-formats.js';
import { errorResponse, header } from '#http/http.js';
import { matchRoute, type RouteDefinition } from '#http/routes.js';
import { StreamedBody, attachStreamedBody } from '#http/streamed-body.js';
import { handler as authorizer } from '../functions/authorizer.js';

/** The spec's limit: a create-application body must stay below 27.5 MB. */
export const MAX_BODY_BYTES = 27_500_000;
/**
 * After a 413 the rest of the body is still read and thrown away, for at most this long and this much, so
 * that a client still sending (Node's fetch, curl, Python requests) is not reset before it reads the answer.
 */
export const DISCARD_AFTER_413_MS = 10_000;
export const DISCARD_AFTER_413_BYTES = 64 * 1024 * 1024;
/** Headers the gateway sets itself; a client's own values never reach the function. */
const GATEWAY_HEADERS = new Set(['x-forwarded-proto', 'x-forwarded-port']);
/** Content types API Gateway is configured to pass as binary (base64) to the functions. */
const BINARY_TYPES = ['multipart/form-data', 'application/octet-stream'];
/** Routes that read their body as a stream (the lean body path): the bodies of up to 27.5 MB. */
const STREAMED_ROUTES = new Set(['CreateApplication']);
/** A route's time (API Gateway's 29 s) starts when it is invoked. */
const ROUTE_MS = 29_000;
/**
 * A streamed route also receives its body in that time, so it gets this much more: 27.5 MB at about
 * 2 Mbit/s. Elsewhere the body is read before the route is invoked, as the gateway does.
 */
export const STREAMED_BODY_MS = 120_000;

/** The test-only request header that sets the service clock for that request (P183). */
export const CLOCK_HEADER = 'x-fake-now';
let clockHeaderAccepted = false;

/**
 * Tests only: lets the adapters of this process honour `X-Fake-Now` (`false` turns it off again). Never called
 * by the local runtime, the admin tool or the container, so no deployment can switch it on.
 */
export function acceptClockHeader(accept = true): void {
  clockHeaderAccepted = accept;
}

/** The instant a request asks its clock to start at, when the header is accepted and sent. */
function requestClock(req: IncomingMessage): Date | undefined {
  const value = clockHeaderAccepted ? req.headers[CLOCK_HEADER] : undefined;
  if (value === undefined) return undefined;
  const at = new Date(Array.isArray(value) ? value[0] : value);
  if (Number.isNaN(at.getTime())) throw invalidField('X-Fake-Now', 'Must be an ISO date-time.');
  return at;
}

export type RouteHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

export interface AdapterOptions {
  /** How long an authorizer result is reused for the same Authorization header (API Gateway's TTL). */
  authorizerCacheTtlMs: number;
  /** Extra local-only routes (for example the OpenAPI document), answered before the route table. */
  extraRoutes?: Record<string, (req: IncomingMessage, res: ServerResponse) => void>;
  /**
   * Loads a route's handler module (`RouteDefinition.handler`). Default: a dynamic import from `functions/`;
   * a bundle (the container ingest) passes its static imports instead, since a bundler cannot follow a computed path.
   */
  loadHandler?: (module: string) => Promise<RouteHandler>;
}

/** The request target as a URL (origin-form or absolute-form); a target no URL parser accepts is a 400. */
function requestUrl(target: string): URL {
  try {
    return new URL(target, 'http://localhost');
  } catch {
    throw new BadRequestError('The request target is not a valid path.', 'malformed_request');
  }
}

export function createHttpAdapter(options: AdapterOptions) {
  const authorizerCache = new Map<string, { result: APIGatewayAuthorizerResult; at: number }>();
  const handlers = new Map<string, Promise<RouteHandler>>();

  function loadHandler(route: RouteDefinition): Promise<RouteHandler> {
    let loaded = handlers.get(route.handler);
    if (!loaded) {
      loaded = options.loadHandler
        ? options.loadHandler(route.handler)
        : import(`../functions/${route.handler}.js`).then((m: { handler: RouteHandler }) => m.handler);
      handlers.set(route.handler, loaded);
    }
    return loaded;
  }

  async function authorize(event: APIGatewayProxyEvent, methodArn: string): Promise<APIGatewayAuthorizerResult> {
    const identity = header(event, 'authorization');
    // Like the gateway: a request without the identity source never reaches the authorizer.
    if (!identity) throw new UnauthorizedError();
    const cached = authorizerCache.get(identity);
    if (cached && Date.now() - cached.at < options.authorizerCacheTtlMs) return cached.result;
    let result: APIGatewayAuthorizerResult;
    try {
      result = await authorizer({
        type: 'REQUEST',
        methodArn,
        resource: event.resource,
        path: event.path,
        httpMethod: event.httpMethod,
        headers: event.headers,
        multiValueHeaders: event.multiValueHeaders,
        queryStringParameters: event.queryStringParameters,
        multiValueQueryStringParameters: event.multiValueQueryStringParameters,
        pathParameters: event.pathParameters,
        stageVariables: null,
        requestContext: event.requestContext as any,
      });
    } catch (error) {
      if ((error as Error).message === 'Unauthorized') throw new UnauthorizedError();
      throw error;
    }
    authorizerCache.set(identity, { result, at: Date.now() });
    return result;
  }

  /**
   * Reads the body, refusing it with a 413 from `Content-Length` alone or as soon as a chunked body crosses
   * the limit. Listeners, not an async iterator: leaving a `for await` early would destroy the socket.
   */
  function readBody(req: IncomingMessage): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const declared = Number(req.headers['content-length']);
      if (declared >= MAX_BODY_BYTES) {
        reject(new PayloadTooLargeError(MAX_BODY_BYTES));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      const stop = () => {
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', onError);
      };
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size < MAX_BODY_BYTES) {
          chunks.push(chunk);
          return;
        }
        stop();
        chunks.length = 0;
        reject(new PayloadTooLargeError(MAX_BODY_BYTES));
      };
      const onEnd = () => {
        stop();
        resolve(Buffer.concat(chunks, size));
      };
      const onError = (error: Error) => {
        stop();
        reject(error);
      };
      req.on('data', onData);
      req.on('end', onEnd);
      req.on('error', onError);
    });
  }

  /** Reads and drops what is left of a refused body, within a time and byte budget, then closes. */
  function discardRest(req: IncomingMessage): void {
    if (req.readableEnded) return;
    let discarded = 0;
    const close = () => {
      clearTimeout(timer);
      req.socket.destroy();
    };
    const timer = setTimeout(close, DISCARD_AFTER_413_MS);
    timer.unref();
    req.on('data', (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > DISCARD_AFTER_413_BYTES) close();
    });
    req.once('end', () => clearTimeout(timer));
    req.once('error', () => clearTimeout(timer));
    req.resume();
  }

  function toEvent(
    req: IncomingMessage,
    url: URL,
    route: RouteDefinition,
    pathParameters: Record<string, string>,
    body: Buffer,
    requestId: string,
  ): APIGatewayProxyEvent {
    // Objects without a prototype: names are the client's (`toString`, `__proto__`, `constructor`).
    const headers = Object.create(null) as Record<string, string>;
    const multiValueHeaders = Object.create(null) as Record<string, string[]>;
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i];
      const value = req.rawHeaders[i + 1];
      if (GATEWAY_HEADERS.has(name.toLowerCase())) continue;
      headers[name] = value;
      (multiValueHeaders[name] ??= []).push(value);
    }
    // Like the gateway, tell the function how the client reached it (used for absolute page links).
    headers['X-Forwarded-Proto'] = 'http';
    headers['X-Forwarded-Port'] = String(req.socket.localPort ?? '');
    const query = Object.create(null) as Record<string, string>;
    const multiQuery = Object.create(null) as Record<string, string[]>;
    for (const [name, value] of url.searchParams) {
      query[name] = value;
      (multiQuery[name] ??= []).push(value);
    }
    const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    const binary = BINARY_TYPES.includes(contentType);
    const hasQuery = url.searchParams.size > 0;
    return {
      resource: route.path,
      path: url.pathname,
      httpMethod: req.method ?? 'GET',
      headers,
      multiValueHeaders,
      queryStringParameters: hasQuery ? query : null,
      multiValueQueryStringParameters: hasQuery ? multiQuery : null,
      pathParameters: Object.keys(pathParameters).length ? pathParameters : null,
      stageVariables: null,
      body: body.length ? (binary ? body.toString('base64') : body.toString('utf8')) : null,
      isBase64Encoded: binary && body.length > 0,
      requestContext: {
        accountId: '000000000000',
        apiId: 'local',
        authorizer: undefined,
        protocol: `HTTP/${req.httpVersion}`,
        httpMethod: req.method ?? 'GET',
        identity: { sourceIp: req.socket.remoteAddress ?? '127.0.0.1' } as APIGatewayProxyEvent['requestContext']['identity'],
        path: url.pathname,
        stage: 'local',
        requestId,
        requestTimeEpoch: Date.now(),
        resourceId: route.id,
        resourcePath: route.path,
        // The gateway's record of the domain called: the Host header, checked in handle().
        domainName: req.headers.host ?? `127.0.0.1:${req.socket.localPort ?? ''}`,
      },
    };
  }

  function lambdaContext(route: RouteDefinition, requestId: string): Context {
    const deadline = Date.now() + ROUTE_MS + (STREAMED_ROUTES.has(route.id) ? STREAMED_BODY_MS : 0);
    return {
      callbackWaitsForEmptyEventLoop: false,
      functionName: route.id,
      functionVersion: '$LATEST',
      invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${route.id}`,
      memoryLimitInMB: '1024',
      awsRequestId: requestId,
      logGroupName: `/aws/lambda/${route.id}`,
      logStreamName: 'local',
      getRemainingTimeInMillis: () => deadline - Date.now(),
      done: () => undefined,
      fail: () => undefined,
      succeed: () => undefined,
    };
  }

  function send(res: ServerResponse, result: APIGatewayProxyResult, requestId: string): void {
    const headers: Record<string, string | string[]> = { 'X-Request-Id': requestId };
    for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
    for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) headers[name] = values.map(String);
    const body = result.isBase64Encoded ? Buffer.from(result.body, 'base64') : Buffer.from(result.body ?? '', 'utf8');
    headers['Content-Length'] = String(body.length);
    res.writeHead(result.statusCode, headers);
    res.end(body);
  }

  /** Routes one request (everything but answering its errors, which `handle` does). */
  async function serve(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    // A Host that is not a host name (it would end up in page links) is refused, as a gateway would.
    if (req.headers.host !== undefined && !isHostHeader(req.headers.host))
      throw invalidField('Host', 'Must be a host name or address with an optional port.');
    const url = requestUrl(req.url ?? '/');
    const extra = options.extraRoutes?.[`${req.method} ${url.pathname}`];
    if (extra) return extra(req, res);
    const { match, methods } = matchRoute(req.method ?? 'GET', url.pathname);
    if (!match) {
      if (methods.length) throw new MethodNotAllowedError(req.method ?? '', methods);
      throw new NotFoundError(`No route for ${url.pathname}.`);
    }
    const streamed = STREAMED_ROUTES.has(match.route.id);
    if (streamed && Number(req.headers['content-length']) >= MAX_BODY_BYTES) throw new PayloadTooLargeError(MAX_BODY_BYTES);
    const body = streamed ? Buffer.alloc(0) : await readBody(req);
    const event = toEvent(req, url, match.route, match.pathParameters, body, requestId);
    if (streamed) attachStreamedBody(event, new StreamedBody(req, MAX_BODY_BYTES));
    // Public pages (D20) have no authorizer in front of them, on AWS as here.
    if (!match.route.public) {
      const methodArn = `arn:aws:execute-api:us-east-1:000000000000:local/local/${event.httpMethod}${url.pathname}`;
      const auth = await authorize(event, methodArn);
      if (auth.policyDocument.Statement.some((s) => s.Effect === 'Deny'))
        throw new ForbiddenError('The API key is not allowed to call this route.');
      event.requestContext.authorizer = { ...(auth.context ?? {}), principalId: auth.principalId };
    }
    const handler = await loadHandler(match.route);
    send(res, await handler(event, lambdaContext(match.route, requestId)), requestId);
    // A streamed body the route did not read to the end (refused early, or too large) is drained.
    discardRest(req);
  }

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = randomUUID();
    try {
      const clock = requestClock(req);
      await (clock ? runWithClock(clock, () => serve(req, res, requestId)) : serve(req, res, requestId));
    } catch (error) {
      // A simulated crash (fault-injection tests) is the death of the function: the connection drops, no answer.
      if (isSimulatedCrash(error)) {
        res.destroy();
        return;
      }
      // Requests refused at the gateway still get the D2 shape and a request id.
      const response = errorResponse(requestId, error);
      send(res, response, requestId);
      // A client may still be sending: keep reading (and dropping) for a while, so it gets to read the answer.
      discardRest(req);
    }
  };
}
