/**
 * A Recruitee Careers Site API simulator under `/recruitee/{company}` (a path prefix standing in for the
 * careers-site host `{company}.recruitee.com`). It follows Recruitee's own pages, not our connector; each rule
 * below names the page it comes from:
 * - R = https://docs.recruitee.com/reference/offersoffer_idcandidates (the current reference, "/offers/:offer_slug/candidates");
 * - C = https://career.recruitee.com/docs/index.html (the older Careers Site API page, which points to R as "a new documentation");
 * - I = https://docs.recruitee.com/reference/intro-to-careers-site-api;
 * - T = https://docs.recruitee.com/reference/authentication-1 (the Careers API token, `X-Careers-Sites-Token`; "Calls
 *   without the authorization header will return the 401 Unauthorized error" from 10 February 2027).
 * What neither page says is marked "assumed" (docs/connectors/recruitee.md, "Assumptions"; P213, P276).
 */
import { startSimulatorServer, type RecordedFile, type RecordedRequest, type Reply, type SimulatorServer } from './server.js';
import { atsApiReply, recruiteeAtsApi, type ApiCandidate, type RecruiteeAtsApi } from './recruitee-ats-api.js';

export interface RecruiteeQuestionFixture {
  id: number;
  kind: string;
  body: string;
  required?: boolean;
  options?: string[];
}

export interface RecruiteeOfferFixture {
  id: number;
  slug?: string;
  title: string;
  description?: string;
  requirements?: string;
  status?: 'published' | 'closed' | 'draft' | 'internal';
  location?: string;
  city?: string;
  country?: string;
  countryCode?: string;
  department?: string;
  employmentTypeCode?: string;
  remote?: boolean;
  hybrid?: boolean;
  onSite?: boolean;
  salary?: { min: number | string | null; max: number | string | null; currency: string; period: string };
  optionsCv?: 'required' | 'optional' | 'off';
  optionsPhone?: 'required' | 'optional' | 'off';
  optionsCoverLetter?: 'required' | 'optional' | 'off';
  /** The feed leaves out the `options_*` settings (their names are not in Recruitee's reference); the offer keeps its defaults. */
  withoutOptions?: true;
  questions?: RecruiteeQuestionFixture[];
}

export interface RecruiteeSite {
  company: string;
  offers: RecruiteeOfferFixture[];
  /** The careers site was deleted (or the company left Recruitee): every path answers 404. */
  gone?: boolean;
  /** Replaces the list body (a malformed feed). */
  listOverride?: string;
  /** T: the Careers API tokens made for this site (Settings > Apps and plugins > Careers API tokens). */
  careersTokens?: string[];
  /** T: after 10 February 2027 a call without the `X-Careers-Sites-Token` header is a 401. */
  requireCareersToken?: boolean;
}

export interface RecruiteeAnswer {
  open_question_id: string;
  content?: string;
  multi_content?: string[];
  flag?: string;
  /** The uploaded file of a `file` question (R: "Use file for questions with kind: file"). */
  file?: RecordedFile;
}

export interface RecruiteeCandidate extends ApiCandidate {
  coverLetter?: string;
  files: RecordedFile[];
  answers: RecruiteeAnswer[];
  /** The id of an earlier candidate with the same e-mail on this careers site (Recruitee flags, not refuses). */
  possibleDuplicateOf?: number;
}

export interface RecruiteeSimulator {
  server: SimulatorServer;
  sites: Map<string, RecruiteeSite>;
  candidates: RecruiteeCandidate[];
  /** The next N requests (any path) answer 429. */
  rateLimitNext: number;
  /** The Retry-After value of a 429 (seconds). */
  retryAfter: string;
  /** Per-file limit in bytes (422 above it). */
  maxBytes: number;
  /** Replaces the next application answer (odd answers for error-mapping tests). */
  nextApplyReply?: Reply;
  /** The ATS API (`/recruitee-api`, P351): personal API tokens, candidate reads, and moving candidates. */
  atsApi: RecruiteeAtsApi;
  env: { RECRUITEE_API_URL: string; RECRUITEE_ATS_API_URL: string };
  requestsTo(path: RegExp): RecordedRequest[];
}

// Assumed: Recruitee documents no file limits; these are the ones docs/connectors/recruitee.md assumes.
const FILE_EXTENSIONS = ['pdf', 'doc', 'docx', 'odt', 'rtf', 'txt'];
// Assumed (third-party reports): an unknown careers-site host answers 404 with an HTML page for every path.
const NOT_FOUND_PAGE =
  '<!DOCTYPE html><html><head><title>404</title></head><body>The page you were looking for doesn’t exist.</body></html>';
// Assumed body: an unknown offer answers 404 `{"error": "Not found"}` (R and C document only 201 and 422).
const NOT_FOUND: Reply = { status: 404, body: { error: 'Not found' } };

/** The offer's slug: its own, else made from the title as Recruitee's careers-site URLs show (C: `/api/offers/operations-manager/candidates`). */
export const recruiteeSlug = (o: RecruiteeOfferFixture) =>
  o.slug ??
  o.title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

export function recruiteeOfferJson(site: RecruiteeSite, o: RecruiteeOfferFixture) {
  const slug = recruiteeSlug(o);
  const careers = `https://${site.company}.recruitee.com/o/${slug}`;
  return {
    id: o.id,
    slug,
    position: o.id,
    status: o.status ?? 'published',
    // R: "By default, these fields are required: name, phone, email, cv"; phone and CV can be switched off per offer.
    ...(o.withoutOptions
      ? {}
      : {
          options_phone: o.optionsPhone ?? 'required',
          options_photo: 'off',
          options_cover_letter: o.optionsCoverLetter ?? 'optional',
          options_cv: o.optionsCv ?? 'required',
        }),
    remote: o.remote ?? false,
    hybrid: o.hybrid ?? false,
    on_site: o.onSite ?? !(o.remote || o.hybrid),
    country_code: o.countryCode ?? 'DE',
    state_code: 'BE',
    postal_code: '10115',
    min_hours: 32,
    max_hours: 40,
    title: o.title,
    description: o.description ?? `<p>${o.title}</p>`,
    requirements: o.requirements ?? '<ul><li>Curiosity</li></ul>',
    location: o.location ?? 'Berlin, Germany',
    city: o.city ?? 'Berlin',
    country: o.country ?? 'Germany',
    careers_url: careers,
    careers_apply_url: `${careers}/c/new`,
    mailbox_email: `job.${o.id}@${site.company}.recruitee.com`,
    company_name: site.company,
    department: o.department ?? 'Engineering',
    created_at: '2026-01-05 09:42:54 UTC',
    updated_at: '2026-01-06 10:00:00 UTC',
    published_at: '2026-01-05 09:45:21 UTC',
    close_at: null,
    employment_type_code: o.employmentTypeCode ?? 'fulltime_permanent',
    category_code: 'it',
    experience_code: 'mid_level',
    education_code: 'bachelor_degree',
    tags: ['berlin'],
    ...(o.salary ? { salary: o.salary } : {}),
    // R: open_questions `{id, kind, required, position, body, open_question_options}` in the GET /offers answer.
    open_questions: (o.questions ?? []).map((q, i) => ({
      id: q.id,
      kind: q.kind,
      required: q.required ?? false,
      position: i + 1,
      body: q.body,
      open_question_options: (q.options ?? []).map((body, j) => ({ id: q.id * 100 + j, body, position: j })),
    })),
  };
}

/**
 * The candidate fields Recruitee documents (C's JSON example; R's "name, phone, email, cv"). `cv` is the
 * form-data file part (C's form-data request, R), the others text. `cover_letter` is text (C:
 * `"cover_letter": "Example cover letter"`); no cover-letter file is documented.
 */
const TEXT_FIELDS = new Set(['name', 'email', 'phone', 'cover_letter', 'remote_cv_url', 'remote_photo_url']);
const FILE_FIELDS = new Set(['cv']);
/**
 * An answer's documented keys (R: "provide the ID of the question (in the open_question_id field) and the answer
 * (in the content/multi_content/file/flag field)"). C's older JSON example shows `remote_file_url`; R, the
 * reference C itself points to, does not list it, so it is refused like any other unknown key.
 */
const ANSWER_KEYS = new Set(['open_question_id', 'content', 'multi_content', 'flag', 'file']);
const ANSWER_FIELD = /^candidate\[open_question_answers_attributes\]\[(\d+)\]\[([a-z_]+)\](\[\])?$/;

type Candidate = { fields: Map<string, string>; cv?: RecordedFile; answers: RecruiteeAnswer[]; unknown: string[] };

/** A JSON body's candidate (C: `Content-Type: application/json`, `{"candidate": {...}}`). */
function jsonCandidate(req: RecordedRequest): Candidate | undefined {
  const candidate = (req.json as { candidate?: Record<string, unknown> } | undefined)?.candidate;
  if (!candidate || typeof candidate !== 'object' || Array.isArray(candidate)) return undefined;
  const out: Candidate = { fields: new Map(), answers: [], unknown: [] };
  for (const [key, value] of Object.entries(candidate)) {
    if (key === 'open_question_answers_attributes' && Array.isArray(value)) {
      for (const a of value as Record<string, unknown>[]) {
        out.unknown.push(...Object.keys(a ?? {}).filter((k) => !ANSWER_KEYS.has(k) || k === 'file'));
        out.answers.push({
          open_question_id: String(a?.open_question_id ?? ''),
          ...(a?.content !== undefined ? { content: String(a.content) } : {}),
          ...(Array.isArray(a?.multi_content) ? { multi_content: (a.multi_content as unknown[]).map(String) } : {}),
          ...(a?.flag !== undefined ? { flag: String(a.flag) } : {}),
        });
      }
    } else if (TEXT_FIELDS.has(key) && (typeof value === 'string' || typeof value === 'number')) out.fields.set(key, String(value));
    else out.unknown.push(key);
  }
  return out;
}

/** A form-data body's candidate (C's form-data request; R's `candidate[open_question_answers_attributes][0][…]` lines). */
function multipartCandidate(req: RecordedRequest): Candidate {
  const out: Candidate = { fields: new Map(), answers: [], unknown: [] };
  const answers = new Map<string, RecruiteeAnswer>();
  const answerOf = (i: string) => answers.get(i) ?? answers.set(i, { open_question_id: '' }).get(i)!;
  for (const [name, values] of Object.entries(req.fields)) {
    const answer = ANSWER_FIELD.exec(name);
    const plain = /^candidate\[([a-z_]+)\]$/.exec(name);
    if (answer && ANSWER_KEYS.has(answer[2]) && answer[2] !== 'file') {
      const entry = answerOf(answer[1]);
      if (answer[2] === 'multi_content' && answer[3]) entry.multi_content = values;
      else if (answer[2] === 'open_question_id' || answer[2] === 'content' || answer[2] === 'flag') entry[answer[2]] = values[0];
      else out.unknown.push(answer[2]);
    } else if (plain && TEXT_FIELDS.has(plain[1])) out.fields.set(plain[1], values[0]);
    else out.unknown.push(answer ? answer[2] : (plain?.[1] ?? name));
  }
  for (const file of req.files) {
    const answer = ANSWER_FIELD.exec(file.field);
    const plain = /^candidate\[([a-z_]+)\]$/.exec(file.field);
    if (answer && answer[2] === 'file' && !answer[3]) answerOf(answer[1]).file = file;
    else if (plain && FILE_FIELDS.has(plain[1])) out.cv = file;
    else out.unknown.push(answer ? answer[2] : (plain?.[1] ?? file.field));
  }
  out.answers = [...answers.values()];
  return out;
}

const unprocessable = (...errors: string[]): Reply => ({ status: 422, body: { error: errors } });
const humanize = (field: string) => field.charAt(0).toUpperCase() + field.slice(1).replace(/_/g, ' ');

/** The 422 texts of an application to `offer` (the body `{"error": [texts]}` is assumed: R and C show no 422 body). */
function validate(sim: RecruiteeSimulator, offer: RecruiteeOfferFixture, c: Candidate): string[] {
  const errors: string[] = [];
  // Assumed: an undocumented field is refused (Recruitee documents no answer for one; a silent drop would lose data unseen).
  for (const field of new Set(c.unknown)) errors.push(`${humanize(field)} is not a permitted field`);
  const value = (name: string) => (c.fields.get(name) ?? '').trim();
  // R: name and email are always required; phone and cv by default, unless the offer's settings turn them off.
  if (!value('name')) errors.push("Name can't be blank");
  if (!value('email')) errors.push("Email can't be blank");
  else if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(value('email'))) errors.push('Email is invalid');
  if ((offer.optionsPhone ?? 'required') === 'required' && !value('phone')) errors.push("Phone can't be blank");
  if ((offer.optionsCv ?? 'required') === 'required' && !c.cv && !value('remote_cv_url')) errors.push("Cv can't be blank");
  // Assumed limits (none documented).
  for (const [label, file] of [['Cv', c.cv], ...c.answers.map((a) => ['Open question answers file', a.file] as const)] as const) {
    if (!file) continue;
    if (file.bytes.length > sim.maxBytes) errors.push(`${label} file size is too big`);
    if (!FILE_EXTENSIONS.includes(file.filename.split('.').pop()!.toLowerCase())) errors.push(`${label} has an invalid format`);
  }
  const questions = new Map((offer.questions ?? []).map((q) => [String(q.id), q]));
  for (const answer of c.answers) {
    const question = questions.get(answer.open_question_id);
    if (!question) {
      errors.push('Open question answers open question must exist');
      continue;
    }
    // R: "Use content for … string, text, single_choice, date, salary, and number; multi_content for multi_choice;
    // file for file; flag for boolean and legal".
    if (question.kind === 'boolean' || question.kind === 'legal') {
      if (answer.flag === undefined || answer.content !== undefined) errors.push("Open question answers flag can't be blank");
      // Assumed: a required legal (consent) question must be accepted.
      if (question.kind === 'legal' && question.required && answer.flag !== 'true')
        errors.push('Open question answers flag must be accepted');
    } else if (question.kind === 'multi_choice') {
      if (!answer.multi_content?.length) errors.push("Open question answers multi content can't be blank");
      else if (answer.multi_content.some((choice) => !(question.options ?? []).includes(choice)))
        errors.push('Open question answers multi content is invalid');
    } else if (question.kind === 'file') {
      if (!answer.file) errors.push("Open question answers file can't be blank");
    } else if (question.kind === 'single_choice') {
      if (!(question.options ?? []).includes(answer.content ?? '')) errors.push('Open question answers content is invalid');
    } else if (!answer.content) errors.push("Open question answers content can't be blank");
  }
  // Assumed: a required question (R's `required: true`) must be answered.
  for (const question of offer.questions ?? [])
    if (question.required && !c.answers.some((a) => a.open_question_id === String(question.id)))
      errors.push('Open question answers are missing a required question');
  return errors;
}

export async function startRecruiteeSimulator(): Promise<RecruiteeSimulator> {
  const sim = {
    sites: new Map(),
    candidates: [],
    rateLimitNext: 0,
    retryAfter: '1',
    maxBytes: 10 * 1024 * 1024,
    atsApi: recruiteeAtsApi(),
  } as unknown as RecruiteeSimulator;
  let nextId = 9000;
  sim.server = await startSimulatorServer((req) => {
    // Assumed: no rate limit is documented; a forced 429 carries Retry-After so that the mapping can be tested.
    if (sim.rateLimitNext > 0) {
      sim.rateLimitNext -= 1;
      return {
        status: 429,
        body: { error: ['Too many requests'] },
        headers: { 'Retry-After': sim.retryAfter, 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '0' },
      };
    }
    // The ATS API (api.recruitee.com), its own rules in recruitee-ats-api.ts.
    const api = atsApiReply(sim.atsApi, req, sim.candidates);
    if (api) return api;
    // C: "API does not require authorization and is available under your Careers Site address"; I: the same.
    const match = /^\/recruitee\/([^/]+)\/api\/offers\/?(?:([^/]+)(?:\/(candidates)\/?)?)?$/.exec(req.path);
    const prefix = /^\/recruitee\/([^/]+)\//.exec(req.path);
    const site = prefix ? sim.sites.get(decodeURIComponent(prefix[1])) : undefined;
    if (!site || site.gone) return { status: 404, raw: NOT_FOUND_PAGE, headers: { 'Content-Type': 'text/html; charset=utf-8' } };
    if (!match) return NOT_FOUND;
    // T: the token covers /offers, /offers/:id and /offers/:offer_slug/candidates; a call without it is a 401 once the
    // deadline passed (`requireCareersToken`). Assumed: a token that is not one of the site's is a 401 at any time.
    const token = req.headers['x-careers-sites-token'];
    if (token !== undefined ? !(site.careersTokens ?? []).includes(String(token)) : site.requireCareersToken)
      return { status: 401, body: { error: 'Unauthorized' } };
    const published = site.offers.filter((o) => (o.status ?? 'published') === 'published');
    const [, , offerRef, candidates] = match;
    // R: the screening questions "can be found in GET /offers endpoint response"; every published offer, no paging (assumed).
    if (req.method === 'GET' && !offerRef) {
      if (site.listOverride !== undefined) return { status: 200, raw: site.listOverride, headers: { 'Content-Type': 'application/json' } };
      return { status: 200, body: { offers: published.map((o) => recruiteeOfferJson(site, o)) } };
    }
    // R: the path names the offer's slug (`/offers/:offer_slug/candidates`; C's example `/api/offers/operations-manager/candidates`).
    // A numeric id is no slug: the offer is not found (404).
    const ref = decodeURIComponent(offerRef ?? '');
    const offer = published.find((o) => recruiteeSlug(o) === ref);
    if (!offer) return NOT_FOUND;
    if (req.method === 'GET' && !candidates) return { status: 200, body: { offer: recruiteeOfferJson(site, offer) } };
    if (req.method !== 'POST' || !candidates) return NOT_FOUND;
    if (sim.nextApplyReply) {
      const reply = sim.nextApplyReply;
      sim.nextApplyReply = undefined;
      return reply;
    }
    // C: the request is JSON (`Content-Type: application/json`) or form-data. Assumed: anything else, or a JSON body
    // without a `candidate` object, is a 400 (Rails' "param is missing").
    const type = req.headers['content-type'] ?? '';
    const candidate = type.startsWith('application/json')
      ? jsonCandidate(req)
      : type.startsWith('multipart/form-data')
        ? multipartCandidate(req)
        : undefined;
    if (!candidate) return { status: 400, body: { error: ['param is missing or the value is empty: candidate'] } };
    const errors = validate(sim, offer, candidate);
    if (errors.length) return unprocessable(...errors);
    const value = (name: string) => (candidate.fields.get(name) ?? '').trim();
    const email = value('email').toLowerCase();
    // Assumed: a second application with a known e-mail is accepted and shown as a possible duplicate (no duplicate error is documented).
    const earlier = sim.candidates.find((c) => c.company === site.company && c.email.toLowerCase() === email);
    const created: RecruiteeCandidate = {
      id: nextId++,
      company: site.company,
      offerId: offer.id,
      name: value('name'),
      email: value('email'),
      ...(value('phone') ? { phone: value('phone') } : {}),
      ...(value('cover_letter') ? { coverLetter: candidate.fields.get('cover_letter') } : {}),
      files: req.files,
      answers: candidate.answers,
      ...(earlier ? { possibleDuplicateOf: earlier.id } : {}),
    };
    sim.candidates.push(created);
    const now = new Date().toISOString();
    const questions = new Map((offer.questions ?? []).map((q) => [String(q.id), q]));
    // C: 201 `{"candidate": {id, name, phones, emails, photo_url, photo_thumb_url, updated_at, created_at, open_question_answers[{id, question, content, file_url}]}}`.
    return {
      status: 201,
      body: {
        candidate: {
          id: created.id,
          name: created.name,
          phones: created.phone ? [created.phone] : [],
          emails: [created.email],
          photo_url: null,
          photo_thumb_url: null,
          updated_at: now,
          created_at: now,
          open_question_answers: candidate.answers.map((a, i) => ({
            id: created.id * 10 + i,
            question: questions.get(a.open_question_id)?.body ?? '',
            content: a.content ?? (a.multi_content ? a.multi_content.join(', ') : (a.flag ?? null)),
            file_url: a.file ? `https://storage.example.com/${created.id}/${encodeURIComponent(a.file.filename)}` : null,
          })),
        },
      },
    };
  });
  sim.env = { RECRUITEE_API_URL: `${sim.server.url}/recruitee/{company}`, RECRUITEE_ATS_API_URL: `${sim.server.url}/recruitee-api` };
  sim.requestsTo = (path) => sim.server.requests.filter((r) => path.test(r.path));
  return sim;
}
