/**
 * The reference month's DynamoDB bill (issue 22, item 1): what the service's traffic of a month costs at
 * on-demand prices, from request units measured on DynamoDB Local (transactions priced by AWS's formula, P188).
 *
 * - Changes, measured here on the local runtime in this process (no timers, the pollers run on demand), each
 *   with every write it causes afterwards: the request (`X-DynamoDB-Capacity`), the outbox relay deleting its
 *   events, and for a sync the worker. Background work runs inside `withRequestMetrics`, the account the HTTP
 *   adapter keeps per request. test/http/change-costs.test.ts asserts the same figures.
 * - List pages and reads by id: the rows of the last `npm run bench:scale` at 10,000 applications
 *   (docs/benchmarks.json, key "scale"), in the mix below.
 *
 * Writes docs/benchmarks.json (key "bill") and the "Bill" section of docs/benchmarks.md.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import type { ServiceEvent } from '#platform/events.js';

/** On-demand prices, us-east-1, per million request units (aws.amazon.com/dynamodb/pricing/on-demand/, since 2024-11-01). */
const PRICE = { write: 0.625, read: 0.125 };

/** The reference month of issue 22. */
const MONTH = { creates: 1_000_000, syncMoves: 3_000_000, companyWrites: 20_000, listPages: 10_000_000, readsById: 50_000_000 };
/**
 * Issue 44 (D23): ATS calls per sync, each one delivery log record. Assumed: the sandbox makes one call, the real
 * connectors one to three (a submission, uploads or answers, the occasional retry); two on average.
 */
const ATS_CALLS_PER_SYNC = 2;
/**
 * Issue 43 (D21, P320): outcomes. Assumed, as P299: every created application is delivered to an ATS that reads
 * outcomes (the upper bound), 30 % reach a final outcome, on average at day 45, the others are read for the
 * whole `OUTCOME_TRACK_DAYS` (90); passes hourly (`OUTCOME_POLL_MINUTES` 60), 720 a month.
 */
const OUTCOMES = { finalShare: 0.3, finalAtDay: 45, trackDays: 90, pollMinutes: 60, passes: 720 };
/**
 * Issue 43, what P320 left out (P347). Assumed: a quarter of the delivered applications go to an ATS that tells
 * outcomes by webhooks (Greenhouse, Lever) and the rest to one that reads them (so the reading lines count 75 %, not
 * the upper bound of 100 % they counted before); each application moves one stage under PENDING between its first
 * and its final outcome (P345); a fifth of the applications come in through an apply channel whose board takes
 * dispositions (D22), each reporting NEW, the first PENDING, the stage move and, for 30 %, the final outcome, each
 * flushed on its own (the upper bound: one that shares its board's batch window costs 2 write units less).
 */
const WEBHOOK_ATS_SHARE = 0.25;
const STAGE_MOVES = 1;
const APPLY_CHANNEL_SHARE = 0.2;

/** The list mix: weights (summing to 1) over bench:scale's rows at 10,000 (list, kind; the mean of its rows). */
const LIST_MIX: [list: string, kind: string, weight: number][] = [
  ['applications', 'unfiltered, first page', 0.2],
  ['applications', 'unfiltered, next page', 0.2],
  ['applications', 'exact, 10 matches', 0.1],
  ['applications', 'exact, many matches', 0.05],
  ['applications', 'exact, 1 match', 0.05],
  ['applications', 'combined, 10 matches', 0.03],
  ['applications', 'combined, many matches', 0.02],
  ['applications', 'date, many matches', 0.03],
  ['applications', 'date, many matches, next page', 0.02],
  ['applications', 'bare page=N', 0.01],
  ['jobs', 'unfiltered, first page', 0.11],
  ['jobs', 'exact, 10 matches', 0.04],
  ['jobs', 'exact, many matches', 0.03],
  ['jobs', 'contains, 10 matches', 0.03],
  ['jobs', 'bare page=N', 0.01],
  ['companies', 'unfiltered, first page', 0.03],
  ['companies', 'ordering', 0.02],
  ['companies', 'exact, 10 matches', 0.01],
  ['companies', 'contains, 10 matches', 0.01],
];
/** Reads by id: jobs (a job board's detail pages) and applications (status polling). */
const BY_ID_MIX: [list: string, weight: number][] = [
  ['jobs', 0.6],
  ['applications', 0.4],
];

const COMMAND = 'npm run bench:bill';
// Set before the runtime (and its logger) load.
process.env.LOG_LEVEL = 'ERROR';
// The sandbox moves a +hired application an hour after it accepted it; the bench moves the clock past it.
process.env.SANDBOX_OUTCOME_SECONDS = '3600';
// Dispositions go to a loopback board (below); Greenhouse's credentials check to a loopback stand-in.
process.env.WEBHOOK_ALLOW_LOOPBACK_HTTP = 'true';
const { createServer } = await import('node:http');
const { createHmac, randomUUID } = await import('node:crypto');
/** A board that takes every disposition, and a stand-in for Greenhouse's Job Board API (an empty board; a POST refused as 400, not 401). */
const loopback = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const board = req.method === 'GET';
    res.writeHead(board ? 200 : req.url?.startsWith('/dispositions') ? 204 : 400, { 'Content-Type': 'application/json' });
    res.end(board ? '{"jobs":[],"meta":{"total":0}}' : '');
  });
});
await new Promise<void>((resolve) => loopback.listen(0, '127.0.0.1', resolve));
const loopbackUrl = `http://127.0.0.1:${(loopback.address() as { port: number }).port}`;
process.env.GREENHOUSE_API_URL = loopbackUrl;
const dataDir = mkdtempSync(join(tmpdir(), 'his-bill-'));
const { startRuntime } = await import('../local/runtime.js');
const runtime = await startRuntime({ dataDir, port: 0, host: '127.0.0.1', seed: false, schedules: false, poller: false, dropTable: true });
const { currentMetrics, withRequestMetrics } = await import('#platform/request-metrics.js');
const { createPartner } = await import('#companies/partners.js');
const { createApiKey } = await import('#companies/api-keys.js');
const { createCompany } = await import('#companies/company-store.js');
const { importJobs } = await import('#jobs/job-store.js');
const { queryAll } = await import('#platform/batch.js');
const { itemBytes } = await import('#platform/item-size.js');
const { advanceClock, resetClock } = await import('#platform/clock.js');
const { readingWindows } = await import('#delivery/outcomes.js');
const { watchOutcome, watchedApplications, stopWatchingOutcome } = await import('#applications/outcome-store.js');
const { OUTCOME_WATCH_SHARDS } = await import('#platform/keys.js');

type Cost = { read: number; write: number };
const add = (a: Cost, b: Cost): Cost => ({ read: a.read + b.read, write: a.write + b.write });

async function measured(work: () => Promise<unknown>): Promise<Cost> {
  return withRequestMetrics(async () => {
    await work();
    const m = currentMetrics()!;
    return { read: m.readUnits, write: m.writeUnits };
  });
}
const relay = () => measured(() => runtime.relay.drain());
const worker = () => measured(() => runtime.poller.drain());

async function request(method: string, path: string, key: string, companyId: number, body?: unknown) {
  const res = await fetch(`${runtime.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, 'Company-Id': String(companyId), 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  const match = /read=([\d.]+); write=([\d.]+)/.exec(res.headers.get('x-dynamodb-capacity') ?? '');
  if (!match) throw new Error(`${method} ${path}: no X-DynamoDB-Capacity`);
  return { body: JSON.parse(text) as Record<string, any>, cost: { read: Number(match[1]), write: Number(match[2]) } };
}

/**
 * P326, issue 44's "writing the log must not slow a submission": the worker's sync of one application (sandbox ATS,
 * `syncApplication` called directly, so no queue wait is timed), with the delivery log on and off, alternating sync
 * by sync (LOG_TIMING_PAIRS pairs) so that the machine's load falls on both alike. Each arm's median and mean, the
 * ratio on / off, and the median of the pairs' differences.
 */
const LOG_TIMING_PAIRS = Number(process.env.LOG_TIMING_PAIRS ?? 60);
type LogTiming = { pairs: number; onMs: number; offMs: number; ratio: number; onMean: number; offMean: number; pairDiffMs: number };
let logTiming: LogTiming | undefined;
async function timeSyncs(createOne: (i: number) => Promise<{ body: Record<string, any> }>): Promise<LogTiming> {
  const { syncApplication } = await import('#delivery/sync.js');
  const { setDeliveryLog } = await import('#delivery/delivery-log.js');
  const times: Record<'on' | 'off', number[]> = { on: [], off: [] };
  const ids: number[] = [];
  for (let i = 0; i < LOG_TIMING_PAIRS * 2; i++) ids.push((await createOne(i)).body.id as number);
  try {
    for (const [i, id] of ids.entries()) {
      // on, off, off, on, …: neither arm always goes first.
      const arm = i % 4 === 0 || i % 4 === 3 ? 'on' : 'off';
      setDeliveryLog(arm === 'on');
      const started = performance.now();
      await syncApplication(id);
      times[arm].push(performance.now() - started);
    }
  } finally {
    setDeliveryLog(true);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const [onMs, offMs] = [median(times.on), median(times.off)];
  return {
    pairs: times.on.length,
    onMs,
    offMs,
    ratio: onMs / offMs,
    onMean: mean(times.on),
    offMean: mean(times.off),
    pairDiffMs: median(times.on.map((t, i) => t - times.off[i])),
  };
}

const changes: Record<string, Cost> = Object.create(null);

/**
 * Issue 43 (D22, P316, P345): one disposition of each kind, measured as the webhook worker makes it (its fan-out's
 * `queueDisposition`, or `queueStageDisposition` for a stage move the relay handed over, then the channel's flush to a
 * loopback board), for an application the board posted to its apply channel; and the fan-out's check of an event whose
 * application came from no board (every sync and outcome event pays it).
 */
async function measureDispositions(partner: number, key: string, companyId: number, jobId: number) {
  const { createChannel } = await import('#applications/channels.js');
  const { applyChannelItems, checkApplyChannelInput, setChannelDisposition } = await import('#companies/apply-channels.js');
  const { setEntitlements } = await import('#companies/company-store.js');
  const { forgetCachedCompany } = await import('#companies/api-keys.js');
  const { applyToken, applyTokenKey, forgetCachedApplyChannels } = await import('#jobs/apply-links.js');
  const { queueDisposition, queueStageDisposition, flushDispositions } = await import('#delivery/dispositions.js');
  const { Webhook } = await import('standardwebhooks');
  const inbound = checkApplyChannelInput({ slug: 'bill-board', format: 'generic' });
  const channel = await createChannel({ slug: 'bill-board', name: 'Bill board' }, (c) =>
    applyChannelItems(c, inbound.format, inbound.secret),
  );
  await setChannelDisposition('bill-board', { disposition_url: `${loopbackUrl}/dispositions` });
  await setEntitlements(companyId, ['job_sync', 'candidate_sync', 'apply:bill-board']);
  forgetCachedCompany(companyId);
  forgetCachedApplyChannels();
  const body = JSON.stringify({ candidate: { email: 'board@example.com', full_name: 'Ada Lovelace' }, partner_application_id: 'B-1' });
  const at = new Date();
  const res = await fetch(
    `${runtime.url}/apply/bill-board/${applyToken(applyTokenKey(), companyId, jobId, { channel_id: channel.id, generation: 1 })}`,
    {
      method: 'POST',
      body,
      headers: {
        'Content-Type': 'application/json',
        'webhook-id': 'msg_bill',
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(inbound.secret).sign('msg_bill', at, body),
      },
    },
  );
  if (res.status !== 201) throw new Error(`apply: ${res.status} ${await res.text()}`);
  const id = ((await res.json()) as { id: number }).id;
  await relay();
  await worker();
  await relay();
  const event = (
    type: 'application.sync_status_changed' | 'application.outcome_changed',
    application: number,
    sequence: number,
  ): ServiceEvent => ({
    id: randomUUID(),
    type,
    occurred_at: new Date().toISOString(),
    company: companyId,
    sequence,
    data: (type === 'application.outcome_changed'
      ? { id: application, outcome: 'PENDING', previous_outcome: null }
      : {
          application_id: application,
          job_id: jobId,
          sync_status: 'SUCCESS',
          previous_sync_status: 'NOTSENT',
          failure_error: null,
        }) as ServiceEvent['data'],
  });
  const flushed = () => measured(() => flushDispositions(channel.id, 1));
  const queued = await measured(async () => {
    if (!(await queueDisposition(event('application.sync_status_changed', id, 2)))) throw new Error('no disposition flush asked for');
  });
  changes['disposition (NEW or an outcome), flushed on its own'] = add(queued, await flushed());
  const stage = await measured(() =>
    queueStageDisposition({
      kind: 'disposition-stage',
      company: companyId,
      application: id,
      job: jobId,
      channel: channel.id,
      partner_application_id: 'B-1',
      outcome: 'PENDING',
      stage: 'Interview',
      occurred_at: new Date().toISOString(),
      sequence: 2,
      id: 'stage-bill',
    }),
  );
  changes['disposition of a stage move (P345), flushed on its own'] = add(stage, await flushed());
  // An application no board sent: the fan-out reads its source and stops.
  const plain = await request('POST', '/applications/', key, companyId, {
    job: jobId,
    candidate: { email: 'p@example.com', full_name: 'Ada' },
  });
  changes['fan-out source check of an event (every sync and outcome event)'] = await measured(() =>
    queueDisposition(event('application.outcome_changed', Number(plain.body.id), 2)),
  );
  await setEntitlements(companyId, ['job_sync', 'candidate_sync']);
  forgetCachedCompany(companyId);
}

/**
 * Issue 43 (P310–P313): a Greenhouse company's signed web hooks, through `POST /ats-webhooks/{token}` (the route's
 * `X-DynamoDB-Capacity`): the reference the sync worker keeps at delivery (`rememberDelivery`), the first web hook
 * (found by e-mail, linked to Greenhouse's id, PENDING), a stage move and a final one (found by that id).
 */
async function measureAtsWebhooks(partner: number, key: string) {
  const { connectCompany } = await import('#delivery/ats-connections.js');
  const { atsWebhookSetup, rememberDelivery } = await import('#delivery/ats-webhooks.js');
  const { getApplicationRecord } = await import('#applications/application-store.js');
  // job_sync only: the application below is not queued for a sync (the stand-in takes none); the bench keeps its reference as the worker would.
  const gh = await createCompany({ partner, name: 'Bill Greenhouse Ltd', ats: 'sandbox', entitlements: ['job_sync'] });
  await connectCompany(gh.id, 'greenhouse', { board_token: 'bill-board', api_key: 'bill-greenhouse-key' });
  await importJobs(gh.id, [{ external_id: '4242', title: 'Webhook job' }]);
  const jobId = (await request('GET', '/jobs?external_id=4242', key, gh.id)).body.results[0].id as number;
  const created = await request('POST', '/applications/', key, gh.id, {
    job: jobId,
    candidate: { email: 'gh@example.com', full_name: 'Ada' },
  });
  await relay();
  const record = (await getApplicationRecord(Number(created.body.id)))!;
  changes['ATS webhook reference (kept at delivery, P311)'] = await measured(() =>
    rememberDelivery(record, { ats: 'greenhouse' }, { externalId: null, jobExternalId: '4242' }),
  );
  const hook = (await atsWebhookSetup({ id: gh.id, ats: 'greenhouse' }, runtime.url))!;
  const send = async (action: string, status: string, stage: string | null) => {
    const payload = {
      action,
      payload: {
        application: {
          id: 880_001,
          status,
          ...(stage ? { current_stage: { name: stage } } : {}),
          candidate: { email_addresses: [{ value: 'gh@example.com', type: 'personal' }] },
          jobs: [{ job_post_id: 4242 }],
        },
      },
    };
    const text = JSON.stringify(payload);
    const signature = `sha256 ${createHmac('sha256', hook.secret!).update(text).digest('hex')}`;
    const res = await fetch(hook.url, {
      method: 'POST',
      body: text,
      headers: { 'Content-Type': 'application/json', Signature: signature },
    });
    const answer = (await res.json()) as { result?: string };
    if (res.status !== 200 || answer.result !== 'recorded') throw new Error(`ATS webhook: ${res.status} ${JSON.stringify(answer)}`);
    const match = /read=([\d.]+); write=([\d.]+)/.exec(res.headers.get('x-dynamodb-capacity') ?? '');
    if (!match) throw new Error('ATS webhook: no X-DynamoDB-Capacity');
    return add({ read: Number(match[1]), write: Number(match[2]) }, await relay());
  };
  changes['ATS webhook, first (found by e-mail, linked; PENDING)'] = await send('candidate_stage_change', 'active', 'Phone Screen');
  changes['ATS webhook, a stage move (found by its id)'] = await send('candidate_stage_change', 'active', 'Onsite Interview');
  changes['ATS webhook, final (HIRED)'] = await send('hire_candidate', 'hired', null);
}

try {
  const partner = await createPartner('Bill partner', 'agency');
  const key = (await createApiKey({ partner: partner.id })).key;
  const company = await createCompany({ partner: partner.id, name: 'Bill Ltd', ats: 'sandbox', entitlements: ['job_sync'] });
  const syncing = await createCompany({
    partner: partner.id,
    name: 'Bill Sync Ltd',
    ats: 'sandbox',
    entitlements: ['job_sync', 'candidate_sync'],
  });
  const jobs = Array.from({ length: 10 }, (_, i) => ({ external_id: `J-${i}`, title: `Engineer ${i}`, city: 'Berlin' }));
  for (const c of [company, syncing]) await importJobs(c.id, jobs);
  const jobOf = async (companyId: number) => (await request('GET', '/jobs?external_id=J-0', key, companyId)).body.results[0].id as number;
  const job = await jobOf(company.id);
  const syncJob = await jobOf(syncing.id);
  await relay();
  await worker();

  const ids = (i: number) => ({
    channel: 'channel-1',
    partner_job_id: `PJ-${i}`,
    partner_company_id: 'PC-1',
    partner_application_id: `PA-${i}`,
    agency_job_id: `AJ-${i}`,
  });
  const create = (companyId: number, jobId: number, i: number, extra = {}) =>
    request('POST', '/applications/', key, companyId, {
      job: jobId,
      candidate: { email: `c${i}@example.com`, full_name: 'Ada Lovelace' },
      ...extra,
    });
  // The first create of an instance allocates a block of ids: not measured.
  await create(company.id, job, 0);
  await relay();
  const plain = await create(company.id, job, 1);
  changes['create, no partner ids'] = add(plain.cost, await relay());
  const full = await create(company.id, job, 2, ids(2));
  changes['create, every partner id'] = add(full.cost, await relay());
  const synced = await create(syncing.id, syncJob, 3);
  await relay();
  const sync = add(await worker(), await relay());
  // Issue 44 (D23): the worker's total holds the delivery log's write for the sync's one ATS call; it is billed on its
  // own line (per ATS call), so the status move keeps its figure of before.
  const logItems = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :d)',
    ExpressionAttributeValues: { ':pk': `APPLICATION#${synced.body.id}`, ':d': 'DELIVERY#' },
  });
  const logWrite = logItems.reduce((sum, item) => sum + Math.ceil(itemBytes(item) / 1024), 0);
  if (logItems.length !== 1) throw new Error(`the sandbox sync wrote ${logItems.length} delivery log records, not 1`);
  // Issue 43 (P298): the sandbox reads outcomes, so the sync also put the outcome watch; billed on its own line.
  // Its cost measured alone: the same put for an application id no other item has (then deleted).
  const watchWrite = (
    await measured(() =>
      watchOutcome({ id: 900_000_001, applied_at: new Date().toISOString() }, { reference: 'R', job_external_id: 'J' }, 90),
    )
  ).write;
  await stopWatchingOutcome(900_000_001);
  changes['sync status move (NOTSENT → SUCCESS)'] = { read: sync.read, write: sync.write - logWrite - watchWrite };
  changes['delivery log record (one ATS call)'] = { read: 0, write: logWrite };
  changes['outcome watch (put at delivery, P298)'] = { read: 0, write: watchWrite };
  // Outcomes (D21, P299, P320): an application that the sandbox moves to HIRED. Its first reading records
  // PENDING (a change), an unchanged reading writes only its delivery log record (P350: every reading has one), the
  // final one records HIRED and deletes the watch. What a reading reads of ours: the BatchGet of the application and its watch
  // (the sandbox's own reads of its state stand for the ATS's answer and are not ours).
  await stopWatchingOutcome(Number(synced.body.id)); // only the application below is read
  const hired = await create(syncing.id, syncJob, 4, { candidate: { email: 'c4+hired@example.com', full_name: 'Ada Lovelace' } });
  await relay();
  await worker();
  await relay();
  const pass = () => measured(() => runtime.scheduler.run('OutcomeReader'));
  const firstReading = add(await pass(), await relay());
  const unchanged = await pass();
  if (unchanged.write !== logWrite)
    throw new Error(`an unchanged outcome reading wrote ${unchanged.write} units, not its log record's ${logWrite}`);
  advanceClock(3_601_000);
  const finalReading = add(await pass(), await relay());
  resetClock();
  const perReading = await measured(() => watchedApplications([Number(hired.body.id)]));
  changes['outcome reading (BatchGet of application and watch; its delivery log record, P350)'] = {
    read: perReading.read,
    write: unchanged.write,
  };
  // The changes without their readings' log records, which the readings' line counts.
  changes['outcome change recorded (first PENDING)'] = { read: 0, write: firstReading.write - unchanged.write };
  changes['final outcome (HIRED), the watch deleted'] = { read: 0, write: finalReading.write - unchanged.write };
  const renamed = await request('PATCH', `/companies/${company.id}/`, key, company.id, { name: 'Bill Renamed Ltd' });
  changes['company write (rename)'] = add(renamed.cost, await relay());
  changes['job import run, 10 jobs unchanged'] = add(await measured(() => importJobs(company.id, jobs)), await relay());
  await measureDispositions(partner.id, key, syncing.id, syncJob);
  await measureAtsWebhooks(partner.id, key);
  // P326: a sync's time with the delivery log on and off, in this run (last: its syncs' events are not relayed).
  logTiming = await timeSyncs((i) => create(syncing.id, syncJob, 10_000 + i));
} finally {
  loopback.close();
  await runtime.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

const jsonPath = 'docs/benchmarks.json';
const json = JSON.parse(readFileSync(jsonPath, 'utf8')) as Record<string, any>;
const scaleRows = (json.scale.rows as { size: number; list: string; kind: string; read: number; write: number }[]).filter(
  (r) => r.size === 10_000,
);
function meanRead(list: string, kind: string): number {
  const rows = scaleRows.filter((r) => r.list === list && r.kind === kind);
  if (!rows.length) throw new Error(`bench:scale has no row "${list}, ${kind}" at 10,000`);
  return rows.reduce((sum, r) => sum + r.read, 0) / rows.length;
}
const listWeights = LIST_MIX.reduce((sum, [, , w]) => sum + w, 0);
if (Math.abs(listWeights - 1) > 1e-9) throw new Error(`the list mix weighs ${listWeights}, not 1`);
const perListPage = LIST_MIX.reduce((sum, [list, kind, w]) => sum + w * meanRead(list, kind), 0);
const perReadById = BY_ID_MIX.reduce((sum, [list, w]) => sum + w * meanRead(list, 'by id'), 0);

/** P320: how many readings an application gets in its first `days` (hourly passes, from the schedule itself). */
function readingsOver(days: number, pollMinutes: number): number {
  const pollMs = pollMinutes * 60_000;
  const applied = Date.UTC(2026, 0, 1, 0, 17);
  const iso = new Date(applied).toISOString();
  let count = 0;
  for (let t = Math.ceil(applied / pollMs) * pollMs; t < applied + days * 86_400_000; t += pollMs)
    if (readingWindows(new Date(t), pollMs, OUTCOMES.trackDays, iso).some((w) => iso >= w.from && (!w.to || iso < w.to))) count++;
  return count;
}
const readings = {
  pending: readingsOver(OUTCOMES.trackDays, OUTCOMES.pollMinutes),
  final: readingsOver(OUTCOMES.finalAtDay, OUTCOMES.pollMinutes),
};
/**
 * A reading's own reads priced as AWS bills them: BatchGetItem rounds each item up to 4 KB, 0.5 units eventually
 * consistent (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html), so the
 * application and its watch are 1 unit, where DynamoDB Local reports their sum rounded once (0.5).
 */
const readingUnits: Cost = {
  read: Math.max(changes['outcome reading (BatchGet of application and watch; its delivery log record, P350)'].read, 2 * 0.5),
  write: changes['outcome reading (BatchGet of application and watch; its delivery log record, P350)'].write,
};
const readingsPerApplication = (1 - OUTCOMES.finalShare) * readings.pending + OUTCOMES.finalShare * readings.final;
const hourlyPerApplication = (1 - OUTCOMES.finalShare) * OUTCOMES.trackDays * 24 + OUTCOMES.finalShare * OUTCOMES.finalAtDay * 24;
/** The range Queries of a pass: per shard, its oldest watch and every range due (at least 0.5 each on AWS, assumed). */
const rangesPerPass = readingWindows(new Date(Date.UTC(2026, 0, 1, 12)), OUTCOMES.pollMinutes * 60_000, OUTCOMES.trackDays).length;
const passRead = OUTCOME_WATCH_SHARDS * (1 + rangesPerPass) * 0.5;

const half = (a: Cost, b: Cost): Cost => ({ read: (a.read + b.read) / 2, write: (a.write + b.write) / 2 });
const lines: { item: string; count: number; perUnit: Cost }[] = [
  {
    item: 'creates (half with every partner id)',
    count: MONTH.creates,
    perUnit: half(changes['create, no partner ids'], changes['create, every partner id']),
  },
  { item: 'sync status moves', count: MONTH.syncMoves, perUnit: changes['sync status move (NOTSENT → SUCCESS)'] },
  {
    item: `delivery log records (${ATS_CALLS_PER_SYNC} ATS calls per sync, assumed)`,
    count: MONTH.syncMoves * ATS_CALLS_PER_SYNC,
    perUnit: changes['delivery log record (one ATS call)'],
  },
  {
    item: `outcome watches (one per application delivered to a reading ATS, ${(1 - WEBHOOK_ATS_SHARE) * 100} %)`,
    count: MONTH.creates * (1 - WEBHOOK_ATS_SHARE),
    perUnit: changes['outcome watch (put at delivery, P298)'],
  },
  {
    item: `outcome readings (P320: ${readings.pending} in 90 days, ${readings.final} to a final outcome at day ${OUTCOMES.finalAtDay}; ${OUTCOMES.finalShare * 100} % final)`,
    count: Math.round(MONTH.creates * (1 - WEBHOOK_ATS_SHARE) * readingsPerApplication),
    perUnit: readingUnits,
  },
  {
    item: `outcome reading passes (hourly; ${OUTCOME_WATCH_SHARDS} shards × ${1 + rangesPerPass} key Queries at 0.5, assumed)`,
    count: OUTCOMES.passes,
    perUnit: { read: passRead, write: 0 },
  },
  {
    item: 'outcome changes read: the first PENDING',
    count: MONTH.creates * (1 - WEBHOOK_ATS_SHARE),
    perUnit: changes['outcome change recorded (first PENDING)'],
  },
  {
    item: `outcome changes read: ${STAGE_MOVES} stage move under PENDING (P345, assumed), as a change`,
    count: MONTH.creates * (1 - WEBHOOK_ATS_SHARE) * STAGE_MOVES,
    perUnit: changes['outcome change recorded (first PENDING)'],
  },
  {
    item: `outcome changes read: final (${OUTCOMES.finalShare * 100} %), the watch deleted`,
    count: MONTH.creates * (1 - WEBHOOK_ATS_SHARE) * OUTCOMES.finalShare,
    perUnit: changes['final outcome (HIRED), the watch deleted'],
  },
  {
    item: `ATS webhook references (one per application delivered to a webhook ATS, ${WEBHOOK_ATS_SHARE * 100} %)`,
    count: MONTH.creates * WEBHOOK_ATS_SHARE,
    perUnit: changes['ATS webhook reference (kept at delivery, P311)'],
  },
  {
    item: 'ATS webhooks: the first (PENDING, linked)',
    count: MONTH.creates * WEBHOOK_ATS_SHARE,
    perUnit: changes['ATS webhook, first (found by e-mail, linked; PENDING)'],
  },
  {
    item: `ATS webhooks: ${STAGE_MOVES} stage move`,
    count: MONTH.creates * WEBHOOK_ATS_SHARE * STAGE_MOVES,
    perUnit: changes['ATS webhook, a stage move (found by its id)'],
  },
  {
    item: `ATS webhooks: final (${OUTCOMES.finalShare * 100} %)`,
    count: MONTH.creates * WEBHOOK_ATS_SHARE * OUTCOMES.finalShare,
    perUnit: changes['ATS webhook, final (HIRED)'],
  },
  {
    item: `dispositions: NEW, first PENDING, final (${APPLY_CHANNEL_SHARE * 100} % of applications from a board; each flushed alone)`,
    count: MONTH.creates * APPLY_CHANNEL_SHARE * (2 + OUTCOMES.finalShare),
    perUnit: changes['disposition (NEW or an outcome), flushed on its own'],
  },
  {
    item: `dispositions: ${STAGE_MOVES} stage move (P345)`,
    count: MONTH.creates * APPLY_CHANNEL_SHARE * STAGE_MOVES,
    perUnit: changes['disposition of a stage move (P345), flushed on its own'],
  },
  {
    item: "dispositions: the fan-out's source check of every sync and outcome event",
    count: MONTH.syncMoves + MONTH.creates * (1 + OUTCOMES.finalShare),
    perUnit: changes['fan-out source check of an event (every sync and outcome event)'],
  },
  { item: 'company writes', count: MONTH.companyWrites, perUnit: changes['company write (rename)'] },
  { item: 'list pages (mix below)', count: MONTH.listPages, perUnit: { read: perListPage, write: 0 } },
  { item: 'reads by id (60 % jobs, 40 % applications)', count: MONTH.readsById, perUnit: { read: perReadById, write: 0 } },
];
const dollars = (c: Cost, count: number) => (count * (c.read * PRICE.read + c.write * PRICE.write)) / 1e6;
const total = lines.reduce((sum, l) => sum + dollars(l.perUnit, l.count), 0);
const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

const machine = `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
const date = new Date().toISOString().slice(0, 10);
json.bill = {
  command: COMMAND,
  machine,
  date,
  price: PRICE,
  month: MONTH,
  listMix: LIST_MIX,
  byIdMix: BY_ID_MIX,
  changes,
  perListPage,
  perReadById,
  lines,
  total,
  outcomes: { ...OUTCOMES, readings, readingsPerApplication, hourlyPerApplication, rangesPerPass },
};
json.deliveryLogTiming = { command: COMMAND, machine, date, load: loadavg()[0], ...logTiming };
writeFileSync(jsonPath, `${JSON.stringify(json, null, 2)}\n`);

/** The month before issue 22's redesign (docs/benchmarks.json `billBefore`, from the first run of this bench). */
const before = json.billBefore as
  { date: string; commit: string; changes: Record<string, Cost>; lines: typeof lines; total: number } | undefined;
const beforeChange = (name: string) => before?.changes[name];
const beforeLine = (item: string) => before?.lines.find((l) => l.item === item);
const section = [
  '<!-- bill:start -->',
  '## Bill: the reference month at on-demand prices (issue 22)',
  '',
  `Command: \`${COMMAND}\` (runs \`bench/bill.ts\`). Machine: ${machine}. ${date}. Units on DynamoDB Local, transactions priced by AWS's formula (P188); prices us-east-1 on-demand, $${PRICE.write} per million write and $${PRICE.read} per million read request units. Changes measured in this run with every write they cause (request, relay, worker); list pages and reads by id from \`bench:scale\`'s rows at 10,000 applications.`,
  '',
  `Before: the run of ${before?.date ?? '–'} (commit ${before?.commit ?? '–'}), before issue 22 changed any write.`,
  '',
  '| change | read | write | write before |',
  '|---|---|---|---|',
  ...Object.entries(changes).map(([name, c]) => `| ${name} | ${round(c.read)} | ${round(c.write)} | ${beforeChange(name)?.write ?? '–'} |`),
  '',
  '| month | count | read / each | write / each | $ | $ before |',
  '|---|---|---|---|---|---|',
  ...lines.map((l) => {
    const was = beforeLine(l.item);
    return `| ${l.item} | ${l.count.toLocaleString('en')} | ${round(l.perUnit.read)} | ${round(l.perUnit.write)} | ${round(dollars(l.perUnit, l.count))} | ${was ? round(dollars(was.perUnit, was.count)) : '–'} |`;
  }),
  `| **total** | | | | **${round(total)}** | ${before ? round(before.total) : '–'} |`,
  '',
  `Outcomes (issue 43, P320, P347): every application assumed delivered to an ATS that reports outcomes, ${(1 - WEBHOOK_ATS_SHARE) * 100} % to one that reads them and ${WEBHOOK_ATS_SHARE * 100} % to one that tells them by webhooks (Greenhouse, Lever; measured with Greenhouse's: found by e-mail, then by its id), ${OUTCOMES.finalShare * 100} % final at day ${OUTCOMES.finalAtDay} on average, ${STAGE_MOVES} stage move under PENDING each; ${APPLY_CHANNEL_SHARE * 100} % of the applications come from a board's apply channel that takes dispositions (D22), each disposition billed as flushed on its own (one that shares its board's batch window costs 2 write units less). Per application the webhook path costs less than the readings (no watch, no reading), so this split lowers the outcome lines from the all-reading upper bound of P320. With the schedule of P320 an application is read ${round(readingsPerApplication, 1)} times on average (${readings.pending} over 90 days); read hourly for 90 days it would be ${round(hourlyPerApplication)} times, $${round(dollars(readingUnits, MONTH.creates * (1 - WEBHOOK_ATS_SHARE) * hourlyPerApplication))} a month in readings (of the ${(1 - WEBHOOK_ATS_SHARE) * 100} % read) instead of $${round(dollars(readingUnits, MONTH.creates * (1 - WEBHOOK_ATS_SHARE) * readingsPerApplication))}. A reading's own reads are priced as AWS rounds a BatchGetItem's items (${readingUnits.read} units: 0.5 for the application and 0.5 for its watch; DynamoDB Local reports ${changes['outcome reading (BatchGet of application and watch; its delivery log record, P350)'].read}), an empty Query at 0.5 (DynamoDB Local reports 0). Every reading, changed or not, writes its record in the delivery log (${readingUnits.write} unit, P350); the schedule moves no watch or index entry.`,
  '',
  `List mix (weights of bench:scale's row kinds at 10,000; a kind with several rows counts their mean): ${LIST_MIX.map(([list, kind, w]) => `${list} ${kind} ${Math.round(w * 100)} %`).join(', ')}.`,
  '<!-- bill:end -->',
].join('\n');
const ms = (n: number) => round(n, 1);
const timingSection = [
  '<!-- delivery-log-timing:start -->',
  "## The delivery log and a sync's time (issue 44, P326)",
  '',
  `Command: \`${COMMAND}\` (its last step, \`timeSyncs\` in \`bench/bill.ts\`). Machine: ${machine}, load average ${round(loadavg()[0], 1)} at the end. ${date}. The worker's sync of one application to the sandbox ATS (\`syncApplication\`, no queue wait), ${logTiming?.pairs ?? 0} syncs with the delivery log on and as many with it off (building and writing the records skipped), alternating sync by sync, on DynamoDB Local.`,
  '',
  '| log | median ms | mean ms |',
  '|---|---|---|',
  `| on | ${ms(logTiming?.onMs ?? NaN)} | ${ms(logTiming?.onMean ?? NaN)} |`,
  `| off | ${ms(logTiming?.offMs ?? NaN)} | ${ms(logTiming?.offMean ?? NaN)} |`,
  `| **on / off** | **${round(logTiming?.ratio ?? NaN)}x** | ${round((logTiming?.onMean ?? NaN) / (logTiming?.offMean ?? NaN))}x |`,
  '',
  `Median of the pairs' differences (on − off): ${ms(logTiming?.pairDiffMs ?? NaN)} ms.`,
  '<!-- delivery-log-timing:end -->',
].join('\n');
const mdPath = 'docs/benchmarks.md';
let md = readFileSync(mdPath, 'utf8');
/** Replaces the section between a marker pair, or adds it at the end. */
function replaceSection(text: string, name: string, body: string): string {
  const [open, close] = [`<!-- ${name}:start -->`, `<!-- ${name}:end -->`];
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  return start >= 0 && end > start ? text.slice(0, start) + body + text.slice(end + close.length) : `${text.trimEnd()}\n\n${body}\n`;
}
md = replaceSection(md, 'bill', section);
md = replaceSection(md, 'delivery-log-timing', timingSection);
writeFileSync(mdPath, md);
process.stdout.write(`${section}\n\n${timingSection}\n`);
process.exit(0);
