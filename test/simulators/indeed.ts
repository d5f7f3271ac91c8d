/**
 * A simulator of Indeed's OAuth token endpoint and the Disposition Sync API (GraphQL), for `indeed` apply
 * channels' dispositions (D22, P317). Each rule names the page of Indeed's reference it follows:
 * - `POST /oauth/v2/tokens`, form-encoded `grant_type=client_credentials`, `client_id`, `client_secret`
 *   (https://docs.indeed.com/authentication/auth-2-legged-oauth) → 200 `{access_token, token_type: "Bearer",
 *   expires_in}`; a token expires after one hour
 *   (https://docs.indeed.com/disposition-sync-api/integrate-with-disposition-sync-api). Wrong client: 401
 *   `{"error": "invalid_client"}` (the OAuth 2.0 error shape, RFC 6749 §5.2; assumed for Indeed).
 * - `POST /graphql` with `Authorization: Bearer <token>` (the endpoint's path is assumed). A missing, unknown or
 *   expired token: 401 (assumed). Errors of the request itself come in a 200 with an `errors` array
 *   (https://docs-plus.indeed.com/integration-basics/graphql-at-indeed/troubleshoot-graphql-errors): a query that
 *   is not `partnerDisposition.send` (`GRAPHQL_VALIDATION_FAILED`), more than 25 dispositions in one request or a
 *   disposition without its required fields (`BAD_USER_INPUT`; at most 25:
 *   https://docs.indeed.com/ja/disposition-sync-api/for-japan-partners), an unparsable `statusChangeDateTime`
 *   ("Unable to parse statusChangeDateTime", the troubleshooting page). A `dispositionStatus` outside
 *   `IndeedDispositionStatus` (https://docs-plus.indeed.com/api/common/objects/IndeedDispositionStatus) is
 *   `BAD_USER_INPUT` too. An `indeedApplyID` Indeed does not know is refused on its own in `failedDispositions`
 *   with a `rationale` (https://docs.indeed.com/api/disposition/objects/SendPartnerDispositionPayload).
 * - Tests take it down (`down = true`: 503), expire every token early (`expireTokens()`), and read what arrived
 *   (`dispositions`, in arrival order; `batches`, one per accepted request).
 */
import { randomBytes } from 'node:crypto';
import { startSimulatorServer, type RecordedRequest, type Reply, type SimulatorServer } from './server.js';

export const INDEED_STATUSES = new Set([
  'NEW', 'REVIEW', 'LIKED', 'CONTACTED', 'INTERVIEW', 'BACKGROUND_CHECK', 'WITHDRAWN', 'HIRED', 'INCOMPLETE', 'UNABLE_TO_MAP',
  'SCREEN', 'VERIFY_ELIGIBILITY', 'NOT_SELECTED', 'OFFER_DECLINED', 'ASSESS_QUALIFICATIONS', 'OFFER_MADE', 'ONBOARDED',
  'POSITIVELY_SCREENED', 'JOB_INACTIVE', 'JOB_CLOSED', 'DROPPED_DUPLICATE', 'DROPPED_JOB_EXPIRED', 'DROPPED_FRAUD_SPAM',
]); // prettier-ignore

export interface ReceivedDisposition {
  identifiedBy: { indeedApplyID: string };
  dispositionStatus: string;
  rawDispositionStatus: string;
  atsName: string;
  statusChangeDateTime: string;
}

export interface IndeedSimulator extends SimulatorServer {
  clientId: string;
  clientSecret: string;
  /** Lifetime of new tokens, in seconds (Indeed: 3600). */
  tokenSeconds: number;
  /** Tokens issued so far. */
  tokensIssued: number;
  down: boolean;
  /** Indeed Apply ids Indeed knows; others are refused one by one. Empty: all are known. */
  knownApplyIds: Set<string>;
  dispositions: ReceivedDisposition[];
  batches: ReceivedDisposition[][];
  expireTokens(): void;
}

const gqlError = (message: string, code: string): Reply => ({
  status: 200,
  body: { errors: [{ message, extensions: { code } }], data: null },
});

export async function startIndeedSimulator(): Promise<IndeedSimulator> {
  const tokens = new Map<string, number>(); // token → expiry (ms)
  // eslint-disable-next-line prefer-const -- the handlers read it; it is made once the server is up
  let sim: IndeedSimulator;
  const state = {
    clientId: `client-${randomBytes(6).toString('hex')}`,
    clientSecret: randomBytes(24).toString('base64url'),
    tokenSeconds: 3600,
    tokensIssued: 0,
    down: false,
    knownApplyIds: new Set<string>(),
    dispositions: [] as ReceivedDisposition[],
    batches: [] as ReceivedDisposition[][],
    expireTokens: () => tokens.clear(),
  };

  function token(request: RecordedRequest): Reply {
    const form = new URLSearchParams(request.body.toString('utf8'));
    if (!request.headers['content-type']?.startsWith('application/x-www-form-urlencoded'))
      return { status: 400, body: { error: 'invalid_request' } };
    if (form.get('grant_type') !== 'client_credentials') return { status: 400, body: { error: 'unsupported_grant_type' } };
    if (form.get('client_id') !== sim.clientId || form.get('client_secret') !== sim.clientSecret)
      return { status: 401, body: { error: 'invalid_client' } };
    const issued = randomBytes(24).toString('base64url');
    tokens.set(issued, Date.now() + sim.tokenSeconds * 1000);
    sim.tokensIssued += 1;
    return { status: 200, body: { access_token: issued, token_type: 'Bearer', expires_in: sim.tokenSeconds } };
  }

  function graphql(request: RecordedRequest): Reply {
    const bearer = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    const expiry = bearer === undefined ? undefined : tokens.get(bearer);
    if (expiry === undefined || expiry <= Date.now()) return { status: 401, body: { error: 'invalid_token' } };
    const body = request.json as { query?: unknown; variables?: { input?: { dispositions?: unknown } } } | undefined;
    if (typeof body?.query !== 'string' || !/partnerDisposition\s*{\s*send\s*\(\s*input\s*:\s*\$input\s*\)/.test(body.query))
      return gqlError('Validation error: expected partnerDisposition.send(input: $input)', 'GRAPHQL_VALIDATION_FAILED');
    const list = body.variables?.input?.dispositions;
    if (!Array.isArray(list) || !list.length) return gqlError('dispositions must be a non-empty list', 'BAD_USER_INPUT');
    if (list.length > 25) return gqlError('A request may contain at most 25 dispositions', 'BAD_USER_INPUT');
    const batch: ReceivedDisposition[] = [];
    for (const item of list as Record<string, any>[]) {
      const ids = Object.keys(item?.identifiedBy ?? {});
      if (ids.length !== 1 || typeof item.identifiedBy.indeedApplyID !== 'string')
        return gqlError(
          'PartnerDispositionIdentifierInput must specify one of indeedApplyID, ittk, universalApplyId, or alternateIdentifier',
          'BAD_USER_INPUT',
        );
      if (!INDEED_STATUSES.has(item.dispositionStatus)) return gqlError('Variable input has an invalid value', 'BAD_USER_INPUT');
      if (typeof item.rawDispositionStatus !== 'string' || typeof item.atsName !== 'string' || !item.atsName)
        return gqlError('Variable input has an invalid value', 'BAD_USER_INPUT');
      if (typeof item.statusChangeDateTime !== 'string' || Number.isNaN(Date.parse(item.statusChangeDateTime)))
        return gqlError('Unable to parse statusChangeDateTime', 'BAD_USER_INPUT');
      batch.push(item as ReceivedDisposition);
    }
    const failed = batch
      .filter((d) => sim.knownApplyIds.size && !sim.knownApplyIds.has(d.identifiedBy.indeedApplyID))
      .map((d) => ({ identifiedBy: d.identifiedBy, rationale: 'Unknown indeedApplyID' }));
    sim.batches.push(batch);
    sim.dispositions.push(...batch);
    return {
      status: 200,
      body: {
        data: { partnerDisposition: { send: { numberGoodDispositions: batch.length - failed.length, failedDispositions: failed } } },
      },
    };
  }

  const server = await startSimulatorServer((request) => {
    if (sim.down) return { status: 503, body: { error: 'unavailable' } };
    if (request.method === 'POST' && request.path === '/oauth/v2/tokens') return token(request);
    if (request.method === 'POST' && request.path === '/graphql') return graphql(request);
    return { status: 404, body: { error: 'not_found' } };
  });
  sim = Object.assign(server, state);
  return sim;
}
