/**
 * A Personio simulator: the public XML feed at `/personio-feed/{subdomain}/xml` and the Recruiting API
 * under `/personio-api` (path prefixes, as a proxy or another region might have). It follows Personio's own
 * OpenAPI, https://github.com/personio/api-docs/blob/master/personio-recruiting-api.yaml (OPENAPI below; each
 * rule names the part it comes from): `GET /xml?language=…`, Bearer token + `X-Company-ID` (401 otherwise),
 * documents first (multipart `file`, at most 20 MB → 413 `errors.file-too-big`, the listed file types →
 * 422 `errors.invalid-file-type`, answering `{uuid, size, mimetype, original_filename, extension}`), then
 * the JSON application (`submit_application`: 201, no body) refused with the documented `error_response`
 * `{"errors": [{"field", "errors": [{"reason", "context"}]}]}` and the documented reason codes. The OpenAPI
 * does not forbid other top-level properties, so the simulator (like Personio is assumed to) takes the
 * application and records them in `ignored`, for a test to see what Personio would drop (P282).
 */
import { randomUUID } from 'node:crypto';
import { startSimulatorServer, type RecordedRequest, type Reply, type SimulatorServer } from './server.js';
import { apiV2Reply, personioApiV2, type PersonioApiV2 } from './personio-v2.js';

export const OPENAPI = 'https://github.com/personio/api-docs/blob/master/personio-recruiting-api.yaml';

export interface PersonioPosition {
  id: string;
  name: string;
  office?: string;
  department?: string;
  recruitingCategory?: string;
  employmentType?: string;
  seniority?: string;
  schedule?: string;
  occupationCategory?: string;
  keywords?: string;
  descriptions?: { name: string; value: string }[];
}

export interface PersonioAccount {
  subdomain: string;
  companyId: string;
  token: string;
  positions: PersonioPosition[];
  /** Position ids that exist but are not published. */
  unpublished: Set<string>;
  /** E-mails of applicants that already exist. */
  applicants: Set<string>;
  /** Its custom attributes (`custom_attribute_{id}` API names). */
  customAttributes?: string[];
  /** Replaces the feed body (a malformed feed). */
  feedOverride?: string;
  /** The company lost the Recruiting API (403 `feature.public-api.disabled`). */
  apiDisabled?: boolean;
}

export interface PersonioApplication {
  body: Record<string, unknown>;
  documents: { uuid: string; filename: string; contentType: string; bytes: Buffer }[];
  /** Top-level properties `submit_application` does not document. */
  ignored: string[];
}

/** OPENAPI, `/v1/recruiting/applications/documents`, `file`: "Must be one of the supported types: …". */
export const PERSONIO_FILE_EXTENSIONS = [
  'pdf', 'pptx', 'xlsx', 'docx', 'doc', 'xls', 'ppt', 'ods', 'odt', '7z', 'gz', 'rar', 'zip', 'bmp', 'gif', 'jpg', 'png',
  'tif', 'csv', 'txt', 'rtf', 'mp4', '3gp', 'mov', 'avi', 'wmv',
]; // prettier-ignore
/** Assumed (P282): a `.jpeg` / `.tiff` name is the type `jpg` / `tif`. */
const ALIASES: Record<string, string> = { jpeg: 'jpg', tiff: 'tif' };
/** OPENAPI, the documents endpoint: "Maximum file size: 20MB". */
const MAX_BYTES = 20 * 1024 * 1024;
/** OPENAPI, `GET /xml`: `language` is required, one of these. */
const LANGUAGES = ['de', 'en', 'fr', 'es', 'nl', 'it', 'pt'];
/** OPENAPI, `submit_application`: its properties. */
const PROPERTIES = [
  'first_name', 'last_name', 'email', 'job_position_id', 'recruiting_channel_id', 'external_posting_id', 'message',
  'application_date', 'phase', 'tags', 'files', 'attributes',
]; // prettier-ignore
/** OPENAPI, `attributes[].id`: the supported system attributes. */
const SYSTEM_ATTRIBUTES = ['birthday', 'gender', 'location', 'phone', 'available_from', 'salary_expectations'];
/** OPENAPI, `files[].category`. */
const CATEGORIES = ['cv', 'cover-letter', 'employment-reference', 'certificate', 'work-sample', 'other'];

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** OPENAPI, `XmlResponse` / `JobPosting`: `workzag-jobs` with one `position` per job. */
export function personioFeedXml(positions: PersonioPosition[]): string {
  const element = (name: string, value: string | undefined) => (value === undefined ? '' : `    <${name}>${xmlEscape(value)}</${name}>\n`);
  const body = positions
    .map(
      (p) =>
        '  <position>\n' +
        element('id', p.id) +
        element('office', p.office) +
        element('department', p.department) +
        element('recruitingCategory', p.recruitingCategory) +
        element('name', p.name) +
        '    <jobDescriptions>\n' +
        (p.descriptions ?? [])
          .map(
            (d) =>
              `      <jobDescription>\n        <name>${xmlEscape(d.name)}</name>\n        <value><![CDATA[${d.value}]]></value>\n      </jobDescription>\n`,
          )
          .join('') +
        '    </jobDescriptions>\n' +
        element('employmentType', p.employmentType) +
        element('seniority', p.seniority) +
        element('schedule', p.schedule) +
        element('keywords', p.keywords) +
        element('occupationCategory', p.occupationCategory) +
        element('createdAt', '2026-01-01T00:00:00+00:00') +
        '  </position>\n',
    )
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<workzag-jobs>\n${body}</workzag-jobs>\n`;
}

/** OPENAPI, `error_response`, its first shape; validation errors are 400 ("Bad Request … Check body for details"). */
const fieldError = (field: string, reason: string, status = 400): Reply => ({
  status,
  body: { errors: [{ field, errors: [{ reason, context: {} }] }] },
});
/** OPENAPI: 401 "The API token and/or company id was not recognized" (no body documented). */
const unauthorized: Reply = { status: 401 };
/** OPENAPI, `error_response`, its second shape (`id` is a uuid). */
const httpError = (status: number, title: string): Reply => ({
  status,
  body: { errors: [{ id: randomUUID(), status: String(status), title }] },
});

export interface PersonioSimulator {
  server: SimulatorServer;
  accounts: Map<string, PersonioAccount>;
  applications: PersonioApplication[];
  /** The next N API requests answer 429. */
  rateLimitNext: number;
  /**
   * P363, https://developer.personio.de/reference/introduction-1: "Both the documents and the applications endpoints
   * have a rate limit of 20 requests in 60 seconds per company"; above it 429. A test may shorten the window.
   */
  companyRate: { limit: number; windowMs: number };
  /** API v2 (P358–P361): client credentials, the applications the v1 submissions created, their stages. */
  apiV2: PersonioApiV2;
  env: { PERSONIO_API_URL: string; PERSONIO_FEED_URL: string };
  requestsTo(path: RegExp): RecordedRequest[];
}

const nonBlank = (value: unknown) => typeof value === 'string' && value.trim().length > 0;

/** OPENAPI, `submit_application`: the first documented rule the body breaks, or undefined. */
function invalidApplication(body: Record<string, unknown>, account: PersonioAccount): Reply | undefined {
  // first_name / last_name: "Must not be empty or only whitespaces"; email: format email; all four required.
  for (const field of ['first_name', 'last_name', 'email'])
    if (!nonBlank(body[field])) return fieldError(field, 'errors.attribute-validation.required-attribute');
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(String(body.email)))
    return fieldError('email', 'errors.attribute-validation.invalid-email-format');
  // job_position_id: type integer.
  if (body.job_position_id === undefined) return fieldError('job_position_id', 'errors.attribute-validation.required-attribute');
  if (!Number.isInteger(body.job_position_id)) return fieldError('job_position_id', 'errors.attribute-validation.invalid-type');
  // application_date: yyyy-mm-dd, "It cannot be a date in the future."
  if (body.application_date !== undefined) {
    if (typeof body.application_date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(body.application_date))
      return fieldError('application_date', 'errors.attribute-validation.invalid-date-format');
    if (body.application_date > new Date().toISOString().slice(0, 10))
      return fieldError('application_date', 'errors.date-validation.date-in-the-future');
  }
  if (body.message !== undefined && typeof body.message !== 'string')
    return fieldError('message', 'errors.attribute-validation.invalid-type');
  // attributes: [{id, value}], id a system attribute or one of the company's custom_attribute_N.
  if (body.attributes !== undefined) {
    if (!Array.isArray(body.attributes)) return fieldError('attributes', 'errors.attribute-validation.invalid-type');
    for (const attribute of body.attributes as Record<string, unknown>[]) {
      const id = attribute?.id;
      if (typeof id !== 'string' || typeof attribute.value !== 'string')
        return fieldError('attributes', 'errors.attribute-validation.invalid-type');
      if (!SYSTEM_ATTRIBUTES.includes(id) && !(account.customAttributes ?? []).includes(id))
        return fieldError(id, 'errors.attribute-validation.unknown');
      if (id === 'gender' && !['male', 'female', 'diverse', 'undefined'].includes(attribute.value))
        return fieldError(id, 'errors.attribute-validation.unknown-attribute-option');
      if ((id === 'birthday' || id === 'available_from') && !/^\d{4}-\d{2}-\d{2}$/.test(attribute.value))
        return fieldError(id, 'errors.attribute-validation.invalid-date-format');
    }
  }
  // files: [{uuid, original_filename, category}], all three required, category from the enum.
  if (body.files !== undefined) {
    if (!Array.isArray(body.files)) return fieldError('files', 'errors.attribute-validation.invalid-type');
    for (const file of body.files as Record<string, unknown>[]) {
      if (!nonBlank(file?.uuid) || !nonBlank(file.original_filename) || !nonBlank(file.category))
        return fieldError('files', 'errors.attribute-validation.required-attribute');
      if (!CATEGORIES.includes(String(file.category))) return fieldError('files', 'errors.file-validation.unknown-file-category');
    }
  }
  return undefined;
}

export async function startPersonioSimulator(): Promise<PersonioSimulator> {
  const accounts = new Map<string, PersonioAccount>();
  const documents = new Map<string, { account: PersonioAccount; filename: string; contentType: string; bytes: Buffer }>();
  const sim: PersonioSimulator = {} as PersonioSimulator;
  sim.accounts = accounts;
  sim.applications = [];
  sim.rateLimitNext = 0;
  sim.companyRate = { limit: 20, windowMs: 60_000 };
  const companyCalls = new Map<string, number[]>();
  sim.apiV2 = personioApiV2();

  // OPENAPI, `bearerAuth` and the required header `X-Company-ID` (X-Personio-Partner-ID / -App-ID are optional).
  const authorized = (req: RecordedRequest) => {
    const token = /^Bearer\s+(\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    return [...accounts.values()].find((a) => a.token === token && a.companyId === req.headers['x-company-id']);
  };

  sim.server = await startSimulatorServer((req) => {
    const feed = /^\/personio-feed\/([^/]+)\/xml$/.exec(req.path);
    if (feed && req.method === 'GET') {
      const account = accounts.get(decodeURIComponent(feed[1]));
      if (!account) return { status: 404, raw: '<html>Page not found</html>', headers: { 'Content-Type': 'text/html' } };
      // OPENAPI, `GET /xml`: `language` is required (the status of its absence is not documented: assumed 400).
      if (!LANGUAGES.includes(req.query.get('language') ?? ''))
        return { status: 400, raw: '<html>Bad request</html>', headers: { 'Content-Type': 'text/html' } };
      return { status: 200, raw: account.feedOverride ?? personioFeedXml(account.positions) };
    }
    const path = req.path.replace(/^\/personio-api/, '');
    if (req.path.startsWith('/personio-api/v2/')) {
      // OPENAPI: 429 "You have exceeded the rate-limit for your API call" (taken to hold for API v2 too: assumed).
      if (sim.rateLimitNext > 0) {
        sim.rateLimitNext -= 1;
        return { status: 429 };
      }
      return apiV2Reply(sim.apiV2, req, path) ?? httpError(404, 'Not Found');
    }
    // Only the two documented POST paths exist.
    if (
      !req.path.startsWith('/personio-api/') ||
      req.method !== 'POST' ||
      !['/v1/recruiting/applications', '/v1/recruiting/applications/documents'].includes(path)
    )
      return httpError(404, 'Not Found');
    const account = authorized(req);
    if (!account) return unauthorized;
    // OPENAPI: 429 "You have exceeded the rate-limit for your API call" (no body documented).
    if (sim.rateLimitNext > 0) {
      sim.rateLimitNext -= 1;
      return { status: 429 };
    }
    // P363's page: 20 requests in 60 seconds per company on these two endpoints, counted by the X-Company-ID header.
    const company = String(req.headers['x-company-id'] ?? '');
    const now = Date.now();
    const calls = (companyCalls.get(company) ?? []).filter((at) => now - at < sim.companyRate.windowMs);
    companyCalls.set(company, calls);
    if (calls.length >= sim.companyRate.limit) return { status: 429, headers: { 'Retry-After': '60' } };
    calls.push(now);
    // OPENAPI, 403: "Your company does not have access to one of the features used in this request."
    if (account.apiDisabled) return fieldError('company', 'feature.public-api.disabled', 403);
    if (path === '/v1/recruiting/applications/documents') {
      // OPENAPI, the documents endpoint: multipart/form-data, `file` required; 413 too large; 422 "could not be processed".
      const file = req.files.find((f) => f.field === 'file');
      if (!(req.headers['content-type'] ?? '').startsWith('multipart/form-data') || !file)
        return fieldError('file', 'errors.attribute-validation.required-attribute', 422);
      if (file.bytes.length > MAX_BYTES) return fieldError('file', 'errors.file-too-big', 413);
      const named = file.filename.includes('.') ? file.filename.split('.').pop()!.toLowerCase() : '';
      const extension = Object.hasOwn(ALIASES, named) ? ALIASES[named] : named;
      if (!PERSONIO_FILE_EXTENSIONS.includes(extension)) return fieldError('file', 'errors.invalid-file-type', 422);
      const uuid = randomUUID();
      documents.set(uuid, { account, filename: file.filename, contentType: file.contentType, bytes: file.bytes });
      // OPENAPI, `uploaded_document`: all five required.
      return {
        status: 200,
        body: { uuid, size: file.bytes.length, mimetype: file.contentType, original_filename: file.filename, extension },
      };
    }
    // OPENAPI, `/v1/recruiting/applications`: requestBody application/json, `submit_application`.
    if (
      !(req.headers['content-type'] ?? '').startsWith('application/json') ||
      !req.json ||
      typeof req.json !== 'object' ||
      Array.isArray(req.json)
    )
      return fieldError('body', 'errors.attribute-validation.invalid-type');
    const body = req.json as Record<string, unknown>;
    const invalid = invalidApplication(body, account);
    if (invalid) return invalid;
    // The error codes table: posting-not-found / job-position.not-published / applicant-already-exists / file-not-exists.
    const position = String(body.job_position_id);
    if (!account.positions.some((p) => p.id === position))
      return fieldError('job_position_id', 'errors.posting-validation.posting-not-found');
    if (account.unpublished.has(position)) return fieldError('job_position_id', 'errors.job-position.not-published');
    if (account.applicants.has(String(body.email).toLowerCase())) return fieldError('email', 'errors.applicant-already-exists');
    const attached = [];
    for (const file of (body.files ?? []) as { uuid: string }[]) {
      const document = documents.get(file.uuid);
      if (!document || document.account !== account) return fieldError('files', 'errors.file-validation.file-not-exists');
      attached.push({ uuid: file.uuid, ...document });
    }
    account.applicants.add(String(body.email).toLowerCase());
    sim.apiV2.created(account.companyId, String(body.email), position);
    sim.applications.push({ body, documents: attached, ignored: Object.keys(body).filter((k) => !PROPERTIES.includes(k)) });
    // OPENAPI: 201 "Created - Application was created successfully." (no body).
    return { status: 201 };
  });
  sim.env = {
    PERSONIO_API_URL: `${sim.server.url}/personio-api`,
    PERSONIO_FEED_URL: `${sim.server.url}/personio-feed/{subdomain}/xml`,
  };
  sim.requestsTo = (path) => sim.server.requests.filter((r) => path.test(r.path));
  return sim;
}

export function personioAccount(subdomain: string, overrides: Partial<PersonioAccount> = {}): PersonioAccount {
  return {
    subdomain,
    companyId: '4711',
    token: `papi-${subdomain}-token`,
    positions: [],
    unpublished: new Set(),
    applicants: new Set(),
    ...overrides,
  };
}
