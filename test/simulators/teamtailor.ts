/**
 * A Teamtailor API v1 simulator under `/teamtailor` (a path prefix). It follows what Teamtailor documents
 * (shared/ats-apis-more.md, docs/connectors/teamtailor.md) and, where the docs leave gaps, the assumptions
 * that document lists:
 * - JSON:API: answers are `application/vnd.api+json`; a POST with another Content-Type is 415; errors are
 *   `{"errors": [{"status", "title", "detail", "source": {"pointer"}}]}`.
 * - Auth: `Authorization: Token token=<key>` (401 otherwise); a dated `X-Api-Version` header is required
 *   (406 without it) and echoed. Keys have a scope (`admin` reads candidates and writes; `public` reads jobs
 *   only: 403) and a permission (`read` keys get 403 on every POST).
 * - Rate limit: 50 requests per 10 seconds per key; every answer carries `X-Rate-Limit-Limit`,
 *   `X-Rate-Limit-Remaining`, `X-Rate-Limit-Reset` (seconds); above it, 429.
 * - Jobs: `GET /v1/jobs` with `filter[status]` (published by default), `page[size]` (default 10, at most 30)
 *   and `page[number]`, `include=department,locations`; `links.next` only while pages remain; `meta`
 *   `record-count`/`page-count`. `GET /v1/jobs/{id}/picked-questions?include=question`.
 * - Applications: `POST /v1/candidates` (email required; a known e-mail is 422 `has already been taken`
 *   unless `merge: true`, which returns the known candidate), the CV as the `resume` attribute (a URL; here a
 *   `data:` URI is decoded), `POST /v1/uploads` (`url`, `file-name`), `POST /v1/answers` (candidate +
 *   question), `POST /v1/job-applications` (candidate + job: an unknown job 404, a job not open 422 at
 *   `/data/relationships/job`, a second application of the candidate to the job 422 at
 *   `/data/relationships/candidate`). Files above `maxFileBytes` or of another extension: 422 at the
 *   file's attribute.
 */
import { startSimulatorServer, type RecordedRequest, type Reply, type SimulatorServer } from './server.js';

export interface TeamtailorQuestionFixture {
  id: string;
  title: string;
  type: 'Boolean' | 'Choice' | 'Date' | 'File' | 'Number' | 'Range' | 'Text' | 'Video';
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
  /** Requests per 10 seconds per key. */
  limitPer10s: number;
  maxFileBytes: number;
  fileExtensions: string[];
  env: { TEAMTAILOR_API_URL: string };
  requestsTo(path: RegExp): RecordedRequest[];
}

const MEDIA_TYPE = 'application/vnd.api+json';

const error = (status: number, title: string, pointer?: string, detail?: string): Reply => ({
  status,
  body: { errors: [{ status: String(status), title, ...(detail ? { detail } : {}), ...(pointer ? { source: { pointer } } : {}) }] },
});

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
      'employment-type': job.employmentType ?? 'fulltime',
      'remote-status': job.remoteStatus ?? 'hybrid',
      'min-salary': job.salary?.min ?? null,
      'max-salary': job.salary?.max ?? null,
      currency: job.salary?.currency ?? null,
      'salary-time-unit': job.salary?.unit ?? null,
      'created-at': '2026-01-01T00:00:00.000+01:00',
      'updated-at': '2026-01-02T00:00:00.000+01:00',
    },
    relationships: {
      department: { data: job.department ? { type: 'departments', id: job.department.id } : null },
      locations: { data: job.location ? [{ type: 'locations', id: job.location.id }] : [] },
      'picked-questions': { links: { related: `${sim.server.url}/teamtailor/v1/jobs/${job.id}/picked-questions` } },
    },
  };
}

/** Decodes a `data:` URI (the only kind of URL this simulator can "download"). */
function decodeDataUri(value: unknown): { contentType: string; bytes: Buffer } | undefined {
  const match = typeof value === 'string' ? /^data:([\w.+-]+\/[\w.+-]+);base64,([A-Za-z0-9+/=]*)$/.exec(value) : null;
  return match ? { contentType: match[1], bytes: Buffer.from(match[2], 'base64') } : undefined;
}

const EXTENSIONS_BY_TYPE: Record<string, string> = {
  'application/pdf': 'pdf',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'text/plain': 'txt',
  'image/png': 'png',
  'image/jpeg': 'jpg',
};

export async function startTeamtailorSimulator(): Promise<TeamtailorSimulator> {
  const sim = {
    accounts: [],
    candidates: [],
    uploads: [],
    answers: [],
    applications: [],
    postStatuses: [],
    rateLimitNext: 0,
    rateLimitResetSeconds: 1,
    limitPer10s: 50,
    maxFileBytes: 10 * 1024 * 1024,
    fileExtensions: ['pdf', 'doc', 'docx', 'odt', 'rtf', 'txt', 'png', 'jpg', 'jpeg'],
  } as unknown as TeamtailorSimulator;
  const windows = new Map<string, number[]>();
  let nextId = 1000;
  const newId = () => String(nextId++);

  function handle(req: RecordedRequest, key: string): Reply {
    if (!(req.headers['x-api-version'] ?? '').match(/^\d{8}$/))
      return error(406, 'Not Acceptable', undefined, 'X-Api-Version header missing or invalid');
    const account = sim.accounts.find((a) => a.apiKey === key);
    if (!account) return error(401, 'Unauthorized', undefined, 'Invalid API key');
    const path = req.path.replace(/^\/teamtailor/, '');
    if (req.method === 'GET' && path === '/v1/jobs') return listJobs(req, account);
    const picked = /^\/v1\/jobs\/([^/]+)\/picked-questions$/.exec(path);
    if (req.method === 'GET' && picked) {
      const job = account.jobs.find((j) => j.id === decodeURIComponent(picked[1]) && (j.status ?? 'open') === 'open');
      if (!job) return error(404, 'Record not found');
      const questions = job.questions ?? [];
      return {
        status: 200,
        body: {
          data: questions.map((q, i) => ({
            id: `${job.id}-${q.id}`,
            type: 'picked-questions',
            attributes: { mandatory: q.mandatory ?? false, 'row-order': i },
            relationships: { question: { data: { type: 'questions', id: q.id } } },
          })),
          ...(req.query.get('include') === 'question'
            ? {
                included: questions.map((q) => ({
                  id: q.id,
                  type: 'questions',
                  attributes: {
                    title: q.title,
                    'question-type': q.type,
                    ...(q.type === 'Choice' ? { multiple: q.multiple ?? false, alternatives: q.alternatives ?? [] } : {}),
                  },
                })),
              }
            : {}),
        },
      };
    }
    if (req.method === 'GET' && path === '/v1/candidates') {
      if (account.scope !== 'admin') return error(403, 'Forbidden', undefined, 'This API key does not have access to candidates');
      const own = sim.candidates.filter((c) => c.apiKey === account.apiKey);
      const size = Math.min(Number(req.query.get('page[size]') ?? 10) || 10, 30);
      return { status: 200, body: { data: own.slice(0, size).map((c) => ({ id: c.id, type: 'candidates', attributes: c.attributes })) } };
    }
    if (req.method !== 'POST') return error(404, 'Not found');
    if (!(req.headers['content-type'] ?? '').startsWith(MEDIA_TYPE)) return error(415, 'Unsupported Media Type');
    if (account.scope !== 'admin' || account.permission !== 'read-write')
      return error(403, 'Forbidden', undefined, 'This API key may not write');
    let document: {
      data?: {
        type?: string;
        attributes?: Record<string, unknown>;
        relationships?: Record<string, { data?: { type?: string; id?: string } }>;
      };
    };
    try {
      document = JSON.parse(req.body.toString('utf8')) as typeof document;
    } catch {
      return error(400, 'Bad Request', undefined, 'Body is not JSON');
    }
    const data = document.data ?? {};
    const attributes = data.attributes ?? {};
    const related = (name: string) => data.relationships?.[name]?.data?.id;
    const file = (value: unknown, pointer: string, filename: string | null): TeamtailorFile | Reply => {
      const decoded = decodeDataUri(value);
      if (!decoded) return error(422, 'is invalid', pointer, 'could not download the file');
      const extension = filename ? (filename.split('.').pop() ?? '').toLowerCase() : (EXTENSIONS_BY_TYPE[decoded.contentType] ?? '');
      if (!sim.fileExtensions.includes(extension)) return error(422, 'is invalid', pointer, 'file type is not allowed');
      if (decoded.bytes.length === 0 || decoded.bytes.length > sim.maxFileBytes)
        return error(422, 'is invalid', pointer, 'file size is invalid');
      return { filename, contentType: decoded.contentType, bytes: decoded.bytes };
    };
    const ownCandidate = (id: string | undefined) => sim.candidates.find((c) => c.id === id && c.apiKey === account.apiKey);

    if (path === '/v1/candidates' && data.type === 'candidates') {
      const email = typeof attributes.email === 'string' ? attributes.email.trim().toLowerCase() : '';
      if (!email && attributes.sourced !== true) return error(422, "can't be blank", '/data/attributes/email');
      let resume: TeamtailorFile | undefined;
      if (attributes.resume !== undefined) {
        const checked = file(attributes.resume, '/data/attributes/resume', null);
        if ('status' in checked) return checked;
        resume = checked;
      }
      const known = sim.candidates.find((c) => c.apiKey === account.apiKey && String(c.attributes.email).toLowerCase() === email);
      const { merge: _merge, resume: _resume, ...stored } = attributes;
      if (known && attributes.merge !== true) return error(422, 'has already been taken', '/data/attributes/email');
      if (known) {
        Object.assign(known.attributes, stored);
        if (resume) known.resume = resume;
        return { status: 201, body: { data: { id: known.id, type: 'candidates', attributes: known.attributes } } };
      }
      const candidate: TeamtailorCandidate = { id: newId(), apiKey: account.apiKey, attributes: stored, ...(resume ? { resume } : {}) };
      sim.candidates.push(candidate);
      return { status: 201, body: { data: { id: candidate.id, type: 'candidates', attributes: candidate.attributes } } };
    }
    if (path === '/v1/uploads' && data.type === 'uploads') {
      const candidate = ownCandidate(related('candidate'));
      if (!candidate) return error(422, 'must exist', '/data/relationships/candidate');
      const checked = file(
        attributes.url,
        '/data/attributes/url',
        typeof attributes['file-name'] === 'string' ? attributes['file-name'] : '',
      );
      if ('status' in checked) return checked;
      const upload = { id: newId(), candidateId: candidate.id, file: checked, attributes };
      sim.uploads.push(upload);
      return {
        status: 201,
        body: { data: { id: upload.id, type: 'uploads', attributes: { 'file-name': checked.filename, internal: attributes.internal } } },
      };
    }
    if (path === '/v1/answers' && data.type === 'answers') {
      const candidate = ownCandidate(related('candidate'));
      if (!candidate) return error(422, 'must exist', '/data/relationships/candidate');
      const questionId = related('question');
      if (!account.jobs.some((j) => (j.questions ?? []).some((q) => q.id === questionId)))
        return error(422, 'must exist', '/data/relationships/question');
      const answer = { id: newId(), candidateId: candidate.id, questionId: questionId!, attributes };
      sim.answers.push(answer);
      return { status: 201, body: { data: { id: answer.id, type: 'answers', attributes } } };
    }
    if (path === '/v1/job-applications' && data.type === 'job-applications') {
      const candidate = ownCandidate(related('candidate'));
      if (!candidate) return error(422, 'must exist', '/data/relationships/candidate');
      const job = account.jobs.find((j) => j.id === related('job'));
      if (!job) return error(404, 'Record not found', '/data/relationships/job');
      if ((job.status ?? 'open') !== 'open') return error(422, 'is invalid', '/data/relationships/job', 'job is not open for applications');
      if (sim.applications.some((a) => a.candidateId === candidate.id && a.jobId === job.id))
        return error(422, 'has already been taken', '/data/relationships/candidate', 'candidate has already applied to this job');
      const application: TeamtailorApplication = { id: newId(), candidateId: candidate.id, jobId: job.id, attributes };
      sim.applications.push(application);
      return {
        status: 201,
        body: {
          data: { id: application.id, type: 'job-applications', attributes: { ...attributes, 'created-at': new Date().toISOString() } },
        },
      };
    }
    return error(404, 'Not found');
  }

  function listJobs(req: RecordedRequest, account: TeamtailorAccount): Reply {
    if (account.listOverride !== undefined) return { status: 200, raw: account.listOverride, headers: { 'Content-Type': MEDIA_TYPE } };
    const status = req.query.get('filter[status]') ?? 'published';
    const jobs = account.jobs.filter((j) => status === 'all' || ((j.status ?? 'open') === 'open') === (status === 'published'));
    const size = Math.max(1, Math.min(Number(req.query.get('page[size]') ?? 10) || 10, 30));
    const number = Math.max(1, Number(req.query.get('page[number]') ?? 1) || 1);
    const pageCount = Math.max(1, Math.ceil(jobs.length / size));
    const page = jobs.slice((number - 1) * size, number * size);
    const link = (n: number) => `${sim.server.url}/teamtailor/v1/jobs?page%5Bnumber%5D=${n}&page%5Bsize%5D=${size}`;
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
      body: {
        data: page.map((j) => teamtailorJobResource(sim, j)),
        ...(included.length ? { included } : {}),
        meta: { 'record-count': jobs.length, 'page-count': pageCount },
        links: { first: link(1), ...(number < pageCount ? { next: link(number + 1) } : {}), last: link(pageCount) },
      },
    };
  }

  sim.server = await startSimulatorServer((req) => {
    const key = /^Token token=(.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const now = Date.now();
    const recent = (windows.get(key) ?? []).filter((t) => now - t < 10_000);
    recent.push(now);
    windows.set(key, recent);
    const rateHeaders = (remaining: number, reset: number) => ({
      'Content-Type': MEDIA_TYPE,
      'X-Api-Version': req.headers['x-api-version'] ?? '',
      'X-Rate-Limit-Limit': String(sim.limitPer10s),
      'X-Rate-Limit-Remaining': String(Math.max(0, remaining)),
      'X-Rate-Limit-Reset': String(reset),
    });
    let reply: Reply;
    if (sim.rateLimitNext > 0) {
      sim.rateLimitNext -= 1;
      reply = { ...error(429, 'Too Many Requests'), headers: rateHeaders(0, sim.rateLimitResetSeconds) };
    } else if (recent.length > sim.limitPer10s) {
      reply = { ...error(429, 'Too Many Requests'), headers: rateHeaders(0, Math.ceil((recent[0] + 10_000 - now) / 1000)) };
    } else {
      const answer = handle(req, key);
      reply = { ...answer, headers: { ...rateHeaders(sim.limitPer10s - recent.length, 10), ...(answer.headers ?? {}) } };
    }
    if (req.method === 'POST') sim.postStatuses.push(reply.status);
    return reply;
  });
  sim.env = { TEAMTAILOR_API_URL: `${sim.server.url}/teamtailor` };
  sim.requestsTo = (path) => sim.server.requests.filter((r) => path.test(r.path));
  return sim;
}
