/**
 * The filters of `GET /jobs/` (P243): the planner (`job-list.ts`), the store (`job-store.ts`), the OpenAPI document
 * and the list-model test derive from this list. `serve` (docs/access-patterns.md):
 * - `slot`: a keys-only slot index, partition `<company jobs>#<filter>=<value>`; totals on the company's job counter
 *   item (`collection`, few values) or on an item per value (`own`);
 * - `lookup`: the LOOKUP index (by external id);
 * - `scan`: a case-insensitive substring of the lower-case copy on SLIM;
 * - `range`: on or after a date, on the collection's created order (COLLECTION) or a date index.
 */
import type { FilterDeclaration } from '#platform/filters.js';
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

type Declared = (typeof JOB_FILTER_DECLARATIONS)[number];
type SlotDeclared = Extract<Declared, { serve: { slot: string } }>;
export type JobSlotFilter = SlotDeclared['name'];
export type JobScanFilter = Extract<Declared, { serve: { scan: string } }>['name'];

/** The list's query parameters, in the document's order (a cursor is bound to them). */
export const JOB_FILTERS = JOB_FILTER_DECLARATIONS.map((d) => d.name);

const slotDeclarations = JOB_FILTER_DECLARATIONS.filter((d): d is SlotDeclared => 'slot' in d.serve);

/** Exact filters with a slot index of their own, and the index. */
export const JOB_FILTER_SLOTS: ReadonlyMap<JobSlotFilter, IndexName> = new Map(slotDeclarations.map((d) => [d.name, d.serve.slot]));
/** Slot filters whose per-value totals sit on the company's job counter item (enumerations). */
export const JOB_TOTALS_FILTERS: readonly JobSlotFilter[] = slotDeclarations
  .filter((d) => d.serve.totals === 'collection')
  .map((d) => d.name);
/** Contains filters and the lower-case copy each reads. */
export const JOB_SCAN_FILTERS: ReadonlyMap<JobScanFilter, 'title_lc' | 'city_lc'> = new Map(
  JOB_FILTER_DECLARATIONS.filter((d): d is Extract<Declared, { serve: { scan: string } }> => 'scan' in d.serve).map((d) => [
    d.name,
    d.serve.scan,
  ]),
);
/**
 * Date filters with a date index of their own, as [filter, index]: a list's range when no exact filter narrows
 * it, `last_content_update_at` first (for one date its range lies within `updated_at`'s).
 */
export const JOB_DATE_RANGES = JOB_FILTER_DECLARATIONS.flatMap((d) =>
  'range' in d.serve && d.serve.range !== 'COLLECTION' ? [[d.name, d.serve.range] as const] : [],
).reverse();
