import { createChannel } from '#applications/channels.js';
import { importJobs } from '#jobs/job-store.js';
import { aCompany, aPartner } from '../helpers/fixtures.js';
import { applicationItems, drainQueue, objectBytes, objectKeys } from '../helpers/inspect.js';
import { contractFetch, startTestRuntime, type TestRuntime } from '../helpers/runtime.js';

const APPLICATION_FIELDS = [
  'id',
  'company',
  'job',
  'job_title',
  'job_external_id',
  'talent_channel',
  'talent_channel_name',
  'talent_channel_logo',
  'external_id',
  'external_job_id',
  'application_url',
  'agency_job_id',
  'partner_job_id',
  'partner_company_id',
  'partner_application_id',
  'candidate',
  'applied_at',
  'notes',
  'channel',
  'social_links',
  'screening_questions',
  'custom_fields',
  'attachments',
  'import_source',
  'status',
  'sync_status',
  'email_sync_status',
  'external_apply_status',
  'failure_error',
  // D21 (issue 43), beyond the spec: the outcome in the ATS.
  'outcome',
  'outcome_stage',
  'outcome_updated_at',
  'created_at',
  'updated_at',
];

const PDF = Buffer.from('%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('rest-of-png')]);

let api: TestRuntime;
let partner: Awaited<ReturnType<typeof aPartner>>;
let company: Awaited<ReturnType<typeof aCompany>>;
let noSync: Awaited<ReturnType<typeof aCompany>>;
let sibling: Awaited<ReturnType<typeof aCompany>>;
const jobIds: Record<string, number> = {};

async function jobsOf(companyId: number, externalIds: string[]) {
  await importJobs(
    companyId,
    externalIds.map((external_id) => ({ external_id, title: `Title ${external_id}` })),
  );
}

beforeAll(async () => {
  api = await startTestRuntime();
  partner = await aPartner();
  company = await aCompany(partner.id, { entitlements: ['candidate_sync'] });
  noSync = await aCompany(partner.id, { entitlements: [] });
  sibling = await aCompany(partner.id);
  await jobsOf(company.id, ['J-1', 'J-2']);
  await jobsOf(noSync.id, ['N-1']);
  await jobsOf(sibling.id, ['S-1']);
  for (const [c, ext] of [
    [company, 'J-1'],
    [company, 'J-2'],
    [noSync, 'N-1'],
    [sibling, 'S-1'],
  ] as const) {
    jobIds[ext] = (await api.get(`/jobs?external_id=${ext}`, { key: partner.key, companyId: c.id })).body.results[0].id;
  }
  await createChannel({ slug: 'stepstone-test', name: 'StepStone Test', logo: 'https://logo.example/s.png' });
});
afterAll(() => api.stop());
beforeEach(() => drainQueue());

function candidate(overrides: Record<string, unknown> = {}) {
  return {
    email: 'Ada.Lovelace@example.com',
    first_name: 'Ada',
    last_name: 'Lovelace',
    gender: 'female',
    birthdate: '1990-12-10',
    language: 'en',
    nationality: 'GB',
    phone: '+44 1',
    location: { city: 'London', country: 'GB' },
    skills: ['math'],
    ...overrides,
  };
}

const post = (body: unknown, o: { companyId?: number; key?: string; headers?: Record<string, string> } = {}) =>
  api.request('POST', '/applications/', { key: o.key ?? partner.key, companyId: o.companyId ?? company.id, body, headers: o.headers });

async function snapshot() {
  return { records: (await applicationItems()).length, objects: (await objectKeys()).length, messages: (await drainQueue()).length };
}

describe('POST /applications/ with JSON', () => {
  test('creates the application: 201, the D9 shape, stored attachments, a sync message with only the id', async () => {
    const body = {
      job: jobIds['J-1'],
      external_job_id: 'J-1',
      application_url: 'https://board.example/jobs/1',
      agency_job_id: 'AG-1',
      partner_job_id: 'PJ-1',
      partner_company_id: 'PC-1',
      partner_application_id: 'PA-1',
      candidate: candidate(),
      notes: 'Strong profile',
      channel: 'stepstone-test',
      social_links: { linkedin: 'https://linkedin.example/in/ada' },
      screening_questions: [{ id: 'q1', question: 'Work permit?', answer_type: 'boolean', answer: 'true' }],
      custom_fields: { source_campaign: 'winter' },
      attachments: [
        { type: 'cv', name: 'cv.pdf', content_type: 'application/pdf', data: PDF.toString('base64') },
        { type: 'photo', name: 'me.png', content_type: 'image/png', data: PNG.toString('base64') },
      ],
    };
    const before = Date.now();
    const res = await post(body);
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(APPLICATION_FIELDS);
    expect(res.body).toMatchObject({
      company: company.id,
      job: jobIds['J-1'],
      job_title: 'Title J-1',
      job_external_id: 'J-1',
      talent_channel_name: 'StepStone Test',
      talent_channel_logo: 'https://logo.example/s.png',
      external_id: null,
      external_job_id: 'J-1',
      application_url: body.application_url,
      agency_job_id: 'AG-1',
      partner_job_id: 'PJ-1',
      partner_company_id: 'PC-1',
      partner_application_id: 'PA-1',
      notes: 'Strong profile',
      channel: 'stepstone-test',
      social_links: body.social_links,
      screening_questions: body.screening_questions,
      custom_fields: body.custom_fields,
      import_source: 'api',
      status: 'active',
      sync_status: 'NOTSENT',
      email_sync_status: 'NOTSENT',
      external_apply_status: 'NOTSENT',
      failure_error: null,
    });
    expect(res.body.talent_channel).toEqual(expect.any(Number));
    // D9: no birthdate, language, nationality in the create response; attachments without data or keys.
    expect(res.body.candidate).toEqual({
      email: 'Ada.Lovelace@example.com',
      first_name: 'Ada',
      last_name: 'Lovelace',
      full_name: null,
      gender: 'female',
      phone: '+44 1',
      location: { street: null, city: 'London', country: 'GB', postcode: null },
      skills: ['math'],
    });
    expect(res.body.attachments).toEqual([
      { type: 'cv', name: 'cv.pdf', content_type: 'application/pdf' },
      { type: 'photo', name: 'me.png', content_type: 'image/png' },
    ]);
    expect(Date.parse(res.body.applied_at)).toBeGreaterThanOrEqual(before - 5);
    expect(res.body.applied_at).toBe(res.body.created_at);

    const keys = await objectKeys(`companies/${company.id}/applications/${res.body.id}/`);
    expect(keys).toHaveLength(2);
    const contents = await Promise.all(keys.map(objectBytes));
    expect(contents.map((b) => b.toString('base64')).sort()).toEqual([PDF, PNG].map((b) => b.toString('base64')).sort());

    const [item] = (await applicationItems()).filter((i) => i.id === res.body.id);
    const stored = item.attachments as Record<string, unknown>[];
    expect(stored.map((a) => a.size)).toEqual([PDF.length, PNG.length]);
    expect(stored.every((a) => typeof a.checksum === 'string' && String(a.key).startsWith(`companies/${company.id}/`))).toBe(true);
    expect(JSON.stringify(item)).not.toContain(PDF.toString('base64'));

    expect(await drainQueue()).toEqual([JSON.stringify({ application_id: res.body.id })]);
  });

  test('external_job_id alone identifies the job; applied_at is kept; unknown channel resolves to null', async () => {
    const res = await post({
      external_job_id: 'J-2',
      candidate: { email: 'x@example.com', full_name: 'X Y' },
      applied_at: '2026-05-01T10:00:00+02:00',
      channel: 'nowhere',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      job: jobIds['J-2'],
      job_external_id: 'J-2',
      applied_at: '2026-05-01T08:00:00.000Z',
      talent_channel: null,
      talent_channel_name: null,
      channel: 'nowhere',
    });
  });

  test('no sync message when the company has no active candidate sync; NOTSENT stays', async () => {
    const res = await post({ job: jobIds['N-1'], candidate: candidate() }, { companyId: noSync.id });
    expect(res.status).toBe(201);
    expect(res.body.sync_status).toBe('NOTSENT');
    expect(await drainQueue()).toEqual([]);
  });

  test.each([
    ['no candidate', { job: 'J-1' }, 'candidate'],
    ['no e-mail', { job: 'J-1', candidate: { full_name: 'A B' } }, 'candidate.email'],
    ['a bad e-mail', { job: 'J-1', candidate: { email: 'not-an-email', full_name: 'A B' } }, 'candidate.email'],
    ['no name', { job: 'J-1', candidate: { email: 'a@example.com' } }, 'candidate.full_name'],
    ['only a first name', { job: 'J-1', candidate: { email: 'a@example.com', first_name: 'A' } }, 'candidate.full_name'],
    ['a bad gender', { job: 'J-1', candidate: candidate({ gender: 'x' }) }, 'candidate.gender'],
    ['a bad birthdate', { job: 'J-1', candidate: candidate({ birthdate: '1990-02-30' }) }, 'candidate.birthdate'],
    ['an unknown candidate field', { job: 'J-1', candidate: candidate({ shoe_size: 44 }) }, 'candidate.shoe_size'],
    ['neither job nor external_job_id', { candidate: candidate(), application_url: 'https://x.example/1' }, 'job'],
    ['an unknown job', { job: 987654, candidate: candidate() }, 'job'],
    ["another company's job", { job: 'S-1', candidate: candidate() }, 'job'],
    ['an unknown external id', { external_job_id: 'nope', candidate: candidate() }, 'external_job_id'],
    ['job and external_job_id naming different jobs', { job: 'J-1', external_job_id: 'J-2', candidate: candidate() }, 'external_job_id'],
    ['an empty external_job_id', { external_job_id: '', candidate: candidate() }, 'external_job_id'],
    ['a job id that is not an integer', { job: '1', candidate: candidate() }, 'job'],
    ['an application_url that is no URI', { job: 'J-1', application_url: 'not a url', candidate: candidate() }, 'application_url'],
    [
      'an application_url over 2000 characters',
      { job: 'J-1', application_url: `https://x.example/${'a'.repeat(2000)}`, candidate: candidate() },
      'application_url',
    ],
    ['a social link that is no URL', { job: 'J-1', social_links: { x: 'nope' }, candidate: candidate() }, 'social_links.x'],
    [
      'a bad answer_type',
      { job: 'J-1', screening_questions: [{ id: 'q', answer_type: 'essay', answer: 'a' }], candidate: candidate() },
      'screening_questions[0].answer_type',
    ],
    ['a bad applied_at', { job: 'J-1', applied_at: 'yesterday', candidate: candidate() }, 'applied_at'],
    [
      'a leap-second applied_at no clock can place',
      {
        job: 'J-1',
        applied_at: '2016-12-31T23:59:60Z',
        candidate: candidate(),
        attachments: [{ type: 'cv', name: 'a.pdf', content_type: 'application/pdf', data: PDF.toString('base64') }],
      },
      'applied_at',
    ],
    ['an applied_at with an hour-only offset', { job: 'J-1', applied_at: '2020-01-01T00:00:00+01', candidate: candidate() }, 'applied_at'],
    ['an unknown top-level field', { job: 'J-1', candidate: candidate(), salary_wish: 1 }, 'salary_wish'],
    ['an unknown talent channel id', { job: 'J-1', talent_channel: 424242, candidate: candidate() }, 'talent_channel'],
    [
      'a bad attachment type',
      {
        job: 'J-1',
        candidate: candidate(),
        attachments: [{ type: 'selfie', name: 'a.pdf', content_type: 'application/pdf', data: PDF.toString('base64') }],
      },
      'attachments[0].type',
    ],
    [
      'malformed Base64',
      {
        job: 'J-1',
        candidate: candidate(),
        attachments: [{ type: 'cv', name: 'a.pdf', content_type: 'application/pdf', data: 'JVBERi0x$$$' }],
      },
      'attachments[0].data',
    ],
    [
      'bytes that do not match the type',
      {
        job: 'J-1',
        candidate: candidate(),
        attachments: [{ type: 'cv', name: 'a.pdf', content_type: 'application/pdf', data: PNG.toString('base64') }],
      },
      'attachments[0].data',
    ],
    [
      'a second attachment that is bad',
      {
        job: 'J-1',
        candidate: candidate(),
        attachments: [
          { type: 'cv', name: 'a.pdf', content_type: 'application/pdf', data: PDF.toString('base64') },
          { type: 'photo', name: 'b.png', content_type: 'image/png', data: PDF.toString('base64') },
        ],
      },
      'attachments[1].data',
    ],
    [
      'a content type not permitted',
      {
        job: 'J-1',
        candidate: candidate(),
        attachments: [{ type: 'other', name: 'a.exe', content_type: 'application/x-msdownload', data: 'TVqQAAMAAAAEAAAA' }],
      },
      'attachments[0].content_type',
    ],
  ])('%s is a 400 naming %s, and nothing is stored', async (_name, raw, field) => {
    const body = { ...(raw as Record<string, unknown>) };
    if (typeof body.job === 'string' && jobIds[body.job]) body.job = jobIds[body.job];
    const before = await snapshot();
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid');
    expect(Object.keys(res.body.errors)).toContain(field);
    expect(await snapshot()).toEqual({ ...before, messages: 0 });
  });

  test('malformed JSON is 400, an unsupported content type 415, neither stores anything', async () => {
    const before = await snapshot();
    const bad = await api.request('POST', '/applications/', {
      key: partner.key,
      companyId: company.id,
      rawBody: '{"candidate": ',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('malformed_json');
    const text = await api.request('POST', '/applications/', {
      key: partner.key,
      companyId: company.id,
      rawBody: 'hello',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    expect(await snapshot()).toEqual({ ...before, messages: 0 });
  });
});

describe('POST /applications/ with form encodings', () => {
  test('urlencoded with bracketed nested fields', async () => {
    const form = new URLSearchParams({
      job: String(jobIds['J-1']),
      'candidate[email]': 'form@example.com',
      'candidate[first_name]': 'Form',
      'candidate[last_name]': 'User',
      'candidate[skills][0]': 'a',
      'candidate[skills][1]': 'b',
      'candidate[location][city]': 'Paris',
      'social_links[github]': 'https://github.example/form',
      'screening_questions[0][id]': 'q1',
      'screening_questions[0][answer]': 'yes',
      'attachments[0][type]': 'cv',
      'attachments[0][name]': 'cv.pdf',
      'attachments[0][content_type]': 'application/pdf',
      'attachments[0][data]': PDF.toString('base64'),
    });
    const res = await api.request('POST', '/applications/', {
      key: partner.key,
      companyId: company.id,
      rawBody: form.toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      job: jobIds['J-1'],
      candidate: { email: 'form@example.com', first_name: 'Form', last_name: 'User', skills: ['a', 'b'], location: { city: 'Paris' } },
      social_links: { github: 'https://github.example/form' },
      screening_questions: [{ id: 'q1', answer: 'yes' }],
      attachments: [{ type: 'cv', name: 'cv.pdf', content_type: 'application/pdf' }],
    });
    const [key] = await objectKeys(`companies/${company.id}/applications/${res.body.id}/`);
    expect((await objectBytes(key)).equals(PDF)).toBe(true);
  });

  test('urlencoded with nested fields as JSON strings', async () => {
    const form = new URLSearchParams({
      external_job_id: 'J-2',
      candidate: JSON.stringify({ email: 'json@example.com', full_name: 'Jay Son' }),
      custom_fields: '{"a":1}',
    });
    const res = await api.request('POST', '/applications/', {
      key: partner.key,
      companyId: company.id,
      rawBody: form.toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      job: jobIds['J-2'],
      candidate: { email: 'json@example.com', full_name: 'Jay Son' },
      custom_fields: { a: 1 },
    });
  });

  test('urlencoded validation errors name the field', async () => {
    const form = new URLSearchParams({ job: String(jobIds['J-1']), 'candidate[email]': 'bad', 'candidate[full_name]': 'X' });
    const res = await api.request('POST', '/applications/', {
      key: partner.key,
      companyId: company.id,
      rawBody: form.toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toEqual(['candidate.email']);
    const broken = new URLSearchParams({ job: String(jobIds['J-1']), candidate: '{not json' });
    const res2 = await api.request('POST', '/applications/', {
      key: partner.key,
      companyId: company.id,
      rawBody: broken.toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(res2.status).toBe(400);
    expect(Object.keys(res2.body.errors)).toEqual(['candidate']);
  });

  test('multipart: fields plus file parts, typed by field name', async () => {
    const form = new FormData();
    form.set('job', String(jobIds['J-1']));
    form.set('candidate[email]', 'multi@example.com');
    form.set('candidate[full_name]', 'Multi Part');
    form.set('cv', new Blob([PDF], { type: 'application/pdf' }), 'resume.pdf');
    form.set('portfolio', new Blob([PNG], { type: 'image/png' }), 'work.png');
    const response = await contractFetch(`${api.url}/applications/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${partner.key}`, 'Company-Id': String(company.id) },
      body: form,
    });
    const body: any = await response.json();
    expect(response.status).toBe(201);
    expect(body.candidate).toMatchObject({ email: 'multi@example.com', full_name: 'Multi Part' });
    expect(body.attachments).toEqual([
      { type: 'cv', name: 'resume.pdf', content_type: 'application/pdf' },
      { type: 'other', name: 'work.png', content_type: 'image/png' },
    ]);
    const keys = await objectKeys(`companies/${company.id}/applications/${body.id}/`);
    const bytes = (await Promise.all(keys.map(objectBytes))).map((b) => b.toString('hex')).sort();
    expect(bytes).toEqual([PDF, PNG].map((b) => b.toString('hex')).sort());
  });

  test('multipart: a large Base64 attachment in bracket fields arrives whole', async () => {
    const file = Buffer.alloc(4_500_000, 0x42);
    PDF.copy(file, 0);
    const form = new FormData();
    form.set('job', String(jobIds['J-1']));
    form.set('candidate[email]', 'big@example.com');
    form.set('candidate[full_name]', 'Big Field');
    form.set('attachments[0][type]', 'cv');
    form.set('attachments[0][name]', 'big.pdf');
    form.set('attachments[0][content_type]', 'application/pdf');
    form.set('attachments[0][data]', file.toString('base64'));
    const response = await contractFetch(`${api.url}/applications/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${partner.key}`, 'Company-Id': String(company.id) },
      body: form,
    });
    const body: any = await response.json();
    expect(response.status).toBe(201);
    const [key] = await objectKeys(`companies/${company.id}/applications/${body.id}/`);
    expect((await objectBytes(key)).equals(file)).toBe(true);
  });

  test('forms with more fields than the limit are refused, not cut short', async () => {
    const before = await snapshot();
    const form = new URLSearchParams({
      job: String(jobIds['J-1']),
      'candidate[email]': 'many@example.com',
      'candidate[full_name]': 'Many',
    });
    for (let i = 0; i < 2100; i++) form.append(`custom_fields[f${i}]`, 'x');
    const res = await api.request('POST', '/applications/', {
      key: partner.key,
      companyId: company.id,
      rawBody: form.toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toEqual(['body']);
    const deep = new URLSearchParams({
      job: String(jobIds['J-1']),
      'candidate[email]': 'd@example.com',
      'candidate[full_name]': 'D',
      'custom_fields[a][b][c][d][e][f][g]': 'x',
    });
    const res2 = await api.request('POST', '/applications/', {
      key: partner.key,
      companyId: company.id,
      rawBody: deep.toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(res2.status).toBe(400);
    expect(await snapshot()).toEqual({ ...before, messages: 0 });
  });

  test('multipart: a file whose bytes do not match its type is refused, nothing stored', async () => {
    const before = await snapshot();
    const form = new FormData();
    form.set('job', String(jobIds['J-1']));
    form.set('candidate[email]', 'multi@example.com');
    form.set('candidate[full_name]', 'Multi Part');
    form.set('cv', new Blob([PNG], { type: 'application/pdf' }), 'fake.pdf');
    const response = await contractFetch(`${api.url}/applications/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${partner.key}`, 'Company-Id': String(company.id) },
      body: form,
    });
    expect(response.status).toBe(400);
    expect(Object.keys(((await response.json()) as any).errors)).toEqual(['attachments[0].data']);
    expect(await snapshot()).toEqual({ ...before, messages: 0 });
  });
});

describe('body size (27.5 MB)', () => {
  test('a body of 27.5 MB or more is 413 before it is read; nothing is stored', async () => {
    const before = await snapshot();
    const body = Buffer.alloc(27_500_000, 0x20);
    const res = await api.request('POST', '/applications/', {
      key: partner.key,
      companyId: company.id,
      rawBody: body,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
    expect(await snapshot()).toEqual({ ...before, messages: 0 });
  });

  test('a body just under the limit (about 20 MB of files) is accepted', async () => {
    const file = Buffer.alloc(10_000_000, 0x41);
    PDF.copy(file, 0);
    const data = file.toString('base64');
    const body = {
      job: jobIds['J-1'],
      candidate: candidate(),
      attachments: [1, 2].map((n) => ({ type: 'work_sample', name: `s${n}.pdf`, content_type: 'application/pdf', data })),
    };
    const text = JSON.stringify(body);
    expect(text.length).toBeGreaterThan(26_000_000);
    expect(text.length).toBeLessThan(27_500_000);
    const res = await api.request('POST', '/applications/', {
      key: partner.key,
      companyId: company.id,
      rawBody: text,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(201);
    const keys = await objectKeys(`companies/${company.id}/applications/${res.body.id}/`);
    expect(keys).toHaveLength(2);
    expect((await objectBytes(keys[0])).equals(file)).toBe(true);
  });
});

describe('Idempotency-Key (D8)', () => {
  test('the same key and body give the first response again, with no second record or message', async () => {
    const body = { job: jobIds['J-1'], candidate: candidate({ email: 'idem@example.com' }) };
    const headers = { 'Idempotency-Key': 'key-1' };
    const first = await post(body, { headers });
    expect(first.status).toBe(201);
    const before = (await applicationItems()).length;
    const again = await post(body, { headers });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect((await applicationItems()).length).toBe(before);
    expect(await drainQueue()).toEqual([JSON.stringify({ application_id: first.body.id })]);
  });

  test('the same key with another body is 422 and stores nothing', async () => {
    await post({ job: jobIds['J-1'], candidate: candidate() }, { headers: { 'Idempotency-Key': 'key-2' } });
    const before = await snapshot();
    const res = await post({ job: jobIds['J-2'], candidate: candidate() }, { headers: { 'Idempotency-Key': 'key-2' } });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('idempotency_key_reused');
    expect(await snapshot()).toEqual({ ...before, messages: 0 });
  });

  test('keys are scoped to the company and partner: the same key elsewhere creates its own application', async () => {
    const body = { candidate: candidate() };
    const mine = await post({ ...body, job: jobIds['J-1'] }, { headers: { 'Idempotency-Key': 'shared' } });
    const theirs = await post({ ...body, job: jobIds['S-1'] }, { companyId: sibling.id, headers: { 'Idempotency-Key': 'shared' } });
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  test('a rejected request is not remembered: the key can be used again with a corrected body', async () => {
    const bad = await post({ job: jobIds['J-1'], candidate: { email: 'x' } }, { headers: { 'Idempotency-Key': 'key-3' } });
    expect(bad.status).toBe(400);
    const good = await post({ job: jobIds['J-1'], candidate: candidate() }, { headers: { 'Idempotency-Key': 'key-3' } });
    expect(good.status).toBe(201);
  });
});

describe('tenancy on create', () => {
  test('a company key cannot create for a sibling; another partner cannot create at all', async () => {
    const body = { job: jobIds['S-1'], candidate: candidate() };
    expect((await post(body, { key: company.key, companyId: sibling.id })).status).toBe(403);
    const stranger = await aPartner();
    expect((await post(body, { key: stranger.key, companyId: sibling.id })).status).toBe(403);
    expect((await post(body, { key: sibling.key, companyId: sibling.id })).status).toBe(201);
  });
});

describe('screening answers (P265)', () => {
  test("each carries id, question, answer_type and answer: what the partner left out comes from the job's question", async () => {
    await importJobs(sibling.id, [
      {
        external_id: 'S-1',
        title: 'Title S-1',
        screening_questions: [
          { id: 'tools', question: 'Which tools do you use?', answer_type: 'multi_select', required: false, options: [] },
          { id: 'start', question: 'Earliest start?', answer_type: 'date', required: true, options: [] },
        ],
      },
    ]);
    const sent = [
      { id: 'tools', answer: 'figma, sketch' },
      { id: 'start', question: 'When can you start?', answer_type: 'text', answer: 'May' },
      { id: 'not-on-the-job', answer: 'x' },
      { id: 'tools' },
    ];
    const res = await post({ job: jobIds['S-1'], candidate: candidate(), screening_questions: sent }, { companyId: sibling.id });
    expect(res.status).toBe(201);
    const expected = [
      { id: 'tools', question: 'Which tools do you use?', answer_type: 'multi_select', answer: 'figma, sketch' },
      { id: 'start', question: 'When can you start?', answer_type: 'text', answer: 'May' },
      { id: 'not-on-the-job', question: '', answer_type: 'text', answer: 'x' },
      { id: 'tools', question: 'Which tools do you use?', answer_type: 'multi_select', answer: '' },
    ];
    expect(res.body.screening_questions).toEqual(expected);
    const read = await api.get(`/applications/${res.body.id}`, { key: partner.key, companyId: sibling.id });
    expect(read.body.screening_questions).toEqual(expected);
  });
});

describe('a failed write leaves nothing behind', () => {
  test('an application whose fields would not fit one DynamoDB item is a 400 before anything is stored', async () => {
    const before = await snapshot();
    const answers = Array.from({ length: 40 }, (_, i) => ({ id: `q${i}`, answer: 'a'.repeat(10_000) }));
    const res = await post({
      job: jobIds['J-1'],
      candidate: candidate(),
      screening_questions: answers,
      attachments: [{ type: 'cv', name: 'cv.pdf', content_type: 'application/pdf', data: PDF.toString('base64') }],
    });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toEqual(['body']);
    expect(await snapshot()).toEqual({ ...before, messages: 0 });
  });

  test('when the transaction fails after the uploads, the objects are removed and no message is sent', async () => {
    const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
    const { config, db } = await import('#platform/clients.js');
    const { keys } = await import('#platform/keys.js');
    const probe = await post({ job: jobIds['J-1'], candidate: candidate() });
    await drainQueue();
    // Occupy the id the next create will get, so its transaction is cancelled after the attachments went up.
    const nextId = probe.body.id + 1;
    await db().send(new PutCommand({ TableName: config().tableName, Item: { ...keys.application(nextId), placeholder: true } }));
    const before = await snapshot();
    const res = await post({
      job: jobIds['J-1'],
      candidate: candidate(),
      attachments: [{ type: 'cv', name: 'cv.pdf', content_type: 'application/pdf', data: PDF.toString('base64') }],
    });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      detail: expect.stringContaining(res.headers.get('x-request-id')!),
      code: 'internal_error',
      request_id: res.headers.get('x-request-id'),
    });
    expect(await objectKeys(`companies/${company.id}/applications/${nextId}/`)).toEqual([]);
    expect(await snapshot()).toEqual({ ...before, messages: 0 });
    const listed = await api.get('/applications/', { key: partner.key, companyId: company.id });
    expect(listed.body.results.map((a: { id: number }) => a.id)).not.toContain(nextId);
  });
});
