/**
 * Lists that cost the page, not the company (issue 11), asserted from `X-DynamoDB-Capacity`: two companies
 * of the same shape, one ten times the other, made through the service's own create path. Ten applications
 * of each are "rare" (their own channel, partner ids, job, e-mail; synced to EXPECTED_FAILURE by the worker
 * logic; applied recently), created first so that they sit at the far end of the company's collection. The
 * rare ones are made by the create itself, the rest by the batched seeding path that writes the same items. A
 * filter for them must cost the same in both companies and stay within the budgets of the issue. `npm test`
 * compares 50 and 500 applications (a scan of 500 would cost ~250 units, 25 times every budget here; the
 * rare ten stay under a quarter of the smaller company, below which a date range is read as a range);
 * `npm run test:deep` 200 and 2,000 (`LIST_CAPACITY_SIZE=2000`), and `npm run bench:scale` measures the same
 * requests at 200 and 2,000 and at 1,000 to 100,000 (P294).
 */
import { DeleteCommand, GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createApplication, newApplicationRecord, parseApplication, seedApplications } from '#applications/application-create.js';
import { FOLD_LIMIT, jobCounterKey } from '#applications/application-counters.js';
import type { JobRecord } from '#jobs/job-schema.js';
import { forgetIdBlocks, nextId } from '#platform/ids.js';
import { forgetCachedCompany } from '#companies/api-keys.js';
import { compareCompanies, matchesCompany, parseCompanyFilter } from '#companies/company-list.js';
import { createCompany, getCompanyRecord, setCompanyStatus, writeCompanyChange } from '#companies/company-store.js';
import { seedCompanies } from '#companies/company-seeding.js';
import type { Company } from '#companies/company-schema.js';
import { syncApplication } from '#delivery/sync.js';
import { config, db } from '#platform/clients.js';
import { indexKeys } from '#platform/keys.js';
import { aCompany, aPartner, withJobs } from '../helpers/fixtures.js';
import { unitsToReadOnce } from '../../bench/read-once.js';
import { startTestRuntime, type TestResponse, type TestRuntime } from '../helpers/runtime.js';

/** The bigger company's applications (P294): 500 in `npm test`, `LIST_CAPACITY_SIZE=2000` in `npm run test:deep`. */
const BIG = Number(process.env.LIST_CAPACITY_SIZE ?? 500);
const SMALL = BIG / 10;
const RARE = 10;

let api: TestRuntime;
let partner: Awaited<ReturnType<typeof aPartner>>;
interface Shop {
  id: number;
  size: number;
  rareJob: number;
  rareIds: number[];
  allIds: number[];
  /** Application id by the number in its partner_application_id (`PA-<n>`). */
  paIds: number[];
}
const shops: Record<'small' | 'big', Shop> = {} as never;
let since: string;

async function pool<T>(count: number, width: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await work(i);
      }
    }),
  );
  return out;
}

async function aShop(size: number): Promise<Shop> {
  const company = await aCompany(partner.id);
  // Jobs: ten rare in every job filter, and a tenth of the applications common.
  const jobs = await withJobs(company.id, [
    { external_id: 'rare', title: 'Rare job' },
    { external_id: 'common', title: 'Common job' },
    ...Array.from({ length: RARE + size / 10 }, (_, i) => ({
      external_id: `job-${i}`,
      title: i < RARE ? `Unicorn wrangler ${i}` : `Software engineer ${i}`,
      city: i < RARE ? 'Rareville' : 'Berlin',
      remote: i < RARE ? 'hybrid' : 'remote',
      language: i < RARE ? 'fr' : 'de',
      country: i < RARE ? 'FR' : 'DE',
      description: 'What the role is and what it takes. '.repeat(40),
    })),
  ]);
  void jobs;
  const record = (await getCompanyRecord(company.id))!;
  const jobId = async (externalId: string) =>
    (await api.get(`/jobs?external_id=${externalId}`, { key: partner.key, companyId: company.id })).body.results[0].id as number;
  const rareJob = await jobId('rare');
  const commonJob = await jobId('common');
  const fields = (i: number) => {
    const rare = i < RARE;
    const tag = rare ? 'rare' : 'common';
    return {
      job: rare ? rareJob : commonJob,
      candidate: { email: rare ? `rare+duplicate${i}@example.com` : `c${i}@example.com`, full_name: `Candidate ${i}` },
      channel: tag,
      partner_job_id: `PJ-${tag}`,
      partner_company_id: `PC-${tag}`,
      agency_job_id: `AJ-${tag}`,
      partner_application_id: `PA-${i}`,
      ...(rare ? {} : { applied_at: '2025-01-01T00:00:00Z' }),
      notes: 'Some notes that make the item a realistic size. '.repeat(8),
    };
  };
  // The rare ten go through the create itself (its transaction moves their counters); the rest, written
  // after them, through the batched seeding path, which writes the same items and counters.
  const rare = await pool(RARE, 4, async (i) => {
    const { input, attachments } = parseApplication(fields(i), []);
    const created = await createApplication(record, partner.id, input, attachments);
    return { id: created.record.id, createdAt: created.record.created_at, rare: true };
  });
  const common: { id: number; createdAt: string; rare: boolean }[] = [];
  // All of them one millisecond after the last rare one (ties are ordered by id), so before `since`.
  const after = new Date(Math.max(...rare.map((r) => Date.parse(r.createdAt))) + 1).toISOString();
  for (let offset = RARE; offset < size; offset += 500) {
    const records = [];
    for (let i = offset; i < Math.min(size, offset + 500); i++) {
      const input = parseApplication(fields(i), []).input;
      const r = newApplicationRecord({
        id: await nextId('application'),
        company: company.id,
        partner: { id: partner.id, kind: 'job_board' },
        job: { id: commonJob } as JobRecord,
        channel: undefined,
        input,
        timestamp: after,
        syncDue: false,
      });
      records.push(r);
      common.push({ id: r.id, createdAt: r.created_at, rare: false });
    }
    await seedApplications(records);
  }
  const ids = [...rare, ...common];
  // List order: newest created first, ties by id.
  const ordered = [...ids].sort((a, b) => (a.createdAt === b.createdAt ? b.id - a.id : a.createdAt < b.createdAt ? 1 : -1));
  return {
    id: company.id,
    size,
    rareJob,
    rareIds: ordered.filter((a) => a.rare).map((a) => a.id),
    allIds: ordered.map((a) => a.id),
    paIds: ids.map((a) => a.id),
  };
}

/** An application of `partner` for the batched seeding path (`seedApplications`), made from create fields. */
async function seedRecord(companyId: number, job: number, fields: Record<string, unknown>) {
  return newApplicationRecord({
    id: await nextId('application'),
    company: companyId,
    partner: { id: partner.id },
    job: { id: job } as JobRecord,
    channel: undefined,
    input: parseApplication(fields, []).input,
    timestamp: new Date().toISOString(),
    syncDue: false,
  });
}

beforeAll(async () => {
  api = await startTestRuntime();
  partner = await aPartner();
  shops.small = await aShop(SMALL);
  shops.big = await aShop(BIG);
  since = new Date().toISOString();
  // The worker's own logic moves the rare ones to EXPECTED_FAILURE (the sandbox's duplicate), which also moves
  // their updated_at past `since`.
  for (const shop of Object.values(shops)) for (const id of shop.rareIds) await syncApplication(id);
}, 240_000);
afterAll(() => api.stop());

function cost(res: TestResponse): { units: number; calls: number; read: number; write: number } {
  const header = res.headers.get('x-dynamodb-capacity') ?? '';
  const match = /units=([\d.]+); calls=(\d+); read=([\d.]+); write=([\d.]+)/.exec(header);
  if (!match) throw new Error(`no capacity header: ${header}`);
  return { units: Number(match[1]), calls: Number(match[2]), read: Number(match[3]), write: Number(match[4]) };
}

/** The request's DynamoDB calls made one after another (issue 22: a request's time). */
function sequential(res: TestResponse): number {
  const match = /sequential=(\d+)/.exec(res.headers.get('x-dynamodb-capacity') ?? '');
  if (!match) throw new Error('no sequential calls in the capacity header');
  return Number(match[1]);
}

// Measured warm: the same request once before, so the per-instance caches in front of every list (the D3
// company check, 10 s; the read-time copies, 60 s) are filled and only the list's own reads are counted. An
// entry the warm-up still found can expire just before the measured request (a slow beforeAll put the big
// company's check ~10 s back), so the company check is refilled first and the cheaper of two measured
// requests is the warm cost: a cache can only add reads, never remove the list's own.
async function warmCost(get: () => Promise<TestResponse>): Promise<TestResponse> {
  await get();
  const [first, second] = [await get(), await get()];
  return cost(second).units < cost(first).units ? second : first;
}
const list = async (shop: Shop, query: string) => {
  forgetCachedCompany(shop.id);
  return warmCost(() => api.get(`/applications/?${query}`, { key: partner.key, companyId: shop.id }));
};
const ids = (res: TestResponse) => res.body.results.map((a: { id: number }) => a.id);

describe('one exact filter: a first page of 10 matches costs ≤ 10 units and ≤ 3 sequential calls, the same at ten times the size', () => {
  const cases: [string, (shop: Shop) => string, (shop: Shop) => number[]][] = [
    ['channel', () => 'channel=rare', (s) => s.rareIds],
    ['partner_job_id', () => 'partner_job_id=PJ-rare', (s) => s.rareIds],
    ['partner_company_id', () => 'partner_company_id=PC-rare', (s) => s.rareIds],
    ['agency_job_id', () => 'agency_job_id=AJ-rare', (s) => s.rareIds],
    ['partner_application_id', () => 'partner_application_id=PA-3', (s) => [s.paIds[3]]],
    ['job', (s) => `job=${s.rareJob}`, (s) => s.rareIds],
    ['email', () => `email=${encodeURIComponent('rare+duplicate4@example.com')}`, (s) => [s.paIds[4]]],
    ['sync_status', () => 'sync_status=EXPECTED_FAILURE', (s) => s.rareIds],
  ];
  test.each(cases)('%s', async (_name, query, expected) => {
    const small = await list(shops.small, query(shops.small));
    const big = await list(shops.big, query(shops.big));
    for (const [res, shop] of [
      [small, shops.small],
      [big, shops.big],
    ] as const) {
      expect(res.status).toBe(200);
      expect(ids(res)).toEqual(expected(shop));
      expect(res.body.count).toBe(expected(shop).length);
    }
    // Issue 42 item 7: ≤ 10 read units at both sizes (P295).
    expect([cost(small).read, cost(big).read].every((read) => read <= 10)).toBe(true);
    expect(cost(big).units).toBeLessThanOrEqual(10);
    expect(cost(big)).toEqual(cost(small));
    expect(sequential(big)).toBeLessThanOrEqual(3);
  });

  // The page's keys end within the page, so they are the count: neither the range nor the partition is counted
  // (P295; before, two counts beside the page's keys, 1.5 units in 4 calls).
  test('email: the page’s keys from the D10 cutoff are its count, then its one item', async () => {
    const res = await list(shops.big, `email=${encodeURIComponent('rare+duplicate4@example.com')}`);
    expect(cost(res)).toEqual({ units: 1, calls: 2, read: 1, write: 0 });
  });
});

test.each(['channel=common', 'partner_job_id=PJ-common', 'agency_job_id=AJ-common'])(
  'the total of a single exact filter comes from counters (%s): a filter matching most records costs its page',
  async (filter) => {
    const res = await list(shops.big, `${filter}&page_size=10`);
    expect(res.body.count).toBe(BIG - RARE);
    expect(ids(res)).toEqual(shops.big.allIds.slice(0, 10));
    const small = await list(shops.small, `${filter}&page_size=10`);
    expect(cost(res)).toEqual(cost(small));
    expect(cost(res).units).toBeLessThanOrEqual(10);
    // The total alone (the first page's cost above the next page's): ≤ 2 units (target 3). A job value's
    // total is its own counter item and the counter item of the one job it was sent for (P181).
    const next = await api.get(res.body.next.replace(api.url, ''), { key: partner.key, companyId: shops.big.id });
    expect(next.body.count).toBe(BIG - RARE);
    expect(cost(res).units - cost(next).units).toBeLessThanOrEqual(2);
  },
);

test('combined filters read at most the matches of the most selective one', async () => {
  for (const query of ['channel=rare&sync_status=EXPECTED_FAILURE', 'sync_status=EXPECTED_FAILURE&partner_job_id=PJ-rare&channel=rare']) {
    const small = await list(shops.small, query);
    const big = await list(shops.big, query);
    expect(ids(big)).toEqual(shops.big.rareIds);
    expect(big.body.count).toBe(RARE);
    expect(cost(big).units).toBeLessThanOrEqual(12);
    expect(cost(big)).toEqual(cost(small));
  }
  // A common filter combined with a unique one costs the unique one's match.
  const res = await list(shops.big, 'channel=common&partner_application_id=PA-15');
  expect(ids(res)).toEqual([shops.big.paIds[15]]);
  expect(cost(res).units).toBeLessThanOrEqual(3);
  // Nothing matches both: an empty, cheap answer.
  const none = await list(shops.big, 'channel=rare&partner_job_id=PJ-common');
  expect(none.body).toMatchObject({ count: 0, results: [] });
  expect(cost(none).units).toBeLessThanOrEqual(8);
});

test('combined filters that each match most records count from their complements: the page, at any size; next pages carry it', async () => {
  const query = 'channel=common&sync_status=NOTSENT&partner_company_id=PC-common&page_size=10';
  const first = await list(shops.big, query);
  expect(first.body.count).toBe(BIG - RARE);
  expect(ids(first)).toEqual(shops.big.allIds.slice(0, 10));
  // The counters, the keys of the records outside each filter (channel=rare, the other statuses,
  // PC-rare: ten each), then the page: the same in a company ten times the size (P177). Reading the three
  // filters' keys instead costs ~1.4 units per 100 each (~90 units here, ~4,300 at 100,000).
  const small = await list(shops.small, query);
  expect(small.body.count).toBe(SMALL - RARE);
  expect(ids(small)).toEqual(shops.small.allIds.slice(0, 10));
  expect(cost(first)).toEqual(cost(small));
  expect(cost(first).units).toBeLessThanOrEqual(12);
  const second = await api.get(first.body.next.replace(api.url, ''), { key: partner.key, companyId: shops.big.id });
  expect(second.body.count).toBe(BIG - RARE);
  expect(ids(second)).toEqual(shops.big.allIds.slice(10, 20));
  expect(cost(second).units).toBeLessThanOrEqual(10);
  // A filter without an enumerable complement (a job value) next to a broad few-valued one: counted through
  // the two filters' keys (P161).
  const mixed = await list(shops.big, 'channel=common&partner_job_id=PJ-common&page_size=10');
  expect(mixed.body.count).toBe(BIG - RARE);
  expect(ids(mixed)).toEqual(shops.big.allIds.slice(0, 10));
  expect(cost(mixed).units).toBeLessThanOrEqual(3 * (BIG / 100) * 1.5 + 10);
});

test('date >= filters read only the matching range', async () => {
  for (const query of [`updated_at=${encodeURIComponent(since)}`, 'applied_at=2026-01-01']) {
    const small = await list(shops.small, query);
    const big = await list(shops.big, query);
    expect(ids(big)).toEqual(shops.big.rareIds);
    expect(big.body.count).toBe(RARE);
    expect(cost(big).units).toBeLessThanOrEqual(10);
    // The range's complement is counted a step behind in steps of 100 keys or more (P162): under 100 in the
    // smaller company of `npm test` (40), a first step's 0.5 units more in the bigger; the same from 200 up.
    expect(cost(big).calls).toBe(cost(small).calls);
    expect(cost(big).units - cost(small).units).toBeLessThanOrEqual(SMALL - RARE < 100 ? 0.5 : 0);
  }
});

test('a date >= filter matching most records: counted as keys on page 1, then every next page costs the page', async () => {
  const query = 'applied_at=2024-01-01&page_size=10';
  const pages = async (shop: Shop) => {
    const first = await list(shop, query);
    const second = await api.get(first.body.next.replace(api.url, ''), { key: partner.key, companyId: shop.id });
    return { first, second };
  };
  const small = await pages(shops.small);
  const big = await pages(shops.big);
  expect(big.first.body.count).toBe(BIG);
  expect([...ids(big.first), ...ids(big.second)]).toEqual(shops.big.allIds.slice(0, 20));
  expect(big.second.body.count).toBe(BIG);
  // Page 1 counts the range's keys (~1.3 units per 100 on APPLIED) and reads about the page.
  expect(cost(big.first).units).toBeLessThanOrEqual((BIG / 100) * 1.5 + 10);
  // A next page reads the page (and what the filter passes), the same at ten times the size.
  expect(cost(big.second).units).toBeLessThanOrEqual(10);
  expect(cost(big.second)).toEqual(cost(small.second));
});

test('a broad date count reads the keys before its bound, not its matches: the same at ten times the size', async () => {
  for (const query of ['applied_at=2024-01-01&page_size=10', 'created_at=2020-01-01&page_size=10', 'updated_at=2020-01-01&page_size=10']) {
    const small = await list(shops.small, query);
    const big = await list(shops.big, query);
    expect(big.body.count).toBe(BIG);
    expect(small.body.count).toBe(SMALL);
    expect(ids(big)).toEqual(shops.big.allIds.slice(0, 10));
    // Within a unit of the small company's cost (the page read ahead by the share that matches).
    expect([query, cost(big).units]).toEqual([query, expect.any(Number)]);
    expect(cost(big).units).toBeLessThanOrEqual(cost(small).units + 1);
    expect(cost(big).units).toBeLessThanOrEqual(10);
  }
  // A bound after every record: the matching side ends at once.
  const after = await list(shops.big, `created_at=${encodeURIComponent(new Date(Date.parse(since) - 1).toISOString())}&page_size=10`);
  expect(after.body.count).toBe(0);
});

// Skips read keys only. An unfiltered skip reads COLLECTION's keys, its sort the compact created sort (P235, ~75 bytes
// an entry): the issue's 1 unit per 100 records. A slot's keys carry the same sort and the slot's partition
// value (~95 bytes since P235, ~115 before): ≤ 1.5 per 100.
const SKIP_UNITS_PER_100 = 1;
const SLOT_SKIP_UNITS_PER_100 = 1.5;

test('a bare page=N skips through keys only, whatever the items weigh', async () => {
  // Half-way through the company (page 100 of 2,000), and a quarter of the way under a filter.
  const [half, quarter] = [BIG / 20, Math.floor(BIG / 40)];
  const page1 = await list(shops.big, 'page_size=10');
  const pageN = await list(shops.big, `page=${half}&page_size=10`);
  const skipped = (half - 1) * 10;
  expect(ids(pageN)).toEqual(shops.big.allIds.slice(skipped, skipped + 10));
  // (+ 0.5: the skip's Query rounds its bytes up to the next 4 KB.)
  expect(cost(pageN).units).toBeLessThanOrEqual((skipped / 100) * SKIP_UNITS_PER_100 + cost(page1).units + 0.5);
  // The same filter paged deep: the slot partition is keys only too.
  const filtered1 = await list(shops.big, 'channel=common&page_size=10');
  const deep = await list(shops.big, `channel=common&page=${quarter}&page_size=10`);
  const passed = (quarter - 1) * 10;
  expect(ids(deep)).toEqual(shops.big.allIds.slice(passed, passed + 10));
  expect(cost(deep).units).toBeLessThanOrEqual((passed / 100) * SLOT_SKIP_UNITS_PER_100 + cost(filtered1).units);
});

// Issue 22: walking every page by `next` (at the largest page, 50) costs ≤ 1.1 × reading the matches' items
// once (0.5 units each, every application here being under 4 KB): unfiltered, an exact filter, broad filters
// counted from their complements, and a broad date range.
test.each([
  ['unfiltered', ''],
  ['an exact filter', 'channel=common&'],
  ['broad filters combined', 'channel=common&sync_status=NOTSENT&partner_company_id=PC-common&'],
  ['a broad date range', 'applied_at=2024-01-01&'],
])('walking every page by next costs ≤ 1.1 × reading the items once: %s', async (_name, filter) => {
  const all = await unitsToReadOnce(indexKeys.companyApplications(shops.big.id));
  let walked = 0;
  const seen: number[] = [];
  let url: string | null = `/applications/?${filter}page_size=50`;
  while (url) {
    const res: TestResponse = await api.get(url.replace(api.url, ''), { key: partner.key, companyId: shops.big.id });
    walked += cost(res).units;
    seen.push(...ids(res));
    url = res.body.next;
  }
  const want = filter.startsWith('channel') ? shops.big.allIds.filter((id) => !shops.big.rareIds.includes(id)) : shops.big.allIds;
  expect(seen).toEqual(want);
  expect(all).toBe(0.5 * shops.big.allIds.length);
  expect(walked).toBeLessThanOrEqual(1.1 * 0.5 * want.length);
});

// Issue 42 item 7 (P295): a partner's or agency's job id sent for ten jobs. Its total is the value's own counter
// item plus each job's (P181), ten more reads; its first page's keys end within the page and count it instead.
// (Added to both companies last: the tests above compare their application lists.)
test('a job value sent for ten jobs: 10 matches ≤ 10 read units at both sizes; a smaller page counts them from the counters', async () => {
  const spread: Record<'small' | 'big', number[]> = { small: [], big: [] };
  for (const [name, shop] of Object.entries(shops) as ['small' | 'big', Shop][]) {
    const record = (await getCompanyRecord(shop.id))!;
    const jobs = await api.get('/jobs?title=unicorn&page_size=50', { key: partner.key, companyId: shop.id });
    const jobIds: number[] = jobs.body.results.map((j: { id: number }) => j.id);
    expect(jobIds).toHaveLength(RARE);
    const created = await pool(jobIds.length, 4, async (i) => {
      const fields = {
        job: jobIds[i],
        candidate: { email: `spread${i}@example.com`, full_name: `Spread ${i}` },
        partner_job_id: 'PJ-spread',
        agency_job_id: 'AJ-spread',
      };
      return (await createApplication(record, partner.id, parseApplication(fields, []).input, [])).record;
    });
    // List order: newest created first, ties by id.
    created.sort((a, b) => (a.created_at === b.created_at ? b.id - a.id : a.created_at < b.created_at ? 1 : -1));
    spread[name] = created.map((r) => r.id);
  }
  for (const filter of ['partner_job_id=PJ-spread', 'agency_job_id=AJ-spread']) {
    const small = await list(shops.small, filter);
    const big = await list(shops.big, filter);
    for (const [res, name] of [
      [small, 'small'],
      [big, 'big'],
    ] as const) {
      expect(res.body.count).toBe(RARE);
      expect(ids(res)).toEqual(spread[name]);
      expect(cost(res).read).toBeLessThanOrEqual(10);
      expect(sequential(res)).toBeLessThanOrEqual(3);
    }
    expect(cost(big)).toEqual(cost(small));
    // More matches than the page: the total from the counters, every job's (the value's jobs read after its item).
    const half = await list(shops.big, `${filter}&page_size=5`);
    expect(half.body.count).toBe(RARE);
    expect(ids(half)).toEqual(spread.big.slice(0, 5));
    const rest = await api.get(half.body.next.replace(api.url, ''), { key: partner.key, companyId: shops.big.id });
    expect(ids(rest)).toEqual(spread.big.slice(5));
    expect(rest.body.next).toBeNull();
  }
});

// P259: a first page that reads every match to count (a date range under a quarter of the company, a contains
// filter on the slim projection, an exact filter with another condition) carries the next pages' ids in its
// cursor (and stores the rest, P260), so that those pages read only their items, where each read the range's
// keys (or the projection) again: 1.5× for a fifth of 1,000 applications at 10 a page, 1.2× for the jobs'
// contains walk at 50.
describe('walks whose first page reads every match carry the next pages’ ids (P259)', () => {
  /** Every page by `next` from `path` (warmed first: caches of the company check and the copies): the ids seen, the units paid, and each page's units. */
  async function walk(path: string, companyId: number, afterFirst?: () => Promise<void>) {
    await api.get(path, { key: partner.key, companyId });
    const seen: number[] = [];
    const pages: number[] = [];
    const writes: number[] = [];
    let url: string | null = path;
    while (url) {
      // The company check is cached 10 s: renewed before each page, so that a slow run does not add its read.
      forgetCachedCompany(companyId);
      await api.get('/applications/1', { key: partner.key, companyId });
      const res: TestResponse = await api.get(url.replace(api.url, ''), { key: partner.key, companyId });
      expect(res.status).toBe(200);
      seen.push(...ids(res));
      pages.push(cost(res).units);
      writes.push(cost(res).write);
      url = res.body.next;
      if (pages.length === 1) await afterFirst?.();
    }
    return { seen, units: pages.reduce((a, b) => a + b, 0), pages, writes };
  }

  // The first page counts the range from both sides in doubling steps (P162), keeps the range's keys for its
  // page (P260), carries about 250 ids in its cursor and stores the other 150 in parts of a write unit each.
  // Every later page reads only its items, and one page per part reads that part (1 unit, consistent).
  test('a date range of a fifth of the company, 10 a page: later pages cost their items, the walk ≤ 1.1×', async () => {
    const company = await aCompany(partner.id);
    await withJobs(company.id, [{ external_id: 'j', title: 'Job' }]);
    const job = (await api.get('/jobs?external_id=j', { key: partner.key, companyId: company.id })).body.results[0].id;
    const records = [];
    for (let i = 0; i < 2000; i++) {
      const fields = {
        job,
        candidate: { email: `d${i}@example.com`, full_name: 'D' },
        applied_at: i % 5 ? '2024-01-01T00:00:00Z' : '2026-06-01T00:00:00Z',
      };
      records.push(await seedRecord(company.id, job, fields));
    }
    await seedApplications(records);
    // List order: newest created first (all at one instant here), ties by id.
    const want = records
      .filter((r) => r.applied_at?.startsWith('2026'))
      .sort((a, b) => (a.created_at === b.created_at ? b.id - a.id : a.created_at < b.created_at ? 1 : -1))
      .map((r) => r.id);
    expect(want).toHaveLength(400);
    const { seen, units, pages, writes } = await walk('/applications/?applied_at=2026-01-01&page_size=10', company.id);
    expect(seen).toEqual(want);
    // Each stored part (1–2 write units on the first page) is read once, by the page that begins it (0.5 units).
    const parts = pages.slice(1).filter((u) => u === 5.5).length;
    expect(parts).toBeGreaterThanOrEqual(1);
    expect(writes[0]).toBeGreaterThanOrEqual(parts);
    expect(writes[0]).toBeLessThanOrEqual(2 * parts);
    expect(writes.slice(1).every((w) => w === 0)).toBe(true);
    expect(pages.slice(1).filter((u) => u !== 5.5 && u !== 5)).toEqual([]);
    expect(units).toBeLessThanOrEqual(1.1 * 0.5 * want.length);
    // Parts gone (their TTL passed): the page that needed one reads the range again from where the ids ran out.
    const expire = async () => {
      const TableName = config().tableName;
      let removed = 0;
      let start: Record<string, unknown> | undefined;
      do {
        const filter = { FilterExpression: 'begins_with(PK, :w)', ExpressionAttributeValues: { ':w': 'WALK#' } };
        const out = await db().send(new ScanCommand({ TableName, ...filter, ExclusiveStartKey: start }));
        for (const { PK, SK } of out.Items ?? []) await db().send(new DeleteCommand({ TableName, Key: { PK, SK } }));
        removed += out.Items?.length ?? 0;
        start = out.LastEvaluatedKey;
      } while (start);
      expect(removed).toBeGreaterThanOrEqual(parts);
    };
    const expired = await walk('/applications/?applied_at=2026-01-01&page_size=10', company.id, expire);
    expect(expired.seen).toEqual(want);
    expect(expired.pages.slice(1).filter((u) => u > 5.5)).toHaveLength(1);
  });

  test('a jobs contains filter, 50 a page: ≤ 1.1 × reading its jobs once', async () => {
    const { seen, units } = await walk('/jobs?title=engineer&page_size=50', shops.big.id);
    expect(seen).toHaveLength(shops.big.size / 10);
    expect(new Set(seen).size).toBe(seen.length);
    expect(units).toBeLessThanOrEqual(1.1 * 0.5 * seen.length);
  });
});

describe('jobs: exact filters cost their matches, contains filters scan the slim projection', () => {
  // Warm as `list` is: a company check that expired between two requests of a slow run adds its read.
  const jobs = async (shop: Shop, query: string) => {
    forgetCachedCompany(shop.id);
    return warmCost(() => api.get(`/jobs?${query}`, { key: partner.key, companyId: shop.id }));
  };
  const rareTitles = (res: TestResponse) => res.body.results.map((j: { title: string }) => j.title).sort();
  const expectedRare = Array.from({ length: RARE }, (_, i) => `Unicorn wrangler ${i}`).sort();

  test.each(['remote=hybrid', 'language=fr', 'country=FR', 'remote=hybrid&language=fr&country=FR'])('%s', async (query) => {
    const small = await jobs(shops.small, query);
    const big = await jobs(shops.big, query);
    expect(rareTitles(big)).toEqual(expectedRare);
    expect(big.body.count).toBe(RARE);
    expect(cost(big).units).toBeLessThanOrEqual(10);
    expect(cost(big)).toEqual(cost(small));
    if (!query.includes('&')) expect(sequential(big)).toBeLessThanOrEqual(3);
  });

  test('title and city contains: ≤ 10 % of reading every job, plus the page', async () => {
    const once = await unitsToReadOnce(indexKeys.companyJobs(shops.big.id));
    for (const query of ['title=unicorn', 'city=rarev', 'title=wrangler&country=FR']) {
      const res = await jobs(shops.big, query);
      expect(rareTitles(res)).toEqual(expectedRare);
      expect(cost(res).units).toBeLessThanOrEqual(0.1 * once + 6);
    }
  });
});

describe('companies: exact filters, totals, orderings and contains cost the page, not the partner', () => {
  // At any LIST_CAPACITY_SIZE (P294): 600 active companies are what a walk needs to run out of carried ids.
  const SMALL_PARTNER = 60;
  const BIG_PARTNER = 600;
  interface Portfolio {
    key: string;
    partnerId: number;
    companies: Company[];
    rareIds: number[];
  }
  const portfolios: Record<'small' | 'big', Portfolio> = {} as never;

  /**
   * Ten rare companies first (oldest), then common ones: active, connected (sandbox), both syncs entitled. The rare
   * ten go through the create itself (a transaction each); the rest, after them, through the batched seeding path,
   * which writes the same items, counters and search entries from the same functions (P335).
   */
  async function aPortfolio(size: number, idBase?: number): Promise<Portfolio> {
    const owner = await aPartner();
    const id = (i: number) => (idBase === undefined ? {} : { id: idBase + 1000 * owner.id + i });
    const rare = await pool(RARE, 4, (i) =>
      createCompany({
        ...id(i),
        partner: owner.id,
        name: `Zeta Rare Widgets ${i}`,
        ats: 'lever',
        status: 'invited',
        partner_company_id: `PCO-${i}`,
        entitlements: [],
      }),
    );
    const common = await seedCompanies(
      Array.from({ length: size - RARE }, (_, i) => ({
        ...id(RARE + i),
        partner: owner.id,
        name: `Common Trading ${String(i).padStart(4, '0')}`,
        ats: 'sandbox',
        status: 'active' as const,
        partner_company_id: `PCO-${RARE + i}`,
        entitlements: ['job_sync', 'candidate_sync'],
      })),
    );
    const companies = [...rare, ...common];
    const byCreated = compareCompanies(parseCompanyFilter({}).ordering);
    return { key: owner.key, partnerId: owner.id, companies, rareIds: [...rare].sort(byCreated).map((c) => c.id) };
  }

  beforeAll(async () => {
    portfolios.small = await aPortfolio(SMALL_PARTNER);
    portfolios.big = await aPortfolio(BIG_PARTNER);
  }, 600_000);

  // Warm, like the applications: after one request, the cheaper of the next two is measured.
  const companies = async (p: Portfolio, query: string) => warmCost(() => api.get(`/companies/?${query}`, { key: p.key }));

  test.each(['status=invited', 'ats=lever', 'candidate_sync_active=false', 'job_sync_active=false', 'status=invited&ats=lever'])(
    'exact %s: 10 matches cost ≤ 10 units (one filter: ≤ 3 sequential calls), the same at ten times the companies',
    async (query) => {
      const small = await companies(portfolios.small, query);
      const big = await companies(portfolios.big, query);
      for (const [res, p] of [
        [small, portfolios.small],
        [big, portfolios.big],
      ] as const) {
        expect(ids(res)).toEqual(p.rareIds);
        expect(res.body.count).toBe(RARE);
      }
      expect(cost(big).units).toBeLessThanOrEqual(10);
      expect(cost(big)).toEqual(cost(small));
      if (!query.includes('&')) expect(sequential(big)).toBeLessThanOrEqual(3);
    },
  );

  test('partner_company_id: one match, a few units', async () => {
    const small = await companies(portfolios.small, 'partner_company_id=PCO-3');
    const big = await companies(portfolios.big, 'partner_company_id=PCO-3');
    expect(big.body.count).toBe(1);
    expect(big.body.results[0].partner_company_id).toBe('PCO-3');
    expect(cost(big).units).toBeLessThanOrEqual(3);
    expect(cost(big)).toEqual(cost(small));
  });

  test('totals of the unfiltered list and of a single exact filter cost ≤ 2 units (counters)', async () => {
    for (const query of ['page_size=10', 'status=active&page_size=10', 'candidate_sync_active=true&page_size=10']) {
      const big = await companies(portfolios.big, query);
      expect(big.body.count).toBe(BIG_PARTNER - RARE + (query === 'page_size=10' ? RARE : 0));
      // The second page through `next` reads the same kind of page without counting: the difference is the total.
      const second = await api.get(big.body.next.replace(api.url, ''), { key: portfolios.big.key });
      expect(cost(big).units - cost(second).units).toBeLessThanOrEqual(2);
      expect(cost(big)).toEqual(cost(await companies(portfolios.small, query)));
    }
  });

  const ORDERINGS = ['name', '-name', 'status', '-status', 'updated_at', '-updated_at', 'created_at', '-created_at'];
  test.each(ORDERINGS)('ordering=%s: the first two pages, by next, cost the page at any partner size', async (ordering) => {
    for (const p of [portfolios.small, portfolios.big]) {
      const expected = [...p.companies].sort(compareCompanies(parseCompanyFilter({ ordering: [ordering] }).ordering)).map((c) => c.id);
      const first = await companies(p, `ordering=${ordering}&page_size=10`);
      const second = await api.get(first.body.next.replace(api.url, ''), { key: p.key });
      expect([...ids(first), ...ids(second)]).toEqual(expected.slice(0, 20));
      expect(cost(first).units).toBeLessThanOrEqual(8);
      expect(cost(second).units).toBeLessThanOrEqual(8);
    }
    const small = await companies(portfolios.small, `ordering=${ordering}&page_size=10`);
    const big = await companies(portfolios.big, `ordering=${ordering}&page_size=10`);
    expect(cost(big)).toEqual(cost(small));
  });

  // Few matches (ten invited, none deactivated) are read whole, the same at any partner size; many are found in
  // the search document (P258), whose entries cost about a unit per 450 companies. A page by `next` reads only
  // its items (0.5 units each): its cursor carries their ids.
  test.each([
    ['status=invited&status=deactivated', '-created_at'],
    ['status=active&status=invited', '-created_at'],
    ['status=invited&status=deactivated&ordering=name', 'name'],
    ['status=active&status=invited&ordering=-name', '-name'],
  ])('several statuses (%s): the first page ≤ 10 units, a page by next only its items', async (query, ordering) => {
    const statuses = [...query.matchAll(/status=(\w+)/g)].map((m) => m[1]);
    for (const p of [portfolios.small, portfolios.big]) {
      const expected = p.companies
        .filter((c) => statuses.includes(c.status))
        .sort(compareCompanies(parseCompanyFilter({ ordering: [ordering] }).ordering))
        .map((c) => c.id);
      const first = await companies(p, `${query}&page_size=10`);
      expect(first.body.count).toBe(expected.length);
      expect(ids(first)).toEqual(expected.slice(0, 10));
      expect(cost(first).units).toBeLessThanOrEqual(10);
      if (first.body.next) {
        const second = await api.get(first.body.next.replace(api.url, ''), { key: p.key });
        expect(ids(second)).toEqual(expected.slice(10, 20));
        expect(cost(second).units).toBe(5);
      }
    }
    if (query.includes('deactivated'))
      expect(cost(await companies(portfolios.big, `${query}&page_size=10`))).toEqual(
        cost(await companies(portfolios.small, `${query}&page_size=10`)),
      );
  });

  test('an ordering with a filter matching most companies reads the search document, then each page by next its items only (P258, P260)', async () => {
    const big = await companies(portfolios.big, 'ordering=name&status=active&page_size=10');
    const expected = portfolios.big.companies
      .filter((c) => c.status === 'active')
      .sort(compareCompanies(parseCompanyFilter({ ordering: ['name'] }).ordering))
      .map((c) => c.id);
    expect(ids(big)).toEqual(expected.slice(0, 10));
    expect(big.body.count).toBe(BIG_PARTNER - RARE);
    // The counter, the document (600 companies: about 1.5 units) and the page's items (5 units).
    expect(cost(big).units).toBeLessThanOrEqual(8);
    const next = await api.get(big.body.next.replace(api.url, ''), { key: portfolios.big.key });
    expect(ids(next)).toEqual(expected.slice(10, 20));
    expect(cost(next)).toMatchObject({ units: 5, calls: 1 });
    // Every page by next (P260): when the carried ids run out (about 300 here), the list is computed again, once: the
    // ids past the next cursor's would be stored (here none are left), each part read once by the page that begins it.
    const seen = ids(big);
    const pages: { units: number; write: number }[] = [];
    for (let url: string | null = big.body.next; url;) {
      const res: TestResponse = await api.get(url.replace(api.url, ''), { key: portfolios.big.key });
      seen.push(...ids(res));
      pages.push(cost(res));
      url = res.body.next;
    }
    expect(seen).toEqual(expected);
    const again = pages.filter((p) => p.units > 5.5);
    expect(again).toHaveLength(1);
    expect(again[0].units - again[0].write).toBeLessThanOrEqual(8);
    const parts = pages.filter((p) => p.units === 5.5).length;
    expect(again[0].write).toBeGreaterThanOrEqual(parts);
    expect(again[0].write).toBeLessThanOrEqual(2 * parts);
    expect(pages.filter((p) => p !== again[0] && p.units !== 5 && p.units !== 5.5)).toEqual([]);
    const walked = cost(big).units + pages.reduce((sum, p) => sum + p.units, 0);
    expect(walked).toBeLessThanOrEqual(1.1 * 0.5 * expected.length);
  });

  test('a walk of a list in memory computes it again once, and then stores the ids past its cursor (P260)', async () => {
    // Long ids (ten base-36 digits): a cursor carries ten pages of them where it carried thirty of short ones, so 400
    // companies leave more ids after the carried ones than one cursor holds, as 1,000 short ids did, at 40 % of the creates.
    const portfolio = await aPortfolio(400, 36 ** 9);
    const expected = portfolio.companies
      .filter((c) => c.status === 'active')
      .sort(compareCompanies(parseCompanyFilter({ ordering: ['name'] }).ordering))
      .map((c) => c.id);
    const seen: number[] = [];
    const pages: { units: number; write: number }[] = [];
    for (let url: string | null = '/companies/?ordering=name&status=active&page_size=10'; url;) {
      const res: TestResponse = await api.get(url.replace(api.url, ''), { key: portfolio.key });
      seen.push(...ids(res));
      pages.push(cost(res));
      url = res.body.next;
    }
    expect(seen).toEqual(expected);
    const [first, ...later] = pages;
    // A first page stores nothing; the page that computes the list again for the walk stores what its cursor cannot hold.
    expect(first.write).toBe(0);
    const again = later.filter((p) => p.write > 0);
    expect(again).toHaveLength(1);
    expect(again[0].units - again[0].write).toBeLessThanOrEqual(8);
    const parts = later.filter((p) => p.units === 5.5).length;
    expect(parts).toBeGreaterThanOrEqual(1);
    expect(again[0].write).toBeGreaterThanOrEqual(parts);
    expect(again[0].write).toBeLessThanOrEqual(2 * parts);
    expect(later.filter((p) => p !== again[0] && p.units !== 5 && p.units !== 5.5)).toEqual([]);
    expect(pages.reduce((sum, p) => sum + p.units, 0)).toBeLessThanOrEqual(1.1 * 0.5 * expected.length);
  }, 600_000);

  // P253, P256: the document also orders the matches, so a contains filter matching most of the partner, or an
  // order of several terms, reads the page's items only, where the slim projection was scanned (0.03 units a company) or the
  // partner read whole.
  test("name and search contains, and orders of several terms, read the partner's search document (≤ 10 % of reading every company), then only the page", async () => {
    const once = await unitsToReadOnce(indexKeys.partnerCompanies(portfolios.big.partnerId));
    for (const query of [
      'name=rare%20widg',
      'search=zeta',
      'search=rare&ordering=name',
      'search=pco-3',
      'name=widgets&status=invited',
      'name=common&ordering=-name',
      'search=pco-&ordering=status',
      'name=trading&ordering=-updated_at',
      'ordering=status,-name',
      'status=active&ordering=name,-created_at',
      'ordering=-updated_at,name',
      // Another exact filter (590 sandbox companies): the document's one match is read, not the slot's.
      'name=common%20trading%200001&ats=sandbox',
      // Each field is matched apart: a term spanning two fields matches nothing (it read the partner whole).
      'search=trading%0Asandbox',
    ]) {
      for (const p of [portfolios.small, portfolios.big]) {
        const params: Record<string, string[]> = Object.create(null);
        for (const [name, value] of new URLSearchParams(query)) (params[name] ??= []).push(value);
        const parsed = parseCompanyFilter(params);
        const expected = p.companies.filter((c) => matchesCompany(c as never, parsed)).sort(compareCompanies(parsed.ordering));
        const res = await companies(p, query);
        expect(res.body.count).toBe(expected.length);
        expect(ids(res)).toEqual(expected.slice(0, 10).map((c) => c.id));
      }
      // The document (a few KB for 600 companies), a counter and the keys walked past, and the page's items (0.5 each).
      const res = await companies(portfolios.big, query);
      expect(cost(res).units).toBeLessThanOrEqual(0.1 * once + 0.5 * Math.min(res.body.count, 10) + 1);
    }
  });

  test('every PATCH moves the search entry (`updated_at`, P256) and rewrites its shard in the transaction: a rename 2 units more than a city change, the same at ten times the companies', async () => {
    const patch = async (p: Portfolio, body: Record<string, string>) => {
      const target = p.companies[RARE + 20];
      const res = await api.request('PATCH', `/companies/${target.id}/`, { key: p.key, companyId: target.id, body });
      expect(res.status).toBe(200);
      return cost(res);
    };
    const costs = [];
    for (const p of [portfolios.small, portfolios.big]) {
      const target = p.companies[RARE + 20];
      // A field outside the searched ones still moves `updated_at`, which the entry holds: the shard is rewritten.
      const city = await patch(p, { city: 'Hamburg' });
      const renamed = await patch(p, { name: 'Patched Numbat' });
      expect(ids(await companies(p, 'name=numbat'))).toEqual([target.id]);
      await patch(p, { name: target.name });
      // Both write the company and its shard (a 600-company partner's is under 1 KB deflated) in one transaction
      // (2 units a KB, P188); a rename also moves the name order's index entry (2 units). Issue 11's targets (a
      // rename ≤ 3 units more than a city change, ≤ 8 in all) are met on DynamoDB's own accounting; issue 22's
      // rename ≤ 10 WCU too.
      expect({ city, renamed }).toEqual({
        city: { units: 9, calls: 4, read: 3, write: 6 },
        renamed: { units: 11, calls: 4, read: 3, write: 8 },
      });
      costs.push(renamed);
    }
    expect(costs[1]).toEqual(costs[0]);
  });

  test('a company renamed, or its status changed, is found by its new name at once; concurrent writes lose no entry', async () => {
    const p = portfolios.small;
    const [first, second] = p.companies.slice(RARE, RARE + 2);
    await Promise.all(p.companies.slice(RARE, RARE + 8).map((c, i) => writeCompanyChange(c.id, { name: `Renamed Quokka ${i}` } as never)));
    const renamed = await companies(p, 'name=renamed%20quokka');
    expect(renamed.body.count).toBe(8);
    expect((await companies(p, `name=${encodeURIComponent(first.name.toLowerCase())}`)).body.count).toBe(0);
    await setCompanyStatus(second.id, 'deactivated');
    expect(ids(await companies(p, 'name=quokka&status=deactivated'))).toEqual([second.id]);
    // Put back as they were, for the other tests.
    await Promise.all(p.companies.slice(RARE, RARE + 8).map((c) => writeCompanyChange(c.id, { name: c.name } as never)));
    await setCompanyStatus(second.id, 'active');
    expect((await companies(p, 'name=quokka')).body.count).toBe(0);
  });

  test('a bare page=N skips through keys only, ~1 unit per 100 companies skipped in any order (compact name keys, P182)', async () => {
    // The companies as stored now (other tests patch some, which moves their updated_at).
    const stored = await Promise.all(portfolios.big.companies.map(async (c) => (await getCompanyRecord(c.id))!));
    for (const ordering of ['-created_at', 'name', '-name', 'status', '-updated_at']) {
      const expected = [...stored].sort(compareCompanies(parseCompanyFilter({ ordering: [ordering] }).ordering)).map((c) => c.id);
      const page1 = await companies(portfolios.big, `ordering=${ordering}&page_size=10`);
      const pageN = await companies(portfolios.big, `ordering=${ordering}&page=40&page_size=10`);
      expect(ids(pageN)).toEqual(expected.slice(390, 400));
      // A name key grows a byte a character: names of ~20 characters, as here, skip at ~1.03 units per 100
      // (they cost ~1.9 as UTF-16 hex, P182); the other orders' keys are fixed-size.
      const perHundred = ordering.endsWith('name') ? 1.1 * SKIP_UNITS_PER_100 : SKIP_UNITS_PER_100;
      const budget = (390 / 100) * perHundred + cost(page1).units;
      expect([ordering, cost(pageN).units <= budget]).toEqual([ordering, true]);
    }
  });

  test("another partner's companies never show up, whatever the filter or ordering (tenancy)", async () => {
    const foreign = new Set(portfolios.small.companies.map((c) => c.id));
    for (const query of [
      'status=invited',
      'ats=lever',
      'partner_company_id=PCO-3',
      'ordering=name&page_size=50',
      'search=zeta',
      'status=active&ordering=-status',
      'name=common&ordering=name&page_size=50',
      'search=pco-&ordering=-updated_at&page_size=50',
      'ordering=status,name&page_size=50',
    ]) {
      const res = await companies(portfolios.big, query);
      expect(res.status).toBe(200);
      expect(ids(res).some((id: number) => foreign.has(id))).toBe(false);
    }
  });
});

describe('creates stay cheap (target 7)', () => {
  // docs/access-patterns.md: the create with a channel, four partner ids, notes and answers cost 6.5 units
  // before issue 11 (dynalite's accounting: reads, and 2 per item of the transaction).
  const BEFORE_ISSUE_11 = 6.5;

  test('a create carrying every partner id costs 30 units, whatever the company holds (misses target 7: ≤ 2 × the create before issue 11)', async () => {
    const owner = await aPartner(undefined, 'agency');
    const company = await aCompany(owner.id);
    await withJobs(company.id, [{ external_id: 'J-1', title: 'Job' }]);
    const job = (await api.get('/jobs?external_id=J-1', { key: owner.key, companyId: company.id })).body.results[0].id;
    const create = (i: number) =>
      api.request('POST', '/applications/', {
        key: owner.key,
        companyId: company.id,
        body: {
          job,
          candidate: { email: `c${i}@example.com`, full_name: 'Ada Lovelace' },
          channel: `channel-${i % 3}`,
          partner_job_id: `PJ-${i}`,
          partner_company_id: 'PC-1',
          partner_application_id: `PA-${i}`,
          agency_job_id: `AJ-${i}`,
          notes: 'Strong profile',
          screening_questions: [{ id: 'q1', question: 'Work permit?', answer_type: 'boolean', answer: 'true' }],
        },
      });
    const costs: number[] = [];
    // A fresh block of ids for the first create, so that none of the next ones allocates one (how many ids the
    // tests above took decides where a block ends).
    forgetIdBlocks();
    for (let i = 0; i < 6; i++) {
      const res = await create(i);
      expect(res.status).toBe(201);
      costs.push(cost(res).units);
    }
    // (The first create of an instance also allocates a block of ids.)
    // MISSES target 7 (≤ 2 × 6.5 = 13 units) on DynamoDB's own accounting, which counts every index entry the
    // create writes (dynalite counted none), its transaction priced by AWS's formula (P188): 30 units, 27 of
    // them writes (32 before P233–P236 and again after P241, whose four lookup items in the transaction cost 2
    // units each where their slot entries cost 1; P240 put its event on the item instead of an outbox item, 2
    // less here, and 1 less for the relay, which this request's figure does not include) (docs/benchmarks.md,
    // "Targets missed"). Issue 22's bound for it (≤ 26 WCU, relay included) is held by change-costs, whose
    // application is below a KB; this one, with notes and answers, is above.
    expect(2 * BEFORE_ISSUE_11).toBe(13);
    for (const units of costs.slice(1)) expect(units).toBe(30);
    // A job value's first application for a job lists the job on the value's counter item (P181, 1 unit per
    // new value); later ones only add to the job's counter item, which the create writes anyway.
    const again = await create(4);
    expect(again.status).toBe(201);
    expect(cost(again).units).toBe(costs[4] - 2);
    // Every total the create moved is exact.
    for (const [query, count] of [
      ['channel=channel-0', 2],
      ['partner_company_id=PC-1', 7],
      ['partner_job_id=PJ-4', 2],
      ['agency_job_id=AJ-2', 1],
      [`job=${job}`, 7],
      ['partner_company_id=PC-1&channel=channel-1', 3],
    ] as const) {
      const res = await api.get(`/applications/?${query}`, { key: owner.key, companyId: company.id });
      expect([query, res.body.count]).toEqual([query, count]);
    }
  });

  test('a partner job id sent for several jobs at once: each job item counts its share, the value lists every job (P181)', async () => {
    const company = await aCompany(partner.id);
    await withJobs(company.id, [
      { external_id: 'J-1', title: 'One' },
      { external_id: 'J-2', title: 'Two' },
      { external_id: 'J-3', title: 'Three' },
    ]);
    const jobIds = (await api.get('/jobs', { key: partner.key, companyId: company.id })).body.results.map((j: { id: number }) => j.id);
    const record = (await getCompanyRecord(company.id))!;
    // Concurrent first applications of the same value for three jobs: each finds it new on its job's item.
    await pool(12, 6, async (i) => {
      const { input } = parseApplication(
        {
          job: jobIds[i % 3],
          candidate: { email: `m${i}@example.com`, full_name: 'M' },
          partner_job_id: 'PJ-shared',
          agency_job_id: `AJ-${i % 2}`,
        },
        [],
      );
      await createApplication(record, partner.id, input, []);
    });
    const count = (query: string) =>
      api.get(`/applications/?${query}&page_size=1`, { key: partner.key, companyId: company.id }).then((r) => r.body);
    expect((await count('partner_job_id=PJ-shared')).count).toBe(12);
    // The value's own item lists the three jobs (each create that found the value new on its job added it).
    const own = await db().send(
      new GetCommand({
        TableName: config().tableName,
        Key: { PK: `COUNT#COMPANY#${company.id}#APPS#partner_job_id=PJ-shared`, SK: 'COUNT' },
      }),
    );
    expect([...(own.Item?.jobs as Set<number>)].sort()).toEqual([...jobIds].sort());
    expect((await count('agency_job_id=AJ-0')).count).toBe(6);
    for (const job of jobIds) expect((await count(`partner_job_id=PJ-shared&job=${job}`)).count).toBe(4);
  });

  test('values past the fold limit get counter items of their own: every total stays exact', async () => {
    const company = await aCompany(partner.id);
    await withJobs(company.id, [{ external_id: 'J-1', title: 'Job' }]);
    const job = (await api.get('/jobs?external_id=J-1', { key: partner.key, companyId: company.id })).body.results[0].id;
    const record = (await getCompanyRecord(company.id))!;
    const channels = FOLD_LIMIT + 4;
    await pool(2 * channels, 4, async (i) => {
      const { input } = parseApplication(
        {
          job,
          candidate: { email: `f${i}@example.com`, full_name: 'F' },
          channel: `ch-${i % channels}`,
          partner_job_id: `pj-${i % channels}`,
          agency_job_id: `aj-${i % channels}`,
        },
        [],
      );
      await createApplication(record, partner.id, input, []);
    });
    // The same shape through the batched seeding path.
    const seeded = [];
    for (let i = 0; i < channels; i++) {
      seeded.push(
        await seedRecord(company.id, job, {
          job,
          candidate: { email: `s${i}@example.com`, full_name: 'S' },
          channel: `ch-${i}`,
          partner_job_id: `pj-${i}`,
          agency_job_id: `aj-${i}`,
        }),
      );
    }
    await seedApplications(seeded);
    for (const filter of ['channel=ch', 'partner_job_id=pj', 'agency_job_id=aj'])
      for (const i of [0, FOLD_LIMIT / 2, FOLD_LIMIT - 1, FOLD_LIMIT, channels - 1]) {
        const res = await api.get(`/applications/?${filter}-${i}&page_size=1`, { key: partner.key, companyId: company.id });
        expect([filter, i, res.body.count]).toEqual([filter, i, 3]);
        expect(cost(res).units).toBeLessThanOrEqual(3);
      }
    // The job's counter item took FOLD_LIMIT of the 40 job values, and a few more from the concurrent creates
    // (four at a time, two values each, decided on what each read).
    const jobCounter = await db().send(new GetCommand({ TableName: config().tableName, Key: jobCounterKey(company.id, job) }));
    const folded = Object.keys(jobCounter.Item ?? {}).filter((name) => /^(partner_job_id|agency_job_id)#/.test(name));
    expect(folded.length).toBeGreaterThanOrEqual(FOLD_LIMIT);
    expect(folded.length).toBeLessThanOrEqual(FOLD_LIMIT + 2 * 4);
  });
});
