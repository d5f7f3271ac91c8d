/**
 * The ATS calls of one unit of work (issue 44, D23): a sync attempt for an application, or a job import run. The
 * worker opens a scope (`withAtsCalls`) around the connector call; every request the connectors' HTTP layer makes
 * inside it (`atsFetch`) and every call the in-process sandbox simulates is reported here (`recordAtsCall`), so
 * that calls a connector adds later (uploads, answers, `readOutcome`) are caught without changing it.
 *
 * What is kept in memory is raw (the response text, bounded): it is redacted before it is stored
 * (`#delivery/delivery-log.js`), and never logged. The URL is kept as host and path only: never its query (Lever's
 * key is a query parameter) nor user info.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** How much of an answer is kept in memory to redact and cut to the stored excerpt (P305). */
const RAW_EXCERPT_CHARS = 16_384;

export interface AtsCall {
  /** Milliseconds since the epoch when the request left. */
  at: number;
  method: string;
  /** Host and path, never the query, the fragment or user info. */
  url: string;
  /** Undefined when no answer came (a timeout or a network error). */
  status?: number;
  duration_ms: number;
  /** Names of the fields sent, never their values. */
  fields_sent: string[];
  /** The answer's text, raw and bounded; read without delaying the connector. */
  response: Promise<string>;
  /** Values that must not be stored (the request's Authorization-like header values). */
  secrets: string[];
}

export interface AtsCallScope {
  operation: string;
  /** Milliseconds since the epoch when the unit of work began (the `at` of a failure before any call, P325). */
  started: number;
  calls: AtsCall[];
  /** Values to redact wherever they appear: credentials held for the call, the candidate's contact data. */
  secrets: string[];
}

const storage = new AsyncLocalStorage<AtsCallScope>();

/** Runs `work` with every ATS call it makes recorded into a fresh scope (given back with its outcome). */
export async function withAtsCalls<T>(
  operation: string,
  work: (scope: AtsCallScope) => Promise<T>,
): Promise<{ scope: AtsCallScope; result: PromiseSettledResult<T> }> {
  const scope: AtsCallScope = { operation, started: Date.now(), calls: [], secrets: [] };
  const result = await storage.run(scope, async () => {
    try {
      return { status: 'fulfilled' as const, value: await work(scope) };
    } catch (reason) {
      return { status: 'rejected' as const, reason: reason as unknown };
    }
  });
  return { scope, result };
}

/** The scope of the current unit of work, if one is open. */
export const currentAtsCalls = (): AtsCallScope | undefined => storage.getStore();

/** Adds values (credentials) the current scope must redact. */
export function redactInScope(values: Iterable<unknown>): void {
  const scope = storage.getStore();
  if (!scope) return;
  for (const value of values) if (typeof value === 'string' && value.length >= 3) scope.secrets.push(value);
}

/** Host and path of a URL; undefined parts (query, fragment, user info) are dropped. */
export function hostAndPath(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname}`;
  } catch {
    return 'invalid-url';
  }
}

/** Names of the fields of a JSON value: top-level keys, and one level of nested objects as dotted paths. */
function jsonFieldNames(value: unknown): string[] {
  if (typeof value !== 'object' || value === null) return [];
  const entries = Array.isArray(value)
    ? value.flatMap((item) => (item && typeof item === 'object' ? Object.entries(item) : []))
    : Object.entries(value);
  const names = new Set<string>();
  for (const [name, inner] of entries) {
    names.add(name);
    if (inner && typeof inner === 'object' && !Array.isArray(inner))
      for (const nested of Object.keys(inner)) names.add(`${name}.${nested}`);
  }
  return [...names];
}

/** The field names of a request body: JSON keys, form and query-string field names; nothing for raw bytes. */
export function fieldsOf(body: unknown): string[] {
  if (body === undefined || body === null) return [];
  if (body instanceof FormData || body instanceof URLSearchParams) return [...new Set([...body.keys()])];
  if (typeof body === 'string') {
    try {
      return jsonFieldNames(JSON.parse(body));
    } catch {
      return /^[\w.[\]%-]+=/.test(body) ? [...new Set(new URLSearchParams(body).keys())] : [];
    }
  }
  return [];
}

/** Authorization-like header values of a request (to redact from what the ATS echoes). */
function headerSecrets(headers: RequestInit['headers']): string[] {
  if (!headers) return [];
  const secrets: string[] = [];
  for (const [name, value] of new Headers(headers).entries()) {
    if (!/authorization|token|secret|key|cookie/i.test(name)) continue;
    secrets.push(value);
    // The credential inside a scheme (`Bearer x`, `Basic base64(user:pass)`) as well as the whole value.
    const credential = value.replace(/^\w+\s+/, '');
    secrets.push(credential);
    if (/^basic\s/i.test(value)) secrets.push(...Buffer.from(credential, 'base64').toString('utf8').split(':'));
  }
  return secrets.filter((s) => s.length >= 3);
}

/** The first characters of an answer, read from a clone so the connector reads the original undisturbed. */
async function excerptOf(response: Response): Promise<string> {
  try {
    const text = await response.text();
    return text.slice(0, RAW_EXCERPT_CHARS);
  } catch {
    return '';
  }
}

/** Records one HTTP request made through `atsFetch` in the current scope (a no-op outside one). */
export function recordHttpCall(url: string, init: RequestInit, started: number, response: Response | undefined): void {
  const scope = storage.getStore();
  if (!scope) return;
  scope.calls.push({
    at: started,
    method: (init.method ?? 'GET').toUpperCase(),
    url: hostAndPath(url),
    ...(response ? { status: response.status } : {}),
    duration_ms: Date.now() - started,
    fields_sent: fieldsOf(init.body),
    response: response ? excerptOf(response.clone()) : Promise.resolve(''),
    secrets: headerSecrets(init.headers),
  });
}

/** Records a call an in-process ATS (the sandbox) simulated: its method, URL and status describe it. */
export function recordSimulatedCall(call: {
  method: string;
  url: string;
  status: number;
  started: number;
  fields_sent: string[];
  response: unknown;
}): void {
  const scope = storage.getStore();
  if (!scope) return;
  scope.calls.push({
    at: call.started,
    method: call.method,
    url: hostAndPath(call.url),
    status: call.status,
    duration_ms: Date.now() - call.started,
    fields_sent: call.fields_sent,
    response: Promise.resolve(JSON.stringify(call.response).slice(0, RAW_EXCERPT_CHARS)),
    secrets: [],
  });
}
