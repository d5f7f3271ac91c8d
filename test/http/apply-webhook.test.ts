/**
 * `POST /apply/{channel}/{token}` (issue 23 item 2, P202–P204) through the local runtime: signed deliveries in
 * the `generic` (Standard Webhooks) and `indeed` (X-Indeed-Signature) formats, replays and duplicates, bad
 * signatures, unknown, revoked and other-channel tokens, inactive jobs, cross-tenant tokens, bad and oversized
 * bodies (nothing stored for any of them), and no personal data, tokens or secrets in logs or events.
 */
import { createHmac } from 'node:crypto';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { Webhook } from 'standardwebhooks';
import { createChannel } from '#applications/channels.js';
import { forgetCachedCompany } from '#companies/api-keys.js';
import { applyChannelItems, checkApplyChannelInput, revokeApplyTokens } from '#companies/apply-channels.js';
import { setEntitlements } from '#companies/company-store.js';
import { applyToken, applyTokenKey, forgetCachedApplyChannels } from '#jobs/apply-links.js';
import { config, s3, sqs } from '#platform/clients.js';
import { aCompany, aJob, aPartner, withJobs } from '../helpers/fixtures.js';
import { captureServiceLogs } from '../helpers/logs.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';

const INDEED_SECRET = 'indeed-api-secret-0123456789';
const EVENTS_QUEUE = 'events-apply-webhook';
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n').toString('base64');

let api: TestRuntime;
let partner: Awaited<ReturnType<typeof aPartner>>;
let a: Awaited<ReturnType<typeof aCompany>>;
let b: Awaited<ReturnType<typeof aCompany>>;
const channels = new Map<string, { id: number; secret: string }>();
const jobsOf = new Map<number, { id: number; status: string }[]>();
let logs: ReturnType<typeof captureServiceLogs>;

async function applyChannel(slug: string, format: 'generic' | 'indeed', given?: string) {
  const inbound = checkApplyChannelInput({ slug, format, secret: given });
  const channel = await createChannel({ slug, name: slug }, (c) => applyChannelItems(c, inbound.format, inbound.secret));
  channels.set(slug, { id: channel.id, secret: inbound.secret });
}

beforeAll(async () => {
  api = await startTestRuntime();
  api.runtime.emulators.fauxqs.createQueue(EVENTS_QUEUE);
  api.runtime.emulators.fauxqs.subscribe({ topic: 'his-local-events', queue: EVENTS_QUEUE });
  partner = await aPartner();
  a = await aCompany(partner.id);
  b = await aCompany(partner.id);
  await applyChannel('board', 'generic');
  await applyChannel('board-two', 'generic');
  await applyChannel('indeed', 'indeed', INDEED_SECRET);
  await setEntitlements(a.id, ['apply:board', 'apply:board-two', 'apply:indeed']);
  await setEntitlements(b.id, ['apply:indeed']);
  await withJobs(a.id, [aJob(), aJob(), aJob({ status: 'archived' })]);
  await withJobs(b.id, [aJob()]);
  for (const company of [a, b]) {
    forgetCachedCompany(company.id);
    const found = new Map<number, string>();
    for (const status of ['active', 'archived']) {
      const list = await api.get(`/jobs?page_size=50&status=${status}`, { key: partner.key, companyId: company.id });
      expect(list.status).toBe(200);
      for (const job of list.body.results as { id: number; status: string }[]) found.set(job.id, job.status);
    }
    jobsOf.set(
      company.id,
      [...found].map(([id, status]) => ({ id, status })),
    );
  }
  forgetCachedApplyChannels();
  // Everything the service logs in this process (the handlers run in it) is kept, to look for personal data.
  logs = captureServiceLogs();
});
afterAll(async () => {
  logs.stop();
  await api.stop();
});

/** The apply URL path of a job and channel at the channel's current generation (what `apply_webhooks` lists). */
function applyPath(slug: string, companyId: number, jobId: number, generation = 1): string {
  return `/apply/${slug}/${applyToken(applyTokenKey(), companyId, jobId, { channel_id: channels.get(slug)!.id, generation })}`;
}

const activeJob = (company: { id: number }, n = 0) => jobsOf.get(company.id)!.filter((j) => j.status === 'active')[n].id;

function signed(slug: string, body: string, id = `msg_${Math.random().toString(36).slice(2)}`, at = new Date()) {
  const signature = new Webhook(channels.get(slug)!.secret).sign(id, at, body);
  return {
    'Content-Type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  };
}

const indeedSigned = (body: string, secret = INDEED_SECRET) => ({
  'Content-Type': 'application/json',
  'X-Indeed-Signature': createHmac('sha1', secret).update(body).digest('base64'),
});

async function post(path: string, body: string, headers: Record<string, string>) {
  return api.request('POST', path, { rawBody: body, headers });
}

async function applicationCount(company: { id: number }): Promise<number> {
  const list = await api.get('/applications/?page_size=1', { key: partner.key, companyId: company.id });
  expect(list.status).toBe(200);
  return list.body.count;
}

async function objectCount(): Promise<number> {
  const out = await s3().send(new ListObjectsV2Command({ Bucket: config().bucketName }));
  return out.KeyCount ?? 0;
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

const candidate = { email: 'grace.hopper@example.com', full_name: 'Grace Hopper', phone: '+49 30 1234567' };
const genericBody = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    candidate,
    partner_application_id: 'board-app-1',
    attachments: [{ type: 'cv', name: 'cv.pdf', content_type: 'application/pdf', data: PDF }],
    ...extra,
  });

describe('generic (Standard Webhooks)', () => {
  let firstId: number;
  let firstDelivery: string;

  test('a signed delivery creates the application through the create path: job from the token, channel set, apply_webhook', async () => {
    const before = await applicationCount(a);
    const objects = await objectCount();
    const job = activeJob(a);
    const body = genericBody();
    const headers = signed('board', body);
    const res = await post(applyPath('board', a.id, job), body, headers);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.any(Number),
      job,
      channel: 'board',
      talent_channel: channels.get('board')!.id,
      import_source: 'apply_webhook',
      partner_application_id: 'board-app-1',
      sync_status: 'NOTSENT',
      candidate: expect.objectContaining({ email: candidate.email, full_name: candidate.full_name }),
      attachments: [expect.objectContaining({ type: 'cv', name: 'cv.pdf', content_type: 'application/pdf' })],
    });
    firstId = res.body.id;
    firstDelivery = headers['webhook-id'];
    expect(await applicationCount(a)).toBe(before + 1);
    expect(await objectCount()).toBe(objects + 1);
    // The partner reads it like any other application of the company.
    const read = await api.get(`/applications/${firstId}`, { key: partner.key, companyId: a.id });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: firstId, import_source: 'apply_webhook', channel: 'board', job });
    // Another company never sees it.
    expect((await api.get(`/applications/${firstId}`, { key: partner.key, companyId: b.id })).status).toBe(404);
    // Its event went out through the relay like every create's (on the application item, P240), with ids only.
    const created = (await events()).filter((e) => e.type === 'application.created' && e.data.application_id === firstId);
    expect(created).toHaveLength(1);
    expect(created[0].company).toBe(a.id);
    expect(JSON.stringify(created)).not.toMatch(/grace|hopper|example\.com/i);
    // And it is synced to the company's ATS (the sandbox) like any other.
    await api.runtime.poller.drain();
    const synced = await api.get(`/applications/${firstId}`, { key: partner.key, companyId: a.id });
    expect(synced.body).toMatchObject({ sync_status: 'SUCCESS', failure_error: null });
  });

  test('a replay (same webhook-id, signed again later) creates nothing and answers 200 with the earlier application', async () => {
    const before = await applicationCount(a);
    const body = genericBody();
    const res = await post(applyPath('board', a.id, activeJob(a)), body, signed('board', body, firstDelivery));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: firstId, import_source: 'apply_webhook' });
    // Concurrent replays of a new delivery: one application, the others answer with it.
    const id = 'msg_concurrent';
    const results = await Promise.all([0, 1, 2].map(() => post(applyPath('board', a.id, activeJob(a)), body, signed('board', body, id))));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 201]);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(await applicationCount(a)).toBe(before + 1);
  });

  test('the same delivery id of another company is not a replay (markers are per channel and company)', async () => {
    await setEntitlements(b.id, ['apply:board']);
    forgetCachedCompany(b.id);
    const before = await applicationCount(b);
    const body = genericBody();
    const res = await post(applyPath('board', b.id, activeJob(b)), body, signed('board', body, firstDelivery));
    expect(res.status).toBe(201);
    expect(res.body.id).not.toBe(firstId);
    expect(await applicationCount(b)).toBe(before + 1);
    await setEntitlements(b.id, [], ['apply:board']);
  });

  test('a missing, wrong, other-channel or stale signature is a 401 and stores nothing', async () => {
    const before = await applicationCount(a);
    const objects = await objectCount();
    const path = applyPath('board', a.id, activeJob(a));
    const body = genericBody();
    const good = signed('board', body);
    const stale = signed('board', body, 'msg_stale', new Date(Date.now() - 10 * 60_000));
    const cases = [
      { 'Content-Type': 'application/json' },
      { ...good, 'webhook-signature': 'v1,' + Buffer.alloc(32).toString('base64') },
      signed('board-two', body),
      { ...good, 'webhook-id': 'msg_other' },
      stale,
    ];
    for (const headers of cases) {
      const res = await post(path, body, headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: expect.any(String), code: 'invalid_signature' });
    }
    // A body changed after signing.
    const tampered = await post(path, body.replace('Grace', 'Grave'), good);
    expect(tampered.status).toBe(401);
    expect(await applicationCount(a)).toBe(before);
    expect(await objectCount()).toBe(objects);
  });

  test('unknown, malformed, other-channel and revoked tokens are a 404; a token of a channel the company lost too', async () => {
    const job = activeJob(a);
    const body = genericBody();
    const token = applyPath('board-two', a.id, job).split('/').pop()!;
    const cases = [
      '/apply/board/nope',
      `/apply/board/${token}`, // board-two's token under board's slug
      applyPath('board', a.id, job, 2), // a generation the channel has not reached
      applyPath('board', b.id, activeJob(b)), // company B is not entitled to board
      applyPath('board', a.id, activeJob(b)), // A's company id with B's job: the job is not A's
    ];
    for (const path of cases) {
      const res = await post(path, body, signed(path.split('/')[2], body));
      expect([path, res.status]).toEqual([path, 404]);
      expect(res.body).toEqual({ detail: 'Not found.', code: 'not_found' });
    }
    const before = await applicationCount(a);
    const path = applyPath('board-two', a.id, job);
    expect((await post(path, body, signed('board-two', body))).status).toBe(201);
    await revokeApplyTokens('board-two');
    const revoked = await post(path, body, signed('board-two', body));
    expect(revoked.status).toBe(404);
    expect((await post(applyPath('board-two', a.id, job, 2), body, signed('board-two', body))).status).toBe(201);
    expect(await applicationCount(a)).toBe(before + 2);
  });

  test('a job no longer active is a 410, and nothing is stored', async () => {
    const archived = jobsOf.get(a.id)!.find((j) => j.status === 'archived');
    expect(archived).toBeDefined();
    const before = await applicationCount(a);
    const objects = await objectCount();
    const body = genericBody();
    const res = await post(applyPath('board', a.id, archived!.id), body, signed('board', body));
    expect(res.status).toBe(410);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'job_closed' });
    expect(await applicationCount(a)).toBe(before);
    expect(await objectCount()).toBe(objects);
  });

  test('malformed bodies are a 400 in the D2 shape naming the field; nothing is stored', async () => {
    const before = await applicationCount(a);
    const objects = await objectCount();
    const path = applyPath('board', a.id, activeJob(a));
    const send = (body: string) => post(path, body, signed('board', body));
    const notJson = await send('{"candidate": ');
    expect(notJson.status).toBe(400);
    expect(notJson.body.code).toBe('malformed_json');
    const noEmail = await send(JSON.stringify({ candidate: { full_name: 'Grace Hopper' } }));
    expect(noEmail.status).toBe(400);
    expect(noEmail.body).toEqual({
      detail: expect.any(String),
      code: 'invalid',
      errors: { 'candidate.email': ['This field is required.'] },
    });
    const otherJob = await send(genericBody({ job: activeJob(a, 1) }));
    expect(otherJob.status).toBe(400);
    expect(otherJob.body.errors).toEqual({ job: [expect.any(String)] });
    const badFile = await send(
      genericBody({ attachments: [{ type: 'cv', name: 'cv.pdf', content_type: 'application/pdf', data: 'aGVsbG8=' }] }),
    );
    expect(badFile.status).toBe(400);
    expect(Object.keys(badFile.body.errors)[0]).toMatch(/^attachments/);
    expect(await applicationCount(a)).toBe(before);
    expect(await objectCount()).toBe(objects);
  });

  test('a body of 5.5 MB or more is a 413', async () => {
    const body = genericBody({ notes: 'x'.repeat(5_600_000) });
    const res = await post(applyPath('board', a.id, activeJob(a)), body, signed('board', body));
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
  });
});

describe('indeed (Indeed Apply)', () => {
  const indeedBody = (applicant: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      id: `indeed-${Math.random().toString(36).slice(2)}`,
      appliedOnMillis: Date.parse('2026-11-20T10:00:00Z'),
      job: { jobId: 'ext-1', jobTitle: 'Job', jobCompanyName: 'Company' },
      applicant: {
        fullName: 'Ada Lovelace',
        email: 'ada.lovelace@example.com',
        phoneNumber: '+44 20 7946 0000',
        coverletter: 'I would like to work on the engine.',
        resume: { file: { fileName: 'resume.pdf', contentType: 'application/pdf', data: PDF } },
        ...applicant,
      },
      locale: 'en_GB',
      questionsAndAnswers: {
        questionsAndAnswers: [{ question: { id: 'q1', question: 'Years of experience?', type: 'text' }, answer: { value: '12' } }],
      },
      ...extra,
    });

  test('a signed delivery is stored (201) and mapped onto our application', async () => {
    const body = indeedBody();
    const res = await post(applyPath('indeed', a.id, activeJob(a)), body, indeedSigned(body));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(Number), status: 'stored' });
    const read = await api.get(`/applications/${res.body.id}`, { key: partner.key, companyId: a.id });
    expect(read.body).toMatchObject({
      job: activeJob(a),
      channel: 'indeed',
      talent_channel: channels.get('indeed')!.id,
      import_source: 'apply_webhook',
      partner_application_id: JSON.parse(body).id,
      applied_at: '2026-11-20T10:00:00.000Z',
      candidate: expect.objectContaining({ email: 'ada.lovelace@example.com', full_name: 'Ada Lovelace', phone: '+44 20 7946 0000' }),
      screening_questions: [{ id: 'q1', question: 'Years of experience?', answer: '12' }],
    });
    expect(read.body.attachments.map((x: { type: string }) => x.type).sort()).toEqual(['cover_letter', 'cv']);
  });

  test('the same job and e-mail again is a 409 duplicate (also with another Indeed id), and creates nothing', async () => {
    const before = await applicationCount(a);
    const again = indeedBody({ email: 'ADA.lovelace@example.com' });
    const res = await post(applyPath('indeed', a.id, activeJob(a)), again, indeedSigned(again));
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'duplicate', id: expect.any(Number) });
    expect(await applicationCount(a)).toBe(before);
    // Another job of the same company is no duplicate.
    const otherJob = await post(applyPath('indeed', a.id, activeJob(a, 1)), again, indeedSigned(again));
    expect(otherJob.status).toBe(201);
  });

  test("Indeed's answers: 401 signature, 400 missing key, 404 invalid job, 410 expired job, 422 not saved, 413 too large", async () => {
    const before = await applicationCount(a);
    const objects = await objectCount();
    const path = applyPath('indeed', a.id, activeJob(a));
    const fresh = () => indeedBody({ email: `someone.${Math.random().toString(36).slice(2)}@example.com` });
    const body = fresh();
    expect((await post(path, body, { 'Content-Type': 'application/json' })).status).toBe(401);
    expect((await post(path, body, indeedSigned(body, 'another-secret-123'))).status).toBe(401);
    const noEmail = indeedBody({ email: undefined });
    const missing = await post(path, noEmail, indeedSigned(noEmail));
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual({ 'applicant.email': ['Required.'] });
    const body2 = fresh();
    expect((await post('/apply/indeed/nope', body2, indeedSigned(body2))).status).toBe(404);
    const archived = jobsOf.get(a.id)!.find((j) => j.status === 'archived')!;
    expect((await post(applyPath('indeed', a.id, archived.id), body2, indeedSigned(body2))).status).toBe(410);
    const badResume = indeedBody({
      email: 'x.y@example.com',
      resume: { file: { fileName: 'cv.pdf', contentType: 'application/pdf', data: 'aGVsbG8=' } },
    });
    const unsaved = await post(path, badResume, indeedSigned(badResume));
    expect(unsaved.status).toBe(422);
    expect(unsaved.body.code).toBe('not_saved');
    const huge = indeedBody({ coverletter: 'x'.repeat(5_600_000) });
    expect((await post(path, huge, indeedSigned(huge))).status).toBe(413);
    expect(await applicationCount(a)).toBe(before);
    expect(await objectCount()).toBe(objects);
  });

  test("tenancy: company B's token creates only for B; spliced tokens are a 404", async () => {
    const beforeA = await applicationCount(a);
    const beforeB = await applicationCount(b);
    const body = indeedBody({ email: 'b.only@example.com' });
    const res = await post(applyPath('indeed', b.id, activeJob(b)), body, indeedSigned(body));
    expect(res.status).toBe(201);
    expect((await api.get(`/applications/${res.body.id}`, { key: partner.key, companyId: b.id })).status).toBe(200);
    expect((await api.get(`/applications/${res.body.id}`, { key: partner.key, companyId: a.id })).status).toBe(404);
    const tokenA = Buffer.from(applyPath('indeed', a.id, activeJob(a)).split('/').pop()!, 'base64url');
    const tokenB = Buffer.from(applyPath('indeed', b.id, activeJob(b)).split('/').pop()!, 'base64url');
    const spliced = Buffer.concat([tokenA.subarray(0, tokenA.length - 16), tokenB.subarray(tokenB.length - 16)]).toString('base64url');
    const body2 = indeedBody({ email: 'spliced@example.com' });
    expect((await post(`/apply/indeed/${spliced}`, body2, indeedSigned(body2))).status).toBe(404);
    expect(await applicationCount(a)).toBe(beforeA);
    expect(await applicationCount(b)).toBe(beforeB + 1);
  });
});

test('logs carry no personal data, tokens or secrets; events carry ids only', async () => {
  const published = await events();
  expect(published.length).toBeGreaterThan(0);
  for (const text of [logs.text(), JSON.stringify(published)]) {
    expect(text).not.toMatch(/grace|hopper|lovelace|example\.com/i);
    for (const phone of [candidate.phone, '+44 20 7946 0000']) expect(text).not.toContain(phone);
    expect(text).not.toContain(INDEED_SECRET);
    for (const { secret } of channels.values()) expect(text).not.toContain(secret.slice('whsec_'.length));
    expect(text).not.toContain('/apply/');
  }
  expect(logs.text()).toContain('"route":"ApplyWebhook"');
});
