/**
 * The service's public address as a request shows it (D4, D20), in a module of its own so that the public pages
 * (the connect page, P310's webhook URL) use it without the API's middleware stack (`#http/http.js`).
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { header } from '#platform/headers.js';
import { isHostHeader, isHttpUrl } from '#platform/web-formats.js';

/**
 * The base of absolute page links (D4): `PUBLIC_BASE_URL` when configured; behind the large-body ingest's
 * CloudFront (`VIEWER_HOST_FROM_CLOUDFRONT`), the host the partner called, which CloudFront's viewer-request
 * function puts in `X-Forwarded-Host` over anything the client sent (P274); else the domain the gateway
 * records for the request (on AWS its own domain name; locally the adapter's validated Host), with the
 * scheme the gateway reports (`X-Forwarded-Proto`, which the gateway sets itself). Only http(s) and a
 * well-formed host ever make it into a link; nothing else a client sends does.
 */
export function linkBase(event: APIGatewayProxyEvent): { origin: string; path: string } {
  const configured = process.env.PUBLIC_BASE_URL;
  if (configured) {
    if (!isHttpUrl(configured)) throw new Error('PUBLIC_BASE_URL is not an http(s) URL');
    return { origin: configured.replace(/\/+$/, ''), path: event.path };
  }
  const viewerHost = process.env.VIEWER_HOST_FROM_CLOUDFRONT === 'true' ? header(event, 'x-forwarded-host') : undefined;
  if (viewerHost && isHostHeader(viewerHost)) return { origin: `https://${viewerHost}`, path: event.path };
  const domain = event.requestContext?.domainName;
  const host = domain && isHostHeader(domain) ? domain : 'localhost';
  const proto = header(event, 'x-forwarded-proto')?.toLowerCase() === 'http' ? 'http' : 'https';
  // requestContext.path is the path as the client called it (with the stage on an execute-api domain).
  return { origin: `${proto}://${host}`, path: event.requestContext?.path ?? event.path };
}

/**
 * The service's public address (D20: the base of `magic_link`): `PUBLIC_BASE_URL` when configured, else
 * the origin the gateway records plus the stage prefix the client called (on an execute-api domain).
 */
export function publicBase(event: APIGatewayProxyEvent): string {
  const { origin, path } = linkBase(event);
  const prefix = path.endsWith(event.path) ? path.slice(0, path.length - event.path.length) : '';
  return process.env.PUBLIC_BASE_URL ? origin : `${origin}${prefix.replace(/\/+$/, '')}`;
}
