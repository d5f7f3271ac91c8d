/**
 * Personio (docs/connectors/personio.md). Jobs come from the company's public XML feed (personio-jobs.ts: one
 * document, no paging); applications go to the Recruiting API: each attachment is uploaded first as a
 * document, then the application is created with the returned uuids. Auth: `Authorization: Bearer <token>`
 * plus `X-Company-ID`. The source is Personio's own OpenAPI (PERSONIO_OPENAPI), P95 and P282.
 */
import type { CompanyRecord } from '#companies/company-schema.js';
import { ConnectorError, type AtsConnector, type AtsCredentials, type Submission } from '#delivery/connectors/connector.js';
import {
  atsBaseUrl,
  atsFetch,
  atsUrl,
  attachmentBytes,
  checkAttachment,
  errorForStatus,
  jsonBody,
  windowSlots,
} from '#delivery/connectors/http.js';
import { candidateName, text } from '#delivery/connectors/mapping.js';
import { API_URL, ATTACHMENTS, PACING, personioDescriptor } from '#delivery/connectors/personio-descriptor.js';
import { mapPersonioPosition, parsePersonioFeed, personioFeedRequestUrl, personioFeedUrl } from '#delivery/connectors/personio-jobs.js';
import { checkApiV2Credentials, findPersonioApplication, readPersonioOutcome } from '#delivery/connectors/personio-outcomes.js';

export { mapPersonioPosition, parsePersonioFeed, personioFeedUrl };
export { PERSONIO_FILE_TYPES, PERSONIO_MAX_FILE_BYTES } from '#delivery/connectors/personio-descriptor.js';

/** Personio's own OpenAPI of the Recruiting API and the feed (github:personio/api-docs). */
export const PERSONIO_OPENAPI = 'https://github.com/personio/api-docs/blob/master/personio-recruiting-api.yaml';

const ATS = 'Personio';

/**
 * Our attachment `type` → Personio's document `category` (`files[].category`: cv, cover-letter,
 * employment-reference, certificate, work-sample, other; PERSONIO_OPENAPI). Every one of our types has one.
 */
export const PERSONIO_CATEGORIES: Record<string, string> = {
  cv: 'cv',
  cover_letter: 'cover-letter',
  certificate: 'certificate',
  work_sample: 'work-sample',
  photo: 'other',
  other: 'other',
};

/** Our candidate `gender` → Personio's `gender` system attribute (male / female / diverse / undefined). */
const GENDERS: Record<string, string> = { male: 'male', female: 'female', diverse: 'diverse', not_specified: 'undefined' };

function headers(credentials: AtsCredentials): Record<string, string> {
  return { Authorization: `Bearer ${credentials.token}`, 'X-Company-ID': credentials.personio_company_id, Accept: 'application/json' };
}

/**
 * The error codes (`reason`) and HTTP titles of Personio's two documented error shapes (`error_response`,
 * PERSONIO_OPENAPI). Only code-like values are kept: a `detail` or an odd title can echo what the candidate
 * sent, and never goes into a message.
 */
function errorReasons(body: unknown): string[] {
  const reasons: string[] = [];
  const errors = (body as { errors?: unknown })?.errors;
  if (!Array.isArray(errors)) return reasons;
  for (const error of errors as Record<string, unknown>[]) {
    if (Array.isArray(error?.errors))
      for (const inner of error.errors as Record<string, unknown>[]) reasons.push(String(inner?.reason ?? ''));
    if (typeof error?.title === 'string') reasons.push(error.title);
  }
  return reasons.filter((r) => /^[A-Za-z0-9 ._-]{1,80}$/.test(r) && !/@|\d{4,}/.test(r));
}

/** The documented reasons that mean the company's access, not the application: its connection is broken. */
const ACCESS_REASONS = ['feature.public-api.disabled', 'feature.recruiting.disabled'];

async function failure(response: Response): Promise<ConnectorError> {
  const raw = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    body = undefined;
  }
  const reasons = errorReasons(body);
  // The deprecated endpoint's 422 "Job position not published" came in another shape: look at the text too.
  if (reasons.length === 0 && /not published/i.test(raw)) reasons.push('Job position not published');
  const detail = reasons.join('; ').slice(0, 300);
  if (reasons.includes('errors.applicant-already-exists'))
    return new ConnectorError('duplicate', `${ATS}: the applicant already exists (errors.applicant-already-exists).`);
  if (reasons.some((r) => /posting-not-found|job-position\.not-published|not published/i.test(r)))
    return new ConnectorError('job_not_published', `${ATS}: the job position is not found or not published (${detail}).`);
  const access = reasons.find((r) => ACCESS_REASONS.includes(r));
  if (access) return new ConnectorError('credentials_rejected', `${ATS}: this company has no access to the Recruiting API (${access}).`);
  if (response.status === 413 || reasons.some((r) => /^errors\.(file-too-big|invalid-file-type)$/.test(r)))
    return new ConnectorError('attachment_rejected', `${ATS} refused a file (${response.status}: ${detail}).`);
  return errorForStatus(ATS, response, detail);
}

/**
 * P363: "Both the documents and the applications endpoints have a rate limit of 20 requests in 60 seconds per
 * company" (https://developer.personio.de/reference/introduction-1). A submission books its uploads and its POST
 * together before the first leaves, so it never stops half-sent for want of room; a wait over 10 s is
 * `rate_limited` and the worker tries again later. (`PERSONIO_RATE_LIMIT`/`PERSONIO_RATE_WINDOW_MS` shorten it in
 * tests.) The window also counts the credentials check's POST.
 */
const companyWindow = (credentials: AtsCredentials, count: number) =>
  windowSlots(ATS, `personio:${credentials.personio_company_id}`, count, {
    limit: Number(process.env.PERSONIO_RATE_LIMIT ?? 20),
    windowMs: Number(process.env.PERSONIO_RATE_WINDOW_MS ?? 60_000),
    maxWaitMs: 10_000,
  });

async function uploadDocument(
  base: string,
  credentials: AtsCredentials,
  attachment: Submission['attachments'][number],
): Promise<{ uuid: string; original_filename: string; category: string }> {
  const bytes = await attachmentBytes(ATS, attachment, ATTACHMENTS);
  const form = new FormData();
  form.append('file', new Blob([bytes], { type: attachment.content_type }), attachment.name);
  const response = await atsFetch(
    ATS,
    atsUrl(base, '/v1/recruiting/applications/documents'),
    { method: 'POST', headers: headers(credentials), body: form },
    PACING,
  );
  // 422: "The document you provided could not be processed" (PERSONIO_OPENAPI, the documents endpoint).
  if (response.status === 422)
    throw new ConnectorError('attachment_rejected', `${ATS} could not process the ${attachment.type} file (422).`);
  if (!response.ok) throw await failure(response);
  const body = (await jsonBody(response)) as { uuid?: unknown } | undefined;
  if (typeof body?.uuid !== 'string') throw new ConnectorError('transient', `${ATS} did not return a document uuid.`);
  return {
    uuid: body.uuid,
    original_filename: attachment.name,
    category: Object.hasOwn(PERSONIO_CATEGORIES, attachment.type) ? PERSONIO_CATEGORIES[attachment.type] : 'other',
  };
}

/**
 * The system attributes Personio documents (`attributes[].id`: birthday, gender, location, phone, …;
 * PERSONIO_OPENAPI) that we hold a value for.
 */
function attributesOf(candidate: Record<string, unknown>): { id: string; value: string }[] {
  const attributes: { id: string; value: string }[] = [];
  const phone = text(candidate.phone);
  if (phone) attributes.push({ id: 'phone', value: phone });
  const birthday = text(candidate.birthdate);
  if (birthday && /^\d{4}-\d{2}-\d{2}$/.test(birthday)) attributes.push({ id: 'birthday', value: birthday });
  const gender = text(candidate.gender);
  if (gender && Object.hasOwn(GENDERS, gender)) attributes.push({ id: 'gender', value: GENDERS[gender] });
  const place = (candidate.location ?? {}) as Record<string, unknown>;
  const location = [text(place.street), [text(place.postcode), text(place.city)].filter(Boolean).join(' '), text(place.country)]
    .filter(Boolean)
    .join(', ');
  if (location) attributes.push({ id: 'location', value: location });
  return attributes;
}

/**
 * The JSON body of `POST /v1/recruiting/applications` (`submit_application`, PERSONIO_OPENAPI; exported for
 * the tests). `files` are the uploaded documents. `job_position_id` is documented as an integer: a job id
 * that is not one cannot name a Personio position.
 */
export function personioApplicationBody(submission: Submission, files: { uuid: string; original_filename: string; category: string }[]) {
  const jobId = submission.jobExternalId;
  if (!/^\d{1,15}$/.test(jobId))
    throw new ConnectorError('invalid_data', `${ATS} job position ids are integers; this job's id is not one.`);
  const name = candidateName(submission.candidate);
  const attributes = attributesOf(submission.candidate);
  // `message`: "The applicant supplied free-text message": the notes, after the screening answers as
  // `question: answer` lines (Personio has no field for answers but company-specific custom attributes), P282.
  const message = [
    ...submission.screeningAnswers.map((a) => `${a.question ?? a.id}: ${a.answer ?? ''}`),
    ...(submission.notes ? [submission.notes] : []),
  ].join('\n');
  // `application_date` (yyyy-mm-dd, "cannot be a date in the future"): the day the candidate applied, in UTC.
  const applied = /^\d{4}-\d{2}-\d{2}/.exec(submission.appliedAt)?.[0];
  return {
    first_name: name.first,
    last_name: name.last,
    email: String(submission.candidate.email ?? ''),
    job_position_id: Number(jobId),
    ...(message ? { message } : {}),
    ...(applied ? { application_date: applied } : {}),
    ...(attributes.length ? { attributes } : {}),
    ...(files.length ? { files } : {}),
  };
}

export const personioConnector: AtsConnector = {
  ...personioDescriptor,

  async listPublishedJobs(_company: CompanyRecord, credentials: AtsCredentials) {
    const response = await atsFetch(ATS, personioFeedRequestUrl(credentials), { headers: { Accept: 'application/xml' } }, PACING);
    if (response.status === 404)
      throw new ConnectorError('credentials_rejected', `${ATS} has no job feed for that subdomain (404).`, undefined, 'subdomain');
    if (!response.ok) throw errorForStatus(ATS, response);
    const feedUrl = personioFeedUrl(credentials.subdomain);
    return parsePersonioFeed(await response.text()).map((position) => mapPersonioPosition(position, feedUrl));
  },

  async submitApplication(submission: Submission, credentials: AtsCredentials) {
    const base = atsBaseUrl(API_URL);
    // Nothing is uploaded for an application Personio cannot take: the body is checked, and every file's
    // size and type, before the first document goes out (P210, P282).
    personioApplicationBody(submission, []);
    for (const attachment of submission.attachments) checkAttachment(ATS, attachment, ATTACHMENTS);
    // Documents first: the application refers to them by uuid. Room for all of them and the POST first (P363).
    await companyWindow(credentials, submission.attachments.length + 1);
    const files = [];
    for (const attachment of submission.attachments) files.push(await uploadDocument(base, credentials, attachment));
    const response = await atsFetch(
      ATS,
      atsUrl(base, '/v1/recruiting/applications'),
      {
        method: 'POST',
        headers: { ...headers(credentials), 'Content-Type': 'application/json' },
        body: JSON.stringify(personioApplicationBody(submission, files)),
      },
      PACING,
    );
    if (!response.ok) throw await failure(response);
    // 201 with no documented body: Personio gives us no id for the application. With the optional API v2 credentials
    // it is found among the candidate's applications (P359), so that its outcome can be read; else none.
    await response.arrayBuffer().catch(() => undefined);
    const email = String(submission.candidate.email ?? '');
    return { externalId: await findPersonioApplication(credentials, email, submission.jobExternalId) };
  },

  async validateCredentials(credentials: AtsCredentials, company: CompanyRecord) {
    // The public feed proves the subdomain.
    await personioConnector.listPublishedJobs(company, credentials);
    // An application without fields: Personio authenticates first, so 401/403 rejects the token or company id,
    // and a validation error (400/422) proves both without creating anything.
    await companyWindow(credentials, 1);
    const response = await atsFetch(
      ATS,
      atsUrl(atsBaseUrl(API_URL), '/v1/recruiting/applications'),
      {
        method: 'POST',
        headers: { ...headers(credentials), 'Content-Type': 'application/json' },
        body: '{}',
      },
      PACING,
    );
    if (response.status === 401 || response.status === 403) {
      const failed = await failure(response);
      throw new ConnectorError('credentials_rejected', failed.message, undefined, 'token');
    }
    if (response.status === 429 || response.status >= 500) throw errorForStatus(ATS, response);
    // Anything but the expected validation error (or a 2xx) is not Personio's Recruiting API answering.
    if (!response.ok && response.status !== 400 && response.status !== 422)
      throw new ConnectorError('invalid_data', `${ATS} Recruiting API answered ${response.status} to the credentials check.`);
    // P360: the optional API v2 client credentials, checked only when given (a refusal names the field).
    await checkApiV2Credentials(credentials);
  },

  // P361: only for a company that gave the API v2 client credentials (`outcomes.needs`); the others are never read.
  readOutcome: readPersonioOutcome,
};
