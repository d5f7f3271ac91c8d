/**
 * Issue 42 item 2 (P292): a filter is one declaration, down to the store. This file replaces the jobs' declaration
 * module (`#jobs/job-filters.js`) by a variant built the way the real one is (`jobFilterModule`, `jobFilters`), in which the slot
 * of `language` serves a throwaway `employment_type` filter instead; its validator is compiled in process by the
 * service's ajv configuration. Nothing else changes: the import writes the filter's slot and its per-value
 * totals, a change of the value moves (or clears) them, and the list answers the filter and refuses a bad value.
 */
import { jest } from '@jest/globals';
import { filterQuerySchema, type FilterDeclaration } from '#platform/filters.js';
import { ajv } from '#platform/validation.js';
import { jobFilterModule, jobFilters, type JobServe } from '#jobs/job-filter-layout.js';
import { JOB_FILTER_DECLARATIONS } from '#jobs/job-filters.js';

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

// Everything that reads the declarations is imported after the variant is in place.
const { importJobs, jobSlot, jobValueCounterKey } = await import('#jobs/job-store.js');
const { listJobs } = await import('#jobs/job-list.js');
const { aCompany, aPartner } = await import('../helpers/fixtures.js');
const { allItems } = await import('../helpers/inspect.js');
const { startTestRuntime } = await import('../helpers/runtime.js');
const { ApiError } = await import('#platform/errors.js');

let api: Awaited<ReturnType<typeof startTestRuntime>>;
beforeAll(async () => {
  api = await startTestRuntime();
}, 120_000);
afterAll(() => api?.stop());

const link = (query: Record<string, string[]>) => ({ baseUrl: 'https://api.example/jobs', query });
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
