/**
 * Issue 43 item 5 for every real ATS that reports outcomes, and both channel formats (D21, D22; P345): one
 * application per ATS posted by a job board to its apply channel (Indeed Apply for Workable, SmartRecruiters,
 * Greenhouse and Recruitee; a `generic` board for Teamtailor, Ashby, Lever and Personio), delivered by the sync worker
 * to the ATS's simulator, moved there as a recruiter would (read back by the OutcomeReader for Workable, Teamtailor,
 * SmartRecruiters, Ashby, and Recruitee and Personio with their optional credentials, P351, P358; the vendor's signed
 * webhooks for Greenhouse and Lever), and seen in GET /applications/{id}, in the partner's webhook
 * (`application.outcome_changed`) and at the board's simulator (the Indeed simulator, or a loopback receiver verifying
 * the Standard Webhooks signature). One runtime for all eight;
 * each step runs for all at once. A stage moved under the same outcome reaches the board too (P345), never the
 * partner.
 */
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { forgetCachedCompany } from '#companies/api-keys.js';
import { setChannelDisposition } from '#companies/apply-channels.js';
import { setEntitlements } from '#companies/company-store.js';
import { connectCompany } from '#delivery/ats-connections.js';
import { atsWebhookSetup } from '#delivery/ats-webhooks.js';
import type { OutcomePass } from '#delivery/outcomes.js';
import { createWebhookEndpoint } from '#delivery/webhook-endpoints.js';
import { applyToken, applyTokenKey, forgetCachedApplyChannels } from '#jobs/apply-links.js';
import { aCompany, anApplyChannel, aPartner, withJobs } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { ashbyBoard, startAshbySimulator, type AshbySimulator } from '../simulators/ashby.js';
import { startGreenhouseSimulator, type GreenhouseSimulator } from '../simulators/greenhouse.js';
import { moveGreenhouseApplication, type GreenhouseMove, type SentWebhook } from '../simulators/greenhouse-webhooks.js';
import { startIndeedSimulator, type IndeedSimulator } from '../simulators/indeed.js';
import { startLeverSimulator, type LeverSimulator } from '../simulators/lever.js';
import { personioAccount, startPersonioSimulator, type PersonioSimulator } from '../simulators/personio.js';
import { startRecruiteeSimulator, type RecruiteeSimulator } from '../simulators/recruitee.js';
import { moveLeverApplication, newLeverSignatureToken, type LeverEvent, type LeverMove } from '../simulators/lever-webhooks.js';
import { startSmartRecruitersSimulator, type SmartRecruitersSimulator } from '../simulators/smartrecruiters.js';
import { startTeamtailorSimulator, type TeamtailorSimulator } from '../simulators/teamtailor.js';
import { startWebhookReceiver, type WebhookReceiver } from '../simulators/webhook-receiver.js';
import { startWorkableSimulator, workableAccount, type WorkableSimulator } from '../simulators/workable.js';

Object.assign(process.env, { WEBHOOK_ALLOW_LOOPBACK_HTTP: 'true', WEBHOOK_RETRY_BASE_SECONDS: '1', DISPOSITION_BATCH_SECONDS: '1' });
const INDEED_SECRET = 'indeed-real-ats-secret-0123456789';

let api: TestRuntime;
let sims: {
  workable: WorkableSimulator;
  teamtailor: TeamtailorSimulator;
  smartrecruiters: SmartRecruitersSimulator;
  ashby: AshbySimulator;
  greenhouse: GreenhouseSimulator;
  lever: LeverSimulator;
  recruitee: RecruiteeSimulator;
  personio: PersonioSimulator;
};
let indeed: IndeedSimulator;
let board: WebhookReceiver;
let partnerHook: WebhookReceiver;
const channels = new Map<'indeed' | 'generic', { id: number; secret: string }>();

beforeAll(async () => {
  const [workable, teamtailor, smartrecruiters, ashby, greenhouse, lever, recruitee, personio] = await Promise.all([
    startWorkableSimulator(),
    startTeamtailorSimulator(),
    startSmartRecruitersSimulator(),
    startAshbySimulator(),
    startGreenhouseSimulator(),
    startLeverSimulator(),
    startRecruiteeSimulator(),
    startPersonioSimulator(),
  ]);
  sims = { workable, teamtailor, smartrecruiters, ashby, greenhouse, lever, recruitee, personio };
  workable.rateLimit = { limit: 1000, intervalMs: 10_000 };
  [indeed, board, partnerHook] = await Promise.all([startIndeedSimulator(), startWebhookReceiver('/dispositions'), startWebhookReceiver()]);
  Object.assign(
    process.env,
    workable.env,
    teamtailor.env,
    smartrecruiters.env,
    ashby.env,
    greenhouse.env,
    lever.env,
    recruitee.env,
    personio.env,
    {
      INDEED_API_URL: indeed.url,
    },
  );
  api = await startTestRuntime();
  channels.set('indeed', await anApplyChannel('indeed-r', 'indeed', INDEED_SECRET));
  channels.set('generic', await anApplyChannel('board-r', 'generic'));
  board.secret = channels.get('generic')!.secret;
  await setChannelDisposition('indeed-r', { indeed_client_id: indeed.clientId, indeed_client_secret: indeed.clientSecret });
  await setChannelDisposition('board-r', { disposition_url: board.url });
});
afterAll(async () => {
  await api.stop();
  await Promise.all([...Object.values(sims).map((s) => s.server.stop()), indeed.stop(), board.stop(), partnerHook.stop()]);
});

type Partner = Awaited<ReturnType<typeof aPartner>>;
type Format = 'indeed' | 'generic';

/** The board posts an application to its channel for `company`'s job: Indeed Apply, or a generic board's signed POST. */
async function boardApplies(format: Format, company: number, job: number, boardId: string, email: string): Promise<number> {
  const channel = channels.get(format)!;
  const path = `/apply/${format === 'indeed' ? 'indeed-r' : 'board-r'}/${applyToken(applyTokenKey(), company, job, { channel_id: channel.id, generation: 1 })}`;
  const body =
    format === 'indeed'
      ? JSON.stringify({ id: boardId, applicant: { fullName: 'Ada Lovelace', email } })
      : JSON.stringify({ candidate: { email, full_name: 'Ada Lovelace' }, partner_application_id: boardId });
  const at = new Date();
  const headers: Record<string, string> =
    format === 'indeed'
      ? { 'X-Indeed-Signature': createHmac('sha1', INDEED_SECRET).update(body).digest('base64') }
      : {
          'webhook-id': `msg_${boardId}`,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': new Webhook(channel.secret).sign(`msg_${boardId}`, at, body),
        };
  const res = await api.request('POST', path, { rawBody: body, headers: { 'Content-Type': 'application/json', ...headers } });
  expect(res.status).toBe(201);
  return res.body.id as number;
}

/** A company of `partner` connected to `ats` (its account made on the simulator), with one job and the channel entitled. */
async function connected(partner: Partner, ats: keyof typeof sims, format: Format) {
  const company = await aCompany(partner.id, { entitlements: ['candidate_sync'] });
  const name = `${ats}-disp-${company.id}`;
  let jobExternalId: string;
  let webhook: { url: string; secret?: string; tokens?: Map<LeverEvent, string> } | undefined;
  switch (ats) {
    case 'workable': {
      jobExternalId = `WK${company.id}`;
      const account = workableAccount(name, { jobs: [{ shortcode: jobExternalId, title: 'Disposition job' }] });
      sims.workable.accounts.set(account.subdomain, account);
      await connectCompany(company.id, 'workable', { subdomain: account.subdomain, token: account.token });
      break;
    }
    case 'teamtailor': {
      jobExternalId = String(9000 + company.id);
      const apiKey = `tt-${name}`;
      sims.teamtailor.accounts.push({
        apiKey,
        scope: 'admin',
        permission: 'read-write',
        jobs: [{ id: jobExternalId, title: 'Job', body: '<p>x</p>' }],
      });
      await connectCompany(company.id, 'teamtailor', { api_key: apiKey, region: 'eu' });
      break;
    }
    case 'smartrecruiters': {
      jobExternalId = `11111111-2222-3333-4444-${String(company.id).padStart(12, '0')}`;
      const apiKey = `sr-${name}-0123456789abcdef`;
      sims.smartrecruiters.companies.set(name, {
        identifier: name,
        apiKey,
        postings: [{ id: `p${company.id}`, uuid: jobExternalId, name: 'Job' }],
      });
      await connectCompany(company.id, 'smartrecruiters', { company_identifier: name, api_key: apiKey });
      break;
    }
    case 'ashby': {
      jobExternalId = `c0ffee00-1111-4000-8000-${String(company.id).padStart(12, '0')}`;
      const b = ashbyBoard(name, {
        scopes: ['apiKeysRead', 'candidatesWrite', 'candidatesRead', 'jobsRead'],
        postings: [{ id: jobExternalId, title: 'Job' }],
      });
      sims.ashby.boards.set(b.name, b);
      await connectCompany(company.id, 'ashby', { job_board_name: b.name, api_key: b.apiKey });
      break;
    }
    case 'greenhouse': {
      jobExternalId = String(7000 + company.id);
      sims.greenhouse.boards.set(name, {
        token: name,
        apiKey: `${name}-key`,
        jobs: [{ id: Number(jobExternalId), title: 'Job', content: '<p>x</p>' }],
      });
      await connectCompany(company.id, 'greenhouse', { board_token: name, api_key: `${name}-key` });
      const setup = (await atsWebhookSetup({ id: company.id, ats: 'greenhouse' }, api.url))!;
      webhook = { url: setup.url, secret: setup.secret! };
      break;
    }
    case 'lever': {
      jobExternalId = `lp-${company.id}`;
      sims.lever.sites.set(name, { site: name, apiKey: `${name}-key`, postings: [{ id: jobExternalId, text: 'Job', description: 'x' }] });
      const events: LeverEvent[] = ['applicationCreated', 'candidateStageChange', 'candidateArchiveChange', 'candidateHired'];
      const tokens = new Map(events.map((e) => [e, newLeverSignatureToken()]));
      await connectCompany(company.id, 'lever', {
        site: name,
        api_key: `${name}-key`,
        webhook_signature_tokens: [...tokens.values()].join(','),
      });
      webhook = { url: (await atsWebhookSetup({ id: company.id, ats: 'lever' }, api.url))!.url, tokens };
      break;
    }
    case 'recruitee': {
      // P351: outcomes read with the optional ATS API token; the offer's id is the job's external id.
      jobExternalId = String(6000 + company.id);
      sims.recruitee.sites.set(name, {
        company: name,
        offers: [{ id: Number(jobExternalId), title: 'Job', optionsCv: 'off', optionsPhone: 'off' }],
      });
      const apiToken = `rt-${name}-0123456789abcdef`;
      sims.recruitee.atsApi.tokens.set(apiToken, { company: name, canSeeCandidates: true });
      await connectCompany(company.id, 'recruitee', { company: name, api_token: apiToken });
      break;
    }
    case 'personio': {
      // P358: outcomes read through API v2 with the optional client credentials; the position's id is the job's.
      jobExternalId = String(4800 + company.id);
      const companyId = String(7800 + company.id);
      sims.personio.accounts.set(name, personioAccount(name, { companyId, positions: [{ id: jobExternalId, name: 'Job' }] }));
      const client = { id: `papi-client-${name}`, secret: `papi-secret-${name}-0123456789` };
      sims.personio.apiV2.clients.set(client.id, { secret: client.secret, companyId, canReadRecruiting: true });
      await connectCompany(company.id, 'personio', {
        subdomain: name,
        personio_company_id: companyId,
        token: `papi-${name}-token`,
        feed_language: 'en',
        api_client_id: client.id,
        api_client_secret: client.secret,
      });
      break;
    }
  }
  await setEntitlements(company.id, ['candidate_sync', `apply:${format === 'indeed' ? 'indeed-r' : 'board-r'}`]);
  forgetCachedCompany(company.id);
  forgetCachedApplyChannels();
  await withJobs(company.id, [{ external_id: jobExternalId, title: 'Disposition job' }]);
  const job = (await api.get(`/jobs?external_id=${encodeURIComponent(jobExternalId)}`, { key: partner.key, companyId: company.id })).body
    .results[0].id as number;
  return { company, job, jobExternalId, webhook };
}

/** Relays the events; the webhook worker fans them out to the partner and flushes the channels' dispositions. */
async function relay(): Promise<void> {
  await api.runtime.relay.drain();
  await api.runtime.webhookPoller.drain(60_000);
}
const pass = async () => (await api.runtime.scheduler.run('OutcomeReader')) as OutcomePass;

test('eight real ATSs, both board formats: applied at the board, delivered, moved in the ATS, seen in GET, the partner webhook and the board', async () => {
  const partner = await aPartner();
  const endpoint = await createWebhookEndpoint({ partner: partner.id, url: partnerHook.url, events: ['application.outcome_changed'] });
  partnerHook.secret = endpoint.secret;
  // The formats alternate: Indeed for Workable, SmartRecruiters, Greenhouse, Recruitee; generic for Teamtailor, Ashby,
  // Lever, Personio.
  const order = ['workable', 'teamtailor', 'smartrecruiters', 'ashby', 'greenhouse', 'lever', 'recruitee', 'personio'] as const;
  const plan = order.map((ats, n) => ({ ats, format: (n % 2 ? 'generic' : 'indeed') as Format }));
  const set = new Map<string, Awaited<ReturnType<typeof connected>> & { format: Format; boardId: string; email: string; id: number }>();
  for (const { ats, format } of plan) {
    const c = await connected(partner, ats, format);
    const boardId = `${ats}-b-${c.company.id}`;
    const email = `${ats}.${c.company.id}@example.com`;
    set.set(ats, { ...c, format, boardId, email, id: await boardApplies(format, c.company.id, c.job, boardId, email) });
  }
  const the = (ats: keyof typeof sims) => set.get(ats)!;
  const read = async (ats: keyof typeof sims) =>
    (await api.get(`/applications/${the(ats).id}`, { key: partner.key, companyId: the(ats).company.id })).body;

  // Delivered by the sync worker to each ATS's simulator.
  await api.runtime.poller.drain();
  for (const { ats } of plan) expect([ats, (await read(ats)).sync_status]).toEqual([ats, 'SUCCESS']);
  const externalId = async (ats: keyof typeof sims) => String((await read(ats)).external_id);
  const ids = {
    workable: await externalId('workable'),
    teamtailor: await externalId('teamtailor'),
    smartrecruiters: await externalId('smartrecruiters'),
    ashby: await externalId('ashby'),
    recruitee: Number(await externalId('recruitee')),
    personio: await externalId('personio'),
  };
  const ghApplication = sims.greenhouse.applications.find((a) => a.jobId === Number(the('greenhouse').jobExternalId))!;
  const leverApplication = sims.lever.applications.find((a) => a.postingId === the('lever').jobExternalId)!;
  expect(await read('lever')).toMatchObject({ external_id: leverApplication.applicationId });
  const sent: SentWebhook[] = [];
  const greenhouse = async (move: GreenhouseMove) => {
    const hook = the('greenhouse').webhook!;
    expect(
      (await moveGreenhouseApplication(sims.greenhouse, ghApplication, move, { url: hook.url, secretKey: hook.secret! }, sent)).answer,
    ).toEqual({
      result: 'recorded',
    });
  };
  const lever = async (move: LeverMove) => {
    const hook = the('lever').webhook!;
    expect((await moveLeverApplication(leverApplication, move, { url: hook.url, signatureTokens: hook.tokens! }, sent)).answer).toEqual({
      result: 'recorded',
    });
  };
  await relay(); // NEW at both boards

  // First known: read back (Workable, Teamtailor, SmartRecruiters, Ashby, Recruitee, Personio), told by webhook
  // (Greenhouse, Lever).
  expect(await pass()).toMatchObject({ read: 6, changed: 6, failed: 0 });
  await greenhouse({ action: 'candidate_stage_change', stage: 'Phone Screen' });
  await lever({ event: 'applicationCreated' });
  await relay();
  // Then a recruiter moves each to another stage, the outcome still PENDING (P345: the board hears it, the partner not).
  sims.workable.moveApplication(ids.workable, 'interview');
  sims.teamtailor.outcomes.moveApplication(ids.teamtailor, 'Interview');
  sims.smartrecruiters.moveApplication(ids.smartrecruiters, 'INTERVIEW');
  sims.ashby.outcomes.moveApplication(ids.ashby, 'Onsite');
  sims.recruitee.atsApi.move(ids.recruitee, 'Interview');
  sims.personio.apiV2.move(ids.personio, 'Phone interview');
  expect(await pass()).toMatchObject({ changed: 6, failed: 0 });
  await greenhouse({ action: 'candidate_stage_change', stage: 'Onsite Interview' });
  await lever({ event: 'candidateStageChange', toStageId: 'phone-screen' });
  await relay();
  // And a final outcome: hired in four, rejected in four.
  sims.workable.moveApplication(ids.workable, 'hired');
  sims.teamtailor.outcomes.reject(ids.teamtailor);
  sims.smartrecruiters.moveApplication(ids.smartrecruiters, 'REJECTED');
  sims.ashby.outcomes.moveApplication(ids.ashby, 'Hired');
  sims.recruitee.atsApi.disqualify(ids.recruitee);
  sims.personio.apiV2.move(ids.personio, 'Hired');
  expect(await pass()).toMatchObject({ changed: 6, failed: 0, stopped: 6 });
  await greenhouse({ action: 'hire_candidate' });
  await lever({ event: 'candidateArchiveChange', reason: 'r-1' });
  await relay();

  // GET /applications/{id}.
  const finals = Object.fromEntries(
    await Promise.all(plan.map(async ({ ats }) => [ats, [(await read(ats)).outcome, (await read(ats)).outcome_stage]] as const)),
  );
  expect(finals).toEqual({
    workable: ['HIRED', 'Hired'],
    teamtailor: ['REJECTED', 'Interview'],
    smartrecruiters: ['REJECTED', 'REJECTED'],
    ashby: ['HIRED', 'Hired'],
    greenhouse: ['HIRED', null],
    lever: ['REJECTED', null],
    recruitee: ['REJECTED', 'Interview'],
    personio: ['HIRED', 'Hired'],
  });

  // The partner's webhook: each outcome move once, in order; the stage moves are not events.
  const outcomes = (id: number) =>
    partnerHook.deliveries
      .filter((d) => d.verified && d.event.type === 'application.outcome_changed' && d.event.data.id === id)
      .map((d) => d.event)
      .sort((a, b) => a.sequence - b.sequence)
      .map((e) => [e.data.previous_outcome, e.data.outcome]);
  for (const { ats } of plan)
    expect([ats, outcomes(the(ats).id)]).toEqual([
      ats,
      [
        [null, 'PENDING'],
        ['PENDING', finals[ats][0]],
      ],
    ]);

  // At the boards: NEW, then every change with the ATS's stage (Indeed: mapped status and raw stage).
  const atIndeed = (ats: keyof typeof sims) =>
    indeed.dispositions
      .filter((d) => d.identifiedBy.indeedApplyID === the(ats).boardId)
      .map((d) => `${d.dispositionStatus} ${d.rawDispositionStatus}`);
  expect(atIndeed('workable')).toEqual(['NEW NEW', 'UNABLE_TO_MAP Applied', 'INTERVIEW Interview', 'HIRED Hired']);
  expect(atIndeed('smartrecruiters')).toEqual(['NEW NEW', 'UNABLE_TO_MAP NEW', 'INTERVIEW INTERVIEW', 'NOT_SELECTED REJECTED']);
  expect(atIndeed('greenhouse')).toEqual(['NEW NEW', 'SCREEN Phone Screen', 'INTERVIEW Onsite Interview', 'HIRED HIRED']);
  expect(atIndeed('recruitee')).toEqual(['NEW NEW', 'UNABLE_TO_MAP Applied', 'INTERVIEW Interview', 'NOT_SELECTED Interview']);
  const atBoard = (ats: keyof typeof sims) =>
    board.deliveries
      .filter((d) => d.status === 200 && d.event.data?.partner_application_id === the(ats).boardId)
      .map((d) => {
        expect(d.verified).toBe(true);
        expect(d.event.data.application).toBe(the(ats).id);
        return `${d.event.data.status} ${d.event.data.stage}`;
      });
  expect(atBoard('teamtailor')).toEqual(['NEW null', 'PENDING Inbox', 'PENDING Interview', 'REJECTED Interview']);
  expect(atBoard('ashby')).toEqual(['NEW null', 'PENDING Application Review', 'PENDING Onsite', 'HIRED Hired']);
  expect(atBoard('lever')).toEqual(['NEW null', 'PENDING null', 'PENDING phone-screen', 'REJECTED null']);
  expect(atBoard('personio')).toEqual(['NEW null', 'PENDING Unassigned', 'PENDING Phone interview', 'HIRED Hired']);
  // Only the board's ids and statuses: no e-mail, no name.
  const outbound = JSON.stringify([indeed.requests.map((r) => r.body.toString()), board.deliveries.map((d) => d.body)]);
  expect(outbound).not.toMatch(/example\.com|Lovelace/);

  // Another company's key: 404, nothing of the outcome.
  const other = await aCompany(partner.id, { entitlements: ['candidate_sync'] });
  const foreign = await api.get(`/applications/${the('workable').id}`, { key: other.key, companyId: other.id });
  expect(foreign.status).toBe(404);
  expect(JSON.stringify(foreign.body)).not.toContain('Hired');
});
