/**
 * The connector contract: the same scenarios against every connector, sandbox included, each ATS played
 * by its simulator on loopback (test/simulators). Imports run through `runJobImport` (the queue worker's
 * and `hiring-admin jobs sync`'s function); submissions run end to end: HTTP create → sync queue → worker
 * → connector → simulator → `GET /applications/{id}`.
 */
import { connectCompany } from '#delivery/ats-connections.js';
import { setSandboxAts, sandboxReceipts, type SandboxAtsState } from '#delivery/connectors/sandbox.js';
import { runJobImport } from '#delivery/job-import.js';
import { createCompany, getCompanyRecord, setCompanyStatus } from '#companies/companies.js';
import { createApiKey } from '#companies/api-keys.js';
import { findJobByExternalId, resolveRunIds, type JobRecord } from '#jobs/jobs.js';
import { aPartner } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { personioAccount, startPersonioSimulator, type PersonioSimulator } from '../simulators/personio.js';
import { startGreenhouseSimulator, type GreenhouseBoard, type GreenhouseSimulator } from '../simulators/greenhouse.js';
import { startLeverSimulator, type LeverSimulator, type LeverSite } from '../simulators/lever.js';

process.env.SYNC_RETRY_BASE_SECONDS = '0';
process.env.SYNC_CLAIM_SECONDS = '1';
process.env.SYNC_MAX_ATTEMPTS = '4';
process.env.LEVER_RETRY_BASE_MS = '200';

const PDF = Buffer.from('%PDF-1.5\ncontract test resume\n%%EOF');
const COVER = Buffer.from('%PDF-1.5\ncontract test cover letter\n%%EOF');

type Key = 'a' | 'b' | 'c';
interface FeedJob {
  key: Key;
  title: string;
}

interface Driver {
  ats: string;
  ids: Record<Key, string>;
  credentials: Record<string, string>;
  publish(jobs: FeedJob[]): Promise<void>;
  breakFeed(): Promise<void>;
  rejectCredentials(on: boolean): Promise<void>;
  close(key: Key): Promise<void>;
  /** Makes the next submission rate limited once; returns the e-mail to apply with. */
  rateLimitOnce(): Promise<string>;
  /** Makes an e-mail a known candidate; returns the e-mail to apply with. */
  duplicate(email: string): Promise<string>;
  duplicateOutcome: { sync_status: string; failure_error: string | null };
  /** Asserts the exact request the ATS received for the last application. */
  checkSubmission(email: string, externalJobId: string): Promise<void>;
  /** Asserts that the ATS saw a 429 and then accepted. */
  checkRateLimited(): void;
  rawId(key: Key): unknown;
}

let api: TestRuntime;
let partner: Awaited<ReturnType<typeof aPartner>>;
let personio: PersonioSimulator;
let greenhouse: GreenhouseSimulator;
let lever: LeverSimulator;

function sandboxDriver(companyId: number): Driver {
  const state: SandboxAtsState = {};
  const save = () => setSandboxAts(companyId, state);
  const ids = { a: 'sbx-a', b: 'sbx-b', c: 'closed-sbx-c' };
  return {
    ats: 'sandbox',
    ids,
    credentials: {},
    async publish(jobs) {
      state.feedMalformed = false;
      state.feed = jobs.map((j) => ({
        external_id: ids[j.key],
        title: j.title,
        description: `About ${j.title}`,
        raw_values: { key: j.key },
      }));
      await save();
    },
    async breakFeed() {
      state.feedMalformed = true;
      await save();
    },
    async rejectCredentials(on) {
      state.rejectCredentials = on;
      await save();
    },
    async close() {
      // The sandbox closes jobs whose external id starts with `closed-` (c is one).
    },
    async rateLimitOnce() {
      return 'grace+ratelimited@example.com';
    },
    async duplicate() {
      return 'grace+duplicate@example.com';
    },
    duplicateOutcome: { sync_status: 'EXPECTED_FAILURE', failure_error: 'DuplicateApplicationError' },
    async checkSubmission(email, externalJobId) {
      const receipt = (await sandboxReceipts({ id: companyId })).find((r) => r.candidate.email === email)!;
      expect(receipt).toMatchObject({
        job_external_id: externalJobId,
        candidate: { email, first_name: 'Grace', last_name: 'Hopper', phone: '+49 30 1234' },
        screening_answers: [{ id: '123', question: 'Why us?', answer_type: 'text', answer: 'Because.' }],
      });
      expect(receipt.attachments.map((a) => [a.type, a.name, a.size])).toEqual([
        ['cv', 'cv.pdf', PDF.length],
        ['cover_letter', 'cover.pdf', COVER.length],
      ]);
    },
    checkRateLimited() {},
    rawId: (key) => ({ key }),
  };
}

function personioDriver(): Driver {
  const account = personioAccount('acme-contract');
  personio.accounts.set(account.subdomain, account);
  const ids = { a: '1001', b: '1002', c: '1003' };
  const token = account.token;
  return {
    ats: 'personio',
    ids,
    credentials: { subdomain: account.subdomain, personio_company_id: account.companyId, token },
    async publish(jobs) {
      account.feedOverride = undefined;
      account.positions = jobs.map((j) => ({
        id: ids[j.key],
        name: j.title,
        office: 'Berlin',
        department: 'Engineering',
        employmentType: 'permanent',
        seniority: 'experienced',
        schedule: 'full-time',
        occupationCategory: 'Software Development',
        descriptions: [
          { name: 'Your tasks', value: `<p>Build ${j.title}</p>` },
          { name: 'Your profile', value: '<ul><li>TypeScript</li></ul>' },
        ],
      }));
    },
    async breakFeed() {
      account.feedOverride = '<html><body>Maintenance</body>';
    },
    async rejectCredentials(on) {
      account.token = on ? 'rotated-token-123' : token;
    },
    async close(key) {
      account.unpublished.add(ids[key]);
    },
    async rateLimitOnce() {
      personio.rateLimitNext = 1;
      return 'grace.rate@example.com';
    },
    async duplicate(email) {
      account.applicants.add(email);
      return email;
    },
    duplicateOutcome: { sync_status: 'EXPECTED_FAILURE', failure_error: 'DuplicateApplicationError' },
    async checkSubmission(email, externalJobId) {
      const documents = personio
        .requestsTo(/\/applications\/documents$/)
        .filter((r) => r.status === 200)
        .slice(-2);
      for (const request of documents) {
        expect(request.headers.authorization).toBe(`Bearer ${token}`);
        expect(request.headers['x-company-id']).toBe(account.companyId);
        expect(request.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
      }
      expect(documents.map((r) => [r.files[0].field, r.files[0].filename, r.files[0].contentType, r.files[0].bytes])).toEqual([
        ['file', 'cv.pdf', 'application/pdf', PDF],
        ['file', 'cover.pdf', 'application/pdf', COVER],
      ]);
      const request = personio
        .requestsTo(/\/v1\/recruiting\/applications$/)
        .filter((r) => r.status === 201)
        .pop()!;
      expect(request.headers.authorization).toBe(`Bearer ${token}`);
      expect(request.headers['x-company-id']).toBe(account.companyId);
      expect(request.headers['content-type']).toBe('application/json');
      const application = personio.applications.find((a) => a.body.email === email)!;
      expect(request.json).toEqual({
        first_name: 'Grace',
        last_name: 'Hopper',
        email,
        job_position_id: Number(externalJobId),
        attributes: [{ id: 'phone', value: '+49 30 1234' }],
        files: [
          { uuid: application.documents[0].uuid, original_filename: 'cv.pdf', category: 'cv' },
          { uuid: application.documents[1].uuid, original_filename: 'cover.pdf', category: 'cover-letter' },
        ],
      });
    },
    checkRateLimited() {
      const statuses = personio.server.requests.filter((r) => r.method === 'POST').map((r) => r.status);
      expect(statuses.slice(-4)).toEqual([429, 200, 200, 201]);
    },
    rawId: (key) => ({ id: ids[key] }),
  };
}

function greenhouseDriver(): Driver {
  const board: GreenhouseBoard = { token: 'acmecontract', apiKey: 'gh-key-contract-1', jobs: [] };
  greenhouse.boards.set(board.token, board);
  const ids = { a: '2001', b: '2002', c: '2003' };
  const apiKey = board.apiKey;
  return {
    ats: 'greenhouse',
    ids,
    credentials: { board_token: board.token, api_key: apiKey },
    async publish(jobs) {
      board.listOverride = undefined;
      board.jobs = jobs.map((j) => ({
        id: Number(ids[j.key]),
        title: j.title,
        content: `<p>Build ${j.title} & more</p>`,
        location: 'Berlin, Germany',
        departments: ['Engineering'],
        questions: [
          { required: true, label: 'First Name', fields: [{ name: 'first_name', type: 'input_text' }] },
          { required: true, label: 'Resume/CV', fields: [{ name: 'resume', type: 'input_file' }] },
          { required: false, label: 'Why us?', fields: [{ name: 'question_123', type: 'textarea' }] },
        ],
        pay: { min_cents: 6000000, max_cents: 8000000, currency_type: 'EUR', title: 'Berlin range' },
      }));
    },
    async breakFeed() {
      board.listOverride = '{"jobs": "not a list"}';
    },
    async rejectCredentials(on) {
      board.apiKey = on ? 'gh-key-rotated-2' : apiKey;
    },
    async close(key) {
      board.jobs.find((j) => j.id === Number(ids[key]))!.live = false;
    },
    async rateLimitOnce() {
      greenhouse.rateLimitNext = 1;
      return 'grace.rate@example.com';
    },
    async duplicate(email) {
      return email;
    },
    // Greenhouse documents no duplicate error: a second application of the same person is accepted.
    duplicateOutcome: { sync_status: 'SUCCESS', failure_error: null },
    async checkSubmission(email, externalJobId) {
      const request = greenhouse
        .requestsTo(new RegExp(`/jobs/${externalJobId}$`))
        .filter((r) => r.method === 'POST')
        .pop()!;
      expect(request.headers.authorization).toBe(`Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`);
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.json).toEqual({
        first_name: 'Grace',
        last_name: 'Hopper',
        email,
        phone: '+49 30 1234',
        resume_content: PDF.toString('base64'),
        resume_content_filename: 'cv.pdf',
        cover_letter_content: COVER.toString('base64'),
        cover_letter_content_filename: 'cover.pdf',
        question_123: 'Because.',
      });
      expect(request.status).toBe(200);
    },
    checkRateLimited() {
      const statuses = greenhouse.server.requests.filter((r) => r.method === 'POST').map((r) => r.status);
      expect(statuses.slice(-2)).toEqual([429, 200]);
    },
    rawId: (key) => ({ id: Number(ids[key]) }),
  };
}

function leverDriver(): Driver {
  const site: LeverSite = { site: 'acme-contract', apiKey: 'lever-key-contract', postings: [] };
  lever.sites.set(site.site, site);
  const ids = { a: 'lever-a', b: 'lever-b', c: 'lever-c' };
  const apiKey = site.apiKey;
  return {
    ats: 'lever',
    ids,
    credentials: { site: site.site, api_key: apiKey },
    async publish(jobs) {
      site.listOverride = undefined;
      site.postings = jobs.map((j) => ({
        id: ids[j.key],
        text: j.title,
        description: `Build ${j.title}`,
        commitment: 'Full-time',
        team: 'Software Engineering',
      }));
    },
    async breakFeed() {
      site.listOverride = '{"postings": []}';
    },
    async rejectCredentials(on) {
      site.apiKey = on ? 'lever-key-rotated' : apiKey;
    },
    async close(key) {
      site.postings.find((p) => p.id === ids[key])!.open = false;
    },
    async rateLimitOnce() {
      lever.rateLimitNext = 1;
      return 'grace.rate@example.com';
    },
    async duplicate(email) {
      return email;
    },
    // Lever merges candidates by e-mail: it has no duplicate error.
    duplicateOutcome: { sync_status: 'SUCCESS', failure_error: null },
    async checkSubmission(email, externalJobId) {
      const request = lever
        .requestsTo(new RegExp(`/postings/acme-contract/${externalJobId}$`))
        .filter((r) => r.status === 200)
        .pop()!;
      expect(request.query.get('key')).toBe(apiKey);
      expect(request.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
      expect(request.fields).toEqual({
        name: ['Grace Hopper'],
        email: [email],
        phone: ['+49 30 1234'],
        comments: ['Why us?: Because.'],
      });
      expect(request.files.map((f) => [f.field, f.filename, f.contentType, f.bytes])).toEqual([
        ['resume', 'cv.pdf', 'application/pdf', PDF],
      ]);
    },
    checkRateLimited() {
      // The connector retried the 429 itself, within the same attempt.
      expect(lever.postStatuses.slice(-2)).toEqual([429, 200]);
    },
    rawId: (key) => ({ id: ids[key] }),
  };
}

beforeAll(async () => {
  [api, personio, greenhouse, lever] = await Promise.all([
    startTestRuntime(),
    startPersonioSimulator(),
    startGreenhouseSimulator(),
    startLeverSimulator(),
  ]);
  Object.assign(process.env, personio.env, greenhouse.env, lever.env);
  partner = await aPartner();
});
afterAll(async () => {
  await Promise.all([api.stop(), personio.server.stop(), greenhouse.server.stop(), lever.server.stop()]);
});

const drivers: [string, (companyId: number) => Driver][] = [
  ['sandbox', sandboxDriver],
  ['personio', () => personioDriver()],
  ['greenhouse', () => greenhouseDriver()],
  ['lever', () => leverDriver()],
];

describe.each(drivers)('%s connector', (ats, makeDriver) => {
  let companyId: number;
  let driver: Driver;
  const jobs: Partial<Record<Key, JobRecord>> = {};

  // The job as the interface shows it: its run_id resolved (P192: an unchanged job is not written again).
  const job = async (key: Key) => (await resolveRunIds(companyId, [(await findJobByExternalId(companyId, driver.ids[key]))!]))[0];
  const status = async () => (await getCompanyRecord(companyId))!.status;

  async function apply(key: Key, email: string) {
    const created = await api.request('POST', '/applications/', {
      key: partner.key,
      companyId,
      body: {
        job: (await job(key)).id,
        candidate: { email, first_name: 'Grace', last_name: 'Hopper', phone: '+49 30 1234' },
        screening_questions: [{ id: '123', question: 'Why us?', answer_type: 'text', answer: 'Because.' }],
        attachments: [
          { type: 'cv', name: 'cv.pdf', content_type: 'application/pdf', data: PDF.toString('base64') },
          { type: 'cover_letter', name: 'cover.pdf', content_type: 'application/pdf', data: COVER.toString('base64') },
        ],
      },
    });
    expect(created.status).toBe(201);
    await api.runtime.poller.drain(30_000);
    return (await api.get(`/applications/${created.body.id}`, { key: partner.key, companyId })).body;
  }

  beforeAll(async () => {
    const company = await createCompany({
      partner: partner.id,
      name: `Contract ${ats}`,
      ats,
      entitlements: ['job_sync', 'candidate_sync'],
    });
    await createApiKey({ company: company.id });
    companyId = company.id;
    driver = makeDriver(companyId);
    await driver.publish([
      { key: 'a', title: 'Backend Engineer' },
      { key: 'b', title: 'Data Analyst' },
    ]);
    const connected = await connectCompany(companyId, ats, driver.credentials);
    expect(connected).toMatchObject({ ats, status: 'active', job_sync_active: true, candidate_sync_active: true });
  });

  test('import: creates the published jobs with import_source api and the untouched source record', async () => {
    const result = await runJobImport(companyId);
    expect(result).toEqual({ run_id: expect.any(String), created: 2, updated: 0, unchanged: 0, archived: 0 });
    jobs.a = await job('a');
    jobs.b = await job('b');
    expect(jobs.a).toMatchObject({ title: 'Backend Engineer', status: 'active', import_source: 'api', run_id: result.run_id });
    expect(jobs.a.raw_values).toMatchObject(driver.rawId('a') as object);
    expect((await getCompanyRecord(companyId))!.jobs_last_synced_at).toEqual(expect.any(String));
  });

  test('import: a changed posting is updated (fingerprint and last_content_update_at move), the other is unchanged', async () => {
    await new Promise((r) => setTimeout(r, 5));
    await driver.publish([
      { key: 'a', title: 'Backend Engineer' },
      { key: 'b', title: 'Senior Data Analyst' },
    ]);
    const result = await runJobImport(companyId);
    expect(result).toMatchObject({ created: 0, updated: 1, unchanged: 1, archived: 0 });
    const b = await job('b');
    expect(b.title).toBe('Senior Data Analyst');
    expect(b.fingerprint).not.toBe(jobs.b!.fingerprint);
    expect(b.last_content_update_at > jobs.b!.last_content_update_at).toBe(true);
    const a = await job('a');
    expect(a.fingerprint).toBe(jobs.a!.fingerprint);
    expect(a.last_content_update_at).toBe(jobs.a!.last_content_update_at);
    expect(a.run_id).toBe(result.run_id);
  });

  test('import: the same feed again leaves every job unchanged', async () => {
    expect(await runJobImport(companyId)).toMatchObject({ created: 0, updated: 0, unchanged: 2, archived: 0 });
  });

  test('import: a job gone from the feed is archived', async () => {
    await driver.publish([
      { key: 'a', title: 'Backend Engineer' },
      { key: 'c', title: 'Office Manager' },
    ]);
    expect(await runJobImport(companyId)).toMatchObject({ created: 1, updated: 0, unchanged: 1, archived: 1 });
    expect((await job('b')).status).toBe('archived');
    expect((await job('c')).status).toBe('active');
  });

  test('import: a malformed feed fails the run and changes no job; 3 failed runs turn the company failing; a success turns it active', async () => {
    const before = await Promise.all((['a', 'b', 'c'] as Key[]).map(job));
    await driver.breakFeed();
    for (const [run, expected] of [
      [1, 'active'],
      [2, 'active'],
      [3, 'failing'],
    ] as const) {
      await expect(runJobImport(companyId)).rejects.toMatchObject({ code: 'job_import_invalid_feed', failures: run });
      expect(await status()).toBe(expected);
    }
    expect(await Promise.all((['a', 'b', 'c'] as Key[]).map(job))).toEqual(before);
    await driver.publish([
      { key: 'a', title: 'Backend Engineer' },
      { key: 'c', title: 'Office Manager' },
    ]);
    expect(await runJobImport(companyId)).toMatchObject({ unchanged: 2 });
    expect(await getCompanyRecord(companyId)).toMatchObject({ status: 'active', job_import_failures: 0 });
  });

  test('submission: SUCCESS with exactly the request the ATS documents (headers, fields, file bytes)', async () => {
    const app = await apply('a', `grace.${ats}@example.com`);
    expect(app).toMatchObject({ sync_status: 'SUCCESS', failure_error: null });
    if (ats === 'lever' || ats === 'sandbox') expect(app.external_id).toEqual(expect.any(String));
    await driver.checkSubmission(`grace.${ats}@example.com`, driver.ids.a);
  });

  test('submission: a duplicate candidate', async () => {
    const email = await driver.duplicate(`known.${ats}@example.com`);
    expect(await apply('a', email)).toMatchObject(driver.duplicateOutcome);
  });

  test('submission: a job the ATS no longer publishes is EXPECTED_FAILURE with JobNotPublishedError', async () => {
    await driver.close('c');
    expect(await apply('c', `closed.${ats}@example.com`)).toMatchObject({
      sync_status: 'EXPECTED_FAILURE',
      failure_error: 'JobNotPublishedError',
    });
  });

  test('submission: rate limited, then SUCCESS', async () => {
    const email = await driver.rateLimitOnce();
    expect(await apply('a', email)).toMatchObject({ sync_status: 'SUCCESS', failure_error: null });
    driver.checkRateLimited();
  });

  test('submission: rejected credentials are FAILURE with CredentialsRejectedError and turn the company failing', async () => {
    await driver.rejectCredentials(true);
    try {
      expect(await apply('a', `rejected.${ats}@example.com`)).toMatchObject({
        sync_status: 'FAILURE',
        failure_error: 'CredentialsRejectedError',
      });
      expect(await status()).toBe('failing');
    } finally {
      await driver.rejectCredentials(false);
      await setCompanyStatus(companyId, 'active');
    }
  });
});
