/**
 * Dispositions back to the job board (D22, issue 43 item 4; P315–P319) through the real path: applications posted
 * to the apply endpoint by the board (Indeed Apply, or a `generic` board's Standard Webhooks POST) for a sandbox
 * company, delivered by the sync worker, moved by the sandbox ATS (read by the OutcomeReader) or by the outcome
 * store, relayed, and seen at the board: the Indeed simulator (token and GraphQL) or a loopback receiver that
 * verifies the signature. Also: a board that is down (retried, nothing lost, order kept), more than 25 dispositions
 * split, the token reused and fetched again when it expires, `channel update` through the admin tool.
 */
import { createHmac } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { recordOutcome } from '#applications/outcome-store.js';
import { clearPersonalData } from '#applications/application-store.js';
import { PERSONAL_DATA_FIELDS } from '#delivery/retention.js';
import type { ApplicationRecord } from '#applications/applications.js';
import { forgetCachedCompany } from '#companies/api-keys.js';
import { setChannelDisposition } from '#companies/apply-channels.js';
import { setEntitlements } from '#companies/company-store.js';
import { importJobs } from '#jobs/job-store.js';
import { applyToken, applyTokenKey, forgetCachedApplyChannels } from '#jobs/apply-links.js';
import { config, db } from '#platform/clients.js';
import { advanceClock, resetClock } from '#platform/clock.js';
import { keys } from '#platform/keys.js';
import { currentMetrics, withRequestMetrics } from '#platform/request-metrics.js';
import { receivedEvents, runAdmin } from '../helpers/admin-cli.js';
import { aCompany, anApplyChannel, aPartner } from '../helpers/fixtures.js';
import { captureServiceLogs } from '../helpers/logs.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { startIndeedSimulator, type IndeedSimulator } from '../simulators/indeed.js';
import { startWebhookReceiver, type WebhookReceiver } from '../simulators/webhook-receiver.js';

// The sandbox moves an hour after acceptance (the test moves the clock); retries and the batch window take a second.
const MOVE_SECONDS = 3600;
Object.assign(process.env, {
  WEBHOOK_ALLOW_LOOPBACK_HTTP: 'true',
  WEBHOOK_RETRY_BASE_SECONDS: '1',
  DISPOSITION_BATCH_SECONDS: '1',
  SANDBOX_OUTCOME_SECONDS: String(MOVE_SECONDS),
});
const INDEED_SECRET = 'indeed-api-secret-0123456789';

let api: TestRuntime;
let indeed: IndeedSimulator;
let board: WebhookReceiver;
let logs: ReturnType<typeof captureServiceLogs>;
const channel = new Map<string, { id: number; secret: string }>();
let t: { partner: Awaited<ReturnType<typeof aPartner>>; company: Awaited<ReturnType<typeof aCompany>>; job: number };

const EVENTS_QUEUE = 'disposition-events';

beforeAll(async () => {
  api = await startTestRuntime();
  api.runtime.emulators.fauxqs.createQueue(EVENTS_QUEUE);
  api.runtime.emulators.fauxqs.subscribe({ topic: 'his-local-events', queue: EVENTS_QUEUE });
  indeed = await startIndeedSimulator();
  process.env.INDEED_API_URL = indeed.url;
  board = await startWebhookReceiver('/dispositions');
  channel.set('indeed-d', await anApplyChannel('indeed-d', 'indeed', INDEED_SECRET));
  channel.set('board-d', await anApplyChannel('board-d', 'generic'));
  board.secret = channel.get('board-d')!.secret;
  // Each test stands alone; the first one sets them again through the admin tool.
  await setChannelDisposition('indeed-d', { indeed_client_id: indeed.clientId, indeed_client_secret: indeed.clientSecret });
  await setChannelDisposition('board-d', { disposition_url: board.url });
  const partner = await aPartner();
  const company = await aCompany(partner.id, { entitlements: ['candidate_sync'] });
  await setEntitlements(company.id, ['candidate_sync', 'apply:indeed-d', 'apply:board-d']);
  forgetCachedCompany(company.id);
  forgetCachedApplyChannels();
  await importJobs(company.id, [{ external_id: `D-${company.id}`, title: 'Disposition job' }]);
  const job = (await api.get(`/jobs?external_id=D-${company.id}`, { key: partner.key, companyId: company.id })).body.results[0].id;
  t = { partner, company, job };
  logs = captureServiceLogs();
});
afterEach(() => resetClock());
afterAll(async () => {
  logs.stop();
  await board.stop();
  await indeed.stop();
  await api.stop();
});

const admin = (args: string[]) => runAdmin(api.runtime.dataDir, args, { WEBHOOK_ALLOW_LOOPBACK_HTTP: 'true' });
const applyPath = (slug: string) =>
  `/apply/${slug}/${applyToken(applyTokenKey(), t.company.id, t.job, { channel_id: channel.get(slug)!.id, generation: 1 })}`;

/** Indeed Apply posts an application (signed with X-Indeed-Signature); resolves to our id. */
async function indeedApply(indeedId: string, email: string): Promise<number> {
  const body = JSON.stringify({ id: indeedId, applicant: { fullName: 'Ada Lovelace', email } });
  const headers = {
    'Content-Type': 'application/json',
    'X-Indeed-Signature': createHmac('sha1', INDEED_SECRET).update(body).digest('base64'),
  };
  const res = await api.request('POST', applyPath('indeed-d'), { rawBody: body, headers });
  expect(res.status).toBe(201);
  return res.body.id as number;
}

/** A generic board posts an application (Standard Webhooks, the channel's secret); resolves to our id. */
async function boardApply(boardId: string, email: string): Promise<number> {
  const body = JSON.stringify({ candidate: { email, full_name: 'Grace Hopper' }, partner_application_id: boardId });
  const id = `msg_${boardId}`;
  const at = new Date();
  const headers = {
    'Content-Type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(channel.get('board-d')!.secret).sign(id, at, body),
  };
  const res = await api.request('POST', applyPath('board-d'), { rawBody: body, headers });
  expect(res.status).toBe(201);
  return res.body.id as number;
}

/** Relays the events; the webhook worker fans them out and flushes the channels' dispositions. */
async function relay(): Promise<void> {
  await api.runtime.relay.drain();
  await api.runtime.webhookPoller.drain(60_000);
}

const readPass = () => api.runtime.scheduler.run('OutcomeReader');

/** The outcome store moves an application (as a reading would), at `at`. */
async function move(id: number, outcome: NonNullable<ApplicationRecord['outcome']>, stage: string, at: string): Promise<void> {
  const item = (await db().send(new GetCommand({ TableName: config().tableName, Key: keys.application(id), ConsistentRead: true }))).Item;
  expect(await recordOutcome(item as unknown as ApplicationRecord, { outcome, stage }, at)).toBe(true);
}

const item = async (id: number) =>
  (await db().send(new GetCommand({ TableName: config().tableName, Key: keys.application(id), ConsistentRead: true }))).Item as Record<
    string,
    unknown
  > &
    ApplicationRecord;

async function queued(slug: string): Promise<number> {
  const out = await db().send(
    new QueryCommand({
      TableName: config().tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :q)',
      ExpressionAttributeValues: { ':pk': keys.dispositionState(channel.get(slug)!.id).PK, ':q': 'Q#' },
      ConsistentRead: true,
      Select: 'COUNT',
    }),
  );
  return out.Count ?? 0;
}

const summary = (d: { identifiedBy: { indeedApplyID: string }; dispositionStatus: string; rawDispositionStatus: string }) =>
  [d.identifiedBy.indeedApplyID, d.dispositionStatus, d.rawDispositionStatus].join(' ');

test('channel update: the Indeed client sealed, a generic URL http(s) only, "" turns it off; errors name the option', async () => {
  const set = await admin([
    'channel',
    'update',
    '--slug',
    'indeed-d',
    '--indeed-client-id',
    indeed.clientId,
    '--indeed-client-secret',
    indeed.clientSecret,
  ]);
  expect(set.code).toBe(0);
  expect(set.json).toEqual({ slug: 'indeed-d', format: 'indeed', disposition_url: null, indeed_client_id: indeed.clientId });
  expect(set.stdout + set.stderr).not.toContain(indeed.clientSecret);
  const stored = (
    await db().send(new GetCommand({ TableName: config().tableName, Key: keys.applyChannelDisposition(channel.get('indeed-d')!.id) }))
  ).Item!;
  expect(JSON.stringify(stored)).not.toContain(indeed.clientSecret);

  await expect(setChannelDisposition('board-d', { disposition_url: 'ftp://board.example/d' })).rejects.toMatchObject({
    errors: { disposition_url: [expect.any(String)] },
  });
  await expect(setChannelDisposition('board-d', { disposition_url: 'javascript:alert(1)' })).rejects.toMatchObject({
    statusCode: 400,
    errors: { disposition_url: [expect.any(String)] },
  });
  await expect(setChannelDisposition('board-d', { indeed_client_id: 'x', disposition_url: board.url })).rejects.toMatchObject({
    errors: { indeed_client_id: [expect.any(String)] },
  });
  await expect(setChannelDisposition('indeed-d', { disposition_url: board.url })).rejects.toMatchObject({
    errors: { disposition_url: [expect.any(String)] },
  });
  expect(await setChannelDisposition('board-d', { disposition_url: board.url })).toMatchObject({ disposition_url: board.url });
});

test('indeed: NEW once the ATS has it, then each outcome with the stage as raw status, batched, one token reused', async () => {
  const hired = await indeedApply('ia-hired-1', 'ada+hired@example.com');
  const pending = await indeedApply('ia-pending-1', 'bob@example.com');
  await indeedApply('ia-dup-1', 'eve+duplicate@example.com'); // the ATS says duplicate: a delivery failure Indeed has a word for
  // A partner naming the Indeed channel on an API create: not from the board, nothing goes to Indeed.
  const spoof = await api.request('POST', '/applications/', {
    key: t.partner.key,
    companyId: t.company.id,
    body: {
      job: t.job,
      candidate: { email: 'cy@example.com', full_name: 'Cy' },
      talent_channel: channel.get('indeed-d')!.id,
      partner_application_id: 'spoof',
    },
  });
  expect(spoof.status).toBe(201);
  await api.runtime.poller.drain();
  await relay();
  // The three came close together: one request (sorted by statusChangeDateTime, checked below).
  expect(indeed.batches.map((b) => b.map(summary).sort())).toEqual([
    ['ia-dup-1 DROPPED_DUPLICATE DROPPED_DUPLICATE', 'ia-hired-1 NEW NEW', 'ia-pending-1 NEW NEW'],
  ]);
  expect(indeed.dispositions[0].atsName).toBe('Hiring Integration Service');

  await readPass(); // the sandbox: PENDING, "Applied"
  await relay();
  advanceClock(MOVE_SECONDS * 1000);
  await readPass(); // +hired: HIRED, "Hired"
  resetClock();
  await relay();
  const mine = (id: string) => indeed.dispositions.filter((d) => d.identifiedBy.indeedApplyID === id).map(summary);
  expect(mine('ia-hired-1')).toEqual(['ia-hired-1 NEW NEW', 'ia-hired-1 UNABLE_TO_MAP Applied', 'ia-hired-1 HIRED Hired']);
  expect(mine('ia-pending-1')).toEqual(['ia-pending-1 NEW NEW', 'ia-pending-1 UNABLE_TO_MAP Applied']);
  expect(mine('spoof')).toEqual([]);
  for (const batch of indeed.batches) {
    const times = batch.map((d) => d.statusChangeDateTime);
    expect([...times].sort()).toEqual(times);
  }
  // One token for every request so far (reused until it expires).
  expect(indeed.tokensIssued).toBe(1);
  // Only the board's ids and statuses: no e-mail, no name.
  expect(JSON.stringify(indeed.requests.map((r) => r.body.toString()))).not.toMatch(/example\.com|Lovelace/);
  expect(await queued('indeed-d')).toBe(0);
  for (const id of [hired, pending])
    expect((await api.get(`/applications/${id}`, { key: t.partner.key, companyId: t.company.id })).status).toBe(200);

  // Our clock past the token's hour: a new token. Indeed expiring it early (a 401): one new token, the request again.
  advanceClock(2 * 3600 * 1000);
  await move(pending, 'REJECTED', 'Rejected', new Date().toISOString());
  // What one disposition costs (P316, DynamoDB Local's accounting): 5 write units, the disposition's Put, the flush
  // marked due, the lease taken and given back, the item deleted; 4 read units with the fan-out's own reads of the
  // event (the application's source, the channel's setting; the flush's setting and its two Queries).
  const units = await withRequestMetrics(async () => {
    await relay();
    const m = currentMetrics()!;
    return { read: m.readUnits, write: m.writeUnits };
  });
  expect(units).toEqual({ read: 4, write: 5 });
  expect(indeed.tokensIssued).toBe(2);
  indeed.expireTokens();
  await move(pending, 'WITHDRAWN', 'Withdrawn', new Date(Date.now() + 1000).toISOString());
  await relay();
  expect(indeed.tokensIssued).toBe(3);
  expect(mine('ia-pending-1').slice(-2)).toEqual(['ia-pending-1 NOT_SELECTED Rejected', 'ia-pending-1 WITHDRAWN Withdrawn']);
  // Secrets never in the logs.
  expect(logs.text()).not.toContain(indeed.clientSecret);
});

test('indeed down while 30 changes go out: retried, nothing lost, oldest first, in requests of 25 and 5', async () => {
  const id = await indeedApply('ia-many-1', 'dee@example.com');
  await api.runtime.poller.drain();
  await relay();
  const before = indeed.dispositions.length;
  const requestsBefore = indeed.requests.length;
  indeed.down = true;
  const start = Date.now() + 60_000;
  const times = Array.from({ length: 30 }, (_, n) => new Date(start + n * 1000).toISOString());
  // Stages change faster than the fan-out here: a change whose outcome moved on since is reported with its
  // outcome as the raw status (P316).
  for (let n = 0; n < 30; n++) await move(id, n % 2 ? 'HIRED' : 'PENDING', n % 2 ? 'Hired' : 'Interview', times[n]);
  await api.runtime.relay.drain();
  for (let round = 0; round < 200 && (await queued('indeed-d')) < 30; round++) await api.runtime.webhookPoller.runOnce();
  expect(await queued('indeed-d')).toBe(30);
  // Let a flush meet the board down at least once.
  for (let round = 0; round < 100 && indeed.requests.length === requestsBefore; round++) {
    await api.runtime.webhookPoller.runOnce();
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(indeed.requests.slice(requestsBefore).every((r) => r.status === 503)).toBe(true);
  indeed.down = false;
  await api.runtime.webhookPoller.drain(60_000);
  const sent = indeed.batches.slice(-2);
  expect(sent.map((b) => b.length)).toEqual([25, 5]);
  const got = indeed.dispositions.slice(before);
  expect(got.map((d) => d.statusChangeDateTime)).toEqual(times);
  expect(got.map((d) => d.dispositionStatus)).toEqual(times.map((_, n) => (n % 2 ? 'HIRED' : 'UNABLE_TO_MAP')));
  expect(got.every((d) => d.identifiedBy.indeedApplyID === 'ia-many-1')).toBe(true);
  expect(await queued('indeed-d')).toBe(0);
});

test('generic: signed application.disposition POSTs, NEW then each change, retried while the board is down, order kept; "" turns it off', async () => {
  const id = await boardApply('board-app-7', 'grace+rejected@example.com');
  await api.runtime.poller.drain();
  board.respond = () => 200;
  await relay();
  await readPass(); // PENDING, "Applied"
  let failures = 0;
  board.respond = () => (failures++ < 2 ? 503 : 200);
  await relay();
  advanceClock(MOVE_SECONDS * 1000);
  await readPass(); // +rejected: REJECTED, "Rejected"
  resetClock();
  await relay();
  const mine = board.deliveries.filter((d) => d.event.data?.application === id);
  expect(mine.every((d) => d.verified)).toBe(true);
  expect(mine.map((d) => [d.event.data.status, d.status])).toEqual([
    ['NEW', 200],
    ['PENDING', 503],
    ['PENDING', 503],
    ['PENDING', 200],
    ['REJECTED', 200],
  ]);
  // The same webhook-id on every retry of one disposition.
  expect(new Set(mine.filter((d) => d.event.data.status === 'PENDING').map((d) => d.id)).size).toBe(1);
  const delivered = mine.filter((d) => d.status === 200).map((d) => d.event);
  expect(delivered[2]).toEqual({
    type: 'application.disposition',
    timestamp: delivered[2].data.occurred_at,
    data: {
      application: id,
      partner_application_id: 'board-app-7',
      job: t.job,
      status: 'REJECTED',
      stage: 'Rejected',
      occurred_at: expect.any(String),
    },
  });
  expect(delivered[0].data).toMatchObject({ status: 'NEW', stage: null });
  expect(JSON.stringify(mine.map((d) => d.body))).not.toMatch(/example\.com|Hopper/);

  // Turned off: the next change goes nowhere.
  const off = await admin(['channel', 'update', '--slug', 'board-d', '--disposition-url', '']);
  expect(off.code).toBe(0);
  expect(off.json.disposition_url).toBeNull();
  const count = board.deliveries.length;
  await move(id, 'HIRED', 'Hired', new Date().toISOString());
  await relay();
  expect(board.deliveries.length).toBe(count);
  expect(logs.text()).not.toContain(channel.get('board-d')!.secret);
});

test('P345: a stage-only change reaches the board (Indeed: the new stage as raw status; generic: its stage), batched, no partner event', async () => {
  await setChannelDisposition('board-d', { disposition_url: board.url }); // the test before turned it off
  const atIndeed = await indeedApply('ia-stage-1', 'sam@example.com');
  const atBoard = await boardApply('board-stage-1', 'sue@example.com');
  await api.runtime.poller.drain();
  board.respond = () => 200;
  await readPass(); // PENDING, "Applied": an outcome move (an event)
  await relay();
  await receivedEvents(api.runtime.emulators.fauxqs.port, EVENTS_QUEUE); // what came before
  const requestsBefore = indeed.batches.length;
  const read = async (id: number) => (await api.get(`/applications/${id}`, { key: t.partner.key, companyId: t.company.id })).body;
  expect(await read(atIndeed)).toMatchObject({ outcome: 'PENDING', outcome_stage: 'Applied' });
  const sequenceBefore = (await item(atIndeed)).event_sequence as number;
  expect(sequenceBefore).toBeGreaterThan(1);

  // One stage move on its own, and what it costs (DynamoDB Local's accounting): the relay's hand-over costs no unit;
  // the worker reads the channel's setting, writes the disposition and the flush due; the flush takes and gives back
  // the lease, reads its setting and the queue, sends, deletes the disposition.
  const at = Date.now();
  await move(atIndeed, 'PENDING', 'Phone screen', new Date(at + 1000).toISOString());
  const units = await withRequestMetrics(async () => {
    await relay();
    const m = currentMetrics()!;
    return { read: m.readUnits, write: m.writeUnits };
  });
  // 5 write units as an outcome's disposition (P316); 2.5 read units (its 4 less the application's source and the
  // fan-out's reads of the event: the setting 0.5, the flush's setting 1 and its two Queries 0.5 each).
  expect(units).toEqual({ read: 2.5, write: 5 });
  // Then two moves of one application and one of the other, close together (within DISPOSITION_BATCH_SECONDS).
  await move(atIndeed, 'PENDING', 'Onsite interview', new Date(at + 2000).toISOString());
  await move(atIndeed, 'PENDING', 'Reference check', new Date(at + 3000).toISOString());
  await move(atBoard, 'PENDING', 'Take-home assignment', new Date(at + 3000).toISOString());
  // The stage change moves outcome_updated_at (and updated_at): the outcome's record changed then (P345).
  expect(await read(atIndeed)).toMatchObject({
    outcome: 'PENDING',
    outcome_stage: 'Reference check',
    outcome_updated_at: new Date(at + 3000).toISOString(),
  });
  await relay();

  // Indeed: one request for both moves (batched), oldest first, the stage as raw status, the status mapped from it.
  const sent = indeed.batches.slice(requestsBefore);
  expect(sent.map((b) => b.map(summary))).toEqual([
    ['ia-stage-1 SCREEN Phone screen'],
    ['ia-stage-1 INTERVIEW Onsite interview', 'ia-stage-1 UNABLE_TO_MAP Reference check'],
  ]);
  // generic: one signed application.disposition with the new stage, the outcome as status.
  const generic = board.deliveries.filter((d) => d.event.data?.application === atBoard).map((d) => d.event.data);
  expect(generic.map((d) => [d.status, d.stage])).toEqual([
    ['NEW', null],
    ['PENDING', 'Applied'],
    ['PENDING', 'Take-home assignment'],
  ]);
  expect(generic[2]).toEqual({
    application: atBoard,
    partner_application_id: 'board-stage-1',
    job: t.job,
    status: 'PENDING',
    stage: 'Take-home assignment',
    occurred_at: new Date(at + 3000).toISOString(),
  });
  // No event for partners: nothing on the topic (no outcome_changed, no other type), the sequence unchanged.
  expect(await receivedEvents(api.runtime.emulators.fauxqs.port, EVENTS_QUEUE)).toEqual([]);
  expect((await item(atIndeed)).event_sequence).toBe(sequenceBefore);
  expect(await queued('indeed-d')).toBe(0);

  // Anonymization drops the stage (D21): nothing goes to the board for it.
  const count = board.deliveries.length;
  await clearPersonalData(await item(atBoard), PERSONAL_DATA_FIELDS, new Date(at + 4000).toISOString());
  const anonymized = await read(atBoard);
  expect(anonymized.outcome).toBe('PENDING');
  expect(anonymized).not.toHaveProperty('outcome_stage');
  expect(await item(atBoard)).not.toHaveProperty('outcome_stage');
  await relay();
  expect(board.deliveries.length).toBe(count);
});
