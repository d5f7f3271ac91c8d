/**
 * The connector contract: the same scenarios against every connector, sandbox included, each ATS played
 * by its simulator on loopback (test/simulators). Imports run through `runJobImport` (the queue worker's
 * and `hiring-admin jobs sync`'s function); submissions run end to end: HTTP create → sync queue → worker
 * → connector → simulator → `GET /applications/{id}`.
 *
 * Each connector's scenarios run in order, as written; the connectors run side by side (their companies and
 * simulators are their own), so that one's waits (a Retry-After, a simulator's reply) overlap another's work.
 * Every scenario is still a test of its own: it waits for its step of its connector's chain and fails with it.
 */
import { connectCompany } from '#delivery/ats-connections.js';
import { runJobImport } from '#delivery/job-import.js';
import { createCompany, getCompanyRecord, setCompanyStatus } from '#companies/company-store.js';
import { createApiKey } from '#companies/api-keys.js';
import { findJobByExternalId, resolveRunIds } from '#jobs/job-store.js';
import type { JobRecord } from '#jobs/job-schema.js';
import { aPartner } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { contractApplication, type Driver, type DriverModule, type Key, type StartedSimulator } from './drivers/driver.js';
import { driverModules } from './drivers/index.js';

process.env.SYNC_RETRY_BASE_SECONDS = '0';
process.env.SYNC_CLAIM_SECONDS = '1';
process.env.SYNC_MAX_ATTEMPTS = '4';

let api: TestRuntime;
let partner: Awaited<ReturnType<typeof aPartner>>;
let simulators: StartedSimulator[] = [];

// Each driver module starts its own ATS simulator; their environments point the connectors at them.
beforeAll(async () => {
  const started = await Promise.all([startTestRuntime(), ...driverModules.map((m) => m.start())]);
  api = started[0];
  simulators = started.slice(1) as StartedSimulator[];
  for (const simulator of simulators) Object.assign(process.env, simulator.env);
  partner = await aPartner();
});
afterAll(async () => {
  await Promise.all([api.stop(), ...simulators.map((s) => s.stop())]);
});

const drivers: [string, DriverModule][] = driverModules.map((m) => [m.ats, m]);

/** The connectors' chains: each step starts once the one before it has ended (passed or failed). */
const chains = new Map<string, Promise<unknown>>();
const started = new Map<string, Promise<void>>();
let runAll: () => void;
const go = new Promise<void>((resolve) => (runAll = resolve));

/** Queues `work` as the next step of `ats`'s chain (started once every chain is set up); the test awaits its outcome. */
function step(ats: string, name: string, work: () => Promise<void>) {
  const outcome = (chains.get(ats) ?? go).then(() => work());
  chains.set(
    ats,
    outcome.catch(() => undefined),
  );
  outcome.catch(() => undefined); // awaited by its test below; not an unhandled rejection meanwhile
  started.set(`${ats}\u0000${name}`, outcome);
}

describe.each(drivers)('%s connector', (ats, driverModule) => {
  // A failed set-up fails every scenario of the connector, as a failed beforeAll did.
  let setUp: Promise<void> = Promise.resolve();
  const test = (name: string, work: () => Promise<void>) => {
    step(ats, name, async () => {
      await setUp;
      await work();
    });
    globalThis.test(name, () => {
      runAll();
      return started.get(`${ats}\u0000${name}`)!;
    });
  };
  const beforeAll = (work: () => Promise<void>) => {
    step(ats, 'set-up', work);
    setUp = started.get(`${ats}\u0000set-up`)!;
  };
  let companyId: number;
  let driver: Driver;
  const jobs: Partial<Record<Key, JobRecord>> = {};

  // The job as the interface shows it: its run_id resolved (P192: an unchanged job is not written again).
  const job = async (key: Key) => (await resolveRunIds(companyId, [(await findJobByExternalId(companyId, driver.ids[key]))!]))[0];
  const status = async () => (await getCompanyRecord(companyId))!.status;

  async function apply(key: Key, email: string) {
    const created = await api.request('POST', '/applications/', {
      key: partner.key,
      companyId,
      body: contractApplication(driver, (await job(key)).id, email),
    });
    expect(created.status).toBe(201);
    await api.runtime.poller.drain();
    return (await api.get(`/applications/${created.body.id}`, { key: partner.key, companyId })).body;
  }

  beforeAll(async () => {
    const company = await createCompany({
      partner: partner.id,
      name: `Contract ${ats}`,
      ats,
      entitlements: ['job_sync', 'candidate_sync'],
    });
    await createApiKey({ company: company.id });
    companyId = company.id;
    driver = driverModule.driver(companyId);
    await driver.publish([
      { key: 'a', title: 'Backend Engineer' },
      { key: 'b', title: 'Data Analyst' },
    ]);
    const connected = await connectCompany(companyId, ats, driver.credentials);
    expect(connected).toMatchObject({ ats, status: 'active', job_sync_active: true, candidate_sync_active: true });
  });

  test('import: creates the published jobs with import_source api and the untouched source record', async () => {
    const result = await runJobImport(companyId);
    expect(result).toEqual({ run_id: expect.any(String), created: 2, updated: 0, unchanged: 0, archived: 0 });
    jobs.a = await job('a');
    jobs.b = await job('b');
    expect(jobs.a).toMatchObject({ title: 'Backend Engineer', status: 'active', import_source: 'api', run_id: result.run_id });
    expect(jobs.a.raw_values).toMatchObject(driver.rawId('a') as object);
    expect((await getCompanyRecord(companyId))!.jobs_last_synced_at).toEqual(expect.any(String));
  });

  test('import: a changed posting is updated (fingerprint and last_content_update_at move), the other is unchanged', async () => {
    await new Promise((r) => setTimeout(r, 5));
    await driver.publish([
      { key: 'a', title: 'Backend Engineer' },
      { key: 'b', title: 'Senior Data Analyst' },
    ]);
    const result = await runJobImport(companyId);
    expect(result).toMatchObject({ created: 0, updated: 1, unchanged: 1, archived: 0 });
    const b = await job('b');
    expect(b.title).toBe('Senior Data Analyst');
    expect(b.fingerprint).not.toBe(jobs.b!.fingerprint);
    expect(b.last_content_update_at > jobs.b!.last_content_update_at).toBe(true);
    const a = await job('a');
    expect(a.fingerprint).toBe(jobs.a!.fingerprint);
    expect(a.last_content_update_at).toBe(jobs.a!.last_content_update_at);
    expect(a.run_id).toBe(result.run_id);
  });

  test('import: the same feed again leaves every job unchanged', async () => {
    expect(await runJobImport(companyId)).toMatchObject({ created: 0, updated: 0, unchanged: 2, archived: 0 });
  });

  test('import: a job gone from the feed is archived', async () => {
    await driver.publish([
      { key: 'a', title: 'Backend Engineer' },
      { key: 'c', title: 'Office Manager' },
    ]);
    expect(await runJobImport(companyId)).toMatchObject({ created: 1, updated: 0, unchanged: 1, archived: 1 });
    expect((await job('b')).status).toBe('archived');
    expect((await job('c')).status).toBe('active');
  });

  test('import: a malformed feed fails the run and changes no job; 3 failed runs turn the company failing; a success turns it active', async () => {
    const before = await Promise.all((['a', 'b', 'c'] as Key[]).map(job));
    await driver.breakFeed();
    for (const [run, expected] of [
      [1, 'active'],
      [2, 'active'],
      [3, 'failing'],
    ] as const) {
      await expect(runJobImport(companyId)).rejects.toMatchObject({ code: 'job_import_invalid_feed', failures: run });
      expect(await status()).toBe(expected);
    }
    expect(await Promise.all((['a', 'b', 'c'] as Key[]).map(job))).toEqual(before);
    await driver.publish([
      { key: 'a', title: 'Backend Engineer' },
      { key: 'c', title: 'Office Manager' },
    ]);
    expect(await runJobImport(companyId)).toMatchObject({ unchanged: 2 });
    expect(await getCompanyRecord(companyId)).toMatchObject({ status: 'active', job_import_failures: 0 });
  });

  test('submission: SUCCESS with exactly the request the ATS documents (headers, fields, file bytes)', async () => {
    const app = await apply('a', `grace.${ats}@example.com`);
    expect(app).toMatchObject({ sync_status: 'SUCCESS', failure_error: null });
    if (driver.returnsExternalId) expect(app.external_id).toEqual(expect.any(String));
    await driver.checkSubmission(`grace.${ats}@example.com`, driver.ids.a);
  });

  test('submission: a duplicate candidate', async () => {
    const email = await driver.duplicate(`known.${ats}@example.com`);
    expect(await apply('a', email)).toMatchObject(driver.duplicateOutcome);
  });

  test('submission: a job the ATS no longer publishes is EXPECTED_FAILURE with JobNotPublishedError', async () => {
    await driver.close('c');
    expect(await apply('c', `closed.${ats}@example.com`)).toMatchObject({
      sync_status: 'EXPECTED_FAILURE',
      failure_error: 'JobNotPublishedError',
    });
  });

  test('submission: rate limited, then SUCCESS', async () => {
    const email = await driver.rateLimitOnce();
    expect(await apply('a', email)).toMatchObject({ sync_status: 'SUCCESS', failure_error: null });
    driver.checkRateLimited();
  });

  test('submission: rejected credentials are FAILURE with CredentialsRejectedError and turn the company failing', async () => {
    await driver.rejectCredentials(true);
    try {
      expect(await apply('a', `rejected.${ats}@example.com`)).toMatchObject({
        sync_status: 'FAILURE',
        failure_error: 'CredentialsRejectedError',
      });
      expect(await status()).toBe('failing');
    } finally {
      await driver.rejectCredentials(false);
      await setCompanyStatus(companyId, 'active');
    }
  });
});
