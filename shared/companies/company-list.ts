/**
 * The company list (GET /companies/, docs/access-patterns.md "Companies"): the spec's semantics
 * (`parseCompanyFilter`, `matchesCompany`, `compareCompanies`) and the plans that answer them at the cost of
 * the page:
 * - `created_at` order (the default) under exact filters: the partner's collection, or the most selective
 *   exact filter's slot, walked by cursors;
 * - `name`, `status` or `updated_at` order, unfiltered: that order's keys-only index, walked by cursors;
 * - anything else (a filter under another order, several `status` values, contains filters, several terms):
 *   every match in list order, from the partner's search document (P253, P256), or read whole when few match;
 *   its cursors carry the ids of the next pages (P258), and a walk stores the rest when it computes its list again
 *   (P260), so a walk reads the document twice.
 * A company-scoped key reads its own company.
 */
import { itemsOf } from '#platform/batch.js';
import { counterReader } from '#platform/counts.js';
import type { FilterValues } from '#platform/filters.js';
import { indexKeys, keys } from '#platform/keys.js';
import { countMatching, readKeys, readPage, type CollectionQuery, type Condition } from '#platform/paged-query.js';
import { chooseSource, type SourceCandidate } from '#platform/paged-sources.js';
import {
  carries,
  carryOn,
  envelope,
  idsOf,
  readCarried,
  pageRequest,
  type LinkContext,
  type Position,
  type PageEnvelope,
  type PageRequest,
} from '#platform/pagination.js';
import type { QueryParams } from '#platform/query-params.js';
import {
  entryFilterValue,
  readSearchDocument,
  searchedField,
  sortableOf,
  type SearchEntry,
  type SearchedField,
} from '#companies/company-search.js';
import {
  COMPANY_EXACT_FILTERS,
  COMPANY_FILTER_DECLARATIONS,
  COMPANY_FILTER_SET,
  COMPANY_LOOKUPS,
  COMPANY_SCAN_FILTERS,
  COMPANY_TOTALS_FILTERS,
  readOrdering,
  type CompanySlotFilter,
  type OrderingField,
} from '#companies/company-filters.js';
import { COMPANY_ORDER_INDEXES, companyFilterValue, companySource, fromItem } from '#companies/company-layout.js';
import { getCompanyRecord } from '#companies/company-store.js';
import { presentCompany, type Company, type CompanyRecord } from '#companies/company-schema.js';

// ---------------------------------------------------------------------------------------------------
// The spec's semantics

/** The list's query parameters (a cursor is bound to them). */
export const COMPANY_FILTERS = [...COMPANY_FILTER_DECLARATIONS.map((d) => d.name), 'ordering'];

export interface CompanyFilter {
  /** The declared filters present (`readFilters`): `status` a list of statuses, any of which matches. */
  values: FilterValues;
  ordering: { field: OrderingField; descending: boolean }[];
}

export function parseCompanyFilter(q: QueryParams): CompanyFilter {
  const ordering = readOrdering(q);
  return {
    values: COMPANY_FILTER_SET.read(q),
    ordering: ordering.length ? ordering : [{ field: 'created_at', descending: true }],
  };
}

/** What the filters read of a company: an exact filter's value, a searched field lower case. */
type Filtered = { exact: (name: CompanySlotFilter) => unknown; text: (field: SearchedField) => string };

/** Each filter by its declaration: a contains filter on any of its fields, an exact one equal to (any of) its values. */
function matches(c: Filtered, f: CompanyFilter): boolean {
  return COMPANY_FILTER_DECLARATIONS.every((d) => {
    const wanted = f.values.get(d.name);
    if (wanted === undefined) return true;
    if ('scan' in d.serve) return d.serve.scan.of.some((field) => c.text(field).includes(String(wanted).toLowerCase()));
    const value = c.exact(d.name as CompanySlotFilter);
    return Array.isArray(wanted) ? wanted.some((w) => w === value) : wanted === value;
  });
}

export const matchesCompany = (c: CompanyRecord, f: CompanyFilter): boolean =>
  matches({ exact: (name) => companyFilterValue(c, name), text: (field) => (c[field] ?? '').toLowerCase() }, f);

/** A filter served by lookup items (P241), which only its lookup partition answers. */
const isLookup = (name: CompanySlotFilter): name is (typeof COMPANY_LOOKUPS)[number] =>
  (COMPANY_LOOKUPS as readonly string[]).includes(name);

/** The same from a search document entry; not under a lookup filter (`partner_company_id`), which the entry holds no copy of. */
const entryMatches = (e: SearchEntry, f: CompanyFilter): boolean =>
  matches({ exact: (name) => (isLookup(name) ? undefined : entryFilterValue(e, name)), text: (field) => searchedField(e, field) }, f);

/** The list order (also applied to search document entries, whose name is lower case). */
export type SortableCompany = Pick<CompanyRecord, 'id' | 'name' | 'status' | 'created_at' | 'updated_at'>;

export function compareCompanies(ordering: CompanyFilter['ordering']) {
  return (a: SortableCompany, b: SortableCompany): number => {
    for (const { field, descending } of ordering) {
      const x = field === 'name' ? a.name.toLowerCase() : a[field];
      const y = field === 'name' ? b.name.toLowerCase() : b[field];
      if (x !== y) return (x < y ? -1 : 1) * (descending ? -1 : 1);
    }
    // Ties break by id in the direction of the first ordering term, so pages never overlap.
    return (a.id - b.id) * (ordering[0].descending ? -1 : 1);
  };
}

export type CompanyScope = { partnerId: number; companyId?: number };

// ---------------------------------------------------------------------------------------------------
// The list on indexes, and in memory

/** Search document entries per read unit (about 4.5 units at 2,000 companies). */
const ENTRIES_PER_UNIT = 450;
/** The cursor of a list in memory: the last id shown and how it sorted (P273), and the next pages' ids (P258). */
const CARRIED = 'carried';

/** An index walk with cursors, or every match in list order (`whole`: the records, read whole). */
type Plan = { walk: CollectionQuery } | { memory: () => Promise<{ list: SortableCompany[]; whole?: boolean }> };

/** `publicBase` is the service's public address, the base of an active `magic_link` (D20). */
export async function listCompanies(
  scope: CompanyScope,
  q: QueryParams,
  link: LinkContext,
  publicBase?: string,
): Promise<PageEnvelope<Company>> {
  const filter = parseCompanyFilter(q);
  const options = { scope: `companies:partner:${scope.partnerId}:${scope.companyId ?? '*'}`, filterParams: COMPANY_FILTERS };
  const request = pageRequest(q, options);
  const respond = async (count: number, records: CompanyRecord[], position: Record<string, unknown> | undefined) =>
    envelope(link, options, request, { count, position }, await Promise.all(records.map((c) => presentCompany(c, publicBase))));
  const { cursor } = request;
  let position = cursor?.position.index === CARRIED ? (cursor.position as Position) : undefined;
  if (position && carries(position)) {
    // The next page from the carried ids (P258, P260): each company read afresh, the count and the order the first page's.
    const keep = (c: CompanyRecord) => c.partner === scope.partnerId && matchesCompany(c, filter);
    const carried = await readCarried(position, request.pageSize, companiesById, keep);
    if (carried.page.length) return respond(cursor!.count, carried.page, carried.position);
    position = carried.position;
  }
  const plan: Plan =
    scope.companyId === undefined
      ? await planList(scope.partnerId, filter, request)
      : wholePlan(async () => [await getCompanyRecord(scope.companyId!)].filter((c) => c !== undefined), filter);
  if ('walk' in plan) {
    const page = await readPage(plan.walk, request);
    return respond(page.count, page.items.map(fromItem), page.position);
  }
  const { list, whole } = await plan.memory();
  const compare = compareCompanies(filter.ordering);
  // After the last company the cursor showed, as it sorted then (P273: it may have changed since), else by the page's number.
  const shown = position?.sort && ({ id: idsOf(position.after)[0], ...JSON.parse(position.sort) } as SortableCompany);
  const start = shown ? list.filter((c) => compare(c, shown) <= 0).length : (request.page - 1) * request.pageSize;
  const slice = list.slice(start, start + request.pageSize);
  const page = whole ? (slice as CompanyRecord[]) : await companiesById(slice.map((c) => c.id));
  const rest = list.slice(start + slice.length);
  const sort = (c: SortableCompany) => JSON.stringify(Object.fromEntries(filter.ordering.map(({ field }) => [field, c[field]])));
  const after = (c: SortableCompany): Position => ({ index: CARRIED, after: c.id.toString(36), sort: sort(c) });
  const [last, ids] = [slice.at(-1), rest.map((c) => c.id)];
  // Computed again for a walk whose carried ids ran out: the rest of the ids are stored (P260).
  const next = last && ((await carryOn(ids, request.pageSize, (i) => after(rest[i]), Boolean(position))) ?? after(last));
  return respond(cursor?.count ?? list.length, page, next);
}

/** Candidates read whole, then filtered and ordered in memory. */
function wholePlan(candidates: () => Promise<CompanyRecord[]>, filter: CompanyFilter): Plan {
  const matching = async () => (await candidates()).filter((c) => matchesCompany(c, filter)).sort(compareCompanies(filter.ordering));
  return { memory: async () => ({ list: await matching(), whole: true }) };
}

/** Companies by id, in the order given; one gone meanwhile is left out. */
async function companiesById(ids: number[]): Promise<CompanyRecord[]> {
  return (await itemsOf(ids.map(keys.company))).map(fromItem);
}

/** The companies of an exact filter's slot. */
async function slotCompanies(query: CollectionQuery): Promise<CompanyRecord[]> {
  return companiesById((await readKeys(query)).map((entry) => Number(String(entry.PK).slice('COMPANY#'.length))));
}

async function planList(partnerId: number, filter: CompanyFilter, request: PageRequest): Promise<Plan> {
  const collection = indexKeys.partnerCompanies(partnerId);
  const counterKey = keys.countOf(collection);
  const counted = counterReader([counterKey]);
  const { values, ordering } = filter;
  const statuses = [...new Set(values.get('status') as string[] | undefined)];
  // The status first (of equally small slots the first is chosen).
  const exact = new Map<CompanySlotFilter, string | boolean>(statuses.length === 1 ? [['status', statuses[0]]] : []);
  for (const name of COMPANY_EXACT_FILTERS) {
    const value = values.get(name);
    if (value !== undefined && !Array.isArray(value)) exact.set(name, value as string | boolean);
  }
  const conditions: Condition[] = [...exact].map(([attr, value]) => ({ attr, op: 'eq' as const, value }));
  const [first, ...more] = ordering;
  const ascending = !first.descending;
  const candidates: SourceCandidate[] = [...exact].map(([name, value]) => {
    const query: CollectionQuery = {
      ...companySource(partnerId, name, value),
      conditions: conditions.filter((c) => c.attr !== name),
      ascending,
    };
    const size = (COMPANY_TOTALS_FILTERS as readonly string[]).includes(name)
      ? () => counted(counterKey, `${name}#${String(value)}`)
      : () => countMatching({ ...query, conditions: [] });
    return { query, size };
  });
  const walked = !more.length && statuses.length < 2 && !COMPANY_SCAN_FILTERS.some((d) => values.has(d.name));
  if (walked && first.field === 'created_at') {
    const chosen = await chooseSource(candidates, request.cursor?.position.index);
    return { walk: chosen ?? { index: 'COLLECTION', partitionValue: collection, conditions, ascending, total: () => counted(counterKey) } };
  }
  if (walked && !values.size) {
    const index = COMPANY_ORDER_INDEXES[first.field as Exclude<OrderingField, 'created_at'>];
    return { walk: { index, partitionValue: collection, conditions: [], ascending, ordered: true, total: () => counted(counterKey) } };
  }
  // In memory: the matches of the smallest exact filter read whole where that costs less than the document.
  const sources = candidates.map((c) => ({ size: c.size, read: () => slotCompanies(c.query) }));
  if (statuses.length > 1) {
    const slots = statuses.map((status) => ({ ...companySource(partnerId, 'status', status), conditions: [] }));
    const size = async () => (await Promise.all(statuses.map((s) => counted(counterKey, `status#${s}`)))).reduce((a, b) => a + b, 0);
    sources.push({ size, read: async () => (await Promise.all(slots.map(slotCompanies))).flat() });
  }
  if (sources.length) {
    const sizes = await Promise.all(sources.map((s) => s.size()));
    const smallest = sizes.indexOf(Math.min(...sizes));
    const documentUnits = (await counted(counterKey)) / ENTRIES_PER_UNIT;
    const fewer = (sizes[smallest] - Math.min(sizes[smallest], request.pageSize)) * 0.5 <= documentUnits;
    if (fewer || [...exact.keys()].some(isLookup)) return wholePlan(sources[smallest].read, filter);
  }
  const matching = async () => (await readSearchDocument(partnerId)).filter((e) => entryMatches(e, filter)).map(sortableOf);
  return { memory: async () => ({ list: (await matching()).sort(compareCompanies(ordering)) }) };
}
