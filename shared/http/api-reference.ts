/**
 * `GET /docs`: the API reference, rendered from the OpenAPI document at build time by Redocly's build-docs
 * with Redoc's script inlined (`npm run api-reference`), so the page loads nothing from any other host. Its
 * Content-Security-Policy allows exactly its own inline scripts (by hash) and Redoc's inline styles, and no
 * connection anywhere but this origin; it may not be framed.
 *
 * The page (about 2.6 MB) is data, not code (P167): `docs/generated/api-reference.html` in the sources, copied beside
 * `index.mjs` in the ApiDocs bundle by `lib/service-function.ts`; read once, on the first request.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { logger } from '#platform/logger.js';
import { recordRequest } from '#platform/service-metrics.js';
import { SECURITY_HEADERS } from '#http/response-headers.js';
import { API_REFERENCE_SCRIPT_HASHES } from '#generated/http-api-reference.js';

/** The page's file name: beside the bundle (Lambda), in docs/generated/ (sources). */
export const API_REFERENCE_PAGE = 'api-reference.html';

/** Where the page is: beside the bundle's `index.mjs`, else in the sources' docs/generated/ (this module is shared/http/). */
const PAGE_LOCATIONS = [
  new URL(`./${API_REFERENCE_PAGE}`, import.meta.url),
  new URL(`../../docs/generated/${API_REFERENCE_PAGE}`, import.meta.url),
];

async function readPage(): Promise<string> {
  for (const [i, location] of PAGE_LOCATIONS.entries()) {
    try {
      return await readFile(location, 'utf8');
    } catch (error) {
      if (i === PAGE_LOCATIONS.length - 1 || (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  throw new Error('unreachable');
}

export const API_REFERENCE_CSP = [
  "default-src 'none'",
  `script-src ${API_REFERENCE_SCRIPT_HASHES.map((h) => `'${h}'`).join(' ')}`,
  // Redoc (styled-components) writes its styles at run time.
  "style-src 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

let page: Promise<string> | undefined;

/** The page, read on first use and kept for the life of the instance (a failed read is retried next time). */
export function apiReferencePage(): Promise<string> {
  page ??= readPage().catch((error: unknown) => {
    page = undefined;
    throw error;
  });
  return page;
}

export async function apiReference(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const started = Date.now();
  const requestId = event.requestContext?.requestId ?? randomUUID();
  const body = await apiReferencePage();
  const durationMs = Date.now() - started;
  recordRequest('ApiDocs', 200, durationMs, undefined);
  logger.info('request', { route: 'ApiDocs', status: 200, durationMs, requestId });
  return {
    statusCode: 200,
    headers: {
      ...SECURITY_HEADERS,
      // The page changes only with a deployment: caching it for a few minutes is harmless.
      'Cache-Control': 'public, max-age=300',
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': API_REFERENCE_CSP,
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'no-referrer',
      'X-Request-Id': requestId,
    },
    body,
  };
}
