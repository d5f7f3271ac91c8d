/**
 * The event relay (P115–P118, P240): an application's events ride on its item (a compact `ev`, no personal
 * data) and reach the topic only through the relay, which publishes an item's event once, when it is new;
 * other events are outbox items written with their change, which the relay deletes after the publish. An
 * item-borne event that cannot be published is parked in the outbox (once, however often its record comes),
 * where the outbox path and `hiring-admin outbox replay` take it. The stream handler skips what is neither and
 * reports its first failure.
 */
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { applicationEventOf } from '#applications/application-events.js';
import { setSyncDue } from '#applications/application-store.js';
import { sqs } from '#platform/clients.js';
import { advanceClock, resetClock } from '#platform/clock.js';
import { publishEvent } from '#platform/events.js';
import { importJobs } from '#jobs/job-store.js';
import { relayStreamRecords, replayOutbox } from '#delivery/event-relay.js';
import { aCompany, aPartner, withJobs } from '../helpers/fixtures.js';
import { allItems, applicationItems } from '../helpers/inspect.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { bareEnv, runAdminTool } from '../helpers/admin-cli.js';

const EVENTS_QUEUE = 'relay-events';
let api: TestRuntime;

beforeAll(async () => {
  api = await startTestRuntime();
  api.runtime.emulators.fauxqs.createQueue(EVENTS_QUEUE);
  api.runtime.emulators.fauxqs.subscribe({ topic: 'his-local-events', queue: EVENTS_QUEUE });
});
afterAll(() => api.stop());

/** The admin tool (the bin shim in a child process) against this file's runtime, whose relay runs only when a test drains it. */
function admin(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; json: any }> {
  return runAdminTool(args, { ...bareEnv(api.runtime.dataDir), ...env }).then(({ code, json, stdout, stderr }) => ({
    code,
    json: json ?? { stdout, stderr },
  }));
}

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

/** An application item's write as the table's stream delivers it (NEW_AND_OLD_IMAGES). */
function itemRecord(
  eventName: 'INSERT' | 'MODIFY',
  item: Record<string, unknown>,
  old: Record<string, unknown> | undefined,
  sequenceNumber: string,
): DynamoDBRecord {
  const image = (i: Record<string, unknown>) =>
    marshall(i, { removeUndefinedValues: true }) as NonNullable<DynamoDBRecord['dynamodb']>['NewImage'];
  return {
    eventName,
    dynamodb: {
      SequenceNumber: sequenceNumber,
      Keys: image({ PK: item.PK, SK: item.SK }),
      NewImage: image(item),
      ...(old ? { OldImage: image(old) } : {}),
    },
  };
}

/** A company with one job, its events relayed and received (so that only what follows is seen). */
async function aCompanyWithJob(entitlements: string[] = []) {
  const partner = await aPartner();
  const company = await aCompany(partner.id, { entitlements });
  await withJobs(company.id, [{ external_id: 'R-1', title: 'Relay job' }]);
  const job = (await api.get('/jobs', { key: partner.key, companyId: company.id })).body.results[0].id as number;
  await api.runtime.relay.drain();
  await received();
  return { partner, company, job };
}

/** An application of Ada's (personal data the events must not carry). */
async function anApplication({ partner, company, job }: Awaited<ReturnType<typeof aCompanyWithJob>>) {
  const res = await api.request('POST', '/applications/', {
    key: partner.key,
    companyId: company.id,
    body: { job, candidate: { email: 'ada@example.com', full_name: 'Ada Lovelace', phone: '+44 20 7946 0000' }, notes: 'secret note' },
  });
  expect(res.status).toBe(201);
  const item = async () => (await applicationItems()).find((i) => i.id === res.body.id)!;
  return { id: res.body.id as number, item };
}

test('a create carries its event on the application item, no outbox item and no personal data; the relay publishes it once', async () => {
  await api.runtime.relay.drain();
  await received();
  const setup = await aCompanyWithJob(['candidate_sync']);
  const { company, job } = setup;
  const { id, item } = await anApplication(setup);
  // On the item, in its compact form; nothing in the outbox, nothing on the topic before the relay runs.
  const stored = await item();
  expect(stored.ev).toBe('c');
  expect(await outboxItems()).toEqual([]);
  expect(await received()).toEqual([]);

  expect(await api.runtime.relay.drain()).toBeGreaterThanOrEqual(1);
  const events = (await received()).filter((e) => e.company === company.id && e.type === 'application.created');
  expect(events).toEqual([
    {
      id: applicationEventOf(stored)!.id,
      type: 'application.created',
      occurred_at: stored.created_at,
      company: company.id,
      sequence: 1,
      data: { application_id: id, job_id: job, sync_status: 'NOTSENT', email_sync_status: 'NOTSENT' },
      attributes: { type: { Type: 'String', Value: 'application.created' }, company: { Type: 'Number', Value: String(company.id) } },
    },
  ]);
  expect(JSON.stringify(events)).not.toMatch(/ada@example|Lovelace|7946|secret note/);

  // The item written again without a new event (the sweeper's next look): its stream record reaches the
  // relay, which publishes nothing.
  await setSyncDue(id, new Date(Date.now() + 3600_000).toISOString());
  expect((await item()).sync_due_at).not.toBe(stored.sync_due_at);
  expect(await api.runtime.relay.drain()).toBe(1);
  expect(await received()).toEqual([]);
  expect(await outboxItems()).toEqual([]);
});

test('an item-borne event the relay cannot publish is parked in the outbox and published by `outbox replay`, once', async () => {
  await api.runtime.relay.drain();
  await received();
  const setup = await aCompanyWithJob();
  const { company } = setup;
  const topic = process.env.EVENTS_TOPIC_ARN;
  delete process.env.EVENTS_TOPIC_ARN;
  let parked: Record<string, unknown>[];
  const { item } = await anApplication(setup);
  try {
    // The item's record: the publish fails, the event is parked. Then the parked item's own INSERT: its
    // publish fails too, its batch is retried `retryAttempts` times and passed over (the DLQ on AWS).
    await api.runtime.relay.drain();
    parked = await outboxItems();
  } finally {
    process.env.EVENTS_TOPIC_ARN = topic;
  }
  const expected = applicationEventOf(await item())!;
  expect(parked).toHaveLength(1);
  // The outbox item's shape, with the envelope as the relay would have published it.
  expect(Object.keys(parked[0]).sort()).toEqual(['PK', 'SK', 'entity', 'event']);
  expect(JSON.parse(String(parked[0].event))).toEqual(expected);
  expect(await received()).toEqual([]);
  const status = await admin(['outbox', 'status']);
  expect(status.json).toMatchObject({ waiting: 1 });

  const replay = await admin(['outbox', 'replay']);
  expect(replay.json).toMatchObject({ published: 1, waiting: 0 });
  const events = (await received()).filter((e) => e.company === company.id);
  expect(events.map(({ attributes, ...envelope }) => [envelope, attributes.type.Value])).toEqual([[expected, 'application.created']]);
  expect(await outboxItems()).toEqual([]);
  expect(await api.runtime.relay.drain()).toBe(0);
});

test('a redelivered item record (the same event twice) is parked once; published twice, it keeps its id', async () => {
  await api.runtime.relay.drain();
  await received();
  const setup = await aCompanyWithJob();
  const { item } = await anApplication(setup);
  const { company } = setup;
  await api.runtime.relay.drain();
  await received();
  const created = await item();
  const record = itemRecord('INSERT', created, undefined, '7');
  const topic = process.env.EVENTS_TOPIC_ARN;
  delete process.env.EVENTS_TOPIC_ARN;
  try {
    // Nothing fails the batch: each copy's publish fails and is parked, the second onto the first.
    expect(await relayStreamRecords([record])).toEqual({ batchItemFailures: [] });
    expect(await relayStreamRecords([record])).toEqual({ batchItemFailures: [] });
  } finally {
    process.env.EVENTS_TOPIC_ARN = topic;
  }
  expect((await outboxItems()).map((i) => JSON.parse(String(i.event)).id)).toEqual([applicationEventOf(created)!.id]);
  expect(await replayOutbox(0)).toMatchObject({ published: 1, waiting: 0 });
  // Delivered again once the topic is back: published again with the same id (consumers deduplicate on it).
  expect(await relayStreamRecords([record, itemRecord('MODIFY', { ...created, notes: 'x' }, created, '8')])).toEqual({
    batchItemFailures: [],
  });
  const ids = (await received()).filter((e) => e.company === company.id).map((e) => e.id);
  expect(ids).toEqual([applicationEventOf(created)!.id, applicationEventOf(created)!.id]);
  expect(await outboxItems()).toEqual([]);
});

test('parking that fails too reports the record as the batch failure; nothing after it is tried', async () => {
  await api.runtime.relay.drain();
  await received();
  const { item } = await anApplication(await aCompanyWithJob());
  await api.runtime.relay.drain();
  await received();
  const created = await item();
  const topic = process.env.EVENTS_TOPIC_ARN;
  const table = process.env.TABLE_NAME;
  delete process.env.EVENTS_TOPIC_ARN;
  process.env.TABLE_NAME = 'his-no-such-table';
  try {
    const later = itemRecord('MODIFY', { ...created, event_sequence: 2, sync_status: 'SUCCESS', ev: 's|NOTSENT' }, created, '10');
    expect(await relayStreamRecords([itemRecord('INSERT', created, undefined, '9'), later])).toEqual({
      batchItemFailures: [{ itemIdentifier: '9' }],
    });
  } finally {
    process.env.EVENTS_TOPIC_ARN = topic;
    process.env.TABLE_NAME = table;
  }
  expect(await outboxItems()).toEqual([]);
  expect(await received()).toEqual([]);
});

test('the stream handler relays outbox INSERTs in order, skips other records, and stops at its first failure', async () => {
  await api.runtime.relay.drain();
  await received();
  const first = await publishEvent('job.updated', 77, { job_id: 1, external_id: 'A', status: 'active', run_id: 'r' });
  const second = await publishEvent('job.updated', 77, { job_id: 2, external_id: 'B', status: 'active', run_id: 'r' });
  const [a, b] = (await outboxItems()).sort((x, y) => (String(x.SK) < String(y.SK) ? -1 : 1));
  // An item with no event on it (a job, a counter, an application written before P240).
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
  // The admin tool's progress bar (P221): one report per transaction written, of the jobs the run writes.
  const reports: [number, number][] = [];
  expect(await importJobs(company.id, feed, { onProgress: (done, total) => reports.push([done, total]) })).toMatchObject({ created: 60 });
  expect(reports).toEqual([
    [0, 60],
    [49, 60],
    [60, 60],
  ]);
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

describe('hiring-admin outbox (P171): what waits after a relay failure, and its replay through the relay', () => {
  afterEach(() => resetClock());

  test('status counts the waiting events per shard with the oldest; replay --older-than publishes the older ones, then the rest, once', async () => {
    await api.runtime.relay.drain();
    await received();
    // Events wait as after a stream batch went to the relay's DLQ (below).
    // Companies 41 and 42 land in shards 1 and 2; the third event is written two hours later (the test clock).
    const old1 = await publishEvent('job.archived', 41, { job_id: 1, external_id: 'O-1', status: 'archived', run_id: 'r' });
    const old2 = await publishEvent('job.archived', 42, { job_id: 2, external_id: 'O-2', status: 'archived', run_id: 'r' });
    advanceClock(2 * 3600_000);
    const recent = await publishEvent('job.archived', 41, { job_id: 3, external_id: 'O-3', status: 'archived', run_id: 'r' });
    // The relay cannot publish (no topic): the stream's batch fails, is retried `retryAttempts` times and then
    // passed over, as the event source mapping sends it to its DLQ on AWS. The outbox items stay.
    const topic = process.env.EVENTS_TOPIC_ARN;
    delete process.env.EVENTS_TOPIC_ARN;
    try {
      expect(await api.runtime.relay.drain()).toBe(3 * 11);
    } finally {
      process.env.EVENTS_TOPIC_ARN = topic;
    }
    const stored = new Map((await outboxItems()).map((i) => [JSON.parse(String(i.event)).id as string, i]));
    expect([...stored.keys()].sort()).toEqual([old1.id, old2.id, recent.id].sort());
    // The admin tool's clock is the test clock's: two hours on.
    const fakeNow = { FAKE_NOW: new Date(Date.now() + 2 * 3600_000).toISOString() };

    const status = await admin(['outbox', 'status'], fakeNow);
    expect(status.code).toBe(0);
    expect(status.json).toMatchObject({ waiting: 3, oldest_at: old1.occurred_at });
    expect(status.json.oldest_age_seconds).toBeGreaterThanOrEqual(2 * 3600 - 5);
    expect(status.json.oldest_age_seconds).toBeLessThanOrEqual(2 * 3600 + 60);
    expect(status.json.shards).toHaveLength(8);
    expect(status.json.shards[1]).toMatchObject({ shard: 1, waiting: 2, oldest_at: old1.occurred_at });
    expect(status.json.shards[2]).toMatchObject({ shard: 2, waiting: 1, oldest_at: old2.occurred_at });
    expect(status.json.shards.filter((s: any) => s.waiting === 0)).toHaveLength(6);
    expect(status.json.shards[0]).toEqual({ shard: 0, waiting: 0, oldest_at: null, oldest_age_seconds: null });
    expect(await received()).toEqual([]);

    // Older than one hour: the two old events are published (same id, same envelope) and deleted; the recent one waits.
    const older = await admin(['outbox', 'replay', '--older-than', '3600'], fakeNow);
    expect(older.code).toBe(0);
    expect(older.json).toMatchObject({ published: 2, waiting: 1 });
    expect(older.json.shards[1]).toEqual({ shard: 1, published: 1 });
    expect(older.json.shards[2]).toEqual({ shard: 2, published: 1 });
    const first = await received();
    expect(first.map((e) => e.id).sort()).toEqual([old1.id, old2.id].sort());
    for (const event of first) {
      const { attributes, ...envelope } = event;
      expect(envelope).toEqual(JSON.parse(String(stored.get(event.id)!.event)));
      expect(attributes.type).toEqual({ Type: 'String', Value: 'job.archived' });
    }
    expect((await outboxItems()).map((i) => JSON.parse(String(i.event)).id)).toEqual([recent.id]);

    // Without --older-than: everything that waits; a second replay finds nothing (idempotent).
    const rest = await admin(['outbox', 'replay'], fakeNow);
    expect(rest.json).toMatchObject({ published: 1, waiting: 0 });
    expect((await received()).map((e) => e.id)).toEqual([recent.id]);
    const again = await admin(['outbox', 'replay'], fakeNow);
    expect(again.code).toBe(0);
    expect(again.json).toMatchObject({ published: 0, waiting: 0 });
    expect(await received()).toEqual([]);
    expect(await admin(['outbox', 'status'], fakeNow)).toMatchObject({
      code: 0,
      json: { waiting: 0, oldest_at: null, oldest_age_seconds: null },
    });
    // The relay, running again, has nothing left either.
    expect(await api.runtime.relay.drain()).toBe(0);
  });

  test('a replay racing the relay publishes an event at most twice, with the same id (consumers deduplicate)', async () => {
    await api.runtime.relay.drain();
    await received();
    const event = await publishEvent('job.archived', 43, { job_id: 4, external_id: 'O-4', status: 'archived', run_id: 'r' });
    const [replayed] = await Promise.all([admin(['outbox', 'replay']), api.runtime.relay.drain()]);
    expect(replayed.code).toBe(0);
    const copies = await received();
    expect(copies.length).toBeGreaterThanOrEqual(1);
    expect(copies.length).toBeLessThanOrEqual(2);
    expect(new Set(copies.map((e) => e.id))).toEqual(new Set([event.id]));
    expect(await outboxItems()).toEqual([]);
  });

  test('a replay that cannot publish stops each shard at its failure, keeps every item, and reports it; the next replay publishes them', async () => {
    await api.runtime.relay.drain();
    await received();
    const a = await publishEvent('job.archived', 44, { job_id: 5, external_id: 'O-5', status: 'archived', run_id: 'r' });
    const b = await publishEvent('job.archived', 44, { job_id: 6, external_id: 'O-6', status: 'archived', run_id: 'r' });
    const topic = process.env.EVENTS_TOPIC_ARN;
    delete process.env.EVENTS_TOPIC_ARN;
    try {
      const failed = await replayOutbox(0);
      expect(failed).toMatchObject({ published: 0, waiting: 2 });
      expect(failed.shards[4]).toEqual({ shard: 4, published: 0, error: expect.stringMatching(/EVENTS_TOPIC_ARN/) });
      expect(failed.shards.filter((s) => s.error)).toHaveLength(1);
    } finally {
      process.env.EVENTS_TOPIC_ARN = topic;
    }
    expect(await received()).toEqual([]);
    // The admin tool's progress bar (P221): counted first, then one report per event published.
    const reports: [number, number][] = [];
    expect(await replayOutbox(0, { onProgress: (done, total) => reports.push([done, total]) })).toMatchObject({ published: 2, waiting: 0 });
    expect(reports).toEqual([
      [0, 2],
      [1, 2],
      [2, 2],
    ]);
    expect((await received()).map((e) => e.id)).toEqual([a.id, b.id]);
  });
});
