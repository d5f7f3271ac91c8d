/**
 * What the three HTTP connectors share: where each ATS is (base URLs from the environment, with the real
 * defaults; a value may carry a path prefix), one fetch with a timeout that turns network failures into
 * `transient`, the status-class mapping every ATS agrees on, and reading a stored attachment into memory.
 * Error messages name the ATS and the status, never a URL (Lever's key is a query parameter) or credentials.
 */
import { ConnectorError, type SubmissionAttachment } from '#delivery/connectors/connector.js';

export const ATS_URL_DEFAULTS = {
  PERSONIO_API_URL: 'https://api.personio.de',
  PERSONIO_FEED_URL: 'https://{subdomain}.jobs.personio.de/xml',
  GREENHOUSE_API_URL: 'https://boards-api.greenhouse.io',
  LEVER_API_URL: 'https://api.lever.co',
} as const;

export type AtsUrlVariable = keyof typeof ATS_URL_DEFAULTS;

/** The configured base URL (environment, else the real default); only http(s) is accepted. */
export function atsBaseUrl(variable: AtsUrlVariable): string {
  const value = process.env[variable] || ATS_URL_DEFAULTS[variable];
  let url: URL;
  try {
    url = new URL(value.replace('{subdomain}', 'x'));
  } catch {
    throw new Error(`${variable} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`${variable} must be an http(s) URL`);
  return value.replace(/\/+$/, '');
}

/** Base URL + path (each segment already encoded by the caller) + query; keeps the base's path prefix. */
export function atsUrl(base: string, path: string, query: Record<string, string | number | boolean> = {}): string {
  const url = new URL(base + path);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, String(value));
  return url.toString();
}

export const segment = (value: string | number) => encodeURIComponent(String(value));

const timeoutMs = () => Number(process.env.ATS_TIMEOUT_MS ?? 10_000);

/** fetch with a timeout; a timeout or network error is `transient` (the message names only the ATS). */
export async function atsFetch(ats: string, url: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(timeoutMs()) });
  } catch (error) {
    const reason = (error as Error).name === 'TimeoutError' ? 'timed out' : 'is unreachable';
    throw new ConnectorError('transient', `${ats} ${reason}.`);
  }
}

/** Seconds from a Retry-After header (delta seconds or an HTTP date), if any. */
export function retryAfterSeconds(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/**
 * The mapping by status class that all three ATSs share: 401/403 → credentials_rejected, 429 →
 * rate_limited, 5xx → transient, any other non-2xx → invalid_data. Connectors check their documented
 * bodies (duplicates, closed postings) before falling back to this.
 */
export function errorForStatus(ats: string, response: Response, detail = ''): ConnectorError {
  const suffix = detail ? `: ${detail}` : '.';
  const status = response.status;
  if (status === 401 || status === 403)
    return new ConnectorError('credentials_rejected', `${ats} rejected the credentials (${status})${suffix}`);
  if (status === 429) return new ConnectorError('rate_limited', `${ats} is rate limiting (429)${suffix}`, retryAfterSeconds(response));
  if (status >= 500) return new ConnectorError('transient', `${ats} answered ${status}${suffix}`);
  return new ConnectorError('invalid_data', `${ats} refused the request (${status})${suffix}`);
}

/** A response body as JSON, or undefined when it is not JSON. */
export async function jsonBody(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

/** An attachment's bytes, refused as invalid data above `maxBytes` (before it is read). */
export async function attachmentBytes(ats: string, attachment: SubmissionAttachment, maxBytes: number): Promise<Buffer> {
  if (attachment.size > maxBytes) throw new ConnectorError('invalid_data', `${ats} accepts files up to ${maxBytes} bytes.`);
  const chunks: Buffer[] = [];
  for await (const chunk of await attachment.open()) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}

/** Runs `work` over `items` with at most `limit` in flight, keeping the order of the results. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  });
  await Promise.all(runners);
  return results;
}
