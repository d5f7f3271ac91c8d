/**
 * A Workable SPI v3 simulator under `/workable/{subdomain}` (a path prefix standing for the account's host
 * `https://{subdomain}.workable.com`; an unknown subdomain is 404). It follows what Workable documents
 * (workable.readme.io; ../../../shared/ats-apis-more.md) and, where the docs are silent, the assumptions in
 * docs/connectors/workable.md:
 * - `Authorization: Bearer <token>` (401 `{"error": "Not authorized"}` otherwise); the token's scopes:
 *   `r_jobs` for the job list and application forms, `w_candidates` for creating candidates (403 otherwise).
 * - Rate limit per token: `limit` requests per `intervalMs` (10 per 10 s for account tokens); every answer
 *   carries `X-Rate-Limit-Limit`, `X-Rate-Limit-Remaining` and `X-Rate-Limit-Reset` (Unix seconds of the next
 *   interval); above the limit 429 `{"error": "Too many requests"}`.
 * - `GET /spi/v3/jobs?state=&limit=&since_id=&include_fields=`: `limit` defaults to 50, at most 100; oldest
 *   first; `{jobs, paging: {next}}` with an absolute `next` URL (`since_id` of the last job) while more remain;
 *   description, full_description, requirements and benefits only when `include_fields` names them.
 * - `GET /spi/v3/jobs/{shortcode}/application_form` → `{form_fields, questions}` (404 for an unknown job).
 * - `POST /spi/v3/jobs/{shortcode}/candidates`, JSON `{sourced?, candidate: {name | firstname+lastname,
 *   email, phone, address, cover_letter, skills, social_profiles, resume: {name, data}, answers: [{question_key,
 *   body|choices|checked|number|date|file}]}}` (https://workable.readme.io/reference/job-candidates-create):
 *   only the documented candidate keys, with their documented types (`candidateShapeError`; 422 otherwise).
 *   `sourced` defaults to true (an uploaded candidate, no e-mail); `"sourced": false` makes an applicant who
 *   gets the "thank you for applying" e-mail (`thankYouEmails`). 201 `{status: "created", candidate: {id, …}}`;
 *   404 for an unknown job; 422 `{"error": "…"}` for a job that is not published, a duplicate e-mail in the
 *   job, missing fields, an unknown question key, and a file over the form's `max_file_size` or of a type it
 *   does not list.
 * - `GET /spi/v3/candidates/{id}` (https://workable.readme.io/reference/job-candidates-show; scope r_candidates,
 *   403 otherwise): 200 `{candidate: {id, name, job, stage (the stage's name), stage_kind, disqualified,
 *   withdrew, disqualified_at, disqualification_reason, hired_at, …}}`, 404 for an id the account does not have.
 *   `stage_kind` and `withdrew` are documented on the candidate list (https://workable.readme.io/reference/job-candidates-index)
 *   and assumed on the single candidate too. The account's stages are Workable's defaults (`STAGES`, slug → name
 *   and kind, https://workable.readme.io/reference/stages). Tests move a candidate as a recruiter would:
 *   `moveApplication(id, slug)`, `disqualify(id, {withdrew, reason})`.
 */
import { randomUUID } from 'node:crypto';
import { startSimulatorServer, type RecordedRequest, type Reply, type SimulatorServer } from './server.js';

export interface WorkableQuestionFixture {
  id: string;
  body: string;
  type: 'free_text' | 'short_text' | 'multiple_choice' | 'boolean' | 'dropdown' | 'numeric' | 'date' | 'file';
  required?: boolean;
  single_answer?: boolean;
  choices?: { id: string; body: string }[];
  supported_file_types?: string[];
  max_file_size?: number;
}

export interface WorkableJobFixture {
  id?: string;
  shortcode: string;
  title: string;
  state?: 'draft' | 'published' | 'closed' | 'archived';
  description?: string;
  requirements?: string;
  benefits?: string;
  department?: string;
  location?: Record<string, unknown>;
  employment_type?: string;
  salary?: Record<string, unknown>;
  questions?: WorkableQuestionFixture[];
  form_fields?: Record<string, unknown>[];
}

export interface WorkableAccount {
  subdomain: string;
  token: string;
  scopes: Set<string>;
  jobs: WorkableJobFixture[];
  /** Replaces the job list body (a malformed feed). */
  listOverride?: string;
  /** A smaller page cap than Workable's 100 (to page with few jobs). */
  maxPageSize?: number;
  /** Replaces `paging.next` on the first page (a test of where the connector follows it). */
  nextOverride?: string;
}

export interface WorkableCandidate {
  id: string;
  subdomain: string;
  shortcode: string;
  body: Record<string, unknown>;
  sourced: boolean;
  /** The stage's slug (one of `STAGES`). */
  stage: string;
  disqualified?: boolean;
  withdrew?: boolean;
  disqualifiedAt?: string | null;
  disqualificationReason?: string | null;
  hiredAt?: string | null;
}

/** Workable's default pipeline: slug → name and kind (https://workable.readme.io/reference/stages). */
export const STAGES: Record<string, { name: string; kind: string }> = {
  sourced: { name: 'Sourced', kind: 'sourced' },
  applied: { name: 'Applied', kind: 'applied' },
  'phone-screen': { name: 'Phone Screen', kind: 'phone_screen' },
  assessment: { name: 'Assessment', kind: 'assessment' },
  interview: { name: 'Interview', kind: 'interview' },
  offer: { name: 'Offer', kind: 'offer' },
  hired: { name: 'Hired', kind: 'hired' },
};

export interface WorkableSimulator {
  server: SimulatorServer;
  accounts: Map<string, WorkableAccount>;
  candidates: WorkableCandidate[];
  /** E-mails Workable's "thank you for applying" message went to (applicants, not uploaded candidates). */
  thankYouEmails: string[];
  /** The rate limit: `limit` requests per `intervalMs`, per token. */
  rateLimit: { limit: number; intervalMs: number };
  /** Whether answers carry the documented X-Rate-Limit-* headers (true; false only to test pacing without them). */
  rateHeaders: boolean;
  /** Forces the next N candidate POSTs to 429 (the interval resets `forcedResetMs` later). */
  rateLimitNext: number;
  /** Forces the next N GETs to 429, likewise. */
  rateLimitNextRead: number;
  forcedResetMs: number;
  /** Statuses of the candidate POSTs, in order (429s included). */
  postStatuses: number[];
  env: { WORKABLE_API_URL: string };
  requestsTo(path: RegExp): RecordedRequest[];
  /** Moves a candidate to a stage of the pipeline (a slug of `STAGES`), as a recruiter does; hired sets hired_at. */
  moveApplication(id: string, stage: string): void;
  /** Disqualifies a candidate (`withdrew`: the candidate withdrew), as a recruiter does. */
  disqualify(id: string, options?: { withdrew?: boolean; reason?: string }): void;
}

export const RESUME_FILE_TYPES = ['pdf', 'doc', 'docx', 'odt', 'rtf', 'txt'];
export const RESUME_MAX_BYTES = 10 * 1024 * 1024;

export function workableAccount(subdomain: string, overrides: Partial<WorkableAccount> = {}): WorkableAccount {
  return {
    subdomain,
    token: `wk-token-${subdomain}-0123456789`,
    scopes: new Set(['r_jobs', 'r_candidates', 'w_candidates']),
    jobs: [],
    ...overrides,
  };
}

const DEFAULT_FORM_FIELDS = [
  { key: 'name', label: 'Full name', type: 'string', required: true },
  { key: 'email', label: 'Email', type: 'string', required: true },
  { key: 'phone', label: 'Phone', type: 'string', required: false },
  {
    key: 'resume',
    label: 'Resume',
    type: 'file',
    required: true,
    supported_file_types: RESUME_FILE_TYPES,
    max_file_size: RESUME_MAX_BYTES,
  },
  {
    key: 'avatar',
    label: 'Photo',
    type: 'file',
    required: false,
    supported_file_types: ['jpg', 'jpeg', 'gif', 'png'],
    max_file_size: 5242880,
  },
];

export function workableJobJson(sim: WorkableSimulator, account: WorkableAccount, job: WorkableJobFixture, fields: Set<string>) {
  const description = job.description ?? `<p>${job.title}</p>`;
  const requirements = job.requirements ?? '<ul><li>TypeScript</li></ul>';
  const benefits = job.benefits ?? '<p>Good coffee</p>';
  return {
    id: job.id ?? `id-${job.shortcode.toLowerCase()}`,
    title: job.title,
    full_title: `${job.title} - ${job.department ?? 'Engineering'}`,
    shortcode: job.shortcode,
    code: `CODE-${job.shortcode}`,
    state: job.state ?? 'published',
    department: job.department ?? 'Engineering',
    department_hierarchy: [{ id: 1, name: job.department ?? 'Engineering' }],
    url: `https://apply.workable.com/${account.subdomain}/j/${job.shortcode}/`,
    application_url: `https://apply.workable.com/${account.subdomain}/j/${job.shortcode}/apply/`,
    shortlink: `https://apply.workable.com/j/${job.shortcode}`,
    location: job.location ?? {
      location_str: 'Berlin, Germany',
      country: 'Germany',
      country_code: 'DE',
      region: 'Berlin',
      region_code: 'BE',
      city: 'Berlin',
      zip_code: '10115',
      telecommuting: false,
      workplace_type: 'hybrid',
    },
    created_at: '2026-01-01T00:00:00Z',
    ...(job.employment_type ? { employment_type: job.employment_type } : {}),
    ...(job.salary ? { salary: job.salary } : {}),
    ...(fields.has('description') ? { description } : {}),
    ...(fields.has('full_description')
      ? { full_description: `${description}\n<h3>Requirements</h3>\n${requirements}\n<h3>Benefits</h3>\n${benefits}` }
      : {}),
    ...(fields.has('requirements') ? { requirements } : {}),
    ...(fields.has('benefits') ? { benefits } : {}),
  };
}

const base64Bytes = (value: unknown) =>
  typeof value === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(value) ? Buffer.from(value, 'base64') : undefined;
const extensionOf = (name: unknown) => (typeof name === 'string' && name.includes('.') ? name.split('.').pop()!.toLowerCase() : '');

/**
 * The candidate keys "that can be provided" (https://workable.readme.io/reference/job-candidates-create; the
 * same list, with types, on https://workable.readme.io/docs/update-candidate). Workable's reference does not
 * say what it does with other keys: the simulator refuses them (422, assumed, P278) so that a misnamed field
 * shows in the tests instead of being dropped silently.
 */
export const CANDIDATE_KEYS = new Set([
  'name',
  'firstname',
  'lastname',
  'email',
  'headline',
  'summary',
  'address',
  'phone',
  'cover_letter',
  'resume',
  'resume_url',
  'image',
  'image_url',
  'education_entries',
  'experience_entries',
  'answers',
  'skills',
  'tags',
  'social_profiles',
  'disqualified',
  'disqualification_reason',
  'domain',
  'recruiter_key',
  'created_at',
]);
/** The root of the body: `sourced` ("at the root level") and `candidate` (job-candidates-create). */
const ROOT_KEYS = new Set(['sourced', 'candidate']);
/** The answer keys per question type (assumed from Workable's application_form question types, P278). */
const ANSWER_VALUE_KEYS = new Set(['body', 'choices', 'checked', 'number', 'date', 'file']);

/** What is wrong with the shape of a candidate body, by the documented keys and types; undefined when nothing. */
function candidateShapeError(body: Record<string, unknown>, candidate: Record<string, unknown>): string | undefined {
  const unknownRoot = Object.keys(body).find((k) => !ROOT_KEYS.has(k));
  if (unknownRoot) return `unknown attribute '${unknownRoot}'`;
  if (body.sourced !== undefined && typeof body.sourced !== 'boolean') return 'sourced is not a boolean';
  const unknown = Object.keys(candidate).find((k) => !CANDIDATE_KEYS.has(k));
  if (unknown) return `unknown attribute '${unknown}' for candidate`;
  // https://workable.readme.io/docs/update-candidate: these are strings ("cover_letter | string | The candidate's cover letter").
  for (const key of ['name', 'firstname', 'lastname', 'email', 'headline', 'summary', 'address', 'phone', 'cover_letter'])
    if (candidate[key] !== undefined && typeof candidate[key] !== 'string') return `${key} is not a string`;
  // Same page: skills is a list of strings, social_profiles an array.
  if (candidate.skills !== undefined && (!Array.isArray(candidate.skills) || candidate.skills.some((s) => typeof s !== 'string')))
    return 'skills is not a list of strings';
  if (candidate.social_profiles !== undefined) {
    if (!Array.isArray(candidate.social_profiles)) return 'social_profiles is not an array';
    for (const p of candidate.social_profiles as Record<string, unknown>[])
      if (!p || typeof p !== 'object' || typeof p.type !== 'string' || typeof p.url !== 'string') return 'social_profiles is invalid';
  }
  if (candidate.resume !== undefined) {
    const r = candidate.resume as Record<string, unknown>;
    if (!r || typeof r !== 'object' || typeof r.name !== 'string' || typeof r.data !== 'string') return 'Resume is invalid';
  }
  if (candidate.answers !== undefined) {
    if (!Array.isArray(candidate.answers)) return 'answers is not an array';
    for (const a of candidate.answers as Record<string, unknown>[]) {
      if (!a || typeof a !== 'object' || typeof a.question_key !== 'string') return 'Answers question key is invalid';
      const values = Object.keys(a).filter((k) => k !== 'question_key');
      if (values.length !== 1 || !ANSWER_VALUE_KEYS.has(values[0])) return 'Answers value is invalid';
    }
  }
  return undefined;
}

export async function startWorkableSimulator(): Promise<WorkableSimulator> {
  const sim = {
    accounts: new Map(),
    candidates: [],
    thankYouEmails: [],
    rateLimit: { limit: 10, intervalMs: 10_000 },
    rateHeaders: true,
    rateLimitNext: 0,
    rateLimitNextRead: 0,
    forcedResetMs: 1000,
    postStatuses: [],
  } as unknown as WorkableSimulator;
  /** Per token: the current interval's start and its request count. */
  const windows = new Map<string, { start: number; count: number }>();

  sim.server = await startSimulatorServer((req) => {
    const reply = handle(req);
    if (req.method === 'POST' && /\/candidates$/.test(req.path)) sim.postStatuses.push(reply.status);
    return reply;
  });

  function handle(req: RecordedRequest): Reply {
    const match = /^\/workable\/([^/]+)\/spi\/v3(\/.*)$/.exec(req.path);
    const account = match ? sim.accounts.get(decodeURIComponent(match[1])) : undefined;
    if (!match || !account) return { status: 404, body: { error: 'Not found' } };
    const auth = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    // https://workable.readme.io/reference (Getting started): `Authorization: Bearer <token>` on every call.
    if (!auth || auth[1] !== account.token) return { status: 401, body: { error: 'Not authorized' } };

    // The documented rate limit, per token, with its headers on every answer (https://workable.readme.io/docs/rate-limits:
    // 10 requests per 10-second interval for account tokens; X-Rate-Limit-Limit/-Remaining/-Reset; 429 above).
    const now = Date.now();
    let window = windows.get(auth[1]);
    if (!window || now - window.start >= sim.rateLimit.intervalMs) window = { start: now, count: 0 };
    windows.set(auth[1], window);
    const forced = req.method === 'POST' ? sim.rateLimitNext > 0 : sim.rateLimitNextRead > 0;
    if (forced) {
      if (req.method === 'POST') sim.rateLimitNext -= 1;
      else sim.rateLimitNextRead -= 1;
      return {
        status: 429,
        body: { error: 'Too many requests' },
        headers: {
          'X-Rate-Limit-Limit': String(sim.rateLimit.limit),
          'X-Rate-Limit-Remaining': '0',
          'X-Rate-Limit-Reset': String(Math.ceil((now + sim.forcedResetMs) / 1000)),
        },
      };
    }
    window.count += 1;
    const limitHeaders: Record<string, string> = !sim.rateHeaders
      ? {}
      : {
          'X-Rate-Limit-Limit': String(sim.rateLimit.limit),
          'X-Rate-Limit-Remaining': String(Math.max(0, sim.rateLimit.limit - window.count)),
          'X-Rate-Limit-Reset': String(Math.ceil((window.start + sim.rateLimit.intervalMs) / 1000)),
        };
    if (window.count > sim.rateLimit.limit) return { status: 429, body: { error: 'Too many requests' }, headers: limitHeaders };
    const answer = route(req, account, match[1], match[2]);
    return { ...answer, headers: { ...limitHeaders, ...(answer.headers ?? {}) } };
  }

  function route(req: RecordedRequest, account: WorkableAccount, subdomain: string, path: string): Reply {
    const scope = (name: string): Reply | undefined =>
      account.scopes.has(name) ? undefined : { status: 403, body: { error: `Not authorized: missing scope ${name}` } };
    if (req.method === 'GET' && path === '/jobs') {
      const denied = scope('r_jobs');
      if (denied) return denied;
      if (account.listOverride !== undefined)
        return { status: 200, raw: account.listOverride, headers: { 'Content-Type': 'application/json' } };
      const limit = Math.min(account.maxPageSize ?? 100, Math.max(1, Number(req.query.get('limit') ?? 50) || 50));
      const state = req.query.get('state');
      const sinceId = req.query.get('since_id');
      const fields = new Set((req.query.get('include_fields') ?? '').split(',').map((f) => f.trim()));
      const all = account.jobs
        .filter((j) => !state || (j.state ?? 'published') === state)
        .map((j) => workableJobJson(sim, account, j, fields));
      const start = sinceId ? all.findIndex((j) => j.id === sinceId) + 1 : 0;
      const jobs = all.slice(start, start + limit);
      const more = start + limit < all.length;
      const next = new URL(`${sim.server.url}${req.path}`);
      for (const [name, value] of req.query) next.searchParams.set(name, value);
      next.searchParams.set('since_id', jobs.length ? jobs[jobs.length - 1].id : '');
      const nextUrl = !sinceId && account.nextOverride !== undefined ? account.nextOverride : more ? next.toString() : undefined;
      return { status: 200, body: { jobs, paging: nextUrl ? { next: nextUrl } : {} } };
    }
    const form = /^\/jobs\/([^/]+)\/application_form$/.exec(path);
    if (req.method === 'GET' && form) {
      const denied = scope('r_jobs');
      if (denied) return denied;
      const job = account.jobs.find((j) => j.shortcode === decodeURIComponent(form[1]));
      if (!job) return { status: 404, body: { error: 'Not found' } };
      return { status: 200, body: { form_fields: job.form_fields ?? DEFAULT_FORM_FIELDS, questions: job.questions ?? [] } };
    }
    const create = /^\/jobs\/([^/]+)\/candidates$/.exec(path);
    if (req.method === 'POST' && create) {
      const denied = scope('w_candidates');
      if (denied) return denied;
      const job = account.jobs.find((j) => j.shortcode === decodeURIComponent(create[1]));
      if (!job) return { status: 404, body: { error: 'Not found' } };
      if ((job.state ?? 'published') !== 'published') return { status: 422, body: { error: `Job is ${job.state}, not published` } };
      if (!(req.headers['content-type'] ?? '').startsWith('application/json') || !req.json || typeof req.json !== 'object')
        return { status: 400, body: { error: 'Expected a JSON body' } };
      const body = req.json as Record<string, unknown>;
      const candidate = body.candidate as Record<string, unknown> | undefined;
      if (!candidate || typeof candidate !== 'object') return { status: 422, body: { error: 'Validation failed: candidate is missing' } };
      const shape = candidateShapeError(body, candidate);
      if (shape) return { status: 422, body: { error: `Validation failed: ${shape}` } };
      if (!candidate.name && !(candidate.firstname && candidate.lastname))
        return { status: 422, body: { error: "Validation failed: Name can't be blank" } };
      if (typeof candidate.email !== 'string' || !candidate.email.includes('@'))
        return { status: 422, body: { error: 'Validation failed: Email is invalid' } };
      const email = candidate.email.trim().toLowerCase();
      if (
        sim.candidates.some(
          (c) => c.subdomain === account.subdomain && c.shortcode === job.shortcode && String(c.body.email).trim().toLowerCase() === email,
        )
      )
        return { status: 422, body: { error: 'Validation failed: Email has already been taken' } };
      const fields = job.form_fields ?? DEFAULT_FORM_FIELDS;
      const resumeField = fields.find((f) => f.key === 'resume') as { supported_file_types?: string[]; max_file_size?: number } | undefined;
      if (candidate.resume !== undefined) {
        const resume = candidate.resume as { name?: unknown; data?: unknown };
        const bytes = base64Bytes(resume?.data);
        if (!bytes || bytes.length === 0) return { status: 422, body: { error: 'Validation failed: Resume is invalid' } };
        if (!(resumeField?.supported_file_types ?? RESUME_FILE_TYPES).includes(extensionOf(resume.name)))
          return { status: 422, body: { error: 'Validation failed: Resume file type is not supported' } };
        if (bytes.length > (resumeField?.max_file_size ?? RESUME_MAX_BYTES))
          return { status: 422, body: { error: 'Validation failed: Resume file size is too large' } };
      }
      for (const answer of Array.isArray(candidate.answers) ? (candidate.answers as Record<string, unknown>[]) : []) {
        const question = (job.questions ?? []).find((q) => q.id === answer?.question_key);
        if (!question) return { status: 422, body: { error: 'Validation failed: Answers question key is invalid' } };
        if (question.type === 'file') {
          const file = answer.file as { name?: unknown; data?: unknown } | undefined;
          const bytes = base64Bytes(file?.data);
          if (!bytes || bytes.length === 0) return { status: 422, body: { error: 'Validation failed: Answers file is invalid' } };
          if (question.supported_file_types && !question.supported_file_types.includes(extensionOf(file?.name)))
            return { status: 422, body: { error: 'Validation failed: Answers file type is not supported' } };
          if (question.max_file_size && bytes.length > question.max_file_size)
            return { status: 422, body: { error: 'Validation failed: Answers file size is too large' } };
        }
      }
      // The v3 default: without "sourced": false the candidate counts as uploaded and gets no e-mail.
      const sourced = body.sourced !== false;
      const created: WorkableCandidate = {
        id: randomUUID().slice(0, 8),
        subdomain: account.subdomain,
        shortcode: job.shortcode,
        body: candidate,
        sourced,
        stage: sourced ? 'sourced' : 'applied',
      };
      sim.candidates.push(created);
      if (!sourced) sim.thankYouEmails.push(email);
      return {
        status: 201,
        body: {
          status: 'created',
          candidate: {
            id: created.id,
            name: candidate.name ?? `${String(candidate.firstname)} ${String(candidate.lastname)}`,
            firstname: candidate.firstname ?? null,
            lastname: candidate.lastname ?? null,
            email: candidate.email,
            account: { subdomain, name: subdomain },
            job: { shortcode: job.shortcode, title: job.title },
            stage: created.stage,
            sourced,
            created_at: new Date().toISOString(),
          },
        },
      };
    }
    const show = /^\/candidates\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && show) {
      const denied = scope('r_candidates');
      if (denied) return denied;
      const found = sim.candidates.find((c) => c.subdomain === account.subdomain && c.id === decodeURIComponent(show[1]));
      if (!found) return { status: 404, body: { error: 'Not found' } };
      return { status: 200, body: { candidate: candidateJson(found, account) } };
    }
    return { status: 404, body: { error: 'Not found' } };
  }

  function candidateJson(c: WorkableCandidate, account: WorkableAccount) {
    const job = account.jobs.find((j) => j.shortcode === c.shortcode);
    const stage = STAGES[c.stage];
    return {
      id: c.id,
      name: c.body.name ?? `${String(c.body.firstname)} ${String(c.body.lastname)}`,
      account: { subdomain: account.subdomain, name: account.subdomain },
      job: { shortcode: c.shortcode, title: job?.title ?? '' },
      stage: stage.name,
      stage_kind: stage.kind,
      disqualified: c.disqualified === true,
      withdrew: c.withdrew === true,
      disqualified_at: c.disqualifiedAt ?? null,
      disqualification_reason: c.disqualificationReason ?? null,
      hired_at: c.hiredAt ?? null,
      sourced: c.sourced,
      email: c.body.email,
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
    };
  }

  function candidate(id: string): WorkableCandidate {
    const found = sim.candidates.find((c) => c.id === id);
    if (!found) throw new Error(`no Workable candidate ${id}`);
    return found;
  }
  sim.moveApplication = (id, stage) => {
    if (!Object.hasOwn(STAGES, stage)) throw new Error(`no Workable stage ${stage}`);
    const c = candidate(id);
    c.stage = stage;
    c.hiredAt = STAGES[stage].kind === 'hired' ? new Date().toISOString().slice(0, 10) : null;
  };
  sim.disqualify = (id, options = {}) => {
    const c = candidate(id);
    c.disqualified = true;
    c.withdrew = options.withdrew === true;
    c.disqualifiedAt = new Date().toISOString();
    c.disqualificationReason = options.reason ?? null;
  };

  sim.env = { WORKABLE_API_URL: `${sim.server.url}/workable/{subdomain}` };
  sim.requestsTo = (path) => sim.server.requests.filter((r) => path.test(r.path));
  return sim;
}
