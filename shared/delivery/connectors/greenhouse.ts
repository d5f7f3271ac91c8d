/**
 * Greenhouse Job Board API (docs/connectors/greenhouse.md). Jobs: the board's list with `content=true`,
 * then each job with `questions=true&pay_transparency=true` (a few in parallel) for its questions and pay
 * ranges. Applications: JSON POST to the job with HTTP Basic auth (API key as user name, empty password),
 * resume and cover letter as Base64 content, answers as `question_{id}` (a multi-select as an array of its
 * options' values, as Greenhouse's JSON example sends it). Greenhouse can answer 200 with an error body: only a body that confirms success counts.
 */
import type { CompanyRecord } from '#companies/company-schema.js';
import type { JobInput } from '#jobs/job-schema.js';
import { ConnectorError, type AtsConnector, type AtsCredentials, type Submission } from '#delivery/connectors/connector.js';
import { atsBaseUrl, atsFetch, atsUrl, attachmentBytes, errorForStatus, jsonBody, mapLimited, segment } from '#delivery/connectors/http.js';
import {
  candidateName,
  categoryFrom,
  commitmentSchedule,
  commitmentType,
  decodeEntities,
  httpUrl,
  listAnswer,
  locationParts,
  remoteFrom,
  text,
  yesNo,
} from '#delivery/connectors/mapping.js';
import { API_URL, ATTACHMENTS, greenhouseDescriptor, PACING } from '#delivery/connectors/greenhouse-descriptor.js';
export { GREENHOUSE_FILE_EXTENSIONS } from '#delivery/connectors/greenhouse-descriptor.js';

const ATS = 'Greenhouse';

type GreenhouseField = { name?: unknown; type?: unknown; values?: { label?: unknown; value?: unknown }[] };
type GreenhouseQuestion = { required?: unknown; label?: unknown; description?: unknown; fields?: GreenhouseField[] };
type GreenhouseJob = Record<string, unknown> & {
  id?: unknown;
  location?: { name?: unknown };
  departments?: { name?: unknown }[];
  offices?: { name?: unknown; location?: unknown }[];
  metadata?: { name?: unknown; value?: unknown }[] | null;
  questions?: GreenhouseQuestion[];
  pay_input_ranges?: { min_cents?: unknown; max_cents?: unknown; currency_type?: unknown; title?: unknown; blurb?: unknown }[];
};

const ANSWER_TYPES: Record<string, string> = {
  input_text: 'text',
  input_hidden: 'text',
  textarea: 'textarea',
  input_file: 'file',
  multi_value_single_select: 'single_select',
  multi_value_multi_select: 'multi_select',
};

/** `question_123` and `question_123[]` → `123`; standard fields (first_name, resume) → undefined. */
const questionId = (name: string) => /^question_(\d+)(\[\])?$/.exec(name)?.[1];

const options = (field: GreenhouseField) =>
  (field.values ?? []).map((v) => ({ label: String(v?.label ?? ''), value: String(v?.value ?? '') }));

function screeningQuestions(questions: GreenhouseQuestion[]): NonNullable<JobInput['screening_questions']> {
  const out: NonNullable<JobInput['screening_questions']> = [];
  for (const question of questions) {
    for (const field of question.fields ?? []) {
      const id = questionId(String(field.name ?? ''));
      if (!id) continue;
      const type = String(field.type ?? '');
      const values = options(field);
      const yesNo = type === 'multi_value_single_select' && values.length === 2 && values.every((v) => /^(0|1)$/.test(v.value));
      out.push({
        id,
        question: text(question.label) ?? id,
        answer_type: yesNo ? 'boolean' : Object.hasOwn(ANSWER_TYPES, type) ? ANSWER_TYPES[type] : 'text',
        required: question.required === true,
        options: values,
      });
    }
  }
  return out;
}

function formFields(questions: GreenhouseQuestion[]): NonNullable<JobInput['application_form_fields']> {
  const out: NonNullable<JobInput['application_form_fields']> = [];
  for (const question of questions) {
    for (const field of question.fields ?? []) {
      const name = String(field.name ?? '');
      if (!name) continue;
      out.push({
        id: name,
        name,
        label: text(question.label) ?? name,
        type: String(field.type ?? ''),
        subtype: null,
        required: question.required === true,
        order: out.length + 1,
        options: options(field),
      });
    }
  }
  return out;
}

const cents = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value / 100 : null);

/** One job (with questions and pay ranges) → our Job fields (docs/connectors/greenhouse.md has the table). */
export function mapGreenhouseJob(job: GreenhouseJob): JobInput {
  const locationName = text(job.location?.name);
  const { city, country } = locationParts(locationName);
  const pay = job.pay_input_ranges?.[0];
  const metadata = (job.metadata ?? []).filter((m) => m && typeof m.name === 'string');
  const meta = (pattern: RegExp) => text(metadata.find((m) => pattern.test(String(m.name)))?.value);
  const commitment = meta(/employment type|commitment/i);
  const questions = job.questions ?? [];
  const content = typeof job.content === 'string' ? decodeEntities(job.content) : null;
  return {
    external_id: String(job.id),
    title: text(job.title),
    description: content,
    description_sections: content ? [{ id: 'content', type: 'html', order: 1, title: 'Description', content }] : [],
    posting_url: httpUrl(job.absolute_url),
    application_url: httpUrl(job.absolute_url),
    location_name: locationName,
    city,
    country,
    remote: remoteFrom(locationName, ...(job.offices ?? []).map((o) => text(o?.name))),
    employment_type: commitment ? commitmentType(commitment) : null,
    work_schedule: commitment ? commitmentSchedule(commitment) : null,
    category: categoryFrom(...(job.departments ?? []).map((d) => d?.name)),
    salary: pay ? (text(pay.title) ?? text(pay.blurb)) : null,
    salary_from: pay ? cents(pay.min_cents) : null,
    salary_to: pay ? cents(pay.max_cents) : null,
    salary_currency: pay ? text(pay.currency_type) : null,
    screening_questions: screeningQuestions(questions),
    application_form_fields: formFields(questions),
    custom_fields: {
      ...(text(job.requisition_id) ? { requisition_id: text(job.requisition_id) } : {}),
      ...(job.internal_job_id !== undefined && job.internal_job_id !== null ? { internal_job_id: String(job.internal_job_id) } : {}),
      ...((job.departments ?? []).length ? { departments: (job.departments ?? []).map((d) => String(d?.name ?? '')) } : {}),
    },
    raw_values: job,
    import_source: 'api',
  };
}

function boardUrl(credentials: AtsCredentials, path = '', query: Record<string, string> = {}) {
  return atsUrl(atsBaseUrl(API_URL), `/v1/boards/${segment(credentials.board_token)}/jobs${path}`, query);
}

async function readJson(response: Response, what: string): Promise<Record<string, unknown>> {
  const body = await jsonBody(response);
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new ConnectorError('invalid_data', `${ATS} ${what} is not a JSON object.`);
  return body as Record<string, unknown>;
}

async function listBoard(credentials: AtsCredentials, query: Record<string, string>): Promise<GreenhouseJob[]> {
  const response = await atsFetch(ATS, boardUrl(credentials, '', query), { headers: { Accept: 'application/json' } }, PACING);
  if (response.status === 404)
    throw new ConnectorError('credentials_rejected', `${ATS} knows no job board with that token (404).`, undefined, 'board_token');
  if (!response.ok) throw errorForStatus(ATS, response);
  const body = await readJson(response, 'job list');
  if (!Array.isArray(body.jobs)) throw new ConnectorError('invalid_data', `${ATS} job list has no jobs array.`);
  for (const job of body.jobs as unknown[]) {
    const id = (job as GreenhouseJob)?.id;
    if (typeof id !== 'number' && typeof id !== 'string')
      throw new ConnectorError('invalid_data', `${ATS} job list has a job without an id.`);
  }
  return body.jobs as GreenhouseJob[];
}

function filePart(name: string, bytes: Buffer): { content: string; filename: string } {
  if (bytes.length === 0) throw new ConnectorError('attachment_rejected', `${ATS} refuses empty files.`);
  return { content: bytes.toString('base64'), filename: name };
}

/** An option's value as Greenhouse's JSON example sends it: a number when it is one (option ids, yes/no's 1 and 0). */
const optionValue = (value: string) => (/^\d{1,15}$/.test(value) ? Number(value) : value);

/**
 * A screening answer as Greenhouse's JSON body takes it: a multi-select as an array under `question_{id}` (the
 * `[]` of `question_{id}[]` is form-data syntax; in JSON it would name no question), a select as its option's
 * value, yes/no as 1 or 0, text as it is.
 */
function answerValue(id: string, answer: Record<string, string>): unknown {
  const value = String(answer.answer ?? '').trim();
  switch (answer.answer_type) {
    case 'multi_select':
      return listAnswer(value).map(optionValue);
    case 'single_select':
      return optionValue(value);
    case 'boolean': {
      const yes = yesNo(value);
      if (yes === undefined) throw new ConnectorError('invalid_data', `${ATS} question ${id} takes yes or no.`);
      return yes ? 1 : 0;
    }
    default:
      return String(answer.answer ?? '');
  }
}

/** The JSON body of an application (exported for the document's example and the tests). */
export async function greenhouseApplicationBody(submission: Submission): Promise<Record<string, unknown>> {
  const name = candidateName(submission.candidate);
  const phone = text(submission.candidate.phone);
  const body: Record<string, unknown> = { first_name: name.first, last_name: name.last, email: String(submission.candidate.email ?? '') };
  if (phone) body.phone = phone;
  const resume = submission.attachments.find((a) => a.type === 'cv');
  const cover = submission.attachments.find((a) => a.type === 'cover_letter');
  if (resume) {
    const part = filePart(resume.name, await attachmentBytes(ATS, resume, ATTACHMENTS));
    body.resume_content = part.content;
    body.resume_content_filename = part.filename;
  }
  if (cover) {
    const part = filePart(cover.name, await attachmentBytes(ATS, cover, ATTACHMENTS));
    body.cover_letter_content = part.content;
    body.cover_letter_content_filename = part.filename;
  }
  for (const answer of submission.screeningAnswers) {
    const id = /^\d+$/.test(String(answer.id ?? '')) ? String(answer.id) : questionId(String(answer.id ?? ''));
    if (id) body[`question_${id}`] = answerValue(id, answer);
  }
  return body;
}

/** An application POST to a job of the board (JSON, HTTP Basic auth with the key as user name). */
function postApplication(credentials: AtsCredentials, jobId: string, body: unknown): Promise<Response> {
  const init = {
    method: 'POST',
    headers: {
      Authorization: `Basic ${Buffer.from(`${credentials.api_key}:`).toString('base64')}`,
      'Content-Type': 'application/json',
      Accept: 'application/json',
    },
    body: JSON.stringify(body),
  };
  return atsFetch(ATS, boardUrl(credentials, `/${segment(jobId)}`), init, PACING);
}

/**
 * The status with which Greenhouse refuses the key, else undefined (P211, a heuristic): an empty application to
 * job 0, which no board has. Greenhouse checks HTTP Basic auth before it looks up the job, so 401 means a wrong
 * key; 404 or a validation answer means the key was accepted. An empty body names no candidate: nothing is created.
 */
async function keyRefused(credentials: AtsCredentials): Promise<number | undefined> {
  const response = await postApplication(credentials, '0', {});
  await response.arrayBuffer().catch(() => undefined);
  if (response.status === 401 || response.status === 403) return response.status;
  if (response.status === 429 || response.status >= 500) throw errorForStatus(ATS, response);
  return undefined;
}

export const greenhouseConnector: AtsConnector = {
  ...greenhouseDescriptor,

  async listPublishedJobs(_company: CompanyRecord, credentials: AtsCredentials) {
    const listed = await listBoard(credentials, { content: 'true' });
    const detailed = await mapLimited(listed, PACING.importConcurrency, async (job) => {
      const response = await atsFetch(
        ATS,
        boardUrl(credentials, `/${segment(String(job.id))}`, { questions: 'true', pay_transparency: 'true' }),
        { headers: { Accept: 'application/json' } },
        PACING,
      );
      // Closed between the list and this read: it is not published any more.
      if (response.status === 404) return undefined;
      if (!response.ok) throw errorForStatus(ATS, response);
      return { ...job, ...(await readJson(response, 'job')) } as GreenhouseJob;
    });
    return detailed.filter((job): job is GreenhouseJob => job !== undefined).map(mapGreenhouseJob);
  },

  async submitApplication(submission: Submission, credentials: AtsCredentials) {
    const response = await postApplication(credentials, submission.jobExternalId, await greenhouseApplicationBody(submission));
    // A 401 has also been reported for a job post that is not live (../shared/ats-apis-more.md): the key is
    // probed, and only a key Greenhouse refuses there too is a rejected credential (P263).
    if (response.status === 401 || response.status === 403) {
      await response.arrayBuffer().catch(() => undefined);
      if (!(await keyRefused(credentials)))
        throw new ConnectorError('job_not_published', `${ATS} answered ${response.status} to a good key: the job is not live.`);
    }
    if (response.status === 404) throw new ConnectorError('job_not_published', `${ATS} does not know the job (404).`);
    if (!response.ok) throw errorForStatus(ATS, response);
    const answer = (await jsonBody(response)) as Record<string, unknown> | undefined;
    if (typeof answer?.success === 'string') return { externalId: null };
    const reason = [answer?.error, answer?.reason].filter((v) => typeof v === 'string').join(': ');
    if (/not live/i.test(reason)) throw new ConnectorError('job_not_published', `${ATS}: ${reason.slice(0, 200)}.`);
    if (reason) throw new ConnectorError('invalid_data', `${ATS} answered 200 with an error: ${reason.slice(0, 200)}.`);
    // Neither success nor a known error: unconfirmed, so it is retried (Greenhouse has no duplicate error).
    throw new ConnectorError('transient', `${ATS} answered 200 without confirming the application.`);
  },

  async validateCredentials(credentials: AtsCredentials) {
    // The board's job list (without content) proves the board token.
    await listBoard(credentials, {});
    const refused = await keyRefused(credentials);
    if (refused)
      throw new ConnectorError('credentials_rejected', `${ATS} rejected the Job Board API key (${refused}).`, undefined, 'api_key');
  },
};
