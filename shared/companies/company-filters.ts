/**
 * The filters of `GET /companies/` (P243, P292, P330): the query's schema and validator, the planner
 * (`company-list.ts`, including `matchesCompany`), the company's layout (`company-layout.ts`), the search document
 * and the OpenAPI document derive from this list, through `companyFilterModule` (`company-filter-layout.ts`, which
 * says what each `serve` means). `ordering` is no filter: `company-list.ts` reads it (`readOrdering`, below).
 */
import { loadCompanyFiltersValidator } from '#generated/companies-filter-validators.js';
import { filterSet, type FilterDeclaration } from '#platform/filters.js';
import { stringParam, type QueryParams } from '#platform/query-params.js';
import { companyFilterModule, type CompanyServe } from '#companies/company-filter-layout.js';
import { COMPANY_STATUSES } from '#companies/company-schema.js';

export type { CompanyServe } from '#companies/company-filter-layout.js';

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

const layout = companyFilterModule(COMPANY_FILTER_DECLARATIONS);
export const { COMPANY_FILTER_QUERY_SCHEMA, COMPANY_FILTER_SLOTS, COMPANY_LOOKUPS } = layout;
export const { COMPANY_TOTALS_FILTERS, COMPANY_EXACT_FILTERS, COMPANY_SCAN_FILTERS } = layout;
/** The list's filters, read by the generated validator of `COMPANY_FILTER_QUERY_SCHEMA` (only the list bundles it). */
export const COMPANY_FILTER_SET = /* @__PURE__ */ filterSet(COMPANY_FILTER_DECLARATIONS, loadCompanyFiltersValidator);

type Declared = (typeof COMPANY_FILTER_DECLARATIONS)[number];
/** The filters with a slot of their own; each also has its totals on the partner's company counter. */
export type CompanySlotName = Extract<Declared, { serve: { slot: string } }>['name'];
/** The exact filters: a slot, or lookup items. */
export type CompanySlotFilter = CompanySlotName | Extract<Declared, { serve: { lookup: true } }>['name'];

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
