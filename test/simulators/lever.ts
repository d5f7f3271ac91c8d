/**
 * A Lever Postings API simulator under `/lever` (a path prefix), following Lever's own README
 * (https://github.com/lever/postings-api/blob/master/README.md; each rule below names its section):
 * `GET /v0/postings/{site}` (JSON when `mode=json` or `Accept: application/json`, the query parameter
 * first; HTML otherwise), `GET /v0/postings/{site}/{id}`, and the application POST to
 * `/v0/postings/{site}/{id}?key=…` (JSON, urlencoded or multipart; `resume` only as a multipart file;
 * `name` and `email` required), answering `{"ok": true, "applicationId"}` or `{"ok": false, "error"}`.
 * More than 2 application POSTs per second get 429. It merges candidates by e-mail: no duplicate error; a
 * second application with a known e-mail is recorded under the same `contactId`.
 * The README does not say that Lever refuses fields it does not document: the simulator, like Lever is
 * assumed to, takes the application and leaves such fields out, and records them in `ignored` so that a
 * test sees what Lever would silently drop (P281).
 */
import { randomUUID } from 'node:crypto';
import { startSimulatorServer, type RecordedRequest, type Reply, type SimulatorServer } from './server.js';

const README = 'https://github.com/lever/postings-api/blob/master/README.md';
export const LEVER_README_URLS = {
  list: `${README}#get-a-list-of-job-postings`,
  posting: `${README}#get-a-specific-job-posting`,
  apply: `${README}#apply-to-a-job-posting`,
  rateLimit: `${README}#post-application-rate-limit`,
} as const;

export interface LeverPostingFixture {
  id: string;
  text: string;
  description: string;
  location?: string;
  commitment?: string;
  team?: string;
  workplaceType?: string;
  open?: boolean;
  salaryRange?: { currency: string; interval: string; min: number; max: number };
}

export interface LeverSite {
  site: string;
  apiKey: string;
  postings: LeverPostingFixture[];
  /** Replaces the list body (a malformed feed). */
  listOverride?: string;
}

export interface LeverApplication {
  postingId: string;
  fields: Record<string, string[]>;
  resume?: { filename: string; contentType: string; bytes: Buffer };
  /** What Lever does not document and so (assumed) leaves out: field names, and `file:<field>` for file parts. */
  ignored: string[];
  applicationId: string;
  /** The merged candidate: the same for every application with the same e-mail (case-insensitive). */
  contactId: string;
}

export interface LeverSimulator {
  server: SimulatorServer;
  sites: Map<string, LeverSite>;
  applications: LeverApplication[];
  /** Statuses of the application POSTs, in order (429s included). */
  postStatuses: number[];
  /** Arrival times (ms) of the application POSTs, in order. */
  postTimes: number[];
  rateLimitNext: number;
  /**
   * Called with a new application before its apply answer goes out: Lever's webhooks are asynchronous, so its
   * `applicationCreated` may reach the company's URL before the applicant's client has the answer (P311, P348).
   */
  beforeAnswer?: (application: LeverApplication) => Promise<void>;
  env: { LEVER_API_URL: string };
  requestsTo(path: RegExp): RecordedRequest[];
}

/** A posting with the fields the README lists for JSON mode (LEVER_README_URLS.list), and no others. */
export function leverPostingJson(sim: LeverSimulator, site: string, p: LeverPostingFixture) {
  const location = p.location ?? 'Berlin';
  return {
    id: p.id,
    text: p.text,
    categories: {
      location,
      commitment: p.commitment ?? 'Full-time',
      team: p.team ?? 'Engineering',
      department: 'R&D',
      allLocations: [location],
    },
    country: 'DE',
    opening: '',
    openingPlain: '',
    description: `<div>${p.description}</div>`,
    descriptionPlain: p.description,
    descriptionBody: `<div>${p.description}</div>`,
    descriptionBodyPlain: p.description,
    lists: [{ text: 'What you will do', content: '<li>Build things</li>' }],
    additional: '<div>We are nice.</div>',
    additionalPlain: 'We are nice.',
    hostedUrl: `https://jobs.lever.co/${site}/${p.id}`,
    applyUrl: `https://jobs.lever.co/${site}/${p.id}/apply`,
    workplaceType: p.workplaceType ?? 'hybrid',
    ...(p.salaryRange ? { salaryRange: p.salaryRange } : {}),
  };
}

/** The multipart/urlencoded field names the README's apply table documents (LEVER_README_URLS.apply). */
const DOCUMENTED = new Set([
  'name',
  'email',
  'phone',
  'org',
  'comments',
  'silent',
  'source',
  'ip',
  'timezone',
  'userAgent',
  'acceptLanguage',
  'referer',
  'opportunityLocation',
  'consent[marketing]',
  'consent[store]',
  'consent[marketing][provided]',
  'consent[marketing][compliancePolicyId]',
  'consent[store][provided]',
  'consent[store][compliancePolicyId]',
]);
const documentedField = (name: string) => DOCUMENTED.has(name) || /^urls\[[^[\]]+\]$/.test(name);

/** The JSON body's fields, flattened to the multipart names (`urls` and `consent` are objects in JSON). */
function jsonFields(json: Record<string, unknown>): Record<string, string[]> {
  const fields: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const [name, value] of Object.entries(json)) {
    if ((name === 'urls' || name === 'consent') && value && typeof value === 'object') {
      for (const [inner, v] of Object.entries(value as Record<string, unknown>)) {
        if (v && typeof v === 'object')
          for (const [leaf, w] of Object.entries(v as Record<string, unknown>)) fields[`${name}[${inner}][${leaf}]`] = [String(w)];
        else fields[`${name}[${inner}]`] = [String(v)];
      }
    } else fields[name] = [typeof value === 'string' ? value : JSON.stringify(value)];
  }
  return fields;
}

const notFound: Reply = { status: 404, body: { ok: false, error: 'Document not found' } };
const wantsJson = (req: RecordedRequest) => {
  // "If both are provided, the query parameter has a higher precedence." (README, API methods)
  const mode = req.query.get('mode');
  if (mode) return mode.toLowerCase() === 'json';
  return (req.headers.accept ?? '').includes('application/json');
};

export async function startLeverSimulator(): Promise<LeverSimulator> {
  const sim = { sites: new Map(), applications: [], postStatuses: [], postTimes: [], rateLimitNext: 0 } as unknown as LeverSimulator;
  const posts = new Map<string, number[]>();
  const contacts = new Map<string, string>();
  sim.server = await startSimulatorServer(async (req) => {
    // Only the documented paths exist; anything else is a 404 (the error body is Lever's `{ok: false, error}`).
    const match = /^\/lever\/v0\/postings\/([^/]+)(?:\/([^/]+))?$/.exec(req.path);
    const site = match ? sim.sites.get(decodeURIComponent(match[1])) : undefined;
    if (!match || !site) return notFound;
    const open = site.postings.filter((p) => p.open !== false);
    if (req.method === 'GET' && !match[2]) {
      // LEVER_README_URLS.list: JSON only in JSON mode; otherwise the inlinable HTML list.
      if (!wantsJson(req))
        return {
          status: 200,
          raw: `<div class='lever'><ul>${open.map((p) => `<li>${p.text}</li>`).join('')}</ul></div>`,
          headers: { 'Content-Type': 'text/html' },
        };
      if (site.listOverride !== undefined) return { status: 200, raw: site.listOverride, headers: { 'Content-Type': 'application/json' } };
      const skip = Number(req.query.get('skip') ?? 0);
      const limit = Number(req.query.get('limit') ?? 100);
      return { status: 200, body: open.slice(skip, skip + limit).map((p) => leverPostingJson(sim, site.site, p)) };
    }
    if (req.method === 'GET') {
      // LEVER_README_URLS.posting: "only returns the named job posting in JSON format".
      const posting = open.find((p) => p.id === decodeURIComponent(match[2]!));
      return posting ? { status: 200, body: leverPostingJson(sim, site.site, posting) } : notFound;
    }
    if (req.method !== 'POST' || !match[2]) return notFound;
    const reply = (status: number, error?: string) => {
      sim.postStatuses.push(status);
      return { status, body: error === undefined ? undefined : { ok: false, error } };
    };
    // LEVER_README_URLS.rateLimit: more than 2 application POST requests per second → 429.
    const key = req.query.get('key') ?? '';
    const now = Date.now();
    sim.postTimes.push(now);
    const recent = (posts.get(key) ?? []).filter((t) => now - t < 1000);
    recent.push(now);
    posts.set(key, recent);
    if (recent.length > 2) return reply(429, 'Too many requests');
    if (sim.rateLimitNext > 0) {
      sim.rateLimitNext -= 1;
      return reply(429, 'Too many requests');
    }
    // LEVER_README_URLS.apply: the key is required. The status of a wrong key is not documented (assumed 401).
    if (key !== site.apiKey) return reply(401, 'Invalid API key');
    const posting = open.find((p) => p.id === decodeURIComponent(match[2]!));
    if (!posting) return reply(404, 'Posting not found');
    // LEVER_README_URLS.apply: "Use a Content-Type header": JSON, urlencoded or multipart; resumes only multipart.
    const type = (req.headers['content-type'] ?? '').toLowerCase();
    let fields: Record<string, string[]>;
    if (type.startsWith('multipart/form-data')) fields = req.fields;
    else if (type.startsWith('application/json')) {
      if (!req.json || typeof req.json !== 'object' || Array.isArray(req.json)) return reply(400, 'Invalid JSON body');
      if ('resume' in req.json) return reply(400, 'Resumes are only accepted in multipart/form-data mode');
      fields = jsonFields(req.json as Record<string, unknown>);
    } else if (type.startsWith('application/x-www-form-urlencoded')) {
      fields = Object.create(null) as Record<string, string[]>;
      for (const [name, value] of new URLSearchParams(req.body.toString('utf8'))) (fields[name] ??= []).push(value);
      if (fields.resume) return reply(400, 'Resumes are only accepted in multipart/form-data mode');
    } else return reply(415, 'Unsupported Content-Type');
    // LEVER_README_URLS.apply: name and email are required; the e-mail "Requires an \"@\" symbol".
    for (const field of ['name', 'email']) if (!fields[field]?.[0]?.trim()) return reply(400, `Missing ${field}`);
    if (!fields.email[0].includes('@')) return reply(400, 'Invalid email');
    // LEVER_README_URLS.apply: `silent` "Accepts values of true, false, "true" or "false"" (the status of another value is assumed 400).
    if (fields.silent && !['true', 'false'].includes(fields.silent[0])) return reply(400, 'Invalid silent');
    const ignored = Object.keys(fields).filter((name) => !documentedField(name));
    // LEVER_README_URLS.apply: `resume` "Should be a file": one file under that name; any other file part is not documented.
    const resumes = req.files.filter((f) => f.field === 'resume');
    ignored.push(...req.files.filter((f) => f !== resumes[0]).map((f) => `file:${f.field}`));
    const resume = resumes[0];
    const email = fields.email[0].trim().toLowerCase();
    if (!contacts.has(email)) contacts.set(email, randomUUID());
    const application: LeverApplication = {
      postingId: posting.id,
      fields,
      ...(resume ? { resume: { filename: resume.filename, contentType: resume.contentType, bytes: resume.bytes } } : {}),
      ignored,
      applicationId: randomUUID(),
      contactId: contacts.get(email)!,
    };
    sim.applications.push(application);
    sim.postStatuses.push(200);
    await sim.beforeAnswer?.(application);
    // LEVER_README_URLS.apply: "On success, 200 OK and a body of {ok:true, applicationId: '...'}".
    return { status: 200, body: { ok: true, applicationId: application.applicationId } };
  });
  sim.env = { LEVER_API_URL: `${sim.server.url}/lever` };
  sim.requestsTo = (path) => sim.server.requests.filter((r) => path.test(r.path));
  return sim;
}
