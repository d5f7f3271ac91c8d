/**
 * The Workable connector straight against its simulator (no storage involved): the credentials check, paging
 * along `paging.next`, the job and question mapping, the `"sourced": false` quirk, answers, files, the
 * `X-Rate-Limit-*` pacing and the mapping of Workable's answers to our error kinds.
 */
import { Readable } from 'node:stream';
import type { CompanyRecord } from '#companies/company-schema.js';
import { connectorFor, loadConnector } from '#delivery/connectors/registry.js';
import { workableDescriptor } from '#delivery/connectors/workable-descriptor.js';
import { resetAt, workableApplicationBody, workableConnector } from '#delivery/connectors/workable.js';
import { rejection, submissionFactory } from '../helpers/submissions.js';
import { startSimulatorServer, type SimulatorServer } from '../simulators/server.js';
import {
  startWorkableSimulator,
  workableAccount,
  type WorkableAccount,
  type WorkableJobFixture,
  type WorkableSimulator,
} from '../simulators/workable.js';

const PDF = Buffer.from('%PDF-1.5\nworkable\n%%EOF');
const company = { id: 1, ats: 'workable' } as CompanyRecord;

let workable: WorkableSimulator;
let odd: SimulatorServer;
let oddReply: { status: number; body?: unknown } = { status: 200, body: {} };
let simulatorUrl: string;

beforeAll(async () => {
  [workable, odd] = await Promise.all([
    startWorkableSimulator(),
    startSimulatorServer(() => ({ status: oddReply.status, body: oddReply.body })),
  ]);
  // Roomy by default; the pacing tests set the documented kind of limit on their own.
  workable.rateLimit = { limit: 1000, intervalMs: 10_000 };
  simulatorUrl = workable.env.WORKABLE_API_URL;
  process.env.WORKABLE_API_URL = simulatorUrl;
});
afterAll(() => Promise.all([workable.server.stop(), odd.stop()]));
afterEach(() => {
  process.env.WORKABLE_API_URL = simulatorUrl;
  workable.rateLimit = { limit: 1000, intervalMs: 10_000 };
  delete process.env.WORKABLE_MAX_WAIT_MS;
  delete process.env.WORKABLE_RATE_INTERVAL_MS;
});

let accounts = 0;
function account(overrides: Partial<WorkableAccount> = {}, jobs: WorkableJobFixture[] = [{ shortcode: 'J1', title: 'Backend Engineer' }]) {
  const created = workableAccount(`acct-${++accounts}`, { jobs, ...overrides });
  workable.accounts.set(created.subdomain, created);
  return { account: created, credentials: { subdomain: created.subdomain, token: created.token } };
}

const submission = submissionFactory({
  company,
  pdf: PDF,
  jobExternalId: 'J1',
  candidate: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace' },
});

const requestsOf = (subdomain: string) => workable.server.requests.filter((r) => r.path.startsWith(`/workable/${subdomain}/`));

describe('registry entry', () => {
  test('is registered with the fixed flags, setting and a secret token', async () => {
    expect(await loadConnector('workable')).toBe(workableConnector);
    expect(connectorFor('workable')).toBe(workableDescriptor);
    expect(workableConnector.credentialFields.map((f) => [f.name, f.flag, f.secret === true])).toEqual([
      ['subdomain', '--subdomain', false],
      ['token', '--token', true],
    ]);
    expect(workableConnector.settings).toEqual([
      expect.objectContaining({ env: 'WORKABLE_API_URL', default: 'https://{subdomain}.workable.com', context: 'workableApiUrl' }),
    ]);
    expect(workableConnector.credentialFields[0].pattern.test('acme-inc')).toBe(true);
    expect(workableConnector.credentialFields[0].pattern.test('acme.evil.com/x')).toBe(false);
  });
});

describe('credentials check', () => {
  test('accepted: one GET of the job list with the Bearer token; nothing is created', async () => {
    const { account: a, credentials } = account();
    const before = workable.candidates.length;
    await workableConnector.validateCredentials(credentials, company);
    const requests = requestsOf(a.subdomain);
    expect(requests.map((r) => [r.method, r.path, r.query.get('limit')])).toEqual([['GET', `/workable/${a.subdomain}/spi/v3/jobs`, '1']]);
    expect(requests[0].headers.authorization).toBe(`Bearer ${a.token}`);
    expect(workable.candidates.length).toBe(before);
  });

  test('a wrong token is credentials_rejected naming token (401)', async () => {
    const { credentials } = account();
    const error = await rejection(workableConnector.validateCredentials({ ...credentials, token: 'wrong-token-123456' }, company));
    expect(error).toMatchObject({ kind: 'credentials_rejected', field: 'token' });
    expect(error.message).toContain('401');
    expect(error.message).not.toContain('wrong-token');
  });

  test('a token without r_jobs is credentials_rejected naming token (403)', async () => {
    const { credentials } = account({ scopes: new Set(['w_candidates']) });
    const error = await rejection(workableConnector.validateCredentials(credentials, company));
    expect(error).toMatchObject({ kind: 'credentials_rejected', field: 'token' });
    expect(error.message).toMatch(/403.*r_jobs/);
  });

  test('an unknown subdomain is credentials_rejected naming subdomain (404)', async () => {
    const error = await rejection(workableConnector.validateCredentials({ subdomain: 'nobody-here', token: 'whatever-token-1' }, company));
    expect(error).toMatchObject({ kind: 'credentials_rejected', field: 'subdomain' });
  });

  test('an unreachable Workable is transient', async () => {
    process.env.WORKABLE_API_URL = 'http://127.0.0.1:1/{subdomain}';
    const error = await rejection(workableConnector.validateCredentials({ subdomain: 'acme', token: 'whatever-token-1' }, company));
    expect(error.kind).toBe('transient');
    expect(error.message).toBe('Workable is unreachable.');
  });

  test('a 200 that is not a job list is invalid_data', async () => {
    process.env.WORKABLE_API_URL = `${odd.url}/{subdomain}`;
    oddReply = { status: 200, body: { hello: 'world' } };
    expect((await rejection(workableConnector.validateCredentials({ subdomain: 'acme', token: 'whatever-token-1' }, company))).kind).toBe(
      'invalid_data',
    );
  });

  test('the token check does not prove w_candidates: a token without it passes the check and fails the submission', async () => {
    const { credentials } = account({ scopes: new Set(['r_jobs']) });
    await workableConnector.validateCredentials(credentials, company);
    const error = await rejection(workableConnector.submitApplication(submission(), credentials));
    expect(error).toMatchObject({ kind: 'credentials_rejected', field: 'token' });
  });
});

describe('jobs', () => {
  test('follows paging.next across pages, only published jobs, with the description fields', async () => {
    const jobs: WorkableJobFixture[] = [1, 2, 3, 4, 5].map((n) => ({ shortcode: `P${n}`, title: `Job ${n}` }));
    jobs.push({ shortcode: 'D1', title: 'Draft', state: 'draft' }, { shortcode: 'C1', title: 'Closed', state: 'closed' });
    const { account: a, credentials } = account({ maxPageSize: 2 }, jobs);
    const listed = await workableConnector.listPublishedJobs(company, credentials);
    expect(listed!.map((j) => j.external_id)).toEqual(['P1', 'P2', 'P3', 'P4', 'P5']);
    const lists = requestsOf(a.subdomain).filter((r) => r.path.endsWith('/spi/v3/jobs'));
    expect(lists.map((r) => r.query.get('since_id'))).toEqual([null, 'id-p2', 'id-p4']);
    for (const r of lists) {
      expect(r.query.get('state')).toBe('published');
      expect(r.query.get('include_fields')).toBe('description,full_description,requirements,benefits');
      expect(r.headers.authorization).toBe(`Bearer ${a.token}`);
    }
    // One application form per job, for its questions.
    expect(requestsOf(a.subdomain).filter((r) => r.path.endsWith('/application_form')).length).toBe(5);
  });

  test('maps a job and its application form onto our Job fields; raw_values is the untouched record', async () => {
    const { account: a, credentials } = account({}, [
      {
        shortcode: 'MAP1',
        title: 'Senior Data Analyst',
        department: 'Data & Analytics',
        description: '<p>Analyse</p>',
        requirements: '<ul><li>SQL</li></ul>',
        benefits: '<p>Remote budget</p>',
        employment_type: 'Part-time',
        salary: { salary_from: 50000, salary_to: 65000, salary_currency: 'eur' },
        location: { location_str: 'Lisbon, Portugal', city: 'Lisbon', country: 'Portugal', zip_code: '1000', workplace_type: 'remote' },
        questions: [
          { id: 'q1', body: 'Why us?', type: 'free_text', required: true },
          {
            id: 'q2',
            body: 'Languages',
            type: 'multiple_choice',
            choices: [
              { id: 'c1', body: 'English' },
              { id: 'c2', body: 'German' },
            ],
          },
          { id: 'q3', body: 'Seniority', type: 'multiple_choice', single_answer: true, choices: [{ id: 'c3', body: 'Senior' }] },
          { id: 'q4', body: 'EU work permit?', type: 'boolean' },
          { id: 'q5', body: 'Years of SQL', type: 'numeric' },
          { id: 'q6', body: 'Start date', type: 'date' },
          { id: 'q7', body: 'Cover letter', type: 'file' },
          { id: 'q8', body: 'Team', type: 'dropdown', choices: [{ id: 'c9', body: 'BI' }] },
        ],
      },
    ]);
    const [job] = (await workableConnector.listPublishedJobs(company, credentials))!;
    expect(job).toMatchObject({
      external_id: 'MAP1',
      title: 'Senior Data Analyst',
      posting_url: `https://apply.workable.com/${a.subdomain}/j/MAP1/`,
      application_url: `https://apply.workable.com/${a.subdomain}/j/MAP1/apply/`,
      location_name: 'Lisbon, Portugal',
      city: 'Lisbon',
      country: 'Portugal',
      postcode: '1000',
      remote: 'remote',
      employment_type: 'permanent',
      work_schedule: 'part_time',
      category: 'data_analytics',
      salary_from: 50000,
      salary_to: 65000,
      salary_currency: 'EUR',
      import_source: 'api',
      custom_fields: {
        workable_id: 'id-map1',
        code: 'CODE-MAP1',
        department: 'Data & Analytics',
        department_hierarchy: ['Data & Analytics'],
      },
    });
    expect(job.description).toContain('<p>Analyse</p>');
    expect(job.description).toContain('<li>SQL</li>');
    expect(job.description_sections!.map((s) => [s.id, s.title, s.content, s.order])).toEqual([
      ['description', 'Description', '<p>Analyse</p>', 1],
      ['requirements', 'Requirements', '<ul><li>SQL</li></ul>', 2],
      ['benefits', 'Benefits', '<p>Remote budget</p>', 3],
    ]);
    expect(job.screening_questions!.map((q) => [q.id, q.question, q.answer_type, q.required])).toEqual([
      ['q1', 'Why us?', 'textarea', true],
      ['q2', 'Languages', 'multi_select', false],
      ['q3', 'Seniority', 'single_select', false],
      ['q4', 'EU work permit?', 'boolean', false],
      ['q5', 'Years of SQL', 'number', false],
      ['q6', 'Start date', 'date', false],
      ['q7', 'Cover letter', 'file', false],
      ['q8', 'Team', 'single_select', false],
    ]);
    expect(job.screening_questions![1].options).toEqual([
      { label: 'English', value: 'c1' },
      { label: 'German', value: 'c2' },
    ]);
    expect(job.application_form_fields!.map((f) => [f.id, f.type, f.required, f.order])).toEqual([
      ['name', 'string', true, 1],
      ['email', 'string', true, 2],
      ['phone', 'string', false, 3],
      ['resume', 'file', true, 4],
      ['avatar', 'file', false, 5],
    ]);
    // raw_values is the record as the list returned it.
    const list = requestsOf(a.subdomain).find((r) => r.path.endsWith('/spi/v3/jobs'))!;
    expect(list.status).toBe(200);
    expect(job.raw_values).toMatchObject({ shortcode: 'MAP1', state: 'published', salary: { salary_currency: 'eur' } });
    expect(job.raw_values).not.toHaveProperty('questions');
  });

  test('telecommuting without workplace_type is remote; on_site is on-site', async () => {
    const { credentials } = account({}, [
      { shortcode: 'T1', title: 'A', location: { location_str: 'Anywhere', telecommuting: true } },
      { shortcode: 'T2', title: 'B', location: { location_str: 'Athens', city: 'Athens', workplace_type: 'on_site' } },
    ]);
    const jobs = (await workableConnector.listPublishedJobs(company, credentials))!;
    expect(jobs.map((j) => j.remote)).toEqual(['remote', 'on-site']);
  });

  test('a malformed list is invalid_data: no jobs array, or a job without a shortcode', async () => {
    const { account: a, credentials } = account({ listOverride: '{"jobs": {}}' });
    expect((await rejection(workableConnector.listPublishedJobs(company, credentials))).kind).toBe('invalid_data');
    a.listOverride = '{"jobs": [{"title": "no shortcode"}], "paging": {}}';
    expect((await rejection(workableConnector.listPublishedJobs(company, credentials))).kind).toBe('invalid_data');
    a.listOverride = 'not json';
    expect((await rejection(workableConnector.listPublishedJobs(company, credentials))).kind).toBe('invalid_data');
  });

  test('paging.next to another host is invalid_data, and the token is not sent there', async () => {
    const { credentials } = account({ maxPageSize: 1, nextOverride: `${odd.url}/steal?since_id=x` }, [
      { shortcode: 'N1', title: 'A' },
      { shortcode: 'N2', title: 'B' },
    ]);
    const before = odd.requests.length;
    const error = await rejection(workableConnector.listPublishedJobs(company, credentials));
    expect(error.kind).toBe('invalid_data');
    expect(odd.requests.length).toBe(before);
  });

  test('a rejected token during the import is credentials_rejected', async () => {
    const { credentials } = account();
    expect(await rejection(workableConnector.listPublishedJobs(company, { ...credentials, token: 'rotated-token-999' }))).toMatchObject({
      kind: 'credentials_rejected',
      field: 'token',
    });
  });
});

describe('applications', () => {
  test('an applicant ("sourced": false): Workable e-mails the candidate; the id comes back', async () => {
    const { account: a, credentials } = account();
    const result = await workableConnector.submitApplication(submission({}, [{ name: 'cv.pdf' }]), credentials);
    const created = workable.candidates.find(
      (c) => c.body.email === 'ada@example.com' && c.shortcode === 'J1' && c.id === result.externalId,
    );
    expect(created).toMatchObject({ sourced: false, stage: 'applied' });
    expect(workable.thankYouEmails).toContain('ada@example.com');
    const post = requestsOf(a.subdomain).find((r) => r.method === 'POST')!;
    expect(post.path).toBe(`/workable/${a.subdomain}/spi/v3/jobs/J1/candidates`);
    expect((post.json as { sourced: unknown }).sourced).toBe(false);
    // Only the CV: the application form is not read.
    expect(requestsOf(a.subdomain).filter((r) => r.path.endsWith('/application_form'))).toEqual([]);
  });

  test('the simulator keeps the v3 default: without "sourced": false a candidate is uploaded and gets no e-mail', async () => {
    const { account: a } = account();
    const response = await fetch(`${workable.server.url}/workable/${a.subdomain}/spi/v3/jobs/J1/candidates`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${a.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ candidate: { name: 'Up Loaded', email: 'uploaded@example.com' } }),
    });
    expect(response.status).toBe(201);
    expect(workable.candidates.find((c) => c.body.email === 'uploaded@example.com')).toMatchObject({ sourced: true, stage: 'sourced' });
    expect(workable.thankYouEmails).not.toContain('uploaded@example.com');
  });

  test('screening answers in Workable’s shapes by type; social profiles; one-word names', async () => {
    const body = await workableApplicationBody(
      submission({
        candidate: { email: 'x@example.com', full_name: 'Plato' },
        screeningAnswers: [
          { id: 'q1', answer_type: 'textarea', answer: 'Because.' },
          { id: 'q2', answer_type: 'multi_select', answer: 'c1, c2' },
          { id: 'q3', answer_type: 'single_select', answer: 'c3' },
          { id: 'q4', answer_type: 'boolean', answer: 'Yes' },
          { id: 'q4b', answer_type: 'boolean', answer: 'no' },
          { id: 'q5', answer_type: 'number', answer: '7' },
          { id: 'q5b', answer_type: 'number', answer: 'seven' },
          { id: 'q6', answer_type: 'date', answer: '2026-03-01' },
          { id: 'q7', answer_type: 'file', answer: 'ignored' },
          { id: '', answer_type: 'text', answer: 'no id' },
        ],
        socialLinks: { LinkedIn: 'https://linkedin.com/in/plato', github: 'javascript:alert(1)', myspace: 'https://myspace.com/p' },
      }),
    );
    expect(body).toEqual({
      sourced: false,
      candidate: {
        name: 'Plato',
        firstname: 'Plato',
        lastname: 'Plato',
        email: 'x@example.com',
        answers: [
          { question_key: 'q1', body: 'Because.' },
          { question_key: 'q2', choices: ['c1', 'c2'] },
          { question_key: 'q3', choices: ['c3'] },
          { question_key: 'q4', checked: true },
          { question_key: 'q4b', checked: false },
          { question_key: 'q5', number: 7 },
          { question_key: 'q5b', body: 'seven' },
          { question_key: 'q6', date: '2026-03-01' },
        ],
        social_profiles: [{ type: 'linkedin', url: 'https://linkedin.com/in/plato' }],
      },
    });
  });

  test('answers reach Workable and are accepted for the job’s questions', async () => {
    const { credentials } = account({}, [
      {
        shortcode: 'J1',
        title: 'Q',
        questions: [
          { id: 'q4', body: 'Permit?', type: 'boolean' },
          { id: 'q2', body: 'Langs', type: 'multiple_choice', choices: [{ id: 'c1', body: 'EN' }] },
        ],
      },
    ]);
    const result = await workableConnector.submitApplication(
      submission({
        candidate: { email: 'answers@example.com', first_name: 'An', last_name: 'Swer' },
        screeningAnswers: [
          { id: 'q4', answer_type: 'boolean', answer: 'true' },
          { id: 'q2', answer_type: 'multi_select', answer: 'c1' },
        ],
      }),
      credentials,
    );
    expect(workable.candidates.find((c) => c.id === result.externalId)!.body.answers).toEqual([
      { question_key: 'q4', checked: true },
      { question_key: 'q2', choices: ['c1'] },
    ]);
  });

  describe('files', () => {
    test('a CV over the per-file limit is attachment_rejected before it is read or sent', async () => {
      const { account: a, credentials } = account();
      let opened = false;
      const s = submission({}, [{ name: 'cv.pdf', size: 10 * 1024 * 1024 + 1 }]);
      s.attachments[0].open = async () => {
        opened = true;
        return Readable.from([PDF]);
      };
      const error = await rejection(workableConnector.submitApplication(s, credentials));
      expect(error.kind).toBe('attachment_rejected');
      expect(error.message).not.toContain('cv.pdf');
      expect(opened).toBe(false);
      expect(requestsOf(a.subdomain)).toEqual([]);
    });

    test('a CV of a type Workable does not take is attachment_rejected', async () => {
      const { account: a, credentials } = account();
      const error = await rejection(workableConnector.submitApplication(submission({}, [{ name: 'cv.exe' }]), credentials));
      expect(error.kind).toBe('attachment_rejected');
      expect(requestsOf(a.subdomain).filter((r) => r.method === 'POST')).toEqual([]);
    });

    test('an empty CV and two CVs are attachment_rejected', async () => {
      const { credentials } = account();
      expect(
        (await rejection(workableConnector.submitApplication(submission({}, [{ name: 'cv.pdf', bytes: Buffer.alloc(0) }]), credentials)))
          .kind,
      ).toBe('attachment_rejected');
      expect(
        (await rejection(workableConnector.submitApplication(submission({}, [{ name: 'a.pdf' }, { name: 'b.pdf' }]), credentials))).kind,
      ).toBe('attachment_rejected');
    });

    test('a CV the job’s form limits more tightly is checked against the form', async () => {
      const { credentials } = account({}, [
        {
          shortcode: 'J1',
          title: 'Tight',
          form_fields: [{ key: 'resume', type: 'file', supported_file_types: ['pdf'], max_file_size: 10 }],
          questions: [{ id: 'qc', body: 'Cover letter', type: 'file' }],
        },
      ]);
      // The form is read because of the cover letter; the CV is bigger than its 10 bytes.
      const error = await rejection(
        workableConnector.submitApplication(submission({}, [{ name: 'cv.pdf' }, { name: 'cover.pdf', type: 'cover_letter' }]), credentials),
      );
      expect(error.kind).toBe('attachment_rejected');
      expect(error.message).toContain('10 bytes');
    });

    test('a cover letter goes to the job’s cover-letter file question; without one it is attachment_rejected, never dropped', async () => {
      const { account: a, credentials } = account({}, [
        {
          shortcode: 'J1',
          title: 'With',
          questions: [{ id: 'qc', body: 'Upload your cover letter', type: 'file', supported_file_types: ['pdf'], max_file_size: 100_000 }],
        },
        { shortcode: 'J2', title: 'Without', questions: [{ id: 'qx', body: 'Why us?', type: 'free_text' }] },
      ]);
      const cover = Buffer.from('%PDF-1.5\ncover\n%%EOF');
      const result = await workableConnector.submitApplication(
        submission({}, [{ name: 'cv.pdf' }, { name: 'cover.pdf', type: 'cover_letter', bytes: cover }]),
        credentials,
      );
      expect(workable.candidates.find((c) => c.id === result.externalId)!.body.answers).toEqual([
        { question_key: 'qc', file: { name: 'cover.pdf', data: cover.toString('base64') } },
      ]);
      const posts = () => requestsOf(a.subdomain).filter((r) => r.method === 'POST').length;
      const before = posts();
      const error = await rejection(
        workableConnector.submitApplication(
          submission({ jobExternalId: 'J2' }, [{ name: 'cover.pdf', type: 'cover_letter' }]),
          credentials,
        ),
      );
      expect(error.kind).toBe('attachment_rejected');
      expect(error.message).toContain('cover_letter');
      expect(posts()).toBe(before);
    });

    test('a text cover letter is the candidate’s text cover_letter (P278), with no form read and no file question', async () => {
      const { account: a, credentials } = account({}, [{ shortcode: 'J1', title: 'Backend Engineer', questions: [] }]);
      const letter = 'Dear team,\nI would love to build Workable connectors. – Ada';
      await workableConnector.submitApplication(
        submission({}, [
          { name: 'cv.pdf' },
          { name: 'cover-letter.txt', type: 'cover_letter', content_type: 'text/plain', bytes: Buffer.from(letter, 'utf8') },
        ]),
        credentials,
      );
      const posted = requestsOf(a.subdomain).find((r) => r.method === 'POST')!;
      expect((posted.json as { candidate: Record<string, unknown> }).candidate.cover_letter).toBe(letter);
      expect((posted.json as { candidate: Record<string, unknown> }).candidate.answers).toBeUndefined();
      expect(requestsOf(a.subdomain).some((r) => r.path.endsWith('/application_form'))).toBe(false);
      expect(workable.candidates.at(-1)!.body.cover_letter).toBe(letter);
    });

    test('an empty or oversized text cover letter is attachment_rejected before anything is sent', async () => {
      const { account: a, credentials } = account();
      for (const bytes of [Buffer.from('  \n', 'utf8'), Buffer.alloc(100_001, 0x61)]) {
        const error = await rejection(
          workableConnector.submitApplication(
            submission({}, [{ name: 'letter.txt', type: 'cover_letter', content_type: 'text/plain', bytes }]),
            credentials,
          ),
        );
        expect(error.kind).toBe('attachment_rejected');
        expect(error.name).toBe('AttachmentRejectedError');
      }
      expect(requestsOf(a.subdomain)).toEqual([]);
    });

    test('a photo goes to a photo file question that lists jpg, though the résumé types do not (every type the form accepts is sent)', async () => {
      const { account: a, credentials } = account({}, [
        {
          shortcode: 'J1',
          title: 'Backend Engineer',
          questions: [{ id: 'qp', body: 'Your photo', type: 'file', supported_file_types: ['jpg', 'png'], max_file_size: 100_000 }],
        },
      ]);
      const jpg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
      await workableConnector.submitApplication(
        submission({}, [{ name: 'me.jpg', type: 'photo', content_type: 'image/jpeg', bytes: jpg }]),
        credentials,
      );
      const posted = requestsOf(a.subdomain).find((r) => r.method === 'POST')!;
      expect((posted.json as { candidate: { answers: unknown[] } }).candidate.answers).toEqual([
        { question_key: 'qp', file: { name: 'me.jpg', data: jpg.toString('base64') } },
      ]);
    });

    test('the candidate’s location and skills go as Workable’s address and skills', async () => {
      const { account: a, credentials } = account();
      await workableConnector.submitApplication(
        submission({
          candidate: {
            email: 'ada@example.com',
            first_name: 'Ada',
            last_name: 'Lovelace',
            location: { street: 'Unter den Linden 1', city: 'Berlin', postcode: '10117', country: 'Germany' },
            skills: ['TypeScript', 'Analytical engines'],
          },
        }),
        credentials,
      );
      const posted = requestsOf(a.subdomain).find((r) => r.method === 'POST')!;
      expect((posted.json as { candidate: Record<string, unknown> }).candidate).toMatchObject({
        address: 'Unter den Linden 1, 10117 Berlin, Germany',
        skills: ['TypeScript', 'Analytical engines'],
      });
    });

    test('a cover letter over its question’s max_file_size or of a type it does not list is attachment_rejected', async () => {
      const { credentials } = account({}, [
        {
          shortcode: 'J1',
          title: 'Q',
          questions: [{ id: 'qc', body: 'Cover letter', type: 'file', supported_file_types: ['pdf'], max_file_size: 20 }],
        },
      ]);
      for (const file of [
        { name: 'cover.pdf', type: 'cover_letter', bytes: Buffer.alloc(21, 1) },
        {
          name: 'cover.docx',
          type: 'cover_letter',
          content_type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        },
      ]) {
        expect((await rejection(workableConnector.submitApplication(submission({}, [file]), credentials))).kind).toBe(
          'attachment_rejected',
        );
      }
    });

    test('a file Workable itself refuses (422 on the résumé) is attachment_rejected', async () => {
      process.env.WORKABLE_API_URL = `${odd.url}/{subdomain}`;
      oddReply = { status: 422, body: { error: 'Validation failed: Resume file size is too large' } };
      expect(
        (
          await rejection(
            workableConnector.submitApplication(submission({}, [{ name: 'cv.pdf' }]), { subdomain: 'x', token: 'tok-12345678' }),
          )
        ).kind,
      ).toBe('attachment_rejected');
    });
  });

  describe('errors', () => {
    test('a wrong token is credentials_rejected; a token without w_candidates too', async () => {
      const { credentials } = account();
      expect(await rejection(workableConnector.submitApplication(submission(), { ...credentials, token: 'bad-token-1234' }))).toMatchObject(
        {
          kind: 'credentials_rejected',
          field: 'token',
        },
      );
    });

    test('an unknown job is job_not_published (404); a closed or archived one too (422)', async () => {
      const { credentials } = account({}, [
        { shortcode: 'J1', title: 'Open' },
        { shortcode: 'CL', title: 'Closed', state: 'closed' },
        { shortcode: 'AR', title: 'Archived', state: 'archived' },
      ]);
      for (const job of ['NOPE', 'CL', 'AR'])
        expect((await rejection(workableConnector.submitApplication(submission({ jobExternalId: job }), credentials))).kind).toBe(
          'job_not_published',
        );
    });

    test('the same e-mail twice in a job is duplicate, and the message names no e-mail', async () => {
      const { credentials } = account();
      const s = submission({ candidate: { email: 'twice@example.com', first_name: 'Tw', last_name: 'Ice' } });
      await workableConnector.submitApplication(s, credentials);
      const error = await rejection(workableConnector.submitApplication(s, credentials));
      expect(error.kind).toBe('duplicate');
      expect(error.message).not.toContain('twice@example.com');
    });

    test('a refused field (422) is invalid_data; an e-mail Workable echoes is masked', async () => {
      process.env.WORKABLE_API_URL = `${odd.url}/{subdomain}`;
      oddReply = { status: 422, body: { error: 'Validation failed: Email foo@bar.example is invalid' } };
      const error = await rejection(workableConnector.submitApplication(submission(), { subdomain: 'x', token: 'tok-12345678' }));
      expect(error.kind).toBe('invalid_data');
      expect(error.message).toContain('422');
      expect(error.message).not.toContain('foo@bar.example');
    });

    test('5xx is transient', async () => {
      process.env.WORKABLE_API_URL = `${odd.url}/{subdomain}`;
      oddReply = { status: 503, body: { error: 'Service unavailable' } };
      expect((await rejection(workableConnector.submitApplication(submission(), { subdomain: 'x', token: 'tok-12345678' }))).kind).toBe(
        'transient',
      );
    });

    test('429 is rate_limited with the seconds until X-Rate-Limit-Reset', async () => {
      const { credentials } = account();
      workable.rateLimitNext = 1;
      workable.forcedResetMs = 3000;
      try {
        const error = await rejection(workableConnector.submitApplication(submission(), credentials));
        expect(error.kind).toBe('rate_limited');
        expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(2);
        expect(error.retryAfterSeconds).toBeLessThanOrEqual(4);
      } finally {
        workable.forcedResetMs = 1000;
      }
    });
  });
});

describe('pacing by X-Rate-Limit-*', () => {
  test('when Remaining reaches 0 the next request waits for the reset instead of meeting a 429', async () => {
    workable.rateLimit = { limit: 2, intervalMs: 1000 };
    process.env.WORKABLE_RATE_INTERVAL_MS = '1000';
    const { account: a, credentials } = account();
    const started = Date.now();
    for (let i = 0; i < 3; i++) await workableConnector.validateCredentials(credentials, company);
    const statuses = requestsOf(a.subdomain).map((r) => r.status);
    expect(statuses).toEqual([200, 200, 200]);
    // The second answer said Remaining 0: the third waited for the next interval.
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
  });

  test('a wait longer than the cap is rate_limited without sending (reads: WORKABLE_MAX_WAIT_MS; submissions: 5 s by default)', async () => {
    workable.rateLimit = { limit: 1, intervalMs: 10_000 };
    process.env.WORKABLE_MAX_WAIT_MS = '500';
    const { account: a, credentials } = account();
    await workableConnector.validateCredentials(credentials, company);
    const read = await rejection(workableConnector.listPublishedJobs(company, credentials));
    expect(read.kind).toBe('rate_limited');
    expect(read.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    // The submission's own cap (WORKABLE_SUBMIT_MAX_WAIT_MS, 5 s) is below the ~10 s left of the interval.
    delete process.env.WORKABLE_MAX_WAIT_MS;
    const submit = await rejection(workableConnector.submitApplication(submission(), credentials));
    expect(submit.kind).toBe('rate_limited');
    expect(submit.retryAfterSeconds).toBeGreaterThan(5);
    expect(requestsOf(a.subdomain).length).toBe(1);
  });

  test('a 429 during the import waits for the reset and goes on', async () => {
    const { account: a, credentials } = account();
    workable.rateLimitNextRead = 1;
    workable.forcedResetMs = 500;
    try {
      const jobs = await workableConnector.listPublishedJobs(company, credentials);
      expect(jobs!.map((j) => j.external_id)).toEqual(['J1']);
      expect(requestsOf(a.subdomain).map((r) => r.status)).toEqual([429, 200, 200]);
    } finally {
      workable.forcedResetMs = 1000;
    }
  });

  test('a read that keeps meeting 429 gives up as rate_limited', async () => {
    const { credentials } = account();
    workable.rateLimitNextRead = 5;
    workable.forcedResetMs = 200;
    try {
      expect((await rejection(workableConnector.listPublishedJobs(company, credentials))).kind).toBe('rate_limited');
    } finally {
      workable.rateLimitNextRead = 0;
      workable.forcedResetMs = 1000;
    }
  });

  test('ahead of the limit (P278): concurrent requests never exceed the documented 10 per interval, even with no header to go by', async () => {
    // The simulator enforces Workable's account-token limit (10 per interval; a 2.5-second interval keeps the
    // test short) but sends no X-Rate-Limit-* headers here, so only the connector's own window can hold them.
    workable.rateLimit = { limit: 10, intervalMs: 2500 };
    workable.rateHeaders = false;
    process.env.WORKABLE_RATE_INTERVAL_MS = '2500';
    const { account: a, credentials } = account();
    const started = Date.now();
    try {
      await Promise.all(Array.from({ length: 14 }, () => workableConnector.validateCredentials(credentials, company)));
    } finally {
      workable.rateHeaders = true;
    }
    const statuses = requestsOf(a.subdomain).map((r) => r.status);
    expect(statuses).toHaveLength(14);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    // The 11th waited for the first interval to end.
    expect(Date.now() - started).toBeGreaterThanOrEqual(2500);
  });

  test('a request counts from its answer (P378): requests that reach Workable late do not let the 11th in early', async () => {
    // The process stalls for 600 ms just after the first ten leave, so Workable (the simulator, in this process)
    // receives them, and starts its interval, 600 ms after they were booked: more than the interval's margin.
    workable.rateLimit = { limit: 10, intervalMs: 2500 };
    workable.rateHeaders = false;
    process.env.WORKABLE_RATE_INTERVAL_MS = '2500';
    const { account: a, credentials } = account();
    try {
      const all = Promise.all(Array.from({ length: 14 }, () => workableConnector.validateCredentials(credentials, company)));
      await new Promise((resolve) => setImmediate(resolve));
      const stallUntil = Date.now() + 600;
      while (Date.now() < stallUntil);
      await all;
    } finally {
      workable.rateHeaders = true;
    }
    const statuses = requestsOf(a.subdomain).map((r) => r.status);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(statuses).toHaveLength(14);
  });

  test('the limit an answer states (X-Rate-Limit-Limit) is the one paced by, when lower than the default', async () => {
    workable.rateLimit = { limit: 3, intervalMs: 1500 };
    process.env.WORKABLE_RATE_INTERVAL_MS = '1500';
    const { account: a, credentials } = account();
    const started = Date.now();
    await Promise.all(Array.from({ length: 8 }, () => workableConnector.validateCredentials(credentials, company)));
    expect(
      requestsOf(a.subdomain)
        .map((r) => r.status)
        .filter((s) => s !== 200),
    ).toEqual([]);
    // 8 requests at 3 per interval take two more intervals.
    expect(Date.now() - started).toBeGreaterThanOrEqual(3000);
  });

  test('X-Rate-Limit-Reset is read as Unix seconds, Unix ms or a date', () => {
    const at = (value: string) => resetAt(new Response(null, { headers: { 'X-Rate-Limit-Reset': value } }), 1_000);
    expect(at('1767225600')).toBe(1_767_225_600_000);
    expect(at('1767225600000')).toBe(1_767_225_600_000);
    expect(at('Thu, 01 Jan 2026 00:00:00 GMT')).toBe(Date.parse('2026-01-01T00:00:00Z'));
    expect(at('5')).toBe(6_000);
    expect(at('soon')).toBeUndefined();
    expect(resetAt(new Response(null))).toBeUndefined();
  });
});
