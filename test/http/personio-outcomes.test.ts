/**
 * Personio outcomes with the optional API v2 client credentials, through the real path (P358–P361): a company connected
 * with them, applications made through HTTP, delivered by the sync worker (the v1 submission, then the application found
 * through API v2: its id is the `external_id`), moved in Personio as a recruiter would, read by the scheduled
 * OutcomeReader with `GET /v2/recruiting/applications/{id}` and seen in GET /applications/{id}. A company without them
 * delivers as before and tracks nothing, `company status` and the connect page say why and offer them, and credentials
 * Personio refuses at connect are a 400 naming the field.
 */
import { connectCompany, connectionStatus } from '#delivery/ats-connections.js';
import { offeredAts } from '#delivery/onboarding.js';
import type { OutcomePass } from '#delivery/outcomes.js';
import { deliveredToFirstJob } from '../helpers/delivery.js';
import { aCompany, aPartner, withJobs } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { personioAccount, startPersonioSimulator, type PersonioSimulator } from '../simulators/personio.js';

let api: TestRuntime;
let personio: PersonioSimulator;

beforeAll(async () => {
  personio = await startPersonioSimulator();
  Object.assign(process.env, personio.env);
  api = await startTestRuntime();
});
afterAll(async () => {
  await api.stop();
  await personio.server.stop();
});

const pass = async () => (await api.runtime.scheduler.run('OutcomeReader')) as OutcomePass;
let sequence = 0;

/** A company with its Personio account on the simulator (one position), connected with API v2 credentials or without. */
async function personioCompany(partner: { id: number }, withApiV2: boolean) {
  const company = await aCompany(partner.id, { entitlements: ['candidate_sync'] });
  const subdomain = `acme-${company.id}`;
  const companyId = String(7000 + ++sequence);
  const position = String(4100 + sequence);
  personio.accounts.set(
    subdomain,
    personioAccount(subdomain, { companyId, positions: [{ id: position, name: `Outcome job ${sequence}` }] }),
  );
  const client = { id: `papi-client-${subdomain}`, secret: `papi-secret-${subdomain}-0123456789` };
  personio.apiV2.clients.set(client.id, { secret: client.secret, companyId, canReadRecruiting: true });
  const credentials = { subdomain, personio_company_id: companyId, token: `papi-${subdomain}-token`, feed_language: 'en' };
  await connectCompany(
    company.id,
    'personio',
    withApiV2 ? { ...credentials, api_client_id: client.id, api_client_secret: client.secret } : credentials,
  );
  await withJobs(company.id, [{ external_id: position, title: `Outcome job ${sequence}` }]);
  return { company, subdomain, companyId, client, credentials };
}

const delivered = (partner: { key: string }, company: { id: number }, email: string) => deliveredToFirstJob(api, partner, company, email);

test('with the API v2 credentials: delivered and found, read PENDING, hired and rejected in Personio, seen in GET /applications/{id}', async () => {
  const partner = await aPartner();
  const { company, companyId, client } = await personioCompany(partner, true);
  expect((await connectionStatus(company.id)).outcomes).toMatchObject({ tracked: 'reading' });

  const appOf = (email: string) =>
    personio.apiV2.applications.find((a) => a.companyId === companyId && a.email === `${email}@example.com`)!;
  const ids: Record<string, number> = {};
  for (const name of ['hired', 'rejected']) {
    const application = await delivered(partner, company, name);
    expect(application).toMatchObject({ sync_status: 'SUCCESS', external_id: appOf(name).id, outcome: null });
    ids[name] = application.id;
  }
  const read = async (id: number, key = partner.key, companyId_ = company.id) =>
    api.get(`/applications/${id}`, { key, companyId: companyId_ });

  expect(await pass()).toMatchObject({ read: 2, failed: 0 });
  for (const id of Object.values(ids)) expect((await read(id)).body).toMatchObject({ outcome: 'PENDING', outcome_stage: 'Unassigned' });

  personio.apiV2.move(appOf('hired').id, 'Hired');
  personio.apiV2.move(appOf('rejected').id, 'Rejected');
  await pass();
  const hired = (await read(ids.hired)).body;
  expect(hired).toMatchObject({ outcome: 'HIRED', outcome_stage: 'Hired' });
  expect(Date.parse(hired.outcome_updated_at)).toBeGreaterThan(0);
  expect((await read(ids.rejected)).body).toMatchObject({ outcome: 'REJECTED', outcome_stage: 'Rejected' });

  // Each reading is in the delivery log, without the client secret, the access token or the candidate's e-mail.
  const log = await api.get(`/applications/${ids.hired}/deliveries?page_size=50`, { key: partner.key, companyId: company.id });
  const readings = log.body.results.filter((r: { operation: string }) => r.operation === 'readOutcome');
  expect(readings.map((r: { url: string; status: number }) => [r.url.replace(/^.*\/v2\//, '/v2/'), r.status])).toContainEqual([
    `/v2/recruiting/applications/${appOf('hired').id}`,
    200,
  ]);
  const text = JSON.stringify(log.body);
  expect(text).not.toContain(client.secret);
  expect(text).not.toContain('hired@example.com');
  expect(text).not.toMatch(/v2-[0-9a-f]{8}-/);

  // Another company's key: 404, nothing of the outcome.
  const other = await aCompany(partner.id, { entitlements: ['candidate_sync'] });
  const foreign = await read(ids.hired, other.key, other.id);
  expect(foreign.status).toBe(404);
  expect(JSON.stringify(foreign.body)).not.toContain('Hired');

  // The credentials revoked in Personio (the cached token refused, a new one refused): readings pause (P322, P360),
  // naming the field; submissions go on.
  const later = await delivered(partner, company, 'later');
  expect(later).toMatchObject({ sync_status: 'SUCCESS', external_id: appOf('later').id });
  personio.apiV2.clients.delete(client.id);
  expect(await pass()).toMatchObject({ paused: 1 });
  expect((await connectionStatus(company.id)).outcomes).toMatchObject({ tracked: 'paused', credential: 'api_client_id' });
  expect((await read(later.id)).body).toMatchObject({ outcome: null });
});

test('without them: delivered as before, never read, `outcome: null`; status and the connect page say why and offer them; refused ones are a 400 naming the field', async () => {
  const partner = await aPartner();
  const { company, credentials, client } = await personioCompany(partner, false);
  const before = personio.requestsTo(/^\/personio-api\/v2\//).length;
  const { id } = await delivered(partner, company, 'untracked');
  await pass();
  const application = (await api.get(`/applications/${id}`, { key: partner.key, companyId: company.id })).body;
  expect(application).toMatchObject({ sync_status: 'SUCCESS', external_id: null, outcome: null, outcome_stage: null });
  expect(personio.requestsTo(/^\/personio-api\/v2\//).length).toBe(before);

  const { outcomes } = await connectionStatus(company.id);
  expect(outcomes!.tracked).toBe('none');
  expect(outcomes!.detail).toContain('api_client_id');
  expect(outcomes!.detail).toContain('https://developer.personio.de/reference/get_v2-recruiting-applications-id');
  const page = offeredAts('personio')!;
  expect(page.outcomes).toMatchObject({ tracked: 'none' });
  for (const name of ['api_client_id', 'api_client_secret'])
    expect(page.fields!.find((f) => f.name === name)).toMatchObject({
      secret: true,
      default: '',
      label: expect.stringContaining('optional'),
    });

  // A wrong secret: 400 naming the field, the connection unchanged.
  const refused = await connectCompany(company.id, 'personio', {
    ...credentials,
    api_client_id: client.id,
    api_client_secret: 'papi-secret-wrong-0123456789',
  }).catch((e: unknown) => e);
  expect(refused).toMatchObject({ statusCode: 400, code: 'credentials_rejected' });
  expect(Object.keys((refused as { errors: object }).errors)).toEqual(['api_client_id']);
  expect(JSON.stringify(refused)).not.toContain('papi-secret-wrong');
  expect((await connectionStatus(company.id)).outcomes).toMatchObject({ tracked: 'none' });
});
