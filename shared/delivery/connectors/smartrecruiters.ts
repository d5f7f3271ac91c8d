/**
 * SmartRecruiters (docs/connectors/smartrecruiters.md). Jobs: the public Posting API,
 * `GET /v1/companies/{company_identifier}/postings?limit=&offset=` until `totalFound` is reached, then per
 * posting its full object (`/postings/{id}`, the list leaves fields out) and its application configuration
 * (`GET /postings/{uuid}/configuration`, with the key) for the screening questions. Applications: the
 * Application API, `POST /postings/{uuid}/candidates` as JSON with `X-SmartToken`, files Base64 in
 * `attachments` (2 MB each; PDF, DOC(X), RTF, JPG, PNG), screening answers as
 * `answers[{id, records: [{fields}]}]` against the posting's configuration, GDPR consent as the documented
 * `consentDecisions` (the body: smartrecruiters-apply.ts). SmartRecruiters answers 429
 * above 10 requests per second per credential without a Retry-After: the connector backs off itself.
 * The posting and configuration shapes and their mapping onto our fields are in smartrecruiters-jobs.ts.
 */
import type { CompanyRecord } from '#companies/company-schema.js';
import type { JobInput } from '#jobs/job-schema.js';
import {
  ConnectorError,
  type AtsConnector,
  type AtsCredentials,
  type OutcomeReading,
  type OutcomeRef,
  type Submission,
} from '#delivery/connectors/connector.js';
import {
  atsBaseUrl,
  atsFetch,
  atsUrl,
  errorForStatus,
  jsonBody,
  mapLimited,
  retryAfterSeconds,
  segment,
} from '#delivery/connectors/http.js';
import { text } from '#delivery/connectors/mapping.js';
import { smartrecruitersApplicationBody } from '#delivery/connectors/smartrecruiters-apply.js';
import {
  mapSmartRecruitersPosting,
  type SmartRecruitersConfiguration,
  type SmartRecruitersPosting,
} from '#delivery/connectors/smartrecruiters-jobs.js';
import { API_URL, PACING, smartrecruitersDescriptor } from '#delivery/connectors/smartrecruiters-descriptor.js';
export { SMARTRECRUITERS_FILE_EXTENSIONS, SMARTRECRUITERS_MAX_FILE_BYTES } from '#delivery/connectors/smartrecruiters-descriptor.js';

const ATS = 'SmartRecruiters';
const MAX_PAGES = 500;
/** A posting uuid no posting has: the key check's fallback when the company publishes none. */
export const NIL_UUID = '00000000-0000-0000-0000-000000000000';

const pageSize = () => Math.min(100, Math.max(1, Number(process.env.SMARTRECRUITERS_PAGE_SIZE ?? 100) || 100));
const retryBaseMs = () => Number(process.env.SMARTRECRUITERS_RETRY_BASE_MS ?? 1000);
const maxRetries = () => Number(process.env.SMARTRECRUITERS_MAX_RETRIES ?? 3);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const base = () => atsBaseUrl(API_URL);

function postingsUrl(credentials: AtsCredentials, path = '', query: Record<string, string | number> = {}) {
  return atsUrl(base(), `/v1/companies/${segment(credentials.company_identifier)}/postings${path}`, query);
}

const applicationUrl = (uuid: string, path: string) => atsUrl(base(), `/postings/${segment(uuid)}${path}`);

function keyHeaders(credentials: AtsCredentials): Record<string, string> {
  return { 'X-SmartToken': credentials.api_key, Accept: 'application/json' };
}

/**
 * One request, paced; a 429 (SmartRecruiters sends no Retry-After) is retried with exponential backoff
 * (SMARTRECRUITERS_RETRY_BASE_MS, SMARTRECRUITERS_MAX_RETRIES), as the vendor recommends. A 429 means the
 * request was not processed, so the retry cannot create anything twice.
 */
async function call(url: string, init: RequestInit): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const response = await atsFetch(ATS, url, init, PACING);
    if (response.status !== 429 || attempt >= maxRetries()) return response;
    await response.arrayBuffer().catch(() => undefined);
    await sleep(Math.max((retryAfterSeconds(response) ?? 0) * 1000, retryBaseMs() * 2 ** attempt));
  }
}

async function readObject(response: Response, what: string): Promise<Record<string, unknown>> {
  const body = await jsonBody(response);
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new ConnectorError('invalid_data', `${ATS} ${what} is not a JSON object.`);
  return body as Record<string, unknown>;
}

/** The codes and messages of an error body (`{code, message}`, `{errors: [{code, message}]}`), capped, without e-mails. */
function errorDetail(body: unknown): string {
  const parts: string[] = [];
  const add = (value: unknown) => {
    if (typeof value === 'string' && value.trim()) parts.push(value.trim());
  };
  const record = (body ?? {}) as Record<string, unknown>;
  add(record.code);
  add(record.message);
  if (Array.isArray(record.errors))
    for (const error of record.errors as Record<string, unknown>[]) {
      add(error?.code);
      add(error?.message);
    }
  // An answer may echo what it refuses: e-mail addresses are not carried into our errors.
  return parts
    .join('; ')
    .replace(/[^\s;:,<>"']+@[^\s;:,<>"']+/g, '[e-mail]')
    .slice(0, 300);
}

/** One page of the company's postings. */
async function listPage(credentials: AtsCredentials, offset: number, limit: number) {
  const response = await call(postingsUrl(credentials, '', { limit, offset }), { headers: { Accept: 'application/json' } });
  if (response.status === 404)
    throw new ConnectorError(
      'credentials_rejected',
      `${ATS} knows no company with that identifier (404).`,
      undefined,
      'company_identifier',
    );
  if (!response.ok) throw errorForStatus(ATS, response, errorDetail(await jsonBody(response)));
  const body = await readObject(response, 'postings list');
  if (!Array.isArray(body.content) || typeof body.totalFound !== 'number')
    throw new ConnectorError('invalid_data', `${ATS} postings list has no content array or no totalFound.`);
  for (const posting of body.content as SmartRecruitersPosting[]) {
    if (!posting || typeof posting !== 'object' || !text(posting.id) || !text(posting.uuid))
      throw new ConnectorError('invalid_data', `${ATS} postings list has a posting without an id or uuid.`);
  }
  return { content: body.content as SmartRecruitersPosting[], totalFound: body.totalFound };
}

/** Every published posting, page by page (`limit` ≤ 100, `offset`) until `totalFound`; each uuid once. */
export async function listAllPostings(credentials: AtsCredentials): Promise<SmartRecruitersPosting[]> {
  const limit = pageSize();
  const postings: SmartRecruitersPosting[] = [];
  const seen = new Set<string>();
  let offset = 0;
  for (let page = 0; page < MAX_PAGES; page++) {
    const { content, totalFound } = await listPage(credentials, offset, limit);
    for (const posting of content) {
      if (seen.has(String(posting.uuid))) continue;
      seen.add(String(posting.uuid));
      postings.push(posting);
    }
    offset += content.length;
    if (content.length === 0 || offset >= totalFound) return postings;
  }
  throw new ConnectorError('invalid_data', `${ATS} postings list did not end after ${MAX_PAGES} pages.`);
}

/** A posting's application configuration; undefined when the posting is unknown or closed (404). */
async function configuration(credentials: AtsCredentials, uuid: string): Promise<SmartRecruitersConfiguration | undefined> {
  const response = await call(applicationUrl(uuid, '/configuration'), { headers: keyHeaders(credentials) });
  if (response.status === 404) {
    await response.arrayBuffer().catch(() => undefined);
    return undefined;
  }
  if (response.status === 401 || response.status === 403)
    throw new ConnectorError('credentials_rejected', `${ATS} rejected the API key (${response.status}).`, undefined, 'api_key');
  if (!response.ok) throw errorForStatus(ATS, response, errorDetail(await jsonBody(response)));
  const body = await readObject(response, 'posting configuration');
  if (body.questions !== undefined && !Array.isArray(body.questions))
    throw new ConnectorError('invalid_data', `${ATS} posting configuration has no questions array.`);
  return body as SmartRecruitersConfiguration;
}

// ---- applications: the body is built in smartrecruiters-apply.ts ------------------------------------

/** An Application API error answer → our kind (docs/connectors/smartrecruiters.md, "Errors"). */
async function failure(response: Response): Promise<ConnectorError> {
  const detail = errorDetail(await jsonBody(response));
  const status = response.status;
  const suffix = detail ? `: ${detail}` : '';
  if (status === 409 || (status < 500 && /already (applied|exists)|duplicate/i.test(detail)))
    return new ConnectorError('duplicate', `${ATS}: the candidate already applied to this posting (${status}${suffix}).`);
  if (
    status === 404 ||
    status === 410 ||
    (status < 500 && /posting.*(not found|not published|closed|expired|inactive)|not accepting/i.test(detail))
  )
    return new ConnectorError('job_not_published', `${ATS}: the posting is unknown or closed (${status}${suffix}).`);
  if (status === 413 || (status < 500 && /attachment|file|pdf/i.test(detail) && /size|large|type|format|load|invalid/i.test(detail)))
    return new ConnectorError('attachment_rejected', `${ATS} refused a file (${status}${suffix}).`);
  if (status === 401 || status === 403)
    return new ConnectorError('credentials_rejected', `${ATS} rejected the API key (${status}${suffix}).`);
  return errorForStatus(ATS, response, detail);
}

// ---- outcomes (D21, P301) ---------------------------------------------------------------------------

/**
 * The application statuses of "Get Candidate Application Status"
 * (https://developers.smartrecruiters.com/docs/get-candidate-application-status) → our outcome
 * (docs/connectors/smartrecruiters.md, "Outcomes"). The newer Candidate Status API spells some with `_` and
 * `-ED` (IN_REVIEW, OFFERED, HIRED): both spellings map alike. TRANSFERRED (moved to another job) ends this
 * application without a hire: REJECTED (P302). An unknown value is PENDING with that value as the stage.
 */
const SMARTRECRUITERS_OUTCOMES = new Map<string, OutcomeReading['outcome']>([
  ['NEW', 'PENDING'],
  ['IN-REVIEW', 'PENDING'],
  ['INTERVIEW', 'PENDING'],
  ['OFFER', 'PENDING'],
  ['OFFERED', 'PENDING'],
  ['LEAD', 'PENDING'],
  ['HIRE', 'HIRED'],
  ['HIRED', 'HIRED'],
  ['REJECTED', 'REJECTED'],
  ['TRANSFERRED', 'REJECTED'],
  ['WITHDRAWN', 'WITHDRAWN'],
]);

export function smartrecruitersOutcome(status: string): OutcomeReading {
  const stage = status.trim().toUpperCase().replace(/_/g, '-').slice(0, 100);
  return { outcome: SMARTRECRUITERS_OUTCOMES.get(stage) ?? 'PENDING', stage };
}

async function readApplicationStatus(ref: OutcomeRef, credentials: AtsCredentials): Promise<OutcomeReading> {
  const response = await call(applicationUrl(ref.jobExternalId, `/candidates/${segment(ref.externalId)}/status`), {
    headers: keyHeaders(credentials),
  });
  if (response.status === 401 || response.status === 403)
    throw new ConnectorError('credentials_rejected', `${ATS} rejected the API key (${response.status}).`, undefined, 'api_key');
  if (response.status === 404) {
    await response.arrayBuffer().catch(() => undefined);
    throw new ConnectorError('invalid_data', `${ATS} no longer has the candidate's application to this posting (404).`);
  }
  if (!response.ok) throw errorForStatus(ATS, response, errorDetail(await jsonBody(response)));
  const status = (await readObject(response, 'application status')).status;
  if (typeof status !== 'string' || !status.trim())
    throw new ConnectorError('invalid_data', `${ATS} answered the application status without a status.`);
  return smartrecruitersOutcome(status);
}

export const smartrecruitersConnector: AtsConnector = {
  ...smartrecruitersDescriptor,

  async listPublishedJobs(_company: CompanyRecord, credentials: AtsCredentials) {
    const listed = await listAllPostings(credentials);
    const detailed = await mapLimited(listed, PACING.importConcurrency, async (posting) => {
      const response = await call(postingsUrl(credentials, `/${segment(String(posting.id))}`), { headers: { Accept: 'application/json' } });
      // Unpublished between the list and this read: it is not published any more.
      if (response.status === 404) return undefined;
      if (!response.ok) throw errorForStatus(ATS, response, errorDetail(await jsonBody(response)));
      const full = { ...posting, ...(await readObject(response, 'posting')) } as SmartRecruitersPosting;
      if (String(full.uuid) !== String(posting.uuid))
        throw new ConnectorError('invalid_data', `${ATS} posting does not match its list entry.`);
      const config = await configuration(credentials, String(posting.uuid));
      return config ? mapSmartRecruitersPosting(full, config) : undefined;
    });
    return detailed.filter((job): job is JobInput => job !== undefined);
  },

  async submitApplication(submission: Submission, credentials: AtsCredentials) {
    const uuid = submission.jobExternalId;
    // The documented flow: the posting's configuration first (its questions shape the answers; a 404 means
    // the posting is closed), then the application.
    const config = await configuration(credentials, uuid);
    if (!config) throw new ConnectorError('job_not_published', `${ATS}: the posting is unknown or closed (404).`);
    const body = await smartrecruitersApplicationBody(submission, config);
    const response = await call(applicationUrl(uuid, '/candidates'), {
      method: 'POST',
      headers: { ...keyHeaders(credentials), 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw await failure(response);
    const answer = (await jsonBody(response)) as Record<string, unknown> | undefined;
    return { externalId: text(answer?.id) };
  },

  async validateCredentials(credentials: AtsCredentials) {
    // The public list proves the company identifier when it publishes something (an unknown identifier
    // answers an empty list, so an empty one proves nothing).
    const { content } = await listPage(credentials, 0, 1);
    // The key: the configuration of the first posting (a read, nothing is created). Without a posting, one
    // that cannot exist: SmartRecruiters authenticates first, so 401/403 is a wrong key and 404 an accepted one.
    const uuid = content.length ? String(content[0].uuid) : NIL_UUID;
    const response = await call(applicationUrl(uuid, '/configuration'), { headers: keyHeaders(credentials) });
    if (response.status === 401 || response.status === 403)
      throw new ConnectorError('credentials_rejected', `${ATS} rejected the API key (${response.status}).`, undefined, 'api_key');
    if (response.status === 429 || response.status >= 500) throw errorForStatus(ATS, response);
    if (response.status === 404 && uuid === NIL_UUID) return;
    // The company's own posting, just listed, unknown to the key: the key belongs to another company.
    if (response.status === 404)
      throw new ConnectorError(
        'credentials_rejected',
        `${ATS} does not show this company's posting to the API key (404): the key is not this company's.`,
        undefined,
        'api_key',
      );
    if (!response.ok)
      throw new ConnectorError('invalid_data', `${ATS} Application API answered ${response.status} to the credentials check.`);
    await readObject(response, 'posting configuration');
  },

  readOutcome: (ref: OutcomeRef, credentials: AtsCredentials) => readApplicationStatus(ref, credentials),
};
