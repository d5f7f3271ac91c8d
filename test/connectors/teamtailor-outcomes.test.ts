/**
 * Teamtailor outcomes (D21, P301): an application submitted through the connector (its `external_id` is the job
 * application's id), moved or rejected in the simulator, and read back with `readOutcome`
 * (`GET /v1/job-applications/{id}?include=stage,reject-reason`); Teamtailor's answers mapped to our error kinds;
 * and the simulator's read endpoint replayed against Teamtailor's own reference.
 */
import type { CompanyRecord } from '#companies/company-schema.js';
import type { OutcomeRef } from '#delivery/connectors/connector.js';
import { TEAMTAILOR_API_VERSION, teamtailorConnector, teamtailorOutcome } from '#delivery/connectors/teamtailor.js';
import { rejection, submissionFactory } from '../helpers/submissions.js';
import { withoutPacing, startSimulatorServer, type SimulatorServer } from '../simulators/server.js';
import { startTeamtailorSimulator, type TeamtailorSimulator } from '../simulators/teamtailor.js';

withoutPacing();

const company = { id: 1, ats: 'teamtailor' } as CompanyRecord;
const credentials = { api_key: 'tt-outcomes-admin-key', region: 'eu' };

let sim: TeamtailorSimulator;
let down: SimulatorServer;
let downReply: { status: number; body?: unknown; headers?: Record<string, string> } = { status: 503 };
let simulatorUrl: string;

beforeAll(async () => {
  [sim, down] = await Promise.all([
    startTeamtailorSimulator(),
    startSimulatorServer(() => ({
      status: downReply.status,
      body: downReply.body ?? { errors: [{ status: String(downReply.status) }] },
      headers: downReply.headers,
    })),
  ]);
  simulatorUrl = sim.env.TEAMTAILOR_API_URL;
  process.env.TEAMTAILOR_API_URL = simulatorUrl;
  sim.accounts.push(
    {
      apiKey: credentials.api_key,
      scope: 'admin',
      permission: 'read-write',
      jobs: [{ id: '501', title: 'Backend Developer', body: '<p>Ruby</p>' }],
    },
    { apiKey: 'tt-outcomes-public-key', scope: 'public', permission: 'read', jobs: [] },
    { apiKey: 'tt-outcomes-other-admin', scope: 'admin', permission: 'read-write', jobs: [] },
  );
});
afterAll(() => Promise.all([sim.server.stop(), down.stop()]));
afterEach(() => {
  process.env.TEAMTAILOR_API_URL = simulatorUrl;
});

const submission = submissionFactory({ company, pdf: Buffer.from(''), jobExternalId: '501', candidate: {} });
let people = 0;
async function submitted(): Promise<OutcomeRef> {
  const email = `applicant-${++people}@example.com`;
  const { externalId } = await teamtailorConnector.submitApplication(
    submission({ candidate: { email, first_name: 'Ada', last_name: 'Lovelace' } }, []),
    credentials,
  );
  expect(sim.applications.map((a) => a.id)).toContain(externalId);
  return { externalId: externalId!, jobExternalId: '501', reference: `app-${people}`, appliedAt: '2026-11-29T10:00:00.000Z' };
}
const read = (ref: OutcomeRef, creds: Record<string, string> = credentials) => teamtailorConnector.readOutcome!(ref, creds, company);

describe('readOutcome through the simulator', () => {
  test('in the Inbox: PENDING "Inbox"; moved to Interview, then Hired: HIRED "Hired"; one documented GET each', async () => {
    const ref = await submitted();
    expect(await read(ref)).toEqual({ outcome: 'PENDING', stage: 'Inbox' });
    const gets = sim.requestsTo(new RegExp(`^/teamtailor/v1/job-applications/${ref.externalId}$`));
    expect(gets.map((r) => [r.method, r.query.get('include'), r.headers.authorization, r.headers['x-api-version']])).toEqual([
      ['GET', 'stage,reject-reason', `Token token=${credentials.api_key}`, TEAMTAILOR_API_VERSION],
    ]);
    sim.outcomes.moveApplication(ref.externalId, 'Interview');
    expect(await read(ref)).toEqual({ outcome: 'PENDING', stage: 'Interview' });
    sim.outcomes.moveApplication(ref.externalId, 'Hired');
    expect(await read(ref)).toEqual({ outcome: 'HIRED', stage: 'Hired' });
  });

  test('rejected by the company: REJECTED at its stage; rejected with a reason of the candidate: WITHDRAWN', async () => {
    const rejected = await submitted();
    sim.outcomes.moveApplication(rejected.externalId, 'Screening');
    sim.outcomes.reject(rejected.externalId);
    expect(await read(rejected)).toEqual({ outcome: 'REJECTED', stage: 'Screening' });
    const withdrawn = await submitted();
    sim.outcomes.reject(withdrawn.externalId, { byCandidate: true });
    expect(await read(withdrawn)).toEqual({ outcome: 'WITHDRAWN', stage: 'Inbox' });
    // Moved back into the process: PENDING again (the reading follows the ATS, not a latch).
    sim.outcomes.moveApplication(withdrawn.externalId, 'Interview');
    expect(await read(withdrawn)).toEqual({ outcome: 'PENDING', stage: 'Interview' });
  });

  test('the mapping, row by row (docs/connectors/teamtailor.md)', () => {
    const app = (attributes: Record<string, unknown>, reason?: string) => ({
      type: 'job-applications',
      attributes,
      relationships: {
        stage: { data: { type: 'stages', id: '1' } },
        'reject-reason': { data: reason ? { type: 'reject-reasons', id: reason } : null },
      },
    });
    const included = new Map([
      ['stages:1', { id: '1', type: 'stages', attributes: { name: 'Signed', 'stage-type': 'Hired' } }],
      ['reject-reasons:7', { id: '7', type: 'reject-reasons', attributes: { reason: 'x', 'rejected-by-company': true } }],
    ]);
    expect(teamtailorOutcome(app({ 'rejected-at': null }), included)).toEqual({ outcome: 'HIRED', stage: 'Signed' });
    expect(teamtailorOutcome(app({ 'rejected-at': '2026-11-29T10:00:00Z' }, '7'), included)).toEqual({
      outcome: 'REJECTED',
      stage: 'Signed',
    });
    // A rejection without a reason counts as the company's.
    expect(teamtailorOutcome(app({ 'rejected-at': '2026-11-29T10:00:00Z' }), included)).toEqual({ outcome: 'REJECTED', stage: 'Signed' });
    expect(teamtailorOutcome(app({}), new Map())).toEqual({ outcome: 'PENDING', stage: null });
  });
});

describe('errors, classified as the other Teamtailor calls', () => {
  test('401 (wrong key) and 403 (a Public key) are credentials_rejected naming api_key', async () => {
    const ref = await submitted();
    const wrong = await rejection(read(ref, { api_key: 'tt-not-a-key-000', region: 'eu' }));
    expect([wrong.kind, wrong.field]).toEqual(['credentials_rejected', 'api_key']);
    const scoped = await rejection(read(ref, { api_key: 'tt-outcomes-public-key', region: 'eu' }));
    expect([scoped.kind, scoped.field]).toEqual(['credentials_rejected', 'api_key']);
  });

  test('an unknown id, or another account’s application, is 404: invalid_data, not retried', async () => {
    const ref = await submitted();
    const other = await rejection(read(ref, { api_key: 'tt-outcomes-other-admin', region: 'eu' }));
    expect([other.kind, other.retryable]).toEqual(['invalid_data', false]);
    const unknown = await rejection(read({ ...ref, externalId: '999999' }));
    expect(unknown.kind).toBe('invalid_data');
  });

  test('429 is rate_limited with X-Rate-Limit-Reset; 5xx is transient; a document without data is invalid_data', async () => {
    const ref = await submitted();
    sim.rateLimitNext = 1;
    sim.rateLimitResetSeconds = 3;
    const limited = await rejection(read(ref));
    expect([limited.kind, limited.retryAfterSeconds]).toEqual(['rate_limited', 3]);
    process.env.TEAMTAILOR_API_URL = down.url;
    for (const status of [500, 502]) {
      downReply = { status };
      const failed = await rejection(read(ref));
      expect([failed.kind, failed.retryable]).toEqual(['transient', true]);
    }
    downReply = { status: 200, body: { data: [] } };
    expect((await rejection(read(ref))).kind).toBe('invalid_data');
  });
});

describe('vendor example replay (https://docs.teamtailor.com/#show-a-job-application)', () => {
  test('GET /v1/job-applications/{id}: the documented attributes and relations; include puts stage and reject reason in included', async () => {
    const ref = await submitted();
    sim.outcomes.reject(ref.externalId);
    const headers = { Authorization: `Token token=${credentials.api_key}`, 'X-Api-Version': TEAMTAILOR_API_VERSION };
    const plain = await fetch(`${simulatorUrl}/v1/job-applications/${ref.externalId}`, { headers });
    expect(plain.status).toBe(200);
    const body = (await plain.json()) as {
      data: { type: string; attributes: Record<string, unknown>; relationships: Record<string, Record<string, unknown>> };
      included?: unknown;
    };
    expect(body.data.type).toBe('job-applications');
    expect(Object.keys(body.data.attributes)).toEqual(
      expect.arrayContaining(['created-at', 'updated-at', 'rejected-at', 'changed-stage-at', 'sourced', 'referring-site']),
    );
    expect(body.data.attributes['rejected-at']).toEqual(expect.any(String));
    expect(Object.keys(body.data.relationships).sort()).toEqual(['candidate', 'job', 'reject-reason', 'stage']);
    expect(body.data.relationships.stage).toEqual({ links: expect.objectContaining({ related: expect.stringContaining('/stage') }) });
    expect(body.included).toBeUndefined();
    const withIncludes = await fetch(`${simulatorUrl}/v1/job-applications/${ref.externalId}?include=stage,reject-reason`, { headers });
    const included = ((await withIncludes.json()) as { included: { type: string; attributes: Record<string, unknown> }[] }).included;
    expect(included.map((r) => r.type).sort()).toEqual(['reject-reasons', 'stages']);
    expect(included.find((r) => r.type === 'stages')!.attributes).toEqual({ name: 'Inbox', 'stage-type': 'Inbox' });
    expect(included.find((r) => r.type === 'reject-reasons')!.attributes).toEqual({ reason: 'Not a fit', 'rejected-by-company': true });
    const noVersion = await fetch(`${simulatorUrl}/v1/job-applications/${ref.externalId}`, {
      headers: { Authorization: headers.Authorization },
    });
    expect(noVersion.status).toBe(406);
  });
});
