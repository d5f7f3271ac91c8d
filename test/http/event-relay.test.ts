/**
 * The transactional outbox and its relay (P115–P118): events are outbox items written with their change,
 * hold no personal data, and reach the topic only through the relay, which deletes each item after the
 * publish; the stream handler skips what is not an outbox INSERT and reports its first failure.
 */
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { DynamoDBRecord } from 'aws-lambda';
import { sqs } from '#platform/clients.js';
import { publishEvent } from '#platform/events.js';
import { importJobs } from '#jobs/jobs.js';
import { relayStreamRecords } from '#delivery/event-relay.js';
import { aCompany, aPartner, withJobs } from '../helpers/fixtures.js';
import { allItems } from '../helpers/inspect.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';

const EVENTS_QUEUE = 'relay-events';
let api: TestRuntime;

beforeAll(async () => {
  api = await startTestRuntime();
  api.runtime.emulators.fauxqs.createQueue(EVENTS_QUEUE);
  api.runtime.emulators.fauxqs.subscribe({ topic: 'his-local-events', queue: EVENTS_QUEUE });
});
afterAll(() => api.stop());

const outboxItems = async () => (await allItems()).filter((item) => String(item.PK).startsWith('OUTBOX#'));

async function received(): Promise<Record<string, any>[]> {
  const url = `http://127.0.0.1:${api.runtime.emulators.fauxqs.port}/000000000000/${EVENTS_QUEUE}`;
  const out: Record<string, any>[] = [];
  for (;;) {
    const res = await sqs().send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    if (!res.Messages?.length) return out;
    for (const m of res.Messages) {
      const body = JSON.parse(m.Body!);
      out.push({ ...JSON.parse(body.Message), attributes: body.MessageAttributes });
      await sqs().send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle! }));
    }
  }
}

/** An outbox item as the table's stream delivers its INSERT. */
function insertRecord(item: Record<string, unknown>, sequenceNumber: string): DynamoDBRecord {
  return {
    eventName: 'INSERT',
    dynamodb: {
      SequenceNumber: sequenceNumber,
      Keys: { PK: { S: String(item.PK) }, SK: { S: String(item.SK) } },
      NewImage: { PK: { S: String(item.PK) }, SK: { S: String(item.SK) }, entity: { S: 'outbox' }, event: { S: String(item.event) } },
    },
  };
}

test('a create writes its event into the outbox with no personal data; only the relay publishes it, then deletes the item', async () => {
  await api.runtime.relay.drain();
  await received();
  const partner = await aPartner();
  const company = await aCompany(partner.id, { entitlements: [] });
  await withJobs(company.id, [{ external_id: 'R-1', title: 'Relay job' }]);
  const job = (await api.get('/jobs', { key: partner.key, companyId: company.id })).body.results[0].id;
  const res = await api.request('POST', '/applications/', {
    key: partner.key,
    companyId: company.id,
    body: { job, candidate: { email: 'ada@example.com', full_name: 'Ada Lovelace', phone: '+44 20 7946 0000' }, notes: 'secret note' },
  });
  expect(res.status).toBe(201);
  // Committed with the application; nothing on the topic before the relay runs.
  const items = await outboxItems();
  const mine = items.filter((i) => JSON.parse(String(i.event)).data.application_id === res.body.id);
  expect(mine).toHaveLength(1);
  expect(Object.keys(mine[0]).sort()).toEqual(['PK', 'SK', 'entity', 'event']);
  expect(JSON.stringify(items)).not.toMatch(/ada@example|Lovelace|7946|secret note/);
  expect(await received()).toEqual([]);

  expect(await api.runtime.relay.drain()).toBeGreaterThanOrEqual(1);
  const events = (await received()).filter((e) => e.company === company.id && e.type === 'application.created');
  expect(events).toEqual([
    {
      id: JSON.parse(String(mine[0].event)).id,
      type: 'application.created',
      occurred_at: expect.any(String),
      company: company.id,
      sequence: 1,
      data: { application_id: res.body.id, job_id: job, sync_status: 'NOTSENT', email_sync_status: 'NOTSENT' },
      attributes: { type: { Type: 'String', Value: 'application.created' }, company: { Type: 'Number', Value: String(company.id) } },
    },
  ]);
  expect(await outboxItems()).toEqual([]);
});

test('the stream handler relays outbox INSERTs in order, skips other records, and stops at its first failure', async () => {
  await api.runtime.relay.drain();
  await received();
  const first = await publishEvent('job.updated', 77, { job_id: 1, external_id: 'A', status: 'active', run_id: 'r' });
  const second = await publishEvent('job.updated', 77, { job_id: 2, external_id: 'B', status: 'active', run_id: 'r' });
  const [a, b] = (await outboxItems()).sort((x, y) => (String(x.SK) < String(y.SK) ? -1 : 1));
  const other: DynamoDBRecord = {
    eventName: 'INSERT',
    dynamodb: {
      SequenceNumber: '1',
      Keys: { PK: { S: 'APPLICATION#1' } },
      NewImage: { PK: { S: 'APPLICATION#1' }, SK: { S: 'APPLICATION' } },
    },
  };
  const removal: DynamoDBRecord = { ...insertRecord(a, '2'), eventName: 'REMOVE' };

  // The topic is unreachable: the first outbox record fails, is reported, and the one after it is not tried.
  const topic = process.env.EVENTS_TOPIC_ARN;
  delete process.env.EVENTS_TOPIC_ARN;
  try {
    expect(await relayStreamRecords([other, removal, insertRecord(a, '3'), insertRecord(b, '4')])).toEqual({
      batchItemFailures: [{ itemIdentifier: '3' }],
    });
  } finally {
    process.env.EVENTS_TOPIC_ARN = topic;
  }
  expect(await outboxItems()).toHaveLength(2);
  expect(await received()).toEqual([]);

  // The retry from the failed record publishes both, in order, and deletes their items.
  expect(await relayStreamRecords([insertRecord(a, '3'), insertRecord(b, '4')])).toEqual({ batchItemFailures: [] });
  expect((await received()).map((e) => e.id)).toEqual([first.id, second.id]);
  expect(await outboxItems()).toEqual([]);
});

test('a job import writes one event per created or changed job across transaction chunks (49 jobs + 49 events + counter per chunk)', async () => {
  await api.runtime.relay.drain();
  await received();
  const partner = await aPartner();
  const company = await aCompany(partner.id);
  const feed = Array.from({ length: 60 }, (_, i) => ({ external_id: `C-${i}`, title: `Job ${i}` }));
  expect(await importJobs(company.id, feed)).toMatchObject({ created: 60 });
  expect((await outboxItems()).length).toBe(60);
  expect((await api.get('/jobs', { key: partner.key, companyId: company.id })).body.count).toBe(60);
  // A second run renames 25: only those change and emit `job.updated`.
  await importJobs(
    company.id,
    feed.map((job, i) => (i < 25 ? { ...job, title: `${job.title}, renamed` } : job)),
  );
  await api.runtime.relay.drain();
  const events = (await received()).filter((e) => e.company === company.id);
  expect(events.filter((e) => e.type === 'job.created')).toHaveLength(60);
  expect(
    events
      .filter((e) => e.type === 'job.updated')
      .map((e) => e.data.external_id)
      .sort(),
  ).toEqual(
    feed
      .slice(0, 25)
      .map((j) => j.external_id)
      .sort(),
  );
  expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
});
