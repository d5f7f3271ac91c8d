/**
 * A Personio simulator: the public XML feed at `/personio-feed/{subdomain}/xml` and the Recruiting API
 * under `/personio-api` (path prefixes, as a proxy or another region might have). It follows the
 * documented behaviour (shared/ats-apis.md): Bearer token + X-Company-ID (401 otherwise), documents first
 * (multipart `file`, at most 20 MB → 413, a fixed list of file types → 422, answering `{uuid, size,
 * mimetype, original_filename, extension}`), then the JSON application (201, no body) with the
 * documented error shape `{"errors": [{"field", "errors": [{"reason", "context"}]}]}` for duplicates
 * (`errors.applicant-already-exists`), unknown or unpublished positions
 * (`errors.posting-validation.posting-not-found`), missing fields and unknown document uuids.
 */
import { randomUUID } from 'node:crypto';
import { startSimulatorServer, type RecordedRequest, type Reply, type SimulatorServer } from './server.js';

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
  descriptions?: { name: string; value: string }[];
}

export interface PersonioAccount {
  subdomain: string;
  companyId: string;
  token: string;
  positions: PersonioPosition[];
  /** Position ids that exist but are not published (any other unknown id is "not found" too). */
  unpublished: Set<string>;
  /** E-mails of applicants that already exist. */
  applicants: Set<string>;
  /** Replaces the feed body (a malformed feed). */
  feedOverride?: string;
}

export interface PersonioApplication {
  body: Record<string, unknown>;
  documents: { uuid: string; filename: string; contentType: string; bytes: Buffer }[];
}

export const PERSONIO_FILE_EXTENSIONS = [
  'pdf',
  'doc',
  'docx',
  'odt',
  'txt',
  'rtf',
  'jpg',
  'jpeg',
  'png',
  'gif',
  'xls',
  'xlsx',
  'ppt',
  'pptx',
  'zip',
];
const MAX_BYTES = 20 * 1024 * 1024;

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

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
        element('occupationCategory', p.occupationCategory) +
        element('createdAt', '2026-01-01T00:00:00+00:00') +
        '  </position>\n',
    )
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<workzag-jobs>\n${body}</workzag-jobs>\n`;
}

const fieldError = (field: string, reason: string): Reply => ({
  status: 400,
  body: { errors: [{ field, errors: [{ reason, context: {} }] }] },
});
const unauthorized: Reply = {
  status: 401,
  body: { errors: [{ id: 'unauthorized', status: '401', title: 'Unauthorized', detail: 'Invalid token or company id.' }] },
};

export interface PersonioSimulator {
  server: SimulatorServer;
  accounts: Map<string, PersonioAccount>;
  applications: PersonioApplication[];
  /** The next N API requests answer 429. */
  rateLimitNext: number;
  env: { PERSONIO_API_URL: string; PERSONIO_FEED_URL: string };
  requestsTo(path: RegExp): RecordedRequest[];
}

export async function startPersonioSimulator(): Promise<PersonioSimulator> {
  const accounts = new Map<string, PersonioAccount>();
  const documents = new Map<string, { account: PersonioAccount; filename: string; contentType: string; bytes: Buffer }>();
  const sim: PersonioSimulator = {} as PersonioSimulator;
  sim.accounts = accounts;
  sim.applications = [];
  sim.rateLimitNext = 0;

  const authorized = (req: RecordedRequest) => {
    const token = /^Bearer\s+(\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    return [...accounts.values()].find((a) => a.token === token && a.companyId === req.headers['x-company-id']);
  };

  sim.server = await startSimulatorServer((req) => {
    const feed = /^\/personio-feed\/([^/]+)\/xml$/.exec(req.path);
    if (feed && req.method === 'GET') {
      const account = accounts.get(decodeURIComponent(feed[1]));
      if (!account) return { status: 404, raw: '<html>Not found</html>' };
      return { status: 200, raw: account.feedOverride ?? personioFeedXml(account.positions) };
    }
    if (!req.path.startsWith('/personio-api/v1/recruiting/applications') || req.method !== 'POST')
      return { status: 404, body: { errors: [{ title: 'Not found' }] } };
    const account = authorized(req);
    if (!account) return unauthorized;
    if (sim.rateLimitNext > 0) {
      sim.rateLimitNext -= 1;
      return {
        status: 429,
        body: { errors: [{ id: 'rate_limited', status: '429', title: 'Too Many Requests', detail: 'Rate limit exceeded.' }] },
      };
    }
    if (req.path === '/personio-api/v1/recruiting/applications/documents') {
      const file = req.files.find((f) => f.field === 'file');
      if (!file) return fieldError('file', 'errors.required');
      if (file.bytes.length > MAX_BYTES)
        return { status: 413, body: { errors: [{ field: 'file', errors: [{ reason: 'errors.file-too-big', context: {} }] }] } };
      const extension = file.filename.split('.').pop()!.toLowerCase();
      if (!PERSONIO_FILE_EXTENSIONS.includes(extension))
        return { status: 422, body: { errors: [{ id: 'unprocessable', status: '422', title: 'File type not supported' }] } };
      const uuid = randomUUID();
      documents.set(uuid, { account, filename: file.filename, contentType: file.contentType, bytes: file.bytes });
      return {
        status: 200,
        body: { uuid, size: file.bytes.length, mimetype: file.contentType, original_filename: file.filename, extension },
      };
    }
    if (req.path === '/personio-api/v1/recruiting/applications') {
      const body = (req.json ?? {}) as Record<string, unknown>;
      for (const field of ['first_name', 'last_name', 'email', 'job_position_id'])
        if (!body[field]) return fieldError(field, 'errors.required');
      const position = String(body.job_position_id);
      if (!account.positions.some((p) => p.id === position) || account.unpublished.has(position))
        return fieldError('job_position_id', 'errors.posting-validation.posting-not-found');
      if (account.applicants.has(String(body.email).toLowerCase())) return fieldError('email', 'errors.applicant-already-exists');
      const files = (Array.isArray(body.files) ? body.files : []) as { uuid: string }[];
      const attached = [];
      for (const file of files) {
        const document = documents.get(file.uuid);
        if (!document || document.account !== account) return fieldError('files', 'errors.document-not-found');
        attached.push({ uuid: file.uuid, ...document });
      }
      account.applicants.add(String(body.email).toLowerCase());
      sim.applications.push({ body, documents: attached });
      return { status: 201 };
    }
    return { status: 404, body: { errors: [{ title: 'Not found' }] } };
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
