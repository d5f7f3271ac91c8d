/**
 * Workable's pacing, per token (P278), ahead of the documented limit rather than after a 429
 * (https://workable.readme.io/docs/rate-limits): "Rate limits are divided into 10 seconds intervals": 10
 * requests for account tokens, 50 for OAuth 2.0 and partner tokens, counted per client; every answer carries
 * `X-Rate-Limit-Limit` ("the maximum allowed requests"), `X-Rate-Limit-Remaining` ("remaining requests in the
 * current interval") and `X-Rate-Limit-Reset` ("timestamp of next interval"); above the limit 429. In this
 * process at most `X-Rate-Limit-Limit` requests per token leave in any rolling interval (10 until an answer
 * says otherwise), and after an answer with Remaining 0 none leaves before the reset.
 */
import { createHash } from 'node:crypto';
import { ConnectorError, type AtsCredentials } from '#delivery/connectors/connector.js';
import { retryAfterSeconds } from '#delivery/connectors/http.js';

const ATS = 'Workable';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Per token (by its hash, never the token itself): the documented limit as the last answer stated it
 * (`X-Rate-Limit-Limit`), the send times in the current rolling interval, and when the interval ends after an
 * answer said `X-Rate-Limit-Remaining: 0`.
 */
interface TokenWindow {
  limit: number;
  sent: number[];
  exhaustedUntil?: number;
}
const windows = new Map<string, TokenWindow>();
/** The documented account-token limit: 10 requests per 10-second interval (workable.readme.io/docs/rate-limits). */
const documentedLimit = () => Number(process.env.WORKABLE_RATE_LIMIT ?? 10);
/** The interval, plus a margin for the network (our clock and Workable's do not start intervals together). */
const intervalMs = () => Number(process.env.WORKABLE_RATE_INTERVAL_MS ?? 10_000) + 250;
export const tokenId = (credentials: AtsCredentials) =>
  createHash('sha256')
    .update(`${credentials.subdomain ?? ''}\n${credentials.token ?? ''}`)
    .digest('hex');
const windowOf = (id: string): TokenWindow => {
  let window = windows.get(id);
  if (!window) windows.set(id, (window = { limit: documentedLimit(), sent: [] }));
  return window;
};

/** `X-Rate-Limit-Reset` as ms since the epoch: Unix seconds (documented as "timestamp"), Unix ms, or a date. */
export function resetAt(response: Response, now = Date.now()): number | undefined {
  const value = response.headers.get('x-rate-limit-reset')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) {
    const n = Number(value);
    // Small numbers are seconds from now (not documented, tolerated), large ones epoch seconds or ms.
    if (n < 1e9) return now + n * 1000;
    return n < 1e12 ? n * 1000 : n;
  }
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : at;
}

export function secondsUntil(at: number | undefined, response?: Response): number {
  if (at !== undefined) return Math.max(1, Math.ceil((at - Date.now()) / 1000));
  return (response && retryAfterSeconds(response)) || 10;
}

function tooLong(wait: number): ConnectorError {
  return new ConnectorError('rate_limited', `${ATS}: the rate-limit interval is used up.`, Math.max(1, Math.ceil(wait / 1000)));
}

/**
 * Takes one of the token's slots before a request leaves (P278): it waits while the interval is used up (the
 * last answer said Remaining 0) and while the rolling interval already holds `limit` requests of this process;
 * a wait longer than `cap` is `rate_limited` without sending. No await between the check and the booking, so
 * concurrent callers (an import's parallel form reads) never book the same slot. Gives the booking's time, for
 * `settleSlot` once the answer is in.
 */
export async function waitForSlot(id: string, cap: number): Promise<number> {
  const window = windowOf(id);
  for (;;) {
    const now = Date.now();
    if (window.exhaustedUntil !== undefined && window.exhaustedUntil <= now) window.exhaustedUntil = undefined;
    window.sent = window.sent.filter((at) => now - at < intervalMs());
    let wait = 0;
    if (window.exhaustedUntil !== undefined) wait = window.exhaustedUntil - now;
    else if (window.sent.length >= window.limit) wait = window.sent[window.sent.length - window.limit] + intervalMs() - now;
    if (wait <= 0) {
      window.sent.push(now);
      return now;
    }
    if (wait > cap) throw tooLong(wait);
    await sleep(wait);
  }
}

/**
 * The request booked at `booked` has its answer (or failed): it counts in the window from now (P378). Workable
 * counts a request when it arrives, some time after it left; under load that was more than the interval's margin,
 * and the 11th request, sent an interval after the first one left, arrived inside Workable's interval. From its
 * answer, a request is counted no earlier than Workable counted it. A caller waiting for a slot looks again after
 * its sleep, so it sees the later times.
 */
export function settleSlot(id: string, booked: number): void {
  const window = windowOf(id);
  const at = window.sent.indexOf(booked);
  if (at < 0) return;
  window.sent.splice(at, 1);
  window.sent.push(Date.now());
  window.sent.sort((a, b) => a - b);
}

/** What an answer says of the token's interval: its limit (`X-Rate-Limit-Limit`) and whether it is used up. */
export function noteRateLimit(id: string, response: Response): void {
  const window = windowOf(id);
  const limit = Number(response.headers.get('x-rate-limit-limit')?.trim());
  if (Number.isInteger(limit) && limit > 0) window.limit = limit;
  if (response.headers.get('x-rate-limit-remaining')?.trim() !== '0') return;
  // Remaining 0 without a usable reset: wait one documented interval (10 seconds).
  window.exhaustedUntil = resetAt(response) ?? Date.now() + 10_000;
}

/** Holds the token's requests until `until` (a 429 whose reset is near). */
export function holdUntil(id: string, until: number): void {
  windowOf(id).exhaustedUntil = until;
}
