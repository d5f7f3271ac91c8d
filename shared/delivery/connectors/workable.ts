/**
 * Workable SPI v3 (docs/connectors/workable.md). Jobs: `GET /spi/v3/jobs?state=published` with the
 * description fields, following `paging.next`, then each job's `GET /jobs/{shortcode}/application_form` for
 * its questions and form fields. Applications: JSON `POST /jobs/{shortcode}/candidates` with
 * `"sourced": false` at the root (an applicant, who gets Workable's "thank you for applying" e-mail; the
 * default since v3 is an uploaded candidate who gets none), the résumé Base64 in `candidate.resume`, a text
 * cover letter as the text `candidate.cover_letter` (P278), other files as answers to the job's file questions.
 * Auth: `Authorization: Bearer <token>`. Pacing (P278) is ahead of the documented limit
 * (https://workable.readme.io/docs/rate-limits: 10 requests per 10 s for an account token, 50 for OAuth and
 * partner tokens, `X-Rate-Limit-Limit/-Remaining/-Reset` on every answer): per token at most
 * `X-Rate-Limit-Limit` (10 until an answer says otherwise) requests leave in any rolling interval, and when
 * `X-Rate-Limit-Remaining` reaches 0 the next request waits until `X-Rate-Limit-Reset`; a 429 is still
 * `rate_limited` with the reset as `retryAfterSeconds`. The job and form shapes, their mapping onto our fields
 * and the form read back for a submission are in workable-jobs.ts.
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
  type SubmissionAttachment,
} from '#delivery/connectors/connector.js';
import { atsBaseUrl, atsFetch, atsUrl, attachmentBytes, jsonBody, mapLimited, pace, segment } from '#delivery/connectors/http.js';
import { candidateName, httpUrl, text } from '#delivery/connectors/mapping.js';
import { holdUntil, noteRateLimit, resetAt, secondsUntil, settleSlot, tokenId, waitForSlot } from '#delivery/connectors/workable-pacing.js';
import {
  answerFor,
  FILE_QUESTION,
  formLimits,
  mapWorkableJob,
  type FormField,
  type Question,
  type WorkableForm,
  type WorkableJob,
} from '#delivery/connectors/workable-jobs.js';
import { API_URL, ATTACHMENTS, PACING, workableDescriptor } from '#delivery/connectors/workable-descriptor.js';
export { WORKABLE_FILE_EXTENSIONS, WORKABLE_MAX_FILE_BYTES } from '#delivery/connectors/workable-descriptor.js';

const ATS = 'Workable';
const MAX_PAGES = 500;
const PAGE_SIZE = 100;

/** The longest wait for a rate-limit interval inside one call; longer, the call is `rate_limited` instead. */
const maxWaitMs = () => Number(process.env.WORKABLE_MAX_WAIT_MS ?? 15_000);
/** The same for a submission: the sync worker's 30 s budget is better spent by retrying later. */
const submitMaxWaitMs = () => Number(process.env.WORKABLE_SUBMIT_MAX_WAIT_MS ?? 5_000);
/** How often a read that met a 429 is retried after waiting for the reset. */
const readRetries = () => Number(process.env.WORKABLE_READ_RETRIES ?? 2);

// ---------------------------------------------------------------------------------------------------------
// Requests: Bearer auth, the per-token pacing (workable-pacing.ts), and the error mapping.

export { resetAt };

function headers(credentials: AtsCredentials, json = false): Record<string, string> {
  return {
    Authorization: `Bearer ${credentials.token}`,
    Accept: 'application/json',
    ...(json ? { 'Content-Type': 'application/json' } : {}),
  };
}

async function send(credentials: AtsCredentials, url: string, init: RequestInit, cap = maxWaitMs()): Promise<Response> {
  const id = tokenId(credentials);
  // The process-wide bucket first, then the token's window, so that a slot is booked when the request leaves.
  await pace(ATS, PACING);
  const booked = await waitForSlot(id, cap);
  let response: Response;
  try {
    response = await atsFetch(ATS, url, init);
  } finally {
    settleSlot(id, booked);
  }
  noteRateLimit(id, response);
  return response;
}

/** A read: a 429 waits for the reset (when it is near) and tries again, a few times. */
async function read(credentials: AtsCredentials, url: string, cap = maxWaitMs()): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const response = await send(credentials, url, { headers: headers(credentials) }, cap);
    if (response.status !== 429) return response;
    await response.arrayBuffer().catch(() => undefined);
    const at = resetAt(response);
    const wait = (at ?? Date.now() + secondsUntil(undefined, response) * 1000) - Date.now();
    if (attempt >= readRetries() || wait > cap) throw rateLimited(response, at);
    holdUntil(tokenId(credentials), Date.now() + Math.max(wait, 0));
  }
}

function rateLimited(response: Response, at = resetAt(response)): ConnectorError {
  return new ConnectorError('rate_limited', `${ATS} is rate limiting (429).`, secondsUntil(at, response));
}

/** Workable's error text (`{"error": "…"}`, or `{"errors": …}`), cut short; never echoes the request. */
function errorText(body: unknown): string {
  if (!body || typeof body !== 'object') return '';
  const record = body as Record<string, unknown>;
  const parts: string[] = [];
  for (const name of ['error', 'message', 'detail']) if (typeof record[name] === 'string') parts.push(record[name] as string);
  const errors = record.errors;
  if (Array.isArray(errors))
    for (const e of errors) parts.push(typeof e === 'string' ? e : (text((e as { message?: unknown })?.message) ?? ''));
  else if (errors && typeof errors === 'object')
    for (const [field, value] of Object.entries(errors)) parts.push(`${field} ${Array.isArray(value) ? value.join(', ') : String(value)}`);
  // Never personal data in our messages: an e-mail address Workable might echo is masked.
  return parts
    .filter(Boolean)
    .join('; ')
    .replace(/[^\s@"'<>]+@[^\s@"'<>]+/g, '[e-mail]')
    .slice(0, 200);
}

/** The status mapping every Workable call shares (the submission adds duplicates, closed jobs and files). */
function failure(response: Response, body: unknown, what: string): ConnectorError {
  const status = response.status;
  const detail = errorText(body);
  const suffix = detail ? `: ${detail}` : '.';
  if (status === 429) return rateLimited(response);
  if (status === 401) return new ConnectorError('credentials_rejected', `${ATS} rejected the token (401)${suffix}`, undefined, 'token');
  if (status === 403)
    return new ConnectorError('credentials_rejected', `${ATS} refused the token's access to ${what} (403)${suffix}`, undefined, 'token');
  if (status >= 500) return new ConnectorError('transient', `${ATS} answered ${status}${suffix}`);
  return new ConnectorError('invalid_data', `${ATS} refused ${what} (${status})${suffix}`);
}

// ---------------------------------------------------------------------------------------------------------
// Jobs.

function apiUrl(credentials: AtsCredentials, path: string, query: Record<string, string | number> = {}) {
  return atsUrl(atsBaseUrl(API_URL, credentials), `/spi/v3${path}`, query);
}

async function readObject(response: Response, what: string): Promise<Record<string, unknown>> {
  const body = await jsonBody(response);
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new ConnectorError('invalid_data', `${ATS} ${what} is not a JSON object.`);
  return body as Record<string, unknown>;
}

/** `paging.next` only while it stays on the API's own origin (the token goes with it). */
function nextPage(body: Record<string, unknown>, base: string): string | null {
  const next = (body.paging as { next?: unknown } | undefined)?.next;
  if (next === undefined || next === null || next === '') return null;
  if (typeof next !== 'string') throw new ConnectorError('invalid_data', `${ATS} job list has a malformed paging.next.`);
  let url: URL;
  try {
    url = new URL(next, base);
  } catch {
    throw new ConnectorError('invalid_data', `${ATS} job list has a malformed paging.next.`);
  }
  if (url.origin !== new URL(base).origin) throw new ConnectorError('invalid_data', `${ATS} job list pages to another host.`);
  return url.toString();
}

/** One page of the job list; 404 means the subdomain has no Workable account. */
async function listPage(credentials: AtsCredentials, url: string): Promise<{ jobs: WorkableJob[]; next: string | null }> {
  const response = await read(credentials, url);
  if (response.status === 404)
    throw new ConnectorError('credentials_rejected', `${ATS} knows no account at that subdomain (404).`, undefined, 'subdomain');
  if (!response.ok) throw failure(response, await jsonBody(response), 'the job list');
  const body = await readObject(response, 'job list');
  if (!Array.isArray(body.jobs)) throw new ConnectorError('invalid_data', `${ATS} job list has no jobs array.`);
  for (const job of body.jobs as unknown[]) {
    if (!job || typeof job !== 'object' || !text((job as WorkableJob).shortcode))
      throw new ConnectorError('invalid_data', `${ATS} job list has a job without a shortcode.`);
  }
  return { jobs: body.jobs as WorkableJob[], next: nextPage(body, atsBaseUrl(API_URL, credentials)) };
}

/** A job's application form; undefined when the job is gone (404). */
async function applicationForm(credentials: AtsCredentials, shortcode: string, cap = maxWaitMs()): Promise<WorkableForm | undefined> {
  const response = await read(credentials, apiUrl(credentials, `/jobs/${segment(shortcode)}/application_form`), cap);
  if (response.status === 404) return undefined;
  if (!response.ok) throw failure(response, await jsonBody(response), 'the application form');
  const body = await readObject(response, 'application form');
  const formFields = body.form_fields ?? [];
  const questions = body.questions ?? [];
  if (!Array.isArray(formFields) || !Array.isArray(questions))
    throw new ConnectorError('invalid_data', `${ATS} application form has no form_fields or questions array.`);
  return { form_fields: formFields as FormField[], questions: questions as Question[] };
}

// ---------------------------------------------------------------------------------------------------------
// Applications.

/** Our limits first (never read a file we will not send), then the form's, if it names any. */
async function fileBytes(attachment: SubmissionAttachment, limits?: { max: number | null; types: string[] }): Promise<Buffer> {
  if (limits?.max !== null && limits?.max !== undefined && attachment.size > limits.max)
    throw new ConnectorError(
      'attachment_rejected',
      `${ATS}'s form accepts files up to ${limits.max} bytes; the ${attachment.type} file has ${attachment.size}.`,
    );
  const extension = attachment.name.includes('.') ? attachment.name.split('.').pop()!.toLowerCase() : '';
  if (limits?.types.length && !limits.types.includes(extension) && !limits.types.includes(attachment.content_type.toLowerCase()))
    throw new ConnectorError(
      'attachment_rejected',
      `${ATS}'s form accepts only ${limits.types.join(', ')} files; the ${attachment.type} file is not one.`,
    );
  // The form's own supported_file_types, when it names them, decide the type (a photo question takes jpg/png,
  // which our résumé list does not): every type Workable's form accepts is sent (P278).
  const bytes = await attachmentBytes(
    ATS,
    attachment,
    limits?.types.length ? { maxBytes: limits.max ?? ATTACHMENTS.maxBytes } : ATTACHMENTS,
  );
  if (bytes.length === 0)
    throw new ConnectorError('attachment_rejected', `${ATS} refuses empty files; the ${attachment.type} file is empty.`);
  return bytes;
}

const SOCIAL_TYPES = new Set(['linkedin', 'twitter', 'github', 'facebook', 'xing', 'stackoverflow', 'behance', 'dribbble', 'youtube']);
/** The most text we send as `cover_letter` (Workable documents no length; a letter is far shorter). */
const COVER_LETTER_MAX_BYTES = 100_000;

/** A cover letter given as text (a `text/plain` or `.txt` attachment, as the partner APIs hand it in). */
const isTextLetter = (a: SubmissionAttachment) =>
  a.type === 'cover_letter' && (/^text\/plain\b/i.test(a.content_type) || /\.txt$/i.test(a.name));

/** The candidate's text `cover_letter` (P278): UTF-8, at most 100 KB, refused as attachment_rejected otherwise. */
async function coverLetterText(attachment: SubmissionAttachment): Promise<string> {
  const bytes = await attachmentBytes(ATS, attachment, { maxBytes: COVER_LETTER_MAX_BYTES });
  const letter = new TextDecoder('utf-8', { fatal: false }).decode(bytes).trim();
  if (!letter) throw new ConnectorError('attachment_rejected', `${ATS}: the cover letter text is empty.`);
  return letter;
}

/** `address` (a string on Workable's candidate) from our candidate's location object. */
function addressOf(location: unknown): string | null {
  if (!location || typeof location !== 'object') return text(location);
  const l = location as Record<string, unknown>;
  const place = [text(l.postcode), text(l.city)].filter(Boolean).join(' ');
  return [text(l.street), place, text(l.country)].filter(Boolean).join(', ') || null;
}

/**
 * The JSON body of an application (exported for the document's example and the tests). `form` is the job's
 * application form: needed only when there are files besides the CV and a text cover letter, which go to its
 * file questions. Every key is one Workable documents for the candidate
 * (https://workable.readme.io/reference/job-candidates-create; docs/connectors/workable.md, P278).
 */
export async function workableApplicationBody(submission: Submission, form?: WorkableForm): Promise<Record<string, unknown>> {
  const name = candidateName(submission.candidate);
  const phone = text(submission.candidate.phone);
  const candidate: Record<string, unknown> = {
    name: name.full,
    firstname: name.first,
    lastname: name.last,
    email: String(submission.candidate.email ?? ''),
  };
  if (phone) candidate.phone = phone;
  const address = addressOf(submission.candidate.location);
  if (address) candidate.address = address;
  const skills = Array.isArray(submission.candidate.skills)
    ? (submission.candidate.skills as unknown[]).map(text).filter((s): s is string => s !== null)
    : [];
  if (skills.length) candidate.skills = skills;
  const answers = submission.screeningAnswers.map(answerFor).filter((a): a is Record<string, unknown> => a !== undefined);
  const cvs = submission.attachments.filter((a) => a.type === 'cv');
  if (cvs.length > 1)
    throw new ConnectorError('attachment_rejected', `${ATS} takes one résumé per candidate; the application has ${cvs.length}.`);
  if (cvs[0]) {
    const resumeField = form?.form_fields.find((f) => f?.key === 'resume');
    candidate.resume = {
      name: cvs[0].name,
      data: (await fileBytes(cvs[0], resumeField ? formLimits(resumeField) : undefined)).toString('base64'),
    };
  }
  const letters = submission.attachments.filter(isTextLetter);
  if (letters.length > 1)
    throw new ConnectorError(
      'attachment_rejected',
      `${ATS} takes one cover letter text per candidate; the application has ${letters.length}.`,
    );
  if (letters[0]) candidate.cover_letter = await coverLetterText(letters[0]);
  const used = new Set<string>();
  for (const attachment of submission.attachments.filter((a) => a.type !== 'cv' && !isTextLetter(a))) {
    const pattern = Object.hasOwn(FILE_QUESTION, attachment.type) ? FILE_QUESTION[attachment.type] : FILE_QUESTION.other;
    const question = (form?.questions ?? []).find(
      (q) => q?.type === 'file' && text(q.id) && !used.has(String(q.id)) && pattern.test(String(q.body ?? '')),
    );
    if (!question)
      throw new ConnectorError(
        'attachment_rejected',
        `${ATS} takes files only as the résumé or as answers to the job's file questions; the job has no file question for the ${attachment.type} file.`,
      );
    used.add(String(question.id));
    const bytes = await fileBytes(attachment, formLimits(question));
    answers.push({ question_key: String(question.id), file: { name: attachment.name, data: bytes.toString('base64') } });
  }
  if (answers.length) candidate.answers = answers;
  const profiles = Object.entries(submission.socialLinks)
    .filter(([platform, url]) => SOCIAL_TYPES.has(platform.toLowerCase()) && httpUrl(url))
    .map(([platform, url]) => ({ type: platform.toLowerCase(), url }));
  if (profiles.length) candidate.social_profiles = profiles;
  return { sourced: false, candidate };
}

/** The answer to a refused application: duplicates, closed jobs and files first, then the shared mapping. */
function submissionFailure(response: Response, body: unknown): ConnectorError {
  const status = response.status;
  const detail = errorText(body);
  if (status === 404) return new ConnectorError('job_not_published', `${ATS} does not know the job (404).`);
  if (status === 409 || (status === 422 && /already (exists|been taken|applied)|duplicate/i.test(detail)))
    return new ConnectorError('duplicate', `${ATS}: the candidate already exists for this job (${status}).`);
  if ((status === 422 || status === 400 || status === 403) && /not published|closed|archived|draft|not accepting|no longer/i.test(detail))
    return new ConnectorError('job_not_published', `${ATS}: the job is not published (${status}: ${detail}).`);
  if (status === 413 || ((status === 422 || status === 400) && /resume|file|attachment|too large|size/i.test(detail)))
    return new ConnectorError('attachment_rejected', `${ATS} refused a file (${status}${detail ? `: ${detail}` : ''}).`);
  return failure(response, body, 'the application');
}

// ---------------------------------------------------------------------------------------------------------
// Outcomes (D21, P301): `GET /spi/v3/candidates/{id}` (https://workable.readme.io/reference/job-candidates-show,
// scope r_candidates). The id is the candidate id the submission returned (`candidate.id`, our `external_id`).

/**
 * Workable's candidate → our outcome (docs/connectors/workable.md, "Outcomes"): disqualified is REJECTED, or
 * WITHDRAWN when `withdrew` says the candidate withdrew; `hired_at` set (or a stage of kind `hired`) is HIRED;
 * any other stage is PENDING. `stage` is the stage's name (never the disqualification reason, which is free text).
 */
export function workableOutcome(candidate: Record<string, unknown>): OutcomeReading {
  const stage = text(candidate.stage);
  if (candidate.disqualified === true) return { outcome: candidate.withdrew === true ? 'WITHDRAWN' : 'REJECTED', stage };
  if (text(candidate.hired_at) || candidate.stage_kind === 'hired') return { outcome: 'HIRED', stage };
  return { outcome: 'PENDING', stage };
}

async function readCandidateOutcome(ref: OutcomeRef, credentials: AtsCredentials): Promise<OutcomeReading> {
  const response = await read(credentials, apiUrl(credentials, `/candidates/${segment(ref.externalId)}`));
  if (response.status === 404) {
    await response.arrayBuffer().catch(() => undefined);
    // The account answered before (the submission); a candidate it no longer has was deleted there.
    throw new ConnectorError('invalid_data', `${ATS} no longer has the candidate (404).`);
  }
  if (response.status === 403)
    throw new ConnectorError(
      'credentials_rejected',
      `${ATS} refused the token the candidate (403): it lacks the r_candidates scope outcomes need.`,
      undefined,
      'token',
    );
  if (!response.ok) throw failure(response, await jsonBody(response), 'the candidate');
  const body = await readObject(response, 'candidate');
  const candidate = body.candidate;
  if (!candidate || typeof candidate !== 'object' || Array.isArray(candidate))
    throw new ConnectorError('invalid_data', `${ATS} answered the candidate read without a candidate object.`);
  return workableOutcome(candidate as Record<string, unknown>);
}

export const workableConnector: AtsConnector = {
  ...workableDescriptor,

  async listPublishedJobs(_company: CompanyRecord, credentials: AtsCredentials) {
    const jobs: WorkableJob[] = [];
    let url: string | null = apiUrl(credentials, '/jobs', {
      state: 'published',
      limit: PAGE_SIZE,
      include_fields: 'description,full_description,requirements,benefits',
    });
    const seen = new Set<string>();
    for (let page = 0; url; page++) {
      if (page >= MAX_PAGES || seen.has(url)) throw new ConnectorError('invalid_data', `${ATS} job list did not end after ${page} pages.`);
      seen.add(url);
      const result = await listPage(credentials, url);
      jobs.push(...result.jobs);
      url = result.next;
    }
    // The list asks for published jobs; a job in another state is still left out.
    const published = jobs.filter((job) => job.state === undefined || job.state === 'published');
    const mapped = await mapLimited(published, PACING.importConcurrency, async (job) => {
      const form = await applicationForm(credentials, String(text(job.shortcode)));
      // Gone between the list and this read: it is not published any more.
      return form ? mapWorkableJob(job, form) : undefined;
    });
    return mapped.filter((job): job is JobInput => job !== undefined);
  },

  async submitApplication(submission: Submission, credentials: AtsCredentials) {
    const shortcode = submission.jobExternalId;
    // Files other than the CV and a text cover letter go to the job's file questions: only then is the form read.
    let form: WorkableForm | undefined;
    if (submission.attachments.some((a) => a.type !== 'cv' && !isTextLetter(a))) {
      // A submission waits at most WORKABLE_SUBMIT_MAX_WAIT_MS for an interval (the sync worker has 30 s).
      form = await applicationForm(credentials, shortcode, submitMaxWaitMs());
      if (!form) throw new ConnectorError('job_not_published', `${ATS} does not know the job (404).`);
    }
    const body = await workableApplicationBody(submission, form);
    const response = await send(
      credentials,
      apiUrl(credentials, `/jobs/${segment(shortcode)}/candidates`),
      {
        method: 'POST',
        headers: headers(credentials, true),
        body: JSON.stringify(body),
      },
      submitMaxWaitMs(),
    );
    const answer = await jsonBody(response);
    if (!response.ok) throw submissionFailure(response, answer);
    const id = text((answer as { candidate?: { id?: unknown } } | undefined)?.candidate?.id);
    return { externalId: id };
  },

  async validateCredentials(credentials: AtsCredentials) {
    // One job of the account: proves the subdomain, the token and its r_jobs scope; creates nothing.
    const response = await read(credentials, apiUrl(credentials, '/jobs', { limit: 1 }));
    const body = await jsonBody(response);
    if (response.status === 404)
      throw new ConnectorError('credentials_rejected', `${ATS} knows no account at that subdomain (404).`, undefined, 'subdomain');
    if (response.status === 401) throw new ConnectorError('credentials_rejected', `${ATS} rejected the token (401).`, undefined, 'token');
    if (response.status === 403)
      throw new ConnectorError(
        'credentials_rejected',
        `${ATS} refused the token the job list (403): it lacks the r_jobs scope.`,
        undefined,
        'token',
      );
    if (!response.ok) throw failure(response, body, 'the credentials check');
    if (!body || typeof body !== 'object' || !Array.isArray((body as { jobs?: unknown }).jobs))
      throw new ConnectorError('invalid_data', `${ATS} answered the credentials check without a job list.`);
  },

  readOutcome: (ref: OutcomeRef, credentials: AtsCredentials) => readCandidateOutcome(ref, credentials),
};
