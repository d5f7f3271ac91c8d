/**
 * Recruitee's offers (P213, P276): the Careers Site API's offers list (`GET /api/offers/`, one answer, no paging
 * documented) and the mapping of one offer onto our Job fields, the offer's `slug` kept as the job's internal
 * `ats_apply_key` because the apply call names the offer by its slug (docs.recruitee.com/reference/offersoffer_idcandidates:
 * `/offers/:offer_slug/candidates`). docs/connectors/recruitee.md has the field table with each source.
 */
import type { JobInput } from '#jobs/job-schema.js';
import { ConnectorError, type AtsCredentials } from '#delivery/connectors/connector.js';
import { API_URL, PACING } from '#delivery/connectors/recruitee-descriptor.js';
import { atsBaseUrl, atsFetch, atsUrl, errorForStatus, jsonBody } from '#delivery/connectors/http.js';
import { categoryFrom, httpUrl, text } from '#delivery/connectors/mapping.js';

export const ATS = 'Recruitee';
export { API_URL, PACING };

export type OpenQuestionOption = { id?: unknown; body?: unknown; position?: unknown };
export type OpenQuestion = {
  id?: unknown;
  kind?: unknown;
  required?: unknown;
  position?: unknown;
  body?: unknown;
  open_question_options?: OpenQuestionOption[] | null;
};
export type Offer = Record<string, unknown> & {
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

export const num = (value: unknown): number | null => {
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

export const openQuestions = (offer: Offer): OpenQuestion[] =>
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
    // P276: the apply path names the offer by its slug; `external_id` stays the numeric id (it survives a new title).
    ...(slugOf(offer) ? { ats_apply_key: slugOf(offer)! } : {}),
  };
}

/** The offer's slug, when it is a plain URL segment of at most 255 characters (the job's `ats_apply_key` bound). */
export function slugOf(offer: Offer): string | null {
  const slug = text(offer.slug);
  return slug && slug.length <= 255 && !/[/?#\s]/.test(slug) ? slug : null;
}

export function siteUrl(credentials: AtsCredentials, path: string): string {
  return atsUrl(atsBaseUrl(API_URL, credentials), path);
}

/**
 * The Careers Site API's headers: the optional Careers API token as `X-Careers-Sites-Token` (P357,
 * https://docs.recruitee.com/reference/authentication-1), on the offers list and the apply POST alike.
 */
export function siteHeaders(credentials: AtsCredentials): Record<string, string> {
  const token = credentials.careers_token;
  return { Accept: 'application/json', ...(token ? { 'X-Careers-Sites-Token': token } : {}) };
}

/** 401: the careers site wants a (valid) Careers API token (from 10 February 2027 every call without one, P357). */
export const careersTokenRefused = (credentials: AtsCredentials) =>
  new ConnectorError(
    'credentials_rejected',
    credentials.careers_token
      ? `${ATS} refused the Careers API token (401).`
      : `${ATS} asks for a Careers API token (401): make one under Settings → Apps and plugins → Careers API tokens.`,
    undefined,
    'careers_token',
  );

export const siteGone = () =>
  new ConnectorError('credentials_rejected', `${ATS} knows no careers site with that company name (404).`, undefined, 'company');

/** The careers site's offers: 404 is a careers site that does not exist (the company field). */
export async function listOffers(credentials: AtsCredentials): Promise<Offer[]> {
  const response = await atsFetch(ATS, siteUrl(credentials, '/api/offers/'), { headers: siteHeaders(credentials) }, PACING);
  if (response.status === 404 || response.status === 401) {
    await response.arrayBuffer().catch(() => undefined);
    throw response.status === 401 ? careersTokenRefused(credentials) : siteGone();
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
