/**
 * Greenhouse's rules (issue 24 items 3 and 4). The key check (P211): an empty application to job 0, whose
 * 401 means a wrong key; it creates nothing. And P210, issue 24 item 4: a file the ATS will not take (larger than its per-file limit, or of a type it
 * refuses) is never dropped. The sync ends `FAILURE` with `AttachmentRejectedError`, nothing reaches the
 * ATS, and where the company is entitled to the e-mail fallback the application goes by e-mail with every
 * file. End to end: HTTP create → worker → Greenhouse connector (refuses PNG) → simulator → GET.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectCompany, credentialsCheckOf } from '#delivery/ats-connections.js';
import { runJobImport } from '#delivery/job-import.js';
import { createCompany, getCompanyRecord } from '#companies/company-store.js';
import { findJobByExternalId } from '#jobs/job-store.js';
import { aPartner } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { startGreenhouseSimulator, type GreenhouseSimulator } from '../simulators/greenhouse.js';

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

async function greenhouseCompany(token: string, entitlements: string[]) {
  greenhouse.boards.set(token, {
    token,
    apiKey: `key-${token}-1234`,
    jobs: [{ id: 4100, title: 'Designer', content: '<p>Design</p>' }],
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
