/**
 * The filters of `GET /companies/` (P243): the planner (`company-list.ts`, including `matchesCompany`), the company's
 * layout (`company-layout.ts`) and the OpenAPI document derive from this list. `serve` (docs/access-patterns.md, "Companies"):
 * - `slot`: a keys-only slot index, partition `<partner's companies>#<filter>=<value>`; totals on the partner's
 *   company counter item (bounded values);
 * - `lookup`: lookup items in that partition, for a value a company has at most once and often not at all;
 *   counted as keys (P241);
 * - `scan`: a case-insensitive substring of the fields `of`, read lower case from the partner's search document (P179).
 * `ordering` is no filter: `company-list.ts` reads it.
 */
import { loadCompanyFiltersValidator } from '#generated/companies-filter-validators.js';
import { filterQuerySchema, filterSet, type FilterDeclaration } from '#platform/filters.js';
import type { IndexName } from '#platform/table.js';
import { stringParam, type QueryParams } from '#platform/query-params.js';
import { COMPANY_STATUSES, type CompanyRecord } from '#companies/company-schema.js';

export type CompanyServe = { slot: IndexName } | { lookup: true } | { scan: { of: readonly (keyof CompanyRecord)[] } };

export const COMPANY_FILTER_DECLARATIONS = [
  { name: 'name', kind: 'contains', value: 'string', about: 'the name', serve: { scan: { of: ['name'] } } },
  { name: 'ats', kind: 'exact', value: 'string', about: 'the ATS slug', serve: { slot: 'SLOT2' } },
  { name: 'partner_company_id', kind: 'exact', value: 'string', serve: { lookup: true } },
  { name: 'status', kind: 'exact', value: COMPANY_STATUSES, repeatable: true, about: 'lifecycle status', serve: { slot: 'SLOT1' } },
  {
    name: 'search',
    kind: 'search',
    value: 'string',
    about: 'name, ATS slug and `partner_company_id`',
    serve: { scan: { of: ['name', 'ats', 'partner_company_id'] } },
  },
  { name: 'candidate_sync_active', kind: 'exact', value: 'boolean', serve: { slot: 'SLOT4' } },
  { name: 'job_sync_active', kind: 'exact', value: 'boolean', serve: { slot: 'SLOT3' } },
] as const satisfies readonly FilterDeclaration<CompanyServe>[];

/** The query's schema, compiled by `npm run validators` (P292). */
export const COMPANY_FILTER_QUERY_SCHEMA = /* @__PURE__ */ filterQuerySchema(COMPANY_FILTER_DECLARATIONS);

/** The list's filters, read by the generated validator of `COMPANY_FILTER_QUERY_SCHEMA` (P292). */
export const COMPANY_FILTER_SET = /* @__PURE__ */ filterSet(COMPANY_FILTER_DECLARATIONS, loadCompanyFiltersValidator);

type Declared = (typeof COMPANY_FILTER_DECLARATIONS)[number];
type SlotDeclared = Extract<Declared, { serve: { slot: string } }>;
type LookupDeclared = Extract<Declared, { serve: { lookup: true } }>;
type ScanDeclared = Extract<Declared, { serve: { scan: object } }>;

/** The filters with a slot of their own; each also has its totals on the partner's company counter. */
export type CompanySlotName = SlotDeclared['name'];
/** The exact filters: a slot, or lookup items. */
export type CompanySlotFilter = CompanySlotName | LookupDeclared['name'];

const slotDeclarations = COMPANY_FILTER_DECLARATIONS.filter((d): d is SlotDeclared => 'slot' in d.serve);

/** Exact filters on a keys-only slot index, and the index. */
export const COMPANY_FILTER_SLOTS: ReadonlyMap<CompanySlotName, IndexName> = new Map(slotDeclarations.map((d) => [d.name, d.serve.slot]));
/** Exact filters served by lookup items. */
export const COMPANY_LOOKUPS = COMPANY_FILTER_DECLARATIONS.filter((d): d is LookupDeclared => 'lookup' in d.serve).map((d) => d.name);
/** Slot filters whose per-value totals sit on the partner's company counter item: all of them. */
export const COMPANY_TOTALS_FILTERS: readonly CompanySlotName[] = slotDeclarations.map((d) => d.name);
/** The exact filters, in declaration order. */
export const COMPANY_EXACT_FILTERS: readonly CompanySlotFilter[] = COMPANY_FILTER_DECLARATIONS.filter(
  (d): d is SlotDeclared | LookupDeclared => d.kind === 'exact',
).map((d) => d.name);
/** Contains filters, and the record fields each matches a substring of. */
export const COMPANY_SCAN_FILTERS: readonly ScanDeclared[] = COMPANY_FILTER_DECLARATIONS.filter(
  (d): d is ScanDeclared => 'scan' in d.serve,
);

const ORDERING_FIELDS = ['name', 'status', 'created_at', 'updated_at'] as const;
export type OrderingField = (typeof ORDERING_FIELDS)[number];

/** `ordering`, no filter: a comma list of fields, each with an optional `-`; no schema refuses it (D6 ignores what it does not know). */
export function readOrdering(q: QueryParams): { field: OrderingField; descending: boolean }[] {
  return (stringParam(q, 'ordering') ?? '').split(',').flatMap((term) => {
    const descending = term.trim().startsWith('-');
    const field = term.trim().slice(descending ? 1 : 0) as OrderingField;
    // D6: an unknown ordering field (or an empty term) is ignored.
    return ORDERING_FIELDS.includes(field) ? [{ field, descending }] : [];
  });
}
