/**
 * Server-rendered HTML pages (D20: the connect page; the API reference): escaping, the layout with its
 * one small stylesheet (inline, allowed by its hash, so the pages need no other request and no external
 * asset), the headers every page sends (a strict Content-Security-Policy without any script,
 * `X-Frame-Options: DENY`, no referrer, no caching), and the wrapper that turns a page handler into a
 * Lambda handler. Page requests are logged by route id and status only: never the path, which carries the
 * magic link's token.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { logger } from '#platform/logger.js';
import { currentMetrics, withRequestMetrics } from '#platform/request-metrics.js';
import { recordRequest } from '#platform/service-metrics.js';
import { SECURITY_HEADERS } from '#http/response-headers.js';

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c as '&'],
  );
}

/** A template literal tag that escapes every interpolation unless it is `Html` already. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  values.forEach((v, i) => {
    const rendered = Array.isArray(v)
      ? v.map((x) => (x instanceof Html ? x.value : escapeHtml(x))).join('')
      : v instanceof Html
        ? v.value
        : escapeHtml(v);
    out += rendered + strings[i + 1];
  });
  return new Html(out);
}

export const STYLESHEET = `
:root{color-scheme:light;--ink:#1b1f24;--muted:#4a5562;--accent:#0b57d0;--error:#b3261e;--line:#c4c9d0}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:#f6f7f9}
main{max-width:40rem;margin:2rem auto;padding:2rem;background:#fff;border:1px solid var(--line);border-radius:8px;overflow-wrap:anywhere;hyphens:auto}
@media (max-width:30rem){main{margin:0;padding:1.25rem 1rem;border-width:0 0 1px;border-radius:0}}
h1{font-size:1.5rem;margin-top:0}
p.lead{color:var(--muted)}
fieldset{border:0;padding:0;margin:0 0 1rem}
legend{font-weight:600;margin-bottom:.5rem}
label{display:block;font-weight:600;margin-top:1rem}
.help{display:block;color:var(--muted);font-size:.9rem}
input[type=text],input[type=email],input[type=password],select{width:100%;padding:.5rem;font:inherit;border:1px solid var(--muted);border-radius:4px}
.choice{display:flex;gap:.5rem;align-items:center;margin:.25rem 0}
.choice label{display:inline;font-weight:400;margin:0}
[aria-invalid=true]{border-color:var(--error);border-width:2px}
.field-error{display:block;color:var(--error);font-weight:600}
.summary{border:2px solid var(--error);padding:1rem;border-radius:4px;margin-bottom:1rem}
.summary h2{font-size:1.1rem;margin:0 0 .5rem;color:var(--error)}
.summary a{color:var(--error)}
button{margin-top:1.5rem;padding:.6rem 1.2rem;font:inherit;font-weight:600;color:#fff;background:var(--accent);border:0;border-radius:4px;cursor:pointer}
button:focus-visible,input:focus-visible,select:focus-visible,a:focus-visible{outline:3px solid var(--ink);outline-offset:2px}
a{color:var(--accent)}
`;

// The CSP names the stylesheet by this hash, computed from the very text `layout` inlines: any change to
// STYLESHEET moves both together (the browser test checks that the style applies).
const styleHash = createHash('sha256').update(STYLESHEET).digest('base64');

/** No script at all; the one inline stylesheet by its hash; forms post only to this origin; never framed. */
export const PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${styleHash}'`,
  "img-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export const PAGE_HEADERS = {
  ...SECURITY_HEADERS,
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': PAGE_CSP,
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
} as const;

export function layout(title: string, body: Html): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLESHEET}</style>
</head>
<body>
<main id="main">
${body.value}
</main>
</body>
</html>
`;
}

export interface PageResult {
  statusCode: number;
  title: string;
  body: Html;
  headers?: Record<string, string>;
}

export interface PageRequest {
  event: APIGatewayProxyEvent;
  requestId: string;
}

/**
 * A page route's Lambda handler: renders what `render` returns with the page headers. An unexpected error
 * is a plain 500 page naming the request id (and logged without the request's path or body).
 */
export function page(routeId: string, render: (request: PageRequest) => Promise<PageResult>) {
  return (event: APIGatewayProxyEvent, _context?: Context): Promise<APIGatewayProxyResult> => withRequestMetrics(() => renderPage(event));

  async function renderPage(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
    const started = Date.now();
    const requestId = event.requestContext?.requestId ?? randomUUID();
    let result: PageResult;
    try {
      result = await render({ event, requestId });
    } catch (error) {
      logger.error('page failed', { route: routeId, requestId, error: { name: (error as Error).name, message: (error as Error).message } });
      result = {
        statusCode: 500,
        title: 'Something went wrong',
        body: html`<h1>Something went wrong</h1>
          <p>Please try again in a few minutes. If it keeps happening, quote request id ${requestId}.</p>`,
      };
    }
    const durationMs = Date.now() - started;
    recordRequest(routeId, result.statusCode, durationMs, currentMetrics());
    logger.info('request', { route: routeId, status: result.statusCode, durationMs, requestId });
    return {
      statusCode: result.statusCode,
      headers: { ...PAGE_HEADERS, 'X-Request-Id': requestId, ...result.headers },
      body: layout(result.title, result.body),
    };
  }
}
