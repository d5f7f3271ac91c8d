/**
 * Recruitee outcomes (P352, P353) at the connector: the token check and `readOutcome` against the simulator's ATS API,
 * each answer mapped to our error kinds, and `recruiteeOutcome` on answers shaped as the observed ones (placements and
 * their `references`). The real path (worker, OutcomeReader, API) is test/http/recruitee-outcomes.test.ts.
 */
import type { OutcomeRef } from '#delivery/connectors/connector.js';
import { recruiteeConnector } from '#delivery/connectors/recruitee.js';
import { recruiteeOutcome } from '#delivery/connectors/recruitee-outcomes.js';
import { startRecruiteeSimulator, type RecruiteeSimulator } from '../simulators/recruitee.js';
import { withoutPacing } from '../simulators/server.js';

withoutPacing();

let sim: RecruiteeSimulator;
const TOKEN = 'rt-connector-0123456789abcdef';

beforeAll(async () => {
  sim = await startRecruiteeSimulator();
  Object.assign(process.env, sim.env);
  sim.sites.set('acme', { company: 'acme', offers: [{ id: 77, title: 'Baker' }] });
  sim.atsApi.tokens.set(TOKEN, { company: 'acme', canSeeCandidates: true });
  sim.candidates.push({ id: 9100, company: 'acme', offerId: 77, name: 'Ada Lovelace', email: 'ada@example.com', files: [], answers: [] });
});
afterAll(() => sim.server.stop());

const credentials = (token = TOKEN, company = 'acme') => ({ company, api_token: token });
const ref = (externalId = '9100'): OutcomeRef => ({
  externalId,
  jobExternalId: '77',
  reference: 'app-1',
  appliedAt: '2026-11-29T10:00:00.000Z',
});
const read = (creds = credentials(), r = ref()) => recruiteeConnector.readOutcome!(r, creds, { id: 1, ats: 'recruitee' } as never);

test('the check: without a token only the careers site; with one, the ATS API with the Bearer token; refusals name api_token', async () => {
  const calls = () => sim.requestsTo(/^\/recruitee-api\//).length;
  const before = calls();
  await recruiteeConnector.validateCredentials({ company: 'acme', api_token: '' }, {} as never);
  expect(calls()).toBe(before);
  await recruiteeConnector.validateCredentials(credentials(), {} as never);
  expect(sim.requestsTo(/^\/recruitee-api\//).at(-1)).toMatchObject({
    path: '/recruitee-api/c/acme/candidates',
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  sim.atsApi.tokens.set('rt-no-candidates-0123456789', { company: 'acme', canSeeCandidates: false });
  sim.atsApi.tokens.set('rt-other-company-0123456789', { company: 'other', canSeeCandidates: true });
  for (const token of ['rt-unknown-0123456789abcdef', 'rt-no-candidates-0123456789', 'rt-other-company-0123456789'])
    await expect(recruiteeConnector.validateCredentials(credentials(token), {} as never)).rejects.toMatchObject({
      kind: 'credentials_rejected',
      field: 'api_token',
    });
});

test('readOutcome: PENDING "Applied", then each move; 401/403 credentials_rejected naming api_token, 404 invalid_data, 429 rate_limited', async () => {
  expect(await read()).toEqual({ outcome: 'PENDING', stage: 'Applied' });
  sim.atsApi.move(9100, 'Interview');
  expect(await read()).toEqual({ outcome: 'PENDING', stage: 'Interview' });
  sim.atsApi.disqualify(9100);
  expect(await read()).toEqual({ outcome: 'REJECTED', stage: 'Interview' });
  sim.atsApi.disqualify(9100, { byCandidate: true });
  expect(await read()).toEqual({ outcome: 'WITHDRAWN', stage: 'Interview' });
  sim.atsApi.move(9100, 'Hired');
  expect(await read()).toEqual({ outcome: 'HIRED', stage: 'Hired' });

  await expect(read(credentials('rt-unknown-0123456789abcdef'))).rejects.toMatchObject({
    kind: 'credentials_rejected',
    field: 'api_token',
  });
  await expect(read(credentials('rt-no-candidates-0123456789'))).rejects.toMatchObject({
    kind: 'credentials_rejected',
    field: 'api_token',
  });
  await expect(read(credentials(''))).rejects.toMatchObject({ kind: 'credentials_rejected', field: 'api_token' });
  await expect(read(credentials(), ref('424242'))).rejects.toMatchObject({ kind: 'invalid_data' });
  sim.rateLimitNext = 1;
  await expect(read()).rejects.toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 1 });
});

test('recruiteeOutcome: the placement for the job, the stage by its reference, hired_at without a known stage; a malformed answer is invalid_data', () => {
  const stages = [
    { type: 'Stage', id: 1, name: 'Applied', category: 'apply' },
    { type: 'Stage', id: 2, name: 'Hired', category: 'hire' },
  ];
  const answer = (placements: unknown[]) => ({ candidate: { id: 5, placements }, references: stages });
  const cases: [string, unknown[], { outcome: string; stage: string | null }][] = [
    [
      'the placement for the job, not another offer’s',
      [
        { offer_id: 12, stage_id: 2 },
        { offer_id: 77, stage_id: 1 },
      ],
      { outcome: 'PENDING', stage: 'Applied' },
    ],
    ['only one placement, for another offer id (assumed ours)', [{ offer_id: 12, stage_id: 2 }], { outcome: 'HIRED', stage: 'Hired' }],
    [
      'none for the job among several',
      [
        { offer_id: 12, stage_id: 2 },
        { offer_id: 13, stage_id: 2 },
      ],
      { outcome: 'PENDING', stage: null },
    ],
    [
      'hired_at with a stage not in references',
      [{ offer_id: 77, stage_id: 99, hired_at: '2026-11-29T10:00:00Z' }],
      { outcome: 'HIRED', stage: null },
    ],
  ];
  for (const [what, placements, expected] of cases)
    expect({ what, ...recruiteeOutcome(answer(placements), '77') }).toEqual({ what, ...expected });
  // The disqualify reason (a company's free text) is never the stage.
  const rejected = recruiteeOutcome(
    answer([{ offer_id: 77, stage_id: 1, disqualify_reason: 'Wrong skill set', disqualify_kind: 'admin' }]),
    '77',
  );
  expect(rejected).toEqual({ outcome: 'REJECTED', stage: 'Applied' });
  expect(() => recruiteeOutcome({ candidate: { id: 5 } }, '77')).toThrow(expect.objectContaining({ kind: 'invalid_data' }));
  expect(() => recruiteeOutcome({}, '77')).toThrow(expect.objectContaining({ kind: 'invalid_data' }));
});
