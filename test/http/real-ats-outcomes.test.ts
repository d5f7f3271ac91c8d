/**
 * Outcomes from a real ATS through the real path (D21, P301): a company connected to its Workable account on the
 * simulator, an application made through HTTP, delivered by the sync worker (the candidate id Workable returned is
 * its `external_id`), moved in Workable as a recruiter would, read by the scheduled OutcomeReader with
 * `GET /spi/v3/candidates/{id}`, and seen in GET /applications/{id}; Workable down during a reading changes nothing;
 * another company's key sees none of it. A token without the read scope pauses that company's readings until it
 * reconnects (P322), shown by `hiring-admin company status`.
 */
import { connectCompany, connectionStatus } from '#delivery/ats-connections.js';
import { runAdmin } from '../helpers/admin-cli.js';
import type { OutcomePass } from '#delivery/outcomes.js';
import { aCompany, aPartner, withJobs } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { startSimulatorServer, type SimulatorServer } from '../simulators/server.js';
import { startWorkableSimulator, workableAccount, type WorkableSimulator } from '../simulators/workable.js';

let api: TestRuntime;
let workable: WorkableSimulator;
let down: SimulatorServer;

beforeAll(async () => {
  [workable, down] = await Promise.all([startWorkableSimulator(), startSimulatorServer(() => ({ status: 503, body: { error: 'down' } }))]);
  workable.rateLimit = { limit: 1000, intervalMs: 10_000 };
  Object.assign(process.env, workable.env);
  api = await startTestRuntime();
});
afterAll(async () => {
  await api.stop();
  await Promise.all([workable.server.stop(), down.stop()]);
});

const pass = async () => (await api.runtime.scheduler.run('OutcomeReader')) as OutcomePass;

/**
 * A company of `partner` connected to its own Workable account on the simulator (with the token's `scopes`, all
 * by default), one job, and one application made through HTTP to it.
 */
async function appliedOnWorkable(partner: { id: number; key: string }, name: string, email: string, scopes?: string[]) {
  const company = await aCompany(partner.id, { entitlements: ['candidate_sync'] });
  const account = workableAccount(`${name}-${company.id}`, { jobs: [{ shortcode: `WK${company.id}`, title: 'Outcome job' }] });
  if (scopes) account.scopes = new Set(scopes);
  workable.accounts.set(account.subdomain, account);
  await connectCompany(company.id, 'workable', { subdomain: account.subdomain, token: account.token });
  await withJobs(company.id, [{ external_id: `WK${company.id}`, title: 'Outcome job' }]);
  const job = (await api.get('/jobs', { key: partner.key, companyId: company.id })).body.results[0].id as number;
  const created = await api.request('POST', '/applications/', {
    key: partner.key,
    companyId: company.id,
    body: { job, candidate: { email: `${email}@example.com`, full_name: 'Ada Lovelace' } },
  });
  expect(created.status).toBe(201);
  return { company, account, id: created.body.id as number };
}

test('Workable: delivered, read PENDING "Applied", moved to Interview and Hired in Workable, HIRED "Hired" in GET /applications/{id}', async () => {
  const partner = await aPartner();
  const { company, account, id } = await appliedOnWorkable(partner, 'real-path', 'ada');
  const read = async (key = partner.key, companyId = company.id) => api.get(`/applications/${id}`, { key, companyId });

  await api.runtime.poller.drain();
  const delivered = (await read()).body;
  const candidate = workable.candidates.find((c) => c.subdomain === account.subdomain)!;
  expect(delivered).toMatchObject({ sync_status: 'SUCCESS', external_id: candidate.id, outcome: null });

  const first = await pass();
  expect(first.failed).toBe(0);
  expect((await read()).body).toMatchObject({ outcome: 'PENDING', outcome_stage: 'Applied' });
  const reads = workable.requestsTo(new RegExp(`^/workable/${account.subdomain}/spi/v3/candidates/${candidate.id}$`));
  expect(reads.map((r) => [r.method, r.headers.authorization])).toEqual([['GET', `Bearer ${account.token}`]]);

  // Workable is down during a reading: the application stays as it was, for the next pass.
  workable.moveApplication(candidate.id, 'interview');
  process.env.WORKABLE_API_URL = `${down.url}/{subdomain}`;
  const failed = await pass();
  expect(failed.failed).toBeGreaterThanOrEqual(1);
  expect((await read()).body).toMatchObject({ outcome: 'PENDING', outcome_stage: 'Applied' });
  process.env.WORKABLE_API_URL = workable.env.WORKABLE_API_URL;

  expect((await pass()).failed).toBe(0);
  expect((await read()).body).toMatchObject({ outcome: 'PENDING', outcome_stage: 'Interview' });
  workable.moveApplication(candidate.id, 'hired');
  await pass();
  const hired = (await read()).body;
  expect(hired).toMatchObject({ outcome: 'HIRED', outcome_stage: 'Hired', external_id: candidate.id });
  expect(Date.parse(hired.outcome_updated_at)).toBeGreaterThan(0);

  // A final outcome is not read again.
  const before = workable.requestsTo(/\/spi\/v3\/candidates\//).length;
  await pass();
  expect(workable.requestsTo(/\/spi\/v3\/candidates\//).length).toBe(before);

  // Another company's key: 404, nothing of the outcome.
  const other = await aCompany(partner.id, { entitlements: ['candidate_sync'] });
  const foreign = await read(other.key, other.id);
  expect(foreign.status).toBe(404);
  expect(JSON.stringify(foreign.body)).not.toContain('Hired');
});

test("P322: Workable refuses the reading (no r_candidates): that company's readings pause, `company status` says why, a reconnection resumes them", async () => {
  const partner = await aPartner();
  // Two companies on Workable: one whose token lacks r_candidates (it submits, it cannot read), one whose token reads.
  const setUp = async (name: string, scopes: string[]) => {
    const { company, account, id } = await appliedOnWorkable(partner, name, name, scopes);
    const reads = () => workable.requestsTo(new RegExp(`^/workable/${account.subdomain}/spi/v3/candidates/`)).length;
    const application = async () => (await api.get(`/applications/${id}`, { key: partner.key, companyId: company.id })).body;
    return { company, account, id, reads, application };
  };
  const refused = await setUp('refused', ['r_jobs', 'w_candidates']);
  const reading = await setUp('reading', ['r_jobs', 'r_candidates', 'w_candidates']);
  await api.runtime.poller.drain();
  expect(await refused.application()).toMatchObject({ sync_status: 'SUCCESS', outcome: null });

  // The first reading: Workable answers 403 (missing scope r_candidates); the company's readings pause.
  const first = await pass();
  expect(first).toMatchObject({ failed: 1, paused: 1 });
  expect(refused.reads()).toBe(1);
  expect(await refused.application()).toMatchObject({ sync_status: 'SUCCESS', outcome: null });
  // The other company is read as before.
  expect(await reading.application()).toMatchObject({ outcome: 'PENDING', outcome_stage: 'Applied' });

  // The operator sees why; the company stays active (its submissions work) and nothing of the token is shown.
  const status = await runAdmin(api.runtime.dataDir, ['company', 'status', String(refused.company.id)]);
  expect(status.code).toBe(0);
  expect(status.json).toMatchObject({ id: refused.company.id, status: 'active', ats: 'workable', connected: true });
  expect(status.json.outcomes).toMatchObject({ tracked: 'paused', credential: 'token' });
  expect(status.json.outcomes.detail).toContain('r_candidates');
  expect(status.stdout).not.toContain(refused.account.token);
  expect((await connectionStatus(reading.company.id)).outcomes).toMatchObject({ tracked: 'reading' });

  // Paused: the next passes do not call Workable for it at all.
  for (let i = 0; i < 2; i++) expect(await pass()).toMatchObject({ failed: 0, paused: 0 });
  expect(refused.reads()).toBe(1);

  // The company reconnects with a token that may read candidates: readings resume at the next pass.
  refused.account.scopes.add('r_candidates');
  await connectCompany(refused.company.id, 'workable', { subdomain: refused.account.subdomain, token: refused.account.token });
  expect((await connectionStatus(refused.company.id)).outcomes).toMatchObject({ tracked: 'reading' });
  expect(await pass()).toMatchObject({ failed: 0, paused: 0 });
  expect(refused.reads()).toBe(2);
  expect(await refused.application()).toMatchObject({ outcome: 'PENDING', outcome_stage: 'Applied' });
});
