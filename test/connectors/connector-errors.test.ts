/**
 * Connector behaviour at the edges, straight against the simulators (no storage involved): Lever's pacing
 * and 429 retries, Greenhouse's 200-with-error, Personio's file limits, and the mapping of odd answers,
 * timeouts and network errors to the error kinds the sync worker acts on.
 */
import type { CompanyRecord } from '#companies/company-schema.js';
import { greenhouseConnector } from '#delivery/connectors/greenhouse.js';
import { pace } from '#delivery/connectors/http.js';
import { leverConnector, reservePostSlot } from '#delivery/connectors/lever.js';
import { personioConnector } from '#delivery/connectors/personio.js';
import { rejection, submissionFactory } from '../helpers/submissions.js';
import { startSimulatorServer, type SimulatorServer } from '../simulators/server.js';
import { startLeverSimulator, type LeverSimulator } from '../simulators/lever.js';
import { personioAccount, startPersonioSimulator, type PersonioSimulator } from '../simulators/personio.js';

const PDF = Buffer.from('%PDF-1.5\nedge\n%%EOF');
const company = { id: 1, ats: 'lever' } as CompanyRecord;

const submission = submissionFactory({
  company,
  pdf: PDF,
  jobExternalId: 'p-1',
  candidate: { email: 'edge@example.com', full_name: 'Edge Case' },
});

let lever: LeverSimulator;
let personio: PersonioSimulator;
let odd: SimulatorServer;
let oddReply: { status: number; body?: unknown; delayMs?: number } = { status: 200, body: {} };

beforeAll(async () => {
  [lever, personio] = await Promise.all([startLeverSimulator(), startPersonioSimulator()]);
  odd = await startSimulatorServer(async () => {
    if (oddReply.delayMs) await new Promise((r) => setTimeout(r, oddReply.delayMs));
    return { status: oddReply.status, body: oddReply.body };
  });
  Object.assign(process.env, lever.env, personio.env, { GREENHOUSE_API_URL: `${odd.url}/gh` });
  lever.sites.set('pace', { site: 'pace', apiKey: 'lever-pace-key', postings: [{ id: 'p-1', text: 'Job', description: 'x' }] });
  personio.accounts.set('edge', personioAccount('edge', { positions: [{ id: '7', name: 'Job' }] }));
});
afterAll(() => Promise.all([lever.server.stop(), personio.server.stop(), odd.stop()]));

const credentials = { site: 'pace', api_key: 'lever-pace-key' };

/** `pace` with ATS_PACING_SCALE as a deployment has it (unset) or as given (P366). */
async function pacedTimes(count: number, ats: string, requestsPerSecond: number, scale?: string): Promise<number[]> {
  if (scale === undefined) delete process.env.ATS_PACING_SCALE;
  else process.env.ATS_PACING_SCALE = scale;
  try {
    const pacing = { requestsPerSecond, importConcurrency: 1, documented: 'test' };
    const sent: number[] = [];
    await Promise.all(Array.from({ length: count }, () => pace(ats, pacing).then(() => sent.push(Date.now()))));
    return sent.sort((a, b) => a - b);
  } finally {
    delete process.env.ATS_PACING_SCALE;
  }
}

test('pacing: no window shorter than a second holds more than requestsPerSecond requests, even from a standing start (P237)', async () => {
  // All asked for at once, as a burst of submissions would: each leaves when the bucket allows. Unset, the scale is 1.
  const sent = await pacedTimes(30, 'pacing-test', 20);
  const busiest = Math.max(...sent.map((t) => sent.filter((u) => u >= t && u - t < 1000).length));
  // The k-th request leaves (k - 1) / rate after they were asked for; the first is noted a moment late, so a window
  // can catch the 21st by a millisecond: rate + 1 at most (the bucket of 20 tokens before P237 let 40 through).
  // Every connector's rate leaves that much room below its documented limit (SmartRecruiters: 8 against 10).
  expect(busiest).toBeLessThanOrEqual(21);
  // And it is pacing, not stalling: 30 requests at 20 a second take about 1.45 s.
  expect(sent[sent.length - 1] - sent[0]).toBeLessThan(3000);
  expect(sent[sent.length - 1] - sent[0]).toBeGreaterThanOrEqual(1400);
});

test('pacing spaces requests by when they left, so a busy process does not bunch them (P375)', async () => {
  // The process stalls for 300 ms a moment after the burst is asked for, as a busy worker or a long synchronous task
  // would: timers due in the stall fire late. The requests after it still leave 1/rate apart.
  const stall = setTimeout(() => {
    const until = Date.now() + 300;
    while (Date.now() < until);
  }, 120);
  const sent = await pacedTimes(30, 'pacing-stall', 20);
  clearTimeout(stall);
  const busiest = Math.max(...sent.map((t) => sent.filter((u) => u >= t && u - t < 1000).length));
  expect(busiest).toBeLessThanOrEqual(21);
  const gaps = sent.slice(1).map((t, i) => t - sent[i]);
  expect(gaps.filter((gap) => gap < 45)).toEqual([]);
});

test('ATS_PACING_SCALE stretches every pacing wait, and 0 (`withoutPacing`) waits for nothing (P366)', async () => {
  // 11 requests at 10 a second: 1 s at the scale 1; at 0.5 half of it; at 0 at once.
  const half = await pacedTimes(11, 'pacing-half', 10, '0.5');
  expect(half[10] - half[0]).toBeGreaterThanOrEqual(450);
  expect(half[10] - half[0]).toBeLessThan(900);
  const none = await pacedTimes(11, 'pacing-none', 10, '0');
  expect(none[10] - none[0]).toBeLessThan(100);
  // Anything that is not a number of zero or more counts as 1.
  const invalid = await pacedTimes(3, 'pacing-invalid', 10, '-1');
  expect(invalid[2] - invalid[0]).toBeGreaterThanOrEqual(180);
});

test('Lever: POST slots are reserved per key, 600 ms apart', () => {
  const t = 1_000_000_000_000;
  expect([reservePostSlot('key-a', t), reservePostSlot('key-a', t), reservePostSlot('key-a', t + 100)]).toEqual([0, 600, 1100]);
  expect(reservePostSlot('key-b', t)).toBe(0);
  expect(reservePostSlot('key-a', t + 5000)).toBe(0);
});

test('Lever: three applications at once are paced, and all get through', async () => {
  const before = lever.postStatuses.length;
  const started = Date.now();
  const results = await Promise.all(
    [1, 2, 3].map(() => leverConnector.submitApplication(submission({}, [{ name: 'cv.pdf' }]), credentials)),
  );
  expect(results.every((r) => typeof r.externalId === 'string')).toBe(true);
  // Unpaced, all three would go out at once; paced, the third waits two slots.
  expect(Date.now() - started).toBeGreaterThanOrEqual(1200);
  // On a quiet machine Lever answers no 429; under heavy load a jittered arrival may still meet one, which
  // the connector retries: every application got through either way.
  expect(lever.postStatuses.slice(before).filter((s) => s === 200)).toHaveLength(3);
});

test('Lever: a 429 that does not stop is rate_limited after the retries', async () => {
  process.env.LEVER_MAX_RETRIES = '1';
  process.env.LEVER_RETRY_BASE_MS = '20';
  lever.rateLimitNext = 5;
  try {
    await expect(leverConnector.submitApplication(submission(), credentials)).rejects.toMatchObject({ kind: 'rate_limited' });
  } finally {
    lever.rateLimitNext = 0;
    delete process.env.LEVER_MAX_RETRIES;
    delete process.env.LEVER_RETRY_BASE_MS;
  }
});

test('Lever: a bad key is credentials_rejected, a closed posting job_not_published, and the key never appears in the error', async () => {
  const error = await rejection(leverConnector.submitApplication(submission(), { ...credentials, api_key: 'wrong-key-999' }));
  expect(error).toMatchObject({ kind: 'credentials_rejected' });
  expect(error.message).not.toContain('wrong-key-999');
  await new Promise((r) => setTimeout(r, 1000));
  await expect(leverConnector.submitApplication(submission({ jobExternalId: 'gone' }), credentials)).rejects.toMatchObject({
    kind: 'job_not_published',
  });
});

test.each([
  ['200 without success', { status: 200, body: {} }, 'transient'],
  ['200 with another error', { status: 200, body: { error: 'Failed to save person', reason: 'Invalid email' } }, 'invalid_data'],
  ['200 not live', { status: 200, body: { error: 'Failed to save person', reason: 'Job application not live' } }, 'job_not_published'],
  ['401', { status: 401, body: { error: 'Unauthorized' } }, 'credentials_rejected'],
  ['503', { status: 503, body: {} }, 'transient'],
  ['422', { status: 422, body: {} }, 'invalid_data'],
])('Greenhouse: %s → %s', async (_name, reply, kind) => {
  oddReply = reply;
  await expect(
    greenhouseConnector.submitApplication(submission({ jobExternalId: '1' }), { board_token: 'b', api_key: 'k' }),
  ).rejects.toMatchObject({ kind });
});

test.each([
  ['401 "API key not found"', 'credentials_rejected', { status: 401, body: { ok: false, error: 'API key not found' } }],
  ['403 without a message', 'credentials_rejected', { status: 403, body: { ok: false } }],
  ['400 "Posting not found"', 'job_not_published', { status: 400, body: { ok: false, error: 'Posting not found' } }],
  ['200 "This posting is closed"', 'job_not_published', { status: 200, body: { ok: false, error: 'This posting is closed' } }],
])('Lever: %s → %s (the key is looked at before the posting)', async (_name, kind, reply) => {
  oddReply = reply;
  process.env.LEVER_API_URL = `${odd.url}/lever`;
  try {
    await expect(leverConnector.submitApplication(submission(), { site: 'odd', api_key: 'odd-key-1' })).rejects.toMatchObject({ kind });
  } finally {
    process.env.LEVER_API_URL = lever.env.LEVER_API_URL;
  }
});

test.each([
  ['an invalid e-mail', 'Invalid attributes: email sammy@example', 'invalid_data', 'Greenhouse answered 200 with an error (email).'],
  ['a refused resume', 'Invalid resume attachment for Sammy McSamson', 'attachment_rejected', 'Greenhouse refused a file (resume).'],
  ['something else', 'Sammy McSamson could not be saved', 'invalid_data', 'Greenhouse answered 200 with an error.'],
])(
  'Greenhouse: a 200 error body naming %s: the kind, and none of the echoed text in the message (P280)',
  async (_name, reason, kind, message) => {
    oddReply = { status: 200, body: { error: 'Failed to save person', reason } };
    const error = await rejection(
      greenhouseConnector.submitApplication(submission({ jobExternalId: '1' }), { board_token: 'b', api_key: 'k' }),
    );
    expect({ kind: error.kind, message: error.message }).toEqual({ kind, message });
  },
);

test('Greenhouse: a resume it does not accept is attachment_rejected (P210) before the application is sent', async () => {
  // The job read (P280) answers a job without questions; no application POST follows.
  oddReply = { status: 200, body: { id: 1, title: 'Job', questions: [] } };
  const before = odd.requests.filter((r) => r.method === 'POST').length;
  await expect(
    greenhouseConnector.submitApplication(submission({ jobExternalId: '1' }, [{ name: 'cv.png' }]), { board_token: 'b', api_key: 'k' }),
  ).rejects.toMatchObject({ kind: 'attachment_rejected', name: 'AttachmentRejectedError' });
  expect(odd.requests.filter((r) => r.method === 'POST').length).toBe(before);
});

test('timeouts and network errors are transient', async () => {
  process.env.ATS_TIMEOUT_MS = '100';
  oddReply = { status: 200, body: { success: 'late' }, delayMs: 400 };
  try {
    await expect(
      greenhouseConnector.submitApplication(submission({ jobExternalId: '1' }), { board_token: 'b', api_key: 'k' }),
    ).rejects.toMatchObject({
      kind: 'transient',
      message: 'Greenhouse timed out.',
    });
  } finally {
    delete process.env.ATS_TIMEOUT_MS;
  }
  const saved = process.env.LEVER_API_URL;
  process.env.LEVER_API_URL = 'http://127.0.0.1:9';
  try {
    await expect(leverConnector.listPublishedJobs(company, credentials)).rejects.toMatchObject({ kind: 'transient' });
  } finally {
    process.env.LEVER_API_URL = saved;
  }
});

const personioCredentials = { subdomain: 'edge', personio_company_id: '4711', token: 'papi-edge-token' };

test('Personio: a file above 20 MB is refused before upload; a file type Personio refuses is attachment_rejected (P210)', async () => {
  const before = personio.server.requests.length;
  await expect(
    personioConnector.submitApplication(
      submission({ jobExternalId: '7' }, [{ name: 'big.pdf', size: 20 * 1024 * 1024 + 1 }]),
      personioCredentials,
    ),
  ).rejects.toMatchObject({ kind: 'attachment_rejected' });
  expect(personio.server.requests.length).toBe(before);
  await expect(
    personioConnector.submitApplication(submission({ jobExternalId: '7' }, [{ name: 'tool.exe' }]), personioCredentials),
  ).rejects.toMatchObject({
    kind: 'attachment_rejected',
  });
  expect(personio.applications).toHaveLength(0);
});

test('Personio: a one-word name goes as both names; the application without files has no files field, and its date is the day it was made (P282)', async () => {
  await personioConnector.submitApplication(
    submission({ jobExternalId: '7', candidate: { email: 'cher@example.com', full_name: 'Cher' } }),
    personioCredentials,
  );
  expect(personio.applications.pop()!.body).toEqual({
    first_name: 'Cher',
    last_name: 'Cher',
    email: 'cher@example.com',
    job_position_id: 7,
    application_date: '2026-01-01',
  });
});

test('Personio: a credentials check that meets something other than the Recruiting API is not taken for proof', async () => {
  const saved = process.env.PERSONIO_API_URL;
  process.env.PERSONIO_API_URL = `${personio.server.url}/not-the-api`;
  try {
    await expect(personioConnector.validateCredentials(personioCredentials, company)).rejects.toMatchObject({ kind: 'invalid_data' });
  } finally {
    process.env.PERSONIO_API_URL = saved;
  }
  await expect(personioConnector.validateCredentials(personioCredentials, company)).resolves.toBeUndefined();
});

test('Lever: postings are paged with skip/limit until a short page', async () => {
  lever.sites.set('paged', {
    site: 'paged',
    apiKey: 'lever-paged-key',
    postings: [1, 2, 3, 4, 5].map((n) => ({ id: `p-${n}`, text: `Job ${n}`, description: 'x' })),
  });
  process.env.LEVER_PAGE_SIZE = '2';
  const before = lever.server.requests.length;
  try {
    const jobs = await leverConnector.listPublishedJobs(company, { site: 'paged', api_key: 'lever-paged-key' });
    expect(jobs!.map((j) => j.external_id)).toEqual(['p-1', 'p-2', 'p-3', 'p-4', 'p-5']);
  } finally {
    delete process.env.LEVER_PAGE_SIZE;
  }
  const pages = lever.server.requests.slice(before).map((r) => [r.query.get('mode'), r.query.get('skip'), r.query.get('limit')]);
  expect(pages).toEqual([
    ['json', '0', '2'],
    ['json', '2', '2'],
    ['json', '4', '2'],
  ]);
});
