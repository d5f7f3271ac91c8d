/**
 * The filters of `GET /applications/` (P243): the planner, the store's layout, the counters, the OpenAPI document
 * and the list-model test derive from this list. `serve` (docs/access-patterns.md):
 * - `slot`: a keys-only slot index, partition `<company apps>#<filter>=<value>`;
 * - `lookup`: base-table lookup items in that partition, written in the create's transaction, for values a record
 *   has at most once and often not at all (P241);
 * - `index`: the LOOKUP index (by e-mail);
 * - `range`: a date index, or the collection's created order (COLLECTION);
 * - `totals`: where matches are counted (`application-counters.ts`; `keys`: the index or lookup partition's keys).
 */
import { SYNC_STATUSES } from '#applications/applications.js';
import { loadApplicationFiltersValidator } from '#generated/applications-filter-validators.js';
import { filterQuerySchema, filterSet, type FilterDeclaration } from '#platform/filters.js';
import type { IndexName } from '#platform/table.js';

export type ApplicationServe =
  | { slot: IndexName; totals: 'company' | 'folded' | 'job' | 'keys' | 'own' }
  | { lookup: true; totals: 'folded' | 'job' | 'keys' }
  | { index: 'LOOKUP'; totals: 'own' | 'keys' }
  | { range: 'APPLIED' | 'UPDATED' | 'COLLECTION' }
  /** `agency=X` is `partner=X` for an agency X, nothing otherwise (P236): the partner's slot and totals. */
  | { alias: 'partner' };

export const APPLICATION_FILTER_DECLARATIONS = [
  { name: 'email', kind: 'exact', value: 'string', about: "the applicant's e-mail, any case", serve: { index: 'LOOKUP', totals: 'keys' } },
  { name: 'partner_application_id', kind: 'exact', value: 'string', serve: { lookup: true, totals: 'keys' } },
  { name: 'partner_job_id', kind: 'exact', value: 'string', serve: { lookup: true, totals: 'job' } },
  { name: 'partner_company_id', kind: 'exact', value: 'string', serve: { lookup: true, totals: 'folded' } },
  {
    name: 'partner',
    kind: 'exact',
    value: 'id',
    about: 'the ID of the partner that submitted the application',
    serve: { slot: 'SLOT2', totals: 'company' },
  },
  { name: 'agency', kind: 'exact', value: 'id', about: 'the ID of the agency that submitted the application', serve: { alias: 'partner' } },
  { name: 'agency_job_id', kind: 'exact', value: 'string', serve: { lookup: true, totals: 'job' } },
  { name: 'channel', kind: 'exact', value: 'string', serve: { slot: 'SLOT4', totals: 'folded' } },
  { name: 'job', kind: 'exact', value: 'id', about: 'the job ID', serve: { slot: 'SLOT3', totals: 'own' } },
  { name: 'sync_status', kind: 'exact', value: SYNC_STATUSES, about: 'the ATS sync state', serve: { slot: 'SLOT1', totals: 'company' } },
  { name: 'applied_at', kind: 'gte', value: 'date', serve: { range: 'APPLIED' } },
  { name: 'created_at', kind: 'gte', value: 'date', serve: { range: 'COLLECTION' } },
  { name: 'updated_at', kind: 'gte', value: 'date', serve: { range: 'UPDATED' } },
] as const satisfies readonly FilterDeclaration<ApplicationServe>[];

/** The query's schema, compiled by `npm run validators` (P292). */
export const APPLICATION_FILTER_QUERY_SCHEMA = /* @__PURE__ */ filterQuerySchema(APPLICATION_FILTER_DECLARATIONS);

type Declared = (typeof APPLICATION_FILTER_DECLARATIONS)[number];
/** The filters with a slot of their own. */
export type SlotFilter = Extract<Declared, { serve: { slot: string } }>['name'];
/** The filters served by lookup items. */
export type LookupFilter = Extract<Declared, { serve: { lookup: true } }>['name'];
type Totals<T extends string> = Extract<Declared, { serve: { totals: T } }>['name'];

export const APPLICATION_FILTERS = APPLICATION_FILTER_DECLARATIONS.map((d) => d.name);
/** The list's filters, read by the generated validator of `APPLICATION_FILTER_QUERY_SCHEMA` (P292). */
export const APPLICATION_FILTER_SET = /* @__PURE__ */ filterSet(APPLICATION_FILTER_DECLARATIONS, loadApplicationFiltersValidator);

const having = <T extends Declared>(test: (d: Declared) => d is T) => APPLICATION_FILTER_DECLARATIONS.filter(test);

/** Slot filters and their index. */
export const APPLICATION_FILTER_SLOTS: ReadonlyMap<SlotFilter, IndexName> = new Map(
  having((d): d is Extract<Declared, { serve: { slot: string } }> => 'slot' in d.serve).map((d) => [d.name, d.serve.slot]),
);

const namesWith = <T extends string>(totals: T) =>
  APPLICATION_FILTER_DECLARATIONS.filter((d) => 'totals' in d.serve && d.serve.totals === totals).map((d) => d.name) as Totals<T>[];

/** Totals on the company's application counter (few values each). */
export const TOTALS_FILTERS = namesWith('company');
/** Totals folded onto the company's counter while it holds fewer than FOLD_LIMIT values, else own items (P160). */
export const FOLDED_FILTERS = namesWith('folded');
/** A partner's or agency's id for a job: totals folded onto the job's counter item (P181). */
export const JOB_VALUE_FILTERS = namesWith('job');
/** Totals on counter items of their own: the job, and the folded filters beyond the fold. */
export const COUNTED_FILTERS = [...namesWith('own'), ...FOLDED_FILTERS];
/** The filters served by lookup items (P241). */
export const LOOKUP_FILTERS = having((d): d is Extract<Declared, { serve: { lookup: true } }> => 'lookup' in d.serve).map((d) => d.name);
/** Date filters with a date index of their own, as [filter, index]: a list's range when no exact filter narrows it. */
export const APPLICATION_DATE_RANGES = APPLICATION_FILTER_DECLARATIONS.flatMap((d) =>
  'range' in d.serve && d.serve.range !== 'COLLECTION' ? [[d.name, d.serve.range] as const] : [],
);
/** Filters whose complement is readable: every value enumerable from the company's counter item (P177). */
export const COMPLEMENT_FILTERS: readonly (SlotFilter | LookupFilter)[] = [...TOTALS_FILTERS, ...FOLDED_FILTERS];

export type CountedFilter = (typeof TOTALS_FILTERS)[number] | (typeof COUNTED_FILTERS)[number];
export type JobValueFilter = (typeof JOB_VALUE_FILTERS)[number];
