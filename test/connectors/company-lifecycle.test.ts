/**
 * What the admin commands of issue 9 run (connect, disconnect, entitle, set-status, jobs sync), tested
 * through their domain functions against the emulators and the simulators; credentials at rest; the
 * lifecycle rules of D17 through HTTP and the worker; and the scheduled job import fan-out.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectCompany, disconnectCompany } from '#delivery/ats-connections.js';
import { setSandboxAts } from '#delivery/connectors/sandbox.js';
import { fanOutJobImports, runJobImport } from '#delivery/job-import.js';
import { forgetCachedCompany } from '#companies/api-keys.js';
import { allCompanies, createCompany, getCompanyRecord, setCompanyStatus, setEntitlements } from '#companies/company-store.js';
import { config } from '#platform/clients.js';
import { runWithClock } from '#platform/clock.js';
import { currentMetrics, withRequestMetrics } from '#platform/request-metrics.js';
import { keys } from '#platform/keys.js';
import { startScheduler } from '../../local/scheduler.js';
import { aCompany, aPartner } from '../helpers/fixtures.js';
import { allItems, drainQueue } from '../helpers/inspect.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { personioAccount, startPersonioSimulator, type PersonioSimulator } from '../simulators/personio.js';

process.env.SYNC_RETRY_BASE_SECONDS = '0';
process.env.SYNC_CLAIM_SECONDS = '1';

let api: TestRuntime;
let personio: PersonioSimulator;
let partner: Awaited<ReturnType<typeof aPartner>>;
let other: Awaited<ReturnType<typeof aPartner>>;
const account = personioAccount('acme-admin', { token: 'personio-secret-token-42' });

const credentials = { subdomain: 'acme-admin', personio_company_id: account.companyId, token: account.token };

async function personioCompany(entitlements = ['job_sync', 'candidate_sync']) {
  return createCompany({ partner: partner.id, name: 'Acme Personio', ats: null, entitlements });
}

beforeAll(async () => {
  personio = await startPersonioSimulator();
  Object.assign(process.env, personio.env);
  api = await startTestRuntime();
  account.positions = [{ id: '501', name: 'Welder', office: 'Hamburg', employmentType: 'permanent', schedule: 'full-time' }];
  personio.accounts.set(account.subdomain, account);
  partner = await aPartner();
  other = await aPartner();
});
afterAll(async () => {
  await Promise.all([api.stop(), personio.server.stop()]);
});

describe('connectCompany (hiring-admin company connect)', () => {
  test('checks the credentials, then stores them sealed and prints the Company: ats, ats_name, status active', async () => {
    const company = await personioCompany();
    await setCompanyStatus(company.id, 'invited');
    const connected = await connectCompany(company.id, 'personio', credentials);
    expect(connected).toMatchObject({
      id: company.id,
      ats: 'personio',
      ats_name: 'Personio',
      status: 'active',
      job_sync_active: true,
      candidate_sync_active: true,
    });
    expect(Object.keys(connected)).not.toContain('ats_connection');
    // The check: the public feed and an empty application (a validation error proves token and company id).
    const checks = personio.server.requests.slice(-2);
    expect(checks.map((r) => [r.method, r.path, r.status])).toEqual([
      ['GET', '/personio-feed/acme-admin/xml', 200],
      ['POST', '/personio-api/v1/recruiting/applications', 400],
    ]);
    expect(personio.applications).toHaveLength(0);
    // At rest: sealed; the token appears nowhere in the table, nor in the API's Company object.
    const stored = (await allItems()).find((i) => i.PK === keys.atsCredentials(company.id).PK && i.SK === 'ATSCREDENTIALS')!;
    expect(stored).toMatchObject({ ats: 'personio', sealed: { v: 1, wrap: 'local' } });
    expect(JSON.stringify(await allItems())).not.toContain(account.token);
    const listed = await api.get('/companies/', { key: partner.key });
    expect(JSON.stringify(listed.body)).not.toContain(account.token);
    expect(listed.body.results.find((c: { id: number }) => c.id === company.id)).toMatchObject({ ats: 'personio', status: 'active' });
    // disconnect: the credentials go, and with them the active syncs.
    const disconnected = await disconnectCompany(company.id);
    expect(disconnected).toMatchObject({ ats: 'personio', job_sync_active: false, candidate_sync_active: false });
    expect((await allItems()).some((i) => i.PK === `COMPANY#${company.id}` && i.SK === 'ATSCREDENTIALS')).toBe(false);
  });

  test.each([
    ['an unknown ATS', 'bamboo', credentials, 'invalid', ['ats']],
    ['an ATS without connector', 'workday', credentials, 'invalid', ['ats']],
    ['missing credential fields', 'personio', { subdomain: 'acme-admin' }, 'invalid', ['personio_company_id', 'token']],
    ['a field of another ATS', 'personio', { ...credentials, board_token: 'x' }, 'invalid', ['board_token']],
    [
      'a field named __proto__',
      'personio',
      JSON.parse(`{"__proto__": "x", ${JSON.stringify(credentials).slice(1)}`),
      'invalid',
      ['__proto__'],
    ],
    ['a subdomain that is no host name', 'personio', { ...credentials, subdomain: 'evil.example/x' }, 'invalid', ['subdomain']],
    ['an unknown subdomain', 'personio', { ...credentials, subdomain: 'nobody' }, 'credentials_rejected', ['subdomain']],
    ['a token Personio rejects', 'personio', { ...credentials, token: 'wrong-token-123' }, 'credentials_rejected', ['token']],
  ])('%s: a D2 error naming it, and nothing is saved', async (_name, ats, input, code, fields) => {
    const company = await personioCompany();
    const before = await getCompanyRecord(company.id);
    const error = await connectCompany(company.id, ats, input).then(
      () => undefined,
      (e: unknown) => e as { code: string; errors: Record<string, string[]>; detail: string },
    );
    expect(error).toMatchObject({ code });
    expect(Object.keys(error!.errors).sort()).toEqual(fields);
    expect(error!.detail).not.toContain('wrong-token-123');
    expect(await getCompanyRecord(company.id)).toEqual(before);
    expect((await allItems()).some((i) => i.PK === `COMPANY#${company.id}` && i.SK === 'ATSCREDENTIALS')).toBe(false);
  });

  test('an unreachable ATS or a feed that is not XML: a D2 error, nothing saved', async () => {
    const company = await personioCompany();
    const saved = process.env.PERSONIO_API_URL;
    process.env.PERSONIO_API_URL = 'http://127.0.0.1:9/personio-api';
    try {
      await expect(connectCompany(company.id, 'personio', credentials)).rejects.toMatchObject({
        code: 'ats_unreachable',
        errors: { ats: expect.any(Array) },
      });
    } finally {
      process.env.PERSONIO_API_URL = saved;
    }
    account.feedOverride = '{"this is": "json"}';
    try {
      await expect(connectCompany(company.id, 'personio', credentials)).rejects.toMatchObject({ code: 'ats_invalid_response' });
    } finally {
      account.feedOverride = undefined;
    }
    expect((await getCompanyRecord(company.id))!.ats_connection).toBeUndefined();
  });

  test('a later change of ats disconnects: credentials are bound to the ATS they were checked against', async () => {
    const company = await personioCompany();
    await connectCompany(company.id, 'personio', credentials);
    const patched = await api.request('PATCH', `/companies/${company.id}/`, {
      key: partner.key,
      companyId: company.id,
      body: { ats: 'lever' },
    });
    expect(patched.body).toMatchObject({ ats: 'lever', job_sync_active: false, candidate_sync_active: false });
  });
});

test('the running server hands its ATS hosts to the admin tool (runtime.json), with the emulators', () => {
  const runtime = JSON.parse(readFileSync(join(api.runtime.dataDir, 'runtime.json'), 'utf8')) as { env: Record<string, string> };
  expect(runtime.env).toMatchObject({ ...personio.env, CREDENTIALS_KEY_FILE: join(api.runtime.dataDir, 'credentials.key') });
  expect(runtime.env).not.toHaveProperty('LEVER_API_URL');
});

describe('setEntitlements and setCompanyStatus (hiring-admin company entitle / set-status)', () => {
  test('entitle adds and removes, and prints the Company object', async () => {
    const company = await aCompany(partner.id, { entitlements: ['job_sync'] });
    expect(await setEntitlements(company.id, ['candidate_sync', 'email_fallback'], ['job_sync'])).toMatchObject({
      id: company.id,
      job_sync_active: false,
      candidate_sync_active: true,
    });
    expect((await getCompanyRecord(company.id))!.entitlements.sort()).toEqual(['candidate_sync', 'email_fallback']);
  });

  test('unknown entitlements or states are D2 errors naming the option, and change nothing', async () => {
    const company = await aCompany(partner.id);
    const before = await getCompanyRecord(company.id);
    await expect(setEntitlements(company.id, ['job_sync', 'teleport'])).rejects.toMatchObject({
      code: 'invalid',
      errors: { add: expect.any(Array) },
    });
    await expect(setEntitlements(company.id, [], ['__proto__'])).rejects.toMatchObject({ errors: { remove: expect.any(Array) } });
    await expect(setCompanyStatus(company.id, 'paused')).rejects.toMatchObject({ code: 'invalid', errors: { status: expect.any(Array) } });
    await expect(setCompanyStatus(999_999, 'active')).rejects.toMatchObject({ code: 'not_found' });
    expect(await getCompanyRecord(company.id)).toEqual(before);
  });
});

describe('the company lifecycle (D17)', () => {
  const PDF = Buffer.from('%PDF-1.5\nlifecycle\n%%EOF').toString('base64');

  async function companyWithJob(status: string) {
    const company = await aCompany(partner.id, { entitlements: ['job_sync', 'candidate_sync'] });
    await setSandboxAts(company.id, { feed: [{ external_id: 'L-1', title: 'Lifecycle job' }] });
    await runJobImport(company.id);
    await setCompanyStatus(company.id, status);
    forgetCachedCompany(company.id);
    const job = (await api.get('/jobs', { key: partner.key, companyId: company.id })).body.results?.[0];
    return { company, jobId: job?.id as number };
  }

  const apply = (companyId: number, jobId: number, key = partner.key) =>
    api.request('POST', '/applications/', {
      key,
      companyId,
      body: {
        job: jobId,
        candidate: { email: 'life@example.com', full_name: 'Ada Lovelace' },
        attachments: [{ type: 'cv', name: 'cv.pdf', content_type: 'application/pdf', data: PDF }],
      },
    });

  test('deactivated: records stay readable, POST /applications/ is 403 company_inactive, nothing is stored', async () => {
    const { company, jobId } = await companyWithJob('active');
    const before = await apply(company.id, jobId);
    expect(before.status).toBe(201);
    await setCompanyStatus(company.id, 'deactivated');
    forgetCachedCompany(company.id);
    const refused = await apply(company.id, jobId);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'company_inactive' });
    expect((await api.get('/jobs', { key: partner.key, companyId: company.id })).status).toBe(200);
    expect((await api.get(`/applications/${before.body.id}`, { key: partner.key, companyId: company.id })).status).toBe(200);
    expect((await api.get('/applications/', { key: partner.key, companyId: company.id })).body.count).toBe(1);
  });

  test('deleted: every Company-Id route is 403 company_inactive; it is still listed and the status filter names it', async () => {
    const { company, jobId } = await companyWithJob('deleted');
    for (const [method, path, body] of [
      ['GET', '/jobs', undefined],
      ['GET', `/jobs/${jobId}`, undefined],
      ['GET', '/applications/', undefined],
      ['GET', '/applications/1', undefined],
      ['PATCH', `/companies/${company.id}/`, { name: 'x' }],
    ] as const) {
      const res = await api.request(method, path, { key: partner.key, companyId: company.id, body });
      expect([path, res.status, res.body.code]).toEqual([path, 403, 'company_inactive']);
    }
    expect((await apply(company.id, jobId)).body.code).toBe('company_inactive');
    // Its own company key too; another partner's key learns nothing (the plain 403 of D3).
    expect((await api.get('/jobs', { key: company.key, companyId: company.id })).body.code).toBe('company_inactive');
    expect((await api.get('/jobs', { key: other.key, companyId: company.id })).body).toMatchObject({ code: 'permission_denied' });
    const listed = await api.get('/companies/?status=deleted', { key: partner.key });
    expect(listed.body.results.map((c: { id: number }) => c.id)).toContain(company.id);
  });

  test('invited and deactivated companies sync nothing; their applications wait NOTSENT and go out once active', async () => {
    const invited = await companyWithJob('invited');
    const waiting = await companyWithJob('active');
    const a = (await apply(invited.company.id, invited.jobId)).body;
    const b = (await apply(waiting.company.id, waiting.jobId)).body;
    await setCompanyStatus(waiting.company.id, 'deactivated');
    await api.runtime.poller.drain(10_000);
    for (const [company, app] of [
      [invited.company, a],
      [waiting.company, b],
    ] as const) {
      expect((await api.get(`/applications/${app.id}`, { key: partner.key, companyId: company.id })).body.sync_status).toBe('NOTSENT');
    }
    await setCompanyStatus(invited.company.id, 'active');
    await setCompanyStatus(waiting.company.id, 'active');
    // Two hours later for the sweeper and the worker (`runWithClock`: their async context only, not the process).
    await runWithClock(new Date(Date.now() + 2 * 3600 * 1000), async () => {
      expect(await api.runtime.scheduler.run('SyncSweeper')).toMatchObject({ requeued: expect.any(Number) });
      await api.runtime.poller.drain(10_000);
    });
    for (const [company, app] of [
      [invited.company, a],
      [waiting.company, b],
    ] as const) {
      expect((await api.get(`/applications/${app.id}`, { key: partner.key, companyId: company.id })).body.sync_status).toBe('SUCCESS');
    }
  });

  test('job imports wait too: runJobImport of a deactivated company is company_inactive and changes nothing', async () => {
    const { company } = await companyWithJob('deactivated');
    await setSandboxAts(company.id, { feed: [] });
    await expect(runJobImport(company.id)).rejects.toMatchObject({ code: 'company_inactive' });
    expect((await api.get('/jobs?status=active', { key: partner.key, companyId: company.id })).body.count).toBe(1);
  });
});

describe('the scheduled job import (D14)', () => {
  test('fans out one message per company with job sync active (ids only), and the worker imports each', async () => {
    await drainQueue(config().jobImportQueueUrl);
    const due = await aCompany(partner.id, { entitlements: ['job_sync'] });
    await setSandboxAts(due.id, { feed: [{ external_id: 'S-1', title: 'Scheduled job' }] });
    const paused = await aCompany(partner.id, { entitlements: ['job_sync'] });
    await setCompanyStatus(paused.id, 'deactivated');
    const notEntitled = await aCompany(partner.id, { entitlements: ['candidate_sync'] });
    const notConnected = await createCompany({ partner: partner.id, name: 'Unconnected', ats: 'lever', entitlements: ['job_sync'] });
    const result = (await api.runtime.scheduler.run('JobImportScheduler')) as { queued: number };
    const bodies = await drainQueue(config().jobImportQueueUrl);
    const queued = bodies.map((b) => JSON.parse(b) as { company_id: number });
    expect(result.queued).toBe(bodies.length);
    for (const body of bodies) expect(Object.keys(JSON.parse(body))).toEqual(['company_id']);
    const ids = queued.map((m) => m.company_id);
    expect(ids).toContain(due.id);
    for (const skipped of [paused.id, notEntitled.id, notConnected.id]) expect(ids).not.toContain(skipped);

    await api.runtime.scheduler.run('JobImportScheduler');
    await api.runtime.importPoller.drain(20_000);
    const jobs = await api.get('/jobs', { key: partner.key, companyId: due.id });
    expect(jobs.body.results).toMatchObject([{ external_id: 'S-1', title: 'Scheduled job', import_source: 'api' }]);
    expect((await getCompanyRecord(due.id))!.jobs_last_synced_at).toEqual(expect.any(String));
  });

  test('an unreachable ATS fails the run and changes no job; rejected credentials turn the company failing at once', async () => {
    const company = await personioCompany(['job_sync']);
    await connectCompany(company.id, 'personio', credentials);
    expect(await runJobImport(company.id)).toMatchObject({ created: 1 });
    const jobs = async () => (await api.get('/jobs', { key: partner.key, companyId: company.id })).body.results;
    const before = await jobs();
    const saved = process.env.PERSONIO_FEED_URL;
    process.env.PERSONIO_FEED_URL = 'http://127.0.0.1:9/{subdomain}/xml';
    try {
      await expect(runJobImport(company.id)).rejects.toMatchObject({ code: 'job_import_ats_unreachable', failures: 1 });
    } finally {
      process.env.PERSONIO_FEED_URL = saved;
    }
    expect(await getCompanyRecord(company.id)).toMatchObject({ status: 'active', job_import_failures: 1 });
    personio.accounts.delete(account.subdomain);
    try {
      await expect(runJobImport(company.id)).rejects.toMatchObject({ code: 'job_import_credentials_rejected', failures: 2 });
      expect((await getCompanyRecord(company.id))!.status).toBe('failing');
    } finally {
      personio.accounts.set(account.subdomain, account);
    }
    expect(await jobs()).toEqual(before);
    expect(await runJobImport(company.id)).toMatchObject({ unchanged: 1 });
    expect(await getCompanyRecord(company.id)).toMatchObject({ status: 'active', job_import_failures: 0 });
  });

  test('a job the feed gives that an item cannot hold fails the run before anything is written, naming the job (P272)', async () => {
    const company = await aCompany(partner.id, { entitlements: ['job_sync'] });
    // 60 jobs, more than one transaction takes (49 created); the 56th is stored larger than it arrives: its title
    // and the title's lower-case copy are 420 KB together.
    const feed = Array.from({ length: 60 }, (_, i) => ({ external_id: `O-${i}`, title: i === 55 ? 'X'.repeat(210_000) : `Job ${i}` }));
    await setSandboxAts(company.id, { feed });
    await expect(runJobImport(company.id)).rejects.toMatchObject({
      code: 'job_import_invalid_feed',
      detail: expect.stringMatching(
        new RegExp(
          `^The job import of company ${company.id} failed: the feed does not map to valid jobs \\(\\[55\\]\\.title: Job "O-55" is too large: \\d+ bytes stored, DynamoDB takes 409600 \\(400 KB\\); this field has 210005\\.\\)\\.$`,
        ),
      ),
      failures: 1,
    });
    // As for any feed that does not map: the run changed no job (D14), not the 49 of its first transaction.
    expect((await api.get('/jobs', { key: partner.key, companyId: company.id })).body.count).toBe(0);
    expect(await getCompanyRecord(company.id)).toMatchObject({ status: 'active', job_import_failures: 1 });
  });

  test('runJobImport (hiring-admin jobs sync) needs job sync active', async () => {
    const company = await createCompany({ partner: partner.id, name: 'Unconnected 2', ats: 'greenhouse', entitlements: ['job_sync'] });
    await expect(runJobImport(company.id)).rejects.toMatchObject({ code: 'invalid', errors: { job_sync_active: expect.any(Array) } });
    await expect(runJobImport(999_999)).rejects.toMatchObject({ code: 'not_found' });
  });

  test('locally the schedule follows JOB_IMPORT_INTERVAL_MINUTES', async () => {
    await drainQueue(config().jobImportQueueUrl);
    process.env.JOB_IMPORT_INTERVAL_MINUTES = '0.002'; // 120 ms
    const scheduler = startScheduler({ enabled: true });
    // A loaded machine may need more than a few intervals for one fan-out: wait for the first, up to 15 s.
    const queued: unknown[] = [];
    try {
      for (const started = Date.now(); queued.length === 0 && Date.now() - started < 15_000;) {
        await new Promise((r) => setTimeout(r, 250));
        queued.push(...(await drainQueue(config().jobImportQueueUrl)));
      }
    } finally {
      scheduler.stop();
      delete process.env.JOB_IMPORT_INTERVAL_MINUTES;
    }
    expect(queued.length).toBeGreaterThan(0);
  });

  test('the fan-out costs one Query page of the company index and a BatchGet of the companies, however many items the table holds', async () => {
    // LOOKUP holds keys only (P195): one Query page of every company's keys, then the companies by key, 100 a call.
    const companies = (await allCompanies()).length;
    expect(companies).toBeLessThanOrEqual(100);
    const metrics = await withRequestMetrics(async () => {
      await fanOutJobImports();
      return currentMetrics()!;
    });
    expect(metrics.calls).toBe(2);
    expect(metrics.readUnits).toBeLessThanOrEqual(0.5 + 0.5 * companies);
    await drainQueue(config().jobImportQueueUrl);
  });
});
