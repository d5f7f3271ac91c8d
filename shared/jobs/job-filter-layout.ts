/**
 * How the job store serves a list of job filter declarations (P292): the slots, totals, contains copies, lookups and
 * date ranges the planner (`job-list.ts`) and the store (`job-store.ts`) read, and the exports of `job-filters.ts`
 * built from its declarations. A test builds the same from a variant of them (a throwaway filter), so that
 * adding a filter on an existing index is one declaration. `serve` (docs/access-patterns.md):
 * - `slot`: a keys-only slot index, partition `<company jobs>#<filter>=<value>`; totals on the company's job counter
 *   item (`collection`, few values) or on an item per value (`own`);
 * - `lookup`: the LOOKUP index (by external id);
 * - `scan`: a case-insensitive substring of the lower-case copy on the scan index (SLIM);
 * - `range`: on or after a date, on the collection's created order (COLLECTION) or a date index.
 */
import type { CompiledValidator } from '#platform/field-errors.js';
import { filterQuerySchema, filterSet, type FilterDeclaration, type FilterSet } from '#platform/filters.js';
import type { IndexName } from '#platform/table.js';

export type JobServe =
  | { slot: IndexName; totals: 'collection' | 'own' }
  | { lookup: 'LOOKUP' }
  | { scan: 'title_lc' | 'city_lc' }
  | { range: 'COLLECTION' | 'APPLIED' | 'UPDATED' };

/** The index the contains filters read: the collection's lower-case copies (`scan`). */
export const JOB_SCAN_INDEX = 'SLIM' satisfies IndexName;

type SlotName<D> = Extract<D, { serve: { slot: string } }> extends { name: infer N } ? N & string : never;
type ScanName<D> = Extract<D, { serve: { scan: string } }> extends { name: infer N } ? N & string : never;

export interface JobFilterLayout<S extends string = string, C extends string = string> {
  /** Exact filters with a slot index of their own, and the index. */
  slots: ReadonlyMap<S, IndexName>;
  /** Slot filters whose per-value totals sit on the company's job counter item (enumerations). */
  totals: readonly S[];
  /** The values of those enumerations, each total written (0 when no job has it). */
  totalValues: ReadonlyMap<S, readonly string[]>;
  /** Slot filters whose totals sit on an item per value (P104). */
  ownTotals: readonly S[];
  /** Contains filters and the lower-case copy each reads. */
  scans: ReadonlyMap<C, 'title_lc' | 'city_lc'>;
  /** Exact filters on the lookup index, and the index. */
  lookups: ReadonlyMap<string, IndexName>;
  /**
   * Date filters with a date index of their own, as [filter, index]: a list's range when no exact filter narrows
   * it, the last declared first (`last_content_update_at`: for one date its range lies within `updated_at`'s).
   */
  dateRanges: readonly (readonly [string, IndexName])[];
}

export function jobFilterLayout<D extends FilterDeclaration<JobServe>>(
  declarations: readonly D[],
): JobFilterLayout<SlotName<D>, ScanName<D>> {
  const served = <K extends string>(key: K) =>
    declarations.flatMap((d) => (key in d.serve ? [[d.name, (d.serve as Record<K, unknown>)[key]] as const] : []));
  const totalled = (totals: 'collection' | 'own') =>
    declarations.filter((d) => 'slot' in d.serve && d.serve.totals === totals).map((d) => d.name as SlotName<D>);
  return {
    slots: new Map(served('slot') as [SlotName<D>, IndexName][]),
    totals: totalled('collection'),
    totalValues: new Map(
      declarations
        .filter((d) => 'slot' in d.serve && d.serve.totals === 'collection')
        .map((d) => [d.name as SlotName<D>, typeof d.value === 'string' ? [] : (d.value as readonly string[])]),
    ),
    ownTotals: totalled('own'),
    scans: new Map(served('scan') as [ScanName<D>, 'title_lc' | 'city_lc'][]),
    lookups: new Map(served('lookup') as [string, IndexName][]),
    dateRanges: (served('range') as [string, IndexName][]).filter(([, index]) => index !== 'COLLECTION').reverse(),
  };
}

/** A list's job filters: the declarations read by their validator (`load`), and their layout. */
export type JobFilters = FilterSet<FilterDeclaration<JobServe>> & JobFilterLayout;

export function jobFilters(declarations: readonly FilterDeclaration<JobServe>[], load: () => CompiledValidator): JobFilters {
  return { ...filterSet(declarations, load), ...jobFilterLayout(declarations) };
}

/**
 * What `job-filters.ts` exports of its declarations but the list's filter set (`jobFilters`, apart so that only the
 * list bundles its validator); a test makes a variant of that module from its own declarations.
 */
export function jobFilterModule<D extends FilterDeclaration<JobServe>>(declarations: readonly D[]) {
  const layout = jobFilterLayout(declarations);
  return {
    JOB_FILTER_DECLARATIONS: declarations,
    /** The query's schema, compiled by `npm run validators` (P292). */
    JOB_FILTER_QUERY_SCHEMA: filterQuerySchema(declarations),
    /** The list's query parameters, in the document's order (a cursor is bound to them). */
    JOB_FILTERS: declarations.map((d) => d.name),
    JOB_FILTER_SLOTS: layout.slots,
    JOB_TOTALS_FILTERS: layout.totals,
    JOB_TOTAL_VALUES: layout.totalValues,
    JOB_OWN_TOTALS_FILTERS: layout.ownTotals,
  };
}
