/**
 * A SmartRecruiters simulator under `/smartrecruiters` (a path prefix). It follows SmartRecruiters' own pages,
 * not our connector (P275):
 * - Posting API, public (no key; https://dev.smartrecruiters.com/customer-api/posting-api/endpoints/postings/):
 *   `GET /v1/companies/{companyIdentifier}/postings?limit&offset` → `{offset, limit, totalFound, content}`,
 *   `limit` at most 100 (400 above), where list entries leave fields out (no `jobAd`, no URLs: "to get full
 *   object use ref"); `GET …/postings/{id or uuid}` → the full posting
 *   (`jobAd.sections.{companyDescription,jobDescription,qualifications,additionalInformation}{title,text}`,
 *   `postingUrl`, `applyUrl`); 404 for an unknown or unpublished one.
 * - Application API with `X-SmartToken` (https://developers.smartrecruiters.com/docs/application-api-1):
 *   `GET /postings/{uuid}/configuration` → `{questions[{id,label,repeatable,fields[{id,label,type,required,
 *   complianceType,values[{id,label}]}]}], settings, privacyPolicies}`
 *   (https://developers.smartrecruiters.com/docs/partners-get-application-screening-questions-and-privacy-policies);
 *   `POST /postings/{uuid}/candidates` (JSON), validated as ./smartrecruiters-rules.ts lists, each rule with its
 *   page: the reference's properties only, `firstName`/`lastName`/`email` required, `web` keys `linkedIn`,
 *   `facebook`, `twitter`, `website`, `skype`, `consentDecisions` in its two documented forms, answers as
 *   `[{id, records: [{fields: {fieldId: [values]}}]}]` (a record without the `fields` wrapper is refused with
 *   the documented "Values for the following screening questions' answers are incorrect: …"), required
 *   questions ("The following screening questions are required: …"), and `attachments` as exactly
 *   `{fileName, mimeType, fileContent}` (Base64), 2 MB per file, PDF/DOC(X)/RTF/JPG/PNG, with the documented
 *   quirk that a file whose Base64 does not decode to its type fails as "failed to load PDF file".
 *   The key is checked before the posting is looked up.
 *   `GET /postings/{uuid}/candidates/{candidateId}/status` → `{status}`, one of `APPLICATION_STATUSES`
 *   (https://developers.smartrecruiters.com/docs/get-candidate-application-status); a candidate who did not
 *   apply to that posting is 404 (ASSUMED). Tests move an application with `moveApplication(candidateId, status)`.
 * - Rate limit (https://developers.smartrecruiters.com/docs/rate-limiting): 10 requests per second per credential (the
 *   key, or the caller for the public Posting API); every response carries X-RateLimit-Limit/-Remaining and
 *   X-RateLimit-Concurrent-Limit/-Remaining; above it 429 with no Retry-After (none is documented).
 * Not documented, chosen here (docs/connectors/smartrecruiters.md, "Assumptions"): success is 201
 * `{id, createdOn, candidatePortalUrl}`; a wrong key is 401; error bodies are `{code, message}` (auth, not
 * found) or `{errors: [{code, message}]}` (validation, 400); a property the reference does not list is
 * refused (not silently dropped); a closed posting is 404; a second application of the same e-mail to the
 * same posting is 409 `DUPLICATE_CANDIDATE`; an unknown company identifier answers an empty list.
 */
import { randomUUID } from 'node:crypto';
import { invalid, validateApplication, type SmartRecruitersQuestionFixture } from './smartrecruiters-rules.js';
import { startSimulatorServer, type RecordedRequest, type Reply, type SimulatorServer } from './server.js';

export type { SmartRecruitersFieldFixture, SmartRecruitersQuestionFixture } from './smartrecruiters-rules.js';
export { SMARTRECRUITERS_EXTENSIONS } from './smartrecruiters-rules.js';

export interface SmartRecruitersPostingFixture {
  /** The posting id (Posting API). */
  id: string;
  /** The posting uuid (Application API). */
  uuid: string;
  name: string;
  jobDescription?: string;
  qualifications?: string;
  location?: Record<string, unknown>;
  typeOfEmployment?: string;
  experienceLevel?: { id: string; label: string };
  department?: string;
  functionLabel?: string;
  questions?: SmartRecruitersQuestionFixture[];
  /** false: unpublished (404 everywhere). */
  published?: boolean;
  /** Still in the list, but its full object answers 404 (unpublished between the two reads). */
  listedOnly?: boolean;
}

export interface SmartRecruitersCompany {
  identifier: string;
  apiKey: string;
  postings: SmartRecruitersPostingFixture[];
  /** Replaces the list body (a malformed feed). */
  listOverride?: string;
}

export interface SmartRecruitersApplication {
  uuid: string;
  body: Record<string, unknown>;
  candidateId: string;
  /** The application status (one of APPLICATION_STATUSES); NEW when it arrives. */
  status?: string;
}

/** The values of "Get Candidate Application Status" (https://developers.smartrecruiters.com/docs/get-candidate-application-status). */
export const APPLICATION_STATUSES = ['NEW', 'IN-REVIEW', 'INTERVIEW', 'OFFER', 'HIRE', 'REJECTED', 'WITHDRAWN', 'LEAD', 'TRANSFERRED'];

const LIMIT_PER_SECOND = 10;

export interface SmartRecruitersSimulator {
  server: SimulatorServer;
  companies: Map<string, SmartRecruitersCompany>;
  applications: SmartRecruitersApplication[];
  /** Answers this many of the next requests with 429 (tests). */
  rateLimitNext: number;
  /** Answers this many of the next application POSTs with 429 (tests). */
  rateLimitPostsNext: number;
  /** Statuses of the application POSTs, in order (429s included). */
  postStatuses: number[];
  env: { SMARTRECRUITERS_API_URL: string };
  requestsTo(path: RegExp): RecordedRequest[];
  /** Sets a candidate's application status (one of APPLICATION_STATUSES), as the hiring team does. */
  moveApplication(candidateId: string, status: string): void;
}

const PREFIX = '/smartrecruiters';

function fullPosting(sim: SmartRecruitersSimulator, company: SmartRecruitersCompany, p: SmartRecruitersPostingFixture) {
  return {
    ...summary(sim, company, p),
    postingUrl: `https://jobs.smartrecruiters.com/${company.identifier}/${p.id}`,
    applyUrl: `https://jobs.smartrecruiters.com/${company.identifier}/${p.id}?oga=true`,
    jobAd: {
      sections: {
        companyDescription: { title: 'Company Description', text: '<p>We build things.</p>' },
        jobDescription: { title: 'Job Description', text: p.jobDescription ?? `<p>${p.name}</p>` },
        ...(p.qualifications ? { qualifications: { title: 'Qualifications', text: p.qualifications } } : {}),
        additionalInformation: { title: 'Additional Information', text: '' },
      },
    },
  };
}

function summary(sim: SmartRecruitersSimulator, company: SmartRecruitersCompany, p: SmartRecruitersPostingFixture) {
  return {
    id: p.id,
    uuid: p.uuid,
    name: p.name,
    refNumber: `REF-${p.id}`,
    company: { identifier: company.identifier, name: company.identifier },
    releasedDate: '2026-01-01T00:00:00.000Z',
    location: p.location ?? { city: 'Berlin', region: 'Berlin', country: 'de', remote: false },
    industry: { id: 'computer_software', label: 'Computer Software' },
    department: { id: '1', label: p.department ?? 'Engineering' },
    function: { id: 'engineering', label: p.functionLabel ?? 'Software Development' },
    typeOfEmployment: { label: p.typeOfEmployment ?? 'Full-time' },
    experienceLevel: p.experienceLevel ?? { id: 'mid_senior_level', label: 'Mid-Senior Level' },
    customField: [{ fieldId: 'f-brand', fieldLabel: 'Brand', valueId: 'v-1', valueLabel: 'Acme' }],
    ref: `${sim.server.url}${PREFIX}/v1/companies/${company.identifier}/postings/${p.id}`,
    creator: { name: 'Recruiter' },
    language: { code: 'en', label: 'English' },
  };
}

const error = (status: number, code: string, message: string): Reply => ({ status, body: { code, message } });

export async function startSmartRecruitersSimulator(): Promise<SmartRecruitersSimulator> {
  const sim = {
    companies: new Map(),
    applications: [],
    rateLimitNext: 0,
    rateLimitPostsNext: 0,
    postStatuses: [],
  } as unknown as SmartRecruitersSimulator;
  const windows = new Map<string, number[]>();
  const findPosting = (uuid: string) => {
    for (const company of sim.companies.values()) {
      const posting = company.postings.find((p) => p.uuid === uuid);
      if (posting) return { company, posting };
    }
    return undefined;
  };

  function handle(req: RecordedRequest): Reply {
    const path = req.path.slice(PREFIX.length);
    const list = /^\/v1\/companies\/([^/]+)\/postings(?:\/([^/]+))?$/.exec(path);
    if (list && req.method === 'GET') {
      const company = sim.companies.get(decodeURIComponent(list[1]));
      if (!list[2]) {
        if (company?.listOverride !== undefined)
          return { status: 200, raw: company.listOverride, headers: { 'Content-Type': 'application/json' } };
        const limit = Number(req.query.get('limit') ?? 10);
        const offset = Number(req.query.get('offset') ?? 0);
        if (!Number.isInteger(limit) || limit < 1 || limit > 100) return invalid('limit must be between 1 and 100.');
        // An unknown company identifier answers an empty list (not a 404).
        const published = (company?.postings ?? []).filter((p) => p.published !== false);
        return {
          status: 200,
          body: {
            offset,
            limit,
            totalFound: published.length,
            content: published.slice(offset, offset + limit).map((p) => summary(sim, company!, p)),
          },
        };
      }
      const id = decodeURIComponent(list[2]);
      const posting = company?.postings.find((p) => (p.id === id || p.uuid === id) && p.published !== false && !p.listedOnly);
      if (!company || !posting) return error(404, 'NOT_FOUND', 'Posting not found.');
      return { status: 200, body: fullPosting(sim, company, posting) };
    }
    const apply = /^\/postings\/([^/]+)\/(configuration|candidates)(?:\/([^/]+)\/(status))?$/.exec(path);
    if (!apply) return error(404, 'NOT_FOUND', 'Not found.');
    // The key before the posting.
    const key = req.headers['x-smarttoken'];
    const found = findPosting(decodeURIComponent(apply[1]));
    const keyKnown = [...sim.companies.values()].some((c) => c.apiKey === key);
    if (!key || !keyKnown) return error(401, 'UNAUTHORIZED', 'Invalid or missing X-SmartToken.');
    if (!found || found.posting.published === false || found.company.apiKey !== key) return error(404, 'NOT_FOUND', 'Posting not found.');
    const { posting } = found;
    if (apply[2] === 'configuration' && req.method === 'GET') {
      return {
        status: 200,
        body: {
          questions: (posting.questions ?? []).map((q) => ({
            repeatable: false,
            ...q,
            fields: q.fields.map((f) => ({ required: false, ...f })),
          })),
          settings: { avatarUploadAvailable: false, conditionals: [] },
          privacyPolicies: [{ url: 'https://example.com/privacy', orgName: found.company.identifier }],
        },
      };
    }
    if (apply[4] === 'status') {
      if (req.method !== 'GET') return error(405, 'METHOD_NOT_ALLOWED', 'Method not allowed.');
      const application = sim.applications.find((a) => a.uuid === posting.uuid && a.candidateId === decodeURIComponent(apply[3]));
      if (!application) return error(404, 'NOT_FOUND', 'Candidate not found.');
      return { status: 200, body: { status: application.status ?? 'NEW' } };
    }
    if (apply[2] !== 'candidates' || req.method !== 'POST') return error(405, 'METHOD_NOT_ALLOWED', 'Method not allowed.');
    if (!(req.headers['content-type'] ?? '').startsWith('application/json') || !req.json || typeof req.json !== 'object')
      return invalid('The body must be a JSON object.');
    const body = req.json as Record<string, unknown>;
    const refused = validateApplication(posting.questions ?? [], body);
    if (refused) return refused;
    const email = String(body.email).trim().toLowerCase();
    if (sim.applications.some((a) => a.uuid === posting.uuid && String(a.body.email).trim().toLowerCase() === email))
      return {
        status: 409,
        body: { errors: [{ code: 'DUPLICATE_CANDIDATE', message: 'Candidate has already applied to this posting.' }] },
      };
    const application = { uuid: posting.uuid, body, candidateId: randomUUID() };
    sim.applications.push(application);
    return {
      status: 201,
      body: {
        id: application.candidateId,
        createdOn: new Date().toISOString(),
        candidatePortalUrl: `https://my.smartrecruiters.com/candidate/${application.candidateId}`,
      },
    };
  }

  sim.server = await startSimulatorServer((req) => {
    if (!req.path.startsWith(`${PREFIX}/`)) return error(404, 'NOT_FOUND', 'Not found.');
    // Per credential: the key when one is sent, else the caller (the public Posting API).
    const credential = req.headers['x-smarttoken'] ?? 'public';
    const now = Date.now();
    const recent = (windows.get(credential) ?? []).filter((t) => now - t < 1000);
    recent.push(now);
    windows.set(credential, recent);
    const headers = {
      'X-RateLimit-Limit': String(LIMIT_PER_SECOND),
      'X-RateLimit-Remaining': String(Math.max(0, LIMIT_PER_SECOND - recent.length)),
      'X-RateLimit-Concurrent-Limit': '8',
      'X-RateLimit-Concurrent-Remaining': '7',
    };
    const post = req.method === 'POST' && /\/candidates$/.test(req.path);
    let reply: Reply;
    if (sim.rateLimitNext > 0 || (post && sim.rateLimitPostsNext > 0) || recent.length > LIMIT_PER_SECOND) {
      if (sim.rateLimitNext > 0) sim.rateLimitNext -= 1;
      else if (post && sim.rateLimitPostsNext > 0) sim.rateLimitPostsNext -= 1;
      reply = { status: 429, body: { code: 'TOO_MANY_REQUESTS', message: 'Rate limit exceeded.' } };
    } else reply = handle(req);
    if (post) sim.postStatuses.push(reply.status);
    return { ...reply, headers: { ...headers, ...(reply.headers ?? {}) } };
  });
  sim.moveApplication = (candidateId, status) => {
    if (!APPLICATION_STATUSES.includes(status)) throw new Error(`no SmartRecruiters status ${status}`);
    const application = sim.applications.find((a) => a.candidateId === candidateId);
    if (!application) throw new Error(`no SmartRecruiters application of ${candidateId}`);
    application.status = status;
  };
  sim.env = { SMARTRECRUITERS_API_URL: `${sim.server.url}${PREFIX}` };
  sim.requestsTo = (path) => sim.server.requests.filter((r) => path.test(r.path));
  return sim;
}
