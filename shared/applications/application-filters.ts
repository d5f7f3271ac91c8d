/**
 * The filters of `GET /applications/` (P243, P292, P330): the query's schema and validator, the planner
 * (`application-list.ts`), the store's layout, the counters, the OpenAPI document and the list-model test derive
 * from this list, through `applicationFilterModule` (`application-filter-layout.ts`, which says what each `serve`
 * means).
 */
import { SYNC_STATUSES } from '#applications/applications.js';
import { applicationFilterModule, type ApplicationServe } from '#applications/application-filter-layout.js';
import { loadApplicationFiltersValidator } from '#generated/applications-filter-validators.js';
import { filterSet, type FilterDeclaration } from '#platform/filters.js';

export type { ApplicationServe } from '#applications/application-filter-layout.js';

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

export const {
  APPLICATION_FILTER_QUERY_SCHEMA,
  APPLICATION_FILTERS,
  APPLICATION_FILTER_SLOTS,
  TOTALS_FILTERS,
  FOLDED_FILTERS,
  JOB_VALUE_FILTERS,
  COUNTED_FILTERS,
  LOOKUP_FILTERS,
  APPLICATION_DATE_RANGES,
  COMPLEMENT_FILTERS,
} = applicationFilterModule(APPLICATION_FILTER_DECLARATIONS);
/** The list's filters, read by the generated validator of `APPLICATION_FILTER_QUERY_SCHEMA` (only the list bundles it). */
export const APPLICATION_FILTER_SET = /* @__PURE__ */ filterSet(APPLICATION_FILTER_DECLARATIONS, loadApplicationFiltersValidator);

type Declared = (typeof APPLICATION_FILTER_DECLARATIONS)[number];
/** The filters with a slot of their own. */
export type SlotFilter = Extract<Declared, { serve: { slot: string } }>['name'];
/** The filters served by lookup items. */
export type LookupFilter = Extract<Declared, { serve: { lookup: true } }>['name'];
export type CountedFilter = (typeof TOTALS_FILTERS)[number] | (typeof COUNTED_FILTERS)[number];
export type JobValueFilter = (typeof JOB_VALUE_FILTERS)[number];
