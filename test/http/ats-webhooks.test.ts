/**
 * Outcomes by the ATS's signed webhooks (D21, issue 43 item 2; P310–P313) through the real path: an application
 * made through HTTP, delivered by the sync worker to the Greenhouse or Lever simulator, moved there by a recruiter,
 * and the simulator's signed webhook POSTed to the company's URL (`POST /ats-webhooks/{token}`); seen in
 * GET /applications/{id}, its delivery log and a partner webhook. Forged, stale, replayed, cross-tenant and
 * malformed webhooks and an unknown token: a 4xx (or, for another company's application, ignored) and nothing
 * changes.
 */
import { inviteCompany } from '#companies/invites.js';
import { connectCompany, disconnectCompany } from '#delivery/ats-connections.js';
import { atsWebhookSetup } from '#delivery/ats-webhooks.js';
import { createWebhookEndpoint } from '#delivery/webhook-endpoints.js';
import { runAdmin } from '../helpers/admin-cli.js';
import { aCompany, aPartner, withJobs } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { startGreenhouseSimulator, type GreenhouseSimulator } from '../simulators/greenhouse.js';
import {
  greenhouseEvent,
  moveGreenhouseApplication,
  postGreenhouseWebhook,
  type GreenhouseWebHook,
  type SentWebhook,
} from '../simulators/greenhouse-webhooks.js';
import { startLeverSimulator, type LeverSimulator } from '../simulators/lever.js';
import {
  leverDelivery,
  moveLeverApplication,
  newLeverSignatureToken,
  postLeverWebhook,
  type LeverEvent,
  type LeverWebhooks,
} from '../simulators/lever-webhooks.js';
import { startWebhookReceiver, type WebhookReceiver } from '../simulators/webhook-receiver.js';

process.env.WEBHOOK_ALLOW_LOOPBACK_HTTP = 'true';

let api: TestRuntime;
let greenhouse: GreenhouseSimulator;
let lever: LeverSimulator;
let receiver: WebhookReceiver;

beforeAll(async () => {
  [greenhouse, lever, receiver] = await Promise.all([startGreenhouseSimulator(), startLeverSimulator(), startWebhookReceiver()]);
  Object.assign(process.env, greenhouse.env, lever.env);
  api = await startTestRuntime();
});
afterAll(async () => {
  await api.stop();
  await Promise.all([greenhouse.server.stop(), lever.server.stop(), receiver.stop()]);
});

type Company = Awaited<ReturnType<typeof aCompany>>;
type Partner = Awaited<ReturnType<typeof aPartner>>;

async function applyAndDeliver(partner: Partner, company: Company, jobExternalId: string, email: string): Promise<number> {
  await withJobs(company.id, [{ external_id: jobExternalId, title: 'Webhook job' }]);
  const job = (await api.get(`/jobs?external_id=${jobExternalId}`, { key: partner.key, companyId: company.id })).body.results[0].id;
  const created = await api.request('POST', '/applications/', {
    key: partner.key,
    companyId: company.id,
    body: { job, candidate: { email, first_name: 'Ada', last_name: 'Lovelace' } },
  });
  expect(created.status).toBe(201);
  await api.runtime.poller.drain();
  return created.body.id as number;
}

const read = async (partner: Partner, company: Company, id: number) =>
  (await api.get(`/applications/${id}`, { key: partner.key, companyId: company.id })).body;
const outcomeOf = async (partner: Partner, company: Company, id: number) => {
  const { outcome, outcome_stage, outcome_updated_at } = await read(partner, company, id);
  return { outcome, outcome_stage, outcome_updated_at };
};

/** A Greenhouse company with its board, connected; its web hook as the company creates it in Greenhouse from what we show. */
async function greenhouseCompany(partner: Partner, board: string, jobId: number) {
  greenhouse.boards.set(board, {
    token: board,
    apiKey: `${board}-key-1`,
    jobs: [{ id: jobId, title: 'Webhook job', content: '<p>x</p>' }],
  });
  const company = await aCompany(partner.id, { ats: 'greenhouse', entitlements: ['candidate_sync'] });
  await connectCompany(company.id, 'greenhouse', { board_token: board, api_key: `${board}-key-1` });
  const setup = await atsWebhookSetup({ id: company.id, ats: 'greenhouse' }, api.url);
  expect(setup).toMatchObject({ url: expect.stringMatching(new RegExp(`^${api.url}/ats-webhooks/[A-Za-z0-9_-]{32}$`)), secret_from: null });
  const hook: GreenhouseWebHook = { url: setup!.url, secretKey: setup!.secret! };
  return { company, hook };
}

test('Greenhouse: delivered, moved and hired in Greenhouse, its signed web hooks seen in the application, its log and a partner webhook', async () => {
  const partner = await aPartner();
  const endpoint = await createWebhookEndpoint({ partner: partner.id, url: receiver.url, events: ['application.outcome_changed'] });
  receiver.secret = endpoint.secret;
  const { company, hook } = await greenhouseCompany(partner, `gh-hooks-${Date.now()}`, 7101);
  const id = await applyAndDeliver(partner, company, '7101', 'ada.hooks@example.com');
  // The Job Board API answers no id: nothing to show as external_id, the application found by e-mail and job (P311).
  expect(await read(partner, company, id)).toMatchObject({ sync_status: 'SUCCESS', external_id: null, outcome: null });
  const application = greenhouse.applications.at(-1)!;
  const sent: SentWebhook[] = [];

  const staged = await moveGreenhouseApplication(
    greenhouse,
    application,
    { action: 'candidate_stage_change', stage: 'Phone Screen' },
    hook,
    sent,
  );
  expect(staged).toEqual({ status: 200, answer: { result: 'recorded' } });
  const pending = await outcomeOf(partner, company, id);
  expect(pending).toMatchObject({ outcome: 'PENDING', outcome_stage: 'Phone Screen' });
  // DynamoDB Local's accounting: 5 read units (the token's lookup, the company, its sealed hook, the replay check,
  // the e-mail reference, the application); 7 write units (the link to Greenhouse's id 1, the outcome 4 with its
  // UPDATED entry, the delivery log 1, the delivery remembered 1).
  expect(sent[0].capacity).toMatch(/; read=5; write=7;/);

  // Forged: the same event signed with another key, or not signed. 401 in the D2 shape; nothing changes.
  const forged = await postGreenhouseWebhook({ ...hook, secretKey: 'not-the-secret' }, sent[0].body.replace('Phone Screen', 'Offer'), sent);
  expect(forged).toEqual({ status: 401, answer: { code: 'invalid_signature', detail: expect.any(String) } });
  const unsigned = await fetch(hook.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: sent[0].body });
  expect(unsigned.status).toBe(401);
  // Replayed: the same delivery again (Greenhouse signs no timestamp; its signature is remembered, P312): 409.
  const replay = await fetch(hook.url, { method: 'POST', headers: sent[0].headers, body: sent[0].body });
  expect([replay.status, ((await replay.json()) as { code: string }).code]).toEqual([409, 'replayed']);
  expect(await outcomeOf(partner, company, id)).toEqual(pending);

  // Malformed, validly signed: 400 naming the field, never a 5xx; nothing changes.
  const malformed = await postGreenhouseWebhook(
    hook,
    JSON.stringify({ action: 'hire_candidate', payload: { application: { id: 'x y' } } }),
    sent,
  );
  expect(malformed).toMatchObject({ status: 400, answer: { code: 'invalid', errors: { 'payload.application.id': [expect.any(String)] } } });
  expect((await postGreenhouseWebhook(hook, '{"action":', sent)).status).toBe(400);
  // Unknown token: 404, like any unknown path.
  expect((await postGreenhouseWebhook({ ...hook, url: `${api.url}/ats-webhooks/${'A'.repeat(32)}` }, sent[0].body, sent)).status).toBe(404);
  // An event that says nothing of outcomes (a ping): taken, nothing changes.
  expect((await postGreenhouseWebhook(hook, JSON.stringify({ action: 'ping', payload: {} }), sent)).answer).toEqual({ result: 'ignored' });
  expect(await outcomeOf(partner, company, id)).toEqual(pending);

  const hired = await moveGreenhouseApplication(greenhouse, application, { action: 'hire_candidate' }, hook, sent);
  expect(hired).toEqual({ status: 200, answer: { result: 'recorded' } });
  // Refused ones write nothing: a forged signature reads 2.5 units, an unknown token 0.5 (its lookup).
  expect(sent.map((x) => [x.status, /write=(\d+)/.exec(x.capacity ?? '')?.[1]])).toEqual([
    [200, '7'],
    [401, '0'],
    [400, '0'],
    [400, '0'],
    [404, '0'],
    [200, '1'],
    [200, '6'],
  ]);
  expect(sent[1].capacity).toMatch(/; read=2.5; write=0;/);
  expect(sent[4].capacity).toMatch(/; read=0.5; write=0;/);
  expect(await read(partner, company, id)).toMatchObject({ outcome: 'HIRED', outcome_stage: null, sync_status: 'SUCCESS' });

  // The delivery log: each webhook that changed something, without token, body or e-mail (P350 is for our own readings).
  const log = (await api.get(`/applications/${id}/deliveries`, { key: partner.key, companyId: company.id })).body;
  expect(log.results.map((r: Record<string, unknown>) => [r.operation, r.url, r.result])).toEqual([
    ['outcomeWebhook', '/ats-webhooks/{token}', 'accepted'],
    ['outcomeWebhook', '/ats-webhooks/{token}', 'accepted'],
    // The submission: the job read, then the POST (P280).
    ['submitApplication', expect.stringMatching(/\/jobs\/7101$/), 'accepted'],
    ['submitApplication', expect.stringMatching(/\/jobs\/7101$/), 'accepted'],
  ]);
  expect(JSON.stringify(log)).not.toContain(hook.url.split('/').at(-1));

  // The partner's webhook: null → PENDING → HIRED, no stage name, no e-mail.
  await api.runtime.relay.drain();
  await api.runtime.webhookPoller.drain(30_000);
  const events = receiver.deliveries
    .filter((d) => d.event.type === 'application.outcome_changed' && d.event.data.id === id)
    .map((d) => d.event)
    .sort((a, b) => a.sequence - b.sequence);
  expect(events.map((e) => e.data)).toEqual([
    { id, outcome: 'PENDING', previous_outcome: null },
    { id, outcome: 'HIRED', previous_outcome: 'PENDING' },
  ]);
  expect(receiver.deliveries.every((d) => d.verified)).toBe(true);
  expect(JSON.stringify(events)).not.toMatch(/Phone Screen|ada\.hooks/);
});

test('Greenhouse across tenants: a valid web hook of company B naming company A’s application changes nothing; A’s URL refuses B’s secret', async () => {
  const partner = await aPartner();
  const a = await greenhouseCompany(partner, `gh-a-${Date.now()}`, 7201);
  const b = await greenhouseCompany(await aPartner(), `gh-b-${Date.now()}`, 7201);
  const id = await applyAndDeliver(partner, a.company, '7201', 'grace.tenant@example.com');
  const application = greenhouse.applications.at(-1)!;
  const sent: SentWebhook[] = [];
  // B's own URL and secret, an event naming A's candidate and job: B has no such application.
  const body = JSON.stringify(greenhouseEvent(greenhouse, application, { action: 'reject_candidate', stage: 'Offer' }));
  expect(await postGreenhouseWebhook(b.hook, body, sent)).toEqual({ status: 200, answer: { result: 'ignored' } });
  // A's URL with B's secret: forged for A.
  expect((await postGreenhouseWebhook({ url: a.hook.url, secretKey: b.hook.secretKey }, body, sent)).status).toBe(401);
  expect(await read(partner, a.company, id)).toMatchObject({ outcome: null, outcome_stage: null });
  // Then A's own web hook: "They rejected us" is WITHDRAWN.
  const withdrew = await moveGreenhouseApplication(
    greenhouse,
    application,
    { action: 'reject_candidate', stage: 'Offer', rejectionType: 'They rejected us' },
    a.hook,
    sent,
  );
  expect(withdrew.answer).toEqual({ result: 'recorded' });
  expect(await read(partner, a.company, id)).toMatchObject({ outcome: 'WITHDRAWN', outcome_stage: 'Offer' });
  // Disconnected, A's URL is unknown: a validly signed web hook is a 404 and changes nothing.
  await disconnectCompany(a.company.id);
  const hired = JSON.stringify(greenhouseEvent(greenhouse, application, { action: 'hire_candidate' }));
  expect((await postGreenhouseWebhook(a.hook, hired, sent)).status).toBe(404);
  expect(await read(partner, a.company, id)).toMatchObject({ outcome: 'WITHDRAWN', outcome_stage: 'Offer' });
});

const LEVER_EVENTS: LeverEvent[] = ['applicationCreated', 'candidateStageChange', 'candidateArchiveChange', 'candidateHired'];

/** A Lever company connected to `site` with a signature token per webhook (Lever makes them: the company gives them to us, P310). */
async function leverCompany(partner: Partner, site: string) {
  const tokens = new Map(LEVER_EVENTS.map((e) => [e, newLeverSignatureToken()]));
  const company = await aCompany(partner.id, { ats: 'lever', entitlements: ['candidate_sync'] });
  await connectCompany(company.id, 'lever', { site, api_key: `${site}-key-1`, webhook_signature_tokens: [...tokens.values()].join(',') });
  const setup = await atsWebhookSetup({ id: company.id, ats: 'lever' }, api.url);
  expect(setup).toMatchObject({ secret: null, secret_from: 'webhook_signature_tokens' });
  const hooks: LeverWebhooks = { url: setup!.url, signatureTokens: tokens };
  return { company, hooks };
}

test('Lever: delivered, linked by applicationCreated, moved and archived in Lever; stale, replayed, forged and cross-tenant webhooks change nothing', async () => {
  const partner = await aPartner();
  const site = `lever-hooks-${Date.now()}`;
  lever.sites.set(site, { site, apiKey: `${site}-key-1`, postings: [{ id: 'lp-1', text: 'Designer', description: 'Design' }] });
  const { company, hooks } = await leverCompany(partner, site);
  const tokens = hooks.signatureTokens;

  const id = await applyAndDeliver(partner, company, 'lp-1', 'lin.hooks@example.com');
  const application = lever.applications.at(-1)!;
  expect(await read(partner, company, id)).toMatchObject({ sync_status: 'SUCCESS', external_id: application.applicationId });
  const sent: SentWebhook[] = [];

  // Before applicationCreated links the opportunity to the application Lever answered, a stage change names nothing we know.
  expect(
    (await moveLeverApplication(application, { event: 'candidateStageChange', toStageId: 'phone-screen' }, hooks, sent)).answer,
  ).toEqual({
    result: 'ignored',
  });
  expect((await moveLeverApplication(application, { event: 'applicationCreated' }, hooks, sent)).answer).toEqual({ result: 'recorded' });
  expect(await moveLeverApplication(application, { event: 'candidateStageChange', toStageId: 'phone-screen' }, hooks, sent)).toEqual({
    status: 200,
    answer: { result: 'recorded' },
  });
  const pending = await outcomeOf(partner, company, id);
  expect(pending).toMatchObject({ outcome: 'PENDING', outcome_stage: 'phone-screen' });

  // Stale: validly signed, triggered 6 minutes ago. Forged: signed with a token the company did not give us.
  const archiveToken = tokens.get('candidateArchiveChange')!;
  const stale = leverDelivery(application, { event: 'candidateArchiveChange', reason: 'r-1' }, archiveToken, Date.now() - 6 * 60_000);
  expect(await postLeverWebhook(hooks.url, stale, sent)).toMatchObject({ status: 401, answer: { code: 'invalid_signature' } });
  const forged = leverDelivery(application, { event: 'candidateArchiveChange', reason: 'r-1' }, newLeverSignatureToken());
  expect((await postLeverWebhook(hooks.url, forged, sent)).status).toBe(401);
  // Replayed within the 5 minutes: 409. Malformed but signed: 400 naming the field.
  expect(await postLeverWebhook(hooks.url, sent[2].body, sent)).toMatchObject({ status: 409, answer: { code: 'replayed' } });
  const malformed = JSON.parse(
    leverDelivery(application, { event: 'candidateStageChange', toStageId: 'x' }, tokens.get('candidateStageChange')!),
  );
  malformed.data = { opportunityId: 42 };
  expect(await postLeverWebhook(hooks.url, JSON.stringify(malformed), sent)).toMatchObject({
    status: 400,
    answer: { errors: { 'data.opportunityId': [expect.any(String)] } },
  });
  // Another Lever company's valid webhook naming this opportunity: ignored there.
  const other = await leverCompany(await aPartner(), site);
  expect((await moveLeverApplication(application, { event: 'candidateHired' }, other.hooks, sent)).answer).toEqual({ result: 'ignored' });
  expect(await outcomeOf(partner, company, id)).toEqual(pending);

  expect((await moveLeverApplication(application, { event: 'candidateArchiveChange', reason: 'r-1' }, hooks, sent)).answer).toEqual({
    result: 'recorded',
  });
  expect(await read(partner, company, id)).toMatchObject({ outcome: 'REJECTED', outcome_stage: null });
  // A change by an opportunity already linked: 6 read units, 6 write units (the outcome 4, the log 1, remembered 1).
  expect(sent.at(-1)!.capacity).toMatch(/; read=6; write=6;/);
});

test('P348: Lever’s applicationCreated before we kept the applicationId is parked; the next event of the opportunity links and records it', async () => {
  const partner = await aPartner();
  const site = `lever-early-${Date.now()}`;
  lever.sites.set(site, { site, apiKey: `${site}-key-1`, postings: [{ id: 'lp-9', text: 'Analyst', description: 'Data' }] });
  const { company, hooks } = await leverCompany(partner, site);
  const sent: SentWebhook[] = [];
  // Lever fires applicationCreated while its apply answer is still on its way to our sync worker.
  lever.beforeAnswer = async (application) => {
    await moveLeverApplication(application, { event: 'applicationCreated' }, hooks, sent);
  };
  const id = await applyAndDeliver(partner, company, 'lp-9', 'early.hooks@example.com');
  lever.beforeAnswer = undefined;
  const application = lever.applications.at(-1)!;
  expect(await read(partner, company, id)).toMatchObject({ sync_status: 'SUCCESS', external_id: application.applicationId, outcome: null });
  // It named nothing we knew yet: ignored, and parked (one write beside the replay's).
  expect(sent.map((x) => [x.status, x.answer, /write=(\d+)/.exec(x.capacity ?? '')?.[1]])).toEqual([[200, { result: 'ignored' }, '2']]);

  // The next event of the opportunity finds the application through the parked link, links it and records.
  expect(await moveLeverApplication(application, { event: 'candidateStageChange', toStageId: 'phone-screen' }, hooks, sent)).toEqual({
    status: 200,
    answer: { result: 'recorded' },
  });
  expect(await outcomeOf(partner, company, id)).toMatchObject({ outcome: 'PENDING', outcome_stage: 'phone-screen' });
  // Linked: the events after it find it by the opportunity directly, as when applicationCreated came in time.
  expect((await moveLeverApplication(application, { event: 'candidateHired' }, hooks, sent)).answer).toEqual({ result: 'recorded' });
  expect(sent.at(-1)!.capacity).toMatch(/; read=6; write=6;/);
  expect(await read(partner, company, id)).toMatchObject({ outcome: 'HIRED' });

  // Another Lever company's URL: its parked links are its own; the opportunity finds nothing there.
  const other = await leverCompany(await aPartner(), site);
  const foreign = await moveLeverApplication(application, { event: 'candidateArchiveChange', reason: 'r-1' }, other.hooks, sent);
  expect(foreign.answer).toEqual({ result: 'ignored' });
  expect(await read(partner, company, id)).toMatchObject({ outcome: 'HIRED' });
});

test('the connect page shows the URL and secret right after connecting; `company connect` shows the same, kept across a reconnect (P310)', async () => {
  const partner = await aPartner();
  const board = `gh-page-${Date.now()}`;
  greenhouse.boards.set(board, { token: board, apiKey: `${board}-key-1`, jobs: [{ id: 7301, title: 'Page job', content: '<p>x</p>' }] });
  const invited = await inviteCompany({ partner: partner.id, name: 'Hooks Page', contact_email: 'hr@hooks.example' }, api.url);
  const token = /\/connect\/([A-Za-z0-9_-]{43})$/.exec(invited.magic_link!)![1];
  const form = await (await fetch(`${api.url}/connect/${token}?ats=greenhouse`)).text();
  const formToken = /name="form_token" value="([^"]+)"/.exec(form)![1];
  const done = await fetch(`${api.url}/connect/${token}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ form_token: formToken, ats: 'greenhouse', board_token: board, api_key: `${board}-key-1` }).toString(),
  });
  expect(done.status).toBe(200);
  const text = await done.text();
  const setup = (await atsWebhookSetup({ id: invited.id, ats: 'greenhouse' }, api.url))!;
  expect(text).toContain(`<code>${setup.url}</code>`);
  expect(text).toContain(`<code>${setup.secret}</code>`);

  const cli = await runAdmin(
    api.runtime.dataDir,
    ['company', 'connect', String(invited.id), '--ats', 'greenhouse', '--board-token', board, '--api-key', `${board}-key-1`],
    {
      ...greenhouse.env,
      PUBLIC_BASE_URL: api.url,
    },
  );
  expect(cli.code).toBe(0);
  expect(cli.json.ats_webhook).toMatchObject({
    url: setup.url,
    secret: setup.secret,
    secret_from: null,
    source: 'https://developers.greenhouse.io/webhooks.html',
  });
  // Another ATS shows none.
  const sandbox = await aCompany(partner.id);
  expect(await atsWebhookSetup({ id: sandbox.id, ats: 'sandbox' }, api.url)).toBeUndefined();
});
