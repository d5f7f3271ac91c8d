/**
 * The pure parts of dispositions to boards (D22, P317, P319): the status each event reports and its Indeed name,
 * and the Indeed client against the Indeed simulator's documented refusals (GraphQL errors in a 200, refused ids
 * in `failedDispositions`, an invalid client), without the runtime.
 */
import { dispositionStatusOf, indeedStatus, type DispositionStatus } from '#delivery/dispositions.js';
import { forgetIndeedTokens, IndeedSendError, sendIndeedDispositions } from '#delivery/indeed-dispositions.js';
import type { WebhookEvent } from '#delivery/webhooks.js';
import { startIndeedSimulator, type IndeedSimulator } from '../simulators/indeed.js';

const event = (type: string, data: WebhookEvent['data']): WebhookEvent => ({
  id: 'e1',
  type,
  occurred_at: '2026-11-29T10:00:00.000Z',
  company: 1,
  data,
});
const sync = (sync_status: string, failure_error: string | null = null) =>
  event('application.sync_status_changed', { application_id: 1, job_id: 2, sync_status, failure_error });

test('the status of each event (P319)', () => {
  expect(dispositionStatusOf(sync('SUCCESS'))).toBe('NEW');
  expect(dispositionStatusOf(sync('SUCCESS_FALLBACK'))).toBe('NEW');
  expect(dispositionStatusOf(sync('EXPECTED_FAILURE', 'DuplicateApplicationError'))).toBe('DROPPED_DUPLICATE');
  expect(dispositionStatusOf(sync('EXPECTED_FAILURE', 'JobNotPublishedError'))).toBe('DROPPED_JOB_EXPIRED');
  expect(dispositionStatusOf(sync('FAILURE', 'AtsUnavailableError'))).toBe('NOT_DELIVERED');
  expect(dispositionStatusOf(sync('NOTSENT'))).toBeUndefined();
  for (const outcome of ['PENDING', 'HIRED', 'REJECTED', 'WITHDRAWN'])
    expect(dispositionStatusOf(event('application.outcome_changed', { id: 1, outcome, previous_outcome: null }))).toBe(outcome);
  expect(dispositionStatusOf(event('application.outcome_changed', { id: 1, outcome: 'LOST', previous_outcome: null }))).toBeUndefined();
  expect(dispositionStatusOf(event('application.created', { application_id: 1 }))).toBeUndefined();
});

test('Indeed names (P319): a pending stage by its words, else UNABLE_TO_MAP; no DROPPED_* for other failures', () => {
  const cases: [DispositionStatus, string | null, string | undefined][] = [
    ['NEW', null, 'NEW'],
    ['HIRED', 'Offer accepted', 'HIRED'],
    ['REJECTED', 'Rejected', 'NOT_SELECTED'],
    ['WITHDRAWN', null, 'WITHDRAWN'],
    ['DROPPED_DUPLICATE', null, 'DROPPED_DUPLICATE'],
    ['DROPPED_JOB_EXPIRED', null, 'DROPPED_JOB_EXPIRED'],
    ['NOT_DELIVERED', null, undefined],
    ['PENDING', 'Phone Interview', 'INTERVIEW'],
    ['PENDING', 'Offer', 'OFFER_MADE'],
    ['PENDING', 'Background check', 'BACKGROUND_CHECK'],
    ['PENDING', 'Take-home assignment', 'ASSESS_QUALIFICATIONS'],
    ['PENDING', 'Phone screen', 'SCREEN'],
    ['PENDING', 'Contacted', 'CONTACTED'],
    ['PENDING', 'In review', 'REVIEW'],
    ['PENDING', 'Applied', 'UNABLE_TO_MAP'],
    ['PENDING', null, 'UNABLE_TO_MAP'],
  ];
  expect(cases.map(([status, stage]) => indeedStatus(status, stage))).toEqual(cases.map(([, , want]) => want));
});

describe('the Indeed client against the simulator (P317)', () => {
  let sim: IndeedSimulator;
  const previous = process.env.INDEED_API_URL;
  beforeAll(async () => {
    sim = await startIndeedSimulator();
    process.env.INDEED_API_URL = sim.url;
  });
  afterAll(async () => {
    if (previous === undefined) delete process.env.INDEED_API_URL;
    else process.env.INDEED_API_URL = previous;
    await sim.stop();
  });
  beforeEach(() => forgetIndeedTokens());
  const client = () => ({ channel_id: 1, client_id: sim.clientId, client_secret: sim.clientSecret });
  const one = (id: string, at = '2026-11-29T10:00:00.000Z') => ({
    identifiedBy: { indeedApplyID: id },
    dispositionStatus: 'NEW',
    rawDispositionStatus: 'NEW',
    statusChangeDateTime: at,
  });

  test('taken, and ids Indeed does not know refused one by one', async () => {
    sim.knownApplyIds = new Set(['known']);
    expect(await sendIndeedDispositions(client(), [one('known'), one('unknown', '2026-11-29T10:00:01.000Z')])).toEqual({
      good: 1,
      failed: ['Unknown indeedApplyID'],
    });
    sim.knownApplyIds = new Set();
    expect(sim.batches.at(-1)!.map((d) => d.atsName)).toEqual(['Hiring Integration Service', 'Hiring Integration Service']);
  });

  test('a GraphQL error in a 200 on our input is not retried; more than 25 never leave', async () => {
    const error = await sendIndeedDispositions(client(), [one('a', 'yesterday')]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IndeedSendError);
    expect(error).toMatchObject({ retry: false, message: 'Indeed GraphQL errors: BAD_USER_INPUT' });
    const sent = sim.requests.length;
    await expect(
      sendIndeedDispositions(
        client(),
        Array.from({ length: 26 }, (_, n) => one(`x${n}`)),
      ),
    ).rejects.toThrow(/at most 25/);
    expect(sim.requests.length).toBe(sent);
  });

  test('a wrong client or a board that is down is retried; the secret is never in the error', async () => {
    const wrong = await sendIndeedDispositions({ ...client(), client_secret: 'not-the-secret' }, [one('a')]).catch((e: unknown) => e);
    expect(wrong).toMatchObject({ retry: true, message: 'Indeed token: HTTP 401 invalid_client' });
    sim.down = true;
    const down = await sendIndeedDispositions(client(), [one('a')]).catch((e: unknown) => e);
    sim.down = false;
    expect(down).toMatchObject({ retry: true, message: 'Indeed token: HTTP 503 unavailable' });
    expect(JSON.stringify([String(wrong), String(down)])).not.toContain(sim.clientSecret);
  });
});
