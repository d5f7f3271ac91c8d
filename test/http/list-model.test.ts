/**
 * The applications list against a model. Issue 11 answers a list from many sources (slot partitions,
 * counters folded onto company and job items, complements, date ranges, key-only skips, cursors); this test
 * checks that whichever source a query takes, the answer is the spec's: exactly the company's matching
 * applications, newest created first (ties by id, newest first), the right `count`, and pages that walk
 * them all once. The data comes through the service's own paths: creates at scattered times (ids out
 * of created order; the HTTP create's own function, `createApplication`, under the clock of each: the HTTP
 * layer is not what this test is about), a batch seeded with equal timestamps, worker syncs that move
 * `sync_status` and `updated_at`, filter values beyond the counters' fold limit, and a sibling company with
 * the same values. The model is plain code over what was sent and read back through GET; it shares nothing
 * with the service's planner. The queries are the runs fast-check generates for the seed (`runsOf`), sent a
 * few at a time, since each only reads. Each run draws its own seed (the data set and the queries); a failure
 * prints it with the run and its path to replay (`LIST_MODEL_SEED=<seed> npx jest test/http/list-model`).
 * `npm test` runs a third of the data set and of the queries (140 applications, 100 queries, 40 walks; they
 * still find every bug of P294's list); `npm run test:deep` the whole (`LIST_MODEL_SCALE=3`, the fixed seed).
 */
import fc from 'fast-check';
import { createApplication, newApplicationRecord, parseApplication, seedApplications } from '#applications/application-create.js';
import { getCompanyRecord } from '#companies/company-store.js';
import type { ApplicationRecord } from '#applications/applications.js';
import { APPLICATION_FILTER_DECLARATIONS } from '#applications/application-filters.js';
import { syncApplication } from '#delivery/sync.js';
import type { JobRecord } from '#jobs/job-schema.js';
import { runWithClock } from '#platform/clock.js';
import { nextId } from '#platform/ids.js';
import { acceptClockHeader } from '../../local/http-adapter.js';
import { aCompany, aPartner, withJobs } from '../helpers/fixtures.js';
import { startTestRuntime, type TestResponse, type TestRuntime } from '../helpers/runtime.js';

/** The seed of the data set and the queries: `LIST_MODEL_SEED` (or `MODEL_SEED`), else a new one each run (P294). */
const SEED = Number(process.env.LIST_MODEL_SEED ?? process.env.MODEL_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** `LIST_MODEL_SCALE=3`: three times the data set and the queries (`npm run test:deep`, as before P294). */
const SCALE = Number(process.env.LIST_MODEL_SCALE ?? 1);
/** `MODEL_RUNS=10` runs ten times the queries (a longer search than `npm test`'s). */
const RUNS = SCALE * Number(process.env.MODEL_RUNS ?? 1);
const DAY = 24 * 3600 * 1000;
/**
 * Requests in flight at once: the model's reads and the queries, which change nothing. Two, not more: the
 * run's one DynamoDB Local answers in turn, and every request queued here delays the other worker's (P246).
 */
const CONCURRENCY = 2;

let api: TestRuntime;
let partner: Awaited<ReturnType<typeof aPartner>>;
let company: Awaited<ReturnType<typeof aCompany>>;
let sibling: Awaited<ReturnType<typeof aCompany>>;

/** What a filter can match on, as sent and as read back. */
interface Modelled {
  id: number;
  email: string;
  job: number;
  channel: string | null;
  partner_application_id: string | null;
  partner_job_id: string | null;
  partner_company_id: string | null;
  agency_job_id: string | null;
  sync_status: string;
  applied_at: string;
  created_at: string;
  updated_at: string;
}
let model: Modelled[] = [];
let jobIds: number[] = [];

// Value pools: few enough that filters match several records, more channel and partner company values than
// the company counter folds (16), so some totals live on items of their own (P160).
const CHANNELS = [
  'web',
  'Referral',
  'referral',
  'job fair',
  'LinkedIn',
  'xing',
  'indeed',
  'stepstone',
  'campus',
  'agency-x',
  'newsletter',
  'events',
];
const PARTNER_COMPANY_IDS = ['PC-1', 'PC-2', 'PC-3', 'PC-4', 'PC-5', 'PC-6', 'PC-7', 'PC-8'];
const PARTNER_JOB_IDS = ['PJ-a', 'PJ-b', 'PJ-c', 'PJ-d'];
const AGENCY_JOB_IDS = ['AJ-x', 'AJ-y', 'AJ-z'];
const EMAILS = Array.from({ length: 24 }, (_, i) => (i % 6 === 5 ? `cand${i}+duplicate@example.com` : `cand${i}@example.com`));
const APPLIED = ['2025-03-01T08:00:00.000Z', '2025-11-30T23:59:59.999Z', '2026-06-15T12:00:00.000Z', '2026-09-01T00:00:00.000Z'];

/** A small deterministic generator for the data set (fast-check drives the queries). */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    pick: <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)],
    maybe: <T>(values: readonly T[], share = 0.7): T | null => (next() < share ? values[Math.floor(next() * values.length)] : null),
    chance: (share: number) => next() < share,
    int: (max: number) => Math.floor(next() * max),
  };
}

/** The e-mail filter compares case-insensitively (P22): some are sent with capitals. */
const sentEmail = (email: string, r: ReturnType<typeof random>) =>
  r.chance(0.3) ? email.replace(/^c/, 'C').replace('example', 'Example') : email;

function body(r: ReturnType<typeof random>) {
  return {
    job: r.pick(jobIds),
    candidate: { email: sentEmail(r.pick(EMAILS), r), full_name: 'Model Candidate' },
    // One channel and one partner company id dominate, so that combined filters can each match most records.
    channel: r.chance(0.5) ? 'web' : r.maybe(CHANNELS),
    partner_application_id: r.maybe(
      Array.from({ length: 60 }, (_, i) => `PA-${i}`),
      0.8,
    ),
    partner_job_id: r.maybe(PARTNER_JOB_IDS, 0.6),
    partner_company_id: r.chance(0.5) ? 'PC-1' : r.maybe(PARTNER_COMPANY_IDS, 0.6),
    agency_job_id: r.maybe(AGENCY_JOB_IDS, 0.4),
    applied_at: r.maybe(APPLIED, 0.5),
  };
}
const withoutNulls = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null));

/** `work` over every item, `CONCURRENCY` at a time; the results by item. The first failure is thrown, naming its item. */
async function inPool<T, R>(items: T[], work: (item: T, index: number) => Promise<R>): Promise<Map<T, R>> {
  const results = new Map<T, R>();
  let next = 0;
  let failure: Error | undefined;
  const worker = async () => {
    while (!failure && next < items.length) {
      const index = next++;
      try {
        results.set(items[index], await work(items[index], index));
      } catch (error) {
        failure ??= error as Error;
        failure.message = `LIST_MODEL_SEED=${SEED}, run ${index} (${JSON.stringify(items[index])}): ${failure.message}`;
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  if (failure) throw failure;
  return results;
}

/**
 * The runs fast-check generates for `arbitrary` with this seed: exactly what `fc.assert` hands a property
 * (it is what collects them). `endOnFailure` meant no shrinking before either, so a run fails as it would
 * have, and its seed and index name it.
 */
async function runsOf<T extends unknown[]>(
  arbitraries: { [K in keyof T]: fc.Arbitrary<T[K]> },
  seed: number,
  numRuns: number,
): Promise<T[]> {
  const runs: T[] = [];
  const record = async (...run: T) => {
    runs.push(run);
  };
  // The same call the properties made: `fc.asyncProperty(...arbitraries, predicate)` with the same seed.
  await fc.assert((fc.asyncProperty as unknown as (...args: unknown[]) => fc.IAsyncProperty<T>)(...arbitraries, record), { seed, numRuns });
  return runs;
}

beforeAll(async () => {
  acceptClockHeader();
  api = await startTestRuntime();
  // An agency: its applications carry `agency` (its own id) as well as `partner`.
  partner = await aPartner('Model agency', 'agency');
  company = await aCompany(partner.id);
  sibling = await aCompany(partner.id);
  await withJobs(company.id, [
    { external_id: 'M-1', title: 'One' },
    { external_id: 'M-2', title: 'Two' },
    { external_id: 'M-3', title: 'Three' },
    // The sandbox answers JobNotPublishedError for `closed-` jobs: EXPECTED_FAILURE.
    { external_id: 'closed-M-4', title: 'Four' },
  ]);
  await withJobs(sibling.id, [{ external_id: 'S-1', title: 'Sibling' }]);
  const jobs = await api.get('/jobs?page_size=50', { key: partner.key, companyId: company.id });
  jobIds = jobs.body.results.map((j: { id: number }) => j.id);
  const siblingJob = (await api.get('/jobs', { key: partner.key, companyId: sibling.id })).body.results[0].id;

  const r = random(SEED);
  const sent = new Map<number, ReturnType<typeof body>>();
  const created: number[] = [];
  const start = Date.now() - 90 * DAY;
  // Creates at scattered times, `CONCURRENCY` at a time (P335): ids are not in created order. The data set is
  // drawn first, in order, so that a seed names it whatever order the creates end in.
  const companyRecord = (await getCompanyRecord(company.id))!;
  const creates = Array.from({ length: 30 * SCALE }, () => ({ input: body(r), at: new Date(start + r.int(80 * DAY)) }));
  const made = await inPool(creates, ({ input, at }) =>
    runWithClock(at, () => createApplication(companyRecord, partner.id, parseApplication(withoutNulls(input), []).input, [])),
  );
  for (const create of creates) {
    const { record } = made.get(create)!;
    sent.set(record.id, create.input);
    created.push(record.id);
  }
  // Most of the company through the batched seeding path (`bench:scale`'s), at 40 instants between the
  // creates: ties, ordered by id. Enough records that reads and counts take several pages.
  const records: ApplicationRecord[] = [];
  for (let i = 0; i < 110 * SCALE; i++) {
    const input = body(r);
    const id = await nextId('application');
    records.push(
      newApplicationRecord({
        id,
        company: company.id,
        partner: { id: partner.id, kind: 'agency' },
        job: { id: input.job } as JobRecord,
        channel: undefined,
        input: parseApplication(withoutNulls(input), []).input,
        timestamp: new Date(start + (i % 40) * 2 * DAY + 3_600_000).toISOString(),
        syncDue: false,
      }),
    );
    sent.set(id, input);
  }
  await seedApplications(records);
  // The sibling company: the same values, never in this company's lists.
  const siblingRecord = (await getCompanyRecord(sibling.id))!;
  const siblings = Array.from({ length: 8 }, () => ({ ...body(r), job: siblingJob }));
  await inPool(siblings, (input) => createApplication(siblingRecord, partner.id, parseApplication(withoutNulls(input), []).input, []));
  // The worker syncs about half of the HTTP creates, later: SUCCESS or EXPECTED_FAILURE, and a new updated_at.
  const syncs: { id: number; at: Date }[] = [];
  for (const id of created) if (r.chance(0.5)) syncs.push({ id, at: new Date(Date.now() - r.int(5 * DAY)) });
  await inPool(syncs, ({ id, at }) => runWithClock(at, () => syncApplication(id)));

  // The model: what was sent, with what the service assigned (times, status) read back through GET.
  model = [];
  const read = await inPool([...sent.keys()], (id) => api.get(`/applications/${id}`, { key: partner.key, companyId: company.id }));
  for (const [id, input] of sent) {
    const res = read.get(id)!;
    expect(res.status).toBe(200);
    const a = res.body;
    expect([a.candidate.email, a.job, a.channel, a.partner_application_id]).toEqual([
      input.candidate.email,
      input.job,
      input.channel,
      input.partner_application_id,
    ]);
    expect([a.partner_job_id, a.partner_company_id, a.agency_job_id]).toEqual([
      input.partner_job_id,
      input.partner_company_id,
      input.agency_job_id,
    ]);
    if (input.applied_at) expect(a.applied_at).toBe(input.applied_at);
    model.push({
      id,
      email: input.candidate.email,
      job: input.job,
      channel: input.channel,
      partner_application_id: input.partner_application_id,
      partner_job_id: input.partner_job_id,
      partner_company_id: input.partner_company_id,
      agency_job_id: input.agency_job_id,
      sync_status: a.sync_status,
      applied_at: a.applied_at,
      created_at: a.created_at,
      updated_at: a.updated_at,
    });
  }
  // Newest created first, ties by id, newest first.
  model.sort((a, b) => (a.created_at === b.created_at ? b.id - a.id : a.created_at < b.created_at ? 1 : -1));
  // The data set exercises what it should (the seed named, to replay a data set that does not).
  const statuses = new Set(model.map((m) => m.sync_status));
  expect([SEED, [...statuses].sort()]).toEqual([SEED, ['EXPECTED_FAILURE', 'NOTSENT', 'SUCCESS']]);
  expect([SEED, new Set(model.map((m) => m.channel)).size + new Set(model.map((m) => m.partner_company_id)).size > 18]).toEqual([
    SEED,
    true,
  ]);
  expect([SEED, new Set(model.map((m) => m.created_at)).size < model.length]).toEqual([SEED, true]);
}, 600_000);
afterAll(async () => {
  acceptClockHeader(false);
  await api.stop();
});

type Query = Partial<Record<string, string>>;

/** A date bound: the D7 timestamp or its date (start of that day, UTC), as the filters take them. */
const asTime = (bound: string) => (bound.length === 10 ? `${bound}T00:00:00.000Z` : new Date(bound).toISOString());

type FilterName = (typeof APPLICATION_FILTER_DECLARATIONS)[number]['name'];

/** Each declared filter's value on a modelled application (every declared filter needs one: the type says so). */
const modelValue: Record<FilterName, (m: Modelled) => string | number | null> = {
  email: (m) => m.email,
  partner_application_id: (m) => m.partner_application_id,
  partner_job_id: (m) => m.partner_job_id,
  partner_company_id: (m) => m.partner_company_id,
  partner: () => partner.id,
  agency: () => partner.id,
  agency_job_id: (m) => m.agency_job_id,
  channel: (m) => m.channel,
  job: (m) => m.job,
  sync_status: (m) => m.sync_status,
  applied_at: (m) => m.applied_at,
  created_at: (m) => m.created_at,
  updated_at: (m) => m.updated_at,
};

/** The model of the filters, from their declarations (issue 22, item 3): each by its kind. */
function matches(m: Modelled, q: Query): boolean {
  return APPLICATION_FILTER_DECLARATIONS.every(({ name, kind }) => {
    const wanted = q[name];
    if (wanted === undefined) return true;
    const actual = modelValue[name](m);
    if (actual === null) return false;
    if (kind === 'gte') return String(actual) >= asTime(wanted);
    // `exact`: equal; the e-mail address case-insensitively (`#platform/filters.ts`).
    return name === 'email' ? wanted.toLowerCase() === String(actual).toLowerCase() : wanted === String(actual);
  });
}

function queryArbitrary() {
  const dates = (field: 'applied_at' | 'created_at' | 'updated_at') =>
    fc.oneof(
      fc.constantFrom(...model.map((m) => m[field])),
      fc.constantFrom(...model.map((m) => m[field].slice(0, 10))),
      fc.constantFrom('2020-01-01', '2030-01-01'),
    );
  const exact = <T>(values: readonly T[], miss: string) =>
    fc.oneof({ arbitrary: fc.constantFrom(...values).map(String), weight: 5 }, fc.constant(miss));
  const values: Record<FilterName, fc.Arbitrary<string>> = {
    email: fc.oneof(
      fc.constantFrom(...EMAILS),
      fc.constantFrom(...EMAILS).map((e) => e.toUpperCase()),
      fc.constant('nobody@example.com'),
    ),
    partner_application_id: exact(
      model.map((m) => m.partner_application_id).filter((v) => v !== null),
      'PA-none',
    ),
    partner_job_id: exact(PARTNER_JOB_IDS, 'PJ-none'),
    partner_company_id: exact(PARTNER_COMPANY_IDS, 'PC-none'),
    agency_job_id: exact(AGENCY_JOB_IDS, 'AJ-none'),
    channel: exact(CHANNELS, 'Web'),
    job: exact(jobIds, String(Math.max(...jobIds) + 1000)),
    sync_status: fc.constantFrom('SUCCESS', 'EXPECTED_FAILURE', 'NOTSENT', 'FAILURE', 'SUCCESS_FALLBACK'),
    partner: exact([partner.id], String(partner.id + 1)),
    agency: exact([partner.id], String(partner.id + 1)),
    applied_at: dates('applied_at'),
    created_at: dates('created_at'),
    updated_at: dates('updated_at'),
  };
  // Broad values of the filters whose complements can be counted (P177): each matches most records.
  const broad: Record<string, fc.Arbitrary<string>> = {
    partner: values.partner,
    agency: values.agency,
    sync_status: fc.constantFrom('NOTSENT', 'NOTSENT', 'SUCCESS'),
    channel: fc.constantFrom('web', 'web', 'referral'),
    partner_company_id: fc.constantFrom('PC-1', 'PC-1', 'PC-2'),
  };
  const someOf = (arbitraries: Record<string, fc.Arbitrary<string>>, size: { minLength?: number; maxLength?: number }) =>
    fc
      .subarray(Object.keys(arbitraries), size)
      .chain((chosen) =>
        fc.tuple(...chosen.map((name) => arbitraries[name])).map((vs) => Object.fromEntries(chosen.map((name, i) => [name, vs[i]]))),
      );
  // Mostly one to three filters (several at once rarely match anything), sometimes any number, and
  // combinations of broad ones.
  const filters = fc.oneof(
    { arbitrary: someOf(values, { minLength: 1, maxLength: 3 }), weight: 4 },
    { arbitrary: someOf(values, {}), weight: 1 },
    { arbitrary: someOf(broad, { minLength: 2 }), weight: 2 },
  );
  return fc.record({
    filters,
    pageSize: fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }),
    page: fc.option(fc.integer({ min: 1, max: 14 }), { nil: undefined }),
  });
}

const path = (filters: Query, extra: Record<string, number | undefined>) => {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) params.set(name, value!);
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) params.set(name, String(value));
  return `/applications/?${params}`;
};
const get = (url: string): Promise<TestResponse> => api.get(url.replace(api.url, ''), { key: partner.key, companyId: company.id });
const ids = (res: TestResponse) => res.body.results.map((a: { id: number }) => a.id);

test('every query answers as the model does: the page, its count, next and previous', async () => {
  const runs = await runsOf([queryArbitrary()], SEED, 100 * RUNS);
  expect(runs).toHaveLength(100 * RUNS);
  await inPool(runs, async ([{ filters, pageSize, page }]) => {
    const expected = model.filter((m) => matches(m, filters)).map((m) => m.id);
    const size = pageSize ?? 10;
    const n = page ?? 1;
    const res = await get(path(filters, { page_size: pageSize, page }));
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(expected.length);
    expect(ids(res)).toEqual(expected.slice((n - 1) * size, n * size));
    expect(res.body.next === null).toBe(n * size >= expected.length);
    if (n === 1) expect(res.body.previous).toBeNull();
    else {
      // `previous` names the page before, with the same filters and size; past the end, the last page (P13).
      const before = await get(res.body.previous);
      const p = Math.min(n - 1, Math.max(1, Math.ceil(expected.length / size)));
      expect(before.body.count).toBe(expected.length);
      expect(ids(before)).toEqual(expected.slice((p - 1) * size, p * size));
    }
  });
}, 300_000); // 300 queries

test('walking next from any page reads every later match once, in order, with the same count', async () => {
  const runs = await runsOf([queryArbitrary(), fc.integer({ min: 4, max: 50 })], SEED + 1, 40 * RUNS);
  expect(runs).toHaveLength(40 * RUNS);
  await inPool(runs, async ([{ filters, page }, size]) => {
    const expected = model.filter((m) => matches(m, filters)).map((m) => m.id);
    const from = Math.min(page ?? 1, Math.max(1, Math.ceil(expected.length / size)));
    const seen: number[] = [];
    let url: string | null = path(filters, { page_size: size, page: from });
    while (url) {
      const res: TestResponse = await get(url);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(expected.length);
      seen.push(...ids(res));
      url = res.body.next;
      expect(seen.length).toBeLessThanOrEqual(expected.length);
    }
    expect(seen).toEqual(expected.slice((from - 1) * size));
  });
}, 400_000);
