/**
 * The delivery log (issue 44, D23) against every ATS simulator (the contract's drivers, test/connectors/drivers):
 * an application through success, a retry (the ATS rate limits once) and a permanent failure (rejected
 * credentials), each end to end (HTTP create → sync queue → worker → connector → simulator), its log read through
 * HTTP with the typed client (`for await`) and through the operator's read; the company's job import run. The
 * candidate's e-mail, phone and names and the credentials are in none of it. The nine ATSs run at once in one
 * runtime (their messages share the worker's batches); the admin tool runs in a few child processes at once (one
 * application of each outcome, one company's runs): each costs a Node start, and what it prints is the store's read,
 * the same for every ATS, which is checked for each.
 */
import { connectCompany } from '#delivery/ats-connections.js';
import { runJobImport } from '#delivery/job-import.js';
import { createCompany, setCompanyStatus } from '#companies/company-store.js';
import { createApiKey } from '#companies/api-keys.js';
import { findJobByExternalId } from '#jobs/job-store.js';
import { applicationDeliveries, jobImportRuns, type JobImportRunRecord } from '#delivery/delivery-log.js';
import { createHiringClient, type Delivery } from '../../clients/typescript/src/index.js';
import { adminCli } from '../helpers/admin-cli.js';
import { aPartner } from '../helpers/fixtures.js';
import { contractFetch, startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { contractApplication, type Driver, type DriverModule, type StartedSimulator } from './drivers/driver.js';
import { driverModules, startSimulators } from './drivers/index.js';

process.env.SYNC_RETRY_BASE_SECONDS = '0';
process.env.SYNC_CLAIM_SECONDS = '1';
process.env.SYNC_MAX_ATTEMPTS = '4';
// The connectors' own back-off before a retry within the attempt: short here (their defaults are a second).
process.env.LEVER_RETRY_BASE_MS = '20';
process.env.SMARTRECRUITERS_RETRY_BASE_MS = '20';

let api: TestRuntime;
let partner: Awaited<ReturnType<typeof aPartner>>;
let simulators: StartedSimulator[] = [];

/** The admin tool in a child process, finding the test runtime's storage through its runtime.json. */
const cli = (...args: string[]) => adminCli(args, api.runtime.dataDir);

const CANDIDATE = { first_name: 'Grace', last_name: 'Hopper', phone: '+49 30 1234' };
const OUTCOMES = ['success', 'retried', 'failed'] as const;

interface Applied {
  application: Record<string, any>;
  log: Delivery[];
  email: string;
}
interface Scenario {
  companyId: number;
  driver: Driver;
  success: Applied;
  retried: Applied;
  failed: Applied;
  runs: JobImportRunRecord[];
}

/**
 * One ATS's scenario, end to end: its company, a job import run, then an application through success, a retry (the
 * ATS rate limits once) and a permanent failure (rejected credentials), each read back through HTTP with the typed
 * client (`for await`, pages of 2). The nine run at once (one runtime, one worker: their messages share batches).
 */
async function scenario(ats: string, driverModule: DriverModule): Promise<Scenario> {
  const company = await createCompany({ partner: partner.id, name: `Log ${ats}`, ats, entitlements: ['job_sync', 'candidate_sync'] });
  await createApiKey({ company: company.id });
  const driver: Driver = driverModule.driver(company.id);
  await driver.publish([{ key: 'a', title: 'Backend Engineer' }]);
  await connectCompany(company.id, ats, driver.credentials);
  await runJobImport(company.id);
  const job = (await findJobByExternalId(company.id, driver.ids.a))!.id;
  const client = createHiringClient({ baseUrl: api.url, apiKey: partner.key, retry: { baseDelayMs: 5 }, fetch: (r) => contractFetch(r) });

  const apply = async (email: string): Promise<Applied> => {
    const created = await api.request('POST', '/applications/', {
      key: partner.key,
      companyId: company.id,
      body: contractApplication(driver, job, email),
    });
    expect(created.status).toBe(201);
    await api.runtime.poller.drain();
    const application = (await api.get(`/applications/${created.body.id}`, { key: partner.key, companyId: company.id })).body;
    const log: Delivery[] = [];
    for await (const record of client.company(company.id).applications.deliveries(created.body.id, { page_size: 2 })) log.push(record);
    return { application, log, email };
  };

  const success = await apply(`log.ok.${ats}@example.com`);
  const retried = await apply(await driver.rateLimitOnce());
  await driver.rejectCredentials(true);
  let failed: Applied;
  try {
    failed = await apply(`log.rejected.${ats}@example.com`);
  } finally {
    await driver.rejectCredentials(false);
    await setCompanyStatus(company.id, 'active');
  }
  return { companyId: company.id, driver, success, retried, failed, runs: await jobImportRuns(company.id) };
}

const scenarios = new Map<string, Scenario>();

beforeAll(async () => {
  [api, simulators] = await Promise.all([startTestRuntime(), startSimulators()]);
  partner = await aPartner();
  const done = await Promise.all(driverModules.map(async (m) => [m.ats, await scenario(m.ats, m)] as const));
  for (const [ats, result] of done) scenarios.set(ats, result);
}, 180_000);
afterAll(async () => {
  await Promise.all([api.stop(), ...simulators.map((s) => s.stop())]);
});

describe.each(driverModules.map((m) => m.ats))('%s', (ats) => {
  test('success, a retry and a permanent failure: every ATS call in the log through HTTP, nothing personal; the import run', () => {
    const { success, retried, failed, runs, driver } = scenarios.get(ats)!;

    // Success: newest first, the last call accepted with a 2xx; every call of attempt 1, of the submission.
    expect(success.application).toMatchObject({ sync_status: 'SUCCESS' });
    expect(success.log.length).toBeGreaterThanOrEqual(1);
    expect(success.log.map((r) => r.at)).toEqual([...success.log.map((r) => r.at)].sort().reverse());
    expect(success.log[0]).toMatchObject({ attempt: 1, operation: 'submitApplication', result: 'accepted', failure_error: null });
    expect(success.log[0].status! >= 200 && success.log[0].status! < 300).toBe(true);
    expect(success.log.flatMap((r) => r.fields_sent).length).toBeGreaterThan(0);

    // The retry: a 429 read as `retry`, then accepted (in the same attempt where the connector retries it itself).
    expect(retried.application).toMatchObject({ sync_status: 'SUCCESS' });
    expect(retried.log.some((r) => r.status === 429 && r.result === 'retry')).toBe(true);
    expect(retried.log[0]).toMatchObject({ result: 'accepted' });

    // The permanent failure: the newest call failed the attempt, with the failure_error it led to.
    expect(failed.application).toMatchObject({ sync_status: 'FAILURE', failure_error: 'CredentialsRejectedError' });
    expect(failed.log[0]).toMatchObject({ result: 'failed', failure_error: 'CredentialsRejectedError' });
    // The ATS's own status: 401 or 403 for most, 404 for Recruitee (an unknown company's API answers so).
    expect(failed.log[0].status).toBeGreaterThanOrEqual(400);
    expect(failed.log[0].status).toBeLessThan(500);

    // The import run (as `hiring-admin jobs runs` reads it): its outcome, counts and the ATS calls it made.
    expect(runs[0]).toMatchObject({ outcome: 'success', counts: { created: 1, updated: 0, unchanged: 0, archived: 0 } });
    expect(runs[0].calls.length).toBeGreaterThanOrEqual(1);
    expect(runs[0].calls[0]).toMatchObject({ operation: 'listPublishedJobs', attempt: 1 });

    // Nothing personal and no credential anywhere in what was shown.
    const shown = JSON.stringify([success.log, retried.log, failed.log, runs]).toLowerCase();
    const secrets = Object.values(driver.credentials).filter((v) => v.length >= 6);
    for (const value of [
      success.email,
      retried.email,
      failed.email,
      CANDIDATE.first_name,
      CANDIDATE.last_name,
      CANDIDATE.phone,
      ...secrets,
    ])
      expect({ value, shown: shown.includes(value.toLowerCase()) }).toEqual({ value, shown: false });
    for (const record of [...success.log, ...retried.log, ...failed.log]) expect(record.url).not.toMatch(/[?#]/);
  });

  // What `hiring-admin applications deliveries` prints is `applicationDeliveries` (the same records, read
  // consistently, with the sync status): checked here for each outcome of each ATS, and through the tool itself below.
  test('the operator read (`applications deliveries`) holds the same records as HTTP, for each outcome', async () => {
    const { companyId, ...apps } = scenarios.get(ats)!;
    for (const outcome of OUTCOMES) {
      const app = apps[outcome];
      expect(await applicationDeliveries(app.application.id)).toEqual({
        application: app.application.id,
        company: companyId,
        sync_status: app.application.sync_status,
        failure_error: app.application.failure_error,
        deliveries: app.log,
      });
    }
  });
});

/**
 * The tool itself, in child processes as an operator runs it (each costs a Node start, so a few, at once): one
 * application of each outcome, from three ATSs, and one company's import runs.
 */
test('`hiring-admin applications deliveries ID` and `jobs runs --company C` print what HTTP and the store show', async () => {
  const picks: [string, (typeof OUTCOMES)[number]][] = [
    ['greenhouse', 'success'],
    ['smartrecruiters', 'retried'],
    ['workable', 'failed'],
  ];
  const lever = scenarios.get('lever')!;
  const [runs, ...printed] = await Promise.all([
    cli('jobs', 'runs', '--company', String(lever.companyId)),
    ...picks.map(([ats, outcome]) => cli('applications', 'deliveries', String(scenarios.get(ats)![outcome].application.id))),
  ]);
  for (const [i, [ats, outcome]] of picks.entries()) {
    const { companyId, [outcome]: app } = scenarios.get(ats)!;
    expect({ ats, code: printed[i].code }).toEqual({ ats, code: 0 });
    expect(printed[i].json).toMatchObject({
      application: app.application.id,
      company: companyId,
      sync_status: app.application.sync_status,
    });
    expect(printed[i].json.deliveries).toEqual(app.log);
    expect(printed[i].stdout.toLowerCase()).not.toContain(app.email.toLowerCase());
  }
  expect(printed[1].json.deliveries.some((r: Delivery) => r.status === 429 && r.result === 'retry')).toBe(true);
  expect(printed[2].json.deliveries[0]).toMatchObject({ result: 'failed', failure_error: 'CredentialsRejectedError' });
  expect(runs.code).toBe(0);
  expect(runs.json).toMatchObject({ company: lever.companyId });
  expect(runs.json.runs).toEqual(JSON.parse(JSON.stringify(lever.runs)));
  expect(runs.json.runs[0].calls[0]).toMatchObject({ operation: 'listPublishedJobs', method: 'GET' });
});
