/**
 * The Recruitee connector straight against its simulator (no storage involved): the careers-site check
 * (no credentials: what it accepts and each way it refuses), the one-call offers list, the open_questions
 * mapping, and the mapping of Recruitee's answers to the error kinds the sync worker acts on. The application
 * body (answers, files, the slug) is in recruitee-applications.test.ts. Odd answers come from a bare loopback server.
 */
import { mapRecruiteeOffer, recruiteeConnector, recruiteeEmploymentType } from '#delivery/connectors/recruitee.js';
import { connectorFor, loadConnector } from '#delivery/connectors/registry.js';
import { recruiteeDescriptor } from '#delivery/connectors/recruitee-descriptor.js';
import { answers, company, credentials, recruiteeEdge, submission } from '../helpers/recruitee-edge.js';
import { rejection } from '../helpers/submissions.js';
import type { Reply } from '../simulators/server.js';
import { recruiteeOfferJson, type RecruiteeSimulator, type RecruiteeSite } from '../simulators/recruitee.js';
import { withoutPacing } from '../simulators/server.js';

withoutPacing();

const edge = recruiteeEdge();
let sim: RecruiteeSimulator;
let site: RecruiteeSite;
beforeEach(() => ({ sim, site } = edge));
const useOdd = () => edge.useOdd();

describe('credentials check (the careers site: no credentials)', () => {
  test('an existing careers site is accepted with one GET of the offers list, and nothing is created', async () => {
    const before = sim.server.requests.length;
    await expect(recruiteeConnector.validateCredentials(credentials, company)).resolves.toBeUndefined();
    const made = sim.server.requests.slice(before);
    expect(made.map((r) => [r.method, r.path])).toEqual([['GET', '/recruitee/edge/api/offers/']]);
    expect(made[0].headers.authorization).toBeUndefined();
    expect(sim.candidates.filter((c) => c.company === 'edge')).toHaveLength(0);
  });

  test.each([
    ['an unknown company', { company: 'nobody-here' }],
    ['a careers site that was deleted', credentials],
  ])('%s (404 on the company) is credentials_rejected naming company', async (_name, creds) => {
    site.gone = true;
    const error = await rejection(recruiteeConnector.validateCredentials(creds, company));
    expect(error).toMatchObject({ kind: 'credentials_rejected', field: 'company', name: 'CredentialsRejectedError' });
  });

  test.each([
    ['200 with an HTML page', { status: 200, raw: '<html>a parked domain</html>', headers: { 'Content-Type': 'text/html' } }],
    ['200 with JSON that is not an offers list', { status: 200, body: { jobs: [] } }],
    ['403 from the careers site', { status: 403, raw: 'Forbidden', headers: { 'Content-Type': 'text/plain' } }],
  ])('%s is not taken for proof: credentials_rejected naming company', async (_name, reply) => {
    useOdd();
    edge.oddReply = reply as Reply;
    await expect(recruiteeConnector.validateCredentials(credentials, company)).rejects.toMatchObject({
      kind: 'credentials_rejected',
      field: 'company',
    });
  });

  test('an unreachable careers site, a 5xx and a timeout are transient; a 429 is rate_limited', async () => {
    process.env.RECRUITEE_API_URL = 'http://127.0.0.1:1/recruitee/{company}';
    await expect(recruiteeConnector.validateCredentials(credentials, company)).rejects.toMatchObject({ kind: 'transient' });
    useOdd();
    edge.oddReply = { status: 502, raw: 'Bad gateway', headers: { 'Content-Type': 'text/plain' } };
    await expect(recruiteeConnector.validateCredentials(credentials, company)).rejects.toMatchObject({ kind: 'transient' });
    edge.oddReply = { status: 429, body: {}, headers: { 'Retry-After': '30' } };
    await expect(recruiteeConnector.validateCredentials(credentials, company)).rejects.toMatchObject({
      kind: 'rate_limited',
      retryAfterSeconds: 30,
    });
    process.env.ATS_TIMEOUT_MS = '100';
    edge.oddReply = { status: 200, body: { offers: [] }, delayMs: 400 };
    try {
      await expect(recruiteeConnector.validateCredentials(credentials, company)).rejects.toMatchObject({ kind: 'transient' });
    } finally {
      delete process.env.ATS_TIMEOUT_MS;
    }
  });

  test('the registry declares the company field, the optional Careers API token (P357) and ATS API token (P351), the base URL settings and what the check cannot prove', async () => {
    const connector = connectorFor('recruitee')!;
    expect(connector).toBe(recruiteeDescriptor);
    expect(await loadConnector('recruitee')).toBe(recruiteeConnector);
    expect(connector.credentialFields.map((f) => [f.name, f.flag, f.secret ?? false, f.default])).toEqual([
      ['company', '--company', false, undefined],
      ['careers_token', '--careers-token', true, ''],
      ['api_token', '--api-token', true, ''],
    ]);
    const pattern = connector.credentialFields[0].pattern;
    expect(['acme', 'acme-careers', 'a1'].every((v) => pattern.test(v))).toBe(true);
    expect(['', '-acme', 'acme.recruitee.com', 'acme/../x', 'a b'].some((v) => pattern.test(v))).toBe(false);
    expect(connector.settings).toEqual([
      expect.objectContaining({ env: 'RECRUITEE_API_URL', default: 'https://{company}.recruitee.com' }),
      expect.objectContaining({ env: 'RECRUITEE_ATS_API_URL', default: 'https://api.recruitee.com' }),
    ]);
    expect(connector.check.doesNotProve).toEqual(expect.any(String));
  });
});

describe('the Careers API token (P357, https://docs.recruitee.com/reference/authentication-1)', () => {
  const TOKEN = 'careers-token-0123456789';
  const withToken = { ...credentials, careers_token: TOKEN };

  test('given, it goes as X-Careers-Sites-Token on the check, the import and the apply POST; not given, no such header', async () => {
    site.careersTokens = [TOKEN];
    const before = sim.server.requests.length;
    await recruiteeConnector.validateCredentials(withToken, company);
    await recruiteeConnector.listPublishedJobs(company, withToken);
    await recruiteeConnector.submitApplication(submission({ screeningAnswers: answers() }), withToken);
    const made = sim.server.requests.slice(before);
    expect(made.map((r) => [r.method, r.path, r.headers['x-careers-sites-token']])).toEqual([
      ['GET', '/recruitee/edge/api/offers/', TOKEN],
      ['GET', '/recruitee/edge/api/offers/', TOKEN],
      ['POST', '/recruitee/edge/api/offers/platform-engineer/candidates', TOKEN],
    ]);
    const after = sim.server.requests.length;
    await recruiteeConnector.listPublishedJobs(company, credentials);
    expect(sim.server.requests.slice(after).map((r) => r.headers['x-careers-sites-token'])).toEqual([undefined]);
  });

  test('after the deadline a site answers 401 without it: the check, the import and the submission say careers_token', async () => {
    site.requireCareersToken = true;
    site.careersTokens = [TOKEN];
    const created = sim.candidates.length;
    for (const call of [
      () => recruiteeConnector.validateCredentials(credentials, company),
      () => recruiteeConnector.listPublishedJobs(company, credentials),
      () => recruiteeConnector.submitApplication(submission({ screeningAnswers: answers() }), credentials),
    ])
      expect(await rejection(call())).toMatchObject({
        kind: 'credentials_rejected',
        field: 'careers_token',
        message: expect.stringContaining('asks for a Careers API token'),
      });
    expect(sim.candidates).toHaveLength(created);
    // With the token, the same site answers.
    await expect(recruiteeConnector.validateCredentials(withToken, company)).resolves.toBeUndefined();
  });

  test("a token that is not one of the site's is refused (401) naming careers_token, and nothing is created", async () => {
    site.careersTokens = [TOKEN];
    const created = sim.candidates.length;
    const wrong = { ...credentials, careers_token: 'not-a-token-of-this-site' };
    expect(await rejection(recruiteeConnector.validateCredentials(wrong, company))).toMatchObject({
      kind: 'credentials_rejected',
      field: 'careers_token',
      message: expect.stringContaining('refused the Careers API token'),
    });
    expect(await rejection(recruiteeConnector.submitApplication(submission({ screeningAnswers: answers() }), wrong))).toMatchObject({
      kind: 'credentials_rejected',
      field: 'careers_token',
    });
    expect(sim.candidates).toHaveLength(created);
    expect(JSON.stringify(await rejection(recruiteeConnector.listPublishedJobs(company, wrong)))).not.toContain('not-a-token');
  });
});

describe('jobs', () => {
  test('every published offer comes from one call (no paging is documented), none left behind', async () => {
    site.offers = Array.from({ length: 250 }, (_, i) => ({ id: 1000 + i, title: `Role ${i}` }));
    site.offers.push({ id: 2000, title: 'Closed role', status: 'closed' });
    const before = sim.server.requests.length;
    const jobs = (await recruiteeConnector.listPublishedJobs(company, credentials))!;
    const made = sim.server.requests.slice(before);
    expect(made).toHaveLength(1);
    expect([...made[0].query.keys()]).toEqual([]);
    expect(jobs).toHaveLength(250);
    expect(new Set(jobs.map((j) => j.external_id)).size).toBe(250);
    expect(jobs.map((j) => j.external_id)).not.toContain('2000');
  });

  test('an offer the list carries with another status than published is left out', async () => {
    useOdd();
    const offer = recruiteeOfferJson(site, { id: 7, title: 'Draft' });
    edge.oddReply = {
      status: 200,
      body: { offers: [offer, { ...offer, id: 8, status: 'closed' }, { ...offer, id: 9, status: undefined }] },
    };
    expect((await recruiteeConnector.listPublishedJobs(company, credentials))!.map((j) => j.external_id)).toEqual(['7', '9']);
  });

  test('an offer maps onto our Job fields, raw_values untouched', async () => {
    site.offers = [
      {
        id: 77,
        title: 'Data Analyst',
        description: '<p>Numbers</p>',
        requirements: '<ul><li>SQL</li></ul>',
        location: 'Amsterdam, Netherlands',
        city: 'Amsterdam',
        country: 'Netherlands',
        countryCode: 'NL',
        department: 'Data & Analytics',
        employmentTypeCode: 'parttime_fixed_term',
        remote: true,
        salary: { min: '3000', max: 4500, currency: 'EUR', period: 'month' },
        optionsCv: 'optional',
        optionsPhone: 'off',
        optionsCoverLetter: 'off',
      },
    ];
    const [job] = (await recruiteeConnector.listPublishedJobs(company, credentials))!;
    const raw = recruiteeOfferJson(site, site.offers[0]);
    expect(job).toMatchObject({
      external_id: '77',
      title: 'Data Analyst',
      description: '<p>Numbers</p>\n<h3>Requirements</h3>\n<ul><li>SQL</li></ul>',
      description_sections: [
        { id: 'description', type: 'html', order: 1, title: 'Description', content: '<p>Numbers</p>' },
        { id: 'requirements', type: 'html', order: 2, title: 'Requirements', content: '<ul><li>SQL</li></ul>' },
      ],
      posting_url: 'https://edge.recruitee.com/o/data-analyst',
      application_url: 'https://edge.recruitee.com/o/data-analyst/c/new',
      location_name: 'Amsterdam, Netherlands',
      city: 'Amsterdam',
      country: 'NL',
      postcode: '10115',
      remote: 'remote',
      employment_type: 'contract',
      work_schedule: 'part_time',
      senority: 'mid_level',
      category: 'data_analytics',
      salary_from: 3000,
      salary_to: 4500,
      salary_currency: 'EUR',
      salary_frequency: 'monthly',
      custom_fields: { slug: 'data-analyst', department: 'Data & Analytics', tags: ['berlin'], min_hours: 32, max_hours: 40 },
      import_source: 'api',
      // P276: the apply path names the offer by its slug; external_id stays the id.
      ats_apply_key: 'data-analyst',
    });
    expect(job.raw_values).toEqual(raw);
    // Phone and cover letter are switched off on this offer; the CV is optional.
    expect(job.application_form_fields!.map((f) => [f.id, f.required])).toEqual([
      ['name', true],
      ['email', true],
      ['cv', false],
    ]);
  });

  test("an offer whose feed has no options_* settings: phone and CV required, Recruitee's defaults; a candidate without a phone is refused", async () => {
    site.offers = [{ id: 78, title: 'Support Lead', withoutOptions: true }];
    const [job] = (await recruiteeConnector.listPublishedJobs(company, credentials))!;
    expect(job.raw_values).not.toHaveProperty('options_phone');
    expect(job.application_form_fields!.map((f) => [f.id, f.required])).toEqual([
      ['name', true],
      ['email', true],
      ['phone', true],
      ['cv', true],
    ]);
    const candidate = { email: 'nophone@example.com', full_name: 'Ada Nophone' };
    const error = await rejection(
      recruiteeConnector.submitApplication(
        submission({ jobExternalId: '78', jobApplyKey: 'support-lead', candidate, screeningAnswers: [] }),
        credentials,
      ),
    );
    expect(error).toMatchObject({ kind: 'invalid_data', message: expect.stringContaining('phone') });
  });

  test('open_questions become screening questions: kind → answer_type, options in position order, required', async () => {
    site.offers[0].questions!.push({ id: 17, kind: 'video', body: 'Say hello' }, { id: 18, kind: 'something_new', body: 'Later' });
    const [job] = (await recruiteeConnector.listPublishedJobs(company, credentials))!;
    expect(job.screening_questions).toEqual([
      { id: '11', question: 'Notice period?', answer_type: 'text', required: false, options: [] },
      { id: '12', question: 'Do you need a visa?', answer_type: 'boolean', required: true, options: [] },
      {
        id: '13',
        question: 'Languages',
        answer_type: 'multi_select',
        required: false,
        options: [
          { label: 'Go', value: 'Go' },
          { label: 'TypeScript', value: 'TypeScript' },
          { label: 'Rust', value: 'Rust' },
        ],
      },
      {
        id: '14',
        question: 'Contract',
        answer_type: 'single_select',
        required: false,
        options: [
          { label: 'B2B', value: 'B2B' },
          { label: 'Employment', value: 'Employment' },
        ],
      },
      { id: '15', question: 'I agree to the privacy policy', answer_type: 'consent', required: true, options: [] },
      { id: '16', question: 'Portfolio', answer_type: 'file', required: false, options: [] },
      { id: '17', question: 'Say hello', answer_type: 'video', required: false, options: [] },
      { id: '18', question: 'Later', answer_type: 'text', required: false, options: [] },
    ]);
    expect(job.application_form_fields!.filter((f) => f.id.startsWith('open_question_')).map((f) => [f.id, f.type, f.required])).toEqual([
      ['open_question_11', 'string', false],
      ['open_question_12', 'boolean', true],
      ['open_question_13', 'multi_choice', false],
      ['open_question_14', 'single_choice', false],
      ['open_question_15', 'legal', true],
      ['open_question_16', 'file', false],
      ['open_question_17', 'video', false],
      ['open_question_18', 'something_new', false],
    ]);
  });

  test('options arrive out of order and are sorted by position; non-http URLs are dropped', () => {
    const job = mapRecruiteeOffer({
      id: 5,
      title: 'X',
      careers_url: 'javascript:alert(1)',
      careers_apply_url: 'ftp://example.com/apply',
      open_questions: [
        {
          id: 1,
          kind: 'single_choice',
          body: 'Pick',
          position: 1,
          open_question_options: [
            { id: 2, body: 'Second', position: 2 },
            { id: 1, body: 'First', position: 1 },
          ],
        },
      ],
    });
    expect(job.screening_questions![0].options).toEqual([
      { label: 'First', value: 'First' },
      { label: 'Second', value: 'Second' },
    ]);
    expect([job.posting_url, job.application_url]).toEqual([null, null]);
  });

  test.each([
    ['fulltime_permanent', 'permanent'],
    ['parttime', 'permanent'],
    ['internship', 'intern'],
    ['freelance', 'freelance'],
    ['fulltime_fixed_term', 'contract'],
    ['temporary', 'temporary'],
    ['traineeship', 'apprenticeship'],
    ['volunteer', 'volunteer'],
    ['mystery', 'other'],
  ])('employment_type_code %s → %s', (code, expected) => {
    expect(recruiteeEmploymentType(code)).toBe(expected);
  });

  test.each([
    ['a body that is not JSON', { status: 200, raw: 'oops', headers: { 'Content-Type': 'application/json' } }],
    ['offers that are not a list', { status: 200, body: { offers: 'not a list' } }],
    ['an offer without an id', { status: 200, body: { offers: [{ title: 'No id' }] } }],
    ['a top-level array', { status: 200, body: [{ id: 1 }] }],
  ])('a malformed feed (%s) is invalid_data', async (_name, reply) => {
    useOdd();
    edge.oddReply = reply as Reply;
    await expect(recruiteeConnector.listPublishedJobs(company, credentials)).rejects.toMatchObject({ kind: 'invalid_data' });
  });

  test('a careers site gone from Recruitee fails the import as credentials_rejected naming company', async () => {
    site.gone = true;
    await expect(recruiteeConnector.listPublishedJobs(company, credentials)).rejects.toMatchObject({
      kind: 'credentials_rejected',
      field: 'company',
    });
  });
});

describe('error mapping', () => {
  test('an offer that is closed or unknown (404, careers site still there) is job_not_published', async () => {
    site.offers[0].status = 'closed';
    await expect(recruiteeConnector.submitApplication(submission({ screeningAnswers: answers() }), credentials)).rejects.toMatchObject({
      kind: 'job_not_published',
    });
    await expect(
      recruiteeConnector.submitApplication(submission({ jobExternalId: '999999', jobApplyKey: 'no-such-offer' }), credentials),
    ).rejects.toMatchObject({
      kind: 'job_not_published',
    });
  });

  test('a careers site that no longer exists (404 on the offer and on the list) is credentials_rejected naming company', async () => {
    site.gone = true;
    const before = sim.server.requests.length;
    await expect(recruiteeConnector.submitApplication(submission({ screeningAnswers: answers() }), credentials)).rejects.toMatchObject({
      kind: 'credentials_rejected',
      field: 'company',
    });
    expect(sim.server.requests.slice(before).map((r) => [r.method, r.path])).toEqual([
      ['POST', '/recruitee/edge/api/offers/platform-engineer/candidates'],
      ['GET', '/recruitee/edge/api/offers/'],
    ]);
  });

  test('a validation failure is invalid_data naming the fields, never the candidate’s data', async () => {
    const error = await rejection(
      recruiteeConnector.submitApplication(
        submission({ candidate: { email: 'not-an-email', full_name: 'Ada Lovelace' }, screeningAnswers: answers() }),
        credentials,
      ),
    );
    expect(error).toMatchObject({ kind: 'invalid_data' });
    expect(error.message).toBe('Recruitee refused the application (422: email, phone).');
    sim.nextApplyReply = { status: 422, body: { error: ['Email ada.edge@example.com is invalid for Ada Lovelace'] } };
    const echoed = await rejection(recruiteeConnector.submitApplication(submission(), credentials));
    expect(echoed).toMatchObject({ kind: 'invalid_data' });
    expect(echoed.message).not.toMatch(/ada\.edge|Lovelace|cv\.pdf|127\.0\.0\.1|http/);
  });

  test.each([
    ['422 already applied', { status: 422, body: { error: ['Candidate has already applied for this job'] } }, 'duplicate', undefined],
    [
      '422 errors object naming the offer as closed',
      { status: 422, body: { errors: { offer: ['is closed'] } } },
      'job_not_published',
      undefined,
    ],
    ['422 naming a file as too big', { status: 422, body: { error: ['Cv file size is too big'] } }, 'attachment_rejected', undefined],
    ['413', { status: 413, raw: 'Request Entity Too Large', headers: { 'Content-Type': 'text/plain' } }, 'attachment_rejected', undefined],
    ['400', { status: 400, body: { error: ['param is missing'] } }, 'invalid_data', undefined],
    ['429 with Retry-After', { status: 429, body: {}, headers: { 'Retry-After': '7' } }, 'rate_limited', 7],
    ['503', { status: 503, raw: 'Service Unavailable', headers: { 'Content-Type': 'text/plain' } }, 'transient', undefined],
    ['401', { status: 401, body: { error: 'Unauthorized' } }, 'credentials_rejected', undefined],
  ])('%s → %s', async (_name, reply, kind, retryAfter) => {
    sim.nextApplyReply = reply as Reply;
    const error = await rejection(recruiteeConnector.submitApplication(submission({ screeningAnswers: answers() }), credentials));
    expect(error).toMatchObject({ kind, retryAfterSeconds: retryAfter });
  });

  test('the simulator’s rate limit (429 + Retry-After) is rate_limited, and the next attempt goes through', async () => {
    sim.rateLimitNext = 1;
    sim.retryAfter = '3';
    try {
      await expect(recruiteeConnector.submitApplication(submission({ screeningAnswers: answers() }), credentials)).rejects.toMatchObject({
        kind: 'rate_limited',
        retryAfterSeconds: 3,
      });
      await expect(recruiteeConnector.submitApplication(submission({ screeningAnswers: answers() }), credentials)).resolves.toEqual({
        externalId: expect.any(String),
      });
    } finally {
      sim.retryAfter = '1';
    }
  });

  test('201 without a candidate id is still a success, without an external id', async () => {
    sim.nextApplyReply = { status: 201, body: {} };
    await expect(recruiteeConnector.submitApplication(submission({ screeningAnswers: answers() }), credentials)).resolves.toEqual({
      externalId: null,
    });
  });

  test('a timeout while applying is transient', async () => {
    useOdd();
    edge.oddReply = { status: 201, body: { candidate: { id: 1 } }, delayMs: 400 };
    process.env.ATS_TIMEOUT_MS = '100';
    try {
      await expect(recruiteeConnector.submitApplication(submission(), credentials)).rejects.toMatchObject({ kind: 'transient' });
    } finally {
      delete process.env.ATS_TIMEOUT_MS;
    }
  });
});
