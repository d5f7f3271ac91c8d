/**
 * A Greenhouse Job Board API simulator under `/greenhouse` (a path prefix), as strict as
 * https://developers.greenhouse.io/job-board.html (the public repository grnhse/greenhouse-api-docs,
 * source/includes/job-board/*.md, read at commit 0c37c31). Each rule names its section; ASSUMED marks what the
 * page does not say.
 * - `GET /v1/boards/{board_token}/jobs` (#list-jobs): public, no paging, `{jobs, meta: {total}}`; `content=true`
 *   adds the entity-escaped `content`, `departments` and `offices`.
 * - `GET /v1/boards/{board_token}/jobs/{job_id}` (#retrieve-a-job): `questions=true` adds `questions`,
 *   `pay_transparency=true` adds `pay_input_ranges`; `data_compliance` when the board asks for GDPR consent.
 * - `POST /v1/boards/{board_token}/jobs/{id}` (#submit-an-application): HTTP Basic auth with the key as user
 *   name (#authentication); JSON or multipart; the rules of greenhouse-application-rules.ts. Success is reported,
 *   not documented: 200 `{"success": "Candidate saved successfully"}` (grnhse/greenhouse-api-docs#448).
 * - ASSUMED (reported, shared/ats-apis-more.md): a wrong key is 401 (text `HTTP Basic: Access denied.` or JSON),
 *   checked before the job is looked up; an unknown board, job or path is 404 `{"status": 404, "error": …}`; a job
 *   that is not live (or not on the board) is absent from both reads and its application answers 200
 *   `{"error": "Failed to save person", "reason": "Job application not live"}`; no duplicate error, no documented
 *   rate limit (a forced 429 is still possible for tests).
 */
import { randomUUID } from 'node:crypto';
import {
  answerFits,
  attachments,
  consent,
  nested,
  personFields,
  unknownKey,
  type ApplicationInput,
  type GreenhouseComplianceFixture,
  type GreenhouseQuestionFixture,
} from './greenhouse-application-rules.js';
import { basicUser, startSimulatorServer, type RecordedFile, type RecordedRequest, type Reply, type SimulatorServer } from './server.js';

export interface GreenhouseJobFixture {
  id: number;
  title: string;
  content: string;
  location?: string;
  departments?: string[];
  /** false: off the board (both reads 404) and its applications refused as not live. */
  live?: boolean;
  /** false: still shown, but its applications are refused as not live (closed between our read and the POST). */
  acceptsApplications?: boolean;
  questions?: GreenhouseQuestionFixture[];
  /** The board's GDPR rule for the job (#retrieve-a-job, Data Compliance). */
  dataCompliance?: GreenhouseComplianceFixture[];
  metadata?: { id: number; name: string; value_type: string; value: unknown }[];
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
  /** Every file it took, by the field it came in (`resume`, `cover_letter`, `question_{id}`), with its name and bytes or URL. */
  files: Map<string, { filename: string; bytes?: Buffer; url?: string }>;
  candidateId: string;
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export interface GreenhouseSimulator {
  server: SimulatorServer;
  boards: Map<string, GreenhouseBoard>;
  applications: GreenhouseApplication[];
  rateLimitNext: number;
  env: { GREENHOUSE_API_URL: string };
  requestsTo(path: RegExp): RecordedRequest[];
}

const notFound: Reply = { status: 404, body: { status: 404, error: 'Job not found' } };
const refused = (reason: string): Reply => ({ status: 200, body: { error: 'Failed to save person', reason } });

/** https://developers.greenhouse.io/job-board.html#list-jobs: the documented job fields; `content=true` adds content, departments and offices. */
function jobSummary(sim: GreenhouseSimulator, board: GreenhouseBoard, job: GreenhouseJobFixture, content: boolean) {
  return {
    id: job.id,
    internal_job_id: job.id + 100000,
    title: job.title,
    updated_at: '2026-01-01T00:00:00-05:00',
    requisition_id: `REQ-${job.id}`,
    location: { name: job.location ?? 'Berlin, Germany' },
    absolute_url: `${sim.server.url}/boards/${board.token}/jobs/${job.id}`,
    language: 'en',
    metadata: job.metadata ?? null,
    ...(content
      ? {
          content: escapeHtml(job.content),
          departments: (job.departments ?? []).map((name, i) => ({ id: i + 1, name, child_ids: [], parent_id: null })),
          offices: [{ id: 1, name: job.location ?? 'Berlin', location: job.location ?? 'Berlin, Germany', child_ids: [], parent_id: null }],
        }
      : {}),
  };
}

/** https://developers.greenhouse.io/job-board.html#retrieve-a-job: the job's own fields (no departments or offices in the page's example), and what the query asks for. */
function jobDetail(sim: GreenhouseSimulator, board: GreenhouseBoard, job: GreenhouseJobFixture, query: URLSearchParams) {
  const { departments: _d, offices: _o, ...own } = jobSummary(sim, board, job, true);
  return {
    ...own,
    ...(query.get('questions') === 'true' ? { questions: job.questions ?? [], location_questions: [] } : {}),
    ...(job.dataCompliance?.length ? { data_compliance: job.dataCompliance } : {}),
    ...(query.get('pay_transparency') === 'true' ? { pay_input_ranges: job.pay ? [{ ...job.pay, blurb: '' }] : [] } : {}),
  };
}

/** The body as Greenhouse reads it: JSON as sent; form data one value per name, or the list when repeated. */
function applicationInput(req: RecordedRequest): ApplicationInput | undefined {
  if (req.headers['content-type']?.startsWith('application/json')) {
    const json = req.json;
    return json && typeof json === 'object' && !Array.isArray(json)
      ? { json: true, body: json as Record<string, unknown>, files: [] }
      : undefined;
  }
  if (req.headers['content-type']?.startsWith('multipart/form-data')) {
    const body = Object.create(null) as Record<string, unknown>;
    for (const [key, values] of Object.entries(req.fields)) body[key] = key.endsWith('[]') || values.length > 1 ? values : values[0];
    return { json: false, body, files: req.files };
  }
  return undefined;
}

function apply(sim: GreenhouseSimulator, job: GreenhouseJobFixture, input: ApplicationInput): Reply {
  const { body } = input;
  const fields = (job.questions ?? []).flatMap((q) => q.fields);
  const byId = new Map(
    fields.flatMap((f) => (/^question_(\d+)(\[\])?$/.exec(f.name) ? [[/^question_(\d+)/.exec(f.name)![1], f] as const] : [])),
  );
  const fileIds = new Set([...byId].filter(([, f]) => f.type === 'input_file').map(([id]) => id));
  const reason =
    unknownKey(input) ??
    personFields(body) ??
    attachments(input, fileIds) ??
    consent(input, job.dataCompliance ?? []) ??
    (input.json ? nested(body) : undefined);
  if (reason) return refused(reason);
  const answers = new Map<string, unknown>();
  for (const [key, value] of Object.entries(body)) {
    const match = /^question_(\d+)(\[\])?$/.exec(key);
    if (!match) continue;
    const field = byId.get(match[1]);
    // An answer to a question the job does not have: ASSUMED refused (https://developers.greenhouse.io/job-board.html#submit-an-application is silent).
    if (!field) return refused(`Invalid attributes: ${key} is not a question of this job`);
    if (!answerFits(field, value, input.json)) return refused(`Invalid attributes: ${key}`);
    answers.set(match[1], value);
  }
  const files = new Map<string, { filename: string; bytes?: Buffer; url?: string }>();
  for (const key of Object.keys(body)) {
    const match = /^(resume|cover_letter|question_\d+)_(content|url)$/.exec(key);
    if (!match) continue;
    const filename = String(body[`${key}_filename`]);
    files.set(
      match[1],
      match[2] === 'content' ? { filename, bytes: Buffer.from(String(body[key]), 'base64') } : { filename, url: String(body[key]) },
    );
  }
  for (const file of input.files as RecordedFile[]) files.set(file.field, { filename: file.filename, bytes: file.bytes });
  sim.applications.push({ jobId: job.id, body, answers, files, candidateId: randomUUID() });
  return { status: 200, body: { success: 'Candidate saved successfully' } };
}

export async function startGreenhouseSimulator(): Promise<GreenhouseSimulator> {
  const sim = { boards: new Map(), applications: [], rateLimitNext: 0 } as unknown as GreenhouseSimulator;
  sim.server = await startSimulatorServer(async (req) => {
    const match = /^\/greenhouse\/v1\/boards\/([^/]+)\/jobs(?:\/(\d+))?$/.exec(req.path);
    const board = match ? sim.boards.get(decodeURIComponent(match[1])) : undefined;
    if (!match || !board) return notFound;
    if (sim.rateLimitNext > 0) {
      sim.rateLimitNext -= 1;
      return { status: 429, body: { status: 429, error: 'Too Many Requests' } };
    }
    const jobId = match[2] ? Number(match[2]) : undefined;
    const shown = board.jobs.filter((j) => j.live !== false);
    if (req.method === 'GET' && jobId === undefined) {
      if (board.listDelayMs) await new Promise((resolve) => setTimeout(resolve, board.listDelayMs));
      if (board.listOverride !== undefined)
        return { status: 200, raw: board.listOverride, headers: { 'Content-Type': 'application/json' } };
      const jobs = shown.map((j) => jobSummary(sim, board, j, req.query.get('content') === 'true'));
      return { status: 200, body: { jobs, meta: { total: jobs.length } } };
    }
    if (req.method === 'GET') {
      const job = shown.find((j) => j.id === jobId);
      return job ? { status: 200, body: jobDetail(sim, board, job, req.query) } : notFound;
    }
    // The application endpoint is the job's path only (https://developers.greenhouse.io/job-board.html#submit-an-application, HTTP Request).
    if (req.method !== 'POST' || jobId === undefined) return notFound;
    // https://developers.greenhouse.io/job-board.html#authentication: "the Basic Auth username is your API key … No password is required".
    const auth = basicUser(req);
    if (!auth || auth.user !== board.apiKey || auth.password !== '')
      return board.wrongKeyAnswer === 'json'
        ? { status: 401, body: { error: 'Failed to save person', status: 401 } }
        : { status: 401, raw: 'HTTP Basic: Access denied.\n', headers: { 'Content-Type': 'text/plain' } };
    const job = board.jobs.find((j) => j.id === jobId);
    // https://developers.greenhouse.io/job-board.html#submit-an-application, Job validations: "The job post ID must exist on the job board with the supplied board_token".
    if (!job) return board.unknownJobAnswer === 'error_200' ? refused('Job not found') : notFound;
    // https://developers.greenhouse.io/job-board.html#submit-an-application, Job validations: "The job must be live and published".
    if (job.live === false || job.acceptsApplications === false)
      return board.notLiveAnswer === 'unauthorized_401'
        ? { status: 401, body: { error: 'Failed to save person', status: 401 } }
        : refused('Job application not live');
    const input = applicationInput(req);
    if (!input) return refused('Invalid request body');
    return apply(sim, job, input);
  });
  sim.env = { GREENHOUSE_API_URL: `${sim.server.url}/greenhouse` };
  sim.requestsTo = (path) => sim.server.requests.filter((r) => path.test(r.path));
  return sim;
}
