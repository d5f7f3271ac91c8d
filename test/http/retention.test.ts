/**
 * Retention (D10) through the API. The applications are created at instants in the past with a clock per
 * request (`X-Fake-Now`, P183), concurrently: a process-wide `FAKE_NOW` would be shared by those requests.
 */
import { importJobs } from '#jobs/job-store.js';
import { acceptClockHeader } from '../../local/http-adapter.js';
import { aCompany, aPartner } from '../helpers/fixtures.js';
import { allItems, objectKeys } from '../helpers/inspect.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';

let api: TestRuntime;
let partner: Awaited<ReturnType<typeof aPartner>>;
let company: Awaited<ReturnType<typeof aCompany>>;
let jobId: number;

const PDF = Buffer.from('%PDF-1.4 retention test').toString('base64');

/** Creates an application with the service clock of this request at `instant` (the real clock without one). */
async function createAt(instant: string | undefined, email: string) {
  const sentAt = Date.now();
  const res = await api.request('POST', '/applications/', {
    key: partner.key,
    companyId: company.id,
    headers: instant ? { 'X-Fake-Now': instant } : {},
    body: {
      job: jobId,
      candidate: { email, first_name: 'Secret', last_name: 'Person', phone: '+49 555 0101' },
      notes: 'private note',
      social_links: { li: 'https://li.example/secret' },
      screening_questions: [{ id: 'q', answer: 'secret answer' }],
      custom_fields: { salary_wish: 'secret' },
      attachments: [{ type: 'cv', name: 'secret-cv.pdf', content_type: 'application/pdf', data: PDF }],
    },
  });
  expect(res.status).toBe(201);
  // The record took this request's clock, whatever the requests beside it did.
  const offset = Date.parse(res.body.created_at) - (instant ? Date.parse(instant) : sentAt);
  expect(offset).toBeGreaterThanOrEqual(0);
  expect(offset).toBeLessThan(Date.now() - sentAt + 1);
  return res.body;
}

beforeAll(async () => {
  acceptClockHeader();
  api = await startTestRuntime();
  partner = await aPartner();
  company = await aCompany(partner.id, { entitlements: [] });
  await importJobs(company.id, [{ external_id: 'R-1', title: 'Job' }]);
  jobId = (await api.get('/jobs', { key: partner.key, companyId: company.id })).body.results[0].id;
});
afterAll(async () => {
  acceptClockHeader(false);
  await api.stop();
});

test('the scheduled retention run deletes the personal data of old applications from table and bucket, idempotently', async () => {
  const days = (n: number) => new Date(Date.now() - n * 24 * 3600 * 1000).toISOString();
  // All at once: each request keeps its own clock.
  const [borderline, fresh, ...old] = await Promise.all([
    createAt(days(179), 'young@example.com'),
    createAt(undefined, 'fresh@example.com'),
    ...['old-1@example.com', 'old-2@example.com', 'old-3@example.com'].map((email) => createAt(days(200), email)),
  ]);
  const prefix = (id: number) => `companies/${company.id}/applications/${id}/`;
  for (const app of [...old, borderline, fresh]) expect(await objectKeys(prefix(app.id))).toHaveLength(1);

  const first = (await api.runtime.scheduler.run('Retention')) as { purged: number; objectsDeleted: number; more: boolean };
  expect(first).toEqual({ purged: 3, objectsDeleted: 3, more: false });

  const items = await allItems();
  const everything = JSON.stringify(items);
  for (const email of ['old-1@example.com', 'old-2@example.com', 'old-3@example.com']) expect(everything).not.toContain(email);
  for (const app of old) {
    const item = items.find((i) => i.PK === `APPLICATION#${app.id}`)!;
    expect(item).toMatchObject({
      id: app.id,
      company: company.id,
      job: jobId,
      status: 'anonymized',
      sync_status: 'NOTSENT',
      created_at: app.created_at,
    });
    for (const field of ['candidate', 'attachments', 'notes', 'social_links', 'screening_questions', 'custom_fields', 'email_lc', 'GSI2PK'])
      expect(item).not.toHaveProperty(field);
    expect(await objectKeys(prefix(app.id))).toEqual([]);
  }
  for (const app of [borderline, fresh]) {
    const item = items.find((i) => i.PK === `APPLICATION#${app.id}`)!;
    expect(item.candidate).toMatchObject({ first_name: 'Secret' });
    expect(await objectKeys(prefix(app.id))).toHaveLength(1);
  }

  // Reads agree, and the e-mail filter no longer finds the purged applications.
  const read = await api.get(`/applications/${old[0].id}`, { key: partner.key, companyId: company.id });
  expect(read.body.status).toBe('anonymized');
  expect(read.body).not.toHaveProperty('candidate');
  expect((await api.get('/applications/?email=old-1@example.com', { key: partner.key, companyId: company.id })).body.count).toBe(0);

  // A second run finds nothing to do.
  expect(await api.runtime.scheduler.run('Retention')).toEqual({ purged: 0, objectsDeleted: 0, more: false });
  // It read from the company's retention mark (P233): the purged applications lie behind it, and what comes
  // after it, in creation order, is what still holds data.
  const { personalDataDue } = await import('#applications/application-store.js');
  expect((await personalDataDue(company.id, new Date().toISOString(), 100)).ids).toEqual([borderline.id, fresh.id]);
});

test('runs in batches and reports that more remain', async () => {
  // A company of its own: the first test's run moved its company's retention mark past 200 days ago, and the
  // service never creates an application behind a mark (its clock is the create's; only this test's
  // X-Fake-Now backdates one), so back-dated applications of that company would rightly be left alone.
  company = await aCompany(partner.id, { entitlements: [] });
  await importJobs(company.id, [{ external_id: 'R-2', title: 'Job' }]);
  jobId = (await api.get('/jobs', { key: partner.key, companyId: company.id })).body.results[0].id;
  const longAgo = new Date(Date.now() - 400 * 24 * 3600 * 1000).toISOString();
  for (let i = 0; i < 3; i++) await createAt(longAgo, `batch-${i}@example.com`);
  const { purgeExpiredPersonalData } = await import('#delivery/retention.js');
  expect(await purgeExpiredPersonalData({ batchSize: 2 })).toMatchObject({ purged: 2, more: true });
  expect(await purgeExpiredPersonalData({ batchSize: 2 })).toMatchObject({ purged: 1 });
  expect(JSON.stringify(await allItems())).not.toContain('batch-');
});

test('D21: an anonymized application keeps its outcome and drops the stage, on reads before and after the purge', async () => {
  company = await aCompany(partner.id, { entitlements: [] });
  await importJobs(company.id, [{ external_id: 'R-3', title: 'Job' }]);
  jobId = (await api.get('/jobs', { key: partner.key, companyId: company.id })).body.results[0].id;
  const longAgo = new Date(Date.now() - 200 * 24 * 3600 * 1000).toISOString();
  const [old, young] = await Promise.all([createAt(longAgo, 'outcome-old@example.com'), createAt(undefined, 'outcome-young@example.com')]);
  // The outcome as a reading records it (test/http/outcomes.test.ts drives the reading itself).
  const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
  const { config, db } = await import('#platform/clients.js');
  const readAt = '2026-01-02T03:04:05.006Z';
  for (const app of [old, young])
    await db().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: { PK: `APPLICATION#${app.id}`, SK: 'APPLICATION' },
        UpdateExpression: 'SET outcome = :o, outcome_stage = :s, outcome_updated_at = :at',
        ExpressionAttributeValues: { ':o': 'HIRED', ':s': 'Offer accepted', ':at': readAt },
      }),
    );
  const read = async (id: number) => (await api.get(`/applications/${id}`, { key: partner.key, companyId: company.id })).body;
  const listed = async (id: number) =>
    (await api.get('/applications/?page_size=50', { key: partner.key, companyId: company.id })).body.results.find(
      (a: { id: number }) => a.id === id,
    );
  // Before the purge, the read already anonymizes by age (D10).
  for (const body of [await read(old.id), await listed(old.id)]) {
    expect(body).toMatchObject({ status: 'anonymized', outcome: 'HIRED', outcome_updated_at: readAt });
    expect(body).not.toHaveProperty('outcome_stage');
  }
  for (const body of [await read(young.id), await listed(young.id)])
    expect(body).toMatchObject({ status: 'active', outcome: 'HIRED', outcome_stage: 'Offer accepted', outcome_updated_at: readAt });

  const { purgeExpiredPersonalData } = await import('#delivery/retention.js');
  expect((await purgeExpiredPersonalData()).purged).toBeGreaterThanOrEqual(1);
  const item = (await allItems()).find((i) => i.PK === `APPLICATION#${old.id}`)!;
  expect(item).toMatchObject({ status: 'anonymized', outcome: 'HIRED', outcome_updated_at: readAt });
  expect(item).not.toHaveProperty('outcome_stage');
  const after = await read(old.id);
  expect(after).toMatchObject({ outcome: 'HIRED' });
  expect(after).not.toHaveProperty('outcome_stage');
  expect((await allItems()).find((i) => i.PK === `APPLICATION#${young.id}`)).toMatchObject({ outcome_stage: 'Offer accepted' });
});
