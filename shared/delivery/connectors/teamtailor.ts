/**
 * Teamtailor API v1 (JSON:API; docs/connectors/teamtailor.md, which cites the vendor's page for every field).
 * Every request carries `Authorization: Token token=<key>`, the dated `X-Api-Version` the docs name and
 * `application/vnd.api+json`. Jobs: `GET /v1/jobs?filter[status]=published&include=department,locations` page
 * by page (`page[size]`/`page[number]` until `links.next` is gone), then each job's picked questions from the
 * documented list `GET /v1/picked-questions?filter[job]={id}&include=question`, every page of it (P277).
 * Applications: the candidate first (`POST /v1/candidates` with `merge: true`, the CV as the `resume` URL), then
 * the other files (`POST /v1/uploads` with a `url`), the screening answers (`POST /v1/answers`: `boolean`,
 * `choices`, `range` or `text`) and last the job application that links the candidate to the job
 * (`POST /v1/job-applications`), whose id is the application's `external_id`. Teamtailor downloads files from a
 * public URL: each goes as a presigned S3 GET URL of the stored object, valid for at most an hour and never
 * logged (P277). Pacing: 4 requests a second ahead of the 50 per 10 s, and a wait for `X-Rate-Limit-Reset`
 * whenever `X-Rate-Limit-Remaining` reaches 0 (teamtailor-pacing below). The job's resources and their mapping
 * onto our fields are in teamtailor-jobs.ts.
 */
import { createHash } from 'node:crypto';
import type { CompanyRecord } from '#companies/company-schema.js';
import {
  ConnectorError,
  type AtsConnector,
  type AtsCredentials,
  type OutcomeReading,
  type OutcomeRef,
  type Submission,
  type SubmissionAttachment,
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
import { candidateName, httpUrl, listAnswer, text, yesNo } from '#delivery/connectors/mapping.js';
import { includedIndex, linkages, mapTeamtailorJob, type PickedQuestion, type Resource } from '#delivery/connectors/teamtailor-jobs.js';
import { API_URL, ATTACHMENTS, PACING, teamtailorDescriptor } from '#delivery/connectors/teamtailor-descriptor.js';

const ATS = 'Teamtailor';
/**
 * The dated API version every request names: the current version the vendor's docs name
 * (github.com/Teamtailor/docs config.rb `api_version`, docs.teamtailor.com "Versioning"; P277).
 */
export const TEAMTAILOR_API_VERSION = '20161108';
const MEDIA_TYPE = 'application/vnd.api+json';
/** The NA stack's host, used for region `na` when TEAMTAILOR_API_URL is not set. */
export const TEAMTAILOR_NA_API_URL = 'https://api.na.teamtailor.com';
const MAX_PAGES = 500;
/** The longest wait for `X-Rate-Limit-Reset` (its documented period is 10 seconds). */
const MAX_RESET_SECONDS = 10;
/** Page size of the lists: Teamtailor's default is 10, its maximum 30 (docs.teamtailor.com "Pagination"). */
const pageSize = () => Number(process.env.TEAMTAILOR_PAGE_SIZE ?? 30);

type Document = { data?: unknown; included?: unknown; links?: Record<string, unknown>; meta?: unknown; errors?: unknown };

/** The base URL for these credentials: TEAMTAILOR_API_URL when set, else the region's stack. */
export function teamtailorBaseUrl(credentials: AtsCredentials): string {
  if (!process.env[API_URL.env] && credentials.region === 'na') return TEAMTAILOR_NA_API_URL;
  return atsBaseUrl(API_URL, credentials);
}

function headers(credentials: AtsCredentials, write = false): Record<string, string> {
  return {
    Authorization: `Token token=${credentials.api_key}`,
    'X-Api-Version': TEAMTAILOR_API_VERSION,
    Accept: MEDIA_TYPE,
    ...(write ? { 'Content-Type': MEDIA_TYPE } : {}),
  };
}

/** JSON:API error pointers and codes, without `detail` (which may echo candidate data). */
function errorSummary(body: unknown): { pointers: string[]; texts: string; summary: string } {
  const errors = Array.isArray((body as Document | undefined)?.errors) ? ((body as Document).errors as Record<string, unknown>[]) : [];
  const pointers = errors
    .map((e) => (e?.source as { pointer?: unknown } | undefined)?.pointer)
    .filter((p): p is string => typeof p === 'string')
    .map((p) => p.slice(0, 100));
  const texts = errors
    .map((e) => [e?.title, e?.detail, e?.code].filter((v) => typeof v === 'string').join(' '))
    .join(' | ')
    .slice(0, 1000);
  const codes = errors.map((e) => e?.code).filter((c): c is string => typeof c === 'string' && /^[\w.-]{1,40}$/.test(c));
  return { pointers, texts, summary: [...new Set([...pointers, ...codes])].join(', ') };
}

/** A Teamtailor error answer → our kind. `step` says which request it was (the application POST knows duplicates). */
function failure(response: Response, body: unknown, step: 'candidate' | 'upload' | 'answer' | 'application' | 'read'): ConnectorError {
  const status = response.status;
  const { pointers, texts, summary } = errorSummary(body);
  const at = (pattern: RegExp) => pointers.some((p) => pattern.test(p));
  const suffix = summary ? `: ${summary}` : '';
  if (status === 401)
    return new ConnectorError(
      'credentials_rejected',
      `${ATS} rejected the API key (401): a wrong or revoked key, or a key of the other region.`,
      undefined,
      'api_key',
    );
  if (status === 403)
    return new ConnectorError(
      'credentials_rejected',
      `${ATS} refused the API key for this request (403): it needs the Admin scope with read-write permission.`,
      undefined,
      'api_key',
    );
  if (status === 429)
    return new ConnectorError('rate_limited', `${ATS} is rate limiting (429).`, retryAfterSeconds(response) ?? resetSeconds(response));
  if (status >= 500) return new ConnectorError('transient', `${ATS} answered ${status}.`);
  if (step === 'application') {
    if (status === 404 || at(/^\/data\/relationships\/job/) || /job.*(not open|closed|unpublished|archived|not published)/i.test(texts))
      return new ConnectorError('job_not_published', `${ATS}: the job is unknown or not open for applications (${status}${suffix}).`);
    if (at(/^\/data\/relationships\/candidate/) && /already|taken/i.test(texts))
      return new ConnectorError('duplicate', `${ATS}: the candidate has already applied to this job (${status}).`);
  }
  if ((status === 413 || status === 422) && (at(/^\/data\/attributes\/(resume|url|file-name)/) || (step === 'upload' && status === 413)))
    return new ConnectorError('attachment_rejected', `${ATS} refused a file (${status}${suffix}).`);
  if (status === 413) return new ConnectorError('attachment_rejected', `${ATS} refused the request as too large (413).`);
  return errorForStatus(ATS, response, summary);
}

async function readDocument(response: Response, what: string): Promise<Document> {
  const body = await jsonBody(response);
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new ConnectorError('invalid_data', `${ATS} ${what} is not a JSON:API document.`);
  return body as Document;
}

/** `X-Rate-Limit-Reset`: "the number of seconds left in the current period" (docs.teamtailor.com "Rate Limit"). */
function resetSeconds(response: Response): number | undefined {
  const value = response.headers.get('x-rate-limit-reset')?.trim() ?? '';
  return /^\d+$/.test(value) ? Number(value) : undefined;
}

/**
 * Per API key (by a digest: the key itself is no map key), the time before which no request leaves: set when
 * an answer says `X-Rate-Limit-Remaining: 0`, to its `X-Rate-Limit-Reset` (at most MAX_RESET_SECONDS; P277).
 */
const resetAt = new Map<string, number>();
const keyDigest = (credentials: AtsCredentials) =>
  createHash('sha256')
    .update(`${teamtailorBaseUrl(credentials)}\u0000${credentials.api_key}`)
    .digest('base64url');

/** One request: paced by the shared bucket (PACING) and by the rate-limit headers of the key's last answer. */
async function send(credentials: AtsCredentials, url: string, init: RequestInit): Promise<Response> {
  const digest = keyDigest(credentials);
  const wait = (resetAt.get(digest) ?? 0) - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const response = await atsFetch(ATS, url, init, PACING);
  const remaining = response.headers.get('x-rate-limit-remaining')?.trim();
  const reset = resetSeconds(response);
  if (remaining === '0' && reset !== undefined) resetAt.set(digest, Date.now() + Math.min(reset, MAX_RESET_SECONDS) * 1000);
  else resetAt.delete(digest);
  return response;
}

async function get(credentials: AtsCredentials, path: string, query: Record<string, string | number>): Promise<Response> {
  return send(credentials, atsUrl(teamtailorBaseUrl(credentials), path, query), { headers: headers(credentials) });
}

// --- Jobs -------------------------------------------------------------------------------------------

type JobPage = { jobs: Resource[]; included: Map<string, Resource>; next: boolean };

async function jobPage(credentials: AtsCredentials, number: number, size: number, include = 'department,locations'): Promise<JobPage> {
  const response = await get(credentials, '/v1/jobs', {
    'filter[status]': 'published',
    'page[size]': size,
    'page[number]': number,
    ...(include ? { include } : {}),
  });
  if (!response.ok) throw failure(response, await jsonBody(response), 'read');
  const document = await readDocument(response, 'job list');
  if (!Array.isArray(document.data)) throw new ConnectorError('invalid_data', `${ATS} job list has no data array.`);
  for (const job of document.data as Resource[]) {
    if (!job || typeof job !== 'object' || job.type !== 'jobs' || (typeof job.id !== 'string' && typeof job.id !== 'number'))
      throw new ConnectorError('invalid_data', `${ATS} job list has a record that is not a job with an id.`);
  }
  const next = document.links && typeof document.links === 'object' ? document.links.next : undefined;
  return { jobs: document.data as Resource[], included: includedIndex(document.included), next: typeof next === 'string' && next !== '' };
}

/**
 * A job's picked questions with their questions, every page: the documented list `/v1/picked-questions` pages
 * at 10 by default (docs.teamtailor.com "Pagination"), so it is read at the maximum size until `links.next` is
 * gone (P277). The `filter[job]` that narrows it to the job is assumed (the docs list no filter for it).
 */
async function pickedQuestions(credentials: AtsCredentials, jobId: string): Promise<PickedQuestion[]> {
  const size = pageSize();
  const picked: PickedQuestion[] = [];
  for (let number = 1; number <= MAX_PAGES; number++) {
    const response = await get(credentials, '/v1/picked-questions', {
      'filter[job]': jobId,
      include: 'question',
      'page[size]': size,
      'page[number]': number,
    });
    if (!response.ok) throw failure(response, await jsonBody(response), 'read');
    const document = await readDocument(response, 'picked question list');
    if (!Array.isArray(document.data)) throw new ConnectorError('invalid_data', `${ATS} picked question list has no data array.`);
    const included = includedIndex(document.included);
    for (const pick of document.data as Resource[]) {
      if (!pick || typeof pick !== 'object') continue;
      const link = linkages(pick, 'question')[0];
      picked.push({ picked: pick, question: link ? included.get(`questions:${link.id}`) : undefined });
    }
    const next = document.links && typeof document.links === 'object' ? document.links.next : undefined;
    if (typeof next !== 'string' || next === '' || document.data.length === 0) return picked;
  }
  throw new ConnectorError('invalid_data', `${ATS} picked question list did not end after ${MAX_PAGES} pages.`);
}

// --- Applications -----------------------------------------------------------------------------------

/**
 * A file as the public URL Teamtailor downloads it from ("A public `url` is required for the file",
 * docs.teamtailor.com "Create a upload"): the presigned S3 GET URL of the stored object (P277), http(s) only.
 * A file above our size limit, an empty one, or one we cannot hand out by URL is `attachment_rejected` before
 * anything is sent. The URL is a credential of a sort: it goes into the request body only, never a message.
 */
async function fileUrl(attachment: SubmissionAttachment): Promise<string> {
  if (attachment.size > ATTACHMENTS.maxBytes)
    throw new ConnectorError(
      'attachment_rejected',
      `${ATS}: files go up to ${ATTACHMENTS.maxBytes} bytes; the ${attachment.type} file has ${attachment.size}.`,
    );
  if (attachment.size === 0) throw new ConnectorError('attachment_rejected', `${ATS}: the ${attachment.type} file is empty.`);
  const url = attachment.url ? await attachment.url() : undefined;
  const protocol = url && URL.canParse(url) ? new URL(url).protocol : '';
  if (protocol !== 'https:' && protocol !== 'http:')
    throw new ConnectorError('attachment_rejected', `${ATS} takes files by URL only; the ${attachment.type} file has no http(s) URL.`);
  return url!;
}

/** A choice's value: the alternative's id, a number where it is one (the documented example sends `[3, 4]`). */
const choice = (value: string) => (/^\d{1,15}$/.test(value) ? Number(value) : value);

/**
 * One screening answer → the typed attribute of Teamtailor's answer (docs.teamtailor.com "Answers": `boolean`,
 * `choices`, `range` (integer), `text`; there is no `number` or `date`, P277). A number that is no integer and a
 * date go as `text`, the candidate's words kept.
 */
function answerAttributes(answer: Record<string, string>): Record<string, unknown> {
  const value = String(answer.answer ?? '');
  switch (answer.answer_type) {
    case 'boolean':
      return { boolean: yesNo(value) === true };
    case 'number':
      return /^-?\d{1,15}$/.test(value.trim()) ? { range: Number(value.trim()) } : { text: value };
    case 'single_select':
    case 'multi_select':
      return { choices: listAnswer(value).map(choice) };
    default:
      return { text: value };
  }
}

/** The JSON:API documents of an application, in the order they are sent (exported for the tests). */
export async function teamtailorApplicationDocuments(submission: Submission) {
  const name = candidateName(submission.candidate);
  const phone = text(submission.candidate.phone);
  const resume = submission.attachments.find((a) => a.type === 'cv');
  const linkedin = Object.entries(submission.socialLinks).find(([platform, url]) => /linkedin/i.test(platform) && httpUrl(url));
  const candidate = {
    data: {
      type: 'candidates',
      attributes: {
        'first-name': name.first,
        'last-name': name.last,
        email: String(submission.candidate.email ?? ''),
        ...(phone ? { phone } : {}),
        ...(linkedin ? { 'linkedin-url': linkedin[1] } : {}),
        ...(resume ? { resume: await fileUrl(resume) } : {}),
        merge: true,
      },
    },
  };
  const uploads: { attributes: Record<string, unknown> }[] = [];
  for (const attachment of submission.attachments) {
    if (attachment === resume) continue;
    uploads.push({ attributes: { url: await fileUrl(attachment), 'file-name': attachment.name, internal: false } });
  }
  const answers = submission.screeningAnswers
    .filter((a) => /^\d+$/.test(String(a.id ?? '')) && a.answer_type !== 'file')
    .map((a) => ({ question: String(a.id), attributes: answerAttributes(a) }));
  const notes = text(submission.notes);
  const application = { attributes: { sourced: false, ...(notes ? { 'cover-letter': notes } : {}) } };
  return { candidate, uploads, answers, application };
}

async function post(credentials: AtsCredentials, path: string, document: unknown, step: Parameters<typeof failure>[2]): Promise<Resource> {
  const response = await send(credentials, atsUrl(teamtailorBaseUrl(credentials), path), {
    method: 'POST',
    headers: headers(credentials, true),
    body: JSON.stringify(document),
  });
  const body = await jsonBody(response);
  if (!response.ok) throw failure(response, body, step);
  const data = (body as Document | undefined)?.data as Resource | undefined;
  if (!data || typeof data !== 'object' || (typeof data.id !== 'string' && typeof data.id !== 'number'))
    throw new ConnectorError('transient', `${ATS} answered ${response.status} without the created record's id.`);
  return data;
}

const rel = (type: string, id: string) => ({ data: { type, id } });

// --- Outcomes (D21, P301) ------------------------------------------------------------------------------

/**
 * A job application with its stage and reject reason → our outcome (docs/connectors/teamtailor.md, "Outcomes";
 * https://docs.teamtailor.com/#job-applications, #stages, #reject-reasons): `rejected-at` set is REJECTED, or
 * WITHDRAWN when the reject reason is not the company's (`rejected-by-company: false`); a stage of `stage-type`
 * `Hired` is HIRED; any other stage PENDING. `stage` is the stage's name.
 */
export function teamtailorOutcome(application: Resource, included: Map<string, Resource>): OutcomeReading {
  const related = (name: string) => {
    const link = linkages(application, name)[0];
    return link ? included.get(`${link.type}:${link.id}`) : undefined;
  };
  const stage = related('stage');
  const name = text(stage?.attributes?.name);
  if (text(application.attributes?.['rejected-at'])) {
    const byCompany = related('reject-reason')?.attributes?.['rejected-by-company'];
    return { outcome: byCompany === false ? 'WITHDRAWN' : 'REJECTED', stage: name };
  }
  if (stage?.attributes?.['stage-type'] === 'Hired') return { outcome: 'HIRED', stage: name };
  return { outcome: 'PENDING', stage: name };
}

async function readJobApplication(ref: OutcomeRef, credentials: AtsCredentials): Promise<OutcomeReading> {
  const response = await get(credentials, `/v1/job-applications/${segment(ref.externalId)}`, { include: 'stage,reject-reason' });
  if (response.status === 404) {
    await response.arrayBuffer().catch(() => undefined);
    throw new ConnectorError('invalid_data', `${ATS} no longer has the job application (404).`);
  }
  if (!response.ok) throw failure(response, await jsonBody(response), 'read');
  const document = await readDocument(response, 'job application');
  const data = document.data as Resource | undefined;
  if (!data || typeof data !== 'object' || Array.isArray(data) || data.type !== 'job-applications')
    throw new ConnectorError('invalid_data', `${ATS} answered the job application read without a job application.`);
  return teamtailorOutcome(data, includedIndex(document.included));
}

export const teamtailorConnector: AtsConnector = {
  ...teamtailorDescriptor,

  async listPublishedJobs(_company: CompanyRecord, credentials: AtsCredentials) {
    const size = pageSize();
    const listed: { job: Resource; included: Map<string, Resource> }[] = [];
    for (let number = 1; number <= MAX_PAGES; number++) {
      const page = await jobPage(credentials, number, size);
      for (const job of page.jobs) listed.push({ job, included: page.included });
      if (!page.next || page.jobs.length === 0) {
        return mapLimited(listed, PACING.importConcurrency, async ({ job, included }) =>
          mapTeamtailorJob(job, included, await pickedQuestions(credentials, String(job.id))),
        );
      }
    }
    throw new ConnectorError('invalid_data', `${ATS} job list did not end after ${MAX_PAGES} pages.`);
  },

  async submitApplication(submission: Submission, credentials: AtsCredentials) {
    // Every file is read and checked before anything is created in Teamtailor.
    const documents = await teamtailorApplicationDocuments(submission);
    // merge: true makes a retry (or a second application of the same person) find the same candidate.
    const candidate = await post(credentials, '/v1/candidates', documents.candidate, 'candidate');
    const candidateId = String(candidate.id);
    for (const upload of documents.uploads)
      await post(
        credentials,
        '/v1/uploads',
        {
          data: {
            type: 'uploads',
            ...upload,
            // `job`: "The job for which this upload was created" (docs.teamtailor.com "Uploads").
            relationships: { candidate: rel('candidates', candidateId), job: rel('jobs', submission.jobExternalId) },
          },
        },
        'upload',
      );
    for (const answer of documents.answers)
      await post(
        credentials,
        '/v1/answers',
        {
          data: {
            type: 'answers',
            attributes: answer.attributes,
            relationships: { candidate: rel('candidates', candidateId), question: rel('questions', answer.question) },
          },
        },
        'answer',
      );
    const application = await post(
      credentials,
      '/v1/job-applications',
      {
        data: {
          type: 'job-applications',
          ...documents.application,
          relationships: { candidate: rel('candidates', candidateId), job: rel('jobs', submission.jobExternalId) },
        },
      },
      'application',
    );
    return { externalId: String(application.id) };
  },

  async validateCredentials(credentials: AtsCredentials) {
    // The key and the stack: any key that reads jobs (a key of the other region is 401 here).
    await jobPage(credentials, 1, 1, '');
    // The scope: only an Admin key reads candidates (403 otherwise). Both are reads: nothing is created.
    const response = await get(credentials, '/v1/candidates', { 'page[size]': 1 });
    if (!response.ok) throw failure(response, await jsonBody(response), 'read');
    await response.arrayBuffer().catch(() => undefined);
  },

  readOutcome: (ref: OutcomeRef, credentials: AtsCredentials) => readJobApplication(ref, credentials),
};
