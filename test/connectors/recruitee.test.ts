/**
 * The Recruitee connector straight against its simulator (no storage involved): the careers-site check
 * (no credentials: what it accepts and each way it refuses), the one-call offers list, the open_questions
 * mapping, the answer formats by question kind, the file limits, and the mapping of Recruitee's answers to
 * the error kinds the sync worker acts on. Odd answers come from a bare loopback server.
 */
import type { CompanyRecord } from '#companies/company-schema.js';
import { mapRecruiteeOffer, recruiteeConnector, recruiteeEmploymentType } from '#delivery/connectors/recruitee.js';
import { connectorFor } from '#delivery/connectors/registry.js';
import { rejection, submissionFactory } from '../helpers/submissions.js';
import { startSimulatorServer, type Reply, type SimulatorServer } from '../simulators/server.js';
import { recruiteeOfferJson, startRecruiteeSimulator, type RecruiteeSimulator, type RecruiteeSite } from '../simulators/recruitee.js';

const PDF = Buffer.from('%PDF-1.5\nrecruitee edge\n%%EOF');
const company = { id: 1, ats: 'recruitee' } as CompanyRecord;
const credentials = { company: 'edge' };

const base = submissionFactory({
  company,
  pdf: PDF,
  jobExternalId: '501',
  candidate: { email: 'ada.edge@example.com', first_name: 'Ada', last_name: 'Lovelace', phone: '+31 20 555' },
  files: [{ name: 'cv.pdf' }],
  recordOpened: true,
});
/** An application to offer 501, whose slug the import stored as the job's ats_apply_key (P276). */
const submission: typeof base = (overrides = {}, files) => base({ jobApplyKey: 'platform-engineer', ...overrides }, files);
const posts = (from: number) => sim.server.requests.slice(from).filter((r) => r.method === 'POST');

let sim: RecruiteeSimulator;
let odd: SimulatorServer;
let oddReply: Reply & { delayMs?: number } = { status: 200, body: { offers: [] } };
let site: RecruiteeSite;
const simUrl = () => sim.env.RECRUITEE_API_URL;
const useOdd = () => (process.env.RECRUITEE_API_URL = `${odd.url}/odd/{company}`);

beforeAll(async () => {
  sim = await startRecruiteeSimulator();
  odd = await startSimulatorServer(async () => {
    if (oddReply.delayMs) await new Promise((r) => setTimeout(r, oddReply.delayMs));
    return oddReply;
  });
});
afterAll(() => Promise.all([sim.server.stop(), odd.stop()]));

beforeEach(() => {
  process.env.RECRUITEE_API_URL = simUrl();
  sim.rateLimitNext = 0;
  sim.maxBytes = 10 * 1024 * 1024;
  sim.nextApplyReply = undefined;
  site = {
    company: 'edge',
    offers: [
      {
        id: 501,
        title: 'Platform Engineer',
        optionsPhone: 'required',
        questions: [
          { id: 11, kind: 'string', body: 'Notice period?' },
          { id: 12, kind: 'boolean', body: 'Do you need a visa?', required: true },
          { id: 13, kind: 'multi_choice', body: 'Languages', options: ['Go', 'TypeScript', 'Rust'] },
          { id: 14, kind: 'single_choice', body: 'Contract', options: ['B2B', 'Employment'] },
          { id: 15, kind: 'legal', body: 'I agree to the privacy policy', required: true },
          { id: 16, kind: 'file', body: 'Portfolio' },
        ],
      },
    ],
  };
  sim.sites.set('edge', site);
});

const answers = (extra: Record<string, string>[] = []) => [
  { id: '12', question: 'Do you need a visa?', answer_type: 'boolean', answer: 'No' },
  { id: '15', question: 'I agree to the privacy policy', answer_type: 'consent', answer: 'yes' },
  ...extra,
];

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
    oddReply = reply as Reply;
    await expect(recruiteeConnector.validateCredentials(credentials, company)).rejects.toMatchObject({
      kind: 'credentials_rejected',
      field: 'company',
    });
  });

  test('an unreachable careers site, a 5xx and a timeout are transient; a 429 is rate_limited', async () => {
    process.env.RECRUITEE_API_URL = 'http://127.0.0.1:1/recruitee/{company}';
    await expect(recruiteeConnector.validateCredentials(credentials, company)).rejects.toMatchObject({ kind: 'transient' });
    useOdd();
    oddReply = { status: 502, raw: 'Bad gateway', headers: { 'Content-Type': 'text/plain' } };
    await expect(recruiteeConnector.validateCredentials(credentials, company)).rejects.toMatchObject({ kind: 'transient' });
    oddReply = { status: 429, body: {}, headers: { 'Retry-After': '30' } };
    await expect(recruiteeConnector.validateCredentials(credentials, company)).rejects.toMatchObject({
      kind: 'rate_limited',
      retryAfterSeconds: 30,
    });
    process.env.ATS_TIMEOUT_MS = '100';
    oddReply = { status: 200, body: { offers: [] }, delayMs: 400 };
    try {
      await expect(recruiteeConnector.validateCredentials(credentials, company)).rejects.toMatchObject({ kind: 'transient' });
    } finally {
      delete process.env.ATS_TIMEOUT_MS;
    }
  });

  test('the registry declares the company field, the base URL setting and what the check cannot prove', () => {
    const connector = connectorFor('recruitee')!;
    expect(connector).toBe(recruiteeConnector);
    expect(connector.credentialFields.map((f) => [f.name, f.flag, f.secret ?? false])).toEqual([['company', '--company', false]]);
    const pattern = connector.credentialFields[0].pattern;
    expect(['acme', 'acme-careers', 'a1'].every((v) => pattern.test(v))).toBe(true);
    expect(['', '-acme', 'acme.recruitee.com', 'acme/../x', 'a b'].some((v) => pattern.test(v))).toBe(false);
    expect(connector.settings).toEqual([expect.objectContaining({ env: 'RECRUITEE_API_URL', default: 'https://{company}.recruitee.com' })]);
    expect(connector.check.doesNotProve).toEqual(expect.any(String));
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
    oddReply = { status: 200, body: { offers: [offer, { ...offer, id: 8, status: 'closed' }, { ...offer, id: 9, status: undefined }] } };
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
    oddReply = reply as Reply;
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

describe('applications', () => {
  test('answers go in the format of their kind: flag, multi_content[], content, and a file as the file question’s `file`; 201 gives the candidate id', async () => {
    const portfolio = Buffer.from('%PDF-1.5\nportfolio\n%%EOF');
    const before = sim.server.requests.length;
    const result = await recruiteeConnector.submitApplication(
      submission(
        {
          screeningAnswers: answers([
            { id: '11', answer_type: 'text', answer: 'One month' },
            { id: '13', answer_type: 'multi_select', answer: 'Go, Rust' },
            { id: 'open_question_14', answer_type: 'single_select', answer: 'B2B' },
            // The file question's text answer is not sent: the work sample below is its answer.
            { id: '16', answer_type: 'file', answer: 'portfolio.pdf' },
            { id: 'not-a-recruitee-question', answer_type: 'text', answer: 'ignored' },
          ]),
        },
        [{ name: 'cv.pdf' }, { name: 'portfolio.pdf', type: 'work_sample', bytes: portfolio }],
      ),
      credentials,
    );
    const created = sim.candidates.filter((c) => c.company === 'edge').pop()!;
    expect(result).toEqual({ externalId: String(created.id) });
    // The offers list is read once for the offer's file questions, then the application goes to the slug.
    expect(sim.server.requests.slice(before).map((r) => [r.method, r.path])).toEqual([
      ['GET', '/recruitee/edge/api/offers/'],
      ['POST', '/recruitee/edge/api/offers/platform-engineer/candidates'],
    ]);
    const request = sim.requestsTo(/\/recruitee\/edge\/api\/offers\/platform-engineer\/candidates$/).pop()!;
    const a = 'candidate[open_question_answers_attributes]';
    expect(request.fields).toEqual({
      'candidate[name]': ['Ada Lovelace'],
      'candidate[email]': ['ada.edge@example.com'],
      'candidate[phone]': ['+31 20 555'],
      [`${a}[0][open_question_id]`]: ['12'],
      [`${a}[0][flag]`]: ['false'],
      [`${a}[1][open_question_id]`]: ['15'],
      [`${a}[1][flag]`]: ['true'],
      [`${a}[2][open_question_id]`]: ['11'],
      [`${a}[2][content]`]: ['One month'],
      [`${a}[3][open_question_id]`]: ['13'],
      [`${a}[3][multi_content][]`]: ['Go', 'Rust'],
      [`${a}[4][open_question_id]`]: ['14'],
      [`${a}[4][content]`]: ['B2B'],
      [`${a}[5][open_question_id]`]: ['16'],
    });
    expect(request.files.map((f) => [f.field, f.filename, f.bytes])).toEqual([
      ['candidate[cv]', 'cv.pdf', PDF],
      [`${a}[5][file]`, 'portfolio.pdf', portfolio],
    ]);
    expect(created.answers).toHaveLength(6);
    expect(created.answers[5]).toMatchObject({ open_question_id: '16', file: { bytes: portfolio } });
  });

  test('a file question answered with text (a URL) and no file of the application is invalid_data, and nothing is sent', async () => {
    const before = sim.server.requests.length;
    const error = await rejection(
      recruiteeConnector.submitApplication(
        submission({ screeningAnswers: answers([{ id: '16', answer_type: 'file', answer: 'https://files.example.com/portfolio.pdf' }]) }),
        credentials,
      ),
    );
    expect(error).toMatchObject({ kind: 'invalid_data' });
    expect(error.message).toMatch(/question 16 has a text answer/);
    expect(error.message).not.toContain('files.example.com');
    expect(posts(before)).toEqual([]);
  });

  test('the quirk: a boolean question answered with content is refused by Recruitee (422), so the connector sends flag', async () => {
    // Sent the way a plain text answer goes, Recruitee refuses it …
    await expect(
      recruiteeConnector.submitApplication(
        submission({ screeningAnswers: [{ id: '12', answer_type: 'text', answer: 'No' }, answers()[1]] }),
        credentials,
      ),
    ).rejects.toMatchObject({ kind: 'invalid_data' });
    // … and with its kind's answer_type it goes as flag and is accepted.
    await expect(recruiteeConnector.submitApplication(submission({ screeningAnswers: answers() }), credentials)).resolves.toEqual({
      externalId: expect.any(String),
    });
  });

  test('consent is never invented: a required legal question answered "no" is refused as invalid_data', async () => {
    const error = await rejection(
      recruiteeConnector.submitApplication(
        submission({ screeningAnswers: [answers()[0], { ...answers()[1], answer: 'no' }] }),
        credentials,
      ),
    );
    expect(error).toMatchObject({ kind: 'invalid_data' });
    expect(error.message).toMatch(/^Recruitee refused the application \(422: screening answers\)/);
  });

  test('a one-word name goes as it is; without a phone there is no phone field', async () => {
    site.offers[0].optionsPhone = 'optional';
    await recruiteeConnector.submitApplication(
      submission({ candidate: { email: 'solo@example.com', full_name: 'Cher' }, screeningAnswers: answers() }),
      credentials,
    );
    const request = sim.requestsTo(/\/candidates$/).pop()!;
    expect(request.fields['candidate[name]']).toEqual(['Cher']);
    expect(request.fields['candidate[phone]']).toBeUndefined();
  });

  test('a cover letter that is text goes as the text candidate[cover_letter]; a second application with the same e-mail is accepted (no duplicate error)', async () => {
    const letter = 'Dear team,\nI would love to build your platform. – Ada';
    const files = [
      { name: 'cv.pdf' },
      { name: 'cover-letter.txt', type: 'cover_letter', content_type: 'text/plain', bytes: Buffer.from(letter) },
    ];
    const candidate = { email: 'twice@example.com', full_name: 'Ada Twice', phone: '+31 20 556' };
    const before = sim.server.requests.length;
    const first = await recruiteeConnector.submitApplication(submission({ candidate, screeningAnswers: answers() }, files), credentials);
    const second = await recruiteeConnector.submitApplication(submission({ candidate, screeningAnswers: answers() }, files), credentials);
    expect(second.externalId).not.toBe(first.externalId);
    // One CV and a text cover letter need no file question: no offers list is read.
    expect(sim.server.requests.slice(before).map((r) => r.method)).toEqual(['POST', 'POST']);
    const request = sim.requestsTo(/\/candidates$/).pop()!;
    // multipart/form-data carries line breaks as CRLF (the HTML form encoding), as a careers-site form would.
    const sent = letter.replace(/\n/g, '\r\n');
    expect(request.fields['candidate[cover_letter]']).toEqual([sent]);
    expect(request.files.map((f) => [f.field, f.filename, f.bytes])).toEqual([['candidate[cv]', 'cv.pdf', PDF]]);
    const created = sim.candidates.find((c) => String(c.id) === second.externalId)!;
    expect(created.coverLetter).toBe(sent);
    expect(created.possibleDuplicateOf).toBe(Number(first.externalId));
  });

  test('a cover-letter document goes as the file answer of the offer’s cover-letter question; without one it is attachment_rejected before any POST', async () => {
    const cover = Buffer.from('%PDF-1.5\ncover\n%%EOF');
    const files = [{ name: 'cv.pdf' }, { name: 'letter.pdf', type: 'cover_letter', bytes: cover }];
    const before = sim.server.requests.length;
    const error = await rejection(recruiteeConnector.submitApplication(submission({ screeningAnswers: answers() }, files), credentials));
    expect(error).toMatchObject({ kind: 'attachment_rejected', name: 'AttachmentRejectedError' });
    expect(error.message).toMatch(/cover letter as text.*no file question for the cover_letter file/);
    expect(error.message).not.toContain('letter.pdf');
    expect(posts(before)).toEqual([]);

    site.offers[0].questions!.push({ id: 17, kind: 'file', body: 'Motivation letter' });
    await recruiteeConnector.submitApplication(submission({ screeningAnswers: answers() }, files), credentials);
    const request = sim.requestsTo(/\/candidates$/).pop()!;
    expect(request.fields['candidate[cover_letter]']).toBeUndefined();
    expect(request.fields['candidate[open_question_answers_attributes][2][open_question_id]']).toEqual(['17']);
    expect(request.files.map((f) => [f.field, f.bytes])).toEqual([
      ['candidate[cv]', PDF],
      ['candidate[open_question_answers_attributes][2][file]', cover],
    ]);
  });

  test.each([
    ['not UTF-8', Buffer.from([0xff, 0xfe, 0x00, 0x41]), /not UTF-8 text/],
    ['over 64 KiB', Buffer.alloc(64 * 1024 + 1, 'a'), /up to 65536 bytes/],
  ])('a text cover letter %s is attachment_rejected before any POST', async (_name, bytes, message) => {
    const before = sim.server.requests.length;
    const files = [{ name: 'cv.pdf' }, { name: 'letter.txt', type: 'cover_letter', content_type: 'text/plain', bytes }];
    const error = await rejection(recruiteeConnector.submitApplication(submission({ screeningAnswers: answers() }, files), credentials));
    expect(error).toMatchObject({ kind: 'attachment_rejected' });
    expect(error.message).toMatch(message);
    expect(posts(before)).toEqual([]);
  });
});

describe('the offer’s slug (P276)', () => {
  test('a job imported without a stored slug: the offers list is read once for it, and the application goes to the slug', async () => {
    const before = sim.server.requests.length;
    await expect(
      recruiteeConnector.submitApplication(submission({ jobApplyKey: undefined, screeningAnswers: answers() }), credentials),
    ).resolves.toEqual({ externalId: expect.any(String) });
    expect(sim.server.requests.slice(before).map((r) => [r.method, r.path, r.status])).toEqual([
      ['GET', '/recruitee/edge/api/offers/', 200],
      ['POST', '/recruitee/edge/api/offers/platform-engineer/candidates', 201],
    ]);
  });

  test('without a stored slug, an offer missing from the list is job_not_published and a careers site gone is credentials_rejected; nothing is posted', async () => {
    const before = sim.server.requests.length;
    await expect(
      recruiteeConnector.submitApplication(submission({ jobApplyKey: undefined, jobExternalId: '999' }), credentials),
    ).rejects.toMatchObject({ kind: 'job_not_published' });
    site.gone = true;
    await expect(recruiteeConnector.submitApplication(submission({ jobApplyKey: undefined }), credentials)).rejects.toMatchObject({
      kind: 'credentials_rejected',
      field: 'company',
    });
    expect(posts(before)).toEqual([]);
  });

  test('the numeric id is never the path: Recruitee (the simulator) answers 404 to it', async () => {
    const before = sim.server.requests.length;
    await expect(
      recruiteeConnector.submitApplication(submission({ jobApplyKey: '501', screeningAnswers: answers() }), credentials),
    ).resolves.toEqual({ externalId: expect.any(String) });
    // A stored "slug" that is the id answers 404; the list names the offer's real slug, and the application goes there once.
    expect(sim.server.requests.slice(before).map((r) => [r.method, r.path, r.status])).toEqual([
      ['POST', '/recruitee/edge/api/offers/501/candidates', 404],
      ['GET', '/recruitee/edge/api/offers/', 200],
      ['POST', '/recruitee/edge/api/offers/platform-engineer/candidates', 201],
    ]);
  });

  test('a slug changed with the title since the import: one more POST to the new slug, one candidate', async () => {
    site.offers[0].slug = 'platform-engineer-berlin';
    const before = sim.server.requests.length;
    const count = sim.candidates.length;
    await recruiteeConnector.submitApplication(submission({ screeningAnswers: answers() }), credentials);
    expect(posts(before).map((r) => [r.path, r.status])).toEqual([
      ['/recruitee/edge/api/offers/platform-engineer/candidates', 404],
      ['/recruitee/edge/api/offers/platform-engineer-berlin/candidates', 201],
    ]);
    expect(sim.candidates.length).toBe(count + 1);
  });

  test('an offers list whose offer has no usable slug is invalid_data, and nothing is posted', async () => {
    useOdd();
    oddReply = { status: 200, body: { offers: [{ id: 501, title: 'Platform Engineer', slug: 'a/b' }] } };
    const error = await rejection(recruiteeConnector.submitApplication(submission({ jobApplyKey: undefined }), credentials));
    expect(error).toMatchObject({ kind: 'invalid_data', message: 'Recruitee lists the offer without a slug to apply to.' });
    expect(odd.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });
});

describe('attachments', () => {
  test.each([
    ['a file over 10 MB (refused before it is read)', [{ name: 'cv.pdf', size: 10 * 1024 * 1024 + 1 }], /up to 10485760 bytes/],
    ['a type Recruitee does not take', [{ name: 'cv.exe' }], /accepts only pdf, doc, docx, odt, rtf, txt/],
    [
      'a file type the offer has no file question for',
      [{ name: 'cv.pdf' }, { name: 'cert.pdf', type: 'certificate' }],
      /no file question for the certificate file/,
    ],
    ['a second CV', [{ name: 'cv.pdf' }, { name: 'cv2.pdf' }], /no file question for the cv file/],
    ['an empty file', [{ name: 'cv.pdf', bytes: Buffer.alloc(0) }], /empty/],
  ])('%s is attachment_rejected and nothing is posted', async (_name, files, message) => {
    const before = sim.server.requests.length;
    const sub = submission({ screeningAnswers: answers() }, files);
    const error = await rejection(recruiteeConnector.submitApplication(sub, credentials));
    expect(error).toMatchObject({ kind: 'attachment_rejected', name: 'AttachmentRejectedError' });
    expect(error.message).toMatch(message);
    for (const f of files) expect(error.message).not.toContain(f.name);
    expect(posts(before)).toEqual([]);
    if ('size' in files[0]) expect(sub.opened).toEqual([]);
  });

  test('a file Recruitee itself refuses (422 on the file) is attachment_rejected', async () => {
    sim.maxBytes = 8;
    await expect(recruiteeConnector.submitApplication(submission({ screeningAnswers: answers() }), credentials)).rejects.toMatchObject({
      kind: 'attachment_rejected',
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
    oddReply = { status: 201, body: { candidate: { id: 1 } }, delayMs: 400 };
    process.env.ATS_TIMEOUT_MS = '100';
    try {
      await expect(recruiteeConnector.submitApplication(submission(), credentials)).rejects.toMatchObject({ kind: 'transient' });
    } finally {
      delete process.env.ATS_TIMEOUT_MS;
    }
  });
});
