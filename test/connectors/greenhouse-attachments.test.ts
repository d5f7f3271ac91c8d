/**
 * Greenhouse (P280): every file and the GDPR consent, connector against the simulator. One résumé and one
 * cover letter go as `resume_content`/`cover_letter_content`; every further file goes to a file question of the
 * job whose label fits it (`question_{id}_content`), else the application is `attachment_rejected` before it
 * is sent (and, end to end, the e-mail fallback carries every file). Consent goes as `data_compliance` when the
 * job's `data_compliance` asks for it, from `custom_fields.consent_decisions`; asked and not given is
 * `invalid_data`. Answers are typed by the job's own questions, and an answer to no question is refused.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CompanyRecord } from '#companies/company-schema.js';
import { createCompany } from '#companies/company-store.js';
import { connectCompany } from '#delivery/ats-connections.js';
import { greenhouseConnector } from '#delivery/connectors/greenhouse.js';
import { runJobImport } from '#delivery/job-import.js';
import { findJobByExternalId } from '#jobs/job-store.js';
import { aPartner } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { rejection, submissionFactory } from '../helpers/submissions.js';
import { startGreenhouseSimulator, type GreenhouseJobFixture, type GreenhouseSimulator } from '../simulators/greenhouse.js';
import { withoutPacing } from '../simulators/server.js';

withoutPacing();

process.env.SYNC_RETRY_BASE_SECONDS = '0';
process.env.SYNC_CLAIM_SECONDS = '1';

const PDF = Buffer.from('%PDF-1.5\nfirst cv\n%%EOF');
const file = (label: string) => Buffer.from(`%PDF-1.5\n${label}\n%%EOF`);
const TOKEN = 'filesboard';
const KEY = 'gh-files-key-1';
const credentials = { board_token: TOKEN, api_key: KEY };

let api: TestRuntime;
let greenhouse: GreenhouseSimulator;

const submission = submissionFactory({
  company: { id: 1, ats: 'greenhouse' } as CompanyRecord,
  pdf: PDF,
  jobExternalId: '5100',
  candidate: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace' },
});

const fileQuestion = (id: number, label: string) => ({ required: false, label, fields: [{ name: `question_${id}`, type: 'input_file' }] });
const GDPR = {
  type: 'gdpr' as const,
  requires_consent: true,
  requires_processing_consent: true,
  requires_retention_consent: true,
  retention_period: 365,
};

function publish(jobs: Partial<GreenhouseJobFixture>[]) {
  greenhouse.boards.set(TOKEN, {
    token: TOKEN,
    apiKey: KEY,
    jobs: jobs.map((j, i) => ({ id: 5100 + i, title: `Job ${i}`, content: '<p>x</p>', ...j })),
  });
}

const posts = () => greenhouse.server.requests.filter((r) => r.method === 'POST' && r.path.startsWith(`/greenhouse/v1/boards/${TOKEN}/`));

beforeAll(async () => {
  [api, greenhouse] = await Promise.all([startTestRuntime(), startGreenhouseSimulator()]);
  Object.assign(process.env, greenhouse.env);
});
afterAll(async () => {
  await Promise.all([api.stop(), greenhouse.server.stop()]);
});

describe('files (P280)', () => {
  test('two CVs, a cover letter and a certificate: each goes to its own documented field, nothing is dropped', async () => {
    publish([{ questions: [fileQuestion(70, 'Certificates'), fileQuestion(71, 'Additional CV / Resume')] }]);
    const result = await greenhouseConnector.submitApplication(
      submission({}, [
        { name: 'cv.pdf' },
        { name: 'cv-long.pdf', bytes: file('second cv') },
        { name: 'letter.docx', type: 'cover_letter', bytes: file('letter') },
        { name: 'diploma.pdf', type: 'certificate', bytes: file('diploma') },
      ]),
      credentials,
    );
    expect(result).toEqual({ externalId: null });
    const taken = greenhouse.applications.at(-1)!.files;
    expect(Object.fromEntries([...taken].map(([field, f]) => [field, [f.filename, f.bytes?.toString()]]))).toEqual({
      resume: ['cv.pdf', PDF.toString()],
      question_71: ['cv-long.pdf', file('second cv').toString()],
      cover_letter: ['letter.docx', file('letter').toString()],
      question_70: ['diploma.pdf', file('diploma').toString()],
    });
    expect(Object.keys(posts().at(-1)!.json as object)).toEqual(
      expect.arrayContaining([
        'question_71_content',
        'question_71_content_filename',
        'question_70_content',
        'question_70_content_filename',
      ]),
    );
  });

  test('a further file with no fitting question goes to a question for any further document', async () => {
    publish([{ questions: [fileQuestion(72, 'Other documents')] }]);
    await greenhouseConnector.submitApplication(
      submission({}, [{ name: 'cv.pdf' }, { name: 'sample.pdf', type: 'work_sample' }]),
      credentials,
    );
    expect([...greenhouse.applications.at(-1)!.files.keys()]).toEqual(['resume', 'question_72']);
  });

  test.each([
    ['a second CV, and the job has no file question', [], [{ name: 'cv.pdf' }, { name: 'cv2.pdf' }]],
    [
      'two certificates for one certificate question',
      [fileQuestion(73, 'Certificate')],
      [
        { name: 'a.pdf', type: 'certificate' },
        { name: 'b.pdf', type: 'certificate' },
      ],
    ],
    [
      'a file question the partner answered already',
      [fileQuestion(74, 'Portfolio')],
      [{ name: 'cv.pdf' }, { name: 'p.pdf', type: 'work_sample' }],
    ],
  ])('%s: attachment_rejected, and no application is sent', async (_name, questions, files) => {
    publish([{ questions }]);
    const before = posts().length;
    const answers = questions.some((q) => q.label === 'Portfolio')
      ? [{ id: '74', answer_type: 'file', answer: 'https://files.example/p.pdf' }]
      : [];
    const error = await rejection(greenhouseConnector.submitApplication(submission({ screeningAnswers: answers }, files), credentials));
    expect(error).toMatchObject({ kind: 'attachment_rejected', name: 'AttachmentRejectedError' });
    expect(error.message).toMatch(/no free file question for a further (cv|certificate|work_sample) file/);
    expect(posts().length).toBe(before);
  });

  test('a file question answered with a URL goes as question_{id}_url and _url_filename', async () => {
    publish([{ questions: [fileQuestion(74, 'Portfolio')] }]);
    await greenhouseConnector.submitApplication(
      submission({ screeningAnswers: [{ id: '74', answer_type: 'file', answer: 'https://files.example/work/p%20one.pdf' }] }),
      credentials,
    );
    expect(greenhouse.applications.at(-1)!.files.get('question_74')).toEqual({
      filename: 'p one.pdf',
      url: 'https://files.example/work/p%20one.pdf',
    });
    await greenhouseConnector.submitApplication(
      submission({ screeningAnswers: [{ id: '74', answer: 'https://files.example/50%off.pdf' }] }),
      credentials,
    );
    expect(greenhouse.applications.at(-1)!.files.get('question_74')?.filename).toBe('50%off.pdf');
    await expect(
      greenhouseConnector.submitApplication(submission({ screeningAnswers: [{ id: '74', answer: 'my portfolio' }] }), credentials),
    ).rejects.toMatchObject({ kind: 'invalid_data' });
    await expect(
      greenhouseConnector.submitApplication(
        submission({ screeningAnswers: [{ id: '74', answer: 'https://files.example/me.png' }] }),
        credentials,
      ),
    ).rejects.toMatchObject({ kind: 'attachment_rejected' });
  });

  test('end to end: a second CV Greenhouse has no field for fails AttachmentRejectedError and the e-mail carries both CVs', async () => {
    publish([{ questions: [] }]);
    const partner = await aPartner();
    const company = await createCompany({
      partner: partner.id,
      name: 'Two CVs',
      ats: 'greenhouse',
      entitlements: ['job_sync', 'candidate_sync', 'email_fallback'],
      contact_email: 'hr@twocvs.example',
    });
    await connectCompany(company.id, 'greenhouse', credentials);
    await runJobImport(company.id);
    const job = (await findJobByExternalId(company.id, '5100'))!;
    const outbox = join(api.runtime.dataDir, 'outbox');
    const mails = () => (existsSync(outbox) ? readdirSync(outbox).filter((f) => f.endsWith('.eml')) : []);
    const before = new Set(mails());
    const postsBefore = posts().length;
    const pdf = (label: string) => ({
      type: 'cv',
      name: `${label}.pdf`,
      content_type: 'application/pdf',
      data: file(label).toString('base64'),
    });
    const created = await api.request('POST', '/applications/', {
      key: partner.key,
      companyId: company.id,
      body: { job: job.id, candidate: { email: 'ada@twocvs.example', full_name: 'Ada Lovelace' }, attachments: [pdf('one'), pdf('two')] },
    });
    expect(created.status).toBe(201);
    await api.runtime.poller.drain();
    const app = (await api.get(`/applications/${created.body.id}`, { key: partner.key, companyId: company.id })).body;
    expect(app).toMatchObject({ sync_status: 'FAILURE', failure_error: 'AttachmentRejectedError', email_sync_status: 'SUCCESS' });
    expect(posts().length).toBe(postsBefore);
    const sent = mails().filter((f) => !before.has(f));
    expect(sent).toHaveLength(1);
    const eml = readFileSync(join(outbox, sent[0]), 'utf8').replace(/\r\n/g, '');
    expect(eml).toContain(file('one').toString('base64'));
    expect(eml).toContain(file('two').toString('base64'));
  });
});

describe('GDPR consent (P280)', () => {
  test('the import tells the partner which consent the job asks for', async () => {
    const partner = await aPartner();
    publish([{ dataCompliance: [{ ...GDPR, requires_consent: false, requires_retention_consent: false }] }]);
    const company = await createCompany({ partner: partner.id, name: 'Consent', ats: 'greenhouse', entitlements: ['job_sync'] });
    await connectCompany(company.id, 'greenhouse', credentials);
    await runJobImport(company.id);
    const job = (await findJobByExternalId(company.id, '5100'))!;
    expect(job.language).toBe('en');
    expect((job.custom_fields as Record<string, unknown>).data_compliance).toEqual([
      {
        type: 'gdpr',
        requires_consent: false,
        requires_processing_consent: true,
        requires_retention_consent: false,
        retention_period: 365,
      },
    ]);
    expect(job.application_form_fields).toEqual([
      expect.objectContaining({ name: 'data_compliance[gdpr_processing_consent_given]', type: 'consent', required: true }),
    ]);
  });

  test('asked and given: data_compliance carries exactly what the partner gave, a refusal included', async () => {
    publish([{ dataCompliance: [GDPR] }]);
    const given = { gdpr_processing_consent_given: true, gdpr_retention_consent_given: false };
    await greenhouseConnector.submitApplication(submission({ customFields: { consent_decisions: given } }), credentials);
    expect(greenhouse.applications.at(-1)!.body.data_compliance).toEqual(given);
  });

  test('the single consent when the board has no single-purpose consent', async () => {
    publish([{ dataCompliance: [{ ...GDPR, requires_processing_consent: false, requires_retention_consent: false }] }]);
    await greenhouseConnector.submitApplication(
      submission({ customFields: { consent_decisions: { gdpr_consent_given: true } } }),
      credentials,
    );
    expect(greenhouse.applications.at(-1)!.body.data_compliance).toEqual({ gdpr_consent_given: true });
  });

  test.each([
    ['none given', undefined, /asks for GDPR consent \(gdpr_processing_consent_given, gdpr_retention_consent_given\)/],
    ['only the single consent where separate ones are asked', { gdpr_consent_given: true }, /lacks/],
    ["SmartRecruiters' shape", { SINGLE: true }, /booleans for gdpr_consent_given/],
    ['a string for a boolean', { gdpr_processing_consent_given: 'yes', gdpr_retention_consent_given: true }, /booleans/],
  ])('asked, %s: invalid_data before anything is sent (never a consent we invent)', async (_name, consent, message) => {
    publish([{ dataCompliance: [GDPR] }]);
    const before = posts().length;
    const error = await rejection(
      greenhouseConnector.submitApplication(
        submission({ customFields: consent === undefined ? {} : { consent_decisions: consent } }),
        credentials,
      ),
    );
    expect(error).toMatchObject({ kind: 'invalid_data' });
    expect(error.message).toMatch(message);
    expect(posts().length).toBe(before);
  });

  test('a job that does not ask: no data_compliance is sent, whatever the partner gave', async () => {
    publish([{}]);
    await greenhouseConnector.submitApplication(submission({ customFields: { consent_decisions: { SINGLE: true } } }), credentials);
    expect(greenhouse.applications.at(-1)!.body).not.toHaveProperty('data_compliance');
  });
});

describe('answers typed by the job (P280)', () => {
  const questions = [
    {
      required: false,
      label: 'Office',
      fields: [{ name: 'question_80', type: 'multi_value_single_select', values: [{ label: 'Berlin', value: 31 }] }],
    },
    { required: false, label: 'Why?', fields: [{ name: 'question_81', type: 'textarea' }] },
  ];

  test('a select answered by its label goes as its value', async () => {
    publish([{ questions }]);
    await greenhouseConnector.submitApplication(submission({ screeningAnswers: [{ id: '80', answer: 'berlin' }] }), credentials);
    expect(Object.fromEntries(greenhouse.applications.at(-1)!.answers)).toEqual({ '80': 31 });
  });

  test.each([
    ['a question the job does not have', [{ id: '99', answer: 'x' }], /names no question of the job \(99\)/],
    ['a standard field as an answer', [{ id: 'first_name', answer: 'Ada' }], /answer 1 names no question of the job\.$/],
    ['an option the select does not have', [{ id: '80', answer: 'Paris' }], /question 80: the answer is none of its options/],
    [
      'the same question twice',
      [
        { id: '81', answer: 'a' },
        { id: 'question_81', answer: 'b' },
      ],
      /answered twice/,
    ],
  ])('%s: invalid_data, nothing sent', async (_name, answers, message) => {
    publish([{ questions }]);
    const before = posts().length;
    const error = await rejection(greenhouseConnector.submitApplication(submission({ screeningAnswers: answers }), credentials));
    expect(error).toMatchObject({ kind: 'invalid_data' });
    expect(error.message).toMatch(message);
    expect(posts().length).toBe(before);
  });

  test('a job the board no longer shows: job_not_published, without an application POST', async () => {
    publish([{ live: false }]);
    const before = posts().length;
    await expect(greenhouseConnector.submitApplication(submission(), credentials)).rejects.toMatchObject({ kind: 'job_not_published' });
    expect(posts().length).toBe(before);
  });
});

test('a job list shorter than its meta.total fails the import as invalid_data (no paging is documented; nothing is archived)', async () => {
  publish([{}]);
  greenhouse.boards.get(TOKEN)!.listOverride = JSON.stringify({ jobs: [{ id: 5100, title: 'Job 0' }], meta: { total: 2 } });
  const company = { id: 1, ats: 'greenhouse' } as CompanyRecord;
  const error = await rejection(greenhouseConnector.listPublishedJobs(company, credentials));
  expect(error).toMatchObject({ kind: 'invalid_data', message: 'Greenhouse job list holds 1 of the 2 jobs it counts.' });
  greenhouse.boards.get(TOKEN)!.listOverride = JSON.stringify({ jobs: [{ id: 5100, title: 'Job 0' }], meta: { total: 1 } });
  expect((await greenhouseConnector.listPublishedJobs(company, credentials))?.map((j) => j.external_id)).toEqual(['5100']);
});
