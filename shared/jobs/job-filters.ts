/**
 * The filters of `GET /jobs/` (P243, P292): the query's schema and validator, the planner (`job-list.ts`), the
 * store (`job-store.ts`), the OpenAPI document and the list-model test derive from this list, through
 * `jobFilterModule` (`job-filter-layout.ts`, which says what each `serve` means).
 */
import { loadJobFiltersValidator } from '#generated/jobs-filter-validators.js';
import type { FilterDeclaration } from '#platform/filters.js';
import { jobFilterModule, jobFilters, type JobServe } from '#jobs/job-filter-layout.js';
import { JOB_STATUSES, REMOTE_VALUES } from '#jobs/job-schema.js';

export type { JobFilters, JobServe } from '#jobs/job-filter-layout.js';

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

export const { JOB_FILTER_QUERY_SCHEMA, JOB_FILTERS, JOB_FILTER_SLOTS, JOB_TOTALS_FILTERS, JOB_TOTAL_VALUES, JOB_OWN_TOTALS_FILTERS } =
  jobFilterModule(JOB_FILTER_DECLARATIONS);
/** The list's filters, read by the generated validator of `JOB_FILTER_QUERY_SCHEMA` (only the list bundles it). */
export const JOB_FILTER_SET = /* @__PURE__ */ jobFilters(JOB_FILTER_DECLARATIONS, loadJobFiltersValidator);

type Declared = (typeof JOB_FILTER_DECLARATIONS)[number];
export type JobSlotFilter = Extract<Declared, { serve: { slot: string } }>['name'];
export type JobScanFilter = Extract<Declared, { serve: { scan: string } }>['name'];
