/**
 * The Greenhouse simulator against Greenhouse's own examples, without our connector: each request is rebuilt
 * from https://developers.greenhouse.io/job-board.html (the public repository grnhse/greenhouse-api-docs,
 * source/includes/job-board/_jobs.md and _applications.md, read at commit 0c37c31) and sent with fetch, and the
 * answers are checked against the fields the page documents. Then the shapes our connector used to send, and
 * others the page does not allow, must be refused. The page documents no refusal status or body: the simulator
 * answers as reported, 200 `{"error": "Failed to save person", "reason": …}` (ASSUMED).
 */
import { startGreenhouseSimulator, type GreenhouseSimulator } from '../simulators/greenhouse.js';

const KEY = 'MGQwMzFkODIyN2VhZmE2MWRjMzc1YTZjMmUwNjdlMjQ6';
const PDF = Buffer.from('%PDF-1.5\nresume\n%%EOF');
let greenhouse: GreenhouseSimulator;
let base: string;

const options = (values: number[]) => values.map((value) => ({ label: `Option ${value}`, value }));
const field = (name: string, type: string, values?: number[]) => ({ name, type, ...(values ? { values: options(values) } : {}) });

beforeAll(async () => {
  greenhouse = await startGreenhouseSimulator();
  base = greenhouse.env.GREENHOUSE_API_URL;
  // The questions the page's examples answer: 12345–12350 (JSON example), 5555, 3333, 2222 (form example).
  greenhouse.boards.set('very_awesome_inc', {
    token: 'very_awesome_inc',
    apiKey: KEY,
    jobs: [
      {
        id: 127817,
        title: 'Vault Designer',
        content: '<p>This is the job description.</p>',
        location: 'NYC',
        departments: ['Department of Departments'],
        metadata: [{ id: 12345, name: 'Field Name', value_type: 'text', value: 'Some value' }],
        pay: { min_cents: 5000000, max_cents: 7500000, currency_type: 'USD', title: 'NYC Salary Range' },
        dataCompliance: [
          {
            type: 'gdpr',
            requires_consent: true,
            requires_processing_consent: true,
            requires_retention_consent: true,
            retention_period: 12345,
          },
        ],
        questions: [
          { required: true, label: 'First Name', fields: [field('first_name', 'input_text')] },
          { required: true, label: 'Resume', fields: [field('resume', 'input_file'), field('resume_text', 'textarea')] },
          { required: false, label: 'Short text', fields: [field('question_12345', 'input_text')] },
          { required: false, label: 'Do you like apples?', fields: [field('question_12346', 'multi_value_single_select', [0, 1])] },
          { required: false, label: 'Pick one', fields: [field('question_12347', 'multi_value_single_select', [5869311, 5869312])] },
          { required: false, label: 'Pick some', fields: [field('question_12348[]', 'multi_value_multi_select', [5869317, 5869319])] },
          { required: false, label: 'Attachment', fields: [field('question_12349', 'input_file')] },
          { required: false, label: 'Something else', fields: [field('question_12350', 'input_file')] },
          { required: false, label: 'LinkedIn Profile', fields: [field('question_5555', 'input_text')] },
          { required: false, label: 'Some dropdown', fields: [field('question_3333', 'multi_value_single_select', [1, 0])] },
          {
            required: false,
            label: 'Multi select with checkboxes',
            fields: [field('question_2222[]', 'multi_value_multi_select', [2, 5])],
          },
        ],
      },
    ],
  });
});
afterAll(() => greenhouse.server.stop());

const auth = `Basic ${Buffer.from(`${KEY}:`).toString('base64')}`;
const jobUrl = `/v1/boards/very_awesome_inc/jobs/127817`;
const get = async (path: string) => {
  const response = await fetch(`${base}${path}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};
const postJson = async (body: unknown, path = jobUrl, headers: Record<string, string> = { Authorization: auth }) => {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.text()).trim() };
};

/** #submit-an-application, "or, you can POST a JSON encoded body": the example, with `data_compliance` and
 * `applicant_ip` inside the object as Request Parameters document them (the example closes the object early). */
const JSON_EXAMPLE = {
  first_name: 'Sammy',
  last_name: 'McSamson',
  email: 'sammy@example.com',
  phone: '3337778888',
  location: '110 5th Ave New York, NY, 10011',
  latitude: '40.7376671',
  longitude: '-73.9929196',
  resume_text: 'I have many years of experience as an expert basket weaver...',
  cover_letter_text: 'I have a very particular set of skills, skills I have acquired over a very long career. Skills that make me...',
  gender: 2,
  race: 4,
  veteran_status: 3,
  disability_status: 3,
  question_12345: 'Here is some short text for the first question',
  question_12346: 1,
  question_12347: 5869311,
  question_12348: [5869319, 5869317],
  question_12349_url: 'http://dropbox.com/dl/attachment.pdf',
  question_12349_url_filename: 'attachment.pdf',
  question_12350_content: 'SGVsbG8sIHdvcmxkIQo=',
  question_12350_content_filename: 'something_else.txt',
  educations: [
    {
      school_name_id: '1403524',
      degree_id: '1403534',
      discipline_id: '1403605',
      start_date: { month: '1', year: '1989' },
      end_date: { month: '2', year: '1990' },
    },
  ],
  employments: [
    {
      company_name: 'Business Co.',
      title: 'Sales Manager',
      start_date: { month: '1', year: '2016' },
      end_date: { month: '2', year: '2018' },
      current: 'false',
    },
  ],
  mapped_url_token: 'token12345',
  demographic_answers: [
    { question_id: 87, answer_options: [{ answer_option_id: 194 }] },
    { question_id: 88, answer_options: [{ answer_option_id: 212, text: 'Free-form Answer' }] },
  ],
  data_compliance: {
    gdpr_consent_given: true,
    gdpr_processing_consent_given: true,
    gdpr_retention_consent_given: true,
    gdpr_demographic_data_consent_given: true,
  },
  applicant_ip: '203.0.113.47',
};
const SUCCESS = JSON.stringify({ success: 'Candidate saved successfully' });
const refusal = (reason: RegExp) => expect.stringMatching(new RegExp(`^\\{"error":"Failed to save person","reason":"${reason.source}`));

describe('the documented reads', () => {
  test('#list-jobs: the documented job fields, and with content=true content, departments and offices', async () => {
    const plain = await get('/v1/boards/very_awesome_inc/jobs');
    expect(plain.status).toBe(200);
    expect(plain.body.meta).toEqual({ total: 1 });
    const [job] = plain.body.jobs as Record<string, unknown>[];
    expect(Object.keys(job).sort()).toEqual(
      ['absolute_url', 'id', 'internal_job_id', 'language', 'location', 'metadata', 'requisition_id', 'title', 'updated_at'].sort(),
    );
    const full = ((await get('/v1/boards/very_awesome_inc/jobs?content=true')).body.jobs as Record<string, unknown>[])[0];
    expect(full).toMatchObject({
      id: 127817,
      content: '&lt;p&gt;This is the job description.&lt;/p&gt;',
      departments: [{ id: 1, name: 'Department of Departments', parent_id: null, child_ids: [] }],
      offices: [expect.objectContaining({ id: expect.any(Number), name: expect.any(String), location: expect.any(String), child_ids: [] })],
    });
  });

  test('#retrieve-a-job: questions, data_compliance and pay_input_ranges as the example shows them', async () => {
    const { status, body } = await get(`${jobUrl}?questions=true&pay_transparency=true`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      id: 127817,
      internal_job_id: expect.any(Number),
      title: 'Vault Designer',
      language: 'en',
      location: { name: 'NYC' },
      metadata: [{ id: 12345, name: 'Field Name', value_type: 'text', value: 'Some value' }],
      data_compliance: [
        {
          type: 'gdpr',
          requires_consent: true,
          requires_processing_consent: true,
          requires_retention_consent: true,
          retention_period: 12345,
        },
      ],
      pay_input_ranges: [
        { min_cents: 5000000, max_cents: 7500000, currency_type: 'USD', title: 'NYC Salary Range', blurb: expect.any(String) },
      ],
    });
    expect((body.questions as unknown[])[1]).toEqual({
      required: true,
      label: 'Resume',
      fields: [
        { name: 'resume', type: 'input_file' },
        { name: 'resume_text', type: 'textarea' },
      ],
    });
    const bare = await get(jobUrl);
    expect(bare.body).not.toHaveProperty('questions');
    expect(bare.body).not.toHaveProperty('pay_input_ranges');
    expect((await get('/v1/boards/very_awesome_inc/jobs/1')).status).toBe(404);
    expect((await get('/v1/boards/no_such_board/jobs')).status).toBe(404);
  });
});

describe('#submit-an-application, the documented requests', () => {
  test('the JSON example is saved, with its answers and files', async () => {
    expect(await postJson(JSON_EXAMPLE)).toEqual({ status: 200, body: SUCCESS });
    const saved = greenhouse.applications.at(-1)!;
    expect(Object.fromEntries(saved.answers)).toEqual({
      '12345': 'Here is some short text for the first question',
      '12346': 1,
      '12347': 5869311,
      '12348': [5869319, 5869317],
    });
    expect(saved.files.get('question_12349')).toEqual({ filename: 'attachment.pdf', url: 'http://dropbox.com/dl/attachment.pdf' });
    expect(saved.files.get('question_12350')?.bytes?.toString()).toBe('Hello, world!\n');
  });

  test('the Submitting Attachments tables: resume and cover letter as Base64 content and as URL', async () => {
    const { question_12349_url: _u, question_12349_url_filename: _f, ...rest } = JSON_EXAMPLE;
    const body = {
      ...rest,
      resume_content: 'SGVsbG8sIHdvcmxkIQo=',
      resume_content_filename: 'resume.pdf',
      cover_letter_url: 'https://example.com/coverletter.pdf',
      cover_letter_url_filename: 'coverletter.pdf',
    };
    expect(await postJson(body)).toEqual({ status: 200, body: SUCCESS });
    expect(greenhouse.applications.at(-1)!.files.get('resume')).toEqual({ filename: 'resume.pdf', bytes: Buffer.from('Hello, world!\n') });
  });

  test('the multipart (cURL and form) example is saved, file parts included', async () => {
    const form = new FormData();
    const fields: [string, string][] = [
      ['id', '127817'],
      ['mapped_url_token', 'token12345'],
      ['first_name', 'Sammy'],
      ['last_name', 'McSamson'],
      ['email', 'sammy@example.com'],
      ['phone', '3337778888'],
      ['location', '110 5th Ave New York, NY, 10011'],
      ['latitude', '40.7376671'],
      ['longitude', '-73.9929196'],
      ['educations[][school_name_id]', '5417077'],
      ['educations[][degree_id]', '5494452'],
      ['educations[][discipline_id]', '5494865'],
      ['educations[][start_date][month]', '8'],
      ['educations[][start_date][year]', '2012'],
      ['employments[][company_name]', 'Business Co'],
      ['employments[][current]', 'false'],
      ['question_5555', 'https://linkedin.com/in/sammy'],
      ['question_3333', '1'],
      ['question_2222[]', '2'],
      ['question_2222[]', '5'],
      ['question_12349_url', 'http://dropbox.com/dl/attachment.pdf'],
      ['question_12349_url_filename', 'attachment.pdf'],
      ['question_12350_content', 'SGVsbG8sIHdvcmxkIQo='],
      ['question_12350_content_filename', 'something_else.txt'],
      ['demographic_answers[][question_id]', '87'],
      ['demographic_answers[][answer_options][][answer_option_id]', '194'],
      ['data_compliance[gdpr_consent_given]', 'true'],
      ['data_compliance[gdpr_processing_consent_given]', 'true'],
      ['data_compliance[gdpr_retention_consent_given]', 'true'],
      ['data_compliance[gdpr_demographic_data_consent_given]', 'true'],
      ['applicant_ip', '203.0.113.47'],
    ];
    for (const [name, value] of fields) form.append(name, value);
    form.append('resume', new Blob([PDF], { type: 'application/pdf' }), 'ADA084551.pdf');
    form.append('cover_letter', new Blob([PDF], { type: 'application/pdf' }), 'blah.pdf');
    const response = await fetch(`${base}${jobUrl}`, { method: 'POST', headers: { Authorization: auth }, body: form });
    expect({ status: response.status, body: await response.text() }).toEqual({ status: 200, body: SUCCESS });
    const saved = greenhouse.applications.at(-1)!;
    expect(Object.fromEntries(saved.answers)).toEqual({ '5555': 'https://linkedin.com/in/sammy', '3333': '1', '2222': ['2', '5'] });
    expect(saved.files.get('resume')).toEqual({ filename: 'ADA084551.pdf', bytes: PDF });
    expect(saved.files.get('cover_letter')?.filename).toBe('blah.pdf');
  });

  test('#authentication: without the key, or with a password-less key of another board, 401', async () => {
    expect((await postJson(JSON_EXAMPLE, jobUrl, {})).status).toBe(401);
    expect((await postJson(JSON_EXAMPLE, jobUrl, { Authorization: `Basic ${Buffer.from('other-key:').toString('base64')}` })).status).toBe(
      401,
    );
  });
});

describe('#submit-an-application, what it does not allow', () => {
  const { data_compliance: _c, ...withoutConsent } = JSON_EXAMPLE;
  test.each([
    // Our connector's old multi-select shape (P95, before P263): `[]` is form-data syntax, no JSON field.
    [
      'a JSON key `question_12348[]`',
      { ...JSON_EXAMPLE, question_12348: undefined, 'question_12348[]': [5869319] },
      /Unknown field: question_12348\[\]/,
    ],
    ['an undocumented field', { ...JSON_EXAMPLE, cover_letter_file: 'SGVsbG8=' }, /Unknown field: cover_letter_file/],
    [
      'resume_content without its filename',
      { ...JSON_EXAMPLE, resume_content: 'SGVsbG8sIHdvcmxkIQo=' },
      /Invalid attributes: resume_content needs/,
    ],
    [
      'a resume type it does not take',
      { ...JSON_EXAMPLE, resume_content: 'SGVsbG8=', resume_content_filename: 'me.png' },
      /Invalid resume attachment: unsupported/,
    ],
    [
      'an empty resume',
      { ...JSON_EXAMPLE, resume_content: '', resume_content_filename: 'me.pdf' },
      /Invalid resume attachment: empty file/,
    ],
    [
      'a file question answered with text',
      { ...JSON_EXAMPLE, question_12349_url: undefined, question_12349_url_filename: undefined, question_12349: 'see CV' },
      /Invalid attributes: question_12349/,
    ],
    [
      'file content for a text question',
      { ...JSON_EXAMPLE, question_12345_content: 'SGVsbG8=', question_12345_content_filename: 'a.pdf' },
      /Invalid attributes: question_12345 is not a file question/,
    ],
    [
      'an answer to no question of the job',
      { ...JSON_EXAMPLE, question_99999: 'x' },
      /Invalid attributes: question_99999 is not a question/,
    ],
    ['a select value it does not offer', { ...JSON_EXAMPLE, question_12347: 1 }, /Invalid attributes: question_12347/],
    [
      'no consent where the job asks for it',
      withoutConsent,
      /Invalid attributes: data_compliance\[gdpr_processing_consent_given\] is required/,
    ],
    [
      "SmartRecruiters' consent shape",
      { ...JSON_EXAMPLE, data_compliance: { SINGLE: true } },
      /Invalid attributes: data_compliance\[SINGLE\]/,
    ],
    ['no e-mail', { ...JSON_EXAMPLE, email: undefined }, /Invalid attributes: email is required/],
    [
      'a URL in the name',
      { ...JSON_EXAMPLE, last_name: 'see https://example.com' },
      /Invalid attributes: last_name must not contain a URL/,
    ],
    [
      'an employment without current',
      { ...JSON_EXAMPLE, employments: [{ company_name: 'Co', title: 'X', start_date: { month: '1', year: '2016' } }] },
      /Invalid attributes: employments/,
    ],
  ])('%s: refused', async (_name, body, reason) => {
    const before = greenhouse.applications.length;
    expect(await postJson(body)).toEqual({ status: 200, body: refusal(reason) });
    expect(greenhouse.applications.length).toBe(before);
  });

  test.each([
    ['the old application path', '/v1/applications'],
    ['a path under the job', `${jobUrl}/applications`],
    ['a job the board does not have', '/v1/boards/very_awesome_inc/jobs/1'],
  ])('%s: 404', async (_name, path) => {
    expect((await postJson(JSON_EXAMPLE, path)).status).toBe(404);
  });
});
