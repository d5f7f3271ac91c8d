/**
 * The `external_apply_status` follow-up's first e-mail (issue 23 item 3, P206): through the real path (the
 * create route, the sync queue and worker on the local runtime), the e-mail read back from the `.eml` outbox.
 */
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { config, db, sqs } from '#platform/clients.js';
import { runWithClock } from '#platform/clock.js';
import { keys } from '#platform/keys.js';
import { importJobs } from '#jobs/job-store.js';
import { setCompanyStatus } from '#companies/company-store.js';
import { externalApplyToken, verifyExternalApplyToken } from '#delivery/external-apply.js';
import { syncApplication } from '#delivery/sync.js';
import { aCompany, aPartner } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';

process.env.PUBLIC_BASE_URL = 'https://hiring.example';
const EVENTS_QUEUE = 'events-external-apply';

let api: TestRuntime;
let partner: Awaited<ReturnType<typeof aPartner>>;
let entitled: Awaited<ReturnType<typeof aCompany>>; // external_apply, no ATS sync
let syncing: Awaited<ReturnType<typeof aCompany>>; // external_apply, but candidates sync to an ATS
let notEntitled: Awaited<ReturnType<typeof aCompany>>;
const jobs: Record<string, number> = {};

async function jobId(companyId: number, externalId: string) {
  return (await api.get(`/jobs?external_id=${externalId}`, { key: partner.key, companyId })).body.results[0].id as number;
}

async function apply(company: { id: number }, job: number, candidate: Record<string, unknown>) {
  const res = await api.request('POST', '/applications/', { key: partner.key, companyId: company.id, body: { job, candidate } });
  expect(res.status).toBe(201);
  return res.body as { id: number; external_apply_status: string };
}

const read = async (company: { id: number }, id: number) =>
  (await api.get(`/applications/${id}`, { key: partner.key, companyId: company.id })).body;

const work = () => api.runtime.poller.drain();
const outbox = () => join(api.runtime.dataDir, 'outbox');
const mails = () => (existsSync(outbox()) ? readdirSync(outbox()) : []);
/** The text part's content: the whole body of a message without attachments, else the first part (P218). */
function decoded(eml: string): string {
  const at = eml.indexOf('Content-Type: text/plain');
  const bodyAt = eml.indexOf('\r\n\r\n', at) + 4;
  const body = eml.slice(bodyAt).split('\r\n--')[0];
  // Non-ASCII text is Base64 (email.ts); plain ASCII may stay 7bit.
  const base64 = /^Content-Transfer-Encoding: base64\r$/im.test(
    eml
      .slice(0, bodyAt - 4)
      .split('\r\n\r\n')
      .pop()!,
  );
  return base64 ? Buffer.from(body.replace(/\r\n/g, ''), 'base64').toString('utf8') : body;
}

async function events(): Promise<Record<string, any>[]> {
  await api.runtime.relay.drain();
  const url = `http://127.0.0.1:${api.runtime.emulators.fauxqs.port}/000000000000/${EVENTS_QUEUE}`;
  const out: Record<string, any>[] = [];
  for (;;) {
    const res = await sqs().send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    if (!res.Messages?.length) return out;
    for (const m of res.Messages) {
      const body = JSON.parse(m.Body!);
      out.push(JSON.parse(body.Message ?? m.Body!));
      await sqs().send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle! }));
    }
  }
}

beforeAll(async () => {
  api = await startTestRuntime();
  api.runtime.emulators.fauxqs.createQueue(EVENTS_QUEUE);
  api.runtime.emulators.fauxqs.subscribe({ topic: 'his-local-events', queue: EVENTS_QUEUE });
  partner = await aPartner();
  entitled = await aCompany(partner.id, { name: 'Acme Careers', entitlements: ['external_apply'] });
  syncing = await aCompany(partner.id, { entitlements: ['candidate_sync', 'external_apply'] });
  notEntitled = await aCompany(partner.id, { entitlements: [] });
  await importJobs(entitled.id, [
    { external_id: 'EXT-1', title: 'Welder', application_url: 'https://careers.acme.example/jobs/1' },
    { external_id: 'EXT-NOURL', title: 'No url' },
  ]);
  await importJobs(syncing.id, [{ external_id: 'S-1', title: 'Synced', application_url: 'https://careers.sync.example/1' }]);
  await importJobs(notEntitled.id, [{ external_id: 'N-1', title: 'Plain', application_url: 'https://careers.plain.example/1' }]);
  jobs.ext = await jobId(entitled.id, 'EXT-1');
  jobs.noUrl = await jobId(entitled.id, 'EXT-NOURL');
  jobs.syncing = await jobId(syncing.id, 'S-1');
  jobs.plain = await jobId(notEntitled.id, 'N-1');
});
afterAll(() => api.stop());
beforeEach(async () => {
  await work();
  await events();
});

test('entitled, no ATS sync, job with application_url: one e-mail with the tracked and unsubscribe links, CONTACTED, one event', async () => {
  const other = await apply(entitled, jobs.ext, { email: 'someone.else@example.com', first_name: 'Other', last_name: 'Person' });
  await work();
  await events();
  const before = new Set(mails());
  const created = await apply(entitled, jobs.ext, {
    email: 'ada@example.com',
    first_name: 'Ada',
    last_name: 'Lovelace',
    language: 'de-CH',
  });
  expect(created.external_apply_status).toBe('NOTSENT');
  await work();
  expect(await read(entitled, created.id)).toMatchObject({ external_apply_status: 'CONTACTED', sync_status: 'NOTSENT' });
  const fresh = mails().filter((f) => !before.has(f));
  expect(fresh).toHaveLength(1);
  const eml = readFileSync(join(outbox(), fresh[0]), 'utf8');
  expect(eml).toContain('To: ada@example.com');
  const text = decoded(eml);
  const redirect = `https://hiring.example/r/${externalApplyToken(created.id, 'redirect')}`;
  const unsubscribe = `https://hiring.example/r/${externalApplyToken(created.id, 'unsubscribe')}/unsubscribe`;
  expect(text).toContain(redirect);
  expect(text).toContain(unsubscribe);
  // The candidate's language (de-CH → de), the job and the company are named.
  expect(text).toContain('Danke für Ihre Bewerbung auf "Welder" bei Acme Careers.');
  // Nothing of another candidate, and not the career site's address itself (the link is tracked).
  expect(eml).not.toContain('someone.else');
  expect(text).not.toContain(externalApplyToken(other.id, 'redirect'));
  expect(text).not.toContain('careers.acme.example');

  const out = (await events()).filter((e) => e.data.application_id === created.id);
  expect(out.map((e) => [e.type, e.sequence])).toEqual([
    ['application.created', 1],
    ['application.external_apply_status_changed', 2],
  ]);
  expect(out[1].data).toEqual({
    application_id: created.id,
    job_id: jobs.ext,
    external_apply_status: 'CONTACTED',
    previous_external_apply_status: 'NOTSENT',
  });
  expect(JSON.stringify(out)).not.toMatch(/ada@example|Lovelace|hiring\.example/);

  // A second delivery of the same sync message sends nothing more.
  await syncApplication(created.id);
  await work();
  expect(mails().filter((f) => !before.has(f))).toHaveLength(1);
});

test('a follow-up that fails to send stays NOTSENT and is sent when the sync message comes back (P267)', async () => {
  const before = new Set(mails());
  const saved = process.env.EMAIL_OUTBOX_DIR;
  // A file where the outbox directory should be: every send fails, as when SES refuses or is unreachable.
  const blocked = join(api.runtime.dataDir, 'not-a-directory');
  writeFileSync(blocked, 'x');
  process.env.EMAIL_OUTBOX_DIR = blocked;
  let created: { id: number };
  try {
    created = await apply(entitled, jobs.ext, { email: 'retry.me@example.com', first_name: 'Retry', last_name: 'Me' });
    await api.runtime.poller.runOnce();
    expect(await read(entitled, created.id)).toMatchObject({ external_apply_status: 'NOTSENT' });
  } finally {
    process.env.EMAIL_OUTBOX_DIR = saved;
  }
  await work();
  expect(await read(entitled, created.id)).toMatchObject({ external_apply_status: 'CONTACTED' });
  const fresh = mails().filter((f) => !before.has(f));
  expect(fresh).toHaveLength(1);
  expect(readFileSync(join(outbox(), fresh[0]), 'utf8')).toContain('To: retry.me@example.com');
});

// (An application without a candidate e-mail cannot be created: `candidate.email` is required.)
test('NOTSENT stays NOTSENT: no application_url, an ATS-syncing company, not entitled', async () => {
  const before = new Set(mails());
  const noUrl = await apply(entitled, jobs.noUrl, { email: 'nourl@example.com', full_name: 'No Url' });
  const synced = await apply(syncing, jobs.syncing, { email: 'synced@example.com', full_name: 'S Y' });
  const plain = await apply(notEntitled, jobs.plain, { email: 'plain@example.com', full_name: 'P L' });
  await work();
  expect((await read(entitled, noUrl.id)).external_apply_status).toBe('NOTSENT');
  expect((await read(syncing, synced.id)).external_apply_status).toBe('NOTSENT');
  expect((await read(notEntitled, plain.id)).external_apply_status).toBe('NOTSENT');
  const fresh = mails()
    .filter((f) => !before.has(f))
    .map((f) => readFileSync(join(outbox(), f), 'utf8'));
  expect(fresh.filter((eml) => /nourl@|synced@|plain@/.test(eml))).toEqual([]);
  expect((await events()).filter((e) => e.type === 'application.external_apply_status_changed')).toEqual([]);
});

test('tenancy: another company cannot read the follow-up; tokens are bound to their purpose and unforgeable', async () => {
  const created = await apply(entitled, jobs.ext, { email: 'tenant@example.com', first_name: 'T', last_name: 'N' });
  await work();
  expect((await api.get(`/applications/${created.id}`, { key: partner.key, companyId: notEntitled.id })).status).toBe(404);
  const token = externalApplyToken(created.id, 'redirect');
  expect(verifyExternalApplyToken(token, 'redirect')).toBe(created.id);
  expect(verifyExternalApplyToken(token, 'unsubscribe')).toBeUndefined();
  expect(verifyExternalApplyToken(externalApplyToken(created.id, 'unsubscribe'), 'unsubscribe')).toBe(created.id);
  const forged = Buffer.from(token, 'base64url');
  forged[1] ^= 1;
  expect(verifyExternalApplyToken(forged.toString('base64url'), 'redirect')).toBeUndefined();
  expect(verifyExternalApplyToken('x'.repeat(200), 'redirect')).toBeUndefined();
});

test('the tracked link: 302 to the job application_url, ENGAGED with its event once; bad tokens 404', async () => {
  const created = await apply(entitled, jobs.ext, { email: 'click@example.com', first_name: 'C', last_name: 'L' });
  await work();
  await events();
  const token = externalApplyToken(created.id, 'redirect');
  // The query carries a URL of the request's own: it is never where the redirect goes.
  const click = () => fetch(`${api.url}/r/${token}?url=https://evil.example/`, { redirect: 'manual' });
  const first = await click();
  expect(first.status).toBe(302);
  expect(first.headers.get('location')).toBe('https://careers.acme.example/jobs/1');
  expect((await read(entitled, created.id)).external_apply_status).toBe('ENGAGED');
  const again = await click();
  expect(again.status).toBe(302);
  expect(again.headers.get('location')).toBe('https://careers.acme.example/jobs/1');
  const out = (await events()).filter((e) => e.data.application_id === created.id);
  expect(out.map((e) => [e.type, e.sequence, e.data.external_apply_status, e.data.previous_external_apply_status])).toEqual([
    ['application.external_apply_status_changed', 3, 'ENGAGED', 'CONTACTED'],
  ]);
  // The unsubscribe token is not a redirect token; a forged or unknown one finds nothing.
  expect((await fetch(`${api.url}/r/${externalApplyToken(created.id, 'unsubscribe')}`, { redirect: 'manual' })).status).toBe(404);
  expect((await fetch(`${api.url}/r/${externalApplyToken(999_999, 'redirect')}`, { redirect: 'manual' })).status).toBe(404);
  expect((await fetch(`${api.url}/r/not-a-token`, { redirect: 'manual' })).status).toBe(404);
  // Never contacted (not entitled): no redirect and no status change.
  const plain = await apply(notEntitled, jobs.plain, { email: 'plain2@example.com', full_name: 'P L' });
  await work();
  expect((await fetch(`${api.url}/r/${externalApplyToken(plain.id, 'redirect')}`, { redirect: 'manual' })).status).toBe(404);
  expect((await read(notEntitled, plain.id)).external_apply_status).toBe('NOTSENT');
});

test('unsubscribe: GET shows a button and changes nothing; POST records it once; bad tokens 404', async () => {
  const created = await apply(entitled, jobs.ext, { email: 'unsub@example.com', first_name: 'U', last_name: 'S' });
  await work();
  await events();
  const stored = async () => (await db().send(new GetCommand({ TableName: config().tableName, Key: keys.application(created.id) }))).Item!;
  const url = `${api.url}/r/${externalApplyToken(created.id, 'unsubscribe')}/unsubscribe`;
  const page = await fetch(url);
  expect(page.status).toBe(200);
  const shown = (await page.text()).replace(/\s+/g, ' ');
  expect(shown).toContain('<form method="post">');
  // The page says what the button will do, not that it was done (P271).
  expect(shown).toContain('Nothing has changed yet. Press the button below, and we will send you no more reminders');
  expect(shown).not.toContain('You will get no more reminders');
  expect((await stored()).external_apply_unsubscribed_at).toBeUndefined();
  const post = await fetch(url, { method: 'POST' });
  expect(post.status).toBe(200);
  const at = (await stored()).external_apply_unsubscribed_at;
  expect(typeof at).toBe('string');
  expect((await fetch(url, { method: 'POST' })).status).toBe(200);
  expect((await stored()).external_apply_unsubscribed_at).toBe(at);
  // No status change and no event; the redirect token is not an unsubscribe token.
  expect((await read(entitled, created.id)).external_apply_status).toBe('CONTACTED');
  expect((await events()).filter((e) => e.data.application_id === created.id)).toEqual([]);
  expect((await fetch(`${api.url}/r/${externalApplyToken(created.id, 'redirect')}/unsubscribe`, { method: 'POST' })).status).toBe(404);
  expect((await fetch(`${api.url}/r/nothing/unsubscribe`)).status).toBe(404);
});

test('the reminder: due after EXTERNAL_APPLY_REMINDER_HOURS, once, REMINDED with its event; not after a click or an unsubscribe', async () => {
  const waiting = await apply(entitled, jobs.ext, { email: 'remind@example.com', first_name: 'R', last_name: 'M' });
  const clicked = await apply(entitled, jobs.ext, { email: 'clicked@example.com', first_name: 'C', last_name: 'K' });
  const unsubscribed = await apply(entitled, jobs.ext, { email: 'stop@example.com', first_name: 'S', last_name: 'T' });
  await work();
  await fetch(`${api.url}/r/${externalApplyToken(clicked.id, 'redirect')}`, { redirect: 'manual' });
  await fetch(`${api.url}/r/${externalApplyToken(unsubscribed.id, 'unsubscribe')}/unsubscribe`, { method: 'POST' });
  await events();
  const reminders = (id: number) => mails().filter((f) => f.includes(`external-apply-reminder-${id}_`));
  // Not due yet (47 h): nothing.
  await runWithClock(new Date(Date.now() + 47 * 3_600_000), () => api.runtime.scheduler.run('ExternalApplyReminder'));
  expect(reminders(waiting.id)).toHaveLength(0);
  expect((await read(entitled, waiting.id)).external_apply_status).toBe('CONTACTED');
  // Past 48 h: one reminder.
  await runWithClock(new Date(Date.now() + 49 * 3_600_000), () => api.runtime.scheduler.run('ExternalApplyReminder'));
  await runWithClock(new Date(Date.now() + 50 * 3_600_000), () => api.runtime.scheduler.run('ExternalApplyReminder'));
  expect((await read(entitled, waiting.id)).external_apply_status).toBe('REMINDED');
  expect(reminders(waiting.id)).toHaveLength(1);
  const eml = readFileSync(join(outbox(), reminders(waiting.id)[0]), 'utf8');
  expect(eml).toContain('To: remind@example.com');
  const text = decoded(eml);
  expect(text).toContain(`https://hiring.example/r/${externalApplyToken(waiting.id, 'redirect')}`);
  expect(text).toContain(`https://hiring.example/r/${externalApplyToken(waiting.id, 'unsubscribe')}/unsubscribe`);
  expect(reminders(clicked.id)).toHaveLength(0);
  expect(reminders(unsubscribed.id)).toHaveLength(0);
  expect((await read(entitled, clicked.id)).external_apply_status).toBe('ENGAGED');
  expect((await read(entitled, unsubscribed.id)).external_apply_status).toBe('CONTACTED');
  const out = (await events()).filter(
    (e) => e.type === 'application.external_apply_status_changed' && e.data.application_id === waiting.id,
  );
  expect(out.map((e) => [e.sequence, e.data.external_apply_status, e.data.previous_external_apply_status])).toEqual([
    [3, 'REMINDED', 'CONTACTED'],
  ]);
  // A click after the reminder: ENGAGED.
  expect((await fetch(`${api.url}/r/${externalApplyToken(waiting.id, 'redirect')}`, { redirect: 'manual' })).status).toBe(302);
  expect((await read(entitled, waiting.id)).external_apply_status).toBe('ENGAGED');
});

const storedApplication = async (id: number) =>
  (await db().send(new GetCommand({ TableName: config().tableName, Key: keys.application(id) }))).Item!;

test('a closed job, or a deactivated or deleted company: the link answers 410 "no longer open" and records nothing; unsubscribing still works (P271)', async () => {
  const closing = await aCompany(partner.id, { name: 'Closing Works', entitlements: ['external_apply'] });
  const feed = [
    { external_id: 'C-1', title: 'Closing', application_url: 'https://careers.closing.example/1' },
    { external_id: 'C-2', title: 'Staying', application_url: 'https://careers.closing.example/2' },
  ];
  await importJobs(closing.id, feed);
  const onClosed = await apply(closing, await jobId(closing.id, 'C-1'), { email: 'closed@example.com', full_name: 'C L' });
  const onStaying = await apply(closing, await jobId(closing.id, 'C-2'), { email: 'staying@example.com', full_name: 'S T' });
  await work();
  await events();
  expect((await read(closing, onClosed.id)).external_apply_status).toBe('CONTACTED');
  const click = (id: number) => fetch(`${api.url}/r/${externalApplyToken(id, 'redirect')}`, { redirect: 'manual' });
  const expectClosed = async (id: number) => {
    const answer = await click(id);
    const text = (await answer.text()).replace(/\s+/g, ' ');
    expect({ status: answer.status, location: answer.headers.get('location'), type: answer.headers.get('content-type') }).toEqual({
      status: 410,
      location: null,
      type: 'text/html; charset=utf-8',
    });
    expect(text).toContain('<h1>This job is no longer open</h1>');
    expect(text).not.toContain('careers.closing.example');
    expect((await storedApplication(id)).external_apply_status).toBe('CONTACTED');
  };

  // The job archived (a complete feed without it): its link is closed, the other job's still leads on.
  await importJobs(closing.id, [feed[1]]);
  await expectClosed(onClosed.id);
  // The company deactivated, then deleted: every link of it is closed.
  await setCompanyStatus(closing.id, 'deactivated');
  await expectClosed(onStaying.id);
  await setCompanyStatus(closing.id, 'deleted');
  await expectClosed(onStaying.id);
  expect((await events()).filter((e) => [onClosed.id, onStaying.id].includes(e.data.application_id))).toEqual([]);
  // Asking for no more mail is always allowed, even for a deleted company: the page and its button work.
  const unsubscribe = `${api.url}/r/${externalApplyToken(onStaying.id, 'unsubscribe')}/unsubscribe`;
  expect((await fetch(unsubscribe)).status).toBe(200);
  expect((await fetch(unsubscribe, { method: 'POST' })).status).toBe(200);
  expect(typeof (await storedApplication(onStaying.id)).external_apply_unsubscribed_at).toBe('string');
  // Active again, the open job's link leads on and records the click.
  await setCompanyStatus(closing.id, 'active');
  const open = await click(onStaying.id);
  expect(open.status).toBe(302);
  expect(open.headers.get('location')).toBe('https://careers.closing.example/2');
  expect((await read(closing, onStaying.id)).external_apply_status).toBe('ENGAGED');
  await expectClosed(onClosed.id);
});

test('no follow-up leads to a closed job: none for an application to an archived job, no reminder once the job or company closed (P271)', async () => {
  const shut = await aCompany(partner.id, { name: 'Shut Down Ltd', entitlements: ['external_apply'] });
  const feed = [
    { external_id: 'R-1', title: 'Archived later', application_url: 'https://careers.shut.example/1' },
    { external_id: 'R-2', title: 'Archived before', application_url: 'https://careers.shut.example/2' },
    { external_id: 'R-3', title: 'Open', application_url: 'https://careers.shut.example/3' },
  ];
  await importJobs(shut.id, feed);
  const [laterJob, beforeJob, openJob] = await Promise.all(['R-1', 'R-2', 'R-3'].map((id) => jobId(shut.id, id)));
  await importJobs(shut.id, [feed[0], feed[2]]);
  const before = new Set(mails());
  const onArchived = await apply(shut, beforeJob, { email: 'archived.before@example.com', full_name: 'A B' });
  const onLater = await apply(shut, laterJob, { email: 'archived.later@example.com', full_name: 'A L' });
  await work();
  // An application to a job already archived gets no follow-up (it would lead to the "no longer open" page).
  expect((await read(shut, onArchived.id)).external_apply_status).toBe('NOTSENT');
  expect((await read(shut, onLater.id)).external_apply_status).toBe('CONTACTED');
  const other = await aCompany(partner.id, { name: 'Paused Ltd', entitlements: ['external_apply'] });
  await importJobs(other.id, [{ external_id: 'P-1', title: 'Paused', application_url: 'https://careers.paused.example/1' }]);
  const onPaused = await apply(other, await jobId(other.id, 'P-1'), { email: 'paused@example.com', full_name: 'P A' });
  const onOpen = await apply(shut, openJob, { email: 'still.open@example.com', full_name: 'S O' });
  await work();
  expect((await read(other, onPaused.id)).external_apply_status).toBe('CONTACTED');
  // Then the job closes, and the other company is deactivated: their reminders are dropped, not sent.
  await importJobs(shut.id, [feed[2]]);
  await setCompanyStatus(other.id, 'deactivated');
  await runWithClock(new Date(Date.now() + 49 * 3_600_000), () => api.runtime.scheduler.run('ExternalApplyReminder'));
  // Dropped for good: reactivated, the company's application gets no reminder later either.
  await setCompanyStatus(other.id, 'active');
  await runWithClock(new Date(Date.now() + 51 * 3_600_000), () => api.runtime.scheduler.run('ExternalApplyReminder'));
  const fresh = mails().filter((f) => !before.has(f));
  const to = (id: number) => fresh.filter((f) => f.includes(`-${id}_`));
  expect(to(onArchived.id)).toEqual([]);
  expect(to(onLater.id).filter((f) => f.includes('reminder'))).toEqual([]);
  expect(to(onPaused.id).filter((f) => f.includes('reminder'))).toEqual([]);
  expect(to(onOpen.id).filter((f) => f.includes('reminder'))).toHaveLength(1);
  expect((await read(shut, onLater.id)).external_apply_status).toBe('CONTACTED');
  expect((await read(other, onPaused.id)).external_apply_status).toBe('CONTACTED');
});

// Last in the file: retention anonymizes every application of the runtime.
test('an anonymized application gets no reminder and its link no longer redirects', async () => {
  const created = await apply(entitled, jobs.ext, { email: 'gone@example.com', first_name: 'G', last_name: 'N' });
  await work();
  expect((await read(entitled, created.id)).external_apply_status).toBe('CONTACTED');
  await runWithClock(new Date(Date.now() + 181 * 86_400_000), () => api.runtime.scheduler.run('Retention'));
  await runWithClock(new Date(Date.now() + 182 * 86_400_000), () => api.runtime.scheduler.run('ExternalApplyReminder'));
  expect(mails().filter((f) => f.includes(`external-apply-reminder-${created.id}_`))).toHaveLength(0);
  expect((await read(entitled, created.id)).external_apply_status).toBe('CONTACTED');
  expect((await fetch(`${api.url}/r/${externalApplyToken(created.id, 'redirect')}`, { redirect: 'manual' })).status).toBe(404);
});
