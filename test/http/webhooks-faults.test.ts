/**
 * Crash point `webhook.after-post` (issue 12): the partner's endpoint answered, the attempt has not been
 * recorded, and the invocation dies (a SimulatedCrash, which the local queue poller treats like Lambda
 * treats a crashed function: nothing deleted, the batch comes back after its visibility timeout). The
 * partner then sees the same event again under the same `webhook-id` (so it can deduplicate), and the
 * attempt history holds only what was recorded: the redelivery, as receive 2.
 */
import { SetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { config, sqs } from '#platform/clients.js';
import { armCrashPoint, disarmCrashPoints, pendingCrashes } from '#platform/faults.js';
import { importJobs } from '#jobs/job-store.js';
import { createWebhookEndpoint, getWebhookEndpoint, listWebhookAttempts } from '#delivery/webhook-endpoints.js';
import { aCompany, aPartner } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { startWebhookReceiver, type WebhookReceiver } from '../simulators/webhook-receiver.js';

process.env.WEBHOOK_ALLOW_LOOPBACK_HTTP = 'true';
process.env.WEBHOOK_RETRY_BASE_SECONDS = '1';
process.env.SYNC_RETRY_BASE_SECONDS = '0';

/** The local webhook queue's visibility timeout in this file, so a crashed invocation's messages come back soon. */
const VISIBILITY_SECONDS = 2;

let api: TestRuntime;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  api = await startTestRuntime();
  await sqs().send(
    new SetQueueAttributesCommand({ QueueUrl: config().webhookQueueUrl, Attributes: { VisibilityTimeout: String(VISIBILITY_SECONDS) } }),
  );
});
afterAll(async () => {
  disarmCrashPoints();
  await Promise.all(receivers.map((r) => r.stop()));
  await api.stop();
});

async function setup(respond: (n: number) => number) {
  const partner = await aPartner();
  const company = await aCompany(partner.id, { entitlements: ['candidate_sync'] });
  await importJobs(company.id, [{ external_id: `F-${company.id}`, title: 'Fault job' }]);
  const job = (await api.get(`/jobs?external_id=F-${company.id}`, { key: partner.key, companyId: company.id })).body.results[0]
    .id as number;
  await api.runtime.relay.drain();
  await api.runtime.webhookPoller.drain();
  const receiver = await startWebhookReceiver();
  receivers.push(receiver);
  receiver.respond = respond;
  const endpoint = await createWebhookEndpoint({ partner: partner.id, url: receiver.url, events: ['application.created'] });
  receiver.secret = endpoint.secret;
  const res = await api.request('POST', '/applications/', {
    key: partner.key,
    companyId: company.id,
    body: { job, candidate: { email: 'crash@example.com', full_name: 'Crash Test' } },
  });
  expect(res.status).toBe(201);
  await api.runtime.poller.drain();
  await api.runtime.relay.drain();
  return { receiver, endpoint, applicationId: res.body.id as number };
}

test('a crash after the POST: the receiver gets the same webhook-id again, and the history records the redelivery only', async () => {
  const { receiver, endpoint, applicationId } = await setup(() => 200);
  armCrashPoint('webhook.after-post');
  await api.runtime.webhookPoller.runOnce(); // the event is fanned out
  await api.runtime.webhookPoller.runOnce(); // the delivery: POSTed, then the invocation dies
  expect(pendingCrashes('webhook.after-post')).toBe(0);
  expect(receiver.deliveries).toHaveLength(1);
  expect(await listWebhookAttempts(endpoint.id)).toEqual([]);

  // Nothing comes back before the visibility timeout; then the message is delivered again.
  expect(await api.runtime.webhookPoller.runOnce()).toBe(0);
  await api.runtime.webhookPoller.drain();
  expect(receiver.deliveries).toHaveLength(2);
  const [first, second] = receiver.deliveries;
  expect(second.id).toBe(first.id);
  expect(second.body).toBe(first.body);
  expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual((VISIBILITY_SECONDS - 0.5) * 1000);
  expect(receiver.deliveries.every((d) => d.verified)).toBe(true);
  expect(first.event).toMatchObject({ type: 'application.created', data: { application_id: applicationId } });

  expect(await listWebhookAttempts(endpoint.id)).toEqual([
    {
      at: expect.any(String),
      event_id: first.id,
      event_type: 'application.created',
      attempt: 2,
      status_code: 200,
      latency_ms: expect.any(Number),
      error: null,
    },
  ]);
  expect(await getWebhookEndpoint(endpoint.id)).toMatchObject({ status: 'enabled', failing_since: null });
});

test('a crash after a failed POST: the failure is not recorded, the redelivery is, and the endpoint ends healthy', async () => {
  const { receiver, endpoint } = await setup((n) => (n === 1 ? 500 : 200));
  armCrashPoint('webhook.after-post');
  await api.runtime.webhookPoller.runOnce();
  await api.runtime.webhookPoller.runOnce();
  expect(receiver.deliveries.map((d) => d.status)).toEqual([500]);
  // The crash skipped the failure's bookkeeping: no attempt, no failing run started.
  expect(await listWebhookAttempts(endpoint.id)).toEqual([]);
  expect(await getWebhookEndpoint(endpoint.id)).toMatchObject({ failing_since: null });

  await api.runtime.webhookPoller.drain();
  expect(receiver.deliveries.map((d) => d.status)).toEqual([500, 200]);
  expect(new Set(receiver.deliveries.map((d) => d.id)).size).toBe(1);
  const attempts = await listWebhookAttempts(endpoint.id);
  expect(attempts.map((a) => [a.attempt, a.status_code, a.error])).toEqual([[2, 200, null]]);
  expect(await getWebhookEndpoint(endpoint.id)).toMatchObject({ status: 'enabled', failing_since: null });
});
