/**
 * A companies filter under another order than the created one, at every share of the partner (P252): a
 * filter matching a fifth of the companies used to be read whole and sorted on every page (31.5 units a page
 * at 300 companies, about 200 at 2,000). Now each page is read the cheapest way: few matches whole, many by
 * walking the order's index and reading its items, and those between by walking it as keys, passing over the
 * companies outside the filter's slot, so that only the page's items are read. Whatever the way, every page
 * (by `next` and by a bare `page=N`) is the spec's answer (`matchesCompany`, `compareCompanies`).
 */
import { compareCompanies, matchesCompany, parseCompanyFilter } from '#companies/company-list.js';
import { createCompany } from '#companies/company-store.js';
import type { Company } from '#companies/company-schema.js';
import { aPartner } from '../helpers/fixtures.js';
import { startTestRuntime, type TestResponse, type TestRuntime } from '../helpers/runtime.js';

const SIZE = 300;
let api: TestRuntime;
let owner: Awaited<ReturnType<typeof aPartner>>;
let neighbour: Awaited<ReturnType<typeof aPartner>>;
let companies: Company[] = [];
const neighbours: number[] = [];

/** Every fifth company is on Lever and invited (a fifth of the partner), every third of the rest deactivated. */
async function seed(partner: number, count: number): Promise<Company[]> {
  const out: Company[] = [];
  for (let start = 0; start < count; start += 8) {
    const batch = Array.from({ length: Math.min(8, count - start) }, (_, k) => start + k);
    out.push(
      ...(await Promise.all(
        batch.map((i) =>
          createCompany({
            partner,
            // Names out of creation order, so that no order is the created one.
            name: `Firm ${String((i * 7919) % count).padStart(4, '0')} ${i % 2 ? 'Trading' : 'labs'}`,
            ats: i % 5 === 0 ? 'lever' : 'sandbox',
            status: i % 5 === 0 ? 'invited' : i % 3 === 0 ? 'deactivated' : 'active',
            partner_company_id: `PCO-${i}`,
            entitlements: [],
          }),
        ),
      )),
    );
  }
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
function expected(query: string): number[] {
  const params: Record<string, string[]> = Object.create(null);
  for (const [name, value] of new URLSearchParams(query)) (params[name] ??= []).push(value);
  const filter = parseCompanyFilter(params);
  return companies
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
];

// A page costs the page's items (5 units), the filter's slot keys and the keys it walks past: ≤ 12 units at
// 300 companies (the first page of `ordering=status` walks past the active companies' keys).
test.each(QUERIES)('%s: every page by next is the spec’s, each ≤ 12 units', async (query) => {
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
