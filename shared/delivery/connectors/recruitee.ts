/**
 * Recruitee Careers Site API (docs/connectors/recruitee.md). No credentials: the API lives on the company's
 * careers-site address (`https://{company}.recruitee.com/api/...`) and needs no authorization, so the one
 * credential field is the careers-site subdomain. Jobs: `GET /api/offers/`, one answer with every published
 * offer (no paging is documented), screening questions inside each offer as `open_questions`.
 * Applications: multipart POST to `/api/offers/{offer id}/candidates` with `candidate[name]`, `[email]`,
 * `[phone]`, the CV as the `candidate[cv]` file part and answers as
 * `candidate[open_question_answers_attributes][i][…]` (`content`, `multi_content[]`, `flag` or
 * `remote_file_url` by question kind); 201 `{candidate:{id}}`. A careers site that no longer exists (404 on
 * the company) is this connector's "rejected credentials": the company's connection is broken until fixed.
 */
import type { CompanyRecord } from '#companies/company-schema.js';
import type { JobInput } from '#jobs/job-schema.js';
import {
  ConnectorError,
  type AtsConnector,
  type AtsCredentials,
  type Submission,
  type SubmissionAttachment,
} from '#delivery/connectors/connector.js';
import { atsBaseUrl, atsFetch, atsUrl, attachmentBytes, errorForStatus, jsonBody, segment } from '#delivery/connectors/http.js';
import { candidateName, categoryFrom, httpUrl, listAnswer, text, yesNo } from '#delivery/connectors/mapping.js';
import { API_URL, ATTACHMENTS, PACING, recruiteeDescriptor } from '#delivery/connectors/recruitee-descriptor.js';
export { RECRUITEE_FILE_EXTENSIONS } from '#delivery/connectors/recruitee-descriptor.js';

const ATS = 'Recruitee';

/** Our attachment `type` → the multipart file field it goes in. Any other type has no field (attachment_rejected). */
const FILE_FIELDS: Record<string, string> = { cv: 'candidate[cv]', cover_letter: 'candidate[cover_letter_file]' };

type OpenQuestionOption = { id?: unknown; body?: unknown; position?: unknown };
type OpenQuestion = {
  id?: unknown;
  kind?: unknown;
  required?: unknown;
  position?: unknown;
  body?: unknown;
  open_question_options?: OpenQuestionOption[] | null;
};
type Offer = Record<string, unknown> & {
  id?: unknown;
  status?: unknown;
  salary?: { min?: unknown; max?: unknown; currency?: unknown; period?: unknown } | null;
  open_questions?: OpenQuestion[] | null;
};

/** Recruitee's open question `kind` → our screening `answer_type`. */
const ANSWER_TYPES: Record<string, string> = {
  string: 'text',
  text: 'textarea',
  single_choice: 'single_select',
  multi_choice: 'multi_select',
  boolean: 'boolean',
  legal: 'consent',
  date: 'date',
  number: 'number',
  salary: 'salary',
  file: 'file',
  video: 'video',
};

const PERIODS: Record<string, string> = { year: 'annual', month: 'monthly', week: 'weekly', day: 'daily', hour: 'hourly' };

const num = (value: unknown): number | null => {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim())) return Number(value.trim());
  return null;
};

const questionOptions = (question: OpenQuestion) =>
  [...(Array.isArray(question.open_question_options) ? question.open_question_options : [])]
    .filter((o) => o && text(o.body))
    .sort((a, b) => (num(a.position) ?? 0) - (num(b.position) ?? 0))
    // Recruitee takes the option's text as the answer (`content` / `multi_content`), so label and value are the text.
    .map((o) => ({ label: text(o.body)!, value: text(o.body)! }));

const openQuestions = (offer: Offer): OpenQuestion[] =>
  (Array.isArray(offer.open_questions) ? offer.open_questions : [])
    .filter((q) => q && (typeof q.id === 'number' || typeof q.id === 'string'))
    .sort((a, b) => (num(a.position) ?? 0) - (num(b.position) ?? 0));

const answerType = (kind: unknown) => (typeof kind === 'string' && Object.hasOwn(ANSWER_TYPES, kind) ? ANSWER_TYPES[kind] : 'text');

function screeningQuestions(offer: Offer): NonNullable<JobInput['screening_questions']> {
  return openQuestions(offer).map((q) => ({
    id: String(q.id),
    question: text(q.body) ?? String(q.id),
    answer_type: answerType(q.kind),
    required: q.required === true,
    options: questionOptions(q),
  }));
}

/** The careers-site form: name and e-mail always, phone/CV/cover letter/photo by the offer's `options_*` (else Recruitee's defaults), then the questions. */
function formFields(offer: Offer): NonNullable<JobInput['application_form_fields']> {
  const out: NonNullable<JobInput['application_form_fields']> = [
    { id: 'name', name: 'candidate[name]', label: 'Full name', type: 'string', subtype: null, required: true, order: 1, options: [] },
    { id: 'email', name: 'candidate[email]', label: 'Email', type: 'email', subtype: null, required: true, order: 2, options: [] },
  ];
  // Without its setting in the feed, a field has Recruitee's default: phone and CV required, the others off.
  const standard: [string, string, string, string, string][] = [
    ['options_phone', 'phone', 'Phone', 'string', 'required'],
    ['options_cv', 'cv', 'CV', 'file', 'required'],
    ['options_cover_letter', 'cover_letter', 'Cover letter', 'text', 'off'],
    ['options_photo', 'photo', 'Photo', 'file', 'off'],
  ];
  for (const [option, id, label, type, byDefault] of standard) {
    const setting = text(offer[option]) ?? byDefault;
    if (setting === 'off') continue;
    out.push({
      id,
      name: `candidate[${id}]`,
      label,
      type,
      subtype: null,
      required: setting === 'required',
      order: out.length + 1,
      options: [],
    });
  }
  for (const q of openQuestions(offer)) {
    out.push({
      id: `open_question_${String(q.id)}`,
      name: `open_question_${String(q.id)}`,
      label: text(q.body) ?? String(q.id),
      type: typeof q.kind === 'string' ? q.kind : 'string',
      subtype: null,
      required: q.required === true,
      order: out.length + 1,
      options: questionOptions(q),
    });
  }
  return out;
}

/** `employment_type_code` ("fulltime_permanent", "parttime", "internship", "freelance", …) → our employment type. */
export function recruiteeEmploymentType(code: string): JobInput['employment_type'] {
  if (/intern/i.test(code)) return 'intern';
  if (/freelance/i.test(code)) return 'freelance';
  if (/apprentice|trainee/i.test(code)) return 'apprenticeship';
  if (/volunteer/i.test(code)) return 'volunteer';
  if (/temporary|seasonal/i.test(code)) return 'temporary';
  if (/contract|fixed_term|fixed-term/i.test(code)) return 'contract';
  if (/permanent|full_?time|part_?time/i.test(code)) return 'permanent';
  return 'other';
}

function schedule(code: string): JobInput['work_schedule'] {
  if (/part_?time/i.test(code)) return 'part_time';
  if (/full_?time/i.test(code)) return 'full_time';
  return null;
}

function seniority(code: string | null): JobInput['senority'] {
  if (!code) return null;
  if (/student|intern/i.test(code)) return 'unexperienced';
  if (/entry|junior/i.test(code)) return 'junior';
  if (/mid/i.test(code)) return 'mid_level';
  if (/executive/i.test(code)) return 'executive';
  if (/director/i.test(code)) return 'director';
  if (/manager/i.test(code)) return 'manager';
  if (/lead/i.test(code)) return 'lead';
  if (/senior|experienced/i.test(code)) return 'senior';
  return null;
}

function workMode(offer: Offer): JobInput['remote'] {
  if (offer.hybrid === true) return 'hybrid';
  if (offer.remote === true) return 'remote';
  if (offer.on_site === true) return 'on-site';
  return null;
}

/** One offer → our Job fields (docs/connectors/recruitee.md has the table). */
export function mapRecruiteeOffer(offer: Offer): JobInput {
  const description = typeof offer.description === 'string' && offer.description.trim() ? offer.description : null;
  const requirements = typeof offer.requirements === 'string' && offer.requirements.trim() ? offer.requirements : null;
  const sections = [
    ...(description ? [{ id: 'description', type: 'html', title: 'Description', content: description }] : []),
    ...(requirements ? [{ id: 'requirements', type: 'html', title: 'Requirements', content: requirements }] : []),
  ].map((s, i) => ({ ...s, order: i + 1 }));
  const code = text(offer.employment_type_code);
  const salary = offer.salary && typeof offer.salary === 'object' ? offer.salary : null;
  const period = text(salary?.period);
  const tags = Array.isArray(offer.tags) ? offer.tags.filter((t): t is string => typeof t === 'string') : [];
  return {
    external_id: String(offer.id),
    title: text(offer.title),
    description: sections.length
      ? sections.map((s) => (s.id === 'description' ? s.content : `<h3>${s.title}</h3>\n${s.content}`)).join('\n')
      : null,
    description_sections: sections,
    posting_url: httpUrl(offer.careers_url),
    application_url: httpUrl(offer.careers_apply_url) ?? httpUrl(offer.careers_url),
    location_name: text(offer.location),
    city: text(offer.city),
    country: text(offer.country_code) ?? text(offer.country),
    postcode: text(offer.postal_code),
    remote: workMode(offer),
    employment_type: code ? recruiteeEmploymentType(code) : null,
    work_schedule: code ? schedule(code) : null,
    senority: seniority(text(offer.experience_code)),
    education: text(offer.education_code),
    category: categoryFrom(offer.department, offer.category_code),
    salary_from: salary ? num(salary.min) : null,
    salary_to: salary ? num(salary.max) : null,
    salary_currency: salary ? text(salary.currency) : null,
    salary_frequency: period ? (Object.hasOwn(PERIODS, period) ? PERIODS[period] : period) : null,
    screening_questions: screeningQuestions(offer),
    application_form_fields: formFields(offer),
    custom_fields: {
      ...(text(offer.slug) ? { slug: text(offer.slug) } : {}),
      ...(text(offer.department) ? { department: text(offer.department) } : {}),
      ...(tags.length ? { tags } : {}),
      ...(num(offer.min_hours) !== null ? { min_hours: num(offer.min_hours) } : {}),
      ...(num(offer.max_hours) !== null ? { max_hours: num(offer.max_hours) } : {}),
    },
    raw_values: offer,
    import_source: 'api',
  };
}

function siteUrl(credentials: AtsCredentials, path: string): string {
  return atsUrl(atsBaseUrl(API_URL, credentials), path);
}

const siteGone = () =>
  new ConnectorError('credentials_rejected', `${ATS} knows no careers site with that company name (404).`, undefined, 'company');

/** The careers site's offers: 404 is a careers site that does not exist (the company field). */
async function listOffers(credentials: AtsCredentials): Promise<Offer[]> {
  const response = await atsFetch(ATS, siteUrl(credentials, '/api/offers/'), { headers: { Accept: 'application/json' } }, PACING);
  if (response.status === 404) {
    await response.arrayBuffer().catch(() => undefined);
    throw siteGone();
  }
  if (!response.ok) throw errorForStatus(ATS, response);
  const body = (await jsonBody(response)) as { offers?: unknown } | undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body) || !Array.isArray(body.offers))
    throw new ConnectorError('invalid_data', `${ATS} offers list is not a JSON object with an offers array.`);
  for (const offer of body.offers as Offer[]) {
    if (!offer || typeof offer !== 'object' || (typeof offer.id !== 'number' && typeof offer.id !== 'string') || offer.id === '')
      throw new ConnectorError('invalid_data', `${ATS} offers list has an offer without an id.`);
  }
  return body.offers as Offer[];
}

/** The multipart body of an application (exported for the tests). Files outside the limits are refused first. */
export async function recruiteeApplicationForm(submission: Submission): Promise<FormData> {
  const name = candidateName(submission.candidate);
  const form = new FormData();
  form.append('candidate[name]', name.full);
  form.append('candidate[email]', String(submission.candidate.email ?? ''));
  const phone = text(submission.candidate.phone);
  if (phone) form.append('candidate[phone]', phone);
  // Files: one CV and one cover letter have a field; anything else is refused, never dropped (P210).
  const files: { field: string; attachment: SubmissionAttachment }[] = [];
  const used = new Set<string>();
  for (const attachment of submission.attachments) {
    const field = Object.hasOwn(FILE_FIELDS, attachment.type) ? FILE_FIELDS[attachment.type] : undefined;
    if (!field || used.has(field))
      throw new ConnectorError(
        'attachment_rejected',
        `${ATS}’s careers site takes one CV and one cover letter file; the ${field ? `second ${attachment.type}` : attachment.type} file has no field.`,
      );
    used.add(field);
    files.push({ field, attachment });
  }
  for (const { field, attachment } of files) {
    const bytes = await attachmentBytes(ATS, attachment, ATTACHMENTS);
    if (bytes.length === 0)
      throw new ConnectorError('attachment_rejected', `${ATS} refuses empty files; the ${attachment.type} file is empty.`);
    form.append(field, new Blob([bytes], { type: attachment.content_type }), attachment.name);
  }
  let index = 0;
  for (const answer of submission.screeningAnswers) {
    const id = String(answer.id ?? '').replace(/^open_question_/, '');
    if (!/^\d+$/.test(id)) continue;
    const value = String(answer.answer ?? '');
    const base = `candidate[open_question_answers_attributes][${index++}]`;
    form.append(`${base}[open_question_id]`, id);
    const type = String(answer.answer_type ?? '');
    if (type === 'multi_select') {
      for (const choice of listAnswer(value)) form.append(`${base}[multi_content][]`, choice);
    } else if (type === 'boolean' || type === 'consent') {
      // Boolean and legal (consent) questions take `flag`; Recruitee refuses `content` for them.
      form.append(`${base}[flag]`, yesNo(value) ? 'true' : 'false');
    } else if ((type === 'file' || type === 'video') && httpUrl(value)) {
      form.append(`${base}[remote_file_url]`, value);
    } else {
      form.append(`${base}[content]`, value);
    }
  }
  return form;
}

/** Every message text of an error body (`error`/`errors`/`message`, as a string, a list or an object of lists). */
function errorTexts(body: unknown): { texts: string[]; keys: string[] } {
  const texts: string[] = [];
  const keys: string[] = [];
  const walk = (value: unknown, depth: number) => {
    if (depth > 3) return;
    if (typeof value === 'string') texts.push(value);
    else if (Array.isArray(value)) for (const v of value) walk(v, depth + 1);
    else if (value && typeof value === 'object')
      for (const [key, v] of Object.entries(value)) {
        if (/^[a-z_.[\]0-9]{1,60}$/i.test(key)) keys.push(key);
        walk(v, depth + 1);
      }
  };
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    for (const name of ['error', 'errors', 'message']) if (name in b) walk(b[name], 0);
  } else if (typeof body === 'string') texts.push(body);
  return { texts, keys };
}

/** The fields an error names, from a fixed list (the ATS's own text may carry personal data and is not repeated). */
function namedFields(texts: string[], keys: string[]): string {
  const haystack = [...texts, ...keys].join('\n');
  const found = (
    [
      ['name', /\bname\b/i],
      ['email', /e-?mail/i],
      ['phone', /phone/i],
      ['cv', /\bcv\b|resume/i],
      ['cover letter', /cover.?letter/i],
      ['screening answers', /open.?question|answer/i],
    ] as const
  )
    .filter(([, pattern]) => pattern.test(haystack))
    .map(([label]) => label);
  return found.length ? `: ${found.join(', ')}` : '';
}

/** A refused application (not 2xx, not 404) → the kind the sync worker acts on. */
function failure(response: Response, body: unknown): ConnectorError {
  const status = response.status;
  const { texts, keys } = errorTexts(body);
  const all = texts.join('\n');
  const fields = namedFields(texts, keys);
  if (status === 413) return new ConnectorError('attachment_rejected', `${ATS} refused the files as too large (413).`);
  if (status === 422 || status === 400) {
    if (/already (applied|exists|been taken)|has already|duplicate/i.test(all))
      return new ConnectorError('duplicate', `${ATS}: the candidate already applied (${status}).`);
    if (/(closed|not published|unpublished|no longer|not accepting|expired)/i.test(all))
      return new ConnectorError('job_not_published', `${ATS}: the offer is closed (${status}).`);
    if (
      /(cv|file|attachment|resume|cover.?letter).{0,40}(too (big|large)|size|format|type|extension|invalid)|(too (big|large)|file size)/i.test(
        all,
      )
    )
      return new ConnectorError('attachment_rejected', `${ATS} refused a file (${status}${fields}).`);
    return new ConnectorError('invalid_data', `${ATS} refused the application (${status}${fields}).`);
  }
  return errorForStatus(ATS, response, fields.slice(2));
}

export const recruiteeConnector: AtsConnector = {
  ...recruiteeDescriptor,

  async listPublishedJobs(_company: CompanyRecord, credentials: AtsCredentials) {
    const offers = await listOffers(credentials);
    // The careers site lists published offers only; one carrying another status is left out.
    return offers.filter((o) => o.status === undefined || o.status === null || o.status === 'published').map(mapRecruiteeOffer);
  },

  async submitApplication(submission: Submission, credentials: AtsCredentials) {
    const form = await recruiteeApplicationForm(submission);
    const response = await atsFetch(
      ATS,
      siteUrl(credentials, `/api/offers/${segment(submission.jobExternalId)}/candidates`),
      { method: 'POST', headers: { Accept: 'application/json' }, body: form },
      PACING,
    );
    const body = await jsonBody(response);
    if (response.ok) {
      const id = (body as { candidate?: { id?: unknown } } | undefined)?.candidate?.id;
      // 201 Created confirms the application; the id is kept when the body carries it.
      return { externalId: typeof id === 'number' || typeof id === 'string' ? String(id) : null };
    }
    if (response.status === 404) {
      // Either the offer is gone or the whole careers site is: the offers list tells which.
      const list = await atsFetch(ATS, siteUrl(credentials, '/api/offers/'), { headers: { Accept: 'application/json' } }, PACING);
      await list.arrayBuffer().catch(() => undefined);
      if (list.status === 404) throw siteGone();
      if (!list.ok) throw errorForStatus(ATS, list);
      throw new ConnectorError('job_not_published', `${ATS} does not publish the offer (404).`);
    }
    throw failure(response, body);
  },

  async validateCredentials(credentials: AtsCredentials) {
    // The offers list proves the careers site; 200 with something else is not taken for proof.
    try {
      await listOffers(credentials);
    } catch (error) {
      if (error instanceof ConnectorError && error.kind === 'invalid_data')
        throw new ConnectorError(
          'credentials_rejected',
          `${ATS}: the careers-site address did not answer as a Recruitee careers site.`,
          undefined,
          'company',
        );
      if (error instanceof ConnectorError && error.kind === 'credentials_rejected' && !error.field)
        throw new ConnectorError('credentials_rejected', error.message, undefined, 'company');
      throw error;
    }
  },
};
