/**
 * Personio outcomes (P358–P361) at the connector: the API v2 credentials check, the application found after the v1
 * submission, and `readOutcome` against the simulator's API v2 side (token exchange, reuse and renewal, every answer
 * mapped to our error kinds), and `personioOutcome` on answers of other shapes. The real path (worker, OutcomeReader,
 * API) is test/http/personio-outcomes.test.ts.
 */
import type { OutcomeRef, Submission } from '#delivery/connectors/connector.js';
import { personioConnector } from '#delivery/connectors/personio.js';
import { personioOutcome } from '#delivery/connectors/personio-outcomes.js';
import { personioAccount, startPersonioSimulator, type PersonioSimulator } from '../simulators/personio.js';
import { withoutPacing } from '../simulators/server.js';

withoutPacing();

let sim: PersonioSimulator;
const CLIENT = 'papi-client-acme-0001';
const SECRET = 'papi-secret-acme-0123456789';

beforeAll(async () => {
  sim = await startPersonioSimulator();
  Object.assign(process.env, sim.env);
  sim.accounts.set(
    'acme',
    personioAccount('acme', {
      companyId: '9001',
      positions: [
        { id: '4103', name: 'Baker' },
        { id: '4104', name: 'Cook' },
      ],
    }),
  );
  sim.accounts.set('other', personioAccount('other', { companyId: '9002', positions: [{ id: '5100', name: 'Driver' }] }));
  sim.apiV2.clients.set(CLIENT, { secret: SECRET, companyId: '9001', canReadRecruiting: true });
  sim.apiV2.clients.set('papi-client-noscope', { secret: SECRET, companyId: '9001', canReadRecruiting: false });
});
afterAll(() => sim.server.stop());

const base = { subdomain: 'acme', personio_company_id: '9001', token: 'papi-acme-token', feed_language: 'en' };
const credentials = (id = CLIENT, secret = SECRET) => ({ ...base, api_client_id: id, api_client_secret: secret });
const v2 = () => sim.requestsTo(/^\/personio-api\/v2\//);
const tokenRequests = () => sim.requestsTo(/^\/personio-api\/v2\/auth\/token$/).length;

const submission = (email: string, job = '4103'): Submission =>
  ({
    reference: `ref-${email}`,
    company: { id: 1, name: 'Acme' },
    jobExternalId: job,
    candidate: { email, first_name: 'Ada', last_name: 'Lovelace' },
    screeningAnswers: [],
    customFields: {},
    socialLinks: {},
    notes: null,
    appliedAt: '2026-01-01T00:00:00.000Z',
    source: null,
    attachments: [],
  }) as unknown as Submission;
const ref = (externalId: string): OutcomeRef => ({
  externalId,
  jobExternalId: '4103',
  reference: 'r',
  appliedAt: '2026-01-01T00:00:00.000Z',
});
const read = (id: string, creds = credentials()) => personioConnector.readOutcome!(ref(id), creds, { id: 1, ats: 'personio' } as never);

test('the check: nothing of API v2 without its credentials; with them, the token exchange and a one-item list; each refusal names its field', async () => {
  const before = v2().length;
  await personioConnector.validateCredentials({ ...base, api_client_id: '', api_client_secret: '' }, {} as never);
  expect(v2().length).toBe(before);
  await personioConnector.validateCredentials(credentials(), {} as never);
  const [token, list] = v2().slice(before);
  expect(token).toMatchObject({ method: 'POST', path: '/personio-api/v2/auth/token' });
  expect(token.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
  expect(Object.fromEntries(new URLSearchParams(token.body.toString()))).toEqual({
    grant_type: 'client_credentials',
    client_id: CLIENT,
    client_secret: SECRET,
  });
  expect(list).toMatchObject({ method: 'GET', path: '/personio-api/v2/recruiting/applications', status: 200 });
  expect(list.query.get('limit')).toBe('1');
  expect(list.headers.authorization).toMatch(/^Bearer v2-/);

  const refusals: [Record<string, string>, string][] = [
    [credentials('papi-client-unknown'), 'api_client_id'],
    [credentials(CLIENT, 'papi-secret-wrong-000000'), 'api_client_id'],
    [credentials('papi-client-noscope'), 'api_client_id'],
    [credentials(CLIENT, ''), 'api_client_secret'],
    [credentials('', SECRET), 'api_client_id'],
  ];
  for (const [creds, field] of refusals)
    await expect(personioConnector.validateCredentials(creds, {} as never)).rejects.toMatchObject({ kind: 'credentials_rejected', field });
});

test('the submission finds its application (the newest for the job of that e-mail) only with the credentials; readOutcome follows its stage', async () => {
  // Without the credentials: as before, no id and no API v2 call.
  const before = v2().length;
  expect(await personioConnector.submitApplication(submission('plain@example.com'), base)).toEqual({ externalId: null });
  expect(v2().length).toBe(before);

  // The candidate has an application to another job too (made in Personio): ours is the one for the submission's job.
  const elsewhere = sim.apiV2.created('9001', 'ada@example.com', '4104');
  const { externalId } = await personioConnector.submitApplication(submission('Ada@Example.com'), credentials());
  const created = sim.apiV2.applications.find((a) => a.email === 'ada@example.com' && a.jobId === '4103')!;
  expect(externalId).toBe(created.id);
  expect(externalId).not.toBe(elsewhere.id);
  const lookup = sim.requestsTo(/^\/personio-api\/v2\/recruiting\/applications$/).at(-1)!;
  expect(lookup.query.get('candidate.email')).toBe('Ada@Example.com');

  expect(await read(created.id)).toEqual({ outcome: 'PENDING', stage: 'Unassigned' });
  sim.apiV2.move(created.id, 'Phone interview');
  expect(await read(created.id)).toEqual({ outcome: 'PENDING', stage: 'Phone interview' });
  sim.apiV2.move(created.id, 'Rejected');
  expect(await read(created.id)).toEqual({ outcome: 'REJECTED', stage: 'Rejected' });
  sim.apiV2.move(created.id, 'Withdrawn');
  expect(await read(created.id)).toEqual({ outcome: 'WITHDRAWN', stage: 'Withdrawn' });
  sim.apiV2.move(created.id, 'Hired');
  expect(await read(created.id)).toEqual({ outcome: 'HIRED', stage: 'Hired' });
  expect(sim.requestsTo(new RegExp(`^/personio-api/v2/recruiting/applications/${created.id}$`)).length).toBe(5);
});

test('readOutcome: the token is reused, renewed once on 401 after it expired; refusals, unknown and foreign ids, 429 map to our kinds', async () => {
  const id = sim.apiV2.created('9001', 'grace@example.com', '4103').id;
  await read(id);
  const tokens = tokenRequests();
  await read(id);
  expect(tokenRequests()).toBe(tokens);
  sim.apiV2.expireTokens();
  expect(await read(id)).toEqual({ outcome: 'PENDING', stage: 'Unassigned' });
  expect(tokenRequests()).toBe(tokens + 1);

  await expect(read(id, credentials(CLIENT, 'papi-secret-wrong-000000'))).rejects.toMatchObject({
    kind: 'credentials_rejected',
    field: 'api_client_id',
  });
  await expect(read(id, credentials('papi-client-noscope'))).rejects.toMatchObject({
    kind: 'credentials_rejected',
    field: 'api_client_id',
  });
  await expect(read(id, { ...base, api_client_id: '', api_client_secret: '' })).rejects.toMatchObject({ kind: 'credentials_rejected' });
  await expect(read('424242')).rejects.toMatchObject({ kind: 'invalid_data' });
  // Another Personio company's application is not found with these credentials.
  const foreign = sim.apiV2.created('9002', 'carl@example.com', '5100').id;
  await expect(read(foreign)).rejects.toMatchObject({ kind: 'invalid_data' });
  sim.rateLimitNext = 1;
  await expect(read(id)).rejects.toMatchObject({ kind: 'rate_limited' });
});

test('personioOutcome: the stage type (or kind) decides, the stage name is kept; an answer without a current stage is invalid_data', () => {
  const stage = (s: Record<string, unknown>) => ({ _data: { id: '1', current_stage: s } });
  expect(personioOutcome(stage({ id: 'accepted', name: 'Eingestellt', type: 'accepted' }))).toEqual({
    outcome: 'HIRED',
    stage: 'Eingestellt',
  });
  expect(personioOutcome(stage({ id: '7', name: 'Absage', kind: 'REJECTED' }))).toEqual({ outcome: 'REJECTED', stage: 'Absage' });
  expect(personioOutcome({ id: '1', current_stage: { name: 'Offer', type: 'offer' } })).toEqual({ outcome: 'PENDING', stage: 'Offer' });
  expect(personioOutcome(stage({ type: 'custom' }))).toEqual({ outcome: 'PENDING', stage: null });
  expect(() => personioOutcome({ _data: { id: '1' } })).toThrow(expect.objectContaining({ kind: 'invalid_data' }));
  expect(() => personioOutcome('nope')).toThrow(expect.objectContaining({ kind: 'invalid_data' }));
});
