/**
 * Webhook delivery over real TLS (P132, P170): an HTTPS receiver on loopback with a certificate of a test CA
 * (test/simulators/test-certificates.ts) that the worker trusts through the test-only `WEBHOOK_EXTRA_CA_FILE`.
 * The certificate names only `localhost` (no IP address): a delivery succeeds only when the socket goes to the
 * checked address while TLS verifies the certificate against the URL's host name. A certificate for another
 * name, or an IP URL the certificate does not name, or a CA the worker does not trust, is refused and recorded
 * as the attempt's error.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { resolveChecked } from '#platform/addresses.js';
import { importJobs } from '#jobs/job-store.js';
import { aCompany, aPartner } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { LOCALHOST_CERT, LOCALHOST_KEY, TEST_CA_CERT, WRONG_HOST_CERT, WRONG_HOST_KEY } from '../simulators/test-certificates.js';
import { startWebhookReceiver, type WebhookReceiver } from '../simulators/webhook-receiver.js';
import { bareEnv, runAdminTool } from '../helpers/admin-cli.js';

// Loopback receivers are allowed (the address check would refuse 127.0.0.1 otherwise); the scheme stays https.
process.env.WEBHOOK_ALLOW_LOOPBACK_HTTP = 'true';
process.env.WEBHOOK_RETRY_BASE_SECONDS = '1';
process.env.SYNC_RETRY_BASE_SECONDS = '0';
const caFile = join(mkdtempSync(join(tmpdir(), 'his-test-ca-')), 'ca.pem');
writeFileSync(caFile, TEST_CA_CERT);
process.env.WEBHOOK_EXTRA_CA_FILE = caFile;

let api: TestRuntime;
const receivers: WebhookReceiver[] = [];

function cli(args: string[]): Promise<{ code: number; json: any }> {
  const env = { ...bareEnv(api.runtime.dataDir), WEBHOOK_ALLOW_LOOPBACK_HTTP: 'true' };
  return runAdminTool(args, env).then(({ code, json, stdout, stderr }) => ({ code, json: json ?? { stdout, stderr } }));
}

async function httpsReceiver(tls: { key: string; cert: string }): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver('/hook', tls);
  receivers.push(r);
  return r;
}

async function register(partner: number, url: string, r: WebhookReceiver): Promise<number> {
  const out = await cli(['webhook', 'create', '--partner', String(partner), '--url', url, '--events', 'application.created']);
  expect(out.code).toBe(0);
  r.secret = out.json.secret;
  return out.json.id as number;
}

async function tenant() {
  const partner = await aPartner();
  const company = await aCompany(partner.id, { entitlements: ['candidate_sync'] });
  await importJobs(company.id, [{ external_id: `TLS-${company.id}`, title: 'TLS job' }]);
  const job = (await api.get(`/jobs?external_id=TLS-${company.id}`, { key: partner.key, companyId: company.id })).body.results[0]
    .id as number;
  await api.runtime.relay.drain();
  await api.runtime.webhookPoller.drain();
  return { partner, company, job };
}

async function apply(t: Awaited<ReturnType<typeof tenant>>): Promise<number> {
  const res = await api.request('POST', '/applications/', {
    key: t.partner.key,
    companyId: t.company.id,
    body: { job: t.job, candidate: { email: 'tls@example.com', full_name: 'Grace Hopper' } },
  });
  expect(res.status).toBe(201);
  return res.body.id as number;
}

/** Runs the relay and the webhook worker until `webhookId` has `n` recorded attempts (failures keep retrying). */
async function attempts(webhookId: number, n: number): Promise<any[]> {
  await api.runtime.relay.drain();
  const deadline = Date.now() + 30_000;
  for (;;) {
    const history = await cli(['webhook', 'deliveries', String(webhookId)]);
    expect(history.code).toBe(0);
    if (history.json.results.length >= n || Date.now() > deadline) return history.json.results as any[];
    await api.runtime.webhookPoller.runOnce();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Deletes the endpoint (its queued retries are dropped) and empties the webhook queue. */
async function retire(webhookId: number): Promise<void> {
  expect((await cli(['webhook', 'delete', String(webhookId)])).code).toBe(0);
  await api.runtime.webhookPoller.drain();
}

beforeAll(async () => {
  api = await startTestRuntime();
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.stop()));
  await api.stop();
  rmSync(dirname(caFile), { recursive: true, force: true });
});

test('an https receiver gets the signed delivery: the socket goes to the checked address, the certificate is verified for the host name', async () => {
  const t = await tenant();
  const r = await httpsReceiver({ key: LOCALHOST_KEY, cert: LOCALHOST_CERT });
  expect(r.url).toMatch(/^https:\/\/localhost:\d+\/hook$/);
  const webhookId = await register(t.partner.id, r.url, r);
  const applicationId = await apply(t);
  const [attempt] = await attempts(webhookId, 1);
  expect(attempt).toMatchObject({ event_type: 'application.created', status_code: 200, error: null });

  expect(r.deliveries).toHaveLength(1);
  const [delivery] = r.deliveries;
  expect(delivery.verified).toBe(true);
  expect(delivery.event).toMatchObject({ type: 'application.created', data: { application_id: applicationId } });
  // TLS was asked for the URL's name (SNI), and that name is the certificate's only one: it was verified against it.
  expect(delivery.servername).toBe('localhost');
  // The socket went to an address the SSRF check resolved and passed, not to a name resolved again elsewhere.
  const checked = (await resolveChecked('localhost', { allowLoopback: true })).map((a) => a.address);
  expect(checked).toContain(delivery.localAddress!.replace(/^::ffff:/, ''));
  await retire(webhookId);
});

test('a certificate for another host name is refused and recorded as the attempt error; nothing reaches the receiver', async () => {
  const t = await tenant();
  const r = await httpsReceiver({ key: WRONG_HOST_KEY, cert: WRONG_HOST_CERT });
  const webhookId = await register(t.partner.id, r.url, r);
  await apply(t);
  const [attempt] = await attempts(webhookId, 1);
  expect(attempt).toMatchObject({
    event_type: 'application.created',
    attempt: 1,
    status_code: null,
    error: 'ERR_TLS_CERT_ALTNAME_INVALID',
  });
  expect(r.deliveries).toHaveLength(0);
  // The failure starts the endpoint's failing run, like any other failed attempt (P131).
  const listed = await cli(['webhook', 'list', '--partner', String(t.partner.id)]);
  expect(listed.json.results[0]).toMatchObject({ id: webhookId, status: 'enabled', failing_since: attempt.at });
  await retire(webhookId);
});

test('the host name is what is verified: the same certificate at https://127.0.0.1 is refused (it names no address)', async () => {
  const t = await tenant();
  const r = await httpsReceiver({ key: LOCALHOST_KEY, cert: LOCALHOST_CERT });
  const webhookId = await register(t.partner.id, r.url.replace('//localhost:', '//127.0.0.1:'), r);
  await apply(t);
  const [attempt] = await attempts(webhookId, 1);
  expect(attempt).toMatchObject({ status_code: null, error: 'ERR_TLS_CERT_ALTNAME_INVALID' });
  expect(r.deliveries).toHaveLength(0);
  await retire(webhookId);
});

test('without WEBHOOK_EXTRA_CA_FILE the test CA is not trusted: the attempt fails on the certificate chain', async () => {
  delete process.env.WEBHOOK_EXTRA_CA_FILE;
  try {
    const t = await tenant();
    const r = await httpsReceiver({ key: LOCALHOST_KEY, cert: LOCALHOST_CERT });
    const webhookId = await register(t.partner.id, r.url, r);
    await apply(t);
    const [attempt] = await attempts(webhookId, 1);
    expect(attempt).toMatchObject({ status_code: null, error: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    expect(r.deliveries).toHaveLength(0);
    await retire(webhookId);
  } finally {
    process.env.WEBHOOK_EXTRA_CA_FILE = caFile;
  }
});
