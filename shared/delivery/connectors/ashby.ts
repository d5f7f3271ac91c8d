/**
 * Ashby (docs/connectors/ashby.md). Jobs: the public posting API, `GET /posting-api/job-board/{name}
 * ?includeCompensation=true` (the whole board in one answer, no paging, no auth), then each posting's
 * application form through `jobPosting.info` (a few in parallel) for its questions. Applications (P279):
 * each file through Ashby's presigned upload (`file.createFileUploadHandle`, then the file to the returned
 * URL; ashby-upload.ts), then a JSON `applicationForm.submit`: `jobPostingId`, `applicationForm`
 * `{fieldSubmissions: [{path, value}]}` (values typed by the form's field types, a file field's value its
 * upload handle). The RPC API uses HTTP Basic auth (the key as user name, an
 * empty password) and answers errors as `{success: false, errorInfo: {code, message}}`, often with HTTP 200:
 * only `success: true` counts. The posting and form shapes and their mapping onto our fields are in ashby-jobs.ts.
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
import { candidateName, listAnswer, text, yesNo } from '#delivery/connectors/mapping.js';
import { readUploadHandle, uploadHandleRequest, uploadToStorage } from '#delivery/connectors/ashby-upload.js';
import {
  ashbyPostingId,
  formFields,
  mapAshbyJob,
  options,
  type AshbyJob,
  type FormDefinition,
  type FormField,
} from '#delivery/connectors/ashby-jobs.js';
import { API_URL, ashbyDescriptor, ATTACHMENTS, PACING } from '#delivery/connectors/ashby-descriptor.js';
export { ASHBY_MAX_FILE_BYTES } from '#delivery/connectors/ashby-descriptor.js';

const ATS = 'Ashby';
/** The permissions (scopes) the connector needs, as apiKey.info may list them. */
export const ASHBY_REQUIRED_PERMISSIONS = ['candidatesWrite', 'jobsRead'] as const;
/** The permission each RPC method needs (https://developers.ashbyhq.com/reference/authentication), for messages. */
const PERMISSION_OF: Record<string, string> = {
  'apiKey.info': 'apiKeysRead',
  'jobPosting.info': 'jobsRead',
  'jobPosting.list': 'jobsRead',
  'file.createFileUploadHandle': 'candidatesWrite',
  'applicationForm.submit': 'candidatesWrite',
  'application.info': 'candidatesRead',
};

/** A scope as apiKey.info may spell it (`candidatesWrite`, `candidates:write`) → `candidateswrite`. */
const scopeKey = (scope: string) => scope.toLowerCase().replace(/[^a-z]/g, '');
const authorization = (credentials: AtsCredentials) => `Basic ${Buffer.from(`${credentials.api_key}:`).toString('base64')}`;

type RpcAnswer = { response: Response; body: Record<string, unknown> | undefined };
type ErrorInfo = { code: string; message: string };

/**
 * `errorInfo` (or the deprecated `errors` list) of an answer. Only the code goes into our messages: Ashby's
 * message text may repeat what was submitted (a candidate's data).
 */
function errorInfo(body: Record<string, unknown> | undefined): ErrorInfo {
  const info = body?.errorInfo as { code?: unknown; message?: unknown } | undefined;
  const errors = Array.isArray(body?.errors) ? (body.errors as unknown[]) : [];
  const first = errors.find((e) => typeof e === 'string') as string | undefined;
  const code = (typeof info?.code === 'string' ? info.code : (first ?? '')).slice(0, 100);
  const message = (typeof info?.message === 'string' ? info.message : '').slice(0, 200);
  return { code, message };
}

/** A POST to one of Ashby's RPC methods (`/apiKey.info`) with the key and a JSON body. */
async function rpc(credentials: AtsCredentials, method: string, body: Record<string, unknown>): Promise<RpcAnswer> {
  const response = await atsFetch(
    ATS,
    atsUrl(atsBaseUrl(API_URL), `/${method}`),
    {
      method: 'POST',
      headers: {
        Authorization: authorization(credentials),
        Accept: 'application/json; version=1',
        'Content-Type': 'application/json',
      },
      body: JSON.stringify(body),
    },
    PACING,
  );
  const parsed = await jsonBody(response);
  return {
    response,
    body: parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined,
  };
}

/**
 * The kind for an answer that is not `success: true`: Ashby's error codes first (whatever the status), then
 * the status class. `method` names the call in the message; no key, URL or personal data goes in.
 */
function rpcFailure(method: string, answer: RpcAnswer): ConnectorError {
  const { response, body } = answer;
  const info = errorInfo(body);
  const detail = info.code;
  const status = response.status;
  const at = `${ATS} ${method} (${status}${detail ? `: ${detail}` : ''})`;
  if (status === 429 || /rate_limit|too_many/i.test(info.code))
    return new ConnectorError(
      'rate_limited',
      `${ATS} is rate limiting (${status}${detail ? `: ${detail}` : ''}).`,
      retryAfterSeconds(response),
    );
  if (status >= 500) return errorForStatus(ATS, response, detail);
  // https://developers.ashbyhq.com/reference/authentication: "403 … missing_endpoint_permission".
  if (info.code === 'missing_endpoint_permission')
    return new ConnectorError(
      'credentials_rejected',
      `${at}: the API key lacks the ${PERMISSION_OF[method] ?? 'needed'} permission for ${method}.`,
      undefined,
      'api_key',
    );
  if (status === 401 || status === 403 || /unauthori[sz]ed|invalid_api_key|api_key|forbidden/i.test(info.code))
    return new ConnectorError(
      'credentials_rejected',
      `${ATS} rejected the API key (${status}${detail ? `: ${detail}` : ''}).`,
      undefined,
      'api_key',
    );
  if (/job_posting_not_published|job_posting_not_found|posting.*(not_found|closed|unpublished)/i.test(info.code))
    return new ConnectorError('job_not_published', `${ATS}: the job posting is unknown or not published (${status}: ${detail}).`);
  if (/duplicate|already_(applied|exists)/i.test(info.code))
    return new ConnectorError('duplicate', `${ATS}: the candidate already applied (${status}: ${detail}).`);
  if (/file|resume|upload|attachment/i.test(`${info.code} ${info.message}`))
    return new ConnectorError('attachment_rejected', `${ATS} refused a file (${status}: ${detail}).`);
  if (status >= 200 && status < 300 && !body)
    return new ConnectorError('transient', `${ATS} ${method} answered ${status} without a JSON body.`);
  if (status >= 200 && status < 300 && body?.success === undefined)
    return new ConnectorError('transient', `${ATS} ${method} answered ${status} without confirming success.`);
  return new ConnectorError('invalid_data', `${ATS} refused ${method} (${status}${detail ? `: ${detail}` : ''}).`);
}

const isNotFound = (answer: RpcAnswer) => answer.response.status === 404 || /not_found/i.test(errorInfo(answer.body).code);

/** A posting's application form definition through `jobPosting.info`; `undefined` when Ashby does not know the posting. */
async function postingForm(credentials: AtsCredentials, postingId: string): Promise<FormDefinition | undefined> {
  const answer = await rpc(credentials, 'jobPosting.info', { jobPostingId: postingId });
  if (answer.response.ok && answer.body?.success === true) {
    const results = answer.body.results as { applicationFormDefinition?: unknown } | undefined;
    const form = results?.applicationFormDefinition;
    if (!form || typeof form !== 'object') throw new ConnectorError('invalid_data', `${ATS} jobPosting.info has no application form.`);
    return form as FormDefinition;
  }
  if (isNotFound(answer)) return undefined;
  throw rpcFailure('jobPosting.info', answer);
}

async function readBoard(credentials: AtsCredentials): Promise<AshbyJob[]> {
  const url = atsUrl(atsBaseUrl(API_URL), `/posting-api/job-board/${segment(credentials.job_board_name)}`, { includeCompensation: true });
  const response = await atsFetch(ATS, url, { headers: { Accept: 'application/json' } }, PACING);
  if (response.status === 404)
    throw new ConnectorError('credentials_rejected', `${ATS} knows no job board with that name (404).`, undefined, 'job_board_name');
  if (!response.ok) throw errorForStatus(ATS, response);
  const body = (await jsonBody(response)) as { jobs?: unknown } | undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new ConnectorError('invalid_data', `${ATS} job board is not a JSON object.`);
  if (!Array.isArray(body.jobs)) throw new ConnectorError('invalid_data', `${ATS} job board has no jobs array.`);
  for (const job of body.jobs as unknown[]) {
    if (!job || typeof job !== 'object' || Array.isArray(job) || !ashbyPostingId(job as AshbyJob))
      throw new ConnectorError('invalid_data', `${ATS} job board has a posting without an id.`);
  }
  return body.jobs as AshbyJob[];
}

/** The field of the form a file of our attachment `type` goes to, if the form has one. */
function fileField(fields: FormField[], type: string): FormField | undefined {
  const files = fields.filter((f) => f.field!.type === 'File');
  const named = (pattern: RegExp) => files.find((f) => pattern.test(`${String(f.field!.title ?? '')} ${String(f.field!.path)}`));
  if (type === 'cv') return files.find((f) => f.field!.path === '_systemfield_resume') ?? named(/resume|\bcv\b|curriculum/i);
  if (type === 'cover_letter') return named(/cover/i);
  const words = type.replace(/[^a-z0-9]+/gi, ' ').trim();
  return words ? named(new RegExp(`\\b${words}\\b`, 'i')) : undefined;
}

/** A screening answer as the value Ashby takes for the field's type; throws invalid_data when it cannot be one. */
function typedValue(entry: FormField, answer: string): unknown {
  const type = String(entry.field!.type ?? '');
  const refuse = (what: string) =>
    new ConnectorError('invalid_data', `${ATS} needs ${what} for a ${type} question; the answer is not one.`);
  switch (type) {
    case 'Boolean': {
      const yes = yesNo(answer);
      if (yes === undefined) throw refuse('yes or no');
      return yes;
    }
    case 'Number':
      if (/^-?\d+$/.test(answer)) return Number(answer);
      throw refuse('an integer');
    case 'Date': {
      // Ashby takes `YYYY-MM-DD`; an ISO date-time's date is that day.
      const day = /^(\d{4}-\d\d-\d\d)(T[\d:.]+(Z|[+-][\d:]{4,5})?)?$/.exec(answer.trim())?.[1];
      if (day && !Number.isNaN(Date.parse(day))) return day;
      throw refuse('a date (YYYY-MM-DD)');
    }
    case 'Score':
      if (/^[1-4]$/.test(answer)) return { score: Number(answer) };
      throw refuse('a score of 1 to 4');
    case 'RichText':
      return { type: 'PlainText', value: answer };
    case 'ValueSelect': {
      const option = options(entry).find((o) => o.value === answer || o.label.toLowerCase() === answer.toLowerCase());
      if (option) return option.value;
      throw refuse('one of its options');
    }
    case 'MultiValueSelect': {
      const values = listAnswer(answer);
      const known = options(entry);
      return values.map((v) => {
        const option = known.find((o) => o.value === v || o.label.toLowerCase() === v.toLowerCase());
        if (!option) throw refuse('values among its options');
        return option.value;
      });
    }
    case 'Location': {
      const parts = listAnswer(answer);
      if (!parts.length) throw refuse('a location');
      return parts.length >= 3
        ? { city: parts[0], region: parts[1], country: parts[parts.length - 1] }
        : parts.length === 2
          ? { city: parts[0], country: parts[1] }
          : { city: parts[0] };
    }
    default:
      return answer;
  }
}

export interface AshbyFile {
  path: string;
  attachment: SubmissionAttachment;
  bytes: Buffer;
}

export interface AshbyApplication {
  /** The JSON body of `applicationForm.submit`; each file field's value is filled with its upload handle. */
  body: { jobPostingId: string; applicationForm: { fieldSubmissions: { path: string; value: unknown }[] } } & Record<string, unknown>;
  files: AshbyFile[];
}

/**
 * The application for a posting with the given form (exported for the tests): the JSON body and the files to
 * upload first. Files that the form has no field for are refused (attachment_rejected), never left out.
 */
export async function ashbyApplication(submission: Submission, form: FormDefinition): Promise<AshbyApplication> {
  const fields = formFields(form);
  const byPath = new Map(fields.map((f) => [String(f.field!.path), f]));
  const name = candidateName(submission.candidate);
  const fieldSubmissions: { path: string; value: unknown }[] = [
    { path: '_systemfield_name', value: name.full },
    { path: '_systemfield_email', value: String(submission.candidate.email ?? '') },
  ];
  const phone = text(submission.candidate.phone);
  const phoneField = byPath.get('_systemfield_phone') ?? fields.find((f) => f.field!.type === 'Phone');
  if (phone && phoneField) fieldSubmissions.push({ path: String(phoneField.field!.path), value: phone });

  const used = new Set<string>(fieldSubmissions.map((s) => s.path));
  const files: AshbyFile[] = [];
  for (const attachment of submission.attachments) {
    const field = fileField(fields, attachment.type);
    if (!field)
      throw new ConnectorError(
        'attachment_rejected',
        `${ATS}: the posting's application form has no field for the ${attachment.type} file.`,
      );
    const path = String(field.field!.path);
    if (used.has(path))
      throw new ConnectorError(
        'attachment_rejected',
        `${ATS}: the posting's application form takes one file for its ${attachment.type} field.`,
      );
    const bytes = await attachmentBytes(ATS, attachment, ATTACHMENTS);
    if (bytes.length === 0) throw new ConnectorError('attachment_rejected', `${ATS}: the ${attachment.type} file is empty.`);
    used.add(path);
    files.push({ path, attachment, bytes });
  }

  for (const answer of submission.screeningAnswers) {
    const id = String(answer.id ?? '');
    const question = String(answer.question ?? '')
      .trim()
      .toLowerCase();
    const entry =
      byPath.get(id) ??
      fields.find((f) => text(f.field!.id) === id) ??
      (question
        ? fields.find(
            (f) =>
              String(f.field!.title ?? '')
                .trim()
                .toLowerCase() === question,
          )
        : undefined);
    // An answer to a question this posting does not ask is not sent (Ashby would refuse the unknown path).
    if (!entry || entry.field!.type === 'File') continue;
    const path = String(entry.field!.path);
    if (used.has(path)) continue;
    used.add(path);
    fieldSubmissions.push({ path, value: typedValue(entry, String(answer.answer ?? '')) });
  }

  return {
    body: {
      jobPostingId: submission.jobExternalId,
      applicationForm: { fieldSubmissions },
      // Ashby accepts applications to unpublished postings unless told not to; a closed posting must fail.
      allowSubmissionForUnpublishedJobPosting: false,
      ...(submission.source ? { utmData: { utm_source: submission.source } } : {}),
    },
    files,
  };
}

/** Each file through the presigned upload (ashby-upload.ts); its handle becomes its field's value. */
async function uploadFiles(credentials: AtsCredentials, application: AshbyApplication): Promise<void> {
  for (const file of application.files) {
    const answer = await rpc(credentials, 'file.createFileUploadHandle', uploadHandleRequest(file.attachment, file.bytes.length));
    if (!answer.response.ok || answer.body?.success !== true) throw rpcFailure('file.createFileUploadHandle', answer);
    const upload = readUploadHandle(answer.body.results);
    await uploadToStorage(upload, file.attachment, file.bytes);
    application.body.applicationForm.fieldSubmissions.push({ path: file.path, value: upload.handle });
  }
}

/**
 * The key's permissions, when `apiKey.info` lists them (P279). https://developers.ashbyhq.com/reference/api-key
 * documents the call ("Requires the apiKeysRead permission") but no `scopes` in its answer (only a third-party
 * copy of Ashby's OpenAPI shows them), so: the list when present, else undefined, also when the key lacks
 * apiKeysRead (403 `missing_endpoint_permission`: the key was authenticated, only that permission is missing).
 * A wrong or deactivated key (403 otherwise, 401 without one) is credentials_rejected.
 */
async function keyScopes(credentials: AtsCredentials): Promise<string[] | undefined> {
  const answer = await rpc(credentials, 'apiKey.info', {});
  if (answer.response.ok && answer.body?.success === true) {
    const scopes = (answer.body.results as { scopes?: unknown } | undefined)?.scopes;
    return Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === 'string') : undefined;
  }
  if (errorInfo(answer.body).code === 'missing_endpoint_permission') return undefined;
  throw rpcFailure('apiKey.info', answer);
}

/**
 * `jobPosting.info` of the board's first posting (jobsRead, which the import needs): it proves the key, that
 * permission, and that the key's organization owns the board (another organization does not know the posting).
 * An empty board: `jobPosting.list` (jobsRead) instead.
 */
async function provesJobsRead(credentials: AtsCredentials, jobs: AshbyJob[]): Promise<void> {
  const first = jobs.map(ashbyPostingId).find((id): id is string => Boolean(id));
  const answer = first ? await rpc(credentials, 'jobPosting.info', { jobPostingId: first }) : await rpc(credentials, 'jobPosting.list', {});
  if (answer.response.ok && answer.body?.success === true) return;
  const method = first ? 'jobPosting.info' : 'jobPosting.list';
  if (first && isNotFound(answer))
    throw new ConnectorError(
      'credentials_rejected',
      `${ATS}: the API key belongs to another organization than the job board (jobPosting.info does not know its postings).`,
      undefined,
      'api_key',
    );
  throw rpcFailure(method, answer);
}

/**
 * An application of `application.info` → our outcome (docs/connectors/ashby.md, "Outcomes"; P301): status Hired is
 * HIRED; Archived is WITHDRAWN when the archive reason is the candidate's (`reasonType` RejectedByCandidate or
 * Withdrawn), else REJECTED; Active and Lead are PENDING. `stage` is `currentInterviewStage.title`.
 */
export function ashbyOutcome(application: Record<string, unknown>): OutcomeReading {
  const stage = text((application.currentInterviewStage as { title?: unknown } | undefined)?.title);
  if (application.status === 'Hired') return { outcome: 'HIRED', stage };
  if (application.status === 'Archived') {
    const reasonType = String((application.archiveReason as { reasonType?: unknown } | undefined)?.reasonType ?? '');
    return { outcome: /candidate|withdr/i.test(reasonType) ? 'WITHDRAWN' : 'REJECTED', stage };
  }
  return { outcome: 'PENDING', stage };
}

/** `application.info` by the submitted form instance id `applicationForm.submit` returned (our `external_id`). */
async function readApplication(ref: OutcomeRef, credentials: AtsCredentials): Promise<OutcomeReading> {
  const answer = await rpc(credentials, 'application.info', { submittedFormInstanceId: ref.externalId });
  if (answer.response.ok && answer.body?.success === true) {
    const results = answer.body.results;
    if (!results || typeof results !== 'object' || Array.isArray(results))
      throw new ConnectorError('invalid_data', `${ATS} application.info answered success without an application.`);
    return ashbyOutcome(results as Record<string, unknown>);
  }
  if (isNotFound(answer))
    throw new ConnectorError('invalid_data', `${ATS} no longer has the application (${errorInfo(answer.body).code || 404}).`);
  throw rpcFailure('application.info', answer);
}

export const ashbyConnector: AtsConnector = {
  ...ashbyDescriptor,

  async listPublishedJobs(_company: CompanyRecord, credentials: AtsCredentials) {
    const listed = (await readBoard(credentials)).filter((job) => job.isListed !== false);
    const read = await mapLimited(listed, PACING.importConcurrency, async (job) => {
      const form = await postingForm(credentials, ashbyPostingId(job)!);
      // Unknown to the RPC API between the board and this read: closed in the meantime.
      return form ? mapAshbyJob(job, form) : undefined;
    });
    return read.filter((job): job is JobInput => job !== undefined);
  },

  async submitApplication(submission: Submission, credentials: AtsCredentials) {
    const form = await postingForm(credentials, submission.jobExternalId);
    if (!form) throw new ConnectorError('job_not_published', `${ATS} does not know the job posting.`);
    const application = await ashbyApplication(submission, form);
    await uploadFiles(credentials, application);
    const answer = await rpc(credentials, 'applicationForm.submit', application.body);
    if (answer.response.ok && answer.body?.success === true) {
      const results = answer.body.results as { submittedFormInstance?: { id?: unknown }; formMessages?: { blocked?: unknown } } | undefined;
      // Blocked by the organization's application limits: no application was created.
      if (results?.formMessages?.blocked === true)
        throw new ConnectorError('duplicate', `${ATS} blocked the application: the candidate reached the posting's application limit.`);
      const id = text(results?.submittedFormInstance?.id);
      if (!id) throw new ConnectorError('transient', `${ATS} applicationForm.submit answered success without a submitted form id.`);
      return { externalId: id };
    }
    throw rpcFailure('applicationForm.submit', answer);
  },

  async validateCredentials(credentials: AtsCredentials) {
    // The public board proves the board name (404 otherwise); it needs no key.
    const jobs = await readBoard(credentials);
    const scopes = await keyScopes(credentials);
    if (scopes) {
      const granted = new Set(scopes.map(scopeKey));
      const missing = ASHBY_REQUIRED_PERMISSIONS.filter((p) => !granted.has(scopeKey(p)));
      if (missing.length)
        throw new ConnectorError(
          'credentials_rejected',
          `${ATS}: the API key is missing the ${missing.join(' and ')} permission${missing.length > 1 ? 's' : ''}.`,
          undefined,
          'api_key',
        );
      return;
    }
    // No permission list (P279): a read the key must be able to make proves the key and its jobsRead.
    await provesJobsRead(credentials, jobs);
  },

  readOutcome: (ref: OutcomeRef, credentials: AtsCredentials) => readApplication(ref, credentials),
};
