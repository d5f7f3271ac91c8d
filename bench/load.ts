/**
 * Load check (issue 12): 500 concurrent creates (LOAD_CREATES to change it) through the local server's HTTP
 * (a child process, as `npm start` runs it, with its sync worker and outbox relay polling in the background)
 * against the demo company (sandbox ATS, candidate sync). It reports:
 * - 5xx answers, lost applications (a 201 whose application is missing or never final, or events of it that
 *   never arrive) and duplicated ones (list entries or ATS receipts beyond one per 201, or two event ids for
 *   one change) — all must be 0;
 * - the time from the first request until every application is final (the list's NOTSENT total is 0) and
 *   until every event is delivered (`application.created` and `application.sync_status_changed` of each, on
 *   a queue subscribed to the events topic);
 * - the create's DynamoDB units as the `X-DynamoDB-Capacity` header reports them (its event rides on the
 *   application item since P240).
 *
 * Writes docs/benchmarks.json (key "load") and the "Load" section of docs/benchmarks.md.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { CreateQueueCommand, DeleteMessageBatchCommand, GetQueueAttributesCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { startService } from './harness.js';

const CREATES = Number(process.env.LOAD_CREATES ?? 500);
const COMMAND = `npm run bench:load${process.env.LOAD_CREATES ? ` (LOAD_CREATES=${CREATES})` : ''}`;
const TIMEOUT_MS = Number(process.env.LOAD_TIMEOUT_SECONDS ?? 600) * 1000;

const service = await startService();
Object.assign(process.env, service.env, { LOG_LEVEL: 'ERROR' });
// Imported after the environment points at the service's emulators.
const { sqs } = await import('#platform/clients.js');
const { sandboxReceipts } = await import('#delivery/connectors/sandbox.js');

const { partnerKey, companyId } = service.demo;
const headers = { Authorization: `Bearer ${partnerKey}`, 'Company-Id': String(companyId) };

async function get(path: string): Promise<any> {
  const res = await fetch(`${service.url}${path}`, { headers });
  if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  return res.json();
}

/** Every record of a list, following `next`. */
async function listAll(query = ''): Promise<{ count: number; records: Record<string, any>[] }> {
  let path: string | undefined = `/applications/?page_size=50${query}`;
  const records: Record<string, any>[] = [];
  let count = -1;
  while (path) {
    const body: { count: number; results: Record<string, any>[]; next?: string | null } = await get(path);
    if (count < 0) count = body.count;
    records.push(...body.results);
    path = body.next ? ((u: URL) => `${u.pathname}${u.search}`)(new URL(body.next)) : undefined;
  }
  return { count, records };
}

try {
  // A queue subscribed to the events topic, as a consumer (the partner webhooks, for one) would have. SNS's
  // Subscribe through its query API: nothing here imports the SNS client (only the relay may, P115).
  const queueName = 'load-events';
  const queueUrl = (await sqs().send(new CreateQueueCommand({ QueueName: queueName }))).QueueUrl!;
  const queueArn = (await sqs().send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }))).Attributes!
    .QueueArn!;
  const subscribed = await fetch(service.env.AWS_ENDPOINT_URL_SNS, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      Action: 'Subscribe',
      Version: '2010-03-31',
      TopicArn: service.env.EVENTS_TOPIC_ARN,
      Protocol: 'sqs',
      Endpoint: queueArn,
      'Attributes.entry.1.key': 'RawMessageDelivery',
      'Attributes.entry.1.value': 'true',
    }),
  });
  if (!subscribed.ok) throw new Error(`subscribe: ${subscribed.status} ${await subscribed.text()}`);

  const job = (await get('/jobs?external_id=demo-1001')).results[0].id as number;
  const before = await listAll();

  const started = performance.now();
  const answers = await Promise.all(
    Array.from({ length: CREATES }, async (_, i) => {
      try {
        const res = await fetch(`${service.url}/applications/`, {
          method: 'POST',
          headers: { ...headers, 'Content-Type': 'application/json' },
          body: JSON.stringify({ job, candidate: { email: `load-${i}@example.com`, full_name: `Load ${i}` } }),
        });
        const body = (await res.json()) as { id?: number };
        const units = Number(/units=([\d.]+)/.exec(res.headers.get('x-dynamodb-capacity') ?? '')?.[1] ?? NaN);
        return { status: res.status, id: body.id, units };
      } catch {
        return { status: 0, id: undefined, units: NaN };
      }
    }),
  );
  const createsMs = performance.now() - started;
  const created = new Set(answers.filter((a) => a.status === 201).map((a) => a.id!));
  const serverErrors = answers.filter((a) => a.status >= 500).length;
  const dropped = answers.filter((a) => a.status === 0).length;
  const otherStatus = answers.filter((a) => a.status !== 201 && a.status < 500 && a.status !== 0).length;

  // Until every application is final (the per-status total of NOTSENT is 0), reading events meanwhile.
  const events = new Map<string, Set<string>>(); // "<application> <type>" → event ids
  let messages = 0;
  const drainEvents = async () => {
    for (;;) {
      const out = await sqs().send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
      if (!out.Messages?.length) return;
      for (const m of out.Messages) {
        const body = JSON.parse(m.Body!) as { Message?: string };
        const event = JSON.parse(body.Message ?? m.Body!) as { id: string; type: string; data: { application_id?: number } };
        if (event.data.application_id === undefined || !created.has(event.data.application_id)) continue;
        messages += 1;
        const key = `${event.data.application_id} ${event.type}`;
        events.set(key, (events.get(key) ?? new Set()).add(event.id));
      }
      await sqs().send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: out.Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
    }
  };
  const expectedEvents = created.size * 2;
  let finalMs: number | undefined;
  let deliveredMs: number | undefined;
  while (performance.now() - started < TIMEOUT_MS && (finalMs === undefined || deliveredMs === undefined)) {
    await drainEvents();
    if (finalMs === undefined && (await get('/applications/?sync_status=NOTSENT&page_size=1')).count === 0)
      finalMs = performance.now() - started;
    if (deliveredMs === undefined && events.size >= expectedEvents) deliveredMs = performance.now() - started;
    await new Promise((r) => setTimeout(r, 250));
  }

  const after = await listAll();
  const newRecords = after.records.filter((r) => !before.records.some((b) => b.id === r.id));
  const byId = new Map(newRecords.map((r) => [r.id as number, r]));
  const notFinal = [...created].filter((id) => !byId.has(id) || byId.get(id)!.sync_status === 'NOTSENT').length;
  const missingEvents = [...created].flatMap((id) =>
    ['application.created', 'application.sync_status_changed'].filter((type) => !events.has(`${id} ${type}`)),
  ).length;
  const receipts = (await sandboxReceipts({ id: companyId })).filter((r) =>
    created.has(Number(r.reference.replace('his-application-', ''))),
  );
  const receiptRefs = receipts.map((r) => r.reference);
  const result = {
    creates: CREATES,
    status_201: created.size,
    status_5xx: serverErrors,
    dropped_connections: dropped,
    other_status: otherStatus,
    lost: [...created].filter((id) => !byId.has(id)).length + notFinal + missingEvents,
    duplicated:
      newRecords.length -
      created.size +
      (receiptRefs.length - new Set(receiptRefs).size) +
      [...events.values()].filter((ids) => ids.size > 1).length,
    list_count_equals_list: after.count === after.records.length,
    creates_seconds: Math.round(createsMs) / 1000,
    all_final_seconds: finalMs === undefined ? null : Math.round(finalMs) / 1000,
    all_events_delivered_seconds: deliveredMs === undefined ? null : Math.round(deliveredMs) / 1000,
    events_received: messages,
    duplicate_deliveries: messages - events.size,
    create_units_median:
      [...answers.map((a) => a.units).filter((u) => !Number.isNaN(u))].sort((a, b) => a - b)[Math.floor(created.size / 2)] ?? null,
  };

  const machine = `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  const date = new Date().toISOString().slice(0, 10);
  const jsonPath = 'docs/benchmarks.json';
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(readFileSync(jsonPath, 'utf8')) as Record<string, unknown>;
  } catch {
    // a first run writes the file
  }
  json.load = { command: COMMAND, machine, date, ...result };
  writeFileSync(jsonPath, `${JSON.stringify(json, null, 2)}\n`);

  const ok = (n: number) => (n === 0 ? '0' : `**${n}**`);
  const table = [
    '| creates | 201 | 5xx | dropped | lost | duplicated | creates done | all final | all events delivered | events received (duplicate deliveries) | create units (median) |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    `| ${CREATES} | ${result.status_201} | ${ok(result.status_5xx)} | ${ok(result.dropped_connections)} | ${ok(result.lost)} | ${ok(result.duplicated)} | ${result.creates_seconds} s | ${result.all_final_seconds ?? '**never**'} s | ${result.all_events_delivered_seconds ?? '**never**'} s | ${result.events_received} (${result.duplicate_deliveries}) | ${result.create_units_median} |`,
  ].join('\n');
  const section = `<!-- load:start -->\n## Load: ${CREATES} concurrent creates while the worker and the relay drain (issue 12)\n\nCommand: \`${COMMAND}\` (runs \`bench/load.ts\`). Machine: ${machine}. ${date}. The local server (one process: HTTP adapter, sync worker polling 10 messages at a time, outbox relay) against the demo company's sandbox ATS; times from the first request. Lost: a 201 whose application is missing or not final, or one of its two events never delivered. Duplicated: list entries or ATS receipts beyond one per 201, or a change delivered under two event ids.\n\n${table}\n<!-- load:end -->`;
  const mdPath = 'docs/benchmarks.md';
  const md = readFileSync(mdPath, 'utf8');
  const marked = /<!-- load:start -->[\s\S]*<!-- load:end -->/;
  writeFileSync(mdPath, marked.test(md) ? md.replace(marked, section) : `${md.trimEnd()}\n\n${section}\n`);
  console.log(table);
  if (result.status_5xx || result.lost || result.duplicated || result.dropped_connections) process.exitCode = 1;
} finally {
  await service.stop();
}
