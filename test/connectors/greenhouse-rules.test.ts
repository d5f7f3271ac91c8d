/**
 * Greenhouse's rules (issue 24 items 3 and 4). The key check (P211): an empty application to job 0, whose
 * 401 means a wrong key; it creates nothing. And P210, issue 24 item 4: a file the ATS will not take (larger than its per-file limit, or of a type it
 * refuses) is never dropped. The sync ends `FAILURE` with `AttachmentRejectedError`, nothing reaches the
 * ATS, and where the company is entitled to the e-mail fallback the application goes by e-mail with every
 * file. End to end: HTTP create → worker → Greenhouse connector (refuses PNG) → simulator → GET. And the screening
 * answers as Greenhouse's JSON body takes them, each reaching the question it answers.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectCompany, credentialsCheckOf } from '#delivery/ats-connections.js';
import { runJobImport } from '#delivery/job-import.js';
import { createCompany, getCompanyRecord, setCompanyFields, setCompanyStatus } from '#companies/company-store.js';
import { findJobByExternalId } from '#jobs/job-store.js';
import { aPartner } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { startGreenhouseSimulator, type GreenhouseJobFixture, type GreenhouseSimulator } from '../simulators/greenhouse.js';
import { withoutPacing } from '../simulators/server.js';

withoutPacing();

process.env.SYNC_RETRY_BASE_SECONDS = '0';
process.env.SYNC_CLAIM_SECONDS = '1';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('a portfolio image')]);

let api: TestRuntime;
let greenhouse: GreenhouseSimulator;
let partner: Awaited<ReturnType<typeof aPartner>>;

beforeAll(async () => {
  [api, greenhouse] = await Promise.all([startTestRuntime(), startGreenhouseSimulator()]);
  Object.assign(process.env, greenhouse.env);
  partner = await aPartner();
});
afterAll(async () => {
  await Promise.all([api.stop(), greenhouse.server.stop()]);
});

async function greenhouseCompany(token: string, entitlements: string[], questions?: GreenhouseJobFixture['questions']) {
  greenhouse.boards.set(token, {
    token,
    apiKey: `key-${token}-1234`,
    jobs: [{ id: 4100, title: 'Designer', content: '<p>Design</p>', questions }],
  });
  const company = await createCompany({
    partner: partner.id,
    name: `Files ${token}`,
    ats: 'greenhouse',
    entitlements,
    contact_email: `hr@${token}.example`,
  });
  await connectCompany(company.id, 'greenhouse', { board_token: token, api_key: `key-${token}-1234` });
  await runJobImport(company.id);
  return { id: company.id, job: (await findJobByExternalId(company.id, '4100'))!.id };
}

async function applyWithPng(company: { id: number; job: number }) {
  const created = await api.request('POST', '/applications/', {
    key: partner.key,
    companyId: company.id,
    body: {
      job: company.job,
      candidate: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace' },
      attachments: [{ type: 'cv', name: 'portfolio.png', content_type: 'image/png', data: PNG.toString('base64') }],
    },
  });
  expect(created.status).toBe(201);
  await api.runtime.poller.drain();
  return (await api.get(`/applications/${created.body.id}`, { key: partner.key, companyId: company.id })).body;
}

const posts = () => greenhouse.server.requests.filter((r) => r.method === 'POST' && !/\/jobs\/0$/.test(r.path));
const mails = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.eml')) : []);

test('a resume type Greenhouse refuses: FAILURE AttachmentRejectedError, nothing sent to Greenhouse, the e-mail fallback carries the file', async () => {
  const company = await greenhouseCompany('filesmail', ['job_sync', 'candidate_sync', 'email_fallback']);
  const outbox = join(api.runtime.dataDir, 'outbox');
  const before = new Set(mails(outbox));
  const postsBefore = posts().length;
  const app = await applyWithPng(company);
  expect(app).toMatchObject({ sync_status: 'FAILURE', failure_error: 'AttachmentRejectedError', email_sync_status: 'SUCCESS' });
  expect(posts().length).toBe(postsBefore);
  const sent = mails(outbox).filter((f) => !before.has(f));
  expect(sent).toHaveLength(1);
  const eml = readFileSync(join(outbox, sent[0]), 'utf8');
  expect(eml).toContain('To: hr@filesmail.example');
  expect(eml.replace(/\r\n/g, '')).toContain(PNG.toString('base64'));
});

test('without the e-mail fallback: FAILURE AttachmentRejectedError and e-mail NOTSENT (the file is kept, never dropped)', async () => {
  const company = await greenhouseCompany('filesonly', ['job_sync', 'candidate_sync']);
  const app = await applyWithPng(company);
  expect(app).toMatchObject({ sync_status: 'FAILURE', failure_error: 'AttachmentRejectedError', email_sync_status: 'NOTSENT' });
  expect(app.attachments).toEqual([expect.objectContaining({ name: 'portfolio.png', content_type: 'image/png' })]);
});

describe('screening answers, as the JSON body takes them', () => {
  const questions: GreenhouseJobFixture['questions'] = [
    { required: true, label: 'First Name', fields: [{ name: 'first_name', type: 'input_text' }] },
    {
      required: true,
      label: 'Authorized to work in the EU?',
      fields: [
        {
          name: 'question_55',
          type: 'multi_value_single_select',
          values: [
            { label: 'Yes', value: 1 },
            { label: 'No', value: 0 },
          ],
        },
      ],
    },
    {
      required: false,
      label: 'Tools you use',
      fields: [
        { name: 'question_56[]', type: 'multi_value_multi_select', values: [7, 8, 9].map((value) => ({ label: `Tool ${value}`, value })) },
      ],
    },
    {
      required: false,
      label: 'Office',
      fields: [
        {
          name: 'question_57',
          type: 'multi_value_single_select',
          values: [
            { label: 'Berlin', value: 31 },
            { label: 'Remote', value: 32 },
          ],
        },
      ],
    },
    { required: false, label: 'Why us?', fields: [{ name: 'question_58', type: 'textarea' }] },
  ];

  async function apply(token: string, eligible: string) {
    const company = await greenhouseCompany(token, ['job_sync', 'candidate_sync'], questions);
    const job = await api.get(`/jobs/${company.job}`, { key: partner.key, companyId: company.id });
    const asked = (job.body.screening_questions as { id: string; question: string; answer_type: string }[]).map((q) => ({ ...q }));
    expect(asked.map((q) => [q.id, q.answer_type])).toEqual([
      ['55', 'boolean'],
      ['56', 'multi_select'],
      ['57', 'single_select'],
      ['58', 'textarea'],
    ]);
    const answers = ['55', '56', '57', '58'].map((id, i) => {
      const { question, answer_type } = asked.find((q) => q.id === id)!;
      return { id, question, answer_type, answer: [eligible, '7, 9', '32', 'Because.'][i] };
    });
    const created = await api.request('POST', '/applications/', {
      key: partner.key,
      companyId: company.id,
      body: { job: company.job, candidate: { email: `ada@${token}.example`, full_name: 'Ada Lovelace' }, screening_questions: answers },
    });
    expect(created.status).toBe(201);
    await api.runtime.poller.drain();
    return (await api.get(`/applications/${created.body.id}`, { key: partner.key, companyId: company.id })).body;
  }

  test('a multi-select reaches its question as an array of option values, yes/no as 1, a select as its option', async () => {
    const app = await apply('answersjson', 'Yes');
    expect(app).toMatchObject({ sync_status: 'SUCCESS', failure_error: null });
    const sent = greenhouse.applications.at(-1)!;
    expect(Object.fromEntries(sent.answers)).toEqual({ '55': 1, '56': [7, 9], '57': 32, '58': 'Because.' });
    expect(Object.keys(sent.body).filter((key) => key.startsWith('question_'))).toEqual([
      'question_55',
      'question_56',
      'question_57',
      'question_58',
    ]);
  });

  test('a yes/no answer that is neither: FAILURE InvalidDataError, nothing sent to Greenhouse', async () => {
    const before = posts().length;
    const app = await apply('answersbad', 'perhaps');
    expect(app).toMatchObject({ sync_status: 'FAILURE', failure_error: 'InvalidDataError' });
    expect(posts().length).toBe(before);
  });
});

test('a 401 for a job post that is not live (reported) while the key is good: EXPECTED_FAILURE JobNotPublishedError, the company stays active', async () => {
  const company = await greenhouseCompany('notlive401', ['job_sync', 'candidate_sync']);
  const board = greenhouse.boards.get('notlive401')!;
  board.notLiveAnswer = 'unauthorized_401';
  board.jobs[0].acceptsApplications = false;
  const created = await api.request('POST', '/applications/', {
    key: partner.key,
    companyId: company.id,
    body: { job: company.job, candidate: { email: 'ada@notlive.example', full_name: 'Ada Lovelace' } },
  });
  expect(created.status).toBe(201);
  await api.runtime.poller.drain();
  const app = await api.get(`/applications/${created.body.id}`, { key: partner.key, companyId: company.id });
  expect(app.body).toMatchObject({ sync_status: 'EXPECTED_FAILURE', failure_error: 'JobNotPublishedError' });
  const calls = greenhouse.server.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/greenhouse/v1/boards/notlive401/'));
  expect(calls.map((r) => [r.path.split('/').pop(), r.status]).slice(-2)).toEqual([
    ['4100', 401],
    ['0', 404],
  ]);
  expect(await getCompanyRecord(company.id)).toMatchObject({ status: 'active' });
});

test('an import that succeeds turns a failing company active, but not one an operator deactivated while it ran (P267)', async () => {
  const company = await greenhouseCompany('midrun', ['job_sync', 'candidate_sync']);
  const board = greenhouse.boards.get('midrun')!;
  await setCompanyFields(company.id, { status: 'failing' });
  await runJobImport(company.id);
  expect(await getCompanyRecord(company.id)).toMatchObject({ status: 'active' });

  await setCompanyFields(company.id, { status: 'failing' });
  board.listDelayMs = 1500;
  try {
    const run = runJobImport(company.id);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await setCompanyStatus(company.id, 'deactivated');
    await run;
  } finally {
    board.listDelayMs = undefined;
  }
  expect(await getCompanyRecord(company.id)).toMatchObject({ status: 'deactivated', job_import_failures: 0 });
});

describe('the key check (P211, a heuristic)', () => {
  async function unconnected(
    token: string,
    options: { wrongKeyAnswer?: 'text' | 'json'; unknownJobAnswer?: 'not_found' | 'error_200' } = {},
  ) {
    greenhouse.boards.set(token, { token, apiKey: `key-${token}-1234`, jobs: [], ...options });
    return createCompany({ partner: partner.id, name: `Keys ${token}`, ats: null, entitlements: ['job_sync', 'candidate_sync'] });
  }

  test.each([['text'], ['json']] as const)(
    'a wrong key (401 as %s) is credentials_rejected naming api_key, and nothing is saved',
    async (answer) => {
      const company = await unconnected(`wrongkey${answer}`, { wrongKeyAnswer: answer });
      const before = await getCompanyRecord(company.id);
      const error = await connectCompany(company.id, 'greenhouse', { board_token: `wrongkey${answer}`, api_key: 'not-the-key-123' }).then(
        () => undefined,
        (e: unknown) => e as { code: string; errors: Record<string, string[]>; detail: string },
      );
      expect(error).toMatchObject({ code: 'credentials_rejected', errors: { api_key: [expect.stringContaining('401')] } });
      expect(Object.keys(error!.errors)).toEqual(['api_key']);
      expect(error!.detail).not.toContain('not-the-key-123');
      expect(await getCompanyRecord(company.id)).toEqual(before);
    },
  );

  test.each([
    ['not_found', 404],
    ['error_200', 200],
  ] as const)(
    'the right key (job 0 answered %s) connects; the probe is one empty POST and creates no candidate',
    async (answer, status) => {
      const token = `rightkey${status}`;
      const company = await unconnected(token, { unknownJobAnswer: answer });
      const applications = greenhouse.applications.length;
      const connected = await connectCompany(company.id, 'greenhouse', { board_token: token, api_key: `key-${token}-1234` });
      expect(connected).toMatchObject({ ats: 'greenhouse', status: 'active' });
      const probe = greenhouse.server.requests.filter((r) => r.path === `/greenhouse/v1/boards/${token}/jobs/0`);
      expect(probe.map((r) => [r.method, r.status, r.json])).toEqual([['POST', status, {}]]);
      expect(greenhouse.applications.length).toBe(applications);
    },
  );

  test('what the CLI and the page are told the check proved, and what it could not', () => {
    expect(credentialsCheckOf('greenhouse')).toEqual({
      call: expect.stringContaining('/jobs/0'),
      proved: expect.stringContaining('without 401'),
      not_proved: expect.stringContaining('heuristic'),
    });
    expect(credentialsCheckOf('lever')?.not_proved).toContain('API key');
    expect(credentialsCheckOf('nope')).toBeUndefined();
  });
});
