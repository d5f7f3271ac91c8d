/**
 * The application side of the SmartRecruiters connector: the JSON body of `POST /postings/{uuid}/candidates`
 * (docs/connectors/smartrecruiters.md, "Applications"): the candidate, `web`, `consentDecisions`, the
 * screening `answers` against the posting's configuration, and the files in `attachments`. Apart from
 * smartrecruiters.ts, which makes the requests and maps the answers; nothing here makes a request.
 * Sources (P275): developers.smartrecruiters.com/docs/partners-post-an-application (required fields, files,
 * consent, answer values, 4000 bytes) and developers.smartrecruiters.com/reference/applications-2 (the
 * `answers[].records[].fields` wrapper and the `web.linkedIn` key, as the second reading quotes it).
 */
import { ConnectorError, type Submission, type SubmissionAttachment } from '#delivery/connectors/connector.js';
import {
  ATTACHMENTS,
  SMARTRECRUITERS_FILE_EXTENSIONS,
  SMARTRECRUITERS_MAX_FILE_BYTES,
} from '#delivery/connectors/smartrecruiters-descriptor.js';
import { attachmentBytes } from '#delivery/connectors/http.js';
import { candidateName, httpUrl, text, yesNo } from '#delivery/connectors/mapping.js';
import {
  answerableFields,
  answerType,
  type ConfigField,
  type SmartRecruitersConfiguration,
} from '#delivery/connectors/smartrecruiters-jobs.js';

const ATS = 'SmartRecruiters';
/** text, textarea and currency answers: at most 4000 bytes of UTF-8. */
export const SMARTRECRUITERS_MAX_TEXT_BYTES = 4000;
// The file types and limits are the descriptor's (smartrecruiters-descriptor.ts, P283).
export { ATTACHMENTS, SMARTRECRUITERS_FILE_EXTENSIONS, SMARTRECRUITERS_MAX_FILE_BYTES };

/**
 * "The accepted files are PDF, DOC(X), RTF, JPG, and PNG" (developers.smartrecruiters.com/docs/partners-post-an-application),
 * by media type → the extensions that name it. A file's type is its content type, which was checked against
 * the file's own bytes when the application was taken (P275): a PDF named `resume` is a PDF, sent as
 * `resume.pdf`; a text file named `cv.pdf` is refused.
 */
const FILE_TYPES = new Map<string, readonly string[]>([
  ['application/pdf', ['pdf']],
  ['application/msword', ['doc']],
  ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', ['docx']],
  ['application/rtf', ['rtf']],
  ['text/rtf', ['rtf']],
  ['image/jpeg', ['jpg', 'jpeg']],
  ['image/png', ['png']],
]);

/** One of our files as SmartRecruiters names it: `fileName` with the extension of its type, and `mimeType`. */
export function smartrecruitersFile(attachment: Pick<SubmissionAttachment, 'type' | 'name' | 'content_type'>) {
  const mimeType = attachment.content_type.split(';')[0].trim().toLowerCase();
  const extensions = FILE_TYPES.get(mimeType);
  if (!extensions)
    throw new ConnectorError(
      'attachment_rejected',
      `${ATS} accepts only PDF, DOC(X), RTF, JPG and PNG files; the ${attachment.type} file is not one.`,
    );
  const extension = attachment.name.includes('.') ? attachment.name.split('.').pop()!.toLowerCase() : '';
  const fileName = extensions.includes(extension) ? attachment.name : `${attachment.name}.${extensions[0]}`;
  return { fileName, mimeType };
}

/** Every file, in order, as `{fileName, mimeType, fileContent}` (Base64); the first one SmartRecruiters would refuse throws. */
async function attachmentsOf(submission: Submission) {
  // Types first: no file is read when one of them cannot go.
  const named = submission.attachments.map((attachment) => ({ attachment, ...smartrecruitersFile(attachment) }));
  const out = [];
  for (const { attachment, fileName, mimeType } of named) {
    // The size (2 MB per file); the type was checked above by content type, so no extension list here.
    const bytes = await attachmentBytes(ATS, attachment, { maxBytes: SMARTRECRUITERS_MAX_FILE_BYTES });
    if (bytes.length === 0)
      throw new ConnectorError('attachment_rejected', `${ATS} refuses empty files; the ${attachment.type} file is empty.`);
    out.push({ fileName, mimeType, fileContent: bytes.toString('base64') });
  }
  return out;
}

const CONSENT_KEYS = ['SMART_RECRUIT', 'SMART_CRM', 'SMART_MESSAGE_SMS', 'SMART_MESSAGE_WHATSAPP'];

/**
 * The candidate's GDPR decisions in SmartRecruiters' documented model, from the application's
 * `custom_fields.consent_decisions`: either `{"SINGLE": bool}` or up to four of SMART_RECRUIT, SMART_CRM,
 * SMART_MESSAGE_SMS, SMART_MESSAGE_WHATSAPP (missing ones are false at SmartRecruiters). Absent: nothing is
 * declared (every decision false). Anything else is refused, never guessed.
 */
export function consentDecisions(customFields: Record<string, unknown>): Record<string, boolean> | undefined {
  if (!Object.hasOwn(customFields, 'consent_decisions')) return undefined;
  const value = customFields.consent_decisions;
  const invalid = () =>
    new ConnectorError(
      'invalid_data',
      `${ATS} takes consent_decisions as {"SINGLE": true|false} or booleans for ${CONSENT_KEYS.join(', ')}.`,
    );
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw invalid();
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0 || entries.some(([, v]) => typeof v !== 'boolean')) throw invalid();
  const single = entries.length === 1 && entries[0][0] === 'SINGLE';
  if (!single && !entries.every(([k]) => CONSENT_KEYS.includes(k))) throw invalid();
  // Only the documented keys get here, so they are safe as object keys.
  return Object.fromEntries(entries) as Record<string, boolean>;
}

const utf8Bytes = (value: string) => Buffer.byteLength(value, 'utf8');

/** One answer's values for a field: option ids for selects (a label is resolved to its id), text otherwise. */
function answerValues(field: ConfigField, answer: string, questionId: string): string[] {
  const type = answerType(field);
  const values = type === 'multi_select' ? answer.split(',').map((v) => v.trim()) : [answer.trim()];
  const nonEmpty = values.filter((v) => v !== '');
  if (type === 'single_select' || type === 'multi_select') {
    const known = field.values ?? [];
    return nonEmpty.map((value) => {
      const byId = known.find((o) => String(o?.id) === value);
      const byLabel = known.find((o) => typeof o?.label === 'string' && o.label.trim().toLowerCase() === value.toLowerCase());
      const option = byId ?? byLabel;
      if (!option) throw new ConnectorError('invalid_data', `${ATS} screening question ${questionId} has no option matching the answer.`);
      return String(option.id);
    });
  }
  if (type === 'boolean') {
    const yes = yesNo(answer);
    if (yes !== undefined) return [String(yes)];
    throw new ConnectorError('invalid_data', `${ATS} screening question ${questionId} takes a yes/no answer.`);
  }
  for (const value of nonEmpty)
    if (utf8Bytes(value) > SMARTRECRUITERS_MAX_TEXT_BYTES)
      throw new ConnectorError(
        'invalid_data',
        `${ATS} takes at most ${SMARTRECRUITERS_MAX_TEXT_BYTES} bytes per answer; the answer to ${questionId} is longer.`,
      );
  return nonEmpty;
}

/**
 * Our screening answers → SmartRecruiters' `answers`: one entry per question, `records` with one object per
 * answer block holding `{fields: {fieldId: [values]}}` (P275). An answer id is a question id (one-field questions) or
 * `{question id}:{field id}`, as the job's screening_questions list them; answers to questions the posting
 * does not ask are not sent.
 */
export function screeningAnswers(submission: Submission, config: SmartRecruitersConfiguration | undefined) {
  const fields = answerableFields(config);
  const byQuestion = new Map<string, { id: string; record: Map<string, string[]> }>();
  for (const answer of submission.screeningAnswers) {
    const id = String(answer.id ?? '');
    const target = fields.find((f) => f.id === id);
    if (!target) continue;
    const values = answerValues(target.field, String(answer.answer ?? ''), id);
    if (values.length === 0) continue;
    const questionId = String(target.question.id);
    const entry = byQuestion.get(questionId) ?? { id: questionId, record: new Map<string, string[]>() };
    entry.record.set(String(target.field.id), values);
    byQuestion.set(questionId, entry);
  }
  return [...byQuestion.values()].map((entry) => {
    // Field ids come from the ATS: a prototype-less object carries them.
    const fields = Object.create(null) as Record<string, string[]>;
    for (const [fieldId, values] of entry.record) fields[fieldId] = values;
    // Each record wraps its field values in `fields` (P275; developers.smartrecruiters.com/reference/applications-2).
    return { id: entry.id, records: [{ fields }] };
  });
}

/** Our social link platforms → the keys of SmartRecruiters' `web` (P275: `linkedIn`, camel case). */
const WEB_FIELDS: [RegExp, string][] = [
  [/linkedin/i, 'linkedIn'],
  [/facebook/i, 'facebook'],
  [/twitter|^x$/i, 'twitter'],
  [/skype/i, 'skype'],
  [/website|portfolio|homepage|github|blog/i, 'website'],
];

/** The JSON body of an application (exported for the document's example and the tests). */
export async function smartrecruitersApplicationBody(
  submission: Submission,
  config: SmartRecruitersConfiguration | undefined,
): Promise<Record<string, unknown>> {
  const name = candidateName(submission.candidate);
  const body: Record<string, unknown> = { firstName: name.first, lastName: name.last, email: String(submission.candidate.email ?? '') };
  const phone = text(submission.candidate.phone);
  if (phone) body.phoneNumber = phone;
  const place = (submission.candidate.location ?? {}) as Record<string, unknown>;
  const city = text(place.city);
  const country = text(place.country);
  if (city || country) body.location = { ...(city ? { city } : {}), ...(country ? { country } : {}) };
  const web = new Map<string, string>();
  for (const [platform, url] of Object.entries(submission.socialLinks)) {
    const field = WEB_FIELDS.find(([pattern]) => pattern.test(platform))?.[1];
    if (field && httpUrl(url) && !web.has(field)) web.set(field, url);
  }
  if (web.size) body.web = Object.fromEntries(web);
  const consent = consentDecisions(submission.customFields);
  if (consent) body.consentDecisions = consent;
  const answers = screeningAnswers(submission, config);
  if (answers.length) body.answers = answers;
  // Every file, CV, cover letter and the others alike (the API takes an array of them; no count limit is documented).
  const attachments = await attachmentsOf(submission);
  if (attachments.length) body.attachments = attachments;
  return body;
}
