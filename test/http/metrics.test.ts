/**
 * Metrics (issue 25 item 3): what the functions write to stdout as CloudWatch EMF, captured from the process's
 * stdout while real requests, sync runs, job imports and webhook deliveries run against the emulators. Off
 * without a namespace or with POWERTOOLS_METRICS_DISABLED=true; never a personal value in a dimension.
 */
import { setSandboxAts } from '#delivery/connectors/sandbox.js';
import { runJobImport } from '#delivery/job-import.js';
import { deliverWebhook } from '#delivery/webhooks.js';
import { importJobs } from '#jobs/job-store.js';
import { aCompany, aJob, aPartner } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';

process.env.SYNC_RETRY_BASE_SECONDS = '0';
const NAMESPACE = 'HiringIntegrationService/test';

interface Emf {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[];
  };
  [field: string]: unknown;
}

let api: TestRuntime;
let partner: Awaited<ReturnType<typeof aPartner>>;
let company: Awaited<ReturnType<typeof aCompany>>;
let jobId: number;
let written: string[] = [];
const originalWrite = process.stdout.write.bind(process.stdout);

/** Everything written to stdout while `fn` runs: the EMF documents among it, parsed. */
async function captured(fn: () => Promise<unknown>): Promise<{ raw: string; documents: Emf[] }> {
  written = [];
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    // Nothing else reaches the terminal meanwhile; `rest` (encoding, callback) is not needed for a string.
    void rest;
    return true;
  }) as typeof process.stdout.write;
  try {
    await fn();
  } finally {
    process.stdout.write = originalWrite;
  }
  const raw = written.join('');
  const documents = raw
    .split('\n')
    .filter((line) => line.includes('"_aws"'))
    .map((line) => JSON.parse(line) as Emf);
  return { raw, documents };
}

/** The documents that carry a metric of this name. */
const withMetric = (documents: Emf[], name: string) =>
  documents.filter((d) => d._aws.CloudWatchMetrics.some((m) => m.Metrics.some((x) => x.Name === name)));

beforeAll(async () => {
  api = await startTestRuntime();
  partner = await aPartner();
  company = await aCompany(partner.id, { entitlements: ['job_sync', 'candidate_sync'] });
  const job = aJob({ external_id: 'metrics-1' });
  await importJobs(company.id, [job]);
  jobId = (await api.get('/jobs?external_id=metrics-1', { key: partner.key, companyId: company.id })).body.results[0].id;
});

afterAll(async () => {
  await api?.stop();
});

beforeEach(() => {
  process.env.POWERTOOLS_METRICS_NAMESPACE = NAMESPACE;
  delete process.env.POWERTOOLS_METRICS_DISABLED;
});
afterEach(() => {
  delete process.env.POWERTOOLS_METRICS_NAMESPACE;
  delete process.env.POWERTOOLS_METRICS_DISABLED;
});

test('each request writes one EMF document for its route: count, latency, 4xx/5xx and its DynamoDB read and write units', async () => {
  let ok: { headers: Headers } | undefined;
  const { documents } = await captured(async () => {
    ok = await api.get(`/jobs/${jobId}`, { key: partner.key, companyId: company.id });
    // Without Company-Id: a 400 from the middleware stack.
    await api.get(`/jobs/${jobId}`, { key: partner.key });
  });
  const requests = withMetric(documents, 'Requests');
  expect(requests).toHaveLength(2);
  for (const doc of requests) {
    expect(doc._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: NAMESPACE,
        Dimensions: [['service', 'route']],
        Metrics: [
          { Name: 'Requests', Unit: 'Count' },
          { Name: 'Latency', Unit: 'Milliseconds' },
          { Name: 'Errors4xx', Unit: 'Count' },
          { Name: 'Errors5xx', Unit: 'Count' },
          { Name: 'DynamoDBReadUnits', Unit: 'Count' },
          { Name: 'DynamoDBWriteUnits', Unit: 'Count' },
        ],
      },
    ]);
    expect(doc).toMatchObject({ service: 'hiring-integration-service', route: 'GetJob', Requests: 1, Errors5xx: 0 });
    expect(doc.Latency).toEqual(expect.any(Number));
  }
  const [first, second] = requests;
  expect(first.Errors4xx).toBe(0);
  expect(second.Errors4xx).toBe(1);
  // The same figure the response reports in its X-DynamoDB-Capacity header (the local runtime sets CAPACITY_HEADER=1).
  const header = ok!.headers.get('x-dynamodb-capacity')!;
  expect(first.DynamoDBReadUnits).toBe(Number(/read=([\d.]+)/.exec(header)![1]));
  expect(first.DynamoDBReadUnits).toBeGreaterThan(0);
  expect(first.DynamoDBWriteUnits).toBe(0);
});

test('a create reports its write units; the public pages and the apply route write their documents too', async () => {
  const { documents } = await captured(async () => {
    const res = await api.request('POST', '/applications/', {
      key: partner.key,
      companyId: company.id,
      body: { job: jobId, candidate: { email: 'ada.metrics@example.com', full_name: 'Ada Metrics' } },
    });
    expect(res.status).toBe(201);
    expect((await api.get('/connect/not-a-token')).status).toBe(404);
    expect((await api.request('POST', '/apply/generic/not-a-token', { body: {} })).status).toBe(404);
  });
  const byRoute = new Map(withMetric(documents, 'Requests').map((d) => [d.route, d]));
  expect(byRoute.get('CreateApplication')).toMatchObject({ Requests: 1, Errors4xx: 0 });
  expect(byRoute.get('CreateApplication')!.DynamoDBWriteUnits).toBeGreaterThan(0);
  expect(byRoute.get('ConnectPage')).toMatchObject({ Requests: 1, Errors4xx: 1 });
  expect(byRoute.get('ApplyWebhook')).toMatchObject({ Requests: 1, Errors4xx: 1 });
});

test('a sync outcome is counted by ATS, sync_status and failure_error, with no personal data anywhere in the metrics', async () => {
  const email = 'grace+duplicate@example.com';
  const { raw, documents } = await captured(async () => {
    const res = await api.request('POST', '/applications/', {
      key: partner.key,
      companyId: company.id,
      body: { job: jobId, candidate: { email, full_name: 'Grace Hopper' } },
    });
    expect(res.status).toBe(201);
    await api.runtime.poller.drain();
  });
  // The earlier test's application (a plain success) is synced in the same drain.
  const outcomes = withMetric(documents, 'SyncOutcomes');
  for (const outcome of outcomes)
    expect(outcome._aws.CloudWatchMetrics[0].Dimensions).toEqual([['service', 'ats', 'sync_status', 'failure_error']]);
  expect(outcomes.map(({ ats, sync_status, failure_error, SyncOutcomes }) => ({ ats, sync_status, failure_error, SyncOutcomes }))).toEqual(
    expect.arrayContaining([
      { ats: 'sandbox', sync_status: 'EXPECTED_FAILURE', failure_error: 'DuplicateApplicationError', SyncOutcomes: 1 },
      { ats: 'sandbox', sync_status: 'SUCCESS', failure_error: 'none', SyncOutcomes: 1 },
    ]),
  );
  expect(outcomes).toHaveLength(2);
  const metricsText = documents.map((d) => JSON.stringify(d)).join('\n');
  for (const personal of [email, 'Grace', 'Hopper', 'ada.metrics', 'example.com']) expect(metricsText).not.toContain(personal);
  expect(raw.length).toBeGreaterThan(0);
});

test('job import runs are counted by result with the jobs they created, updated, archived and left unchanged', async () => {
  await setSandboxAts(company.id, {
    feed: [
      { external_id: 'metrics-1', title: 'Metrics one' },
      { external_id: 'metrics-2', title: 'Metrics two' },
    ],
  });
  const success = await captured(() => runJobImport(company.id));
  const [run] = withMetric(success.documents, 'JobImportRuns');
  expect(run._aws.CloudWatchMetrics[0].Dimensions).toEqual([['service', 'result']]);
  expect(run).toMatchObject({ result: 'success', JobImportRuns: 1, JobsCreated: 1, JobsArchived: 0 });
  expect(Number(run.JobsUpdated) + Number(run.JobsUnchanged)).toBe(1);

  await setSandboxAts(company.id, { feedMalformed: true });
  const failed = await captured(() => runJobImport(company.id).catch(() => undefined));
  expect(withMetric(failed.documents, 'JobImportRuns')).toEqual([
    expect.objectContaining({ result: 'invalid_feed', JobImportRuns: 1, JobsCreated: 0 }),
  ]);
  await setSandboxAts(company.id, {});
});

test('webhook deliveries are counted by result', async () => {
  const event = { id: 'evt_metrics', type: 'application.created', occurred_at: new Date().toISOString(), company: company.id, data: {} };
  const { documents } = await captured(() => deliverWebhook({ kind: 'webhook-delivery', partner: partner.id, endpoint: 987654, event }, 1));
  expect(withMetric(documents, 'WebhookDeliveries')).toEqual([expect.objectContaining({ result: 'dropped', WebhookDeliveries: 1 })]);
});

test('nothing is written without a namespace (npm start, tests) or with POWERTOOLS_METRICS_DISABLED=true', async () => {
  delete process.env.POWERTOOLS_METRICS_NAMESPACE;
  const unset = await captured(() => api.get(`/jobs/${jobId}`, { key: partner.key, companyId: company.id }));
  expect(unset.documents).toEqual([]);
  process.env.POWERTOOLS_METRICS_NAMESPACE = NAMESPACE;
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  const disabled = await captured(() => api.get(`/jobs/${jobId}`, { key: partner.key, companyId: company.id }));
  expect(disabled.documents).toEqual([]);
});
