/**
 * The tenancy matrix (issue 10, D3): every route × every kind of key × every kind of `Company-Id`, with the
 * exact status of each cell, and no trace of another tenant in any list, count, link or error text.
 *
 * Tenants: partner A with companies A1 and A2 (siblings), partner B with company B1. Every record named
 * in a path (job, application, company) belongs to A1. Every name we create carries its tenant's marker,
 * so a response to one tenant can be searched for the other's.
 */
import { revokeApiKey, createApiKey } from '#companies/api-keys.js';
import { routes, type RouteDefinition } from '#http/routes.js';
import { aCompany, aJob, aPartner, withJobs } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';

let api: TestRuntime;
const ids: Record<string, number> = {};
const keys: Record<string, string> = {};
const jobOf: Record<string, number> = {};
let a1Application: number;

const MARK = { A: 'TenantAlpha', B: 'TenantBravo' } as const;

beforeAll(async () => {
  api = await startTestRuntime();
  const a = await aPartner(`${MARK.A} partner`);
  const b = await aPartner(`${MARK.B} partner`);
  const a1 = await aCompany(a.id, { name: `${MARK.A} one`, partner_company_id: `${MARK.A}-pc-1` });
  const a2 = await aCompany(a.id, { name: `${MARK.A} two`, partner_company_id: `${MARK.A}-pc-2` });
  const b1 = await aCompany(b.id, { name: `${MARK.B} one`, partner_company_id: `${MARK.B}-pc-1` });
  Object.assign(ids, { A: a.id, B: b.id, A1: a1.id, A2: a2.id, B1: b1.id });
  Object.assign(keys, { partnerA: a.key, companyA1: a1.key, partnerB: b.key, companyB1: b1.key });
  const revokedPartner = await createApiKey({ partner: a.id });
  const revokedCompany = await createApiKey({ company: a1.id });
  await revokeApiKey(revokedPartner.id);
  await revokeApiKey(revokedCompany.id);
  Object.assign(keys, { revokedPartnerA: revokedPartner.key, revokedCompanyA1: revokedCompany.key });
  for (const [name, id, mark] of [
    ['A1', a1.id, MARK.A],
    ['A2', a2.id, MARK.A],
    ['B1', b1.id, MARK.B],
  ] as const) {
    await withJobs(id, [aJob({ external_id: `${mark}-${name}-job`, title: `${mark} ${name} job`, city: mark })]);
    const key = name === 'B1' ? keys.partnerB : keys.partnerA;
    jobOf[name] = (await api.get(`/jobs?external_id=${mark}-${name}-job`, { key, companyId: id })).body.results[0].id;
    const created = await api.request('POST', '/applications/', {
      key,
      companyId: id,
      body: {
        job: jobOf[name],
        partner_application_id: `${mark}-app`,
        candidate: { email: `${mark.toLowerCase()}@example.com`, full_name: `${mark} Candidate` },
      },
    });
    expect(created.status).toBe(201);
    if (name === 'A1') a1Application = created.body.id;
  }
});
afterAll(() => api.stop());

type KeyName = 'partnerA' | 'companyA1' | 'partnerB' | 'companyB1' | 'revokedPartnerA' | 'revokedCompanyA1' | 'none';
type CompanyIdCase = 'missing' | 'malformed' | 'negative' | 'own-A1' | 'padded-A1' | 'sibling-A2' | 'foreign-B1' | 'unknown';

const KEY_NAMES: KeyName[] = ['partnerA', 'companyA1', 'partnerB', 'companyB1', 'revokedPartnerA', 'revokedCompanyA1', 'none'];
const COMPANY_ID_CASES: CompanyIdCase[] = [
  'missing',
  'malformed',
  'negative',
  'own-A1',
  'padded-A1',
  'sibling-A2',
  'foreign-B1',
  'unknown',
];

function companyIdHeader(c: CompanyIdCase): string | undefined {
  switch (c) {
    case 'missing':
      return undefined;
    case 'malformed':
      return '12abc';
    case 'negative':
      return '-3';
    case 'own-A1':
      return String(ids.A1);
    case 'padded-A1':
      return `000${ids.A1}`;
    case 'sibling-A2':
      return String(ids.A2);
    case 'foreign-B1':
      return String(ids.B1);
    case 'unknown':
      return '987654321';
  }
}

/** The company a Company-Id case names, if it names an existing one. */
function actedFor(c: CompanyIdCase): 'A1' | 'A2' | 'B1' | undefined {
  return c === 'own-A1' || c === 'padded-A1' ? 'A1' : c === 'sibling-A2' ? 'A2' : c === 'foreign-B1' ? 'B1' : undefined;
}

/** The tenant (partner) a key belongs to and the company it is bound to. */
const KEY_SCOPE: Record<
  Exclude<KeyName, 'none' | 'revokedPartnerA' | 'revokedCompanyA1'>,
  { partner: 'A' | 'B'; company?: 'A1' | 'B1' }
> = {
  partnerA: { partner: 'A' },
  companyA1: { partner: 'A', company: 'A1' },
  partnerB: { partner: 'B' },
  companyB1: { partner: 'B', company: 'B1' },
};

/** The exact D3 status of a cell. */
function expectedStatus(route: RouteDefinition, key: KeyName, c: CompanyIdCase): number {
  if (key === 'none' || key === 'revokedPartnerA' || key === 'revokedCompanyA1') return 401;
  const scope = KEY_SCOPE[key];
  const success = route.method === 'POST' ? 201 : 200;
  if (!route.companyHeader) return success;
  if (c === 'missing' || c === 'malformed' || c === 'negative') return 400;
  const company = actedFor(c);
  if (!company || !company.startsWith(scope.partner) || (scope.company && scope.company !== company)) return 403;
  // Acting for a company it may act for: a record of another company is "not found" (the records are A1's).
  if (['GetJob', 'GetApplication', 'ListApplicationDeliveries', 'UpdateCompany'].includes(route.id)) return company === 'A1' ? 200 : 404;
  // The create names A1's job: under another company that job does not exist (400 naming `job`).
  if (route.id === 'CreateApplication') return company === 'A1' ? 201 : 400;
  return success;
}

/** Lists are asked for one item a page, so that their `next` links (and cursors) are part of every cell. */
function pathOf(route: RouteDefinition): string {
  const id = route.id === 'GetJob' ? jobOf.A1 : ['GetApplication', 'ListApplicationDeliveries'].includes(route.id) ? a1Application : ids.A1;
  const paged = route.method === 'GET' && (!route.path.includes('{id}') || route.id === 'ListApplicationDeliveries');
  return route.path.replace('{id}', String(id)) + (paged ? '?page_size=1' : '');
}

function bodyOf(route: RouteDefinition): unknown {
  if (route.id === 'CreateApplication') return { job: jobOf.A1, candidate: { email: 'matrix@example.com', full_name: 'Matrix Cell' } };
  if (route.id === 'UpdateCompany') return { contact_name: 'Matrix' };
  return undefined;
}

const cells = routes.flatMap((route) =>
  KEY_NAMES.flatMap((key) => COMPANY_ID_CASES.map((c) => [route.id, key, c, route] as [string, KeyName, CompanyIdCase, RouteDefinition])),
);

test.each(cells)('%s with key %s and Company-Id %s', async (_id, key, c, route) => {
  const header = companyIdHeader(c);
  const res = await api.request(route.method, pathOf(route), {
    key: key === 'none' ? undefined : keys[key],
    headers: header === undefined ? {} : { 'Company-Id': header },
    body: bodyOf(route),
  });
  const expected = expectedStatus(route, key, c);
  expect({ status: res.status, body: res.body }).toEqual({ status: expected, body: expect.anything() });
  if (expected >= 400) expect(res.body).toEqual(expect.objectContaining({ detail: expect.any(String), code: expect.any(String) }));
  if (expected === 401) return;

  // No trace of the other tenant anywhere in the response: records, counts, links, error texts.
  const own = KEY_SCOPE[key as keyof typeof KEY_SCOPE].partner;
  const other = own === 'A' ? MARK.B : MARK.A;
  const text = JSON.stringify(res.body);
  expect(text).not.toContain(other);
  expect(text).not.toContain(other.toLowerCase());
  if (expected >= 400) {
    // An error names nothing of the company or record it refused.
    for (const name of ['A1', 'A2', 'B1'] as const) expect(res.body.detail).not.toContain(`${ids[name]}`);
  }
  // The delivery log's records are the application's (its tenancy is the 404 above); the lists' records are companies'.
  if (res.status === 200 && Array.isArray(res.body.results) && route.id !== 'ListApplicationDeliveries') {
    const company = actedFor(c);
    const results = res.body.results as Record<string, unknown>[];
    if (route.id === 'ListCompanies') {
      const scope = KEY_SCOPE[key as keyof typeof KEY_SCOPE];
      const visible = scope.company ? [ids[scope.company]] : own === 'A' ? [ids.A1, ids.A2] : [ids.B1];
      expect(res.body.count).toBe(visible.length);
      expect(visible).toContain(results[0].id);
    } else {
      expect(results).toHaveLength(1);
      expect(results[0].company).toBe(ids[company!]);
    }
    if (res.body.next) {
      // The next page, followed with this key and company, still shows only this company's records.
      const next = new URL(res.body.next as string);
      expect(next.origin).toBe(new URL(api.url).origin);
      const page2 = await api.get(`${next.pathname}${next.search}`, {
        key: keys[key],
        headers: header === undefined ? {} : { 'Company-Id': header },
      });
      expect(page2.status).toBe(200);
      expect(JSON.stringify(page2.body)).not.toContain(other);
      for (const r of page2.body.results as Record<string, unknown>[])
        expect(route.id === 'ListCompanies' ? r.partner : r.company).toBe(route.id === 'ListCompanies' ? ids[own] : ids[company!]);
    }
  }
});

test("another tenant's cursor is ignored: the page is computed for the key's own company", async () => {
  // Two of everything in A1 and B1, so that both lists have a second page.
  for (const [name, mark, key] of [
    ['A1', MARK.A, keys.partnerA],
    ['B1', MARK.B, keys.partnerB],
  ] as const) {
    await withJobs(ids[name], [
      aJob({ external_id: `${mark}-${name}-job`, title: `${mark} ${name} job` }),
      aJob({ title: `${mark} second` }),
    ]);
    const body = { job: jobOf[name], candidate: { email: `${mark.toLowerCase()}2@example.com`, full_name: `${mark} Second` } };
    expect((await api.request('POST', '/applications/', { key, companyId: ids[name], body })).status).toBe(201);
  }
  for (const list of ['/jobs', '/applications/']) {
    const a = await api.get(`${list}?page_size=1`, { key: keys.partnerA, companyId: ids.A1 });
    const stolen = new URL(a.body.next as string).searchParams.get('cursor')!;
    const b = await api.get(`${list}?page_size=1&page=2&cursor=${encodeURIComponent(stolen)}`, { key: keys.partnerB, companyId: ids.B1 });
    expect(b.status).toBe(200);
    expect(JSON.stringify(b.body)).not.toContain(MARK.A);
    for (const r of b.body.results as Record<string, unknown>[]) expect(r.company).toBe(ids.B1);
  }
});
