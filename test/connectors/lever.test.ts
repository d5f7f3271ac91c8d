/**
 * Lever (issue 41, P281). First the simulator against Lever's own README, without our connector: its
 * documented requests and answers rebuilt from the fields the README lists
 * (https://github.com/lever/postings-api/blob/master/README.md). Then the files: Lever's apply endpoint takes
 * one file, `resume`; a second CV or any other file is `attachment_rejected` before anything is sent, and
 * end to end the application ends `FAILURE` with `AttachmentRejectedError` and goes by e-mail with every file.
 */
import { connectCompany } from '#delivery/ats-connections.js';
import { runJobImport } from '#delivery/job-import.js';
import { leverConnector } from '#delivery/connectors/lever.js';
import type { CompanyRecord } from '#companies/company-schema.js';
import { createCompany } from '#companies/company-store.js';
import { findJobByExternalId } from '#jobs/job-store.js';
import { applyAndDeliver, outboxWatch } from '../helpers/delivery.js';
import { aPartner } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { rejection, submissionFactory } from '../helpers/submissions.js';
import { startSimulatorServer, type SimulatorServer } from '../simulators/server.js';
import { LEVER_README_URLS, startLeverSimulator, type LeverSimulator } from '../simulators/lever.js';

process.env.SYNC_RETRY_BASE_SECONDS = '0';
process.env.SYNC_CLAIM_SECONDS = '1';

const PDF = Buffer.from('%PDF-1.5\nlever resume\n%%EOF');
const COVER = Buffer.from('%PDF-1.5\nlever cover letter\n%%EOF');

let api: TestRuntime;
let lever: LeverSimulator;
let echo: SimulatorServer;
let partner: Awaited<ReturnType<typeof aPartner>>;

beforeAll(async () => {
  [api, lever, echo] = await Promise.all([
    startTestRuntime(),
    startLeverSimulator(),
    // Answers every request as Lever's error shape, echoing what a candidate typed.
    startSimulatorServer(() => ({ status: 400, body: { ok: false, error: 'Invalid email ada.lovelace@example.com for Ada Lovelace' } })),
  ]);
  Object.assign(process.env, lever.env);
  partner = await aPartner();
  lever.sites.set('leverdemo', {
    site: 'leverdemo',
    apiKey: 'leverdemo-key-1',
    postings: ['5ac21346-8e0c-4494-8e7a-3eb92ff77902', 'b-2', 'c-3', 'd-4'].map((id) => ({ id, text: `Job ${id}`, description: 'x' })),
  });
});
afterAll(() => Promise.all([api.stop(), lever.server.stop(), echo.stop()]));

const base = () => `${lever.env.LEVER_API_URL}/v0/postings/leverdemo`;
const posting = '5ac21346-8e0c-4494-8e7a-3eb92ff77902';
const apply = (body: string | FormData, contentType?: string, key = 'leverdemo-key-1') =>
  fetch(`${base()}/${posting}?key=${key}`, { method: 'POST', body, ...(contentType ? { headers: { 'Content-Type': contentType } } : {}) });
/**
 * Waits until the last second (and a little) holds few enough POSTs that `room` more stay within the documented
 * 2-per-second limit: the replays must not meet it unless they test it.
 */
async function settle(room = 1): Promise<void> {
  while (lever.postTimes.filter((at) => Date.now() - at < 1100).length > 2 - room) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('the simulator replays Lever README examples', () => {
  // LEVER_README_URLS.list: each posting has these fields in JSON mode (salaryRange and its descriptions optional).
  const POSTING_FIELDS = [
    'id',
    'text',
    'categories',
    'country',
    'opening',
    'openingPlain',
    'description',
    'descriptionPlain',
    'descriptionBody',
    'descriptionBodyPlain',
    'lists',
    'additional',
    'additionalPlain',
    'hostedUrl',
    'applyUrl',
    'workplaceType',
    'salaryRange',
    'salaryDescription',
    'salaryDescriptionPlain',
  ];

  test('GET /v0/postings/leverdemo?skip=1&limit=3&mode=json: a JSON array of documented postings', async () => {
    const response = await fetch(`${base()}?skip=1&limit=3&mode=json`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>[];
    expect(body.map((p) => p.id)).toEqual(['b-2', 'c-3', 'd-4']);
    for (const p of body) {
      expect(Object.keys(p).filter((k) => !POSTING_FIELDS.includes(k))).toEqual([]);
      expect(Object.keys(p.categories as object).sort()).toEqual(['allLocations', 'commitment', 'department', 'location', 'team']);
    }
  });

  test('the output mode: Accept: application/json gives JSON, no mode gives HTML, and ?mode wins over Accept', async () => {
    const json = await fetch(base(), { headers: { Accept: 'application/json' } });
    expect(Array.isArray(await json.json())).toBe(true);
    const html = await fetch(base());
    expect(await html.text()).toMatch(/^<div class='lever'><ul>/);
    const modeWins = await fetch(`${base()}?mode=html`, { headers: { Accept: 'application/json' } });
    expect(await modeWins.text()).toMatch(/^<div class='lever'>/);
  });

  test('GET /v0/postings/leverdemo/{id} (LEVER_README_URLS.posting): the one posting; an unknown id or path is a 404', async () => {
    const response = await fetch(`${base()}/${posting}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: posting, hostedUrl: `https://jobs.lever.co/leverdemo/${posting}` });
    for (const path of [`${base()}/nope`, `${lever.env.LEVER_API_URL}/v1/postings/leverdemo`, `${base()}/${posting}/apply`]) {
      const missing = await fetch(path);
      expect([missing.status, await missing.json()]).toEqual([404, { ok: false, error: expect.any(String) }]);
    }
  });

  test('POST in JSON with every documented field (LEVER_README_URLS.apply): 200 {ok: true, applicationId}', async () => {
    await settle();
    const response = await apply(
      JSON.stringify({
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        phone: '+44 20 1234',
        org: 'Analytical Engines',
        urls: { GitHub: 'https://github.com/' },
        comments: 'Hello',
        silent: 'true',
        source: 'LinkedIn',
        ip: '184.23.195.146',
        timezone: 'America/New_York',
        consent: { marketing: true, store: { provided: true, compliancePolicyId: 'policy-1' } },
      }),
      'application/json',
    );
    expect([response.status, await response.json()]).toEqual([200, { ok: true, applicationId: expect.any(String) }]);
    expect(lever.applications.at(-1)).toMatchObject({ ignored: [], fields: { 'urls[GitHub]': ['https://github.com/'] } });
  });

  test('POST in multipart with the resume file: 200, the file kept', async () => {
    await settle();
    const form = new FormData();
    form.append('name', 'Ada Lovelace');
    form.append('email', 'ada@example.com');
    form.append('urls[GitHub]', 'https://github.com/');
    form.append('consent[marketing]', 'true');
    form.append('resume', new Blob([PDF], { type: 'application/pdf' }), 'cv.pdf');
    const response = await apply(form);
    expect([response.status, await response.json()]).toEqual([200, { ok: true, applicationId: expect.any(String) }]);
    expect(lever.applications.at(-1)).toMatchObject({ ignored: [], resume: { filename: 'cv.pdf', bytes: PDF } });
  });

  test.each([
    ['no email', { name: 'Ada' }, 'application/json'],
    ['no name', { email: 'ada@example.com' }, 'application/json'],
    ['an e-mail without "@"', { name: 'Ada', email: 'ada.example.com' }, 'application/json'],
    ['a resume in JSON mode', { name: 'Ada', email: 'ada@example.com', resume: 'JVBERi0=' }, 'application/json'],
    ['silent neither true nor false', { name: 'Ada', email: 'ada@example.com', silent: 'yes' }, 'application/json'],
  ])('POST with %s: 400 {ok: false, error}', async (_name, body, type) => {
    await settle();
    const response = await apply(JSON.stringify(body), type);
    expect([response.status, await response.json()]).toEqual([400, { ok: false, error: expect.any(String) }]);
  });

  test('a wrong key and an unsupported Content-Type are refused with {ok: false, error}', async () => {
    await settle();
    const wrongKey = await apply(JSON.stringify({ name: 'Ada', email: 'ada@example.com' }), 'application/json', 'wrong-key');
    expect([wrongKey.status, await wrongKey.json()]).toEqual([401, { ok: false, error: expect.any(String) }]);
    const plain = await apply('name=Ada', 'text/plain');
    expect([plain.status, await plain.json()]).toEqual([415, { ok: false, error: expect.any(String) }]);
  });

  test('the old shape (a cover letter file part, a second resume) is not documented: taken, and those files are left out', async () => {
    await settle();
    const form = new FormData();
    form.append('name', 'Ada Lovelace');
    form.append('email', 'ada@example.com');
    form.append('resume', new Blob([PDF], { type: 'application/pdf' }), 'cv.pdf');
    form.append('resume', new Blob([PDF], { type: 'application/pdf' }), 'cv2.pdf');
    form.append('cover_letter', new Blob([COVER], { type: 'application/pdf' }), 'cover.pdf');
    form.append('linkedin', 'https://linkedin.com/in/ada');
    const response = await apply(form);
    expect(response.status).toBe(200);
    expect(lever.applications.at(-1)!.ignored.sort()).toEqual(['file:cover_letter', 'file:resume', 'linkedin']);
    expect(lever.applications.at(-1)!.resume!.filename).toBe('cv.pdf');
  });

  test(`more than 2 application POSTs per second: 429 (${LEVER_README_URLS.rateLimit})`, async () => {
    await settle(2);
    const body = JSON.stringify({ name: 'Ada', email: 'ada@example.com' });
    const statuses = await Promise.all([1, 2, 3].map(() => apply(body, 'application/json').then((r) => r.status)));
    expect(statuses.sort()).toEqual([200, 200, 429]);
  });
});

describe('the connector: every file Lever takes, and a clear refusal of the rest (P281)', () => {
  const company = { id: 1, ats: 'lever' } as CompanyRecord;
  const submission = submissionFactory({
    company,
    pdf: PDF,
    jobExternalId: posting,
    candidate: { email: 'ada@example.com', full_name: 'Ada Lovelace' },
  });
  const credentials = { site: 'leverdemo', api_key: 'leverdemo-key-1' };

  test.each([
    ['a cover letter', [{ name: 'cv.pdf' }, { name: 'cover.pdf', type: 'cover_letter' }], /no field for the cover_letter file/],
    ['a certificate alone', [{ name: 'cert.pdf', type: 'certificate' }], /no field for the certificate file/],
    ['two CVs', [{ name: 'cv.pdf' }, { name: 'cv2.pdf' }], /one résumé .* has 2 CVs/],
  ])('%s: attachment_rejected, and no request reaches Lever', async (_name, files, message) => {
    const before = lever.server.requests.length;
    const error = await rejection(leverConnector.submitApplication(submission({}, files), credentials));
    expect(error).toMatchObject({ kind: 'attachment_rejected', name: 'AttachmentRejectedError', message: expect.stringMatching(message) });
    expect(error.message).not.toMatch(/cv2?\.pdf|cover\.pdf|cert\.pdf/);
    expect(lever.server.requests.length).toBe(before);
  });

  test('one CV goes as the resume file, nothing undocumented is sent', async () => {
    await settle();
    const result = await leverConnector.submitApplication(
      submission({ socialLinks: { GitHub: 'https://github.com/ada' }, source: 'jobboard' }, [{ name: 'cv.pdf' }]),
      credentials,
    );
    const application = lever.applications.at(-1)!;
    expect(result.externalId).toBe(application.applicationId);
    expect(application).toMatchObject({ ignored: [], resume: { filename: 'cv.pdf', contentType: 'application/pdf', bytes: PDF } });
    expect(application.fields).toEqual({
      name: ['Ada Lovelace'],
      email: ['ada@example.com'],
      'urls[GitHub]': ['https://github.com/ada'],
      source: ['jobboard'],
    });
  });

  test("Lever's error text never reaches the message (it can echo the candidate); the documented field it names does", async () => {
    process.env.LEVER_API_URL = `${echo.url}/lever`;
    try {
      const error = await rejection(leverConnector.submitApplication(submission(), credentials));
      expect(error).toMatchObject({ kind: 'invalid_data', message: expect.stringContaining('`email`') });
      expect(error.message).not.toMatch(/ada|lovelace|example\.com|leverdemo-key/i);
    } finally {
      process.env.LEVER_API_URL = lever.env.LEVER_API_URL;
    }
  });
});

describe('end to end: a file Lever has no field for ends FAILURE and goes by e-mail (P210, P281)', () => {
  async function applyWithCover(site: string, entitlements: string[]) {
    lever.sites.set(site, { site, apiKey: `${site}-key-1`, postings: [{ id: 'e2e-1', text: 'Designer', description: 'Design' }] });
    const created = await createCompany({
      partner: partner.id,
      name: `Lever ${site}`,
      ats: 'lever',
      entitlements,
      contact_email: `hr@${site}.example`,
    });
    await connectCompany(created.id, 'lever', { site, api_key: `${site}-key-1` });
    await runJobImport(created.id);
    return applyAndDeliver(api, partner.key, created.id, {
      job: (await findJobByExternalId(created.id, 'e2e-1'))!.id,
      candidate: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace' },
      attachments: [
        { type: 'cv', name: 'cv.pdf', content_type: 'application/pdf', data: PDF.toString('base64') },
        { type: 'cover_letter', name: 'cover.pdf', content_type: 'application/pdf', data: COVER.toString('base64') },
      ],
    });
  }

  test('with the e-mail fallback: FAILURE AttachmentRejectedError, nothing POSTed to Lever, the e-mail carries both files', async () => {
    const outbox = outboxWatch(api);
    const app = await applyWithCover('leverfilesmail', ['job_sync', 'candidate_sync', 'email_fallback']);
    expect(app).toMatchObject({ sync_status: 'FAILURE', failure_error: 'AttachmentRejectedError', email_sync_status: 'SUCCESS' });
    expect(lever.requestsTo(/^\/lever\/v0\/postings\/leverfilesmail\//).filter((r) => r.method === 'POST')).toHaveLength(0);
    const sent = outbox.sent();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain(PDF.toString('base64'));
    expect(sent[0]).toContain(COVER.toString('base64'));
  });

  test('without it: FAILURE AttachmentRejectedError, e-mail NOTSENT, both files kept', async () => {
    const app = await applyWithCover('leverfilesonly', ['job_sync', 'candidate_sync']);
    expect(app).toMatchObject({ sync_status: 'FAILURE', failure_error: 'AttachmentRejectedError', email_sync_status: 'NOTSENT' });
    expect(app.attachments).toHaveLength(2);
  });
});
