/**
 * The container ingest (issue 15): the route table's handlers and the REQUEST authorizer run in-process behind
 * the local runtime's HTTP adapter (`local/http-adapter.ts`), against the AWS services the environment names —
 * the same variables the stack gives the functions. Mode `ingest` serves the applications paths only (CloudFront
 * sends those here when `largeBodies` is on); mode `serve` runs every route, the public pages and the apply endpoint too. `GET /health` answers without
 * authentication, for the load balancer and the image's HEALTHCHECK.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { FunctionAccess } from '#platform/function-access.js';
import { NotFoundError } from '#platform/errors.js';
import { errorResponse } from '#http/http.js';
import { SECURITY_HEADERS } from '#http/response-headers.js';
import { allRoutes, isLargeBodyPath, largeBodyRoutes, matchRoute } from '#http/routes.js';
import { logger } from '#platform/logger.js';
import { createHttpAdapter } from '../local/http-adapter.js';
import { loadRouteHandler } from './handlers.js';

export type ServerMode = 'ingest' | 'serve';
export const SERVER_MODES: readonly ServerMode[] = ['ingest', 'serve'];
export const HEALTH_PATH = '/health';

/** The environment variable each kind of access needs (ServiceData.grant sets the same ones on AWS). */
const ACCESS_VARIABLES: { [K in keyof FunctionAccess]-?: string } = {
  table: 'TABLE_NAME',
  attachments: 'BUCKET_NAME',
  syncQueue: 'SYNC_QUEUE_URL',
  events: 'EVENTS_TOPIC_ARN',
  email: 'EMAIL_FROM',
  jobImportQueue: 'JOB_IMPORT_QUEUE_URL',
  webhookQueue: 'WEBHOOK_QUEUE_URL',
  // The ATS base URLs are optional (the connectors default to the real hosts).
  ats: '',
  credentials: 'CREDENTIALS_KMS_KEY_ID',
  cursorSecret: 'CURSOR_SECRET',
};

/** The variables a mode cannot run without, derived from the access its routes declare (plus the authorizer's table). */
export function requiredEnvironment(mode: ServerMode): string[] {
  const served = mode === 'ingest' ? largeBodyRoutes() : [...allRoutes];
  const names = new Set<string>(['TABLE_NAME']);
  for (const route of served) {
    for (const [kind, value] of Object.entries(route.access) as [keyof FunctionAccess, unknown][]) {
      if (value && ACCESS_VARIABLES[kind]) names.add(ACCESS_VARIABLES[kind]);
    }
  }
  return [...names].sort();
}

/** Refuses to start on a missing variable or a local-only switch, instead of failing (or faking) on the first request. */
export function checkEnvironment(mode: ServerMode, env: NodeJS.ProcessEnv = process.env): void {
  // Sealed secrets use KMS on AWS; against the local emulators a key file stands in (shared/platform/secrets.ts).
  const present = (name: string) => !!env[name] || (name === 'CREDENTIALS_KMS_KEY_ID' && !!env.CREDENTIALS_KEY_FILE);
  const missing = requiredEnvironment(mode).filter((name) => !present(name));
  if (missing.length) throw new Error(`${mode} mode needs the environment variables ${missing.join(', ')}`);
  for (const name of ['FAKE_NOW', 'CRASH_POINTS']) {
    if (env[name]) throw new Error(`${name} is a switch of the local runtime and tests; the container refuses to start with it`);
  }
}

export interface ContainerServerOptions {
  mode: ServerMode;
  /** How long an authorizer result is reused per Authorization header (the stage's authorizer cache TTL). */
  authorizerCacheTtlMs: number;
}

function writeJson(res: ServerResponse, statusCode: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(statusCode, {
    'Content-Type': 'application/json',
    ...SECURITY_HEADERS,
    ...headers,
    'Content-Length': String(Buffer.byteLength(body)),
  });
  res.end(body);
}

/**
 * One JSON line per request on stdout (CloudWatch Logs on ECS): method, path without query, status, duration and
 * the request id. Nothing a client sent beyond the path: no headers, no query, no body.
 */
function accessLog(req: IncomingMessage, res: ServerResponse): void {
  const started = performance.now();
  res.once('finish', () => {
    let path: string;
    try {
      path = new URL(req.url ?? '/', 'http://localhost').pathname;
    } catch {
      path = '(unparsable)';
    }
    if (path === HEALTH_PATH) return;
    const requestId = res.getHeader('X-Request-Id');
    // Ids only: an API path names ids, never personal data (the body is not logged); a public route's path holds its
    // token (a magic link, an apply or a follow-up link), so its route template goes instead, and of a path no
    // route matches only its first segment.
    const route = matchRoute(req.method ?? '', path).match?.route;
    const logged = !route ? `${path.split('/').slice(0, 2).join('/')}/…` : route.public ? route.path : path;
    logger.info('request', {
      method: req.method,
      path: logged.slice(0, 200),
      status: res.statusCode,
      duration_ms: Math.round(performance.now() - started),
      request_id: typeof requestId === 'string' ? requestId : undefined,
    });
  });
}

export function createContainerServer(options: ContainerServerOptions): Server {
  const adapter = createHttpAdapter({ authorizerCacheTtlMs: options.authorizerCacheTtlMs, loadHandler: loadRouteHandler });
  const health = JSON.stringify({ status: 'ok', mode: options.mode });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    accessLog(req, res);
    let pathname: string | undefined;
    try {
      pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    } catch {
      // Not a URL: the adapter answers it (400).
    }
    // Shallow on purpose: a database hiccup must not make the load balancer drain every task at once.
    if (pathname === HEALTH_PATH && (req.method === 'GET' || req.method === 'HEAD')) {
      writeJson(res, 200, health, { 'Cache-Control': 'no-store' });
      return;
    }
    if (options.mode === 'ingest' && pathname !== undefined && !isLargeBodyPath(pathname)) {
      // Only the applications paths are routed here; anything else is not this service's to answer.
      const requestId = randomUUID();
      const response = errorResponse(requestId, new NotFoundError(`No route for ${pathname}.`));
      writeJson(res, response.statusCode, response.body, { 'X-Request-Id': requestId });
      req.resume();
      return;
    }
    await adapter(req, res);
  }

  // The adapter answers every error itself; should answering fail too, drop that connection, not the process.
  const server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  // Behind the load balancer: keep idle connections open longer than its idle timeout (120 s, lib/large-body-ingest.ts),
  // so it never reuses a connection the server is closing.
  server.keepAliveTimeout = 125_000;
  server.headersTimeout = 126_000;
  return server;
}
