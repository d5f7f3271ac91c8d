/**
 * An Ashby simulator under `/ashby` (a path prefix). It follows what Ashby documents
 * (developers.ashbyhq.com; ../../../shared/ats-apis-more.md) and, where the documents are silent, the
 * choices of docs/connectors/ashby.md:
 * - The public posting API, `GET /posting-api/job-board/{name}` (no auth, no paging): `{apiVersion: "1",
 *   jobs: [...]}` with the published postings (`isListed`, `descriptionHtml`, `jobUrl`, `applyUrl`,
 *   `address.postalAddress`, `employmentType`, `workplaceType`; `compensation` only with
 *   `includeCompensation=true`); 404 for an unknown board. A posting may come without `id` (the documented
 *   example has none): its id is then only in the URLs.
 * - The RPC API, `POST /{method}`, HTTP Basic with the key as user name and an empty password: no key →
 *   401, a wrong key → 403, a key without the method's permission → 403 `missing_endpoint_permission`;
 *   other errors are HTTP 200 `{success: false, errors: [code], errorInfo: {code, message}}`.
 *   `apiKey.info` (apiKeysRead) lists the key's `scopes`; `jobPosting.info` (jobsRead) returns a posting
 *   (published or not) with its `applicationFormDefinition` (`sections[].fields[{isRequired, field{id,
 *   path, title, type, selectableValues}}]`), `job_posting_not_found` otherwise.
 * - `apiKey.info` answers `{title, createdAt}`: https://developers.ashbyhq.com/reference/api-key documents no
 *   `scopes` list, so the simulator lists them only for a board with `apiKeyInfoScopes` (a third-party copy of
 *   Ashby's OpenAPI shows one). `jobPosting.list` (jobsRead) lists the postings.
 * - Presigned uploads (https://developers.ashbyhq.com/docs/filecreatefileuploadhandle, P279):
 *   `file.createFileUploadHandle` (candidatesWrite) takes `fileUploadContext` (CandidateResume | CandidateFiles
 *   | ApplicationForm), the file name, MIME type and size (named `fileName`, `contentType`, `contentLength`:
 *   assumed, the stored page does not show the names) and answers `{handle, url, fields}`; the file goes as a
 *   multipart POST to `url` with every returned field and the file named `file` (the storage answers 204, or an
 *   S3-style XML error: a size other than declared, a missing field, a URL older than 10 minutes).
 * - `applicationForm.submit` (candidatesWrite), JSON (since https://developers.ashbyhq.com/changelog/2026-04-06-application-form-submit-presigned-file-uploads:
 *   a file field's value is the handle of an uploaded ApplicationForm file) or multipart (still supported:
 *   https://developers.ashbyhq.com/changelog/2026-08-18-recommend-presigned-uploads-for-application-form-submit):
 *   `jobPostingId`, `applicationForm` `{fieldSubmissions: [{path, value}]}` (a JSON string in multipart), in
 *   multipart one file part per file named by its submission's `value`. It
 *   checks paths, required fields and value types (`invalid_input`), refuses an empty file, fails
 *   validation for `testing-fail-validation@example.com` (the documented test address), accepts an
 *   unpublished posting unless `allowSubmissionForUnpublishedJobPosting` is `false`
 *   (`job_posting_not_published`), and blocks an application over the board's application limit (success
 *   with `formMessages.blocked: true`, no application). Success: `results.submittedFormInstance.id`.
 * - Rate limits: none documented in numbers; `rateLimitNext` answers 429 with `Retry-After` and
 *   `rate_limit_exceeded` to the next application POSTs and `application.info` reads.
 * - `application.info` (candidatesRead) and `outcomes.moveApplication`/`archive` for tests: ashby-outcomes.ts (D21).
 */
import { randomUUID } from 'node:crypto';
import { applicationInfo, ashbyOutcomes, recordApplication, type AshbyOutcomes } from './ashby-outcomes.js';
import { basicUser, startSimulatorServer, type RecordedFile, type RecordedRequest, type Reply, type SimulatorServer } from './server.js';

export interface AshbyQuestionFixture {
  path: string;
  title: string;
  type: string;
  required?: boolean;
  options?: string[];
}

export interface AshbyPostingFixture {
  id: string;
  title: string;
  descriptionHtml?: string;
  location?: string;
  department?: string;
  team?: string;
  employmentType?: string;
  workplaceType?: string | null;
  isRemote?: boolean;
  /** Published on the board (default true); an unpublished posting is still known to jobPosting.info. */
  open?: boolean;
  listed?: boolean;
  /** Leave `id` out of the board's JSON, as the documented example does. */
  withoutId?: boolean;
  compensation?: { min: number; max: number; currency: string; interval: string; summary: string };
  questions?: AshbyQuestionFixture[];
  /** A "Cover Letter" file field on the form (default true). */
  coverLetterField?: boolean;
  resumeRequired?: boolean;
}

export interface AshbyBoard {
  name: string;
  apiKey: string;
  scopes: string[];
  postings: AshbyPostingFixture[];
  /** Replaces the board body (a malformed feed). */
  listOverride?: string;
  /** Applications one e-mail may submit on this board before the next is blocked (none: unlimited). */
  applicationLimit?: number;
  /** E-mails that applied before (counted against the limit). */
  priorApplicants: Set<string>;
  /** apiKey.info lists the key's `scopes` (not on Ashby's reference page; default false). */
  apiKeyInfoScopes?: boolean;
}

/** A presigned upload made by file.createFileUploadHandle. */
export interface AshbyUpload {
  handle: string;
  board: string;
  context: string;
  fileName: string;
  contentType: string;
  size: number;
  createdAt: number;
  fields: Record<string, string>;
  /** The file as the storage received it. */
  file?: RecordedFile;
}

export interface AshbyApplication {
  board: string;
  postingId: string;
  fieldSubmissions: { path: string; value: unknown }[];
  files: RecordedFile[];
  submittedFormInstanceId: string;
  blocked: boolean;
}

export interface AshbySimulator {
  server: SimulatorServer;
  boards: Map<string, AshbyBoard>;
  applications: AshbyApplication[];
  uploads: Map<string, AshbyUpload>;
  /** Forces the storage's next answer to this status (a refused or failing upload). */
  storageStatusNext?: number;
  rateLimitNext: number;
  /** Where each application stands (ashby-outcomes.ts): `outcomes.moveApplication(id, 'Hired')`. */
  outcomes: AshbyOutcomes;
  env: { ASHBY_API_URL: string };
  requestsTo(path: RegExp): RecordedRequest[];
}

export const COVER_LETTER_PATH = '7f3c1a52-cover-letter';

export function ashbyBoard(name: string, overrides: Partial<AshbyBoard> = {}): AshbyBoard {
  return {
    name,
    apiKey: `ashby-key-${name}`,
    scopes: ['apiKeysRead', 'candidatesWrite', 'jobsRead'],
    postings: [],
    priorApplicants: new Set(),
    ...overrides,
  };
}

const entry = (path: string, title: string, type: string, required: boolean, options?: string[]) => ({
  isRequired: required,
  descriptionHtml: null,
  field: {
    id: `field-${path}`,
    path,
    humanReadablePath: title,
    title,
    type,
    isNullable: !required,
    ...(options ? { selectableValues: options.map((o) => ({ label: o, value: o.toLowerCase().replace(/\s+/g, '_') })) } : {}),
  },
});

export function ashbyFormDefinition(p: AshbyPostingFixture) {
  return {
    sections: [
      {
        title: 'Your details',
        fields: [
          entry('_systemfield_name', 'Name', 'String', true),
          entry('_systemfield_email', 'Email', 'Email', true),
          entry('_systemfield_phone', 'Phone', 'Phone', false),
          entry('_systemfield_resume', 'Resume', 'File', p.resumeRequired === true),
          ...(p.coverLetterField === false ? [] : [entry(COVER_LETTER_PATH, 'Cover Letter', 'File', false)]),
        ],
      },
      ...(p.questions?.length
        ? [{ title: 'Questions', fields: p.questions.map((q) => entry(q.path, q.title, q.type, q.required === true, q.options)) }]
        : []),
    ],
  };
}

function postingJson(sim: AshbySimulator, board: AshbyBoard, p: AshbyPostingFixture, compensation: boolean) {
  const jobUrl = `https://jobs.ashbyhq.com/${board.name}/${p.id}`;
  return {
    ...(p.withoutId ? {} : { id: p.id }),
    title: p.title,
    location: p.location ?? 'Berlin, Germany',
    secondaryLocations: [{ location: 'Hamburg', address: { addressLocality: 'Hamburg', addressRegion: 'HH', addressCountry: 'Germany' } }],
    department: p.department ?? 'Engineering',
    team: p.team ?? 'Platform',
    isListed: p.listed !== false,
    isRemote: p.isRemote ?? false,
    workplaceType: p.workplaceType === undefined ? 'Hybrid' : p.workplaceType,
    descriptionHtml: p.descriptionHtml ?? `<p>${p.title}</p>`,
    descriptionPlain: (p.descriptionHtml ?? p.title).replace(/<[^>]+>/g, ''),
    publishedAt: '2026-01-05T10:00:00.000+00:00',
    employmentType: p.employmentType ?? 'FullTime',
    address: { postalAddress: { addressLocality: 'Berlin', addressRegion: 'Berlin', addressCountry: 'Germany', postalCode: '10115' } },
    jobUrl,
    applyUrl: `${jobUrl}/application`,
    ...(compensation && p.compensation
      ? {
          compensation: {
            compensationTierSummary: p.compensation.summary,
            scrapeableCompensationSalarySummary: p.compensation.summary,
            compensationTiers: [
              {
                id: 'tier-1',
                tierSummary: p.compensation.summary,
                title: 'Base',
                additionalInformation: null,
                components: [
                  {
                    id: 'component-1',
                    summary: p.compensation.summary,
                    compensationType: 'Salary',
                    interval: p.compensation.interval,
                    currencyCode: p.compensation.currency,
                    minValue: p.compensation.min,
                    maxValue: p.compensation.max,
                  },
                  {
                    id: 'component-2',
                    summary: 'Offers Equity',
                    compensationType: 'EquityPercentage',
                    interval: 'NONE',
                    minValue: null,
                    maxValue: null,
                  },
                ],
              },
            ],
          },
        }
      : {}),
  };
}

const failure = (code: string, message: string, status = 200, headers?: Record<string, string>): Reply => ({
  status,
  body: { success: false, errors: [code], errorInfo: { code, message, requestId: randomUUID() } },
  ...(headers ? { headers } : {}),
});

/** Each method's permission (https://developers.ashbyhq.com/reference/authentication); other methods are 404. */
const PERMISSIONS: Record<string, string> = {
  'apiKey.info': 'apiKeysRead',
  'jobPosting.info': 'jobsRead',
  'jobPosting.list': 'jobsRead',
  'file.createFileUploadHandle': 'candidatesWrite',
  'applicationForm.submit': 'candidatesWrite',
  'application.info': 'candidatesRead',
};
/** https://developers.ashbyhq.com/docs/filecreatefileuploadhandle: "The presigned URL expires after 10 minutes". */
export const UPLOAD_URL_TTL_MS = 10 * 60 * 1000;
const UPLOAD_CONTEXTS = ['CandidateResume', 'CandidateFiles', 'ApplicationForm'];
const UPLOAD_KEYS = new Set(['fileUploadContext', 'fileName', 'contentType', 'contentLength']);

/** file.createFileUploadHandle: the documented body, strictly (schema-backed `invalid_input`). */
function createUploadHandle(sim: AshbySimulator, board: AshbyBoard, body: unknown): Reply {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const unknown = Object.keys(b).find((k) => !UPLOAD_KEYS.has(k));
  if (unknown) return failure('invalid_input', `Unknown parameter ${unknown}`);
  if (!UPLOAD_CONTEXTS.includes(String(b.fileUploadContext)))
    return failure('invalid_input', `fileUploadContext must be one of ${UPLOAD_CONTEXTS.join(', ')}`);
  // "The name of the file being uploaded, including extension" / "The MIME type": required, length ≥ 1.
  if (typeof b.fileName !== 'string' || !b.fileName) return failure('invalid_input', 'fileName is required');
  if (typeof b.contentType !== 'string' || !b.contentType) return failure('invalid_input', 'contentType is required');
  // "The size of the file in bytes": an integer ≤ 9007199254740991.
  if (!Number.isSafeInteger(b.contentLength) || (b.contentLength as number) < 0)
    return failure('invalid_input', 'contentLength must be an integer');
  const handle = `fh_${randomUUID()}`;
  const fields = { key: `uploads/${handle}`, policy: Buffer.from(handle).toString('base64'), 'x-amz-signature': randomUUID() };
  sim.uploads.set(handle, {
    handle,
    board: board.name,
    context: String(b.fileUploadContext),
    fileName: b.fileName,
    contentType: b.contentType,
    size: b.contentLength as number,
    createdAt: Date.now(),
    fields,
  });
  return { status: 200, body: { success: true, results: { handle, url: `${sim.server.url}/ashby-storage/upload`, fields } } };
}

/** The presigned POST to storage (S3-style: every returned field, the file last as `file`; XML errors). */
function storageUpload(sim: AshbySimulator, req: RecordedRequest): Reply {
  const s3Error = (status: number, code: string) => ({
    status,
    raw: `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`,
    headers: { 'Content-Type': 'application/xml' },
  });
  if (sim.storageStatusNext !== undefined) {
    const status = sim.storageStatusNext;
    sim.storageStatusNext = undefined;
    return s3Error(status, status >= 500 ? 'InternalError' : 'AccessDenied');
  }
  if (!(req.headers['content-type'] ?? '').startsWith('multipart/form-data')) return s3Error(400, 'InvalidArgument');
  if (req.headers.authorization) return s3Error(400, 'InvalidArgument'); // a presigned POST carries no Authorization
  const key = req.fields.key?.[0] ?? '';
  const upload = [...sim.uploads.values()].find((u) => u.fields.key === key);
  if (!upload) return s3Error(403, 'AccessDenied');
  for (const [name, value] of Object.entries(upload.fields)) if (req.fields[name]?.[0] !== value) return s3Error(403, 'AccessDenied');
  if (Date.now() - upload.createdAt > UPLOAD_URL_TTL_MS) return s3Error(403, 'AccessDenied');
  const file = req.files.find((f) => f.field === 'file');
  if (!file || req.files.length !== 1) return s3Error(400, 'InvalidArgument');
  if (file.bytes.length > upload.size) return s3Error(400, 'EntityTooLarge');
  if (file.bytes.length < upload.size) return s3Error(400, 'EntityTooSmall');
  upload.file = file;
  return { status: 204 };
}

/** The value a field of this type takes (the documented formats), or why not. */
function valueProblem(type: string, value: unknown, options: string[]): string | null {
  switch (type) {
    case 'Boolean':
      return typeof value === 'boolean' ? null : 'expects a boolean';
    case 'Number':
      return Number.isInteger(value) ? null : 'expects an integer';
    case 'Score':
      return Number.isInteger((value as { score?: unknown })?.score) ? null : 'expects { score }';
    case 'RichText':
      return (value as { type?: unknown })?.type === 'PlainText' && typeof (value as { value?: unknown }).value === 'string'
        ? null
        : 'expects { type: "PlainText", value }';
    case 'ValueSelect':
      return typeof value === 'string' && options.includes(value) ? null : 'expects one of its options';
    case 'MultiValueSelect':
      return Array.isArray(value) && value.every((v) => typeof v === 'string' && options.includes(v)) ? null : 'expects its options';
    case 'Location':
      return value && typeof value === 'object' && !Array.isArray(value) ? null : 'expects { country, city, region }';
    case 'Email':
      return typeof value === 'string' && /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(value) ? null : 'expects an email';
    case 'Date':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? null : 'expects YYYY-MM-DD';
    default:
      return typeof value === 'string' ? null : 'expects a string';
  }
}

function submit(sim: AshbySimulator, board: AshbyBoard, req: RecordedRequest): Reply {
  const type = req.headers['content-type'] ?? '';
  const json = type.startsWith('application/json');
  if (!json && !type.startsWith('multipart/form-data'))
    return failure('invalid_input', 'The Content-Type must be multipart/form-data or application/json');
  const body = (json && req.json && typeof req.json === 'object' ? req.json : {}) as Record<string, unknown>;
  const param = (name: string): unknown => (json ? body[name] : req.fields[name]?.[0]);
  const postingId = String(param('jobPostingId') ?? '');
  const posting = board.postings.find((p) => p.id === postingId);
  if (!posting) return failure('job_posting_not_found', 'Job posting not found');
  const allowUnpublished = param('allowSubmissionForUnpublishedJobPosting');
  if (posting.open === false && (allowUnpublished === false || allowUnpublished === 'false'))
    return failure('job_posting_not_published', 'The job posting is not published');
  let submissions: { path?: unknown; value?: unknown }[];
  try {
    const raw = param('applicationForm');
    const form = (json ? raw : JSON.parse(String(raw ?? ''))) as { fieldSubmissions?: unknown };
    if (!form || !Array.isArray(form.fieldSubmissions)) throw new Error('no fieldSubmissions');
    submissions = form.fieldSubmissions as { path?: unknown; value?: unknown }[];
  } catch {
    return failure('invalid_input', 'applicationForm must be JSON with fieldSubmissions');
  }
  const files: RecordedFile[] = [];
  const fields = ashbyFormDefinition(posting).sections.flatMap((s) => s.fields);
  const given = new Map<string, unknown>();
  for (const s of submissions) {
    const field = fields.find((f) => f.field.path === s.path);
    if (!field) return failure('invalid_input', 'Unknown field path in fieldSubmissions');
    if (field.field.type === 'File') {
      // JSON: the handle of an uploaded ApplicationForm file; multipart: the name of a file part.
      const upload = json && typeof s.value === 'string' ? sim.uploads.get(s.value) : undefined;
      if (json && (!upload || upload.board !== board.name || upload.context !== 'ApplicationForm' || !upload.file))
        return failure('invalid_input', 'A file field needs the handle of an uploaded ApplicationForm file');
      const file = upload ? upload.file! : req.files.find((f) => f.field === s.value);
      if (!file) return failure('invalid_input', 'A file field references no file part');
      if (file.bytes.length === 0) return failure('invalid_input', 'The uploaded file is empty');
      files.push(upload ? { ...file, filename: upload.fileName, contentType: upload.contentType } : file);
    } else {
      const problem = valueProblem(
        field.field.type,
        s.value,
        (field.field.selectableValues ?? []).map((o) => o.value),
      );
      if (problem) return failure('invalid_input', `Field ${field.field.title} ${problem}`);
    }
    given.set(String(s.path), s.value);
  }
  for (const field of fields)
    if (field.isRequired && !given.has(field.field.path)) return failure('invalid_input', `Missing required field ${field.field.title}`);
  const email = String(given.get('_systemfield_email')).toLowerCase();
  if (email === 'testing-fail-validation@example.com') return failure('invalid_input', 'Validation failed for the test address');
  const before =
    [...board.priorApplicants].filter((e) => e.toLowerCase() === email).length +
    sim.applications.filter(
      (a) =>
        a.board === board.name &&
        !a.blocked &&
        String(a.fieldSubmissions.find((s) => s.path === '_systemfield_email')?.value).toLowerCase() === email,
    ).length;
  const blocked = board.applicationLimit !== undefined && before >= board.applicationLimit;
  const id = randomUUID();
  sim.applications.push({
    board: board.name,
    postingId,
    fieldSubmissions: submissions as { path: string; value: unknown }[],
    files,
    submittedFormInstanceId: id,
    blocked,
  });
  if (!blocked) recordApplication(sim.outcomes, id);
  return {
    status: 200,
    body: {
      success: true,
      results: {
        submittedFormInstance: { id, formDefinition: ashbyFormDefinition(posting), submittedValues: Object.fromEntries(given) },
        formMessages: blocked
          ? { blocked: true, blockMessageForCandidateHtml: '<p>Candidates may not apply more than once in 60 days.</p>' }
          : { blocked: false },
      },
    },
  };
}

export async function startAshbySimulator(): Promise<AshbySimulator> {
  const sim = {
    boards: new Map(),
    applications: [],
    uploads: new Map(),
    rateLimitNext: 0,
    outcomes: ashbyOutcomes(),
  } as unknown as AshbySimulator;
  sim.server = await startSimulatorServer((req) => {
    if (req.path === '/ashby-storage/upload' && req.method === 'POST') return storageUpload(sim, req);
    const board = /^\/ashby\/posting-api\/job-board\/([^/]+)$/.exec(req.path);
    if (board && req.method === 'GET') {
      const found = sim.boards.get(decodeURIComponent(board[1]));
      if (!found) return { status: 404, body: { success: false, errorInfo: { code: 'not_found', message: 'Job board not found' } } };
      if (found.listOverride !== undefined)
        return { status: 200, raw: found.listOverride, headers: { 'Content-Type': 'application/json' } };
      const compensation = req.query.get('includeCompensation') === 'true';
      const jobs = found.postings.filter((p) => p.open !== false).map((p) => postingJson(sim, found, p, compensation));
      return { status: 200, body: { apiVersion: '1', jobs } };
    }
    const rpc = /^\/ashby\/([A-Za-z]+\.[A-Za-z]+)$/.exec(req.path);
    if (!rpc || req.method !== 'POST')
      return { status: 404, body: { success: false, errorInfo: { code: 'not_found', message: 'Not found' } } };
    const method = rpc[1];
    const auth = basicUser(req);
    if (!auth) return failure('unauthenticated', 'Missing API key', 401);
    const owner = [...sim.boards.values()].find((b) => b.apiKey === auth.user);
    if (!owner || auth.password !== '') return failure('invalid_api_key', 'The API key is invalid or deactivated', 403);
    if (!Object.hasOwn(PERMISSIONS, method)) return failure('invalid_input', 'Unknown endpoint', 404);
    if (!owner.scopes.includes(PERMISSIONS[method]))
      return failure('missing_endpoint_permission', `The API key does not have the ${PERMISSIONS[method]} permission`, 403);
    if (method === 'apiKey.info')
      return {
        status: 200,
        body: {
          success: true,
          results: {
            title: 'Hiring integration',
            createdAt: '2026-01-01T00:00:00.000Z',
            ...(owner.apiKeyInfoScopes ? { scopes: owner.scopes } : {}),
          },
        },
      };
    if (method === 'jobPosting.list')
      return {
        status: 200,
        body: {
          success: true,
          results: owner.postings.map((p) => ({ id: p.id, title: p.title, isListed: p.listed !== false })),
          moreDataAvailable: false,
        },
      };
    if (method === 'file.createFileUploadHandle') return createUploadHandle(sim, owner, req.json);
    if (method === 'jobPosting.info') {
      const id = (req.json as { jobPostingId?: unknown } | undefined)?.jobPostingId;
      const posting = owner.postings.find((p) => p.id === id);
      if (!posting) return failure('job_posting_not_found', 'Job posting not found');
      return {
        status: 200,
        body: {
          success: true,
          results: {
            id: posting.id,
            title: posting.title,
            descriptionHtml: posting.descriptionHtml ?? `<p>${posting.title}</p>`,
            isListed: posting.listed !== false,
            applicationFormDefinition: ashbyFormDefinition(posting),
            surveyFormDefinitions: [],
          },
        },
      };
    }
    if (sim.rateLimitNext > 0) {
      sim.rateLimitNext -= 1;
      return failure('rate_limit_exceeded', 'Rate limit exceeded', 429, { 'Retry-After': '1' });
    }
    if (method === 'application.info')
      return applicationInfo(sim.outcomes, req.json, (formId) => {
        const application = sim.applications.find((a) => a.submittedFormInstanceId === formId && a.board === owner.name);
        const posting = owner.postings.find((p) => p.id === application?.postingId);
        const name = application?.fieldSubmissions.find((f) => f.path === '_systemfield_name')?.value;
        return application && posting ? { postingId: posting.id, title: posting.title, name: String(name ?? '') } : undefined;
      });
    return submit(sim, owner, req);
  });
  sim.env = { ASHBY_API_URL: `${sim.server.url}/ashby` };
  sim.requestsTo = (path) => sim.server.requests.filter((r) => path.test(r.path));
  return sim;
}
