import { importJobs } from '#jobs/job-store.js';
import { runWithClock } from '#platform/clock.js';
import { aCompany, aJob, aPartner } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';

/** The Job fields of the spec, in its order. */
const JOB_FIELDS = [
  'id',
  'external_id',
  'company',
  'title',
  'description',
  'posting_url',
  'application_url',
  'application_email',
  'status',
  'remote',
  'language',
  'category',
  'employment_type',
  'work_schedule',
  'senority',
  'education',
  'start_date',
  'contract_limitation',
  'location_name',
  'street',
  'city',
  'country',
  'postcode',
  'longitude',
  'latitude',
  'salary',
  'salary_from',
  'salary_to',
  'salary_currency',
  'salary_frequency',
  'contact_name',
  'contact_email',
  'contact_title',
  'contact_phone',
  'contact_salutation',
  'banner_image',
  'screening_questions',
  'application_form_fields',
  'description_sections',
  'custom_fields',
  'raw_values',
  'import_source',
  'run_id',
  'fingerprint',
  'apply_webhooks',
  'created_at',
  'updated_at',
  'last_content_update_at',
];

const fullJob = {
  external_id: 'FULL-1',
  title: 'Staff Engineer',
  description: 'Lead the platform.',
  posting_url: 'https://careers.example/jobs/1',
  application_url: 'https://careers.example/jobs/1/apply',
  application_email: 'apply@example.com',
  status: 'active',
  remote: 'hybrid',
  language: 'en',
  category: 'software_development',
  employment_type: 'permanent',
  work_schedule: 'full_time',
  senority: 'lead',
  education: 'Bachelor',
  start_date: '2027-01-01',
  contract_limitation: 'unlimited',
  location_name: 'Berlin Mitte',
  street: 'Unter den Linden 1',
  city: 'Berlin',
  country: 'DE',
  postcode: '10117',
  longitude: 13.39,
  latitude: 52.51,
  salary: 'Competitive',
  salary_from: 90000,
  salary_to: 120000.5,
  salary_currency: 'EUR',
  salary_frequency: 'annual',
  contact_name: 'Alex',
  contact_email: 'alex@example.com',
  contact_title: 'Recruiter',
  contact_phone: '+49 1',
  contact_salutation: 'Mx',
  banner_image: 'https://cdn.example/banner.png',
  screening_questions: [{ id: 'q1', question: 'Why us?', answer_type: 'textarea', required: false, options: [] }],
  application_form_fields: [{ id: 'f1', name: 'cv', label: 'CV', type: 'file', subtype: null, required: true, order: 1, options: [] }],
  description_sections: [
    { id: 's1', type: 'intro', order: 1, title: 'Intro', content: 'Hello' },
    { id: 's2', type: 'tasks', order: 2, title: 'Tasks', content: 'Build' },
  ],
  custom_fields: { team: 'platform', level: 7 },
  raw_values: { ats_job: { id: 991, nested: [1, 2] } },
  import_source: 'crawler',
};

let api: TestRuntime;
let partner: Awaited<ReturnType<typeof aPartner>>;
let companyA: Awaited<ReturnType<typeof aCompany>>;
let companyB: Awaited<ReturnType<typeof aCompany>>;
let foreign: Awaited<ReturnType<typeof aCompany>>;

function importAt(instant: string, companyId: number, jobs: Record<string, unknown>[]) {
  return runWithClock(new Date(instant), () => importJobs(companyId, jobs, { complete: false }));
}

beforeAll(async () => {
  api = await startTestRuntime();
  partner = await aPartner();
  companyA = await aCompany(partner.id);
  companyB = await aCompany(partner.id);
  foreign = await aCompany((await aPartner()).id);
  await importAt('2026-01-10T08:00:00.000Z', companyA.id, [
    aJob({
      external_id: 'A-1',
      title: 'Senior Java Developer',
      status: 'active',
      remote: 'remote',
      language: 'en',
      city: 'Berlin',
      country: 'DE',
    }),
    aJob({
      external_id: 'A-2',
      title: 'Junior Designer',
      status: 'archived',
      remote: 'on-site',
      language: 'de',
      city: 'Hamburg',
      country: 'DE',
    }),
    aJob({
      external_id: 'A-3',
      title: 'Java Architect',
      status: 'deleted',
      remote: 'hybrid',
      language: 'en',
      city: 'Vienna',
      country: 'AT',
    }),
  ]);
  await importAt('2026-03-01T12:00:00.000Z', companyA.id, [
    aJob({
      external_id: 'A-4',
      title: 'Sales Lead',
      status: 'active',
      remote: 'hybrid',
      language: 'de',
      city: 'BERLIN-Spandau',
      country: 'DE',
    }),
    fullJob,
  ]);
  await importAt('2026-02-01T00:00:00.000Z', companyB.id, [aJob({ external_id: 'B-1', title: 'Senior Java Developer' })]);
  await importAt('2026-02-01T00:00:00.000Z', foreign.id, [aJob({ external_id: 'A-1', title: 'Senior Java Developer' })]);
});
afterAll(() => api.stop());

const jobs = (query = '', companyId = companyA.id) => api.get(`/jobs${query}`, { key: partner.key, companyId });
const externalIds = (res: { body: { results: { external_id: string }[] } }) => res.body.results.map((j) => j.external_id);

describe('GET /jobs/{id}', () => {
  test('returns every field of the Job in the spec order; section order is a number (D11)', async () => {
    const listed = (await jobs('?external_id=FULL-1')).body.results[0];
    const res = await api.get(`/jobs/${listed.id}`, { key: partner.key, companyId: companyA.id });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(JOB_FIELDS);
    const { id, company, run_id, fingerprint, apply_webhooks, created_at, updated_at, last_content_update_at, ...rest } = res.body;
    expect(rest).toEqual(fullJob);
    expect(company).toBe(companyA.id);
    expect(apply_webhooks).toEqual({});
    expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(run_id).toMatch(/^[0-9a-f-]{36}$/);
    expect([created_at, updated_at, last_content_update_at]).toEqual(
      ['2026-03-01T12:00:00.000Z', '2026-03-01T12:00:00.000Z', '2026-03-01T12:00:00.000Z'].map((t) =>
        expect.stringMatching(new RegExp(`^${t.slice(0, 16)}`)),
      ),
    );
    expect(res.body.description_sections.map((s: { order: unknown }) => s.order)).toEqual([1, 2]);
  });

  test('the list gives the section order as a string (spec quirk, D11), the rest identical', async () => {
    const listed = (await jobs('?external_id=FULL-1')).body.results[0];
    const single = (await api.get(`/jobs/${listed.id}/`, { key: partner.key, companyId: companyA.id })).body;
    expect(listed.description_sections.map((s: { order: unknown }) => s.order)).toEqual(['1', '2']);
    expect({ ...listed, description_sections: null }).toEqual({ ...single, description_sections: null });
  });

  test('a job of another company is 404, even for a key that may see both companies', async () => {
    const ofB = (await jobs('', companyB.id)).body.results[0];
    expect((await api.get(`/jobs/${ofB.id}`, { key: partner.key, companyId: companyB.id })).status).toBe(200);
    const res = await api.get(`/jobs/${ofB.id}`, { key: partner.key, companyId: companyA.id });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'not_found' });
    expect((await api.get(`/jobs/${ofB.id}`, { key: companyA.key, companyId: companyB.id })).status).toBe(403);
    expect((await api.get(`/jobs/${ofB.id}`, { key: foreign.key, companyId: companyB.id })).status).toBe(403);
  });

  test.each(['999999', '1234567890123456789'])('id %p that names no job is 404', async (id) => {
    expect((await api.get(`/jobs/${id}`, { key: partner.key, companyId: companyA.id })).status).toBe(404);
  });

  // The document declares a positive integer (issue 25, P214): anything else is a 400 naming the parameter.
  test.each(['abc', '0', '-1', '1.5', '00'])('id %p that is no positive integer is a 400 naming id', async (id) => {
    const res = await api.get(`/jobs/${id}`, { key: partner.key, companyId: companyA.id });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid', errors: { id: ['Must be a positive integer.'] } });
  });
});

describe('GET /jobs filters', () => {
  test('all jobs of the company, newest first, nothing of other companies', async () => {
    const res = await jobs();
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(5);
    expect(externalIds(res)).toEqual(['FULL-1', 'A-4', 'A-3', 'A-2', 'A-1']);
    expect((await api.get('/jobs/', { key: partner.key, companyId: companyA.id })).body.count).toBe(5);
  });

  test.each([
    ['?external_id=A-1', ['A-1']],
    ['?external_id=a-1', []],
    ['?title=java', ['A-3', 'A-1']],
    ['?title=JAVA%20dev', ['A-1']],
    ['?status=active', ['FULL-1', 'A-4', 'A-1']],
    ['?status=archived', ['A-2']],
    ['?remote=hybrid', ['FULL-1', 'A-4', 'A-3']],
    ['?remote=on-site', ['A-2']],
    ['?language=de', ['A-4', 'A-2']],
    ['?city=berlin', ['FULL-1', 'A-4', 'A-1']],
    ['?country=AT', ['A-3']],
    ['?country=at', []],
    ['?created_at=2026-02-01', ['FULL-1', 'A-4']],
    ['?created_at=2026-03-01T12:00:00.000Z', ['FULL-1', 'A-4']],
    ['?created_at=2026-03-01T13:00:00Z', []],
    ['?created_at=2026-01-10T09:00:00%2B01:00', ['FULL-1', 'A-4', 'A-3', 'A-2', 'A-1']],
    ['?updated_at=2026-03-01', ['FULL-1', 'A-4']],
    ['?last_content_update_at=2026-01-11', ['FULL-1', 'A-4']],
    ['?status=active&city=berlin&language=en', ['FULL-1', 'A-1']],
    ['?status=active&city=berlin&language=en&remote=remote', ['A-1']],
    ['?external_id=A-4&status=active', ['A-4']],
    ['?external_id=A-4&status=archived', []],
    ['?external_id=A-1&created_at=2026-02-01', []],
    ['?unknown_param=zzz&status=deleted', ['A-3']],
    ['?pagination=true&remote=remote', ['A-1']],
  ])('%s', async (query, expected) => {
    const res = await jobs(query);
    expect(res.status).toBe(200);
    expect(externalIds(res)).toEqual(expected);
    expect(res.body.count).toBe(expected.length);
  });

  test.each([
    ['status=open', 'status'],
    ['remote=office', 'remote'],
    ['created_at=2026-13-01', 'created_at'],
    ['created_at=2026-02-30', 'created_at'],
    ['updated_at=yesterday', 'updated_at'],
    ['last_content_update_at=2026-1-1', 'last_content_update_at'],
    ['page=0', 'page'],
    ['page_size=abc', 'page_size'],
    ['limit=-1', 'limit'],
  ])('bad value %s is a 400 naming the parameter', async (query, param) => {
    const res = await jobs(`?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual({ [param]: [expect.any(String)] });
  });
});

describe('GET /jobs pagination', () => {
  let big: Awaited<ReturnType<typeof aCompany>>;
  beforeAll(async () => {
    big = await aCompany(partner.id);
    const batch = Array.from({ length: 57 }, (_, i) =>
      aJob({ external_id: `BIG-${String(i).padStart(2, '0')}`, status: i % 3 === 0 ? 'archived' : 'active' }),
    );
    await importJobs(big.id, batch);
  });
  const bigJobs = (query: string) => api.get(`/jobs${query}`, { key: partner.key, companyId: big.id });
  const follow = (url: string) => {
    const u = new URL(url);
    return api.get(u.pathname + u.search, { key: partner.key, companyId: big.id });
  };

  test('following next reads every job once, in order, with one DynamoDB call per page', async () => {
    const seen: number[] = [];
    let res = await bigJobs('?page_size=10&status=active');
    expect(res.body.count).toBe(38);
    const pages = [res];
    while (res.body.next) {
      res = await follow(res.body.next);
      expect(res.status).toBe(200);
      pages.push(res);
    }
    for (const page of pages) seen.push(...page.body.results.map((j: { id: number }) => j.id));
    expect(pages).toHaveLength(4);
    expect(new Set(seen).size).toBe(38);
    const all = pages.flatMap((p) => p.body.results);
    const sortKeys = all.map((j: { created_at: string; id: number }) => `${j.created_at}#${String(j.id).padStart(16, '0')}`);
    expect(sortKeys).toEqual([...sortKeys].sort().reverse());
    expect(all.every((j: { status: string }) => j.status === 'active')).toBe(true);
    // Pages reached through a cursor neither count again nor skip: one Query of the filter's keys-only slot and
    // one BatchGet of the page's jobs (docs/access-patterns.md), and beside them the company's last complete
    // import run (P192: the run of the jobs that arrived on it unchanged), 0.5 units.
    for (const page of pages.slice(1)) expect(page.headers.get('x-dynamodb-capacity')).toMatch(/calls=[123];/);
    expect(pages[3].body.next).toBeNull();
    expect(new URL(pages[3].body.previous).searchParams.get('page')).toBe('3');
    expect(new URL(pages[1].body.next).searchParams.get('status')).toBe('active');
  });

  test('a bare page=N gives the same page as walking to it', async () => {
    const first = await bigJobs('?page_size=7');
    const second = await follow(first.body.next);
    const third = await follow(second.body.next);
    const direct = await bigJobs('?page_size=7&page=3');
    expect(direct.body.results).toEqual(third.body.results);
    expect(direct.body.count).toBe(57);
    expect(new URL(direct.body.next).searchParams.get('page')).toBe('4');
  });

  test('limit is accepted as the page size, page_size wins over it, both are capped at 50', async () => {
    expect((await bigJobs('?limit=7')).body.results).toHaveLength(7);
    expect((await bigJobs('?limit=7&page_size=3')).body.results).toHaveLength(3);
    expect((await bigJobs('?limit=500')).body.results).toHaveLength(50);
    expect((await bigJobs('?page_size=51')).body.results).toHaveLength(50);
    expect((await bigJobs('')).body.results).toHaveLength(10);
  });

  test('the last page and a page past the end', async () => {
    const last = await bigJobs('?page_size=50&page=2');
    expect(last.body.results).toHaveLength(7);
    expect(last.body.next).toBeNull();
    const past = await bigJobs('?page_size=50&page=3');
    expect(past.status).toBe(200);
    expect(past.body).toMatchObject({ count: 57, next: null, results: [] });
  });

  test('page, page_size and limit take any run of digits (D4, P273): sizes capped at 50, a page past the end empty for the count alone', async () => {
    const huge = '9'.repeat(40);
    expect((await bigJobs(`?page_size=${huge}`)).body.results).toHaveLength(50);
    expect((await bigJobs(`?limit=${huge}`)).body.results).toHaveLength(50);
    const units = (res: { headers: Headers }) => res.headers.get('x-dynamodb-capacity')!.replace(/; sequential=\d+$/, '');
    for (const filter of ['', '&status=active']) {
      const past = await bigJobs(`?page=${huge}&page_size=${huge}${filter}`);
      expect(past.status).toBe(200);
      expect(past.body).toMatchObject({ next: null, results: [] });
      expect(new URL(past.body.previous).searchParams.get('page')).toBe(filter ? '1' : '2');
      // Read as cheaply as the first page past the end: the count, and no key skipped.
      expect(units(past)).toBe(units(await bigJobs(`?page=3&page_size=50${filter}`)));
    }
    for (const bad of ['page=0', 'page=00', 'page_size=0', 'limit=1e3', 'page=-9']) expect((await bigJobs(`?${bad}`)).status).toBe(400);
  });

  test('a cursor is bound to the values the filters use: the same values reordered are another list (P273)', async () => {
    const titled = await aCompany(partner.id);
    await importJobs(titled.id, [
      ...['1', '2', '3'].map((n) => aJob({ title: `Pairs a&b ${n}` })),
      ...['1', '2'].map((n) => aJob({ title: `Sums c+d ${n}` })),
    ]);
    const titledJobs = (query: string) => api.get(`/jobs${query}`, { key: partner.key, companyId: titled.id });
    // `title` is not repeatable: the first value is the filter.
    const first = await titledJobs('?page_size=1&title=a%26b&title=c%2Bd');
    expect(first.body.count).toBe(3);
    const cursor = new URL(first.body.next).searchParams.get('cursor')!;
    const swapped = await titledJobs(`?page_size=1&title=c%2Bd&title=a%26b&page=2&cursor=${cursor}`);
    expect(swapped.status).toBe(200);
    expect(swapped.body.count).toBe(2);
    expect(swapped.body.results.map((j: { title: string }) => j.title)).toEqual([expect.stringContaining('c+d')]);
  });

  test('a tampered cursor is 400; a cursor replayed with other filters is ignored, not trusted', async () => {
    const first = await bigJobs('?page_size=5');
    const next = new URL(first.body.next);
    const cursor = next.searchParams.get('cursor')!;
    const tampered = await bigJobs(`?page_size=5&page=2&cursor=${cursor.slice(0, -2)}xx`);
    expect(tampered.status).toBe(400);
    expect(tampered.body.code).toBe('invalid_cursor');
    const replayed = await bigJobs(`?page_size=5&page=2&status=archived&cursor=${cursor}`);
    expect(replayed.status).toBe(200);
    expect(replayed.body.count).toBe(19);
    expect(replayed.body.results.every((j: { status: string }) => j.status === 'archived')).toBe(true);
    // Another company's request cannot use this company's cursor to read this company's jobs.
    const cross = await api.get(`/jobs?page_size=5&page=2&cursor=${cursor}`, { key: partner.key, companyId: companyA.id });
    expect(cross.status).toBe(200);
    expect(cross.body.count).toBe(5);
    expect(cross.body.results).toEqual([]);
  });
});

describe('run_id: the import run a job last arrived on (P192: unchanged jobs are not written again)', () => {
  test('complete runs, a partial run, a job archived by its absence and one archived in the feed', async () => {
    const company = await aCompany(partner.id);
    const runIdOf = async (externalId: string) => {
      const list = await api.get(`/jobs?external_id=${externalId}`, { key: partner.key, companyId: company.id });
      const listed = list.body.results[0];
      const one = await api.get(`/jobs/${listed.id}`, { key: partner.key, companyId: company.id });
      expect(one.body.run_id).toBe(listed.run_id); // the list and the job agree
      return listed.run_id as string;
    };
    const runIds = async () =>
      Object.fromEntries(await Promise.all(['R-1', 'R-2', 'R-3', 'R-4'].map(async (id) => [id, await runIdOf(id)])));
    const feed = [
      aJob({ external_id: 'R-1' }),
      aJob({ external_id: 'R-2' }),
      aJob({ external_id: 'R-3', status: 'archived' }),
      aJob({ external_id: 'R-4' }),
    ];
    const first = await importJobs(company.id, feed);
    expect(await runIds()).toEqual({ 'R-1': first.run_id, 'R-2': first.run_id, 'R-3': first.run_id, 'R-4': first.run_id });

    // All unchanged: every job arrived on the second run, and none was written.
    const second = await importJobs(company.id, feed);
    expect(second).toMatchObject({ unchanged: 4 });
    expect(await runIds()).toEqual({ 'R-1': second.run_id, 'R-2': second.run_id, 'R-3': second.run_id, 'R-4': second.run_id });

    // R-2 (active) and R-3 (archived in the feed) are absent: R-2 is archived, both keep the second run.
    const third = await importJobs(company.id, [feed[0], feed[3]]);
    expect(third).toMatchObject({ unchanged: 2, archived: 1 });
    expect(await runIds()).toEqual({ 'R-1': third.run_id, 'R-2': second.run_id, 'R-3': second.run_id, 'R-4': third.run_id });

    // A partial run with R-1 only: R-1 arrived on it, the others keep theirs (R-4 the third run).
    const partial = await importJobs(company.id, [feed[0]], { complete: false });
    expect(partial).toMatchObject({ unchanged: 1, archived: 0 });
    expect(await runIds()).toEqual({ 'R-1': partial.run_id, 'R-2': second.run_id, 'R-3': second.run_id, 'R-4': third.run_id });

    // A complete run again with R-1, R-3 (back, unchanged and archived) and R-4: all three arrived on it.
    const fourth = await importJobs(company.id, [feed[0], feed[2], feed[3]]);
    expect(fourth).toMatchObject({ unchanged: 3, archived: 0 });
    expect(await runIds()).toEqual({ 'R-1': fourth.run_id, 'R-2': second.run_id, 'R-3': fourth.run_id, 'R-4': fourth.run_id });
  });
});
