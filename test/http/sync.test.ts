import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { config, sqs } from '#platform/clients.js';
import { runWithClock } from '#platform/clock.js';
import { setCompanyFields } from '#companies/company-store.js';
import { sandboxCalls, sandboxReceipts } from '#delivery/connectors/sandbox.js';
import { importJobs } from '#jobs/job-store.js';
import { syncApplication } from '#delivery/sync.js';
import { sweepGraceSeconds } from '#platform/sync-queue.js';
import { aCompany, aPartner } from '../helpers/fixtures.js';
import { drainQueue } from '../helpers/inspect.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';

process.env.SYNC_RETRY_BASE_SECONDS = '0';
process.env.SYNC_CLAIM_SECONDS = '1';
process.env.SYNC_MAX_ATTEMPTS = '4';

const PDF = Buffer.from('%PDF-1.5\nsync test attachment\n%%EOF');
const EVENTS_QUEUE = 'events-test';

let api: TestRuntime;
let partner: Awaited<ReturnType<typeof aPartner>>;
let synced: Awaited<ReturnType<typeof aCompany>>; // sandbox, candidate sync + e-mail fallback
let plain: Awaited<ReturnType<typeof aCompany>>; // sandbox, candidate sync only
let mailOnly: Awaited<ReturnType<typeof aCompany>>; // ATS not connected, e-mail fallback
let nothing: Awaited<ReturnType<typeof aCompany>>; // no entitlements
const jobs: Record<string, number> = {};

async function jobId(companyId: number, externalId: string) {
  return (await api.get(`/jobs?external_id=${externalId}`, { key: partner.key, companyId })).body.results[0].id as number;
}

async function apply(company: { id: number }, job: number, email: string, extra: Record<string, unknown> = {}) {
  const res = await api.request('POST', '/applications/', {
    key: partner.key,
    companyId: company.id,
    body: { job, candidate: { email, first_name: 'Grace', last_name: 'Hopper', phone: '+1 555' }, ...extra },
  });
  expect(res.status).toBe(201);
  return res.body as { id: number; sync_status: string };
}

const read = async (company: { id: number }, id: number) =>
  (await api.get(`/applications/${id}`, { key: partner.key, companyId: company.id })).body;

/** Runs the worker until the queue has nothing visible (retries come back at once with base delay 0). */
const work = () => api.runtime.poller.drain();

async function events(): Promise<Record<string, any>[]> {
  // Events reach the topic through the relay (P115, P240).
  await api.runtime.relay.drain();
  const url = `http://127.0.0.1:${api.runtime.emulators.fauxqs.port}/000000000000/${EVENTS_QUEUE}`;
  const out: Record<string, any>[] = [];
  for (;;) {
    const res = await sqs().send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    if (!res.Messages?.length) return out;
    for (const m of res.Messages) {
      const body = JSON.parse(m.Body!);
      out.push(JSON.parse(body.Message ?? m.Body!));
      // Deleted, not left to come back after the visibility timeout into a later test's reading.
      await sqs().send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle! }));
    }
  }
}

beforeAll(async () => {
  api = await startTestRuntime();
  api.runtime.emulators.fauxqs.createQueue(EVENTS_QUEUE);
  api.runtime.emulators.fauxqs.subscribe({ topic: 'his-local-events', queue: EVENTS_QUEUE });
  partner = await aPartner();
  synced = await aCompany(partner.id, { entitlements: ['candidate_sync', 'email_fallback'], contact_email: 'hr@synced.example' });
  plain = await aCompany(partner.id, { entitlements: ['candidate_sync'] });
  mailOnly = await aCompany(partner.id, {
    ats: 'greenhouse',
    entitlements: ['candidate_sync', 'email_fallback'],
    contact_email: 'hr@mailonly.example',
  });
  nothing = await aCompany(partner.id, { entitlements: [] });
  await importJobs(synced.id, [
    { external_id: 'OPEN-1', title: 'Engineer', application_email: 'jobs@synced.example' },
    { external_id: 'closed-2', title: 'Closed job' },
    { external_id: 'FALLBACK', title: 'General application' },
  ]);
  await importJobs(plain.id, [
    { external_id: 'OPEN-P', title: 'Plain job' },
    { external_id: 'closed-P', title: 'Closed' },
  ]);
  await importJobs(mailOnly.id, [{ external_id: 'M-1', title: 'Mail job' }]);
  await importJobs(nothing.id, [{ external_id: 'X-1', title: 'Nothing job' }]);
  jobs.open = await jobId(synced.id, 'OPEN-1');
  jobs.closed = await jobId(synced.id, 'closed-2');
  jobs.fallback = await jobId(synced.id, 'FALLBACK');
  jobs.openP = await jobId(plain.id, 'OPEN-P');
  jobs.closedP = await jobId(plain.id, 'closed-P');
  jobs.mail = await jobId(mailOnly.id, 'M-1');
  jobs.nothing = await jobId(nothing.id, 'X-1');
});
afterAll(() => api.stop());
beforeEach(async () => {
  await work();
  await events();
});

test('accepted: SUCCESS with the ATS id; the sandbox received exactly the application, attachment bytes included', async () => {
  const created = await apply(plain, jobs.openP, 'grace@example.com', {
    screening_questions: [{ id: 'q1', question: 'Start?', answer_type: 'date', answer: '2027-01-01' }],
    custom_fields: { referral: 'yes' },
    social_links: { github: 'https://github.example/grace' },
    notes: 'note',
    channel: 'board',
    attachments: [{ type: 'cv', name: 'cv.pdf', content_type: 'application/pdf', data: PDF.toString('base64') }],
  });
  expect(created.sync_status).toBe('NOTSENT');
  await work();
  const app = await read(plain, created.id);
  expect(app).toMatchObject({
    sync_status: 'SUCCESS',
    failure_error: null,
    email_sync_status: 'NOTSENT',
    external_id: expect.stringMatching(/^sbx-/),
  });
  expect(app.updated_at > app.created_at).toBe(true);
  const receipts = (await sandboxReceipts(plain)).filter((r) => r.reference === `his-application-${created.id}`);
  expect(receipts).toHaveLength(1);
  expect(receipts[0]).toMatchObject({
    external_id: app.external_id,
    job_external_id: 'OPEN-P',
    candidate: { email: 'grace@example.com', first_name: 'Grace', last_name: 'Hopper', phone: '+1 555' },
    screening_answers: [{ id: 'q1', question: 'Start?', answer_type: 'date', answer: '2027-01-01' }],
    custom_fields: { referral: 'yes' },
    social_links: { github: 'https://github.example/grace' },
    notes: 'note',
    source: 'board',
    attachments: [
      {
        type: 'cv',
        name: 'cv.pdf',
        content_type: 'application/pdf',
        size: PDF.length,
        sha256: createHash('sha256').update(PDF).digest('hex'),
      },
    ],
  });
  const emitted = await events();
  expect(emitted.map((e) => [e.type, e.data.application_id, e.data.sync_status])).toEqual([
    ['application.created', created.id, 'NOTSENT'],
    ['application.sync_status_changed', created.id, 'SUCCESS'],
  ]);
  // P115: the application's events are numbered in the order of its changes.
  expect(emitted.map((e) => e.sequence)).toEqual([1, 2]);
  for (const event of emitted) {
    expect(Object.keys(event).sort()).toEqual(['company', 'data', 'id', 'occurred_at', 'sequence', 'type']);
    expect(event.company).toBe(plain.id);
    expect(JSON.stringify(event)).not.toMatch(/grace@example|Hopper|\+1 555/);
  }
});

test('duplicate candidate: EXPECTED_FAILURE with DuplicateApplicationError', async () => {
  const created = await apply(plain, jobs.openP, 'grace+duplicate@example.com');
  await work();
  expect(await read(plain, created.id)).toMatchObject({
    sync_status: 'EXPECTED_FAILURE',
    failure_error: 'DuplicateApplicationError',
    external_id: null,
  });
  expect((await events()).map((e) => e.data.failure_error ?? null)).toEqual([null, 'DuplicateApplicationError']);
});

test('job not published and no fallback job: EXPECTED_FAILURE with JobNotPublishedError', async () => {
  const created = await apply(plain, jobs.closedP, 'grace@example.com');
  await work();
  expect(await read(plain, created.id)).toMatchObject({ sync_status: 'EXPECTED_FAILURE', failure_error: 'JobNotPublishedError' });
});

test('job not published with a fallback job: SUCCESS_FALLBACK, delivered to the fallback job', async () => {
  await setCompanyFields(synced.id, { fallback_job: jobs.fallback });
  try {
    const created = await apply(synced, jobs.closed, 'grace@example.com');
    await work();
    const app = await read(synced, created.id);
    expect(app).toMatchObject({
      sync_status: 'SUCCESS_FALLBACK',
      failure_error: null,
      email_sync_status: 'NOTSENT',
      external_id: expect.stringMatching(/^sbx-/),
    });
    const receipt = (await sandboxReceipts(synced)).find((r) => r.external_id === app.external_id)!;
    expect(receipt.job_external_id).toBe('FALLBACK');
  } finally {
    await setCompanyFields(synced.id, { fallback_job: null });
  }
});

test('job not published, fallback job down: the retry budget still ends in FAILURE (and the e-mail fallback)', async () => {
  await setCompanyFields(synced.id, { fallback_job: jobs.fallback });
  try {
    const created = await apply(synced, jobs.closed, 'grace+down@example.com');
    await work();
    expect(await read(synced, created.id)).toMatchObject({
      sync_status: 'FAILURE',
      failure_error: 'AtsUnavailableError',
      email_sync_status: 'SUCCESS',
    });
    expect(await sandboxCalls(synced, `his-application-${created.id}-fallback`)).toBe(4);
    expect(await drainQueue(process.env.SYNC_DLQ_URL)).toEqual([]);
  } finally {
    await setCompanyFields(synced.id, { fallback_job: null });
  }
});

test('flaky ATS: two transient failures, then SUCCESS, one application in the ATS', async () => {
  const created = await apply(plain, jobs.openP, 'grace+flaky@example.com');
  await work();
  const app = await read(plain, created.id);
  expect(app).toMatchObject({ sync_status: 'SUCCESS', failure_error: null });
  expect((await sandboxReceipts(plain)).filter((r) => r.reference === `his-application-${created.id}`)).toHaveLength(1);
  expect(await sandboxCalls(plain, `his-application-${created.id}`)).toBe(3);
  // Retries change nothing visible until the outcome: one status event.
  expect((await events()).filter((e) => e.type === 'application.sync_status_changed')).toHaveLength(1);
});

test('ATS down: FAILURE after the retry budget, then the e-mail fallback to the job address with the attachment', async () => {
  const created = await apply(synced, jobs.open, 'grace+down@example.com', {
    attachments: [{ type: 'cv', name: 'cv.pdf', content_type: 'application/pdf', data: PDF.toString('base64') }],
  });
  const outbox = join(api.runtime.dataDir, 'outbox');
  const before = new Set(safeList(outbox));
  await work();
  const app = await read(synced, created.id);
  expect(app).toMatchObject({ sync_status: 'FAILURE', failure_error: 'AtsUnavailableError', email_sync_status: 'SUCCESS' });
  // The retry budget, spent in full and no further; nothing was left for the dead-letter queue.
  expect(await sandboxCalls(synced, `his-application-${created.id}`)).toBe(4);
  expect(await drainQueue(process.env.SYNC_DLQ_URL)).toEqual([]);
  const mails = safeList(outbox).filter((f) => !before.has(f));
  expect(mails).toHaveLength(1);
  const eml = readFileSync(join(outbox, mails[0]), 'utf8');
  expect(eml).toContain('To: jobs@synced.example');
  expect(eml).toContain('Subject: Application: Engineer');
  // The MIME library quotes a parameter only when it must (RFC 2045 token form otherwise).
  expect(eml).toMatch(/filename="?cv\.pdf"?/);
  expect(eml.replace(/\r\n/g, '')).toContain(PDF.toString('base64'));
  expect((await events()).map((e) => e.type)).toEqual([
    'application.created',
    'application.sync_status_changed',
    'application.email_sync_status_changed',
  ]);
});

test('ATS down without the e-mail entitlement: FAILURE, e-mail NOTSENT', async () => {
  const created = await apply(plain, jobs.openP, 'grace+down@example.com');
  await work();
  expect(await read(plain, created.id)).toMatchObject({
    sync_status: 'FAILURE',
    failure_error: 'AtsUnavailableError',
    email_sync_status: 'NOTSENT',
  });
});

test('candidate sync inactive: NOTSENT stays; the entitled e-mail fallback goes to the company contact', async () => {
  const outbox = join(api.runtime.dataDir, 'outbox');
  const before = new Set(safeList(outbox));
  const created = await apply(mailOnly, jobs.mail, 'grace@example.com');
  await work();
  expect(await read(mailOnly, created.id)).toMatchObject({ sync_status: 'NOTSENT', email_sync_status: 'SUCCESS', external_id: null });
  const mails = safeList(outbox).filter((f) => !before.has(f));
  expect(readFileSync(join(outbox, mails[0]), 'utf8')).toContain('To: hr@mailonly.example');
});

test('nothing entitled: no message is queued and both statuses stay NOTSENT', async () => {
  const created = await apply(nothing, jobs.nothing, 'grace@example.com');
  expect(await work()).toBe(0);
  expect(await read(nothing, created.id)).toMatchObject({ sync_status: 'NOTSENT', email_sync_status: 'NOTSENT' });
});

test('a duplicated message submits once', async () => {
  const created = await apply(plain, jobs.openP, 'twice@example.com');
  await sqs().send(
    new SendMessageCommand({ QueueUrl: config().syncQueueUrl, MessageBody: JSON.stringify({ application_id: created.id }) }),
  );
  await sqs().send(
    new SendMessageCommand({ QueueUrl: config().syncQueueUrl, MessageBody: JSON.stringify({ application_id: created.id }) }),
  );
  await work();
  expect((await read(plain, created.id)).sync_status).toBe('SUCCESS');
  // The claim let one of the three messages call the ATS; the others found the outcome.
  expect(await sandboxCalls(plain, `his-application-${created.id}`)).toBe(1);
  expect((await sandboxReceipts(plain)).filter((r) => r.reference === `his-application-${created.id}`)).toHaveLength(1);
  expect((await events()).filter((e) => e.type === 'application.sync_status_changed')).toHaveLength(1);
});

test('a crash between the ATS call and the status write does not create a second ATS application on retry', async () => {
  const created = await apply(plain, jobs.openP, 'crash@example.com');
  await drainQueue(); // the test plays the worker for the first attempt
  await expect(
    syncApplication(created.id, {
      afterSubmit: async () => {
        throw new Error('simulated crash');
      },
    }),
  ).rejects.toThrow('simulated crash');
  expect((await read(plain, created.id)).sync_status).toBe('NOTSENT');
  const [receipt] = (await sandboxReceipts(plain)).filter((r) => r.reference === `his-application-${created.id}`);
  expect(receipt.external_id).toMatch(/^sbx-/);
  // The message comes back (here: sent again), waits out the dead attempt's claim, and finds the first submission.
  await sqs().send(
    new SendMessageCommand({ QueueUrl: config().syncQueueUrl, MessageBody: JSON.stringify({ application_id: created.id }) }),
  );
  await new Promise((r) => setTimeout(r, 1100));
  await work();
  const app = await read(plain, created.id);
  expect(app).toMatchObject({ sync_status: 'SUCCESS', external_id: receipt.external_id });
  // Called twice under the same reference, created once.
  expect(await sandboxCalls(plain, `his-application-${created.id}`)).toBe(2);
  expect((await sandboxReceipts(plain)).filter((r) => r.reference === `his-application-${created.id}`)).toHaveLength(1);
});

test('a poison message ends in the dead-letter queue', async () => {
  await sqs().send(new SendMessageCommand({ QueueUrl: config().syncQueueUrl, MessageBody: 'not a sync message' }));
  await work();
  expect(await drainQueue(process.env.SYNC_DLQ_URL)).toEqual(['not a sync message']);
});

test('the sweeper re-queues an application whose message was lost, and leaves settled ones alone', async () => {
  const created = await apply(plain, jobs.openP, 'lost@example.com');
  expect(await drainQueue()).toEqual([JSON.stringify({ application_id: created.id })]); // the message is lost
  expect(await api.runtime.scheduler.run('SyncSweeper')).toMatchObject({ requeued: 0 }); // not due yet: still within the grace period
  // Two hours later for the sweeper and the worker (`runWithClock`: their async context only, not the process).
  await runWithClock(new Date(Date.now() + 2 * 3600 * 1000), async () => {
    expect(await api.runtime.scheduler.run('SyncSweeper')).toMatchObject({ requeued: 1 });
    await work();
    expect((await read(plain, created.id)).sync_status).toBe('SUCCESS');
    expect(await api.runtime.scheduler.run('SyncSweeper')).toMatchObject({ requeued: 0 });
  });
});

test('P242: a retry is swept again; a settled sync leaves its entry, which the sweeper reads only until its mark passes it', async () => {
  const lookback = process.env.SYNC_SWEEP_LOOKBACK_SECONDS;
  // Production's lookback, the grace period (60 s here); every clock below runs after the earlier tests' sweeps.
  process.env.SYNC_SWEEP_LOOKBACK_SECONDS = process.env.SYNC_SWEEP_GRACE_SECONDS;
  const base = Date.now() + 3 * 3600 * 1000;
  const at = <T>(minutes: number, work: () => Promise<T>) => runWithClock(new Date(base + minutes * 60_000), work);
  const sweep = (minutes: number) =>
    at(minutes, async () => (await api.runtime.scheduler.run('SyncSweeper')) as { requeued: number; entries: number });
  const message = (id: number) => JSON.stringify({ application_id: id });
  try {
    const created = await apply(plain, jobs.openP, 'swept+flaky@example.com');
    expect(await drainQueue()).toEqual([message(created.id)]); // lost
    await sweep(0);
    expect(await drainQueue()).toContain(message(created.id)); // re-queued, and lost again
    // Its first attempt fails (transient): due again after the backoff (0 s here) and the grace period.
    await expect(at(1, () => syncApplication(created.id))).rejects.toThrow('AtsUnavailableError (transient)');
    await sweep(1.5);
    expect(await drainQueue()).not.toContain(message(created.id)); // not due yet
    await sweep(3);
    expect(await drainQueue()).toContain(message(created.id)); // due again: swept
    await expect(at(3, () => syncApplication(created.id))).rejects.toThrow('AtsUnavailableError (transient)');
    await sweep(5);
    expect(await drainQueue()).toContain(message(created.id));
    await at(5, () => syncApplication(created.id));
    expect((await read(plain, created.id)).sync_status).toBe('SUCCESS');
    expect(await sandboxCalls(plain, `his-application-${created.id}`)).toBe(3);
    // Settled: its entry stays (due at 6), and a sweep whose window holds it reads it and skips it.
    const holding = await sweep(7.5);
    expect(await drainQueue()).not.toContain(message(created.id));
    expect(holding.entries - holding.requeued).toBeGreaterThanOrEqual(1);
    // The mark has passed it (7.5 less the lookback): the next sweep reads no settled entry, only what it re-queues.
    const past = await sweep(9);
    expect(past.entries).toBe(past.requeued);
    await drainQueue();
  } finally {
    process.env.SYNC_SWEEP_LOOKBACK_SECONDS = lookback;
  }
});

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

test('an application past 180 days is not delivered, though retention has not run yet (D10, P267)', async () => {
  const company = await aCompany(partner.id, { entitlements: ['candidate_sync'] });
  await importJobs(company.id, [{ external_id: 'OLD-1', title: 'Old' }]);
  const job = await jobId(company.id, 'OLD-1');
  const created = await apply(company, job, 'old.applicant@example.com');
  await drainQueue();
  // Its sync message comes late (a company deactivated for half a year, say): the application reads anonymized.
  await runWithClock(new Date(Date.now() + 181 * 24 * 3600 * 1000), () => syncApplication(created.id));
  expect(await sandboxCalls(company, `his-application-${created.id}`)).toBe(0);
  expect(await drainQueue()).toEqual([]);
  expect(await read(company, created.id)).toMatchObject({ sync_status: 'NOTSENT' });
});

test('an ATS that asks to wait 25 hours is tried again after 11, the longest SQS can delay a message (P270)', async () => {
  const created = await apply(plain, jobs.openP, 'slow+ratelimited90000@example.com');
  await drainQueue(); // the test plays the worker (whose message would stay invisible for the wait)
  await expect(syncApplication(created.id)).rejects.toMatchObject({ name: 'RetryLater', delaySeconds: 11 * 3600 });
  expect((await read(plain, created.id)).sync_status).toBe('NOTSENT');
  expect(await sandboxCalls(plain, `his-application-${created.id}`)).toBe(1);
  // Were the message lost, the sweeper brings it back when the wait it was given has passed: 11 hours, not 25.
  const after = (hours: number, run: () => Promise<unknown>) =>
    runWithClock(new Date(Date.now() + hours * 3600 * 1000 + sweepGraceSeconds() * 1000), run);
  expect(await after(10.9, () => api.runtime.scheduler.run('SyncSweeper'))).toMatchObject({ requeued: 0 });
  await after(11.05, async () => {
    expect(await api.runtime.scheduler.run('SyncSweeper')).toMatchObject({ requeued: 1 });
    await work();
  });
  expect((await read(plain, created.id)).sync_status).toBe('SUCCESS');
  expect(await sandboxCalls(plain, `his-application-${created.id}`)).toBe(2);
});

test('a job import emits job.created, job.updated and job.archived for what changed, nothing for unchanged jobs', async () => {
  const company = await aCompany(partner.id);
  await importJobs(company.id, [
    { external_id: 'E-1', title: 'One' },
    { external_id: 'E-2', title: 'Two' },
    { external_id: 'E-3', title: 'Three' },
  ]);
  // This company's events only: under load, events of the previous tests' applications can arrive late.
  const ofCompany = async () => (await events()).filter((e) => e.company === company.id);
  const created = await ofCompany();
  expect(created.map((e) => [e.type, e.data.external_id]).sort()).toEqual([
    ['job.created', 'E-1'],
    ['job.created', 'E-2'],
    ['job.created', 'E-3'],
  ]);
  expect(created.every((e) => typeof e.data.job_id === 'number')).toBe(true);
  await importJobs(company.id, [
    { external_id: 'E-1', title: 'One' },
    { external_id: 'E-2', title: 'Two, renamed' },
  ]);
  const changed = await ofCompany();
  expect(changed.map((e) => [e.type, e.data.external_id, e.data.status]).sort()).toEqual([
    ['job.archived', 'E-3', 'archived'],
    ['job.updated', 'E-2', 'active'],
  ]);
});
