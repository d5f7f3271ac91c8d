/**
 * Recruitee outcomes through the ATS API (P351–P353), only for a company that gave the optional personal API token
 * (`api_token`). The ATS API lives at `https://api.recruitee.com/c/{company_id}/…` and takes the token as
 * `Authorization: Bearer` (https://docs.recruitee.com/reference/getting-started); "Company ID. A company subdomain
 * can also be used" (https://docs.recruitee.com/reference/candidates-get), so the careers-site subdomain we already
 * hold (`company`) names the company. The candidate the Careers Site API created is known by the id its apply answer
 * carries (`candidate.id`, https://career.recruitee.com/docs/index.html), our `external_id`: no search is needed.
 *
 * A candidate's `placements` are its "assignments to jobs or talent pools with stage information" (candidates-get).
 * Each placement carries `offer_id`, `stage_id`, `hired_at`, `disqualified_at`, `disqualify_reason` and
 * `disqualify_kind`; the answer's `references` name each stage (`type: "Stage"`, `name`, `category`, e.g. `apply`,
 * `hire`). Those field names are observed answers (third-party fixtures), not on a page we could read: assumed
 * (docs/connectors/recruitee.md, "Outcomes").
 */
import type { CompanyRecord } from '#companies/company-schema.js';
import { ConnectorError, type AtsCredentials, type OutcomeReading, type OutcomeRef } from '#delivery/connectors/connector.js';
import { atsBaseUrl, atsFetch, atsUrl, errorForStatus, jsonBody, segment } from '#delivery/connectors/http.js';
import { text } from '#delivery/connectors/mapping.js';
import { ATS_API_URL, PACING } from '#delivery/connectors/recruitee-descriptor.js';

const ATS = 'Recruitee';

const apiUrl = (credentials: AtsCredentials, path: string, query: Record<string, string | number> = {}) =>
  atsUrl(atsBaseUrl(ATS_API_URL), `/c/${segment(credentials.company)}${path}`, query);

const headers = (credentials: AtsCredentials) => ({ Accept: 'application/json', Authorization: `Bearer ${credentials.api_token}` });

/** 401 (an unknown or revoked token) and 403 (its user may not see candidates) point at the token (P322 pauses on them). */
function tokenRefused(status: number): ConnectorError {
  return new ConnectorError(
    'credentials_rejected',
    status === 401
      ? `${ATS} refused the ATS API token (401): unknown or revoked.`
      : `${ATS} refused the ATS API token (403): its user may not see candidates.`,
    undefined,
    'api_token',
  );
}

/**
 * The token check (P351), only when a token is given: `GET /c/{company}/candidates?limit=1`, the cheapest documented
 * call that proves the token may read candidates of that company (its answer is read and dropped, never kept). 404:
 * the token's user is not in a company of that name.
 */
export async function checkAtsApiToken(credentials: AtsCredentials): Promise<void> {
  if (!credentials.api_token) return;
  const response = await atsFetch(ATS, apiUrl(credentials, '/candidates', { limit: 1 }), { headers: headers(credentials) }, PACING);
  await response.arrayBuffer().catch(() => undefined);
  if (response.status === 401 || response.status === 403) throw tokenRefused(response.status);
  if (response.status === 404)
    throw new ConnectorError(
      'credentials_rejected',
      `${ATS}'s ATS API knows no company of that name for this token (404): make the token in the company of the careers site.`,
      undefined,
      'api_token',
    );
  if (!response.ok) throw errorForStatus(ATS, response);
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => Boolean(value) && typeof value === 'object' && !Array.isArray(value);
const idOf = (value: unknown) => (typeof value === 'number' || typeof value === 'string' ? String(value) : null);

/**
 * Our outcome of the placement for the job (P352): hired when its stage is of the `hire` category (or `hired_at` is
 * set and the stage is not named); disqualified by the candidate (`disqualify_kind: candidate`) WITHDRAWN, otherwise
 * REJECTED; else PENDING. The stage is the stage's own name, never the disqualify reason (a company's free text).
 */
export function recruiteeOutcome(body: Json, jobExternalId: string): OutcomeReading {
  const candidate = body.candidate;
  if (!isObject(candidate) || !Array.isArray(candidate.placements))
    throw new ConnectorError('invalid_data', `${ATS} answered the candidate read without a candidate and its placements.`);
  const placements = candidate.placements.filter(isObject);
  // The placement for the job we applied to; the only one when the answer names no offer (assumed).
  const placement = placements.find((p) => idOf(p.offer_id) === jobExternalId) ?? (placements.length === 1 ? placements[0] : undefined);
  if (!placement) return { outcome: 'PENDING', stage: null };
  const references = Array.isArray(body.references) ? body.references.filter(isObject) : [];
  const stageId = idOf(placement.stage_id);
  const stage = references.find((r) => r.type === 'Stage' && stageId !== null && idOf(r.id) === stageId);
  const name = text(stage?.name)?.slice(0, 200) ?? null;
  const disqualified = Boolean(placement.disqualified_at || placement.disqualify_reason || placement.disqualify_kind);
  if (disqualified) return { outcome: placement.disqualify_kind === 'candidate' ? 'WITHDRAWN' : 'REJECTED', stage: name };
  if (stage?.category === 'hire' || (!stage && placement.hired_at)) return { outcome: 'HIRED', stage: name };
  return { outcome: 'PENDING', stage: name };
}

/** `GET /c/{company}/candidates/{id}` with the token (P352). */
export async function readRecruiteeOutcome(
  ref: OutcomeRef,
  credentials: AtsCredentials,
  _company?: CompanyRecord,
): Promise<OutcomeReading> {
  // A company whose connection recorded the token is the only one read; a token missing here is refused as one.
  if (!credentials.api_token) throw tokenRefused(401);
  const response = await atsFetch(
    ATS,
    apiUrl(credentials, `/candidates/${segment(ref.externalId)}`),
    { headers: headers(credentials) },
    PACING,
  );
  if (response.status === 401 || response.status === 403) {
    await response.arrayBuffer().catch(() => undefined);
    throw tokenRefused(response.status);
  }
  if (response.status === 404) {
    await response.arrayBuffer().catch(() => undefined);
    // The candidate was created by the submission: one the company no longer has was deleted there (as Workable).
    throw new ConnectorError('invalid_data', `${ATS} no longer has the candidate (404).`);
  }
  if (!response.ok) throw errorForStatus(ATS, response);
  const body = await jsonBody(response);
  if (!isObject(body))
    throw new ConnectorError('invalid_data', `${ATS} answered the candidate read with something other than a JSON object.`);
  return recruiteeOutcome(body, ref.jobExternalId);
}
