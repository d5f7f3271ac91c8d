/**
 * The company list's indexes and counters stay exact through every writer (issue 11, P109): after each
 * change, every exact filter's count (a counter) and results (a slot), the name ordering (APPLIED) and what the
 * partner's search document answers (contains filters, orders of several terms; P253) agree with the companies
 * as stored, filtered and ordered the spec's way (`matchesCompany`, `compareCompanies`).
 */
import { compareCompanies, matchesCompany, parseCompanyFilter } from '#companies/company-list.js';
import {
  createCompany,
  getCompanyRecord,
  markCompanyFailing,
  setCompanyFields,
  setCompanyStatus,
  setEntitlements,
  updateCompany,
} from '#companies/company-store.js';
import type { CompanyRecord } from '#companies/company-schema.js';
import { connectCompany, disconnectCompany } from '#delivery/ats-connections.js';
import { aPartner } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';

let api: TestRuntime;
let partner: Awaited<ReturnType<typeof aPartner>>;
let other: Awaited<ReturnType<typeof aPartner>>;
const ids: number[] = [];

beforeAll(async () => {
  api = await startTestRuntime();
  partner = await aPartner();
  other = await aPartner();
  for (const [i, name] of ['Acme', 'Beta', 'Gamma', 'Delta'].entries())
    ids.push(
      (
        await createCompany({
          partner: partner.id,
          name,
          ats: i % 2 ? 'sandbox' : null,
          status: i < 2 ? 'invited' : 'active',
          partner_company_id: `P-${i}`,
          entitlements: i < 3 ? ['job_sync', 'candidate_sync'] : [],
        })
      ).id,
    );
  // Another partner's companies share the values: they must never be counted here.
  await createCompany({ partner: other.id, name: 'Acme Foreign', ats: 'sandbox', status: 'active', entitlements: ['job_sync'] });
});
afterAll(() => api.stop());

const QUERIES = [
  'page_size=50',
  ...['invited', 'requested', 'active', 'failing', 'deactivated'].map((s) => `status=${s}`),
  'ats=sandbox',
  'ats=greenhouse',
  'partner_company_id=P-1',
  'partner_company_id=P-9',
  'candidate_sync_active=true',
  'candidate_sync_active=false',
  'job_sync_active=true',
  'job_sync_active=false',
  'ordering=name',
  'ordering=-status',
  // Served by the search document (P253): its entries follow every write too.
  'name=zulu',
  'search=p-9',
  'search=lever&ordering=-updated_at',
  'ordering=status,-name',
  'status=active&ordering=-created_at,name',
  'ats=sandbox&search=a',
  // `updated_at` is the document's too (P256): every write that moves it must reach the entry.
  'search=a&ordering=-updated_at',
  'ordering=updated_at,name',
];

async function expectListsExact(): Promise<void> {
  const records = (await Promise.all(ids.map((id) => getCompanyRecord(id)))) as CompanyRecord[];
  for (const query of QUERIES) {
    const q = Object.fromEntries([...new URLSearchParams(query).entries()].map(([k, v]) => [k, [v]]));
    const filter = parseCompanyFilter(q);
    const expected = records
      .filter((c) => matchesCompany(c, filter))
      .sort(compareCompanies(filter.ordering))
      .map((c) => c.id);
    const res = await api.get(`/companies/?${query}&page_size=50`, { key: partner.key });
    expect({ query, count: res.body.count, ids: res.body.results.map((c: { id: number }) => c.id) }).toEqual({
      query,
      count: expected.length,
      ids: expected,
    });
  }
}

test('after creation', async () => {
  await expectListsExact();
});

test('PATCH: name, ATS and partner id', async () => {
  await updateCompany(ids[0], { name: 'Zulu', ats: 'sandbox', partner_company_id: 'P-9' });
  await updateCompany(ids[1], { ats: 'greenhouse', partner_company_id: null });
  await expectListsExact();
});

test('entitlements, status, failing, the import run reset', async () => {
  await setEntitlements(ids[3], ['candidate_sync'], []);
  await setEntitlements(ids[0], [], ['job_sync']);
  await setCompanyStatus(ids[1], 'deactivated');
  await markCompanyFailing(ids[2]);
  await markCompanyFailing(ids[1]); // not active: stays
  await expectListsExact();
  await setCompanyFields(ids[2], { status: 'active', job_import_failures: 0 });
  await expectListsExact();
});

test('connect and disconnect', async () => {
  await connectCompany(ids[1], 'sandbox', {});
  await expectListsExact();
  await disconnectCompany(ids[1]);
  await updateCompany(ids[1], { ats: 'lever' });
  await expectListsExact();
});

test('concurrent writers: each change moves the totals once', async () => {
  await Promise.all([
    setCompanyStatus(ids[0], 'requested'),
    setCompanyStatus(ids[0], 'failing'),
    setEntitlements(ids[0], ['job_sync']),
    updateCompany(ids[0], { ats: 'greenhouse' }),
    setCompanyStatus(ids[3], 'deactivated'),
  ]);
  await expectListsExact();
});
