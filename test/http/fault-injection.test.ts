/**
 * Fault injection (issue 12): each named crash point is armed in-process (`armCrashPoint`, no timers), the
 * runtime dies there the way `kill -9` would (the HTTP connection drops, a worker batch stays in flight, the
 * relay pass stops; no compensation runs), and then the runtime recovers on its own machinery: the queue
 * redelivers after the visibility timeout, the sweeper finds a lost hand-off, the relay publishes what the
 * stream hands it again and what the outbox still holds, the reconciler deletes orphan uploads. After every point:
 * - every application reaches a final status;
 * - no ATS submission is duplicated (the sandbox ATS's receipts, one per application); against the Greenhouse
 *   and Lever simulators, `sync.after-ats-call` documents each ATS's real guarantee instead (P94, P172):
 *   Greenhouse gets a second application for the crashed one, Lever merges the two into one candidate;
 * - no event is lost: every expected event arrives on a queue subscribed to the topic, duplicates only
 *   with the same id, and the application's sequence numbers are 1, 2, … without gaps;
 * - no attachment object is left without its application once the reconciler has run;
 * - the counters equal the lists (the `count` of each list equals the records it pages through).
 * The webhook point (`webhook.after-post`) belongs to the partner webhooks and is tested there.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { sqs } from '#platform/clients.js';
import { runWithClock } from '#platform/clock.js';
import { armCrashPoint, disarmCrashPoints, pendingCrashes, type CrashPointName } from '#platform/faults.js';
import { sandboxCalls, sandboxReceipts } from '#delivery/connectors/sandbox.js';
import { connectCompany } from '#delivery/ats-connections.js';
import { reconcilePendingUploads } from '#delivery/orphans.js';
import { aCompany, aPartner, withJobs } from '../helpers/fixtures.js';
import { allItems, objectKeys } from '../helpers/inspect.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { startGreenhouseSimulator, type GreenhouseSimulator } from '../simulators/greenhouse.js';
import { startLeverSimulator, type LeverSimulator } from '../simulators/lever.js';
import { startPersonioSimulator, type PersonioSimulator } from '../simulators/personio.js';

process.env.SYNC_RETRY_BASE_SECONDS = '0';
process.env.SYNC_CLAIM_SECONDS = '1';
process.env.SYNC_MAX_ATTEMPTS = '4';
// A dead worker invocation's messages come back after a second instead of the queue's 180 s.
process.env.LOCAL_CRASH_VISIBILITY_SECONDS = '1';

const EVENTS_QUEUE = 'fault-events';
const PDF = Buffer.from('%PDF-1.5\nfault injection\n%%EOF');

let api: TestRuntime;
let greenhouse: GreenhouseSimulator;
let lever: LeverSimulator;
let personio: PersonioSimulator;
let partner: Awaited<ReturnType<typeof aPartner>>;
/** Every event seen on the subscribed queue so far, in arrival order. */
const seen: Record<string, any>[] = [];

beforeAll(async () => {
  greenhouse = await startGreenhouseSimulator();
  lever = await startLeverSimulator();
  personio = await startPersonioSimulator();
  Object.assign(process.env, greenhouse.env, lever.env, personio.env);
  api = await startTestRuntime();
  api.runtime.emulators.fauxqs.createQueue(EVENTS_QUEUE);
  api.runtime.emulators.fauxqs.subscribe({ topic: 'his-local-events', queue: EVENTS_QUEUE });
  partner = await aPartner();
});
afterAll(async () => {
  await api.stop();
  await Promise.all([greenhouse.server.stop(), lever.server.stop(), personio.server.stop()]);
});
afterEach(() => disarmCrashPoints());

interface Scenario {
  company: { id: number };
  job: number;
  /** ATS sync (sandbox, or the Greenhouse or Lever simulator) or only the e-mail fallback (ATS not connected). */
  mode: 'ats' | 'greenhouse' | 'lever' | 'personio' | 'email';
}

/** A company connected to its own Greenhouse board, Lever site or Personio account on the simulators, with one job there. */
async function simulatedAtsScenario(ats: 'greenhouse' | 'lever' | 'personio'): Promise<Scenario> {
  const company = await aCompany(partner.id, { entitlements: ['candidate_sync'] });
  const name = `fault-${company.id}`;
  if (ats === 'personio') {
    personio.accounts.set(name, {
      subdomain: name,
      companyId: String(company.id),
      token: `personio-token-${company.id}`,
      positions: [{ id: String(5000 + company.id), name: 'Fault job' }],
      unpublished: new Set(),
      applicants: new Set(),
    });
    await connectCompany(company.id, 'personio', {
      subdomain: name,
      personio_company_id: String(company.id),
      token: `personio-token-${company.id}`,
    });
  } else if (ats === 'greenhouse') {
    greenhouse.boards.set(name, {
      token: name,
      apiKey: 'greenhouse-key',
      jobs: [{ id: 4000 + company.id, title: 'Fault job', content: 'Faults.' }],
    });
    await connectCompany(company.id, 'greenhouse', { board_token: name, api_key: 'greenhouse-key' });
  } else {
    lever.sites.set(name, {
      site: name,
      apiKey: 'lever-api-key',
      postings: [{ id: `posting-${company.id}`, text: 'Fault job', description: 'Faults.' }],
    });
    await connectCompany(company.id, 'lever', { site: name, api_key: 'lever-api-key' });
  }
  const externalId = { personio: String(5000 + company.id), greenhouse: String(4000 + company.id), lever: `posting-${company.id}` }[ats];
  await withJobs(company.id, [{ external_id: externalId, title: 'Fault job' }]);
  const job = (await api.get('/jobs', { key: partner.key, companyId: company.id })).body.results[0].id as number;
  return { company, job, mode: ats };
}

async function scenario(mode: 'ats' | 'email'): Promise<Scenario> {
  const company =
    mode === 'ats'
      ? await aCompany(partner.id, { entitlements: ['candidate_sync'] })
      : await aCompany(partner.id, {
          ats: 'greenhouse',
          entitlements: ['candidate_sync', 'email_fallback'],
          contact_email: 'hr@fault.example',
        });
  await withJobs(company.id, [{ external_id: `F-${company.id}`, title: 'Fault job' }]);
  const job = (await api.get('/jobs', { key: partner.key, companyId: company.id })).body.results[0].id as number;
  return { company, job, mode };
}

/** A create; `dropped` when the connection died without an answer (a crash in the function). */
async function apply(s: Scenario, email: string): Promise<{ status: number | 'dropped'; id?: number }> {
  try {
    const res = await api.request('POST', '/applications/', {
      key: partner.key,
      companyId: s.company.id,
      body: {
        job: s.job,
        candidate: { email, full_name: 'Fault Injected' },
        attachments: [{ type: 'cv', name: 'cv.pdf', content_type: 'application/pdf', data: PDF.toString('base64') }],
      },
    });
    return { status: res.status, id: (res.body as { id?: number }).id };
  } catch {
    return { status: 'dropped' };
  }
}

/** Every record of a list, following `next`, and the list's `count`. */
async function list(s: Scenario, query = ''): Promise<{ count: number; records: Record<string, any>[] }> {
  let path: string | undefined = `/applications/?page_size=50${query}`;
  const records: Record<string, any>[] = [];
  let count = -1;
  while (path) {
    const res: { status: number; body: any } = await api.get(path, { key: partner.key, companyId: s.company.id });
    expect(res.status).toBe(200);
    if (count < 0) count = res.body.count;
    records.push(...res.body.results);
    path = res.body.next ? ((u: URL) => `${u.pathname}${u.search}`)(new URL(res.body.next)) : undefined;
  }
  return { count, records };
}

/** The runtime recovers: redeliveries, the sweeper (as if its grace had passed), the relay, the reconciler. */
async function recover(): Promise<void> {
  await api.runtime.poller.drain();
  // Only the sweeper's run sees the later clock (`runWithClock`), not the poller or anything else of the process.
  await runWithClock(new Date(Date.now() + 2 * 3600 * 1000), () => api.runtime.scheduler.run('SyncSweeper'));
  await api.runtime.poller.drain();
  await api.runtime.relay.drain();
  // The reconciler as it runs once the pending-upload grace (an hour) has passed.
  await reconcilePendingUploads(Date.now() + 3601 * 1000);
}

async function receiveEvents(): Promise<void> {
  await api.runtime.relay.drain();
  const url = `http://127.0.0.1:${api.runtime.emulators.fauxqs.port}/000000000000/${EVENTS_QUEUE}`;
  for (;;) {
    const res = await sqs().send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    if (!res.Messages?.length) return;
    for (const m of res.Messages) {
      seen.push(JSON.parse(JSON.parse(m.Body!).Message));
      await sqs().send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle! }));
    }
  }
}

const FINAL_SYNC = ['SUCCESS', 'SUCCESS_FALLBACK', 'EXPECTED_FAILURE', 'FAILURE'];

/** The guarantees, for one scenario's company; returns the events seen for it. */
async function assertGuarantees(s: Scenario): Promise<{ applications: Record<string, any>[]; events: Record<string, any>[] }> {
  const { count, records } = await list(s);
  // Counters equal the lists: the total, and the per-status totals of every status.
  expect(count).toBe(records.length);
  for (const status of ['NOTSENT', ...FINAL_SYNC]) {
    const filtered = await list(s, `&sync_status=${status}`);
    expect(filtered.count).toBe(filtered.records.length);
    expect(filtered.count).toBe(records.filter((r) => r.sync_status === status).length);
  }
  // Every application is final.
  for (const app of records) {
    if (s.mode !== 'email') expect(FINAL_SYNC).toContain(app.sync_status);
    else expect(app.email_sync_status).toBe('SUCCESS');
  }
  // No ATS submission duplicated: one receipt per application, none for anything else.
  if (s.mode === 'ats') {
    const receipts = await sandboxReceipts(s.company);
    expect(receipts.map((r) => r.reference).sort()).toEqual(records.map((r) => `his-application-${r.id}`).sort());
  }
  // No event lost: every expected event arrived; a duplicate carries the same id; sequences have no gaps.
  await receiveEvents();
  const events = seen.filter((e) => e.company === s.company.id && String(e.type).startsWith('application.'));
  const expected = records.flatMap((app) => [
    `${app.id} application.created`,
    ...(app.sync_status !== 'NOTSENT' ? [`${app.id} application.sync_status_changed`] : []),
    ...(app.email_sync_status !== 'NOTSENT' ? [`${app.id} application.email_sync_status_changed`] : []),
  ]);
  expect([...new Set(events.map((e) => `${e.data.application_id} ${e.type}`))].sort()).toEqual(expected.sort());
  const idsOf = new Map<string, Set<string>>();
  for (const e of events) {
    const key = `${e.data.application_id} ${e.type}`;
    idsOf.set(key, (idsOf.get(key) ?? new Set()).add(e.id));
  }
  for (const [key, ids] of idsOf) expect([key, ids.size]).toEqual([key, 1]);
  for (const app of records) {
    const sequences = [...new Set(events.filter((e) => e.data.application_id === app.id).map((e) => e.sequence))].sort();
    expect(sequences).toEqual(Array.from({ length: sequences.length }, (_, i) => i + 1));
  }
  // No orphan: the company's objects are exactly its applications' attachments; no pending marker is left.
  const objects = await objectKeys(`companies/${s.company.id}/`);
  const attachmentCount = records.reduce((sum, r) => sum + (r.attachments?.length ?? 0), 0);
  expect(objects).toHaveLength(attachmentCount);
  for (const key of objects) expect(records.some((r) => key.includes(`/applications/${r.id}/`))).toBe(true);
  expect((await allItems()).filter((i) => String(i.PK).startsWith('PENDINGUPLOAD#'))).toEqual([]);
  // And the outbox is empty once the relay has drained.
  expect((await allItems()).filter((i) => String(i.PK).startsWith('OUTBOX#'))).toEqual([]);
  return { applications: records, events };
}

const armed = (point: CrashPointName) => {
  armCrashPoint(point);
  return () => expect(pendingCrashes(point)).toBe(0); // the point really fired
};

test('create.after-upload: the dropped create leaves an orphan object that the reconciler deletes; the retry commits once', async () => {
  const s = await scenario('ats');
  const fired = armed('create.after-upload');
  expect(await apply(s, 'upload@example.com')).toEqual({ status: 'dropped' });
  fired();
  // Nothing committed, one object (with its pending marker) left behind.
  expect((await list(s)).records).toEqual([]);
  expect(await objectKeys(`companies/${s.company.id}/`)).toHaveLength(1);
  // The partner retries.
  expect((await apply(s, 'upload@example.com')).status).toBe(201);
  await recover();
  const { applications } = await assertGuarantees(s);
  expect(applications).toHaveLength(1);
});

test('create.after-transaction: the committed application without its queue message is found by the sweeper and synced once', async () => {
  const s = await scenario('ats');
  const fired = armed('create.after-transaction');
  expect(await apply(s, 'committed@example.com')).toEqual({ status: 'dropped' });
  fired();
  const [app] = (await list(s)).records;
  expect(app.sync_status).toBe('NOTSENT');
  // No message was enqueued: a drain alone does nothing for it.
  await api.runtime.poller.drain();
  expect((await list(s)).records[0].sync_status).toBe('NOTSENT');
  await recover();
  const { applications } = await assertGuarantees(s);
  expect(applications.map((a) => a.sync_status)).toEqual(['SUCCESS']);
});

test('create.after-transaction with an Idempotency-Key: a retry once the in-progress record has expired gets the first application, not a second (P268)', async () => {
  const s = await scenario('ats');
  const post = () =>
    api.request('POST', '/applications/', {
      key: partner.key,
      companyId: s.company.id,
      headers: { 'Idempotency-Key': `crash-${s.company.id}` },
      body: { job: s.job, candidate: { email: 'once@example.com', full_name: 'Only Once' } },
    });
  const fired = armed('create.after-transaction');
  await expect(post()).rejects.toThrow();
  fired();
  // The dead invocation's record is still in progress: the retry is asked to wait.
  expect((await post()).status).toBe(409);
  // Past the in-progress record's deadline (the invocation's remaining time), the handler runs again.
  const realNow = Date.now;
  Date.now = () => realNow() + 200_000;
  let again: Awaited<ReturnType<typeof post>>;
  try {
    again = await post();
  } finally {
    Date.now = realNow;
  }
  expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
  const { records } = await list(s);
  expect(records.map((r) => [r.id, r.candidate.email])).toEqual([[again.body.id, 'once@example.com']]);
  // And from now on the stored response answers.
  const third = await post();
  expect([third.status, third.body.id]).toEqual([201, again.body.id]);
  await recover();
  expect((await assertGuarantees(s)).applications.map((a) => a.sync_status)).toEqual(['SUCCESS']);
});

test('sync.after-ats-call: the redelivered message finds the first submission; the ATS holds one application each', async () => {
  const s = await scenario('ats');
  const ids = [];
  for (const email of ['a1@example.com', 'a2@example.com', 'a3@example.com']) ids.push((await apply(s, email)).id!);
  const fired = armed('sync.after-ats-call');
  await recover();
  fired();
  const { applications } = await assertGuarantees(s);
  expect(applications.map((a) => a.sync_status)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
  // The crashed application was submitted twice under its reference, and created once.
  const calls = await Promise.all(ids.map((id) => sandboxCalls(s.company, `his-application-${id}`)));
  expect(calls.sort()).toEqual([1, 1, 2]);
});

/** Drives `sync.after-ats-call` over three applications and recovers; resolves to the applications after the guarantees hold. */
async function crashAfterAtsCall(s: Scenario, emails: string[]) {
  for (const email of emails) expect((await apply(s, email)).status).toBe(201);
  const fired = armed('sync.after-ats-call');
  await recover();
  fired();
  // Every application final, its status and event written once, nothing lost or orphaned (assertGuarantees).
  return (await assertGuarantees(s)).applications;
}

/** Which of `emails` the ATS was sent twice (the crashed application's), asserting every other one was sent once. */
function sentTwice(emails: string[], sent: string[]): string {
  const twice = emails.filter((e) => sent.filter((x) => x === e).length === 2);
  expect(twice).toHaveLength(1);
  expect([...sent].sort()).toEqual([...emails, twice[0]].sort());
  return twice[0];
}

test('sync.after-ats-call against Greenhouse: the retry creates a second application in Greenhouse (P94); ours is SUCCESS once', async () => {
  const s = await simulatedAtsScenario('greenhouse');
  const emails = ['gh1@example.com', 'gh2@example.com', 'gh3@example.com'];
  const ofBoard = () => greenhouse.applications.filter((a) => a.jobId === 4000 + s.company.id);
  const applications = await crashAfterAtsCall(s, emails);
  expect(applications.map((a) => a.sync_status)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
  const crashed = sentTwice(
    emails,
    ofBoard().map((a) => String(a.body.email)),
  );
  // Greenhouse has no duplicate error and takes no reference (P94): the crashed application exists twice
  // there, as two applications of two candidates. That is the window the guarantees table names.
  const copies = ofBoard().filter((a) => a.body.email === crashed);
  expect(copies).toHaveLength(2);
  expect(new Set(copies.map((a) => a.candidateId)).size).toBe(2);
  expect(ofBoard()).toHaveLength(4);
});

test('sync.after-ats-call against Lever: the retry posts again and Lever merges it into the same candidate (P94)', async () => {
  const s = await simulatedAtsScenario('lever');
  const emails = ['lv1@example.com', 'lv2@example.com', 'lv3@example.com'];
  const ofSite = () => lever.applications.filter((a) => a.postingId === `posting-${s.company.id}`);
  const applications = await crashAfterAtsCall(s, emails);
  expect(applications.map((a) => a.sync_status)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
  const crashed = sentTwice(
    emails,
    ofSite().map((a) => a.fields.email[0]),
  );
  // Two POSTs for the crashed application, merged by e-mail into one candidate: one person per application.
  const copies = ofSite().filter((a) => a.fields.email[0] === crashed);
  expect(copies).toHaveLength(2);
  expect(new Set(copies.map((a) => a.contactId)).size).toBe(1);
  expect(new Set(ofSite().map((a) => a.contactId)).size).toBe(3);
});

test('sync.after-ats-call against Personio: the retry meets the duplicate error; Personio holds one application, ours says EXPECTED_FAILURE (P94)', async () => {
  const s = await simulatedAtsScenario('personio');
  const emails = ['ps1@example.com', 'ps2@example.com', 'ps3@example.com'];
  const applications = await crashAfterAtsCall(s, emails);
  const posted = personio
    .requestsTo(/\/recruiting\/applications$/)
    .map((r) => (r.json as { email?: string } | undefined)?.email)
    .filter((e): e is string => emails.includes(e!));
  const crashed = sentTwice(emails, posted);
  // Personio took the first submission and refused the second as a duplicate: one application per person there,
  // but the crashed application's status is EXPECTED_FAILURE (duplicate) although its first submission arrived.
  const held = personio.applications.map((a) => String(a.body.email)).filter((e) => emails.includes(e));
  expect(held.sort()).toEqual([...emails].sort());
  const byEmail = new Map(applications.map((a) => [a.candidate.email as string, a]));
  expect(byEmail.get(crashed)).toMatchObject({ sync_status: 'EXPECTED_FAILURE' });
  for (const email of emails.filter((e) => e !== crashed)) expect(byEmail.get(email)).toMatchObject({ sync_status: 'SUCCESS' });
});

test('sync.after-email-send: the e-mail is sent again with the same Message-ID (P106); the status is written once', async () => {
  const s = await scenario('email');
  const { id } = await apply(s, 'mail@example.com');
  const outbox = join(api.runtime.dataDir, 'outbox');
  const fileOf = () => readdirSync(outbox).find((f) => f.includes(`application-${id}.company-${s.company.id}`));
  const messageIdIn = (file: string) => /^Message-ID: (.+)$/im.exec(readFileSync(join(outbox, file), 'utf8'))?.[1].trim();
  const fired = armed('sync.after-email-send');
  await api.runtime.poller.runOnce();
  fired();
  // Sent, but the status is still NOTSENT: the mail system has the message; the recipient takes it.
  const first = fileOf()!;
  const firstId = messageIdIn(first);
  expect(firstId).toMatch(/^<application-\d+\.company-\d+@hiring-integration-service>$/);
  rmSync(join(outbox, first));
  expect((await list(s)).records[0].email_sync_status).toBe('NOTSENT');
  await recover();
  // Sent again, with the same Message-ID: the recipient's mail system can recognise the second copy.
  expect(messageIdIn(fileOf()!)).toBe(firstId);
  const { events } = await assertGuarantees(s);
  expect(events.filter((e) => e.type === 'application.email_sync_status_changed')).toHaveLength(1);
});

test('relay.after-publish: the event published before the crash is published again with the same id; nothing is lost', async () => {
  const s = await scenario('ats');
  // The setup's job.created (an outbox item) is relayed first, so that the crash hits an application's event,
  // which rides on its item (P240): the stream hands the relay the same record again, and nothing is parked.
  await api.runtime.relay.drain();
  for (const email of ['r1@example.com', 'r2@example.com']) expect((await apply(s, email)).status).toBe(201);
  await api.runtime.poller.drain();
  const fired = armed('relay.after-publish');
  await api.runtime.relay.drain();
  fired();
  await recover();
  await assertGuarantees(s);
  // One application event went out twice, with one id (consumers deduplicate on it).
  const ids = seen.filter((e) => e.company === s.company.id && String(e.type).startsWith('application.')).map((e) => e.id);
  expect(ids.length - new Set(ids).size).toBeGreaterThanOrEqual(1);
});
