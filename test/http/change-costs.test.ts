/**
 * What each change writes, synchronous or not (issue 22, item 2, write bounds), on DynamoDB Local's accounting
 * with transactions priced by AWS's formula (P188): the request's own writes (`X-DynamoDB-Capacity`) plus what
 * the change causes afterwards, the event relay's writes and, for a create on a syncing company, the sync
 * worker's status moves. Since P240 an application's events ride on its item (a compact `ev` attribute the
 * relay reads from the stream): no outbox item is written or deleted, so the relay writes nothing for them. Background work is run here inside `withRequestMetrics`, the same account
 * the HTTP adapter keeps per request.
 *
 * Each test asserts today's true value and names issue 22's bound; where the value misses the bound it says
 * so. These figures feed the reference month's bill (`npm run bench:bill`, docs/benchmarks.md).
 */
import { currentMetrics, withRequestMetrics } from '#platform/request-metrics.js';
import { importJobs } from '#jobs/job-store.js';
import { aCompany, aPartner } from '../helpers/fixtures.js';
import { allItems } from '../helpers/inspect.js';
import { startTestRuntime, type TestResponse, type TestRuntime } from '../helpers/runtime.js';

let api: TestRuntime;
let partner: Awaited<ReturnType<typeof aPartner>>;

type Cost = { read: number; write: number; calls: number };

function requestCost(res: TestResponse): Cost {
  const match = /read=([\d.]+); write=([\d.]+)/.exec(res.headers.get('x-dynamodb-capacity') ?? '');
  const calls = /calls=(\d+)/.exec(res.headers.get('x-dynamodb-capacity') ?? '');
  if (!match || !calls) throw new Error('no capacity header');
  return { read: Number(match[1]), write: Number(match[2]), calls: Number(calls[1]) };
}

/** What `work` costs, background calls included. */
async function measured(work: () => Promise<unknown>): Promise<Cost> {
  return withRequestMetrics(async () => {
    await work();
    const m = currentMetrics()!;
    return { read: m.readUnits, write: m.writeUnits, calls: m.calls };
  });
}

const relay = () => measured(() => api.runtime.relay.drain());
const worker = () => measured(() => api.runtime.poller.drain());

beforeAll(async () => {
  api = await startTestRuntime();
  partner = await aPartner(undefined, 'agency');
});
afterAll(() => api?.stop());

async function companyWithJob(entitlements: string[]) {
  const company = await aCompany(partner.id, { entitlements });
  await importJobs(company.id, [{ external_id: 'J-1', title: 'Engineer', city: 'Berlin' }]);
  const job = (await api.get('/jobs?external_id=J-1', { key: partner.key, companyId: company.id })).body.results[0].id as number;
  // Nothing of the set-up is left for the relay or the worker.
  await relay();
  await worker();
  return { company, job };
}

const everyPartnerId = (i: number) => ({
  channel: 'channel-1',
  partner_job_id: `PJ-${i}`,
  partner_company_id: 'PC-1',
  partner_application_id: `PA-${i}`,
  agency_job_id: `AJ-${i}`,
});

async function create(companyId: number, job: number, i: number, extra: Record<string, unknown> = {}) {
  const res = await api.request('POST', '/applications/', {
    key: partner.key,
    companyId,
    body: { job, candidate: { email: `c${i}@example.com`, full_name: 'Ada Lovelace' }, ...extra },
  });
  expect(res.status).toBe(201);
  return res;
}

test('a create with no partner ids writes 13 units with its event relayed (issue 22: ≤ 16; 16 with the outbox)', async () => {
  const { company, job } = await companyWithJob(['job_sync']);
  await create(company.id, job, 0); // the instance's first create also allocates a block of ids
  await relay();
  const res = await create(company.id, job, 1);
  const relayed = await relay();
  expect({ request: requestCost(res).write, relay: relayed.write }).toEqual({ request: 13, relay: 0 });
});

// P241: its four partner ids are lookup items in the create's transaction (2 units each) instead of slot entries (1
// each): 4 more; and the item, smaller without the four slot keys, falls below a KB, halving its own
// transactional write: 2 less. P240: its event rides on the item (no outbox item, no relay delete): 3 less.
test('a create with every partner id writes 24 units with its event relayed (issue 22: ≤ 26)', async () => {
  const { company, job } = await companyWithJob(['job_sync']);
  await create(company.id, job, 0, everyPartnerId(0));
  await relay();
  const res = await create(company.id, job, 1, everyPartnerId(1));
  const relayed = await relay();
  expect({ request: requestCost(res).write, relay: relayed.write }).toEqual({ request: 24, relay: 0 });
});

test('the sync of an application (NOTSENT → SUCCESS at the sandbox ATS, one status move) writes 13 units with its event relayed: 10 as before (issue 22: ≤ 10; 15 with the outbox, a second sandbox item and the DUE delete), 2 for its outcome watch (P298) and 1 for its one ATS call in the delivery log (issue 44, D23)', async () => {
  const { company, job } = await companyWithJob(['job_sync', 'candidate_sync']);
  await create(company.id, job, 0);
  await worker();
  await relay();
  const res = await create(company.id, job, 1);
  await relay(); // the create's own event
  const synced = await worker();
  const relayed = await relay();
  const application = (await api.get(`/applications/${res.body.id}`, { key: partner.key, companyId: company.id })).body;
  expect(application.sync_status).toBe('SUCCESS');
  // P242: the sandbox's call and receipt are one item (1 unit, not 2), and the DUE entry stays (no index delete).
  // P298: the sandbox reads outcomes, so the application is watched: its watch item (1 unit) and its DUE entry
  // (1 unit); a sync at an ATS that does not read outcomes writes no watch.
  const watch = (await allItems()).find((item) => item.PK === `APPLICATION#${res.body.id}` && item.SK === 'OUTCOMEWATCH');
  expect(watch).toMatchObject({ DUEPK: expect.stringMatching(/^OUTCOMEWATCH#\d$/), reference: `his-application-${res.body.id}` });
  // Issue 44 (D23): the sandbox's one simulated call is one delivery log record under 1 KB: 1 unit more.
  const log = (await api.get(`/applications/${res.body.id}/deliveries`, { key: partner.key, companyId: company.id })).body;
  expect(log.count).toBe(1);
  expect({ worker: synced.write, relay: relayed.write }).toEqual({ worker: 13, relay: 0 });
});

test('a company rename writes 8 units, and no event (issue 22: ≤ 10; 9 while companies carried SLIM entries, P253)', async () => {
  const { company } = await companyWithJob(['job_sync']);
  const res = await api.request('PATCH', `/companies/${company.id}/`, {
    key: partner.key,
    companyId: company.id,
    body: { name: 'Renamed Numbat' },
  });
  expect(res.status).toBe(200);
  const relayed = await relay();
  expect({ request: requestCost(res).write, relay: relayed.write }).toEqual({ request: 8, relay: 0 });
});

test('an unchanged job in an import run writes nothing (issue 22: 0); the run writes its totals and the company', async () => {
  const company = await aCompany(partner.id, { entitlements: ['job_sync'] });
  const jobs = Array.from({ length: 10 }, (_, i) => ({ external_id: `U-${i}`, title: `Job ${i}`, city: 'Berlin' }));
  const runs = [];
  for (const size of [5, 10]) {
    await importJobs(company.id, jobs.slice(0, size));
    await relay();
    runs.push((await measured(() => importJobs(company.id, jobs.slice(0, size)))).write);
    expect((await relay()).write).toBe(0);
  }
  // The same at 5 and 10 unchanged jobs (P192: their run is the one the jobs counter item names).
  expect(runs).toEqual([2, 2]);
});
