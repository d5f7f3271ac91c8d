/**
 * Workable outcomes (D21, P301): an application submitted through the connector, moved in the simulator as a
 * recruiter would, and read back with `readOutcome` (`GET /spi/v3/candidates/{id}`); Workable's answers mapped
 * to our error kinds; and the read endpoint of the simulator replayed against Workable's own reference.
 */
import type { CompanyRecord } from '#companies/company-schema.js';
import type { OutcomeRef } from '#delivery/connectors/connector.js';
import { workableConnector, workableOutcome } from '#delivery/connectors/workable.js';
import { rejection, submissionFactory } from '../helpers/submissions.js';
import { startSimulatorServer, type SimulatorServer } from '../simulators/server.js';
import { startWorkableSimulator, workableAccount, type WorkableSimulator } from '../simulators/workable.js';

const PDF = Buffer.from('%PDF-1.5\nworkable\n%%EOF');
const company = { id: 1, ats: 'workable' } as CompanyRecord;

let workable: WorkableSimulator;
let down: SimulatorServer;
let downStatus = 503;
let simulatorUrl: string;

beforeAll(async () => {
  [workable, down] = await Promise.all([
    startWorkableSimulator(),
    startSimulatorServer(() => ({ status: downStatus, body: { error: 'Service unavailable' } })),
  ]);
  workable.rateLimit = { limit: 1000, intervalMs: 10_000 };
  simulatorUrl = workable.env.WORKABLE_API_URL;
  process.env.WORKABLE_API_URL = simulatorUrl;
});
afterAll(() => Promise.all([workable.server.stop(), down.stop()]));
afterEach(() => {
  process.env.WORKABLE_API_URL = simulatorUrl;
  delete process.env.WORKABLE_READ_RETRIES;
});

let accounts = 0;
function account(scopes = ['r_jobs', 'r_candidates', 'w_candidates']) {
  const created = workableAccount(`outcomes-${++accounts}`, {
    jobs: [{ shortcode: 'J1', title: 'Backend Engineer' }],
    scopes: new Set(scopes),
  });
  workable.accounts.set(created.subdomain, created);
  return { account: created, credentials: { subdomain: created.subdomain, token: created.token } };
}

// Each test names its candidate (`submitted`).
const submission = submissionFactory({ company, pdf: PDF, jobExternalId: 'J1', candidate: {} });

async function submitted(credentials: { subdomain: string; token: string }, email = 'ada@example.com') {
  const { externalId } = await workableConnector.submitApplication(
    submission({ candidate: { email, first_name: 'Ada', last_name: 'Lovelace' } }),
    credentials,
  );
  expect(externalId).toMatch(/^[0-9a-f]{8}$/);
  const ref: OutcomeRef = { externalId: externalId!, jobExternalId: 'J1', reference: 'app-1', appliedAt: '2026-11-29T10:00:00.000Z' };
  return ref;
}

describe('readOutcome through the simulator', () => {
  test('a new applicant is PENDING in "Applied"; moved to Interview, then Hired: HIRED in "Hired"', async () => {
    const { account: a, credentials } = account();
    const ref = await submitted(credentials);
    expect(await workableConnector.readOutcome!(ref, credentials, company)).toEqual({ outcome: 'PENDING', stage: 'Applied' });
    const reads = workable.requestsTo(new RegExp(`^/workable/${a.subdomain}/spi/v3/candidates/`));
    expect(reads.map((r) => [r.method, r.path, r.headers.authorization])).toEqual([
      ['GET', `/workable/${a.subdomain}/spi/v3/candidates/${ref.externalId}`, `Bearer ${a.token}`],
    ]);
    workable.moveApplication(ref.externalId, 'interview');
    expect(await workableConnector.readOutcome!(ref, credentials, company)).toEqual({ outcome: 'PENDING', stage: 'Interview' });
    workable.moveApplication(ref.externalId, 'hired');
    expect(await workableConnector.readOutcome!(ref, credentials, company)).toEqual({ outcome: 'HIRED', stage: 'Hired' });
  });

  test('disqualified by the recruiter is REJECTED at its stage; the reason (free text) never becomes the stage', async () => {
    const { credentials } = account();
    const ref = await submitted(credentials);
    workable.moveApplication(ref.externalId, 'phone-screen');
    workable.disqualify(ref.externalId, { reason: 'Ada Lovelace asked for too much' });
    const reading = await workableConnector.readOutcome!(ref, credentials, company);
    expect(reading).toEqual({ outcome: 'REJECTED', stage: 'Phone Screen' });
  });

  test('a candidate who withdrew is WITHDRAWN', async () => {
    const { credentials } = account();
    const ref = await submitted(credentials);
    workable.disqualify(ref.externalId, { withdrew: true });
    expect(await workableConnector.readOutcome!(ref, credentials, company)).toEqual({ outcome: 'WITHDRAWN', stage: 'Applied' });
  });

  test('the mapping, row by row (docs/connectors/workable.md)', () => {
    expect(workableOutcome({ stage: 'Offer', disqualified: false })).toEqual({ outcome: 'PENDING', stage: 'Offer' });
    expect(workableOutcome({ stage: 'Signed', stage_kind: 'hired' })).toEqual({ outcome: 'HIRED', stage: 'Signed' });
    expect(workableOutcome({ stage: 'Onboarding', hired_at: '2026-11-29' })).toEqual({ outcome: 'HIRED', stage: 'Onboarding' });
    expect(workableOutcome({ stage: 'Hired', hired_at: '2026-11-29', disqualified: true })).toEqual({
      outcome: 'REJECTED',
      stage: 'Hired',
    });
    expect(workableOutcome({ disqualified: true, withdrew: true })).toEqual({ outcome: 'WITHDRAWN', stage: null });
  });
});

describe('errors, classified as the other Workable calls', () => {
  test('401 (wrong token) and 403 (no r_candidates) are credentials_rejected naming token', async () => {
    const { credentials } = account();
    const ref = await submitted(credentials);
    const wrong = await rejection(workableConnector.readOutcome!(ref, { ...credentials, token: 'not-the-token-0000' }, company));
    expect([wrong.kind, wrong.field, wrong.retryable]).toEqual(['credentials_rejected', 'token', false]);
    const { account: narrow, credentials: narrowCredentials } = account(['r_jobs', 'w_candidates']);
    const other = await submitted(narrowCredentials, 'grace@example.com');
    const denied = await rejection(workableConnector.readOutcome!(other, narrowCredentials, company));
    expect([denied.kind, denied.field]).toEqual(['credentials_rejected', 'token']);
    expect(denied.message).toContain('r_candidates');
    expect(workable.requestsTo(new RegExp(`^/workable/${narrow.subdomain}/spi/v3/candidates/`))).toHaveLength(1);
  });

  test('a candidate deleted in Workable (404) is invalid_data, not retried', async () => {
    const { credentials } = account();
    const ref = await submitted(credentials);
    const gone = await rejection(workableConnector.readOutcome!({ ...ref, externalId: 'deadbeef' }, credentials, company));
    expect([gone.kind, gone.retryable]).toEqual(['invalid_data', false]);
  });

  test('429 is rate_limited with the reset as retryAfterSeconds; 5xx is transient', async () => {
    const { credentials } = account();
    const ref = await submitted(credentials);
    process.env.WORKABLE_READ_RETRIES = '0';
    workable.rateLimitNextRead = 1;
    workable.forcedResetMs = 3000;
    const limited = await rejection(workableConnector.readOutcome!(ref, credentials, company));
    expect(limited.kind).toBe('rate_limited');
    expect(limited.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(limited.retryAfterSeconds).toBeLessThanOrEqual(4);
    process.env.WORKABLE_API_URL = `${down.url}/{subdomain}`;
    for (const status of [500, 503]) {
      downStatus = status;
      const failed = await rejection(workableConnector.readOutcome!(ref, credentials, company));
      expect([failed.kind, failed.retryable]).toEqual(['transient', true]);
      expect(failed.message).toContain(String(status));
    }
  });

  test('an answer without a candidate object is invalid_data', async () => {
    const { credentials } = account();
    process.env.WORKABLE_API_URL = `${down.url}/{subdomain}`;
    downStatus = 200;
    const odd = await rejection(
      workableConnector.readOutcome!({ externalId: 'x1', jobExternalId: 'J1', reference: 'r', appliedAt: '' }, credentials, company),
    );
    expect(odd.kind).toBe('invalid_data');
  });
});

describe('vendor example replay (https://workable.readme.io/reference/job-candidates-show)', () => {
  test('GET /spi/v3/candidates/{id}: {candidate: {…}} with the documented keys; stage is the stage name', async () => {
    const { account: a, credentials } = account();
    const ref = await submitted(credentials, 'cindy@example.com');
    const base = `${workable.server.url}/workable/${a.subdomain}/spi/v3`;
    const response = await fetch(`${base}/candidates/${ref.externalId}`, { headers: { Authorization: `Bearer ${a.token}` } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { candidate: Record<string, unknown> };
    expect(Object.keys(body)).toEqual(['candidate']);
    expect(Object.keys(body.candidate)).toEqual(
      expect.arrayContaining([
        'id',
        'name',
        'job',
        'stage',
        'disqualified',
        'disqualified_at',
        'disqualification_reason',
        'sourced',
        'created_at',
        'updated_at',
      ]),
    );
    expect(body.candidate).toMatchObject({ id: ref.externalId, stage: 'Applied', disqualified: false, job: { shortcode: 'J1' } });
    const anonymous = await fetch(`${base}/candidates/${ref.externalId}`);
    expect(anonymous.status).toBe(401);
    const unknown = await fetch(`${base}/candidates/00000000`, { headers: { Authorization: `Bearer ${a.token}` } });
    expect([unknown.status, await unknown.json()]).toEqual([404, { error: expect.any(String) }]);
  });
});
