/**
 * A Lever Postings API simulator under `/lever` (a path prefix). It follows the documented behaviour
 * (shared/ats-apis.md): `GET /v0/postings/{site}?mode=json&skip=&limit=` answering a plain JSON array
 * (404 for an unknown site), and the application POST to `/v0/postings/{site}/{id}?key=…`, multipart with
 * the `resume` file part, `name` and `email` required, answering `{"ok": true, "applicationId"}` or
 * `{"ok": false, "error"}`. Its documented limit: more than 2 application POSTs per second per key get 429
 * (no Retry-After). It merges candidates by e-mail: no duplicate error; a second application with a known
 * e-mail is recorded under the same `contactId` (the one person Lever shows).
 */
import { randomUUID } from 'node:crypto';
import { startSimulatorServer, type RecordedRequest, type SimulatorServer } from './server.js';

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
  env: { LEVER_API_URL: string };
  requestsTo(path: RegExp): RecordedRequest[];
}

export function leverPostingJson(sim: LeverSimulator, site: string, p: LeverPostingFixture) {
  return {
    id: p.id,
    text: p.text,
    categories: {
      location: p.location ?? 'Berlin',
      commitment: p.commitment ?? 'Full-time',
      team: p.team ?? 'Engineering',
      department: 'R&D',
    },
    country: 'DE',
    description: `<div>${p.description}</div>`,
    descriptionPlain: p.description,
    lists: [{ text: 'What you will do', content: '<li>Build things</li>' }],
    additional: '<div>We are nice.</div>',
    additionalPlain: 'We are nice.',
    hostedUrl: `https://jobs.lever.co/${site}/${p.id}`,
    applyUrl: `https://jobs.lever.co/${site}/${p.id}/apply`,
    workplaceType: p.workplaceType ?? 'hybrid',
    ...(p.salaryRange ? { salaryRange: p.salaryRange } : {}),
    createdAt: 1767225600000,
  };
}

export async function startLeverSimulator(): Promise<LeverSimulator> {
  const sim = { sites: new Map(), applications: [], postStatuses: [], postTimes: [], rateLimitNext: 0 } as unknown as LeverSimulator;
  const posts = new Map<string, number[]>();
  const contacts = new Map<string, string>();
  sim.server = await startSimulatorServer((req) => {
    const match = /^\/lever\/v0\/postings\/([^/]+)(?:\/([^/]+))?$/.exec(req.path);
    const site = match ? sim.sites.get(decodeURIComponent(match[1])) : undefined;
    if (!match || !site) return { status: 404, body: { ok: false, error: 'Document not found' } };
    if (req.method === 'GET' && !match[2]) {
      if (site.listOverride !== undefined) return { status: 200, raw: site.listOverride, headers: { 'Content-Type': 'application/json' } };
      const skip = Number(req.query.get('skip') ?? 0);
      const limit = Number(req.query.get('limit') ?? 100);
      const open = site.postings.filter((p) => p.open !== false);
      return { status: 200, body: open.slice(skip, skip + limit).map((p) => leverPostingJson(sim, site.site, p)) };
    }
    if (req.method !== 'POST' || !match[2]) return { status: 404, body: { ok: false, error: 'Document not found' } };
    const reply = (status: number, body: unknown) => {
      sim.postStatuses.push(status);
      return { status, body };
    };
    // The documented limit: more than 2 application POSTs per second per key.
    const key = req.query.get('key') ?? '';
    const now = Date.now();
    sim.postTimes.push(now);
    const recent = (posts.get(key) ?? []).filter((t) => now - t < 1000);
    recent.push(now);
    posts.set(key, recent);
    if (recent.length > 2) return reply(429, { ok: false, error: 'Too many requests' });
    if (sim.rateLimitNext > 0) {
      sim.rateLimitNext -= 1;
      return reply(429, { ok: false, error: 'Too many requests' });
    }
    if (key !== site.apiKey) return reply(401, { ok: false, error: 'Invalid API key' });
    const posting = site.postings.find((p) => p.id === decodeURIComponent(match[2]));
    if (!posting || posting.open === false) return reply(404, { ok: false, error: 'Posting not found' });
    if (!(req.headers['content-type'] ?? '').startsWith('multipart/form-data'))
      return reply(400, { ok: false, error: 'Expected multipart form data' });
    for (const field of ['name', 'email']) if (!req.fields[field]?.[0]) return reply(400, { ok: false, error: `Missing ${field}` });
    const resume = req.files.find((f) => f.field === 'resume');
    const email = req.fields.email[0].trim().toLowerCase();
    if (!contacts.has(email)) contacts.set(email, randomUUID());
    const application: LeverApplication = {
      postingId: posting.id,
      fields: req.fields,
      ...(resume ? { resume: { filename: resume.filename, contentType: resume.contentType, bytes: resume.bytes } } : {}),
      applicationId: randomUUID(),
      contactId: contacts.get(email)!,
    };
    sim.applications.push(application);
    return reply(200, { ok: true, applicationId: application.applicationId });
  });
  sim.env = { LEVER_API_URL: `${sim.server.url}/lever` };
  sim.requestsTo = (path) => sim.server.requests.filter((r) => path.test(r.path));
  return sim;
}
