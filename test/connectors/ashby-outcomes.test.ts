/**
 * Ashby outcomes (D21, P301): an application submitted through the connector (its `external_id` is the submitted
 * form instance id), moved or archived in the simulator, and read back with `readOutcome` (`application.info`
 * by `submittedFormInstanceId`); Ashby's answers mapped to our error kinds; and the simulator's `application.info`
 * replayed against Ashby's own reference.
 */
import type { CompanyRecord } from '#companies/company-schema.js';
import type { OutcomeRef } from '#delivery/connectors/connector.js';
import { ashbyConnector, ashbyOutcome } from '#delivery/connectors/ashby.js';
import { rejection, submissionFactory } from '../helpers/submissions.js';
import { ashbyBoard, startAshbySimulator, type AshbySimulator } from '../simulators/ashby.js';
import { withoutPacing, startSimulatorServer, type SimulatorServer } from '../simulators/server.js';

withoutPacing();

const company = { id: 1, ats: 'ashby' } as CompanyRecord;
const POSTING = 'c0ffee00-1111-4000-8000-000000000001';
const board = ashbyBoard('outcomes', {
  scopes: ['apiKeysRead', 'candidatesWrite', 'candidatesRead', 'jobsRead'],
  postings: [{ id: POSTING, title: 'Staff Engineer' }],
});
const writeOnly = ashbyBoard('outcomes-write-only', { postings: [{ id: POSTING, title: 'Staff Engineer' }] });
const other = ashbyBoard('outcomes-other', { scopes: ['candidatesRead'] });
const credentials = { job_board_name: board.name, api_key: board.apiKey };

let ashby: AshbySimulator;
let down: SimulatorServer;
let downReply: { status: number; body?: unknown } = { status: 503 };

beforeAll(async () => {
  [ashby, down] = await Promise.all([startAshbySimulator(), startSimulatorServer(() => downReply)]);
  process.env.ASHBY_API_URL = ashby.env.ASHBY_API_URL;
  for (const b of [board, writeOnly, other]) ashby.boards.set(b.name, b);
});
afterAll(() => Promise.all([ashby.server.stop(), down.stop()]));
afterEach(() => {
  process.env.ASHBY_API_URL = ashby.env.ASHBY_API_URL;
});

const submission = submissionFactory({
  company,
  pdf: Buffer.from('%PDF-1.5\nashby\n%%EOF'),
  jobExternalId: POSTING,
  candidate: {},
  files: [{ name: 'cv.pdf' }],
});
let people = 0;
async function submitted(creds: Record<string, string> = credentials): Promise<OutcomeRef> {
  const email = `applicant-${++people}@example.com`;
  const { externalId } = await ashbyConnector.submitApplication(
    submission({ candidate: { email, first_name: 'Ada', last_name: 'Lovelace' } }),
    creds,
  );
  expect(ashby.applications.some((a) => a.submittedFormInstanceId === externalId)).toBe(true);
  return { externalId: externalId!, jobExternalId: POSTING, reference: `app-${people}`, appliedAt: '2026-11-29T10:00:00.000Z' };
}
const read = (ref: OutcomeRef, creds: Record<string, string> = credentials) => ashbyConnector.readOutcome!(ref, creds, company);

describe('readOutcome through the simulator', () => {
  test('a new application is PENDING in its first stage; moved to Onsite, Offer, then Hired: HIRED "Hired"', async () => {
    const ref = await submitted();
    expect(await read(ref)).toEqual({ outcome: 'PENDING', stage: 'Application Review' });
    const calls = ashby
      .requestsTo(/\/application\.info$/)
      .filter((r) => (r.json as { submittedFormInstanceId?: string }).submittedFormInstanceId === ref.externalId);
    expect(calls.map((r) => [r.method, r.json, r.headers.authorization])).toEqual([
      ['POST', { submittedFormInstanceId: ref.externalId }, `Basic ${Buffer.from(`${board.apiKey}:`).toString('base64')}`],
    ]);
    for (const stage of ['Onsite', 'Offer']) {
      ashby.outcomes.moveApplication(ref.externalId, stage);
      expect(await read(ref)).toEqual({ outcome: 'PENDING', stage });
    }
    ashby.outcomes.moveApplication(ref.externalId, 'Hired');
    expect(await read(ref)).toEqual({ outcome: 'HIRED', stage: 'Hired' });
  });

  test('archived by the organization: REJECTED; archived with the candidate’s reason: WITHDRAWN; never the candidate’s name', async () => {
    const rejected = await submitted();
    ashby.outcomes.archive(rejected.externalId, 'organization');
    const reading = await read(rejected);
    expect(reading).toEqual({ outcome: 'REJECTED', stage: 'Archived' });
    expect(JSON.stringify(reading)).not.toContain('Lovelace');
    const withdrawn = await submitted();
    ashby.outcomes.archive(withdrawn.externalId, 'candidate');
    expect(await read(withdrawn)).toEqual({ outcome: 'WITHDRAWN', stage: 'Archived' });
  });

  test('the mapping, row by row (docs/connectors/ashby.md)', () => {
    const stage = { title: 'Team Match' };
    expect(ashbyOutcome({ status: 'Active', currentInterviewStage: stage })).toEqual({ outcome: 'PENDING', stage: 'Team Match' });
    expect(ashbyOutcome({ status: 'Lead' })).toEqual({ outcome: 'PENDING', stage: null });
    expect(ashbyOutcome({ status: 'Hired', currentInterviewStage: stage })).toEqual({ outcome: 'HIRED', stage: 'Team Match' });
    expect(ashbyOutcome({ status: 'Archived', archiveReason: { reasonType: 'Withdrawn' } })).toEqual({ outcome: 'WITHDRAWN', stage: null });
    expect(ashbyOutcome({ status: 'Archived', archiveReason: { reasonType: 'Other' } })).toEqual({ outcome: 'REJECTED', stage: null });
    expect(ashbyOutcome({ status: 'Archived' })).toEqual({ outcome: 'REJECTED', stage: null });
  });
});

describe('errors, classified as the other Ashby calls', () => {
  test('a key without candidatesRead: credentials_rejected naming it; a wrong key: credentials_rejected', async () => {
    const ref = await submitted({ job_board_name: writeOnly.name, api_key: writeOnly.apiKey });
    const denied = await rejection(read(ref, { job_board_name: writeOnly.name, api_key: writeOnly.apiKey }));
    expect([denied.kind, denied.field]).toEqual(['credentials_rejected', 'api_key']);
    expect(denied.message).toContain('candidatesRead');
    const wrong = await rejection(read(ref, { ...credentials, api_key: 'not-an-ashby-key' }));
    expect([wrong.kind, wrong.field]).toEqual(['credentials_rejected', 'api_key']);
  });

  test('another organization’s application, or an unknown id: invalid_data, not retried', async () => {
    const ref = await submitted();
    const foreign = await rejection(read(ref, { job_board_name: other.name, api_key: other.apiKey }));
    expect([foreign.kind, foreign.retryable]).toEqual(['invalid_data', false]);
    expect((await rejection(read({ ...ref, externalId: 'no-such-form-instance' }))).kind).toBe('invalid_data');
  });

  test('429 is rate_limited with Retry-After; 5xx is transient; success without results is invalid_data', async () => {
    const ref = await submitted();
    ashby.rateLimitNext = 1;
    const limited = await rejection(read(ref));
    expect([limited.kind, limited.retryAfterSeconds]).toEqual(['rate_limited', 1]);
    expect(await read(ref)).toEqual({ outcome: 'PENDING', stage: 'Application Review' });
    process.env.ASHBY_API_URL = down.url;
    for (const status of [500, 503]) {
      downReply = { status, body: { success: false, errorInfo: { code: 'internal_error', message: 'x' } } };
      const failed = await rejection(read(ref));
      expect([failed.kind, failed.retryable]).toEqual(['transient', true]);
    }
    downReply = { status: 200, body: { success: true } };
    expect((await rejection(read(ref))).kind).toBe('invalid_data');
  });
});

describe('vendor example replay (https://developers.ashbyhq.com/reference/applicationinfo)', () => {
  const post = (body: unknown, key = board.apiKey) =>
    fetch(`${ashby.env.ASHBY_API_URL}/application.info`, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
        'Content-Type': 'application/json',
        Accept: 'application/json; version=1',
      },
      body: JSON.stringify(body),
    });

  test('by submittedFormInstanceId or by applicationId (which wins when both are given); the documented fields', async () => {
    const first = await submitted();
    const second = await submitted();
    ashby.outcomes.moveApplication(second.externalId, 'Phone Screen');
    const byForm = (await (await post({ submittedFormInstanceId: first.externalId })).json()) as {
      success: boolean;
      results: Record<string, unknown>;
    };
    expect(byForm.success).toBe(true);
    expect(Object.keys(byForm.results)).toEqual(
      expect.arrayContaining(['id', 'createdAt', 'updatedAt', 'status', 'candidate', 'job', 'currentInterviewStage']),
    );
    expect(byForm.results).toMatchObject({
      status: 'Active',
      job: { title: 'Staff Engineer' },
      currentInterviewStage: { title: 'Application Review' },
    });
    const secondId = ashby.outcomes.progress.get(second.externalId)!.applicationId;
    const both = (await (await post({ applicationId: secondId, submittedFormInstanceId: first.externalId })).json()) as {
      results: Record<string, unknown>;
    };
    expect(both.results).toMatchObject({ id: secondId, currentInterviewStage: { title: 'Phone Screen' } });
    const neither = (await (await post({})).json()) as { success: boolean; errorInfo: { code: string } };
    expect([neither.success, neither.errorInfo.code]).toEqual([false, 'invalid_input']);
    const withoutPermission = await post({ submittedFormInstanceId: first.externalId }, writeOnly.apiKey);
    expect(withoutPermission.status).toBe(403);
    expect(((await withoutPermission.json()) as { errorInfo: { code: string } }).errorInfo.code).toBe('missing_endpoint_permission');
  });
});
