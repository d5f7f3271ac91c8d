/**
 * Recruitee outcomes with the optional ATS API token, through the real path (P351–P353): a company connected with
 * its careers site and a personal API token, applications made through HTTP, delivered by the sync worker to the
 * Careers Site API (the candidate id of the apply answer is the `external_id`), moved in Recruitee as a recruiter
 * (or the candidate) would, read by the scheduled OutcomeReader with `GET /c/{company}/candidates/{id}` and seen in
 * GET /applications/{id}. A company without the token delivers as before and tracks nothing, and `company
 * status`/the connect page say why and offer the token; a token Recruitee refuses at connect is a 400 naming
 * `api_token`; a token revoked later pauses that company's readings (P322) until it reconnects.
 */
import { inviteCompany } from '#companies/invites.js';
import { connectCompany, connectionStatus } from '#delivery/ats-connections.js';
import { offeredAts } from '#delivery/onboarding.js';
import type { OutcomePass } from '#delivery/outcomes.js';
import { runAdmin } from '../helpers/admin-cli.js';
import { deliveredToFirstJob } from '../helpers/delivery.js';
import { aCompany, aPartner, withJobs } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { startRecruiteeSimulator, type RecruiteeSimulator } from '../simulators/recruitee.js';

let api: TestRuntime;
let recruitee: RecruiteeSimulator;

beforeAll(async () => {
  recruitee = await startRecruiteeSimulator();
  Object.assign(process.env, recruitee.env);
  api = await startTestRuntime();
});
afterAll(async () => {
  await api.stop();
  await recruitee.server.stop();
});

const pass = async () => (await api.runtime.scheduler.run('OutcomeReader')) as OutcomePass;
let sequence = 0;

/** A company with its careers site on the simulator (one offer), connected with `token` (none: without), and a job. */
async function recruiteeCompany(partner: { id: number }, token?: { canSeeCandidates?: boolean }) {
  const company = await aCompany(partner.id, { entitlements: ['candidate_sync'] });
  const subdomain = `acme-${company.id}`;
  const offerId = 5000 + ++sequence;
  recruitee.sites.set(subdomain, {
    company: subdomain,
    offers: [{ id: offerId, title: `Outcome job ${sequence}`, optionsCv: 'off', optionsPhone: 'off' }],
  });
  const apiToken = `rt-${subdomain}-0123456789abcdef`;
  if (token) recruitee.atsApi.tokens.set(apiToken, { company: subdomain, canSeeCandidates: token.canSeeCandidates ?? true });
  await connectCompany(company.id, 'recruitee', { company: subdomain, ...(token ? { api_token: apiToken } : {}) });
  await withJobs(company.id, [{ external_id: String(offerId), title: `Outcome job ${sequence}` }]);
  return { company, subdomain, offerId, apiToken };
}

const delivered = (partner: { key: string }, company: { id: number }, email: string) => deliveredToFirstJob(api, partner, company, email);

/** `hiring-admin company connect C --ats recruitee --company S --api-token T`. */
const connectByCli = (companyId: number, subdomain: string, token: string) =>
  runAdmin(api.runtime.dataDir, [
    'company',
    'connect',
    String(companyId),
    '--ats',
    'recruitee',
    '--company',
    subdomain,
    '--api-token',
    token,
  ]);

const candidateReads = (subdomain: string) => recruitee.requestsTo(new RegExp(`^/recruitee-api/c/${subdomain}/candidates/\\d+$`));

test('with the API token: delivered, read PENDING "Applied", hired and disqualified in Recruitee, seen in GET /applications/{id} and the delivery log', async () => {
  const partner = await aPartner();
  const { company, subdomain, apiToken } = await recruiteeCompany(partner, {});
  // The token was checked at connect, with the token as a Bearer header, on the company's own path.
  const check = recruitee.requestsTo(new RegExp(`^/recruitee-api/c/${subdomain}/candidates$`));
  expect(check.map((r) => [r.method, r.query.get('limit'), r.headers.authorization])).toEqual([['GET', '1', `Bearer ${apiToken}`]]);
  expect((await connectionStatus(company.id)).outcomes).toMatchObject({ tracked: 'reading' });

  const candidateOf = (email: string) => recruitee.candidates.find((c) => c.company === subdomain && c.email === `${email}@example.com`)!;
  const ids: Record<string, number> = {};
  for (const name of ['hired', 'rejected']) {
    const application = await delivered(partner, company, name);
    expect(application).toMatchObject({ sync_status: 'SUCCESS', external_id: String(candidateOf(name).id), outcome: null });
    ids[name] = application.id;
  }
  const read = async (id: number, key = partner.key, companyId = company.id) => api.get(`/applications/${id}`, { key, companyId });

  expect(await pass()).toMatchObject({ read: 2, failed: 0 });
  for (const id of Object.values(ids)) expect((await read(id)).body).toMatchObject({ outcome: 'PENDING', outcome_stage: 'Applied' });
  const reads = candidateReads(subdomain);
  expect(reads.map((r) => [r.method, r.headers.authorization])).toEqual(Array(2).fill(['GET', `Bearer ${apiToken}`]));

  recruitee.atsApi.move(candidateOf('hired').id, 'Interview');
  recruitee.atsApi.move(candidateOf('rejected').id, 'Phone screen');
  recruitee.atsApi.disqualify(candidateOf('rejected').id);
  await pass();
  expect((await read(ids.hired)).body).toMatchObject({ outcome: 'PENDING', outcome_stage: 'Interview' });
  expect((await read(ids.rejected)).body).toMatchObject({ outcome: 'REJECTED', outcome_stage: 'Phone screen' });
  recruitee.atsApi.move(candidateOf('hired').id, 'Hired');
  await pass();
  const hired = (await read(ids.hired)).body;
  expect(hired).toMatchObject({ outcome: 'HIRED', outcome_stage: 'Hired' });
  expect(Date.parse(hired.outcome_updated_at)).toBeGreaterThan(0);

  // Final outcomes are not read again.
  const before = candidateReads(subdomain).length;
  await pass();
  expect(candidateReads(subdomain).length).toBe(before);

  // Each reading is in the delivery log, without the token or the candidate's e-mail.
  const log = await api.get(`/applications/${ids.hired}/deliveries?page_size=50`, { key: partner.key, companyId: company.id });
  const readings = log.body.results.filter((r: { operation: string }) => r.operation === 'readOutcome');
  expect(readings.length).toBe(3);
  expect(readings[0]).toMatchObject({ method: 'GET', status: 200, result: 'accepted' });
  // The URL's company segment is a credential value: redacted like the others (P305).
  expect(readings[0].url).toMatch(new RegExp(`/recruitee-api/c/[^/]+/candidates/${candidateOf('hired').id}$`));
  expect(JSON.stringify(log.body)).not.toContain(apiToken);
  expect(JSON.stringify(log.body)).not.toContain('hired@example.com');

  // Another company's key: 404, nothing of the outcome.
  const other = await aCompany(partner.id, { entitlements: ['candidate_sync'] });
  const foreign = await read(ids.hired, other.key, other.id);
  expect(foreign.status).toBe(404);
  expect(JSON.stringify(foreign.body)).not.toContain('Hired');
});

test('without the API token: delivered as before, never read, `outcome: null`; status and the connect page say why and offer the token', async () => {
  const partner = await aPartner();
  const { company, subdomain } = await recruiteeCompany(partner);
  const { id } = await delivered(partner, company, 'untracked');
  await pass();
  const application = (await api.get(`/applications/${id}`, { key: partner.key, companyId: company.id })).body;
  expect(application).toMatchObject({ sync_status: 'SUCCESS', outcome: null, outcome_stage: null });
  expect(recruitee.requestsTo(new RegExp(`^/recruitee-api/c/${subdomain}/`))).toEqual([]);

  const { outcomes } = await connectionStatus(company.id);
  expect(outcomes!.tracked).toBe('none');
  expect(outcomes!.detail).toContain('api_token');
  expect(outcomes!.detail).toContain('https://docs.recruitee.com/reference/getting-started');

  // The connect page's form: the optional token field, labelled, with the vendor page where it is made.
  const page = offeredAts('recruitee')!;
  expect(page.outcomes).toMatchObject({ tracked: 'none' });
  const field = page.fields!.find((f) => f.name === 'api_token')!;
  expect(field).toMatchObject({ secret: true, default: '' });
  expect(field.label).toContain('optional');
  expect(field.help).toContain('https://docs.recruitee.com/reference/getting-started');
});

test('a token Recruitee refuses at connect is a 400 naming api_token (nothing stored); one revoked later pauses readings until a reconnection (P322)', async () => {
  const partner = await aPartner();
  const { company, subdomain, apiToken } = await recruiteeCompany(partner, {});
  // `company connect` with a token Recruitee does not know: 400 naming the field; the connection stays as it was.
  const refused = await connectByCli(company.id, subdomain, 'rt-unknown-0123456789abcdef');
  expect(refused.code).toBe(1);
  expect(refused.json).toMatchObject({ code: 'credentials_rejected' });
  expect(Object.keys(refused.json.errors)).toEqual(['--api-token']);
  expect(refused.stderr).not.toContain('rt-unknown-0123456789abcdef');
  // Another company's token (its user is not in this company): refused too.
  const stranger = await recruiteeCompany(partner, {});
  const foreign = await connectCompany(company.id, 'recruitee', { company: subdomain, api_token: stranger.apiToken }).catch(
    (e: unknown) => e,
  );
  expect(foreign).toMatchObject({ statusCode: 400, code: 'credentials_rejected' });
  expect(Object.keys((foreign as { errors: object }).errors)).toEqual(['api_token']);
  expect((await connectionStatus(company.id)).outcomes).toMatchObject({ tracked: 'reading' });

  const { id } = await delivered(partner, company, 'revoked');
  recruitee.atsApi.tokens.get(apiToken)!.revoked = true;
  expect(await pass()).toMatchObject({ paused: 1 });
  expect(candidateReads(subdomain).length).toBe(1);
  const status = await connectionStatus(company.id);
  expect(status).toMatchObject({ status: 'active', outcomes: { tracked: 'paused', credential: 'api_token' } });
  await pass();
  expect(candidateReads(subdomain).length).toBe(1);

  // A new token: reconnected, readings resume.
  const fresh = `${apiToken}-new`;
  recruitee.atsApi.tokens.set(fresh, { company: subdomain, canSeeCandidates: true });
  const reconnected = await connectByCli(company.id, subdomain, fresh);
  expect(reconnected.code).toBe(0);
  expect(reconnected.json).toMatchObject({ id: company.id, ats: 'recruitee', status: 'active', outcomes: { tracked: 'reading' } });
  expect(reconnected.stdout).not.toContain(fresh);
  await pass();
  expect(candidateReads(subdomain).length).toBe(2);
  const application = (await api.get(`/applications/${id}`, { key: partner.key, companyId: company.id })).body;
  expect(application).toMatchObject({ outcome: 'PENDING', outcome_stage: 'Applied' });
});

test('the connect page offers the optional token with the vendor page where it is made, and after connecting says whether outcomes are read', async () => {
  const partner = await aPartner();
  const page = async (method: string, path: string, form?: Record<string, string>) => {
    const response = await fetch(`${api.url}${path}`, {
      method,
      headers: form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {},
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    return { status: response.status, text: (await response.text()).replace(/\s+/g, ' ') };
  };
  const connectThroughPage = async (name: string, token?: string) => {
    const invited = await inviteCompany({ partner: partner.id, name, contact_email: 'hr@acme.example' }, api.url);
    const link = /\/connect\/([A-Za-z0-9_-]{43})$/.exec(invited.magic_link!)![1];
    const subdomain = `page-${invited.id}`;
    recruitee.sites.set(subdomain, { company: subdomain, offers: [] });
    if (token) recruitee.atsApi.tokens.set(token, { company: subdomain, canSeeCandidates: true });
    const form = await page('GET', `/connect/${link}?ats=recruitee`);
    expect(form.status).toBe(200);
    const formToken = /name="form_token" value="([^"]+)"/.exec(form.text)![1];
    return {
      form,
      done: await page('POST', `/connect/${link}`, { form_token: formToken, ats: 'recruitee', company: subdomain, api_token: token ?? '' }),
    };
  };
  const token = 'rt-page-0123456789abcdef';
  const withToken = await connectThroughPage('Page With Token', token);
  // The form: the optional, labelled, secret token field with the vendor's page; outcomes "not tracked" until it is given.
  expect(withToken.form.text).toMatch(/<label for="field-api_token">[^<]*ATS API token \(optional/);
  expect(withToken.form.text).toMatch(/id="field-api_token"[^>]*type="password"|type="password"[^>]*id="field-api_token"/);
  expect(withToken.form.text).toContain('https://docs.recruitee.com/reference/getting-started');
  expect(withToken.form.text).toMatch(/class="check outcomes">.*not tracked/);
  expect(withToken.done.status).toBe(200);
  expect(withToken.done.text).toMatch(/class="check outcomes">.*read from Recruitee/);
  expect(withToken.done.text).not.toContain(token);

  const without = await connectThroughPage('Page Without Token');
  expect(without.done.status).toBe(200);
  expect(without.done.text).toMatch(/class="check outcomes">.*not tracked.*personal API token/);
});
