/**
 * The transport under every call: adds the API key, an `Idempotency-Key` to every POST that has none, and
 * retries with backoff.
 *
 * What is retried, and why it is safe: 429 (the request was refused before it ran) on any request; 5xx and
 * network failures on requests that may run twice with the same effect, that is GET, HEAD, OPTIONS, PUT,
 * DELETE, PATCH (a partial update sets the same fields again) and any request with an `Idempotency-Key`; 409
 * only with an `Idempotency-Key` (the first request with that key is still running). A create gets its key
 * once, before the first attempt, so every retry carries the same key and the same bytes: the API (D8,
 * Stripe semantics) answers a retry with the first response instead of creating again.
 *
 * The wait is `Retry-After` when the response sends one (a wait longer than `maxDelayMs` is not waited for:
 * the error is thrown with `retryAfterSeconds`), otherwise exponential backoff with full jitter.
 */
export interface RetryOptions {
  /** Retries after the first attempt; 0 turns retrying off. Default 4. */
  maxRetries: number;
  /** The first backoff's upper bound in ms; each further retry doubles it. Default 500. */
  baseDelayMs: number;
  /** The longest wait before one retry, in ms (also the most of `Retry-After` that is honoured). Default 20 000. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { maxRetries: 4, baseDelayMs: 500, maxDelayMs: 20_000 };

const REPEATABLE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'PATCH']);

export type Fetch = (request: Request) => Promise<Response>;

export interface TransportOptions {
  apiKey: string;
  retry: RetryOptions;
  fetch: Fetch;
  /** Makes the `Idempotency-Key` of a POST that has none. */
  newIdempotencyKey: () => string;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export function createTransport(options: TransportOptions): Fetch {
  const { retry, fetch, newIdempotencyKey } = options;
  const sleep = options.sleep ?? abortableSleep;
  return async function send(input: Request): Promise<Response> {
    const headers = new Headers(input.headers);
    headers.set('Authorization', `Bearer ${options.apiKey}`);
    if (input.method.toUpperCase() === 'POST' && !headers.has('Idempotency-Key')) headers.set('Idempotency-Key', newIdempotencyKey());
    const request = new Request(input, { headers });
    const keyed = headers.has('Idempotency-Key');
    const repeatable = keyed || REPEATABLE_METHODS.has(request.method.toUpperCase());
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= retry.maxRetries;
      // The body can be read once: every attempt but the last sends a copy.
      const attemptRequest = last ? request : request.clone();
      let response: Response;
      try {
        response = await fetch(attemptRequest);
      } catch (error) {
        if (last || !repeatable || request.signal.aborted) throw error;
        await sleep(backoff(retry, attempt), request.signal);
        continue;
      }
      const retryable = response.status === 429 || (repeatable && response.status >= 500) || (keyed && response.status === 409);
      if (last || !retryable) return response;
      const after = retryAfterMs(response.headers.get('retry-after'));
      if (after !== undefined && after > retry.maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(after ?? backoff(retry, attempt), request.signal);
    }
  };
}

/** Full jitter: a random wait up to base × 2^attempt, capped. */
export function backoff(retry: RetryOptions, attempt: number, random = Math.random): number {
  return Math.floor(random() * Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** attempt));
}

function retryAfterMs(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
