/**
 * Personio outcomes through API v2 (P358–P361), only for a company that gave the optional API v2 client credentials
 * (`api_client_id` + `api_client_secret`). The Recruiting API token we submit with cannot read applications.
 * - Token: `POST /v2/auth/token`, `application/x-www-form-urlencoded`, the OAuth 2.0 Client Credentials Grant with the
 *   client's id and secret (https://developer.personio.de/reference/post_v2-auth-token). The answer's `access_token`,
 *   `expires_in` are the OAuth 2.0 names (assumed: the page's response schema was not readable); the token is reused
 *   until shortly before it expires, and a 401 on a read fetches a new one once.
 * - Finding the application: our v1 submission answers 201 without a body, so right after it the applications of the
 *   candidate's e-mail are listed, `GET /v2/recruiting/applications?candidate.email=…` (filter as used by API clients of
 *   Personio; assumed, its reference page was not readable), and the newest one for our job position is the
 *   application: its id becomes our `external_id`, so every later reading goes straight to it.
 * - Reading: `GET /v2/recruiting/applications/{id}` (https://developer.personio.de/reference/get_v2-recruiting-applications-id,
 *   scope `personio:recruiting:read`): its `current_stage` (`{id, name, type}`) gives the outcome and the stage name.
 */
import type { CompanyRecord } from '#companies/company-schema.js';
import { ConnectorError, type AtsCredentials, type OutcomeReading, type OutcomeRef } from '#delivery/connectors/connector.js';
import { atsBaseUrl, atsFetch, atsUrl, errorForStatus, jsonBody, segment } from '#delivery/connectors/http.js';
import { text } from '#delivery/connectors/mapping.js';
import { API_URL, PACING } from '#delivery/connectors/personio-descriptor.js';

const ATS = 'Personio';
/** Sent on the v2 recruiting reads: the reference pages still name it ("Beta: true header is required to opt-in"). */
const BETA = { Beta: 'true' };

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => Boolean(value) && typeof value === 'object' && !Array.isArray(value);
const idOf = (value: unknown) => (typeof value === 'number' || typeof value === 'string' ? String(value) : null);

/** Whether the company gave the optional API v2 client credentials (both: the check refuses one without the other). */
export const hasApiV2Credentials = (credentials: AtsCredentials) => Boolean(credentials.api_client_id && credentials.api_client_secret);

const refused = (message: string, field = 'api_client_id') => new ConnectorError('credentials_rejected', message, undefined, field);

/** Access tokens by client (id and secret), reused until 60 s before they expire (P359). */
const tokens = new Map<string, { token: string; expiresAt: number }>();
const cacheKey = (credentials: AtsCredentials) => `${credentials.api_client_id}\u0000${credentials.api_client_secret}`;

/** Drops every cached token (tests; a reconnection uses new credentials, so a new key). */
export const forgetPersonioTokens = () => tokens.clear();

/** `POST /v2/auth/token` with the client credentials; a refusal (400 `invalid_client`, 401, 403) names the client id. */
async function accessToken(credentials: AtsCredentials, fresh = false): Promise<string> {
  const key = cacheKey(credentials);
  const cached = tokens.get(key);
  if (!fresh && cached && cached.expiresAt > Date.now()) return cached.token;
  const response = await atsFetch(
    ATS,
    atsUrl(atsBaseUrl(API_URL), '/v2/auth/token'),
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: credentials.api_client_id,
        client_secret: credentials.api_client_secret,
      }).toString(),
    },
    PACING,
  );
  if (response.status === 400 || response.status === 401 || response.status === 403) {
    await response.arrayBuffer().catch(() => undefined);
    throw refused(`${ATS} refused the API v2 client id and secret (${response.status}).`);
  }
  if (!response.ok) throw errorForStatus(ATS, response);
  const body = await jsonBody(response);
  const token = isObject(body) && typeof body.access_token === 'string' ? body.access_token : null;
  if (!token) throw new ConnectorError('transient', `${ATS} answered the token request without an access token.`);
  const seconds = isObject(body) && typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 3600;
  tokens.set(key, { token, expiresAt: Date.now() + Math.max(0, seconds - 60) * 1000 });
  return token;
}

/** A v2 GET with the access token; a 401 fetches a new token once (it expired or was revoked early). */
async function v2Get(credentials: AtsCredentials, path: string, query: Record<string, string | number> = {}): Promise<Response> {
  const url = atsUrl(atsBaseUrl(API_URL), path, query);
  const get = async (token: string) =>
    atsFetch(ATS, url, { headers: { Accept: 'application/json', Authorization: `Bearer ${token}`, ...BETA } }, PACING);
  let response = await get(await accessToken(credentials));
  if (response.status === 401) {
    await response.arrayBuffer().catch(() => undefined);
    response = await get(await accessToken(credentials, true));
  }
  if (response.status === 401 || response.status === 403) {
    await response.arrayBuffer().catch(() => undefined);
    throw refused(
      response.status === 401
        ? `${ATS} refused the API v2 access token (401).`
        : `${ATS} refused the read (403): the API v2 credentials lack the personio:recruiting:read scope.`,
    );
  }
  return response;
}

/**
 * The check (P360), only when either field is given: both are needed; the token exchange, then
 * `GET /v2/recruiting/applications?limit=1`, the cheapest call that proves the `personio:recruiting:read` scope (its
 * answer is read and dropped, never kept).
 */
export async function checkApiV2Credentials(credentials: AtsCredentials): Promise<void> {
  if (!credentials.api_client_id && !credentials.api_client_secret) return;
  if (!credentials.api_client_id) throw refused(`${ATS}: the API v2 client secret needs its client id.`, 'api_client_id');
  if (!credentials.api_client_secret) throw refused(`${ATS}: the API v2 client id needs its client secret.`, 'api_client_secret');
  const response = await v2Get(credentials, '/v2/recruiting/applications', { limit: 1 });
  await response.arrayBuffer().catch(() => undefined);
  if (!response.ok) throw errorForStatus(ATS, response);
}

/** The list answer's items (`_data`, as Personio's v2 lists answer; `data` accepted too). */
const itemsOf = (body: unknown): Json[] => {
  const list = isObject(body) ? (body._data ?? body.data) : undefined;
  return Array.isArray(list) ? list.filter(isObject) : [];
};
const createdAt = (a: Json) => {
  const value = isObject(a.created_at) ? a.created_at['date-time'] : a.created_at;
  return typeof value === 'string' ? value : '';
};

/**
 * The id of the application our submission just created (P359): the newest application of the candidate's e-mail for
 * the job position; null when Personio lists none (then the application is not tracked). Never throws for a failure of
 * its own: the submission already succeeded.
 */
export async function findPersonioApplication(credentials: AtsCredentials, email: string, jobExternalId: string): Promise<string | null> {
  if (!hasApiV2Credentials(credentials) || !email) return null;
  try {
    const response = await v2Get(credentials, '/v2/recruiting/applications', { 'candidate.email': email, limit: 50 });
    if (!response.ok) {
      await response.arrayBuffer().catch(() => undefined);
      return null;
    }
    const ours = itemsOf(await jsonBody(response))
      .filter((a) => isObject(a.job) && idOf(a.job.id) === jobExternalId && idOf(a.id) !== null)
      .sort((a, b) => createdAt(b).localeCompare(createdAt(a)));
    return ours.length ? idOf(ours[0].id) : null;
  } catch {
    return null;
  }
}

/** Stage types that end an application (assumed names: Personio's system stages, P361); the others are PENDING. */
const FINAL = new Map<string, OutcomeReading['outcome']>([
  ['accepted', 'HIRED'],
  ['hired', 'HIRED'],
  ['rejected', 'REJECTED'],
  ['withdrawn', 'WITHDRAWN'],
]);

/** Our outcome of an application answer (P361): its `current_stage`'s type (or kind), and the stage's own name. */
export function personioOutcome(body: unknown): OutcomeReading {
  const application = isObject(body) && isObject(body._data) ? body._data : body;
  if (!isObject(application) || !isObject(application.current_stage))
    throw new ConnectorError('invalid_data', `${ATS} answered the application read without its current stage.`);
  const stage = application.current_stage;
  const name = text(stage.name)?.slice(0, 200) ?? null;
  const type = String(stage.type ?? stage.kind ?? '').toLowerCase();
  return { outcome: FINAL.get(type) ?? 'PENDING', stage: name };
}

/** `GET /v2/recruiting/applications/{id}` with the API v2 access token (P361). */
export async function readPersonioOutcome(ref: OutcomeRef, credentials: AtsCredentials, _company?: CompanyRecord): Promise<OutcomeReading> {
  // A company whose connection recorded the credentials is the only one read; missing here, they are refused as such.
  if (!hasApiV2Credentials(credentials)) throw refused(`${ATS}: no API v2 client credentials to read outcomes with.`);
  const response = await v2Get(credentials, `/v2/recruiting/applications/${segment(ref.externalId)}`);
  if (response.status === 404) {
    await response.arrayBuffer().catch(() => undefined);
    // The application was found after our submission: one Personio no longer has was deleted there.
    throw new ConnectorError('invalid_data', `${ATS} no longer has the application (404).`);
  }
  if (!response.ok) throw errorForStatus(ATS, response);
  return personioOutcome(await jsonBody(response));
}
