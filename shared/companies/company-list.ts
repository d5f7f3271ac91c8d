/**
 * The company list (GET /companies/, docs/access-patterns.md "Companies"): the spec's semantics
 * (`parseCompanyFilter`, `matchesCompany`, `compareCompanies`) and the plans that answer them at the cost of
 * the page:
 * - `created_at` order (the default): the partner's collection, or the most selective exact filter's slot;
 * - `name`, `status`, `updated_at` order: that order's keys-only index, or the filter's matches read whole,
 *   whichever costs less (P252);
 * - contains filters and orders of several terms: the partner's search document, which sorts them (P253, P256);
 * - several `status` values: their counters and slots (P178).
 * A company-scoped key reads its own company.
 */
import { batchGetItems, primaryKeyOf } from '#platform/batch.js';
import { counterReader } from '#platform/counts.js';
import { readFilters, type FilterValues } from '#platform/filters.js';
import { indexKeys, keys } from '#platform/keys.js';
import { sortKeyOf, type IndexName } from '#platform/table.js';
import { countMatching, readKeys, readPage, type CollectionQuery, type Condition } from '#platform/paged-query.js';
import { chooseSource, type SourceCandidate } from '#platform/paged-sources.js';
import { envelope, makeCursor, pageRequest, type LinkContext, type PageEnvelope, type PageRequest } from '#platform/pagination.js';
import { stringParam, type QueryParams } from '#platform/query-params.js';
import { readSearchDocument, searchedField, sortableOf, type SearchEntry, type SearchedField } from '#companies/company-search.js';
import {
  COMPANY_EXACT_FILTERS,
  COMPANY_FILTER_DECLARATIONS,
  COMPANY_SCAN_FILTERS,
  COMPANY_TOTALS_FILTERS,
  type CompanySlotFilter,
} from '#companies/company-filters.js';
import { COMPANY_ORDER_INDEXES, companyFilterValue, companySource, fromItem } from '#companies/company-layout.js';
import { getCompanyRecord } from '#companies/company-store.js';
import { COMPANY_STATUSES, presentCompany, type Company, type CompanyRecord } from '#companies/company-schema.js';

// ---------------------------------------------------------------------------------------------------
// The spec's semantics

/** The list's query parameters (a cursor is bound to them). */
export const COMPANY_FILTERS = [...COMPANY_FILTER_DECLARATIONS.map((d) => d.name), 'ordering'];
const ORDERING_FIELDS = ['name', 'status', 'created_at', 'updated_at'] as const;
type OrderingField = (typeof ORDERING_FIELDS)[number];

export interface CompanyFilter {
  /** The declared filters present (`readFilters`): `status` a list of statuses, any of which matches. */
  values: FilterValues;
  ordering: { field: OrderingField; descending: boolean }[];
}

export function parseCompanyFilter(q: QueryParams): CompanyFilter {
  const ordering = (stringParam(q, 'ordering') ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean)
    .flatMap((term) => {
      const descending = term.startsWith('-');
      const field = (descending ? term.slice(1) : term) as OrderingField;
      // D6: an unknown ordering field is ignored.
      return ORDERING_FIELDS.includes(field) ? [{ field, descending }] : [];
    });
  return {
    values: readFilters(q, COMPANY_FILTER_DECLARATIONS),
    ordering: ordering.length ? ordering : [{ field: 'created_at', descending: true }],
  };
}

const includes = (haystack: string | null, needle: string) => (haystack ?? '').toLowerCase().includes(needle.toLowerCase());

/** Each filter by its declaration: a contains filter on any of its fields, an exact one equal to (any of) its values. */
export function matchesCompany(c: CompanyRecord, f: CompanyFilter): boolean {
  return COMPANY_FILTER_DECLARATIONS.every((d) => {
    const wanted = f.values.get(d.name);
    if (wanted === undefined) return true;
    if ('scan' in d.serve) return d.serve.scan.of.some((field) => includes(c[field], String(wanted)));
    const value = companyFilterValue(c, d.name as CompanySlotFilter);
    return Array.isArray(wanted) ? wanted.some((w) => w === value) : wanted === value;
  });
}

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
// The list on indexes

/** Keys-only index entries per read unit (~105 bytes each, 0.5 unit per 4 KB). */
const KEYS_PER_UNIT = 78;
/** The most entries an item walk reads per wanted match. */
const MAX_ITEMS_AHEAD = 4;

/**
 * The cheapest read of a page of `matches` among `total` companies (P252): `whole`, the matches read and
 * sorted in memory; `items`, the order's index walked, each item read and checked; `keys`, the matches' keys
 * from their slots, then the order's index walked as keys passing over the rest.
 */
function cheapestRead(matches: number, total: number, pageSize: number, created: boolean): 'whole' | 'items' | 'keys' {
  const walked = (Math.min(pageSize, matches) * total) / Math.max(matches, 1);
  const units = new Map([
    ['whole', created ? Infinity : matches * 0.5],
    ['items', walked * 0.5],
    ['keys', (matches + (created ? 0 : walked)) / KEYS_PER_UNIT + Math.min(pageSize, matches) * 0.5],
  ] as const);
  return [...units.keys()].reduce((a, b) => (units.get(b)! < units.get(a)! ? b : a));
}

/** An index walk with cursors, or candidates sorted in memory. */
type Plan = { walk: CollectionQuery } | { memory: () => Promise<{ count: number; page: CompanyRecord[] }> };

/** `publicBase` is the service's public address, the base of an active `magic_link` (D20). */
export async function listCompanies(
  scope: CompanyScope,
  q: QueryParams,
  link: LinkContext,
  publicBase?: string,
): Promise<PageEnvelope<Company>> {
  const present = (records: CompanyRecord[]) => Promise.all(records.map((c) => presentCompany(c, publicBase)));
  const filter = parseCompanyFilter(q);
  const options = { scope: `companies:partner:${scope.partnerId}:${scope.companyId ?? '*'}`, filterParams: COMPANY_FILTERS };
  const request = pageRequest(q, options);
  const plan: Plan =
    scope.companyId === undefined
      ? await planList(scope.partnerId, filter, request)
      : { memory: () => inMemory(ownCompany(scope.companyId!), filter, request) };
  if ('memory' in plan) {
    const { count, page } = await plan.memory();
    return envelope(link, request, count, await present(page), undefined);
  }
  const page = await readPage(plan.walk, request);
  const next = page.position
    ? makeCursor(q, options, request.page + 1, request.pageSize, { position: page.position, count: page.count })
    : undefined;
  return envelope(link, request, page.count, await present(page.items.map((item) => fromItem(item))), next);
}

const ownCompany = async (id: number): Promise<CompanyRecord[]> => [await getCompanyRecord(id)].filter((c) => c !== undefined);

/** The request's page of a list in its order. */
const pageOf = <T>(all: T[], { page, pageSize }: PageRequest): T[] => all.slice((page - 1) * pageSize, page * pageSize);

/** Filters, orders and pages candidates in memory. */
async function inMemory(candidates: Promise<CompanyRecord[]>, filter: CompanyFilter, request: PageRequest) {
  const matching = (await candidates).filter((c) => matchesCompany(c, filter)).sort(compareCompanies(filter.ordering));
  return { count: matching.length, page: pageOf(matching, request) };
}

/** Companies by id, in the order given; one gone meanwhile is left out. */
async function companiesById(ids: number[]): Promise<CompanyRecord[]> {
  const items = await batchGetItems(ids.map((id) => keys.company(id)));
  return ids.flatMap((id) => {
    const item = items.get(primaryKeyOf(keys.company(id)));
    return item ? [fromItem(item)] : [];
  });
}

/** The id of the company a key entry names (`COMPANY#<id>`). */
const entryId = (entry: Record<string, unknown>) => Number(String(entry.PK).slice('COMPANY#'.length));

/** The companies of an exact filter's slot. */
async function slotCompanies(query: CollectionQuery): Promise<CompanyRecord[]> {
  return companiesById((await readKeys(query)).map(entryId));
}

/** A contains filter present: the fields it matches, and its value, lower case. */
type Scan = { of: readonly SearchedField[]; needle: string };

/** Slots in created order (their sort key), merged as keys: the page's items only are read. */
async function mergedSlotsPage(slots: CollectionQuery[], ascending: boolean, request: PageRequest) {
  const sortKey = sortKeyOf(slots[0].index as IndexName);
  const entries = (await Promise.all(slots.map((slot) => readKeys(slot)))).flat();
  const order = ascending ? 1 : -1;
  entries.sort((a, b) => (String(a[sortKey]) < String(b[sortKey]) ? -order : String(a[sortKey]) > String(b[sortKey]) ? order : 0));
  return { count: entries.length, page: await companiesById(pageOf(entries, request).map(entryId)) };
}

async function planList(partnerId: number, filter: CompanyFilter, request: PageRequest): Promise<Plan> {
  const collection = indexKeys.partnerCompanies(partnerId);
  const counterKey = keys.countOf(collection);
  const counted = counterReader([counterKey]);
  const partnerTotal = () => counted(counterKey);
  const { values, ordering } = filter;
  const statuses = [...new Set(values.get('status') as string[] | undefined)];
  // The status first (of equally small slots the first is chosen).
  const exact = new Map<CompanySlotFilter, string | boolean>(statuses.length === 1 ? [['status', statuses[0]]] : []);
  for (const name of COMPANY_EXACT_FILTERS) {
    const value = values.get(name);
    if (value !== undefined && !Array.isArray(value)) exact.set(name, value as string | boolean);
  }
  const scans: Scan[] = COMPANY_SCAN_FILTERS.filter((d) => values.has(d.name)).map((d) => ({
    of: d.serve.scan.of,
    needle: String(values.get(d.name)).toLowerCase(),
  }));
  const [first, ...more] = ordering;

  const conditions: Condition[] = [...exact].map(([attr, value]) => ({ attr, op: 'eq' as const, value }));
  const ascending = !first.descending;
  const created = first.field === 'created_at';
  // The `status` order under a `status` filter: only the run from its first status to its last.
  const [low, high] = first.field === 'status' && statuses.length ? [[...statuses].sort()[0], [...statuses].sort().at(-1)] : [];
  const run = COMPANY_STATUSES.filter((s) => low !== undefined && high !== undefined && s >= low && s <= high);
  /** The companies of some statuses, from their counters. */
  const statusTotal = async (among: readonly string[]) =>
    (await Promise.all(among.map((s) => counted(counterKey, `status#${s}`)))).reduce((a, b) => a + b, 0);
  const orderTotal = () => (run.length ? statusTotal(run) : partnerTotal());
  /** The order's own index (COLLECTION in created order). */
  const inOrder = (where: Condition[]): CollectionQuery => ({
    index: created ? 'COLLECTION' : COMPANY_ORDER_INDEXES[first.field as Exclude<OrderingField, 'created_at'>],
    partitionValue: collection,
    conditions: where,
    ascending,
    ...(created ? {} : { ordered: true }),
    ...(run.length ? { sortKeyFrom: `${low}#`, sortKeyTo: `${high}#~` } : {}),
  });
  /** The cheapest read of the `matches` companies of `slots` (`cheapestRead`); a cursor's walk stays a walk. */
  const cheapest = async (matches: number, slots: CollectionQuery[], where: Condition[], whole: () => Plan): Promise<Plan> => {
    const total = await orderTotal();
    const how = cheapestRead(matches, total, request.pageSize, created);
    const resumed = request.cursor?.position.index === inOrder(where).index;
    if (how === 'whole' && !resumed) return whole();
    if (how === 'keys' && created && !resumed) return { memory: () => mergedSlotsPage(slots, ascending, request) };
    const ahead = total / Math.max(matches, 1);
    const walk = { ...inOrder(where), matches: () => Promise.resolve(matches), readAhead: Math.min(MAX_ITEMS_AHEAD, ahead) };
    if (how !== 'keys') return { walk };
    let members: Promise<ReadonlySet<string>> | undefined;
    const read = async () => new Set((await Promise.all(slots.map((slot) => readKeys(slot)))).flat().map((e) => String(e.PK)));
    return { walk: { ...walk, conditions: [], readAhead: ahead, members: () => (members ??= read()) } };
  };
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
  const smallest = async () => {
    const sizes = await Promise.all(candidates.map((c) => c.size()));
    const i = sizes.indexOf(Math.min(...sizes));
    return { candidate: candidates[i], size: sizes[i] };
  };
  /** Candidates read whole, then filtered, ordered and paged in memory. */
  const wholePlan = (candidates: () => Promise<CompanyRecord[]>): Plan => ({ memory: () => inMemory(candidates(), filter, request) });
  const readWhole = (candidate: SourceCandidate): Plan => wholePlan(() => slotCompanies(candidate.query));

  if (scans.length || statuses.length > 1 || more.length) {
    // Another exact filter: the fewer of its smallest slot's companies and the document's matches, read whole.
    if ([...exact.keys()].some((name) => name !== 'status')) {
      const [narrowest, found] = await Promise.all([smallest(), scans.length ? documentMatches() : undefined]);
      if (!found || found.length >= narrowest.size) return readWhole(narrowest.candidate);
      return wholePlan(() => companiesById(found.map((e) => e[0])));
    }
    return scans.length || more.length ? fromDocument() : severalStatuses();
  }

  if (created) {
    const chosen = await chooseSource(candidates, request.cursor?.position.index);
    return { walk: chosen ?? { ...inOrder(conditions), total: partnerTotal } };
  }

  // Ordered by name, status or updated_at: the ordering index, keys only, in list order.
  const ordered = inOrder(conditions);
  if (!candidates.length) return { walk: { ...ordered, total: partnerTotal } };
  // Several filters: the smallest slot read whole; one: the cheapest way.
  if (candidates.length > 1) return readWhole((await smallest()).candidate);
  const [only] = candidates;
  const matches = request.cursor?.position.index === ordered.index ? request.cursor.count : await only.size();
  return cheapest(matches, [only.query], conditions, () => readWhole(only));

  /** Several `status` values and no other exact filter: counted by their counters, read the cheapest way. */
  async function severalStatuses(): Promise<Plan> {
    const where: Condition[] = [{ attr: 'status', op: 'in', value: statuses }];
    const slots = statuses.map((status) => ({ ...companySource(partnerId, 'status', status), conditions: [] }));
    const found = async () => (await Promise.all(slots.map(slotCompanies))).flat();
    return cheapest(await statusTotal(statuses), slots, where, () => wholePlan(found));
  }

  /**
   * Contains filters or several terms, with `status` at most (P253, P256): the search document finds the matches
   * and sorts them, so that only the page's items are read.
   */
  async function fromDocument(): Promise<Plan> {
    const sorted = (await documentMatches()).map(sortableOf).sort(compareCompanies(ordering));
    return { memory: async () => ({ count: sorted.length, page: await companiesById(pageOf(sorted, request).map((s) => s.id)) }) };
  }

  /** The search document's entries that match the contains filters and the statuses. */
  async function documentMatches() {
    const wanted = new Set(statuses);
    const matches = (e: SearchEntry) => scans.every(({ of, needle }) => of.some((field) => searchedField(e, field).includes(needle)));
    return (await readSearchDocument(partnerId)).filter((e) => matches(e) && (!wanted.size || wanted.has(e[1])));
  }
}
