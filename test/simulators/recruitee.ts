/**
 * A Recruitee Careers Site API simulator under `/recruitee/{company}` (a path prefix standing in for the
 * careers-site host `{company}.recruitee.com`). It follows what Recruitee documents
 * (career.recruitee.com/docs, docs.recruitee.com/reference/offersoffer_idcandidates; ../../../shared/ats-apis-more.md):
 * no authorization at all; `GET /api/offers/` answering `{"offers": [...]}` with every published offer in one
 * answer (no paging), the screening questions inside each offer as `open_questions`
 * (`{id, kind, required, position, body, open_question_options[{id, body, position}]}`); and the application
 * `POST /api/offers/{offer id or slug}/candidates`, JSON (`{"candidate": {...}}`) or multipart
 * (`candidate[name]`, `candidate[cv]` file, `candidate[open_question_answers_attributes][i][open_question_id]`,
 * `…[content]`, `…[multi_content][]`, `…[flag]`, `…[remote_file_url]`), `name` and `email` always required,
 * `phone` and `cv` required unless the offer switches them off (`options_phone`/`options_cv`: required,
 * optional, off), answering **201** `{"candidate": {id, name, emails, phones, created_at, updated_at,
 * open_question_answers[]}}`.
 *
 * What Recruitee leaves unconfirmed, played the way docs/connectors/recruitee.md assumes: an unknown (or
 * deleted) careers site answers 404 with an HTML page for every path (reported by third parties); an unknown
 * or unpublished offer answers 404 `{"error": "Not found"}`; validation failures answer 422
 * `{"error": ["Email can't be blank", …]}`; a boolean or legal question needs `flag` and refuses `content`
 * ("flag can't be blank", reported by a third party); files above `maxBytes` (10 MB) or of a type outside
 * pdf/doc/docx/odt/rtf/txt are 422; a second application with a known e-mail is accepted (201) and recorded
 * as a possible duplicate (Recruitee shows duplicates in its UI; no duplicate error is documented); a forced
 * rate limit answers 429 with `Retry-After` and `X-RateLimit-*` headers (no limit is documented).
 */
import { startSimulatorServer, type RecordedFile, type RecordedRequest, type Reply, type SimulatorServer } from './server.js';

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
}

export interface RecruiteeAnswer {
  open_question_id: string;
  content?: string;
  multi_content?: string[];
  flag?: string;
  remote_file_url?: string;
}

export interface RecruiteeCandidate {
  id: number;
  company: string;
  offerId: number;
  name: string;
  email: string;
  phone?: string;
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
  env: { RECRUITEE_API_URL: string };
  requestsTo(path: RegExp): RecordedRequest[];
}

const FILE_EXTENSIONS = ['pdf', 'doc', 'docx', 'odt', 'rtf', 'txt'];
const NOT_FOUND_PAGE =
  '<!DOCTYPE html><html><head><title>404</title></head><body>The page you were looking for doesn’t exist.</body></html>';

export function recruiteeOfferJson(site: RecruiteeSite, o: RecruiteeOfferFixture) {
  const slug = o.slug ?? o.title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  const careers = `https://${site.company}.recruitee.com/o/${slug}`;
  return {
    id: o.id,
    slug,
    position: o.id,
    status: o.status ?? 'published',
    // Recruitee's defaults: phone and CV required, either can be switched off per offer.
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

/** The candidate of a JSON or multipart request, in one shape. */
function readCandidate(req: RecordedRequest): { fields: Record<string, unknown>; answers: RecruiteeAnswer[] } | undefined {
  const type = req.headers['content-type'] ?? '';
  if (type.startsWith('application/json')) {
    const candidate = (req.json as { candidate?: Record<string, unknown> } | undefined)?.candidate;
    if (!candidate || typeof candidate !== 'object') return undefined;
    const answers = Array.isArray(candidate.open_question_answers_attributes)
      ? (candidate.open_question_answers_attributes as Record<string, unknown>[]).map((a) => ({
          open_question_id: String(a.open_question_id ?? ''),
          ...(a.content !== undefined ? { content: String(a.content) } : {}),
          ...(Array.isArray(a.multi_content) ? { multi_content: a.multi_content.map(String) } : {}),
          ...(a.flag !== undefined ? { flag: String(a.flag) } : {}),
          ...(a.remote_file_url !== undefined ? { remote_file_url: String(a.remote_file_url) } : {}),
        }))
      : [];
    return { fields: candidate, answers };
  }
  if (!type.startsWith('multipart/form-data')) return undefined;
  const fields: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const answers = new Map<string, RecruiteeAnswer>();
  for (const [name, values] of Object.entries(req.fields)) {
    const answer = /^candidate\[open_question_answers_attributes\]\[(\d+)\]\[([a-z_]+)\](\[\])?$/.exec(name);
    if (answer) {
      const entry = answers.get(answer[1]) ?? { open_question_id: '' };
      const key = answer[2];
      if (key === 'multi_content' && answer[3]) entry.multi_content = values;
      else if (key === 'open_question_id' || key === 'content' || key === 'flag' || key === 'remote_file_url') entry[key] = values[0];
      answers.set(answer[1], entry);
      continue;
    }
    const plain = /^candidate\[([a-z_]+)\]$/.exec(name);
    if (plain) fields[plain[1]] = values[0];
  }
  return { fields, answers: [...answers.values()] };
}

const unprocessable = (...errors: string[]): Reply => ({ status: 422, body: { error: errors } });

export async function startRecruiteeSimulator(): Promise<RecruiteeSimulator> {
  const sim = {
    sites: new Map(),
    candidates: [],
    rateLimitNext: 0,
    retryAfter: '1',
    maxBytes: 10 * 1024 * 1024,
  } as unknown as RecruiteeSimulator;
  let nextId = 9000;
  sim.server = await startSimulatorServer((req) => {
    if (sim.rateLimitNext > 0) {
      sim.rateLimitNext -= 1;
      return {
        status: 429,
        body: { error: ['Too many requests'] },
        headers: { 'Retry-After': sim.retryAfter, 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '0' },
      };
    }
    const match = /^\/recruitee\/([^/]+)\/api\/offers\/?(?:([^/]+)(?:\/(candidates)\/?)?)?$/.exec(req.path);
    const prefix = /^\/recruitee\/([^/]+)\//.exec(req.path);
    const site = prefix ? sim.sites.get(decodeURIComponent(prefix[1])) : undefined;
    if (!site || site.gone) return { status: 404, raw: NOT_FOUND_PAGE, headers: { 'Content-Type': 'text/html; charset=utf-8' } };
    if (!match) return { status: 404, body: { error: 'Not found' } };
    const published = site.offers.filter((o) => (o.status ?? 'published') === 'published');
    const [, , offerRef, candidates] = match;
    if (req.method === 'GET' && !offerRef) {
      if (site.listOverride !== undefined) return { status: 200, raw: site.listOverride, headers: { 'Content-Type': 'application/json' } };
      return { status: 200, body: { offers: published.map((o) => recruiteeOfferJson(site, o)) } };
    }
    const ref = decodeURIComponent(offerRef ?? '');
    const offer = published.find((o) => String(o.id) === ref || recruiteeOfferJson(site, o).slug === ref);
    if (!offer) return { status: 404, body: { error: 'Not found' } };
    if (req.method === 'GET' && !candidates) return { status: 200, body: { offer: recruiteeOfferJson(site, offer) } };
    if (req.method !== 'POST' || !candidates) return { status: 404, body: { error: 'Not found' } };
    if (sim.nextApplyReply) {
      const reply = sim.nextApplyReply;
      sim.nextApplyReply = undefined;
      return reply;
    }
    const candidate = readCandidate(req);
    if (!candidate) return { status: 400, body: { error: ['param is missing or the value is empty: candidate'] } };
    const { fields, answers } = candidate;
    const errors: string[] = [];
    const value = (name: string) => (typeof fields[name] === 'string' ? (fields[name] as string).trim() : '');
    if (!value('name')) errors.push("Name can't be blank");
    if (!value('email')) errors.push("Email can't be blank");
    else if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(value('email'))) errors.push('Email is invalid');
    if ((offer.optionsPhone ?? 'required') === 'required' && !value('phone')) errors.push("Phone can't be blank");
    const cv = req.files.find((f) => f.field === 'candidate[cv]');
    if ((offer.optionsCv ?? 'required') === 'required' && !cv && !value('remote_cv_url')) errors.push("Cv can't be blank");
    for (const file of req.files) {
      const label = file.field === 'candidate[cv]' ? 'Cv' : 'Cover letter file';
      if (file.bytes.length > sim.maxBytes) errors.push(`${label} file size is too big`);
      if (!FILE_EXTENSIONS.includes(file.filename.split('.').pop()!.toLowerCase())) errors.push(`${label} has an invalid format`);
    }
    const questions = new Map((offer.questions ?? []).map((q) => [String(q.id), q]));
    for (const answer of answers) {
      const question = questions.get(answer.open_question_id);
      if (!question) {
        errors.push('Open question answers open question must exist');
        continue;
      }
      if (question.kind === 'boolean' || question.kind === 'legal') {
        if (answer.flag === undefined || answer.content !== undefined) errors.push("Open question answers flag can't be blank");
        if (question.kind === 'legal' && question.required && answer.flag !== 'true')
          errors.push('Open question answers flag must be accepted');
      } else if (question.kind === 'multi_choice') {
        if (!answer.multi_content?.length) errors.push("Open question answers multi content can't be blank");
        else if (answer.multi_content.some((c) => !(question.options ?? []).includes(c)))
          errors.push('Open question answers multi content is invalid');
      } else if (question.kind === 'single_choice') {
        if (!(question.options ?? []).includes(answer.content ?? '')) errors.push('Open question answers content is invalid');
      } else if (question.kind === 'file') {
        if (!answer.remote_file_url) errors.push("Open question answers file can't be blank");
      } else if (answer.content === undefined || answer.content === '') errors.push("Open question answers content can't be blank");
    }
    for (const question of offer.questions ?? [])
      if (question.required && !answers.some((a) => a.open_question_id === String(question.id)))
        errors.push('Open question answers are missing a required question');
    if (errors.length) return unprocessable(...errors);
    const email = value('email').toLowerCase();
    const earlier = sim.candidates.find((c) => c.company === site.company && c.email.toLowerCase() === email);
    const created: RecruiteeCandidate = {
      id: nextId++,
      company: site.company,
      offerId: offer.id,
      name: value('name'),
      email: value('email'),
      ...(value('phone') ? { phone: value('phone') } : {}),
      ...(value('cover_letter') ? { coverLetter: value('cover_letter') } : {}),
      files: req.files,
      answers,
      ...(earlier ? { possibleDuplicateOf: earlier.id } : {}),
    };
    sim.candidates.push(created);
    const now = new Date().toISOString();
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
          created_at: now,
          updated_at: now,
          open_question_answers: answers.map((a, i) => ({
            id: created.id * 10 + i,
            question: questions.get(a.open_question_id)?.body ?? '',
            content: a.content ?? (a.multi_content ? a.multi_content.join(', ') : null),
            file_url: a.remote_file_url ?? null,
          })),
        },
      },
    };
  });
  sim.env = { RECRUITEE_API_URL: `${sim.server.url}/recruitee/{company}` };
  sim.requestsTo = (path) => sim.server.requests.filter((r) => path.test(r.path));
  return sim;
}
