/**
 * What the SmartRecruiters simulator refuses in `POST /postings/{uuid}/candidates`, rule by rule, each with
 * the vendor page it comes from (P275). These rules follow SmartRecruiters' reference, not our connector:
 * - POST: https://developers.smartrecruiters.com/docs/partners-post-an-application (the guide: required fields,
 *   files, consent, answer values and their 4000 bytes, the two documented error messages);
 * - REF: https://developers.smartrecruiters.com/reference/applications-2 ("Create new candidate and apply": the body's
 *   properties, `web.linkedIn`, `answers[].records[].fields`), as the issue's second reading quotes it;
 * - FILES: https://help.smartrecruiters.com/?title=Marketplace_Partners/4.Career_site_builders_%26_sourcing_tools/Sending_attachments_via_Application_API
 *   ("failed to load PDF file" when the Base64 is not the file).
 * Assumed, where those pages are silent (docs/connectors/smartrecruiters.md, "Assumptions"): the error body
 * `{errors: [{code, message}]}` with status 400, and that properties the reference does not list are refused
 * (a real API may drop them silently instead: data lost either way, so the simulator makes it visible).
 */
import type { Reply } from './server.js';

export interface SmartRecruitersFieldFixture {
  id: string;
  label: string;
  type: string;
  required?: boolean;
  complianceType?: string;
  values?: { id: string; label: string }[];
}

export interface SmartRecruitersQuestionFixture {
  id: string;
  label: string;
  repeatable?: boolean;
  fields: SmartRecruitersFieldFixture[];
}

/** REF: the properties of the apply request (ApplyApiRequest). */
export const APPLY_PROPERTIES = [
  'firstName',
  'lastName',
  'email',
  'phoneNumber',
  'location',
  'web',
  'tags',
  'education',
  'experience',
  'avatar',
  'resume',
  'attachments',
  'messageToHiringManager',
  'sourceDetails',
  'answers',
  'consent',
  'consentDecisions',
  'internal',
  'createJoinLink',
];
/** REF: the keys of `web` (`linkedIn` in camel case). */
export const WEB_KEYS = ['linkedIn', 'facebook', 'twitter', 'website', 'skype'];
/** POST "GDPR Compliance": `{"SINGLE": bool}` alone, or up to four of these. */
const CONSENT_SCOPES = ['SMART_RECRUIT', 'SMART_CRM', 'SMART_MESSAGE_SMS', 'SMART_MESSAGE_WHATSAPP'];
/** POST: "The accepted files are PDF, DOC(X), RTF, JPG, and PNG" (by extension and media type). */
export const SMARTRECRUITERS_EXTENSIONS = ['pdf', 'doc', 'docx', 'rtf', 'jpg', 'jpeg', 'png'];
const MEDIA_TYPES = [
  'application/pdf',
  'application/msword',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/rtf',
  'text/rtf',
  'image/jpeg',
  'image/png',
];
/** POST: "The current limit is 2 MB per file". */
const MAX_FILE_BYTES = 2 * 1024 * 1024;
/** POST: text, textarea and currency answers take at most 4000 bytes of UTF-8. */
const MAX_TEXT_BYTES = 4000;
/** FILES: the bytes a file of each type starts with ("failed to load PDF file" otherwise). */
const MAGIC = new Map([
  ['pdf', Buffer.from('%PDF')],
  ['png', Buffer.from([0x89, 0x50, 0x4e, 0x47])],
]);

export const invalid = (message: string, code = 'VALIDATION_ERROR'): Reply => ({ status: 400, body: { errors: [{ code, message }] } });

const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);
const unknownKeys = (value: Record<string, unknown>, known: readonly string[]) => Object.keys(value).filter((k) => !known.includes(k));
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The candidate's own properties: REF (names, `web` keys), POST (required fields, consent). */
function candidateRefusal(body: Record<string, unknown>): Reply | undefined {
  const unknown = unknownKeys(body, APPLY_PROPERTIES);
  if (unknown.length) return invalid(`Unrecognized field(s): ${unknown.join(', ')}.`, 'UNRECOGNIZED_FIELD');
  // POST: "The only required fields are: firstName, lastName, email and answers (if there are required screening questions)".
  for (const field of ['firstName', 'lastName', 'email'])
    if (typeof body[field] !== 'string' || !String(body[field]).trim()) return invalid(`${field} is required.`);
  for (const field of ['phoneNumber', 'messageToHiringManager'])
    if (body[field] !== undefined && typeof body[field] !== 'string') return invalid(`${field} must be a string.`);
  if (body.location !== undefined && !isObject(body.location)) return invalid('location must be an object.');
  if (body.web !== undefined) {
    if (!isObject(body.web)) return invalid('web must be an object.');
    // REF: `web` has linkedIn, facebook, twitter, website, skype: a misnamed key (`linkedin`) is refused.
    const misnamed = unknownKeys(body.web, WEB_KEYS);
    if (misnamed.length) return invalid(`Unrecognized field(s): ${misnamed.map((k) => `web.${k}`).join(', ')}.`, 'UNRECOGNIZED_FIELD');
    if (Object.values(body.web).some((v) => typeof v !== 'string')) return invalid('web values must be strings.');
  }
  if (body.consentDecisions !== undefined) {
    // POST "GDPR Compliance": single consent is one entry SINGLE; separated consent up to the four scopes.
    const decisions = body.consentDecisions;
    const ok =
      isObject(decisions) &&
      Object.values(decisions).every((v) => typeof v === 'boolean') &&
      ((Object.keys(decisions).length === 1 && Object.hasOwn(decisions, 'SINGLE')) ||
        (Object.keys(decisions).length > 0 && unknownKeys(decisions, CONSENT_SCOPES).length === 0));
    if (!ok) return invalid('consentDecisions is invalid.');
  }
  return undefined;
}

/** One record of an answer: REF `{fields: {fieldId: [values]}}`; POST values are strings, option ids for selects, text ≤ 4000 bytes. */
function recordIsCorrect(question: SmartRecruitersQuestionFixture, record: unknown): boolean {
  // REF: the values sit in the record's `fields`; a record without that wrapper (`{fieldId: [...]}`) is wrong.
  if (!isObject(record) || unknownKeys(record, ['fields']).length || !isObject(record.fields)) return false;
  const fields = record.fields;
  const valuesOk = Object.entries(fields).every(([fieldId, values]) => {
    const field = question.fields.find((f) => f.id === fieldId);
    if (!field || !Array.isArray(values) || values.some((v) => typeof v !== 'string')) return false;
    if (field.values) return values.every((v) => field.values!.some((o) => o.id === v));
    return values.every((v) => Buffer.byteLength(v as string) <= MAX_TEXT_BYTES);
  });
  return valuesOk && question.fields.filter((f) => f.required).every((f) => Object.hasOwn(fields, f.id));
}

/** POST: required questions, then the answers' values, with the two documented messages. */
function answersRefusal(questions: SmartRecruitersQuestionFixture[], body: Record<string, unknown>): Reply | undefined {
  if (body.answers !== undefined && !Array.isArray(body.answers)) return invalid('answers must be an array.');
  const answers = (body.answers ?? []) as unknown[];
  const answered = (id: string) => answers.some((a) => isObject(a) && a.id === id);
  const missing = questions.filter((q) => q.fields.some((f) => f.required) && !answered(q.id)).map((q) => q.id);
  if (missing.length) return invalid(`The following screening questions are required: ${missing.join(', ')}.`);
  const incorrect: string[] = [];
  for (const answer of answers) {
    const id = isObject(answer) ? String(answer.id) : String(answer);
    const question = isObject(answer) ? questions.find((q) => q.id === answer.id) : undefined;
    // REF: an answer is `{id, records}`; POST: several records only for a repeatable question.
    const records = isObject(answer) ? answer.records : undefined;
    const shapeOk =
      question &&
      isObject(answer) &&
      unknownKeys(answer, ['id', 'records']).length === 0 &&
      Array.isArray(records) &&
      records.length > 0 &&
      (records.length === 1 || question.repeatable === true);
    if (!shapeOk || !(records as unknown[]).every((record) => recordIsCorrect(question, record))) incorrect.push(id);
  }
  if (incorrect.length) return invalid(`Values for the following screening questions' answers are incorrect: ${incorrect.join(', ')}.`);
  return undefined;
}

/** POST: `attachments` is an array of `{fileName, mimeType, fileContent}` (Base64), 2 MB each, PDF/DOC(X)/RTF/JPG/PNG. */
function attachmentsRefusal(body: Record<string, unknown>): Reply | undefined {
  if (body.attachments === undefined) return undefined;
  if (!Array.isArray(body.attachments)) return invalid('attachments must be an array.');
  for (const file of body.attachments as unknown[]) {
    if (!isObject(file) || unknownKeys(file, ['fileName', 'mimeType', 'fileContent']).length)
      return invalid('Attachment must have exactly fileName, mimeType and fileContent.', 'INVALID_ATTACHMENT');
    const { fileName, mimeType, fileContent } = file;
    if (typeof fileName !== 'string' || !fileName.trim() || typeof mimeType !== 'string' || typeof fileContent !== 'string')
      return invalid('Attachment is incomplete.', 'INVALID_ATTACHMENT');
    const extension = fileName.includes('.') ? fileName.split('.').pop()!.toLowerCase() : '';
    if (!SMARTRECRUITERS_EXTENSIONS.includes(extension) || !MEDIA_TYPES.includes(mimeType.toLowerCase()))
      return invalid('Attachment type is not supported.', 'INVALID_ATTACHMENT');
    if (!BASE64.test(fileContent)) return invalid(`failed to load ${extension.toUpperCase()} file`, 'INVALID_ATTACHMENT');
    const bytes = Buffer.from(fileContent, 'base64');
    if (bytes.length > MAX_FILE_BYTES) return invalid('Attachment size exceeds 2 MB.', 'INVALID_ATTACHMENT');
    // FILES: a file whose bytes are not of its type fails as "failed to load PDF file".
    const magic = MAGIC.get(extension);
    if (bytes.length === 0 || (magic && !bytes.subarray(0, magic.length).equals(magic)))
      return invalid(`failed to load ${extension.toUpperCase()} file`, 'INVALID_ATTACHMENT');
  }
  return undefined;
}

/** Validates an application body against the reference and the posting's questions; returns the refusal, if any. */
export function validateApplication(questions: SmartRecruitersQuestionFixture[], body: Record<string, unknown>): Reply | undefined {
  return candidateRefusal(body) ?? answersRefusal(questions, body) ?? attachmentsRefusal(body);
}
