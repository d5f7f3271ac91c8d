/**
 * Issue 42 item 2 (P292, P330): a filter is one declaration, down to the store. This file replaces each list's
 * declaration module by a variant built the way the real one is (`jobFilterModule`, `applicationFilterModule`,
 * `companyFilterModule`), with a throwaway filter on an index kind the list already serves; its validator is
 * compiled in process by the service's ajv configuration. Nothing else changes:
 * - jobs: the slot of `language` serves `employment_type`: the import writes the slot and its per-value totals, a
 *   change of the value moves (or clears) them;
 * - applications: the slot of `channel` serves `external_job_id`, totals folded (P160): the create writes the slot
 *   and the total, retention's purge clears the slot;
 * - companies: `country` gets lookup items (P241): the create or a change writes, moves and deletes them;
 * and each list answers the filter, counts its matches and refuses a bad value with the D5 body.
 */
import { jest } from '@jest/globals';
import { filterQuerySchema, filterSet, type FilterDeclaration } from '#platform/filters.js';
import { ajv } from '#platform/validation.js';
import { jobFilterModule, jobFilters, type JobServe } from '#jobs/job-filter-layout.js';
import { JOB_FILTER_DECLARATIONS } from '#jobs/job-filters.js';
import { applicationFilterModule, type ApplicationServe } from '#applications/application-filter-layout.js';
import { APPLICATION_FILTER_DECLARATIONS } from '#applications/application-filters.js';
import { companyFilterModule, type CompanyServe } from '#companies/company-filter-layout.js';
import { COMPANY_FILTER_DECLARATIONS, readOrdering } from '#companies/company-filters.js';

const employmentType = {
  name: 'employment_type',
  kind: 'exact',
  value: 'string',
  about: 'the employment type',
  serve: { slot: 'SLOT3', totals: 'own' },
} as const satisfies FilterDeclaration<JobServe>;
const declarations: FilterDeclaration<JobServe>[] = JOB_FILTER_DECLARATIONS.map((d) => (d.name === 'language' ? employmentType : d));
jest.unstable_mockModule('#jobs/job-filters.js', () => ({
  ...jobFilterModule(declarations),
  JOB_FILTER_SET: jobFilters(declarations, () => ajv.compile(filterQuerySchema(declarations))),
}));

const externalJobId = { name: 'external_job_id', kind: 'exact', value: 'string', serve: { slot: 'SLOT4', totals: 'folded' } } as const;
const applicationDeclarations: FilterDeclaration<ApplicationServe>[] = APPLICATION_FILTER_DECLARATIONS.map((d) =>
  d.name === 'channel' ? externalJobId : d,
);
jest.unstable_mockModule('#applications/application-filters.js', () => ({
  ...applicationFilterModule(applicationDeclarations),
  APPLICATION_FILTER_SET: filterSet(applicationDeclarations, () => ajv.compile(filterQuerySchema(applicationDeclarations))),
}));

const country = { name: 'country', kind: 'exact', value: 'string', about: 'the country', serve: { lookup: true } } as const;
const companyDeclarations: FilterDeclaration<CompanyServe>[] = [...COMPANY_FILTER_DECLARATIONS, country];
jest.unstable_mockModule('#companies/company-filters.js', () => ({
  ...companyFilterModule(companyDeclarations),
  COMPANY_FILTER_SET: filterSet(companyDeclarations, () => ajv.compile(filterQuerySchema(companyDeclarations))),
  readOrdering,
}));

// Everything that reads the declarations is imported after the variants are in place: the helpers and the platform,
const { aCompany, aPartner } = await import('../helpers/fixtures.js');
const { allItems } = await import('../helpers/inspect.js');
const { startTestRuntime } = await import('../helpers/runtime.js');
const { ApiError } = await import('#platform/errors.js');
const { partitionKeyOf } = await import('#platform/table.js');
// the jobs,
const { importJobs, jobSlot, jobValueCounterKey } = await import('#jobs/job-store.js');
const { listJobs } = await import('#jobs/job-list.js');
// the applications,
const { applicationSlot, clearPersonalData } = await import('#applications/application-store.js');
const { applicationCounterKey, totalsAttribute } = await import('#applications/application-counters.js');
const { listApplications } = await import('#applications/application-list.js');
// and the companies.
const { companySlot } = await import('#companies/company-layout.js');
const { listCompanies } = await import('#companies/company-list.js');
const { updateCompany } = await import('#companies/company-store.js');

let api: Awaited<ReturnType<typeof startTestRuntime>>;
beforeAll(async () => {
  api = await startTestRuntime();
}, 120_000);
afterAll(() => api?.stop());

const link = (query: Record<string, string[]>) => ({ baseUrl: 'https://api.example/jobs', query });
/** The D2 body of what `read` throws (it must throw an ApiError). */
const refusal = async (read: Promise<unknown>) => {
  const error = await read.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApiError);
  return (error as InstanceType<typeof ApiError>).body();
};
const tooLong = (name: string) => ({
  detail: `Invalid value for "${name}": Must be at most 500 characters.`,
  code: 'invalid',
  errors: { [name]: ['Must be at most 500 characters.'] },
});
const slotted = 'employment_type' as never;

test('the throwaway filter is written, counted, moved and cleared with its job, and the list answers it', async () => {
  const partner = await aPartner();
  const company = await aCompany(partner.id, { entitlements: [] });
  const feed = (first: Record<string, unknown>) => [
    { external_id: 'J-1', title: 'Cook', ...first },
    { external_id: 'J-2', title: 'Chef', employment_type: 'temporary', language: 'de' },
    { external_id: 'J-3', title: 'Baker', employment_type: 'permanent' },
  ];
  await importJobs(company.id, feed({ employment_type: 'permanent' }));

  const list = async (q: Record<string, string[]>) => {
    const page = await listJobs(company.id, q, link(q));
    return { count: page.count, ids: page.results.map((j) => j.external_id).sort() };
  };
  const slotOf = async () => {
    const items = (await allItems()).filter((i) => i.company === company.id && typeof i.external_id === 'string');
    return Object.fromEntries(items.map((i) => [i.external_id, i.X3PK]));
  };
  const total = async (value: string) => {
    const key = jobValueCounterKey(company.id, slotted, value);
    const item = (await allItems()).find((i) => i.PK === key.PK && i.SK === key.SK);
    return Number(item?.count ?? 0);
  };

  // Written: each job's slot holds its value; counted on an item per value.
  expect(await slotOf()).toEqual({
    'J-1': jobSlot(company.id, slotted, 'permanent'),
    'J-2': jobSlot(company.id, slotted, 'temporary'),
    'J-3': jobSlot(company.id, slotted, 'permanent'),
  });
  expect([await total('permanent'), await total('temporary')]).toEqual([2, 1]);
  expect(await list({ employment_type: ['permanent'] })).toEqual({ count: 2, ids: ['J-1', 'J-3'] });
  // `language` has no slot in this variant: the parameter is no filter any more (D5: ignored).
  expect(await list({ language: ['de'] })).toEqual({ count: 3, ids: ['J-1', 'J-2', 'J-3'] });

  // Moved with its job, then cleared.
  await importJobs(company.id, feed({ employment_type: 'temporary' }));
  expect((await slotOf())['J-1']).toBe(jobSlot(company.id, slotted, 'temporary'));
  expect([await total('permanent'), await total('temporary')]).toEqual([1, 2]);
  await importJobs(company.id, feed({}));
  expect((await slotOf())['J-1']).toBeUndefined();
  expect([await total('permanent'), await total('temporary')]).toEqual([1, 1]);
  expect(await list({ employment_type: ['temporary'] })).toEqual({ count: 1, ids: ['J-2'] });

  // Refused with the D5 body.
  const long = 'x'.repeat(501);
  const refused = await listJobs(company.id, { employment_type: [long] }, link({})).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(ApiError);
  expect((refused as InstanceType<typeof ApiError>).body()).toEqual({
    detail: 'Invalid value for "employment_type": Must be at most 500 characters.',
    code: 'invalid',
    errors: { employment_type: ['Must be at most 500 characters.'] },
  });
}, 120_000);

test('the throwaway application filter is written, counted and cleared with its application, and the list answers it', async () => {
  const partner = await aPartner();
  const [company, other] = [await aCompany(partner.id, { entitlements: [] }), await aCompany(partner.id, { entitlements: [] })];
  for (const c of [company, other])
    await importJobs(c.id, [
      { external_id: 'EJ-1', title: 'Cook' },
      { external_id: 'EJ-2', title: 'Chef' },
    ]);
  // The job named by its ATS ID (D8), kept on the record as `external_job_id`.
  const apply = async (companyId: number, externalJobId: string) => {
    const res = await api.request('POST', '/applications/', {
      key: partner.key,
      companyId,
      body: { external_job_id: externalJobId, channel: 'referral', candidate: { email: 'a@example.com', full_name: 'Ada' } },
    });
    expect(res.status).toBe(201);
    return res.body as { id: number; created_at: string };
  };
  const first = await apply(company.id, 'EJ-1');
  await apply(company.id, 'EJ-1');
  const third = await apply(company.id, 'EJ-2');
  // Another company's application with the same value is in its own partition and totals.
  await apply(other.id, 'EJ-1');

  const slot = partitionKeyOf('SLOT4');
  const slotOf = async (id: number) => (await allItems()).find((i) => i.PK === `APPLICATION#${id}`)?.[slot];
  expect(await slotOf(first.id)).toBe(applicationSlot(company.id, 'external_job_id' as never, 'EJ-1'));
  expect(await slotOf(third.id)).toBe(applicationSlot(company.id, 'external_job_id' as never, 'EJ-2'));
  // Counted: folded onto the company's counter item (P160); `channel`, no filter here, is not counted.
  const counter = (await allItems()).find(
    (i) => i.PK === applicationCounterKey(company.id).PK && i.SK === applicationCounterKey(company.id).SK,
  );
  expect(counter?.[totalsAttribute('external_job_id' as never, 'EJ-1')]).toBe(2);
  expect(counter?.[totalsAttribute('external_job_id' as never, 'EJ-2')]).toBe(1);
  expect(counter?.['channel#referral']).toBeUndefined();

  const list = async (q: Record<string, string[]>) => {
    const page = await listApplications(company.id, q, link(q));
    return { count: page.count, ids: page.results.map((a) => a.id as number).sort((a, b) => a - b) };
  };
  const ejOne = await list({ external_job_id: ['EJ-1'] });
  expect(ejOne.count).toBe(2);
  expect(ejOne.ids).toContain(first.id);
  expect(ejOne.ids).not.toContain(third.id);
  expect(await list({ external_job_id: ['EJ-2'] })).toEqual({ count: 1, ids: [third.id] });
  // `channel` is no filter in this variant: ignored (D5).
  expect((await list({ channel: ['nowhere'] })).count).toBe(3);

  // Cleared with its record: a purge of the field removes the slot (P290), and the slot no longer answers for it.
  await clearPersonalData(
    { id: first.id, company: company.id, created_at: first.created_at },
    ['external_job_id'],
    new Date().toISOString(),
  );
  expect(await slotOf(first.id)).toBeUndefined();
  expect((await list({ external_job_id: ['EJ-1'] })).ids).not.toContain(first.id);

  expect(await refusal(listApplications(company.id, { external_job_id: ['x'.repeat(501)] }, link({})))).toEqual(tooLong('external_job_id'));
}, 120_000);

test('the throwaway company filter has lookup items written, moved and deleted with its company, and the list answers it', async () => {
  const [partner, stranger] = [await aPartner(), await aPartner()];
  const [a, b] = [await aCompany(partner.id), await aCompany(partner.id)];
  const foreign = await aCompany(stranger.id);
  for (const [c, value] of [
    [a, 'DE'],
    [b, 'FR'],
    [foreign, 'DE'],
  ] as const)
    await updateCompany(c.id, { country: value } as never);

  const lookups = async (value: string) => (await allItems()).filter((i) => i.PK === companySlot(partner.id, 'country' as never, value));
  const list = async (q: Record<string, string[]>, partnerId = partner.id) => {
    const page = await listCompanies({ partnerId }, q, link(q));
    return { count: page.count, ids: page.results.map((c) => c.id).sort((x, y) => x - y) };
  };
  // Written: one lookup item per company with a value, in its partner's partition only.
  expect((await lookups('DE')).length).toBe(1);
  expect(await list({ country: ['DE'] })).toEqual({ count: 1, ids: [a.id] });
  expect(await list({ country: ['FR'] })).toEqual({ count: 1, ids: [b.id] });
  expect(await list({ country: ['DE'] }, stranger.id)).toEqual({ count: 1, ids: [foreign.id] });
  // With another filter: the lookup partition answers, not the search document (which holds no copy of it).
  expect(await list({ country: ['DE'], status: ['active'], name: ['company'] })).toEqual({ count: 1, ids: [a.id] });

  // Moved with its company, then deleted.
  await updateCompany(b.id, { country: 'DE' } as never);
  expect((await lookups('DE')).length).toBe(2);
  expect((await lookups('FR')).length).toBe(0);
  expect(await list({ country: ['DE'] })).toEqual({ count: 2, ids: [a.id, b.id].sort((x, y) => x - y) });
  await updateCompany(a.id, { country: null } as never);
  expect((await lookups('DE')).length).toBe(1);
  expect(await list({ country: ['DE'] })).toEqual({ count: 1, ids: [b.id] });

  expect(await refusal(listCompanies({ partnerId: partner.id }, { country: ['x'.repeat(501)] }, link({})))).toEqual(tooLong('country'));
}, 120_000);
