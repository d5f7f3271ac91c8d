/**
 * The filters of `GET /jobs/` (P243, P292): the query's schema and validator, the planner (`job-list.ts`, through
 * `jobFilters`), the store (`job-store.ts`), the OpenAPI document and the list-model test derive from this list. `serve` (docs/access-patterns.md):
 * - `slot`: a keys-only slot index, partition `<company jobs>#<filter>=<value>`; totals on the company's job counter
 *   item (`collection`, few values) or on an item per value (`own`);
 * - `lookup`: the LOOKUP index (by external id);
 * - `scan`: a case-insensitive substring of the lower-case copy on SLIM;
 * - `range`: on or after a date, on the collection's created order (COLLECTION) or a date index.
 */
import { loadJobFiltersValidator } from '#generated/jobs-validators.js';
import type { CompiledValidator } from '#platform/field-errors.js';
import { filterQuerySchema, filterSet, type FilterDeclaration, type FilterSet } from '#platform/filters.js';
import type { IndexName } from '#platform/table.js';
import { JOB_STATUSES, REMOTE_VALUES } from '#jobs/job-schema.js';

export type JobServe =
  | { slot: IndexName; totals: 'collection' | 'own' }
  | { lookup: 'LOOKUP' }
  | { scan: 'title_lc' | 'city_lc' }
  | { range: 'COLLECTION' | 'APPLIED' | 'UPDATED' };

export const JOB_FILTER_DECLARATIONS = [
  { name: 'external_id', kind: 'exact', value: 'string', about: "the job's ATS ID", serve: { lookup: 'LOOKUP' } },
  { name: 'title', kind: 'contains', value: 'string', about: 'the title', serve: { scan: 'title_lc' } },
  { name: 'status', kind: 'exact', value: JOB_STATUSES, about: 'the status', serve: { slot: 'SLOT1', totals: 'collection' } },
  { name: 'remote', kind: 'exact', value: REMOTE_VALUES, about: 'the work mode', serve: { slot: 'SLOT2', totals: 'collection' } },
  { name: 'language', kind: 'exact', value: 'string', about: 'the language', serve: { slot: 'SLOT3', totals: 'own' } },
  { name: 'city', kind: 'contains', value: 'string', about: 'the city', serve: { scan: 'city_lc' } },
  { name: 'country', kind: 'exact', value: 'string', about: 'the country', serve: { slot: 'SLOT4', totals: 'own' } },
  { name: 'created_at', kind: 'gte', value: 'date', serve: { range: 'COLLECTION' } },
  { name: 'updated_at', kind: 'gte', value: 'date', serve: { range: 'UPDATED' } },
  { name: 'last_content_update_at', kind: 'gte', value: 'date', serve: { range: 'APPLIED' } },
] as const satisfies readonly FilterDeclaration<JobServe>[];

/** The query's schema, compiled by `npm run validators` (P292). */
export const JOB_FILTER_QUERY_SCHEMA = /* @__PURE__ */ filterQuerySchema(JOB_FILTER_DECLARATIONS);

type Declared = (typeof JOB_FILTER_DECLARATIONS)[number];
type SlotDeclared = Extract<Declared, { serve: { slot: string } }>;
export type JobSlotFilter = SlotDeclared['name'];
export type JobScanFilter = Extract<Declared, { serve: { scan: string } }>['name'];

/** The index the contains filters read: the collection's lower-case copies (`JobServe` `scan`). */
export const JOB_SCAN_INDEX = 'SLIM' satisfies IndexName;

/** Where the store serves a set of job filter declarations (P292): what the planner and the store read of them. */
export interface JobFilterLayout {
  /** Exact filters with a slot index of their own, and the index. */
  slots: ReadonlyMap<JobSlotFilter, IndexName>;
  /** Slot filters whose per-value totals sit on the company's job counter item (enumerations). */
  totals: readonly JobSlotFilter[];
  /** Contains filters and the lower-case copy each reads. */
  scans: ReadonlyMap<JobScanFilter, 'title_lc' | 'city_lc'>;
  /** Exact filters on the lookup index, and the index. */
  lookups: ReadonlyMap<string, IndexName>;
  /**
   * Date filters with a date index of their own, as [filter, index]: a list's range when no exact filter narrows
   * it, the last declared first (`last_content_update_at`: for one date its range lies within `updated_at`'s).
   */
  dateRanges: readonly (readonly [string, IndexName])[];
}

export function jobFilterLayout(declarations: readonly FilterDeclaration<JobServe>[]): JobFilterLayout {
  const served = <K extends string>(key: K) =>
    declarations.flatMap((d) => (key in d.serve ? [[d.name, (d.serve as Record<K, unknown>)[key]] as const] : []));
  return {
    slots: new Map(served('slot') as [JobSlotFilter, IndexName][]),
    totals: declarations.flatMap((d) => ('slot' in d.serve && d.serve.totals === 'collection' ? [d.name as JobSlotFilter] : [])),
    scans: new Map(served('scan') as [JobScanFilter, 'title_lc' | 'city_lc'][]),
    lookups: new Map(served('lookup') as [string, IndexName][]),
    dateRanges: (served('range') as [string, IndexName][]).filter(([, index]) => index !== 'COLLECTION').reverse(),
  };
}

/** A list's job filters: the declarations (the list's, or a test's) read by their validator (`load`), and their layout. */
export type JobFilters = FilterSet<FilterDeclaration<JobServe>> & JobFilterLayout;

export function jobFilters(declarations: readonly FilterDeclaration<JobServe>[], load: () => CompiledValidator): JobFilters {
  return { ...filterSet(declarations, load), ...jobFilterLayout(declarations) };
}

/** The list's filters, read by the generated validator of `JOB_FILTER_QUERY_SCHEMA`. */
export const JOB_FILTER_SET = /* @__PURE__ */ jobFilters(JOB_FILTER_DECLARATIONS, loadJobFiltersValidator);
/** The list's query parameters, in the document's order (a cursor is bound to them). */
export const JOB_FILTERS = JOB_FILTER_DECLARATIONS.map((d) => d.name);
const layout = jobFilterLayout(JOB_FILTER_DECLARATIONS);
/** The store's slots and totals (`job-store.ts`). */
export const JOB_FILTER_SLOTS = layout.slots;
export const JOB_TOTALS_FILTERS = layout.totals;
