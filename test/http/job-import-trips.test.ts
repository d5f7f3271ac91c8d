/**
 * The DynamoDB requests of one job import run from its queue message (issue 41 item 5, P328), in the order they
 * are made: which wait on which. A run from the sandbox ATS whose feed is unchanged made 13 requests in 9 rounds
 * one after another before P328 (the company read three times, the search shard once, the claim given back in a
 * write of its own); the JobImportWorker's first call waits on each round. Rounds are told from the requests'
 * own start and end times (a request that starts after every request of the round before it has answered opens
 * a new round), and checked against the adapter's own account (`sequential`, X-DynamoDB-Capacity's).
 */
import { dynamoClient } from '#platform/clients.js';
import { currentMetrics, withRequestMetrics, type RequestMetrics } from '#platform/request-metrics.js';
import {
  claimJobImportRun,
  getCompanyRecord,
  markCompanyFailing,
  releaseJobImportRun,
  setCompanyStatus,
} from '#companies/company-store.js';
import { readSearchShard } from '#companies/company-search.js';
import { importFromMessage, runJobImport } from '#delivery/job-import.js';
import { jobImportRuns } from '#delivery/delivery-log.js';
import { setSandboxAts } from '#delivery/connectors/sandbox.js';
import { loadConnector } from '#delivery/connectors/registry.js';
import { importJobs, readImportBase } from '#jobs/job-store.js';
import type { JobInput } from '#jobs/job-schema.js';
import { aCompany, aJob, aPartner } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';

let api: TestRuntime;
let partner: Awaited<ReturnType<typeof aPartner>>;

interface Call {
  label: string;
  start: number;
  end: number;
}
let calls: Call[] | undefined;

/** `UpdateItem COMPANY`: the operation and the kind of item its first key names (the key's prefixes, not its ids). */
function labelOf(command: string, input: Record<string, any>): string {
  const action = input.TransactItems?.[0];
  const first =
    input.Key ??
    (input.RequestItems && (Object.values(input.RequestItems)[0] as any[])[0]?.PutRequest?.Item) ??
    (action && (action.Update?.Key ?? action.Put?.Item)) ??
    (input.ExpressionAttributeValues ? { PK: input.ExpressionAttributeValues[':pk'], SK: input.ExpressionAttributeValues[':job'] } : {});
  const pk = String(first.PK ?? '');
  const sk = String(first.SK ?? '');
  const what = pk.startsWith('COMPANY#') && sk !== 'COMPANY' ? `COMPANY ${sk.split('#')[0]}#` : pk.split('#')[0];
  return `${command.replace(/Command$/, '')} ${what}`;
}

beforeAll(async () => {
  api = await startTestRuntime();
  partner = await aPartner();
  // The sandbox connector's module is loaded once here, as a warm worker has it: its dynamic import would
  // otherwise make the rounds depend on how fast the test's module loader is.
  await loadConnector('sandbox');
  dynamoClient().middlewareStack.add(
    (next, context) => async (args) => {
      const start = performance.now();
      try {
        return await next(args);
      } finally {
        calls?.push({ label: labelOf(String(context.commandName), args.input as Record<string, any>), start, end: performance.now() });
      }
    },
    { step: 'initialize', name: 'traceCallsForTest' },
  );
});
afterAll(() => api?.stop());

/** `work`'s requests, grouped in rounds (each sorted), with the adapter's account. */
async function traced(work: () => Promise<unknown>): Promise<{ rounds: string[][]; metrics: RequestMetrics }> {
  calls = [];
  const metrics = await withRequestMetrics(async () => {
    await work();
    return { ...currentMetrics()! };
  });
  const rounds: { end: number; labels: string[] }[] = [];
  for (const call of calls.sort((a, b) => a.start - b.start)) {
    const last = rounds.at(-1);
    if (last && call.start < last.end) {
      last.labels.push(call.label);
      last.end = Math.max(last.end, call.end);
    } else rounds.push({ end: call.end, labels: [call.label] });
  }
  calls = undefined;
  return { rounds: rounds.map((r) => r.labels.sort()), metrics };
}

async function companyWithFeed(feed = [aJob(), aJob(), aJob(), aJob()]) {
  const company = await aCompany(partner.id, { status: 'active', entitlements: ['job_sync'] });
  await importJobs(company.id, feed);
  await setSandboxAts(company.id, { feed: feed as JobInput[] });
  return company;
}

test('an unchanged run makes 8 requests in 4 rounds (13 in 9 before P328): the claim returns the company, the jobs are read while the ATS is called, the company write ends the claim', async () => {
  const company = await companyWithFeed();
  const { rounds, metrics } = await traced(() => importFromMessage({ company_id: company.id }));
  expect(rounds).toEqual([
    // The claim (its new item is the company: no read of it).
    ['UpdateItem COMPANY'],
    // The sandbox ATS's feed (an item of ours), beside the company's jobs and its jobs counter (the last complete run).
    ['GetItem COUNT', 'GetItem SANDBOXATS', 'Query COMPANY JOB#'],
    // The totals and the run's log (issue 44) side by side; the per-value counters (`language`, `country`).
    ['BatchWriteItem COMPANY IMPORTRUN#', 'BatchWriteItem COUNT', 'UpdateItem COUNT'],
    // The company's write, which also gives the claim back: after the totals, whose run id the next run reads.
    ['UpdateItem COMPANY'],
  ]);
  // The adapter's own account agrees; units as DynamoDB Local reports them (before P328: 6.5 read, 8 write).
  expect(metrics).toMatchObject({ calls: 8, sequential: 4, readUnits: 2.5, writeUnits: 7 });
  const stored = await getCompanyRecord(company.id);
  expect(stored).toMatchObject({ status: 'active', job_import_failures: 0, jobs_last_synced_at: expect.any(String) });
  expect((await jobImportRuns(company.id, 1))[0]).toMatchObject({ outcome: 'success', counts: { unchanged: 4, created: 0 } });
  // The claim was given back: another run may take it.
  expect(await claimJobImportRun(company.id, 60)).toMatchObject({ record: { id: company.id } });
  await releaseJobImportRun(company.id);
});

test("a company changed since its claim is read afresh for the run's write, and its change is kept (P267); the claim still ends", async () => {
  // Failing when claimed, deactivated by an operator before the run writes: the write as claimed would turn it
  // `active`; its revision condition fails, and the company read afresh keeps `deactivated`.
  const feed = [aJob(), aJob()];
  const company = await companyWithFeed(feed);
  await markCompanyFailing(company.id);
  const claimed = (await claimJobImportRun(company.id, 60))!;
  expect(claimed.record.status).toBe('failing');
  await setCompanyStatus(company.id, 'deactivated');
  await importJobs(company.id, feed, { run: { company: claimed, base: readImportBase(company.id) } });
  expect(await getCompanyRecord(company.id)).toMatchObject({
    status: 'deactivated',
    job_import_failures: 0,
    jobs_last_synced_at: expect.any(String),
  });
  expect((await readSearchShard(partner.id, company.id)).entries.get(company.id)?.[1]).toBe('deactivated');
  // The run's write ended the claim.
  expect(await claimJobImportRun(company.id, 60)).toMatchObject({ record: { status: 'deactivated' } });
  await releaseJobImportRun(company.id);
});

test('a failing company turns active: its search entry moves, so the shard is read and written with it', async () => {
  const company = await companyWithFeed();
  await markCompanyFailing(company.id);
  expect((await readSearchShard(partner.id, company.id)).entries.get(company.id)?.[1]).toBe('failing');
  const { rounds } = await traced(() => runJobImport(company.id));
  expect(rounds.slice(-2)).toEqual([['GetItem SEARCH'], ['TransactWriteItems COMPANY']]);
  expect(await getCompanyRecord(company.id)).toMatchObject({ status: 'active', job_import_failures: 0 });
  expect((await readSearchShard(partner.id, company.id)).entries.get(company.id)?.[1]).toBe('active');
});

test('a company whose imports wait gives its claim back; a run that finds the claim held leaves it held', async () => {
  const waiting = await companyWithFeed();
  await setCompanyStatus(waiting.id, 'deactivated');
  expect(await importFromMessage({ company_id: waiting.id })).toEqual({ skipped: 'company_inactive' });
  expect(await claimJobImportRun(waiting.id, 60)).toMatchObject({ record: { id: waiting.id } });
  await releaseJobImportRun(waiting.id);

  const held = await companyWithFeed();
  expect(await claimJobImportRun(held.id, 60)).toMatchObject({ record: { id: held.id } });
  await expect(runJobImport(held.id)).rejects.toMatchObject({ code: 'job_import_running' });
  expect(await claimJobImportRun(held.id, 60)).toBeUndefined();
  await releaseJobImportRun(held.id);
  await expect(runJobImport(999_999)).rejects.toMatchObject({ code: 'not_found' });
});
