/**
 * What the three HTTP connectors share: where each ATS is (base URLs from the environment, with the real
 * defaults; a value may carry a path prefix), one fetch with a timeout that turns network failures into
 * `transient`, the status-class mapping every ATS agrees on, and reading a stored attachment into memory.
 * Error messages name the ATS and the status, never a URL (Lever's key is a query parameter) or credentials.
 */
import {
  ConnectorError,
  type AtsCredentials,
  type AttachmentLimits,
  type ConnectorPacing,
  type ConnectorSetting,
  type SubmissionAttachment,
} from '#delivery/connectors/connector.js';
import { recordHttpCall } from '#delivery/ats-calls.js';

/**
 * The configured base URL of a connector setting (its environment variable, else the real default), with
 * `{field}` replaced by that credential, URL-encoded; only http(s) is accepted.
 */
export function atsBaseUrl(setting: ConnectorSetting, credentials: AtsCredentials = {}): string {
  const configured = process.env[setting.env] || setting.default;
  const value = configured.replace(/\{([a-z_]+)\}/g, (_match, name: string) =>
    encodeURIComponent(Object.hasOwn(credentials, name) ? credentials[name] : 'x'),
  );
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${setting.env} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`${setting.env} must be an http(s) URL`);
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

/**
 * Per ATS, one lane per process (P237, P375): its requests leave one at a time, each at least 1/rate after the one
 * before it actually left, so no window shorter than a second holds more than `requestsPerSecond` of them (+1 for
 * the window's edge). The first request after a pause leaves at once. A lane spaces requests by when they left,
 * not by when they were due: the token bucket before it gave each waiter a due time when it asked, so when timers
 * fired late (a busy process) the late ones and the next ones left together, 23 in one second at a rate of 20.
 */
const lanes = new Map<string, { last: number; queue: Promise<void> }>();

/**
 * `ATS_PACING_SCALE` multiplies every pacing wait (default 1; not a number of zero or more: 1; P366). Tests only:
 * a connector test file whose simulators enforce no per-second limit sets 0 (`withoutPacing()`), so that it does not
 * sit out the vendor's rate before every request. A deployment never sets it.
 */
function pacingScale(): number {
  const scale = Number(process.env.ATS_PACING_SCALE ?? 1);
  return Number.isFinite(scale) && scale >= 0 ? scale : 1;
}

/** Waits until the ATS's pacing allows one more request. */
export function pace(ats: string, pacing: ConnectorPacing): Promise<void> {
  const scale = pacingScale();
  if (scale === 0) return Promise.resolve();
  const intervalMs = (1000 * scale) / pacing.requestsPerSecond;
  const lane = lanes.get(ats) ?? { last: -Infinity, queue: Promise.resolve() };
  lanes.set(ats, lane);
  lane.queue = lane.queue.then(async () => {
    const wait = lane.last + intervalMs - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, Math.ceil(wait)));
    lane.last = Date.now();
  });
  return lane.queue;
}

/** A documented per-key limit: at most `limit` requests in any `windowMs` (for example per company, P363). */
export interface WindowLimit {
  limit: number;
  windowMs: number;
  /** The longest this process waits for room; a longer wait is `rate_limited` without sending. */
  maxWaitMs: number;
}

const windows = new Map<string, number[]>();

/**
 * Books `count` requests in `key`'s rolling window before they leave (P363): waits while the window holds too many of
 * this process's requests, or throws `rate_limited` (with the wait as Retry-After) when the wait would be longer
 * than `maxWaitMs`. No await between the check and the booking, so concurrent callers never book the same room.
 */
export async function windowSlots(ats: string, key: string, count: number, limits: WindowLimit): Promise<void> {
  for (;;) {
    const now = Date.now();
    const sent = (windows.get(key) ?? []).filter((at) => now - at < limits.windowMs);
    windows.set(key, sent);
    const over = sent.length + count - limits.limit;
    // A batch larger than the limit goes into an empty window whole (it cannot be split without half-sending).
    if (over <= 0 || sent.length === 0) {
      for (let i = 0; i < count; i++) sent.push(now);
      return;
    }
    const wait = sent[Math.min(over, sent.length) - 1] + limits.windowMs - now;
    if (wait > limits.maxWaitMs)
      throw new ConnectorError('rate_limited', `${ats}: its documented rate limit is used up.`, Math.max(1, Math.ceil(wait / 1000)));
    await new Promise((resolve) => setTimeout(resolve, Math.max(1, wait)));
  }
}

/**
 * Wraps each ATS call (the request, not the pacing wait): by default it just makes the call. A function
 * that traces (`#delivery/ats-tracing.js`) sets one that records the call as an X-Ray subsegment named by the
 * ATS. A hook rather than an import, so that the X-Ray SDK is bundled only into the functions that trace.
 */
export type AtsCallWrapper = (ats: string, call: () => Promise<Response>) => Promise<Response>;

let wrapAtsCall: AtsCallWrapper = (_ats, call) => call();

export function setAtsCallWrapper(wrapper: AtsCallWrapper): void {
  wrapAtsCall = wrapper;
}

/**
 * fetch with a timeout, paced by the connector's pacing when given; a timeout or network error is
 * `transient` (the message names only the ATS).
 */
export async function atsFetch(ats: string, url: string, init: RequestInit = {}, pacing?: ConnectorPacing): Promise<Response> {
  if (pacing) await pace(ats, pacing);
  // Issue 44 (D23): each request is reported to the open delivery log scope, if any (after it, never before).
  const started = Date.now();
  try {
    const response = await wrapAtsCall(ats, () => fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(timeoutMs()) }));
    recordHttpCall(url, init, started, response);
    return response;
  } catch (error) {
    recordHttpCall(url, init, started, undefined);
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

/**
 * An attachment's bytes, refused as `attachment_rejected` (P210) above `limits.maxBytes` (before it is read)
 * or when its name's extension is not one the ATS takes. The message names the file's type and the limit,
 * never its name or content.
 */
export async function attachmentBytes(ats: string, attachment: SubmissionAttachment, limits: AttachmentLimits): Promise<Buffer> {
  checkAttachment(ats, attachment, limits);
  const chunks: Buffer[] = [];
  for await (const chunk of await attachment.open()) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}

/**
 * `attachmentBytes`'s checks without reading the file: a connector that sends files in several requests
 * checks every file first, so that nothing is sent for an application one of whose files will be refused.
 */
export function checkAttachment(ats: string, attachment: SubmissionAttachment, limits: AttachmentLimits): void {
  if (attachment.size > limits.maxBytes)
    throw new ConnectorError(
      'attachment_rejected',
      `${ats} accepts files up to ${limits.maxBytes} bytes; the ${attachment.type} file has ${attachment.size}.`,
    );
  const extension = attachment.name.includes('.') ? attachment.name.split('.').pop()!.toLowerCase() : '';
  if (limits.extensions && !limits.extensions.includes(extension))
    throw new ConnectorError(
      'attachment_rejected',
      `${ats} accepts only ${limits.extensions.join(', ')} files; the ${attachment.type} file is not one.`,
    );
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
