/**
 * SmartRecruiters' files, end to end (P275, issue 41 item 4, as issue 24 item 4): a file SmartRecruiters does
 * not take ("The accepted files are PDF, DOC(X), RTF, JPG, and PNG",
 * developers.smartrecruiters.com/docs/partners-post-an-application) is never dropped. The sync ends `FAILURE`
 * with `AttachmentRejectedError`, nothing reaches SmartRecruiters' candidates endpoint, and where the company
 * is entitled to the e-mail fallback the application goes by e-mail with every file. HTTP create → worker →
 * SmartRecruiters connector → simulator → GET.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectCompany } from '#delivery/ats-connections.js';
import { runJobImport } from '#delivery/job-import.js';
import { createCompany } from '#companies/company-store.js';
import { findJobByExternalId } from '#jobs/job-store.js';
import { aPartner } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { startSmartRecruitersSimulator, type SmartRecruitersSimulator } from '../simulators/smartrecruiters.js';

process.env.SYNC_RETRY_BASE_SECONDS = '0';
process.env.SYNC_CLAIM_SECONDS = '1';

const PDF = Buffer.from('%PDF-1.5\nsmartrecruiters files\n%%EOF');
const GIF = Buffer.concat([Buffer.from('GIF89a'), Buffer.from([0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x3b])]);

let api: TestRuntime;
let sim: SmartRecruitersSimulator;
let partner: Awaited<ReturnType<typeof aPartner>>;

beforeAll(async () => {
  [api, sim] = await Promise.all([startTestRuntime(), startSmartRecruitersSimulator()]);
  Object.assign(process.env, sim.env);
  partner = await aPartner();
});
afterAll(async () => {
  await Promise.all([api.stop(), sim.server.stop()]);
});

async function smartrecruitersCompany(identifier: string, entitlements: string[], n: number) {
  const uuid = `5fa85f64-5717-4562-b3fc-2c963f66af0${n}`;
  const apiKey = `sr-${identifier}-key-0123456789abcdef`;
  sim.companies.set(identifier, { identifier, apiKey, postings: [{ id: `74400000${n}`, uuid, name: 'Designer' }] });
  const company = await createCompany({
    partner: partner.id,
    name: `Files ${identifier}`,
    ats: 'smartrecruiters',
    entitlements,
    contact_email: `hr@${identifier.toLowerCase()}.example`,
  });
  await connectCompany(company.id, 'smartrecruiters', { company_identifier: identifier, api_key: apiKey });
  await runJobImport(company.id);
  return { id: company.id, job: (await findJobByExternalId(company.id, uuid))!.id };
}

async function applyWith(company: { id: number; job: number }, email: string) {
  const created = await api.request('POST', '/applications/', {
    key: partner.key,
    companyId: company.id,
    body: {
      job: company.job,
      candidate: { email, first_name: 'Ada', last_name: 'Lovelace' },
      attachments: [
        { type: 'cv', name: 'cv.pdf', content_type: 'application/pdf', data: PDF.toString('base64') },
        { type: 'work_sample', name: 'sketch.gif', content_type: 'image/gif', data: GIF.toString('base64') },
      ],
    },
  });
  expect(created.status).toBe(201);
  await api.runtime.poller.drain();
  return (await api.get(`/applications/${created.body.id}`, { key: partner.key, companyId: company.id })).body;
}

const candidatePosts = () => sim.server.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/candidates')).length;
const mails = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.eml')) : []);

test('a GIF (not a type SmartRecruiters takes): FAILURE AttachmentRejectedError, nothing posted, the e-mail fallback carries both files', async () => {
  const company = await smartrecruitersCompany('FilesMail', ['job_sync', 'candidate_sync', 'email_fallback'], 1);
  const outbox = join(api.runtime.dataDir, 'outbox');
  const before = new Set(mails(outbox));
  const postsBefore = candidatePosts();
  const app = await applyWith(company, 'ada.mail@example.com');
  expect(app).toMatchObject({ sync_status: 'FAILURE', failure_error: 'AttachmentRejectedError', email_sync_status: 'SUCCESS' });
  expect(candidatePosts()).toBe(postsBefore);
  const sent = mails(outbox).filter((f) => !before.has(f));
  expect(sent).toHaveLength(1);
  const eml = readFileSync(join(outbox, sent[0]), 'utf8');
  expect(eml).toContain('To: hr@filesmail.example');
  const flat = eml.replace(/\r\n/g, '');
  expect([flat.includes(GIF.toString('base64')), flat.includes(PDF.toString('base64'))]).toEqual([true, true]);
});

test('without the e-mail fallback: FAILURE AttachmentRejectedError and e-mail NOTSENT, the files kept', async () => {
  const company = await smartrecruitersCompany('FilesOnly', ['job_sync', 'candidate_sync'], 2);
  const postsBefore = candidatePosts();
  const app = await applyWith(company, 'ada.only@example.com');
  expect(app).toMatchObject({ sync_status: 'FAILURE', failure_error: 'AttachmentRejectedError', email_sync_status: 'NOTSENT' });
  expect(candidatePosts()).toBe(postsBefore);
  expect(app.attachments.map((a: { name: string; content_type: string }) => [a.name, a.content_type])).toEqual([
    ['cv.pdf', 'application/pdf'],
    ['sketch.gif', 'image/gif'],
  ]);
});
