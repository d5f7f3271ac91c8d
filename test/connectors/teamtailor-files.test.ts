/**
 * Teamtailor's files end to end (issue 41 items 1 and 4, P277): through the service, stored in S3 (fauxqs),
 * handed to Teamtailor as presigned GET URLs that its simulator downloads; every attachment type goes, and one
 * Teamtailor refuses ends as FAILURE AttachmentRejectedError, with the e-mail fallback carrying the files.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectCompany } from '#delivery/ats-connections.js';
import { runJobImport } from '#delivery/job-import.js';
import { createCompany } from '#companies/company-store.js';
import { findJobByExternalId } from '#jobs/job-store.js';
import { aPartner } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { startTeamtailorSimulator, type TeamtailorSimulator } from '../simulators/teamtailor.js';
import { withoutPacing } from '../simulators/server.js';

withoutPacing();

process.env.SYNC_RETRY_BASE_SECONDS = '0';
process.env.SYNC_CLAIM_SECONDS = '1';

const CV = Buffer.from('%PDF-1.5\nteamtailor files cv\n%%EOF');
const GIF = Buffer.concat([Buffer.from('GIF89a'), Buffer.from('a gif Teamtailor refuses here')]);
const JPG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('a photo')]);

/** The service and the simulator the tests run on. */
const on = {} as { api: TestRuntime; tt: TeamtailorSimulator; partner: Awaited<ReturnType<typeof aPartner>> };

beforeAll(async () => {
  const [api, tt] = await Promise.all([startTestRuntime(), startTeamtailorSimulator()]);
  Object.assign(process.env, tt.env);
  Object.assign(on, { api, tt, partner: await aPartner() });
});
afterAll(() => Promise.all([on.api.stop(), on.tt.server.stop()]));

async function teamtailorCompany(name: string, entitlements: string[]) {
  const apiKey = `tt-files-${name}-key`;
  on.tt.accounts.push({
    apiKey,
    scope: 'admin',
    permission: 'read-write',
    jobs: [{ id: '8800', title: 'Designer', body: '<p>Design</p>' }],
  });
  const company = await createCompany({
    partner: on.partner.id,
    name: `TT ${name}`,
    ats: 'teamtailor',
    entitlements,
    contact_email: `hr@${name}.example`,
  });
  await connectCompany(company.id, 'teamtailor', { api_key: apiKey, region: 'eu' });
  await runJobImport(company.id);
  return { id: company.id, job: (await findJobByExternalId(company.id, '8800'))!.id };
}

async function apply(company: { id: number; job: number }, email: string, attachments: Record<string, string>[]) {
  const created = await on.api.request('POST', '/applications/', {
    key: on.partner.key,
    companyId: company.id,
    body: { job: company.job, candidate: { email, first_name: 'Ada', last_name: 'Lovelace' }, attachments },
  });
  expect(created.status).toBe(201);
  await on.api.runtime.poller.drain();
  return (await on.api.get(`/applications/${created.body.id}`, { key: on.partner.key, companyId: company.id })).body;
}

const file = (type: string, name: string, contentType: string, bytes: Buffer) => ({
  type,
  name,
  content_type: contentType,
  data: bytes.toString('base64'),
});

test('every file goes as a presigned S3 URL (one object each, at most an hour) that Teamtailor downloads', async () => {
  const company = await teamtailorCompany('urls', ['job_sync', 'candidate_sync']);
  const downloadsBefore = on.tt.downloads.length;
  const app = await apply(company, 'urls@example.com', [
    file('cv', 'cv.pdf', 'application/pdf', CV),
    file('photo', 'me.jpg', 'image/jpeg', JPG),
  ]);
  expect(app).toMatchObject({ sync_status: 'SUCCESS' });
  const candidate = on.tt.candidates.find((c) => c.attributes.email === 'urls@example.com')!;
  expect(candidate.resume!.bytes).toEqual(CV);
  expect(on.tt.uploads.filter((u) => u.candidateId === candidate.id).map((u) => [u.file.filename, u.file.bytes])).toEqual([
    ['me.jpg', JPG],
  ]);
  const urls = on.tt.downloads.slice(downloadsBefore).map((u) => new URL(u));
  expect(urls).toHaveLength(2);
  expect(urls.map((u) => u.origin)).toEqual([process.env.AWS_ENDPOINT_URL_S3, process.env.AWS_ENDPOINT_URL_S3]);
  expect(urls[0].pathname).toMatch(new RegExp(`/companies/${company.id}/applications/\\d+/[\\w-]+$`));
  expect(urls[0].pathname).not.toBe(urls[1].pathname);
  for (const url of urls) {
    expect(Number(url.searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(3600);
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
  }
  // The URL is handed to Teamtailor only: not in what the service shows of the application.
  expect(JSON.stringify(app)).not.toMatch(/X-Amz|127\.0\.0\.1/);
});

// Teamtailor documents no file types; the simulator's download refuses those outside `fileExtensions` (ASSUMED)
// with a 422 at the file's attribute, which stands for whatever file Teamtailor's downloader refuses.
test('a file Teamtailor refuses: FAILURE AttachmentRejectedError, and the e-mail fallback carries every file', async () => {
  const company = await teamtailorCompany('refused', ['job_sync', 'candidate_sync', 'email_fallback']);
  const outbox = join(on.api.runtime.dataDir, 'outbox');
  const eml = () => (existsSync(outbox) ? readdirSync(outbox).filter((f) => f.endsWith('.eml')) : []);
  const before = new Set(eml());
  const app = await apply(company, 'refused@example.com', [
    file('cv', 'cv.pdf', 'application/pdf', CV),
    file('work_sample', 'animation.gif', 'image/gif', GIF),
  ]);
  expect(app).toMatchObject({ sync_status: 'FAILURE', failure_error: 'AttachmentRejectedError', email_sync_status: 'SUCCESS' });
  expect(
    on.tt.applications.some((a) => on.tt.candidates.find((c) => c.id === a.candidateId)?.attributes.email === 'refused@example.com'),
  ).toBe(false);
  const sent = eml().filter((f) => !before.has(f));
  expect(sent).toHaveLength(1);
  const message = readFileSync(join(outbox, sent[0]), 'utf8').replace(/\r\n/g, '');
  expect(message).toContain('To: hr@refused.example');
  expect(message).toContain(CV.toString('base64'));
  expect(message).toContain(GIF.toString('base64'));
});
