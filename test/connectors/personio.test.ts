/**
 * Personio (issue 41, P282). First the simulator against Personio's own OpenAPI, without our connector: its
 * documented requests and answers rebuilt from the fields it lists
 * (https://github.com/personio/api-docs/blob/master/personio-recruiting-api.yaml). Then the connector: every
 * field and every document category it sends, and a file type Personio does not list, refused before any
 * upload and, end to end, delivered by the e-mail fallback with every file.
 */
import { connectCompany } from '#delivery/ats-connections.js';
import { runJobImport } from '#delivery/job-import.js';
import { personioConnector } from '#delivery/connectors/personio.js';
import type { CompanyRecord } from '#companies/company-schema.js';
import { createCompany } from '#companies/company-store.js';
import { findJobByExternalId } from '#jobs/job-store.js';
import { applyAndDeliver, outboxWatch } from '../helpers/delivery.js';
import { aPartner } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { rejection, submissionFactory } from '../helpers/submissions.js';
import { OPENAPI, personioAccount, startPersonioSimulator, type PersonioSimulator } from '../simulators/personio.js';
import { withoutPacing } from '../simulators/server.js';

withoutPacing();

process.env.SYNC_RETRY_BASE_SECONDS = '0';
process.env.SYNC_CLAIM_SECONDS = '1';

const PDF = Buffer.from('%PDF-1.5\npersonio cv\n%%EOF');
const WEBP = Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 a photo', 'latin1');

let api: TestRuntime;
let personio: PersonioSimulator;
let partner: Awaited<ReturnType<typeof aPartner>>;

beforeAll(async () => {
  [api, personio] = await Promise.all([startTestRuntime(), startPersonioSimulator()]);
  Object.assign(process.env, personio.env);
  // This file's calls for company 4711 go past Personio's 20 a minute (its OpenAPI replay calls the simulator
  // directly, beside the connector); the limit itself is the P363 describe's, which puts it back.
  personio.companyRate = { limit: 10_000, windowMs: 60_000 };
  partner = await aPartner();
  personio.accounts.set(
    'personio',
    personioAccount('personio', {
      positions: [{ id: '4103', name: 'Office- und Feelgood Manager (m/w)' }],
      customAttributes: ['custom_attribute_123'],
    }),
  );
});
afterAll(() => Promise.all([api.stop(), personio.server.stop()]));

const API = () => personio.env.PERSONIO_API_URL;
const auth = { Authorization: 'Bearer papi-personio-token', 'X-Company-ID': '4711' };
const postJson = (body: unknown, headers: Record<string, string> = auth) =>
  fetch(`${API()}/v1/recruiting/applications`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
const upload = (bytes: Buffer, name: string, field = 'file') => {
  const form = new FormData();
  form.append(field, new Blob([bytes], { type: 'application/pdf' }), name);
  return fetch(`${API()}/v1/recruiting/applications/documents`, { method: 'POST', headers: auth, body: form });
};
const fieldError = (field: string, reason: string) => ({ errors: [{ field, errors: [{ reason, context: {} }] }] });

describe(`the simulator replays Personio's OpenAPI (${OPENAPI})`, () => {
  test('GET /xml?language=en: the workzag-jobs document; without the required language it is refused; an unknown company is a 404', async () => {
    const feed = `${personio.server.url}/personio-feed/personio/xml`;
    const ok = await fetch(`${feed}?language=en`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toMatch(/<workzag-jobs>\s*<position>\s*<id>4103<\/id>/);
    expect((await fetch(feed)).status).toBe(400);
    expect((await fetch(`${feed}?language=xx`)).status).toBe(400);
    expect((await fetch(`${personio.server.url}/personio-feed/nobody/xml?language=en`)).status).toBe(404);
  });

  test('POST /v1/recruiting/applications/documents: 200 uploaded_document {uuid, size, mimetype, original_filename, extension}', async () => {
    const response = await upload(PDF, 'cv.pdf');
    expect([response.status, await response.json()]).toEqual([
      200,
      {
        uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
        size: PDF.length,
        mimetype: 'application/pdf',
        original_filename: 'cv.pdf',
        extension: 'pdf',
      },
    ]);
  });

  test('documents: a type not listed is 422 errors.invalid-file-type, over 20 MB is 413 errors.file-too-big, no `file` part is 422', async () => {
    const webp = await upload(WEBP, 'photo.webp');
    expect([webp.status, await webp.json()]).toEqual([422, fieldError('file', 'errors.invalid-file-type')]);
    const big = await upload(Buffer.alloc(20 * 1024 * 1024 + 1), 'big.pdf');
    expect([big.status, await big.json()]).toEqual([413, fieldError('file', 'errors.file-too-big')]);
    const misnamed = await upload(PDF, 'cv.pdf', 'document');
    expect(misnamed.status).toBe(422);
  });

  test('POST /v1/recruiting/applications with every documented property: 201, no body', async () => {
    const uploaded = (await (await upload(PDF, 'cv.pdf')).json()) as { uuid: string };
    const response = await postJson({
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada.replay@example.com',
      job_position_id: 4103,
      recruiting_channel_id: 1,
      external_posting_id: 'ext-1',
      message: 'Hello',
      application_date: '2026-01-02',
      phase: { type: 'system', id: 'unassigned' },
      tags: ['api'],
      files: [{ uuid: uploaded.uuid, original_filename: 'cv.pdf', category: 'cv' }],
      attributes: [
        { id: 'phone', value: '+49 30 1234' },
        { id: 'birthday', value: '1815-12-10' },
        { id: 'gender', value: 'female' },
        { id: 'custom_attribute_123', value: 'x' },
      ],
    });
    expect([response.status, await response.text()]).toEqual([201, '']);
    expect(personio.applications.at(-1)).toMatchObject({ ignored: [], documents: [{ uuid: uploaded.uuid, bytes: PDF }] });
  });

  const valid = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada.bad@example.com', job_position_id: 4103 };
  test.each([
    ['a blank first name', { ...valid, first_name: '  ' }, 'first_name', 'errors.attribute-validation.required-attribute'],
    ['an invalid e-mail', { ...valid, email: 'ada' }, 'email', 'errors.attribute-validation.invalid-email-format'],
    [
      'a job position id as a string (the old shape)',
      { ...valid, job_position_id: 'abc' },
      'job_position_id',
      'errors.attribute-validation.invalid-type',
    ],
    ['an unknown position', { ...valid, job_position_id: 1 }, 'job_position_id', 'errors.posting-validation.posting-not-found'],
    [
      'an application date in the future',
      { ...valid, application_date: '2999-01-01' },
      'application_date',
      'errors.date-validation.date-in-the-future',
    ],
    ['an unknown attribute', { ...valid, attributes: [{ id: 'linkedin', value: 'x' }] }, 'linkedin', 'errors.attribute-validation.unknown'],
    [
      'a gender not in the options',
      { ...valid, attributes: [{ id: 'gender', value: 'not_specified' }] },
      'gender',
      'errors.attribute-validation.unknown-attribute-option',
    ],
    [
      'a category not in the enum (photo)',
      { ...valid, files: [{ uuid: 'u', original_filename: 'p.png', category: 'photo' }] },
      'files',
      'errors.file-validation.unknown-file-category',
    ],
    [
      'a file reference without original_filename',
      { ...valid, files: [{ uuid: 'u', category: 'cv' }] },
      'files',
      'errors.attribute-validation.required-attribute',
    ],
    [
      'an unknown document uuid',
      { ...valid, files: [{ uuid: 'nope', original_filename: 'cv.pdf', category: 'cv' }] },
      'files',
      'errors.file-validation.file-not-exists',
    ],
  ])('%s: 400 error_response', async (_name, body, field, reason) => {
    const response = await postJson(body);
    expect([response.status, await response.json()]).toEqual([400, fieldError(field, reason)]);
  });

  test('an unpublished position is errors.job-position.not-published; a known applicant errors.applicant-already-exists', async () => {
    const account = personio.accounts.get('personio')!;
    account.unpublished.add('4103');
    const closed = await postJson(valid);
    account.unpublished.delete('4103');
    expect([closed.status, await closed.json()]).toEqual([400, fieldError('job_position_id', 'errors.job-position.not-published')]);
    expect((await postJson({ ...valid, email: 'twice@example.com' })).status).toBe(201);
    const again = await postJson({ ...valid, email: 'twice@example.com' });
    expect([again.status, await again.json()]).toEqual([400, fieldError('email', 'errors.applicant-already-exists')]);
  });

  test('auth: without X-Company-ID or with a wrong token 401; a company without the API 403 feature.public-api.disabled; other paths 404', async () => {
    expect((await postJson(valid, { Authorization: auth.Authorization })).status).toBe(401);
    expect((await postJson(valid, { ...auth, Authorization: 'Bearer wrong' })).status).toBe(401);
    const account = personio.accounts.get('personio')!;
    account.apiDisabled = true;
    const disabled = await postJson(valid);
    account.apiDisabled = false;
    expect([disabled.status, await disabled.json()]).toEqual([403, fieldError('company', 'feature.public-api.disabled')]);
    const old = await fetch(`${API()}/recruiting/applicant`, { method: 'POST', headers: auth });
    expect(old.status).toBe(404);
    expect((await fetch(`${API()}/v1/recruiting/applications`, { headers: auth })).status).toBe(404);
  });
});

const company = { id: 1, ats: 'personio' } as CompanyRecord;
/** An application to position 4103 of company 1, as the connector tests below send it. */
const submission = submissionFactory({
  company,
  pdf: PDF,
  jobExternalId: '4103',
  candidate: { email: 'ada.connector@example.com', first_name: 'Ada', last_name: 'Lovelace' },
});

describe('the connector: every field and file category Personio documents (P282)', () => {
  const credentials = { subdomain: 'personio', personio_company_id: '4711', token: 'papi-personio-token' };

  test('every one of our attachment types goes with its documented category; the candidate attributes and the message go too', async () => {
    const types = ['cv', 'cv', 'cover_letter', 'certificate', 'work_sample', 'photo', 'other'];
    await personioConnector.submitApplication(
      submission(
        {
          candidate: {
            email: 'ada.all@example.com',
            full_name: 'Ada King Lovelace',
            phone: '+44 20 1234',
            birthdate: '1815-12-10',
            gender: 'not_specified',
            location: { city: 'London', country: 'United Kingdom', postcode: 'W1' },
          },
          screeningAnswers: [{ id: 'q1', question: 'Notice period?', answer: '1 month' }],
          notes: 'Looking forward.',
          appliedAt: '2026-03-04T23:30:00.000Z',
        },
        types.map((type, i) => ({ name: `file-${i}.${type === 'photo' ? 'png' : 'pdf'}`, type })),
      ),
      credentials,
    );
    const application = personio.applications.at(-1)!;
    expect(application.ignored).toEqual([]);
    expect(application.body).toEqual({
      first_name: 'Ada King',
      last_name: 'Lovelace',
      email: 'ada.all@example.com',
      job_position_id: 4103,
      message: 'Notice period?: 1 month\nLooking forward.',
      application_date: '2026-03-04',
      attributes: [
        { id: 'phone', value: '+44 20 1234' },
        { id: 'birthday', value: '1815-12-10' },
        { id: 'gender', value: 'undefined' },
        { id: 'location', value: 'W1 London, United Kingdom' },
      ],
      files: types.map((_type, i) => ({
        uuid: application.documents[i].uuid,
        original_filename: expect.stringMatching(`^file-${i}\\.`),
        category: expect.any(String),
      })),
    });
    expect((application.body.files as { category: string }[]).map((f) => f.category)).toEqual([
      'cv', 'cv', 'cover-letter', 'certificate', 'work-sample', 'other', 'other',
    ]); // prettier-ignore
    // The feed is read with the documented `language`, the connection's or German.
    await personioConnector.listPublishedJobs(company, { ...credentials, feed_language: 'en' });
    await personioConnector.listPublishedJobs(company, credentials);
    expect(
      personio
        .requestsTo(/\/personio\/xml$/)
        .slice(-2)
        .map((r) => r.query.get('language')),
    ).toEqual(['en', 'de']);
  });

  test('a file type Personio does not list: attachment_rejected before any document is uploaded', async () => {
    const before = personio.server.requests.length;
    const error = await rejection(
      personioConnector.submitApplication(
        submission({}, [{ name: 'cv.pdf' }, { name: 'me.webp', type: 'photo', content_type: 'image/webp' }]),
        credentials,
      ),
    );
    expect(error).toMatchObject({ kind: 'attachment_rejected', message: expect.stringContaining('the photo file is not one') });
    expect(error.message).not.toContain('me.webp');
    expect(personio.server.requests.length).toBe(before);
  });

  test("Personio's refusals: a file it cannot process is attachment_rejected; a disabled API credentials_rejected; an unpublished job job_not_published", async () => {
    const account = personio.accounts.get('personio')!;
    account.apiDisabled = true;
    await expect(personioConnector.submitApplication(submission(), credentials)).rejects.toMatchObject({ kind: 'credentials_rejected' });
    account.apiDisabled = false;
    account.unpublished.add('4103');
    await expect(
      personioConnector.submitApplication(submission({ candidate: { email: 'x1@example.com', full_name: 'X Y' } }), credentials),
    ).rejects.toMatchObject({
      kind: 'job_not_published',
    });
    account.unpublished.delete('4103');
    // A job id that cannot be a Personio position id is refused before anything is sent.
    const before = personio.server.requests.length;
    await expect(
      personioConnector.submitApplication(submission({ jobExternalId: 'abc' }, [{ name: 'cv.pdf' }]), credentials),
    ).rejects.toMatchObject({
      kind: 'invalid_data',
    });
    expect(personio.server.requests.length).toBe(before);
  });
});

describe('end to end: a file type Personio refuses ends FAILURE and goes by e-mail (P210, P282)', () => {
  test('FAILURE AttachmentRejectedError, nothing uploaded, the e-mail carries both files', async () => {
    personio.accounts.set('personiomail', personioAccount('personiomail', { positions: [{ id: '77', name: 'Designer' }] }));
    const entitlements = ['job_sync', 'candidate_sync', 'email_fallback'];
    const created = await createCompany({
      partner: partner.id,
      name: 'Personio mail',
      ats: 'personio',
      entitlements,
      contact_email: 'hr@personiomail.example',
    });
    await connectCompany(created.id, 'personio', {
      subdomain: 'personiomail',
      personio_company_id: '4711',
      token: 'papi-personiomail-token',
    });
    await runJobImport(created.id);
    const outbox = outboxWatch(api);
    const uploadsBefore = personio.requestsTo(/\/documents$/).length;
    const app = await applyAndDeliver(api, partner.key, created.id, {
      job: (await findJobByExternalId(created.id, '77'))!.id,
      candidate: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace' },
      attachments: [
        { type: 'cv', name: 'cv.pdf', content_type: 'application/pdf', data: PDF.toString('base64') },
        { type: 'photo', name: 'me.webp', content_type: 'image/webp', data: WEBP.toString('base64') },
      ],
    });
    expect(app).toMatchObject({ sync_status: 'FAILURE', failure_error: 'AttachmentRejectedError', email_sync_status: 'SUCCESS' });
    expect(personio.requestsTo(/\/documents$/)).toHaveLength(uploadsBefore);
    const sent = outbox.sent();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain(PDF.toString('base64'));
    expect(sent[0]).toContain(WEBP.toString('base64'));
  });
});

describe('P363: 20 requests in 60 seconds per company (https://developer.personio.de/reference/introduction-1)', () => {
  /** An application with a CV and a cover letter: three requests (two uploads and the POST). */
  const withTwoFiles = (email: string) =>
    submission({ candidate: { email, first_name: 'Ada', last_name: 'Lovelace' } }, [
      { name: 'cv.pdf' },
      { name: 'letter.pdf', type: 'cover_letter' },
    ]);
  const WINDOW_MS = 1500;
  const posts = (companyId: string) =>
    personio.server.requests.filter(
      (r) => r.method === 'POST' && r.path.includes('/v1/recruiting/') && r.headers['x-company-id'] === companyId,
    );
  afterEach(() => {
    delete process.env.PERSONIO_RATE_WINDOW_MS;
    personio.companyRate = { limit: 10_000, windowMs: 60_000 };
  });

  test('the simulator answers the 21st request of a company in the window with 429', async () => {
    personio.companyRate = { limit: 20, windowMs: 60_000 };
    personio.accounts.get('personio')!.companyId = '4714';
    try {
      const post = () =>
        fetch(`${API()}/v1/recruiting/applications`, {
          method: 'POST',
          headers: { ...auth, 'X-Company-ID': '4714', 'Content-Type': 'application/json' },
          body: '{}',
        });
      const statuses = [];
      for (let i = 0; i < 21; i++) statuses.push((await post()).status);
      expect(statuses.slice(0, 20).filter((s) => s === 429)).toEqual([]);
      expect(statuses[20]).toBe(429);
    } finally {
      personio.accounts.get('personio')!.companyId = '4711';
    }
  });

  test('seven applications with two files each (21 requests) leave within the limit: the seventh waits for the window', async () => {
    // The documented limit, in a window shortened for the test (the connector's and the simulator's alike).
    personio.companyRate = { limit: 20, windowMs: WINDOW_MS };
    process.env.PERSONIO_RATE_WINDOW_MS = String(WINDOW_MS);
    const credentials = { subdomain: 'personio', personio_company_id: '4712', token: 'papi-personio-token' };
    personio.accounts.get('personio')!.companyId = '4712';
    try {
      const started = Date.now();
      for (let i = 0; i < 7; i++) await personioConnector.submitApplication(withTwoFiles(`paced${i}@example.com`), credentials);
      // 21 requests, none refused, and the last three (the seventh application) only after the first ones left the window.
      expect(posts('4712')).toHaveLength(21);
      expect(Date.now() - started).toBeGreaterThanOrEqual(WINDOW_MS);
    } finally {
      personio.accounts.get('personio')!.companyId = '4711';
    }
  });

  test('a wait longer than 10 s is rate_limited before anything is sent; the worker tries again later', async () => {
    personio.companyRate = { limit: 20, windowMs: 60_000 };
    const credentials = { subdomain: 'personio', personio_company_id: '4713', token: 'papi-personio-token' };
    personio.accounts.get('personio')!.companyId = '4713';
    try {
      for (let i = 0; i < 6; i++) await personioConnector.submitApplication(withTwoFiles(`full${i}@example.com`), credentials);
      const sent = posts('4713').length;
      expect(sent).toBe(18);
      const error = await rejection(personioConnector.submitApplication(withTwoFiles('full6@example.com'), credentials));
      expect(error).toMatchObject({ kind: 'rate_limited' });
      expect(error.retryAfterSeconds).toBeGreaterThan(10);
      expect(posts('4713')).toHaveLength(sent);
    } finally {
      personio.accounts.get('personio')!.companyId = '4711';
    }
  });
});
