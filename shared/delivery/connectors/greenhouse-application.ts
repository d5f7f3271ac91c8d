/**
 * The JSON body of a Greenhouse application (P280), built against the job as Greenhouse returns it with
 * `questions=true`. Source: https://developers.greenhouse.io/job-board.html#submit-an-application (the public
 * repository grnhse/greenhouse-api-docs, source/includes/job-board/_applications.md):
 * - names, e-mail, phone as `first_name`, `last_name`, `email`, `phone`;
 * - files as Base64 "Direct upload | application/json": `resume_content` + `resume_content_filename`,
 *   `cover_letter_content` + `…_filename`, and for a custom file question `question_{id}_content` + `…_filename`.
 *   One résumé and one cover letter exist; every further file goes to a free file question of the job whose
 *   label fits its type, else the application is `attachment_rejected` (nothing is dropped);
 * - answers as `question_{id}`, values as the JSON example types them (an option's value, a multi-select an
 *   array of them), a file question's answer as `question_{id}_url` + `question_{id}_url_filename`;
 * - GDPR consent as the `data_compliance` object when the job's `data_compliance` asks for it.
 */
import { ConnectorError, type Submission, type SubmissionAttachment } from '#delivery/connectors/connector.js';
import { ATTACHMENTS, GREENHOUSE_FILE_EXTENSIONS } from '#delivery/connectors/greenhouse-descriptor.js';
import { attachmentBytes } from '#delivery/connectors/http.js';
import { candidateName, httpUrl, listAnswer, text, yesNo } from '#delivery/connectors/mapping.js';
import {
  CONSENT_FLAGS,
  DEMOGRAPHIC_CONSENT,
  isYesNo,
  questionFields,
  questionId,
  requiredConsents,
  type GreenhouseField,
  type GreenhouseJob,
} from '#delivery/connectors/greenhouse-jobs.js';

const ATS = 'Greenhouse';
// The file types and the size limit are the descriptor's (greenhouse-descriptor.ts, P283).
export { GREENHOUSE_FILE_EXTENSIONS } from '#delivery/connectors/greenhouse-descriptor.js';

/** The custom file question a further file of our type fits, by the question's label (P280). */
const FILE_QUESTION: Record<string, RegExp> = {
  cv: /resume|résumé|\bcv\b|curriculum|lebenslauf/i,
  cover_letter: /cover|motivation|anschreiben/i,
  certificate: /certificat|diploma|zeugnis|transcript|reference/i,
  work_sample: /sample|portfolio/i,
  photo: /photo|picture|image/i,
};
/** A question for any further file ("Additional documents", "Other attachments"). */
const ANY_FILE = /other|additional|further|supporting|document|attachment/i;

type FileTarget = { attachment: SubmissionAttachment; prefix: string };

/**
 * Where each file goes: the first `cv` to `resume`, the first `cover_letter` to `cover_letter`, every other
 * file to a file question of the job not answered otherwise, the one whose label names its type first, else
 * one for any further document. A file with no place is `attachment_rejected` before anything is sent.
 */
function fileTargets(
  attachments: SubmissionAttachment[],
  fileQuestions: { id: string; label: string }[],
  taken: Set<string>,
): FileTarget[] {
  const used = new Set(taken);
  const out: FileTarget[] = [];
  const free = (pattern: RegExp | undefined) => (pattern ? fileQuestions.find((q) => !used.has(q.id) && pattern.test(q.label)) : undefined);
  for (const attachment of attachments) {
    if (attachment.type === 'cv' && !used.has('resume')) {
      used.add('resume');
      out.push({ attachment, prefix: 'resume' });
      continue;
    }
    if (attachment.type === 'cover_letter' && !used.has('cover_letter')) {
      used.add('cover_letter');
      out.push({ attachment, prefix: 'cover_letter' });
      continue;
    }
    const question = free(Object.hasOwn(FILE_QUESTION, attachment.type) ? FILE_QUESTION[attachment.type] : undefined) ?? free(ANY_FILE);
    if (!question)
      throw new ConnectorError(
        'attachment_rejected',
        `${ATS} takes one resume, one cover letter and one file per file question of the job; the job has no free file question for a further ${attachment.type} file.`,
      );
    used.add(question.id);
    out.push({ attachment, prefix: `question_${question.id}` });
  }
  return out;
}

/** The option an answer names, by value or by label, as the job typed its value (a number stays a number). */
function optionOf(field: GreenhouseField, answer: string, id: string): unknown {
  const values = field.values ?? [];
  const found =
    values.find((v) => String(v?.value ?? '') === answer) ??
    values.find((v) => String(v?.label ?? '').toLowerCase() === answer.toLowerCase());
  if (!found) throw new ConnectorError('invalid_data', `${ATS} question ${id}: the answer is none of its options.`);
  return found.value;
}

/** A file question's answer: a public http(s) URL of the file, sent as `_url` and `_url_filename`. */
function fileAnswer(id: string, answer: string): [string, unknown][] {
  const url = httpUrl(answer);
  if (!url) throw new ConnectorError('invalid_data', `${ATS} question ${id} takes a file: answer it with an http(s) URL of the file.`);
  const last = new URL(url).pathname.split('/').pop() ?? '';
  let filename = last;
  try {
    filename = decodeURIComponent(last);
  } catch {
    // A stray `%` stays as it is: the name is only the file's label at Greenhouse.
  }
  const extension = filename.includes('.') ? filename.split('.').pop()!.toLowerCase() : '';
  if (!GREENHOUSE_FILE_EXTENSIONS.includes(extension))
    throw new ConnectorError(
      'attachment_rejected',
      `${ATS} accepts only ${GREENHOUSE_FILE_EXTENSIONS.join(', ')} files; the file answering question ${id} is not one.`,
    );
  return [
    [`question_${id}_url`, url],
    [`question_${id}_url_filename`, filename],
  ];
}

/** Each screening answer as the key/value pairs of the body, typed by the job's own field (not the partner's label). */
function answerPairs(submission: Submission, job: GreenhouseJob): { pairs: [string, unknown][]; answered: Set<string> } {
  const questions = questionFields(job);
  const pairs: [string, unknown][] = [];
  const answered = new Set<string>();
  submission.screeningAnswers.forEach((answer, index) => {
    const raw = String(answer.id ?? '');
    const id = /^\d+$/.test(raw) ? raw : questionId(raw);
    const question = id ? questions.get(id) : undefined;
    // The id is the partner's: only a number is named in the message.
    if (!id || !question)
      throw new ConnectorError('invalid_data', `${ATS}: answer ${index + 1} names no question of the job${id ? ` (${id})` : ''}.`);
    if (answered.has(id)) throw new ConnectorError('invalid_data', `${ATS}: question ${id} is answered twice.`);
    answered.add(id);
    const value = String(answer.answer ?? '').trim();
    if (!value) return; // an empty answer answers nothing; Greenhouse does not enforce required questions
    const { field } = question;
    if (field.type === 'input_file') pairs.push(...fileAnswer(id, value));
    else if (field.type === 'multi_value_multi_select')
      pairs.push([`question_${id}`, listAnswer(value).map((v) => optionOf(field, v, id))]);
    else if (field.type === 'multi_value_single_select') {
      const yes = isYesNo(field) ? yesNo(value) : undefined;
      pairs.push([`question_${id}`, optionOf(field, yes === undefined ? value : yes ? '1' : '0', id)]);
    } else pairs.push([`question_${id}`, String(answer.answer ?? '')]);
  });
  return { pairs, answered };
}

const CONSENT_KEYS: readonly string[] = [...Object.keys(CONSENT_FLAGS), DEMOGRAPHIC_CONSENT];

/**
 * The `data_compliance` object (P280), from `custom_fields.consent_decisions` in Greenhouse's own names
 * (`gdpr_consent_given`, `gdpr_processing_consent_given`, `gdpr_retention_consent_given`,
 * `gdpr_demographic_data_consent_given`, each true or false), as SmartRecruiters reads its consent from the same
 * place in its own names. Sent only when the job carries `data_compliance`; a consent the job asks for and the
 * partner did not give is `invalid_data` (never a consent we invent); any other shape is `invalid_data`.
 */
export function consentAnswers(customFields: Record<string, unknown>, job: GreenhouseJob): Record<string, boolean> | undefined {
  if (!Array.isArray(job.data_compliance) || job.data_compliance.length === 0) return undefined;
  const required = requiredConsents(job);
  const given = Object.hasOwn(customFields, 'consent_decisions') ? customFields.consent_decisions : undefined;
  if (given === undefined || given === null) {
    if (!required.length) return undefined;
    throw new ConnectorError(
      'invalid_data',
      `${ATS}: the job asks for GDPR consent (${required.join(', ')}); give it in custom_fields.consent_decisions.`,
    );
  }
  const entries = typeof given === 'object' && !Array.isArray(given) ? Object.entries(given as Record<string, unknown>) : [];
  if (!entries.length || entries.some(([k, v]) => !CONSENT_KEYS.includes(k) || typeof v !== 'boolean'))
    throw new ConnectorError('invalid_data', `${ATS} takes consent_decisions as booleans for ${CONSENT_KEYS.join(', ')}.`);
  const missing = required.filter((key) => !entries.some(([k]) => k === key));
  if (missing.length)
    throw new ConnectorError(
      'invalid_data',
      `${ATS}: the job asks for GDPR consent (${missing.join(', ')}), which consent_decisions lacks.`,
    );
  // Only the documented keys get here, so they are safe as object keys.
  return Object.fromEntries(entries) as Record<string, boolean>;
}

/** The JSON body of an application to `job` (exported for the document's example and the tests). */
export async function greenhouseApplicationBody(submission: Submission, job: GreenhouseJob): Promise<Record<string, unknown>> {
  const name = candidateName(submission.candidate);
  const phone = text(submission.candidate.phone);
  const body: Record<string, unknown> = { first_name: name.first, last_name: name.last, email: String(submission.candidate.email ?? '') };
  if (phone) body.phone = phone;
  const { pairs, answered } = answerPairs(submission, job);
  const fileQuestions = [...questionFields(job)]
    .filter(([, q]) => q.field.type === 'input_file')
    .map(([id, q]) => ({ id, label: q.label }));
  const consent = consentAnswers(submission.customFields, job);
  for (const { attachment, prefix } of fileTargets(submission.attachments, fileQuestions, answered)) {
    const bytes = await attachmentBytes(ATS, attachment, ATTACHMENTS);
    // "File size must be > 0 bytes" (the page's Validations on POST Requests).
    if (bytes.length === 0)
      throw new ConnectorError('attachment_rejected', `${ATS} refuses empty files; the ${attachment.type} file is empty.`);
    body[`${prefix}_content`] = bytes.toString('base64');
    body[`${prefix}_content_filename`] = attachment.name;
  }
  for (const [key, value] of pairs) body[key] = value;
  if (consent) body.data_compliance = consent;
  return body;
}
