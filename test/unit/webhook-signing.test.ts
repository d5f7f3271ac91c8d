/**
 * The pure parts of webhook delivery (D19): the retry schedule against the webhook queue's settings, the
 * Standard Webhooks headers as a partner's verifier sees them, and what of a queue message becomes a payload.
 */
import { Webhook } from 'standardwebhooks';
import { resources } from '#platform/resources.js';
import { MAX_RETRY_DELAY_SECONDS, parseEvent, signedHeaders, webhookRetryDelaySeconds } from '#delivery/webhooks.js';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const event = {
  id: 'f2d1c0de-0000-4000-8000-000000000001',
  type: 'application.created',
  occurred_at: '2026-11-22T10:00:00.000Z',
  company: 3,
  data: { application_id: 9 },
};

describe('retry schedule', () => {
  const base = process.env.WEBHOOK_RETRY_BASE_SECONDS;
  afterEach(() => (base === undefined ? delete process.env.WEBHOOK_RETRY_BASE_SECONDS : (process.env.WEBHOOK_RETRY_BASE_SECONDS = base)));

  test('with the default base the attempts before the DLQ span more than 24 hours, no wait above 11 hours (SQS: 12 from receipt)', () => {
    delete process.env.WEBHOOK_RETRY_BASE_SECONDS;
    const waits = Array.from({ length: resources.webhookQueue.maxReceiveCount - 1 }, (_, i) => webhookRetryDelaySeconds(i + 1));
    expect(waits.slice(0, 4)).toEqual([60, 120, 240, 480]);
    expect(waits.every((w, i) => i === 0 || w >= waits[i - 1])).toBe(true);
    expect(Math.max(...waits)).toBe(MAX_RETRY_DELAY_SECONDS);
    expect(MAX_RETRY_DELAY_SECONDS).toBeLessThanOrEqual(11 * 3600);
    expect(waits.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(24 * 3600);
    // The DLQ move comes with the receive after the last wait: the whole schedule fits the queue's retention.
    expect(waits.reduce((a, b) => a + b, 0) + MAX_RETRY_DELAY_SECONDS).toBeLessThan(resources.webhookDeadLetterQueue.retentionSeconds);
  });

  test('the base scales the schedule (local runs and tests see retries within seconds)', () => {
    process.env.WEBHOOK_RETRY_BASE_SECONDS = '2';
    expect([1, 2, 3].map(webhookRetryDelaySeconds)).toEqual([2, 4, 8]);
  });
});

describe('signing', () => {
  test("the headers verify with the partner's library, and a changed body, id or timestamp does not", () => {
    const body = JSON.stringify(event);
    const at = new Date();
    const headers = signedHeaders(SECRET, event, body, at);
    expect(headers['webhook-id']).toBe(event.id);
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(at.getTime() / 1000)));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    const wh = new Webhook(SECRET);
    expect(wh.verify(body, headers)).toEqual(event);
    expect(() => wh.verify(body.replace('"company":3', '"company":4'), headers)).toThrow();
    expect(() => wh.verify(body, { ...headers, 'webhook-id': 'other' })).toThrow();
    expect(() => wh.verify(body, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) })).toThrow();
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 8).toString('base64')}`).verify(body, headers)).toThrow();
  });
});

describe('payload', () => {
  test('only the envelope fields of an event are kept, from a raw message or an SNS notification', () => {
    const noisy = { ...event, sequence: 4, candidate: { email: 'ada@example.com' }, data: { ...event.data, nested: { email: 'x@y.z' } } };
    const expected = { ...event, sequence: 4 };
    expect(parseEvent(noisy)).toEqual(expected);
    expect(parseEvent({ Type: 'Notification', Message: JSON.stringify(noisy) })).toEqual(expected);
    expect(parseEvent({ ...event, company: '3' })).toBeUndefined();
    expect(parseEvent({ kind: 'webhook-delivery' })).toBeUndefined();
    expect(parseEvent(null)).toBeUndefined();
  });
});
