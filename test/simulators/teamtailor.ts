/**
 * A Teamtailor API v1 simulator under `/teamtailor` (a path prefix), as strict as the vendor's documentation
 * (https://docs.teamtailor.com, from https://github.com/Teamtailor/docs; the rules and their pages are in teamtailor-rules.ts):
 * - JSON:API documents in and out (`application/vnd.api+json`; another Content-Type on a POST: 415, ASSUMED);
 *   errors are JSON:API `{"errors": [{"status", "title", "code"?, "detail"?, "source": {"pointer"}?}]}`.
 * - Auth `Authorization: Token token=<key>` (DOCS#authentication; a wrong key 401, ASSUMED). Scopes and
 *   permissions (DOCS#permissions): `admin` reads candidates and writes them, `public` reads jobs only (403,
 *   ASSUMED); a `read` key gets 403 on every POST (ASSUMED).
 * - `X-Api-Version` required and echoed (DOCS#versioning; 406 without it, ASSUMED).
 * - Rate limit: `X-Rate-Limit-Limit`/`-Remaining`/`-Reset` (seconds left in the period) on every answer
 *   (DOCS#rate-limit); 50 requests per 10 seconds per key, 429 above (Teamtailor's help centre as issue 41
 *   cites it; the page itself was not readable: ASSUMED numbers).
 * - Lists page at 10 by default, 30 at most (DOCS#pagination): `/v1/jobs` (`filter[status]`, published by
 *   default; `include=department,locations`), `/v1/picked-questions` (`filter[job]` ASSUMED; `include=question`),
 *   the job's related `/v1/jobs/{id}/picked-questions` (the related link of DOCS#jobs), `/v1/candidates`.
 * - Creates (`POST /v1/candidates|uploads|answers|job-applications`): unknown or read-only attributes 400
 *   "Param not allowed" (ASSUMED, see WRITABLE); files only by a public http(s) `url`/`resume` the simulator
 *   downloads, as Teamtailor does (a `data:` URI or a failed download: 422 at the attribute, ASSUMED); answers
 *   typed by the question (`boolean`, `choices`, `range`, `text`; DOCS#answers); a known e-mail is 422 unless
 *   `merge: true` (DOCS#create-candidate); a job application needs candidate and job (DOCS#create-job-application;
 *   unknown job 404, job not open 422 at `/data/relationships/job`, a second application 422 at
 *   `/data/relationships/candidate`: ASSUMED).
 * - `GET /v1/job-applications/{id}` with its stage and reject reason, and `moveApplication`/`reject` for tests:
 *   teamtailor-outcomes.ts (D21).
 */
import { startSimulatorServer, type RecordedRequest, type Reply, type SimulatorServer } from './server.js';
import {
  answerProblem,
  jsonApiError as error,
  MEDIA_TYPE,
  notPublicUrl,
  paged,
  unknownMember,
  versionProblem,
} from './teamtailor-rules.js';
import { readJobApplication, teamtailorOutcomes, type TeamtailorOutcomes } from './teamtailor-outcomes.js';

export interface TeamtailorQuestionFixture {
  id: string;
  title: string;
  /** The five documented types (DOCS#questions). */
  type: 'Boolean' | 'Choice' | 'Range' | 'Text' | 'Video';
  singleLine?: boolean;
  mandatory?: boolean;
  multiple?: boolean;
  alternatives?: { id: string; title: string }[];
}

export interface TeamtailorJobFixture {
  id: string;
  title: string;
  body: string;
  /** `open` (published, default), `archived`, `draft`, `unlisted`. */
  status?: string;
  employmentType?: string;
  remoteStatus?: string;
  location?: { id: string; name: string; city: string; country: string; address?: string; zip?: string };
  department?: { id: string; name: string };
  salary?: { min: number; max: number; currency: string; unit: string };
  questions?: TeamtailorQuestionFixture[];
}

export interface TeamtailorAccount {
  apiKey: string;
  scope: 'admin' | 'public';
  permission: 'read' | 'read-write';
  jobs: TeamtailorJobFixture[];
  /** Replaces the job list body (a malformed feed). */
  listOverride?: string;
}

export interface TeamtailorFile {
  filename: string | null;
  contentType: string;
  bytes: Buffer;
}

export interface TeamtailorCandidate {
  id: string;
  apiKey: string;
  attributes: Record<string, unknown>;
  resume?: TeamtailorFile;
}

export interface TeamtailorApplication {
  id: string;
  candidateId: string;
  jobId: string;
  attributes: Record<string, unknown>;
  createdAt?: string;
}

export interface TeamtailorSimulator {
  server: SimulatorServer;
  accounts: TeamtailorAccount[];
  candidates: TeamtailorCandidate[];
  uploads: { id: string; candidateId: string; file: TeamtailorFile; attributes: Record<string, unknown> }[];
  answers: { id: string; candidateId: string; questionId: string; attributes: Record<string, unknown> }[];
  applications: TeamtailorApplication[];
  /** Statuses of the POSTs, in order (429s included). */
  postStatuses: number[];
  /** The next N requests answer 429 (whatever the window says). */
  rateLimitNext: number;
  /** X-Rate-Limit-Reset of a forced 429, in seconds. */
  rateLimitResetSeconds: number;
  /** Requests per window per key (50 per 10 s). */
  limitPer10s: number;
  /** The rate-limit window, ms (10 000). */
  windowMs: number;
  /** Every file URL the simulator downloaded, in order. */
  downloads: string[];
  maxFileBytes: number;
  fileExtensions: string[];
  env: { TEAMTAILOR_API_URL: string };
  requestsTo(path: RegExp): RecordedRequest[];
  /** Stages and rejections of the applications (teamtailor-outcomes.ts): `outcomes.moveApplication(id, 'Hired')`. */
  outcomes: TeamtailorOutcomes;
}

export function teamtailorJobResource(sim: TeamtailorSimulator, job: TeamtailorJobFixture) {
  return {
    id: job.id,
    type: 'jobs',
    links: {
      self: `${sim.server.url}/teamtailor/v1/jobs/${job.id}`,
      'careersite-job-url': `https://acme.teamtailor.com/jobs/${job.id}-${job.title.toLowerCase().replace(/\W+/g, '-')}`,
      'careersite-job-apply-url': `https://acme.teamtailor.com/jobs/${job.id}/applications/new`,
    },
    attributes: {
      title: job.title,
      body: job.body,
      pitch: `Join us as ${job.title}.`,
      status: job.status ?? 'open',
      'human-status': job.status === 'archived' ? 'archived' : 'published',
      'remote-status': job.remoteStatus ?? 'hybrid',
      'created-at': '2026-01-01T00:00:00.000+01:00',
      // DOCS#jobs documents the attributes above; the ones below are not in the vendor's docs (ASSUMED, P277).
      'employment-type': job.employmentType ?? 'fulltime',
      'min-salary': job.salary?.min ?? null,
      'max-salary': job.salary?.max ?? null,
      currency: job.salary?.currency ?? null,
      'salary-time-unit': job.salary?.unit ?? null,
      'updated-at': '2026-01-02T00:00:00.000+01:00',
    },
    relationships: {
      department: { data: job.department ? { type: 'departments', id: job.department.id } : null },
      locations: { data: job.location ? [{ type: 'locations', id: job.location.id }] : [] },
      'picked-questions': { links: { related: `${sim.server.url}/teamtailor/v1/jobs/${job.id}/picked-questions` } },
    },
  };
}

const EXTENSIONS_BY_TYPE: Record<string, string> = {
  'application/pdf': 'pdf',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'text/plain': 'txt',
  'image/png': 'png',
  'image/jpeg': 'jpg',
};

type Data = {
  type?: string;
  attributes?: Record<string, unknown>;
  relationships?: Record<string, { data?: { type?: string; id?: string } }>;
};

export async function startTeamtailorSimulator(): Promise<TeamtailorSimulator> {
  const sim = {
    accounts: [],
    candidates: [],
    uploads: [],
    answers: [],
    applications: [],
    postStatuses: [],
    downloads: [],
    rateLimitNext: 0,
    rateLimitResetSeconds: 1,
    limitPer10s: 50,
    windowMs: 10_000,
    maxFileBytes: 10 * 1024 * 1024,
    fileExtensions: ['pdf', 'doc', 'docx', 'odt', 'rtf', 'txt', 'png', 'jpg', 'jpeg'],
    outcomes: teamtailorOutcomes(),
  } as unknown as TeamtailorSimulator;
  const windows = new Map<string, number[]>();
  let nextId = 1000;
  const newId = () => String(nextId++);
  const base = () => `${sim.server.url}/teamtailor/v1`;
  const listLink = (path: string, extra: string) => (n: number, size: number) =>
    `${base()}${path}?${extra}page%5Bnumber%5D=${n}&page%5Bsize%5D=${size}`;

  /** Downloads a file's URL as Teamtailor does (DOCS#create-a-upload: "A public url is required for the file"). */
  async function download(value: unknown, pointer: string, filename: string | null): Promise<TeamtailorFile | Reply> {
    if (notPublicUrl(value)) return error(422, 'is invalid', { pointer, detail: 'must be a public URL' });
    sim.downloads.push(value as string);
    let response: Response;
    try {
      response = await fetch(value as string, { redirect: 'follow' });
    } catch {
      return error(422, 'is invalid', { pointer, detail: 'could not download the file' });
    }
    if (!response.ok) return error(422, 'is invalid', { pointer, detail: 'could not download the file' });
    const bytes = Buffer.from(await response.arrayBuffer());
    const contentType = (response.headers.get('content-type') ?? 'application/octet-stream').split(';')[0].trim();
    const extension = filename ? (filename.split('.').pop() ?? '').toLowerCase() : (EXTENSIONS_BY_TYPE[contentType] ?? 'pdf');
    if (!sim.fileExtensions.includes(extension)) return error(422, 'is invalid', { pointer, detail: 'file type is not allowed' });
    if (bytes.length === 0 || bytes.length > sim.maxFileBytes) return error(422, 'is invalid', { pointer, detail: 'file size is invalid' });
    return { filename, contentType, bytes };
  }

  const questionResource = (q: TeamtailorQuestionFixture) => ({
    id: q.id,
    type: 'questions',
    links: { self: `${base()}/questions/${q.id}` },
    // DOCS#questions "Question Object".
    attributes: {
      alternatives: q.type === 'Choice' ? (q.alternatives ?? []) : null,
      'end-with': q.type === 'Range' ? 10 : null,
      multiple: q.type === 'Choice' ? (q.multiple ?? false) : null,
      'question-type': q.type,
      'start-with': q.type === 'Range' ? 0 : null,
      title: q.title,
      unit: q.type === 'Range' ? 'years' : null,
      'single-line': q.type === 'Text' ? (q.singleLine ?? false) : null,
    },
  });

  /** Picked questions (DOCS#picked-questions), paged (DOCS#pagination), with their questions when asked. */
  function pickedList(req: RecordedRequest, jobs: TeamtailorJobFixture[], link: (n: number, size: number) => string): Reply {
    const all = jobs.flatMap((job) => (job.questions ?? []).map((q) => ({ job, q })));
    const { page, meta, links } = paged(all, req.query, link);
    const include = (req.query.get('include') ?? '').split(',').includes('question');
    return {
      status: 200,
      body: {
        data: page.map(({ job, q }) => ({
          id: `${job.id}${q.id}`,
          type: 'picked-questions',
          links: { self: `${base()}/picked-questions/${job.id}${q.id}` },
          attributes: { mandatory: q.mandatory ?? false },
          relationships: { question: { data: { type: 'questions', id: q.id } } },
        })),
        ...(include ? { included: page.map(({ q }) => questionResource(q)) } : {}),
        meta,
        links,
      },
    };
  }

  async function handle(req: RecordedRequest, key: string): Promise<Reply> {
    const versionRefusal = versionProblem(req.headers['x-api-version']);
    if (versionRefusal) return versionRefusal;
    const account = sim.accounts.find((a) => a.apiKey === key);
    if (!account) return error(401, 'Unauthorized', { detail: 'Invalid API key' });
    const path = req.path.replace(/^\/teamtailor/, '');
    const open = account.jobs.filter((j) => (j.status ?? 'open') === 'open');
    if (req.method === 'GET' && path === '/v1/jobs') return listJobs(req, account);
    if (req.method === 'GET' && path === '/v1/picked-questions') {
      const jobId = req.query.get('filter[job]');
      const jobs = jobId === null ? account.jobs : account.jobs.filter((j) => j.id === jobId);
      return pickedList(req, jobs, listLink('/picked-questions', jobId === null ? '' : `filter%5Bjob%5D=${encodeURIComponent(jobId)}&`));
    }
    const related = /^\/v1\/jobs\/([^/]+)\/picked-questions$/.exec(path);
    if (req.method === 'GET' && related) {
      // The related link of a job's `picked-questions` (DOCS#jobs "Job Object"): paged like every list.
      const job = open.find((j) => j.id === decodeURIComponent(related[1]));
      if (!job) return error(404, 'Record not found');
      return pickedList(req, [job], listLink(`/jobs/${job.id}/picked-questions`, ''));
    }
    if (req.method === 'GET' && path === '/v1/candidates') {
      // DOCS#candidates: "Required scope: Admin".
      if (account.scope !== 'admin') return error(403, 'Forbidden', { detail: 'This API key does not have access to candidates' });
      const own = sim.candidates.filter((c) => c.apiKey === account.apiKey);
      const { page, meta, links } = paged(own, req.query, listLink('/candidates', ''));
      return { status: 200, body: { data: page.map((c) => ({ id: c.id, type: 'candidates', attributes: c.attributes })), meta, links } };
    }
    const read = readJobApplication(sim.outcomes, req, path, account, sim.applications, sim.candidates, base());
    if (read) return read;
    if (req.method !== 'POST') return error(404, 'Not found');
    if (!(req.headers['content-type'] ?? '').startsWith(MEDIA_TYPE)) return error(415, 'Unsupported Media Type');
    // DOCS#permissions: only an Admin write key "Can create new jobs, candidates and job applications".
    if (account.scope !== 'admin' || account.permission !== 'read-write')
      return error(403, 'Forbidden', { detail: 'This API key may not write' });
    let data: Data;
    try {
      data = ((JSON.parse(req.body.toString('utf8')) as { data?: Data }).data ?? {}) as Data;
    } catch {
      return error(400, 'Bad Request', { detail: 'Body is not JSON' });
    }
    const type = /^\/v1\/(candidates|uploads|answers|job-applications)$/.exec(path)?.[1];
    if (!type) return error(404, 'Not found');
    if (data.type !== type)
      return error(409, 'Type mismatch', { code: '110', detail: `${String(data.type)} is not a valid type for this operation.` });
    const unknown = unknownMember(type, data);
    if (unknown) return unknown;
    const attributes = data.attributes ?? {};
    const relatedId = (name: string) => data.relationships?.[name]?.data?.id;
    const ownCandidate = () => sim.candidates.find((c) => c.id === relatedId('candidate') && c.apiKey === account.apiKey);

    if (type === 'candidates') {
      const email = typeof attributes.email === 'string' ? attributes.email.trim().toLowerCase() : '';
      // DOCS#create-candidate: "A unique email is a required attribute unless sourced is set to true".
      if (!email && attributes.sourced !== true) return error(422, "can't be blank", { pointer: '/data/attributes/email' });
      const known = sim.candidates.find((c) => c.apiKey === account.apiKey && String(c.attributes.email).toLowerCase() === email);
      // DOCS#create-candidate: `merge` merges into the candidate with the same e-mail; without it the e-mail is taken.
      if (known && attributes.merge !== true) return error(422, 'has already been taken', { pointer: '/data/attributes/email' });
      let resume: TeamtailorFile | undefined;
      if (attributes.resume !== undefined) {
        const checked = await download(attributes.resume, '/data/attributes/resume', null);
        if ('status' in checked) return checked;
        resume = checked;
      }
      const { merge: _merge, resume: _resume, ...stored } = attributes;
      const candidate = known ?? { id: newId(), apiKey: account.apiKey, attributes: {} };
      Object.assign(candidate.attributes, stored);
      if (resume) candidate.resume = resume;
      if (!known) sim.candidates.push(candidate);
      return { status: 201, body: { data: { id: candidate.id, type: 'candidates', attributes: candidate.attributes } } };
    }
    const candidate = ownCandidate();
    if (!candidate) return error(422, 'must exist', { pointer: '/data/relationships/candidate' });
    if (type === 'uploads') {
      const fileName = typeof attributes['file-name'] === 'string' ? attributes['file-name'] : '';
      const checked = await download(attributes.url, '/data/attributes/url', fileName);
      if ('status' in checked) return checked;
      const upload = { id: newId(), candidateId: candidate.id, file: checked, attributes };
      sim.uploads.push(upload);
      // DOCS#create-a-upload "Example response".
      return {
        status: 201,
        body: {
          data: {
            id: upload.id,
            type: 'uploads',
            links: { self: `${base()}/uploads/${upload.id}` },
            attributes: { url: `${base()}/uploads/${upload.id}/file`, 'file-name': fileName, internal: attributes.internal ?? false },
          },
        },
      };
    }
    if (type === 'answers') {
      // DOCS#create-answer: "The relations question and candidate are required".
      const question = account.jobs.flatMap((j) => j.questions ?? []).find((q) => q.id === relatedId('question'));
      if (!question) return error(422, 'must exist', { pointer: '/data/relationships/question' });
      const refusal = answerProblem(question.type, attributes);
      if (refusal) return refusal;
      // DOCS#create-answer: "If the candidate already has answered the question, the answer will be updated."
      const known = sim.answers.find((a) => a.candidateId === candidate.id && a.questionId === question.id);
      const answer = known ?? { id: newId(), candidateId: candidate.id, questionId: question.id, attributes };
      answer.attributes = attributes;
      if (!known) sim.answers.push(answer);
      // DOCS#create-answer "Example response": every typed attribute, null where not given.
      const typed = { boolean: null, choices: [], range: null, text: null, 'video-token': null, ...attributes };
      return {
        status: 201,
        body: { data: { id: answer.id, type: 'answers', attributes: { ...typed, 'updated-at': new Date().toISOString() } } },
      };
    }
    // DOCS#create-job-application: "The relations candidate and job are required".
    const job = account.jobs.find((j) => j.id === relatedId('job'));
    if (!job) return error(404, 'Record not found', { pointer: '/data/relationships/job' });
    if ((job.status ?? 'open') !== 'open')
      return error(422, 'is invalid', { pointer: '/data/relationships/job', detail: 'job is not open for applications' });
    if (sim.applications.some((a) => a.candidateId === candidate.id && a.jobId === job.id))
      return error(422, 'has already been taken', {
        pointer: '/data/relationships/candidate',
        detail: 'candidate has already applied to this job',
      });
    const application: TeamtailorApplication = {
      id: newId(),
      candidateId: candidate.id,
      jobId: job.id,
      attributes,
      createdAt: new Date().toISOString(),
    };
    sim.applications.push(application);
    return {
      status: 201,
      body: {
        data: { id: application.id, type: 'job-applications', attributes: { ...attributes, 'created-at': new Date().toISOString() } },
      },
    };
  }

  function listJobs(req: RecordedRequest, account: TeamtailorAccount): Reply {
    if (account.listOverride !== undefined) return { status: 200, raw: account.listOverride, headers: { 'Content-Type': MEDIA_TYPE } };
    // DOCS#list-jobs: `filter[status]` defaults to published.
    const status = req.query.get('filter[status]') ?? 'published';
    const jobs = account.jobs.filter((j) => status === 'all' || ((j.status ?? 'open') === 'open') === (status === 'published'));
    const { page, meta, links } = paged(jobs, req.query, listLink('/jobs', ''));
    const include = (req.query.get('include') ?? '').split(',');
    const included = [
      ...(include.includes('department')
        ? [...new Map(page.filter((j) => j.department).map((j) => [j.department!.id, j.department!])).values()].map((d) => ({
            id: d.id,
            type: 'departments',
            attributes: { name: d.name },
          }))
        : []),
      ...(include.includes('locations')
        ? [...new Map(page.filter((j) => j.location).map((j) => [j.location!.id, j.location!])).values()].map((l) => ({
            id: l.id,
            type: 'locations',
            attributes: { name: l.name, city: l.city, country: l.country, address: l.address ?? null, zip: l.zip ?? null },
          }))
        : []),
    ];
    return {
      status: 200,
      body: { data: page.map((j) => teamtailorJobResource(sim, j)), ...(included.length ? { included } : {}), meta, links },
    };
  }

  sim.server = await startSimulatorServer(async (req) => {
    const key = /^Token token=(.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const now = Date.now();
    const recent = (windows.get(key) ?? []).filter((t) => now - t < sim.windowMs);
    recent.push(now);
    windows.set(key, recent);
    // DOCS#rate-limit: X-Rate-Limit-Reset is "The number of seconds left in the current period".
    const rateHeaders = (remaining: number, reset: number) => ({
      'Content-Type': MEDIA_TYPE,
      'X-Rate-Limit-Limit': String(sim.limitPer10s),
      'X-Rate-Limit-Remaining': String(Math.max(0, remaining)),
      'X-Rate-Limit-Reset': String(reset),
    });
    const secondsLeft = Math.max(1, Math.ceil((recent[0] + sim.windowMs - now) / 1000));
    let reply: Reply;
    if (sim.rateLimitNext > 0) {
      sim.rateLimitNext -= 1;
      reply = { ...error(429, 'Too Many Requests'), headers: rateHeaders(0, sim.rateLimitResetSeconds) };
    } else if (recent.length > sim.limitPer10s) {
      reply = { ...error(429, 'Too Many Requests'), headers: rateHeaders(0, secondsLeft) };
    } else {
      const answer = await handle(req, key);
      // DOCS#versioning: "Successful API requests will have the used API version in the response header".
      const version: Record<string, string> = answer.status < 400 ? { 'X-Api-Version': req.headers['x-api-version'] ?? '' } : {};
      reply = {
        ...answer,
        headers: { ...rateHeaders(sim.limitPer10s - recent.length, secondsLeft), ...version, ...(answer.headers ?? {}) },
      };
    }
    if (req.method === 'POST') sim.postStatuses.push(reply.status);
    return reply;
  });
  sim.env = { TEAMTAILOR_API_URL: `${sim.server.url}/teamtailor` };
  sim.requestsTo = (path) => sim.server.requests.filter((r) => path.test(r.path));
  return sim;
}
