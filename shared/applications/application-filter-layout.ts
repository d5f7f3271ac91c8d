/**
 * How the application store serves a list of application filter declarations (P292, P330): the exports of
 * `application-filters.ts` built from its declarations, which the planner (`application-list.ts`), the store
 * (`application-store.ts`) and the counters (`application-counters.ts`) read. A test builds the same from a variant
 * of them (a throwaway filter), so that adding a filter on an existing index is one declaration. `serve`
 * (docs/access-patterns.md):
 * - `slot`: a keys-only slot index, partition `<company apps>#<filter>=<value>`;
 * - `lookup`: base-table lookup items in that partition, written in the create's transaction, for values a record
 *   has at most once and often not at all (P241);
 * - `index`: the LOOKUP index (by e-mail);
 * - `range`: a date index, or the collection's created order (COLLECTION);
 * - `totals`: where matches are counted (`application-counters.ts`; `keys`: the index or lookup partition's keys).
 */
import { filterQuerySchema, type FilterDeclaration } from '#platform/filters.js';
import type { IndexName } from '#platform/table.js';

export type ApplicationServe =
  | { slot: IndexName; totals: 'company' | 'folded' | 'job' | 'keys' | 'own' }
  | { lookup: true; totals: 'folded' | 'job' | 'keys' }
  | { index: 'LOOKUP'; totals: 'own' | 'keys' }
  | { range: 'APPLIED' | 'UPDATED' | 'COLLECTION' }
  /** `agency=X` is `partner=X` for an agency X, nothing otherwise (P236): the partner's slot and totals. */
  | { alias: 'partner' };

type Named<D, S> = Extract<D, { serve: S }> extends { name: infer N } ? N & string : never;

/**
 * What `application-filters.ts` exports of its declarations but the list's filter set (`APPLICATION_FILTER_SET`,
 * apart so that only the list bundles its validator); a test makes a variant of that module from its own declarations.
 */
export function applicationFilterModule<D extends FilterDeclaration<ApplicationServe>>(declarations: readonly D[]) {
  type Totals<T extends string> = Named<D, { totals: T }>;
  type SlotName = Named<D, { slot: string }>;
  type LookupName = Named<D, { lookup: true }>;
  const namesWith = <T extends string>(totals: T) =>
    declarations.filter((d) => 'totals' in d.serve && d.serve.totals === totals).map((d) => d.name as Totals<T>);
  const folded = namesWith('folded');
  const totals = namesWith('company');
  return {
    APPLICATION_FILTER_DECLARATIONS: declarations,
    /** The query's schema, compiled by `npm run validators` (P292). */
    APPLICATION_FILTER_QUERY_SCHEMA: filterQuerySchema(declarations),
    /** The list's query parameters, in the document's order (a cursor is bound to them). */
    APPLICATION_FILTERS: declarations.map((d) => d.name),
    /** Slot filters and their index. */
    APPLICATION_FILTER_SLOTS: new Map(
      declarations.flatMap((d) => ('slot' in d.serve ? [[d.name as SlotName, d.serve.slot] as const] : [])),
    ) as ReadonlyMap<SlotName, IndexName>,
    /** Totals on the company's application counter (few values each). */
    TOTALS_FILTERS: totals,
    /** Totals folded onto the company's counter while it holds fewer than FOLD_LIMIT values, else own items (P160). */
    FOLDED_FILTERS: folded,
    /** A partner's or agency's id for a job: totals folded onto the job's counter item (P181). */
    JOB_VALUE_FILTERS: namesWith('job'),
    /** Totals on counter items of their own: the job, and the folded filters beyond the fold. */
    COUNTED_FILTERS: [...namesWith('own'), ...folded],
    /** The filters served by lookup items (P241). */
    LOOKUP_FILTERS: declarations.filter((d) => 'lookup' in d.serve).map((d) => d.name as LookupName),
    /** Date filters with a date index of their own, as [filter, index]: a list's range when no exact filter narrows it. */
    APPLICATION_DATE_RANGES: declarations.flatMap((d) =>
      'range' in d.serve && d.serve.range !== 'COLLECTION' ? [[d.name, d.serve.range] as const] : [],
    ),
    /** Filters whose complement is readable: every value enumerable from the company's counter item (P177). */
    COMPLEMENT_FILTERS: [...totals, ...folded] as readonly string[],
  };
}
