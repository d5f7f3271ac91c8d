/**
 * Issue 42 item 2 (P292): a filter is one declaration. The lists' query strings are validated by the JSON Schemas
 * generated from their filter declarations (compiled by `npm run validators`), with the D5 error bodies the hand
 * parsers gave; and a throwaway filter declared here, on an index kind the jobs already use, is parsed and refused,
 * documented, bound in cursors and answered by the planner, with no other code.
 */
import { ApiError } from '#platform/errors.js';
import { filterQuerySchema, filterSet, type FilterDeclaration } from '#platform/filters.js';
import { makeCursor, pageRequest } from '#platform/pagination.js';
import type { QueryParams } from '#platform/query-params.js';
import { ajv } from '#platform/validation.js';
import { APPLICATION_FILTER_DECLARATIONS, APPLICATION_FILTER_SET } from '#applications/application-filters.js';
import { applicationFilterModule } from '#applications/application-filter-layout.js';
import { COMPANY_FILTER_DECLARATIONS, COMPANY_FILTER_SET } from '#companies/company-filters.js';
import { companyFilterModule } from '#companies/company-filter-layout.js';
import { JOB_FILTER_DECLARATIONS, JOB_FILTER_SET, type JobServe } from '#jobs/job-filters.js';
import { jobFilters } from '#jobs/job-filter-layout.js';
import { jobQuery } from '#jobs/job-list.js';
import { jobSlot } from '#jobs/job-store.js';
import { filterParameterTypes, queryParameters } from '#http/openapi-parameters.js';

/** The D2 body of what reading `q` throws (undefined when it reads). */
function refusal(read: (q: QueryParams) => unknown, q: QueryParams): Record<string, unknown> | undefined {
  try {
    read(q);
    return undefined;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.statusCode, ...error.body() };
  }
}

const d5 = (name: string, message: string) => ({
  status: 400,
  detail: `Invalid value for "${name}": ${message}`,
  code: 'invalid',
  errors: { [name]: [message] },
});

describe('the lists read their filters through the generated schemas (D5, P292)', () => {
  test.each<[string, (q: QueryParams) => unknown, QueryParams, string, string]>([
    ['jobs', JOB_FILTER_SET.read, { status: ['open'] }, 'status', '"open" is not one of active, deleted, archived.'],
    ['jobs', JOB_FILTER_SET.read, { remote: ['Remote'] }, 'remote', '"Remote" is not one of remote, hybrid, on-site.'],
    ['jobs', JOB_FILTER_SET.read, { title: ['x'.repeat(501)] }, 'title', 'Must be at most 500 characters.'],
    // UTF-16 code units, as `String.length` counts them: 251 emoji are 502.
    ['jobs', JOB_FILTER_SET.read, { country: ['😀'.repeat(251)] }, 'country', 'Must be at most 500 characters.'],
    ['jobs', JOB_FILTER_SET.read, { updated_at: ['2026-02-30'] }, 'updated_at', 'Must be a date (YYYY-MM-DD) or an ISO 8601 date-time.'],
    [
      'jobs',
      JOB_FILTER_SET.read,
      { created_at: ['2026-01-01T10:00:00'] },
      'created_at',
      'Must be a date (YYYY-MM-DD) or an ISO 8601 date-time.',
    ],
    ['applications', APPLICATION_FILTER_SET.read, { partner: ['0'] }, 'partner', 'Must be a positive integer.'],
    ['applications', APPLICATION_FILTER_SET.read, { job: ['9007199254740992'] }, 'job', 'Must be a positive integer.'],
    [
      'applications',
      APPLICATION_FILTER_SET.read,
      { sync_status: ['success'] },
      'sync_status',
      '"success" is not one of SUCCESS, SUCCESS_FALLBACK, EXPECTED_FAILURE, FAILURE, NOTSENT.',
    ],
    [
      'companies',
      COMPANY_FILTER_SET.read,
      { candidate_sync_active: ['yes'] },
      'candidate_sync_active',
      'Must be one of true, false, 1, 0.',
    ],
    [
      'companies',
      COMPANY_FILTER_SET.read,
      { status: ['active', 'gone', 'nope'] },
      'status',
      '"gone" is not one of invited, requested, active, failing, deactivated, deleted.',
    ],
  ])('%s: %p is the D5 400 naming %s', (_list, read, q, name, message) => {
    expect(refusal(read, q)).toEqual(d5(name, message));
  });

  test('several bad parameters: the first declared is named, whatever the query order', () => {
    const q = Object.assign(Object.create(null) as QueryParams, { updated_at: ['soon'], remote: ['x'], status: ['open'] });
    expect(Object.keys(refusal(JOB_FILTER_SET.read, q)!.errors as object)).toEqual(['status']);
  });

  test('values are read as declared: empty ones are absent, a single parameter takes its first value', () => {
    const q: QueryParams = {
      status: ['', 'active', 'open'],
      title: ['Chef'],
      language: [''],
      updated_at: ['2026-03-01T12:30:00.5+02:00'],
      country: ['😀'.repeat(250)],
      other: ['ignored'],
    };
    expect([...JOB_FILTER_SET.read(q)]).toEqual([
      ['title', 'Chef'],
      ['status', 'active'],
      ['country', '😀'.repeat(250)],
      ['updated_at', '2026-03-01T10:30:00.500Z'],
    ]);
    const applications = APPLICATION_FILTER_SET.read({ partner: ['007'], applied_at: ['2024-02-29'], email: ['A@b.example'] });
    expect([...applications]).toEqual([
      ['email', 'A@b.example'],
      ['partner', 7],
      ['applied_at', '2024-02-29T00:00:00.000Z'],
    ]);
    const companies = COMPANY_FILTER_SET.read({
      status: ['active', '', 'deleted'],
      job_sync_active: ['TRUE'],
      candidate_sync_active: ['0'],
    });
    expect([...companies]).toEqual([
      ['status', ['active', 'deleted']],
      ['candidate_sync_active', false],
      ['job_sync_active', true],
    ]);
  });
});

describe('a throwaway filter is one declaration (issue 42, item 2)', () => {
  // Declared here, on a kind of index the jobs already serve filters from: a keys-only slot with totals on the
  // company's job counter. Its validator is compiled in process by the service's ajv configuration, as
  // `npm run validators` compiles the lists' own (test/unit/generated-validators.test.ts holds them equal).
  const seniority = {
    name: 'seniority',
    kind: 'exact',
    value: ['junior', 'senior'],
    about: 'the seniority',
    serve: { slot: 'SLOT3', totals: 'collection' },
  } as const satisfies FilterDeclaration<JobServe>;
  const declarations: readonly FilterDeclaration<JobServe>[] = [...JOB_FILTER_DECLARATIONS, seniority];
  const filters = jobFilters(declarations, () => ajv.compile(filterQuerySchema(declarations)));

  test('it is parsed, and a bad value refused with the D5 body', () => {
    expect(filters.read({ seniority: ['senior'], status: ['active'] }).get('seniority')).toBe('senior');
    expect(refusal(filters.read, { seniority: ['lead'] })).toEqual(d5('seniority', '"lead" is not one of junior, senior.'));
    // The list's own filter set does not know it: ignored (D5).
    expect(JOB_FILTER_SET.read({ seniority: ['lead'] }).size).toBe(0);
  });

  test('it is in the OpenAPI document, typed and described from its declaration', () => {
    const parameters = queryParameters(filters.names, filterParameterTypes(declarations), ['page']);
    expect(parameters.find((p) => p.name === 'seniority')).toEqual({
      name: 'seniority',
      in: 'query',
      required: false,
      description: 'Exact match on the seniority; another value is a 400.',
      schema: { type: 'string', enum: ['junior', 'senior'] },
    });
    expect(parameters.map((p) => p.name)).toEqual([...JOB_FILTER_DECLARATIONS.map((d) => d.name), 'seniority', 'page']);
  });

  test('a cursor is bound to its value', () => {
    const options = { scope: 'jobs:company:1', filterParams: filters.names };
    const q = { seniority: ['junior'], page_size: ['5'] };
    const token = makeCursor(q, options, 2, 5, { position: { PK: 'a' }, count: 12 });
    expect(pageRequest({ ...q, page: ['2'], cursor: [token] }, options).cursor).toEqual({ position: { PK: 'a' }, count: 12 });
    expect(pageRequest({ ...q, seniority: ['senior'], page: ['2'], cursor: [token] }, options).cursor).toBeUndefined();
    expect(pageRequest({ page_size: ['5'], page: ['2'], cursor: [token] }, options).cursor).toBeUndefined();
    // Without the declaration the parameter binds nothing: the cursor opens whatever its value.
    const unbound = { ...options, filterParams: JOB_FILTER_SET.names };
    const other = makeCursor(q, unbound, 2, 5, { position: { PK: 'a' }, count: 12 });
    expect(pageRequest({ ...q, seniority: ['senior'], page: ['2'], cursor: [other] }, unbound).cursor).toBeDefined();
  });

  test('the planner answers it from its slot, the other filters as conditions', async () => {
    const query = await jobQuery(7, { seniority: ['senior'], updated_at: ['2026-01-01'] }, {}, filters);
    expect(query).toMatchObject({
      index: 'SLOT3',
      partitionValue: jobSlot(7, 'seniority' as never, 'senior'),
      conditions: [{ attr: 'updated_at', op: 'gte', value: '2026-01-01T00:00:00.000Z' }],
    });
    const alone = await jobQuery(7, { seniority: ['junior'], created_at: ['2026-02-01'] }, {}, filters);
    expect(alone).toMatchObject({
      index: 'SLOT3',
      partitionValue: jobSlot(7, 'seniority' as never, 'junior'),
      sortKeyFrom: '2026-02-01T00:00:00.000Z',
      conditions: [],
    });
    expect(alone.total).toEqual(expect.any(Function));
    // The list's own planner ignores the parameter: the collection.
    expect(await jobQuery(7, { seniority: ['junior'] })).toMatchObject({ index: 'COLLECTION', conditions: [] });
  });
});

describe.each([
  {
    list: 'applications',
    // On the slot `channel` serves, totals folded (test/http/filter-declaration.test.ts writes and lists it).
    declarations: APPLICATION_FILTER_DECLARATIONS.map((d) =>
      d.name === 'channel'
        ? { name: 'source', kind: 'exact', value: ['board', 'referral'], serve: { slot: 'SLOT4', totals: 'folded' } }
        : d,
    ) as readonly FilterDeclaration[],
    module: applicationFilterModule as (d: readonly FilterDeclaration[]) => Record<string, unknown>,
    own: APPLICATION_FILTER_SET,
  },
  {
    list: 'companies',
    declarations: [
      ...COMPANY_FILTER_DECLARATIONS,
      { name: 'source', kind: 'exact', value: ['board', 'referral'], serve: { lookup: true } },
    ] as readonly FilterDeclaration[],
    module: companyFilterModule as (d: readonly FilterDeclaration[]) => Record<string, unknown>,
    own: COMPANY_FILTER_SET,
  },
])('a throwaway $list filter is one declaration (issue 42, item 2, P330)', ({ list, declarations, module, own }) => {
  const filters = filterSet(declarations, () => ajv.compile(filterQuerySchema(declarations)));
  const exported = module(declarations);

  test("it is parsed, and a bad value refused with the D5 body; the list's own set ignores it", () => {
    expect(filters.read({ source: ['referral'] }).get('source')).toBe('referral');
    expect(refusal(filters.read, { source: ['print'] })).toEqual(d5('source', '"print" is not one of board, referral.'));
    expect(own.read({ source: ['print'] }).size).toBe(0);
  });

  test('it is in the query schema and the OpenAPI document, from its declaration', () => {
    const schema = exported[`${list === 'applications' ? 'APPLICATION' : 'COMPANY'}_FILTER_QUERY_SCHEMA`] as {
      properties: Record<string, unknown>;
    };
    expect(Object.keys(schema.properties)).toContain('source');
    const parameters = queryParameters(filters.names, filterParameterTypes(declarations), ['page']);
    expect(parameters.find((p) => p.name === 'source')).toMatchObject({
      in: 'query',
      schema: { type: 'string', enum: ['board', 'referral'] },
    });
  });

  test("the store's layout serves it", () => {
    const served = list === 'applications' ? [...(exported.APPLICATION_FILTER_SLOTS as Map<string, string>)] : exported.COMPANY_LOOKUPS;
    expect(served).toContainEqual(list === 'applications' ? ['source', 'SLOT4'] : 'source');
    if (list === 'applications') {
      expect(exported.FOLDED_FILTERS).toEqual(['partner_company_id', 'source']);
      expect(exported.COMPLEMENT_FILTERS).toContain('source');
    } else expect(exported.COMPANY_EXACT_FILTERS).toContain('source');
  });

  test('a cursor is bound to its value', () => {
    const options = { scope: `${list}:1`, filterParams: filters.names };
    const q = { source: ['board'], page_size: ['5'] };
    const token = makeCursor(q, options, 2, 5, { position: { PK: 'a' }, count: 12 });
    expect(pageRequest({ ...q, page: ['2'], cursor: [token] }, options).cursor).toEqual({ position: { PK: 'a' }, count: 12 });
    expect(pageRequest({ ...q, source: ['referral'], page: ['2'], cursor: [token] }, options).cursor).toBeUndefined();
  });
});

test('a filter set reads a declaration of every value kind by the schema generated for it', () => {
  const declarations: FilterDeclaration[] = [
    { name: 'n', kind: 'exact', value: 'id', serve: {} },
    { name: 'b', kind: 'exact', value: 'boolean', serve: {} },
    { name: 'd', kind: 'gte', value: 'date', serve: {} },
    { name: 't', kind: 'contains', value: 'string', serve: {} },
    { name: 'e', kind: 'exact', value: ['x', 'y'], repeatable: true, serve: {} },
  ];
  const set = filterSet(declarations, () => ajv.compile(filterQuerySchema(declarations)));
  expect([...set.read({ e: ['y', 'x'], t: ['T'], d: ['2026-01-31'], b: ['False'], n: ['12'] })]).toEqual([
    ['n', 12],
    ['b', false],
    ['d', '2026-01-31T00:00:00.000Z'],
    ['t', 'T'],
    ['e', ['y', 'x']],
  ]);
  expect(refusal(set.read, { e: ['x', 'z'] })).toEqual(d5('e', '"z" is not one of x, y.'));
  expect(refusal(set.read, { b: ['yes'], n: ['1'] })).toEqual(d5('b', 'Must be one of true, false, 1, 0.'));
});
