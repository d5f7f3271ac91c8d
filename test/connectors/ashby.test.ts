/**
 * The Ashby connector against its simulator (test/simulators/ashby.ts), straight (no storage): the
 * credentials check (board name, key, permissions), the feed (no paging, ids from URLs, unlisted and
 * vanished postings), the mapping of form questions, the typed answers, attachments Ashby will not take,
 * and the mapping of Ashby's answers (200 with `success: false`, blocked applications, 429, 5xx) to kinds.
 */
import type { CompanyRecord } from '#companies/company-schema.js';
import { ASHBY_MAX_FILE_BYTES, ashbyConnector } from '#delivery/connectors/ashby.js';
import { rejection, submissionFactory } from '../helpers/submissions.js';
import { ashbyBoard, COVER_LETTER_PATH, startAshbySimulator, type AshbyBoard, type AshbySimulator } from '../simulators/ashby.js';
import { withoutPacing, startSimulatorServer } from '../simulators/server.js';

withoutPacing();

const PDF = Buffer.from('%PDF-1.5\nashby\n%%EOF');
const company = { id: 1, ats: 'ashby' } as CompanyRecord;
const POSTING = 'b7a1e0c2-1111-4000-8000-000000000001';
const CLOSED = 'b7a1e0c2-1111-4000-8000-000000000002';
const NO_COVER = 'b7a1e0c2-1111-4000-8000-000000000003';

let ashby: AshbySimulator;
let board: AshbyBoard;
let savedUrl: string;

const submission = submissionFactory({
  company,
  pdf: PDF,
  jobExternalId: POSTING,
  candidate: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', phone: '+44 20 1234' },
  files: [{ name: 'cv.pdf' }],
});

const credentials = () => ({ job_board_name: board.name, api_key: board.apiKey });
const submits = () => ashby.requestsTo(/\/applicationForm\.submit$/);
type SubmitBody = { applicationForm: { fieldSubmissions: { path: string; value: unknown }[] } } & Record<string, unknown>;
const lastBody = () => submits().pop()!.json as SubmitBody;
const lastForm = () => lastBody().applicationForm;

beforeAll(async () => {
  ashby = await startAshbySimulator();
  savedUrl = process.env.ASHBY_API_URL ?? '';
  process.env.ASHBY_API_URL = ashby.env.ASHBY_API_URL;
  board = ashbyBoard('acme', {
    applicationLimit: 1,
    postings: [
      {
        id: POSTING,
        title: 'Staff Engineer',
        descriptionHtml: '<h2>About</h2><p>Build things.</p>',
        location: 'Berlin, Germany',
        department: 'Engineering',
        team: 'Platform Software',
        employmentType: 'PartTime',
        workplaceType: 'Remote',
        compensation: { min: 90000, max: 120000, currency: 'EUR', interval: '1 YEAR', summary: '€90K – €120K' },
        questions: [
          { path: 'q-relocate', title: 'Willing to relocate?', type: 'Boolean', required: true },
          { path: 'q-years', title: 'Years of experience', type: 'Number' },
          { path: 'q-stack', title: 'Languages', type: 'MultiValueSelect', options: ['TypeScript', 'Go', 'Rust'] },
          { path: 'q-start', title: 'Start', type: 'ValueSelect', options: ['Immediately', 'In three months'] },
          { path: 'q-letter', title: 'Anything else?', type: 'RichText' },
          { path: 'q-portfolio', title: 'Portfolio', type: 'File' },
        ],
      },
      { id: CLOSED, title: 'Closed role', open: false },
      { id: NO_COVER, title: 'Contractor', employmentType: 'Contract', coverLetterField: false, workplaceType: null, isRemote: true },
    ],
  });
  ashby.boards.set(board.name, board);
});
afterAll(async () => {
  process.env.ASHBY_API_URL = savedUrl;
  await ashby.server.stop();
});

describe('credentials check', () => {
  test('a key whose apiKey.info lists its permissions: board + apiKey.info, nothing created', async () => {
    ashby.boards.set('listed', ashbyBoard('listed', { apiKeyInfoScopes: true }));
    const before = ashby.server.requests.length;
    await expect(
      ashbyConnector.validateCredentials({ job_board_name: 'listed', api_key: 'ashby-key-listed' }, company),
    ).resolves.toBeUndefined();
    const made = ashby.server.requests.slice(before);
    expect(made.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /ashby/posting-api/job-board/listed', 'POST /ashby/apiKey.info']);
    expect(made[1].headers.authorization).toBe(`Basic ${Buffer.from('ashby-key-listed:').toString('base64')}`);
    expect(ashby.applications).toHaveLength(0);
  });

  test('apiKey.info without a scopes list (as Ashby documents it, P279): jobPosting.info of a board posting proves the key and jobsRead', async () => {
    const before = ashby.server.requests.length;
    await expect(ashbyConnector.validateCredentials(credentials(), company)).resolves.toBeUndefined();
    const made = ashby.server.requests.slice(before);
    expect(made.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /ashby/posting-api/job-board/acme',
      'POST /ashby/apiKey.info',
      'POST /ashby/jobPosting.info',
    ]);
    expect(made[2].json).toEqual({ jobPostingId: POSTING });
    expect(ashby.applications).toHaveLength(0);
    // What the check cannot then prove is declared for the connect result.
    expect(ashbyConnector.check.doesNotProve).toMatch(/candidatesWrite/);
    expect(ashbyConnector.check.doesNotProve).toMatch(/missing_endpoint_permission/);
  });

  test('a key without apiKeysRead (403 missing_endpoint_permission on apiKey.info) falls back to jobPosting.info, or jobPosting.list on an empty board', async () => {
    ashby.boards.set(
      'nokeysread',
      ashbyBoard('nokeysread', { scopes: ['candidatesWrite', 'jobsRead'], postings: [{ id: POSTING, title: 'x' }] }),
    );
    ashby.boards.set('emptyboard', ashbyBoard('emptyboard', { scopes: ['candidatesWrite', 'jobsRead'] }));
    for (const name of ['nokeysread', 'emptyboard']) {
      const before = ashby.server.requests.length;
      await expect(
        ashbyConnector.validateCredentials({ job_board_name: name, api_key: `ashby-key-${name}` }, company),
      ).resolves.toBeUndefined();
      const made = ashby.server.requests.slice(before).map((r) => `${r.path} ${r.status}`);
      expect(made[1]).toBe('/ashby/apiKey.info 403');
      expect(made[2]).toBe(name === 'emptyboard' ? '/ashby/jobPosting.list 200' : '/ashby/jobPosting.info 200');
    }
  });

  test('the fallback refuses a key without jobsRead, and a key of another organization than the board', async () => {
    ashby.boards.set('noread2', ashbyBoard('noread2', { scopes: ['candidatesWrite'], postings: [{ id: POSTING, title: 'x' }] }));
    const noRead = await rejection(
      ashbyConnector.validateCredentials({ job_board_name: 'noread2', api_key: 'ashby-key-noread2' }, company),
    );
    expect(noRead).toMatchObject({ kind: 'credentials_rejected', field: 'api_key', message: expect.stringContaining('jobsRead') });
    // The key of board "acme" (another organization) does not know the postings of board "other-org".
    ashby.boards.set('other-org', ashbyBoard('other-org', { postings: [{ id: 'e0e0e0e0-0000-4000-8000-000000000001', title: 'y' }] }));
    const foreign = await rejection(ashbyConnector.validateCredentials({ job_board_name: 'other-org', api_key: board.apiKey }, company));
    expect(foreign).toMatchObject({
      kind: 'credentials_rejected',
      field: 'api_key',
      message: expect.stringContaining('another organization'),
    });
  });

  test('scopes spelled `candidates:write` / `jobs:read` count as the permissions', async () => {
    ashby.boards.set('colon', ashbyBoard('colon', { scopes: ['apiKeysRead', 'candidates:write', 'jobs:read'], apiKeyInfoScopes: true }));
    await expect(
      ashbyConnector.validateCredentials({ job_board_name: 'colon', api_key: 'ashby-key-colon' }, company),
    ).resolves.toBeUndefined();
  });

  test('an unknown job board is rejected naming job_board_name', async () => {
    await expect(ashbyConnector.validateCredentials({ job_board_name: 'nope', api_key: board.apiKey }, company)).rejects.toMatchObject({
      kind: 'credentials_rejected',
      field: 'job_board_name',
    });
  });

  test('a wrong key is rejected naming api_key, and the key is not in the message', async () => {
    const error = await rejection(ashbyConnector.validateCredentials({ job_board_name: board.name, api_key: 'wrong-key-12345' }, company));
    expect(error).toMatchObject({ kind: 'credentials_rejected', field: 'api_key' });
    expect(error.message).toContain('403');
    expect(error.message).not.toContain('wrong-key-12345');
  });

  test.each([
    [['apiKeysRead', 'jobsRead'], /missing the candidatesWrite permission/],
    [['apiKeysRead', 'candidatesWrite'], /missing the jobsRead permission/],
    [['apiKeysRead'], /missing the candidatesWrite and jobsRead permissions/],
  ])('a key whose listed scopes are %j is rejected naming api_key: %s', async (scopes, message) => {
    const name = `scopes-${scopes.join('-')}`;
    ashby.boards.set(name, ashbyBoard(name, { scopes, apiKeyInfoScopes: true }));
    const error = await rejection(ashbyConnector.validateCredentials({ job_board_name: name, api_key: `ashby-key-${name}` }, company));
    expect(error).toMatchObject({ kind: 'credentials_rejected', field: 'api_key', message: expect.stringMatching(message) });
  });

  test('Ashby unreachable is transient', async () => {
    process.env.ASHBY_API_URL = 'http://127.0.0.1:9';
    try {
      await expect(ashbyConnector.validateCredentials(credentials(), company)).rejects.toMatchObject({
        kind: 'transient',
        message: 'Ashby is unreachable.',
      });
    } finally {
      process.env.ASHBY_API_URL = ashby.env.ASHBY_API_URL;
    }
  });
});

describe('jobs', () => {
  test('the whole board comes in one request (no paging), each posting with its form from jobPosting.info', async () => {
    ashby.boards.set(
      'big',
      ashbyBoard('big', {
        postings: Array.from({ length: 12 }, (_, i) => ({
          id: `c0ffee00-0000-4000-8000-${String(i).padStart(12, '0')}`,
          title: `Job ${i}`,
        })),
      }),
    );
    const before = ashby.server.requests.length;
    const jobs = (await ashbyConnector.listPublishedJobs(company, { job_board_name: 'big', api_key: 'ashby-key-big' }))!;
    const made = ashby.server.requests.slice(before);
    expect(jobs.map((j) => j.title)).toEqual(Array.from({ length: 12 }, (_, i) => `Job ${i}`));
    const boardReads = made.filter((r) => r.method === 'GET');
    expect(boardReads).toHaveLength(1);
    expect(boardReads[0].query.get('includeCompensation')).toBe('true');
    expect(made.filter((r) => r.path.endsWith('/jobPosting.info'))).toHaveLength(12);
  });

  test('a posting maps to our fields; its custom questions become screening questions', async () => {
    const jobs = (await ashbyConnector.listPublishedJobs(company, credentials()))!;
    expect(jobs.map((j) => j.external_id)).toEqual([POSTING, NO_COVER]);
    const [job, contract] = jobs;
    expect(job).toMatchObject({
      external_id: POSTING,
      title: 'Staff Engineer',
      description: '<h2>About</h2><p>Build things.</p>',
      description_sections: [
        { id: 'description', type: 'html', order: 1, title: 'Description', content: '<h2>About</h2><p>Build things.</p>' },
      ],
      posting_url: `https://jobs.ashbyhq.com/acme/${POSTING}`,
      application_url: `https://jobs.ashbyhq.com/acme/${POSTING}/application`,
      location_name: 'Berlin, Germany',
      city: 'Berlin',
      country: 'Germany',
      postcode: '10115',
      remote: 'remote',
      employment_type: 'permanent',
      work_schedule: 'part_time',
      category: 'engineering',
      salary: '€90K – €120K',
      salary_from: 90000,
      salary_to: 120000,
      salary_currency: 'EUR',
      salary_frequency: 'annual',
      custom_fields: { department: 'Engineering', team: 'Platform Software', secondary_locations: ['Hamburg'] },
      import_source: 'api',
    });
    expect(job.raw_values).toMatchObject({ id: POSTING, title: 'Staff Engineer', compensation: expect.any(Object) });
    expect(job.screening_questions).toEqual([
      { id: 'q-relocate', question: 'Willing to relocate?', answer_type: 'boolean', required: true, options: [] },
      { id: 'q-years', question: 'Years of experience', answer_type: 'number', required: false, options: [] },
      {
        id: 'q-stack',
        question: 'Languages',
        answer_type: 'multi_select',
        required: false,
        options: [
          { label: 'TypeScript', value: 'typescript' },
          { label: 'Go', value: 'go' },
          { label: 'Rust', value: 'rust' },
        ],
      },
      {
        id: 'q-start',
        question: 'Start',
        answer_type: 'single_select',
        required: false,
        options: [
          { label: 'Immediately', value: 'immediately' },
          { label: 'In three months', value: 'in_three_months' },
        ],
      },
      { id: 'q-letter', question: 'Anything else?', answer_type: 'textarea', required: false, options: [] },
    ]);
    expect(job.application_form_fields!.map((f) => [f.name, f.type, f.required, f.order])).toEqual([
      ['_systemfield_name', 'String', true, 1],
      ['_systemfield_email', 'Email', true, 2],
      ['_systemfield_phone', 'Phone', false, 3],
      ['_systemfield_resume', 'File', false, 4],
      [COVER_LETTER_PATH, 'File', false, 5],
      ['q-relocate', 'Boolean', true, 6],
      ['q-years', 'Number', false, 7],
      ['q-stack', 'MultiValueSelect', false, 8],
      ['q-start', 'ValueSelect', false, 9],
      ['q-letter', 'RichText', false, 10],
      ['q-portfolio', 'File', false, 11],
    ]);
    expect(contract).toMatchObject({
      employment_type: 'contract',
      work_schedule: null,
      remote: 'remote',
      salary: null,
      screening_questions: [],
    });
  });

  test('quirks: a posting without `id` takes it from its URL; unlisted postings and ones jobPosting.info no longer knows are left out', async () => {
    ashby.boards.set(
      'quirks',
      ashbyBoard('quirks', {
        postings: [
          { id: 'a1a1a1a1-0000-4000-8000-000000000001', title: 'No id in the feed', withoutId: true },
          { id: 'a1a1a1a1-0000-4000-8000-000000000002', title: 'Unlisted', listed: false },
          { id: 'a1a1a1a1-0000-4000-8000-000000000003', title: 'Listed' },
        ],
      }),
    );
    const quirks = ashby.boards.get('quirks')!;
    // jobPosting.info answers job_posting_not_found for a posting gone between the board and the read.
    const realPostings = quirks.postings;
    const server = await startSimulatorServer(async (req) => {
      const response = await fetch(`${ashby.server.url}${req.path}?${req.query.toString()}`, {
        method: req.method,
        headers: { authorization: req.headers.authorization ?? '', 'content-type': req.headers['content-type'] ?? 'application/json' },
        body: req.method === 'POST' ? req.body : undefined,
      });
      const body = (await response.json()) as Record<string, unknown>;
      if (req.path.endsWith('/jobPosting.info') && (req.json as { jobPostingId?: string }).jobPostingId === realPostings[2].id)
        return { status: 200, body: { success: false, errors: ['job_posting_not_found'], errorInfo: { code: 'job_posting_not_found' } } };
      return { status: response.status, body };
    });
    process.env.ASHBY_API_URL = `${server.url}/ashby`;
    try {
      const jobs = (await ashbyConnector.listPublishedJobs(company, { job_board_name: 'quirks', api_key: 'ashby-key-quirks' }))!;
      expect(jobs.map((j) => [j.external_id, j.title])).toEqual([['a1a1a1a1-0000-4000-8000-000000000001', 'No id in the feed']]);
      expect(jobs[0].raw_values).not.toHaveProperty('id');
    } finally {
      process.env.ASHBY_API_URL = ashby.env.ASHBY_API_URL;
      await server.stop();
    }
  });

  test.each([
    ['jobs is not a list', '{"apiVersion": "1", "jobs": {}}'],
    ['not JSON', '<html>maintenance</html>'],
    ['a posting without id or URLs', '{"apiVersion": "1", "jobs": [{"title": "x"}]}'],
  ])('a malformed board (%s) is invalid_data', async (_name, raw) => {
    ashby.boards.set('broken', ashbyBoard('broken', { listOverride: raw }));
    await expect(
      ashbyConnector.listPublishedJobs(company, { job_board_name: 'broken', api_key: 'ashby-key-broken' }),
    ).rejects.toMatchObject({
      kind: 'invalid_data',
    });
  });

  test('a key that lost jobsRead fails the import as credentials_rejected naming api_key', async () => {
    ashby.boards.set(
      'noread',
      ashbyBoard('noread', { scopes: ['candidatesWrite'], postings: [{ id: 'd0d0d0d0-0000-4000-8000-000000000001', title: 'x' }] }),
    );
    await expect(
      ashbyConnector.listPublishedJobs(company, { job_board_name: 'noread', api_key: 'ashby-key-noread' }),
    ).rejects.toMatchObject({
      kind: 'credentials_rejected',
      field: 'api_key',
      message: expect.stringContaining('missing_endpoint_permission'),
    });
  });
});

describe('applications', () => {
  test('answers are typed by the form, matched by path or question; unknown answers are not sent; the id comes back', async () => {
    const result = await ashbyConnector.submitApplication(
      submission({
        candidate: { email: 'typed@example.com', full_name: 'Ada King Lovelace' },
        source: 'jobboard-x',
        screeningAnswers: [
          { id: 'q-relocate', answer: 'Yes' },
          { id: 'q-years', answer: '7' },
          { id: 'other-id', question: 'languages', answer: 'TypeScript, rust' },
          { id: 'q-start', answer: 'In three months' },
          { id: 'q-letter', answer: 'Hello' },
          { id: 'not-on-this-form', question: 'Favourite colour?', answer: 'blue' },
        ],
      }),
      credentials(),
    );
    const application = ashby.applications.find((a) => a.submittedFormInstanceId === result.externalId)!;
    expect(application).toMatchObject({ postingId: POSTING, blocked: false });
    expect(lastForm().fieldSubmissions).toEqual([
      { path: '_systemfield_name', value: 'Ada King Lovelace' },
      { path: '_systemfield_email', value: 'typed@example.com' },
      { path: 'q-relocate', value: true },
      { path: 'q-years', value: 7 },
      { path: 'q-stack', value: ['typescript', 'rust'] },
      { path: 'q-start', value: 'in_three_months' },
      { path: 'q-letter', value: { type: 'PlainText', value: 'Hello' } },
      { path: '_systemfield_resume', value: expect.stringMatching(/^fh_/) },
    ]);
    expect(submits().at(-1)!.headers['content-type']).toBe('application/json');
    expect(lastBody().utmData).toEqual({ utm_source: 'jobboard-x' });
  });

  test("a Date answer goes as YYYY-MM-DD (a date-time's day, as written); anything else is invalid_data before sending", async () => {
    const DATED = 'b7a1e0c2-1111-4000-8000-000000000009';
    board.postings.push({ id: DATED, title: 'Dated role', questions: [{ path: 'q-when', title: 'Earliest start', type: 'Date' }] });
    try {
      for (const [answer, value] of [
        ['2027-01-15', '2027-01-15'],
        ['2027-01-15T09:30:00+01:00', '2027-01-15'],
      ]) {
        const candidate = { email: `dated.${value}.${answer.length}@example.com`, full_name: 'Dee Dated' };
        await ashbyConnector.submitApplication(
          submission({ jobExternalId: DATED, candidate, screeningAnswers: [{ id: 'q-when', answer_type: 'date', answer }] }),
          credentials(),
        );
        expect(lastForm().fieldSubmissions.find((f) => f.path === 'q-when')).toEqual({ path: 'q-when', value });
      }
      const before = submits().length;
      for (const answer of ['next spring', '15.01.2027', '2027-13-45'])
        await expect(
          ashbyConnector.submitApplication(
            submission({ jobExternalId: DATED, screeningAnswers: [{ id: 'q-when', answer }] }),
            credentials(),
          ),
        ).rejects.toMatchObject({ kind: 'invalid_data', message: expect.stringContaining('YYYY-MM-DD') });
      expect(submits()).toHaveLength(before);
    } finally {
      board.postings.pop();
    }
  });

  test('an answer that does not fit its field type is invalid_data, and nothing is submitted', async () => {
    const before = submits().length;
    await expect(
      ashbyConnector.submitApplication(submission({ screeningAnswers: [{ id: 'q-relocate', answer: 'perhaps' }] }), credentials()),
    ).rejects.toMatchObject({ kind: 'invalid_data' });
    expect(submits()).toHaveLength(before);
  });

  test.each([
    ['over the per-file limit', [{ name: 'cv.pdf', size: ASHBY_MAX_FILE_BYTES + 1 }], POSTING],
    ['empty', [{ name: 'cv.pdf', bytes: Buffer.alloc(0) }], POSTING],
    ['a type the form has no field for', [{ name: 'cv.pdf' }, { name: 'cert.pdf', type: 'certificate' }], POSTING],
    ['a cover letter where the form has none', [{ name: 'cv.pdf' }, { name: 'cover.pdf', type: 'cover_letter' }], NO_COVER],
    ['two files for one field', [{ name: 'cv.pdf' }, { name: 'cv2.pdf' }], POSTING],
  ])(
    'a file Ashby will not take (%s) is attachment_rejected before anything is submitted, the message without its name',
    async (_name, files, posting) => {
      const before = submits().length;
      const error = await rejection(
        ashbyConnector.submitApplication(
          submission({ jobExternalId: posting, candidate: { email: 'files@example.com', full_name: 'F F' } }, files),
          credentials(),
        ),
      );
      expect(error).toMatchObject({ kind: 'attachment_rejected' });
      expect(error.message).not.toMatch(/cv\.pdf|cv2|cert\.pdf|cover\.pdf/);
      expect(submits()).toHaveLength(before);
    },
  );

  test('files go through the presigned upload (P279): a handle per file, the file to its URL without the key, the handle in the JSON submit', async () => {
    const before = ashby.server.requests.length;
    const cover = Buffer.from('%PDF-1.5\ncover\n%%EOF');
    await ashbyConnector.submitApplication(
      submission(
        { candidate: { email: 'upload@example.com', full_name: 'Up Load' }, screeningAnswers: [{ id: 'q-relocate', answer: 'no' }] },
        [{ name: 'cv.pdf' }, { name: 'cover.pdf', type: 'cover_letter', bytes: cover }],
      ),
      credentials(),
    );
    const made = ashby.server.requests.slice(before);
    expect(made.map((r) => r.path)).toEqual([
      '/ashby/jobPosting.info',
      '/ashby/file.createFileUploadHandle',
      '/ashby-storage/upload',
      '/ashby/file.createFileUploadHandle',
      '/ashby-storage/upload',
      '/ashby/applicationForm.submit',
    ]);
    expect(made[1].json).toEqual({
      fileUploadContext: 'ApplicationForm',
      fileName: 'cv.pdf',
      contentType: 'application/pdf',
      contentLength: PDF.length,
    });
    // The presigned POST carries no Ashby credentials; the file is the part named `file`.
    expect(made[2].headers.authorization).toBeUndefined();
    expect(made[2].files.map((f) => [f.field, f.filename, f.bytes])).toEqual([['file', 'cv.pdf', PDF]]);
    const values = lastForm().fieldSubmissions;
    expect(ashby.uploads.get(String(values.find((v) => v.path === COVER_LETTER_PATH)!.value))!.file!.bytes).toEqual(cover);
  });

  test.each([
    [403, 'attachment_rejected'],
    [503, 'transient'],
  ])('the file storage answering %s is %s, and nothing is submitted; the message has no URL', async (status, kind) => {
    const before = submits().length;
    ashby.storageStatusNext = status;
    const error = await rejection(
      ashbyConnector.submitApplication(submission({ candidate: { email: 'storage@example.com', full_name: 'S S' } }), credentials()),
    );
    expect(error.kind).toBe(kind);
    expect(error.message).not.toMatch(/http|ashby-storage|fh_/);
    expect(submits()).toHaveLength(before);
  });

  test('an unpublished posting is job_not_published (sent with allowSubmissionForUnpublishedJobPosting=false); an unknown one too', async () => {
    await expect(ashbyConnector.submitApplication(submission({ jobExternalId: CLOSED }), credentials())).rejects.toMatchObject({
      kind: 'job_not_published',
      message: expect.stringContaining('job_posting_not_published'),
    });
    expect(lastBody().allowSubmissionForUnpublishedJobPosting).toBe(false);
    await expect(
      ashbyConnector.submitApplication(submission({ jobExternalId: 'ffffffff-0000-4000-8000-000000000000' }), credentials()),
    ).rejects.toMatchObject({ kind: 'job_not_published' });
  });

  test('a 200 with success: false (validation) is invalid_data, never a success, and the message has no e-mail', async () => {
    const error = await rejection(
      ashbyConnector.submitApplication(
        submission({ candidate: { email: 'testing-fail-validation@example.com', full_name: 'T V' } }),
        credentials(),
      ),
    );
    expect(submits().pop()!.status).toBe(200);
    expect(error).toMatchObject({ kind: 'invalid_data', message: expect.stringContaining('invalid_input') });
    expect(error.message).not.toContain('testing-fail-validation');
  });

  test('an application over the application limit (formMessages.blocked) is duplicate', async () => {
    board.priorApplicants.add('again@example.com');
    await expect(
      ashbyConnector.submitApplication(
        submission({ candidate: { email: 'again@example.com', full_name: 'A A' }, screeningAnswers: [{ id: 'q-relocate', answer: 'no' }] }),
        credentials(),
      ),
    ).rejects.toMatchObject({ kind: 'duplicate' });
    expect(ashby.applications.filter((a) => a.blocked)).toHaveLength(1);
  });

  test('429 is rate_limited with the Retry-After seconds', async () => {
    ashby.rateLimitNext = 1;
    await expect(
      ashbyConnector.submitApplication(submission({ candidate: { email: 'rate@example.com', full_name: 'R R' } }), credentials()),
    ).rejects.toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 1 });
  });

  test('a wrong key, or a key without candidatesWrite, is credentials_rejected without the key in the message', async () => {
    const error = await rejection(ashbyConnector.submitApplication(submission(), { ...credentials(), api_key: 'rotated-key-777' }));
    expect(error).toMatchObject({ kind: 'credentials_rejected' });
    expect(error.message).not.toContain('rotated-key-777');
    // A key without candidatesWrite passes the check when apiKey.info lists no permissions, and fails here:
    // 403 missing_endpoint_permission → CredentialsRejectedError naming the permission (P279).
    ashby.boards.set('nowrite', ashbyBoard('nowrite', { scopes: ['jobsRead'], postings: [{ id: POSTING, title: 'x' }] }));
    await expect(
      ashbyConnector.validateCredentials({ job_board_name: 'nowrite', api_key: 'ashby-key-nowrite' }, company),
    ).resolves.toBeUndefined();
    for (const files of [[{ name: 'cv.pdf' }], []]) {
      const noWrite = await rejection(
        ashbyConnector.submitApplication(submission({}, files), { job_board_name: 'nowrite', api_key: 'ashby-key-nowrite' }),
      );
      expect(noWrite).toMatchObject({ kind: 'credentials_rejected', name: 'CredentialsRejectedError', field: 'api_key' });
      expect(noWrite.message).toContain('missing_endpoint_permission');
      expect(noWrite.message).toContain('candidatesWrite');
      expect(noWrite.message).not.toContain('ashby-key-nowrite');
    }
  });

  test.each([
    ['503', 'transient', { status: 503, body: {} }],
    ['200 without a body', 'transient', { status: 200 }],
    ['200 with success true but no form instance', 'transient', { status: 200, body: { success: true, results: {} } }],
    [
      '200 success: false with a file error',
      'attachment_rejected',
      { status: 200, body: { success: false, errorInfo: { code: 'file_too_large', message: 'x' } } },
    ],
    ['200 success: false, unknown code', 'invalid_data', { status: 200, body: { success: false, errors: ['something_else'] } }],
    ['401', 'credentials_rejected', { status: 401, body: { success: false, errorInfo: { code: 'unauthenticated' } } }],
    ['429 with rate_limit_exceeded', 'rate_limited', { status: 429, body: { success: false, errorInfo: { code: 'rate_limit_exceeded' } } }],
  ])('applicationForm.submit answering %s → %s', async (_name, kind, reply) => {
    // jobPosting.info goes to the real simulator's form; applicationForm.submit gets the odd answer.
    const proxy = await startSimulatorServer(async (req) => {
      if (req.path.endsWith('/applicationForm.submit')) return reply;
      const response = await fetch(`${ashby.server.url}${req.path}`, {
        method: 'POST',
        headers: { authorization: req.headers.authorization ?? '', 'content-type': 'application/json' },
        body: req.body,
      });
      return { status: response.status, body: await response.json() };
    });
    process.env.ASHBY_API_URL = `${proxy.url}/ashby`;
    try {
      await expect(ashbyConnector.submitApplication(submission(), credentials())).rejects.toMatchObject({ kind });
    } finally {
      process.env.ASHBY_API_URL = ashby.env.ASHBY_API_URL;
      await proxy.stop();
    }
  });

  test('a timeout is transient', async () => {
    process.env.ATS_TIMEOUT_MS = '100';
    const slow = await startSimulatorServer(async () => {
      await new Promise((r) => setTimeout(r, 400));
      return { status: 200, body: { success: true } };
    });
    process.env.ASHBY_API_URL = `${slow.url}/ashby`;
    try {
      await expect(ashbyConnector.submitApplication(submission(), credentials())).rejects.toMatchObject({
        kind: 'transient',
        message: 'Ashby timed out.',
      });
    } finally {
      delete process.env.ATS_TIMEOUT_MS;
      process.env.ASHBY_API_URL = ashby.env.ASHBY_API_URL;
      await slow.stop();
    }
  });
});
