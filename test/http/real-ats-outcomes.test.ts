/**
 * Outcomes from a real ATS through the real path (D21, P301): a company connected to its Workable account on the
 * simulator, an application made through HTTP, delivered by the sync worker (the candidate id Workable returned is
 * its `external_id`), moved in Workable as a recruiter would, read by the scheduled OutcomeReader with
 * `GET /spi/v3/candidates/{id}`, and seen in GET /applications/{id}; Workable down during a reading changes nothing;
 * another company's key sees none of it.
 */
import { connectCompany } from '#delivery/ats-connections.js';
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

test('Workable: delivered, read PENDING "Applied", moved to Interview and Hired in Workable, HIRED "Hired" in GET /applications/{id}', async () => {
  const partner = await aPartner();
  const company = await aCompany(partner.id, { entitlements: ['candidate_sync'] });
  const account = workableAccount(`real-path-${company.id}`, { jobs: [{ shortcode: `WK${company.id}`, title: 'Outcome job' }] });
  workable.accounts.set(account.subdomain, account);
  await connectCompany(company.id, 'workable', { subdomain: account.subdomain, token: account.token });
  await withJobs(company.id, [{ external_id: `WK${company.id}`, title: 'Outcome job' }]);
  const job = (await api.get('/jobs', { key: partner.key, companyId: company.id })).body.results[0].id as number;

  const created = await api.request('POST', '/applications/', {
    key: partner.key,
    companyId: company.id,
    body: { job, candidate: { email: 'ada@example.com', full_name: 'Ada Lovelace' } },
  });
  expect(created.status).toBe(201);
  const id = created.body.id as number;
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
