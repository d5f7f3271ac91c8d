/**
 * Lever Postings API (docs/connectors/lever.md; https://github.com/lever/postings-api/blob/master/README.md).
 * Jobs: `GET /v0/postings/{site}?mode=json&skip=&limit=` until a short page. Applications: multipart POST to
 * the posting with the `resume` file part (the only file Lever takes: a second CV or another file is
 * `attachment_rejected`, P281) and the API key as the `key` query parameter. Lever answers 429 above 2 application POSTs per second per key, so the
 * connector paces its POSTs per key (in this process) and retries a 429 with backoff. Lever merges
 * candidates by e-mail: it has no duplicate error.
 */
import { createHash } from 'node:crypto';
import type { CompanyRecord } from '#companies/company-schema.js';
import type { JobInput } from '#jobs/job-schema.js';
import { ConnectorError, type AtsConnector, type AtsCredentials, type Submission } from '#delivery/connectors/connector.js';
import {
  atsBaseUrl,
  atsFetch,
  atsUrl,
  attachmentBytes,
  errorForStatus,
  jsonBody,
  retryAfterSeconds,
  segment,
} from '#delivery/connectors/http.js';
import { candidateName, categoryFrom, commitmentSchedule, commitmentType, httpUrl, text } from '#delivery/connectors/mapping.js';
import { API_URL, ATTACHMENTS, leverDescriptor } from '#delivery/connectors/lever-descriptor.js';
import { leverWebhooks } from '#delivery/connectors/lever-webhooks.js';

const ATS = 'Lever';
const MAX_PAGES = 200;

const pageSize = () => Number(process.env.LEVER_PAGE_SIZE ?? 100);
/** Minimum spacing of application POSTs per key: Lever allows 2 per second; 600 ms leaves room for jitter. */
const minIntervalMs = () => Number(process.env.LEVER_MIN_INTERVAL_MS ?? 600);
const retryBaseMs = () => Number(process.env.LEVER_RETRY_BASE_MS ?? 1000);
const maxRetries = () => Number(process.env.LEVER_MAX_RETRIES ?? 3);

type Posting = Record<string, unknown> & {
  id?: unknown;
  categories?: { location?: unknown; commitment?: unknown; team?: unknown; department?: unknown };
  lists?: { text?: unknown; content?: unknown }[];
  salaryRange?: { currency?: unknown; interval?: unknown; min?: unknown; max?: unknown } | null;
};

const WORKPLACE: Record<string, JobInput['remote']> = { remote: 'remote', hybrid: 'hybrid', 'on-site': 'on-site' };
const INTERVALS: Record<string, string> = {
  'per-year-salary': 'annual',
  'per-month-salary': 'monthly',
  'per-week-salary': 'weekly',
  'per-day-wage': 'daily',
  'per-hour-wage': 'hourly',
  'one-time': 'one_time',
};

const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** One posting → our Job fields (docs/connectors/lever.md has the table). */
export function mapLeverPosting(posting: Posting): JobInput {
  const location = text(posting.categories?.location);
  const commitment = text(posting.categories?.commitment);
  const description = typeof posting.description === 'string' ? posting.description : null;
  const additional = typeof posting.additional === 'string' && posting.additional ? posting.additional : null;
  const lists = (posting.lists ?? []).filter((l) => l && typeof l.content === 'string');
  const sections = [
    ...(description ? [{ id: 'description', type: 'html', title: 'Description', content: description }] : []),
    ...lists.map((l, i) => ({ id: `list-${i + 1}`, type: 'html', title: text(l.text) ?? '', content: `<ul>${String(l.content)}</ul>` })),
    ...(additional ? [{ id: 'additional', type: 'html', title: 'Additional information', content: additional }] : []),
  ].map((s, i) => ({ ...s, order: i + 1 }));
  const salary = posting.salaryRange ?? null;
  const interval = text(salary?.interval);
  return {
    external_id: String(posting.id),
    title: text(posting.text),
    description: sections.length
      ? sections.map((s) => (s.id === 'description' ? s.content : `<h3>${s.title}</h3>\n${s.content}`)).join('\n')
      : null,
    description_sections: sections,
    posting_url: httpUrl(posting.hostedUrl),
    application_url: httpUrl(posting.applyUrl),
    location_name: location,
    city: location && !/remote/i.test(location) ? (location.split(',')[0]?.trim() ?? null) : null,
    country: text(posting.country),
    remote:
      typeof posting.workplaceType === 'string' && Object.hasOwn(WORKPLACE, posting.workplaceType)
        ? WORKPLACE[posting.workplaceType]
        : null,
    employment_type: commitment ? commitmentType(commitment) : null,
    work_schedule: commitment ? commitmentSchedule(commitment) : null,
    category: categoryFrom(posting.categories?.department, posting.categories?.team),
    salary_from: num(salary?.min),
    salary_to: num(salary?.max),
    salary_currency: text(salary?.currency),
    salary_frequency: interval ? (Object.hasOwn(INTERVALS, interval) ? INTERVALS[interval] : interval) : null,
    custom_fields: {
      ...(text(posting.categories?.team) ? { team: text(posting.categories?.team) } : {}),
      ...(text(posting.categories?.department) ? { department: text(posting.categories?.department) } : {}),
    },
    raw_values: posting,
    import_source: 'api',
  };
}

function postingsUrl(credentials: AtsCredentials, path = '', query: Record<string, string | number> = {}) {
  return atsUrl(atsBaseUrl(API_URL), `/v0/postings/${segment(credentials.site)}${path}`, query);
}

async function listPage(credentials: AtsCredentials, skip: number, limit: number): Promise<Posting[]> {
  const response = await atsFetch(ATS, postingsUrl(credentials, '', { mode: 'json', skip, limit }), {
    headers: { Accept: 'application/json' },
  });
  if (response.status === 404)
    throw new ConnectorError('credentials_rejected', `${ATS} knows no site with that name (404).`, undefined, 'site');
  if (!response.ok) throw errorForStatus(ATS, response);
  const body = await jsonBody(response);
  if (!Array.isArray(body)) throw new ConnectorError('invalid_data', `${ATS} postings list is not a JSON array.`);
  for (const posting of body as Posting[]) {
    if (!posting || typeof posting !== 'object' || (typeof posting.id !== 'string' && typeof posting.id !== 'number'))
      throw new ConnectorError('invalid_data', `${ATS} postings list has a posting without an id.`);
  }
  return body as Posting[];
}

// Pacing: the earliest time the next application POST may go out, per key (keyed by the key's hash).
const nextSlot = new Map<string, number>();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reserves the next POST slot for a key: how long to wait before sending (exported for the tests). */
export function reservePostSlot(key: string, now = Date.now(), interval = minIntervalMs()): number {
  const id = createHash('sha256').update(key).digest('hex');
  const slot = Math.max(now, nextSlot.get(id) ?? 0);
  nextSlot.set(id, slot + interval);
  return slot - now;
}

async function paced(key: string): Promise<void> {
  const wait = reservePostSlot(key);
  if (wait > 0) await sleep(wait);
}

/** Lever's README, "Apply to a job posting": the fields of the application POST (P281). */
export const LEVER_README = 'https://github.com/lever/postings-api/blob/master/README.md#apply-to-a-job-posting';
const DOCUMENTED_FIELDS = ['name', 'email', 'resume', 'phone', 'org', 'urls', 'comments', 'silent', 'source', 'ip', 'timezone'];

/**
 * The one file Lever's apply endpoint takes is `resume` ("Should be a file", multipart only; LEVER_README).
 * A second CV or any other file has no documented field: the application is refused here, before a byte
 * is read or sent, as `attachment_rejected` (P210, P281), and the e-mail fallback carries every file.
 */
function resumeOf(submission: Submission): Submission['attachments'][number] | undefined {
  const cvs = submission.attachments.filter((a) => a.type === 'cv');
  if (cvs.length > 1)
    throw new ConnectorError(
      'attachment_rejected',
      `${ATS}'s Postings API takes one résumé (the \`resume\` file); the application has ${cvs.length} CVs.`,
    );
  const other = submission.attachments.find((a) => a.type !== 'cv');
  if (other)
    throw new ConnectorError(
      'attachment_rejected',
      `${ATS}'s Postings API takes only the résumé as a file; it has no field for the ${other.type} file.`,
    );
  return cvs[0];
}

/** The multipart body of an application (exported for the tests). */
export async function leverApplicationForm(submission: Submission): Promise<FormData> {
  const resume = resumeOf(submission);
  const name = candidateName(submission.candidate);
  const form = new FormData();
  form.append('name', name.full);
  form.append('email', String(submission.candidate.email ?? ''));
  const phone = text(submission.candidate.phone);
  if (phone) form.append('phone', phone);
  for (const [platform, url] of Object.entries(submission.socialLinks)) {
    if (httpUrl(url)) form.append(`urls[${platform.replace(/[[\]]/g, '')}]`, url);
  }
  // Lever's postings API has no field for free answers ("does not expose custom questions"); they go to
  // `comments` ("Additional information from the candidate"), one per line.
  const comments = [
    ...submission.screeningAnswers.map((a) => `${a.question ?? a.id}: ${a.answer ?? ''}`),
    ...(submission.notes ? [submission.notes] : []),
  ];
  if (comments.length) form.append('comments', comments.join('\n'));
  if (submission.source) form.append('source', submission.source);
  if (resume) {
    const bytes = await attachmentBytes(ATS, resume, ATTACHMENTS);
    form.append('resume', new Blob([bytes], { type: resume.content_type }), resume.name);
  }
  return form;
}

/**
 * What of Lever's `{ok: false, error}` text may go into a message: only the documented field names it
 * mentions. The text itself can echo what the candidate typed (an e-mail address, a name), so it never
 * goes into `failure_error` or a log.
 */
function mentioned(message: string): string {
  const fields = DOCUMENTED_FIELDS.filter((f) => new RegExp(`\\b${f}\\b`, 'i').test(message));
  return fields.length ? `; Lever's message names ${fields.map((f) => `\`${f}\``).join(', ')}` : '';
}

function failure(response: Response, body: unknown): ConnectorError {
  const message = typeof (body as { error?: unknown })?.error === 'string' ? String((body as { error: string }).error) : '';
  const status = response.status;
  const about = `${status}${mentioned(message)}`;
  // The key first: "API key not found" is about the key, not the posting.
  if (status === 401 || status === 403 || (status < 500 && /api key|\bkey\b|unauthori[sz]ed|forbidden/i.test(message)))
    return new ConnectorError('credentials_rejected', `${ATS} rejected the API key (${status}).`);
  if (status === 404 || (status < 500 && /posting|not found|closed|no longer|unpublished|not accepting/i.test(message)))
    return new ConnectorError('job_not_published', `${ATS}: the posting is unknown or closed (${status}).`);
  // Lever documents no file error; a 413, or a refusal that names the résumé or a file, is the file (P281).
  if (status === 413 || (status !== 429 && status < 500 && /\bresume\b|\bfile\b/i.test(message)))
    return new ConnectorError('attachment_rejected', `${ATS} refused the résumé file (${about}).`);
  if (status >= 200 && status < 300) return new ConnectorError('invalid_data', `${ATS} refused the application (${about}).`);
  return errorForStatus(ATS, response, mentioned(message).replace(/^; /, ''));
}

export const leverConnector: AtsConnector = {
  ...leverDescriptor,
  outcomeWebhooks: leverWebhooks,

  async listPublishedJobs(_company: CompanyRecord, credentials: AtsCredentials) {
    const limit = pageSize();
    const postings: Posting[] = [];
    for (let page = 0; page < MAX_PAGES; page++) {
      const batch = await listPage(credentials, page * limit, limit);
      postings.push(...batch);
      if (batch.length < limit) return postings.map(mapLeverPosting);
    }
    throw new ConnectorError('invalid_data', `${ATS} postings list did not end after ${MAX_PAGES} pages.`);
  },

  async submitApplication(submission: Submission, credentials: AtsCredentials) {
    const form = await leverApplicationForm(submission);
    const url = postingsUrl(credentials, `/${segment(submission.jobExternalId)}`, { key: credentials.api_key });
    for (let attempt = 0; ; attempt++) {
      await paced(credentials.api_key);
      const response = await atsFetch(ATS, url, { method: 'POST', body: form, headers: { Accept: 'application/json' } });
      const body = await jsonBody(response);
      if (response.status === 429) {
        if (attempt >= maxRetries()) throw errorForStatus(ATS, response);
        const wait = Math.max((retryAfterSeconds(response) ?? 0) * 1000, retryBaseMs() * 2 ** attempt);
        await sleep(wait);
        continue;
      }
      const answer = body as { ok?: unknown; applicationId?: unknown } | undefined;
      if (response.ok && answer?.ok === true) return { externalId: text(answer.applicationId) };
      throw failure(response, body);
    }
  },

  async validateCredentials(credentials: AtsCredentials) {
    // One posting of the site proves the site name; the API key is only used by the application POST,
    // which no check can make without creating a candidate.
    await listPage(credentials, 0, 1);
  },
};
