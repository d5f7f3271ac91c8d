/**
 * Headers on every response, whoever answers (a function, the local adapter, the gateway): never sniff
 * a content type, never cache (bodies hold personal data and tenant data).
 */
export const SECURITY_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' } as const;
