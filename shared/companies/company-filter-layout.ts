/**
 * How the company store serves a list of company filter declarations (P243, P330): the exports of
 * `company-filters.ts` built from its declarations, which the planner (`company-list.ts`), the layout
 * (`company-layout.ts`) and the search document (`company-search.ts`) read. A test builds the same from a variant of
 * them (a throwaway filter), so that adding a filter on an existing index is one declaration. `serve`
 * (docs/access-patterns.md, "Companies"):
 * - `slot`: a keys-only slot index, partition `<partner's companies>#<filter>=<value>`; totals on the partner's
 *   company counter item (bounded values);
 * - `lookup`: lookup items in that partition, for a value a company has at most once and often not at all;
 *   counted as keys (P241); the search document holds no copy of it;
 * - `scan`: a case-insensitive substring of the fields `of`, read lower case from the partner's search document (P179).
 */
import { filterQuerySchema, type FilterDeclaration } from '#platform/filters.js';
import type { IndexName } from '#platform/table.js';
import type { CompanyRecord } from '#companies/company-schema.js';

export type CompanyServe = { slot: IndexName } | { lookup: true } | { scan: { of: readonly (keyof CompanyRecord)[] } };

type Named<D, S> = Extract<D, { serve: S }> extends { name: infer N } ? N & string : never;

/**
 * What `company-filters.ts` exports of its declarations but the list's filter set (`COMPANY_FILTER_SET`, apart so
 * that only the list bundles its validator); a test makes a variant of that module from its own declarations.
 */
export function companyFilterModule<D extends FilterDeclaration<CompanyServe>>(declarations: readonly D[]) {
  type SlotName = Named<D, { slot: string }>;
  type LookupName = Named<D, { lookup: true }>;
  const slots = declarations.flatMap((d) => ('slot' in d.serve ? [[d.name as SlotName, d.serve.slot] as const] : []));
  return {
    COMPANY_FILTER_DECLARATIONS: declarations,
    /** The query's schema, compiled by `npm run validators` (P292). */
    COMPANY_FILTER_QUERY_SCHEMA: filterQuerySchema(declarations),
    /** Exact filters on a keys-only slot index, and the index. */
    COMPANY_FILTER_SLOTS: new Map(slots) as ReadonlyMap<SlotName, IndexName>,
    /** Exact filters served by lookup items. */
    COMPANY_LOOKUPS: declarations.filter((d) => 'lookup' in d.serve).map((d) => d.name as LookupName),
    /** Slot filters whose per-value totals sit on the partner's company counter item: all of them. */
    COMPANY_TOTALS_FILTERS: slots.map(([name]) => name) as readonly SlotName[],
    /** The exact filters, in declaration order. */
    COMPANY_EXACT_FILTERS: declarations.filter((d) => d.kind === 'exact').map((d) => d.name as SlotName | LookupName) as readonly (
      SlotName | LookupName
    )[],
    /** Contains filters, and the record fields each matches a substring of. */
    COMPANY_SCAN_FILTERS: declarations.filter((d): d is Extract<D, { serve: { scan: object } }> => 'scan' in d.serve),
  };
}
