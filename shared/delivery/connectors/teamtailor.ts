/**
 * Teamtailor API v1 (JSON:API; docs/connectors/teamtailor.md). Every request carries
 * `Authorization: Token token=<key>`, a dated `X-Api-Version` and `application/vnd.api+json`.
 * Jobs: `GET /v1/jobs?filter[status]=published&include=department,locations` page by page
 * (`page[size]`/`page[number]` until `links.next` is gone), then each job's picked questions
 * (`GET /v1/jobs/{id}/picked-questions?include=question`). Applications: the candidate first
 * (`POST /v1/candidates` with `merge: true`, the CV as the `resume` attribute), then the other files
 * (`POST /v1/uploads`), the screening answers (`POST /v1/answers`) and last the job application that links
 * the candidate to the job (`POST /v1/job-applications`), whose id is the application's `external_id`.
 * Teamtailor takes files by URL only: they go as `data:` URIs (an assumption the document records).
 * The job's resources and their mapping onto our fields are in teamtailor-jobs.ts.
 */
import type { CompanyRecord } from '#companies/company-schema.js';
import type { JobInput } from '#jobs/job-schema.js';
import {
  ConnectorError,
  type AtsConnector,
  type AtsCredentials,
  type Submission,
  type SubmissionAttachment,
} from '#delivery/connectors/connector.js';
import {
  atsBaseUrl,
  atsFetch,
  atsUrl,
  attachmentBytes,
  errorForStatus,
  jsonBody,
  mapLimited,
  retryAfterSeconds,
  segment,
} from '#delivery/connectors/http.js';
import { candidateName, httpUrl, listAnswer, text, yesNo } from '#delivery/connectors/mapping.js';
import { includedIndex, linkages, mapTeamtailorJob, type PickedQuestion, type Resource } from '#delivery/connectors/teamtailor-jobs.js';
import { API_URL, ATTACHMENTS, PACING, teamtailorDescriptor } from '#delivery/connectors/teamtailor-descriptor.js';
export { TEAMTAILOR_FILE_EXTENSIONS } from '#delivery/connectors/teamtailor-descriptor.js';

const ATS = 'Teamtailor';
/** The dated API version every request names (Teamtailor answers in that version's format). */
export const TEAMTAILOR_API_VERSION = '20240404';
const MEDIA_TYPE = 'application/vnd.api+json';
/** The NA stack's host, used for region `na` when TEAMTAILOR_API_URL is not set. */
export const TEAMTAILOR_NA_API_URL = 'https://api.na.teamtailor.com';
const MAX_PAGES = 500;
/** Page size of the job list: Teamtailor's maximum is 30. */
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
  if (status === 429) {
    const reset = Number(response.headers.get('x-rate-limit-reset'));
    // X-Rate-Limit-Reset: seconds until the window resets (an epoch second is also understood).
    const fromReset =
      Number.isFinite(reset) && reset > 0
        ? reset > 1e9
          ? Math.max(0, Math.ceil(reset - Date.now() / 1000))
          : Math.ceil(reset)
        : undefined;
    return new ConnectorError('rate_limited', `${ATS} is rate limiting (429).`, retryAfterSeconds(response) ?? fromReset);
  }
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

async function get(credentials: AtsCredentials, path: string, query: Record<string, string | number>): Promise<Response> {
  return atsFetch(ATS, atsUrl(teamtailorBaseUrl(credentials), path, query), { headers: headers(credentials) }, PACING);
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

/** A job's picked questions with their questions; undefined when the job is gone (404) since the list read. */
async function pickedQuestions(credentials: AtsCredentials, jobId: string): Promise<PickedQuestion[] | undefined> {
  const response = await get(credentials, `/v1/jobs/${segment(jobId)}/picked-questions`, { include: 'question' });
  if (response.status === 404) return undefined;
  if (!response.ok) throw failure(response, await jsonBody(response), 'read');
  const document = await readDocument(response, 'picked question list');
  if (!Array.isArray(document.data)) throw new ConnectorError('invalid_data', `${ATS} picked question list has no data array.`);
  const included = includedIndex(document.included);
  return (document.data as Resource[])
    .filter((p) => p && typeof p === 'object')
    .map((picked) => {
      const link = linkages(picked, 'question')[0];
      return { picked, question: link ? included.get(`questions:${link.id}`) : undefined };
    });
}

// --- Applications -----------------------------------------------------------------------------------

/** A file as an RFC 2397 `data:` URI (Teamtailor takes files by URL only). Empty files are refused. */
async function dataUri(attachment: SubmissionAttachment): Promise<string> {
  const bytes = await attachmentBytes(ATS, attachment, ATTACHMENTS);
  if (bytes.length === 0) throw new ConnectorError('attachment_rejected', `${ATS}: the ${attachment.type} file is empty.`);
  const type = /^[\w.+-]+\/[\w.+-]+$/.test(attachment.content_type) ? attachment.content_type : 'application/octet-stream';
  return `data:${type};base64,${bytes.toString('base64')}`;
}

/** One screening answer → the typed attribute of Teamtailor's answer, by our answer type. */
function answerAttributes(answer: Record<string, string>): Record<string, unknown> {
  const value = String(answer.answer ?? '');
  switch (answer.answer_type) {
    case 'boolean':
      return { boolean: yesNo(value) === true };
    case 'number':
      return /^-?\d+(\.\d+)?$/.test(value.trim()) ? { number: Number(value.trim()) } : { text: value };
    case 'date':
      return { date: value.trim() };
    case 'single_select':
    case 'multi_select':
      return {
        choices: listAnswer(value),
      };
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
        ...(resume ? { resume: await dataUri(resume) } : {}),
        sourced: false,
        merge: true,
      },
    },
  };
  const uploads: { attributes: Record<string, unknown> }[] = [];
  for (const attachment of submission.attachments) {
    if (attachment === resume) continue;
    uploads.push({ attributes: { url: await dataUri(attachment), 'file-name': attachment.name, internal: false } });
  }
  const answers = submission.screeningAnswers
    .filter((a) => /^\d+$/.test(String(a.id ?? '')) && a.answer_type !== 'file')
    .map((a) => ({ question: String(a.id), attributes: answerAttributes(a) }));
  const notes = text(submission.notes);
  const application = { attributes: { sourced: false, ...(notes ? { 'cover-letter': notes } : {}) } };
  return { candidate, uploads, answers, application };
}

async function post(credentials: AtsCredentials, path: string, document: unknown, step: Parameters<typeof failure>[2]): Promise<Resource> {
  const response = await atsFetch(
    ATS,
    atsUrl(teamtailorBaseUrl(credentials), path),
    { method: 'POST', headers: headers(credentials, true), body: JSON.stringify(document) },
    PACING,
  );
  const body = await jsonBody(response);
  if (!response.ok) throw failure(response, body, step);
  const data = (body as Document | undefined)?.data as Resource | undefined;
  if (!data || typeof data !== 'object' || (typeof data.id !== 'string' && typeof data.id !== 'number'))
    throw new ConnectorError('transient', `${ATS} answered ${response.status} without the created record's id.`);
  return data;
}

const rel = (type: string, id: string) => ({ data: { type, id } });

export const teamtailorConnector: AtsConnector = {
  ...teamtailorDescriptor,

  async listPublishedJobs(_company: CompanyRecord, credentials: AtsCredentials) {
    const size = pageSize();
    const listed: { job: Resource; included: Map<string, Resource> }[] = [];
    for (let number = 1; number <= MAX_PAGES; number++) {
      const page = await jobPage(credentials, number, size);
      for (const job of page.jobs) listed.push({ job, included: page.included });
      if (!page.next || page.jobs.length === 0) {
        const mapped = await mapLimited(listed, PACING.importConcurrency, async ({ job, included }) => {
          const picked = await pickedQuestions(credentials, String(job.id));
          // Gone between the list and this read: it is not published any more.
          return picked === undefined ? undefined : mapTeamtailorJob(job, included, picked);
        });
        return mapped.filter((job): job is JobInput => job !== undefined);
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
        { data: { type: 'uploads', ...upload, relationships: { candidate: rel('candidates', candidateId) } } },
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
};
