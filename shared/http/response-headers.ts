/**
 * Headers on every response, whoever answers (a function, the local adapter, the gateway): never sniff
 * a content type, never cache (bodies hold personal data and tenant data).
 */
export const SECURITY_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' } as const;

/** A JSON answer of a public inbound route (no middy stack): these headers and the request id. */
export function jsonResult(statusCode: number, body: unknown, requestId: string, extra: Record<string, string> = {}) {
  return {
    statusCode,
    headers: { 'Content-Type': 'application/json', ...SECURITY_HEADERS, 'X-Request-Id': requestId, ...extra },
    body: JSON.stringify(body),
  };
}
