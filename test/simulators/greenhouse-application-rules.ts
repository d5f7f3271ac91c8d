/**
 * What Greenhouse's application POST refuses, rule by rule, each from
 * https://developers.greenhouse.io/job-board.html#submit-an-application (the public repository
 * grnhse/greenhouse-api-docs, source/includes/job-board/_applications.md, read at commit 0c37c31) unless marked
 * ASSUMED. The page documents the rules but no status or error body for a refusal: a refusal is answered as
 * reported, 200 `{"error": "Failed to save person", "reason": …}` (ASSUMED, shared/ats-apis-more.md).
 * The body is read from JSON or from multipart form data (both documented); each rule returns the reason or
 * undefined.
 */
import type { RecordedFile } from './server.js';

export type GreenhouseFieldFixture = { name: string; type: string; values?: { label: string; value: number | string }[] };
export type GreenhouseQuestionFixture = { required: boolean; label: string; fields: GreenhouseFieldFixture[] };
export type GreenhouseComplianceFixture = {
  type: 'gdpr';
  requires_consent: boolean;
  requires_processing_consent: boolean;
  requires_retention_consent: boolean;
  retention_period: number | null;
};

/** An application body as Greenhouse reads it, whatever its encoding: every key with its value(s). */
export interface ApplicationInput {
  json: boolean;
  /** JSON: the object; multipart: each field name with its value, or its values when repeated. */
  body: Record<string, unknown>;
  /** Multipart file parts (direct upload). */
  files: RecordedFile[];
}

// https://developers.greenhouse.io/job-board.html#submit-an-application, Request Parameters; the JSON example adds the EEOC fields gender, race,
// veteran_status and disability_status, and the form example the hidden `id` of the job post.
const STANDARD = new Set([
  'mapped_url_token',
  'first_name',
  'last_name',
  'email',
  'phone',
  'location',
  'latitude',
  'longitude',
  'educations',
  'employments',
  'demographic_answers',
  'data_compliance',
  'applicant_ip',
  'gender',
  'race',
  'veteran_status',
  'disability_status',
  'id',
]);
// https://developers.greenhouse.io/job-board.html#submit-an-application, Submitting Attachments: the four methods per file of the resume and the
// cover letter; `resume`/`cover_letter` themselves only as multipart file parts.
const FILE_KEYS = /^(resume|cover_letter)_(content|content_filename|url|url_filename|text)$/;
// Custom question answers and their attachment forms (`question_{id}_content`, `_url`, …), and `question_{id}[]`
// for a multi-select in form data (the form example's checkboxes).
const QUESTION_KEY = /^question_(\d+)(_content|_content_filename|_url|_url_filename|\[\])?$/;
// Multipart spellings of the nested parameters (the cURL example: `educations[][school_name_id]`, …).
const FORM_NESTED = /^(educations|employments|demographic_answers)\[\](\[[a-z_]+\])+(\[\])?(\[[a-z_]+\])?$|^data_compliance\[[a-z_]+\]$/;
// https://developers.greenhouse.io/job-board.html#submit-an-application, Validations on POST Requests: "Must be a supported file type (pdf, doc, docx, txt, rtf)".
export const FILE_EXTENSIONS = ['pdf', 'doc', 'docx', 'txt', 'rtf'];
const CONSENT_KEYS = [
  'gdpr_consent_given',
  'gdpr_processing_consent_given',
  'gdpr_retention_consent_given',
  'gdpr_demographic_data_consent_given',
];

const URL_IN = /https?:\/\/|www\.|\b[a-z0-9-]+\.(com|net|org|io|de)\b/i;
const extensionOk = (name: unknown) =>
  typeof name === 'string' && FILE_EXTENSIONS.includes(name.split('.').pop()!.toLowerCase()) && name.includes('.');
const isHttpUrl = (value: unknown) => typeof value === 'string' && /^https?:\/\/[^\s]+$/i.test(value);

/** Unknown or misnamed keys: ASSUMED refused (https://developers.greenhouse.io/job-board.html#submit-an-application lists the parameters; it does not say others are ignored). */
export function unknownKey(input: ApplicationInput): string | undefined {
  for (const key of Object.keys(input.body)) {
    if (STANDARD.has(key) || FILE_KEYS.test(key)) continue;
    const question = QUESTION_KEY.exec(key);
    // `question_{id}[]` is form-data syntax: in JSON it names no field (ASSUMED refused, P263).
    if (question && !(input.json && question[2] === '[]')) continue;
    if (!input.json && FORM_NESTED.test(key)) continue;
    return `Unknown field: ${key}`;
  }
  for (const file of input.files)
    if (!['resume', 'cover_letter'].includes(file.field) && !/^question_\d+$/.test(file.field)) return `Unknown field: ${file.field}`;
  return undefined;
}

/** https://developers.greenhouse.io/job-board.html#submit-an-application, Validations on POST Requests: Field validations. */
export function personFields(body: Record<string, unknown>): string | undefined {
  for (const field of ['first_name', 'last_name', 'email']) {
    // "first_name, last_name, and email fields are required" and "cannot be greater than 255 characters long".
    const value = body[field];
    if (typeof value !== 'string' || !value.trim()) return `Invalid attributes: ${field} is required`;
    if (value.length > 255) return `Invalid attributes: ${field} is too long`;
  }
  // "first_name, last_name, and phone fields must not contain a URL".
  for (const field of ['first_name', 'last_name', 'phone'])
    if (typeof body[field] === 'string' && URL_IN.test(body[field])) return `Invalid attributes: ${field} must not contain a URL`;
  // "email field must contain a valid email address".
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(String(body.email))) return 'Invalid attributes: email';
  return undefined;
}

/** https://developers.greenhouse.io/job-board.html#submit-an-application, Submitting Attachments (each method's required fields) and Attachments validations. */
export function attachments(input: ApplicationInput, fileQuestionIds: Set<string>): string | undefined {
  const prefixes = new Set(['resume', 'cover_letter']);
  for (const key of Object.keys(input.body)) {
    const match = /^(question_\d+)_(content|url)(_filename)?$/.exec(key);
    if (match) prefixes.add(match[1]);
  }
  for (const prefix of prefixes) {
    const { body } = input;
    const id = /^question_(\d+)$/.exec(prefix)?.[1];
    const used = ['content', 'url'].filter((m) => body[`${prefix}_${m}`] !== undefined || body[`${prefix}_${m}_filename`] !== undefined);
    // A custom question's file forms are for its file questions only ("Field values must match the field type").
    if (id && used.length && !fileQuestionIds.has(id)) return `Invalid attributes: ${prefix} is not a file question`;
    for (const method of used) {
      const value = body[`${prefix}_${method}`];
      const filename = body[`${prefix}_${method}_filename`];
      // Each method names both of its "Required Fields", e.g. "resume_content", "resume_content_filename".
      if (typeof value !== 'string' || typeof filename !== 'string')
        return `Invalid attributes: ${prefix}_${method} needs ${prefix}_${method}_filename`;
      if (!extensionOk(filename)) return `Invalid ${prefix} attachment: unsupported file type`;
      if (method === 'url' && !isHttpUrl(value)) return `Invalid ${prefix} attachment: not a URL`;
      // Base64 as the examples send it ("SGVsbG8sIHdvcmxkIQo="); anything else ASSUMED refused.
      if (method === 'content' && (!/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0))
        return `Invalid ${prefix} attachment: not Base64`;
      // "File size must be > 0 bytes".
      if (method === 'content' && Buffer.from(value, 'base64').length === 0) return `Invalid ${prefix} attachment: empty file`;
    }
  }
  for (const file of input.files) {
    if (/^question_\d+$/.test(file.field) && !fileQuestionIds.has(file.field.slice('question_'.length)))
      return `Invalid attributes: ${file.field} is not a file question`;
    if (!extensionOk(file.filename)) return `Invalid ${file.field} attachment: unsupported file type`;
    if (file.bytes.length === 0) return `Invalid ${file.field} attachment: empty file`;
  }
  return undefined;
}

/** https://developers.greenhouse.io/job-board.html#submit-an-application, Field validations: "Field values must match the field type specified on the job post question". */
export function answerFits(field: GreenhouseFieldFixture, value: unknown, json: boolean): boolean {
  const allowed = new Set((field.values ?? []).map((v) => String(v.value)));
  const scalar = (v: unknown) => typeof v === 'number' || typeof v === 'string';
  if (field.type === 'input_file') return false; // a file question takes a file (`_content`, `_url`, a file part)
  if (field.type === 'multi_value_multi_select') {
    // JSON: an array ("question_12348": [5869319, 5869317]); a form: one `question_{id}[]` value per checked box.
    const values = Array.isArray(value) ? value : json ? undefined : [value];
    return values !== undefined && values.every((v) => scalar(v) && allowed.has(String(v)));
  }
  // "question_12346": 1, "question_12347": 5869311: an option's value.
  if (field.type === 'multi_value_single_select') return scalar(value) && allowed.has(String(value));
  return typeof value === 'string';
}

/**
 * https://developers.greenhouse.io/job-board.html#submit-an-application, `data_compliance` (Request Parameters): the documented consent keys, true or false (JSON) or "true"/"1"/"0"/"false"
 * (a form's checkbox). ASSUMED refused: another key, another value, and a consent the job's `data_compliance`
 * asks for but the body lacks (the page says required *questions* are not enforced; it says nothing of consent).
 * Which answer a requirement asks for follows the page: `gdpr_consent_given` "if your organization doesn't have
 * single-purpose consent configured, otherwise use separate values for processing and retention".
 */
export function consent(input: ApplicationInput, compliance: GreenhouseComplianceFixture[]): string | undefined {
  const given = new Map<string, unknown>();
  if (input.json) {
    const value = input.body.data_compliance;
    if (value !== undefined) {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return 'Invalid attributes: data_compliance';
      for (const [key, v] of Object.entries(value)) given.set(key, v);
    }
  } else
    for (const [key, v] of Object.entries(input.body)) {
      const match = /^data_compliance\[([a-z_]+)\]$/.exec(key);
      if (match) given.set(match[1], v);
    }
  for (const [key, value] of given) {
    if (!CONSENT_KEYS.includes(key)) return `Invalid attributes: data_compliance[${key}]`;
    if (input.json ? typeof value !== 'boolean' : !['true', 'false', '1', '0'].includes(String(value)))
      return `Invalid attributes: data_compliance[${key}]`;
  }
  const separate = compliance.some((c) => c.requires_processing_consent || c.requires_retention_consent);
  const required = [
    ...(compliance.some((c) => c.requires_consent) && !separate ? ['gdpr_consent_given'] : []),
    ...(compliance.some((c) => c.requires_processing_consent) ? ['gdpr_processing_consent_given'] : []),
    ...(compliance.some((c) => c.requires_retention_consent) ? ['gdpr_retention_consent_given'] : []),
  ];
  const missing = required.find((key) => !given.has(key));
  return missing ? `Invalid attributes: data_compliance[${missing}] is required` : undefined;
}

/** https://developers.greenhouse.io/job-board.html#submit-an-application: educations, employments and demographic_answers in JSON, as Request Parameters describe each object. */
export function nested(body: Record<string, unknown>): string | undefined {
  const list = (key: string) =>
    body[key] === undefined ? [] : Array.isArray(body[key]) ? (body[key] as Record<string, unknown>[]) : undefined;
  const date = (v: unknown) => !!v && typeof v === 'object' && 'month' in v && 'year' in v;
  const educations = list('educations');
  // "Each education object should have five fields: school_name_id, degree_id, discipline_id, start_date, and end_date".
  if (
    !educations ||
    educations.some((e) => !e?.school_name_id || !e.degree_id || !e.discipline_id || !date(e.start_date) || !date(e.end_date))
  )
    return 'Invalid attributes: educations';
  const employments = list('employments');
  // "company_name, title, start_date, and current (must be true or false). If current is false, must have end_date."
  if (
    !employments ||
    employments.some((e) => {
      const current = String(e?.current);
      return (
        !e?.company_name ||
        !e.title ||
        !date(e.start_date) ||
        !['true', 'false'].includes(current) ||
        (current === 'false' && !date(e.end_date))
      );
    })
  )
    return 'Invalid attributes: employments';
  const demographic = list('demographic_answers');
  // "Each object must have a question_id field"; answer_options "may be empty, null, or omitted".
  if (
    !demographic ||
    demographic.some((d) => d?.question_id === undefined || (d.answer_options != null && !Array.isArray(d.answer_options)))
  )
    return 'Invalid attributes: demographic_answers';
  return undefined;
}
