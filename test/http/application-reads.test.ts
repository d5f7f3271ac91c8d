import { importJobs } from '#jobs/job-store.js';
import { acceptClockHeader } from '../../local/http-adapter.js';
import { aCompany, aPartner } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';

let api: TestRuntime;
let partner: Awaited<ReturnType<typeof aPartner>>;
let agency: Awaited<ReturnType<typeof aPartner>>;
let company: Awaited<ReturnType<typeof aCompany>>;
let sibling: Awaited<ReturnType<typeof aCompany>>;
let agencyCompany: Awaited<ReturnType<typeof aCompany>>;
const job: Record<string, number> = {};
const app: Record<string, Record<string, any>> = {};

async function jobIdOf(companyId: number, externalId: string, key = partner.key): Promise<number> {
  return (await api.get(`/jobs?external_id=${externalId}`, { key, companyId })).body.results[0].id;
}

/** Creates an application; with `fakeNow`, that request's service clock starts there (`X-Fake-Now`, P183). */
async function create(name: string, companyId: number, key: string, body: Record<string, unknown>, fakeNow?: string) {
  const headers: Record<string, string> = fakeNow ? { 'X-Fake-Now': fakeNow } : {};
  const res = await api.request('POST', '/applications/', { key, companyId, body, headers });
  expect(res.status).toBe(201);
  app[name] = res.body;
}

const person = (email: string, extra: Record<string, unknown> = {}) => ({
  email,
  first_name: 'Given',
  last_name: 'Family',
  birthdate: '1991-01-02',
  language: 'de',
  nationality: 'DE',
  ...extra,
});
const pdf = { type: 'cv', name: 'cv.pdf', content_type: 'application/pdf', data: Buffer.from('%PDF-1.4 x').toString('base64') };

beforeAll(async () => {
  acceptClockHeader();
  api = await startTestRuntime();
  partner = await aPartner();
  agency = await aPartner('Agency', 'agency');
  company = await aCompany(partner.id, { entitlements: [] });
  sibling = await aCompany(partner.id, { entitlements: [] });
  agencyCompany = await aCompany(agency.id, { entitlements: [] });
  await importJobs(company.id, [
    { external_id: 'C-1', title: 'Cook' },
    { external_id: 'C-2', title: 'Waiter' },
  ]);
  await importJobs(sibling.id, [{ external_id: 'S-1', title: 'Sibling job' }]);
  await importJobs(agencyCompany.id, [{ external_id: 'A-1', title: 'Agency job' }]);
  job.c1 = await jobIdOf(company.id, 'C-1');
  job.c2 = await jobIdOf(company.id, 'C-2');
  job.s1 = await jobIdOf(sibling.id, 'S-1');
  job.a1 = await jobIdOf(agencyCompany.id, 'A-1', agency.key);

  await create(
    'old',
    company.id,
    partner.key,
    {
      job: job.c1,
      candidate: person('old@example.com'),
      notes: 'n',
      social_links: { x: 'https://x.example/o' },
      custom_fields: { k: 1 },
      screening_questions: [{ id: 'q', answer: 'a' }],
      attachments: [pdf],
      partner_application_id: 'PA-OLD',
    },
    '2026-01-01T00:00:00.000Z',
  );
  await create(
    'march',
    company.id,
    partner.key,
    {
      job: job.c1,
      candidate: person('march@example.com'),
      applied_at: '2026-03-15T00:00:00Z',
      channel: 'linkedin',
      partner_job_id: 'PJ-1',
    },
    '2026-03-20T00:00:00.000Z',
  );
  await create('recent1', company.id, company.key, {
    job: job.c2,
    candidate: person('Recent@Example.com'),
    partner_company_id: 'PC-9',
    agency_job_id: 'AJ-1',
    attachments: [pdf],
  });
  await create('recent2', company.id, partner.key, {
    job: job.c2,
    candidate: person('other@example.com'),
    channel: 'linkedin',
    partner_application_id: 'PA-2',
  });
  await create('sibling', sibling.id, partner.key, {
    job: job.s1,
    candidate: person('recent@example.com'),
    partner_application_id: 'PA-2',
  });
  await create('agency', agencyCompany.id, agency.key, { job: job.a1, candidate: person('agency@example.com') });
});
afterAll(async () => {
  acceptClockHeader(false);
  await api.stop();
});

const list = (query = '', companyId = company.id, key = partner.key) => api.get(`/applications/${query}`, { key, companyId });
const ids = (res: { body: { results: { id: number }[] } }) => res.body.results.map((a) => a.id);

describe('GET /applications/{id}', () => {
  test('the single read has the D9 shape: no birthdate/language/nationality, read-time job copies', async () => {
    const res = await api.get(`/applications/${app.recent1.id}`, { key: partner.key, companyId: company.id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(app.recent1);
    expect(res.body.candidate).not.toHaveProperty('birthdate');
    expect(res.body).toMatchObject({ job_title: 'Waiter', job_external_id: 'C-2', status: 'active' });
    expect((await api.get(`/applications/${app.recent1.id}/`, { key: company.key, companyId: company.id })).status).toBe(200);
  });

  test('read-time copies follow the job: a retitled job shows its new title', async () => {
    await importJobs(company.id, [
      { external_id: 'C-1', title: 'Head Cook' },
      { external_id: 'C-2', title: 'Waiter' },
    ]);
    const res = await api.get(`/applications/${app.march.id}`, { key: partner.key, companyId: company.id });
    expect(res.body.job_title).toBe('Head Cook');
  });

  test('an application of another company is 404; a company the key cannot act for is 403', async () => {
    expect((await api.get(`/applications/${app.sibling.id}`, { key: partner.key, companyId: company.id })).status).toBe(404);
    expect((await api.get(`/applications/${app.sibling.id}`, { key: company.key, companyId: sibling.id })).status).toBe(403);
    expect((await api.get(`/applications/${app.agency.id}`, { key: partner.key, companyId: agencyCompany.id })).status).toBe(403);
    expect((await api.get('/applications/999999', { key: partner.key, companyId: company.id })).status).toBe(404);
    // No positive integer: a 400 naming the parameter, as the document declares it (P214).
    for (const id of ['abc', '0'])
      expect((await api.get(`/applications/${id}`, { key: partner.key, companyId: company.id })).body.errors).toEqual({
        id: ['Must be a positive integer.'],
      });
  });

  test('an application older than 180 days is anonymized on the single read (D10)', async () => {
    const res = await api.get(`/applications/${app.old.id}`, { key: partner.key, companyId: company.id });
    expect(res.body.status).toBe('anonymized');
    for (const field of ['candidate', 'attachments', 'notes', 'social_links', 'screening_questions', 'custom_fields'])
      expect(res.body).not.toHaveProperty(field);
    expect(res.body).toMatchObject({ id: app.old.id, partner_application_id: 'PA-OLD', sync_status: 'NOTSENT', job: job.c1 });
    // At creation it was returned whole (its clock was then).
    expect(app.old.candidate.email).toBe('old@example.com');
  });

  test('the 180 days count from created_at: a later clock moves the reader', async () => {
    const within = await api.get(`/applications/${app.old.id}`, {
      key: partner.key,
      companyId: company.id,
      headers: { 'X-Fake-Now': '2026-06-29T00:00:00.000Z' },
    });
    expect(within.body.status).toBe('active');
    expect(within.body.candidate.email).toBe('old@example.com');
  });
});

describe('GET /applications/', () => {
  test('lists the company applications newest first, the list shape includes birthdate/language/nationality (D9)', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(4);
    expect(ids(res)).toEqual([app.recent2.id, app.recent1.id, app.march.id, app.old.id]);
    const recent1 = res.body.results[1];
    expect(recent1.candidate).toMatchObject({ birthdate: '1991-01-02', language: 'de', nationality: 'DE' });
    const { candidate: listed, ...rest } = recent1;
    const { candidate: single, ...singleRest } = app.recent1;
    expect(rest).toEqual({ ...singleRest, job_title: 'Waiter' });
    expect(listed).toEqual({ ...single, birthdate: '1991-01-02', language: 'de', nationality: 'DE' });
  });

  test('the e-mail filter does not find an anonymized application, even before retention has run (D10)', async () => {
    expect((await list('?email=old@example.com')).body).toMatchObject({ count: 0, results: [] });
    expect((await list('?email=old@example.com&created_at=2025-01-01')).body.count).toBe(0);
    // "march" is older than 180 days too (created 2026-03-20); a recent one is found.
    expect((await list('?email=march@example.com')).body.count).toBe(0);
    expect((await list('?email=recent@example.com')).body.count).toBe(1);
  });

  test('a cursor of the jobs list means nothing to the applications list', async () => {
    const jobsPage = await api.get('/jobs?page_size=1', { key: partner.key, companyId: company.id });
    const cursor = new URL(jobsPage.body.next).searchParams.get('cursor')!;
    const res = await list(`?page_size=1&page=2&cursor=${cursor}`);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(4);
    expect(ids(res)).toEqual([app.recent1.id]);
  });

  test('anonymization applies on the list too (D10)', async () => {
    const old = (await list()).body.results.find((a: { id: number }) => a.id === app.old.id);
    expect(old.status).toBe('anonymized');
    expect(old).not.toHaveProperty('candidate');
    expect(old).not.toHaveProperty('attachments');
  });

  test.each([
    ['?email=recent@example.com', ['recent1']],
    ['?email=RECENT@EXAMPLE.COM', ['recent1']],
    ['?email=recent@example', []],
    ['?partner_application_id=PA-2', ['recent2']],
    ['?partner_job_id=PJ-1', ['march']],
    ['?partner_company_id=PC-9', ['recent1']],
    ['?agency_job_id=AJ-1', ['recent1']],
    ['?channel=linkedin', ['recent2', 'march']],
    ['?sync_status=NOTSENT', ['recent2', 'recent1', 'march', 'old']],
    ['?sync_status=SUCCESS', []],
    ['?created_at=2026-03-01', ['recent2', 'recent1', 'march']],
    ['?applied_at=2026-03-16', ['recent2', 'recent1']],
    ['?updated_at=2026-03-20T00:00:00Z', ['recent2', 'recent1', 'march']],
    ['?email=other@example.com&channel=linkedin', ['recent2']],
    ['?email=other@example.com&channel=other', []],
    ['?bogus=1&channel=linkedin', ['recent2', 'march']],
  ])('filter %s', async (query, names) => {
    const res = await list(query);
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual(names.map((n) => app[n].id));
    expect(res.body.count).toBe(names.length);
  });

  test('job, partner and agency filters', async () => {
    expect(ids(await list(`?job=${job.c2}`))).toEqual([app.recent2.id, app.recent1.id]);
    expect(ids(await list(`?job=${job.c2}&email=other@example.com`))).toEqual([app.recent2.id]);
    expect(ids(await list(`?job=${job.s1}`))).toEqual([]);
    expect(ids(await list(`?partner=${partner.id}`))).toHaveLength(4);
    expect(ids(await list(`?partner=${agency.id}`))).toEqual([]);
    expect(ids(await list(`?agency=${agency.id}`))).toEqual([]);
    expect(ids(await list(`?agency=${agency.id}`, agencyCompany.id, agency.key))).toEqual([app.agency.id]);
    expect(ids(await list(`?agency=${partner.id}`, agencyCompany.id, agency.key))).toEqual([]);
  });

  test("filters never return other companies' records", async () => {
    const res = await list('?partner_application_id=PA-2', sibling.id);
    expect(ids(res)).toEqual([app.sibling.id]);
    expect(ids(await list('?email=recent@example.com', sibling.id))).toEqual([app.sibling.id]);
  });

  test.each([
    ['sync_status=DONE', 'sync_status'],
    ['job=abc', 'job'],
    ['partner=-1', 'partner'],
    ['agency=1.5', 'agency'],
    ['created_at=2026-02-31', 'created_at'],
    ['applied_at=soon', 'applied_at'],
    ['page_size=0', 'page_size'],
  ])('bad value %s is a 400 naming the parameter', async (query, param) => {
    const res = await list(`?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual({ [param]: [expect.any(String)] });
  });

  test('paging: walking next reads every application once, page past the end is empty', async () => {
    const seen: number[] = [];
    let res = await list('?page_size=1');
    seen.push(...ids(res));
    while (res.body.next) {
      const url = new URL(res.body.next);
      res = await api.get(url.pathname + url.search, { key: partner.key, companyId: company.id });
      seen.push(...ids(res));
    }
    expect(seen).toEqual([app.recent2.id, app.recent1.id, app.march.id, app.old.id]);
    const past = await list('?page=3&page_size=2');
    expect(past.body).toMatchObject({ count: 4, results: [], next: null });
  });

  test("a long value's slot is walked by cursors: the partition, which the request names, is not in them (P273)", async () => {
    const wide = await aCompany(partner.id, { entitlements: [] });
    await importJobs(wide.id, [{ external_id: 'W-1', title: 'Wide' }]);
    const channel = '\u0003'.repeat(255);
    const made: number[] = [];
    for (const n of [1, 2, 3]) {
      const body = { job: await jobIdOf(wide.id, 'W-1'), channel, candidate: person(`wide${n}@example.com`) };
      made.unshift((await api.request('POST', '/applications/', { key: partner.key, companyId: wide.id, body })).body.id);
    }
    const seen: number[] = [];
    let res = await list(`?channel=${encodeURIComponent(channel)}&page_size=1`, wide.id);
    for (;;) {
      expect(res.status).toBe(200);
      seen.push(...ids(res));
      if (!res.body.next) break;
      const url = new URL(res.body.next);
      expect(url.searchParams.get('cursor')).toEqual(expect.any(String));
      res = await api.get(url.pathname + url.search, { key: partner.key, companyId: wide.id });
    }
    expect(seen).toEqual(made);
  });
});
