/**
 * A companies filter under another order than the created one, several statuses, a contains filter or an order
 * of several terms (P252, P258): few matches are read whole; otherwise the partner's search document gives every
 * match in list order, and each page reads its own items. A page's cursor carries the ids of the next pages, so
 * that walking every page by `next` reads the document once in many pages: at most 1.1 × reading the matches'
 * items once (issue 22), where reading the document again on every page cost 1.2–1.6 ×. Whatever the way, every
 * page (by `next` and by a bare `page=N`) is the spec's answer (`matchesCompany`, `compareCompanies`). At 2,000
 * companies every share and order stays within issue 22's 16 units a page (`COMPANY_ORDERINGS_SIZE`, below).
 */
import { compareCompanies, matchesCompany, parseCompanyFilter } from '#companies/company-list.js';
import { createCompany } from '#companies/company-store.js';
import { seedCompanies } from '#companies/company-seeding.js';
import type { Company, CompanyStatus } from '#companies/company-schema.js';
import { aPartner } from '../helpers/fixtures.js';
import { startTestRuntime, type TestResponse, type TestRuntime } from '../helpers/runtime.js';

const SIZE = 300;
let api: TestRuntime;
let owner: Awaited<ReturnType<typeof aPartner>>;
let neighbour: Awaited<ReturnType<typeof aPartner>>;
let companies: Company[] = [];
const neighbours: number[] = [];

/** Every fifth company is on Lever and invited (a fifth of the partner), every third of the rest deactivated. */
const FIFTHS = (i: number): { ats: string; status: CompanyStatus } => ({
  ats: i % 5 === 0 ? 'lever' : 'sandbox',
  status: i % 5 === 0 ? 'invited' : i % 3 === 0 ? 'deactivated' : 'active',
});

/** The partner's companies (names out of creation order, so that no order is the created one). */
const inputs = (partner: number, count: number, kind = FIFTHS) =>
  Array.from({ length: count }, (_, i) => ({
    partner,
    name: `Firm ${String((i * 7919) % count).padStart(4, '0')} ${i % 2 ? 'Trading' : 'labs'}`,
    ...kind(i),
    partner_company_id: `PCO-${i}`,
    entitlements: [],
  }));

/**
 * Through the batched seeding path (P335): what this file checks is the lists over the companies, not their
 * create, and the seeding path writes the create's items, counters and search entries. Each company a
 * millisecond after the one before, as creates one after another would be (`created_at` and `updated_at`).
 */
async function seed(partner: number, count: number, kind = FIFTHS): Promise<Company[]> {
  const start = Date.now() - count;
  return seedCompanies(inputs(partner, count, kind).map((c, i) => ({ ...c, created_at: new Date(start + i).toISOString() })));
}

/** Through the create itself (a transaction each), `width` at a time. */
async function create(partner: number, count: number, width = 8): Promise<Company[]> {
  const out: Company[] = [];
  const all = inputs(partner, count);
  for (let start = 0; start < count; start += width) out.push(...(await Promise.all(all.slice(start, start + width).map(createCompany))));
  return out;
}

beforeAll(async () => {
  api = await startTestRuntime();
  owner = await aPartner();
  neighbour = await aPartner();
  companies = await seed(owner.id, SIZE);
  neighbours.push(...(await seed(neighbour.id, 20)).map((c) => c.id));
}, 600_000);
afterAll(() => api?.stop());

function units(res: TestResponse): number {
  const match = /units=([\d.]+)/.exec(res.headers.get('x-dynamodb-capacity') ?? '');
  if (!match) throw new Error('no capacity header');
  return Number(match[1]);
}

/** The spec's answer: the partner's companies that match, in the order asked for. */
function expected(query: string, among = companies): number[] {
  const params: Record<string, string[]> = Object.create(null);
  for (const [name, value] of new URLSearchParams(query)) (params[name] ??= []).push(value);
  const filter = parseCompanyFilter(params);
  return among
    .filter((c) => matchesCompany(c as never, filter))
    .sort(compareCompanies(filter.ordering))
    .map((c) => c.id);
}

const ids = (res: TestResponse) => (res.body.results as { id: number }[]).map((c) => c.id);

// Shares of the partner: a fifth (Lever, invited), about a quarter (deactivated), a fifth and a quarter
// together, and most (active).
const QUERIES = [
  'ats=lever&ordering=name',
  'status=invited&ordering=-name',
  'status=deactivated&ordering=-updated_at',
  'status=invited&status=deactivated&ordering=status',
  'status=invited&status=deactivated',
  'status=active&ordering=name',
  // The search document (P253, P256): a contains filter under each kind of order, and orders of several terms.
  'name=labs&ordering=-name',
  'search=pco-1&ordering=-updated_at',
  'ordering=status,-name',
  'status=deactivated&ordering=-created_at,name',
  'ordering=-updated_at,name',
];

// A page costs the page's items (5 units), and a first page the document (about a unit at 300 companies) or the
// few matches: ≤ 12 units. The walk costs ≤ 1.1 × the items once (0.5 units each; 1.2–1.6 × before P258).
test.each(QUERIES)('%s: every page by next is the spec’s, each ≤ 12 units, the walk ≤ 1.1 × the items once', async (query) => {
  const want = expected(query);
  expect(want.length).toBeGreaterThan(20);
  const seen: number[] = [];
  const costs: number[] = [];
  let path: string | null = `/companies/?${query}&page_size=10`;
  while (path) {
    await api.get(path, { key: owner.key }); // warm: the company check and the counters' first read
    const res: TestResponse = await api.get(path, { key: owner.key });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(want.length);
    seen.push(...ids(res));
    costs.push(units(res));
    path = res.body.next ? res.body.next.replace(api.url, '') : null;
  }
  expect(seen).toEqual(want);
  expect(seen.filter((id) => neighbours.includes(id))).toEqual([]);
  expect(Math.max(...costs)).toBeLessThanOrEqual(12);
  expect(costs.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1.1 * 0.5 * want.length);
});

test.each(QUERIES)('%s: a bare page=N is the spec’s slice', async (query) => {
  const want = expected(query);
  const res = await api.get(`/companies/?${query}&page_size=10&page=3`, { key: owner.key });
  expect(ids(res)).toEqual(want.slice(20, 30));
});

test('a fifth of the partner under a name order reads the page, not the fifth: ≤ 10 units where reading it whole took 31.5', async () => {
  const query = 'ats=lever&ordering=name&page_size=10';
  await api.get(`/companies/?${query}`, { key: owner.key });
  const res = await api.get(`/companies/?${query}`, { key: owner.key });
  expect(res.body.count).toBe(SIZE / 5);
  // Reading the 60 matches whole: 60 × 0.5 units, the slot's keys and the counter (31.5 before P252).
  expect(units(res)).toBeLessThanOrEqual(10);
});

test('few matches are still read whole: one match under a name order costs a handful of units', async () => {
  const res = await api.get('/companies/?partner_company_id=PCO-7&ordering=name', { key: owner.key });
  expect(ids(res)).toEqual(expected('partner_company_id=PCO-7&ordering=name'));
  expect(units(res)).toBeLessThanOrEqual(3);
});

test('a change of a field outside the searched ones moves a company in the document’s `updated_at` order at once (P256)', async () => {
  const own = await aPartner();
  const made = await create(own.id, 30);
  const query = 'name=labs&ordering=-updated_at';
  // The least recently changed company of the matches: last under `-updated_at`.
  const last = expected(query, made).at(-1)!;
  const res = await api.request('PATCH', `/companies/${last}/`, { key: own.key, companyId: last, body: { city: 'Hamburg' } });
  expect(res.status).toBe(200);
  const fresh = made.map((c) => (c.id === last ? (res.body as Company) : c));
  const page = await api.get(`/companies/?${query}&page_size=5`, { key: own.key });
  expect(ids(page)[0]).toBe(last);
  expect(ids(page)).toEqual(expected(query, fresh).slice(0, 5));
});

/**
 * Issue 22 bounds every companies page at 2,000 companies by 16 units. Its 20 queries walk every page at 50 and
 * three at 10, each checked against the spec's: a measurement on demand (P294), not `npm test`'s:
 * `COMPANY_ORDERINGS_SIZE=2000 npx jest test/http/company-orderings.test.ts` (and `npm run test:deep`) runs it.
 */
const BIG = Number(process.env.COMPANY_ORDERINGS_SIZE ?? 0);

// A measurement on demand, like `bench:scale`: without the variable it is not registered at all.
if (BIG)
  describe(`at ${BIG} companies, every share and order: ≤ 16 units a page (issue 22, at 2,000)`, () => {
    let big: Awaited<ReturnType<typeof aPartner>>;
    let all: Company[] = [];
    // Shares: Greenhouse 2 %, invited 5 %, Lever 20 %, Workable 26 %, active 45 %, deactivated 50 %.
    const SHARES = (i: number): { ats: string; status: CompanyStatus } => ({
      ats: i % 5 === 0 ? 'lever' : i % 50 === 1 ? 'greenhouse' : i % 3 === 2 ? 'workable' : 'sandbox',
      status: i % 20 === 0 ? 'invited' : i % 2 === 1 ? 'deactivated' : 'active',
    });
    beforeAll(async () => {
      big = await aPartner();
      all = await seed(big.id, BIG, SHARES);
    }, 900_000);

    test.each([
      'ats=greenhouse&ordering=name',
      'status=invited&ordering=name',
      'ats=lever&ordering=name',
      'ats=workable&ordering=-name',
      'ats=workable&ordering=-updated_at',
      'status=active&ordering=name',
      'status=deactivated&ordering=name',
      'status=invited&status=active&ordering=name',
      'status=invited&status=active',
      'status=invited&status=deactivated&ordering=status',
      'status=invited&ordering=status',
      'status=deactivated&ordering=-status',
      'name=firm',
      'name=labs&ordering=name',
      'search=pco-1&ordering=-updated_at',
      'name=trading&status=active&ordering=status',
      'ordering=status,name',
      'status=active&ordering=-name,created_at',
      'ordering=-updated_at,name',
      'name=trading&ordering=updated_at,-status',
    ])('%s: three pages by next, each the spec’s and ≤ 16 units; every page at 50, ≤ 1.1 × the items once', async (query) => {
      const want = expected(query, all);
      /** Up to `pages` pages by `next`, each checked against the spec's: their costs. */
      const walk = async (size: number, pages: number) => {
        const costs: number[] = [];
        let path: string | null = `/companies/?${query}&page_size=${size}`;
        for (let page = 0; page < pages && path; page++) {
          await api.get(path, { key: big.key });
          const res: TestResponse = await api.get(path, { key: big.key });
          expect(res.body.count).toBe(want.length);
          expect(ids(res)).toEqual(want.slice(page * size, page * size + size));
          costs.push(units(res));
          path = res.body.next ? res.body.next.replace(api.url, '') : null;
        }
        return costs;
      };
      expect(Math.max(...(await walk(10, 3)))).toBeLessThanOrEqual(16);
      const walked = await walk(50, Infinity);
      expect(walked.length).toBe(Math.max(1, Math.ceil(want.length / 50)));
      if (want.length) expect(walked.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1.1 * 0.5 * want.length);
    });
  });
