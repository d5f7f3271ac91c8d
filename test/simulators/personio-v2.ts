/**
 * The Personio simulator's API v2 side (P358–P361), under the same `/personio-api` prefix as the Recruiting API (both
 * live on https://api.personio.de): the token exchange, the applications list and the single read, and a test-side way
 * to move an application as a recruiter would. Each rule names its source:
 * - T = https://developer.personio.de/reference/post_v2-auth-token: "Endpoint to obtain an OAuth 2.0 access token using
 *   the Client Credentials Grant. Clients authenticate with their ID and secret"; "The request must be formatted using
 *   the `application/x-www-form-urlencoded` media type"; its examples: 400 for missing parameters, an invalid client,
 *   invalid credentials, an unsupported grant type. The answer `{access_token, token_type, expires_in}` and the error
 *   body `{error}` are OAuth 2.0's (RFC 6749 §5.1, §5.2; assumed: the page's schemas were not readable).
 * - A = https://developer.personio.de/reference/get_v2-recruiting-applications-id: `GET /v2/recruiting/applications/{id}`,
 *   "requires the `personio:recruiting:read` scope", a 404 example for a non-existing application.
 * - L = `GET /v2/recruiting/applications` with `limit` (1–200) and `cursor` as on
 *   https://developer.personio.de/reference/get_v2-recruiting-candidates; its `candidate.email` filter and the answer
 *   `{_data: [{id, candidate: {id, email}, job: {id}, current_stage: {id, name, type}, created_at}]}` are as Personio's
 *   API clients use them (assumed: the list's own page was not readable).
 * Assumed too: no, an unknown or an expired token 401; a token without the read scope 403; another company's
 * application 404; the stage types `accepted` (hired), `rejected`, `withdrawn` of Personio's system stages.
 */
import { randomUUID } from 'node:crypto';
import type { RecordedRequest, Reply } from './server.js';

/** The pipeline stages of every simulated job position (`type`: assumed names of Personio's stage types). */
export const PERSONIO_STAGES = [
  { id: 'unassigned', name: 'Unassigned', type: 'unassigned' },
  { id: '26485', name: 'Phone interview', type: 'custom' },
  { id: 'offer', name: 'Offer', type: 'offer' },
  { id: 'accepted', name: 'Hired', type: 'accepted' },
  { id: 'rejected', name: 'Rejected', type: 'rejected' },
  { id: 'withdrawn', name: 'Withdrawn', type: 'withdrawn' },
] as const;

/** API v2 client credentials (T): the Personio company (X-Company-ID) they belong to, and whether they may read recruiting. */
export interface PersonioApiClient {
  secret: string;
  companyId: string;
  canReadRecruiting: boolean;
}

/** An application the v1 submission created, as API v2 knows it. */
export interface PersonioV2Application {
  id: string;
  companyId: string;
  email: string;
  jobId: string;
  stage: (typeof PERSONIO_STAGES)[number];
  createdAt: string;
}

export interface PersonioApiV2 {
  clients: Map<string, PersonioApiClient>;
  applications: PersonioV2Application[];
  /** Lifetime of the next access tokens (`expires_in`, seconds). */
  tokenSeconds: number;
  /** Ends every access token now (as their expiry would). */
  expireTokens(): void;
  /** Moves an application to a stage by name (one of PERSONIO_STAGES), as a recruiter does. */
  move(applicationId: string, stage: string): void;
  /** What a v1 submission created: an application in the first stage. */
  created(companyId: string, email: string, jobId: string): PersonioV2Application;
}

export function personioApiV2(): PersonioApiV2 {
  const api: PersonioApiV2 & { tokens: Map<string, { client: string; expiresAt: number }> } = {
    clients: new Map(),
    applications: [],
    tokens: new Map(),
    tokenSeconds: 3600,
    expireTokens() {
      for (const token of api.tokens.values()) token.expiresAt = 0;
    },
    move(applicationId, stage) {
      const found = PERSONIO_STAGES.find((s) => s.name === stage);
      const application = api.applications.find((a) => a.id === applicationId);
      if (!found || !application) throw new Error(`no Personio stage ${stage} or application ${applicationId}`);
      application.stage = found;
    },
    created(companyId, email, jobId) {
      const application = {
        id: String(495039 + api.applications.length),
        companyId,
        email: email.toLowerCase(),
        jobId,
        stage: PERSONIO_STAGES[0],
        createdAt: new Date().toISOString(),
      };
      api.applications.push(application);
      return application;
    },
  };
  return api;
}

const oauthError = (error: string): Reply => ({ status: 400, body: { error } });
/** Assumed: problem+json bodies for the v2 reads' refusals. */
const problem = (status: number, title: string): Reply => ({
  status,
  body: { type: 'about:blank', status, title },
  headers: { 'Content-Type': 'application/problem+json' },
});

const json = (a: PersonioV2Application) => ({
  id: a.id,
  candidate: { id: `c-${a.id}`, email: a.email },
  job: { id: a.jobId },
  current_stage: { ...a.stage },
  created_at: a.createdAt,
  updated_at: new Date().toISOString(),
});

/** The API v2 answer to `req` (its path without the `/personio-api` prefix), or undefined when it is not a v2 path. */
export function apiV2Reply(api: PersonioApiV2, req: RecordedRequest, path: string): Reply | undefined {
  if (!path.startsWith('/v2/')) return undefined;
  const state = api as PersonioApiV2 & { tokens: Map<string, { client: string; expiresAt: number }> };
  if (path === '/v2/auth/token') {
    if (req.method !== 'POST') return problem(405, 'Method Not Allowed');
    // T: form-urlencoded only; grant_type client_credentials with client_id and client_secret.
    if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return oauthError('invalid_request');
    const form = new URLSearchParams(req.body.toString('utf8'));
    const id = form.get('client_id');
    const secret = form.get('client_secret');
    if (!form.get('grant_type') || !id || !secret) return oauthError('invalid_request');
    if (form.get('grant_type') !== 'client_credentials') return oauthError('unsupported_grant_type');
    const client = api.clients.get(id);
    if (!client || client.secret !== secret) return oauthError('invalid_client');
    const token = `v2-${randomUUID()}`;
    state.tokens.set(token, { client: id, expiresAt: Date.now() + api.tokenSeconds * 1000 });
    return {
      status: 200,
      body: { access_token: token, token_type: 'Bearer', expires_in: api.tokenSeconds, scope: 'personio:recruiting:read' },
    };
  }
  // Every other v2 call takes the access token as a Bearer token: none, unknown or expired is 401 (assumed status).
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  const held = bearer ? state.tokens.get(bearer) : undefined;
  const client = held && held.expiresAt > Date.now() ? api.clients.get(held.client) : undefined;
  if (!client) return problem(401, 'Unauthorized');
  const match = /^\/v2\/recruiting\/applications(?:\/([^/]+))?$/.exec(path);
  if (!match || req.method !== 'GET') return problem(404, 'Not Found');
  // A: the `personio:recruiting:read` scope; a client without it is 403 (assumed status).
  if (!client.canReadRecruiting) return problem(403, 'Forbidden');
  const own = api.applications.filter((a) => a.companyId === client.companyId);
  if (match[1] === undefined) {
    // L: limit 1–200 (default 100), the `candidate.email` filter; newest first.
    const limit = Number(req.query.get('limit') ?? 100);
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) return problem(400, 'Bad Request');
    const email = req.query.get('candidate.email')?.toLowerCase();
    const found = own.filter((a) => email === undefined || a.email === email).reverse();
    return { status: 200, body: { _data: found.slice(0, limit).map(json), _meta: { links: {} } } };
  }
  // A: another company's or an unknown application is 404.
  const found = own.find((a) => a.id === decodeURIComponent(match[1]!));
  if (!found) return problem(404, 'Not Found');
  return { status: 200, body: { _data: json(found) } };
}
