/**
 * Indeed's Disposition Sync API (D22, issue 43 item 4; P317): the client `dispositions.ts` sends an `indeed`
 * channel's dispositions through. Names as Indeed's reference spells them:
 * - the token: `POST {INDEED_API_URL}/oauth/v2/tokens`, form-encoded `grant_type=client_credentials`, `client_id`,
 *   `client_secret` (https://docs.indeed.com/authentication/auth-2-legged-oauth); it expires after one hour
 *   (https://docs.indeed.com/disposition-sync-api/integrate-with-disposition-sync-api) and is reused until then;
 * - the mutation `partnerDisposition { send(input: {dispositions: [...]}) }` with `identifiedBy.indeedApplyID`,
 *   `dispositionStatus`, `rawDispositionStatus`, `atsName`, `statusChangeDateTime`
 *   (https://docs.indeed.com/disposition-sync-api/disposition-sync-api-guide,
 *   https://docs.indeed.com/api/disposition/mutations/partnerDisposition/send), at most 25 per request, sorted by
 *   `statusChangeDateTime` ascending (https://docs.indeed.com/ja/disposition-sync-api/for-japan-partners);
 * - errors: a 200 with an `errors` array is a failure
 *   (https://docs-plus.indeed.com/integration-basics/graphql-at-indeed/troubleshoot-graphql-errors); a disposition
 *   Indeed refuses on its own is in `failedDispositions` with a `rationale`
 *   (https://docs.indeed.com/api/disposition/objects/SendPartnerDispositionPayload).
 * Assumed (not found in the reference): the GraphQL endpoint `{INDEED_API_URL}/graphql`, and a 401 for an expired
 * token (we fetch a new token once and repeat the request).
 * The client secret and the token never leave this module: not logged, not in errors.
 */
import { now } from '#platform/clock.js';

/** Indeed's limit per request. */
export const INDEED_BATCH_LIMIT = 25;

export const indeedApiUrl = () => (process.env.INDEED_API_URL ?? 'https://apis.indeed.com').replace(/\/+$/, '');
/** `atsName`, required by Indeed: the name Indeed knows this integration by (P317). */
const atsName = () => process.env.INDEED_ATS_NAME ?? 'Hiring Integration Service';
const timeoutMs = () => Number(process.env.WEBHOOK_TIMEOUT_MS ?? 10_000);

/** One disposition as Indeed's `PartnerDispositionInput` takes it. */
export interface IndeedDisposition {
  identifiedBy: { indeedApplyID: string };
  dispositionStatus: string;
  rawDispositionStatus: string;
  atsName: string;
  statusChangeDateTime: string;
}

export interface IndeedClient {
  channel_id: number;
  client_id: string;
  client_secret: string;
}

/** A request Indeed did not take; `retry` false when repeating it cannot help (our input was refused). */
export class IndeedSendError extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
  ) {
    super(message);
    this.name = 'IndeedSendError';
  }
}

export const MUTATION =
  'mutation SendDispositions($input: SendPartnerDispositionInput!) { partnerDisposition { send(input: $input) { numberGoodDispositions failedDispositions { identifiedBy { indeedApplyID } rationale } } } }';

/** The access token per channel and client id, reused until a minute before it expires (a Map: P53). */
const tokens = new Map<string, { token: string; expiresAtMs: number }>();
const tokenKey = (client: IndeedClient) => `${client.channel_id}\u0000${client.client_id}`;

async function accessToken(client: IndeedClient, fresh: boolean): Promise<string> {
  const cached = tokens.get(tokenKey(client));
  if (!fresh && cached && cached.expiresAtMs > now().getTime()) return cached.token;
  const response = await fetch(`${indeedApiUrl()}/oauth/v2/tokens`, {
    method: 'POST',
    headers: { Accept: 'application/json', 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }),
    signal: AbortSignal.timeout(timeoutMs()),
  });
  const body = (await response.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown; error?: unknown };
  if (!response.ok || typeof body.access_token !== 'string') {
    // Only Indeed's error code (`invalid_client`...), never the body: it could echo what we sent.
    const code = typeof body.error === 'string' && /^[a-z_]{1,64}$/.test(body.error) ? ` ${body.error}` : '';
    throw new IndeedSendError(`Indeed token: HTTP ${response.status}${code}`, true);
  }
  const seconds = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 3600;
  tokens.set(tokenKey(client), { token: body.access_token, expiresAtMs: now().getTime() + Math.max(seconds - 60, 1) * 1000 });
  return body.access_token;
}

/** Forgets every cached token (tests). */
export function forgetIndeedTokens(): void {
  tokens.clear();
}

/** GraphQL error codes that say our request itself is wrong: repeating it cannot help. */
const REFUSED_CODES = new Set(['BAD_USER_INPUT', 'GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED']);

/**
 * Sends up to 25 dispositions, already sorted by `statusChangeDateTime`, in one `partnerDisposition.send`.
 * Resolves to how many Indeed took and the rationales of those it refused one by one; throws `IndeedSendError`.
 */
export async function sendIndeedDispositions(
  client: IndeedClient,
  dispositions: Omit<IndeedDisposition, 'atsName'>[],
): Promise<{ good: number; failed: string[] }> {
  if (dispositions.length > INDEED_BATCH_LIMIT) throw new Error(`at most ${INDEED_BATCH_LIMIT} dispositions per request`);
  const body = JSON.stringify({
    query: MUTATION,
    variables: { input: { dispositions: dispositions.map((d) => ({ ...d, atsName: atsName() })) } },
  });
  let response: Response | undefined;
  for (const fresh of [false, true]) {
    const token = await accessToken(client, fresh);
    try {
      response = await fetch(`${indeedApiUrl()}/graphql`, {
        method: 'POST',
        headers: { Accept: 'application/json', 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body,
        signal: AbortSignal.timeout(timeoutMs()),
      });
    } catch (error) {
      throw new IndeedSendError(`Indeed GraphQL: ${(error as Error).name}`, true);
    }
    if (response.status !== 401) break;
    tokens.delete(tokenKey(client)); // expired or revoked before its time: one fresh token, once
  }
  if (!response!.ok) throw new IndeedSendError(`Indeed GraphQL: HTTP ${response!.status}`, true);
  const answer = (await response!.json().catch(() => ({}))) as {
    errors?: { message?: string; extensions?: { code?: string } }[];
    data?: { partnerDisposition?: { send?: { numberGoodDispositions?: number; failedDispositions?: { rationale?: string }[] } } };
  };
  if (answer.errors?.length) {
    const codes = answer.errors.map((e) => String(e.extensions?.code ?? 'UNKNOWN'));
    throw new IndeedSendError(`Indeed GraphQL errors: ${codes.join(', ')}`, !codes.every((code) => REFUSED_CODES.has(code)));
  }
  const sent = answer.data?.partnerDisposition?.send;
  if (!sent) throw new IndeedSendError('Indeed GraphQL: no send payload', true);
  return { good: sent.numberGoodDispositions ?? 0, failed: (sent.failedDispositions ?? []).map((f) => String(f.rationale ?? '')) };
}
