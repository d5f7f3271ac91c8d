/**
 * The delivery log (issue 44, D23) through the real path: HTTP create → sync queue → the sync worker → the
 * SmartRecruiters connector → a loopback ATS that answers 503 and echoes everything it was sent (the candidate,
 * the Authorization-like header, a token field) → `GET /applications/{id}/deliveries`. None of the candidate's
 * e-mail, phone or names, and none of the credentials, is stored; the records, their paging (newest first), the
 * tenancy (another company's application is a 404), the write units per ATS call, a failed log write (counted,
 * never failing the sync) and the deletion with the personal data (D10) are checked here; every ATS through
 * success, a retry and a permanent failure in test/connectors/delivery-log.test.ts.
 */
import { DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { connectCompany } from '#delivery/ats-connections.js';
import { deleteCredentials } from '#delivery/credentials.js';
import { getApplicationRecord } from '#applications/application-store.js';
import { config, dynamoClient, s3 } from '#platform/clients.js';
import { createApiKey } from '#companies/api-keys.js';
import { createCompany } from '#companies/company-store.js';
import type { DeliveryRecord } from '#delivery/delivery-log.js';
import { importJobs } from '#jobs/job-store.js';
import { advanceClock, resetClock } from '#platform/clock.js';
import { queryAll } from '#platform/batch.js';
import { itemBytes } from '#platform/item-size.js';
import { aCompany, aPartner } from '../helpers/fixtures.js';
import { adminCli } from '../helpers/admin-cli.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { startSimulatorServer, type SimulatorServer } from '../simulators/server.js';

process.env.SYNC_RETRY_BASE_SECONDS = '0';
process.env.SYNC_CLAIM_SECONDS = '1';
process.env.SYNC_MAX_ATTEMPTS = '2';
process.env.SMARTRECRUITERS_MAX_RETRIES = '0';

const UUID = '3fa85f64-5717-4562-b3fc-2c963f66afa6';
const CANDIDATE = { email: 'Echo.Me@Example.com', first_name: 'Wilhelmina', last_name: 'Echoberg', phone: '+49 170 5550123' };
const TOKEN = 'echo-smart-token-0001';

let api: TestRuntime;
let ats: SimulatorServer;
let partner: Awaited<ReturnType<typeof aPartner>>;
let companyId: number;
let applicationId: number;

const deliveries = (id: number, query = '', key = partner.key, company = companyId) =>
  api.get(`/applications/${id}/deliveries${query}`, { key, companyId: company });

/** The delivery log items as stored, every attribute. */
const storedLog = (id: number) =>
  queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :d)',
    ExpressionAttributeValues: { ':pk': `APPLICATION#${id}`, ':d': 'DELIVERY#' },
  });

/** A new sandbox company with one job, and an application to it created through HTTP (not yet synced). */
async function sandboxApplication(candidate: Record<string, string>, attachments: unknown[] = []) {
  const company = await aCompany(partner.id);
  await importJobs(company.id, [{ external_id: 'LOG-JOB', title: 'Engineer' }]);
  const job = (await api.get('/jobs?external_id=LOG-JOB', { key: company.key, companyId: company.id })).body.results[0].id as number;
  const created = await api.request('POST', '/applications/', {
    key: company.key,
    companyId: company.id,
    body: { job, candidate, ...(attachments.length ? { attachments } : {}) },
  });
  expect(created.status).toBe(201);
  return { company, id: created.body.id as number };
}

beforeAll(async () => {
  // An ATS whose checks pass and whose application endpoint is down, answering with everything it was sent.
  ats = await startSimulatorServer((request) => {
    if (request.method === 'GET' && request.path.endsWith('/postings'))
      return { status: 200, body: { offset: 0, limit: 1, totalFound: 0, content: [] } };
    if (request.method === 'GET' && request.path.endsWith('/configuration'))
      return request.path.includes(UUID) ? { status: 200, body: { questions: [] } } : { status: 404, body: { code: 'NOT_FOUND' } };
    const sent = request.json as Record<string, unknown> | undefined;
    return {
      status: 503,
      body: {
        code: 'SERVICE_UNAVAILABLE',
        message: `Could not store ${String(sent?.firstName)} ${String(sent?.lastName)} (${String(sent?.email)}, ${String(sent?.phoneNumber)})`,
        lower: String(sent?.email).toLowerCase(),
        digits: String(sent?.phoneNumber).replace(/\D/g, ''),
        headers: request.headers,
        token: 'ats-session-token-xyz',
        note: `retry with token=${TOKEN}&x=1`,
        echo: sent,
      },
    };
  });
  process.env.SMARTRECRUITERS_API_URL = `${ats.url}/sr`;
  api = await startTestRuntime();
  partner = await aPartner();
  const company = await createCompany({
    partner: partner.id,
    name: 'Echo Log GmbH',
    ats: 'smartrecruiters',
    entitlements: ['candidate_sync'],
  });
  companyId = company.id;
  await createApiKey({ company: company.id });
  await importJobs(company.id, [{ external_id: UUID, title: 'Echo Engineer', status: 'active' }]);
  await connectCompany(company.id, 'smartrecruiters', { company_identifier: 'echo', api_key: TOKEN });
  const job = (await api.get(`/jobs?external_id=${UUID}`, { key: partner.key, companyId })).body.results[0].id as number;
  const created = await api.request('POST', '/applications/', { key: partner.key, companyId, body: { job, candidate: CANDIDATE } });
  expect(created.status).toBe(201);
  applicationId = created.body.id;
  await api.runtime.poller.drain();
});
afterAll(async () => {
  resetClock();
  await Promise.all([api.stop(), ats.stop()]);
});

test('each ATS call of each attempt is one record, newest first: a retry, then the failure it led to', async () => {
  const application = (await api.get(`/applications/${applicationId}`, { key: partner.key, companyId })).body;
  expect(application).toMatchObject({ sync_status: 'FAILURE', failure_error: 'AtsUnavailableError' });
  const posts = ats.requests.filter((r) => r.method === 'POST');
  expect(posts.length).toBe(2);

  const log = await deliveries(applicationId, '?page_size=50');
  expect(log.status).toBe(200);
  const results = log.body.results as DeliveryRecord[];
  expect(log.body.count).toBe(results.length);
  // Newest first, by time.
  expect(results.map((r) => r.at)).toEqual([...results.map((r) => r.at)].sort().reverse());
  const submissions = results.filter((r) => r.method === 'POST');
  expect(submissions.map((r) => [r.attempt, r.status, r.result, r.failure_error, r.error_code])).toEqual([
    [2, 503, 'failed', 'AtsUnavailableError', 'SERVICE_UNAVAILABLE'],
    [1, 503, 'retry', 'AtsUnavailableError', 'SERVICE_UNAVAILABLE'],
  ]);
  for (const record of results) {
    expect(record.operation).toBe('submitApplication');
    expect(record.url).not.toMatch(/[?#@]/);
    expect(String(record.url).startsWith(new URL(ats.url).host)).toBe(true);
    expect(record.duration_ms).toBeGreaterThanOrEqual(0);
    expect(Buffer.byteLength(record.response_excerpt)).toBeLessThanOrEqual(1024);
  }
  // The fields sent by name (SmartRecruiters' documented body), never a value.
  expect(submissions[0].fields_sent).toEqual(expect.arrayContaining(['firstName', 'lastName', 'email', 'phoneNumber']));
  expect(submissions[0].fields_sent.join(' ')).not.toContain('Wilhelmina');
  expect(submissions[0].response_excerpt).toContain('SERVICE_UNAVAILABLE');
});

test('what the ATS echoed is stored without the candidate e-mail, phone, names or any credential, in any case or form', async () => {
  const stored = JSON.stringify(await storedLog(applicationId));
  expect(stored.length).toBeGreaterThan(200);
  for (const value of [
    CANDIDATE.email,
    CANDIDATE.email.toLowerCase(),
    CANDIDATE.first_name,
    CANDIDATE.last_name,
    CANDIDATE.phone,
    '491705550123',
    TOKEN,
    'ats-session-token-xyz',
  ])
    expect({ value, stored: stored.toLowerCase().includes(value.toLowerCase()) }).toEqual({ value, stored: false });
  expect(stored).toContain('[redacted]');
});

test("another company's key, or this company's id with another company's application, is a 404; a bad page is a 400", async () => {
  const other = await aCompany(partner.id);
  expect((await deliveries(applicationId, '', other.key, other.id)).status).toBe(404);
  expect((await deliveries(applicationId, '', partner.key, other.id)).status).toBe(404);
  expect((await deliveries(999_999_999)).status).toBe(404);
  expect((await deliveries(applicationId, '', partner.key, companyId)).status).toBe(200);
  const bad = await deliveries(applicationId, '?page_size=0');
  expect(bad.status).toBe(400);
  expect(JSON.stringify(bad.body.errors)).toContain('page_size');
});

test('pages of one follow `next` (with its cursor) through the whole log, newest first, each record once', async () => {
  const whole = (await deliveries(applicationId, '?page_size=50')).body.results as DeliveryRecord[];
  expect(whole.length).toBeGreaterThanOrEqual(2);
  const walked: DeliveryRecord[] = [];
  let url: string | null = `/applications/${applicationId}/deliveries?page_size=1`;
  while (url) {
    const page: { status: number; body: { count: number; next: string | null; results: DeliveryRecord[] } } = await api.get(
      url.replace(/^https?:\/\/[^/]+/, ''),
      { key: partner.key, companyId },
    );
    expect(page.status).toBe(200);
    expect(page.body.count).toBe(whole.length);
    walked.push(...page.body.results);
    url = page.body.next;
  }
  expect(walked).toEqual(whole);
});

test('a sandbox sync writes its log after the outcome, one record of one write unit per ATS call', async () => {
  const company = await aCompany(partner.id);
  await importJobs(company.id, [{ external_id: 'LOG-1', title: 'Engineer' }]);
  const job = (await api.get('/jobs?external_id=LOG-1', { key: company.key, companyId: company.id })).body.results[0].id as number;
  const sync = async (email: string) => {
    const created = await api.request('POST', '/applications/', {
      key: company.key,
      companyId: company.id,
      body: { job, candidate: { email, full_name: 'Ada Lovelace' } },
    });
    expect(created.status).toBe(201);
    expect(await storedLog(created.body.id)).toEqual([]);
    await api.runtime.poller.drain();
    return created.body.id as number;
  };
  const once = await sync('ada.log@example.com');
  const limited = await sync('ada.log+ratelimited@example.com');
  // Each record is one item under 1 KB: one write unit per ATS call (the sync's total is asserted in
  // test/http/change-costs.test.ts: 10 without the log, 11 with its one call).
  for (const id of [once, limited]) for (const item of await storedLog(id)) expect(itemBytes(item)).toBeLessThanOrEqual(1024);
  expect((await storedLog(once)).length).toBe(1);
  // Kept DELIVERY_LOG_DAYS (30 by default) through the table's TTL attribute, which DynamoDB has enabled.
  const [onceItem] = await storedLog(once);
  expect(Math.abs(Number(onceItem.expires_at) - (Date.now() / 1000 + 30 * 86_400))).toBeLessThan(600);
  const ttl = await dynamoClient().send(new DescribeTimeToLiveCommand({ TableName: config().tableName }));
  expect(ttl.TimeToLiveDescription).toMatchObject({ AttributeName: 'expires_at', TimeToLiveStatus: 'ENABLED' });
  const limitedLog = (await deliveries(limited, '', company.key, company.id)).body.results as DeliveryRecord[];
  expect(limitedLog.map((r) => [r.attempt, r.method, r.status, r.result, r.failure_error, r.error_code])).toEqual([
    [2, 'POST', 201, 'accepted', null, null],
    [1, 'POST', 429, 'retry', 'RateLimitedError', 'rate_limited'],
  ]);
  expect(limitedLog[0].fields_sent).toEqual(expect.arrayContaining(['candidate', 'candidate.email', 'candidate.full_name']));
  expect((await storedLog(limited)).length).toBe(2);
  for (const item of [...(await storedLog(limited)), ...(await storedLog(once))])
    expect(JSON.stringify(item)).not.toMatch(/ada\.log|Lovelace/i);
});

test('an attempt that fails before any ATS call is one `prepare` record per attempt: a file that cannot be read (P325)', async () => {
  const cv = { type: 'cv', name: 'cv.pdf', content_type: 'application/pdf', data: Buffer.from('%PDF-1.5 cv').toString('base64') };
  const { company, id } = await sandboxApplication({ email: 'ada.prep@example.com', full_name: 'Ada Prepared' }, [cv]);
  // The stored file is gone before the worker runs: the sandbox reads it before its (simulated) call.
  const stored = await getApplicationRecord(id);
  await s3().send(new DeleteObjectCommand({ Bucket: config().bucketName, Key: stored!.attachments![0].key }));
  await api.runtime.poller.drain();
  const application = (await api.get(`/applications/${id}`, { key: company.key, companyId: company.id })).body;
  expect(application).toMatchObject({ sync_status: 'FAILURE', failure_error: 'SyncError' });
  const log = (await deliveries(id, '', company.key, company.id)).body.results as DeliveryRecord[];
  expect(log.map((r) => [r.attempt, r.operation, r.method, r.url, r.status, r.result, r.failure_error, r.fields_sent])).toEqual([
    [2, 'prepare', null, null, null, 'failed', 'SyncError', []],
    [1, 'prepare', null, null, null, 'retry', 'SyncError', []],
  ]);
  // One item (one write unit) per attempt, nothing personal in it.
  const items = await storedLog(id);
  expect(items).toHaveLength(2);
  for (const item of items) expect(JSON.stringify(item)).not.toMatch(/ada\.prep|Prepared/i);
});

test('credentials that are gone fail the attempt before any ATS call: the log shows it never reached the ATS (P325)', async () => {
  const company = await createCompany({
    partner: partner.id,
    name: 'No Keys GmbH',
    ats: 'smartrecruiters',
    entitlements: ['candidate_sync'],
  });
  await importJobs(company.id, [{ external_id: UUID, title: 'Echo Engineer', status: 'active' }]);
  await connectCompany(company.id, 'smartrecruiters', { company_identifier: 'echo', api_key: TOKEN });
  await deleteCredentials(company.id);
  const job = (await api.get(`/jobs?external_id=${UUID}`, { key: partner.key, companyId: company.id })).body.results[0].id as number;
  const before = ats.requests.length;
  const created = await api.request('POST', '/applications/', {
    key: partner.key,
    companyId: company.id,
    body: { job, candidate: CANDIDATE },
  });
  expect(created.status).toBe(201);
  // DELIVERY_LOG_DAYS sets how long the records are kept (read when they are written).
  process.env.DELIVERY_LOG_DAYS = '7';
  try {
    await api.runtime.poller.drain();
  } finally {
    delete process.env.DELIVERY_LOG_DAYS;
  }
  const [item] = await storedLog(created.body.id);
  expect(Math.abs(Number(item.expires_at) - (Date.now() / 1000 + 7 * 86_400))).toBeLessThan(600);
  expect(ats.requests.length).toBe(before);
  const application = (await api.get(`/applications/${created.body.id}`, { key: partner.key, companyId: company.id })).body;
  expect(application).toMatchObject({ sync_status: 'FAILURE', failure_error: 'CredentialsRejectedError' });
  const log = (await deliveries(created.body.id, '', partner.key, company.id)).body;
  expect(log.count).toBe(1);
  expect(log.results[0]).toMatchObject({
    attempt: 1,
    operation: 'prepare',
    method: null,
    url: null,
    status: null,
    result: 'failed',
    failure_error: 'CredentialsRejectedError',
    error_code: null,
    response_excerpt: 'No credentials are stored for smartrecruiters.',
    fields_sent: [],
  });
  // Another company's key still gets a 404 for it.
  expect((await deliveries(created.body.id, '', partner.key, companyId)).status).toBe(404);
});

test('a log write that fails never fails the sync: the application is delivered, the records are counted as not written', async () => {
  const { company, id } = await sandboxApplication({ email: 'ada.nolog@example.com', full_name: 'Ada Unlogged' });
  // DynamoDB refuses the log's BatchWrite (and only it): every other write of the sync goes through.
  let refused = 0;
  dynamoClient().middlewareStack.add(
    (next, context) => async (args) => {
      const input = JSON.stringify((args as { input: unknown }).input);
      if (context.commandName !== 'BatchWriteItemCommand' || !input.includes('"DELIVERY#')) return next(args);
      refused += 1;
      throw Object.assign(new Error('Throughput exceeds the current capacity of your table'), {
        name: 'ProvisionedThroughputExceededException',
      });
    },
    { step: 'initialize', name: 'refuseDeliveryLog' },
  );
  const written: string[] = [];
  const original = process.stdout.write.bind(process.stdout);
  process.env.POWERTOOLS_METRICS_NAMESPACE = 'HiringIntegrationService/test';
  delete process.env.POWERTOOLS_METRICS_DISABLED;
  process.stdout.write = ((chunk: string | Uint8Array) => (written.push(String(chunk)), true)) as typeof process.stdout.write;
  let received: number;
  try {
    received = await api.runtime.poller.drain();
  } finally {
    process.stdout.write = original;
    delete process.env.POWERTOOLS_METRICS_NAMESPACE;
    dynamoClient().middlewareStack.remove('refuseDeliveryLog');
  }
  // One message, handled once: the attempt did not fail (a failed one would have come back).
  expect(received).toBe(1);
  expect(refused).toBe(1);
  const application = (await api.get(`/applications/${id}`, { key: company.key, companyId: company.id })).body;
  expect(application).toMatchObject({ sync_status: 'SUCCESS', failure_error: null });
  expect(await storedLog(id)).toEqual([]);
  const emf = written.filter((line) => line.includes('DeliveryLogWriteFailures')).map((line) => JSON.parse(line));
  expect(emf).toHaveLength(1);
  expect(emf[0].DeliveryLogWriteFailures).toBe(1);
  // The warning names the application, never the records or the candidate.
  expect(written.join('')).not.toMatch(/ada\.nolog|Unlogged/i);
});

test('an anonymized application has no log: retention deletes it with the personal data (D10)', async () => {
  expect((await storedLog(applicationId)).length).toBeGreaterThan(0);
  advanceClock(200 * 86_400_000);
  try {
    // Read as anonymized past 180 days, even before retention ran.
    expect((await deliveries(applicationId)).body).toMatchObject({ count: 0, results: [] });
    const run = (await api.runtime.scheduler.run('Retention')) as { purged: number };
    expect(run.purged).toBeGreaterThanOrEqual(1);
  } finally {
    resetClock();
  }
  expect(await storedLog(applicationId)).toEqual([]);
  expect((await deliveries(applicationId)).body).toMatchObject({ count: 0, results: [] });
});

test('`hiring-admin applications deliveries ID --follow` prints each call as it is made, then the whole log once the sync ends', async () => {
  const job = (await api.get(`/jobs?external_id=${UUID}`, { key: partner.key, companyId })).body.results[0].id as number;
  const created = await api.request('POST', '/applications/', { key: partner.key, companyId, body: { job, candidate: CANDIDATE } });
  expect(created.status).toBe(201);
  const id = created.body.id as number;
  // The operator follows before the worker has run: nothing is logged yet, the status is NOTSENT.
  const following = adminCli(['applications', 'deliveries', String(id), '--follow', '--timeout', '120'], api.runtime.dataDir);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await api.runtime.poller.drain();
  const followed = await following;
  expect(followed.code).toBe(0);
  expect(followed.json).toMatchObject({ application: id, sync_status: 'FAILURE', failure_error: 'AtsUnavailableError' });
  const streamed = followed.stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as DeliveryRecord);
  // Every call once, oldest first on stderr; the document holds the same calls, newest first, as the API does.
  expect(streamed.length).toBeGreaterThanOrEqual(2);
  expect(streamed).toEqual([...followed.json.deliveries].reverse());
  expect(streamed.filter((r) => r.method === 'POST').map((r) => [r.attempt, r.result])).toEqual([
    [1, 'retry'],
    [2, 'failed'],
  ]);
  expect(followed.stderr.toLowerCase()).not.toContain(CANDIDATE.email.toLowerCase());
  const apiLog = (await deliveries(id, '?page_size=50')).body.results;
  expect(followed.json.deliveries).toEqual(apiLog);
});
