/**
 * Partner webhooks (D19) through the real path: endpoints registered with the admin tool (the bin shim in a
 * child process, against this file's runtime), events from the service's own writes going over the events
 * topic into the webhook queue, the webhook worker fed by the local queue poller, and loopback receivers
 * that verify each delivery's signature with the `standardwebhooks` library as a partner would.
 */
import { advanceClock, resetClock } from '#platform/clock.js';
import { importJobs } from '#jobs/job-store.js';
import { aCompany, aPartner } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { startWebhookReceiver, type WebhookReceiver } from '../simulators/webhook-receiver.js';
import { bareEnv, runAdminTool } from '../helpers/admin-cli.js';

process.env.WEBHOOK_ALLOW_LOOPBACK_HTTP = 'true';
process.env.WEBHOOK_RETRY_BASE_SECONDS = '1';
process.env.SYNC_RETRY_BASE_SECONDS = '0';

let api: TestRuntime;
const receivers: WebhookReceiver[] = [];

interface CliResult {
  code: number;
  json: any;
}

function cli(args: string[], options: { allowLoopback?: boolean } = {}): Promise<CliResult> {
  const env = { ...bareEnv(api.runtime.dataDir), ...(options.allowLoopback === false ? {} : { WEBHOOK_ALLOW_LOOPBACK_HTTP: 'true' }) };
  return runAdminTool(args, env).then(({ code, json, stdout, stderr }) => ({ code, json: json ?? { stdout, stderr } }));
}

async function receiver(): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver();
  receivers.push(r);
  return r;
}

/** Registers `r` for `partner` with the admin tool; the receiver learns the secret it printed. */
async function register(partner: number, r: WebhookReceiver, events?: string): Promise<number> {
  const out = await cli(['webhook', 'create', '--partner', String(partner), '--url', r.url, ...(events ? ['--events', events] : [])]);
  expect(out.code).toBe(0);
  expect(out.json.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  r.secret = out.json.secret;
  return out.json.id as number;
}

/** A partner with a sandbox company (candidate sync) and one imported job; its job events already drained. */
async function tenant() {
  const partner = await aPartner();
  const company = await aCompany(partner.id, { entitlements: ['candidate_sync'] });
  await importJobs(company.id, [{ external_id: `W-${company.id}`, title: 'Webhook job' }]);
  const job = (await api.get(`/jobs?external_id=W-${company.id}`, { key: partner.key, companyId: company.id })).body.results[0]
    .id as number;
  await settle();
  return { partner, company, job };
}

async function apply(t: Awaited<ReturnType<typeof tenant>>, email = 'ada@example.com'): Promise<number> {
  const res = await api.request('POST', '/applications/', {
    key: t.partner.key,
    companyId: t.company.id,
    body: { job: t.job, candidate: { email, full_name: 'Ada Lovelace', phone: '+44 20 7946 0000' } },
  });
  expect(res.status).toBe(201);
  return res.body.id as number;
}

/** Runs sync and webhook work until both queues are empty (retries included). */
async function settle(maxWaitMs = 30_000): Promise<void> {
  await api.runtime.poller.drain(maxWaitMs);
  // Events reach the topic through the relay (P115, P240); a disabled endpoint's event takes a second round.
  for (let round = 0; round < 2; round++) {
    await api.runtime.relay.drain();
    await api.runtime.webhookPoller.drain(maxWaitMs);
  }
}

beforeAll(async () => {
  api = await startTestRuntime();
});
afterAll(async () => {
  resetClock();
  await Promise.all(receivers.map((r) => r.stop()));
  await api.stop();
});

const ENVELOPE_KEYS = ['company', 'data', 'id', 'occurred_at', 'type'];

test('an application is created and synced: application.created and application.sync_status_changed arrive signed, ids and statuses only', async () => {
  const t = await tenant();
  const r = await receiver();
  const webhookId = await register(t.partner.id, r);
  const listed = await cli(['webhook', 'list', '--partner', String(t.partner.id)]);
  expect(listed.code).toBe(0);
  expect(listed.json.results).toEqual([
    expect.objectContaining({ id: webhookId, partner: t.partner.id, url: r.url, events: null, status: 'enabled', failing_since: null }),
  ]);
  // The secret is printed once: never listed, in the clear or sealed.
  expect(JSON.stringify(listed.json)).not.toMatch(/whsec_|sealed/);

  const applicationId = await apply(t);
  await settle();
  const types = r.deliveries.map((d) => d.event.type);
  expect(types.sort()).toEqual(['application.created', 'application.sync_status_changed']);
  for (const d of r.deliveries) {
    expect(d.verified).toBe(true);
    expect(d.status).toBe(200);
    expect(d.id).toBe(d.event.id);
    expect(d.signature).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);
    expect(Math.abs(d.timestamp - Date.now() / 1000)).toBeLessThan(60);
    expect(
      Object.keys(d.event)
        .filter((k) => k !== 'sequence')
        .sort(),
    ).toEqual(ENVELOPE_KEYS);
    expect(d.event).toMatchObject({ company: t.company.id, data: expect.objectContaining({ application_id: applicationId }) });
    // No personal data: the candidate's name, e-mail and phone are nowhere in the payload.
    expect(d.body).not.toMatch(/Ada|Lovelace|ada@example\.com|7946/);
  }
  expect(r.deliveries.find((d) => d.event.type === 'application.sync_status_changed')!.event.data).toMatchObject({
    sync_status: 'SUCCESS',
    previous_sync_status: 'NOTSENT',
  });

  const history = await cli(['webhook', 'deliveries', String(webhookId)]);
  expect(history.code).toBe(0);
  expect(history.json.results).toHaveLength(2);
  for (const attempt of history.json.results)
    expect(attempt).toEqual({
      at: expect.any(String),
      event_id: expect.any(String),
      event_type: expect.stringMatching(/^application\./),
      attempt: 1,
      status_code: 200,
      latency_ms: expect.any(Number),
      error: null,
    });
});

test("tenancy: a partner's endpoint receives only its own companies' events", async () => {
  const a = await tenant();
  const b = await tenant();
  const ra = await receiver();
  const rb = await receiver();
  await register(a.partner.id, ra);
  await register(b.partner.id, rb);
  const fromA = await apply(a, 'a@example.com');
  const fromB = await apply(b, 'b@example.com');
  await settle();
  expect(ra.deliveries.length).toBe(2);
  expect(rb.deliveries.length).toBe(2);
  expect(ra.deliveries.every((d) => d.event.company === a.company.id && d.event.data.application_id === fromA)).toBe(true);
  expect(rb.deliveries.every((d) => d.event.company === b.company.id && d.event.data.application_id === fromB)).toBe(true);
});

test("the admin tool lists every partner's endpoints whole, and one partner's alone", async () => {
  const a = await aPartner();
  const b = await aPartner();
  const r = await receiver();
  const ids = [await register(a.id, r), await register(b.id, r)];
  // Without --partner the list walks COLLECTION's keys and reads each endpoint by key (COLLECTION holds keys only, P234).
  const all = await cli(['webhook', 'list']);
  expect(all.code).toBe(0);
  const listed = (all.json.results as { id: number; partner: number; url: string; status: string }[]).filter((e) => ids.includes(e.id));
  expect(listed.map(({ id, partner, url, status }) => ({ id, partner, url, status }))).toEqual([
    { id: ids[0], partner: a.id, url: r.url, status: 'enabled' },
    { id: ids[1], partner: b.id, url: r.url, status: 'enabled' },
  ]);
  const own = await cli(['webhook', 'list', '--partner', String(b.id)]);
  expect((own.json.results as { id: number }[]).map((e) => e.id)).toEqual([ids[1]]);
});

test('an event type filter delivers only the types asked for', async () => {
  const t = await tenant();
  const all = await receiver();
  const some = await receiver();
  await register(t.partner.id, all);
  await register(t.partner.id, some, 'application.sync_status_changed,job.archived');
  await apply(t);
  await settle();
  expect(all.deliveries.map((d) => d.event.type).sort()).toEqual(['application.created', 'application.sync_status_changed']);
  expect(some.deliveries.map((d) => d.event.type)).toEqual(['application.sync_status_changed']);
  // The same event carries the same webhook-id to every endpoint it goes to.
  expect(some.deliveries[0].id).toBe(all.deliveries.find((d) => d.event.type === 'application.sync_status_changed')!.id);
});

test('a failing receiver gets retries with growing delays and the same webhook-id, then success; every attempt recorded', async () => {
  const t = await tenant();
  const r = await receiver();
  r.respond = (n) => (n <= 2 ? 503 : 200);
  const webhookId = await register(t.partner.id, r, 'application.created');
  await apply(t);
  await settle(60_000);
  expect(r.deliveries.map((d) => d.status)).toEqual([503, 503, 200]);
  expect(new Set(r.deliveries.map((d) => d.id)).size).toBe(1);
  expect(r.deliveries.every((d) => d.verified)).toBe(true);
  // Base 1 s: the second attempt after ≥ 1 s, the third ≥ 2 s after the second.
  const [first, second, third] = r.deliveries.map((d) => d.receivedAt);
  expect(second - first).toBeGreaterThanOrEqual(900);
  expect(third - second).toBeGreaterThanOrEqual(1900);

  const history = await cli(['webhook', 'deliveries', String(webhookId)]);
  expect(history.json.results.map((a: any) => [a.attempt, a.status_code, a.error])).toEqual([
    [3, 200, null],
    [2, 503, 'HTTP 503'],
    [1, 503, 'HTTP 503'],
  ]);
  expect(history.json.webhook).toMatchObject({ status: 'enabled', failing_since: null });
});

test('bad input is refused by the admin tool with a D2 error naming the field, and nothing is saved', async () => {
  const t = await tenant();
  const r = await receiver();
  const cases: [string[], { allowLoopback?: boolean } | undefined, number, string, string][] = [
    [['--url', 'http://hooks.example.com/x'], undefined, 1, 'url', 'https'],
    [['--url', 'ftp://hooks.example.com/x'], undefined, 1, 'url', 'https'],
    [['--url', 'https://10.1.2.3/x'], undefined, 1, 'url', 'public'],
    [['--url', 'https://169.254.169.254/latest/meta-data'], undefined, 1, 'url', 'public'],
    [['--url', 'https://[::ffff:192.168.0.1]/x'], undefined, 1, 'url', 'public'],
    [['--url', 'https://[fd00::1]/x'], undefined, 1, 'url', 'public'],
    [['--url', r.url], { allowLoopback: false }, 1, 'url', 'https'],
    [['--url', r.url.replace('http:', 'https:')], { allowLoopback: false }, 1, 'url', 'public'],
    [['--url', r.url, '--events', 'application.created,application.deleted'], undefined, 1, 'events', 'application.deleted'],
  ];
  const outs = await Promise.all(
    cases.map(([args, options]) => cli(['webhook', 'create', '--partner', String(t.partner.id), ...args], options)),
  );
  cases.forEach(([args, , code, field, mention], i) => {
    expect([args, outs[i].code]).toEqual([args, code]);
    expect(outs[i].json).toEqual({ detail: expect.any(String), code: 'invalid', errors: { [field]: [expect.stringContaining(mention)] } });
  });
  const unknownPartner = await cli(['webhook', 'create', '--partner', '999999', '--url', r.url]);
  expect(unknownPartner).toEqual({ code: 1, json: { detail: 'Partner 999999 does not exist.', code: 'not_found' } });
  const missing = await cli(['webhook', 'create', '--partner', String(t.partner.id)]);
  expect(missing.code).toBe(2);
  expect(missing.json.errors).toEqual({ '--url': ['This option is required.'] });
  expect((await cli(['webhook', 'delete', '999999'])).json).toEqual({ detail: 'Webhook 999999 does not exist.', code: 'not_found' });
  expect((await cli(['webhook', 'deliveries', '999999'])).json.code).toBe('not_found');
  expect((await cli(['webhook', 'list', '--partner', String(t.partner.id)])).json.results).toEqual([]);
});

test('a deleted endpoint gets nothing more', async () => {
  const t = await tenant();
  const r = await receiver();
  const webhookId = await register(t.partner.id, r);
  expect((await cli(['webhook', 'delete', String(webhookId)])).json).toEqual({ id: webhookId, status: 'deleted' });
  await apply(t);
  await settle();
  expect(r.deliveries).toEqual([]);
  expect((await cli(['webhook', 'list', '--partner', String(t.partner.id)])).json.results).toEqual([]);
});

test('the address is checked again at delivery time: a receiver that is no longer allowed gets nothing, and the refusal is recorded', async () => {
  const t = await tenant();
  const r = await receiver();
  const webhookId = await register(t.partner.id, r, 'application.created');
  await apply(t);
  await api.runtime.poller.drain();
  await api.runtime.relay.drain();
  // Registered while loopback receivers were allowed; the worker (in this process) no longer allows them.
  process.env.WEBHOOK_ALLOW_LOOPBACK_HTTP = 'false';
  try {
    await api.runtime.webhookPoller.runOnce(); // fan-out
    await api.runtime.webhookPoller.runOnce(); // the attempt: refused before connecting
  } finally {
    process.env.WEBHOOK_ALLOW_LOOPBACK_HTTP = 'true';
  }
  expect(r.deliveries).toEqual([]);
  const [attempt] = (await cli(['webhook', 'deliveries', String(webhookId)])).json.results;
  expect(attempt).toMatchObject({ attempt: 1, status_code: null, error: expect.stringMatching(/^refused: .*not a public address/) });
  await settle(); // allowed again: the retry is delivered
  expect(r.deliveries.map((d) => d.status)).toEqual([200]);
});

test('a receiver answering 410 Gone is disabled at once (Standard Webhooks), the partner is told, and nothing is retried', async () => {
  const t = await tenant();
  const gone = await receiver();
  gone.respond = () => 410;
  const healthy = await receiver();
  const goneId = await register(t.partner.id, gone, 'application.created');
  await register(t.partner.id, healthy, 'webhook.endpoint_disabled');
  await apply(t);
  await settle();
  expect(gone.deliveries).toHaveLength(1);
  const [endpoint] = (await cli(['webhook', 'list', '--partner', String(t.partner.id)])).json.results;
  expect(endpoint).toMatchObject({ id: goneId, status: 'disabled', disabled_at: expect.any(String) });
  expect(healthy.deliveries.map((d) => d.event)).toEqual([
    expect.objectContaining({
      type: 'webhook.endpoint_disabled',
      data: { webhook_id: goneId, partner_id: t.partner.id, failing_since: endpoint.failing_since },
    }),
  ]);
  await apply(t, 'after-gone@example.com');
  await settle();
  expect(gone.deliveries).toHaveLength(1);
});

test('an endpoint failing for 5 days is disabled, webhook.endpoint_disabled goes to the partner, and it receives nothing more', async () => {
  const t = await tenant();
  const failing = await receiver();
  failing.respond = () => 500;
  const healthy = await receiver();
  const failingId = await register(t.partner.id, failing, 'application.created');
  await register(t.partner.id, healthy, 'webhook.endpoint_disabled');
  await apply(t);
  // The first attempt fails; the endpoint's failing run starts now.
  await api.runtime.poller.drain();
  await api.runtime.relay.drain();
  await api.runtime.webhookPoller.runOnce(); // the events: fanned out
  await api.runtime.webhookPoller.runOnce(); // the delivery: fails
  expect(failing.deliveries).toHaveLength(1);
  expect((await cli(['webhook', 'list', '--partner', String(t.partner.id)])).json.results[0]).toMatchObject({
    id: failingId,
    status: 'enabled',
    failing_since: expect.any(String),
  });
  // Five days and a minute later the retry fails again: the endpoint is disabled.
  advanceClock(5 * 24 * 3600 * 1000 + 60_000);
  try {
    await settle(60_000);
  } finally {
    resetClock();
  }
  expect(failing.deliveries).toHaveLength(2);
  const [endpoint] = (await cli(['webhook', 'list', '--partner', String(t.partner.id)])).json.results;
  expect(endpoint).toMatchObject({ id: failingId, status: 'disabled', disabled_at: expect.any(String) });
  expect(healthy.deliveries).toHaveLength(1);
  expect(healthy.deliveries[0].signedCorrectly).toBe(true);
  expect(healthy.deliveries[0].event).toMatchObject({
    type: 'webhook.endpoint_disabled',
    company: t.company.id,
    data: { webhook_id: failingId, partner_id: t.partner.id, failing_since: endpoint.failing_since },
  });
  // Disabled: later events are not delivered to it.
  await apply(t, 'later@example.com');
  await settle();
  expect(failing.deliveries).toHaveLength(2);
});
