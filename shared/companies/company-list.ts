/**
 * The company list (GET /companies/) on indexes, counters and cursors (issue 11, docs/access-patterns.md,
 * "Companies"): a page costs the page, not the partner's whole company list. The filters are declared in
 * `company-filters.ts` (P243); the order (`ordering`) is read here.
 *
 * - `created_at` ordering (the default, either way): the partner's collection (COLLECTION), or the slot of the most
 *   selective exact filter, walked with a cursor like the jobs list;
 * - `name`, `status`, `updated_at` ordering: a keys-only index whose sort key is that order (APPLIED, DUE,
 *   UPDATED); a filter matching many companies is applied in memory while walking it, a filter matching few is
 *   read whole (its slot) and sorted in memory;
 * - `name` and `search` (contains): the partner's search document (P179), or the slim projection when reading
 *   the matches whole would cost more, then sorted in memory and only the page's items read;
 * - totals: the partner's counter item for the unfiltered list and single exact filters.
 * - several `status` values: their counters count; the order's index is walked, or few matches are found
 *   in their slots (P178).
 * What none of these serve (several `ordering` terms, a search term containing a line break, a company-scoped
 * key) reads the candidates whole, as before. The spec's semantics, which every plan answers
 * (`parseCompanyFilter`, `matchesCompany`, `compareCompanies`), are defined here too.
 */
import { batchGetItems, primaryKeyOf, queryItemsByKeys } from '#platform/batch.js';
import { counterReader } from '#platform/counts.js';
import { readFilters, type FilterValues } from '#platform/filters.js';
import { createdAtOfCollectionSort, indexKeys, keys } from '#platform/keys.js';
import { sortKeyOf, type IndexName } from '#platform/table.js';
import { readKeys, readPage, type CollectionQuery, type Condition } from '#platform/paged-query.js';
import { chooseSource, countPartition, type SourceCandidate } from '#platform/paged-sources.js';
import { envelope, makeCursor, pageRequest, type LinkContext, type PageEnvelope, type PageRequest } from '#platform/pagination.js';
import { stringParam, type QueryParams } from '#platform/query-params.js';
import { SEARCH_SEPARATOR, readSearchDocument, type SearchEntry } from '#companies/company-search.js';
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
// Filters and order: the spec's semantics, which the index plans below answer

/** The list's query parameters, in the document's order (a cursor is bound to them). */
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

/** The list order; also applied to slim index entries, which carry only the ordering fields (name lower-cased). */
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
 * How a page of a filter's `matches` among the partner's `total` companies is read at least cost, in units
 * per page (P252): `whole`, every match read and sorted in memory (not in created order); `items`, the
 * order's index walked and each entry's item read and checked; `keys`, the filter's slots read as keys, then
 * the order's index walked as keys passing over the rest (in created order: the slots' keys merged), so only
 * the page's items are read.
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

/** The plan of one list request: an index walk with cursors, or a small candidate set sorted in memory. */
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

/** Filters, orders and pages candidate records in memory (the spec's semantics, `matchesCompany`/`compareCompanies`). */
async function inMemory(candidates: Promise<CompanyRecord[]>, filter: CompanyFilter, request: PageRequest) {
  const matching = (await candidates).filter((c) => matchesCompany(c, filter)).sort(compareCompanies(filter.ordering));
  return { count: matching.length, page: pageOf(matching, request) };
}

/** Every company of a partner, whole (COLLECTION's keys, then the items by key, P234): only for what no index serves. */
async function partnerCompanies(partnerId: number): Promise<CompanyRecord[]> {
  const items = await queryItemsByKeys({
    IndexName: 'COLLECTION',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': indexKeys.partnerCompanies(partnerId) },
  });
  return items.map(fromItem);
}

/** Companies by id, whole (one BatchGet per 100), in the order given; one gone meanwhile is left out. */
async function companiesById(ids: number[]): Promise<CompanyRecord[]> {
  const items = await batchGetItems(ids.map((id) => keys.company(id)));
  return ids.flatMap((id) => {
    const item = items.get(primaryKeyOf(keys.company(id)));
    return item ? [fromItem(item)] : [];
  });
}

/** The id of the company a key entry names (`COMPANY#<id>`). */
const entryId = (entry: Record<string, unknown>) => Number(String(entry.PK).slice('COMPANY#'.length));

/** The whole companies of an exact filter's slot (keys, then one BatchGet per 100). */
async function slotCompanies(query: CollectionQuery): Promise<CompanyRecord[]> {
  return companiesById((await readKeys(query)).map(entryId));
}

/** A contains filter present: the lower-case copy it reads (SLIM's attribute), and its value, lower case. */
type Scan = { copy: 'title_lc' | 'city_lc'; needle: string };
/** Where the search document's entry holds each copy. */
const ENTRY_FIELD = { title_lc: 2, city_lc: 3 } as const satisfies Record<Scan['copy'], keyof SearchEntry>;

/**
 * Contains filters on the slim projection: every match's slim entry (lower-case name and search text, status,
 * dates, keys) is read once and ordered in memory; only the page's items are read whole.
 */
async function slimPage(partnerId: number, scans: Scan[], statuses: string[], filter: CompanyFilter, request: PageRequest) {
  const conditions: Condition[] = scans.map(({ copy, needle }) => ({ attr: copy, op: 'contains' as const, value: needle }));
  if (statuses.length) conditions.push({ attr: 'status', op: 'in', value: statuses });
  const entries = await readKeys({ index: 'SLIM', partitionValue: indexKeys.partnerCompanies(partnerId), conditions });
  const sortable = entries.map((e) => ({
    id: entryId(e),
    name: String(e.title_lc ?? ''),
    status: e.status as CompanyRecord['status'],
    created_at: createdAtOfCollectionSort(String(e.GSI1SK)),
    updated_at: String(e.updated_at ?? ''),
  }));
  sortable.sort(compareCompanies(filter.ordering));
  return { count: sortable.length, page: await companiesById(pageOf(sortable, request).map((s) => s.id)) };
}

/** What the slim projection costs per company scanned (units; ~220-byte entries, P179). */
const SLIM_UNITS_PER_COMPANY = 0.03;

/**
 * Contains filters (with `status`) on the partner's search document (P179): a few kilobytes for all its
 * companies, whose matches are then read whole and ordered (the document holds no dates). The slim
 * projection answers instead when reading the matches whole would cost more than scanning the slim entries.
 */
async function searchPage(
  partnerId: number,
  scans: Scan[],
  statuses: string[],
  filter: CompanyFilter,
  request: PageRequest,
  total: () => Promise<number>,
) {
  const [entries, companies] = await Promise.all([readSearchDocument(partnerId), total()]);
  const wanted = new Set(statuses);
  const ids = entries
    .filter(
      (entry) => scans.every(({ copy, needle }) => entry[ENTRY_FIELD[copy]].includes(needle)) && (!wanted.size || wanted.has(entry[1])),
    )
    .map(([id]) => id);
  if (ids.length > request.pageSize && ids.length * 0.5 > SLIM_UNITS_PER_COMPANY * companies)
    return slimPage(partnerId, scans, statuses, filter, request);
  return inMemory(companiesById(ids), filter, request);
}

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
  // The status first (of equally small slots the first is chosen), then the single-valued exact filters.
  const exact = new Map<CompanySlotFilter, string | boolean>(statuses.length === 1 ? [['status', statuses[0]]] : []);
  for (const name of COMPANY_EXACT_FILTERS) {
    const value = values.get(name);
    if (value !== undefined && !Array.isArray(value)) exact.set(name, value as string | boolean);
  }
  const scans: Scan[] = COMPANY_SCAN_FILTERS.filter((d) => values.has(d.name)).map((d) => ({
    copy: d.serve.scan.copy,
    needle: String(values.get(d.name)).toLowerCase(),
  }));
  const [first, ...more] = ordering;
  if (more.length || scans.some((s) => s.needle.includes(SEARCH_SEPARATOR)))
    return { memory: () => inMemory(partnerCompanies(partnerId), filter, request) };

  const conditions: Condition[] = [...exact].map(([attr, value]) => ({ attr, op: 'eq' as const, value }));
  const ascending = !first.descending;
  const created = first.field === 'created_at';
  // The `status` order (`<status>#<id>`) under a `status` filter: only the run from its first status to its last.
  const [low, high] = first.field === 'status' && statuses.length ? [[...statuses].sort()[0], [...statuses].sort().at(-1)] : [];
  const run = COMPANY_STATUSES.filter((s) => low !== undefined && high !== undefined && s >= low && s <= high);
  const orderTotal = async () =>
    run.length ? (await Promise.all(run.map((s) => counted(counterKey, `status#${s}`)))).reduce((a, b) => a + b, 0) : partnerTotal();
  /** The order's own index (COLLECTION in created order). */
  const inOrder = (where: Condition[]): CollectionQuery => ({
    index: created ? 'COLLECTION' : COMPANY_ORDER_INDEXES[first.field as Exclude<OrderingField, 'created_at'>],
    partitionValue: collection,
    conditions: where,
    ascending,
    ...(created ? {} : { ordered: true }),
    ...(run.length ? { sortKeyFrom: `${low}#`, sortKeyTo: `${high}#~` } : {}),
  });
  /**
   * The cheapest read of `matches` companies, those of `slots` (`cheapestRead`): read whole (`whole`), or a
   * walk of the order's index with `matches` known, reading ahead by their share, checking `where` on the items
   * it reads, or passing over the companies outside the slots by their keys. A cursor's walk stays a walk.
   */
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
      : () => countPartition({ ...query, conditions: [] });
    return { query, size };
  });
  const smallest = async () => {
    const sizes = await Promise.all(candidates.map((c) => c.size()));
    const i = sizes.indexOf(Math.min(...sizes));
    return { candidate: candidates[i], size: sizes[i] };
  };
  const readWhole = (candidate: SourceCandidate): Plan => ({ memory: () => inMemory(slotCompanies(candidate.query), filter, request) });

  if (scans.length || statuses.length > 1) {
    // The search document and the status slots carry the status only: another exact filter narrows by its slot.
    if ([...exact.keys()].some((name) => name !== 'status')) return readWhole((await smallest()).candidate);
    if (scans.length) return { memory: () => searchPage(partnerId, scans, statuses, filter, request, partnerTotal) };
    return severalStatuses();
  }

  if (created) {
    const chosen = await chooseSource(candidates, request.cursor?.position.index);
    return { walk: chosen ?? { ...inOrder(conditions), total: partnerTotal } };
  }

  // Ordered by name, status or updated_at: the ordering index, keys only, in list order.
  const ordered = inOrder(conditions);
  if (!candidates.length) return { walk: { ...ordered, total: partnerTotal } };
  // Several filters: the smallest slot read whole; one: its counter is the count, read the cheapest way.
  if (candidates.length > 1) return readWhole((await smallest()).candidate);
  const [only] = candidates;
  const matches = request.cursor?.position.index === ordered.index ? request.cursor.count : await only.size();
  return cheapest(matches, [only.query], conditions, () => readWhole(only));

  /**
   * Several `status` values and no other exact filter (the spec's repeated parameter): their total is the sum
   * of the partner's status counters, and they are read the cheapest way, their slots being the statuses'.
   */
  async function severalStatuses(): Promise<Plan> {
    const where: Condition[] = [{ attr: 'status', op: 'in', value: statuses }];
    const sizes = await Promise.all(statuses.map((s) => counted(counterKey, `status#${s}`)));
    const slots = statuses.map((status) => ({ ...companySource(partnerId, 'status', status), conditions: [] }));
    const found = async () => (await Promise.all(slots.map(slotCompanies))).flat();
    const whole = (): Plan => ({ memory: () => inMemory(found(), filter, request) });
    return cheapest(
      sizes.reduce((sum, size) => sum + size, 0),
      slots,
      where,
      whole,
    );
  }
}
