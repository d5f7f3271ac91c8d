/**
 * A Greenhouse Job Board API simulator under `/greenhouse` (a path prefix). It follows the documented
 * behaviour (shared/ats-apis.md): public reads (the job list with `content=true` carrying entity-escaped
 * HTML, one job with `questions=true` and `pay_transparency=true`, 404 for unknown boards and jobs, no
 * paging), and the application POST with HTTP Basic auth (API key as user name, empty password; 401
 * otherwise, checked before the job is looked up, as text `HTTP Basic: Access denied.` or JSON), JSON or multipart, Base64 `resume_content`/`cover_letter_content` of pdf, doc, docx, txt or
 * rtf and not empty, and answers to the job's questions, each matching its question's type (a JSON body names each
 * `question_{id}`, a multi-select's value an array of option values; a form uses the field's own name, `question_{id}[]`
 * for a multi-select; a key that names no question is ignored, as in any Rails form). Its quirk: a job that is not live
 * answers **200** `{"error": "Failed to save person", "reason": "Job application not live"}`. It has no
 * duplicate error and no documented rate limit (a forced 429 is still possible for tests).
 */
import { randomUUID } from 'node:crypto';
import { basicUser, startSimulatorServer, type RecordedRequest, type SimulatorServer } from './server.js';

export interface GreenhouseJobFixture {
  id: number;
  title: string;
  content: string;
  location?: string;
  departments?: string[];
  live?: boolean;
  questions?: {
    required: boolean;
    label: string;
    fields: { name: string; type: string; values?: { label: string; value: number | string }[] }[];
  }[];
  pay?: { min_cents: number; max_cents: number; currency_type: string; title: string };
}

export interface GreenhouseBoard {
  token: string;
  apiKey: string;
  jobs: GreenhouseJobFixture[];
  /** How a wrong key is answered: `HTTP Basic: Access denied.` as text (default) or a JSON body. */
  wrongKeyAnswer?: 'text' | 'json';
  /** How an application to a job the board does not have is answered with a right key: 404 (default) or 200 with an error body (reported). */
  unknownJobAnswer?: 'not_found' | 'error_200';
  /** How an application to a job that is not live is answered: 200 with an error body (default), or 401 as reported. */
  notLiveAnswer?: 'error_200' | 'unauthorized_401';
  /** Answers the job list this much later (an import that takes a while). */
  listDelayMs?: number;
  /** Replaces the list body (a malformed feed). */
  listOverride?: string;
}

export interface GreenhouseApplication {
  jobId: number;
  body: Record<string, unknown>;
  /** The answers Greenhouse took, by question id: what a recruiter sees. */
  answers: Map<string, unknown>;
  candidateId: string;
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const FILE_EXTENSIONS = ['pdf', 'doc', 'docx', 'txt', 'rtf'];

export interface GreenhouseSimulator {
  server: SimulatorServer;
  boards: Map<string, GreenhouseBoard>;
  applications: GreenhouseApplication[];
  rateLimitNext: number;
  env: { GREENHOUSE_API_URL: string };
  requestsTo(path: RegExp): RecordedRequest[];
}

function jobSummary(sim: GreenhouseSimulator, board: GreenhouseBoard, job: GreenhouseJobFixture, content: boolean) {
  return {
    id: job.id,
    internal_job_id: job.id + 100000,
    title: job.title,
    updated_at: '2026-01-01T00:00:00-05:00',
    requisition_id: `REQ-${job.id}`,
    location: { name: job.location ?? 'Berlin, Germany' },
    absolute_url: `${sim.server.url}/boards/${board.token}/jobs/${job.id}`,
    metadata: null,
    ...(content ? { content: escapeHtml(job.content) } : {}),
    departments: (job.departments ?? []).map((name, i) => ({ id: i + 1, name, child_ids: [], parent_id: null })),
    offices: [{ id: 1, name: job.location ?? 'Berlin', location: job.location ?? 'Berlin, Germany', child_ids: [], parent_id: null }],
  };
}

type QuestionField = NonNullable<GreenhouseJobFixture['questions']>[number]['fields'][number];

/** Whether a value matches its question's type ("every `question_*` value must match the question's type"). */
function answerFits(field: QuestionField, value: unknown, json: boolean): boolean {
  const allowed = new Set((field.values ?? []).map((v) => String(v.value)));
  if (field.type === 'multi_value_multi_select') {
    // In JSON an array; a form sends one value per checked box (`question_{id}[]`), a single one as a string.
    const values = Array.isArray(value) ? value : json ? undefined : [value];
    return values !== undefined && values.every((v) => (typeof v === 'number' || typeof v === 'string') && allowed.has(String(v)));
  }
  if (field.type === 'multi_value_single_select')
    return (typeof value === 'number' || typeof value === 'string') && allowed.has(String(value));
  return typeof value === 'string';
}

export async function startGreenhouseSimulator(): Promise<GreenhouseSimulator> {
  const sim = { boards: new Map(), applications: [], rateLimitNext: 0 } as unknown as GreenhouseSimulator;
  sim.server = await startSimulatorServer(async (req) => {
    const match = /^\/greenhouse\/v1\/boards\/([^/]+)\/jobs(?:\/(\d+))?$/.exec(req.path);
    const board = match ? sim.boards.get(decodeURIComponent(match[1])) : undefined;
    if (!match || !board) return { status: 404, body: { status: 404, error: 'Job not found' } };
    if (sim.rateLimitNext > 0) {
      sim.rateLimitNext -= 1;
      return { status: 429, body: { status: 429, error: 'Too Many Requests' } };
    }
    const jobId = match[2] ? Number(match[2]) : undefined;
    if (req.method === 'GET' && jobId === undefined) {
      if (board.listDelayMs) await new Promise((resolve) => setTimeout(resolve, board.listDelayMs));
      if (board.listOverride !== undefined)
        return { status: 200, raw: board.listOverride, headers: { 'Content-Type': 'application/json' } };
      const content = req.query.get('content') === 'true';
      const jobs = board.jobs.filter((j) => j.live !== false).map((j) => jobSummary(sim, board, j, content));
      return { status: 200, body: { jobs, meta: { total: jobs.length } } };
    }
    // An application POST checks HTTP Basic auth before it looks up the job (the behaviour the key check's
    // heuristic rests on, ../shared/ats-apis-more.md): a wrong key is 401, as text or as JSON (both reported).
    if (req.method === 'POST') {
      const auth = basicUser(req);
      if (!auth || auth.user !== board.apiKey || auth.password !== '')
        return board.wrongKeyAnswer === 'json'
          ? { status: 401, body: { error: 'Failed to save person', status: 401 } }
          : { status: 401, raw: 'HTTP Basic: Access denied.\n', headers: { 'Content-Type': 'text/plain' } };
    }
    const job = board.jobs.find((j) => j.id === jobId);
    if (!job && req.method === 'POST' && board.unknownJobAnswer === 'error_200')
      return { status: 200, body: { error: 'Failed to save person', reason: 'Job not found' } };
    if (!job) return { status: 404, body: { status: 404, error: 'Job not found' } };
    if (req.method === 'GET') {
      return {
        status: 200,
        body: {
          ...jobSummary(sim, board, job, true),
          ...(req.query.get('questions') === 'true' ? { questions: job.questions ?? [] } : {}),
          ...(req.query.get('pay_transparency') === 'true' ? { pay_input_ranges: job.pay ? [{ ...job.pay, blurb: '' }] : [] } : {}),
        },
      };
    }
    if (req.method !== 'POST') return { status: 405, body: { error: 'Method not allowed' } };
    const body: Record<string, unknown> =
      (req.json as Record<string, unknown>) ?? Object.fromEntries(Object.entries(req.fields).map(([k, v]) => [k, v.length > 1 ? v : v[0]]));
    if (job.live === false)
      return board.notLiveAnswer === 'unauthorized_401'
        ? { status: 401, body: { error: 'Failed to save person', status: 401 } }
        : { status: 200, body: { error: 'Failed to save person', reason: 'Job application not live' } };
    for (const field of ['first_name', 'last_name', 'email'])
      if (!body[field]) return { status: 200, body: { error: 'Failed to save person', reason: `Invalid attributes: ${field}` } };
    for (const prefix of ['resume', 'cover_letter']) {
      const content = body[`${prefix}_content`];
      if (content === undefined) continue;
      const filename = String(body[`${prefix}_content_filename`] ?? '');
      const bytes = Buffer.from(String(content), 'base64');
      if (!FILE_EXTENSIONS.includes(filename.split('.').pop()!.toLowerCase()) || bytes.length === 0)
        return { status: 200, body: { error: 'Failed to save person', reason: `Invalid ${prefix} attachment` } };
    }
    const answers = new Map<string, unknown>();
    for (const field of (job.questions ?? []).flatMap((q) => q.fields)) {
      const id = /^question_(\d+)(\[\])?$/.exec(field.name)?.[1];
      const value = id && (req.json ? body[`question_${id}`] : body[field.name]);
      if (!id || value === undefined) continue;
      if (!answerFits(field, value, Boolean(req.json)))
        return { status: 200, body: { error: 'Failed to save person', reason: `Invalid attributes: question_${id}` } };
      answers.set(id, value);
    }
    sim.applications.push({ jobId: job.id, body, answers, candidateId: randomUUID() });
    return { status: 200, body: { success: 'Candidate saved successfully' } };
  });
  sim.env = { GREENHOUSE_API_URL: `${sim.server.url}/greenhouse` };
  sim.requestsTo = (path) => sim.server.requests.filter((r) => path.test(r.path));
  return sim;
}
