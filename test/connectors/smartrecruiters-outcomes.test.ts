/**
 * SmartRecruiters outcomes (D21, P301): an application submitted through the connector (its `external_id` is the
 * candidate id the Application API returns), moved in the simulator, and read back with `readOutcome`
 * (`GET /postings/{uuid}/candidates/{candidateId}/status`); the answers mapped to our error kinds; and the
 * simulator's status endpoint replayed against SmartRecruiters' own page.
 */
import type { CompanyRecord } from '#companies/company-schema.js';
import type { OutcomeRef } from '#delivery/connectors/connector.js';
import { smartrecruitersConnector as connector, smartrecruitersOutcome } from '#delivery/connectors/smartrecruiters.js';
import { rejection, submissionFactory } from '../helpers/submissions.js';
import { startSimulatorServer, type SimulatorServer } from '../simulators/server.js';
import { APPLICATION_STATUSES, startSmartRecruitersSimulator, type SmartRecruitersSimulator } from '../simulators/smartrecruiters.js';

const company = { id: 7, ats: 'smartrecruiters' } as CompanyRecord;
const KEY = 'sr-outcomes-key-0123456789abcdef';
const OTHER_KEY = 'sr-outcomes-other-0123456789abcdef';
const credentials = { company_identifier: 'Acme', api_key: KEY };
const UUID = '11111111-2222-3333-4444-555555555555';
const OTHER_UUID = '99999999-2222-3333-4444-555555555555';

let sim: SmartRecruitersSimulator;
let down: SimulatorServer;
let downReply: { status: number; body?: unknown } = { status: 503 };

beforeAll(async () => {
  [sim, down] = await Promise.all([startSmartRecruitersSimulator(), startSimulatorServer(() => downReply)]);
  process.env.SMARTRECRUITERS_API_URL = sim.env.SMARTRECRUITERS_API_URL;
  process.env.SMARTRECRUITERS_RETRY_BASE_MS = '20';
  sim.companies.set('Acme', { identifier: 'Acme', apiKey: KEY, postings: [{ id: 'p1', uuid: UUID, name: 'Backend Engineer' }] });
  sim.companies.set('Other', { identifier: 'Other', apiKey: OTHER_KEY, postings: [{ id: 'p9', uuid: OTHER_UUID, name: 'Other job' }] });
});
afterAll(() => Promise.all([sim.server.stop(), down.stop()]));
afterEach(() => {
  process.env.SMARTRECRUITERS_API_URL = sim.env.SMARTRECRUITERS_API_URL;
  delete process.env.SMARTRECRUITERS_MAX_RETRIES;
});

const submission = submissionFactory({ company, pdf: Buffer.from(''), jobExternalId: UUID, candidate: {} });
let people = 0;
async function submitted(): Promise<OutcomeRef> {
  const email = `applicant-${++people}@example.com`;
  const { externalId } = await connector.submitApplication(
    submission({ candidate: { email, first_name: 'Ada', last_name: 'Lovelace' }, screeningAnswers: [] }, []),
    credentials,
  );
  expect(sim.applications.find((a) => a.candidateId === externalId)?.uuid).toBe(UUID);
  return { externalId: externalId!, jobExternalId: UUID, reference: `app-${people}`, appliedAt: '2026-11-29T10:00:00.000Z' };
}
const read = (ref: OutcomeRef, creds: Record<string, string> = credentials) => connector.readOutcome!(ref, creds, company);

describe('readOutcome through the simulator', () => {
  test('NEW is PENDING; IN-REVIEW, INTERVIEW, OFFER stay PENDING; HIRE is HIRED; one GET with the key each', async () => {
    const ref = await submitted();
    expect(await read(ref)).toEqual({ outcome: 'PENDING', stage: 'NEW' });
    const gets = sim.requestsTo(new RegExp(`/postings/${UUID}/candidates/${ref.externalId}/status$`));
    expect(gets.map((r) => [r.method, r.headers['x-smarttoken']])).toEqual([['GET', KEY]]);
    for (const status of ['IN-REVIEW', 'INTERVIEW', 'OFFER']) {
      sim.moveApplication(ref.externalId, status);
      expect(await read(ref)).toEqual({ outcome: 'PENDING', stage: status });
    }
    sim.moveApplication(ref.externalId, 'HIRE');
    expect(await read(ref)).toEqual({ outcome: 'HIRED', stage: 'HIRE' });
  });

  test('REJECTED, WITHDRAWN and TRANSFERRED (P302)', async () => {
    const ref = await submitted();
    for (const [status, outcome] of [
      ['REJECTED', 'REJECTED'],
      ['WITHDRAWN', 'WITHDRAWN'],
      ['TRANSFERRED', 'REJECTED'],
    ]) {
      sim.moveApplication(ref.externalId, status);
      expect(await read(ref)).toEqual({ outcome, stage: status });
    }
  });

  test('every documented status maps; the Candidate Status API spellings map alike; an unknown one is PENDING', () => {
    const mapped = APPLICATION_STATUSES.map((s) => smartrecruitersOutcome(s).outcome);
    expect(mapped).toEqual(['PENDING', 'PENDING', 'PENDING', 'PENDING', 'HIRED', 'REJECTED', 'WITHDRAWN', 'PENDING', 'REJECTED']);
    expect(smartrecruitersOutcome('IN_REVIEW')).toEqual({ outcome: 'PENDING', stage: 'IN-REVIEW' });
    expect(smartrecruitersOutcome('HIRED')).toEqual({ outcome: 'HIRED', stage: 'HIRED' });
    expect(smartrecruitersOutcome('ON_HOLD')).toEqual({ outcome: 'PENDING', stage: 'ON-HOLD' });
  });
});

describe('errors, classified as the other SmartRecruiters calls', () => {
  test('401 (wrong key) is credentials_rejected naming api_key; another company’s key sees no posting (404): invalid_data', async () => {
    const ref = await submitted();
    const wrong = await rejection(read(ref, { ...credentials, api_key: 'sr-wrong-key-0000000000' }));
    expect([wrong.kind, wrong.field]).toEqual(['credentials_rejected', 'api_key']);
    const other = await rejection(read(ref, { company_identifier: 'Other', api_key: OTHER_KEY }));
    expect([other.kind, other.retryable]).toEqual(['invalid_data', false]);
    const unknown = await rejection(read({ ...ref, externalId: 'no-such-candidate' }));
    expect(unknown.kind).toBe('invalid_data');
  });

  test('429 after the backoff retries is rate_limited; a 429 that clears is retried; 5xx is transient; 403 is credentials_rejected', async () => {
    const ref = await submitted();
    process.env.SMARTRECRUITERS_MAX_RETRIES = '1';
    sim.rateLimitNext = 1;
    expect(await read(ref)).toEqual({ outcome: 'PENDING', stage: 'NEW' });
    sim.rateLimitNext = 2;
    expect((await rejection(read(ref))).kind).toBe('rate_limited');
    process.env.SMARTRECRUITERS_API_URL = `${down.url}/sr`;
    for (const status of [500, 503]) {
      downReply = { status, body: { code: 'SERVER_ERROR', message: 'boom' } };
      const failed = await rejection(read(ref));
      expect([failed.kind, failed.retryable]).toEqual(['transient', true]);
    }
    downReply = { status: 403, body: { code: 'FORBIDDEN', message: 'no access' } };
    expect((await rejection(read(ref))).kind).toBe('credentials_rejected');
    downReply = { status: 200, body: { state: 'NEW' } };
    expect((await rejection(read(ref))).kind).toBe('invalid_data');
  });
});

describe('vendor example replay (https://developers.smartrecruiters.com/docs/get-candidate-application-status)', () => {
  test('GET /postings/:uuid/candidates/:candidateId/status with X-SmartToken: {"status": "IN-REVIEW"}', async () => {
    const ref = await submitted();
    sim.moveApplication(ref.externalId, 'IN-REVIEW');
    const url = `${sim.env.SMARTRECRUITERS_API_URL}/postings/${UUID}/candidates/${ref.externalId}/status`;
    const response = await fetch(url, { headers: { 'X-SmartToken': KEY } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'IN-REVIEW' });
    expect(response.headers.get('x-ratelimit-limit')).toBe('10');
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { method: 'POST', headers: { 'X-SmartToken': KEY } })).status).toBe(405);
  });
});
