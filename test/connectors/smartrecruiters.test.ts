/**
 * The SmartRecruiters connector against its simulator (no storage involved): the credentials check, paging,
 * the mapping of postings and screening questions, answers and consent in the application body, the file
 * limits, the 429 backoff, and the mapping of the Application API's answers to our error kinds.
 */
import type { CompanyRecord } from '#companies/company-schema.js';
import { mapSmartRecruitersPosting, screeningQuestions } from '#delivery/connectors/smartrecruiters-jobs.js';
import { NIL_UUID, smartrecruitersConnector as connector } from '#delivery/connectors/smartrecruiters.js';
import { rejection, submissionFactory } from '../helpers/submissions.js';
import { startSimulatorServer, type SimulatorServer } from '../simulators/server.js';
import {
  startSmartRecruitersSimulator,
  type SmartRecruitersPostingFixture,
  type SmartRecruitersQuestionFixture,
  type SmartRecruitersSimulator,
} from '../simulators/smartrecruiters.js';

const PDF = Buffer.from('%PDF-1.5\nsmartrecruiters\n%%EOF');
const company = { id: 7, ats: 'smartrecruiters' } as CompanyRecord;
const KEY = 'sr-test-key-0123456789abcdef';
const OTHER_KEY = 'sr-other-key-0123456789abcdef';
const credentials = { company_identifier: 'Acme', api_key: KEY };

const QUESTIONS: SmartRecruitersQuestionFixture[] = [
  {
    id: 'q-eeo',
    label: 'Gender',
    fields: [
      {
        id: 'gender',
        label: 'Gender',
        type: 'SINGLE_SELECT',
        complianceType: 'DIVERSITY',
        values: [{ id: 'g1', label: 'Prefer not to say' }],
      },
    ],
  },
  { id: 'q-why', label: 'Why us?', fields: [{ id: 'why', label: 'Why us?', type: 'TEXTAREA', required: true }] },
  {
    id: 'q-shift',
    label: 'Preferred shift',
    fields: [
      {
        id: 'shift',
        label: 'Shift',
        type: 'SINGLE_SELECT',
        values: [
          { id: 's-early', label: 'Early' },
          { id: 's-late', label: 'Late' },
        ],
      },
    ],
  },
  {
    id: 'q-tools',
    label: 'Tools',
    fields: [
      {
        id: 'tools',
        label: 'Tools',
        type: 'MULTI_SELECT',
        values: [
          { id: 't-ts', label: 'TypeScript' },
          { id: 't-go', label: 'Go' },
        ],
      },
    ],
  },
  { id: 'q-permit', label: 'Work permit?', fields: [{ id: 'permit', label: 'Work permit', type: 'CHECKBOX' }] },
  {
    id: 'q-lang',
    label: 'Languages',
    repeatable: true,
    fields: [
      { id: 'note', label: 'Tell us about languages', type: 'INFORMATION' },
      { id: 'language', label: 'Language', type: 'INPUT_TEXT', required: true },
      { id: 'level', label: 'Level', type: 'SINGLE_SELECT', values: [{ id: 'l-c1', label: 'C1' }] },
    ],
  },
];

const posting = (n: number, extra: Partial<SmartRecruitersPostingFixture> = {}): SmartRecruitersPostingFixture => ({
  id: `74400${n}`,
  uuid: `00000000-0000-4000-8000-00000000000${n}`,
  name: `Job ${n}`,
  ...extra,
});

const submission = submissionFactory({
  company,
  pdf: PDF,
  jobExternalId: posting(1).uuid,
  candidate: { email: 'ada.lovelace@example.com', first_name: 'Ada', last_name: 'Lovelace' },
  screeningAnswers: [
    { id: 'q-why', question: 'Why us?', answer_type: 'textarea', answer: 'Engines.' },
    { id: 'q-lang:language', question: 'Languages: Language', answer_type: 'text', answer: 'English' },
  ],
});

let sim: SmartRecruitersSimulator;
let odd: SimulatorServer;
let oddReply: { status: number; body?: unknown; headers?: Record<string, string> } = { status: 201, body: {} };
const saved = { ...process.env };

beforeAll(async () => {
  [sim, odd] = await Promise.all([
    startSmartRecruitersSimulator(),
    startSimulatorServer((req) => {
      if (req.method === 'GET' && req.path.endsWith('/configuration')) return { status: 200, body: { questions: [] } };
      return oddReply;
    }),
  ]);
  process.env.SMARTRECRUITERS_API_URL = sim.env.SMARTRECRUITERS_API_URL;
  process.env.SMARTRECRUITERS_RETRY_BASE_MS = '20';
  sim.companies.set('Acme', {
    identifier: 'Acme',
    apiKey: KEY,
    postings: [
      posting(1, {
        questions: QUESTIONS,
        location: { city: 'Hamburg', region: 'Hamburg', country: 'de', remote: true, latitude: '53.55', longitude: '9.99' },
        experienceLevel: { id: 'entry_level', label: 'Entry Level' },
        typeOfEmployment: 'Part-time',
      }),
      posting(2),
      posting(3),
      posting(4),
      posting(5),
    ],
  });
  sim.companies.set('Empty', { identifier: 'Empty', apiKey: OTHER_KEY, postings: [] });
});
afterAll(async () => {
  process.env = saved;
  await Promise.all([sim.server.stop(), odd.stop()]);
});

const writes = () => sim.server.requests.filter((r) => r.method !== 'GET').length;

describe('credentials check', () => {
  test('accepted: one posting listed, its configuration read with the key; nothing is created', async () => {
    const before = sim.server.requests.length;
    const writesBefore = writes();
    await expect(connector.validateCredentials(credentials, company)).resolves.toBeUndefined();
    const made = sim.server.requests.slice(before);
    expect(made.map((r) => [r.method, r.path, r.query.get('limit'), r.headers['x-smarttoken'] ?? null])).toEqual([
      ['GET', '/smartrecruiters/v1/companies/Acme/postings', '1', null],
      ['GET', `/smartrecruiters/postings/${posting(1).uuid}/configuration`, null, KEY],
    ]);
    expect(writes()).toBe(writesBefore);
  });

  test('a wrong key is credentials_rejected naming api_key, and the key is not in the message', async () => {
    const error = await rejection(connector.validateCredentials({ ...credentials, api_key: 'sr-wrong-key-0123456789abcdef' }, company));
    expect(error).toMatchObject({ kind: 'credentials_rejected', field: 'api_key' });
    expect(error.message).toMatch(/SmartRecruiters.*401/);
    expect(error.message).not.toContain('sr-wrong-key');
  });

  test("another company's key (404 for this company's posting) is credentials_rejected naming api_key", async () => {
    await expect(connector.validateCredentials({ ...credentials, api_key: OTHER_KEY }, company)).rejects.toMatchObject({
      kind: 'credentials_rejected',
      field: 'api_key',
    });
  });

  test('a company without postings: the key is checked on a posting that cannot exist (404 accepted, 401 rejected)', async () => {
    const before = sim.server.requests.length;
    await expect(connector.validateCredentials({ company_identifier: 'Empty', api_key: OTHER_KEY }, company)).resolves.toBeUndefined();
    expect(sim.server.requests.slice(before).map((r) => [r.path, r.status])).toEqual([
      ['/smartrecruiters/v1/companies/Empty/postings', 200],
      [`/smartrecruiters/postings/${NIL_UUID}/configuration`, 404],
    ]);
    await expect(
      connector.validateCredentials({ company_identifier: 'Empty', api_key: 'sr-wrong-key-0123456789abcdef' }, company),
    ).rejects.toMatchObject({ kind: 'credentials_rejected', field: 'api_key' });
  });

  test('unreachable is transient; a 5xx is transient; an odd answer is invalid_data', async () => {
    process.env.SMARTRECRUITERS_API_URL = 'http://127.0.0.1:9';
    try {
      await expect(connector.validateCredentials(credentials, company)).rejects.toMatchObject({ kind: 'transient' });
    } finally {
      process.env.SMARTRECRUITERS_API_URL = sim.env.SMARTRECRUITERS_API_URL;
    }
    process.env.SMARTRECRUITERS_API_URL = `${odd.url}/sr`;
    try {
      oddReply = { status: 503, body: { message: 'down' } };
      await expect(connector.validateCredentials(credentials, company)).rejects.toMatchObject({ kind: 'transient' });
      oddReply = { status: 200, body: { jobs: [] } };
      await expect(connector.validateCredentials(credentials, company)).rejects.toMatchObject({ kind: 'invalid_data' });
    } finally {
      process.env.SMARTRECRUITERS_API_URL = sim.env.SMARTRECRUITERS_API_URL;
    }
  });
});

describe('jobs', () => {
  test('paging: limit and offset until totalFound; every posting once', async () => {
    process.env.SMARTRECRUITERS_PAGE_SIZE = '2';
    const before = sim.server.requests.length;
    try {
      const jobs = (await connector.listPublishedJobs(company, credentials))!;
      expect(jobs.map((j) => j.external_id)).toEqual([1, 2, 3, 4, 5].map((n) => posting(n).uuid));
      const pages = sim.server.requests.slice(before).filter((r) => r.path === '/smartrecruiters/v1/companies/Acme/postings');
      expect(pages.map((r) => [r.query.get('limit'), r.query.get('offset')])).toEqual([
        ['2', '0'],
        ['2', '2'],
        ['2', '4'],
      ]);
    } finally {
      delete process.env.SMARTRECRUITERS_PAGE_SIZE;
    }
  });

  test('a page size above the documented 100 is sent as 100', async () => {
    process.env.SMARTRECRUITERS_PAGE_SIZE = '500';
    const before = sim.server.requests.length;
    try {
      await connector.listPublishedJobs(company, credentials);
      const page = sim.server.requests.slice(before).find((r) => r.path.endsWith('/postings'))!;
      expect([page.query.get('limit'), page.status]).toEqual(['100', 200]);
    } finally {
      delete process.env.SMARTRECRUITERS_PAGE_SIZE;
    }
  });

  test('a posting maps from its full object (the list leaves the job ad out) and its configuration', async () => {
    const jobs = (await connector.listPublishedJobs(company, credentials))!;
    const job = jobs.find((j) => j.external_id === posting(1).uuid)!;
    expect(job).toMatchObject({
      title: 'Job 1',
      posting_url: 'https://jobs.smartrecruiters.com/Acme/744001',
      application_url: 'https://jobs.smartrecruiters.com/Acme/744001?oga=true',
      language: 'en',
      city: 'Hamburg',
      country: 'DE',
      location_name: 'Hamburg, Hamburg, DE',
      latitude: 53.55,
      longitude: 9.99,
      remote: 'remote',
      employment_type: 'permanent',
      work_schedule: 'part_time',
      senority: 'junior',
      category: 'software_development',
      import_source: 'api',
      custom_fields: {
        posting_id: '744001',
        ref_number: 'REF-744001',
        department: 'Engineering',
        job_fields: [{ field_id: 'f-brand', label: 'Brand', value_id: 'v-1', value: 'Acme' }],
        privacy_policies: [{ url: 'https://example.com/privacy', org_name: 'Acme' }],
      },
    });
    // Empty sections are left out.
    expect(job.description_sections!.map((s) => [s.id, s.order, s.title])).toEqual([
      ['companyDescription', 1, 'Company Description'],
      ['jobDescription', 2, 'Job Description'],
    ]);
    expect(job.description).toBe('<h3>Company Description</h3>\n<p>We build things.</p>\n<h3>Job Description</h3>\n<p>Job 1</p>');
    expect(job.raw_values).toMatchObject({ id: '744001', uuid: posting(1).uuid, jobAd: expect.any(Object) });
    const plain = jobs.find((j) => j.external_id === posting(2).uuid)!;
    expect([plain.remote, plain.screening_questions]).toEqual(['on-site', []]);
  });

  test('screening questions: one per answerable field, complex ones as question:field, diversity last, information left out', async () => {
    const jobs = (await connector.listPublishedJobs(company, credentials))!;
    const job = jobs.find((j) => j.external_id === posting(1).uuid)!;
    expect(job.screening_questions).toEqual([
      { id: 'q-why', question: 'Why us?', answer_type: 'textarea', required: true, options: [] },
      {
        id: 'q-shift',
        question: 'Preferred shift',
        answer_type: 'single_select',
        required: false,
        options: [
          { label: 'Early', value: 's-early' },
          { label: 'Late', value: 's-late' },
        ],
      },
      {
        id: 'q-tools',
        question: 'Tools',
        answer_type: 'multi_select',
        required: false,
        options: [
          { label: 'TypeScript', value: 't-ts' },
          { label: 'Go', value: 't-go' },
        ],
      },
      { id: 'q-permit', question: 'Work permit?', answer_type: 'boolean', required: false, options: [] },
      { id: 'q-lang:language', question: 'Languages: Language', answer_type: 'text', required: true, options: [] },
      {
        id: 'q-lang:level',
        question: 'Languages: Level',
        answer_type: 'single_select',
        required: false,
        options: [{ label: 'C1', value: 'l-c1' }],
      },
      {
        id: 'q-eeo',
        question: 'Gender',
        answer_type: 'single_select',
        required: false,
        options: [{ label: 'Prefer not to say', value: 'g1' }],
      },
    ]);
    expect(job.application_form_fields!.map((f) => [f.id, f.type, f.subtype, f.order])).toEqual([
      ['q-why:why', 'TEXTAREA', null, 1],
      ['q-shift:shift', 'SINGLE_SELECT', null, 2],
      ['q-tools:tools', 'MULTI_SELECT', null, 3],
      ['q-permit:permit', 'CHECKBOX', null, 4],
      ['q-lang:note', 'INFORMATION', null, 5],
      ['q-lang:language', 'INPUT_TEXT', null, 6],
      ['q-lang:level', 'SINGLE_SELECT', null, 7],
      ['q-eeo:gender', 'SINGLE_SELECT', 'DIVERSITY', 8],
    ]);
  });

  test('a posting unpublished between the list and its read is left out', async () => {
    const acme = sim.companies.get('Acme')!;
    const before = sim.server.requests.length;
    acme.postings[4].listedOnly = true;
    try {
      const jobs = (await connector.listPublishedJobs(company, credentials))!;
      expect(jobs.map((j) => j.external_id)).toEqual([1, 2, 3, 4].map((n) => posting(n).uuid));
      const detail = sim.server.requests.slice(before).find((r) => r.path.endsWith(`/postings/${posting(5).id}`))!;
      expect(detail.status).toBe(404);
    } finally {
      acme.postings[4].listedOnly = false;
    }
  });

  test.each([
    ['content is not a list', '{"totalFound": 1, "content": {}}'],
    ['no totalFound', '{"content": []}'],
    ['a posting without uuid', '{"totalFound": 1, "content": [{"id": "1", "name": "x"}]}'],
    ['not JSON', '<html>maintenance</html>'],
  ])('a malformed feed (%s) is invalid_data', async (_name, body) => {
    sim.companies.get('Acme')!.listOverride = body;
    try {
      await expect(connector.listPublishedJobs(company, credentials)).rejects.toMatchObject({ kind: 'invalid_data' });
    } finally {
      sim.companies.get('Acme')!.listOverride = undefined;
    }
  });

  test('the mapping keeps only http(s) URLs', () => {
    const job = mapSmartRecruitersPosting({ id: '1', uuid: 'u', name: 'X', postingUrl: 'javascript:alert(1)', applyUrl: 'ftp://x/y' });
    expect([job.posting_url, job.application_url, job.remote, job.description]).toEqual([null, null, null, null]);
    expect(screeningQuestions(undefined)).toEqual([]);
  });
});

describe('applications', () => {
  const lastPost = () => sim.server.requests.filter((r) => r.method === 'POST').pop()!;

  test('answers: select labels become option ids, multi-select and yes/no, complex questions as one record; unknown ones are not sent', async () => {
    const result = await connector.submitApplication(
      submission({
        candidate: {
          email: 'ada.answers@example.com',
          full_name: 'Ada King Lovelace',
          phone: '+44 20 1234',
          location: { city: 'London', country: 'GB' },
        },
        socialLinks: { LinkedIn: 'https://linkedin.com/in/ada', github: 'https://github.com/ada', myspace: 'https://myspace.com/ada' },
        customFields: { consent_decisions: { SMART_RECRUIT: true, SMART_CRM: false } },
        screeningAnswers: [
          { id: 'q-why', answer: 'Engines.' },
          { id: 'q-shift', answer: 'late' },
          { id: 'q-tools', answer: 'TypeScript, t-go' },
          { id: 'q-permit', answer: 'yes' },
          { id: 'q-lang:language', answer: 'English' },
          { id: 'q-lang:level', answer: 'C1' },
          { id: 'q-gone', answer: 'stale question' },
        ],
      }),
      credentials,
    );
    expect(result.externalId).toBe(sim.applications.at(-1)!.candidateId);
    expect(lastPost().status).toBe(201);
    expect(lastPost().json).toEqual({
      firstName: 'Ada King',
      lastName: 'Lovelace',
      email: 'ada.answers@example.com',
      phoneNumber: '+44 20 1234',
      location: { city: 'London', country: 'GB' },
      web: { linkedIn: 'https://linkedin.com/in/ada', website: 'https://github.com/ada' },
      consentDecisions: { SMART_RECRUIT: true, SMART_CRM: false },
      answers: [
        { id: 'q-why', records: [{ fields: { why: ['Engines.'] } }] },
        { id: 'q-shift', records: [{ fields: { shift: ['s-late'] } }] },
        { id: 'q-tools', records: [{ fields: { tools: ['t-ts', 't-go'] } }] },
        { id: 'q-permit', records: [{ fields: { permit: ['true'] } }] },
        { id: 'q-lang', records: [{ fields: { language: ['English'], level: ['l-c1'] } }] },
      ],
    });
  });

  test('consent: SINGLE is sent as given, absent is not sent, anything outside the documented model is invalid_data', async () => {
    await connector.submitApplication(
      submission({ candidate: { email: 'c1@example.com', full_name: 'C One' }, customFields: { consent_decisions: { SINGLE: true } } }),
      credentials,
    );
    expect((lastPost().json as Record<string, unknown>).consentDecisions).toEqual({ SINGLE: true });
    await connector.submitApplication(submission({ candidate: { email: 'c2@example.com', full_name: 'C Two' } }), credentials);
    expect(lastPost().json).not.toHaveProperty('consentDecisions');
    const before = sim.server.requests.length;
    for (const value of [{ SINGLE: true, SMART_CRM: true }, { SMART_RECRUIT: 'yes' }, { OTHER: true }, {}, true])
      await expect(
        connector.submitApplication(submission({ customFields: { consent_decisions: value } }), credentials),
      ).rejects.toMatchObject({ kind: 'invalid_data' });
    expect(sim.server.requests.slice(before).filter((r) => r.method === 'POST')).toHaveLength(0);
  });

  test.each([
    ['an option the question does not have', { id: 'q-shift', answer: 'Night' }],
    ['a yes/no question answered otherwise', { id: 'q-permit', answer: 'maybe' }],
    ['a text answer over 4000 bytes', { id: 'q-why', answer: 'ü'.repeat(2001) }],
  ])('%s is invalid_data before anything is posted', async (_name, answer) => {
    const before = sim.server.requests.length;
    await expect(
      connector.submitApplication(submission({ screeningAnswers: [{ id: 'q-why', answer: 'x' }, answer] }), credentials),
    ).rejects.toMatchObject({ kind: 'invalid_data' });
    expect(sim.server.requests.slice(before).filter((r) => r.method === 'POST')).toHaveLength(0);
  });

  test('a required screening question left unanswered: SmartRecruiters refuses it (400) → invalid_data naming the question', async () => {
    const error = await rejection(connector.submitApplication(submission({ screeningAnswers: [] }), credentials));
    expect(error).toMatchObject({ kind: 'invalid_data' });
    expect(error.message).toContain('The following screening questions are required: q-why, q-lang.');
    expect(lastPost().status).toBe(400);
  });

  test.each([
    ['over the 2 MB per-file limit', { name: 'cv.pdf', size: 2 * 1024 * 1024 + 1 }],
    ['of a type it does not take', { name: 'cv.txt', content_type: 'text/plain' }],
    ['of a type it does not take, whatever its name says', { name: 'cv.pdf', content_type: 'image/gif' }],
    ['empty', { name: 'cv.pdf', bytes: Buffer.alloc(0) }],
  ])('a file %s is attachment_rejected before anything is posted, naming no file', async (_name, file) => {
    const before = sim.server.requests.length;
    const error = await rejection(connector.submitApplication(submission({}, [{ name: 'ok.pdf' }, file]), credentials));
    expect(error).toMatchObject({ kind: 'attachment_rejected' });
    expect(error.message).not.toMatch(/cv\.|ok\.pdf|image\/gif|text\/plain/);
    expect(sim.server.requests.slice(before).filter((r) => r.method === 'POST')).toHaveLength(0);
  });

  test('a file exactly at the limit is sent; one SmartRecruiters cannot load ("failed to load PDF file") is attachment_rejected', async () => {
    const big = Buffer.concat([Buffer.from('%PDF-1.5\n'), Buffer.alloc(2 * 1024 * 1024 - 9, 0x20)]);
    await connector.submitApplication(
      submission({ candidate: { email: 'big@example.com', full_name: 'Big File' } }, [{ name: 'big.PDF', bytes: big }]),
      credentials,
    );
    const sent = (lastPost().json as { attachments: { fileName: string; fileContent: string }[] }).attachments;
    expect(sent.map((a) => [a.fileName, Buffer.from(a.fileContent, 'base64').equals(big)])).toEqual([['big.PDF', true]]);
    const error = await rejection(
      connector.submitApplication(
        submission({ candidate: { email: 'broken@example.com', full_name: 'Broken File' } }, [
          { name: 'cv.pdf', bytes: Buffer.from('not a pdf') },
        ]),
        credentials,
      ),
    );
    expect(error).toMatchObject({ kind: 'attachment_rejected' });
    expect(lastPost().status).toBe(400);
  });

  test('every type SmartRecruiters takes is sent, CV, cover letter and the others, each named by its type (P275)', async () => {
    const OLE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0x00]);
    const ZIP = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14]);
    const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
    const specs: [string, string, string, Buffer][] = [
      ['resume', 'cv', 'application/pdf', PDF],
      ['cover.doc', 'cover_letter', 'application/msword', OLE],
      ['letter.DOCX', 'other', DOCX, ZIP],
      ['notes.rtf', 'certificate', 'text/rtf', Buffer.from('{\\rtf1 notes}')],
      ['photo.jpeg', 'photo', 'image/jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xe0])],
      ['sample.png', 'work_sample', 'image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
    ];
    const files = specs.map(([name, type, content_type, bytes]) => ({ name, type, content_type, bytes }));
    await connector.submitApplication(
      submission({ candidate: { email: 'types@example.com', full_name: 'All Types' } }, files),
      credentials,
    );
    expect(lastPost().status).toBe(201);
    const sent = (lastPost().json as { attachments: { fileName: string; mimeType: string; fileContent: string }[] }).attachments;
    expect(sent.map((a) => [a.fileName, a.mimeType])).toEqual([
      ['resume.pdf', 'application/pdf'],
      ['cover.doc', 'application/msword'],
      ['letter.DOCX', DOCX],
      ['notes.rtf', 'text/rtf'],
      ['photo.jpeg', 'image/jpeg'],
      ['sample.png', 'image/png'],
    ]);
    expect(sent.map((a) => Buffer.from(a.fileContent, 'base64'))).toEqual(files.map((f) => f.bytes));
  });

  test('the same e-mail on the same posting again is duplicate (409); a closed posting is job_not_published without a POST', async () => {
    const email = { candidate: { email: 'twice@example.com', full_name: 'Twice Applied' } };
    await connector.submitApplication(submission(email), credentials);
    const error = await rejection(connector.submitApplication(submission(email), credentials));
    expect(error).toMatchObject({ kind: 'duplicate' });
    expect(error.message).not.toContain('twice@example.com');
    const before = sim.server.requests.length;
    await expect(
      connector.submitApplication(submission({ jobExternalId: 'f0000000-0000-4000-8000-000000000000' }), credentials),
    ).rejects.toMatchObject({
      kind: 'job_not_published',
    });
    expect(sim.server.requests.slice(before).map((r) => [r.method, r.status])).toEqual([['GET', 404]]);
  });

  test('a wrong key is credentials_rejected on the configuration read, before anything is posted', async () => {
    const before = sim.server.requests.length;
    await expect(
      connector.submitApplication(submission(), { ...credentials, api_key: 'sr-wrong-key-0123456789abcdef' }),
    ).rejects.toMatchObject({
      kind: 'credentials_rejected',
    });
    expect(sim.server.requests.slice(before).map((r) => [r.method, r.status])).toEqual([['GET', 401]]);
  });

  test('429 without Retry-After is retried with backoff; one that does not stop is rate_limited', async () => {
    sim.rateLimitNext = 2;
    const before = sim.server.requests.length;
    await connector.submitApplication(submission({ candidate: { email: 'paced@example.com', full_name: 'Paced Person' } }), credentials);
    const made = sim.server.requests.slice(before);
    expect(made.map((r) => [r.method, r.status])).toEqual([
      ['GET', 429],
      ['GET', 429],
      ['GET', 200],
      ['POST', 201],
    ]);
    process.env.SMARTRECRUITERS_MAX_RETRIES = '1';
    sim.rateLimitNext = 5;
    try {
      await expect(connector.listPublishedJobs(company, credentials)).rejects.toMatchObject({ kind: 'rate_limited' });
    } finally {
      sim.rateLimitNext = 0;
      delete process.env.SMARTRECRUITERS_MAX_RETRIES;
    }
  });

  test('the simulator answers with the documented rate-limit headers and no Retry-After', async () => {
    const response = await fetch(`${sim.env.SMARTRECRUITERS_API_URL}/v1/companies/Acme/postings?limit=1`);
    expect([
      response.headers.get('x-ratelimit-limit'),
      response.headers.get('x-ratelimit-concurrent-limit'),
      response.headers.get('retry-after'),
    ]).toEqual(['10', '8', null]);
    await response.arrayBuffer();
  });
});

describe('error mapping of the application POST', () => {
  beforeAll(() => {
    process.env.SMARTRECRUITERS_API_URL = `${odd.url}/sr`;
    process.env.SMARTRECRUITERS_MAX_RETRIES = '0';
  });
  afterAll(() => {
    process.env.SMARTRECRUITERS_API_URL = sim.env.SMARTRECRUITERS_API_URL;
    delete process.env.SMARTRECRUITERS_MAX_RETRIES;
  });

  test.each([
    ['201 with an id', { status: 201, body: { id: 'cand-1', createdOn: '2026-01-01T00:00:00Z' } }, { externalId: 'cand-1' }],
    ['201 without a body', { status: 201 }, { externalId: null }],
  ])('%s succeeds', async (_name, reply, expected) => {
    oddReply = reply;
    await expect(connector.submitApplication(submission({ screeningAnswers: [] }), credentials)).resolves.toEqual(expected);
  });

  test.each([
    ['409', { status: 409, body: {} }, 'duplicate'],
    ['400 "already applied"', { status: 400, body: { errors: [{ code: 'X', message: 'Candidate already applied' }] } }, 'duplicate'],
    ['404', { status: 404, body: { code: 'NOT_FOUND', message: 'Posting not found.' } }, 'job_not_published'],
    ['400 posting closed', { status: 400, body: { message: 'Posting is closed' } }, 'job_not_published'],
    ['413', { status: 413, body: {} }, 'attachment_rejected'],
    [
      '400 attachment type',
      { status: 400, body: { errors: [{ code: 'INVALID_ATTACHMENT', message: 'Attachment type is not supported.' }] } },
      'attachment_rejected',
    ],
    [
      '400 validation',
      { status: 400, body: { errors: [{ code: 'VALIDATION_ERROR', message: 'email ada.lovelace@example.com is invalid' }] } },
      'invalid_data',
    ],
    ['401', { status: 401, body: { code: 'UNAUTHORIZED', message: 'Invalid token' } }, 'credentials_rejected'],
    ['403', { status: 403, body: {} }, 'credentials_rejected'],
    ['429', { status: 429, body: {} }, 'rate_limited'],
    ['500', { status: 500, body: {} }, 'transient'],
    ['503 text', { status: 503 }, 'transient'],
  ])('%s (%j) → %s', async (_name, reply, kind) => {
    oddReply = reply;
    const error = await rejection(connector.submitApplication(submission({ screeningAnswers: [] }), credentials));
    expect(error).toMatchObject({ kind });
    expect(error.message).toMatch(/^SmartRecruiters/);
    expect(error.message).not.toMatch(/ada\.lovelace|Lovelace|sr-test-key|127\.0\.0\.1/);
  });
});
