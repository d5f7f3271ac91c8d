/**
 * Company lists that cost the page, not the partner (issues 11 and 22), asserted from `X-DynamoDB-Capacity`: two
 * partners of the same shape, one ten times the other (60 and 600 companies), made through the service's own
 * create path. Ten companies of each are "rare" (invited, on lever, unconnected), created first. A filter for them,
 * an ordering, a contains filter and a walk by `next` must cost the same in both and stay within the budgets.
 * (Apart from `list-capacity.test.ts`, which holds the applications and jobs, so that the two run side by side.)
 */
import { unitsToReadOnce } from '../../bench/read-once.js';
import { compareCompanies, matchesCompany, parseCompanyFilter } from '#companies/company-list.js';
import { createCompany, getCompanyRecord, setCompanyStatus, writeCompanyChange } from '#companies/company-store.js';
import type { Company } from '#companies/company-schema.js';
import { indexKeys } from '#platform/keys.js';
import { aPartner } from '../helpers/fixtures.js';
import { SKIP_UNITS_PER_100, cost, ids, pool, sequential, warmCost } from '../helpers/capacity.js';
import { startTestRuntime, type TestResponse, type TestRuntime } from '../helpers/runtime.js';

const RARE = 10;

let api: TestRuntime;
beforeAll(async () => {
  api = await startTestRuntime();
});
afterAll(() => api?.stop());

describe('companies: exact filters, totals, orderings and contains cost the page, not the partner', () => {
  const SMALL_PARTNER = 60;
  const BIG_PARTNER = 600;
  interface Portfolio {
    key: string;
    partnerId: number;
    companies: Company[];
    rareIds: number[];
  }
  const portfolios: Record<'small' | 'big', Portfolio> = {} as never;

  /** Ten rare companies first (oldest), then common ones: active, connected (sandbox), both syncs entitled. */
  async function aPortfolio(size: number): Promise<Portfolio> {
    const owner = await aPartner();
    const rare = await pool(RARE, 4, (i) =>
      createCompany({
        partner: owner.id,
        name: `Zeta Rare Widgets ${i}`,
        ats: 'lever',
        status: 'invited',
        partner_company_id: `PCO-${i}`,
        entitlements: [],
      }),
    );
    const common = await pool(size - RARE, 4, (i) =>
      createCompany({
        partner: owner.id,
        name: `Common Trading ${String(i).padStart(4, '0')}`,
        ats: 'sandbox',
        status: 'active',
        partner_company_id: `PCO-${RARE + i}`,
        entitlements: ['job_sync', 'candidate_sync'],
      }),
    );
    const companies = [...rare, ...common];
    const byCreated = compareCompanies(parseCompanyFilter({}).ordering);
    return { key: owner.key, partnerId: owner.id, companies, rareIds: [...rare].sort(byCreated).map((c) => c.id) };
  }

  beforeAll(async () => {
    portfolios.small = await aPortfolio(SMALL_PARTNER);
    portfolios.big = await aPortfolio(BIG_PARTNER);
  }, 240_000);

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
    // Enough companies that the ids left after the carried ones (300–400 of them) do not fit in one cursor.
    const portfolio = await aPortfolio(1000);
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
  });

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
