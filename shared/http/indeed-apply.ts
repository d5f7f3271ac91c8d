/**
 * The `indeed` apply format (issue 23 item 2, P204): Indeed Apply posts its application JSON raw to the job's
 * `postUrl` (our apply URL), signed with `X-Indeed-Signature`: the Base64 of HMAC-SHA1 over the raw body under
 * the API secret Indeed issued (the channel's sealed secret). It follows no redirects and reads the status:
 * 400 a required key is missing, 401 the signature is missing or wrong, 404 the job is invalid, 409 a
 * duplicate (same job and e-mail within 120 days; Indeed does not send it again), 410 the job expired, 413
 * the payload is too large, 422 the application could not be saved; a 2xx means stored.
 *
 * Mapping onto our application JSON (then the same create path as POST /applications/):
 * `applicant.fullName` → `candidate.full_name` (`firstName`/`lastName` when given), `applicant.email`,
 * `applicant.phoneNumber` → `candidate.phone`, `applicant.coverletter` (or `coverLetter`) → a `cover_letter`
 * attachment (text/plain), `applicant.resume.file {fileName, contentType, data}` → a `cv` attachment,
 * `questionsAndAnswers.questionsAndAnswers[]` → `screening_questions`, `id` → `partner_application_id`,
 * `appliedOnMillis` → `applied_at`, `locale` → `candidate.language`. Unknown fields are ignored, as Indeed asks.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError, ValidationError, fieldErrors, type FieldErrors } from '#platform/errors.js';
import { jsonObject } from '#http/json-body.js';
import { InvalidSignatureError, type ApplyFormatHandler } from '#http/apply-format.js';

/** Indeed's duplicate window: the same job and e-mail within 120 days is a duplicate (409). */
export const INDEED_DUPLICATE_DAYS = 120;

/** Keys Indeed's documentation names required: their absence is a 400 (other invalid data: 422, not saved). */
class MissingKeyError extends ApiError {
  constructor(errors: FieldErrors) {
    super(400, 'missing_key', `Required keys are missing: ${Object.keys(errors).join(', ')}.`, errors);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

/** The answer of one screener question as text (Indeed sends `value`, `label` or lists of them). */
function answerText(answer: unknown): string | undefined {
  if (typeof answer === 'string') return answer;
  if (!isObject(answer)) return undefined;
  for (const name of ['value', 'label']) {
    const value = answer[name];
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  }
  for (const name of ['values', 'labels']) {
    const value = answer[name];
    if (Array.isArray(value)) return value.filter((v) => typeof v === 'string' || typeof v === 'number').join(', ');
  }
  return undefined;
}

function screeningQuestions(qa: unknown): Record<string, unknown>[] | undefined {
  const list = isObject(qa) ? qa.questionsAndAnswers : undefined;
  if (!Array.isArray(list)) return undefined;
  return list.filter(isObject).map((entry, i) => {
    const question = isObject(entry.question) ? entry.question : {};
    const answer = answerText(entry.answer);
    return {
      id: str(question.id) ?? `q${i + 1}`,
      ...(str(question.question) ? { question: question.question } : {}),
      ...(answer !== undefined ? { answer } : {}),
    };
  });
}

/** Our application fields from an Indeed Apply body; a missing required key is a 400 naming it. */
export function fromIndeedApplication(body: Record<string, unknown>): Record<string, unknown> {
  const applicant = isObject(body.applicant) ? body.applicant : undefined;
  const missing = fieldErrors();
  if (!applicant) missing.applicant = ['Required.'];
  else {
    if (!str(applicant.fullName) && !(str(applicant.firstName) && str(applicant.lastName))) missing['applicant.fullName'] = ['Required.'];
    if (!str(applicant.email)) missing['applicant.email'] = ['Required.'];
  }
  if (Object.keys(missing).length) throw new MissingKeyError(missing);
  const a = applicant!;
  const candidate: Record<string, unknown> = { email: a.email };
  if (str(a.fullName)) candidate.full_name = a.fullName;
  if (str(a.firstName) && str(a.lastName)) Object.assign(candidate, { first_name: a.firstName, last_name: a.lastName });
  if (str(a.phoneNumber)) candidate.phone = a.phoneNumber;
  if (str(body.locale)) candidate.language = body.locale;
  const attachments: Record<string, unknown>[] = [];
  const resume = isObject(a.resume) && isObject(a.resume.file) ? a.resume.file : undefined;
  if (resume) attachments.push({ type: 'cv', name: resume.fileName, content_type: resume.contentType, data: resume.data });
  const letter = str(a.coverletter) ?? str(a.coverLetter);
  if (letter)
    attachments.push({
      type: 'cover_letter',
      name: 'cover-letter.txt',
      content_type: 'text/plain',
      data: Buffer.from(letter, 'utf8').toString('base64'),
    });
  const fields: Record<string, unknown> = { candidate };
  if (attachments.length) fields.attachments = attachments;
  const questions = screeningQuestions(body.questionsAndAnswers);
  if (questions?.length) fields.screening_questions = questions;
  if (str(body.id)) fields.partner_application_id = body.id;
  if (typeof body.appliedOnMillis === 'number' && Number.isFinite(body.appliedOnMillis)) {
    const at = new Date(body.appliedOnMillis);
    if (!Number.isNaN(at.getTime())) fields.applied_at = at.toISOString();
  }
  return fields;
}

/** Whether `signature` is the Base64 HMAC-SHA1 of `body` under `secret` (compared in constant time). */
export function indeedSignatureValid(secret: string, body: Buffer, signature: string | undefined): boolean {
  if (!signature) return false;
  const expected = createHmac('sha1', secret).update(body).digest();
  const given = Buffer.from(signature.trim(), 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export const indeedFormat: ApplyFormatHandler = {
  verify(secret, headers, body) {
    if (!indeedSignatureValid(secret, body, headers('x-indeed-signature'))) throw new InvalidSignatureError();
  },
  read(body) {
    const parsed = jsonObject(body);
    const fields = fromIndeedApplication(parsed);
    const candidate = fields.candidate as { email: string };
    return {
      fields,
      identity: {
        // Indeed's application id names the delivery; the window covers the same person applying again.
        ...(str(parsed.id) ? { deliveryId: parsed.id as string } : {}),
        duplicateWindow: { email: candidate.email, days: INDEED_DUPLICATE_DAYS },
      },
    };
  },
  // Indeed reads only the status; the body names our application and nothing personal.
  created: ({ id }) => ({ statusCode: 201, body: { id, status: 'stored' } }),
  duplicate: (applicationId) =>
    Promise.resolve({
      statusCode: 409,
      body: { detail: 'A duplicate of an application already received.', code: 'duplicate', id: applicationId },
    }),
  error(error) {
    // Our validation of the mapped application failed: Indeed's "could not be saved".
    if (error instanceof ValidationError && !(error instanceof MissingKeyError))
      return { statusCode: 422, body: { detail: 'The application could not be saved.', code: 'not_saved', errors: error.errors } };
    // D17: a deactivated or deleted company takes no applications; for Indeed that job has expired.
    if (error.statusCode === 403)
      return { statusCode: 410, body: { detail: 'This job no longer takes applications.', code: 'job_closed' } };
    return { statusCode: error.statusCode, body: error.body() };
  },
};
