/**
 * Outcomes read back from the ATS (D21, issue 43; P298–P300) through the real path: applications created
 * through HTTP for a sandbox company, delivered by the sync worker (fed by the local queue poller), moved by the
 * sandbox ATS `SANDBOX_OUTCOME_SECONDS` after it accepted them, read by the scheduled OutcomeReader, and seen in
 * GET /applications/{id}, the list, a partner webhook (registered with the admin tool, verified with the
 * `standardwebhooks` library by the loopback receiver) and on the SNS topic.
 */
import { importJobs } from '#jobs/job-store.js';
import { advanceClock, resetClock } from '#platform/clock.js';
import { currentMetrics, withRequestMetrics } from '#platform/request-metrics.js';
import { setSandboxAts } from '#delivery/connectors/sandbox.js';
import type { OutcomePass } from '#delivery/outcomes.js';
import { receivedEvents, runAdmin } from '../helpers/admin-cli.js';
import { aCompany, aPartner } from '../helpers/fixtures.js';
import { allItems } from '../helpers/inspect.js';
import { captureServiceLogs } from '../helpers/logs.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { startWebhookReceiver, type WebhookReceiver } from '../simulators/webhook-receiver.js';

process.env.WEBHOOK_ALLOW_LOOPBACK_HTTP = 'true';
// The sandbox moves an hour after acceptance; the test moves the service clock past it (`advanceClock`), so a
// slow machine never sees the move early.
const MOVE_SECONDS = 3600;
process.env.SANDBOX_OUTCOME_SECONDS = String(MOVE_SECONDS);

const EVENTS_QUEUE = 'outcome-events';
let api: TestRuntime;
let receiver: WebhookReceiver;

beforeAll(async () => {
  api = await startTestRuntime();
  api.runtime.emulators.fauxqs.createQueue(EVENTS_QUEUE);
  api.runtime.emulators.fauxqs.subscribe({ topic: 'his-local-events', queue: EVENTS_QUEUE });
  receiver = await startWebhookReceiver();
});
// Each test reads only its own applications: what a test leaves watched stops after it.
afterEach(async () => {
  resetClock();
  const { stopWatchingOutcome } = await import('#applications/outcome-store.js');
  for (const id of await watches()) await stopWatchingOutcome(id);
});
afterAll(async () => {
  await receiver.stop();
  await api.stop();
});

const admin = (args: string[]) => runAdmin(api.runtime.dataDir, args, { WEBHOOK_ALLOW_LOOPBACK_HTTP: 'true' });
const published = () => receivedEvents(api.runtime.emulators.fauxqs.port, EVENTS_QUEUE);

/** A partner with a sandbox company (candidate sync) and one job. */
async function tenant() {
  const partner = await aPartner();
  const company = await aCompany(partner.id, { entitlements: ['candidate_sync'] });
  await importJobs(company.id, [{ external_id: `O-${company.id}`, title: 'Outcome job' }]);
  const job = (await api.get(`/jobs?external_id=O-${company.id}`, { key: partner.key, companyId: company.id })).body.results[0]
    .id as number;
  return { partner, company, job };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

async function apply(t: Tenant, email: string, extra: Record<string, unknown> = {}): Promise<number> {
  const res = await api.request('POST', '/applications/', {
    key: t.partner.key,
    companyId: t.company.id,
    body: { job: t.job, candidate: { email, full_name: 'Ada Lovelace' }, ...extra },
  });
  expect(res.status).toBe(201);
  return res.body.id as number;
}

const read = async (t: Tenant, id: number) => (await api.get(`/applications/${id}`, { key: t.partner.key, companyId: t.company.id })).body;

/** One reading pass, and the read and write units it cost (DynamoDB Local's accounting, as the request header). */
async function pass(): Promise<OutcomePass & { units: { read: number; write: number } }> {
  return withRequestMetrics(async () => {
    const result = (await api.runtime.scheduler.run('OutcomeReader')) as OutcomePass;
    const m = currentMetrics()!;
    return { ...result, units: { read: m.readUnits, write: m.writeUnits } };
  });
}

/** Relays the events and delivers the webhooks. */
async function relay(): Promise<void> {
  await api.runtime.relay.drain();
  await api.runtime.webhookPoller.drain(30_000);
}

/** The pass's log records among captured log lines. */
const passLogs = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.includes('"outcome pass"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const watches = async () =>
  (await allItems()).filter((item) => item.SK === 'OUTCOMEWATCH').map((item) => Number(String(item.PK).split('#')[1]));

test('the loop: delivered, read PENDING, moved by the sandbox to HIRED and REJECTED, seen in reads, the list, a webhook and SNS', async () => {
  const t = await tenant();
  const hook = await admin([
    'webhook',
    'create',
    '--partner',
    String(t.partner.id),
    '--url',
    receiver.url,
    '--events',
    'application.outcome_changed',
  ]);
  expect(hook.code).toBe(0);
  receiver.secret = hook.json.secret;

  const hired = await apply(t, 'ada+hired@example.com');
  const rejected = await apply(t, 'bob+rejected@example.com');
  const pending = await apply(t, 'cy@example.com');
  // Before delivery: nothing known, nothing watched.
  expect(await read(t, hired)).toMatchObject({ sync_status: 'NOTSENT', outcome: null, outcome_stage: null, outcome_updated_at: null });
  expect(await watches()).toEqual([]);
  await api.runtime.poller.drain();
  const deliveredAt = Date.now();
  for (const id of [hired, rejected, pending]) expect(await read(t, id)).toMatchObject({ sync_status: 'SUCCESS', outcome: null });
  expect((await watches()).sort()).toEqual([hired, rejected, pending].sort());
  await relay();
  await published();

  // The first reading, before the sandbox moved anything: every one PENDING, "Applied".
  const first = await pass();
  expect(first).toMatchObject({ read: 3, changed: 3, failed: 0, stopped: 0 });
  for (const id of [hired, rejected, pending]) {
    const body = await read(t, id);
    expect(body).toMatchObject({ outcome: 'PENDING', outcome_stage: 'Applied' });
    expect(Date.parse(body.outcome_updated_at)).toBeGreaterThanOrEqual(deliveredAt - 1000);
    expect(body.updated_at).toBe(body.outcome_updated_at);
  }
  // Nothing changed since: three readings, and each one's record in the delivery log only (P350).
  const unchanged = await pass();
  expect(unchanged).toMatchObject({ read: 3, changed: 0, failed: 0, stopped: 0 });
  // P299, DynamoDB Local's accounting: a pass over 3 watched applications reads 8 units besides its Queries (one
  // BatchGet of the applications and watches, the company, and the sandbox's own reads of its state and receipt
  // per application); its Queries of keys (P320) are, per shard, one for its oldest watch (0.5) and, where it
  // has one, one of the first day's range (0.5). A change writes 4 (the application item and its UPDATED entry
  // moving); every reading, changed or not, writes 1 for its record in the delivery log (issue 44, P350).
  const queries = 4 * 0.5 + 0.5 * new Set([hired, rejected, pending].map((id) => id % 4)).size;
  expect(first.units).toEqual({ read: 8 + queries, write: 15 });
  expect(unchanged.units).toEqual({ read: 8 + queries, write: 3 });

  advanceClock(MOVE_SECONDS * 1000);
  const moved = await pass();
  // Back to real time before the webhooks go out (their receiver checks the signature's timestamp).
  resetClock();
  // Two changes (4 each), three readings' log records (1 each) and two watches deleted at their final outcome (the
  // item and its DUE entry, 2 each).
  expect(moved.units).toEqual({ read: 8 + queries, write: 15 });
  expect(moved).toMatchObject({ read: 3, changed: 2, failed: 0, stopped: 2 });
  expect(await read(t, hired)).toMatchObject({ outcome: 'HIRED', outcome_stage: 'Hired' });
  expect(await read(t, rejected)).toMatchObject({ outcome: 'REJECTED', outcome_stage: 'Rejected' });
  expect(await read(t, pending)).toMatchObject({ outcome: 'PENDING', outcome_stage: 'Applied' });
  const list = (await api.get('/applications/', { key: t.partner.key, companyId: t.company.id })).body.results as Record<string, unknown>[];
  expect(Object.fromEntries(list.map((a) => [a.id, [a.outcome, a.outcome_stage]]))).toEqual({
    [hired]: ['HIRED', 'Hired'],
    [rejected]: ['REJECTED', 'Rejected'],
    [pending]: ['PENDING', 'Applied'],
  });
  // The delivery log (issue 44, P350): the submission, then every reading, the unchanged one too, newest first.
  const log = (await api.get(`/applications/${hired}/deliveries`, { key: t.partner.key, companyId: t.company.id })).body;
  expect(log.results.map((r: Record<string, unknown>) => [r.operation, r.method, r.status, r.result])).toEqual([
    ['readOutcome', 'GET', 200, 'accepted'],
    ['readOutcome', 'GET', 200, 'accepted'],
    ['readOutcome', 'GET', 200, 'accepted'],
    ['submitApplication', 'POST', 201, 'accepted'],
  ]);
  expect(JSON.stringify(log)).not.toMatch(/ada|example\.com/);
  // Reading stops at a final outcome: only the pending one is read from now on.
  expect(await watches()).toEqual([pending]);
  expect(await pass()).toMatchObject({ read: 1, changed: 0, stopped: 0 });

  await relay();
  // The partner's webhook: exactly {id, outcome, previous_outcome}, numbered in order, signed; no stage name, no e-mail.
  const deliveries = receiver.deliveries.filter((d) => d.event.type === 'application.outcome_changed');
  expect(deliveries.every((d) => d.verified)).toBe(true);
  const byApplication = (events: Record<string, any>[], id: number) =>
    events
      .filter((e) => e.type === 'application.outcome_changed' && e.data.id === id)
      // Deliveries may arrive out of order (D19); a partner orders an application's events by `sequence`.
      .sort((a, b) => a.sequence - b.sequence)
      .map((e) => e.data);
  const webhookEvents = deliveries.map((d) => d.event);
  expect(byApplication(webhookEvents, hired)).toEqual([
    { id: hired, outcome: 'PENDING', previous_outcome: null },
    { id: hired, outcome: 'HIRED', previous_outcome: 'PENDING' },
  ]);
  expect(byApplication(webhookEvents, rejected)).toEqual([
    { id: rejected, outcome: 'PENDING', previous_outcome: null },
    { id: rejected, outcome: 'REJECTED', previous_outcome: 'PENDING' },
  ]);
  expect(byApplication(webhookEvents, pending)).toEqual([{ id: pending, outcome: 'PENDING', previous_outcome: null }]);
  for (const event of webhookEvents) {
    expect(Object.keys(event).sort()).toEqual(['company', 'data', 'id', 'occurred_at', 'sequence', 'type']);
    expect(event.company).toBe(t.company.id);
    expect(JSON.stringify(event)).not.toMatch(/Applied|Hired|Rejected|example\.com|Lovelace/);
  }
  // The same events on the topic.
  const sns = await published();
  expect(byApplication(sns, hired)).toEqual(byApplication(webhookEvents, hired));
  expect(byApplication(sns, pending)).toEqual([{ id: pending, outcome: 'PENDING', previous_outcome: null }]);
  expect(sns.filter((e) => e.type === 'application.outcome_changed')).toHaveLength(5);

  // Another partner's company cannot read them (404), nor can the partner through another company (404).
  const other = await tenant();
  for (const id of [hired, pending])
    expect((await api.get(`/applications/${id}`, { key: other.partner.key, companyId: other.company.id })).status).toBe(404);
  const sibling = await aCompany(t.partner.id, { entitlements: ['candidate_sync'] });
  expect((await api.get(`/applications/${hired}`, { key: t.partner.key, companyId: sibling.id })).status).toBe(404);
});

test('an ATS that is down while outcomes are read: nothing changes, the others go on, the next reading succeeds', async () => {
  // A pass with nothing to read logs nothing at INFO (P381); one that reads logs its counts.
  const idle = captureServiceLogs();
  expect(await pass().finally(() => idle.stop())).toMatchObject({ read: 0, changed: 0, failed: 0, stopped: 0, paused: 0 });
  expect(passLogs(idle.text())).toEqual([]);
  const down = await tenant();
  const up = await tenant();
  const a = await apply(down, 'dee@example.com');
  const b = await apply(up, 'eve@example.com');
  await api.runtime.poller.drain();
  await setSandboxAts(down.company.id, { outcomesDown: true });
  const before = await read(down, a);

  const logged = captureServiceLogs();
  const failing = await pass().finally(() => logged.stop());
  expect(failing).toMatchObject({ read: 2, changed: 1, failed: 1, stopped: 0 });
  expect(passLogs(logged.text())).toEqual([expect.objectContaining({ level: 'INFO', read: 2, changed: 1, failed: 1 })]);
  expect(await read(down, a)).toEqual(before);
  // The failed reading is in the application's delivery log (issue 44, P350), as a retry.
  const log = (await api.get(`/applications/${a}/deliveries`, { key: down.partner.key, companyId: down.company.id })).body;
  expect(log.results[0]).toMatchObject({ operation: 'readOutcome', status: 503, result: 'retry', failure_error: 'AtsUnavailableError' });
  expect(await read(up, b)).toMatchObject({ outcome: 'PENDING' });
  expect(await watches()).toEqual(expect.arrayContaining([a, b]));

  await setSandboxAts(down.company.id, {});
  expect(await pass()).toMatchObject({ read: 2, changed: 1, failed: 0 });
  expect(await read(down, a)).toMatchObject({ outcome: 'PENDING', outcome_stage: 'Applied' });
});

test('reading stops OUTCOME_TRACK_DAYS after applied_at; failed deliveries are never watched', async () => {
  const t = await tenant();
  // P320: an 89-day-old application is read once a day, by the pass whose anchor (the full hour) is between 89
  // days and 89 days and an hour after its applied_at. The service clock is put just past the next full hour,
  // so every pass of this test has that anchor.
  const anchor = Math.ceil(Date.now() / 3_600_000) * 3_600_000;
  advanceClock(anchor + 60_000 - Date.now());
  const days = (n: number) => new Date(anchor - n * 86_400_000 - 1_800_000).toISOString();
  const old = await apply(t, 'old+hired@example.com', { applied_at: days(91) });
  const recent = await apply(t, 'new@example.com', { applied_at: days(89) });
  const duplicate = await apply(t, 'dup+duplicate@example.com');
  await api.runtime.poller.drain();
  expect(await read(t, duplicate)).toMatchObject({ sync_status: 'EXPECTED_FAILURE', outcome: null });
  expect((await watches()).sort()).toEqual([old, recent].sort());

  expect(await pass()).toMatchObject({ read: 1, changed: 1 });
  expect(await read(t, old)).toMatchObject({ sync_status: 'SUCCESS', outcome: null, outcome_updated_at: null });
  expect(await read(t, recent)).toMatchObject({ outcome: 'PENDING' });

  // A shorter window takes effect at once: the 89-day-old one is no longer read either.
  process.env.OUTCOME_TRACK_DAYS = '30';
  try {
    expect(await pass()).toMatchObject({ read: 0, changed: 0 });
  } finally {
    delete process.env.OUTCOME_TRACK_DAYS;
  }
});

test('P320: readings grow rarer with age; six hourly passes read 9 times, not 30, and write first readings and one log record per reading', async () => {
  const t = await tenant();
  // Every pass of this test has a known anchor: the clock is put just past the next full hour, then moved an hour a time.
  const HOUR = 3_600_000;
  const anchor = Math.ceil(Date.now() / HOUR) * HOUR;
  advanceClock(anchor + 60_000 - Date.now());
  const ago = (ms: number) => new Date(anchor - ms).toISOString();
  const ages = {
    fresh: 2 * HOUR, // its first day: every pass
    sixHourlyNow: 2 * 24 * HOUR + HOUR / 2, // days 1–7, due at this anchor (48 h after the day started)…
    sixHourlyLater: 2 * 24 * HOUR + 3.5 * HOUR, // … and one due 3 hours later
    dailyNow: 10 * 24 * HOUR + HOUR / 2, // after day 7: once a day, due now
    dailyLater: 10 * 24 * HOUR + 5.5 * HOUR, // due 18.5 hours later: not in these six passes
  };
  const ids: Record<string, number> = Object.create(null);
  for (const [name, age] of Object.entries(ages)) ids[name] = await apply(t, `${name.toLowerCase()}@example.com`, { applied_at: ago(age) });
  await api.runtime.poller.drain();
  expect((await watches()).sort()).toEqual(Object.values(ids).sort());

  const passes = [];
  for (let hour = 0; hour < 6; hour++) {
    if (hour) advanceClock(HOUR);
    passes.push(await pass());
  }
  // Read: the fresh one each pass, each six-hourly one once (at 0 and at +3 h), the daily one due now once.
  expect(passes.map((p) => p.read)).toEqual([3, 1, 1, 2, 1, 1]);
  expect(passes.map((p) => p.failed)).toEqual([0, 0, 0, 0, 0, 0]);
  // Written: the first reading of each (PENDING, 4 units), and every reading's delivery log record (1 each, P350);
  // the schedule itself writes nothing (no watch or DUE entry moves).
  expect(passes.map((p) => p.changed)).toEqual([3, 0, 0, 1, 0, 0]);
  expect(passes.map((p) => p.units.write)).toEqual(passes.map((p) => 4 * p.changed + p.read));
  expect(passes.map((p) => p.units.write)).toEqual([15, 1, 1, 6, 1, 1]);
  for (const id of [ids.fresh, ids.sixHourlyNow, ids.sixHourlyLater, ids.dailyNow])
    expect(await read(t, id)).toMatchObject({ outcome: 'PENDING', outcome_stage: 'Applied' });
  expect(await read(t, ids.dailyLater)).toMatchObject({ outcome: null });
  // Read units (DynamoDB Local's accounting): they follow the readings, not the ranges queried. The passes that
  // read only the fresh one cost alike, and each further reading adds the same (its range's keys, the BatchGet
  // of application and watch, the sandbox's own reads), whatever its age: the ~70 other ranges each pass
  // queries are empty, which DynamoDB Local counts as 0 (AWS bills at least 0.5 a Query: the bill counts them).
  const [first, , , withB] = passes.map((p) => p.units.read);
  const onlyFresh = passes.filter((p) => p.read === 1).map((p) => p.units.read);
  expect(onlyFresh).toEqual(Array(4).fill(onlyFresh[0]));
  expect(withB - onlyFresh[0]).toBeGreaterThan(0);
  expect(withB - onlyFresh[0]).toBeLessThanOrEqual(3);
  expect(first - onlyFresh[0]).toBe(2 * (withB - onlyFresh[0]));
});
